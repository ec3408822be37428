/*
 * libfkreport: the data a flamekit HTML report embeds, its encoder (used by
 * the `html` output plugin) and its decoder (used by the `html` input
 * plugin, which reads a report back), in one convenience library.  The
 * page's script (plugins/output/html/page.html) decodes the same format;
 * tests/unit/report.c round-trips encoder and decoder.
 *
 * The data is one JSON object in <script type="application/json"
 * id="fk-data">, written with every '<', '>', '&', U+2028 and U+2029 as a
 * \uXXXX escape, so no frame name can close the element or break a script.
 * Keys:
 *   "v": 2               format version (1: per-sample "samples", never read back)
 *   "title", "unit"      strings; "units": [series 0 unit, series 1 unit]
 *   "palette"            the --colors palette; "inverted": 1 opens on the icicle
 *   "names": [...]       the frame-name table (full names, _[k] suffix kept).
 *                        Valid UTF-8 is written as is; a byte that is not
 *                        valid UTF-8 is written as \u0080..\u00ff, which a
 *                        real U+0080..U+00FF never is (those are written raw,
 *                        as two bytes), so the reader gets the bytes back.
 *   "colours": [[id,"#rrggbb"],...]   colours set by filters
 *   "modules": [...]     what frames came from (host->frame_module: a
 *                        library, a V8 script's url), each once, strings
 *                        written as "names"; "fmods": [[id,k],...] frame id's
 *                        module is modules[k], for the frames that have one
 *                        (shown beside a frame's figures; not read back)
 *   "series": 1 or 2     two: a differential / two-series profile
 *   "tree": "..."        the stack tree in preorder, flamegraph.pl's sibling
 *                        order, three numbers per node: how many levels to go
 *                        up before this node (0 = child of the previous
 *                        node), its frame id, and its self weight code
 *                        (0: no stack ends here; w+1: stacks end here with
 *                        weight w in series 0).
 *   "tree2": "..."       two series: the series-1 weight code of every node
 *   "fw": [..]           weights are not all non-negative integers below
 *                        2^53: then every weight code is 0 or 1 (a stack
 *                        ends here) and the weights, in node order (series 0
 *                        then series 1 for each), are these numbers.
 *   "threads": [[pid,tid(,"comm")],...]  when samples carry a tid or a
 *                        time: the distinct threads, sorted (-1: not given),
 *                        with the thread's name at its first sample when the
 *                        engine has one (bytes outside printable ASCII as
 *                        \u00XX, read back as those bytes)
 *   "timed": 0 or 1      whether the samples carry times
 *   "t0ns": "N"          the first sample's time in ns (a string: more than
 *                        2^53)
 *   "quantum": Q         the timeline's precision in ns (--time-resolution):
 *                        a sample's time is t0ns + Q * floor((t - t0ns) / Q)
 *   "sweight": W         every sample weighs W (a fixed sampling period)
 *   "timeline": "..."    base64 of a raw deflate stream (RFC 1951) of digits:
 *                        each thread's samples in time order, consecutive
 *                        samples with the same quantum, stack and weight
 *                        merged into one run.  Column by column: the number
 *                        of runs of each thread (in "threads" order); then
 *                        every run's quantum delta from the thread's previous
 *                        run (the first: from 0); its leaf (0: the empty
 *                        stack, k: the k-th node in preorder whose weight
 *                        code is not 0); its count of samples; and, without
 *                        "sweight", its samples' weight (integers: no
 *                        timeline is written when weights are not).  Left
 *                        out with two series and with --timeline=0.
 * Numbers in the strings use REPORT_BASE digits, most significant first:
 * digit d is REPORT_ALPHA[d + REPORT_BASE] when more digits follow and
 * REPORT_ALPHA[d] for the last one.  The alphabet has no '"', '\\', '<',
 * '>', '&' or '\'': it needs no escaping anywhere.
 */
#ifndef FK_REPORT_H
#define FK_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include <flamekit/plugin.h>

#define REPORT_BASE 44
#define REPORT_ALPHA \
	"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGH" \
	"IJKLMNOPQRSTUVWXYZ!#$%()*+,-./:;=?@[]^_`{|}~"
/* Longest number: 44^12 > 2^64. */
#define REPORT_NUM_MAX 16

#define REPORT_MAGIC "<meta name=\"generator\" content=\"flamekit-html 1\">"
#define REPORT_DATA_OPEN "<script type=\"application/json\" id=\"fk-data\">"
#define REPORT_DATA_CLOSE "</script>"

/* A node of the stack tree, in preorder (flamegraph.pl's sibling order). */
struct report_node {
	uint32_t depth;      /* 1: a child of the root */
	uint32_t frame;      /* index into the names */
	int32_t parent;      /* decoder: the parent's preorder index, -1: the root */
	unsigned char end;   /* a stack ends here */
	double w[2];         /* self weight of series 0 and 1 (0 where no stack ends) */
	double used;         /* decoder: what the timeline's runs of the node weigh */
};

/* A thread of the timeline, and its runs. */
struct report_thread {
	int32_t pid, tid;    /* -1: not given */
	const char *comm;    /* its name, comm_len bytes, or NULL */
	size_t comm_len;
	uint64_t nruns;      /* its runs in the timeline */
};

/* Consecutive samples of a thread in one quantum, of one stack and weight. */
struct report_run {
	uint64_t db;         /* quanta since the thread's previous run (the first: since t0ns) */
	uint64_t leaf;       /* 0: the empty stack, k: the k-th node where a stack ends */
	uint64_t cnt;        /* how many samples (at least 1) */
	uint64_t w;          /* each one's weight (ignored with same) */
};

struct report_timeline {
	size_t nthreads;
	const struct report_thread *threads;  /* sorted by (tid, pid) */
	const struct report_run *runs;        /* every thread's, thread by thread */
	int timed;                            /* the samples carry times */
	int64_t t0ns, quantum;                /* quantum >= 1 */
	int same;                             /* every sample weighs sweight */
	double sweight;
};

/* ---- Encoding ---- */

/* A buffered writer: the data is millions of one-byte digits. */
struct report_out {
	int (*write)(void *ctx, const void *p, size_t len);  /* 0 or a negative status */
	void *ctx;
	int rc;              /* the first failed write's status; later writes are dropped */
	size_t n;
	char buf[65536];
};

void report_put(struct report_out *o, const void *p, size_t len);
void report_puts(struct report_out *o, const char *s);
/* Write what is buffered; returns o->rc. */
int report_flush(struct report_out *o);

/* What report_encode writes: the profile, read through callbacks (ctx is
 * theirs) so the writer keeps no copy of it.  Strings are len bytes, any
 * bytes. */
struct report_src {
	const char *title, *palette, *unit;   /* unit: series' one ("samples" when NULL) */
	const char *units[2];                 /* NULL: "" */
	int inverted;
	int series;                           /* 1 or 2 */
	int wseries;                          /* series 1: which of w[] it is */
	size_t nnames, nmodules, nnodes;
	const char *(*name)(void *ctx, size_t i, size_t *len);
	const char *(*colour)(void *ctx, size_t i);          /* NULL: none */
	const char *(*module)(void *ctx, size_t k, size_t *len);
	size_t (*frame_module)(void *ctx, size_t i);         /* SIZE_MAX: none */
	/* node i's depth, frame, end and w[] (parent and used are not read) */
	void (*node)(void *ctx, size_t i, struct report_node *n);
	const struct report_timeline *timeline;              /* NULL: none (always, with two series) */
	void *ctx;
};

/* The data object, "{...}", into o (h for memory: the deflate buffers).
 * Returns 0, FK_ERR_NOMEM (not logged) or o's write status. */
int report_encode(const struct fk_host *h, struct report_out *o, const struct report_src *src);

/* n bytes of in, raw deflated (RFC 1951) and base64 coded into *out (from
 * h->alloc, *outlen bytes, not NUL-terminated; the caller frees it), for the
 * page's DecompressionStream("deflate-raw").  Returns 0 or FK_ERR_NOMEM. */
int report_deflate64(const struct fk_host *h, const char *in, size_t n, char **out, size_t *outlen);

/* v in REPORT_BASE digits into out; returns how many. */
size_t report_number(uint64_t v, char out[REPORT_NUM_MAX]);

/* ---- Decoding ---- */

/* A report read back: report_open finds the data in a whole page,
 * report_decode reads it, report_next walks the timeline's samples. */
struct report {
	const struct fk_host *h;
	const char *data, *end;      /* the JSON object inside the page (not owned) */
	char unit[64];               /* "unit", unit_len bytes (0: none) */
	size_t unit_len;
	int series;                  /* 1 or 2 */
	size_t nnames;
	char **names;                /* owned, each name_len[i] bytes (+ a NUL) */
	size_t *name_len;
	size_t nnodes;
	struct report_node *nodes;   /* owned: w[0] and w[1] are series 0 and 1 */
	/* the timeline, when has_timeline */
	int has_timeline, timed;
	int64_t t0ns, quantum;
	double sweight;              /* -1: none */
	size_t nthreads;
	struct report_thread *threads;  /* owned, their comm too */
	/* private to the decoder */
	size_t namecap, nodecap, nends, thread;
	size_t *ends;                /* leaf id - 1 -> node */
	char *dig;                   /* the inflated digits */
	const char *col[4];          /* report_next's place in each column */
	uint64_t left;               /* runs left in this thread */
	int64_t b;                   /* this thread's quantum */
	signed char digit[256];
	char err[160];               /* the sentence of an FK_ERR_DATA */
};

/* Find the data in page[0..len) (page[len] must be a NUL).  0, or
 * FK_ERR_DATA with r->err saying why. */
int report_open(struct report *r, const struct fk_host *h, const char *page, size_t len);
/* Read unit, names, tree and the timeline's threads, and inflate the
 * timeline up to max_inflated bytes.  0, FK_ERR_DATA (r->err),
 * FK_ERR_NOMEM or FK_ERR_LIMIT (the timeline inflates beyond the limit). */
int report_decode(struct report *r, uint64_t max_inflated);

/* A run of the timeline's samples, in its order (thread by thread, in time
 * order): cnt samples of thread, stack ending at nodes[node], at time_ns
 * (timed) and each of weight. */
struct report_sample {
	size_t thread, node;
	int64_t time_ns;
	double weight;
	uint64_t cnt;
};

/* The next run into *s: 1, 0 at the end (or without a timeline), or
 * FK_ERR_DATA (r->err).  Adds what the run weighs to its node's used: runs
 * that weigh more than their node are damage. */
int report_next(struct report *r, struct report_sample *s);
void report_free(struct report *r);

/* Whether the generator tag is in buf[0..len) where a reader looks for it
 * (REPORT_MAGIC_WITHIN: page.html has it at the top). */
#define REPORT_MAGIC_WITHIN 4096
int report_has_magic(const char *buf, size_t len);

#endif
