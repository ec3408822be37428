/*
 * The timeline of the html report.  Per-sample times as they come (perf's
 * microseconds, jitter included) cost more than the folded text of the whole
 * profile; the page draws them on a heat map of 20 ms cells and a flame chart.
 * So times are cut to a quantum (--time-resolution, 1 ms by default), each
 * thread's samples are taken in time order, consecutive samples of a thread
 * in the same quantum with the same stack (and weight) become one run
 * (quantum delta, leaf, count), and the digit string is deflated: the runs
 * of a steady sampler are very repetitive (libfkreport writes and deflates
 * it).  The order of a thread's samples
 * is kept exactly, their times to the quantum.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include "timeline.h"

struct ts {
	uint32_t th, i; /* thread index, sample index */
	int64_t t;
};

struct key_rank {
	uint64_t key;
	uint32_t d; /* the key's number in the order met */
};

static int cmp_key(const void *a, const void *b)
{
	uint64_t x = ((const struct key_rank *)a)->key, y = ((const struct key_rank *)b)->key;
	return (x > y) - (x < y);
}

static int cmp_ts(const void *a, const void *b)
{
	const struct ts *x = a, *y = b;
	if (x->th != y->th)
		return x->th < y->th ? -1 : 1;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

static uint64_t thread_key(const struct fk_logged_sample *s)
{
	int32_t tid = s->flags & FK_SAMPLE_TID ? s->tid : -1, pid = s->flags & FK_SAMPLE_PID ? s->pid : -1;
	return ((uint64_t)(uint32_t)tid << 32) | (uint32_t)pid;
}

static size_t key_slot(uint64_t key, size_t mask)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdull;
	key ^= key >> 33;
	return (size_t)key & mask;
}

/* Each sample's thread as a number in the order the threads are met
 * (th[i]), and the distinct keys in that order (thr[0 .. *n)): an
 * open-addressed table of the keys met, so that a capture's samples cost
 * one look-up each, not a sort of them all. */
static int number_threads(const struct fk_host *h, const struct fk_profile *p, uint32_t *th,
                          uint64_t *thr, size_t *n)
{
	size_t ns = h->samples(p), cap = 64, d = 0;
	uint32_t *slot = h->alloc(cap * sizeof *slot); /* d + 1, 0 empty */

	if (!slot)
		return FK_ERR_NOMEM;
	memset(slot, 0, cap * sizeof *slot);
	for (size_t i = 0; i < ns; i++) {
		uint64_t key = thread_key(h->sample(p, i));
		size_t k = key_slot(key, cap - 1);
		while (slot[k] && thr[slot[k] - 1] != key)
			k = (k + 1) & (cap - 1);
		if (!slot[k]) {
			thr[d] = key;
			slot[k] = (uint32_t)++d;
			if (2 * d > cap) { /* half full: twice the room, the keys again */
				uint32_t *ns2 = h->alloc(2 * cap * sizeof *ns2);
				if (!ns2) {
					h->free(slot);
					return FK_ERR_NOMEM;
				}
				cap *= 2;
				memset(ns2, 0, cap * sizeof *ns2);
				for (size_t j = 0; j < d; j++) {
					size_t m = key_slot(thr[j], cap - 1);
					while (ns2[m])
						m = (m + 1) & (cap - 1);
					ns2[m] = (uint32_t)(j + 1);
				}
				h->free(slot);
				slot = ns2;
				th[i] = (uint32_t)(d - 1);
				continue;
			}
		}
		th[i] = slot[k] - 1;
	}
	h->free(slot);
	*n = d;
	return 0;
}

/* Distinct (tid, pid) keys, sorted, into thr (*nt of them), and v in
 * cmp_ts's order (thread, time, sample index).  A thread's samples mostly
 * come in time order: a counting sort by thread keeps each thread's
 * samples in their order, and only a thread whose times go back is sorted.
 * 0, or FK_ERR_NOMEM. */
static int threads_of(const struct fk_host *h, const struct fk_profile *p, uint64_t *thr, struct ts *v,
                      size_t *nt)
{
	size_t ns = h->samples(p), n = 0, *at = NULL;
	uint32_t *th = h->alloc(ns * sizeof *th), *rank = NULL;
	struct key_rank *kr = NULL;
	int rc = FK_ERR_NOMEM;

	if (!th || number_threads(h, p, th, thr, &n) < 0)
		goto out;
	/* the threads in key order: rank[d] for the d-th met */
	kr = h->alloc(n * sizeof *kr);
	rank = h->alloc(n * sizeof *rank);
	at = h->alloc((n + 1) * sizeof *at);
	if (!kr || !rank || !at)
		goto out;
	for (size_t d = 0; d < n; d++)
		kr[d] = (struct key_rank){ thr[d], (uint32_t)d };
	qsort(kr, n, sizeof *kr, cmp_key);
	for (size_t k = 0; k < n; k++) {
		thr[k] = kr[k].key;
		rank[kr[k].d] = (uint32_t)k;
	}
	memset(at, 0, (n + 1) * sizeof *at);
	for (size_t i = 0; i < ns; i++) {
		th[i] = rank[th[i]];
		at[th[i] + 1]++;
	}
	for (size_t k = 0; k < n; k++)
		at[k + 1] += at[k];
	for (size_t i = 0; i < ns; i++) {
		const struct fk_logged_sample *s = h->sample(p, i);
		v[at[th[i]]++] = (struct ts){ .th = th[i], .i = (uint32_t)i,
		                              .t = s->flags & FK_SAMPLE_TIME ? s->time_ns : INT64_MIN };
	}
	for (size_t k = 0, a = 0; k < n; a = at[k++]) { /* at[k]: thread k's end */
		for (size_t i = a + 1; i < at[k]; i++)
			if (v[i].t < v[i - 1].t) {
				qsort(v + a, at[k] - a, sizeof *v, cmp_ts);
				break;
			}
	}
	*nt = n;
	rc = 0;
out:
	h->free(th);
	h->free(rank);
	h->free(kr);
	h->free(at);
	return rc;
}

/* Every thread's runs into tl (threads in v's order: sorted by thread). */
static int put_runs(const struct fk_host *h, const struct fk_profile *p, const uint32_t *index, int series,
                    const struct ts *v, size_t ns, int64_t t0, int64_t q, struct fk_html_timeline *tl)
{
	struct report_run *r = h->alloc(ns * sizeof *r);
	size_t k = 0, nr = 0;

	if (!r)
		return FK_ERR_NOMEM;
	tl->runs = r;
	for (size_t th = 0; th < tl->t.nthreads; th++) {
		size_t a = nr;
		int64_t prev = 0;
		for (; k < ns && v[k].th == th;) {
			const struct fk_logged_sample *s = h->sample(p, v[k].i);
			int64_t bk = v[k].t == INT64_MIN ? 0 : (v[k].t - t0) / q;
			size_t e = k + 1;
			while (e < ns && v[e].th == th && h->sample(p, v[e].i)->leaf == s->leaf &&
			       (v[e].t == INT64_MIN ? 0 : (v[e].t - t0) / q) == bk &&
			       h->sample(p, v[e].i)->weight[series] == s->weight[series])
				e++;
			r[nr].db = (uint64_t)(bk - prev);
			r[nr].leaf = s->leaf == FK_NODE_ROOT ? 0 : (uint64_t)index[s->leaf] + 1;
			r[nr].cnt = e - k;
			r[nr++].w = (uint64_t)s->weight[series];
			prev = bk;
			k = e;
		}
		tl->threads[th].nruns = nr - a;
	}
	return 0;
}

/* The thread's name (comm) at its first sample.  *k walks v, which is
 * sorted by thread. */
static void thread_comm(const struct fk_host *h, const struct fk_profile *p, const struct ts *v, size_t ns,
                        size_t *k, uint32_t th, struct report_thread *t)
{
	while (*k < ns && v[*k].th < th)
		(*k)++;
	if (*k < ns && v[*k].th == th && FK_HOST_HAS(h, sample_comm))
		t->comm = h->sample_comm(p, v[*k].i, &t->comm_len);
}

void fk_html_timeline_free(const struct fk_host *h, struct fk_html_timeline *tl)
{
	h->free(tl->threads);
	h->free(tl->runs);
	memset(tl, 0, sizeof *tl);
}

int fk_html_timeline(const struct fk_host *h, const struct fk_profile *p, const uint32_t *index, int series,
                     int64_t quantum_ns, struct fk_html_timeline *tl)
{
	size_t ns = h->samples(p), nt;
	uint64_t *thr = NULL;
	struct ts *v = NULL;
	int64_t t0 = INT64_MAX;
	unsigned any = 0;
	int same = 1, rc = FK_ERR_NOMEM; /* same: every sample weighs the same (one period) */

	memset(tl, 0, sizeof *tl);
	for (size_t i = 0; i < ns; i++) {
		const struct fk_logged_sample *s = h->sample(p, i);
		double w = s->weight[series];
		any |= s->flags;
		if (!(w >= 0 && w == floor(w) && w < 9007199254740992.0))
			return 0;
		if (w != h->sample(p, 0)->weight[series])
			same = 0;
		if ((s->flags & FK_SAMPLE_TIME) && s->time_ns < t0)
			t0 = s->time_ns;
	}
	if (!ns || !(any & (FK_SAMPLE_TIME | FK_SAMPLE_TID)))
		return 0;
	if (t0 == INT64_MAX)
		t0 = 0;
	thr = h->alloc(ns * sizeof *thr);
	v = h->alloc(ns * sizeof *v);
	if (!thr || !v)
		goto out;
	if (threads_of(h, p, thr, v, &nt) < 0)
		goto out;
	if (!(tl->threads = h->alloc(nt * sizeof *tl->threads)))
		goto out;
	memset(tl->threads, 0, nt * sizeof *tl->threads);
	for (size_t i = 0, k = 0; i < nt; i++) {
		tl->threads[i].pid = (int32_t)(uint32_t)thr[i];
		tl->threads[i].tid = (int32_t)(uint32_t)(thr[i] >> 32);
		thread_comm(h, p, v, ns, &k, (uint32_t)i, &tl->threads[i]);
	}
	tl->t.nthreads = nt;
	tl->t.timed = !!(any & FK_SAMPLE_TIME);
	tl->t.t0ns = t0;
	tl->t.quantum = quantum_ns;
	tl->t.same = same;
	tl->t.sweight = h->sample(p, 0)->weight[series];
	if (put_runs(h, p, index, series, v, ns, t0, quantum_ns, tl) < 0)
		goto out;
	tl->t.threads = tl->threads;
	tl->t.runs = tl->runs;
	rc = 0;
out:
	if (rc)
		h->log(FK_LOG_ERROR, "out of memory writing the report's timeline");
	h->free(thr);
	h->free(v);
	return rc;
}
