/*
 * Output plugin "html": one self-contained HTML report holding the whole
 * profile (no --minwidth pruning: that is a drawing decision the page makes)
 * in the compact encoding described in plugins/lib/report/report.h, and a
 * script that draws it on a canvas.  The page makes no network request and
 * works from file://.  `flamekit collapse report.html` reads it back.
 *
 * The page itself (page.html) is turned into page.h at build time; this file
 * writes the head of the page, the data, then the tail.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <flamekit/plugin.h>

#include "../../lib/report/report.h"
#include "page.h"
#include "timeline.h"

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

/* Buffered writing: the data is millions of one-byte digits. */
struct out {
	const struct fk_host *h;
	struct fk_writer *w;
	char buf[65536];
	size_t n;
	int rc;
};

static void flush(struct out *o)
{
	if (o->n && o->rc == 0)
		o->rc = o->h->write(o->w, o->buf, o->n);
	o->n = 0;
}

static void put(struct out *o, const void *p, size_t len)
{
	if (len == 0) /* p may be NULL then (an empty timeline) */
		return;
	if (len > sizeof o->buf - o->n)
		flush(o);
	if (len > sizeof o->buf) {
		if (o->rc == 0)
			o->rc = o->h->write(o->w, p, len);
		return;
	}
	memcpy(o->buf + o->n, p, len);
	o->n += len;
}

static void puts_(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

static void num(struct out *o, uint64_t v)
{
	char d[REPORT_NUM_MAX];

	put(o, d, report_number(v, d));
}

/* A JSON string whose bytes cannot end the <script> element or a JS line:
 * see report.h for how bytes that are not UTF-8 are kept. */
static void jstr(struct out *o, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	char e[8];

	put(o, "\"", 1);
	for (size_t i = 0; i < len;) {
		unsigned c = u[i];
		size_t k = 1;
		if (c >= 0x80) {
			uint32_t cp = 0;
			if (c >= 0xc2 && c <= 0xdf)
				k = 2, cp = c & 0x1f;
			else if (c >= 0xe0 && c <= 0xef)
				k = 3, cp = c & 0x0f;
			else if (c >= 0xf0 && c <= 0xf4)
				k = 4, cp = c & 0x07;
			else
				k = 0;
			for (size_t j = 1; k && j < k; j++) {
				if (i + j >= len || (u[i + j] & 0xc0) != 0x80)
					k = 0;
				else
					cp = (cp << 6) | (u[i + j] & 0x3f);
			}
			if (k && ((k == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
			          (k == 4 && (cp < 0x10000 || cp > 0x10ffff))))
				k = 0;
			if (!k) { /* not UTF-8: one byte, as \u0080..\u00ff */
				snprintf(e, sizeof e, "\\u%04x", c);
				put(o, e, 6);
				i++;
			} else if (cp == 0x2028 || cp == 0x2029) {
				snprintf(e, sizeof e, "\\u%04x", (unsigned)cp);
				put(o, e, 6);
				i += k;
			} else {
				put(o, u + i, k);
				i += k;
			}
			continue;
		}
		if (c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' || c == 0x7f) {
			snprintf(e, sizeof e, "\\u%04x", c);
			put(o, e, 6);
		} else {
			put(o, u + i, 1);
		}
		i++;
	}
	put(o, "\"", 1);
}

static void dbl(struct out *o, double v)
{
	char b[40];
	if (!isfinite(v))
		v = 0;
	if (v == floor(v) && fabs(v) < 9e15)
		snprintf(b, sizeof b, "%.0f", v);
	else
		snprintf(b, sizeof b, "%.17g", v);
	puts_(o, b);
}

static int int_weight(double v)
{
	return v >= 0 && v == floor(v) && v < 9007199254740992.0;
}

/* The profile walked once into preorder (flamegraph.pl's sibling order). */
struct walk {
	fk_node_t *pre;    /* preorder index -> node */
	uint32_t *depth;   /* preorder index -> depth (root's children: 1) */
	uint32_t *index;   /* node -> preorder index */
	uint32_t *fid;     /* engine frame id -> report id + 1 (0: not seen) */
	size_t nfid;
	fk_frame_t *names; /* report id -> engine frame id */
	size_t n, nnames;
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
				size_t nc = wk->nfid ? wk->nfid : 1024;
				while (nc <= f)
					nc *= 2;
				uint32_t *nf = h->realloc(wk->fid, nc * sizeof *nf);
				if (!nf)
					goto out;
				memset(nf + wk->nfid, 0, (nc - wk->nfid) * sizeof *nf);
				wk->fid = nf;
				wk->nfid = nc;
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
}

static void put_tree(struct out *o, const struct fk_profile *p, const struct walk *wk, int two, int series,
                     int fl)
{
	const struct fk_host *h = o->h;
	uint32_t prev = 0;

	puts_(o, ",\"tree\":\"");
	for (size_t i = 0; i < wk->n; i++) {
		fk_node_t n = wk->pre[i];
		int leaf = h->node_is_leaf(p, n);
		num(o, prev + 1 - wk->depth[i]);
		num(o, wk->fid[h->node_frame(p, n)] - 1);
		num(o, !leaf ? 0 : fl ? 1 : (uint64_t)h->node_self(p, n, two ? 0 : series) + 1);
		prev = wk->depth[i];
	}
	put(o, "\"", 1);
	if (two && !fl) {
		puts_(o, ",\"tree2\":\"");
		for (size_t i = 0; i < wk->n; i++) {
			fk_node_t n = wk->pre[i];
			num(o, h->node_is_leaf(p, n) ? (uint64_t)h->node_self(p, n, 1) + 1 : 0);
		}
		put(o, "\"", 1);
	}
	if (fl) {
		int first = 1;
		puts_(o, ",\"fw\":[");
		for (size_t i = 0; i < wk->n; i++) {
			fk_node_t n = wk->pre[i];
			if (!h->node_is_leaf(p, n))
				continue;
			for (int s = 0; s <= two; s++) {
				if (!first)
					put(o, ",", 1);
				first = 0;
				dbl(o, h->node_self(p, n, two ? s : series));
			}
		}
		put(o, "]", 1);
	}
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
static int put_tail(struct out *o)
{
	static const char open_tag[] = "<script>\n", close_tag[] = "</script>";
	const char *t = fk_html_tail, *a = strstr(t, open_tag), *b = a ? strstr(a, close_tag) : NULL;
	char *z;
	size_t zn;

	if (!a || !b) { /* page.html without its script: nothing to pack */
		put(o, t, strlen(t));
		return 0;
	}
	a += sizeof open_tag - 1;
	if (fk_html_deflate64(o->h, a, (size_t)(b - a), &z, &zn) < 0) {
		o->h->log(FK_LOG_ERROR, "out of memory writing the report");
		return FK_ERR_NOMEM;
	}
	put(o, t, (size_t)(a - t));
	puts_(o, "/* the page's code (page.html in flamekit's source), deflated */\n"
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
	put(o, z, zn);
	puts_(o, "\");\n");
	put(o, b, strlen(b));
	o->h->free(z);
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
	size_t len;
	size_t frame;      /* report id */
};

static int cmp_modref(const void *a, const void *b)
{
	const struct modref *x = a, *y = b;
	uintptr_t u = (uintptr_t)x->s, v = (uintptr_t)y->s;
	return u < v ? -1 : u > v ? 1 : x->frame < y->frame ? -1 : x->frame > y->frame;
}

/* What the frames came from (a library, a script's url), when the input
 * said: "modules", each distinct one once (in the order of its first
 * frame), and "fmods", [frame, module] for every frame that has one, for
 * the page's status line.  The engine interns modules, so equal text is an
 * equal pointer. */
static int put_modules(struct out *o, const struct fk_host *h, const struct fk_profile *p,
                       const struct walk *wk)
{
	struct modref *m = h->alloc((wk->nnames ? wk->nnames : 1) * sizeof *m);
	size_t *idx = h->alloc((wk->nnames ? wk->nnames : 1) * sizeof *idx);
	size_t n = 0;
	char b[48];

	if (!m || !idx) {
		h->free(m);
		h->free(idx);
		h->log(FK_LOG_ERROR, "out of memory writing the report");
		return FK_ERR_NOMEM;
	}
	for (size_t i = 0; i < wk->nnames; i++) {
		size_t len;
		const char *s = h->frame_module(p, wk->names[i], &len);
		if (s) {
			m[n].s = s;
			m[n].len = len;
			m[n++].frame = i;
		}
	}
	/* sorted by text pointer, frames in order within: each module's first
	 * frame is marked, then the modules are numbered in frame order */
	qsort(m, n, sizeof *m, cmp_modref);
	for (size_t i = 0; i < wk->nnames; i++)
		idx[i] = (size_t)-1;
	for (size_t i = 0; i < n; i++)
		if (i == 0 || m[i].s != m[i - 1].s)
			idx[m[i].frame] = 0; /* a first frame */
	puts_(o, ",\"modules\":[");
	for (size_t i = 0, k = 0; i < wk->nnames; i++)
		if (idx[i] == 0) {
			size_t len;
			const char *s = h->frame_module(p, wk->names[i], &len);
			if (k)
				put(o, ",", 1);
			jstr(o, s, len);
			idx[i] = k++;
		}
	/* every frame of a module takes its first frame's number; written in
	 * frame order, so the bytes do not depend on where the text lives */
	for (size_t i = 0, first = 0; i < n; i++) {
		if (i == 0 || m[i].s != m[i - 1].s)
			first = m[i].frame;
		else
			idx[m[i].frame] = idx[first];
	}
	puts_(o, "],\"fmods\":[");
	for (size_t i = 0, first = 1; i < wk->nnames; i++) {
		if (idx[i] == (size_t)-1)
			continue;
		snprintf(b, sizeof b, "%s[%zu,%zu]", first ? "" : ",", i, idx[i]);
		puts_(o, b);
		first = 0;
	}
	put(o, "]", 1);
	h->free(m);
	h->free(idx);
	return 0;
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
	struct walk wk = { 0 };
	struct out *o = h->alloc(sizeof *o);
	unsigned mask = h->series_mask(p);
	int two = (mask & 3) == 3, series = (mask & 1) || !(mask & 2) ? 0 : 1, fl = 0, rc;
	const char *unit = h->series_unit(p, series);

	if ((rc = check(h, op, NULL)) < 0) {
		h->free(o);
		return rc;
	}
	if (!o) {
		h->log(FK_LOG_ERROR, "out of memory writing the report");
		return FK_ERR_NOMEM;
	}
	o->h = h;
	o->w = w;
	o->n = 0;
	o->rc = 0;
	rc = walk_tree(h, p, &wk);
	if (rc < 0)
		goto out;
	for (size_t i = 0; i < wk.n && !fl; i++)
		for (int s = 0; s < 2; s++)
			if ((s == series || two) && !int_weight(h->node_self(p, wk.pre[i], s)))
				fl = 1;
	put(o, fk_html_head, sizeof fk_html_head - 1);
	puts_(o, "{\"v\":2,\"title\":");
	jstr(o, op->title, strlen(op->title));
	puts_(o, ",\"palette\":");
	jstr(o, op->colors, strlen(op->colors));
	puts_(o, op->inverted ? ",\"inverted\":1,\"unit\":" : ",\"unit\":");
	jstr(o, unit ? unit : "samples", strlen(unit ? unit : "samples"));
	puts_(o, ",\"units\":[");
	for (int i = 0; i < 2; i++) {
		const char *u = h->series_unit(p, i);
		if (i)
			put(o, ",", 1);
		jstr(o, u ? u : "", u ? strlen(u) : 0);
	}
	puts_(o, two ? "],\"series\":2,\"names\":[" : "],\"series\":1,\"names\":[");
	for (size_t i = 0; i < wk.nnames; i++) {
		size_t len;
		const char *s = h->frame_name(p, wk.names[i], &len);
		if (i)
			put(o, ",", 1);
		jstr(o, s, len);
	}
	puts_(o, "],\"colours\":[");
	for (size_t i = 0, first = 1; i < wk.nnames; i++) {
		const char *c = h->frame_colour(p, wk.names[i]);
		char b[32];
		if (!c)
			continue;
		snprintf(b, sizeof b, "%s[%zu,", first ? "" : ",", i);
		puts_(o, b);
		jstr(o, c, strlen(c));
		put(o, "]", 1);
		first = 0;
	}
	put(o, "]", 1);
	if ((rc = put_modules(o, h, p, &wk)) < 0)
		goto out;
	put_tree(o, p, &wk, two, series, fl);
	if (!two && op->timeline) {
		char *tl;
		size_t tlen;
		leaf_ids(h, p, &wk);
		rc = fk_html_timeline(h, p, wk.index, series, (int64_t)llround(op->resolution * 1e6), &tl, &tlen);
		if (rc < 0)
			goto out;
		put(o, tl, tlen);
		h->free(tl);
	}
	put(o, "}", 1);
	rc = put_tail(o);
	if (rc < 0)
		goto out;
	flush(o);
	rc = o->rc;
out:
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
