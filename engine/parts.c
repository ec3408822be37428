/*
 * host->parse_parts: one input plugin parsing several streams that are the
 * consecutive parts of one text; host->parse_streams: the same with the
 * caller's own callback for each part (the perf-data plugin's `perf
 * script` processes, each printing one time slice of a perf.data file,
 * parsed as the segments of one perf parser session).
 *
 * The engine knows nothing of the format: it finds the plugin by name among
 * the pipeline's, builds its options from text as the command line does,
 * runs its parse on every part at once (a thread and a forked sink each),
 * joins the sinks in part order, and reports what the parts reported as if
 * they were one input: line numbers run on from part to part, the first
 * error in part order wins, skipped lines are summed into one report.
 */
#include <pthread.h>
#include <string.h>

#include "fk.h"

struct part {
	const struct fk_plugin *pl;  /* parse_parts: the plugin, its options */
	const void *opts;
	const struct fk_part_ops *ops; /* parse_streams: the caller's callback */
	void *ctx;
	unsigned idx;
	struct fk_ctx *cx;           /* the context the parts are parsed in */
	struct fk_input *in;
	struct fk_sink *sink;
	pthread_t th;
	bool running;
	int rc;
};

static void *part_main(void *arg)
{
	struct part *pt = arg;
	FK_CTX_SERVE(cx, pt->cx); /* on its own thread too */

	if (pt->ops)
		pt->rc = fk_call_part_parse(pt->ops, pt->ctx, pt->idx, pt->in, pt->sink);
	else
		pt->rc = fk_call_parse(pt->pl, pt->in, pt->sink, pt->opts);
	return NULL;
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

/* Fold part pt (parsed, its thread joined) into the whole: skipped lines
 * and the first error, with line numbers counted from the first part. */
static int retire(struct fk_input *whole, struct part *pt, uint64_t *base, int rc)
{
	struct fk_input *in = pt->in;
	int prc = pt->rc;

	if (prc == 0 && in->error)
		prc = in->error;
	for (uint64_t k = 0; k < in->skipped; k++)
		fk_input_skip(whole, k < 5 ? *base + in->skipped_first[k] : 0);
	if (prc < 0 && rc == 0) {
		if (in->err_msg)
			fk_input_error(whole, in->err_line ? *base + in->err_line : 0, "%s", in->err_msg);
		else if (in->err_lost) /* the message did not fit in memory either */
			fk_log(FK_LOG_ERROR, "%s: out of memory", whole->name);
		rc = prc;
	}
	/* its lines, a last one without '\n' included: every byte of a part
	 * was read when no error stopped it, and after an error none counts */
	*base += fk_input_lines(in);
	return rc;
}

/* Parse parts 0..n-1 at once into forked sinks, joined in part order.
 * Returns FK_ERR_NOMEM when a sink could not be forked or joined, without
 * a message: the caller reports it unless a part's error says more. */
static int run_parts(struct part *pts, size_t n, struct fk_sink *sink)
{
	int rc = 0;

	for (size_t i = 0; i < n; i++) {
		if (!(pts[i].sink = fk_host.sink_fork(sink))) {
			rc = FK_ERR_NOMEM; /* the parts not started are not read */
			break;
		}
		if (pthread_create(&pts[i].th, NULL, part_main, &pts[i]) == 0)
			pts[i].running = true;
		else
			part_main(&pts[i]); /* no thread to be had: parse it here */
	}
	for (size_t i = 0; i < n; i++) {
		if (pts[i].running)
			pthread_join(pts[i].th, NULL);
		pts[i].running = false;
	}
	for (size_t i = 0; i < n; i++) {
		int jr = fk_host.sink_join(rc == 0 && pts[i].rc == 0 ? sink : NULL, pts[i].sink);
		pts[i].sink = NULL;
		if (jr < 0 && rc == 0)
			rc = jr;
	}
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
		pts[i].cx = fk_ctx_current();
	}
	if (n == 1) {
		pts[0].sink = sink;
		part_main(&pts[0]);
		jr = 0;
	} else {
		jr = run_parts(pts, n, sink);
	}
	/* the parts' messages, in part order, as one input's */
	memset(&whole, 0, sizeof whole);
	whole.name = ins[0]->name;
	whole.fd = -1;
	for (size_t i = 0; i < n; i++)
		rc = retire(&whole, &pts[i], &base, rc);
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
		pts[i] = (struct part){ .pl = pl, .opts = opts, .in = ins[i] };
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
		pts[i] = (struct part){ .ops = ops, .ctx = ctx, .idx = (unsigned)i, .in = ins[i] };
	rc = run_all(pts, ins, n, sink, ops, ctx);
	fk_free(pts);
	return rc;
}
