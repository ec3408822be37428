/*
 * The .cpuprofile reader: yajl's streaming parser (Debian's libyajl-dev)
 * driven by libfkjson (plugins/lib/json, as the chrome, gecko and
 * speedscope readers are), with callbacks that keep the node table and
 * the "samples" and "timeDeltas" arrays and drop everything else as it
 * passes.  Memory follows the nodes and samples, not the file: a 109 MB
 * profile is read in 0.1 GB instead of cJSON's 1.2 GB document tree (see
 * doc/BENCHMARKS.md).
 *
 * Semantics are those of a document walk: the first of a repeated key
 * counts, members of the wrong type count as absent, and an error about
 * the content (a node without an id) is only reported once the whole text
 * has parsed, so a syntax error later in the file wins, as it did when the
 * document was parsed first.  Nesting deeper than 1,000 is refused (yajl
 * has no limit of its own).
 */
#define _GNU_SOURCE /* memrchr */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpuhead.h"
#include "fk_json.h"
#include "v8.h"

#define MAX_DEPTH FK_JSON_MAX_DEPTH

/* What an open container is; K_SKIP for anything the plugin ignores. */
enum kind { K_SKIP, K_TOP, K_NODES, K_NODE, K_CF, K_KIDS, K_SAMPLES, K_DELTAS, K_STAMPS };
/* The keys that matter, one bit each (first one wins). */
enum key { Y_OTHER, Y_NODES, Y_SAMPLES, Y_DELTAS, Y_START, Y_ID, Y_CF, Y_HITS, Y_KIDS,
           Y_PARENT, Y_FN, Y_URL, Y_LINE, Y_END, Y_HEAD, Y_STAMPS };

struct rd {
	const struct fk_host *h;
	struct fk_input *in;
	struct v8_prof *p;
	struct fk_json j;
	unsigned char kind[MAX_DEPTH + 1];
	unsigned char key[MAX_DEPTH + 1]; /* the key whose value comes next */
	unsigned depth;
	unsigned seen[3];     /* keys met in the top object, the node, its callFrame */
	/* the node being read */
	int has_id, has_cf, has_line;
	double id, hits, parent, line;
	size_t kid_start, kid_end;
	struct fk_json_str fn, url;
	struct fk_cpuhead head; /* the old format's tree, while it is open */
	char err[192];        /* the first content error, reported after the parse */
};

static const struct { unsigned char kind; const char *name; unsigned char key; } keys[] = {
	{ K_TOP, "nodes", Y_NODES }, { K_TOP, "samples", Y_SAMPLES },
	{ K_TOP, "timeDeltas", Y_DELTAS }, { K_TOP, "startTime", Y_START }, { K_TOP, "endTime", Y_END },
	{ K_TOP, "head", Y_HEAD }, { K_TOP, "timestamps", Y_STAMPS },
	{ K_NODE, "id", Y_ID }, { K_NODE, "callFrame", Y_CF }, { K_NODE, "hitCount", Y_HITS },
	{ K_NODE, "children", Y_KIDS }, { K_NODE, "parent", Y_PARENT },
	{ K_CF, "functionName", Y_FN }, { K_CF, "url", Y_URL }, { K_CF, "lineNumber", Y_LINE },
};

static int fail(struct rd *r, const char *fmt, ...) FK_PRINTF(2, 3);
static int fail(struct rd *r, const char *fmt, ...)
{
	va_list ap;

	if (!r->err[0]) {
		va_start(ap, fmt);
		vsnprintf(r->err, sizeof r->err, fmt, ap);
		va_end(ap);
	}
	return 1; /* parse on: a syntax error further on is reported instead */
}

/* Append x to *v (n of cap), growing it; 0 or -1 when out of memory. */
static int push_num(struct rd *r, double **v, size_t *n, size_t *cap, double x)
{
	if (fk_vector_grow((void **)v, cap, *n + 1, sizeof **v, r->h->realloc) < 0) {
		fk_json_nomem(&r->j);
		return -1;
	}
	(*v)[(*n)++] = x;
	return 0;
}

static int add_text(struct rd *r, const char *s, size_t n)
{
	struct v8_prof *p = r->p;

	if (FK_JSON_GROW(r->h, p->text, p->tcap, p->tlen + n) < 0) {
		fk_json_nomem(&r->j);
		return -1;
	}
	memcpy(p->text + p->tlen, s, n);
	p->tlen += n;
	return 0;
}

static void begin_node(struct rd *r)
{
	r->seen[1] = r->seen[2] = 0;
	r->has_id = r->has_cf = r->has_line = 0;
	r->hits = 0;
	r->parent = NAN;
	r->kid_start = r->kid_end = 0;
	r->fn.set = r->url.set = 0;
}

/* A node is complete: its checks, its name and url, its entry. */
static int end_node(struct rd *r)
{
	struct v8_prof *p = r->p;
	struct v8_node *nd;
	size_t off = p->tlen, uoff;

	if (!r->has_id || !r->has_cf)
		return fail(r, "not a V8 profile: node number %.0f of \"nodes\" has no numeric id or no "
		            "callFrame", (double)p->n + 1);
	if (!r->fn.set || !r->url.set)
		return fail(r, "not a V8 profile: node %.0f has a callFrame without functionName or url", r->id);
	if (FK_JSON_GROW(r->h, p->v, p->capv, p->n + 1) < 0)
		return fk_json_nomem(&r->j);
	if (add_text(r, r->fn.len ? r->fn.s : "(anonymous)", r->fn.len ? r->fn.len : 11) < 0)
		return 0;
	if (r->url.len) {
		char num[32] = "";
		const char *file = r->url.s;
		size_t flen = r->url.len;
		if (r->has_line && r->line >= 0 && r->line < 1e15)
			snprintf(num, sizeof num, ":%.0f", r->line + 1);
		if (!p->full_names) { /* the last path component, as DevTools shows it */
			const char *slash = memrchr(file, '/', flen);
			if (slash && slash + 1 < file + flen) {
				flen -= (size_t)(slash + 1 - file);
				file = slash + 1;
			}
		}
		if (add_text(r, p->full_names ? " " : " (", p->full_names ? 1 : 2) < 0 ||
		    add_text(r, file, flen) < 0 || add_text(r, num, strlen(num)) < 0 ||
		    (!p->full_names && add_text(r, ")", 1) < 0))
			return 0;
	}
	uoff = p->tlen;
	if (add_text(r, r->url.s, r->url.len) < 0)
		return 0;
	nd = &p->v[p->n++];
	memset(nd, 0, sizeof *nd);
	nd->id = r->id;
	nd->parent_id = r->parent;
	nd->kid_start = r->kid_start;
	nd->kid_end = r->kid_end;
	nd->name_off = off;
	nd->name_len = uoff - off;
	nd->url_off = uoff;
	nd->url_len = r->url.len;
	nd->is_root = r->fn.len == 6 && memcmp(r->fn.s, "(root)", 6) == 0 && r->url.len == 0;
	nd->hits = r->hits;
	nd->parent = V8_NONE;
	nd->leaf = FK_NODE_NONE;
	return 1;
}

/* A number, string or other scalar (null, true, false) in the open
 * container: type 'n', 's', 'z' or 'b' (fk_json.h), or 'a' for an array
 * or object where a scalar was due. */
static int scalar(void *ctx, int type, double num, const unsigned char *s, size_t len)
{
	struct rd *r = ctx;
	struct v8_prof *p = r->p;
	int isnum = type == 'n', isstr = type == 's';
	unsigned k = r->depth ? r->kind[r->depth] : K_SKIP, key = r->key[r->depth];
	double x = isnum ? num : NAN;

	if (fk_cpuhead_active(&r->head))
		return fk_cpuhead_scalar(&r->head, type, num, s, len);
	if (r->err[0])
		return 1;
	switch (k) {
	case K_NODES:
		return fail(r, "not a V8 profile: node number %.0f of \"nodes\" has no numeric id or no "
		            "callFrame", (double)p->n + 1);
	case K_KIDS:
		return push_num(r, &p->kids, &p->nkids, &p->capkids, x) == 0;
	case K_SAMPLES:
		return push_num(r, &p->samples, &p->nsamples, &p->capsamples, x) == 0;
	case K_DELTAS:
		return push_num(r, &p->deltas, &p->ndeltas, &p->capdeltas, x) == 0;
	case K_STAMPS:
		return push_num(r, &p->stamps, &p->nstamps, &p->capstamps, x) == 0;
	case K_TOP:
		if (key == Y_HEAD)
			return fail(r, "not a V8 profile: \"head\" is not an object");
		if (key == Y_START && isnum)
			p->start = num;
		else if (key == Y_END && isnum)
			p->end = num, p->has_end = 1;
		return 1;
	case K_NODE:
		if (key == Y_ID && isnum) {
			r->has_id = 1;
			r->id = num;
		} else if (key == Y_HITS && isnum) {
			r->hits = num;
		} else if (key == Y_PARENT && isnum) {
			r->parent = num;
		}
		return 1;
	case K_CF:
		if (key == Y_FN && isstr)
			return fk_json_str_set(&r->j, &r->fn, s, len);
		if (key == Y_URL && isstr)
			return fk_json_str_set(&r->j, &r->url, s, len);
		if (key == Y_LINE && isnum) {
			r->has_line = 1;
			r->line = num;
		}
		return 1;
	}
	return 1;
}

static int on_key(void *ctx, const unsigned char *s, size_t len)
{
	struct rd *r = ctx;
	unsigned k = r->kind[r->depth], level = k == K_TOP ? 0 : k == K_NODE ? 1 : 2;

	if (fk_cpuhead_active(&r->head))
		return fk_cpuhead_key(&r->head, s, len);
	r->key[r->depth] = Y_OTHER;
	if (k != K_TOP && k != K_NODE && k != K_CF)
		return 1;
	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
		if (keys[i].kind == k && strlen(keys[i].name) == len && !memcmp(keys[i].name, s, len)) {
			if (!(r->seen[level] & (1u << keys[i].key)))
				r->key[r->depth] = keys[i].key;
			r->seen[level] |= 1u << keys[i].key;
			break;
		}
	return 1;
}

static int open_container(struct rd *r, int is_map)
{
	struct v8_prof *p = r->p;
	unsigned parent = r->depth ? r->kind[r->depth] : K_SKIP, key = r->key[r->depth];
	unsigned nk = K_SKIP;

	if (fk_cpuhead_active(&r->head))
		return fk_cpuhead_open(&r->head, is_map);
	if (r->depth >= MAX_DEPTH)
		return 0; /* a syntax error at this byte */
	if ((parent == K_TOP && key == Y_NODES && !is_map && p->has_head) ||
	    (parent == K_TOP && key == Y_HEAD && is_map && p->has_nodes))
		fail(r, "not a V8 profile: it has both \"nodes\" and \"head\"");
	if (parent == K_TOP && is_map && key == Y_HEAD) {
		p->has_head = 1; /* even after an error: skipped, the tree would meet MAX_DEPTH */
		return fk_cpuhead_begin(&r->head);
	}
	if (r->depth == 0 && is_map)
		nk = K_TOP;
	else if (!r->err[0] && parent == K_TOP && !is_map && key == Y_NODES)
		nk = K_NODES, p->has_nodes = 1;
	else if (!r->err[0] && parent == K_TOP && !is_map && key == Y_SAMPLES)
		nk = K_SAMPLES, p->has_samples = 1;
	else if (!r->err[0] && parent == K_TOP && !is_map && key == Y_DELTAS)
		nk = K_DELTAS, p->has_deltas = 1;
	else if (!r->err[0] && parent == K_TOP && !is_map && key == Y_STAMPS)
		nk = K_STAMPS, p->has_stamps = 1;
	else if (!r->err[0] && parent == K_NODES && is_map)
		nk = K_NODE, begin_node(r);
	else if (!r->err[0] && parent == K_NODE && is_map && key == Y_CF)
		nk = K_CF, r->has_cf = 1;
	else if (!r->err[0] && parent == K_NODE && !is_map && key == Y_KIDS)
		nk = K_KIDS, r->kid_start = r->kid_end = p->nkids;
	else if (parent != K_SKIP && !scalar(r, 'a', 0, NULL, 0)) /* an array or object where a value was due */
		return 0;
	r->kind[++r->depth] = (unsigned char)nk;
	r->key[r->depth] = Y_OTHER;
	return 1;
}

static int on_open(void *ctx, int is_map) { return open_container(ctx, is_map); }

static int on_end(void *ctx)
{
	struct rd *r = ctx;
	unsigned k = r->kind[r->depth];
	int rc = 1;

	if (fk_cpuhead_active(&r->head))
		return fk_cpuhead_close(&r->head) && !r->j.nomem;
	if (k == K_NODE && !r->err[0])
		rc = end_node(r);
	else if (k == K_KIDS)
		r->kid_end = r->p->nkids;
	r->depth--;
	return rc && !r->j.nomem;
}

/* A node of the old format's tree: checked and named as a current one. */
static int head_node(void *ctx, const struct fk_cpuhead_node *n)
{
	struct rd *r = ctx;
	struct v8_prof *p = r->p;

	if (r->err[0])
		return 1;
	if (!n->has_id)
		return fail(r, "not a V8 profile: node number %.0f of the \"head\" tree has no numeric id",
		            (double)n->number);
	if (!n->has_fn || !n->has_url)
		return fail(r, "not a V8 profile: node %.0f of the \"head\" tree has no functionName or url", n->id);
	begin_node(r);
	r->has_id = r->has_cf = 1;
	r->id = n->id;
	r->hits = n->hits;
	r->has_line = n->has_line;
	r->line = n->line;
	if (!fk_json_str_set(&r->j, &r->fn, (const unsigned char *)n->fn, n->fn_len) ||
	    !fk_json_str_set(&r->j, &r->url, (const unsigned char *)n->url, n->url_len))
		return 0;
	r->kid_start = p->nkids;
	for (size_t i = 0; i < n->nkids; i++)
		if (push_num(r, &p->kids, &p->nkids, &p->capkids, n->kids[i]) < 0)
			return 0;
	r->kid_end = p->nkids;
	return end_node(r);
}

/* The first content error is kept for after the parse, as elsewhere; a
 * tree too deep stops it here. */
static int head_fail(void *ctx, const char *msg, int fatal)
{
	struct rd *r = ctx;

	fail(r, "not a V8 profile: %s", msg);
	return fatal ? fk_json_stop(&r->j, r->h->input_error(r->in, 0, "%s", r->err)) : 1;
}

static const struct fk_cpuhead_ops head_ops = { .node = head_node, .fail = head_fail };

/* The one syntax message, worded as before the reader used libfkjson. */
static int syntax(void *ctx, uint64_t line, uint64_t col, int cut_short)
{
	struct rd *r = ctx;

	(void)cut_short;
	return r->h->input_error(r->in, line, "not a V8 profile: the JSON does not parse (column %" PRIu64
	                         ": truncated, malformed, nested over %d deep or out of memory)", col,
	                         MAX_DEPTH);
}

static const struct fk_json_ops ops = {
	.scalar = scalar, .key = on_key, .open = on_open, .close = on_end, .syntax = syntax,
};

int v8_read(const struct fk_host *h, struct fk_input *in, struct v8_prof *p)
{
	struct rd *r = h->alloc(sizeof *r);
	int rc;

	if (!r) {
		h->input_error(in, 0, "out of memory");
		return FK_ERR_NOMEM;
	}
	memset(r, 0, sizeof *r);
	r->h = h;
	r->in = in;
	r->p = p;
	fk_json_init(&r->j, h, in, "V8 profile", NULL);
	fk_cpuhead_init(&r->head, &r->j, &head_ops, r);
	if ((rc = fk_json_parse(&r->j, &ops, r)) < 0)
		goto out; /* reported, out of memory too */
	if (r->err[0])
		rc = h->input_error(in, 0, "%s", r->err);
	else if (!p->has_nodes && !p->has_head)
		rc = h->input_error(in, 0, "not a V8 profile: no \"nodes\" array at the top level");
out:
	fk_cpuhead_free(&r->head);
	h->free(r->fn.s);
	h->free(r->url.s);
	h->free(r);
	return rc;
}

void v8_prof_free(const struct fk_host *h, struct v8_prof *p)
{
	h->free(p->v);
	h->free(p->kids);
	h->free(p->text);
	h->free(p->samples);
	h->free(p->deltas);
	h->free(p->stamps);
}
