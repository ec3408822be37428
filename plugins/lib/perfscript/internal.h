/*
 * What the files of the perf parser share.  Not for other plugins: they
 * use perfscript.h.
 *
 *   header.c  header lines: comm, pid/tid, time, period, event, arguments
 *   frames.c  frame lines: the oracle's tidying, annotations, modules
 *   cache.c   the record caches (text -> stack node); hash.h the hash
 *   pairing.c the pairing modes' one caller: their table's steps in turn
 *   offcpu.c  the --offcpu and --wakeups mode: sched_switch pairing, within
 *             a segment and across segments, with the last wakeup of each
 *             wait for --wakeups
 *   leak.c    the --leak mode: allocations paired with frees by address
 *   pairstate.c what the modes share (state, tables, counts, fields, the
 *             time-order check)
 *   wakeups.c the chain stack of --wakeups
 *   push.c    a saved stack pushed into the sink
 *   scan.c    one segment: records, the fast path, pushing
 *   body.c    a record's body taken whole from the input's buffer
 *   driver.c  the session: segments through host->parse_chunks, in order
 *   weights.c --weight-field and --series-by-event
 *   events.c  the records dropped, per event, for the warnings
 *   fields.c  tracepoint fields (name=value, name: value, block:* by
 *             position), read for weights.c and pairing.c
 * Calls run one way: driver -> scan -> pairing -> the modes (offcpu, leak)
 * -> the leaves (pairstate, push, wakeups, frames, cache, fields, header,
 * body, events, weights).
 * The line grammar (header and frame lines) is in lines.h, which the perf
 * plugin's probe (plugins/input/perf/probe.c) uses too.
 */
#ifndef FK_PERF_INTERNAL_H
#define FK_PERF_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "hash.h"
#include "lines.h"
#include "perfscript.h"

/* ---- header.c ---- */
/* A ":-1 -1" header (h->tid -1 from perf_match_header) read as the oracle
 * reads it, for plain collapse: the comm runs on to the first number
 * followed by a blank (the period, read as the TID, in a sample's header
 * ":-1    -1 [000]   862.843818:     250000 cpu-clock:ppp:").  Returns the
 * end of that comm, where perf_match_event must read from to find the
 * period and event the oracle finds, or 0 when the oracle cannot read the
 * header (a tracepoint's, whose arguments follow its event). */
size_t perf_match_exiting(const char *s, size_t n, struct header *h);
/* The same by the general rules alone, without the one-pass reading of the
 * usual layout: the reference the unit tests hold that reading to. */
void perf_match_event_rules(const char *s, size_t n, size_t from, struct header *h);
bool perf_event_matches(const char *ev, size_t evlen, const char *f, size_t flen);
/* KEY=NUMBER among tracepoint arguments. */
bool perf_arg_ll(const char *a, size_t n, const char *key, long long *v);
/* The event of the first header in buf[0..len): true with it in ev/evlen. */
bool perf_first_event(const char *buf, size_t len, const char **ev, size_t *evlen);
const char *perf_memmem(const char *h, size_t hn, const char *n, size_t nn);

/* ---- frames.c ---- */
/* One frame of a stack under construction: bytes in stack.names, module
 * (base name, or none when mod_len is 0) in stack.mods. */
struct frame {
	uint32_t off, len;
	uint32_t mod_off, mod_len;
	int annot;
};

/* A record's stack: frame 0 is the comm frame, the rest leaf first. */
struct stack {
	char *names;
	size_t names_len, names_cap;
	char *mods;
	size_t mods_len, mods_cap;
	struct frame *fr;
	size_t n, cap;
};

struct tidy {
	const struct fk_host *h;
	bool addrs, kernel, jit;
};

/* Append the frames of one frame line (inline chains give several) to st. */
int perf_add_frame(const struct tidy *t, struct stack *st, const struct fline *f, bool java);
int perf_stack_put(const struct fk_host *h, struct stack *st, const char *s, size_t n);
int perf_stack_frame(const struct fk_host *h, struct stack *st, size_t off, size_t len, int annot);
int perf_stack_copy(const struct fk_host *h, struct stack *dst, const struct stack *src);
void perf_stack_free(const struct fk_host *h, struct stack *st);
int perf_grow(const struct fk_host *h, void **p, size_t *cap, size_t need, size_t elem);

/* ---- cache.c ---- */
struct h128 perf_hash(struct h128 seed, const char *p, size_t n);
static inline struct h128 perf_hash0(void) { return (struct h128){ 0x243f6a8885a308d3ull, 0x13198a2e03707344ull }; }

struct cache_entry {
	uint64_t a;      /* the key's h128 and length, 96 bits: a, b */
	uint32_t b;      /* 0, 0: empty */
	fk_node_t node;
};
struct cache {
	struct cache_entry *v;
	size_t mask, n;
};
int perf_cache_init(const struct fk_host *h, struct cache *c);
void perf_cache_free(const struct fk_host *h, struct cache *c);
/* The node cached for (hv, len), or FK_NODE_NONE; *slot is where to put it. */
fk_node_t perf_cache_get(struct cache *c, struct h128 hv, size_t len, struct cache_entry **slot);
int perf_cache_put(const struct fk_host *h, struct cache *c, struct cache_entry *slot,
                   struct h128 hv, size_t len, fk_node_t node);

/* ---- pairstate.c: what the pairing modes share ---- */
/* Records out of time order, per segment and for the run: a record whose
 * time is earlier than the one before it is counted. */
struct tcheck {
	bool any;
	int64_t first, last;
	uint64_t back;
};
void perf_tcheck_note(struct tcheck *t, int64_t ns);
/* seg follows what run has seen so far. */
void perf_tcheck_join(struct tcheck *run, const struct tcheck *seg);
/* Warn about the records out of time order. */
void perf_tcheck_report(const struct fk_host *h, struct fk_input *in, const struct tcheck *t);

/* ---- body.c ---- */
/* The record body at p[0..n): lines each starting with '\t' or ' ' and
 * ending in '\n', then an empty line.  Returns the body's length (the
 * empty line's offset) with its line count in *lines and
 * perf_hash(seed, body) in *hv (not computed when hv is NULL: a record
 * not kept, or parsed every time), or SIZE_MAX when the bytes do not hold
 * such a body: a line starts otherwise, a '\r' or NUL comes first, or the
 * bytes end first.  _bytes is the byte-at-a-time reference the vector
 * loop is tested against. */
size_t perf_body_scan(const char *p, size_t n, struct h128 seed, size_t *lines, struct h128 *hv);
size_t perf_body_scan_bytes(const char *p, size_t n, struct h128 seed, size_t *lines,
                            struct h128 *hv);

/* ---- events.c ---- */
enum { EV_MAX = 16, EV_SHOWN = 5 };
struct ev_count {
	uint64_t records;
	size_t len;
	char name[104];       /* cut at 103 bytes, NUL-terminated */
};
/* Records counted per event name, the events in the order they came. */
struct ev_counts {
	struct ev_count v[EV_MAX];
	size_t n, last;       /* last: the entry counted last */
	uint64_t more;        /* records of events past the table */
	bool overflow;        /* some were: counts depend on the cut */
};
/* Count a record of event ev[0..len) (NULL: a record without one). */
void perf_events_note(struct ev_counts *c, const char *ev, size_t len);
/* Add a segment's counts to the run's, segments in input order. */
void perf_events_join(struct ev_counts *run, const struct ev_counts *seg);
/* The first event counted, or NULL; valid as long as c. */
const char *perf_events_first(const struct ev_counts *c);
/* "\"cycles\" (12 records), ..." into buf: the EV_SHOWN events with the
 * most records, and how many more there are. */
void perf_events_list(const struct ev_counts *c, char *buf, size_t size);

/* ---- scan.c ---- */
/* Per worker: caches and scratch kept across the segments it parses. */
struct worker;
struct kept_event {
	size_t len;
	bool defaulted; /* the first event of the input, not --event-filter */
	char name[256];
};
/* What one segment found that must be combined in input order. */
struct seg_result {
	uint64_t seq;
	int unit_kind[FK_SERIES_MAX]; /* per series: 0 no kept record, 1 counts, 2 periods */
	uint64_t dropped;
	struct ev_counts dropped_ev; /* the dropped records per event */
	const struct kept_event *event; /* the event this segment kept */
	bool event_owned;       /* event was allocated for this result */
	uint64_t wf_missing, wf_bad; /* records skipped by --weight-field */
	void *pair;             /* the pairing mode's state and loose ends */
	struct tcheck order;    /* the times of the records paired */
};
struct scan_cfg {
	const struct fk_host *h;
	const struct fk_perf_opts *o;
	struct tidy tidy;
	const struct kept_event *series; /* --series-by-event's two, or NULL */
};
struct worker *perf_worker_new(const struct scan_cfg *cfg);
void perf_worker_free(struct worker *w);
/* Parse one segment; ev is the event to keep (NULL: the segment's first). */
int perf_scan(struct worker *w, struct fk_input *in, struct fk_sink *sink,
              const struct kept_event *ev, struct seg_result *res);

/* Records instead of text (fk_perf_records_add): a segment fed record by
 * record, on worker w, as perf_scan would read their text. */
struct fk_perf_records *perf_records_begin(struct worker *w, struct fk_input *in,
                                           struct fk_sink *sink, const struct kept_event *ev,
                                           struct seg_result *res);

/* ---- fields.c ---- */
enum { PF_OK, PF_MISSING, PF_BAD };
/* The number in tracepoint field name[0..nlen) among the arguments
 * a[0..n) (NULL: none) of a record of event ev (for the block:* events,
 * whose fields are positional): PF_OK with it in *v, PF_MISSING, or
 * PF_BAD when the value is not a non-negative integer of 64 bits.  The
 * rules are in fields.c and flamekit-formats(5). */
int perf_field_u64(const char *ev, size_t evlen, const char *a, size_t n, const char *name,
                   size_t nlen, uint64_t *v);

/* ---- weights.c ---- */
/* "A,B" into ev[0], ev[1]: 0, or FK_ERR_USAGE when it is not two
 * different names. */
int perf_series_parse(const char *spec, struct kept_event ev[2]);
/* The unit of a field's weights: "bytes" for byte counts, else the name
 * (a static string or `field` itself). */
const char *perf_weight_unit(const char *field);
/* The one warning about records --weight-field skipped. */
void perf_weights_report(const struct fk_host *h, struct fk_input *in, const struct fk_perf_opts *o,
                         uint64_t missing, uint64_t bad);
/* ---- pairstate.c, continued ---- */
/* What the pairing modes (offcpu.c, leak.c) count for their summaries:
 * a segment's count the records it drops, and settling a segment adds its
 * counts to the run's. */
struct pair_counts {
	uint64_t unmatched; /* switch-outs never switched in; frees of no allocation */
	uint64_t again;     /* --leak: allocations of an address still allocated */
	uint64_t stray;     /* --wakeups: wakeups of a thread not waiting */
	uint64_t bad;       /* records whose fields are missing or not numbers */
	uint64_t other;     /* records of events the mode does not pair */
	uint64_t back;      /* --offcpu: waits ending before they began */
};
void perf_pair_counts_add(struct pair_counts *run, const struct pair_counts *seg);
/* A pairing mode's segment or run state: `size` zeroed bytes whose first
 * member, a `const struct fk_host *`, is set to h; NULL when out of
 * memory.  The caller frees it with h->free. */
void *perf_pair_state_new(const struct fk_host *h, size_t size);
/* Grow the open-addressing table *v of *mask + 1 elements of elem bytes
 * (none when *v is NULL), each beginning with `bool used`, to twice its
 * size (or first_mask + 1 elements), moving each used one to the first
 * free slot from slot(e, new mask).  0, or FK_ERR_NOMEM with the table
 * as it was. */
int perf_pair_table_grow(const struct fk_host *h, void **v, size_t *mask, size_t first_mask,
                         size_t elem, size_t (*slot)(const void *e, size_t mask));
/* The number in tracepoint field `name` of the record (fields.c's rules). */
int perf_pair_field(const struct header *hd, const char *name, uint64_t *v);

/* ---- push.c ---- */
struct pusher {
	const struct fk_host *h;
	struct fk_sink *sink;
	struct fk_frameref *refs;
	size_t refcap;
};
/* Push a whole stack (no cache). */
int perf_push_stack(struct pusher *p, const struct stack *st, struct fk_sample *smp,
                    fk_node_t *node);

/* ---- the pairing modes: offcpu.c, leak.c ---- */
enum pair_kind { PK_OTHER, PK_SWITCH, PK_WAKEUP, PK_ALLOC, PK_FREE };
/* What a kept record of a pairing mode says, read from its header. */
struct pair_rec {
	int kind;
	long long prev_tid, next_tid; /* PK_SWITCH; -1 when absent */
	long long wakee;              /* PK_WAKEUP */
	int space;                    /* PK_ALLOC, PK_FREE: 0 addresses, 1 page frames */
	uint64_t key, bytes;          /* the address (or pfn); bytes of an allocation */
};
/* A pairing mode: its steps, called only by pairing.c.  A segment's state
 * (seg) pairs what it can on its own and keeps its loose ends; the run's
 * (run) takes the segments in input order.  The new step is pairing.c's:
 * states of seg_size and run_size bytes, zeroed, whose first member is the
 * host (perf_pair_state_new); the free steps accept NULL. */
struct pair_mode {
	size_t seg_size, run_size;
	void (*seg_free)(const struct fk_host *h, void *seg);
	void (*run_free)(const struct fk_host *h, void *run);
	/* Whether the record with this header is one the mode pairs, with
	 * what it says in *pr (prev_tid, next_tid -1, the rest 0, on entry);
	 * records dropped are counted in seg. */
	bool (*keep)(void *seg, const struct fk_perf_opts *o, const struct header *hd,
	             struct pair_rec *pr);
	/* A kept record and its stack (frame 0 the comm frame). */
	int (*record)(void *seg, struct pusher *p, const struct pair_rec *pr,
	              const struct fk_sample *meta, const struct stack *st);
	/* Settle segment seg (segments in order) against what came before. */
	int (*settle)(void *run, void *seg, struct pusher *p);
	/* Push what is left once all are settled (NULL: nothing). */
	int (*end)(void *run, struct pusher *p);
	/* Log the summaries. */
	void (*report)(const struct fk_host *h, struct fk_input *in, const void *run,
	               const struct fk_perf_opts *o);
};
extern const struct pair_mode perf_offcpu_mode, perf_leak_mode;

/* ---- pairing.c: the modes' one caller ---- */
static inline bool perf_pairing(const struct fk_perf_opts *o)
{
	return o->offcpu || o->wakeups || o->leak;
}
struct seg_result;
/* The segment state of the options' mode into res->pair (none without a
 * mode): 0, or FK_ERR_NOMEM.  _free releases it. */
int perf_pair_seg_new(const struct fk_host *h, const struct fk_perf_opts *o, struct seg_result *res);
void perf_pair_seg_free(const struct fk_host *h, const struct fk_perf_opts *o,
                        struct seg_result *res);
/* With a mode (perf_pairing): whether the record with this header is kept,
 * with what it says in *pr; records dropped are counted in res. */
bool perf_pair_keep(struct seg_result *res, const struct fk_perf_opts *o, const struct header *hd,
                    struct pair_rec *pr);
/* A kept record and its stack (frame 0 the comm frame) to its mode. */
int perf_pair_record(struct seg_result *res, const struct fk_perf_opts *o, struct pusher *p,
                     const struct pair_rec *pr, const struct fk_sample *meta,
                     const struct stack *st);
/* The run: the mode's settled state and the records' time order. */
struct pair_run {
	const struct pair_mode *m; /* NULL: no pairing mode */
	void *state;
	struct tcheck order;
};
int perf_pair_run_begin(const struct fk_host *h, const struct fk_perf_opts *o, struct pair_run *r);
/* Settle each segment's result, in input order. */
int perf_pair_settle(struct pair_run *r, struct seg_result *res, struct pusher *p);
/* Push what is left (--leak: the allocations never freed). */
int perf_pair_end(struct pair_run *r, struct pusher *p);
/* The mode's summaries, then the records out of time order. */
void perf_pair_report(const struct fk_host *h, struct fk_input *in, const struct fk_perf_opts *o,
                      const struct pair_run *r);
void perf_pair_run_free(const struct fk_host *h, struct pair_run *r);

/* ---- wakeups.c ---- */
/* out = the chain of a wait: the blocked stack `target` (comm frame
 * first, then leaf first as struct stack holds it) whose root ends up at
 * the bottom, "--", then the waker's stack leaf first, its comm frame on
 * top.  out is reused: its buffers stay the caller's. */
int perf_chain_build(const struct fk_host *h, struct stack *out, const struct stack *target,
                     const struct stack *waker);

#endif
