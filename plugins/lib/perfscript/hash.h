/*
 * The perf parser's 128-bit hash, in pieces, so that a record's body can
 * be hashed while it is scanned (body.c) and give what perf_hash() gives
 * for the same bytes.  Four lanes of wyhash-style multiply-folds take 64
 * bytes a round (the lanes are independent, so the multiplies overlap);
 * the last 0 .. 63 bytes go 16 a lane and the last 1 .. 15 by two
 * overlapping reads, so a short key (a comm, a body of a few frames) costs
 * a few multiplies; the length is mixed in at the end, so a stream need
 * not know it beforehand.  Not for other files than the perf parser's.
 */
#ifndef FK_PERF_HASH_H
#define FK_PERF_HASH_H

#include <stdint.h>
#include <string.h>

struct h128 {
	uint64_t a, b;
};

struct hstate {
	uint64_t a, b, c, d;
};

#define PH_K0 0xa0761d6478bd642full
#define PH_K1 0xe7037ed1a0b428dbull
#define PH_K2 0x8ebc6af09c88c6e3ull
#define PH_K3 0x589965cc75374cc3ull

static inline uint64_t ph_mum(uint64_t a, uint64_t b)
{
	__uint128_t r = (__uint128_t)a * b;
	return (uint64_t)r ^ (uint64_t)(r >> 64);
}

static inline uint64_t ph_rd64(const char *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

static inline struct hstate ph_init(struct h128 seed)
{
	return (struct hstate){ seed.a, seed.b, seed.a ^ PH_K2, seed.b ^ PH_K3 };
}

/* 64 bytes at p. */
static inline void ph_block(struct hstate *s, const char *p)
{
	s->a = ph_mum(ph_rd64(p) ^ PH_K0 ^ s->a, ph_rd64(p + 8) ^ PH_K1);
	s->b = ph_mum(ph_rd64(p + 16) ^ PH_K2 ^ s->b, ph_rd64(p + 24) ^ PH_K3);
	s->c = ph_mum(ph_rd64(p + 32) ^ PH_K1 ^ s->c, ph_rd64(p + 40) ^ PH_K0);
	s->d = ph_mum(ph_rd64(p + 48) ^ PH_K3 ^ s->d, ph_rd64(p + 56) ^ PH_K2);
}

/* The last n (0 .. 63) bytes at p of a key of `total` bytes, and the
 * result. */
static inline struct h128 ph_final(struct hstate s, const char *p, size_t n, uint64_t total)
{
	uint64_t x, y;

	if (n >= 16) {
		s.a = ph_mum(ph_rd64(p) ^ PH_K1 ^ s.a, ph_rd64(p + 8) ^ PH_K2);
		p += 16;
		n -= 16;
		if (n >= 16) {
			s.b = ph_mum(ph_rd64(p) ^ PH_K3 ^ s.b, ph_rd64(p + 8) ^ PH_K0);
			p += 16;
			n -= 16;
			if (n >= 16) {
				s.c = ph_mum(ph_rd64(p) ^ PH_K0 ^ s.c, ph_rd64(p + 8) ^ PH_K3);
				p += 16;
				n -= 16;
			}
		}
	}
	if (n >= 8) {
		x = ph_rd64(p);
		y = ph_rd64(p + n - 8);
	} else if (n >= 4) {
		uint32_t u, v;
		memcpy(&u, p, 4);
		memcpy(&v, p + n - 4, 4);
		x = u;
		y = v;
	} else {
		x = n ? (uint64_t)(unsigned char)p[0] << 16 | (uint64_t)(unsigned char)p[n >> 1] << 8 |
		        (unsigned char)p[n - 1] : 0;
		y = 0;
	}
	s.d = ph_mum(x ^ PH_K2 ^ s.d, y ^ PH_K1 ^ n);
	s.a = ph_mum(s.a ^ PH_K2 ^ (total * PH_K0), s.c ^ PH_K1);
	s.b = ph_mum(s.b ^ PH_K3 ^ total, s.d ^ PH_K0);
	return (struct h128){ ph_mum(s.a ^ PH_K1, s.b ^ PH_K2), ph_mum(s.b ^ PH_K0, s.a ^ PH_K3) };
}

#endif
