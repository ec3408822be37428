/*
 * The timeline of the html report.  Per-sample times as they come (perf's
 * microseconds, jitter included) cost more than the folded text of the whole
 * profile; the page draws them on a heat map of 20 ms cells and a flame chart.
 * So times are cut to a quantum (--time-resolution, 1 ms by default), each
 * thread's samples are taken in time order, consecutive samples of a thread
 * in the same quantum with the same stack (and weight) become one run
 * (quantum delta, leaf, count), and the digit string is deflated: the runs
 * of a steady sampler are very repetitive.  The order of a thread's samples
 * is kept exactly, their times to the quantum.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include <zlib.h>

#include "../../lib/report/b64.h"
#include "../../lib/report/report.h"
#include "timeline.h"

struct buf {
	const struct fk_host *h;
	char *p;
	size_t n, cap;
	int oom;
};

static void reserve(struct buf *b, size_t more)
{
	if (b->oom || b->n + more <= b->cap)
		return;
	size_t nc = b->cap ? b->cap : 4096;
	while (nc < b->n + more)
		nc *= 2;
	char *np = b->h->realloc(b->p, nc);
	if (!np) {
		b->oom = 1;
		return;
	}
	b->p = np;
	b->cap = nc;
}

static void add(struct buf *b, const char *s, size_t len)
{
	reserve(b, len);
	if (b->oom)
		return;
	memcpy(b->p + b->n, s, len);
	b->n += len;
}

static void addnum(struct buf *b, uint64_t v)
{
	char d[REPORT_NUM_MAX];

	add(b, d, report_number(v, d));
}

struct ts {
	uint32_t th, i; /* thread index, sample index */
	int64_t t;
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
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

/* Distinct (tid, pid) keys, sorted, into thr; each sample's index into v. */
static size_t threads_of(const struct fk_host *h, const struct fk_profile *p, uint64_t *thr, struct ts *v)
{
	size_t ns = h->samples(p), nt = 0;

	for (size_t i = 0; i < ns; i++)
		thr[i] = thread_key(h->sample(p, i));
	qsort(thr, ns, sizeof *thr, cmp_u64);
	for (size_t i = 0; i < ns; i++)
		if (i == 0 || thr[i] != thr[nt - 1])
			thr[nt++] = thr[i];
	for (size_t i = 0; i < ns; i++) {
		uint64_t key = thread_key(h->sample(p, i));
		size_t lo = 0, hi = nt;
		while (lo + 1 < hi) {
			size_t mid = (lo + hi) / 2;
			if (thr[mid] <= key)
				lo = mid;
			else
				hi = mid;
		}
		v[i].th = (uint32_t)lo;
		v[i].i = (uint32_t)i;
		v[i].t = h->sample(p, i)->flags & FK_SAMPLE_TIME ? h->sample(p, i)->time_ns : INT64_MIN;
	}
	return nt;
}

struct run {
	uint64_t db, leaf, cnt, w;
};

/* The runs of every thread as digits into b, column by column (each thread's
 * run count, then every run's quantum delta, leaf, count, weight): deflate
 * finds more repeats in a column than in rows.  See report.h. */
static int put_runs(const struct fk_host *h, const struct fk_profile *p, const uint32_t *index, int series,
                    const struct ts *v, size_t ns, size_t nt, int64_t t0, int64_t q, int same, struct buf *b)
{
	struct run *r = h->alloc(ns * sizeof *r);
	size_t k = 0, nr = 0;

	if (!r)
		return FK_ERR_NOMEM;
	for (size_t th = 0; th < nt; th++) {
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
		addnum(b, nr - a);
	}
	for (size_t i = 0; i < nr; i++)
		addnum(b, r[i].db);
	for (size_t i = 0; i < nr; i++)
		addnum(b, r[i].leaf);
	for (size_t i = 0; i < nr; i++)
		addnum(b, r[i].cnt);
	for (size_t i = 0; !same && i < nr; i++)
		addnum(b, r[i].w);
	h->free(r);
	return 0;
}

int fk_html_deflate64(const struct fk_host *h, const char *in, size_t n, char **out, size_t *outlen)
{
	z_stream z;
	uLong bound;
	unsigned char *d = NULL;
	int rc = FK_ERR_NOMEM;

	*out = NULL;
	memset(&z, 0, sizeof z);
	if (deflateInit2(&z, 9, Z_DEFLATED, -15, 9, Z_DEFAULT_STRATEGY) != Z_OK)
		return FK_ERR_NOMEM;
	bound = deflateBound(&z, (uLong)n);
	d = h->alloc(bound);
	if (!d)
		goto out;
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)n;
	z.next_out = d;
	z.avail_out = (uInt)bound;
	if (deflate(&z, Z_FINISH) != Z_STREAM_END)
		goto out;
	*out = h->alloc(4 * (z.total_out / 3 + 1));
	if (!*out)
		goto out;
	*outlen = fk_b64_encode(d, z.total_out, *out);
	rc = 0;
out:
	deflateEnd(&z);
	h->free(d);
	return rc;
}

/* Raw deflate of in, base64 coded, appended to b inside quotes. */
static int put_deflated(const struct fk_host *h, const struct buf *in, struct buf *b)
{
	char *z;
	size_t zn;

	if (fk_html_deflate64(h, in->p, in->n, &z, &zn) < 0)
		return FK_ERR_NOMEM;
	add(b, "\"", 1);
	add(b, z, zn);
	add(b, "\"", 1);
	h->free(z);
	return b->oom ? FK_ERR_NOMEM : 0;
}

/* The thread's name (comm) at its first sample, as a third member of its
 * entry: every byte that is not printable ASCII, and every character that
 * could end a script, as \u00XX (the report's raw-byte escape).  *k walks
 * v, which is sorted by thread. */
static void put_comm(const struct fk_host *h, const struct fk_profile *p, const struct ts *v, size_t ns, size_t *k,
                     uint32_t th, struct buf *b)
{
	const char *c = NULL;
	size_t len = 0;
	char e[8];

	while (*k < ns && v[*k].th < th)
		(*k)++;
	if (*k < ns && v[*k].th == th && FK_HOST_HAS(h, sample_comm))
		c = h->sample_comm(p, v[*k].i, &len);
	if (!c)
		return;
	add(b, ",\"", 2);
	for (size_t i = 0; i < len; i++) {
		unsigned char u = (unsigned char)c[i];
		if (u < 0x20 || u >= 0x7f || u == '"' || u == '\\' || u == '<' || u == '>' || u == '&') {
			snprintf(e, sizeof e, "\\u%04x", u);
			add(b, e, 6);
		} else {
			add(b, c + i, 1);
		}
	}
	add(b, "\"", 1);
}

int fk_html_timeline(const struct fk_host *h, const struct fk_profile *p, const uint32_t *index, int series,
                     int64_t quantum_ns, char **text, size_t *len)
{
	size_t ns = h->samples(p), nt;
	uint64_t *thr = NULL;
	struct ts *v = NULL;
	struct buf b = { .h = h }, dig = { .h = h };
	int64_t t0 = INT64_MAX;
	unsigned any = 0;
	int same = 1, rc = FK_ERR_NOMEM; /* same: every sample weighs the same (one period) */
	char tmp[160];

	*text = NULL;
	*len = 0;
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
	nt = threads_of(h, p, thr, v);
	qsort(v, ns, sizeof *v, cmp_ts);
	add(&b, ",\"threads\":[", 12);
	for (size_t i = 0, k = 0; i < nt; i++) {
		snprintf(tmp, sizeof tmp, "%s[%d,%d", i ? "," : "", (int32_t)(uint32_t)thr[i],
		         (int32_t)(uint32_t)(thr[i] >> 32));
		add(&b, tmp, strlen(tmp));
		put_comm(h, p, v, ns, &k, (uint32_t)i, &b);
		add(&b, "]", 1);
	}
	snprintf(tmp, sizeof tmp, "],\"timed\":%d,\"t0ns\":\"%lld\",\"quantum\":%lld,", !!(any & FK_SAMPLE_TIME),
	         (long long)t0, (long long)quantum_ns);
	add(&b, tmp, strlen(tmp));
	if (same) {
		snprintf(tmp, sizeof tmp, "\"sweight\":%.0f,", h->sample(p, 0)->weight[series]);
		add(&b, tmp, strlen(tmp));
	}
	add(&b, "\"timeline\":", 11);
	if (put_runs(h, p, index, series, v, ns, nt, t0, quantum_ns, same, &dig) < 0 || dig.oom || b.oom ||
	    put_deflated(h, &dig, &b) < 0)
		goto out;
	*text = b.p;
	*len = b.n;
	b.p = NULL;
	rc = 0;
out:
	if (rc)
		h->log(FK_LOG_ERROR, "out of memory writing the report's timeline");
	h->free(b.p);
	h->free(dig.p);
	h->free(thr);
	h->free(v);
	return rc;
}
