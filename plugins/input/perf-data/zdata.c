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

int pd_zdata_make(const struct pd_file *f, uint64_t limit, struct pd_zdata *z, struct pd_err *e)
{
	ZSTD_DStream *ds = ZSTD_createDStream();
	uint64_t pos = 0, at;
	const unsigned char *rec;
	uint32_t type, size;
	uint16_t misc;
	size_t whole = 0;
	int r = 0, rc = 0;

	memset(z, 0, sizeof *z);
	if (!ds || ZSTD_isError(ZSTD_initDStream(ds))) {
		ZSTD_freeDStream(ds);
		return pd_fail(e, 0, "out of memory");
	}
	for (at = pos; rc == 0 && (r = pd_next(f, &pos, &type, &misc, &rec, &size, e)) > 0;
	     at = pos) {
		uint64_t off = f->data_off + at;
		if (type != PD_REC_COMPRESSED) {
			rc = put_plain(z, &whole, rec, pos - at) < 0 ? pd_fail(e, off, "out of memory") : 0;
			continue;
		}
		z->straddled += whole < z->len; /* a tail an earlier one left */
		if ((rc = inflate_rec(ds, z, rec, size, off, limit, e)) == 0)
			rc = whole_records(z, &whole, off, e);
	}
	if (rc == 0 && r < 0)
		rc = -1;
	if (rc == 0) { /* perf leaves a record the stream ends inside undelivered */
		z->cut = z->len - whole;
		z->len = whole;
	}
	ZSTD_freeDStream(ds);
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
