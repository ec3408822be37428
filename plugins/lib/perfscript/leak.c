/*
 * --leak: memory growth.  Allocation records are paired with free records
 * by address (or page frame number, for pages: a second key space); the
 * bytes of every allocation no free matched later in the capture are
 * charged to its allocating stack.  An allocation of an address already
 * allocated and not freed proves the earlier block was freed (a live block
 * is never handed out twice) and its free was not recorded: the earlier
 * allocation is counted as freed, and counted in the warning, so lost free
 * events do not inflate the growth.  A free of an address not allocated is
 * ignored and counted.
 *
 * Segments pair what they can on their own, as offcpu.c does: a table per
 * segment keyed by address holds, for each, what the first event of that
 * address in the segment was (a loose end: a free may free an allocation
 * of an earlier segment; an allocation may find one still live there) and
 * the allocation still live at the segment's end.  perf_leak_settle()
 * takes the segments in input order: the first event first (it came
 * before anything else of its address in the segment), then the live
 * allocation joins the run's.  So the
 * result is that of one pass, whatever the cut.
 *
 * Stacks are kept once per distinct stack (a store with a hash index),
 * not per allocation: memory grows with the live allocations' count and
 * the distinct stacks, not with the input.
 */
#include <stdlib.h>

#include "internal.h"

struct alloc {
	bool used;           /* first: perf_pair_table_grow */
	bool live, first_free;
	uint64_t key;
	uint8_t space;
	uint32_t stk;        /* index in the store */
	uint64_t bytes;
	struct fk_sample meta;
};

struct atable {
	struct alloc *v;
	size_t mask, n;
};

struct store {
	struct stack *v;
	size_t n, cap;
	struct cache idx;    /* stack text -> index in v */
};

/* A segment's state and the run's have the same parts; both begin with
 * the host (perf_pair_state_new). */
struct leak_seg {
	const struct fk_host *h;
	struct atable t;
	struct store s;
	struct pair_counts c;
};

struct leak_run {
	const struct fk_host *h;
	struct atable t;
	struct store s;
	struct pair_counts c;
};

static size_t aslot(uint64_t key, uint8_t space, size_t mask)
{
	uint64_t x = (key ^ space) * 0x9e3779b97f4a7c15ull;
	return (size_t)(x >> 29) & mask;
}

static size_t aslot_of(const void *e, size_t mask)
{
	const struct alloc *a = e;
	return aslot(a->key, a->space, mask);
}

static struct alloc *afind(const struct atable *t, uint64_t key, uint8_t space)
{
	if (!t->v)
		return NULL;
	for (size_t j = aslot(key, space, t->mask); t->v[j].used; j = (j + 1) & t->mask)
		if (t->v[j].key == key && t->v[j].space == space)
			return &t->v[j];
	return NULL;
}

/* The slot of (key, space), added (zeroed) when missing; NULL when out of
 * memory.  *fresh tells which. */
static struct alloc *aget(const struct fk_host *h, struct atable *t, uint64_t key, uint8_t space,
                          bool *fresh)
{
	struct alloc *e = afind(t, key, space);
	size_t j;

	*fresh = false;
	if (e)
		return e;
	if ((!t->v || (t->n + 1) * 2 > t->mask) &&
	    perf_pair_table_grow(h, (void **)&t->v, &t->mask, 255, sizeof *t->v, aslot_of) < 0)
		return NULL;
	for (j = aslot(key, space, t->mask); t->v[j].used; j = (j + 1) & t->mask)
		;
	e = &t->v[j];
	e->used = true;
	e->key = key;
	e->space = space;
	t->n++;
	*fresh = true;
	return e;
}

static void store_free(const struct fk_host *h, struct store *s)
{
	for (size_t i = 0; i < s->n; i++)
		perf_stack_free(h, &s->v[i]);
	h->free(s->v);
	perf_cache_free(h, &s->idx);
	memset(s, 0, sizeof *s);
}

/* The index of a stack equal to st in s, added when missing; <0 when out
 * of memory. */
static int64_t store_put(const struct fk_host *h, struct store *s, const struct stack *st)
{
	struct cache_entry *slot = NULL;
	struct h128 hv;
	fk_node_t i;
	size_t len = st->names_len + st->mods_len + st->n * sizeof *st->fr;

	if (!s->idx.v && perf_cache_init(h, &s->idx) < 0)
		return FK_ERR_NOMEM;
	hv = perf_hash(perf_hash(perf_hash(perf_hash0(), st->names_len ? st->names : "", st->names_len),
	                         st->mods_len ? st->mods : "", st->mods_len),
	               st->n ? (const char *)st->fr : "", st->n * sizeof *st->fr);
	i = perf_cache_get(&s->idx, hv, len, &slot);
	if (i != FK_NODE_NONE)
		return i;
	if (s->n >= UINT32_MAX - 1 ||
	    (s->n == s->cap && perf_grow(h, (void **)&s->v, &s->cap, s->n + 1, sizeof *s->v) < 0))
		return FK_ERR_NOMEM;
	memset(&s->v[s->n], 0, sizeof s->v[s->n]);
	if (perf_stack_copy(h, &s->v[s->n], st) < 0) {
		perf_stack_free(h, &s->v[s->n]);
		return FK_ERR_NOMEM;
	}
	s->n++;
	if (perf_cache_put(h, &s->idx, slot, hv, len, (fk_node_t)(s->n - 1)) < 0)
		return FK_ERR_NOMEM;
	return (int64_t)(s->n - 1);
}

/* Push allocation e (of store s) as never freed. */
static int charge(struct pusher *p, const struct store *s, const struct alloc *e)
{
	struct fk_sample smp = e->meta;
	const struct stack *st = &s->v[e->stk];

	smp.weight[0] = (double)e->bytes;
	smp.comm = st->names;
	return perf_push_stack(p, st, &smp, NULL);
}

/* Free a segment's or the run's state, self, with its table t and store s. */
static void state_free(const struct fk_host *h, void *self, struct atable *t, struct store *s)
{
	h->free(t->v);
	store_free(h, s);
	h->free(self);
}

struct leak_seg *perf_leak_seg_new(const struct fk_host *h)
{
	return perf_pair_state_new(h, sizeof(struct leak_seg));
}

void perf_leak_seg_free(const struct fk_host *h, struct leak_seg *s)
{
	if (s)
		state_free(h, s, &s->t, &s->s);
}

int perf_leak_alloc(struct leak_seg *s, const struct pair_rec *pr, const struct fk_sample *meta,
                    const struct stack *st)
{
	struct alloc *e;
	bool fresh;
	int64_t k;

	if (!(e = aget(s->h, &s->t, pr->key, (uint8_t)pr->space, &fresh)))
		return FK_ERR_NOMEM;
	if (e->live)
		s->c.again++; /* the earlier block was freed: replaced below */
	if ((k = store_put(s->h, &s->s, st)) < 0)
		return (int)k;
	e->live = true;
	e->stk = (uint32_t)k;
	e->bytes = pr->bytes;
	e->meta = *meta;
	e->meta.comm = NULL; /* set from the stored names when charged */
	return 0;
}

int perf_leak_free(struct leak_seg *s, const struct pair_rec *pr)
{
	bool fresh;
	struct alloc *e = aget(s->h, &s->t, pr->key, (uint8_t)pr->space, &fresh);

	if (!e)
		return FK_ERR_NOMEM;
	if (fresh)
		e->first_free = true; /* settled against the segments before */
	else if (e->live)
		e->live = false;
	else
		s->c.unmatched++;
	return 0;
}

struct pair_counts *perf_leak_counts(struct leak_seg *s)
{
	return &s->c;
}

struct leak_run *perf_leak_run_new(const struct fk_host *h)
{
	return perf_pair_state_new(h, sizeof(struct leak_run));
}

void perf_leak_run_free(const struct fk_host *h, struct leak_run *r)
{
	if (r)
		state_free(h, r, &r->t, &r->s);
}

int perf_leak_settle(struct leak_run *r, struct leak_seg *s)
{
	const struct fk_host *h = r->h;
	bool fresh;

	for (size_t i = 0; s->t.v && i <= s->t.mask; i++) {
		struct alloc *e = &s->t.v[i], *g;
		int64_t k;
		if (!e->used)
			continue;
		/* the segment's first event of the address meets what the
		 * segments before left live there: a free frees it, an
		 * allocation proves it was freed (the free not recorded) */
		g = afind(&r->t, e->key, e->space);
		if (e->first_free && g && g->live) {
			g->live = false;
		} else if (e->first_free) {
			r->c.unmatched++;
		} else if (g && g->live) {
			r->c.again++;
			g->live = false;
		}
		/* then what the segment left live joins the run */
		if (!e->live)
			continue;
		if (!(g = aget(h, &r->t, e->key, e->space, &fresh)))
			return FK_ERR_NOMEM;
		if ((k = store_put(h, &r->s, &s->s.v[e->stk])) < 0)
			return (int)k;
		g->live = true;
		g->stk = (uint32_t)k;
		g->bytes = e->bytes;
		g->meta = e->meta;
	}
	perf_pair_counts_add(&r->c, &s->c);
	return 0;
}

/* Time order, then address: the same order whatever the table's layout. */
static int by_time(const void *a, const void *b)
{
	const struct alloc *x = *(const struct alloc *const *)a, *y = *(const struct alloc *const *)b;
	if (x->meta.time_ns != y->meta.time_ns)
		return x->meta.time_ns < y->meta.time_ns ? -1 : 1;
	if (x->space != y->space)
		return x->space < y->space ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

static void report(const struct fk_host *h, struct fk_input *in, const struct pair_counts *c)
{
	const char *name = h->input_name(in);

	if (c->unmatched)
		h->log(FK_LOG_WARN, "%s: --leak ignored %llu free%s of an address never seen "
		       "allocated (allocated before the capture began, or its allocation was "
		       "not recorded)", name, (unsigned long long)c->unmatched,
		       c->unmatched == 1 ? "" : "s");
	if (c->again)
		h->log(FK_LOG_WARN, "%s: %llu allocation%s of an address still allocated (its "
		       "free was not recorded); the earlier allocation is counted as freed",
		       name, (unsigned long long)c->again, c->again == 1 ? " was" : "s were");
	if (c->bad)
		h->log(FK_LOG_WARN, "%s: --leak skipped %llu allocation or free record%s whose "
		       "address or size field is missing or not a number (see --leak-ptr, "
		       "--leak-bytes)", name, (unsigned long long)c->bad, c->bad == 1 ? "" : "s");
	if (c->other)
		h->log(FK_LOG_INFO, "%s: --leak ignored %llu record%s of other events", name,
		       (unsigned long long)c->other, c->other == 1 ? "" : "s");
}

int perf_leak_end(struct leak_run *r, struct pusher *p, struct fk_input *in)
{
	const struct fk_host *h = r->h;
	struct alloc **v = NULL;
	size_t n = 0;
	int rc = 0;

	for (size_t i = 0; r->t.v && i <= r->t.mask; i++)
		n += r->t.v[i].used && r->t.v[i].live;
	if (n && !(v = h->alloc(n * sizeof *v)))
		return FK_ERR_NOMEM;
	n = 0;
	for (size_t i = 0; r->t.v && i <= r->t.mask; i++)
		if (r->t.v[i].used && r->t.v[i].live)
			v[n++] = &r->t.v[i];
	if (n)
		qsort(v, n, sizeof *v, by_time);
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = charge(p, &r->s, v[i]);
	h->free(v);
	if (rc == 0)
		report(h, in, &r->c);
	return rc;
}
