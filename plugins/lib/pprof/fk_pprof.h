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
#include "../../input/common/limit.h"

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

/* A profile.proto read field by field from an input (stream.c): the
 * tables in compact form, the samples' bytes as they are (unpacked one at
 * a time by fk_pprof_sample).  Indices into the string table are checked
 * by the caller.  Arrays are h's allocations, freed by fk_pprof_data_free. */
struct fk_pprof_vt { int64_t type, unit; };
struct fk_pprof_loc {
	uint64_t id, mapping_id, address;
	size_t line0, nline;      /* its lines' function ids: line_func[line0 .. +nline) */
};
struct fk_pprof_func { uint64_t id; int64_t name, system_name; };
/* A mapping: where a binary was mapped and which one (for symbolizing
 * locations without lines).  has_symbols: the profile says it already
 * has functions, file names or line numbers (pprof does not symbolize
 * such a mapping again). */
struct fk_pprof_map {
	uint64_t id, memory_start, memory_limit, file_offset;
	int64_t filename, build_id;   /* string indices, checked by the caller */
	int has_symbols;
};
struct fk_pprof_data {
	const struct fk_host *h;
	struct fk_pprof_vt *sample_type;
	size_t n_sample_type, cap_st;
	int64_t default_sample_type;
	int64_t time_nanos;          /* the profile's wall-clock time, 0: not given */
	struct fk_pprof_loc *location;
	size_t n_location, cap_loc;
	uint64_t *line_func;
	size_t n_line, cap_lines;
	struct fk_pprof_func *function;
	size_t n_function, cap_fn;
	struct fk_pprof_map *mapping;
	size_t n_mapping, cap_map;
	char **string_table;      /* n_string_table pointers into strings */
	size_t n_string_table;
	char *strings;
	size_t n_strings, cap_strings, *string_off, cap_soff;
	unsigned char *sraw;      /* each sample: varint length, bytes */
	size_t n_sraw, cap_sraw, n_sample;
	uint64_t bytes;           /* the profile's length */
};

/* Read all of `in` into *d, refusing it past lim (the --max-input-size
 * sentence).  Errors are reported ("not a pprof profile: byte N does not
 * decode ...", "out of memory"); returns 0 or a negative status.  *d is
 * set even on failure: free it with fk_pprof_data_free. */
int fk_pprof_read(const struct fk_host *h, struct fk_input *in, const struct fk_input_limit *lim,
                  struct fk_pprof_data *d);
/* The sample whose bytes start at d->sraw[*off], unpacked with pa, and
 * *off moved past it; NULL when it does not decode (pa->failed: out of
 * memory).  Free it with perftools__profiles__sample__free_unpacked. */
Perftools__Profiles__Sample *fk_pprof_sample(struct fk_pprof_data *d, struct fk_pprof_alloc *pa, size_t *off);
void fk_pprof_data_free(struct fk_pprof_data *d);

#endif
