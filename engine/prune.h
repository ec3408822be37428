/*
 * The profile of only what the outputs draw (prune.c): fk_pipeline_run's
 * path for folded files into outputs that say, through min_weight(), how
 * narrow a frame they leave out.  Engine-internal.
 */
#ifndef FK_PRUNE_H
#define FK_PRUNE_H

#include "fk.h"

/* When pl can take the path (prune.c's opening comment says when), read
 * its inputs into a profile of the frames its outputs draw, which
 * replaces *pp (freed; the caller owns the new one), and set *taken.
 * Otherwise *taken is false, nothing is reported and *pp is untouched:
 * the pipeline reads the inputs.  0, or a negative status (reported; then
 * *taken is true and *pp untouched). */
int fk_prune_profile(const struct fk_pipeline *pl, struct fk_profile **pp, bool *taken);

#endif
