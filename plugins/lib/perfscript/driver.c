/*
 * The session: one input parsed as ordered segments.  fk_perf_parse hands
 * the input to host->parse_chunks, the project's one parallel mechanism:
 * the engine cuts chunks after an empty line (boundary()), parses them on
 * the sink's threads (each worker with its own caches and forked sink) and
 * keeps line numbers, skipped lines and errors in input order.  A chunk's
 * host->input_start is its offset in the input, which orders the
 * segments' results; fk_perf_end folds them in that order: the unit of the
 * first kept record, the dropped-event summary, and the pairs that span
 * chunks (off-CPU waits and their wakeups, allocations and their frees).  The output is the same bytes whatever the thread count.
 *
 * The first event type (kept when --event-filter is not given) is decided
 * before any chunk that could hold it is parsed: boundary() runs on the
 * reading thread, in input order, on every chunk but the last, and
 * publishes the first event it sees; the last chunk (or the only one)
 * learns it itself, since nothing before it had an event.
 */
#define _GNU_SOURCE /* memrchr */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

#define HEAD_MAX ((size_t)16 << 20) /* how far a shard looks for the first event */

struct results {
	struct seg_result *v;
	size_t n, cap;
};

struct fk_perf {
	const struct fk_host *h;
	struct fk_input *in;
	struct scan_cfg cfg;
	unsigned nworkers;
	struct worker **workers;
	struct results *res;         /* per worker: no lock needed */
	struct kept_event *chosen;   /* --event-filter, fk_perf_set_event or the file's first */
	struct kept_event found;     /* what boundary() found */
	struct kept_event *published; /* &found once set (atomic) */
	struct kept_event series[2]; /* --series-by-event's, when given */
};

struct fk_perf *fk_perf_begin(const struct fk_host *h, struct fk_input *in,
                              const struct fk_perf_opts *o, unsigned workers)
{
	struct fk_perf *p = h->alloc(sizeof *p);

	if (!p)
		goto nomem;
	memset(p, 0, sizeof *p);
	p->h = h;
	p->in = in;
	p->cfg.h = h;
	p->cfg.o = o;
	p->cfg.tidy.h = h;
	p->cfg.tidy.addrs = o->addrs;
	p->cfg.tidy.kernel = o->kernel || o->all;
	p->cfg.tidy.jit = o->jit || o->all;
	if (o->series_by_event) {
		if (perf_series_parse(o->series_by_event, p->series) < 0) {
			fk_perf_free(p);
			h->input_error(in, 0, "--series-by-event takes two event names: A,B");
			return NULL;
		}
		p->cfg.series = p->series;
	}
	p->nworkers = workers ? workers : 1;
	if (!(p->workers = h->alloc(p->nworkers * sizeof *p->workers)))
		goto nomem;
	memset(p->workers, 0, p->nworkers * sizeof *p->workers);
	if (!(p->res = h->alloc(p->nworkers * sizeof *p->res)))
		goto nomem;
	memset(p->res, 0, p->nworkers * sizeof *p->res);
	for (unsigned i = 0; i < p->nworkers; i++)
		if (!(p->workers[i] = perf_worker_new(&p->cfg)))
			goto nomem;
	if (o->event_filter && o->event_filter[0] &&
	    fk_perf_set_event(p, o->event_filter, strlen(o->event_filter)) < 0)
		goto nomem;
	return p;
nomem:
	fk_perf_free(p);
	h->input_error(in, 0, "out of memory");
	return NULL;
}

static int choose(struct fk_perf *p, const char *name, size_t len, bool defaulted)
{
	if (!p->chosen && !(p->chosen = p->h->alloc(sizeof *p->chosen)))
		return FK_ERR_NOMEM;
	if (len >= sizeof p->chosen->name)
		len = sizeof p->chosen->name - 1;
	memcpy(p->chosen->name, name, len);
	p->chosen->name[len] = '\0';
	p->chosen->len = len;
	p->chosen->defaulted = defaulted;
	return 0;
}

int fk_perf_set_event(struct fk_perf *p, const char *name, size_t len)
{
	return choose(p, name, len, false);
}

int fk_perf_set_first_event(struct fk_perf *p, const char *name, size_t len)
{
	return choose(p, name, len, true);
}

bool fk_perf_first_event(const char *text, size_t len, const char **ev, size_t *evlen)
{
	/* what boundary() publishes for the chunks of one stream */
	return perf_first_event(text, len, ev, evlen) && *evlen < sizeof ((struct kept_event *)0)->name;
}

void fk_perf_free(struct fk_perf *p)
{
	const struct fk_host *h;

	if (!p)
		return;
	h = p->h;
	for (unsigned i = 0; p->workers && i < p->nworkers; i++)
		perf_worker_free(p->workers[i]);
	for (unsigned i = 0; p->res && i < p->nworkers; i++) {
		for (size_t k = 0; k < p->res[i].n; k++) {
			perf_pair_seg_free(h, p->cfg.o, &p->res[i].v[k]);
			if (p->res[i].v[k].event_owned)
				h->free((void *)p->res[i].v[k].event);
		}
		h->free(p->res[i].v);
	}
	h->free(p->workers);
	h->free(p->res);
	h->free(p->chosen);
	h->free(p);
}

static struct seg_result *new_result(struct fk_perf *p, struct fk_input *seg, uint64_t seq,
                                     unsigned worker);

int fk_perf_segment(struct fk_perf *p, unsigned worker, uint64_t seq, struct fk_input *seg,
                    struct fk_sink *sink)
{
	struct seg_result *res = new_result(p, seg, seq, worker);
	const struct kept_event *ev = p->chosen;

	if (!res)
		return FK_ERR_NOMEM;
	if (!ev)
		ev = __atomic_load_n(&p->published, __ATOMIC_ACQUIRE);
	return perf_scan(p->workers[worker], seg, sink, ev, res);
}

/* A segment result on worker 0 (sequence seq): NULL when out of memory
 * (reported). */
static struct seg_result *new_result(struct fk_perf *p, struct fk_input *seg, uint64_t seq,
                                     unsigned worker)
{
	const struct fk_host *h = p->h;
	struct results *rs = &p->res[worker];
	struct seg_result *res;

	if (rs->n == rs->cap && perf_grow(h, (void **)&rs->v, &rs->cap, rs->n + 1, sizeof *rs->v) < 0) {
		h->input_error(seg, 0, "out of memory");
		return NULL;
	}
	res = &rs->v[rs->n++];
	memset(res, 0, sizeof *res);
	res->seq = seq;
	if (perf_pair_seg_new(h, p->cfg.o, res) < 0) {
		h->input_error(seg, 0, "out of memory");
		return NULL;
	}
	return res;
}

struct fk_perf_records *fk_perf_records_begin(struct fk_perf *p, struct fk_input *in,
                                              struct fk_sink *sink)
{
	struct seg_result *res = new_result(p, in, 0, 0);
	struct fk_perf_records *r;

	if (!res)
		return NULL;
	if (!(r = perf_records_begin(p->workers[0], in, sink, p->chosen, res)))
		p->h->input_error(in, 0, "out of memory");
	return r;
}

static int by_seq(const void *a, const void *b)
{
	const struct seg_result *x = *(const struct seg_result *const *)a;
	const struct seg_result *y = *(const struct seg_result *const *)b;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The unit of weights of event ev (unit_kind as in seg_result), NULL for
 * none.  A series of --series-by-event counting events is named after its
 * event, so that the two series' labels (pprof's sample types) differ. */
static const char *unit_of(const struct fk_perf *p, int unit_kind, const struct kept_event *ev)
{
	if (p->cfg.o->leak)
		return "bytes";
	if (p->cfg.o->offcpu || p->cfg.o->wakeups)
		return "us";
	if (p->cfg.o->weight_field && unit_kind)
		return perf_weight_unit(p->cfg.o->weight_field);
	if (unit_kind == 1)
		return "samples";
	if (unit_kind != 2 || !ev)
		return NULL;
	if (perf_event_matches(ev->name, ev->len, "cpu-clock", 9) ||
	    perf_event_matches(ev->name, ev->len, "task-clock", 10))
		return "ns";
	return p->cfg.series ? ev->name : "events";
}

static void set_unit(struct fk_perf *p, struct fk_sink *sink, const int *unit_kind,
                     const struct kept_event *ev)
{
	const struct fk_host *h = p->h;
	const char *u = unit_of(p, unit_kind[0], p->cfg.series ? &p->series[0] : ev);

	if (u)
		h->sink_set_unit(sink, u);
	if (p->cfg.series && FK_HOST_HAS(h, sink_set_series_unit) &&
	    (u = unit_of(p, unit_kind[1], &p->series[1])))
		h->sink_set_series_unit(sink, 1, u);
}

int fk_perf_end(struct fk_perf *p, struct fk_sink *sink)
{
	const struct fk_host *h = p->h;
	struct seg_result **all = NULL;
	const struct kept_event *ev = p->chosen;
	struct pair_run run = { 0 };
	struct pusher push = { .h = h, .sink = sink };
	struct ev_counts dropped_ev = { 0 };
	uint64_t dropped = 0, wf_missing = 0, wf_bad = 0;
	size_t n = 0;
	int unit_kind[FK_SERIES_MAX] = { 0 }, rc = 0;

	for (unsigned i = 0; i < p->nworkers; i++)
		n += p->res[i].n;
	all = h->alloc((n + 1) * sizeof *all);
	if (!all || perf_pair_run_begin(h, p->cfg.o, &run) < 0) {
		rc = FK_ERR_NOMEM;
		goto out;
	}
	n = 0;
	for (unsigned i = 0; i < p->nworkers; i++)
		for (size_t k = 0; k < p->res[i].n; k++)
			all[n++] = &p->res[i].v[k];
	qsort(all, n, sizeof *all, by_seq);
	for (size_t i = 0; i < n; i++) {
		struct seg_result *r = all[i];
		for (int k = 0; k < FK_SERIES_MAX; k++)
			if (!unit_kind[k])
				unit_kind[k] = r->unit_kind[k];
		wf_missing += r->wf_missing;
		wf_bad += r->wf_bad;
		if (!ev)
			ev = r->event;
		perf_events_join(&dropped_ev, &r->dropped_ev);
		dropped += r->dropped;
		if ((rc = perf_pair_settle(&run, r, &push)) < 0)
			goto out;
	}
	if ((rc = perf_pair_end(&run, &push)) < 0)
		goto out;
	set_unit(p, sink, unit_kind, ev);
	if (dropped && p->cfg.series) {
		h->log(FK_LOG_WARN, "%s: kept only \"%s\" and \"%s\" events (--series-by-event); "
		       "dropped %llu record%s of other events, the first being \"%s\"",
		       h->input_name(p->in), p->series[0].name, p->series[1].name,
		       (unsigned long long)dropped, dropped == 1 ? "" : "s",
		       perf_events_first(&dropped_ev));
	} else if (dropped && ev && !ev->defaulted && !unit_kind[0] && !wf_missing && !wf_bad) {
		/* the event asked for is not in the capture: no stacks, as
		 * for an empty input, but say which events there are */
		char list[600];
		perf_events_list(&dropped_ev, list, sizeof list);
		h->log(FK_LOG_WARN, "%s: --event-filter \"%s\" matches none of its %llu record%s, "
		       "whose events are %s", h->input_name(p->in), ev->name,
		       (unsigned long long)dropped, dropped == 1 ? "" : "s", list);
	} else if (dropped && ev) {
		h->log(FK_LOG_WARN, "%s: kept only \"%s\" events (%s); dropped %llu record%s of "
		       "other events, the first being \"%s\" (choose with --event-filter NAME)",
		       h->input_name(p->in), ev->name,
		       ev->defaulted ? "the first event type in the input" : "--event-filter",
		       (unsigned long long)dropped, dropped == 1 ? "" : "s",
		       perf_events_first(&dropped_ev));
	}
	perf_pair_report(h, p->in, p->cfg.o, &run);
	perf_weights_report(h, p->in, p->cfg.o, wf_missing, wf_bad);
out:
	if (rc == FK_ERR_NOMEM)
		h->input_error(p->in, 0, "out of memory");
	else if (rc < 0)
		h->input_error(p->in, 0, "could not add a sample");
	perf_pair_run_free(h, &run);
	h->free(push.refs);
	h->free(all);
	return rc;
}

/* ---- through host->parse_chunks ---- */

/* Chunks end after an empty line: records never hold one, so a chunk
 * starts where a one-pass parse would be between records. */
static size_t boundary(void *ctx, const char *b, size_t n)
{
	struct fk_perf *p = ctx;

	if (!p->chosen && !perf_pairing(p->cfg.o) && !p->cfg.series &&
	    !__atomic_load_n(&p->published, __ATOMIC_ACQUIRE)) {
		const char *ev;
		size_t len;
		if (perf_first_event(b, n, &ev, &len) && len < sizeof p->found.name) {
			memcpy(p->found.name, ev, len);
			p->found.name[len] = '\0';
			p->found.len = len;
			p->found.defaulted = true;
			__atomic_store_n(&p->published, &p->found, __ATOMIC_RELEASE);
		}
	}
	for (size_t i = n; i > 1;) {
		const char *q = memrchr(b, '\n', i);
		size_t k;
		if (!q)
			break;
		k = (size_t)(q - b);
		if (k >= 1 && b[k - 1] == '\n')
			return k + 1;
		if (k >= 2 && b[k - 1] == '\r' && b[k - 2] == '\n')
			return k + 1;
		i = k;
	}
	return 0;
}

static int chunk_parse(void *ctx, unsigned worker, struct fk_input *chunk, struct fk_sink *sink)
{
	struct fk_perf *p = ctx;
	return fk_perf_segment(p, worker, fk_perf_input_start(p->h, chunk), chunk, sink);
}

/* The first event type of the whole file, read from its start (the
 * kept one when --event-filter is not given): a later shard (--shard K/N,
 * K > 0) needs it, and so do the ranges parse_chunks may cut a regular file
 * into, since their workers start mid-file.  *unseen: the file's first
 * HEAD_MAX bytes hold no event but there is more (then only a parse from
 * the start, in order, finds it).  A pipe's start cannot be read again:
 * nothing is chosen, and parse_chunks reads it in order (boundary()). */
static int head_event(struct fk_perf *p, bool *unseen)
{
	const struct fk_host *h = p->h;
	size_t cap = 64 * 1024;
	char *buf = NULL;
	int rc = 0;

	*unseen = false;
	for (;;) {
		const char *ev, *nl;
		size_t len, n;
		char *nb = h->realloc(buf, cap);
		ssize_t got;
		if (!nb) {
			rc = FK_ERR_NOMEM;
			break;
		}
		buf = nb;
		got = h->input_head(p->in, buf, cap);
		if (got < 0) {
			rc = (int)got;
			break;
		}
		/* whole lines only, unless this is the whole file */
		n = (size_t)got;
		if (n == cap && (nl = memrchr(buf, '\n', n)) != NULL)
			n = (size_t)(nl - buf) + 1;
		if (perf_first_event(buf, n, &ev, &len)) {
			rc = choose(p, ev, len, true);
			break;
		}
		if ((size_t)got < cap)
			break; /* the whole file: it has no event to filter on */
		if (cap >= HEAD_MAX) {
			*unseen = true;
			break;
		}
		cap *= 2;
	}
	h->free(buf);
	if (rc == FK_ERR_NOMEM)
		h->input_error(p->in, 0, "out of memory");
	return rc;
}

int fk_perf_parse(const struct fk_host *h, struct fk_input *in, struct fk_sink *sink,
                  const struct fk_perf_opts *o)
{
	static const struct fk_chunk_ops ops = { boundary, chunk_parse };
	struct fk_perf *p;
	bool unseen = false;
	int rc;

	if ((rc = fk_perf_check(h, o, NULL)) < 0)
		return rc;
	if (fk_perf_input_start(h, in) > 0 && perf_pairing(o))
		return h->input_error(in, 0, "%s pairs each %s, so it cannot read a shard; "
		                      "collapse the whole file",
		                      o->leak ? "--leak" : o->wakeups ? "--wakeups" : "--offcpu",
		                      o->leak ? "free with an earlier allocation"
		                              : "switch-in with an earlier switch-out");
	p = fk_perf_begin(h, in, o, h->sink_threads(sink));
	if (!p)
		return FK_ERR_NOMEM;
	rc = 0;
	if (!p->chosen && !perf_pairing(o) && !p->cfg.series && FK_HOST_HAS(h, input_head) &&
	    (rc = head_event(p, &unseen)) < 0)
		goto out;
	/* An ABI 1.0 host has no parse_chunks: the whole input is one chunk;
	 * so is a file whose first event is too far in to be looked for. */
	rc = FK_HOST_HAS(h, parse_chunks) && !(unseen && fk_perf_input_start(h, in) == 0)
	             ? h->parse_chunks(in, sink, &ops, p)
	             : chunk_parse(p, 0, in, sink);
	if (rc == 0)
		rc = fk_perf_end(p, sink);
out:
	fk_perf_free(p);
	return rc;
}
