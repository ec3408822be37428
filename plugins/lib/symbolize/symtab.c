/* Symbol tables: sorted arrays fixed up as perf's symbols__fixup_end and
 * symbols__fixup_duplicate (tools/perf/util/symbol.c) fix its rbtrees; an
 * ELF file's searched through the shape perf's rbtree of it has, the
 * others by binary search. */
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int fk_symtab_add(struct fk_symtab *t, uint64_t start, uint64_t size, int binding, const char *name)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		struct fk_sym *v = realloc(t->v, cap * sizeof(*v));

		if (!v)
			return -1;
		t->v = v;
		t->cap = cap;
	}
	t->v[t->n] = (struct fk_sym){ .start = start, .end = start + size, .name = name,
		.order = (uint32_t)t->n, .binding = (uint8_t)binding, .sized = size != 0 };
	t->n++;
	return 0;
}

static int by_start(const void *a, const void *b)
{
	const struct fk_sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Stable sort by start (order is the position: ties keep insertion order,
 * as by_start does): a natural merge sort with the comparison inline.
 * kallsyms and most .symtabs come nearly sorted, and fk_elf_load_plt
 * sorts again a sorted table with a tail, so runs are few and long; qsort
 * through by_start took a fifth of `collapse perf.data`.  0, or -1 when no
 * memory for the runs (then the caller uses qsort). */
static void merge_runs(struct fk_sym *dst, const struct fk_sym *a, const struct fk_sym *am,
		       const struct fk_sym *ae)
{
	const struct fk_sym *b = am;

	while (a < am && b < ae)
		*dst++ = b->start < a->start ? *b++ : *a++;
	if (a < am)
		memcpy(dst, a, (size_t)(am - a) * sizeof(*a));
	else if (b < ae)
		memcpy(dst, b, (size_t)(ae - b) * sizeof(*b));
}

static int sort_by_start(struct fk_symtab *t)
{
	size_t i, k, nr = 0, *runs = NULL;
	struct fk_sym *src = t->v, *dst = NULL;
	int ret = -1;

	for (i = 1; i < t->n; i++)
		nr += t->v[i].start < t->v[i - 1].start;
	if (nr == 0)
		return 0;
	nr++;
	if (!(runs = malloc((nr + 1) * sizeof(*runs))) || !(dst = malloc(t->n * sizeof(*dst))))
		goto out;
	runs[0] = 0;
	for (i = 1, k = 1; i < t->n; i++)
		if (t->v[i].start < t->v[i - 1].start)
			runs[k++] = i;
	runs[nr] = t->n;
	while (nr > 1) {
		struct fk_sym *tmp;

		for (i = 0, k = 0; i < nr; i += 2, k++) {
			size_t hi = i + 2 <= nr ? runs[i + 2] : runs[nr];

			if (i + 1 < nr)
				merge_runs(dst + runs[i], src + runs[i], src + runs[i + 1], src + hi);
			else
				memcpy(dst + runs[i], src + runs[i], (hi - runs[i]) * sizeof(*src));
			runs[k] = runs[i];
		}
		runs[k] = t->n;
		nr = k;
		tmp = src;
		src = dst;
		dst = tmp;
	}
	if (src != t->v) {
		memcpy(t->v, src, t->n * sizeof(*src));
		dst = src;
	}
	ret = 0;
out:
	free(dst);
	free(runs);
	return ret;
}

static size_t underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/* perf's choose_best_symbol: 1 when a wins over b.  perf compares the
 * demangled names: demangled here only when the names decide, and not
 * when they are the same (a .symtab symbol and its .dynsym copy: a node
 * has 110,000 of them). */
static int choose_a(struct fk_symbolizer *s, struct fk_sym *a, struct fk_sym *b)
{
	uint64_t la = a->end - a->start, lb = b->end - b->start;
	size_t na, nb;

	if (lb == 0 && la > 0)
		return 1;
	if (la == 0 && lb > 0)
		return 0;
	if ((a->binding == STB_WEAK) != (b->binding == STB_WEAK))
		return b->binding == STB_WEAK;
	if ((a->binding == STB_GLOBAL) != (b->binding == STB_GLOBAL))
		return a->binding == STB_GLOBAL;
	if (a->mangled == b->mangled && strcmp(a->name, b->name) == 0)
		return 1;
	fk_sym_demangle_late(s, a);
	fk_sym_demangle_late(s, b);
	na = underscores(a->name);
	nb = underscores(b->name);
	if (na != nb)
		return na < nb;
	na = strlen(a->name);
	nb = strlen(b->name);
	if (na != nb)
		return na > nb;
	return 1;
}

/* perf's symbols live in an rbtree (lib/rbtree.c), and symbols__find
 * walks it from the root, returning the first symbol covering the
 * address: where two overlap (a label or a zero-size symbol stretched by
 * fixup_end over a function, _init stretched over .plt and the PLT entries
 * inserted after it) the answer is the one nearer the root, so depends on
 * the tree's shape.  The shape follows from the insertions and erasures
 * alone, so it is rebuilt here: the red-black insertion and erasure of the
 * textbook (Cormen et al.), whose rotations and recolourings are those of
 * lib/rbtree.c case for case, over indexes into v. */
static void rb_rotate(struct fk_symtab *t, uint32_t x, int dir)
{
	struct fk_rbnode *rb = t->rb;
	uint32_t y = rb[x].kid[!dir], p = rb[x].parent;

	rb[x].kid[!dir] = rb[y].kid[dir];
	if (rb[y].kid[dir] != FK_RB_NIL)
		rb[rb[y].kid[dir]].parent = x;
	rb[y].parent = p;
	if (p == FK_RB_NIL)
		t->root = y;
	else
		rb[p].kid[rb[p].kid[1] == x] = y;
	rb[y].kid[dir] = x;
	rb[x].parent = y;
}

static int rb_is_red(const struct fk_rbnode *rb, uint32_t x)
{
	return x != FK_RB_NIL && rb[x].red;
}

/* __symbols__insert: equal starts go right, after the ones there. */
static void rb_insert(struct fk_symtab *t, uint32_t z)
{
	struct fk_rbnode *rb = t->rb;
	uint32_t p = FK_RB_NIL, x = t->root;
	uint64_t start = t->v[z].start;
	int dir = 0;

	while (x != FK_RB_NIL) {
		p = x;
		dir = start >= rb[x].start;
		x = rb[x].kid[dir];
	}
	rb[z] = (struct fk_rbnode){ start, { FK_RB_NIL, FK_RB_NIL }, p, 1 };
	if (p == FK_RB_NIL)
		t->root = z;
	else
		rb[p].kid[dir] = z;
	while ((p = rb[z].parent) != FK_RB_NIL && rb[p].red) {
		uint32_t g = rb[p].parent, u;
		int side = rb[g].kid[1] == p;

		u = rb[g].kid[!side];
		if (rb_is_red(rb, u)) {
			rb[p].red = rb[u].red = 0;
			rb[g].red = 1;
			z = g;
			continue;
		}
		if (rb[p].kid[!side] == z) {
			rb_rotate(t, p, side);
			z = p;
			p = rb[z].parent;
		}
		rb[p].red = 0;
		rb[g].red = 1;
		rb_rotate(t, g, !side);
	}
	rb[t->root].red = 0;
}

static void rb_transplant(struct fk_symtab *t, uint32_t u, uint32_t w)
{
	struct fk_rbnode *rb = t->rb;
	uint32_t p = rb[u].parent;

	if (p == FK_RB_NIL)
		t->root = w;
	else
		rb[p].kid[rb[p].kid[1] == u] = w;
	if (w != FK_RB_NIL)
		rb[w].parent = p;
}

/* rb_erase: a node with two children is replaced by its successor. */
static void rb_erase(struct fk_symtab *t, uint32_t z)
{
	struct fk_rbnode *rb = t->rb;
	uint32_t x, xp, y;
	int was_red = rb[z].red;

	if (rb[z].kid[0] == FK_RB_NIL || rb[z].kid[1] == FK_RB_NIL) {
		x = rb[z].kid[rb[z].kid[0] == FK_RB_NIL];
		xp = rb[z].parent;
		rb_transplant(t, z, x);
	} else {
		for (y = rb[z].kid[1]; rb[y].kid[0] != FK_RB_NIL; y = rb[y].kid[0])
			;
		was_red = rb[y].red;
		x = rb[y].kid[1];
		if (rb[y].parent == z) {
			xp = y;
		} else {
			xp = rb[y].parent;
			rb_transplant(t, y, x);
			rb[y].kid[1] = rb[z].kid[1];
			rb[rb[y].kid[1]].parent = y;
		}
		rb_transplant(t, z, y);
		rb[y].kid[0] = rb[z].kid[0];
		rb[rb[y].kid[0]].parent = y;
		rb[y].red = rb[z].red;
	}
	if (was_red)
		return;
	/* x (perhaps none) lacks a black: the four cases */
	while (x != t->root && !rb_is_red(rb, x)) {
		int side = rb[xp].kid[0] == x ? 0 : 1;
		uint32_t w = rb[xp].kid[!side];

		if (rb[w].red) {
			rb[w].red = 0;
			rb[xp].red = 1;
			rb_rotate(t, xp, side);
			w = rb[xp].kid[!side];
		}
		if (!rb_is_red(rb, rb[w].kid[0]) && !rb_is_red(rb, rb[w].kid[1])) {
			rb[w].red = 1;
			x = xp;
			xp = rb[x].parent;
			continue;
		}
		if (!rb_is_red(rb, rb[w].kid[!side])) {
			rb[rb[w].kid[side]].red = 0;
			rb[w].red = 1;
			rb_rotate(t, w, !side);
			w = rb[xp].kid[!side];
		}
		rb[w].red = rb[xp].red;
		rb[xp].red = 0;
		rb[rb[w].kid[!side]].red = 0;
		rb_rotate(t, xp, side);
		x = t->root;
	}
	if (x != FK_RB_NIL)
		rb[x].red = 0;
}

static void rb_drop(struct fk_symbolizer *s, struct fk_symtab *t)
{
	free(t->rb);
	t->rb = NULL;
	t->rb_n = t->rb_cap = 0;
	s->oom = 1;
}

/* Room for n nodes; 0, or -1 (the tree dropped) when out of memory. */
static int rb_reserve(struct fk_symbolizer *s, struct fk_symtab *t, size_t n)
{
	struct fk_rbnode *rb;

	if (n <= t->rb_cap)
		return 0;
	if (n >= FK_RB_NIL || !(rb = realloc(t->rb, t->cap * sizeof(*rb)))) {
		rb_drop(s, t);
		return -1;
	}
	t->rb = rb;
	t->rb_cap = t->cap;
	return 0;
}

/* Insert v[rb_n..n) in order.  0, or -1 when the tree was dropped. */
static int rb_insert_new(struct fk_symbolizer *s, struct fk_symtab *t)
{
	if (t->rb_n == 0)
		t->root = FK_RB_NIL;
	if (rb_reserve(s, t, t->n) < 0)
		return -1;
	for (; t->rb_n < t->n; t->rb_n++)
		rb_insert(t, (uint32_t)t->rb_n);
	return 0;
}

/* Entries moved: old index i is now map[i] (FK_RB_NIL: gone, erased from
 * the tree before).  The links follow; n is the new count. */
static int rb_remap(struct fk_symbolizer *s, struct fk_symtab *t, const uint32_t *map, size_t nold, size_t n)
{
	struct fk_rbnode *rb = malloc(t->cap * sizeof(*rb));
	size_t i;
	int k;

	if (!rb) {
		rb_drop(s, t);
		return -1;
	}
	for (i = 0; i < nold; i++) {
		const struct fk_rbnode *o = &t->rb[i];
		struct fk_rbnode *d;

		if (map[i] == FK_RB_NIL)
			continue;
		d = &rb[map[i]];
		for (k = 0; k < 2; k++)
			d->kid[k] = o->kid[k] == FK_RB_NIL ? FK_RB_NIL : map[o->kid[k]];
		d->parent = o->parent == FK_RB_NIL ? FK_RB_NIL : map[o->parent];
		d->red = o->red;
		d->start = o->start;
	}
	t->root = t->root == FK_RB_NIL ? FK_RB_NIL : map[t->root];
	free(t->rb);
	t->rb = rb;
	t->rb_cap = t->cap;
	t->rb_n = n;
	return 0;
}

static void finish(struct fk_symbolizer *s, struct fk_symtab *t, int kallsyms, int tree)
{
	size_t i, w, wsrc;
	uint32_t *map = NULL;

	if (t->n == 0)
		return;
	/* a tree: v[i].order == i here (renumbered below, and fk_symtab_add
	 * numbers new entries so), so the sort's permutation is in order */
	if (tree && (rb_insert_new(s, t) < 0 || !(map = malloc(t->n * sizeof(*map))))) {
		if (t->rb)
			rb_drop(s, t);
		tree = 0;
	}
	if (sort_by_start(t) < 0)
		qsort(t->v, t->n, sizeof(*t->v), by_start);
	if (tree) {
		for (i = 0; i < t->n; i++)
			map[t->v[i].order] = (uint32_t)i;
		if (rb_remap(s, t, map, t->n, t->n) < 0)
			tree = 0;
	}
	/* symbols__fixup_end: a zero-size symbol reaches the next one; in
	 * kallsyms, not across the kernel/module boundary. */
	for (i = 1; i < t->n; i++) {
		struct fk_sym *prev = &t->v[i - 1], *curr = &t->v[i];

		if (prev->end != prev->start)
			continue;
		if (kallsyms && !strchr(prev->name, '[') != !strchr(curr->name, '['))
			prev->end = ((prev->end + 4096) + 4095) / 4096 * 4096;
		else
			prev->end = curr->start;
	}
	if (t->v[t->n - 1].end == t->v[t->n - 1].start)
		t->v[t->n - 1].end = (t->v[t->n - 1].start + 4095) / 4096 * 4096 + 4096;
	/* symbols__fixup_duplicate: of symbols starting at one address, keep
	 * the one choose_best_symbol prefers (walking them in order, as perf
	 * walks its tree, erasing each loser from it). */
	if (tree) {
		for (i = 0; i < t->n; i++)
			map[i] = FK_RB_NIL;
		map[0] = 0;
	}
	for (i = 1, w = 0, wsrc = 0; i < t->n; i++) {
		if (t->v[i].start == t->v[w].start) {
			if (choose_a(s, &t->v[w], &t->v[i])) {
				if (tree)
					rb_erase(t, (uint32_t)i);
				continue;
			}
			t->v[w] = t->v[i];
			if (tree) {
				rb_erase(t, (uint32_t)wsrc);
				map[wsrc] = FK_RB_NIL;
				map[i] = (uint32_t)w;
			}
			wsrc = i;
			continue;
		}
		t->v[++w] = t->v[i];
		wsrc = i;
		if (tree)
			map[i] = (uint32_t)w;
	}
	if (tree)
		rb_remap(s, t, map, t->n, w + 1);
	t->n = w + 1;
	for (i = 0; i < t->n; i++)
		t->v[i].order = (uint32_t)i;
	free(map);
}

void fk_symtab_finish(struct fk_symbolizer *s, struct fk_symtab *t, int kallsyms)
{
	finish(s, t, kallsyms, 0);
}

void fk_symtab_finish_rb(struct fk_symbolizer *s, struct fk_symtab *t)
{
	finish(s, t, 0, 1);
}

void fk_symtab_insert_rb(struct fk_symbolizer *s, struct fk_symtab *t)
{
	if (!t->rb || rb_insert_new(s, t) < 0)
		finish(s, t, 0, 0);
}

/* perf's symbols__find. */
static const struct fk_sym *rb_find(const struct fk_symtab *t, uint64_t addr)
{
	uint32_t x = t->root;

	while (x != FK_RB_NIL) {
		const struct fk_sym *s;

		if (addr < t->rb[x].start) {
			x = t->rb[x].kid[0];
			continue;
		}
		s = &t->v[x];
		if (addr < s->start)
			x = t->rb[x].kid[0];
		else if (addr > s->end || (addr == s->end && addr != s->start))
			x = t->rb[x].kid[1];
		else
			return s;
	}
	return NULL;
}

const struct fk_sym *fk_symtab_find(const struct fk_symtab *t, uint64_t addr)
{
	size_t lo = 0, hi = t->n, back;

	if (t->rb)
		return rb_find(t, addr);
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* lo: the first symbol starting after addr.  Walk back to the
	 * nearest that covers it (nested symbols are rare: a few steps).
	 * A zero-size label that fixup_end stretched over the rest of its
	 * function loses to the sized function around it: perf's rbtree
	 * gives either, depending on its shape (a table without the tree's
	 * copy), and the function is the name users know. */
	const struct fk_sym *found = NULL;

	for (back = 0; lo > 0 && back < 16; lo--, back++) {
		const struct fk_sym *s = &t->v[lo - 1];

		if (addr < s->end || addr == s->start) {
			if (s->sized)
				return s;
			if (!found)
				found = s;
		}
	}
	return found;
}

void fk_symtab_free(struct fk_symtab *t)
{
	free(t->v);
	free(t->rb);
	t->v = NULL;
	t->rb = NULL;
	t->n = t->cap = t->rb_n = t->rb_cap = 0;
}
