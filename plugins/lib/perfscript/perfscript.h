/*
 * The `perf script` text parser, as a library: the perf input plugin is a
 * thin shell around it, and a plugin that produces perf script text itself
 * (perf-data, which runs `perf script` on a perf.data file) links the same
 * convenience library (plugins/lib/perfscript/libperfscript.la) instead of
 * copying it.
 *
 * Two ways in:
 *   - fk_perf_parse(): one whole stream (any struct fk_input), parsed on
 *     the sink's threads through host->parse_chunks.
 *   - the session calls, for a caller that cuts its input into ordered
 *     segments itself (N `perf script` pipes over N time slices):
 *     fk_perf_begin, fk_perf_segment per segment (from several threads at
 *     once, one worker index per thread), fk_perf_end once all are parsed.
 *     Segments are ordered by `seq`; what spans segments (an off-CPU wait
 *     from a switch-out in one to the switch-in in a later one, the first
 *     event type, the first dropped event named in the warning) is settled
 *     in that order by fk_perf_end.  A segment must start at a record
 *     boundary (after an empty line, or at a header).
 *
 * Ownership: the options struct and the input stay the caller's and must
 * outlive the session; the session owns everything else and fk_perf_free
 * releases it.
 */
#ifndef FK_PERF_H
#define FK_PERF_H

#include <stdbool.h>
#include <stdint.h>

#include <flamekit/plugin.h>

/* The perf plugin's options (and the shared part of perf-data's). */
struct fk_perf_opts {
	int pid, tid, kernel, jit, all, addrs, offcpu;
	/* pairing.c, wakeups.c, leak.c: --wakeups, --leak and its event pairs */
	int wakeups, leak;
	const char *leak_alloc, *leak_free, *leak_ptr, *leak_bytes;
	long long leak_align, leak_page_size;
	const char *event_filter;
	/* weights.c: --weight-field, --series-by-event */
	const char *weight_field, *series_by_event;
};

/* The option table rows for a struct `st` holding fk_perf_opts as member
 * `m`, so perf-data declares the same options without repeating them:
 *   FK_PERF_OPTION_ROWS(struct my_opts, perf), FK_OPTION(...), FK_OPTION_END */
#define FK_PERF_OPTION_ROWS(st, m)                                                     \
	FK_OPTION(FK_OPT_FLAG, "pid", "0", st, m.pid,                                  \
	          "add the PID to the process name (comm-PID)"),                       \
	FK_OPTION(FK_OPT_FLAG, "tid", "0", st, m.tid,                                  \
	          "add the PID and TID to the process name (comm-PID/TID)"),           \
	FK_OPTION(FK_OPT_FLAG, "kernel", "0", st, m.kernel,                            \
	          "annotate kernel frames with _[k]"),                                 \
	FK_OPTION(FK_OPT_FLAG, "jit", "0", st, m.jit,                                  \
	          "annotate JIT frames (/tmp/perf-PID.map) with _[j]"),                \
	FK_OPTION(FK_OPT_FLAG, "all", "0", st, m.all, "all annotations (--kernel --jit)"), \
	FK_OPTION(FK_OPT_FLAG, "addrs", "0", st, m.addrs,                              \
	          "keep the address of unknown frames: [module <addr>]"),              \
	FK_OPTION(FK_OPT_STRING, "event-filter", NULL, st, m.event_filter,             \
	          "keep only this event (default: the first event in the input)"),     \
	FK_OPTION(FK_OPT_FLAG, "wakeups", "0", st, m.wakeups,                          \
	          "chain graph: each off-CPU interval (as --offcpu) charged in "       \
	          "microseconds to BLOCKED-STACK;--;WAKER-STACK, from sched_switch "   \
	          "and sched_wakeup (or sched_waking) records"),                       \
	FK_OPTION(FK_OPT_FLAG, "leak", "0", st, m.leak,                                \
	          "memory growth: the bytes of each allocation not freed later in "    \
	          "the capture, charged to its allocating stack (default events: "     \
	          "kmem:kmalloc, kmalloc_node, kmem_cache_alloc, kfree, "               \
	          "kmem_cache_free, mm_page_alloc, mm_page_free)"),                    \
	FK_OPTION(FK_OPT_STRING, "leak-alloc", NULL, st, m.leak_alloc,                 \
	          "--leak: the allocation events, comma-separated (replaces the "      \
	          "kmem defaults; e.g. probe_libc:malloc__return)"),                   \
	FK_OPTION(FK_OPT_STRING, "leak-free", NULL, st, m.leak_free,                   \
	          "--leak: the free events, comma-separated (with --leak-alloc)"),     \
	FK_OPTION(FK_OPT_STRING, "leak-ptr", "ptr", st, m.leak_ptr,                    \
	          "--leak: the field holding the address, in both kinds of event"),    \
	FK_OPTION(FK_OPT_STRING, "leak-bytes", "bytes_alloc", st, m.leak_bytes,        \
	          "--leak: the allocation events' field holding the size in bytes"),  \
	FK_OPTION(FK_OPT_INT, "leak-align", "1", st, m.leak_align,                     \
	          "--leak: round each size down to a multiple of this (8 clears the "  \
	          "flag bits of glibc's chunk size)"),                                 \
	FK_OPTION(FK_OPT_INT, "leak-page-size", "4096", st, m.leak_page_size,          \
	          "--leak: bytes per page for kmem:mm_page_alloc (pages << order)"),   \
	FK_OPTION(FK_OPT_FLAG, "offcpu", "0", st, m.offcpu,                            \
	          "sched:sched_switch events as off-CPU time in microseconds, each "   \
	          "thread's switch-out to its next switch-in"),                       \
	FK_OPTION(FK_OPT_STRING, "weight-field", NULL, st, m.weight_field,             \
	          "weigh each kept record by this numeric tracepoint field (bytes_alloc, " \
	          "len, nr_sector) instead of its period; records without it are skipped"), \
	FK_OPTION(FK_OPT_STRING, "series-by-event", NULL, st, m.series_by_event,       \
	          "A,B: keep two events as the two series of one profile (two-column "  \
	          "folded, differential graph); cycles,instructions for CPI, see "     \
	          "flamekit-formats(5)")

/* Parse all of `in` into `sink`.  0 or a negative status (reported). */
int fk_perf_parse(const struct fk_host *h, struct fk_input *in, struct fk_sink *sink,
                  const struct fk_perf_opts *o);

struct fk_perf;

/* Where `in` starts in the whole input (a shard's or a chunk's offset): 0 on
 * an ABI 1.0 host, which has neither shards nor chunks. */
static inline uint64_t fk_perf_input_start(const struct fk_host *h, const struct fk_input *in)
{
	return FK_HOST_HAS(h, input_start) ? h->input_start(in) : 0;
}

/* Start a session for `in` (named in messages; its start decides what a
 * shard must look up, see fk_perf_parse) with up to `workers` workers.
 * NULL when out of memory (reported). */
struct fk_perf *fk_perf_begin(const struct fk_host *h, struct fk_input *in,
                              const struct fk_perf_opts *o, unsigned workers);
/* Keep only this event (as --event-filter): for a caller whose segments
 * run at once and so cannot learn the first event from segment 0. */
int fk_perf_set_event(struct fk_perf *p, const char *name, size_t len);
/* The same for the event a caller found first in the input itself
 * (fk_perf_first_event on its start): kept as the input's first event
 * type, as one pass keeps it, and so named in the dropped-records warning. */
int fk_perf_set_first_event(struct fk_perf *p, const char *name, size_t len);
/* The event of the first record header in text[0..len), whole lines from
 * the start of perf script's output, as one pass would keep it: true with
 * it in *ev, *evlen (pointing into text). */
bool fk_perf_first_event(const char *text, size_t len, const char **ev, size_t *evlen);
/* Parse one segment on worker `worker` (< workers; one thread per worker
 * at a time) into `sink`. */
int fk_perf_segment(struct fk_perf *p, unsigned worker, uint64_t seq, struct fk_input *seg,
                    struct fk_sink *sink);
/* Settle what spans segments, push it into `sink` (the joined one), set
 * the unit and log the summaries.  0 or a negative status. */
int fk_perf_end(struct fk_perf *p, struct fk_sink *sink);
void fk_perf_free(struct fk_perf *p);

/*
 * Records instead of text: for a caller that decodes the samples itself
 * (perf-data's native reader), each record handed over as the pieces
 * `perf script` would print, the frames by an id, so that a stack met
 * before costs no text at all: the same parse, modes and pushes as the
 * text's, the same bytes out, without printing the frames and reading
 * them back.  A session's segment 0 on worker 0: begin, add each record in
 * order, end; then fk_perf_end as for segments.
 */
struct fk_perf_frame {
	const char *text;   /* its frame lines as perf script prints them, each
	                     * "\t" ... "\n" (an address and its inline frames) */
	uint32_t len, lines; /* bytes, lines */
	uint64_t id;        /* the same id for the same text, for as long as the
	                     * session (what the parsed frames are cached by) */
};
/* What a callchain's header line says, as its printer knows it: where
 * fk_perf_records_head_ok says the session would read the line as these
 * fields, the record may give them (head) in place of the line (text
 * then holds the lines after it, if any: none for a callchain's record).
 * Values as printed: the time to the microsecond.  comm and event stay
 * put, unchanged, for as long as the session (it remembers the last ones
 * it found plain by their address). */
struct fk_perf_head {
	const char *comm;
	size_t comm_len;
	int64_t pid, tid;   /* pid -1: not printed (no -F +pid) */
	bool has_time, has_period;
	int64_t time_ns;
	uint64_t period;
	const char *event;
	size_t event_len;
};
struct fk_perf_rec {
	const char *text;   /* the lines before the frames, each ending in '\n':
	                     * the header line (a tracepoint's fields, or the one
	                     * frame of a sample without a callchain, in it) */
	size_t len;
	int chain;          /* frames follow (none or more), then the empty line
	                     * that ends the record; 0: the text is all */
	const struct fk_perf_frame *frames;
	size_t nframes;
	const struct fk_perf_head *head; /* the header line's fields in place of
	                                  * its text (chain only), or NULL */
};
struct fk_perf_records;
/* NULL when out of memory (reported).  `in` names the records in messages
 * (skipped lines, numbered as the text's would be). */
struct fk_perf_records *fk_perf_records_begin(struct fk_perf *p, struct fk_input *in,
                                              struct fk_sink *sink);
/* One record; what it points to is the caller's again on return.  0 or a
 * negative status (reported). */
int fk_perf_records_add(struct fk_perf_records *r, const struct fk_perf_rec *rec);
/* Whether a callchain's header line with the fields f may be given as f. */
bool fk_perf_records_head_ok(struct fk_perf_records *r, const struct fk_perf_head *f);
/* The end of the records; frees r.  0 or a negative status (reported). */
int fk_perf_records_end(struct fk_perf_records *r);

/* The options' check (FK_CHECK_DOC): --series-by-event's two names, the
 * options that exclude each other. */
int fk_perf_check(const struct fk_host *h, const void *opts, const char *where);

#endif
