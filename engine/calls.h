/*
 * The one caller of plugin callbacks (engine/calls.c), as nbdkit's
 * server/plugins.c and server/backend.c are nbdkit's: no other file of the
 * engine calls a function a plugin provides, reads a descriptor past its
 * common header (struct fk_plugin's d.in, d.filter, d.out) or calls
 * through the struct fk_chunk_ops and struct fk_part_ops a plugin hands
 * to host->parse_chunks and host->parse_streams.  tests/calls.sh keeps it
 * so.
 *
 * So each rule about a call lives here once:
 * - the context: a descriptor's callback runs in its plugin's context
 *   (FK_CTX_SCOPE .plugin), so its messages carry "[KIND:NAME] " and mark
 *   that call; the ops' callbacks run inside the plugin's parse, whose
 *   context the calling thread already serves (a worker: FK_CTX_SERVE);
 * - the version guard: a member appended after ABI 1.0 is used only when
 *   the descriptor's struct_size covers it (the loader zero-fills what an
 *   older plugin lacks, and a descriptor made by hand, a test's, says its
 *   size the same way), and an optional callback left NULL has its
 *   documented default;
 * - the contract (<flamekit/plugin.h>): what a callback returns is
 *   brought into the range the header promises the engine.  A status
 *   above 0 counts as 0 (as check()'s always has); a negative one that
 *   enum fk_status does not know becomes FK_ERR_PLUGIN, said once in the
 *   plugin's context unless the plugin said something already, so the
 *   caller's fk_ctx_fail stays silent.  A caller reports a failure as it
 *   did before (fk_ctx_fail with its instance), once.
 *
 * The wrappers are thread-safe as far as the callbacks they call are
 * (<flamekit/plugin.h>'s thread rules); none keeps state.
 */
#ifndef FK_CALLS_H
#define FK_CALLS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "flamekit/plugin.h"

struct fk_plugin;
struct fk_filter_inst;

/* The callbacks a descriptor may set, for fk_plugin_has. */
enum fk_callback {
	FK_CB_PROBE,      /* input, 1.0 */
	FK_CB_PARSE,      /* input, 1.0, required */
	FK_CB_SYNC,       /* input, 1.1 */
	FK_CB_CHECK,      /* any kind, 1.2 */
	FK_CB_CREATE,     /* filter, 1.0 */
	FK_CB_FRAME,      /* filter, 1.0 (frame or sample required) */
	FK_CB_SAMPLE,     /* filter, 1.0 */
	FK_CB_DESTROY,    /* filter, 1.0 */
	FK_CB_USES,       /* filter, after 1.0 */
	FK_CB_RENDER,     /* output, 1.0, required */
	FK_CB_MIN_WEIGHT, /* output, 1.3 */
};

/* ---- what a descriptor holds -------------------------------------------- */
/* Whether pl is of the kind callback cb belongs to, its descriptor's
 * struct_size covers cb and cb is set. */
bool fk_plugin_has(const struct fk_plugin *pl, enum fk_callback cb);
/* An output's needs (enum fk_output_needs); 0 for another kind. */
unsigned fk_output_needs(const struct fk_plugin *pl);
/* (fk_input_demangle, the input's demangling default, is defined here
 * too; it is declared in flamekit-engine.h.) */

/* ---- the loader ------------------------------------------------------------ */
/* A module's entry point: its descriptor, or NULL. */
const struct fk_plugin_header *fk_call_init(fk_plugin_init_fn init);

/* ---- every kind ------------------------------------------------------------- */
/* Run the plugin's check callback, if any, on finished options, before any
 * input is read.  `where` names the origin (NULL: the command line).
 * 0, FK_ERR_NOMEM or FK_ERR_USAGE (the problem reported once: by the
 * plugin, else "the KIND plugin "NAME" refused its options"). */
int fk_options_check(const struct fk_plugin *pl, const void *opts, const char *where);

/* ---- inputs ------------------------------------------------------------------ */
/* probe: the plugin's confidence, 0 to 100 (a value outside counts as the
 * nearest end), that buf[0..len) is its format; -1 when it has no probe
 * (it is never picked by detection). */
int fk_call_probe(const struct fk_plugin *pl, const unsigned char *buf, size_t len);
/* parse: read all of in into sink with options opts.  0 or a negative
 * status, which the caller reports (fk_ctx_fail) unless it was. */
int fk_call_parse(const struct fk_plugin *pl, struct fk_input *in, struct fk_sink *sink,
                  const void *opts);
/* sync (callers check fk_plugin_has(pl, FK_CB_SYNC) first): an index past
 * len counts as len; negative: the input cannot be cut there. */
ssize_t fk_call_sync(const struct fk_plugin *pl, const unsigned char *buf, size_t len, int eof);

/* ---- filters (an instance of fk_filter_chain_add) -------------------------- */
/* create: fi->state from fi->opts and fi->where; 0 without a create. */
int fk_call_create(struct fk_filter_inst *fi);
/* The callbacks instance fi runs (enum fk_filter_uses): those its
 * descriptor sets, narrowed by its uses() when it has one. */
unsigned fk_call_uses(const struct fk_filter_inst *fi);
void fk_call_destroy(const struct fk_filter_inst *fi);
/* frame and sample: 0 or a negative status.  Called only for an instance
 * whose fk_call_uses names them. */
int fk_call_frame(const struct fk_filter_inst *fi, struct fk_frame_edit *e);
int fk_call_sample(const struct fk_filter_inst *fi, struct fk_sample_edit *e);

/* ---- outputs ------------------------------------------------------------------ */
/* render: 0 or a negative status, which the caller reports. */
int fk_call_render(const struct fk_plugin *pl, const struct fk_profile *p, struct fk_writer *w,
                   const void *opts);
/* min_weight (ABI 1.3): the smallest weight the output draws for a profile
 * whose root weighs `total`, with options opts (which check() accepted);
 * -1 when every frame matters: the plugin says so (any negative, NaN or
 * infinite answer), or it is no output or has no min_weight. */
double fk_call_min_weight(const struct fk_plugin *pl, const void *opts, double total);

/* ---- the ops of host->parse_chunks and host->parse_streams ------------------- */
/* Whether ops set the callbacks their host call needs (chunk ops: boundary
 * and parse; part ops: parse); when not, says which, in the caller's
 * context, and returns FK_ERR_USAGE. */
int fk_chunk_ops_check(const struct fk_chunk_ops *ops);
int fk_part_ops_check(const struct fk_part_ops *ops);
/* boundary: an offset past len counts as len. */
size_t fk_call_boundary(const struct fk_chunk_ops *ops, void *ctx, const char *buf, size_t len);
int fk_call_chunk_parse(const struct fk_chunk_ops *ops, void *ctx, unsigned worker,
                        struct fk_input *chunk, struct fk_sink *sink);
int fk_call_part_parse(const struct fk_part_ops *ops, void *ctx, unsigned part,
                       struct fk_input *in, struct fk_sink *sink);
/* finish: 0 when ops have none. */
int fk_call_part_finish(const struct fk_part_ops *ops, void *ctx, struct fk_sink *sink);

#endif
