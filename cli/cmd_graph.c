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

/* What draws: --output-plugin NAME, flamechart for --flamechart, else svg. */
struct drawer {
	const char *name;
	const struct fk_plugin *pl;
	void *opts;
};

/* First pass: the format and what draws, so their options are known. */
static int choose(int argc, char **argv, const char **format, const char **outname)
{
	int flamechart = 0, r;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--") == 0)
			break;
		if ((r = cli_format_opt("graph", argc, argv, &i, format)) < 0)
			return r;
		if (r > 0)
			continue;
		if (strncmp(a, "--output-plugin=", 16) == 0) {
			*outname = a + 16;
		} else if (strcmp(a, "--output-plugin") == 0) {
			if (i + 1 >= argc) {
				cli_usage_error("graph", "%s needs an output plugin name", a);
				return FK_ERR_USAGE;
			}
			*outname = argv[++i];
		} else if (strcmp(a, "--flamechart") == 0 || strcmp(a, "--flamechart=true") == 0 ||
		           strcmp(a, "--flamechart=1") == 0) {
			flamechart = 1;
		}
	}
	if (!*outname)
		*outname = flamechart ? "flamechart" : "svg";
	return 0;
}

/* Everything but the common options: the graph's options first (they are
 * what this command is about), then the output, the input's, the files. */
static int sort_args(struct cli *c, struct cli_inputs *in, struct drawer *d, int argc, char **argv,
                     const char **outpath)
{
	const char *ignored;
	int r;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int k = i;
		if (strcmp(a, "--") == 0) {
			while (++i < argc)
				in->files[in->nfiles++] = argv[i];
			break;
		}
		if (strcmp(a, "--output-plugin") == 0) {
			i++;
			continue;
		}
		if (strncmp(a, "--output-plugin=", 16) == 0 ||
		    (strcmp(a, "--flamechart") == 0 && strcmp(d->name, "flamechart") == 0))
			continue; /* chosen already; flamechart's own mode */
		if ((r = cli_common_opt(c, argc, argv, &k)) != 0 ||
		    (r = cli_format_opt("graph", argc, argv, &k, &ignored)) != 0 ||
		    (r = cli_output_opt("graph", argc, argv, &k, outpath)) != 0 ||
		    (r = cli_plugin_opt(d->pl, d->opts, argc, argv, &k)) != 0 ||
		    (r = cli_inputs_opt(c, in, argc, argv, &k)) != 0) {
			if (r < 0)
				return r;
			i = k;
			continue;
		}
		if (a[0] == '-' && a[1]) {
			cli_usage_error("graph", "unknown option '%s' (the options: flamekit plugins --help %s%s%s)",
			                a, d->name, in->pl ? ", and --help " : "", in->pl ? in->pl->d.h.name : "");
			return FK_ERR_USAGE;
		}
		in->files[in->nfiles++] = a;
	}
	return 0;
}

int cmd_graph(struct cli *c, int argc, char **argv)
{
	const char *format = "auto", *outpath = NULL;
	struct drawer d = { NULL, NULL, NULL };
	struct cli_inputs in = { 0 };
	int rc, i, r;

	if ((rc = choose(argc, argv, &format, &d.name)) < 0)
		return cli_exit(rc);
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		if ((r = cli_common_opt(c, argc, argv, &i)) < 0)
			return cli_exit(r);
	}
	if (cli_load(c) < 0)
		return EXIT_DATA;
	if (!(d.pl = cli_find(c, FK_PLUGIN_OUTPUT, d.name, "graph")))
		return EXIT_USAGE;
	if (fk_options_new(d.pl, &d.opts) < 0) {
		fk_log(FK_LOG_ERROR, "out of memory");
		return EXIT_DATA;
	}
	if ((rc = cli_inputs_init(c, &in, format, "graph", argc)) < 0 ||
	    (rc = sort_args(c, &in, &d, argc, argv, &outpath)) < 0) {
		rc = cli_exit(rc);
		goto out;
	}
	if (!graphsum_run(c, &in, d.pl, d.opts, outpath, &rc))
		rc = cli_inputs_run(c, &in, d.pl, d.opts, outpath);
out:
	cli_inputs_free(&in);
	fk_options_free(d.pl, d.opts);
	return rc;
}
