/*
 * flamekit merge: sum folded files into one sorted folded file, streamed
 * when they are sorted, summed in memory when not.  The merge is the
 * engine's (fk_merge_run, engine/merge.c); this reads argv into it.
 */
#include "cli.h"

int cmd_merge(struct cli *c, int argc, char **argv)
{
	struct fk_merge m = { 0 };
	struct cli_args args = { 0 };
	int rc = EXIT_USAGE, r;

	if ((r = cli_parse(c, "merge", argc, argv, NULL, NULL, NULL, &args)) < 0) {
		rc = cli_exit(r);
		goto out;
	}
	m.output = args.v[OPT_OUTPUT];
	m.files = args.files;
	m.nfiles = args.nfiles;
	if (m.nfiles == 0) {
		cli_usage_error("merge", "give the folded files to merge");
		goto out;
	}
	if (c->shard_n > 1) {
		cli_usage_error("merge", "--shard does not apply to merge (its inputs are already "
		                "folded); merge the shards' outputs instead");
		goto out;
	}
	if (fk_output_not_input(m.output, m.files, m.nfiles) < 0)
		goto out; /* EXIT_USAGE */
	rc = EXIT_DATA;
	if (cli_load(c) < 0)
		goto out;
	m.reg = &c->reg;
	m.progress = c->progress;
	r = fk_merge_run(&m);
	/* the in-memory sum needs the folded plugins: name the one missing */
	if (r == FK_ERR_PLUGIN && cli_find(c, FK_PLUGIN_INPUT, "folded", "merge"))
		cli_find(c, FK_PLUGIN_OUTPUT, "folded", "merge");
	rc = cli_exit(r);
out:
	cli_args_free(&args);
	return rc;
}
