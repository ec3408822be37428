/*
 * Output plugins "svg" (a flame graph, flamegraph.pl's output and options)
 * and, built from this file with -DFK_SVG_ICICLE, "icicle" (the same graph
 * with the root at the top; --inverted is its default).
 *
 * --flamechart needs every input line in order (the sample log), which this
 * plugin does not ask the engine to keep, so that memory grows only with the
 * distinct stacks: the "flamechart" output draws flamegraph.pl's flame chart,
 * and `flamekit graph --flamechart` picks it.
 */
#include <string.h>

#include "layout.h"

#ifdef FK_SVG_ICICLE
#define NAME "icicle"
#define INVERTED "1"
#define DESCRIPTION "icicle graph (flame graph with the root at the top), flamegraph.pl's options"
#else
#define NAME "svg"
#define INVERTED "0"
#define DESCRIPTION "interactive SVG flame graph, with flamegraph.pl's options and colours"
#endif

static const struct fk_option options[] = {
	SVG_COMMON_OPTIONS(INVERTED),
	FK_OPTION(FK_OPT_FLAG, "flamechart", "0", struct svg_opts, flamechart,
	          "flame chart: input order, adjacent stacks merged (use the flamechart output)"),
	FK_OPTION_END,
};

/* A quantity the input declared (bytes, from perf --weight-field
 * bytes_alloc, or a field's name) is what the tooltips count, unless
 * --countname was given.  Sample counts, events and times keep
 * flamegraph.pl's "samples", as they always have. */
static const char *count_name(const struct fk_host *h, const struct fk_profile *p,
                              const char *countname)
{
	static const char *const kept[] = { "samples", "events", "cycles", "ns", "us", "ms", "s" };
	int diff, ws = svg_width_series(h, p, &diff);
	const char *u = h->series_unit(p, ws);

	if (strcmp(countname, "samples") != 0 || !u || !u[0])
		return countname;
	for (size_t i = 0; i < sizeof kept / sizeof kept[0]; i++)
		if (strcmp(u, kept[i]) == 0)
			return countname;
	return u;
}

static int render(const struct fk_host *h, const struct fk_profile *p, struct fk_writer *w, const void *opts)
{
	struct svg_opts copy = *(const struct svg_opts *)opts;
	const struct svg_opts *o = &copy;

	copy.countname = count_name(h, p, copy.countname);

	if (o->flamechart) {
		if (h->samples(p) == 0 && h->node_total(p, FK_NODE_ROOT, 0) + h->node_total(p, FK_NODE_ROOT, 1) > 0) {
			h->log(FK_LOG_ERROR, "flamechart: the " NAME " output keeps no sample log; "
			       "use the flamechart output (flamekit graph --flamechart picks it)");
			return FK_ERR_USAGE;
		}
		return svg_render_profile(h, p, w, o, "Flame Chart", 1);
	}
	return svg_render_profile(h, p, w, o, o->inverted ? "Icicle Graph" : "Flame Graph", 0);
}

static struct fk_output_plugin plugin = {
	.h = {
		.name = NAME,
		.version = "1.0",
		.description = DESCRIPTION,
		.options = options,
		.options_size = sizeof(struct svg_opts),
	},
	.render = render,
	.check = svg_check,
	.min_weight = svg_min_weight,
};

FLAMEKIT_REGISTER_OUTPUT(plugin)
