/* flamekit collapse: profiler output in, folded stacks out.  Folded input
 * is summed whole, without the stack tree (foldsum.c). */
#include <string.h>

#include "cli.h"

/* Everything but the common options: the output, input options, files. */
static int sort_args(struct cli *c, struct cli_inputs *in, int argc, char **argv, const char **outpath)
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
		if ((r = cli_common_opt(c, argc, argv, &k)) != 0 ||
		    (r = cli_format_opt("collapse", argc, argv, &k, &ignored)) != 0 ||
		    (r = cli_output_opt("collapse", argc, argv, &k, outpath)) != 0 ||
		    (r = cli_inputs_opt(c, in, argc, argv, &k)) != 0) {
			if (r < 0)
				return r;
			i = k;
			continue;
		}
		if (a[0] == '-' && a[1]) {
			if (in->pl)
				cli_usage_error("collapse", "unknown option '%s' (the %s input plugin's options: "
				                "flamekit plugins --help %s)", a, in->pl->d.h.name, in->pl->d.h.name);
			else
				cli_usage_error("collapse", "unknown option '%s'", a);
			return FK_ERR_USAGE;
		}
		in->files[in->nfiles++] = a;
	}
	return 0;
}

int cmd_collapse(struct cli *c, int argc, char **argv)
{
	const char *format = "auto", *outpath = NULL;
	const struct fk_plugin *out_pl, *fold;
	struct cli_inputs in = { 0 };
	int rc, i, r;

	/* First pass: common options and --format, so the plugin is known. */
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		if ((r = cli_format_opt("collapse", argc, argv, &i, &format)) != 0 ||
		    (r = cli_common_opt(c, argc, argv, &i)) != 0) {
			if (r < 0)
				return cli_exit(r);
		}
	}
	if (cli_load(c) < 0)
		return EXIT_DATA;
	if ((rc = cli_inputs_init(c, &in, format, "collapse", argc)) < 0 ||
	    (rc = sort_args(c, &in, argc, argv, &outpath)) < 0) {
		rc = cli_exit(rc);
		goto out;
	}
	out_pl = cli_find(c, FK_PLUGIN_OUTPUT, "folded", "collapse");
	if (!out_pl) {
		rc = EXIT_DATA;
		goto out;
	}
	if (in.nfiles == 0)
		in.files[in.nfiles++] = "-";
	if (in.pd.n == 0 && !in.demangle && (fold = foldsum_applies(c, in.pl, in.files, in.nfiles)) != NULL)
		rc = cli_exit(foldsum_run(c, fold, in.files, in.nfiles, outpath, in.pl == NULL));
	else
		rc = cli_inputs_run(c, &in, out_pl, NULL, outpath);
out:
	cli_inputs_free(&in);
	return rc;
}
