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
 * The native reader reads them as a stream (pd_zstream, through its
 * window), so that its memory holds what one COMPRESSED record makes and
 * not every record; pd_zdata_make makes them all at once (the fuzz
 * harness's walk in memory).
 *
 * Ownership: pd_zdata_make fills z->buf (malloc'd, the caller frees it
 * with pd_zdata_free); a stream's buffers are its own (pd_zstream_free);
 * nothing here logs.
 */
#ifndef FK_PERF_DATA_ZDATA_H
#define FK_PERF_DATA_ZDATA_H

#include <stddef.h>
#include <stdint.h>

#include "pdfile.h"
#include "window.h"

struct pd_zdata {
	unsigned char *buf;     /* the records, compressed ones replaced */
	size_t len, cap;
	uint64_t made;          /* bytes decompressed */
	uint64_t cut;           /* bytes of a record the stream ended inside (perf drops them too) */
	uint64_t ncomp;         /* COMPRESSED records read */
	uint64_t straddled;     /* records that a later COMPRESSED record completed */
};

/*
 * The same as a stream, for a walk that reads the records as they are made
 * (window.h): the file's records read through a buffer of their own (fd
 * >= 0) or in f's buffer (fd -1), each COMPRESSED record decompressed when
 * the reader needs more, the records made held until they are whole.
 * Memory: what one COMPRESSED record makes, and a record it leaves cut.
 */
struct pd_zstream {
	struct pd_file f;       /* the file's, copied: the reader's own then says where the
	                         * records made are (the attributes are shared) */
	struct pd_window raw;   /* the file's data section (raw.fd -1: f's buffer) */
	void *ds;               /* the ZSTD_DStream, one across the file */
	uint64_t pos;           /* the file's next record */
	struct pd_zdata s;      /* made and not yet read: [head, whole) whole records, [whole,
	                         * len) the start of one a later record ends; the counters */
	size_t head, whole;
	uint64_t limit;
	int eof;
};
/* 0, or -1 when out of memory. */
int pd_zstream_init(struct pd_zstream *z, const struct pd_file *f, int fd, uint64_t limit);
/* From the first record again (the counters too).  0, or -1. */
int pd_zstream_rewind(struct pd_zstream *z);
/* Up to cap bytes of the records made into dst, *got of them (0 at the
 * end: z->s.cut then says what a cut record left out).  0; -1 with *e set
 * (as pd_zdata_make); -2 past the limit. */
int pd_zstream_read(struct pd_zstream *z, unsigned char *dst, size_t cap, size_t *got,
                    struct pd_err *e);
void pd_zstream_free(struct pd_zstream *z);

/* Build z from f's data section, decompressing no more than limit bytes.
 * 0; -1 with *e set (a record that does not fit, a zstd stream that does
 * not decompress: e->off is the COMPRESSED record's byte); -2 when the
 * records decompress to more than limit bytes (nothing in *e). */
int pd_zdata_make(const struct pd_file *f, uint64_t limit, struct pd_zdata *z, struct pd_err *e);
void pd_zdata_free(struct pd_zdata *z);

#endif
