/* Growable byte buffers, the hash function, status strings, small helpers. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "fk.h"
#include "folded/fkfolded.h"
#include "vector/fkvector.h"

int fk_buf_reserve(struct fk_buf *b, size_t extra)
{
	size_t need;

	if (extra > SIZE_MAX - b->len - 1)
		return FK_ERR_NOMEM;
	need = b->len + extra + 1;
	return fk_vector_grow((void **)&b->data, &b->cap, need, 1, fk_realloc) < 0 ? FK_ERR_NOMEM : 0;
}

int fk_buf_append(struct fk_buf *b, const void *p, size_t n)
{
	if (fk_buf_reserve(b, n) < 0)
		return FK_ERR_NOMEM;
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return 0;
}

int fk_buf_printf(struct fk_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return FK_ERR_INTERNAL;
	if (fk_buf_reserve(b, (size_t)n) < 0)
		return FK_ERR_NOMEM;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

void fk_buf_free(struct fk_buf *b)
{
	fk_free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

/* A 64-bit multiply-mix hash over 8-byte words (wyhash-like).  Not
 * cryptographic: frame names are not adversarial keys worth a SipHash, and
 * open addressing with a good mix keeps probes short. */
static inline uint64_t mix(uint64_t a, uint64_t b)
{
	__uint128_t r = (__uint128_t)a * b;
	return (uint64_t)r ^ (uint64_t)(r >> 64);
}

uint64_t fk_hash(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n, w;
	const uint64_t k1 = 0xa0761d6478bd642full, k2 = 0xe7037ed1a0b428dbull;

	while (n >= 16) {
		uint64_t a, b;
		memcpy(&a, s, 8);
		memcpy(&b, s + 8, 8);
		h = mix(a ^ k1, b ^ h);
		s += 16;
		n -= 16;
	}
	if (n >= 8) {
		memcpy(&w, s, 8);
		h = mix(w ^ k1, h ^ k2);
		s += 8;
		n -= 8;
	}
	w = 0;
	if (n)
		memcpy(&w, s, n);
	return mix(h ^ k2, w ^ k1 ^ n);
}

const char *fk_strerror(int status)
{
	switch (status) {
	case FK_OK: return "success";
	case FK_ERR_NOMEM: return "out of memory";
	case FK_ERR_IO: return "input/output error";
	case FK_ERR_DATA: return "bad input data";
	case FK_ERR_USAGE: return "usage error";
	case FK_ERR_PLUGIN: return "plugin error";
	case FK_ERR_SCRIPT: return "filter script error";
	case FK_ERR_LIMIT: return "limit exceeded";
	case FK_ERR_INTERNAL: return "internal error";
	}
	return "unknown error";
}

double fk_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int fk_format_weight(char *buf, size_t cap, double w)
{
	size_t n;

	if (cap == 0)
		return 0;
	n = fk_folded_format(buf, cap - 1, w);
	buf[n] = '\0';
	return (int)n;
}
