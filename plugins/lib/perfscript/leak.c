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
 * the allocation still live at the segment's end.  settle()
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
 * the host (pairing.c makes them: perf_pair_state_new). */
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

static void seg_free(const struct fk_host *h, void *seg)
{
	struct leak_seg *s = seg;

	if (s)
		state_free(h, s, &s->t, &s->s);
}

/* --leak's default event pairs: kmalloc and the slab caches by address,
 * pages by page frame number (bytes: pages << order). */
static const struct {
	const char *ev;
	int kind, space;
} kmem[] = {
	{ "kmem:kmalloc", PK_ALLOC, 0 },
	{ "kmem:kmalloc_node", PK_ALLOC, 0 },
	{ "kmem:kmem_cache_alloc", PK_ALLOC, 0 },
	{ "kmem:kmem_cache_alloc_node", PK_ALLOC, 0 },
	{ "kmem:kfree", PK_FREE, 0 },
	{ "kmem:kmem_cache_free", PK_FREE, 0 },
	{ "kmem:mm_page_alloc", PK_ALLOC, 1 },
	{ "kmem:mm_page_free", PK_FREE, 1 },
};

/* Whether ev is one of the comma-separated events of list. */
static bool in_list(const char *list, const char *ev, size_t evlen)
{
	while (list && *list) {
		const char *c = strchr(list, ',');
		size_t n = c ? (size_t)(c - list) : strlen(list);
		if (n && perf_event_matches(ev, evlen, list, n))
			return true;
		list = c ? c + 1 : NULL;
	}
	return false;
}

/* The allocation and free records, with their kind, address and bytes;
 * false when dropped (counted, but for a record without an event). */
static bool keep(void *seg, const struct fk_perf_opts *o, const struct header *hd,
                 struct pair_rec *pr)
{
	struct leak_seg *s = seg;
	const char *ptr = o->leak_ptr && *o->leak_ptr ? o->leak_ptr : "ptr";
	const char *bytes = o->leak_bytes && *o->leak_bytes ? o->leak_bytes : "bytes_alloc";
	uint64_t order = 0;
	int rc;

	if (!hd->event)
		return false;
	pr->kind = PK_OTHER;
	pr->space = 0;
	if (o->leak_alloc || o->leak_free) {
		if (in_list(o->leak_alloc, hd->event, hd->event_len))
			pr->kind = PK_ALLOC;
		else if (in_list(o->leak_free, hd->event, hd->event_len))
			pr->kind = PK_FREE;
	} else {
		for (size_t i = 0; i < sizeof kmem / sizeof kmem[0] && pr->kind == PK_OTHER; i++)
			if (perf_event_matches(hd->event, hd->event_len, kmem[i].ev, strlen(kmem[i].ev))) {
				pr->kind = kmem[i].kind;
				pr->space = kmem[i].space;
			}
	}
	if (pr->kind == PK_OTHER) {
		s->c.other++;
		return false;
	}
	if (pr->space == 1) {
		rc = perf_pair_field(hd, "pfn", &pr->key);
		if (rc == PF_OK && pr->kind == PK_ALLOC)
			rc = perf_pair_field(hd, "order", &order);
		if (rc == PF_OK && order >= 32)
			rc = PF_BAD;
		pr->bytes = (uint64_t)(o->leak_page_size > 0 ? o->leak_page_size : 4096) << order;
	} else {
		rc = perf_pair_field(hd, ptr, &pr->key);
		if (rc == PF_OK && pr->key == 0)
			return false; /* free(NULL) does nothing; a NULL allocation failed */
		if (rc == PF_OK && pr->kind == PK_ALLOC)
			rc = perf_pair_field(hd, bytes, &pr->bytes);
		if (rc == PF_OK && pr->kind == PK_ALLOC && o->leak_align > 1)
			pr->bytes -= pr->bytes % (uint64_t)o->leak_align;
	}
	if (rc != PF_OK) {
		s->c.bad++;
		return false;
	}
	return true;
}

/* An allocation; one of an address still live replaces the earlier block,
 * which was freed (its free not recorded) and is counted in the warning. */
static int on_alloc(struct leak_seg *s, const struct pair_rec *pr, const struct fk_sample *meta,
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

static int on_free(struct leak_seg *s, const struct pair_rec *pr)
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

static int record(void *seg, struct pusher *p, const struct pair_rec *pr,
                  const struct fk_sample *meta, const struct stack *st)
{
	(void)p; /* what is never freed is pushed at the end */
	if (pr->kind == PK_ALLOC)
		return on_alloc(seg, pr, meta, st);
	return pr->kind == PK_FREE ? on_free(seg, pr) : 0;
}

static void run_free(const struct fk_host *h, void *run)
{
	struct leak_run *r = run;

	if (r)
		state_free(h, r, &r->t, &r->s);
}

static int settle(void *run, void *seg, struct pusher *p)
{
	struct leak_run *r = run;
	struct leak_seg *s = seg;
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
	(void)p; /* nothing is pushed before the end */
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

static void report(const struct fk_host *h, struct fk_input *in, const void *run,
                   const struct fk_perf_opts *o)
{
	const struct pair_counts *c = &((const struct leak_run *)run)->c;
	const char *name = h->input_name(in);

	(void)o;

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

/* Push the allocations never freed, in time order. */
static int end(void *run, struct pusher *p)
{
	struct leak_run *r = run;
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
	return rc;
}

const struct pair_mode perf_leak_mode = {
	.seg_size = sizeof(struct leak_seg),
	.run_size = sizeof(struct leak_run),
	.seg_free = seg_free,
	.run_free = run_free,
	.keep = keep,
	.record = record,
	.settle = settle,
	.end = end,
	.report = report,
};
