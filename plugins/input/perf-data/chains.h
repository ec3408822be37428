/*
 * Callchains met before, with the frames they gave (native.c).  A sample's
 * frames depend only on its callchain and on the maps its addresses are
 * looked up in: the thread's process's and the kernel's, each named by the
 * stamp the machine gives every state of a set of maps (machine.h).  So a
 * sample whose callchain and stamps are an earlier sample's has that
 * sample's frames, without a map lookup or a symbol cache probe per frame.
 *
 * The frames are stored as opaque elements of a fixed size.  The cache is
 * bounded: once its bytes reach the bound, nothing more is stored (lookups
 * go on).  Ownership: what pd_chains_get returns is valid until the next
 * pd_chains_put.
 */
#ifndef FK_PERF_DATA_CHAINS_H
#define FK_PERF_DATA_CHAINS_H

#include <stddef.h>
#include <stdint.h>

struct pd_chains;

/* Frames of elem bytes, at most max_bytes in all; NULL when out of memory. */
struct pd_chains *pd_chains_new(size_t elem, size_t max_bytes);
void pd_chains_free(struct pd_chains *c);

/* The frames stored for the callchain chain[0 .. 8 * nr) under the stamps
 * (user, kernel), their number in *n; NULL when none are. */
const void *pd_chains_get(struct pd_chains *c, uint64_t user, uint64_t kernel,
                          const unsigned char *chain, uint64_t nr, size_t *n);

/* Store the n frames at frames, frames + stride, ... (elem bytes each) for
 * the callchain.  0, or -1 when out of memory; a full cache stores nothing
 * and returns 0. */
int pd_chains_put(struct pd_chains *c, uint64_t user, uint64_t kernel, const unsigned char *chain,
                  uint64_t nr, const void *frames, size_t n, size_t stride);

#endif
