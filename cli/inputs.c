/*
 * The input side of collapse and graph: which input plugin reads (NULL for
 * --format auto: detected per file), its options (or, for auto, options
 * kept until detection picks the plugin), the files, and the pipeline
 * that reads them into one output.
 */
#include <string.h>

#include "cli.h"

int cli_inputs_init(struct cli *c, struct cli_inputs *in, const char *format, const char *cmd,
                    int argc)
{
	memset(in, 0, sizeof *in);
	in->cli = c;
	in->cmd = cmd;
	in->files = fk_calloc((size_t)argc + 1, sizeof *in->files);
	in->names = fk_calloc((size_t)argc + 1, sizeof *in->names);
	if (!in->files || !in->names)
		goto nomem;
	if (strcmp(format, "auto") == 0)
		return 0;
	if (!(in->pl = cli_find(c, FK_PLUGIN_INPUT, format, cmd)))
		return FK_ERR_USAGE;
	if (fk_options_new(in->pl, &in->opts) < 0)
		goto nomem;
	return 0;
nomem:
	fk_log(FK_LOG_ERROR, "out of memory");
	return FK_ERR_NOMEM;
}

/* An option some input plugin has, given before detection picks which:
 * kept, with its value, for the plugin detected (fk_input_spec.optnames). */
static int pending_opt(struct cli *c, struct cli_inputs *in, int argc, char **argv, int *i)
{
	const char *a = argv[*i], *eq = strchr(a + 2, '='), *v;
	size_t n = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
	const struct fk_option *o;
	char *name = fk_strndup(a + 2, n);

	if (!name) {
		fk_log(FK_LOG_ERROR, "out of memory");
		return FK_ERR_NOMEM;
	}
	in->names[in->nnames++] = name;
	if (!(o = cli_any_input_option(&c->reg, name)))
		return 0;
	v = eq ? eq + 1 : NULL;
	if (!v && o->type != FK_OPT_FLAG) {
		if (*i + 1 >= argc) {
			cli_usage_error(in->cmd, "--%s needs a value", name);
			return FK_ERR_USAGE;
		}
		v = argv[++*i];
	}
	if (cli_pending_add(&in->pd, name, v) < 0) {
		fk_log(FK_LOG_ERROR, "out of memory");
		return FK_ERR_NOMEM;
	}
	return 1;
}

int cli_demangle_opt(const char *cmd, const char *value, int *choice)
{
	if (value && strcmp(value, "full") != 0 && strcmp(value, "short") != 0 &&
	    strcmp(value, "no") != 0) {
		cli_usage_error(cmd, "--demangle takes full, short or no, not \"%s\"", value);
		return FK_ERR_USAGE;
	}
	*choice = fk_demangle_parse(value ? value : "full");
	return 0;
}

int cli_inputs_opt(struct cli *c, struct cli_inputs *in, int argc, char **argv, int *i)
{
	const char *a = argv[*i];

	if (in->pl)
		return cli_plugin_opt(in->pl, in->opts, argc, argv, i);
	if (strncmp(a, "--", 2) == 0 && a[2])
		return pending_opt(c, in, argc, argv, i);
	return 0;
}

/* Filter pl, its options opts, added to fc: the chain owns opts once
 * added; not when adding failed (reported).  0 or the exit status. */
static int chain_add(struct fk_filter_chain *fc, const struct fk_plugin *pl, void *opts)
{
	int rc = fk_filter_chain_add(fc, pl, opts, NULL);

	if (rc < 0) {
		fk_options_free(pl, opts);
		return cli_exit(rc);
	}
	return 0;
}

int cli_narrow_add(struct cli *c, const char *cmd, const struct cli_args *a,
                   struct fk_filter_chain *fc)
{
	const struct fk_plugin *nw;
	char err[512];
	void *opts;
	int rc;

	if (!a || a->nnarrow == 0)
		return 0;
	if (!(nw = cli_find(c, FK_PLUGIN_FILTER, "narrow", cmd)))
		return EXIT_USAGE;
	if (fk_options_new(nw, &opts) < 0)
		goto nomem;
	for (size_t k = 0; k < a->nnarrow; k++) {
		if ((rc = fk_option_set(nw, opts, a->nnames[k], a->nvalues[k], err, sizeof err)) < 0) {
			fk_options_free(nw, opts);
			if (rc == FK_ERR_NOMEM)
				goto nomem;
			cli_usage_error(cmd, "%s", err);
			return EXIT_USAGE;
		}
	}
	return chain_add(fc, nw, opts);
nomem:
	fk_log(FK_LOG_ERROR, "out of memory");
	return EXIT_DATA;
}

int cli_strip_hex_add(struct cli *c, const char *cmd, const struct cli_args *a,
                      struct fk_filter_chain *fc)
{
	const struct fk_plugin *sh;
	void *opts;

	if (!a || !a->given[OPT_STRIP_HEX])
		return 0;
	if (!(sh = cli_find(c, FK_PLUGIN_FILTER, "strip-hex", cmd)))
		return EXIT_USAGE;
	if (fk_options_new(sh, &opts) < 0) {
		fk_log(FK_LOG_ERROR, "out of memory");
		return EXIT_DATA;
	}
	return chain_add(fc, sh, opts);
}

int cli_inputs_run(struct cli *c, struct cli_inputs *in, const struct fk_plugin *out_pl,
                   void *out_opts, const char *outpath)
{
	struct fk_input_spec *specs;
	struct fk_output_spec out;
	struct fk_pipeline pl;
	int rc;

	if (in->nfiles == 0)
		in->files[in->nfiles++] = "-";
	if (!(specs = fk_calloc(in->nfiles, sizeof *specs))) {
		fk_log(FK_LOG_ERROR, "out of memory");
		return EXIT_DATA;
	}
	for (size_t k = 0; k < in->nfiles; k++) {
		specs[k].path = in->files[k];
		specs[k].plugin = in->pl;
		specs[k].opts = in->opts;
		specs[k].optnames = in->pd.names;
		specs[k].optvalues = in->pd.values;
		specs[k].nopts = in->pd.n;
		specs[k].shard_k = c->shard_k;
		specs[k].shard_n = c->shard_n;
		specs[k].demangle = in->demangle; /* the engine's step, per input */
	}
	memset(&out, 0, sizeof out);
	out.plugin = out_pl;
	out.opts = out_opts;
	out.path = outpath;
	memset(&pl, 0, sizeof pl);
	pl.reg = &c->reg;
	pl.inputs = specs;
	pl.ninputs = in->nfiles;
	pl.outputs = &out;
	pl.noutputs = 1;
	pl.threads = cli_threads(c);
	pl.progress = c->progress;
	/* narrowed on the names as read, then stripped (as diff -s does) */
	if ((rc = cli_narrow_add(c, in->cmd, in->args, &pl.filters)) != 0 ||
	    (rc = cli_strip_hex_add(c, in->cmd, in->args, &pl.filters)) != 0)
		goto out;
	rc = cli_exit(fk_pipeline_run(&pl));
out:
	fk_filter_chain_free(&pl.filters);
	fk_free(specs);
	return rc;
}

void cli_inputs_free(struct cli_inputs *in)
{
	if (in->pl)
		fk_options_free(in->pl, in->opts);
	for (size_t k = 0; k < in->nnames; k++)
		fk_free(in->names[k]);
	fk_free(in->names);
	fk_free(in->pd.names);
	fk_free(in->pd.values);
	fk_free(in->files);
	memset(in, 0, sizeof *in);
}
