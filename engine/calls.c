/*
 * Every call of a plugin callback (calls.h): the plugin's context pushed,
 * the version guard and the NULL defaults applied, the answer brought into
 * the range <flamekit/plugin.h> promises.
 */
#include <math.h>
#include <string.h>

#include "fk.h"

/* Whether descriptor pl (its kind checked) covers member m of T. */
#define COVERS(pl, T, m) ((pl)->d.h.struct_size >= offsetof(T, m) + sizeof(((T *)NULL)->m))
#define HAS(pl, KIND, T, u, m) \
	((pl) && (pl)->d.h.kind == (KIND) && COVERS(pl, T, m) && (pl)->d.u.m != NULL)
#define HAS_IN(pl, m) HAS(pl, FK_PLUGIN_INPUT, struct fk_input_plugin, in, m)
#define HAS_FILTER(pl, m) HAS(pl, FK_PLUGIN_FILTER, struct fk_filter_plugin, filter, m)
#define HAS_OUT(pl, m) HAS(pl, FK_PLUGIN_OUTPUT, struct fk_output_plugin, out, m)

bool fk_plugin_has(const struct fk_plugin *pl, enum fk_callback cb)
{
	switch (cb) {
	case FK_CB_PROBE: return HAS_IN(pl, probe);
	case FK_CB_PARSE: return HAS_IN(pl, parse);
	case FK_CB_SYNC: return HAS_IN(pl, sync);
	case FK_CB_CHECK: return HAS_IN(pl, check) || HAS_FILTER(pl, check) || HAS_OUT(pl, check);
	case FK_CB_CREATE: return HAS_FILTER(pl, create);
	case FK_CB_FRAME: return HAS_FILTER(pl, frame);
	case FK_CB_SAMPLE: return HAS_FILTER(pl, sample);
	case FK_CB_DESTROY: return HAS_FILTER(pl, destroy);
	case FK_CB_USES: return HAS_FILTER(pl, uses);
	case FK_CB_RENDER: return HAS_OUT(pl, render);
	case FK_CB_MIN_WEIGHT: return HAS_OUT(pl, min_weight);
	}
	return false;
}

unsigned fk_output_needs(const struct fk_plugin *pl)
{
	if (pl->d.h.kind != FK_PLUGIN_OUTPUT || !COVERS(pl, struct fk_output_plugin, needs))
		return 0;
	return pl->d.out.needs;
}

int fk_input_demangle(const struct fk_plugin *pl)
{
	/* a plugin built before 1.9 has no such field: its copy is zero-filled
	 * there, but one that claims an older minor is not asked either */
	if (pl->d.h.kind != FK_PLUGIN_INPUT || pl->d.h.abi_minor < 9 ||
	    !COVERS(pl, struct fk_input_plugin, demangle))
		return FK_DEMANGLE_NO;
	return pl->d.in.demangle;
}

/* A status callback's answer, returned in context cx (reading input in,
 * or NULL): above 0 counts as 0; a negative enum fk_status does not know
 * is FK_ERR_PLUGIN, said once: not when the plugin said something in cx or
 * reported an error on in (host->input_error marks the input's call, or
 * keeps the message of a chunk for later). */
static int status(struct fk_ctx *cx, const struct fk_input *in, const char *cb, int rc)
{
	if (rc > 0)
		return 0;
	if (rc >= FK_ERR_INTERNAL)
		return rc;
	if (!fk_ctx_reported(cx) && !(in && in->error))
		fk_log(FK_LOG_ERROR, "its %s callback returned %d, not 0 or one of "
		       "<flamekit/plugin.h>'s FK_ERR_* statuses", cb, rc);
	return FK_ERR_PLUGIN;
}

const struct fk_plugin_header *fk_call_init(fk_plugin_init_fn init)
{
	return init();
}

int fk_options_check(const struct fk_plugin *pl, const void *opts, const char *where)
{
	int (*check)(const struct fk_host *, const void *, const char *) = NULL;
	bool reported;
	int rc;

	if (HAS_IN(pl, check))
		check = pl->d.in.check;
	else if (HAS_FILTER(pl, check))
		check = pl->d.filter.check;
	else if (HAS_OUT(pl, check))
		check = pl->d.out.check;
	if (!check)
		return 0;
	/* The plugin logs only the problem; its messages carry the plugin
	 * and the options' origin: "[output:svg] job.yaml:12:5: ...". */
	{
		FK_CTX_SCOPE(pcx, .plugin = pl, .origin = where);
		rc = check(&fk_host, opts, where);
		reported = fk_ctx_reported(pcx);
	}
	if (rc > 0)
		rc = 0;
	if (rc < 0 && !reported)
		fk_log(FK_LOG_ERROR, "%s%sthe %s plugin \"%s\" refused its options",
		       where ? where : "", where ? ": " : "", fk_kind_name((int)pl->d.h.kind),
		       pl->d.h.name);
	return rc == FK_ERR_NOMEM ? rc : rc < 0 ? FK_ERR_USAGE : 0;
}

/* ---- inputs ------------------------------------------------------------------ */

int fk_call_probe(const struct fk_plugin *pl, const unsigned char *buf, size_t len)
{
	int score;

	if (!HAS_IN(pl, probe))
		return -1;
	{
		FK_CTX_SCOPE(cx, .plugin = pl);
		score = pl->d.in.probe(buf, len);
	}
	return score < 0 ? 0 : score > 100 ? 100 : score;
}

int fk_call_parse(const struct fk_plugin *pl, struct fk_input *in, struct fk_sink *sink,
                  const void *opts)
{
	FK_CTX_SCOPE(cx, .plugin = pl);

	return status(cx, in, "parse", pl->d.in.parse(&fk_host, in, sink, opts));
}

ssize_t fk_call_sync(const struct fk_plugin *pl, const unsigned char *buf, size_t len, int eof)
{
	ssize_t r;
	FK_CTX_SCOPE(cx, .plugin = pl);

	r = pl->d.in.sync(buf, len, eof);
	return r > 0 && (size_t)r > len ? (ssize_t)len : r;
}

/* ---- filters ------------------------------------------------------------------- */

int fk_call_create(struct fk_filter_inst *fi)
{
	const struct fk_plugin *pl = fi->plugin;

	if (!HAS_FILTER(pl, create))
		return 0;
	FK_CTX_SCOPE(cx, .plugin = pl);
	return status(cx, NULL, "create",
	              pl->d.filter.create(&fk_host, fi->opts, fi->where, &fi->state));
}

unsigned fk_call_uses(const struct fk_filter_inst *fi)
{
	const struct fk_plugin *pl = fi->plugin;
	unsigned uses = (HAS_FILTER(pl, frame) ? FK_FILTER_USES_FRAME : 0) |
	                (HAS_FILTER(pl, sample) ? FK_FILTER_USES_SAMPLE : 0);

	if (HAS_FILTER(pl, uses)) {
		FK_CTX_SCOPE(cx, .plugin = pl);
		uses &= pl->d.filter.uses(fi->state);
	}
	return uses;
}

void fk_call_destroy(const struct fk_filter_inst *fi)
{
	if (HAS_FILTER(fi->plugin, destroy)) {
		FK_CTX_SCOPE(cx, .plugin = fi->plugin);
		fi->plugin->d.filter.destroy(fi->state);
	}
}

int fk_call_frame(const struct fk_filter_inst *fi, struct fk_frame_edit *e)
{
	FK_CTX_SCOPE(cx, .plugin = fi->plugin);

	return status(cx, NULL, "frame", fi->plugin->d.filter.frame(fi->state, e));
}

int fk_call_sample(const struct fk_filter_inst *fi, struct fk_sample_edit *e)
{
	FK_CTX_SCOPE(cx, .plugin = fi->plugin);

	return status(cx, NULL, "sample", fi->plugin->d.filter.sample(fi->state, e));
}

/* ---- outputs ------------------------------------------------------------------- */

int fk_call_render(const struct fk_plugin *pl, const struct fk_profile *p, struct fk_writer *w,
                   const void *opts)
{
	FK_CTX_SCOPE(cx, .plugin = pl);

	return status(cx, NULL, "render", pl->d.out.render(&fk_host, p, w, opts));
}

double fk_call_min_weight(const struct fk_plugin *pl, const void *opts, double total)
{
	double w;

	if (!HAS_OUT(pl, min_weight))
		return -1;
	{
		FK_CTX_SCOPE(cx, .plugin = pl);
		w = pl->d.out.min_weight(&fk_host, opts, total);
	}
	return w >= 0 && isfinite(w) ? w : -1;
}

/* ---- the ops of parse_chunks and parse_streams ---------------------------------- */

/* A host call's ops lack callback cb: say so, and what the ops need. */
static int ops_missing(const char *call, const char *cb)
{
	bool chunks = strcmp(call, "parse_chunks") == 0;

	fk_log(FK_LOG_ERROR, "host->%s: the struct %s has no %s callback; set %s", call,
	       chunks ? "fk_chunk_ops" : "fk_part_ops", cb,
	       chunks ? "boundary and parse" : "parse (finish is optional)");
	return FK_ERR_USAGE;
}

int fk_chunk_ops_check(const struct fk_chunk_ops *ops)
{
	if (!ops || !ops->boundary)
		return ops_missing("parse_chunks", "boundary");
	return ops->parse ? 0 : ops_missing("parse_chunks", "parse");
}

int fk_part_ops_check(const struct fk_part_ops *ops)
{
	return ops && ops->parse ? 0 : ops_missing("parse_streams", "parse");
}

size_t fk_call_boundary(const struct fk_chunk_ops *ops, void *ctx, const char *buf, size_t len)
{
	size_t cut = ops->boundary(ctx, buf, len);

	return cut > len ? len : cut;
}

int fk_call_chunk_parse(const struct fk_chunk_ops *ops, void *ctx, unsigned worker,
                        struct fk_input *chunk, struct fk_sink *sink)
{
	FK_CTX_CALL(cx);

	return status(cx, chunk, "chunk parse", ops->parse(ctx, worker, chunk, sink));
}

int fk_call_part_parse(const struct fk_part_ops *ops, void *ctx, unsigned part,
                       struct fk_input *in, struct fk_sink *sink)
{
	FK_CTX_CALL(cx);

	return status(cx, in, "part parse", ops->parse(ctx, part, in, sink));
}

int fk_call_part_finish(const struct fk_part_ops *ops, void *ctx, struct fk_sink *sink)
{
	if (!ops || !ops->finish)
		return 0;
	FK_CTX_CALL(cx);
	return status(cx, NULL, "part finish", ops->finish(ctx, sink));
}
