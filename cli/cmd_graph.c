/*
 * flamekit graph: profiler output (any format, detected) in, an SVG flame graph
 * out.  Takes flamegraph.pl's options in its spelling (--title T and
 * --title=T), which are the options of the output plugin drawing the graph:
 * svg by default, flamechart for --flamechart (flamegraph.pl's flame chart
 * needs every input line in order, which only that plugin keeps), or any
 * output named with --output-plugin (icicle, hotcold, pprof, speedscope: any).
 */
#include <string.h>

#include "cli.h"

int graph_help(const struct fk_registry *r)
{
	const struct fk_plugin *svg = fk_registry_find(r, FK_PLUGIN_OUTPUT, "svg");

	if (!svg) {
		printf("\nGraph options: the svg plugin is not loaded; see 'flamekit plugins'\n");
		return EXIT_DATA;
	}
	printf("\nGraph options (the svg plugin's, described in flamekit-graph(1); another\n"
	       "--output-plugin NAME takes NAME's: flamekit plugins --help NAME):\n");
	fk_options_table(svg, stdout);
	return EXIT_OK;
}

/* What draws (c->drawer, chosen by cli_canon) and the inputs: a table
 * option, or the drawer's, or the input plugin's. */
struct graph {
	const struct fk_plugin *pl;
	void *opts;
	struct cli_inputs in;
};

static int graph_opt(void *ctx, int argc, char **argv, int *i)
{
	struct graph *g = ctx;
	int r = cli_plugin_opt(g->pl, g->opts, argc, argv, i);

	return r ? r : cli_inputs_opt(g->in.cli, &g->in, argc, argv, i);
}

/* --flamechart picks the flamechart plugin; with another --output-plugin
 * it is that plugin's option, if it has one. */
static int flamechart(struct cli *c, struct graph *g)
{
	char err[256];
	int rc;

	if (strcmp(c->drawer, "flamechart") == 0)
		return 0;
	if (!fk_option_find(g->pl, "flamechart")) {
		cli_usage_error("graph", "unknown option '--flamechart' (the options: flamekit plugins "
		                "--help %s)", c->drawer);
		return FK_ERR_USAGE;
	}
	if ((rc = fk_option_set(g->pl, g->opts, "flamechart", "1", err, sizeof err)) == FK_ERR_NOMEM)
		fk_log(FK_LOG_ERROR, "out of memory");
	else if (rc < 0)
		cli_usage_error("graph", "%s", err);
	return rc;
}

int cmd_graph(struct cli *c, int argc, char **argv)
{
	struct graph g = { 0 };
	struct cli_args a = { 0 };
	char hint[256];
	int rc;

	if (cli_load(c) < 0)
		return EXIT_DATA;
	if (!(g.pl = cli_find(c, FK_PLUGIN_OUTPUT, c->drawer, "graph")))
		return EXIT_USAGE;
	if (fk_options_new(g.pl, &g.opts) < 0) {
		fk_log(FK_LOG_ERROR, "out of memory");
		return EXIT_DATA;
	}
	if ((rc = cli_inputs_init(c, &g.in, c->format ? c->format : "auto", "graph", argc)) < 0)
		goto fail;
	snprintf(hint, sizeof hint, " (the options: flamekit plugins --help %s%s%s)", c->drawer,
	         g.in.pl ? ", and --help " : "", g.in.pl ? g.in.pl->d.h.name : "");
	if ((rc = cli_parse(c, "graph", argc, argv, graph_opt, &g, hint, &a)) < 0 ||
	    (a.given[OPT_DEMANGLE] && (rc = cli_demangle_opt(g.in.cmd, a.v[OPT_DEMANGLE], &g.in.demangle)) < 0) ||
	    (a.given[OPT_FLAMECHART] && (rc = flamechart(c, &g)) < 0))
		goto fail;
	for (size_t k = 0; k < a.nfiles; k++)
		g.in.files[g.in.nfiles++] = a.files[k];
	g.in.args = &a;
	/* graphsum draws folded names as they are: --strip-hex takes the pipeline */
	if (a.given[OPT_STRIP_HEX] || !graphsum_run(c, &g.in, g.pl, g.opts, a.v[OPT_OUTPUT], &rc))
		rc = cli_inputs_run(c, &g.in, g.pl, g.opts, a.v[OPT_OUTPUT]);
	goto out;
fail:
	rc = cli_exit(rc);
out:
	cli_args_free(&a);
	cli_inputs_free(&g.in);
	fk_options_free(g.pl, g.opts);
	return rc;
}
