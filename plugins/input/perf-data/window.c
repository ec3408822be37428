/* The data section through a read buffer (window.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "window.h"

/* 256 KiB: the pass over a capture's records was fastest here with a
 * buffer that stays in the cache (3.4 ms for 32 MB, 3.9 ms at 1 MiB). */
#define WINDOW_MIN ((size_t)256 << 10)

void pd_window_init(struct pd_window *w, int fd, uint64_t base, uint64_t size)
{
	memset(w, 0, sizeof *w);
	w->fd = fd;
	w->base = base;
	w->size = size;
}

void pd_window_init_source(struct pd_window *w, pd_window_source *src, void *ctx)
{
	pd_window_init(w, -1, 0, UINT64_MAX);
	w->src = src;
	w->src_ctx = ctx;
}

void pd_window_restart(struct pd_window *w)
{
	w->lo = w->keep = 0;
	w->n = 0;
	w->src_rc = 0;
	w->eof = 0;
}

void pd_window_free(struct pd_window *w)
{
	free(w->b);
	w->b = NULL;
	w->n = w->cap = 0;
}

/* Drop the bytes below first (the lowest still needed), moving the rest
 * to the start of the buffer. */
static void drop_below(struct pd_window *w, uint64_t first)
{
	uint64_t d;

	if (first <= w->lo)
		return;
	d = first - w->lo;
	if (d >= w->n) {
		w->n = 0;
	} else {
		memmove(w->b, w->b + d, w->n - (size_t)d);
		w->n -= (size_t)d;
	}
	w->lo = first;
}

/* Read and let go of the source's next k bytes (the buffer's are done
 * with): its end there is a record cut short.  0, or -1 with *e set. */
static int skip(struct pd_window *w, uint64_t k, struct pd_err *e)
{
	unsigned char tmp[4096];

	w->lo += w->n;
	w->n = 0;
	while (k > 0) {
		size_t made;
		int rc;
		if ((rc = w->src(w->src_ctx, tmp, k < sizeof tmp ? (size_t)k : sizeof tmp, &made, e)) < 0) {
			w->src_rc = rc;
			return -1;
		}
		if (made == 0) {
			w->eof = 1;
			w->size = w->lo;
			return pd_fail(e, w->size, "a record runs past the end of the records");
		}
		w->lo += made;
		k -= made;
	}
	return 0;
}

const unsigned char *pd_window_at(struct pd_window *w, uint64_t pos, size_t len, struct pd_err *e)
{
	uint64_t need, end;

	if (pos >= w->lo && pos + len <= w->lo + w->n)
		return w->b + (pos - w->lo);
	if (pos < w->lo) { /* a walk from an earlier record again */
		if (w->src) { /* a source goes one way: pd_window_restart after its own rewind */
			pd_fail(e, pos, "the records made are read again without starting again");
			return NULL;
		}
		w->lo = pos;
		w->n = 0;
	}
	if (w->src && w->keep >= w->lo + w->n && pos > w->lo + w->n) {
		/* a source's bytes come in order: those skipped (an AUXTRACE
		 * record's payload) are read and let go */
		if (skip(w, (w->keep < pos ? w->keep : pos) - (w->lo + w->n), e) < 0)
			return NULL;
	}
	drop_below(w, w->keep < pos ? w->keep : pos);
	need = pos + len - w->lo;
	/* grow where what is kept fills the buffer: a quarter free at least,
	 * so that what is moved down stays in proportion to what is read */
	if (need > w->cap || w->cap - w->n < w->cap / 4) {
		size_t cap = w->cap ? w->cap : WINDOW_MIN;
		unsigned char *nb;
		while (cap < need || cap - w->n < cap / 4)
			cap *= 2;
		if (!(nb = realloc(w->b, cap))) {
			pd_fail(e, 0, "out of memory");
			return NULL;
		}
		w->b = nb;
		w->cap = cap;
	}
	end = w->size - w->lo; /* what the buffer may hold of the section */
	while (w->n < need) {
		size_t want = w->cap - w->n;
		ssize_t got;
		if (want > end - w->n)
			want = (size_t)(end - w->n);
		if (w->src) {
			size_t made;
			int rc;
			if (!w->eof && (rc = w->src(w->src_ctx, w->b + w->n, want, &made, e)) < 0) {
				w->src_rc = rc;
				return NULL;
			}
			if (w->eof || made == 0) { /* the end: the size is known now */
				w->eof = 1;
				w->size = w->lo + w->n;
				pd_fail(e, w->size, "a record runs past the end of the records");
				return NULL;
			}
			w->n += made;
			continue;
		}
		got = pread(w->fd, w->b + w->n, want, (off_t)(w->base + w->lo + w->n));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			pd_fail(e, w->base + w->lo + w->n, "cannot read it: %s",
			        got < 0 ? strerror(errno) : "the file ends there (was it cut while read?)");
			return NULL;
		}
		w->n += (size_t)got;
	}
	return w->b + (pos - w->lo);
}

int pd_window_next(struct pd_window *w, const struct pd_file *f, uint64_t *pos, uint32_t *type,
                   uint16_t *misc, const unsigned char **rec, uint32_t *size, struct pd_err *e)
{
	uint64_t at = *pos, left;
	const unsigned char *r;
	int rc;

	if (at >= f->data_size || (w->eof && at == w->size))
		return 0;
	left = f->data_size - at;
	if (!(r = pd_window_at(w, at, left < 16 ? (size_t)left : 16, e))) {
		if (!w->eof)
			return -1;
		if (at == w->size)
			return 0; /* a source's end, between records */
		/* a last record shorter than 16 bytes: the source's end is near */
		if (w->size - at < 8)
			return pd_fail(e, at, "a record header is cut short by the end of the records");
		if (!(r = pd_window_at(w, at, (size_t)(w->size - at), e)))
			return -1;
	}
	if ((rc = pd_next_at(f, r, pos, type, misc, rec, size, e)) <= 0)
		return rc;
	if (!(*rec = pd_window_at(w, at, *size, e)))
		return -1;
	return 1;
}
