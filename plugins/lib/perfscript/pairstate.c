/*
 * What the pairing modes (offcpu.c, leak.c) share, below them: their
 * states' allocation, the open-addressing table growth, the counts for
 * their summaries, the tracepoint fields they read and the check that
 * records come in time order.  Calls nothing above it.
 */
#include "internal.h"

int perf_pair_field(const struct header *hd, const char *name, uint64_t *v)
{
	return perf_field_u64(hd->event, hd->event_len, hd->args, hd->args_len, name, strlen(name), v);
}

void *perf_pair_state_new(const struct fk_host *h, size_t size)
{
	void *s = h->alloc(size);

	if (s) {
		memset(s, 0, size);
		*(const struct fk_host **)s = h; /* its first member */
	}
	return s;
}

int perf_pair_table_grow(const struct fk_host *h, void **v, size_t *mask, size_t first_mask,
                         size_t elem, size_t (*slot)(const void *e, size_t mask))
{
	char *ov = *v, *nv;
	size_t nmask = ov ? *mask * 2 + 1 : first_mask;

	if (!(nv = h->alloc((nmask + 1) * elem)))
		return FK_ERR_NOMEM;
	memset(nv, 0, (nmask + 1) * elem);
	for (size_t i = 0; ov && i <= *mask; i++) {
		const char *e = ov + i * elem;
		size_t k;
		if (!*(const bool *)e)
			continue;
		for (k = slot(e, nmask); *(const bool *)(nv + k * elem); k = (k + 1) & nmask)
			;
		memcpy(nv + k * elem, e, elem);
	}
	h->free(ov);
	*v = nv;
	*mask = nmask;
	return 0;
}

void perf_pair_counts_add(struct pair_counts *run, const struct pair_counts *seg)
{
	run->unmatched += seg->unmatched;
	run->again += seg->again;
	run->stray += seg->stray;
	run->bad += seg->bad;
	run->other += seg->other;
	run->back += seg->back;
}

void perf_tcheck_note(struct tcheck *t, int64_t ns)
{
	if (!t->any) {
		t->any = true;
		t->first = ns;
	} else if (ns < t->last) {
		t->back++;
	}
	t->last = ns;
}

void perf_tcheck_join(struct tcheck *run, const struct tcheck *seg)
{
	if (!seg->any)
		return;
	if (run->any && seg->first < run->last)
		run->back++;
	if (!run->any)
		run->first = seg->first;
	run->any = true;
	run->last = seg->last;
	run->back += seg->back;
}

void perf_tcheck_report(const struct fk_host *h, struct fk_input *in, const struct tcheck *t)
{
	if (t->back)
		h->log(FK_LOG_WARN, "%s: %llu record%s out of time order (earlier than the "
		       "record before); pairs are taken in input order", h->input_name(in),
		       (unsigned long long)t->back, t->back == 1 ? " was" : "s were");
}
