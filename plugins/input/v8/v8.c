/*
 * Input plugin "v8": the .cpuprofile JSON of Node (`node --cpu-prof`) and
 * Chrome DevTools ("Save profile"):
 *
 *     {"nodes": [{"id": 1, "callFrame": {"functionName": "(root)", "url": "",
 *                 "lineNumber": -1, ...}, "hitCount": 0, "children": [2, 3]}, ...],
 *      "startTime": T0, "endTime": T1, "samples": [ID, ...], "timeDeltas": [US, ...]}
 *
 * A frame is "FUNCTION (FILE:LINE)", as DevTools and speedscope show it:
 * FILE the url's last path component (the whole url when that is empty),
 * lineNumber 0-based in the file, 1-based here; "(anonymous)" when the
 * function name is empty, and just FUNCTION when the url is empty.  The
 * whole url goes with the frame as its module (host->frame_module), for
 * the outputs' tooltips.  --frame-names full keeps the names of before
 * 1.8: "FUNCTION URL:LINE".  The "(root)" node is not a frame; "(program)",
 * "(idle)" and "(garbage collector)" are.  Each entry of `samples` is at
 * startTime plus the running sum of timeDeltas (microseconds), so
 * time-ordered outputs work; a time beyond 64 bits of nanoseconds is an
 * error (sample_ns).  It weighs the time until the next sample (the last
 * one: until endTime), in ns as perf's cpu-clock (so pprof's
 * cpu/nanoseconds), as DevTools and speedscope weigh it;
 * --sample-type samples counts each once instead (unit "samples"), as do
 * profiles without timeDeltas.  A profile without
 * `samples` falls back to each node's hitCount, without times.  Nodes may
 * name their parent ("parent", as Chrome's trace events do) instead of
 * their children.
 *
 * The old format (node 10 and older, DevTools before 2016) nests its nodes
 * in a "head" tree, lineNumber 1-based, startTime and endTime in seconds
 * and "timestamps" (microseconds) in place of timeDeltas; libfkcpuhead
 * (plugins/lib/cpuhead) reads the tree without recursion and hands each
 * node on as a current one, so that everything below treats both alike
 * but for the times (duration, read_samples).
 *
 * The JSON is streamed through yajl (Debian's libyajl-dev, json.c), which
 * keeps only the node table and the sample arrays: the document-tree
 * libraries Debian 12 has (cJSON, json-c, jansson) hold the whole file as
 * a tree, 1.2 GB for a 109 MB profile, and yajl parses it faster too
 * (doc/BENCHMARKS.md has the figures).  This file turns the nodes into
 * stacks and pushes the samples.
 */
#define _GNU_SOURCE /* memmem */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fk_json.h"
#include "v8.h"
#include "../common/time.h"
#include "vector/fkvector.h"

struct idx {
	double id;
	size_t i;
};

struct opts {
	const char *sample_type;
	const char *frame_names;
};

static const struct fk_option options[] = {
	FK_OPTION(FK_OPT_STRING, "sample-type", "time", struct opts, sample_type,
	          "time: weigh each sample by the time until the next one (in ns, as DevTools and speedscope); "
	          "samples: count each once"),
	FK_OPTION(FK_OPT_STRING, "frame-names", "short", struct opts, frame_names,
	          "short: FUNCTION (FILE:LINE), FILE the url's last path component, as DevTools shows "
	          "frames; full: FUNCTION URL:LINE"),
	FK_OPTION_END,
};

struct ctx {
	const struct fk_host *h;
	struct fk_input *in;
	struct v8_prof p;
	struct idx *ids;
	size_t *dense;        /* dense[id] = index + 1 (0: none) when ids are small */
	size_t ndense;
	struct fk_frameref *refs;
	size_t cap_refs;
	size_t *walk;         /* node_of's path up, p.n entries */
};

static int cmp_idx(const void *a, const void *b)
{
	const struct idx *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* The index of the node called id (V8_NONE for none; NAN is never found). */
static size_t find(const struct ctx *c, double id)
{
	struct idx key = { id, 0 };
	const struct idx *r;

	if (c->dense) /* V8 numbers its nodes 1..n: a table, not a search */
		return id >= 0 && id < (double)c->ndense && id == floor(id) ? c->dense[(size_t)id] - 1 : V8_NONE;
	r = id == id ? bsearch(&key, c->ids, c->p.n, sizeof *c->ids, cmp_idx) : NULL;
	return r ? r->i : V8_NONE;
}

static int bad(struct ctx *c, const char *fmt, const char *what, double num)
{
	return c->h->input_error(c->in, 0, fmt, what, num);
}

/* Ids sorted for find, then every node's parent from its own "parent" or
 * its parent's "children". */
static int link_nodes(struct ctx *c)
{
	struct v8_node *v = c->p.v;
	size_t n = c->p.n;

	if (!(c->ids = c->h->alloc((n ? n : 1) * sizeof *c->ids)))
		return FK_ERR_NOMEM;
	for (size_t k = 0; k < n; k++) {
		c->ids[k].id = v[k].id;
		c->ids[k].i = k;
	}
	qsort(c->ids, n, sizeof *c->ids, cmp_idx);
	for (size_t i = 1; i < n; i++)
		if (c->ids[i].id == c->ids[i - 1].id)
			return bad(c, "not a V8 profile: node id %s%.0f is used twice", "", c->ids[i].id);
	if (n > 0 && c->ids[0].id >= 0 && c->ids[n - 1].id < 2.0 * (double)n + 16 &&
	    (c->dense = c->h->alloc(((size_t)c->ids[n - 1].id + 1) * sizeof *c->dense)) != NULL) {
		size_t nd = (size_t)c->ids[n - 1].id + 1;
		int whole = 1;
		memset(c->dense, 0, nd * sizeof *c->dense);
		for (size_t i = 0; i < n && whole; i++) {
			whole = c->ids[i].id == floor(c->ids[i].id);
			c->dense[(size_t)c->ids[i].id] = c->ids[i].i + 1;
		}
		c->ndense = nd;
		if (!whole) { /* fractional ids: search instead */
			c->h->free(c->dense);
			c->dense = NULL;
		}
	}
	for (size_t k = 0; k < n; k++) {
		if (v[k].parent_id == v[k].parent_id) {
			size_t p = find(c, v[k].parent_id);
			if (p == V8_NONE)
				return bad(c, "not a V8 profile: node %s%.0f names a parent that is not a node", "", v[k].id);
			v[k].parent = p;
		}
		for (size_t j = v[k].kid_start; j < v[k].kid_end; j++) {
			size_t ch = find(c, c->p.kids[j]);
			if (ch == V8_NONE)
				return bad(c, "not a V8 profile: node %s%.0f has a child that is not a node", "", v[k].id);
			if (v[ch].parent != V8_NONE && v[ch].parent != k)
				return bad(c, "not a V8 profile: node %s%.0f has two parents", "", v[ch].id);
			v[ch].parent = k;
		}
	}
	return 0;
}

/* Node d's frame: its name, and its url as the module. */
static void frameref(const struct ctx *c, const struct v8_node *d, struct fk_frameref *r)
{
	memset(r, 0, sizeof *r);
	r->name = c->p.text + d->name_off;
	r->len = d->name_len;
	if (d->url_len) {
		r->module = c->p.text + d->url_off;
		r->module_len = d->url_len;
	}
}

/* Node k's stack, root first, into c->refs. */
static int stack_of(struct ctx *c, size_t k, size_t *n)
{
	const struct v8_node *v = c->p.v;
	size_t m = 0, steps = 0;

	/* steps, not m, bounds the walk: a "(root)" node adds no frame, so
	   a cycle through one would never make m grow */
	for (size_t j = k; j != V8_NONE; j = v[j].parent) {
		if (++steps > c->p.n)
			return bad(c, "not a V8 profile: the parents of node %s%.0f form a cycle", "", v[k].id);
		m += !v[j].is_root;
	}
	if (fk_vector_grow((void **)&c->refs, &c->cap_refs, m, sizeof *c->refs, c->h->realloc) < 0)
		return FK_ERR_NOMEM;
	*n = m;
	for (size_t j = k; j != V8_NONE; j = v[j].parent) {
		struct fk_frameref *r;
		if (v[j].is_root)
			continue;
		r = &c->refs[--m];
		frameref(c, &v[j], r);
	}
	return 0;
}

/* Node k's stack as a tree node, through push_child (ABI 1.6): up from k
 * to the first node whose stack is known (the root's is FK_NODE_ROOT),
 * then down again, one frame per node, so every node is named once and a
 * chain of n nodes costs n, not n squared.  *node is FK_NODE_NONE when
 * the host cannot do it (an older engine, per-sample filters): the caller
 * pushes the frames. */
static int node_of(struct ctx *c, struct fk_sink *sink, size_t k, fk_node_t *node)
{
	struct v8_node *v = c->p.v;
	size_t m = 0, top;
	int rc;

	*node = FK_NODE_NONE;
	if (!FK_HOST_HAS(c->h, push_child))
		return 0;
	if (!c->walk && !(c->walk = c->h->alloc((c->p.n ? c->p.n : 1) * sizeof *c->walk)))
		return FK_ERR_NOMEM;
	for (top = k; top != V8_NONE && v[top].leaf == FK_NODE_NONE; top = v[top].parent) {
		if (m == c->p.n)
			return bad(c, "not a V8 profile: the parents of node %s%.0f form a cycle", "", v[k].id);
		c->walk[m++] = top;
	}
	*node = top == V8_NONE ? FK_NODE_ROOT : v[top].leaf;
	while (m--) {
		struct v8_node *d = &v[c->walk[m]];
		struct fk_frameref r;
		if (!d->is_root) {
			frameref(c, d, &r);
			if ((rc = c->h->push_child(sink, *node, &r, node)) < 0)
				return rc;
			if (*node == FK_NODE_NONE)
				return 0;
		}
		d->leaf = *node;
	}
	return 0;
}

/* One sample of node k, at time_ns when timed. */
static int push(struct ctx *c, struct fk_sink *sink, size_t k, double w, int timed, int64_t time_ns)
{
	struct fk_sample smp;
	size_t n = 0;
	int rc;

	memset(&smp, 0, sizeof smp);
	smp.weight[0] = w;
	if (timed) {
		smp.flags = FK_SAMPLE_TIME;
		smp.time_ns = time_ns;
	}
	if (c->p.v[k].leaf == FK_NODE_NONE && (rc = node_of(c, sink, k, &c->p.v[k].leaf)) < 0)
		return rc;
	if (c->p.v[k].leaf != FK_NODE_NONE)
		return c->h->push_node(sink, c->p.v[k].leaf, &smp);
	if ((rc = stack_of(c, k, &n)) < 0)
		return rc;
	smp.frames = c->refs;
	smp.nframes = n;
	return c->h->push(sink, &smp, &c->p.v[k].leaf);
}

/* Sample i's time, t_us microseconds, in nanoseconds.  A time beyond
 * FK_TIME_NS_LIMIT (infinite, or infinities that cancelled, too) is an
 * error, not a clamped value (common/time.h says why). */
static int sample_ns(struct ctx *c, size_t i, double t_us, int64_t *ns)
{
	double x = t_us * 1000;

	if (t_us != t_us)
		return c->h->input_error(c->in, 0, "not a V8 profile: sample number %zu has no time: "
		                         "startTime plus timeDeltas up to number %zu is not a number "
		                         "(infinities that cancel)", i + 1, i + 1);
	if (!fk_time_ns_fits(x))
		return c->h->input_error(c->in, 0, "not a V8 profile: sample number %zu is at %g "
		                         "microseconds (%s number %zu), beyond the " FK_TIME_YEARS
		                         " years either side of 0 that flamekit's times hold", i + 1, t_us,
		                         c->p.has_head ? "timestamp" : "startTime plus timeDeltas up to",
		                         i + 1);
	*ns = (int64_t)llround(x);
	return 0;
}

/* What sample i, at t, weighs by time, in ns: the delta to the next
 * sample, the last one's the time left to endTime (0 without one); never
 * negative (V8's deltas can be, when samples come out of order).  The old
 * format's times are the next timestamp less this one, and endTime (in
 * seconds) less it, rounded to a whole ns, as seconds with nine decimals
 * hold ns. */
static double duration(const struct v8_prof *p, size_t i, double t)
{
	double d;

	if (p->has_head) {
		d = i + 1 < p->nsamples ? p->stamps[i + 1] - t : p->has_end ? p->end * 1e6 - t : 0;
		return d > 0 && d == d ? round(d * 1000) : 0;
	}
	d = i + 1 < p->nsamples ? p->deltas[i + 1] : p->has_end ? p->end - t : 0;
	return d > 0 && d == d ? d * 1000 : 0; /* us -> ns */
}

/* Whether every sample has a time: a delta, or in the old format a
 * timestamp. */
static int timed(const struct v8_prof *p)
{
	if (!p->has_samples)
		return 0;
	return p->has_head ? p->has_stamps && p->nstamps == p->nsamples :
	                     p->has_deltas && p->ndeltas == p->nsamples;
}

static int read_samples(struct ctx *c, struct fk_sink *sink, int by_time)
{
	const struct v8_prof *p = &c->p;
	const double *times = p->has_head ? p->stamps : p->deltas;
	double t = p->start;
	int64_t ns = 0;
	int is_timed = timed(p), rc;

	if (!p->has_samples) {
		/* no sample list: each node's hitCount, without times */
		for (size_t k = 0; k < p->n; k++)
			if (p->v[k].hits > 0 && (rc = push(c, sink, k, p->v[k].hits, 0, 0)) < 0)
				return rc;
		return 0;
	}
	for (size_t i = 0; i < p->nsamples; i++) {
		size_t k = find(c, p->samples[i]);
		if (k == V8_NONE)
			return bad(c, "not a V8 profile: sample %s%.0f is not the id of a node", "number ", (double)i + 1);
		if (is_timed) {
			if (times[i] != times[i])
				return bad(c, "not a V8 profile: %s %.0f is not a number",
				           p->has_head ? "timestamp number" : "time delta number", (double)i + 1);
			t = p->has_head ? times[i] : t + times[i];
			if ((rc = sample_ns(c, i, t, &ns)) < 0)
				return rc;
		}
		if ((rc = push(c, sink, k, is_timed && by_time ? duration(p, i, t) : 1, is_timed, ns)) < 0)
			return rc;
	}
	if (p->has_head ? p->has_stamps && !is_timed : p->has_deltas && !is_timed)
		c->h->log(FK_LOG_WARN, "%s: \"%s\" has %zu entries for %zu samples; samples have no times",
		          c->h->input_name(c->in), p->has_head ? "timestamps" : "timeDeltas",
		          p->has_head ? p->nstamps : p->ndeltas, p->nsamples);
	return 0;
}

static int parse(const struct fk_host *h, struct fk_input *in, struct fk_sink *sink, const void *op)
{
	struct ctx c = { .h = h, .in = in };
	const struct opts *o = op;
	const char *type = o && o->sample_type ? o->sample_type : "time";
	const char *names = o && o->frame_names ? o->frame_names : "short";
	int by_time = strcmp(type, "time") == 0, rc;

	if (!by_time && strcmp(type, "samples") != 0)
		return h->input_error(in, 0, "no sample type '%s' in a V8 profile (it has: time, samples)", type);
	if (strcmp(names, "short") != 0 && strcmp(names, "full") != 0)
		return h->input_error(in, 0, "no frame names '%s' for a V8 profile (it has: short, full)", names);
	c.p.full_names = names[0] == 'f';
	if ((rc = v8_read(h, in, &c.p)) < 0)
		goto out_reported; /* out of memory too */
	if ((rc = link_nodes(&c)) < 0 || (rc = read_samples(&c, sink, by_time)) < 0)
		goto out;
	if (h->sink_set_unit) /* by time only where every sample has one */
		h->sink_set_unit(sink, by_time && timed(&c.p) ? "ns" : "samples");
out:
	if (rc == FK_ERR_NOMEM)
		h->input_error(in, 0, "out of memory");
out_reported:
	v8_prof_free(h, &c.p);
	h->free(c.ids);
	h->free(c.dense);
	h->free(c.refs);
	h->free(c.walk);
	return rc;
}

/* Detection: a JSON object whose first keys include "nodes" with a
 * "callFrame" soon after; Node writes {"nodes":[{"id":1,"callFrame":...
 * The old format: "head" a key of the top object, its nodes' functionName
 * and hitCount or callUID, and no callFrame (a sampling heap profile,
 * .heapprofile, has a "head" of nodes with callFrames and selfSize). */
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
	if (fk_json_top_key(buf + i, len - i, "head") && fk_json_has_key(buf, len, "functionName") &&
	    (fk_json_has_key(buf, len, "hitCount") || fk_json_has_key(buf, len, "callUID")) &&
	    !fk_json_has_key(buf, len, "callFrame"))
		return 90;
	return 0;
}

static struct fk_input_plugin plugin = {
	.h = {
		.name = "v8",
		.version = "1.0",
		.description = "V8 .cpuprofile JSON (node --cpu-prof, Chrome DevTools)",
		.options = options,
		.options_size = sizeof(struct opts),
	},
	.probe = probe,
	.parse = parse,
	/* JavaScript names pass unchanged; a wasm function named by its
	 * mangled symbol reads as its source language writes it */
	.demangle = FK_DEMANGLE_FULL,
};

FLAMEKIT_REGISTER_INPUT(plugin)
