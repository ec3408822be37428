/*
 * The records the pairing modes keep and what they read from them:
 * --offcpu and --wakeups keep sched:sched_switch (and, for --wakeups,
 * sched_wakeup or sched_waking) records for offcpu.c; --leak keeps
 * allocation and free events for leak.c.  The fields are read here, once,
 * from the header's tracepoint arguments (by fields.c); a record whose
 * field is missing or not a number is dropped and counted by the pairing
 * it was meant for.
 */
#include "internal.h"

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

/* A tracepoint field of the record (fields.c's rules). */
static int field(const struct header *hd, const char *name, uint64_t *v)
{
	return perf_field_u64(hd->event, hd->event_len, hd->args, hd->args_len, name, strlen(name), v);
}

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

/* --leak: the record's kind, address and bytes; false when dropped. */
static bool leak_keep(struct seg_result *res, const struct fk_perf_opts *o, const struct header *hd,
                      struct pair_rec *pr)
{
	const char *ptr = o->leak_ptr && *o->leak_ptr ? o->leak_ptr : "ptr";
	const char *bytes = o->leak_bytes && *o->leak_bytes ? o->leak_bytes : "bytes_alloc";
	uint64_t order = 0;
	int rc;

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
		perf_leak_counts(res->leak)->other++;
		return false;
	}
	if (pr->space == 1) {
		rc = field(hd, "pfn", &pr->key);
		if (rc == PF_OK && pr->kind == PK_ALLOC)
			rc = field(hd, "order", &order);
		if (rc == PF_OK && order >= 32)
			rc = PF_BAD;
		pr->bytes = (uint64_t)(o->leak_page_size > 0 ? o->leak_page_size : 4096) << order;
	} else {
		rc = field(hd, ptr, &pr->key);
		if (rc == PF_OK && pr->key == 0)
			return false; /* free(NULL) does nothing; a NULL allocation failed */
		if (rc == PF_OK && pr->kind == PK_ALLOC)
			rc = field(hd, bytes, &pr->bytes);
		if (rc == PF_OK && pr->kind == PK_ALLOC && o->leak_align > 1)
			pr->bytes -= pr->bytes % (uint64_t)o->leak_align;
	}
	if (rc != PF_OK) {
		perf_leak_counts(res->leak)->bad++;
		return false;
	}
	return true;
}

bool perf_pair_keep(struct seg_result *res, const struct fk_perf_opts *o, const struct header *hd,
                    struct pair_rec *pr)
{
	uint64_t v;

	memset(pr, 0, sizeof *pr);
	pr->prev_tid = pr->next_tid = -1;
	if (!hd->event)
		goto other;
	if (o->leak)
		return leak_keep(res, o, hd, pr);
	if (perf_memmem(hd->event, hd->event_len, "sched_switch", 12)) {
		long long t;
		pr->kind = PK_SWITCH;
		if (hd->args && perf_arg_ll(hd->args, hd->args_len, "prev_pid=", &t))
			pr->prev_tid = t;
		if (hd->args && perf_arg_ll(hd->args, hd->args_len, "next_pid=", &t))
			pr->next_tid = t;
		return true;
	}
	if (o->wakeups && (perf_event_matches(hd->event, hd->event_len, "sched:sched_wakeup", 18) ||
	                   perf_event_matches(hd->event, hd->event_len, "sched:sched_waking", 18))) {
		if (field(hd, "pid", &v) != PF_OK || v > INT32_MAX) {
			perf_offcpu_counts(res->off)->bad++;
			return false;
		}
		pr->kind = PK_WAKEUP;
		pr->wakee = (long long)v;
		return true;
	}
other:
	if (res->off)
		perf_offcpu_counts(res->off)->other++;
	return false;
}

int perf_pair_record(struct seg_result *res, struct pusher *p, const struct pair_rec *pr,
                     const struct fk_sample *meta, const struct stack *st)
{
	bool timed = meta->flags & FK_SAMPLE_TIME;

	if (timed)
		perf_tcheck_note(&res->order, meta->time_ns);
	switch (pr->kind) {
	case PK_SWITCH:
		/* a wait needs both ends' times */
		return timed ? perf_offcpu_switch(res->off, p, pr->next_tid, pr->prev_tid, meta, st) : 0;
	case PK_WAKEUP:
		return perf_offcpu_wakeup(res->off, pr->wakee, st);
	case PK_ALLOC:
		return perf_leak_alloc(res->leak, pr, meta, st);
	case PK_FREE:
		return perf_leak_free(res->leak, pr);
	default:
		return 0;
	}
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

void perf_pair_report(const struct fk_host *h, struct fk_input *in, const struct tcheck *t)
{
	if (t->back)
		h->log(FK_LOG_WARN, "%s: %llu record%s out of time order (earlier than the "
		       "record before); pairs are taken in input order", h->input_name(in),
		       (unsigned long long)t->back, t->back == 1 ? " was" : "s were");
}
