/* flamekit collapse: profiler output in, folded stacks out. */
#include <string.h>

#include "cli.h"

/* Collapse the files: folded ones summed whole (foldsum.c), anything
 * else through the pipeline's stack tree into the folded output. */
static int run(struct cli *c, const struct fk_plugin *in_pl, void *in_opts, const struct pending *pd,
               char **files, size_t nfiles, const char *outpath)
{
	const struct fk_plugin *out_pl, *fold;
	struct fk_input_spec *specs;
	struct fk_output_spec out;
	struct fk_pipeline pl;
	int rc;

	out_pl = cli_find(c, FK_PLUGIN_OUTPUT, "folded", "collapse");
	if (!out_pl)
		return FK_ERR_PLUGIN;
	if (pd->n == 0 && (fold = foldsum_applies(c, in_pl, files, nfiles)) != NULL)
		return foldsum_run(c, fold, files, nfiles, outpath, in_pl == NULL);
	specs = fk_calloc(nfiles, sizeof *specs);
	if (!specs) {
		fk_log(FK_LOG_ERROR, "out of memory");
		return FK_ERR_NOMEM;
	}
	for (size_t k = 0; k < nfiles; k++) {
		specs[k].path = files[k];
		specs[k].plugin = in_pl;
		specs[k].opts = in_opts;
		specs[k].optnames = pd->names;
		specs[k].optvalues = pd->values;
		specs[k].nopts = pd->n;
		specs[k].shard_k = c->shard_k;
		specs[k].shard_n = c->shard_n;
	}
	memset(&out, 0, sizeof out);
	out.plugin = out_pl;
	out.path = outpath;
	memset(&pl, 0, sizeof pl);
	pl.reg = &c->reg;
	pl.inputs = specs;
	pl.ninputs = nfiles;
	pl.outputs = &out;
	pl.noutputs = 1;
	pl.threads = cli_threads(c);
	pl.progress = c->progress;
	rc = fk_pipeline_run(&pl);
	fk_free(specs);
	return rc;
}

int cmd_collapse(struct cli *c, int argc, char **argv)
{
	const char *format = "auto", *outpath = NULL;
	const struct fk_plugin *in_pl = NULL;
	struct pending pd = { 0 };
	void *in_opts = NULL;
	char **files = NULL;
	size_t nfiles = 0;
	int rc = EXIT_USAGE, i, r;
	char **names_own = NULL;
	size_t nown = 0;

	/* First pass: common options and --format, so the plugin is known. */
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		if (strncmp(argv[i], "--format=", 9) == 0)
			format = argv[i] + 9;
		else if (strcmp(argv[i], "--format") == 0 || strcmp(argv[i], "-f") == 0) {
			if (i + 1 >= argc)
				return cli_usage_error("collapse", "%s needs a format name", argv[i]);
			format = argv[++i];
		}
	}
	files = fk_calloc((size_t)argc, sizeof *files);
	names_own = fk_calloc((size_t)argc, sizeof *names_own);
	if (!files || !names_own)
		goto nomem;
	for (i = 1; i < argc; i++) {
		if ((r = cli_common_opt(c, argc, argv, &i)) != 0) {
			if (r < 0) {
				rc = cli_exit(r);
				goto out;
			}
			continue;
		}
	}
	if (cli_load(c) < 0) {
		rc = EXIT_DATA;
		goto out;
	}
	if (strcmp(format, "auto") != 0) {
		in_pl = cli_find(c, FK_PLUGIN_INPUT, format, "collapse");
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
		if (strncmp(a, "--format", 8) == 0 && (a[8] == '=' || a[8] == '\0')) {
			if (a[8] == '\0')
				i++;
			continue;
		}
		if (strcmp(a, "-f") == 0) {
			i++;
			continue;
		}
		r = cli_output_opt("collapse", argc, argv, &i, &outpath);
		if (r < 0) {
			rc = cli_exit(r);
			goto out;
		}
		if (r > 0)
			continue;
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
						cli_usage_error("collapse", "--%s needs a value", name);
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
			if (in_pl)
				cli_usage_error("collapse", "unknown option '%s' (the %s input plugin's options: "
				                "flamekit plugins --help %s)", a, in_pl->d.h.name, in_pl->d.h.name);
			else
				cli_usage_error("collapse", "unknown option '%s'", a);
			goto out;
		}
		files[nfiles++] = argv[i];
	}
	if (nfiles == 0)
		files[nfiles++] = "-";
	rc = cli_exit(run(c, in_pl, in_opts, &pd, files, nfiles, outpath));
	goto out;
nomem:
	fk_log(FK_LOG_ERROR, "out of memory");
	rc = EXIT_DATA;
out:
	if (in_pl)
		fk_options_free(in_pl, in_opts);
	for (size_t k = 0; k < nown; k++)
		fk_free(names_own[k]);
	fk_free(names_own);
	fk_free(pd.names);
	fk_free(pd.values);
	fk_free(files);
	return rc;
}
