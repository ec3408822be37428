/*
 * The data section of a perf.data file on disk, read through a buffer
 * (pread) instead of through the file's mapping: the native reader's walk
 * over a file's records.  On a virtual machine the first touch of each
 * mapped page costs a trap to the hypervisor, and the walk touches every
 * page twice (the prescan, then the walk): the records of a 32 MB capture
 * took 25-29 ms a pass through the mapping here, 3-6 ms through a 256 KiB
 * buffer that stays in place.  Peak RSS no longer holds the file either.
 *
 * The buffer holds the bytes from the lowest offset the caller still
 * needs (pd_window_keep: the first record still queued) to the last one
 * asked for; asking for more drops what lies below that, moves the rest
 * down and reads after it, and grows the buffer where the kept bytes fill
 * it.  A pointer pd_window_at gives stays valid until the next call that
 * may read (pd_window_at, pd_window_next).
 *
 * The bytes come from a file (pread) or from a source that makes them in
 * order (the records of perf record -z's COMPRESSED ones, zdata.h), whose
 * end is known once it is met.
 *
 * Ownership: the caller's descriptor, source and struct pd_file; the
 * buffer is the window's, freed by pd_window_free.
 */
#ifndef FK_PERF_DATA_WINDOW_H
#define FK_PERF_DATA_WINDOW_H

#include <stddef.h>
#include <stdint.h>

#include "pdfile.h"

/* A source's next bytes, up to cap into dst, *got of them (0 at the end).
 * 0, or a negative status with *e set. */
typedef int pd_window_source(void *ctx, unsigned char *dst, size_t cap, size_t *got,
                             struct pd_err *e);

struct pd_window {
	int fd;
	pd_window_source *src;  /* or, with fd -1, this source */
	void *src_ctx;
	int src_rc;             /* the source's last failure (its offsets are its own), 0 */
	int eof;                /* the source's end was met: size is known */
	uint64_t base, size;    /* the data section: its offset in the file, its size */
	unsigned char *b;       /* its bytes [lo, lo + n) */
	uint64_t lo, keep;      /* keep: nothing below it is asked for again */
	size_t n, cap;
};

/* A window on fd's data section [base, base + size); nothing read yet. */
void pd_window_init(struct pd_window *w, int fd, uint64_t base, uint64_t size);
/* A window on what src makes, of a size known at its end; nothing read. */
void pd_window_init_source(struct pd_window *w, pd_window_source *src, void *ctx);
/* Whether bytes come through the window (a file or a source). */
static inline int pd_window_on(const struct pd_window *w)
{
	return w->fd >= 0 || w->src;
}
/* From the first byte again, of a source rewound by its caller. */
void pd_window_restart(struct pd_window *w);
void pd_window_free(struct pd_window *w);
/* Bytes [pos, pos + len) of the data section (pos + len <= its size), or
 * NULL with *e set: "out of memory" (e->off 0), or the read's failure at
 * its offset in the file. */
const unsigned char *pd_window_at(struct pd_window *w, uint64_t pos, size_t len, struct pd_err *e);
/* Nothing below data offset pos will be asked for again (a walk over the
 * records from the start again sets 0 first). */
static inline void pd_window_keep(struct pd_window *w, uint64_t pos)
{
	w->keep = pos;
}
/* pd_next (pdfile.h) through the window: the same records, checks and
 * sentences; *rec valid until the next call that may read.  A source's
 * end is the end of the records (0), where a record starts. */
int pd_window_next(struct pd_window *w, const struct pd_file *f, uint64_t *pos, uint32_t *type,
                   uint16_t *misc, const unsigned char **rec, uint32_t *size, struct pd_err *e);

#endif
