/* Callchains met before: see chains.h.  Open addressing on a hash of the
 * stamps and the callchain's bytes; each entry's callchain and frames are
 * copied into one arena. */
#include <stdlib.h>
#include <string.h>

#include "chains.h"

struct slot {
	uint64_t hash, user, kernel;
	uint64_t nr;        /* 0 with off 0: empty (an entry has off > 0) */
	size_t off, n;      /* the callchain's copy at arena + off, its frames after it */
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
		if (!s->off || (s->hash == h && s->user == user && s->kernel == kernel && s->nr == nr &&
		                memcmp(c->arena + s->off, chain, 8 * nr) == 0))
			return s;
	}
}

const void *pd_chains_get(struct pd_chains *c, uint64_t user, uint64_t kernel,
                          const unsigned char *chain, uint64_t nr, size_t *n)
{
	const struct slot *s = find(c, hash(user, kernel, chain, nr), user, kernel, chain, nr);

	if (!s->off)
		return NULL;
	*n = s->n;
	return c->arena + s->off + 8 * s->nr;
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
	size_t need = (8 * (size_t)nr + n * c->elem + 7) & ~(size_t)7;
	uint64_t h = hash(user, kernel, chain, nr);
	struct slot *s;
	unsigned char *p;

	if (c->alen + need + (c->ntab * 2) * sizeof *c->tab > c->max)
		return 0; /* full */
	if (2 * (c->used + 1) > c->ntab && grow(c) < 0)
		return -1;
	if ((s = find(c, h, user, kernel, chain, nr))->off)
		return 0;
	if (c->alen + need > c->acap) {
		size_t cap = c->acap ? 2 * c->acap : 1 << 16;
		unsigned char *na;
		while (cap < c->alen + need)
			cap *= 2;
		if (!(na = realloc(c->arena, cap)))
			return -1;
		c->arena = na;
		c->acap = cap;
	}
	p = c->arena + c->alen;
	memcpy(p, chain, 8 * (size_t)nr);
	for (size_t i = 0; i < n; i++)
		memcpy(p + 8 * nr + i * c->elem, (const unsigned char *)frames + i * stride, c->elem);
	*s = (struct slot){ h, user, kernel, nr, c->alen, n };
	c->alen += need;
	c->used++;
	return 0;
}
