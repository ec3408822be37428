/*
 * The report's timeline: per thread, its samples in time order, their times
 * quantised, runs of one stack merged, for libfkreport to encode
 * (plugins/lib/report/report.h describes the format).
 */
#ifndef FK_HTML_TIMELINE_H
#define FK_HTML_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include <flamekit/plugin.h>

#include "report.h"

/* The timeline of the samples of p (libfkreport encodes it), whose
 * leaves have ids index[leaf] (their rank among the report's nodes where
 * stacks end, in preorder), times cut to quantum_ns.  tl->t.threads stays
 * NULL when there is nothing to write (no sample carries a time or a
 * thread, or weights are not integers).  Threads' names point into the
 * profile.  Returns 0 or FK_ERR_NOMEM (logged here); free with
 * fk_html_timeline_free, whatever it returns. */
struct fk_html_timeline {
	struct report_timeline t;
	struct report_thread *threads;
	struct report_run *runs;
};

int fk_html_timeline(const struct fk_host *h, const struct fk_profile *p, const uint32_t *index, int series,
                     int64_t quantum_ns, struct fk_html_timeline *tl);
void fk_html_timeline_free(const struct fk_host *h, struct fk_html_timeline *tl);

#endif
