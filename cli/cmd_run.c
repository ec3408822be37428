/* flamekit run: run (or --check) a YAML job file.  The job logic is in
 * engine/job.c; this only reads argv. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#ifndef FK_PKGDATADIR
#define FK_PKGDATADIR "/usr/local/share/flamekit"
#endif

#define DEFAULT_JOB "conf/example.yaml"

int cmd_run(struct cli *c, int argc, char **argv)
{
	const char **sets = NULL;
	const char *jobpath = NULL;
	char *own_path = NULL, *cwd_set = NULL;
	struct fk_job *job = NULL;
	size_t nsets = 0;
	bool check = false;
	struct cli_args a;
	int rc = EXIT_USAGE, r;

	r = cli_parse(c, "run", argc, argv, NULL, NULL, NULL, &a);
	sets = a.sets; /* ours: freed below */
	a.sets = NULL;
	if (r < 0) {
		rc = cli_exit(r);
		goto out;
	}
	check = a.given[OPT_CHECK];
	nsets = a.nsets;
	if (a.nfiles > 1) {
		cli_usage_error("run", "one job file at a time (got '%s' and '%s')", a.files[0], a.files[1]);
		goto out;
	}
	jobpath = a.nfiles ? a.files[0] : NULL;
	if (!jobpath) {
		/* The example job from the data directory, writing into the
		 * current directory rather than next to the installed file. */
		const char *dir = getenv("FLAMEKIT_DATADIR");
		char cwd[4096];
		if (!dir || !*dir)
			dir = FK_PKGDATADIR;
		own_path = fk_malloc(strlen(dir) + sizeof DEFAULT_JOB + 1);
		if (!getcwd(cwd, sizeof cwd)) {
			fk_log(FK_LOG_ERROR, "cannot tell the current directory");
			rc = EXIT_DATA;
			goto out;
		}
		cwd_set = fk_malloc(strlen(cwd) + 16);
		if (!own_path || !cwd_set) {
			fk_log(FK_LOG_ERROR, "out of memory");
			rc = EXIT_DATA;
			goto out;
		}
		sprintf(own_path, "%s/%s", dir, DEFAULT_JOB);
		sprintf(cwd_set, "output-dir=%s", cwd);
		/* first, so that the user's --set output-dir still wins */
		memmove(sets + 1, sets, nsets * sizeof *sets);
		sets[0] = cwd_set;
		nsets++;
		jobpath = own_path;
		fk_log(FK_LOG_INFO, "no job given: running %s", jobpath);
	}
	if (cli_load(c) < 0) {
		rc = EXIT_DATA;
		goto out;
	}
	r = fk_job_load(&job, jobpath, &c->reg, sets, nsets);
	if (r < 0) {
		rc = r == FK_ERR_USAGE ? EXIT_USAGE : EXIT_DATA;
		goto out;
	}
	if (check) {
		r = fk_job_check(job);
		if (r == 0 && fk_log_verbosity() >= FK_LOG_WARN)
			fprintf(stderr, "%s: %s: the job is valid\n", fk_progname, jobpath);
		rc = r == 0 ? EXIT_OK : r == FK_ERR_USAGE ? EXIT_USAGE : EXIT_DATA;
		goto out;
	}
	r = fk_job_run(job, c->threads, cli_threads(c), c->progress);
	rc = r == 0 ? EXIT_OK : r == FK_ERR_USAGE ? EXIT_USAGE : EXIT_DATA;
out:
	fk_job_free(job);
	fk_free(own_path);
	fk_free(cwd_set);
	fk_free(sets);
	cli_args_free(&a);
	return rc;
}
