/*
 * Hashing and the record caches.  A cache maps a 128-bit hash of a key
 * (and the key's length) to the stack node it gave before, so a repeated
 * record costs one hash and one push_node.  Only the hash is kept, not the
 * key: a false match needs a 2^-128-ish coincidence, and the caches stay
 * small (24 bytes a slot).  Nodes are per sink, so each worker has its own.
 */
#include "internal.h"

#define CACHE_ENTRIES_MAX ((size_t)1 << 20) /* per cache: 48 MiB of slots at most */

static inline uint64_t mum(uint64_t a, uint64_t b)
{
	__uint128_t r = (__uint128_t)a * b;
	return (uint64_t)r ^ (uint64_t)(r >> 64);
}

static inline uint64_t rd64(const char *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

/* The last 1 .. 15 bytes as two words: overlapping reads from both ends
 * (with the length mixed in by the caller, they cover every byte). */
static inline void rd_small(const char *p, size_t n, uint64_t *x, uint64_t *y)
{
	if (n >= 8) {
		*x = rd64(p);
		*y = rd64(p + n - 8);
	} else if (n >= 4) {
		uint32_t u, v;
		memcpy(&u, p, 4);
		memcpy(&v, p + n - 4, 4);
		*x = u;
		*y = v;
	} else {
		*x = n ? (uint64_t)(unsigned char)p[0] << 16 | (uint64_t)(unsigned char)p[n >> 1] << 8 |
		         (unsigned char)p[n - 1] : 0;
		*y = 0;
	}
}

/* Four lanes of wyhash-style multiply-folds, 64 bytes a round: the lanes
 * are independent, so the multiplies overlap.  What is left (0 .. 63
 * bytes) goes 16 bytes a lane, the last 1 .. 15 read from both ends, so a
 * short key (a comm, a body of a few frames) costs a few multiplies, not
 * a 64-byte round.  The end folds the lanes into both halves. */
struct h128 perf_hash(struct h128 seed, const char *p, size_t n)
{
	const uint64_t k0 = 0xa0761d6478bd642full, k1 = 0xe7037ed1a0b428dbull,
	               k2 = 0x8ebc6af09c88c6e3ull, k3 = 0x589965cc75374cc3ull;
	uint64_t a = seed.a ^ (n * k0), b = seed.b + n, c = seed.a ^ k2, d = seed.b ^ k3;
	uint64_t x, y;

	while (n >= 64) {
		a = mum(rd64(p) ^ k0 ^ a, rd64(p + 8) ^ k1);
		b = mum(rd64(p + 16) ^ k2 ^ b, rd64(p + 24) ^ k3);
		c = mum(rd64(p + 32) ^ k1 ^ c, rd64(p + 40) ^ k0);
		d = mum(rd64(p + 48) ^ k3 ^ d, rd64(p + 56) ^ k2);
		p += 64;
		n -= 64;
	}
	if (n >= 16) {
		a = mum(rd64(p) ^ k1 ^ a, rd64(p + 8) ^ k2);
		p += 16;
		n -= 16;
		if (n >= 16) {
			b = mum(rd64(p) ^ k3 ^ b, rd64(p + 8) ^ k0);
			p += 16;
			n -= 16;
			if (n >= 16) {
				c = mum(rd64(p) ^ k0 ^ c, rd64(p + 8) ^ k3);
				p += 16;
				n -= 16;
			}
		}
	}
	rd_small(p, n, &x, &y);
	d = mum(x ^ k2 ^ d, y ^ k1 ^ n);
	a = mum(a ^ k2, c ^ k1);
	b = mum(b ^ k3, d ^ k0);
	return (struct h128){ mum(a ^ k1, b ^ k2), mum(b ^ k0, a ^ k3) };
}

int perf_cache_init(const struct fk_host *h, struct cache *c)
{
	c->mask = 4095;
	c->n = 0;
	c->v = h->alloc((c->mask + 1) * sizeof *c->v);
	if (!c->v)
		return FK_ERR_NOMEM;
	memset(c->v, 0, (c->mask + 1) * sizeof *c->v);
	return 0;
}

void perf_cache_free(const struct fk_host *h, struct cache *c)
{
	h->free(c->v);
	memset(c, 0, sizeof *c);
}

static inline bool slot_empty(const struct cache_entry *e) { return e->a == 0 && e->b == 0; }

static inline struct h128 nonzero(struct h128 hv)
{
	if (hv.a == 0 && hv.b == 0)
		hv.b = 1;
	return hv;
}

fk_node_t perf_cache_get(struct cache *c, struct h128 hv, size_t len, struct cache_entry **slot)
{
	size_t j;

	hv = nonzero(hv);
	j = hv.a & c->mask;
	for (;;) {
		struct cache_entry *e = &c->v[j];
		if (slot_empty(e)) {
			*slot = e;
			return FK_NODE_NONE;
		}
		if (e->a == hv.a && e->b == hv.b && e->len == (uint32_t)len) {
			*slot = e;
			return e->node;
		}
		j = (j + 1) & c->mask;
	}
}

/* Remember (hv, len) -> node in the slot perf_cache_get gave.  A full cache
 * stops remembering; parsing goes on uncached. */
int perf_cache_put(const struct fk_host *h, struct cache *c, struct cache_entry *e,
                   struct h128 hv, size_t len, fk_node_t node)
{
	if (c->n >= CACHE_ENTRIES_MAX || node == FK_NODE_NONE || !slot_empty(e))
		return 0;
	hv = nonzero(hv);
	e->a = hv.a;
	e->b = hv.b;
	e->len = (uint32_t)len;
	e->node = node;
	if (++c->n * 2 > c->mask) {
		size_t nmask = c->mask * 2 + 1;
		struct cache_entry *nv = h->alloc((nmask + 1) * sizeof *nv);
		if (!nv)
			return FK_ERR_NOMEM;
		memset(nv, 0, (nmask + 1) * sizeof *nv);
		for (size_t i = 0; i <= c->mask; i++) {
			if (slot_empty(&c->v[i]))
				continue;
			size_t k = c->v[i].a & nmask;
			while (!slot_empty(&nv[k]))
				k = (k + 1) & nmask;
			nv[k] = c->v[i];
		}
		h->free(c->v);
		c->v = nv;
		c->mask = nmask;
	}
	return 0;
}
