/*
 * What every harness shares: a log hook that keeps flamekit quiet (unless
 * FK_FUZZ_VERBOSE is set), and one run of an in-memory input as the
 * command does it: the input plugin's parse into a sink, the per-frame
 * filter pass when there is a filter chain, the finished tree, and the
 * output plugin's render into /dev/null.  Errors the plugins report are
 * fine (bad input is expected); a crash, a sanitizer report, a leak or a
 * hang is a bug.  Header-only: each harness is one program.
 */
#ifndef FK_FUZZ_RUN_H
#define FK_FUZZ_RUN_H

#include <stdint.h>
#include <stdlib.h>

#include "fk.h"

static void fuzz_quiet(int level, const char *line)
{
	(void)level;
	(void)line;
}

/* fk_log_hook = fuzz_quiet, unless FK_FUZZ_VERBOSE is set. */
static void fuzz_quiet_unless_verbose(void)
{
	if (!getenv("FK_FUZZ_VERBOSE"))
		fk_log_hook = fuzz_quiet;
}

/* What a harness runs: input parses (with input_opts) into a sink of
 * threads threads running the chain fc (NULL: none), and output renders
 * (with output_opts) into devnull, an open descriptor.  name is the
 * input's name in messages.  The caller keeps fc, the plugins and their
 * options. */
struct fuzz_run {
	const struct fk_plugin *input, *output;
	void *input_opts, *output_opts;
	struct fk_filter_chain *fc;
	unsigned threads;
	int devnull;
	const char *name;
};

/* data (size bytes) through r, as `flamekit collapse` (or `run`) does. */
static void fuzz_run(const struct fuzz_run *r, const uint8_t *data, size_t size)
{
	struct fk_profile *p;
	struct fk_input in;
	struct fk_sink sink;
	struct fk_writer w;
	int rc;

	if (!(p = fk_profile_new()))
		return;
	if (fk_input_open_mem(&in, r->name, data, size) < 0) {
		fk_profile_free(p);
		return;
	}
	fk_sink_init(&sink, p, 0, r->threads, r->fc);
	rc = r->input->d.in.parse(&fk_host, &in, &sink, r->input_opts);
	fk_sink_fini(&sink);
	if (rc == 0 && in.error)
		rc = in.error;
	if (rc == 0)
		fk_input_report(&in);
	fk_input_close(&in);
	if (rc == 0 && r->fc)
		rc = fk_profile_apply_frame_filters(&p, r->fc);
	if (rc == 0)
		rc = fk_profile_finish(p);
	if (rc == 0 && fk_writer_open(&w, NULL) == 0) {
		w.fd = r->devnull;
		rc = r->output->d.out.render(&fk_host, p, &w, r->output_opts);
		if (rc == 0)
			fk_writer_commit(&w);
		else
			fk_writer_abort(&w);
	}
	fk_profile_free(p);
}

#endif
