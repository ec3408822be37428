/*
 * Output plugin "html": one self-contained HTML report holding the whole
 * profile (no --minwidth pruning: that is a drawing decision the page makes)
 * in the compact encoding of libfkreport (plugins/lib/report/report.h, which
 * writes it: this file walks the profile for it), and a script that draws
 * it on a canvas.  The page makes no network request and
 * works from file://.  `flamekit collapse report.html` reads it back.
 *
 * The page itself (page.html) is turned into page.h at build time; this file
 * writes the head of the page, the data, then the tail.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <flamekit/plugin.h>

#include "report.h"
#include "page.h"
#include "timeline.h"
#include "vector/fkvector.h"

struct html_opts {
	const char *title;
	const char *colors;
	int inverted;
	long long timeline;
	double resolution;
};

static const struct fk_option options[] = {
	FK_OPTION(FK_OPT_STRING, "title", "Flame Graph", struct html_opts, title, "the report's title"),
	FK_OPTION(FK_OPT_STRING, "colors", "hot", struct html_opts, colors,
	          "palette: hot, mem, io, wakeup, chain, java, js, perl, red, green, blue, aqua, "
	          "yellow, purple, orange, rust, python"),
	FK_OPTION(FK_OPT_FLAG, "inverted", "0", struct html_opts, inverted,
	          "open on the icicle view (root at the top)"),
	FK_OPTION(FK_OPT_INT, "timeline", "1", struct html_opts, timeline,
	          "1: keep each sample's time and thread (heat map, flame chart, thread views); "
	          "0: leave them out for a smaller report"),
	FK_OPTION(FK_OPT_DOUBLE, "time-resolution", "1", struct html_opts, resolution,
	          "the timeline's precision in ms: sample times are cut to it (the heat map's cells are 20 ms; "
	          "0.001 keeps perf's microseconds exactly, in a bigger report)"),
	FK_OPTION_END,
};

/* The profile walked once into preorder (flamegraph.pl's sibling order). */
struct walk {
	fk_node_t *pre;    /* preorder index -> node */
	uint32_t *depth;   /* preorder index -> depth (root's children: 1) */
	uint32_t *index;   /* node -> preorder index */
	uint32_t *fid;     /* engine frame id -> report id + 1 (0: not seen) */
	size_t nfid;
	fk_frame_t *names; /* report id -> engine frame id */
	size_t n, nnames;
	size_t *modof;     /* report id -> module number, SIZE_MAX: none */
	size_t *mods;      /* module number -> its first frame's report id */
	size_t nmods;
	struct fk_writer *w;
};

static int walk_tree(const struct fk_host *h, const struct fk_profile *p, struct walk *wk)
{
	size_t total = h->nodes(p), sp = 0;
	fk_node_t *stack = h->alloc(total * sizeof *stack);
	int rc = FK_ERR_NOMEM;

	wk->pre = h->alloc(total * sizeof *wk->pre);
	wk->depth = h->alloc(total * sizeof *wk->depth);
	wk->index = h->alloc(total * sizeof *wk->index);
	wk->names = h->alloc(total * sizeof *wk->names);
	if (!stack || !wk->pre || !wk->depth || !wk->index || !wk->names)
		goto out;
	stack[sp++] = FK_NODE_ROOT;
	while (sp) {
		fk_node_t n = stack[--sp];
		const fk_node_t *kids;
		size_t k = h->node_children(p, n, &kids);
		if (n != FK_NODE_ROOT) {
			fk_frame_t f = h->node_frame(p, n);
			if (f >= wk->nfid) {
				size_t was = wk->nfid;
				if (fk_vector_grow((void **)&wk->fid, &wk->nfid, (size_t)f + 1,
				                   sizeof *wk->fid, h->realloc) < 0)
					goto out;
				memset(wk->fid + was, 0, (wk->nfid - was) * sizeof *wk->fid);
			}
			if (!wk->fid[f]) {
				wk->names[wk->nnames++] = f;
				wk->fid[f] = (uint32_t)wk->nnames;
			}
			wk->index[n] = (uint32_t)wk->n;
			wk->depth[wk->n] = h->node_depth(p, n);
			wk->pre[wk->n++] = n;
		}
		/* push in reverse so the first child comes out first */
		while (k)
			stack[sp++] = kids[--k];
	}
	rc = 0;
out:
	h->free(stack);
	if (rc)
		h->log(FK_LOG_ERROR, "out of memory walking the profile");
	return rc;
}

static void walk_free(const struct fk_host *h, struct walk *wk)
{
	h->free(wk->pre);
	h->free(wk->depth);
	h->free(wk->index);
	h->free(wk->fid);
	h->free(wk->names);
	h->free(wk->modof);
	h->free(wk->mods);
}

/* The timeline names a stack by its leaf's rank among the nodes where
 * stacks end, in preorder: small numbers, and the tree already says which
 * nodes those are.  wk->index is rewritten in place: node -> rank. */
static void leaf_ids(const struct fk_host *h, const struct fk_profile *p, struct walk *wk)
{
	uint32_t rank = 0;

	for (size_t i = 0; i < wk->n; i++)
		wk->index[wk->pre[i]] = h->node_is_leaf(p, wk->pre[i]) ? rank++ : UINT32_MAX;
}

/* The tail of the page, its script deflated: the page's code (~36 KB) is
 * most of the report of a small profile, and a third of it deflated.  A
 * few lines of loader inflate it (DecompressionStream) and run it as an
 * inline script, which the page's Content-Security-Policy allows. */
static int put_tail(const struct fk_host *h, struct report_out *o)
{
	static const char open_tag[] = "<script>\n", close_tag[] = "</script>";
	const char *t = fk_html_tail, *a = strstr(t, open_tag), *b = a ? strstr(a, close_tag) : NULL;
	char *z;
	size_t zn;

	if (!a || !b) { /* page.html without its script: nothing to pack */
		report_put(o, t, strlen(t));
		return 0;
	}
	a += sizeof open_tag - 1;
	if (report_deflate64(h, a, (size_t)(b - a), &z, &zn) < 0) {
		h->log(FK_LOG_ERROR, "out of memory writing the report");
		return FK_ERR_NOMEM;
	}
	report_put(o, t, (size_t)(a - t));
	report_puts(o, "/* the page's code (page.html in flamekit's source), deflated */\n"
	      "(function (z) {\n"
	      "\tvar damaged = function () { window.fkFail(\"the report's code is damaged\"); };\n"
	      "\twindow.fkLoader = 1;\n"
	      "\ttry {\n"
	      "\t\tvar b = atob(z), u = new Uint8Array(b.length);\n"
	      "\t} catch (e) { return damaged(); }\n"
	      "\tfor (var i = 0; i < b.length; i++) u[i] = b.charCodeAt(i);\n"
	      "\tnew Response(new Blob([u]).stream().pipeThrough(new DecompressionStream(\"deflate-raw\"))).text().then(function (c) {\n"
	      "\t\tvar s = document.createElement(\"script\");\n"
	      "\t\ts.textContent = c;\n"
	      "\t\tdocument.body.appendChild(s);\n"
	      "\t\tif (!window.fkStarted) damaged();\n"
	      "\t}, damaged);\n"
	      "})(\"");
	report_put(o, z, zn);
	report_puts(o, "\");\n");
	report_put(o, b, strlen(b));
	h->free(z);
	return 0;
}

/* The palettes page.html knows (flamegraph.pl's). */
static int known_palette(const char *name)
{
	static const char *const known[] = { "hot", "mem", "io", "wakeup", "chain", "java", "js", "perl",
	                                     "red", "green", "blue", "aqua", "yellow", "purple", "orange",
	                                     "rust", "python" };
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (strcmp(name, known[i]) == 0)
			return 1;
	return 0;
}

struct modref {
	const char *s;     /* the engine's interned text: one pointer per module */
	size_t frame;      /* report id */
};

static int cmp_modref(const void *a, const void *b)
{
	const struct modref *x = a, *y = b;
	uintptr_t u = (uintptr_t)x->s, v = (uintptr_t)y->s;
	return u < v ? -1 : u > v ? 1 : x->frame < y->frame ? -1 : x->frame > y->frame;
}

/* What the frames came from (a library, a script's url), when the input
 * said: each distinct module once, numbered in the order of its first
 * frame (wk->mods[k]: module k's first frame), and wk->modof[i], frame i's
 * module (SIZE_MAX: none).  The engine interns modules, so equal text is an
 * equal pointer; numbering in frame order keeps the bytes independent of
 * where the text lives. */
static int modules(const struct fk_host *h, const struct fk_profile *p, struct walk *wk)
{
	size_t cap = wk->nnames ? wk->nnames : 1, n = 0;
	struct modref *m = h->alloc(cap * sizeof *m);

	wk->modof = h->alloc(cap * sizeof *wk->modof);
	wk->mods = h->alloc(cap * sizeof *wk->mods);
	if (!m || !wk->modof || !wk->mods) {
		h->free(m);
		h->log(FK_LOG_ERROR, "out of memory writing the report");
		return FK_ERR_NOMEM;
	}
	for (size_t i = 0; i < wk->nnames; i++) {
		size_t len;
		if ((m[n].s = h->frame_module(p, wk->names[i], &len)) != NULL)
			m[n++].frame = i;
		wk->modof[i] = SIZE_MAX;
	}
	/* sorted by text pointer, frames in order within: each module's first
	 * frame is marked, then the modules are numbered in frame order */
	qsort(m, n, sizeof *m, cmp_modref);
	for (size_t i = 0; i < n; i++)
		if (i == 0 || m[i].s != m[i - 1].s)
			wk->modof[m[i].frame] = 0;
	for (size_t i = 0; i < wk->nnames; i++)
		if (wk->modof[i] == 0) {
			wk->mods[wk->nmods] = i;
			wk->modof[i] = wk->nmods++;
		}
	for (size_t i = 0, first = 0; i < n; i++) {
		if (i == 0 || m[i].s != m[i - 1].s)
			first = m[i].frame;
		else
			wk->modof[m[i].frame] = wk->modof[first];
	}
	h->free(m);
	return 0;
}

/* The report_src callbacks, over the walk. */
struct src {
	const struct fk_host *h;
	const struct fk_profile *p;
	const struct walk *wk;
};

static const char *src_name(void *ctx, size_t i, size_t *len)
{
	const struct src *c = ctx;
	return c->h->frame_name(c->p, c->wk->names[i], len);
}

static const char *src_colour(void *ctx, size_t i)
{
	const struct src *c = ctx;
	return c->h->frame_colour(c->p, c->wk->names[i]);
}

static const char *src_module(void *ctx, size_t k, size_t *len)
{
	const struct src *c = ctx;
	return c->h->frame_module(c->p, c->wk->names[c->wk->mods[k]], len);
}

static size_t src_frame_module(void *ctx, size_t i)
{
	const struct src *c = ctx;
	return c->wk->modof[i];
}

static void src_node(void *ctx, size_t i, struct report_node *n)
{
	const struct src *c = ctx;
	fk_node_t nd = c->wk->pre[i];

	n->depth = c->wk->depth[i];
	n->frame = c->wk->fid[c->h->node_frame(c->p, nd)] - 1;
	n->end = (unsigned char)c->h->node_is_leaf(c->p, nd);
	n->w[0] = c->h->node_self(c->p, nd, 0);
	n->w[1] = c->h->node_self(c->p, nd, 1);
}

static int write_out(void *ctx, const void *p, size_t len)
{
	const struct src *c = ctx;
	return c->h->write(c->wk->w, p, len);
}

/* The options' values, before any input is read (the engine calls it; so
 * does render, for a caller that did not).  The resolution is checked
 * before llround(resolution * 1e6) makes it a count of nanoseconds. */
static int check(const struct fk_host *h, const void *opts, const char *where)
{
	const struct html_opts *op = opts;

	(void)where;
	if (!known_palette(op->colors)) {
		h->log(FK_LOG_ERROR, "unknown palette '%s' for --colors (hot, mem, io, wakeup, chain, java, js, "
		       "perl, red, green, blue, aqua, yellow, purple, orange, rust, python)", op->colors);
		return FK_ERR_USAGE;
	}
	if (!(op->resolution * 1e6 >= 1 && op->resolution <= 1e6)) {
		h->log(FK_LOG_ERROR, "--time-resolution must be between 0.000001 and 1000000 ms");
		return FK_ERR_USAGE;
	}
	return 0;
}

static int render(const struct fk_host *h, const struct fk_profile *p, struct fk_writer *w, const void *opts)
{
	const struct html_opts *op = opts;
	struct walk wk = { .w = w };
	struct src c = { .h = h, .p = p, .wk = &wk };
	struct report_out *o = h->alloc(sizeof *o);
	struct fk_html_timeline tl = { 0 };
	unsigned mask = h->series_mask(p);
	int two = (mask & 3) == 3, series = (mask & 1) || !(mask & 2) ? 0 : 1, rc;
	struct report_src src = {
		.title = op->title, .palette = op->colors, .unit = h->series_unit(p, series),
		.units = { h->series_unit(p, 0), h->series_unit(p, 1) }, .inverted = op->inverted,
		.series = two ? 2 : 1, .wseries = series, .name = src_name, .colour = src_colour,
		.module = src_module, .frame_module = src_frame_module, .node = src_node, .ctx = &c,
	};

	if ((rc = check(h, op, NULL)) < 0) {
		h->free(o);
		return rc;
	}
	if (!o) {
		h->log(FK_LOG_ERROR, "out of memory writing the report");
		return FK_ERR_NOMEM;
	}
	memset(o, 0, offsetof(struct report_out, buf));
	o->write = write_out;
	o->ctx = &c;
	if ((rc = walk_tree(h, p, &wk)) < 0 || (rc = modules(h, p, &wk)) < 0)
		goto out;
	src.nnames = wk.nnames;
	src.nmodules = wk.nmods;
	src.nnodes = wk.n;
	if (!two && op->timeline) {
		leaf_ids(h, p, &wk);
		rc = fk_html_timeline(h, p, wk.index, series, (int64_t)llround(op->resolution * 1e6), &tl);
		if (rc < 0)
			goto out;
		if (tl.t.threads)
			src.timeline = &tl.t;
	}
	report_put(o, fk_html_head, sizeof fk_html_head - 1);
	if ((rc = report_encode(h, o, &src)) == FK_ERR_NOMEM)
		h->log(FK_LOG_ERROR, "out of memory writing the report");
	if (rc == 0)
		rc = put_tail(h, o);
	if (rc == 0)
		rc = report_flush(o);
out:
	fk_html_timeline_free(h, &tl);
	walk_free(h, &wk);
	h->free(o);
	return rc;
}

static struct fk_output_plugin plugin = {
	.h = {
		.name = "html",
		.version = "1.0",
		.description = "self-contained HTML report: the whole profile, drawn on a canvas",
		.options = options,
		.options_size = sizeof(struct html_opts),
	},
	.needs = FK_OUTPUT_NEEDS_SAMPLES,
	.render = render,
	.check = check,
};

FLAMEKIT_REGISTER_OUTPUT(plugin)
