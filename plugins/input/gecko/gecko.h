/*
 * The gecko input plugin's halves: read.c streams a Firefox Profiler file
 * (the Gecko format, or the processed format samply writes) through yajl
 * (libfkjson) into a struct gk_prof: per thread the columns of its
 * samples, stack, frame, func and resource tables that name a frame, and
 * its strings; the libraries; the shared strings.  gecko.c turns that into
 * stacks and samples.
 */
#ifndef FK_GECKO_H
#define FK_GECKO_H

#include <stddef.h>
#include <stdint.h>

#include <flamekit/plugin.h>

#include "fk_json.h"

/* The columns kept, of every table.  A missing value (null, or a row too
 * short) is NAN. */
enum gk_colid {
	C_STACK, C_TIME, C_TDELTA, C_WEIGHT, /* samples */
	C_SFRAME, C_SPREFIX,                 /* stackTable */
	C_FLOC, C_FFUNC, C_FADDR,            /* frameTable: location (Gecko), func, address */
	C_UNAME, C_URES,                     /* funcTable */
	C_RLIB,                              /* resourceTable */
	C_NCOLS
};

enum gk_weight { W_UNSET, W_SAMPLES, W_TRACING_MS, W_BYTES };

struct gk_col {
	double *v;
	size_t n, cap;
};

/* Strings back to back: string i is text[off[i] .. off[i+1]). */
struct gk_strs {
	char *text;
	size_t tlen, tcap;
	size_t *off;
	size_t n, cap;               /* n strings, off has n + 1 entries */
	int set;
};

struct gk_thread {
	char *name;
	size_t name_len;
	double pid, tid;             /* NAN when absent or not a number */
	unsigned proc;               /* its process: libs of the same proc */
	struct gk_col col[C_NCOLS];
	int has_col[C_NCOLS];
	struct gk_strs strs;         /* its stringTable / stringArray */
	int weight_type;
	uint64_t line;               /* where it ended, for messages */
};

struct gk_lib {
	unsigned proc;
	double start, end;           /* NAN when absent (the processed format) */
	size_t name_off, name_len;   /* in gk_prof.libtext */
};

struct gk_prof {
	struct gk_thread *threads;
	size_t nthreads, capthreads;
	struct gk_lib *libs;
	size_t nlibs, caplibs;
	char *libtext;
	size_t ltlen, ltcap;
	struct gk_strs shared;       /* shared.stringArray */
	struct gk_thread shared_t;   /* shared.stackTable, frameTable, funcTable and
	                              * resourceTable (the processed format's newest
	                              * versions), for threads without their own */
	unsigned nprocs;
};

int gk_read(const struct fk_host *h, struct fk_input *in, const struct fk_input_limit *lim,
            struct gk_prof *p);
void gk_prof_free(const struct fk_host *h, struct gk_prof *p);

/* Arrays grow through libfkjson. */
#define GK_GROW(h, arr, cap, need) FK_JSON_GROW(h, arr, cap, need)

#endif
