/*
 * --offcpu: sched:sched_switch records as off-CPU time.  A thread's wait
 * runs from its switch-out (prev_pid=TID, whose record carries the stack it
 * blocked in) to its next switch-in (next_pid=TID), and is charged to that
 * stack in microseconds.  A second switch-out before any switch-in replaces
 * the first, which is counted as unmatched, as is a switch-out still
 * waiting at the end.
 *
 * Segments (chunks parsed on different threads, or perf-data's time
 * slices) pair what they can on their own; each keeps its loose ends: for
 * every thread, its first switch event in the segment (a switch-in that
 * may close a wait begun earlier, or a switch-out that replaces one) and
 * the wait still open at its end.  settle() takes segments in
 * input order and joins the loose ends, so the totals are those of one
 * pass over the whole input, whatever the cut.
 *
 * --wakeups adds the wakeups: a sched_wakeup of a thread during its wait
 * keeps the waker's stack (the last one wins) and the wait is charged to
 * the chain of both (wakeups.c).  In a segment, the wakeups of a thread
 * before its first switch there are a loose end too: settling hands the
 * last of them to the wait left open before, if any.  A wakeup of a
 * thread not waiting (never switched out, or running) chains nothing and
 * is counted.  Allocations (leak.c) follow the same shape, by address.
 */
#include "internal.h"

struct tstate {
	bool used;       /* slot holds a thread (first: perf_pair_table_grow) */
	long long tid;
	bool seen;       /* a switch of this thread came earlier in the segment */
	bool pending;    /* switched out, waiting for its switch-in */
	int64_t t_out;
	struct fk_sample meta;
	struct stack st;
	bool has_wk;     /* a wakeup came during the wait: wk is the waker's stack */
	struct stack wk;
	uint64_t npre;   /* wakeups before the thread's first switch in the segment */
	struct stack pwk; /* the last of those */
};

/* A thread's first switch in a segment: a switch-in at t, or a switch-out. */
struct first {
	long long tid;
	bool in;
	int64_t t;
};

struct table {
	struct tstate *v;
	size_t mask, n;
};

/* Both begin with the host (pairing.c makes them: perf_pair_state_new). */
struct offcpu_seg {
	const struct fk_host *h;
	struct table t;
	struct first *first;
	size_t nfirst, firstcap;
	struct pair_counts c;
	struct stack chain;  /* scratch for the chained stacks */
};

struct offcpu_run {
	const struct fk_host *h;
	struct table t;
	struct pair_counts c;
	struct stack chain;
};

static size_t slot_of(long long tid, size_t mask)
{
	uint64_t x = (uint64_t)tid * 0x9e3779b97f4a7c15ull;
	return (size_t)(x >> 32) & mask;
}

static size_t slot_of_state(const void *e, size_t mask)
{
	return slot_of(((const struct tstate *)e)->tid, mask);
}

static void table_free(const struct fk_host *h, struct table *t)
{
	for (size_t i = 0; t->v && i <= t->mask; i++) {
		perf_stack_free(h, &t->v[i].st);
		perf_stack_free(h, &t->v[i].wk);
		perf_stack_free(h, &t->v[i].pwk);
	}
	h->free(t->v);
	memset(t, 0, sizeof *t);
}

/* The thread's slot, added when missing; NULL when out of memory. */
static struct tstate *table_get(const struct fk_host *h, struct table *t, long long tid)
{
	size_t j;

	if ((!t->v || (t->n + 1) * 2 > t->mask) &&
	    perf_pair_table_grow(h, (void **)&t->v, &t->mask, 63, sizeof *t->v, slot_of_state) < 0)
		return NULL;
	for (j = slot_of(tid, t->mask); t->v[j].used; j = (j + 1) & t->mask)
		if (t->v[j].tid == tid)
			return &t->v[j];
	t->v[j].used = true;
	t->v[j].tid = tid;
	t->n++;
	return &t->v[j];
}

static struct tstate *table_find(const struct table *t, long long tid)
{
	if (!t->v)
		return NULL;
	for (size_t j = slot_of(tid, t->mask); t->v[j].used; j = (j + 1) & t->mask)
		if (t->v[j].tid == tid)
			return &t->v[j];
	return NULL;
}

/* Push the wait of s, which ends at t_in, to its stack, or to its chain
 * with the waker (--wakeups).  A wait ending before it began (records out
 * of time order) is counted, not charged. */
static int charge(struct pusher *p, struct tstate *s, int64_t t_in, struct stack *chain,
                  struct pair_counts *c)
{
	struct fk_sample smp = s->meta;
	const struct stack *st = &s->st;
	int64_t d = t_in - s->t_out;

	s->pending = false;
	if (d < 0) {
		c->back++;
		return 0;
	}
	if (s->has_wk) {
		if (perf_chain_build(p->h, chain, &s->st, &s->wk) < 0)
			return FK_ERR_NOMEM;
		st = chain;
	}
	smp.weight[0] = d % 1000 == 0 ? (double)(d / 1000) : (double)d / 1000.0;
	smp.comm = st->names; /* the comm frame comes first */
	return perf_push_stack(p, st, &smp, NULL);
}

static void stack_swap(struct stack *a, struct stack *b)
{
	struct stack tmp = *a;
	*a = *b;
	*b = tmp;
}

/* Free a segment's or the run's state, self, with its table and chain. */
static void state_free(const struct fk_host *h, void *self, struct table *t, struct stack *chain)
{
	table_free(h, t);
	perf_stack_free(h, chain);
	h->free(self);
}

static void seg_free(const struct fk_host *h, void *seg)
{
	struct offcpu_seg *s = seg;

	if (!s)
		return;
	h->free(s->first);
	state_free(h, s, &s->t, &s->chain);
}

static int note_first(struct offcpu_seg *s, struct tstate *ts, bool in, int64_t t)
{
	if (ts->seen)
		return 0;
	ts->seen = true;
	if (s->nfirst == s->firstcap &&
	    perf_grow(s->h, (void **)&s->first, &s->firstcap, s->nfirst + 1, sizeof *s->first) < 0)
		return FK_ERR_NOMEM;
	s->first[s->nfirst++] = (struct first){ ts->tid, in, t };
	return 0;
}

/* A sched_switch record: switch-in of next_tid, then switch-out of
 * prev_tid with the record's stack (prev_tid <= 0: none). */
static int on_switch(struct offcpu_seg *s, struct pusher *p, long long next_tid, long long prev_tid,
                     const struct fk_sample *meta, const struct stack *st)
{
	const struct fk_host *h = s->h;
	struct tstate *ts;
	int rc;

	if (next_tid >= 0) {
		if (!(ts = table_get(h, &s->t, next_tid)))
			return FK_ERR_NOMEM;
		if (ts->pending)
			rc = charge(p, ts, meta->time_ns, &s->chain, &s->c);
		else
			rc = note_first(s, ts, true, meta->time_ns);
		if (rc < 0)
			return rc;
	}
	if (prev_tid > 0) {
		if (!(ts = table_get(h, &s->t, prev_tid)))
			return FK_ERR_NOMEM;
		if (ts->pending)
			s->c.unmatched++; /* two switch-outs, no switch-in between: keep the later */
		else if ((rc = note_first(s, ts, false, 0)) < 0)
			return rc;
		ts->pending = true;
		ts->has_wk = false;
		ts->t_out = meta->time_ns;
		ts->meta = *meta;
		ts->meta.comm = NULL; /* set from the copied names when charged */
		ts->meta.flags |= FK_SAMPLE_TID;
		ts->meta.tid = (int32_t)prev_tid;
		if (perf_stack_copy(h, &ts->st, st) < 0)
			return FK_ERR_NOMEM;
	}
	return 0;
}

/* A sched_wakeup (or sched_waking) of `wakee` by the record's thread,
 * whose stack st is (--wakeups): kept as the waker of wakee's wait. */
static int on_wakeup(struct offcpu_seg *s, long long wakee, const struct stack *st)
{
	struct tstate *ts;

	if (wakee <= 0) {
		s->c.stray++; /* the idle task, or no thread at all */
		return 0;
	}
	if (!(ts = table_get(s->h, &s->t, wakee)))
		return FK_ERR_NOMEM;
	if (ts->pending) {
		ts->has_wk = true;
		return perf_stack_copy(s->h, &ts->wk, st);
	}
	if (ts->seen) {
		s->c.stray++; /* running, or between its switch-in and switch-out */
		return 0;
	}
	/* before its first switch here: whether it waits is settled later */
	ts->npre++;
	return perf_stack_copy(s->h, &ts->pwk, st);
}

/* The records --offcpu keeps: sched_switch, and for --wakeups
 * sched_wakeup or sched_waking; the others are counted. */
static bool keep(void *seg, const struct fk_perf_opts *o, const struct header *hd,
                 struct pair_rec *pr)
{
	struct offcpu_seg *s = seg;
	uint64_t v;

	if (!hd->event)
		goto other;
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
		if (perf_pair_field(hd, "pid", &v) != PF_OK || v > INT32_MAX) {
			s->c.bad++;
			return false;
		}
		pr->kind = PK_WAKEUP;
		pr->wakee = (long long)v;
		return true;
	}
other:
	s->c.other++;
	return false;
}

static int record(void *seg, struct pusher *p, const struct pair_rec *pr,
                  const struct fk_sample *meta, const struct stack *st)
{
	if (pr->kind == PK_SWITCH)
		/* a wait needs both ends' times */
		return meta->flags & FK_SAMPLE_TIME ?
		       on_switch(seg, p, pr->next_tid, pr->prev_tid, meta, st) : 0;
	return pr->kind == PK_WAKEUP ? on_wakeup(seg, pr->wakee, st) : 0;
}

static void run_free(const struct fk_host *h, void *run)
{
	struct offcpu_run *r = run;

	if (r)
		state_free(h, r, &r->t, &r->chain);
}

static int settle(void *run, void *seg, struct pusher *p)
{
	struct offcpu_run *r = run;
	struct offcpu_seg *s = seg;
	const struct fk_host *h = r->h;
	int rc;

	/* the wakeups before a thread's first switch here wake the wait left
	 * open before, if any: they come before that switch */
	for (size_t i = 0; s->t.v && i <= s->t.mask; i++) {
		struct tstate *ts = &s->t.v[i], *g;
		if (!ts->used || !ts->npre)
			continue;
		g = table_find(&r->t, ts->tid);
		if (!g || !g->pending) {
			r->c.stray += ts->npre;
			continue;
		}
		g->has_wk = true;
		stack_swap(&g->wk, &ts->pwk);
	}
	/* each thread's first switch here meets the wait left open before */
	for (size_t i = 0; i < s->nfirst; i++) {
		struct tstate *g = table_find(&r->t, s->first[i].tid);
		if (!g || !g->pending)
			continue;
		if (s->first[i].in) {
			if ((rc = charge(p, g, s->first[i].t, &r->chain, &r->c)) < 0)
				return rc;
		} else {
			g->pending = false;
			r->c.unmatched++;
		}
	}
	/* the waits still open at the end of this segment carry on */
	for (size_t i = 0; s->t.v && i <= s->t.mask; i++) {
		struct tstate *ts = &s->t.v[i], *g;
		if (!ts->used || !ts->pending)
			continue;
		if (!(g = table_get(h, &r->t, ts->tid)))
			return FK_ERR_NOMEM;
		g->pending = true;
		g->t_out = ts->t_out;
		g->meta = ts->meta;
		stack_swap(&g->st, &ts->st); /* no copy */
		g->has_wk = ts->has_wk;
		if (ts->has_wk)
			stack_swap(&g->wk, &ts->wk);
		ts->pending = false;
	}
	perf_pair_counts_add(&r->c, &s->c);
	return 0;
}

static void report(const struct fk_host *h, struct fk_input *in, const void *run,
                   const struct fk_perf_opts *o)
{
	const struct offcpu_run *r = run;
	bool wakeups = o->wakeups;
	const struct pair_counts *c = &r->c;
	const char *name = h->input_name(in);
	uint64_t unmatched = c->unmatched;

	for (size_t i = 0; r->t.v && i <= r->t.mask; i++)
		unmatched += r->t.v[i].used && r->t.v[i].pending;
	if (unmatched)
		h->log(FK_LOG_WARN, "%s: %llu switch-out%s had no later switch-in of the same "
		       "thread (still off CPU when the capture ended, or exited); that time is "
		       "not counted", name, (unsigned long long)unmatched,
		       unmatched == 1 ? "" : "s");
	if (c->back)
		h->log(FK_LOG_WARN, "%s: %llu wait%s ended before %s began (records out of time "
		       "order); not counted", name, (unsigned long long)c->back,
		       c->back == 1 ? "" : "s", c->back == 1 ? "it" : "they");
	if (c->stray)
		h->log(FK_LOG_WARN, "%s: %llu wakeup%s of a thread not known to be blocked (never "
		       "switched out before, or running); %s nothing", name,
		       (unsigned long long)c->stray, c->stray == 1 ? " was" : "s were",
		       c->stray == 1 ? "it chains" : "they chain");
	if (c->bad)
		h->log(FK_LOG_WARN, "%s: %llu sched_wakeup record%s had no pid=NUMBER field; "
		       "skipped", name, (unsigned long long)c->bad, c->bad == 1 ? "" : "s");
	if (c->other)
		h->log(FK_LOG_INFO, "%s: %s ignored %llu record%s that are not sched:sched_switch%s "
		       "events", name, wakeups ? "--wakeups" : "--offcpu",
		       (unsigned long long)c->other, c->other == 1 ? "" : "s",
		       wakeups ? " or sched_wakeup" : "");
}

const struct pair_mode perf_offcpu_mode = {
	.seg_size = sizeof(struct offcpu_seg),
	.run_size = sizeof(struct offcpu_run),
	.seg_free = seg_free,
	.run_free = run_free,
	.keep = keep,
	.record = record,
	.settle = settle,
	.report = report,
};
