/* COMPRESSED records undone: see zdata.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "zdata.h"

/* Room for need more bytes in z.  0, or -1 when out of memory. */
static int room(struct pd_zdata *z, size_t need)
{
	size_t cap = z->cap ? z->cap : (size_t)1 << 20;
	unsigned char *nb;

	if (z->cap - z->len >= need)
		return 0;
	while (cap - z->len < need)
		cap *= 2;
	if (!(nb = realloc(z->buf, cap)))
		return -1;
	z->buf = nb;
	z->cap = cap;
	return 0;
}

/* Move *whole past the whole records of z->buf[*whole .. len): what is
 * left there is the start of a record a later COMPRESSED record ends.
 * off: the COMPRESSED record's byte, for the error. */
static int whole_records(struct pd_zdata *z, size_t *whole, uint64_t off, struct pd_err *e)
{
	while (z->len - *whole >= 8) {
		const unsigned char *r = z->buf + *whole;
		uint64_t span;
		uint16_t sz;
		memcpy(&sz, r + 6, 2);
		if (sz < 8)
			return pd_fail(e, off, "its decompressed data holds a record of type %u and %u "
			             "bytes", pd_u32(r), sz);
		span = sz;
		if (pd_u32(r) == PD_REC_AUXTRACE && sz >= 16) /* perf skips the payload too */
			span += pd_u64(r + 8);
		if (span > z->len - *whole)
			break;
		*whole += (size_t)span;
	}
	return 0;
}

/* Decompress the COMPRESSED record rec[0..size) at the end of z. */
static int inflate_rec(ZSTD_DStream *ds, struct pd_zdata *z, const unsigned char *rec,
                       uint32_t size, uint64_t off, uint64_t limit, struct pd_err *e)
{
	ZSTD_inBuffer in = { rec + 8, size - 8u, 0 };
	size_t chunk = ZSTD_DStreamOutSize();
	int full = 0;

	z->ncomp++;
	while (in.pos < in.size || full) {
		ZSTD_outBuffer out;
		size_t r;
		if (room(z, chunk) < 0)
			return pd_fail(e, off, "out of memory");
		out = (ZSTD_outBuffer){ z->buf + z->len, z->cap - z->len, 0 };
		r = ZSTD_decompressStream(ds, &out, &in);
		if (ZSTD_isError(r))
			return pd_fail(e, off, "its COMPRESSED record does not decompress (zstd: %s)",
			             ZSTD_getErrorName(r));
		z->len += out.pos;
		z->made += out.pos;
		if (z->made > limit)
			return -2;
		full = out.pos == out.size; /* zstd may hold more than there was room for */
		if (out.pos == 0 && in.pos == in.size)
			break;
	}
	return 0;
}

/* An uncompressed record rec[0..span) into z, before the tail at *whole. */
static int put_plain(struct pd_zdata *z, size_t *whole, const unsigned char *rec, uint64_t span)
{
	size_t tail = z->len - *whole;

	if (room(z, (size_t)span) < 0)
		return -1;
	memmove(z->buf + *whole + span, z->buf + *whole, tail);
	memcpy(z->buf + *whole, rec, (size_t)span);
	*whole += (size_t)span;
	z->len += (size_t)span;
	return 0;
}

/* The next record of the file's data section: through the raw window
 * (a file on disk) or in memory (a pipe's bytes).  1, 0 at the end, -1. */
static int next_raw(struct pd_zstream *z, uint64_t *pos, uint32_t *type, const unsigned char **rec,
                    uint32_t *size, struct pd_err *e)
{
	uint16_t misc;

	if (z->raw.fd >= 0) {
		pd_window_keep(&z->raw, *pos); /* each raw record is done with once read */
		return pd_window_next(&z->raw, &z->f, pos, type, &misc, rec, size, e);
	}
	return pd_next(&z->f, pos, type, &misc, rec, size, e);
}

int pd_zstream_init(struct pd_zstream *z, const struct pd_file *f, int fd, uint64_t limit)
{
	memset(z, 0, sizeof *z);
	z->f = *f;
	z->limit = limit;
	pd_window_init(&z->raw, fd, f->data_off, f->data_size);
	if (!(z->ds = ZSTD_createDStream()) || ZSTD_isError(ZSTD_initDStream(z->ds))) {
		ZSTD_freeDStream(z->ds);
		z->ds = NULL;
		return -1;
	}
	return 0;
}

int pd_zstream_rewind(struct pd_zstream *z)
{
	z->pos = 0;
	z->s.len = 0;
	z->s.made = z->s.cut = z->s.ncomp = z->s.straddled = 0;
	z->head = z->whole = 0;
	z->eof = 0;
	pd_window_keep(&z->raw, 0);
	return ZSTD_isError(ZSTD_initDStream(z->ds)) ? -1 : 0;
}

void pd_zstream_free(struct pd_zstream *z)
{
	ZSTD_freeDStream(z->ds);
	z->ds = NULL;
	pd_zdata_free(&z->s);
	pd_window_free(&z->raw);
}

int pd_zstream_read(struct pd_zstream *z, unsigned char *dst, size_t cap, size_t *got,
                    struct pd_err *e)
{
	struct pd_zdata *s = &z->s;
	size_t n;

	*got = 0;
	while (z->whole - z->head < cap && !z->eof) {
		uint64_t at = z->pos, off = z->f.data_off + at;
		const unsigned char *rec;
		uint32_t type, size;
		int r, rc;
		if (z->head > 0) { /* what was read leaves the buffer */
			memmove(s->buf, s->buf + z->head, s->len - z->head);
			s->len -= z->head;
			z->whole -= z->head;
			z->head = 0;
		}
		if ((r = next_raw(z, &z->pos, &type, &rec, &size, e)) < 0)
			return -1;
		if (r == 0) { /* perf leaves a record the stream ends inside undelivered */
			s->cut = s->len - z->whole;
			s->len = z->whole;
			z->eof = 1;
			break;
		}
		if (type != PD_REC_COMPRESSED) {
			if (put_plain(s, &z->whole, rec, z->pos - at) < 0)
				return pd_fail(e, off, "out of memory");
			continue;
		}
		s->straddled += z->whole < s->len; /* a tail an earlier one left */
		if ((rc = inflate_rec(z->ds, s, rec, size, off, z->limit, e)) < 0)
			return rc;
		if (whole_records(s, &z->whole, off, e) < 0)
			return -1;
	}
	n = z->whole - z->head < cap ? z->whole - z->head : cap;
	if (n) /* none made yet: no buffer either */
		memcpy(dst, s->buf + z->head, n);
	z->head += n;
	*got = n;
	return 0;
}

int pd_zdata_make(const struct pd_file *f, uint64_t limit, struct pd_zdata *z, struct pd_err *e)
{
	struct pd_zstream zs;
	size_t got;
	int rc = 0;

	memset(z, 0, sizeof *z);
	if (pd_zstream_init(&zs, f, -1, limit) < 0)
		return pd_fail(e, 0, "out of memory");
	do {
		if (room(z, (size_t)1 << 20) < 0) {
			rc = pd_fail(e, 0, "out of memory");
			break;
		}
		rc = pd_zstream_read(&zs, z->buf + z->len, z->cap - z->len, &got, e);
		z->len += got;
	} while (rc == 0 && got > 0);
	z->made = zs.s.made;
	z->cut = zs.s.cut;
	z->ncomp = zs.s.ncomp;
	z->straddled = zs.s.straddled;
	pd_zstream_free(&zs);
	if (rc < 0)
		pd_zdata_free(z);
	return rc;
}

void pd_zdata_free(struct pd_zdata *z)
{
	free(z->buf);
	z->buf = NULL;
	z->len = z->cap = 0;
}
