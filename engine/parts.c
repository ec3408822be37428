/*
 * host->parse_parts: one input plugin parsing several streams that are the
 * consecutive parts of one text; host->parse_streams: the same with the
 * caller's own callback for each part (the perf-data plugin's `perf
 * script` processes, each printing one time slice of a perf.data file,
 * parsed as the segments of one perf parser session).
 *
 * The engine knows nothing of the format: it finds the plugin by name among
 * the pipeline's, builds its options from text as the command line does,
 * runs its parse on every part at once (a job of the worker pool each,
 * workers.h, with a forked sink of its own and a worker for every part),
 * joins the sinks in part order, and reports what the parts reported as if
 * they were one input: line numbers run on from part to part, the first
 * error in part order wins, skipped lines are summed into one report.
 */
#include <string.h>

#include "workers.h"

struct part {
	struct fk_job job;           /* first: the pool's jobs are parts */
	const struct fk_plugin *pl;  /* parse_parts: the plugin, its options */
	const void *opts;
	const struct fk_part_ops *ops; /* parse_streams: the caller's callback */
	void *ctx;
	unsigned idx;
};

/* The pool's job: parse one part into its sink. */
static int run_part(void *arg, unsigned w, struct fk_job *j, struct fk_sink *sink)
{
	struct part *pt = (struct part *)j;

	(void)arg;
	(void)w;
	if (pt->ops)
		return fk_call_part_parse(pt->ops, pt->ctx, pt->idx, j->in, sink);
	return fk_call_parse(pt->pl, j->in, sink, pt->opts);
}

/* The plugin's options from names and text values; reports what is wrong. */
static int build_opts(const struct fk_plugin *pl, const char *const *names,
                      const char *const *values, size_t n, void **out)
{
	char err[512];
	int rc = fk_options_new(pl, out);

	for (size_t i = 0; rc == 0 && i < n; i++) {
		if (!fk_option_find(pl, names[i])) {
			fk_log(FK_LOG_ERROR, "the %s plugin has no option '--%s'", pl->d.h.name, names[i]);
			rc = FK_ERR_USAGE;
		} else if ((rc = fk_option_set(pl, *out, names[i], values ? values[i] : NULL, err,
		                               sizeof err)) < 0) {
			fk_log(FK_LOG_ERROR, "the %s plugin: %s", pl->d.h.name, err);
		}
	}
	if (rc == FK_ERR_NOMEM)
		fk_log(FK_LOG_ERROR, "out of memory");
	return rc;
}

/* Parse parts 0..n-1 at once into forked sinks, joined in part order.
 * Returns FK_ERR_NOMEM when a sink could not be forked or joined, without
 * a message: the caller reports it unless a part's error says more. */
static int run_parts(struct part *pts, size_t n, struct fk_sink *sink)
{
	static const struct fk_workers_ops part_ops = { run_part, NULL };
	struct fk_workers w;
	int rc;

	/* a worker for every part: they are read at once (perf-data's come
	 * from child processes) */
	if ((rc = fk_workers_start(&w, (unsigned)n, sink, FK_WORKERS_JOB_SINKS, &part_ops, NULL)) < 0)
		return rc;
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = fk_workers_submit(&w, &pts[i].job); /* the parts not started are not read */
	rc = fk_workers_end(&w, rc);
	for (size_t i = 0; i < n; i++)
		rc = fk_job_join(sink, &pts[i].job, rc);
	return rc;
}

/* Parse the parts pts[0..n) (filled but for their inputs' flags) into
 * sink and report as one input: the first error in part order, then,
 * when none, finish (NULL for none) and the skipped-line report. */
static int run_all(struct part *pts, struct fk_input *const *ins, size_t n, struct fk_sink *sink,
                   const struct fk_part_ops *ops, void *ctx)
{
	struct fk_input whole;
	uint64_t base = 0;
	int rc = 0, jr;

	for (size_t i = 0; i < n; i++) {
		ins[i]->defer_errors = true;
		fk_input_count_lines(ins[i]);
		pts[i].job.in = ins[i];
		pts[i].job.worker = (unsigned)i; /* a thread each */
	}
	if (n == 1) {
		pts[0].job.rc = run_part(NULL, 0, &pts[0].job, sink);
		jr = 0;
	} else {
		jr = run_parts(pts, n, sink);
	}
	/* the parts' messages, in part order, as one input's */
	memset(&whole, 0, sizeof whole);
	whole.name = ins[0]->name;
	whole.fd = -1;
	for (size_t i = 0; i < n; i++)
		rc = fk_job_retire(&whole, &pts[i].job, &base, fk_input_lines(ins[i]), rc);
	if (rc == 0 && jr < 0) {
		fk_log(FK_LOG_ERROR, "%s: out of memory", whole.name);
		rc = jr;
	}
	for (size_t i = 0; i < n; i++) {
		ins[i]->defer_errors = false;
		ins[i]->err_lost = false;
		fk_free(ins[i]->err_msg);
		ins[i]->err_msg = NULL;
	}
	/* the end of one parse: its summaries come before the engine's report */
	if (rc == 0)
		rc = fk_call_part_finish(ops, ctx, sink);
	if (rc == 0) {
		FK_CTX_SCOPE(cx, .flags = FK_CTX_ENGINE); /* as fk_parse_input reports an input's */
		fk_input_report(&whole);
	}
	return rc;
}

int fk_parse_parts(const char *plugin, const char *const *optnames, const char *const *optvalues,
                   size_t nopts, struct fk_input *const *ins, size_t n, struct fk_sink *sink)
{
	const struct fk_plugin *pl;
	struct part *pts = NULL;
	void *opts = NULL;
	int rc = 0;

	if (n == 0)
		return 0;
	pl = sink->reg ? fk_registry_find(sink->reg, FK_PLUGIN_INPUT, plugin) : NULL;
	if (!pl) {
		fk_log(FK_LOG_ERROR, "%s: needs the %s input plugin, which is not loaded", ins[0]->name,
		       plugin);
		return FK_ERR_PLUGIN;
	}
	/* the plugin's check() too, as for the command line's options: once,
	 * not once per part */
	if ((rc = build_opts(pl, optnames, optvalues, nopts, &opts)) < 0 ||
	    (rc = fk_options_check(pl, opts, NULL)) < 0)
		goto out;
	pts = fk_calloc(n, sizeof *pts);
	if (!pts) {
		fk_log(FK_LOG_ERROR, "%s: out of memory", ins[0]->name);
		rc = FK_ERR_NOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		pts[i] = (struct part){ .pl = pl, .opts = opts };
	{
		FK_CTX_SCOPE(cx, .plugin = pl);
		rc = run_all(pts, ins, n, sink, NULL, NULL);
	}
out:
	fk_free(pts);
	if (opts)
		fk_options_free(pl, opts);
	return rc;
}

int fk_parse_streams(struct fk_input *const *ins, size_t n, struct fk_sink *sink,
                     const struct fk_part_ops *ops, void *ctx)
{
	struct part *pts;
	int rc;

	if (n == 0)
		return 0;
	if (!(pts = fk_calloc(n, sizeof *pts))) {
		fk_log(FK_LOG_ERROR, "%s: out of memory", ins[0]->name);
		return FK_ERR_NOMEM;
	}
	for (size_t i = 0; i < n; i++)
		pts[i] = (struct part){ .ops = ops, .ctx = ctx, .idx = (unsigned)i };
	rc = run_all(pts, ins, n, sink, ops, ctx);
	fk_free(pts);
	return rc;
}
