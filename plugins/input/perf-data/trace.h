/*
 * Tracepoint payloads as perf script prints them: the HEADER_TRACING_DATA
 * that perf record stores (the format files of the ftrace header page and
 * of every event recorded, perf's tools/perf/util/trace-event-read.c lays
 * it out) fed to a libtraceevent handle (libtraceevent-dev:
 * tep_parse_header_page, tep_parse_event), and each sample's raw data
 * printed by tep_print_event with "%s" of TEP_PRINT_INFO, what perf 6.1's
 * event_format__fprintf prints.  As perf script, no libtraceevent plugin
 * is loaded (perf's own build of the library finds none here), and "%pS"
 * names kernel functions through the caller's resolver (perf script's is
 * machine__resolve_kernel_addr).
 *
 * Ownership: the pd_trace owns its handle; the bytes it is given are
 * copied where libtraceevent keeps them.  Nothing here logs.
 */
#ifndef FK_PERF_DATA_TRACE_H
#define FK_PERF_DATA_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "obuf.h"
#include "pdfile.h"

struct pd_trace;

/* A kernel function for "%pS": its name (valid until the next call) and
 * *addr moved to its start, or NULL. */
typedef const char *pd_trace_resolve_fn(void *ctx, uint64_t *addr);

/* The tracing data buf[0..len) (at file offset off, for errors).  NULL
 * with *e set when it is not perf's tracing data or is cut short, or out
 * of memory (e->msg "out of memory"). */
struct pd_trace *pd_trace_new(const unsigned char *buf, uint64_t len, uint64_t off,
                              pd_trace_resolve_fn *resolve, void *ctx, struct pd_err *e);
void pd_trace_free(struct pd_trace *t);

/* Whether the tracing data describes the tracepoint of this config (its
 * id), as perf needs each tracepoint event's format. */
int pd_trace_has(const struct pd_trace *t, uint64_t config);

/* The payload raw[0..size) of a sample on cpu, printed into o.  0, or -1
 * when out of memory. */
int pd_trace_print(struct pd_trace *t, struct obuf *o, uint32_t cpu, const unsigned char *raw,
                   uint32_t size);

#endif
