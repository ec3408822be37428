/*
 * Hashing and the record caches.  A cache maps a 128-bit hash of a key
 * (and the key's length) to the stack node it gave before, so a repeated
 * record costs one hash and one push_node.  Only 96 bits of the hash and
 * length are kept, not the key: a false match needs a 2^-96-ish
 * coincidence, and the caches stay small (16 bytes a slot: the 30,000
 * stacks of the perf benchmark fit 1 MiB, so a lookup stays in L2).  Nodes
 * are per sink, so each worker has its own.
 * The hash itself is in hash.h.
 */
#include "internal.h"

#define CACHE_ENTRIES_MAX ((size_t)1 << 20) /* per cache: 32 MiB of slots at most */

struct h128 perf_hash(struct h128 seed, const char *p, size_t n)
{
	struct hstate s = ph_init(seed);
	uint64_t total = n;

	for (; n >= 64; p += 64, n -= 64)
		ph_block(&s, p);
	return ph_final(s, p, n, total);
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

/* The 96 bits kept of (hv, len): never 0, 0 (the empty slot). */
struct key96 {
	uint64_t a;
	uint32_t b;
};

static inline struct key96 key96(struct h128 hv, size_t len)
{
	struct key96 k = { hv.a, (uint32_t)(hv.b ^ (hv.b >> 32) ^ ((uint64_t)len * 0x9e3779b97f4a7c15ull >> 32)) };
	if (k.a == 0 && k.b == 0)
		k.b = 1;
	return k;
}

fk_node_t perf_cache_get(struct cache *c, struct h128 hv, size_t len, struct cache_entry **slot)
{
	struct key96 k = key96(hv, len);
	size_t j = k.a & c->mask;

	for (;;) {
		struct cache_entry *e = &c->v[j];
		if (slot_empty(e)) {
			*slot = e;
			return FK_NODE_NONE;
		}
		if (e->a == k.a && e->b == k.b) {
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
	struct key96 k = key96(hv, len);
	e->a = k.a;
	e->b = k.b;
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
