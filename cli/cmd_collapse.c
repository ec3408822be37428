/* flamekit collapse: profiler output in, folded stacks out (the pipeline
 * sums folded input without the stack tree: engine/foldsum.c). */
#include <string.h>

#include "cli.h"

static int input_opt(void *ctx, int argc, char **argv, int *i)
{
	struct cli_inputs *in = ctx;

	return cli_inputs_opt(in->cli, in, argc, argv, i);
}

int cmd_collapse(struct cli *c, int argc, char **argv)
{
	const struct fk_plugin *out_pl;
	struct cli_inputs in = { 0 };
	struct cli_args a = { 0 };
	char hint[256] = "";
	int rc;

	if (cli_load(c) < 0)
		return EXIT_DATA;
	if ((rc = cli_inputs_init(c, &in, c->format ? c->format : "auto", "collapse", argc)) < 0)
		goto fail;
	if (in.pl)
		snprintf(hint, sizeof hint, " (the %s input plugin's options: flamekit plugins --help %s)",
		         in.pl->d.h.name, in.pl->d.h.name);
	if ((rc = cli_parse(c, "collapse", argc, argv, input_opt, &in, hint, &a)) < 0 ||
	    (a.given[OPT_DEMANGLE] && (rc = cli_demangle_opt(in.cmd, a.v[OPT_DEMANGLE], &in.demangle)) < 0))
		goto fail;
	for (size_t k = 0; k < a.nfiles; k++)
		in.files[in.nfiles++] = a.files[k];
	out_pl = cli_find(c, FK_PLUGIN_OUTPUT, "folded", "collapse");
	if (!out_pl) {
		rc = EXIT_DATA;
		goto out;
	}
	if (in.nfiles == 0)
		in.files[in.nfiles++] = "-";
	in.args = &a;
	rc = cli_inputs_run(c, &in, out_pl, NULL, a.v[OPT_OUTPUT]);
	goto out;
fail:
	rc = cli_exit(rc);
out:
	cli_args_free(&a);
	cli_inputs_free(&in);
	return rc;
}
