/*
 * What the pprof input and output plugins share: the C structs protoc-c
 * generates from pprof's profile.proto (profile.pb-c.h, in the build tree),
 * a protobuf-c allocator that goes through the host's alloc/free (so
 * allocation failures are injected and reported like everywhere else), and
 * the two directions of unit naming.
 */
#ifndef FK_LIB_PPROF_H
#define FK_LIB_PPROF_H

#include <protobuf-c/protobuf-c.h>

#include <flamekit/plugin.h>

#include "profile.pb-c.h"

typedef Perftools__Profiles__Profile fk_pprof_profile;

/* A protobuf-c allocator calling h->alloc/h->free; valid while h is.
 * `failed` is set when an allocation failed, since protobuf-c answers a
 * failed allocation as it answers bad data: with NULL. */
struct fk_pprof_alloc {
	ProtobufCAllocator pa;   /* pass &this->pa to protobuf-c */
	const struct fk_host *h;
	int failed;
};
void fk_pprof_allocator(struct fk_pprof_alloc *a, const struct fk_host *h);

/* flamekit's short unit for a pprof unit ("nanoseconds" -> "ns", "count"
 * -> "samples" for a "samples" type), or `unit` itself when there is no
 * shorter name.  Returns a static string or `unit`. */
const char *fk_pprof_unit_in(const char *type, const char *unit);

/* The pprof sample type (type, unit) for a flamekit series unit (NULL when
 * the input gave none): "samples" -> samples/count, "ns" -> cpu/nanoseconds,
 * "us" -> offcpu/microseconds, ...  Static strings. */
void fk_pprof_unit_out(const char *unit, const char **type, const char **punit);

#endif
