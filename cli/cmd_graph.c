/*
 * flamekit graph: profiler output (folded by default) in, an SVG flame graph
 * out.  Takes flamegraph.pl's options in its spelling (--title T and
 * --title=T), which are the options of the output plugin drawing the graph:
 * svg by default, flamechart for --flamechart (flamegraph.pl's flame chart
 * needs every input line in order, which only that plugin keeps), or any
 * output named with --output-plugin (icicle, hotcold, ...).
 */
#include <string.h>

#include "cli.h"

/* argv[i] is --NAME or --NAME=VALUE: does it name `name`? */
static int is_opt(const char *a, const char *name)
{
	size_t n = strlen(name);
	return strncmp(a, name, n) == 0 && (a[n] == '\0' || a[n] == '=');
}

int cmd_graph(struct cli *c, int argc, char **argv)
{
	const char *format = "folded", *outpath = NULL, *outname = NULL;
	const struct fk_plugin *in_pl = NULL, *out_pl = NULL;
	struct fk_pipeline pl;
	struct fk_input_spec *specs = NULL;
	struct fk_output_spec out;
	struct pending pd = { 0 };
	void *in_opts = NULL, *out_opts = NULL;
	char **files = NULL, **names_own = NULL;
	size_t nfiles = 0, nown = 0;
	int rc = EXIT_USAGE, i, r, flamechart = 0, format_given = 0;

	/* First pass: what reads and what draws, so their options are known. */
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--") == 0)
			break;
		if (strncmp(a, "--format=", 9) == 0) {
			format = a + 9;
			format_given = 1;
		} else if (strcmp(a, "--format") == 0 || strcmp(a, "-f") == 0) {
			if (i + 1 >= argc)
				return cli_usage_error("graph", "%s needs a format name", a);
			format = argv[++i];
			format_given = 1;
		} else if (strncmp(a, "--output-plugin=", 16) == 0) {
			outname = a + 16;
		} else if (strcmp(a, "--output-plugin") == 0) {
			if (i + 1 >= argc)
				return cli_usage_error("graph", "%s needs an output plugin name", a);
			outname = argv[++i];
		} else if (strcmp(a, "--flamechart") == 0 || strcmp(a, "--flamechart=true") == 0 ||
		           strcmp(a, "--flamechart=1") == 0) {
			flamechart = 1;
		}
	}
	if (!outname)
		outname = flamechart ? "flamechart" : "svg";
	files = fk_calloc((size_t)argc + 1, sizeof *files);
	names_own = fk_calloc((size_t)argc + 1, sizeof *names_own);
	if (!files || !names_own)
		goto nomem;
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		if ((r = cli_common_opt(c, argc, argv, &i)) < 0) {
			rc = cli_exit(r);
			goto out;
		}
	}
	if (cli_load(c) < 0) {
		rc = EXIT_DATA;
		goto out;
	}
	out_pl = cli_find(c, FK_PLUGIN_OUTPUT, outname, "graph");
	if (!out_pl)
		goto out;
	if (fk_options_new(out_pl, &out_opts) < 0)
		goto nomem;
	if (strcmp(format, "auto") != 0) {
		in_pl = cli_find(c, FK_PLUGIN_INPUT, format, "graph");
		if (!in_pl)
			goto out;
		if (fk_options_new(in_pl, &in_opts) < 0)
			goto nomem;
	}
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		int dummy = i;
		if (strcmp(a, "--") == 0) {
			for (i++; i < argc; i++)
				files[nfiles++] = argv[i];
			break;
		}
		if (cli_common_opt(c, argc, argv, &dummy) != 0) {
			i = dummy;
			continue;
		}
		if (is_opt(a, "--format") || is_opt(a, "--output-plugin")) {
			if (strchr(a, '=') == NULL)
				i++;
			continue;
		}
		if (strcmp(a, "-f") == 0) {
			i++;
			continue;
		}
		r = cli_output_opt("graph", argc, argv, &i, &outpath);
		if (r < 0) {
			rc = cli_exit(r);
			goto out;
		}
		if (r > 0)
			continue;
		/* The graph's options first: they are what this command is about. */
		r = cli_plugin_opt(out_pl, out_opts, argc, argv, &i);
		if (r < 0) {
			rc = cli_exit(r);
			goto out;
		}
		if (r > 0)
			continue;
		if (strcmp(a, "--flamechart") == 0 && strcmp(outname, "flamechart") == 0)
			continue; /* flamechart's own mode */
		if (in_pl) {
			r = cli_plugin_opt(in_pl, in_opts, argc, argv, &i);
			if (r < 0) {
				rc = cli_exit(r);
				goto out;
			}
			if (r > 0)
				continue;
		} else if (strncmp(a, "--", 2) == 0 && a[2]) {
			const char *eq = strchr(a + 2, '=');
			size_t n = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
			char *name = fk_strndup(a + 2, n);
			const struct fk_option *o;
			if (!name)
				goto nomem;
			names_own[nown++] = name;
			o = cli_any_input_option(&c->reg, name);
			if (o) {
				const char *v = eq ? eq + 1 : NULL;
				if (!v && o->type != FK_OPT_FLAG) {
					if (i + 1 >= argc) {
						cli_usage_error("graph", "--%s needs a value", name);
						goto out;
					}
					v = argv[++i];
				}
				if (cli_pending_add(&pd, name, v) < 0)
					goto nomem;
				continue;
			}
		}
		if (a[0] == '-' && a[1]) {
			cli_usage_error("graph", "unknown option '%s' (the options: flamekit plugins --help %s%s%s)",
			                a, outname, in_pl ? ", and --help " : "", in_pl ? in_pl->d.h.name : "");
			goto out;
		}
		files[nfiles++] = argv[i];
	}
	if (nfiles == 0)
		files[nfiles++] = "-";
	specs = fk_calloc(nfiles, sizeof *specs);
	if (!specs)
		goto nomem;
	for (size_t k = 0; k < nfiles; k++) {
		specs[k].path = files[k];
		specs[k].plugin = in_pl;
		specs[k].opts = in_opts;
		specs[k].optnames = pd.names;
		specs[k].optvalues = pd.values;
		specs[k].nopts = pd.n;
		specs[k].magic_wins = !format_given; /* graph perf.data needs no --format */
	}
	memset(&out, 0, sizeof out);
	out.plugin = out_pl;
	out.opts = out_opts;
	out.path = outpath;
	memset(&pl, 0, sizeof pl);
	pl.reg = &c->reg;
	pl.inputs = specs;
	pl.ninputs = nfiles;
	pl.outputs = &out;
	pl.noutputs = 1;
	pl.threads = cli_threads(c);
	pl.progress = c->progress;
	rc = cli_exit(fk_pipeline_run(&pl));
	goto out;
nomem:
	fk_log(FK_LOG_ERROR, "out of memory");
	rc = EXIT_DATA;
out:
	if (in_pl)
		fk_options_free(in_pl, in_opts);
	if (out_opts)
		fk_options_free(out_pl, out_opts);
	for (size_t k = 0; k < nown; k++)
		fk_free(names_own[k]);
	fk_free(names_own);
	fk_free(pd.names);
	fk_free(pd.values);
	fk_free(specs);
	fk_free(files);
	return rc;
}
