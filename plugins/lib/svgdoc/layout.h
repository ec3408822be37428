/* Frame layout shared by the flame-graph-like outputs (see layout.c). */
#ifndef FK_SVGDOC_LAYOUT_H
#define FK_SVGDOC_LAYOUT_H

#include "svgdoc.h"

/* Which series gives the widths: 1 for differential (two-series) input,
 * whose colours come from the change; else 0. */
int svg_width_series(const struct fk_host *h, const struct fk_profile *p, int *differential);

/* Merged tree, flamegraph.pl's order; frames narrower than minw dropped.
 * *out is allocated with h->alloc (caller frees). */
int layout_tree(const struct fk_host *h, const struct fk_profile *p, const struct svg_opts *o,
                double minw, struct svg_frame **out, size_t *nout, double *maxdelta);

/* flamegraph.pl's flow(): feed lines in order, merging adjacent ones. */
struct flow {
	const struct fk_host *h;
	int differential;
	uint32_t row0;              /* row of the root */
	struct { fk_frame_t frame; double stime, delta; } *last;
	size_t nlast, lastcap;
	struct svg_frame *out;      /* closed frames (h->alloc'd, caller frees) */
	size_t n, cap;
	double maxdelta;
};
int layout_flow_begin(struct flow *fl, const struct fk_host *h, int differential, uint32_t row0);
int layout_flow_add(struct flow *fl, const fk_frame_t *frames, size_t n, double t, double delta);
int layout_flow_end(struct flow *fl, double t);
/* Free what a flow holds (after a failure: its output too). */
void layout_flow_free(struct flow *fl);

/* --flamechart: the sample log in input order through flow(). */
int layout_samples(const struct fk_host *h, const struct fk_profile *p, const struct svg_opts *o,
                   struct svg_frame **out, size_t *nout, double *maxdelta, double *time);

/* Lay out p (tree, or the sample log when flow) and write the document. */
int svg_render_profile(const struct fk_host *h, const struct fk_profile *p, struct fk_writer *w,
                       const struct svg_opts *o, const char *default_title, int flow);

#endif
