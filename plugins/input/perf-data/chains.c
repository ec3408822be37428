/* Callchains met before: see chains.h.  Open addressing on a hash of the
 * stamps and the callchain's bytes, each slot a hash and an offset; each
 * entry (its key, a copy of the callchain, its frames) is in one arena. */
#include <stdlib.h>
#include <string.h>

#include "chains.h"
#include "vector/fkvector.h"

struct slot {
	uint64_t hash;
	size_t off;         /* the entry at arena + off; 0: an empty slot */
};

/* An entry in the arena: this, the callchain's copy, then its frames. */
struct entry {
	uint64_t user, kernel, nr, n;
};

struct pd_chains {
	struct slot *tab;
	size_t ntab, used;
	unsigned char *arena;
	size_t alen, acap, elem, max;
};

struct pd_chains *pd_chains_new(size_t elem, size_t max_bytes)
{
	struct pd_chains *c = calloc(1, sizeof *c);

	if (!c || !(c->tab = calloc(c->ntab = 1024, sizeof *c->tab))) {
		free(c);
		return NULL;
	}
	c->elem = elem;
	c->max = max_bytes;
	c->alen = 8; /* offset 0 marks an empty slot; entries are 8-aligned */
	return c;
}

void pd_chains_free(struct pd_chains *c)
{
	if (!c)
		return;
	free(c->tab);
	free(c->arena);
	free(c);
}

static uint64_t hash(uint64_t user, uint64_t kernel, const unsigned char *chain, uint64_t nr)
{
	uint64_t h = (user * 0x9e3779b97f4a7c15ull) ^ (kernel + 0x632be59bd9b4e019ull), w;

	for (uint64_t i = 0; i < nr; i++) {
		memcpy(&w, chain + 8 * i, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	return h ^ nr;
}

static struct slot *find(struct pd_chains *c, uint64_t h, uint64_t user, uint64_t kernel,
                         const unsigned char *chain, uint64_t nr)
{
	size_t i = (size_t)(h >> 7) & (c->ntab - 1);

	for (;; i = (i + 1) & (c->ntab - 1)) {
		struct slot *s = &c->tab[i];
		const struct entry *e;

		if (!s->off)
			return s;
		e = (const struct entry *)(c->arena + s->off);
		if (s->hash == h && e->user == user && e->kernel == kernel && e->nr == nr &&
		    memcmp(e + 1, chain, 8 * nr) == 0)
			return s;
	}
}

const void *pd_chains_get(struct pd_chains *c, uint64_t user, uint64_t kernel,
                          const unsigned char *chain, uint64_t nr, size_t *n)
{
	const struct slot *s = find(c, hash(user, kernel, chain, nr), user, kernel, chain, nr);
	const struct entry *e;

	if (!s->off)
		return NULL;
	e = (const struct entry *)(c->arena + s->off);
	*n = e->n;
	return (const unsigned char *)(e + 1) + 8 * e->nr;
}

static int grow(struct pd_chains *c)
{
	struct slot *old = c->tab;
	size_t n = c->ntab;

	if (!(c->tab = calloc(2 * n, sizeof *c->tab))) {
		c->tab = old;
		return -1;
	}
	c->ntab = 2 * n;
	for (size_t i = 0; i < n; i++) {
		size_t j;
		if (!old[i].off)
			continue;
		for (j = (size_t)(old[i].hash >> 7) & (c->ntab - 1); c->tab[j].off; j = (j + 1) & (c->ntab - 1))
			;
		c->tab[j] = old[i];
	}
	free(old);
	return 0;
}

int pd_chains_put(struct pd_chains *c, uint64_t user, uint64_t kernel, const unsigned char *chain,
                  uint64_t nr, const void *frames, size_t n, size_t stride)
{
	size_t need = (sizeof(struct entry) + 8 * (size_t)nr + n * c->elem + 7) & ~(size_t)7;
	uint64_t h = hash(user, kernel, chain, nr);
	struct slot *s;
	unsigned char *p;

	if (c->alen + need + (c->ntab * 2) * sizeof *c->tab > c->max)
		return 0; /* full */
	if (2 * (c->used + 1) > c->ntab && grow(c) < 0)
		return -1;
	if ((s = find(c, h, user, kernel, chain, nr))->off)
		return 0;
	if (fk_vector_grow((void **)&c->arena, &c->acap, c->alen + need, 1, realloc) < 0)
		return -1;
	p = c->arena + c->alen;
	*(struct entry *)p = (struct entry){ user, kernel, nr, n };
	p += sizeof(struct entry);
	memcpy(p, chain, 8 * (size_t)nr);
	for (size_t i = 0; i < n; i++)
		memcpy(p + 8 * nr + i * c->elem, (const unsigned char *)frames + i * stride, c->elem);
	*s = (struct slot){ h, c->alen };
	c->alen += need;
	c->used++;
	return 0;
}
