/* Symbol tables: sorted arrays fixed up as perf's symbols__fixup_end and
 * symbols__fixup_duplicate (tools/perf/util/symbol.c) fix its rbtrees, and
 * searched by binary search. */
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

/* perf's choose_best_symbol: 1 when a wins over b. */
static int choose_a(const struct fk_sym *a, const struct fk_sym *b)
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

void fk_symtab_finish(struct fk_symbolizer *s, struct fk_symtab *t, int kallsyms)
{
	size_t i, w;

	if (t->n == 0)
		return;
	if (sort_by_start(t) < 0)
		qsort(t->v, t->n, sizeof(*t->v), by_start);
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
	 * the one choose_best_symbol prefers. */
	for (i = 1, w = 0; i < t->n; i++) {
		if (t->v[i].start == t->v[w].start) {
			/* perf compares the demangled names */
			fk_sym_demangle_late(s, &t->v[w]);
			fk_sym_demangle_late(s, &t->v[i]);
			if (!choose_a(&t->v[w], &t->v[i]))
				t->v[w] = t->v[i];
			continue;
		}
		t->v[++w] = t->v[i];
	}
	t->n = w + 1;
	for (i = 0; i < t->n; i++)
		t->v[i].order = (uint32_t)i;
}

const struct fk_sym *fk_symtab_find(const struct fk_symtab *t, uint64_t addr)
{
	size_t lo = 0, hi = t->n, back;

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
	 * gives either, depending on its shape, and the function is the name
	 * users know (checked against perf on node's builtins). */
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
	t->v = NULL;
	t->n = t->cap = 0;
}
