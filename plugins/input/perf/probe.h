/*
 * The perf plugin's detection and shard boundary (probe.c), for its
 * descriptor (perf.c).  The parser itself is the perfscript library
 * (plugins/lib/perfscript/perfscript.h).
 */
#ifndef FK_PERF_PROBE_H
#define FK_PERF_PROBE_H

#include <stddef.h>
#include <sys/types.h>

/* The probe and the shard boundary of perf script text. */
int fk_perf_probe(const unsigned char *buf, size_t len);
ssize_t fk_perf_sync(const unsigned char *buf, size_t len, int eof);

#endif
