/*
 * A growing output buffer written to a file descriptor in 1 MiB pieces
 * (or, with fd -1, only growing: the caller takes the bytes),
 * with the few formats perf script's lines need (padded strings, padded
 * decimals, padded hex), faster than stdio's.  After a failed write every
 * call is a no-op and ob_ok() is false (errno says why).
 */
#ifndef FK_PERF_DATA_OBUF_H
#define FK_PERF_DATA_OBUF_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define OB_CHUNK ((size_t)1 << 20)

struct obuf {
	int fd, failed;
	char *b;
	size_t n, cap;
};

static inline void ob_init(struct obuf *o, int fd)
{
	o->fd = fd;
	o->failed = 0;
	o->n = 0;
	/* a buffer the caller empties (fd -1) holds a record or so */
	o->cap = fd < 0 ? (size_t)64 << 10 : 2 * OB_CHUNK;
	o->b = malloc(o->cap);
	o->failed = !o->b;
}

static inline int ob_flush(struct obuf *o)
{
	size_t done = 0;

	while (!o->failed && done < o->n) {
		ssize_t w = write(o->fd, o->b + done, o->n - done);
		if (w <= 0)
			o->failed = 1;
		else
			done += (size_t)w;
	}
	o->n = 0;
	return o->failed ? -1 : 0;
}

static inline int ob_ok(const struct obuf *o)
{
	return !o->failed;
}

static inline void ob_free(struct obuf *o)
{
	free(o->b);
	o->b = NULL;
}

/* Room for len more bytes: flushes when past the chunk, grows for a long
 * piece.  NULL after a failure. */
static inline char *ob_room(struct obuf *o, size_t len)
{
	if (o->failed)
		return NULL;
	if (o->n + len > o->cap) {
		if (o->n >= OB_CHUNK && o->fd >= 0 && ob_flush(o) < 0)
			return NULL;
		if (o->n + len > o->cap) {
			char *nb = realloc(o->b, o->n + len + OB_CHUNK);
			if (!nb) {
				o->failed = 1;
				return NULL;
			}
			o->b = nb;
			o->cap = o->n + len + OB_CHUNK;
		}
	}
	return o->b + o->n;
}

static inline void ob_mem(struct obuf *o, const char *s, size_t len)
{
	char *p = ob_room(o, len);
	if (p) {
		memcpy(p, s, len);
		o->n += len;
	}
}

static inline void ob_str(struct obuf *o, const char *s)
{
	ob_mem(o, s, strlen(s));
}

static inline void ob_c(struct obuf *o, char c)
{
	char *p = ob_room(o, 1);
	if (p) {
		*p = c;
		o->n++;
	}
}

/* s right-aligned in width (printf's "%*s"). */
static inline void ob_pad(struct obuf *o, const char *s, unsigned width)
{
	size_t len = strlen(s);
	char *p = ob_room(o, len + width);

	if (!p)
		return;
	for (; len < width; width--, o->n++)
		*p++ = ' ';
	memcpy(p, s, len);
	o->n += len;
}

/* v right-aligned in width ("%*lld"). */
static inline void ob_dec(struct obuf *o, int64_t v, unsigned width)
{
	char d[24];
	int i = 23;
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;

	d[23] = '\0';
	do
		d[--i] = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		d[--i] = '-';
	ob_pad(o, d + i, width);
}

/* v in hex right-aligned in 16 ("%16lx"). */
static inline void ob_hex16(struct obuf *o, uint64_t v)
{
	static const char hx[] = "0123456789abcdef";
	char d[17];
	int i = 16;

	d[16] = '\0';
	do
		d[--i] = hx[v & 15];
	while (v >>= 4);
	while (i > 0)
		d[--i] = ' ';
	ob_mem(o, d, 16);
}

#endif
