/*
 * Input plugin "v8": the .cpuprofile JSON of Node (`node --cpu-prof`) and
 * Chrome DevTools ("Save profile"):
 *
 *     {"nodes": [{"id": 1, "callFrame": {"functionName": "(root)", "url": "",
 *                 "lineNumber": -1, ...}, "hitCount": 0, "children": [2, 3]}, ...],
 *      "startTime": T0, "endTime": T1, "samples": [ID, ...], "timeDeltas": [US, ...]}
 *
 * A frame is "FUNCTION URL:LINE" (lineNumber is 0-based in the file, 1-based
 * here), "(anonymous)" when the function name is empty, and just FUNCTION
 * when the url is empty.  The "(root)" node is not a frame; "(program)",
 * "(idle)" and "(garbage collector)" are.  Each entry of `samples` counts
 * once (unit "samples"), at startTime plus the running sum of timeDeltas
 * (microseconds), so time-ordered outputs work.  A profile without
 * `samples` falls back to each node's hitCount, without times.  Nodes may
 * name their parent ("parent", as Chrome's trace events do) instead of
 * their children.
 *
 * The JSON library is cJSON (Debian's libcjson-dev): of the C libraries
 * Debian 12 packages (it has no yyjson; simdjson is C++), it parsed a
 * 109 MB .cpuprofile (300,000 nodes, 4 million samples) in 1.6 s, against
 * 3.4 s for json-c and 4.5 s for jansson, with 1.1 GB resident (jansson
 * 0.93 GB, json-c 1.4 GB); measured on this project's build machine, see
 * doc/pending-interop.md.  Its nesting limit (1,000) keeps hostile input
 * from exhausting the stack.  cJSON allocates with malloc: its hooks are
 * process-wide, so this plugin leaves them alone.
 */
#define _GNU_SOURCE /* memmem */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include <flamekit/plugin.h>

struct node {
	double id;
	size_t parent;        /* index, or SIZE_MAX for none */
	size_t name_off, name_len;
	int is_root;          /* the "(root)" node: not a frame */
	fk_node_t leaf;       /* cached push result, FK_NODE_NONE until known */
	double hits;
};

struct idx {
	double id;
	size_t i;
};

struct ctx {
	const struct fk_host *h;
	struct fk_input *in;
	struct node *v;
	size_t n;
	struct idx *ids;
	char *text;
	size_t tlen, tcap;
	struct fk_frameref *refs;
	size_t cap_refs;
};

#define NONE ((size_t)-1)

static int cmp_idx(const void *a, const void *b)
{
	const struct idx *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

static size_t find(const struct ctx *c, double id)
{
	struct idx key = { id, 0 };
	const struct idx *r = bsearch(&key, c->ids, c->n, sizeof *c->ids, cmp_idx);
	return r ? r->i : NONE;
}

static int bad(struct ctx *c, const char *fmt, const char *what, double num)
{
	return c->h->input_error(c->in, 0, fmt, what, num);
}

static int add_text(struct ctx *c, const char *s, size_t n)
{
	if (c->tlen + n > c->tcap) {
		size_t nc = c->tcap ? c->tcap : 65536;
		char *nt;
		while (nc < c->tlen + n)
			nc *= 2;
		nt = c->h->realloc(c->text, nc);
		if (!nt)
			return FK_ERR_NOMEM;
		c->text = nt;
		c->tcap = nc;
	}
	memcpy(c->text + c->tlen, s, n);
	c->tlen += n;
	return 0;
}

static const char *str_member(const cJSON *o, const char *key)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(m) ? m->valuestring : NULL;
}

/* Node k's frame name, "FUNCTION URL:LINE", into the text buffer. */
static int node_name(struct ctx *c, size_t k, const cJSON *cf)
{
	const char *fn = str_member(cf, "functionName"), *url = str_member(cf, "url");
	const cJSON *ln = cJSON_GetObjectItemCaseSensitive(cf, "lineNumber");
	size_t off = c->tlen;
	int rc;

	if (!fn || !url)
		return bad(c, "not a V8 profile: node %s%.0f has a callFrame without functionName or url",
		           "", c->v[k].id);
	c->v[k].is_root = strcmp(fn, "(root)") == 0 && !*url;
	rc = add_text(c, *fn ? fn : "(anonymous)", *fn ? strlen(fn) : 11);
	if (rc == 0 && *url) {
		char num[32] = "";
		if (cJSON_IsNumber(ln) && ln->valuedouble >= 0 && ln->valuedouble < 1e15)
			snprintf(num, sizeof num, ":%.0f", ln->valuedouble + 1);
		rc = add_text(c, " ", 1);
		if (rc == 0)
			rc = add_text(c, url, strlen(url));
		if (rc == 0)
			rc = add_text(c, num, strlen(num));
	}
	c->v[k].name_off = off;
	c->v[k].name_len = c->tlen - off;
	return rc;
}

/* Read "nodes": ids, names, then parents from children (or parent). */
static int read_nodes(struct ctx *c, const cJSON *nodes)
{
	const cJSON *nd;
	size_t k = 0;
	int rc;

	c->n = (size_t)cJSON_GetArraySize(nodes);
	c->v = c->h->alloc((c->n ? c->n : 1) * sizeof *c->v);
	c->ids = c->h->alloc((c->n ? c->n : 1) * sizeof *c->ids);
	if (!c->v || !c->ids)
		return FK_ERR_NOMEM;
	cJSON_ArrayForEach(nd, nodes) {
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(nd, "id");
		const cJSON *cf = cJSON_GetObjectItemCaseSensitive(nd, "callFrame");
		const cJSON *hc = cJSON_GetObjectItemCaseSensitive(nd, "hitCount");
		if (!cJSON_IsNumber(id) || !cJSON_IsObject(cf))
			return bad(c, "not a V8 profile: node %s%.0f of \"nodes\" has no numeric id or no callFrame",
			           "number ", (double)k + 1);
		c->v[k].id = id->valuedouble;
		c->v[k].parent = NONE;
		c->v[k].leaf = FK_NODE_NONE;
		c->v[k].hits = cJSON_IsNumber(hc) ? hc->valuedouble : 0;
		c->ids[k].id = id->valuedouble;
		c->ids[k].i = k;
		if ((rc = node_name(c, k, cf)) < 0)
			return rc;
		k++;
	}
	qsort(c->ids, c->n, sizeof *c->ids, cmp_idx);
	for (size_t i = 1; i < c->n; i++)
		if (c->ids[i].id == c->ids[i - 1].id)
			return bad(c, "not a V8 profile: node id %s%.0f is used twice", "", c->ids[i].id);
	k = 0;
	cJSON_ArrayForEach(nd, nodes) {
		const cJSON *kids = cJSON_GetObjectItemCaseSensitive(nd, "children"), *kid;
		const cJSON *par = cJSON_GetObjectItemCaseSensitive(nd, "parent");
		if (cJSON_IsNumber(par)) {
			size_t p = find(c, par->valuedouble);
			if (p == NONE)
				return bad(c, "not a V8 profile: node %s%.0f names a parent that is not a node", "", c->v[k].id);
			c->v[k].parent = p;
		}
		if (!cJSON_IsArray(kids))
			kids = NULL;
		cJSON_ArrayForEach(kid, kids) {
			size_t ch = cJSON_IsNumber(kid) ? find(c, kid->valuedouble) : NONE;
			if (ch == NONE)
				return bad(c, "not a V8 profile: node %s%.0f has a child that is not a node", "", c->v[k].id);
			if (c->v[ch].parent != NONE && c->v[ch].parent != k)
				return bad(c, "not a V8 profile: node %s%.0f has two parents", "", c->v[ch].id);
			c->v[ch].parent = k;
		}
		k++;
	}
	return 0;
}

/* Node k's stack, root first, into c->refs. */
static int stack_of(struct ctx *c, size_t k, size_t *n)
{
	size_t m = 0, steps = 0;

	/* steps, not m, bounds the walk: a "(root)" node adds no frame, so
	   a cycle through one would never make m grow */
	for (size_t j = k; j != NONE; j = c->v[j].parent) {
		if (++steps > c->n)
			return bad(c, "not a V8 profile: the parents of node %s%.0f form a cycle", "", c->v[k].id);
		m += !c->v[j].is_root;
	}
	if (m > c->cap_refs) {
		struct fk_frameref *r = c->h->realloc(c->refs, m * sizeof *r);
		if (!r)
			return FK_ERR_NOMEM;
		c->refs = r;
		c->cap_refs = m;
	}
	*n = m;
	for (size_t j = k; j != NONE; j = c->v[j].parent) {
		struct fk_frameref *r;
		if (c->v[j].is_root)
			continue;
		r = &c->refs[--m];
		memset(r, 0, sizeof *r);
		r->name = c->text + c->v[j].name_off;
		r->len = c->v[j].name_len;
	}
	return 0;
}

/* One sample of node k. */
static int push(struct ctx *c, struct fk_sink *sink, size_t k, double w, int timed, double t_us)
{
	struct fk_sample smp;
	size_t n = 0;
	int rc;

	memset(&smp, 0, sizeof smp);
	smp.weight[0] = w;
	if (timed) {
		smp.flags = FK_SAMPLE_TIME;
		smp.time_ns = (int64_t)llround(t_us * 1000);
	}
	if (c->v[k].leaf != FK_NODE_NONE)
		return c->h->push_node(sink, c->v[k].leaf, &smp);
	if ((rc = stack_of(c, k, &n)) < 0)
		return rc;
	smp.frames = c->refs;
	smp.nframes = n;
	return c->h->push(sink, &smp, &c->v[k].leaf);
}

static int read_samples(struct ctx *c, struct fk_sink *sink, const cJSON *root)
{
	const cJSON *samples = cJSON_GetObjectItemCaseSensitive(root, "samples");
	const cJSON *deltas = cJSON_GetObjectItemCaseSensitive(root, "timeDeltas");
	const cJSON *start = cJSON_GetObjectItemCaseSensitive(root, "startTime");
	const cJSON *s, *d;
	double t = cJSON_IsNumber(start) ? start->valuedouble : 0;
	size_t i = 0;
	int timed, rc;

	if (!cJSON_IsArray(samples)) {
		/* no sample list: each node's hitCount, without times */
		for (size_t k = 0; k < c->n; k++)
			if (c->v[k].hits > 0 && (rc = push(c, sink, k, c->v[k].hits, 0, 0)) < 0)
				return rc;
		return 0;
	}
	timed = cJSON_IsArray(deltas) && cJSON_GetArraySize(deltas) == cJSON_GetArraySize(samples);
	d = timed ? deltas->child : NULL;
	cJSON_ArrayForEach(s, samples) {
		size_t k = cJSON_IsNumber(s) ? find(c, s->valuedouble) : NONE;
		i++;
		if (k == NONE)
			return bad(c, "not a V8 profile: sample %s%.0f is not the id of a node", "number ", (double)i);
		if (timed) {
			if (!cJSON_IsNumber(d))
				return bad(c, "not a V8 profile: time delta %s%.0f is not a number", "number ", (double)i);
			t += d->valuedouble;
			d = d->next;
		}
		if ((rc = push(c, sink, k, 1, timed, t)) < 0)
			return rc;
	}
	if (cJSON_IsArray(deltas) && !timed)
		c->h->log(FK_LOG_WARN, "%s: \"timeDeltas\" has %d entries for %d samples; samples have no times",
		          c->h->input_name(c->in), cJSON_GetArraySize(deltas), cJSON_GetArraySize(samples));
	return 0;
}

/* The whole input: JSON is parsed in one piece. */
static int slurp(const struct fk_host *h, struct fk_input *in, char **out, size_t *outlen)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;
	ssize_t r;

	for (;;) {
		if (cap - len < 65536) {
			size_t nc = cap ? cap * 2 : 262144;
			char *nb = h->realloc(buf, nc);
			if (!nb) {
				h->free(buf);
				return FK_ERR_NOMEM;
			}
			buf = nb;
			cap = nc;
		}
		r = h->read(in, buf + len, cap - len);
		if (r < 0) {
			h->free(buf);
			return (int)r;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	*out = buf;
	*outlen = len;
	return 0;
}

/* Line and column of byte `off` of buf, for JSON syntax errors. */
static void where(const char *buf, size_t off, uint64_t *line, uint64_t *col)
{
	const char *nl;
	*line = 1;
	*col = off + 1;
	for (const char *p = buf; (nl = memchr(p, '\n', off - (size_t)(p - buf))) != NULL; p = nl + 1) {
		(*line)++;
		*col = off - (size_t)(nl + 1 - buf) + 1;
	}
}

static int parse(const struct fk_host *h, struct fk_input *in, struct fk_sink *sink, const void *op)
{
	struct ctx c = { .h = h, .in = in };
	cJSON *root = NULL;
	const cJSON *nodes;
	char *buf = NULL;
	size_t len = 0;
	int rc;

	(void)op;
	if ((rc = slurp(h, in, &buf, &len)) < 0)
		goto out;
	root = cJSON_ParseWithLength(buf, len);
	if (!root) {
		const char *e = cJSON_GetErrorPtr();
		uint64_t line = 0, col = 0;
		if (e && e >= buf && e <= buf + len)
			where(buf, (size_t)(e - buf), &line, &col);
		rc = len == 0 ? h->input_error(in, 0, "not a V8 profile: the input is empty") :
		     h->input_error(in, line, "not a V8 profile: the JSON does not parse (column %" PRIu64
		                    ": truncated, malformed, nested over 1000 deep or out of memory)", col);
		goto out;
	}
	nodes = cJSON_GetObjectItemCaseSensitive(root, "nodes");
	if (!cJSON_IsArray(nodes)) {
		rc = h->input_error(in, 0, "not a V8 profile: no \"nodes\" array at the top level");
		goto out;
	}
	if ((rc = read_nodes(&c, nodes)) < 0 || (rc = read_samples(&c, sink, root)) < 0)
		goto out;
	if (h->sink_set_unit)
		h->sink_set_unit(sink, "samples");
out:
	if (rc == FK_ERR_NOMEM)
		h->input_error(in, 0, "out of memory");
	cJSON_Delete(root);
	h->free(buf);
	h->free(c.v);
	h->free(c.ids);
	h->free(c.text);
	h->free(c.refs);
	return rc;
}

/* Detection: a JSON object whose first keys include "nodes" with a
 * "callFrame" soon after; Node writes {"nodes":[{"id":1,"callFrame":... */
static int probe(const unsigned char *buf, size_t len)
{
	size_t i = 0;
	const char *s = (const char *)buf;

	while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\r' || buf[i] == '\n'))
		i++;
	if (i >= len || buf[i] != '{')
		return 0;
	if (memmem(s + i, len - i, "\"nodes\"", 7) && memmem(s + i, len - i, "\"callFrame\"", 11))
		return memmem(s + i, len - i, "\"functionName\"", 14) ? 90 : 60;
	return 0;
}

static struct fk_input_plugin plugin = {
	.h = {
		.name = "v8",
		.version = "1.0",
		.description = "V8 .cpuprofile JSON (node --cpu-prof, Chrome DevTools)",
	},
	.probe = probe,
	.parse = parse,
};

FLAMEKIT_REGISTER_INPUT(plugin)
