/*
 * COMPRESSED records (perf record -z) undone: the data section of a
 * perf.data file with every COMPRESSED record replaced by the records its
 * zstd stream holds, so that the native reader walks one data section of
 * plain records.  perf record compresses what it reads from each ring
 * buffer into one or more COMPRESSED records, cut where a record reaches
 * its size limit, not at record boundaries: a record of the stream can
 * start in one COMPRESSED record and end in a later one, and perf (perf
 * 6.1, tools/perf/util/session.c) keeps the undelivered tail of one
 * record's output and puts it in front of the next one's.  The records
 * perf wrote uncompressed in between (FINISHED_ROUND, perf's own) come
 * where perf delivers them: after the whole records decompressed before
 * them, before the tail that a later COMPRESSED record completes.
 *
 * The decompression is libzstd's streaming API (ZSTD_decompressStream),
 * one stream context across the file as perf keeps one.  The bytes made
 * are bounded by the caller's limit (a decompression bomb stops there).
 *
 * Ownership: pd_zdata_make fills z->buf (malloc'd, the caller frees it
 * with pd_zdata_free); nothing here logs.
 */
#ifndef FK_PERF_DATA_ZDATA_H
#define FK_PERF_DATA_ZDATA_H

#include <stddef.h>
#include <stdint.h>

#include "pdfile.h"

struct pd_zdata {
	unsigned char *buf;     /* the records, compressed ones replaced */
	size_t len, cap;
	uint64_t made;          /* bytes decompressed */
	uint64_t cut;           /* bytes of a record the stream ended inside (perf drops them too) */
	uint64_t ncomp;         /* COMPRESSED records read */
	uint64_t straddled;     /* records that a later COMPRESSED record completed */
};

/* Build z from f's data section, decompressing no more than limit bytes.
 * 0; -1 with *e set (a record that does not fit, a zstd stream that does
 * not decompress: e->off is the COMPRESSED record's byte); -2 when the
 * records decompress to more than limit bytes (nothing in *e). */
int pd_zdata_make(const struct pd_file *f, uint64_t limit, struct pd_zdata *z, struct pd_err *e);
void pd_zdata_free(struct pd_zdata *z);

#endif
