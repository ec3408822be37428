/*
 * The svgdoc library: the flame graph document shared by the svg, icicle,
 * flamechart and hotcold output plugins (each links the library; none
 * compiles another plugin's files): the options they all take (flamegraph.pl's, same names and
 * defaults), a list of frames already laid out in time units, and one writer
 * that turns that list into flamegraph.pl's SVG (same geometry, tooltips,
 * labels, colours, DOM ids) with everything escaped.
 */
#ifndef FK_SVGDOC_SVGDOC_H
#define FK_SVGDOC_SVGDOC_H

#include <stddef.h>
#include <stdint.h>

#include <flamekit/plugin.h>

#include "palette.h"

/* Options of every flame-graph-like output.  Strings belong to the engine. */
struct svg_opts {
	const char *title, *subtitle, *notes;
	long long width, height;
	const char *minwidth;   /* "0.1" pixels or "5%" of the total */
	const char *fonttype;
	double fontsize, fontwidth;
	const char *countname, *nametype;
	const char *colors, *bgcolors;
	int hash, random;
	long long seed;
	int cp;
	const char *palette_file;
	int reverse, inverted, flamechart, negate, diff_subtree;
	double total, factor;
	const char *encoding, *nameattr, *searchcolor;
	/* inferno's: colour by width, frame outlines, the UI text's colour,
	 * no script */
	int colordiffusion, no_javascript;
	const char *stroke_color, *uicolor;
	/* flamechart / hotcold only */
	double frequency;
	int by_thread;
};

/* The option table entries they share, for each plugin's table. */
#define SVG_COMMON_OPTIONS(INVERTED_DEFAULT)                                                        \
	FK_OPTION(FK_OPT_STRING, "title", NULL, struct svg_opts, title,                            \
	          "title text (default \"Flame Graph\", \"Icicle Graph\" or \"Flame Chart\")"),        \
	FK_OPTION(FK_OPT_STRING, "subtitle", NULL, struct svg_opts, subtitle, "second title line"),  \
	FK_OPTION(FK_OPT_INT, "width", "1200", struct svg_opts, width, "image width in pixels"),       \
	FK_OPTION(FK_OPT_INT, "height", "16", struct svg_opts, height, "height of each frame, px"),    \
	FK_OPTION(FK_OPT_STRING, "minwidth", "0.1", struct svg_opts, minwidth,                      \
	          "omit frames narrower than this many pixels, or N% of the total"),                  \
	FK_OPTION(FK_OPT_STRING, "fonttype", "Verdana", struct svg_opts, fonttype, "font family"),    \
	FK_OPTION(FK_OPT_DOUBLE, "fontsize", "12", struct svg_opts, fontsize, "font size"),           \
	FK_OPTION(FK_OPT_DOUBLE, "fontwidth", "0.59", struct svg_opts, fontwidth,                  \
	          "average glyph width relative to the font size"),                                   \
	FK_OPTION(FK_OPT_STRING, "countname", "samples", struct svg_opts, countname,                \
	          "what the counts are, in tooltips"),                                                 \
	FK_OPTION(FK_OPT_STRING, "nametype", "Function:", struct svg_opts, nametype,                \
	          "what the names are, on the details line"),                                          \
	FK_OPTION(FK_OPT_STRING, "colors", "hot", struct svg_opts, colors,                          \
	          "palette: hot mem io wakeup chain java js perl red green blue aqua yellow purple orange rust python"), \
	FK_OPTION(FK_OPT_STRING, "bgcolors", NULL, struct svg_opts, bgcolors,                       \
	          "background: yellow blue green grey or #rrggbb (default: by palette)"),             \
	FK_OPTION(FK_OPT_FLAG, "hash", "0", struct svg_opts, hash, "colour by a hash of the name"),  \
	FK_OPTION(FK_OPT_FLAG, "random", "0", struct svg_opts, random,                              \
	          "random colours (reproducible: see --seed)"),                                        \
	FK_OPTION(FK_OPT_INT, "seed", "0", struct svg_opts, seed, "seed of --random"),              \
	FK_OPTION(FK_OPT_FLAG, "cp", "0", struct svg_opts, cp,                                      \
	          "consistent palette: read and update the palette map file"),                         \
	FK_OPTION(FK_OPT_PATH, "palette-file", "palette.map", struct svg_opts, palette_file,        \
	          "palette map file of --cp (in a job: relative to the job file)"),                                                         \
	FK_OPTION(FK_OPT_FLAG, "reverse", "0", struct svg_opts, reverse,                            \
	          "reverse every stack (merge from the leaves)"),                                      \
	FK_OPTION(FK_OPT_FLAG, "inverted", INVERTED_DEFAULT, struct svg_opts, inverted,             \
	          "icicle graph: root at the top"),                                                    \
	FK_OPTION(FK_OPT_FLAG, "negate", "0", struct svg_opts, negate,                              \
	          "differential: swap red and blue"),                                                  \
	FK_OPTION(FK_OPT_FLAG, "diff-subtree", "0", struct svg_opts, diff_subtree,                  \
	          "differential: colour by the change of the whole subtree, not the frame's own"),    \
	FK_OPTION(FK_OPT_STRING, "notes", NULL, struct svg_opts, notes, "notes embedded in the SVG"), \
	FK_OPTION(FK_OPT_DOUBLE, "total", "0", struct svg_opts, total,                              \
	          "the total to draw against, when larger than the sum of the counts"),               \
	FK_OPTION(FK_OPT_DOUBLE, "factor", "1", struct svg_opts, factor,                            \
	          "scale the counts in tooltips by this"),                                             \
	FK_OPTION(FK_OPT_STRING, "encoding", NULL, struct svg_opts, encoding,                       \
	          "encoding named in the XML declaration"),                                            \
	FK_OPTION(FK_OPT_PATH, "nameattr", NULL, struct svg_opts, nameattr,                         \
	          "file of per-function attributes (NAME<TAB>key=value...)"),                         \
	FK_OPTION(FK_OPT_STRING, "searchcolor", "rgb(230,0,230)", struct svg_opts, searchcolor,     \
	          "colour of frames matching a search"),                                               \
	FK_OPTION(FK_OPT_FLAG, "colordiffusion", "0", struct svg_opts, colordiffusion,              \
	          "colour by width, the widest reddest (inferno's)"),                                  \
	FK_OPTION(FK_OPT_STRING, "stroke-color", "none", struct svg_opts, stroke_color,             \
	          "outline every frame: #rrggbb, rgb(r,g,b) or none (inferno's)"),                     \
	FK_OPTION(FK_OPT_STRING, "uicolor", NULL, struct svg_opts, uicolor,                         \
	          "colour of the title, buttons and details line: #rrggbb or rgb(r,g,b) (inferno's)"), \
	FK_OPTION(FK_OPT_FLAG, "no-javascript", "0", struct svg_opts, no_javascript,                \
	          "write no script: a static picture (inferno's)")

/* One frame to draw.  Times are in the units of the counts. */
enum { SF_DELTA = 1u, SF_LABEL = 2u };
struct svg_frame {
	fk_frame_t frame;     /* FK_FRAME_NONE: the root ("all") or a label frame */
	uint32_t row;         /* 0 = bottom row (top row when inverted) */
	unsigned flags;
	double stime, etime;
	double delta;         /* SF_DELTA */
	const char *label;    /* SF_LABEL: name to show instead of the frame's */
	size_t label_len;
	const char *palette;  /* NULL: the --colors palette */
};

/* Axis ticks under the frames (flamechart), in time units. */
struct svg_axis {
	double origin;        /* time at x = xpad */
	double unit;          /* time units per second */
};

struct svg_doc {
	const struct fk_host *h;
	const struct fk_profile *p;
	struct fk_writer *w;
	const struct svg_opts *o;
	const char *default_title;
	double timemax;       /* the width of the graph in time units */
	double maxdelta;
	int differential;
	const struct svg_axis *axis; /* NULL: none */
};

/* Padding left and right of the frames, and between rows, in pixels. */
#define SVG_XPAD 10.0
#define SVG_FRAMEPAD 1.0

extern const char svg_script[];

/* "#rrggbb" or "rgb(r,g,b)": a colour that may be written into the SVG. */
int svg_colour_ok(const char *s);

/* Validate options common to all (palette names, widths...); logs and
 * returns FK_ERR_USAGE on a bad value. */
int svg_check_opts(const struct fk_host *h, const struct svg_opts *o);
/* The descriptors' check callback: svg_check_opts before any input is read. */
int svg_check(const struct fk_host *h, const void *opts, const char *where);
/* The minimum width in time units, from --minwidth. */
double svg_minwidth_time(const struct svg_opts *o, double timemax);
/* The descriptors' min_weight (<flamekit/plugin.h>): the minimum width in
 * weight for a profile of `total`, or -1 when every frame matters. */
double svg_min_weight(const struct fk_host *h, const void *opts, double total);
/* Write the document: frames narrower than --minwidth are skipped. */
int svg_write(const struct svg_doc *d, const struct svg_frame *v, size_t n);

#endif
