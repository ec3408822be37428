/*
 * The report's timeline: per thread, its samples in time order, their times
 * quantised, runs of one stack merged, the whole deflated and base64 coded
 * (plugins/lib/report/report.h describes the format).
 */
#ifndef FK_HTML_TIMELINE_H
#define FK_HTML_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include <flamekit/plugin.h>

/* The JSON members of the timeline (",\"threads\":...,\"timeline\":\"...\"")
 * for the samples of p, whose leaves have ids index[leaf] (their rank among
 * the report's nodes where stacks end, in preorder), times cut to quantum_ns.  On success *text is NULL
 * when there is nothing to write (no sample carries a time or a thread, or
 * weights are not integers), else a buffer from h->alloc of *len bytes that
 * the caller frees.  Returns 0 or FK_ERR_NOMEM (logged here). */
int fk_html_timeline(const struct fk_host *h, const struct fk_profile *p, const uint32_t *index, int series,
                     int64_t quantum_ns, char **text, size_t *len);

/* n bytes of in, raw deflated (RFC 1951) and base64 coded into *out (from
 * h->alloc, *outlen bytes, not NUL-terminated; the caller frees it), for the
 * page's DecompressionStream("deflate-raw").  Returns 0 or FK_ERR_NOMEM. */
int fk_html_deflate64(const struct fk_host *h, const char *in, size_t n, char **out, size_t *outlen);

#endif
