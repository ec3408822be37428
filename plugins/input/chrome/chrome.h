/*
 * The chrome input plugin's halves: read.c streams the Trace Event Format
 * JSON through yajl (libfkjson) into a struct cr_trace (the CPU profiles'
 * nodes and samples, the duration events, the thread names; nothing else
 * of the document), chrome.c turns that into stacks and samples.
 */
#ifndef FK_CHROME_H
#define FK_CHROME_H

#include <stddef.h>
#include <stdint.h>

#include <flamekit/plugin.h>

#include "fk_json.h"

#define CR_NONE ((size_t)-1)

/* A node of a CPU profile ("cpuProfile" of a ProfileChunk event). */
struct cr_node {
	double id, parent_id;      /* parent_id NAN for none */
	size_t name_off, name_len; /* "FUNCTION URL:LINE" in text */
	int is_root;               /* "(root)": not a frame */
	size_t parent;             /* index, set by chrome.c */
	fk_node_t leaf;            /* cached push result */
};

struct cr_sample {
	double node;               /* a node id */
	double t;                  /* microseconds since the profile's start */
	size_t seq;
	uint64_t line;             /* its chunk's, for the skip count */
};

/* One profile: a Profile event and the ProfileChunk events of its id and
 * pid.  Its thread is the Profile event's (V8 writes the chunks from its
 * sampler thread). */
struct cr_prof {
	double pid;
	char id[48];
	int32_t spid, stid;        /* the sampled thread */
	int has_thread;
	double start;              /* Profile's startTime (else its ts), us */
	int has_start;
	double cum;                /* the time deltas so far */
	struct cr_node *v;
	size_t n, capv;
	struct cr_sample *s;
	size_t ns, caps;
	double *edges;             /* (parent id, child id) pairs from nodes' "children" */
	size_t nedges, capedges;   /* doubles, two an edge */
	int from_sf;               /* a thread's top-level "samples": its nodes are
	                            * the "stackFrames", its times absolute */
};

struct cr_thread {
	int32_t pid, tid;
	size_t name_off, name_len; /* thread_name metadata, name_len 0 for none */
	int named;
	size_t *open;              /* B events not yet ended: indices of durs */
	size_t nopen, capopen;
};

/* One duration event: X (ts, dur) or a B/E pair, in microseconds. */
struct cr_dur {
	uint32_t thread;           /* index into threads */
	size_t name_off, name_len;
	double start, end;         /* end NAN while a B is not ended */
	size_t seq;
	uint64_t line;             /* where it was, for the skip count */
};

struct cr_trace {
	char *text;                /* names back to back */
	size_t tlen, tcap;
	struct cr_prof *profs;
	size_t nprofs, capprofs;
	struct cr_thread *threads;
	size_t nthreads, capthreads;
	struct cr_dur *durs;
	size_t ndurs, capdurs;
	struct cr_node *sfv;       /* the top-level "stackFrames", as nodes */
	size_t nsfv, capsfv;
};

struct fk_json;

/* Read all of `in` into *t (zeroed by the caller).  Errors are reported;
 * returns 0 or a negative status.  Skipped events are counted through
 * host->input_skip with their line. */
int cr_read(const struct fk_host *h, struct fk_input *in, const struct fk_input_limit *lim,
            struct cr_trace *t);
void cr_trace_free(const struct fk_host *h, struct cr_trace *t);

/* Arrays grow through libfkjson. */
#define CR_GROW(h, arr, cap, need) FK_JSON_GROW(h, arr, cap, need)

#endif
