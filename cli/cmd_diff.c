/*
 * flamekit diff: two profiles in, difffolded.pl's two-column folded stacks
 * out (`stack before after`), sorted as flamekit always writes.  The
 * differential profile is the engine's (fk_diff_run, engine/diff.c); this
 * reads argv into it.
 */
#include <string.h>

#include "cli.h"

int cmd_diff(struct cli *c, int argc, char **argv)
{
	const char *format;
	bool format_default;
	const struct fk_plugin *in_pl = NULL;
	struct fk_diff d;
	struct fk_input_spec sides[2];
	struct fk_output_spec output;
	struct cli_args a;
	int rc = EXIT_USAGE, r, demangle = FK_DMG_PLUGIN;

	memset(&d, 0, sizeof d);
	memset(sides, 0, sizeof sides);
	memset(&output, 0, sizeof output);
	d.outputs = &output;
	d.noutputs = 1;
	r = cli_parse(c, "diff", argc, argv, NULL, NULL, NULL, &a);
	if (r == 0 && a.given[OPT_DEMANGLE])
		r = cli_demangle_opt("diff", a.v[OPT_DEMANGLE], &demangle);
	format = a.v[OPT_FORMAT];
	format_default = !a.given[OPT_FORMAT];
	output.path = a.v[OPT_OUTPUT];
	d.normalize = a.given[OPT_NORMALIZE];
	d.strip_hex = a.given[OPT_STRIP_HEX];
	if (r < 0) {
		rc = cli_exit(r);
		goto out;
	}
	if (a.nfiles > 2) {
		rc = cli_usage_error("diff", "takes two files, BEFORE and AFTER");
		goto out;
	}
	if (a.nfiles != 2) {
		rc = cli_usage_error("diff", "needs two files, BEFORE and AFTER");
		goto out;
	}
	if (c->shard_n > 1) {
		rc = cli_usage_error("diff", "--shard does not apply to diff");
		goto out;
	}
	rc = EXIT_DATA;
	if (cli_load(c) < 0)
		goto out;
	if (strcmp(format, "auto") != 0 && !(in_pl = cli_find(c, FK_PLUGIN_INPUT, format, "diff"))) {
		rc = EXIT_USAGE;
		goto out;
	}
	if (!(output.plugin = cli_find(c, FK_PLUGIN_OUTPUT, "folded", "diff")))
		goto out;
	d.reg = &c->reg;
	d.threads = cli_threads(c);
	d.progress = c->progress;
	for (int k = 0; k < 2; k++) {
		sides[k].path = a.files[k];
		sides[k].plugin = in_pl;
		sides[k].magic_wins = format_default; /* diff a.data b.data needs no --format */
		sides[k].demangle = demangle;
		d.sides[k] = &sides[k];
		d.nsides[k] = 1;
		/* each side narrowed on its own (--from counts from its first sample) */
		if ((r = cli_narrow_add(c, "diff", &a, &d.filters[k])) != 0) {
			rc = r;
			goto out;
		}
	}
	rc = cli_exit(fk_diff_run(&d));
out:
	fk_filter_chain_free(&d.filters[0]);
	fk_filter_chain_free(&d.filters[1]);
	cli_args_free(&a);
	return rc;
}
