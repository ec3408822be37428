/*
 * Writing the flame graph document.  Geometry, text and colours follow
 * flamegraph.pl (the conformance corpus pins them); what it writes without
 * escaping (titles, notes, attributes) is escaped here, and bytes XML cannot
 * carry (invalid UTF-8, control characters) or that would reorder the text
 * around them (bidi controls) become U+FFFD, so every graph is well-formed
 * XML whatever the frame names hold.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attrs.h"
#include "svgdoc.h"
#include "xmlout.h"

/* ---- the document ---------------------------------------------------------- */

static void bg_colours(const struct svg_opts *o, const char **c1, const char **c2)
{
	const char *bg = o->bgcolors;

	if (!bg) {
		if (strcmp(o->colors, "mem") == 0)
			bg = "green";
		else if (!strcmp(o->colors, "io") || !strcmp(o->colors, "wakeup") || !strcmp(o->colors, "chain"))
			bg = "blue";
		else if (!strcmp(o->colors, "red") || !strcmp(o->colors, "green") || !strcmp(o->colors, "blue") ||
		         !strcmp(o->colors, "aqua") || !strcmp(o->colors, "yellow") ||
		         !strcmp(o->colors, "purple") || !strcmp(o->colors, "orange"))
			bg = "grey";
		else
			bg = "yellow";
	}
	if (!strcmp(bg, "yellow"))
		*c1 = "#eeeeee", *c2 = "#eeeeb0";
	else if (!strcmp(bg, "blue"))
		*c1 = "#eeeeee", *c2 = "#e0e0ff";
	else if (!strcmp(bg, "green"))
		*c1 = "#eef2ee", *c2 = "#e0ffe0";
	else if (!strcmp(bg, "grey"))
		*c1 = "#f8f8f8", *c2 = "#e8e8e8";
	else
		*c1 = *c2 = bg;
}

/* "1234567" -> "1,234,567" (perlfaq5's commify). */
static void commify(const char *in, char *out)
{
	size_t n = strlen(in), lead = in[0] == '-' || in[0] == '+', digits = n - lead, k = 0;

	if (lead)
		out[k++] = in[0];
	for (size_t i = 0; i < digits; i++) {
		if (i && (digits - i) % 3 == 0 && strspn(in + lead, "0123456789") == digits)
			out[k++] = ',';
		out[k++] = in[lead + i];
	}
	out[k] = '\0';
}

static void put_text(struct svg_out *o, const char *id, double x, double y, const char *s, const char *extra)
{
	if (id)
		svg_printf(o, "<text id=\"%s\" x=\"%0.2f\" y=\"", id, x);
	else
		svg_printf(o, "<text  x=\"%0.2f\" y=\"", x);
	svg_put_num(o, y);
	svg_printf(o, "\" %s>", extra ? extra : "");
	svg_put_xmls(o, s);
	svg_puts(o, "</text>\n");
}

/* The label: as many characters as fit, the last two replaced by "..". */
static void put_label(struct svg_out *o, const char *s, size_t n, double width, const struct svg_opts *op)
{
	double c = width / (op->fontsize * op->fontwidth);
	long chars = c > 1e9 ? 1000000000L : (long)c;
	size_t total = 0, i = 0, cut = 0, keep;
	const unsigned char *u = (const unsigned char *)s;

	if (chars < 3)
		return;
	while (i < n) {
		int32_t cp;
		i += pal_utf8(u + i, n - i, &cp);
		total++;
	}
	if ((size_t)chars >= total) {
		svg_put_xml(o, s, n);
		return;
	}
	keep = (size_t)chars - 2;
	for (size_t k = 0; k < keep; k++) {
		int32_t cp;
		cut += pal_utf8(u + cut, n - cut, &cp);
	}
	svg_put_xml(o, s, cut);
	svg_put(o, "..", 2);
}

static void frame_name(const struct svg_doc *d, const struct svg_frame *f, const char **name, size_t *len)
{
	if (f->flags & SF_LABEL) {
		*name = f->label;
		*len = f->label_len;
	} else if (f->frame == FK_FRAME_NONE) {
		*name = "";
		*len = 0;
	} else {
		*name = d->h->frame_name(d->p, f->frame, len);
	}
}

static void frame_fill(const struct svg_doc *d, const struct svg_frame *f, const char *name, size_t len,
                       struct pal_rand *rnd, struct svg_smap *cp, char fill[32])
{
	const struct svg_opts *o = d->o;
	const char *fc = NULL;

	if (len == 2 && memcmp(name, "--", 2) == 0) {
		strcpy(fill, "rgb(160,160,160)");
		return;
	}
	if (len == 1 && name[0] == '-') {
		strcpy(fill, "rgb(200,200,200)");
		return;
	}
	if (o->colordiffusion && d->timemax > 0) {
		/* inferno's: the square root of the frame's share of the width,
		 * in its colour_scale (250 grey for none, red to pale) */
		long v = (long)(sqrt((f->etime - f->stime) / d->timemax) * 2000.0);
		int c = 100 + (int)(unsigned char)(150 * (2000 - v) / 2000);
		if (v <= 0)
			strcpy(fill, "rgb(250,250,250)");
		else
			snprintf(fill, 32, "rgb(255,%d,%d)", c, c);
		return;
	}
	if (d->differential && (f->flags & SF_DELTA)) {
		pal_scale(f->delta, d->maxdelta, o->negate, fill);
		return;
	}
	if (f->frame != FK_FRAME_NONE && d->h->frame_colour)
		fc = d->h->frame_colour(d->p, f->frame);
	if (fc && svg_colour_ok(fc)) {
		snprintf(fill, 32, "%s", fc);
		return;
	}
	if (fc && pal_known(fc)) {
		pal_colour(fc, o->hash, o->random ? rnd : NULL, name, len, fill);
		return;
	}
	if (f->palette) {
		pal_colour(f->palette, o->hash, o->random ? rnd : NULL, name, len, fill);
		return;
	}
	if (cp) {
		struct svg_smap_ent *e = svg_smap_find(cp, name, len);
		if (e && strlen(e->val) < 32 && svg_colour_ok(e->val)) {
			strcpy(fill, e->val);
			return;
		}
		pal_colour(o->colors, o->hash, o->random ? rnd : NULL, name, len, fill);
		char *v = svg_strdup(d->h, fill, strlen(fill));
		if (v && svg_smap_put(cp, name, len, v) == 0)
			cp->dirty = 1;
		return;
	}
	pal_colour(o->colors, o->hash, o->random ? rnd : NULL, name, len, fill);
}

static void put_axis(struct svg_out *ob, const struct svg_doc *d, double wpt, double y)
{
	const struct svg_axis *a = d->axis;
	double span = d->timemax / a->unit, step = 1e-9, x;
	static const double mult[] = { 1, 2, 5 };
	int k = 0;

	/* about 10 ticks, on 1-2-5 steps of seconds */
	while (span / step > 10) {
		step = step / mult[k] * mult[(k + 1) % 3] * (k == 2 ? 10 : 1);
		k = (k + 1) % 3;
	}
	svg_printf(ob, "<g id=\"axis\">\n");
	for (double t = 0; t <= span + step / 1e6; t += step) {
		char lab[64];
		x = SVG_XPAD + t * a->unit * wpt;
		svg_printf(ob, "<line x1=\"%0.2f\" y1=\"", x);
		svg_put_num(ob, y - d->o->fontsize);
		svg_printf(ob, "\" x2=\"%0.2f\" y2=\"", x);
		svg_put_num(ob, y - d->o->fontsize + 4);
		svg_puts(ob, "\" stroke=\"rgb(0,0,0)\" stroke-width=\"0.5\" />\n");
		snprintf(lab, sizeof lab, "%.9gs", (a->origin / a->unit) + t);
		put_text(ob, NULL, x, y + 2, lab, "text-anchor=\"middle\" class=\"tick\"");
	}
	svg_puts(ob, "</g>\n");
}

/* What writing one document needs besides the frames. */
struct svg_w {
	const struct svg_doc *d;
	const struct svg_opts *o;
	struct svg_out *ob;
	struct svg_smap attrs, cpmap;
	struct pal_rand rnd;
	double fs, fh, ypad1, ypad2, ypad3, axispad;
	double W, H, wpt, minw;
};

/* flamegraph.pl's error graph, for tools that always expect an SVG. */
static int write_error_graph(struct svg_w *x)
{
	const struct svg_opts *o = x->o;
	struct svg_out *ob = x->ob;
	double H = x->fs * 5;

	svg_puts(ob, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
	          "<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" "
	          "\"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n");
	svg_printf(ob, "<svg version=\"1.1\" width=\"%lld\" height=\"", o->width);
	svg_put_num(ob, H);
	svg_printf(ob, "\" viewBox=\"0 0 %lld ", o->width);
	svg_put_num(ob, H);
	svg_puts(ob, "\" xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\">\n");
	put_text(ob, NULL, (double)(o->width / 2), x->fs * 2,
	         "ERROR: No valid input provided to flamegraph.pl.", "text-anchor=\"middle\"");
	svg_puts(ob, "</svg>\n");
	svg_out_flush(ob);
	if (ob->rc < 0)
		return ob->rc;
	x->d->h->log(FK_LOG_ERROR, "no stack counts found");
	return FK_ERR_DATA;
}

/* The notes, in a comment where "--" may not occur. */
static void write_notes(struct svg_out *ob, const char *s)
{
	size_t len = strlen(s), start = 0;

	for (size_t i = 0; i < len; i++) {
		if (s[i] == '-' && (i + 1 == len || s[i + 1] == '-')) {
			svg_put_xml(ob, s + start, i - start);
			svg_puts(ob, "&#45;");
			start = i + 1;
		}
	}
	svg_put_xml(ob, s + start, len - start);
}

/* Everything before the frames: prologue, style, script, titles. */
static void write_head(struct svg_w *x)
{
	const struct svg_opts *o = x->o;
	struct svg_out *ob = x->ob;
	double fs = x->fs, W = x->W, H = x->H;
	const char *title = o->title && *o->title ? o->title : x->d->default_title;
	const char *bg1, *bg2;

	bg_colours(o, &bg1, &bg2);
	svg_puts(ob, "<?xml version=\"1.0\"");
	if (o->encoding)
		svg_printf(ob, " encoding=\"%s\"", o->encoding);
	svg_puts(ob, " standalone=\"no\"?>\n<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" "
	          "\"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n");
	svg_printf(ob, "<svg version=\"1.1\" width=\"%lld\" height=\"", o->width);
	svg_put_num(ob, H);
	svg_printf(ob, "\" onload=\"init(evt)\" viewBox=\"0 0 %lld ", o->width);
	svg_put_num(ob, H);
	svg_puts(ob, "\" xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\">\n"
	          "<!-- Flame graph drawn by flamekit; interactive: click to zoom, Ctrl-F to search. -->\n");
	svg_puts(ob, "<!-- NOTES: ");
	if (o->notes)
		write_notes(ob, o->notes);
	svg_puts(ob, " -->\n");
	svg_printf(ob, "<defs>\n\t<linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\" >\n"
	         "\t\t<stop stop-color=\"%s\" offset=\"5%%\" />\n"
	         "\t\t<stop stop-color=\"%s\" offset=\"95%%\" />\n"
	         "\t</linearGradient>\n</defs>\n", bg1, bg2);
	svg_puts(ob, "<style type=\"text/css\">\n\ttext { font-family:");
	svg_put_xmls(ob, o->fonttype);
	svg_puts(ob, "; font-size:");
	svg_put_num(ob, fs);
	svg_puts(ob, "px; fill:rgb(0,0,0); }\n"
	          "\t#search, #ignorecase { opacity:0.1; cursor:pointer; }\n"
	          "\t#search:hover, #search.show, #ignorecase:hover, #ignorecase.show { opacity:1; }\n"
	          "\t#subtitle { text-anchor:middle; fill:rgb(160,160,160); }\n"
	          "\t#title { text-anchor:middle; font-size:");
	svg_put_num(ob, fs + 5);
	svg_puts(ob, "px}\n"
	          "\t#unzoom { cursor:pointer; }\n"
	          "\t#frames > *:hover { stroke:black; stroke-width:0.5; cursor:pointer; }\n"
	          "\t.hide { display:none; }\n"
	          "\t.parent { opacity:0.5; }\n");
	if (o->stroke_color && strcmp(o->stroke_color, "none") != 0)
		svg_printf(ob, "\t#frames rect { stroke:%s; stroke-width:1; }\n", o->stroke_color);
	if (o->uicolor)
		svg_printf(ob, "\t#title, #details, #unzoom, #search, #ignorecase, #matched { fill:%s; }\n",
		           o->uicolor);
	svg_puts(ob, "</style>\n<script type=\"text/ecmascript\">\n<![CDATA[\n");
	if (!o->no_javascript)
		svg_puts(ob, svg_script);
	svg_puts(ob, "var FK_NAMETYPE = ");
	svg_put_js(ob, o->nametype);
	svg_puts(ob, ";\nvar FK_FONTSIZE = ");
	svg_put_num(ob, fs);
	svg_puts(ob, ", FK_FONTWIDTH = ");
	svg_put_num(ob, o->fontwidth);
	svg_printf(ob, ", FK_XPAD = 10, FK_INVERTED = %d;\nvar FK_SEARCHCOLOR = ", o->inverted ? 1 : 0);
	svg_put_js(ob, o->searchcolor);
	svg_puts(ob, ";\n]]>\n</script>\n");
	svg_puts(ob, "<rect x=\"0.0\" y=\"0\" width=\"");
	svg_printf(ob, "%0.1f\" height=\"%0.1f\" fill=\"url(#background)\"  />\n", W, H);
	put_text(ob, "title", (double)(o->width / 2), fs * 2, title, NULL);
	if (o->subtitle && *o->subtitle)
		put_text(ob, "subtitle", (double)(o->width / 2), fs * 4, o->subtitle, NULL);
	put_text(ob, "details", SVG_XPAD, H - x->axispad - x->ypad2 / 2, " ", NULL);
	put_text(ob, "unzoom", SVG_XPAD, fs * 2, "Reset Zoom", "class=\"hide\"");
	put_text(ob, "search", W - SVG_XPAD - 100, fs * 2, "Search", NULL);
	put_text(ob, "ignorecase", W - SVG_XPAD - 16, fs * 2, "ic", NULL);
	put_text(ob, "matched", W - SVG_XPAD - 100, H - x->axispad - x->ypad2 / 2, " ", NULL);
	svg_puts(ob, "<g id=\"frames\">\n");
}

/* One frame: link or group, tooltip, rectangle and label. */
static void write_frame(struct svg_w *x, const struct svg_frame *f)
{
	const struct svg_doc *d = x->d;
	const struct svg_opts *o = x->o;
	struct svg_out *ob = x->ob;
	double fh = x->fh, H = x->H, wpt = x->wpt, timemax = d->timemax;
	const char *name, *kv = NULL, *t;
	size_t len, dlen;
	double x1, x2, y1, y2, w;
	char x1s[64], x2s[64], fill[32], samples[64], stxt[96], info[160];
	int root = f->frame == FK_FRAME_NONE && !(f->flags & SF_LABEL);

	frame_name(d, f, &name, &len);
	if (f->flags & SF_LABEL)
		dlen = len;
	else if (root)
		dlen = 0;
	else
		d->h->frame_display(d->p, f->frame, &dlen); /* without the _[k] suffix */
	x1 = SVG_XPAD + f->stime * wpt;
	x2 = SVG_XPAD + f->etime * wpt;
	if (!o->inverted) {
		y1 = H - x->axispad - x->ypad2 - (f->row + 1) * fh + SVG_FRAMEPAD;
		y2 = H - x->axispad - x->ypad2 - f->row * fh;
	} else {
		double top = x->ypad1 + (o->subtitle && *o->subtitle ? x->ypad3 : 0);
		y1 = top + f->row * fh;
		y2 = top + (f->row + 1) * fh - SVG_FRAMEPAD;
	}
	snprintf(samples, sizeof samples, "%.0f", (f->etime - f->stime) * o->factor);
	commify(samples, stxt);
	if (x->attrs.v && !root) {
		struct svg_smap_ent *e = svg_smap_find(&x->attrs, name, len);
		kv = e ? e->val : NULL;
	}
	/* flamegraph.pl's tags: "<a ATTRS>" for a link, else "<g ATTRS>" */
	svg_puts(ob, svg_attr_link(kv) ? "<a " : "<g ");
	svg_put_attrs(ob, kv);
	svg_puts(ob, ">\n<title>");
	if ((t = svg_attr_get(kv, "title")) != NULL && *t) {
		svg_put_xmls(ob, t);
	} else if (root) {
		svg_printf(ob, "all (%s ", stxt);
		svg_put_xmls(ob, o->countname);
		svg_puts(ob, ", 100%)");
	} else {
		svg_put_xml(ob, name, dlen);
		snprintf(info, sizeof info, " (%s ", stxt);
		svg_puts(ob, info);
		svg_put_xmls(ob, o->countname);
		if (d->differential && (f->flags & SF_DELTA)) {
			double dd = o->negate ? -f->delta : f->delta;
			char dp[64];
			if (dd == 0)
				dd = 0; /* "0.00", never "-0.00" */
			snprintf(dp, sizeof dp, "%.2f", 100 * dd / (timemax * o->factor));
			snprintf(info, sizeof info, ", %.2f%%; %s%s%%)",
			         100 * strtod(samples, NULL) / (timemax * o->factor), dd > 0 ? "+" : "", dp);
		} else {
			snprintf(info, sizeof info, ", %.2f%%)",
			         100 * strtod(samples, NULL) / (timemax * o->factor));
		}
		svg_puts(ob, info);
	}
	svg_puts(ob, "</title>");
	frame_fill(d, f, root ? "" : name, root ? 0 : len, &x->rnd, o->cp ? &x->cpmap : NULL, fill);
	snprintf(x1s, sizeof x1s, "%0.1f", x1);
	snprintf(x2s, sizeof x2s, "%0.1f", x2);
	w = strtod(x2s, NULL) - strtod(x1s, NULL);
	svg_printf(ob, "<rect x=\"%s\" y=\"", x1s);
	svg_put_num(ob, y1);
	svg_printf(ob, "\" width=\"%0.1f\" height=\"%0.1f\" fill=\"%s\" rx=\"2\" ry=\"2\" />\n", w, y2 - y1, fill);
	/* a differential's saturated blues and reds take white labels */
	svg_printf(ob, d->differential && pal_dark(fill) ? "<text  fill=\"#fff\" x=\"%0.2f\" y=\"" : "<text  x=\"%0.2f\" y=\"",
	           x1 + 3);
	svg_put_num(ob, 3 + (y1 + y2) / 2);
	svg_puts(ob, "\" >");
	if (!root)
		put_label(ob, name, dlen, x2 - x1, o);
	svg_puts(ob, "</text>\n");
	svg_puts(ob, svg_attr_link(kv) ? "</a>\n" : "</g>\n");
}

int svg_write(const struct svg_doc *d, const struct svg_frame *v, size_t n)
{
	const struct svg_opts *o = d->o;
	const struct fk_host *h = d->h;
	struct svg_w x;
	uint32_t maxrow = 0;
	int rc = 0;

	memset(&x, 0, sizeof x);
	x.d = d;
	x.o = o;
	x.attrs.h = x.cpmap.h = h;
	x.ob = h->alloc(sizeof *x.ob);
	if (!x.ob)
		return FK_ERR_NOMEM;
	x.ob->h = h;
	x.ob->w = d->w;
	x.ob->len = 0;
	x.ob->rc = 0;
	x.fs = o->fontsize;
	x.fh = (double)o->height;
	x.ypad1 = x.fs * 3;
	x.ypad2 = x.fs * 2 + 10;
	x.ypad3 = x.fs * 2;
	x.axispad = d->axis ? x.fs * 2 : 0;
	x.W = (double)o->width;
	pal_srand(&x.rnd, (uint32_t)o->seed);
	if (o->nameattr && (rc = svg_nameattr_load(h, o->nameattr, &x.attrs)) < 0)
		goto out;
	if (o->cp && (rc = svg_palmap_load(h, o->palette_file, &x.cpmap)) < 0)
		goto out;
	if (!(d->timemax > 0)) {
		rc = write_error_graph(&x);
		goto out;
	}
	x.wpt = (x.W - 2 * SVG_XPAD) / d->timemax;
	x.minw = svg_minwidth_time(o, d->timemax);
	for (size_t i = 0; i < n; i++)
		if (v[i].etime - v[i].stime >= x.minw && v[i].row > maxrow)
			maxrow = v[i].row;
	x.H = (maxrow + 1) * x.fh + x.ypad1 + x.ypad2 + x.axispad;
	if (o->subtitle && *o->subtitle)
		x.H += x.ypad3;
	write_head(&x);
	for (size_t i = 0; i < n && x.ob->rc == 0; i++)
		if (v[i].etime - v[i].stime >= x.minw)
			write_frame(&x, &v[i]);
	svg_puts(x.ob, "</g>\n");
	if (d->axis)
		put_axis(x.ob, d, x.wpt, x.H - x.fs);
	svg_puts(x.ob, "</svg>\n");
	svg_out_flush(x.ob);
	rc = x.ob->rc;
	if (rc == 0 && o->cp)
		rc = svg_palmap_save(h, d->w, o->palette_file, &x.cpmap);
out:
	svg_smap_free(&x.attrs);
	svg_smap_free(&x.cpmap);
	h->free(x.ob);
	return rc;
}
