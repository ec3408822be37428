/*
 * The line grammar of `perf script` text: which line is a record's header
 * and which a frame, and what they hold.  For the parser (internal.h
 * includes it) and for detection (the perf plugin's probe.c), which
 * judges lines by the same rules.  The matchers keep pointers into the
 * line they are given: valid as long as it.  Defined in header.c and
 * frames.c.
 */
#ifndef FK_PERF_LINES_H
#define FK_PERF_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../input/common/time.h"

/* Character classes by table: one load and test per byte where the
 * compares took several branches (header and frame lines are scanned a
 * byte at a time). */
enum { PERF_WS = 1, PERF_DIGIT = 2 };
extern const unsigned char perf_cls[256];
/* \s: ' ', and '\t' '\n' '\v' '\f' '\r' (9 .. 13) */
static inline bool is_ws(unsigned char c) { return perf_cls[c] & PERF_WS; }
static inline bool is_digit(unsigned char c) { return perf_cls[c] & PERF_DIGIT; }

/* The most seconds a time may have: beyond, its nanoseconds are not below
 * FK_TIME_NS_LIMIT (146 years of uptime, not a timestamp perf prints, and
 * more than flamekit can order), so the record has no time. */
#define PERF_SEC_MAX (FK_TIME_NS_LIMIT / 1000000000 - 1)

/* A header line: "comm pid/tid [cpu] time: period event: args". */
struct header {
	const char *comm;
	size_t comm_len;
	long long pid, tid;  /* pid -1 when the header gives only one number */
	const char *event;   /* NULL when no event could be read */
	size_t event_len;
	double period;       /* 0 when the header has none */
	bool has_time;
	int64_t time_ns;
	const char *args;    /* tracepoint arguments after the event, or NULL */
	size_t args_len;
};

/* The offset just after the PID/TID field, or 0 when s is not a header. */
size_t perf_match_header(const char *s, size_t n, struct header *h);
/* Time, period, event and arguments after the PID/TID field. */
void perf_match_event(const char *s, size_t n, size_t from, struct header *h);

/* A frame line "  addr sym+off (module)", in pieces. */
struct fline {
	const char *pc;
	size_t pc_len;
	const char *func;
	size_t func_len;
	const char *mod;
	size_t mod_len;
};
bool perf_match_frame(const char *s, size_t n, struct fline *f);

#endif
