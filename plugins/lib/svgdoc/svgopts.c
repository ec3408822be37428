/*
 * Checking the options every flame-graph-like output shares, once, before
 * anything is drawn: each bad value gets one message naming the option.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "svgdoc.h"
#include "xmlout.h"

static int font_ok(const char *s)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      *s == ' ' || *s == '-' || *s == '_' || *s == ',' || *s == '\''))
			return 0;
	return 1;
}

int svg_colour_ok(const char *s)
{
	size_t n = strlen(s);
	if (n == 7 && s[0] == '#' && strspn(s + 1, "0123456789abcdefABCDEF") == 6)
		return 1;
	if (n >= 10 && n < 24 && strncmp(s, "rgb(", 4) == 0 && s[n - 1] == ')' &&
	    strspn(s + 4, "0123456789,") == n - 5)
		return 1;
	return 0;
}

static int minwidth_parse(const char *s, double *v, int *pct)
{
	char *end;
	errno = 0;
	*v = strtod(s, &end);
	*pct = 0;
	if (end == s || errno || !isfinite(*v) || *v < 0)
		return -1;
	if (*end == '%') {
		*pct = 1;
		end++;
	}
	return *end ? -1 : 0;
}

int svg_check(const struct fk_host *h, const void *opts, const char *where)
{
	(void)where;
	return svg_check_opts(h, opts);
}

int svg_check_opts(const struct fk_host *h, const struct svg_opts *o)
{
	double v;
	int pct;

	if (!pal_known(o->colors)) {
		h->log(FK_LOG_ERROR, "unknown palette \"%s\" (--colors: hot mem io wakeup chain java js perl "
		       "red green blue aqua yellow purple orange rust python)", o->colors);
		return FK_ERR_USAGE;
	}
	if (o->bgcolors && strcmp(o->bgcolors, "yellow") && strcmp(o->bgcolors, "blue") &&
	    strcmp(o->bgcolors, "green") && strcmp(o->bgcolors, "grey") &&
	    !(o->bgcolors[0] == '#' && svg_colour_ok(o->bgcolors))) {
		h->log(FK_LOG_ERROR, "unknown background \"%s\" (--bgcolors: yellow blue green grey or #rrggbb)",
		       o->bgcolors);
		return FK_ERR_USAGE;
	}
	if (o->width < 20 + 1 || o->width > 10000000) {
		h->log(FK_LOG_ERROR, "--width must be from 21 to 10000000 pixels, not %lld", o->width);
		return FK_ERR_USAGE;
	}
	if (o->height < 1 || o->height > 10000) {
		h->log(FK_LOG_ERROR, "--height must be from 1 to 10000 pixels, not %lld", o->height);
		return FK_ERR_USAGE;
	}
	if (!(o->fontsize > 0 && o->fontsize < 1000) || !(o->fontwidth > 0 && o->fontwidth < 100)) {
		h->log(FK_LOG_ERROR, "--fontsize and --fontwidth must be positive");
		return FK_ERR_USAGE;
	}
	if (minwidth_parse(o->minwidth, &v, &pct) < 0) {
		h->log(FK_LOG_ERROR, "--minwidth takes pixels or a percentage (0.1, 5%%), not \"%s\"", o->minwidth);
		return FK_ERR_USAGE;
	}
	if (!font_ok(o->fonttype)) {
		h->log(FK_LOG_ERROR, "--fonttype takes font names (letters, digits, spaces, - _ , '), not \"%s\"",
		       o->fonttype);
		return FK_ERR_USAGE;
	}
	if (o->stroke_color && strcmp(o->stroke_color, "none") != 0 && !svg_colour_ok(o->stroke_color)) {
		h->log(FK_LOG_ERROR, "--stroke-color takes #rrggbb, rgb(r,g,b) or none, not \"%s\"",
		       o->stroke_color);
		return FK_ERR_USAGE;
	}
	if (o->uicolor && !svg_colour_ok(o->uicolor)) {
		h->log(FK_LOG_ERROR, "--uicolor takes #rrggbb or rgb(r,g,b), not \"%s\"", o->uicolor);
		return FK_ERR_USAGE;
	}
	if (!svg_colour_ok(o->searchcolor)) {
		h->log(FK_LOG_ERROR, "--searchcolor takes #rrggbb or rgb(r,g,b), not \"%s\"", o->searchcolor);
		return FK_ERR_USAGE;
	}
	if (o->encoding && (!*o->encoding || strspn(o->encoding, "abcdefghijklmnopqrstuvwxyz"
	                                                           "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != strlen(o->encoding))) {
		h->log(FK_LOG_ERROR, "--encoding takes an encoding name, not \"%s\"", o->encoding);
		return FK_ERR_USAGE;
	}
	if (!(o->factor > 0) || o->total < 0) {
		h->log(FK_LOG_ERROR, "--factor must be positive and --total not negative");
		return FK_ERR_USAGE;
	}
	return 0;
}

double svg_minwidth_time(const struct svg_opts *o, double timemax)
{
	double v = 0.1;
	int pct = 0;

	minwidth_parse(o->minwidth, &v, &pct);
	if (pct)
		return timemax * v / 100;
	return v / (((double)o->width - 2 * SVG_XPAD) / timemax);
}

/* The descriptors' min_weight: svg_minwidth_time of the graph's total, the
 * width layout_tree() skips frames below, so the one formula stays here.
 * --flamechart is not refused: the flamechart output lays out the sample
 * log with the same minimum width (its total is the log's, the same as the
 * tree's), and the svg output, which keeps no log, fails the same way on a
 * cut tree as on the whole one. */
double svg_min_weight(const struct fk_host *h, const void *opts, double total)
{
	const struct svg_opts *o = opts;
	double timemax = o->total > total ? o->total : total;

	(void)h;
	if (o->reverse || !(timemax > 0) || !isfinite(timemax))
		return -1; /* reversed stacks merge from the leaves: every frame matters */
	return svg_minwidth_time(o, timemax);
}
