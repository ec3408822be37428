/*
 * The pairing modes' one caller: --offcpu and --wakeups (offcpu.c), --leak
 * (leak.c), each a table of the same steps (struct pair_mode): a
 * segment's state is made (new), each record is asked for (keep) and, with
 * its stack, handed to it (record); the driver settles the segments in
 * input order (settle), then pushes what is left (end) and logs the
 * summaries (report).  The calls run one way: the driver and scan.c call
 * here, this calls the modes, and the modes call only the leaves below
 * them (pairstate.c, push.c, wakeups.c, frames.c, cache.c, fields.c).
 */
#include "internal.h"

static const struct pair_mode *mode_of(const struct fk_perf_opts *o)
{
	if (o->leak)
		return &perf_leak_mode;
	return o->offcpu || o->wakeups ? &perf_offcpu_mode : NULL;
}

int perf_pair_seg_new(const struct fk_host *h, const struct fk_perf_opts *o, struct seg_result *res)
{
	const struct pair_mode *m = mode_of(o);

	if (m && !(res->pair = perf_pair_state_new(h, m->seg_size)))
		return FK_ERR_NOMEM;
	return 0;
}

void perf_pair_seg_free(const struct fk_host *h, const struct fk_perf_opts *o,
                        struct seg_result *res)
{
	const struct pair_mode *m = mode_of(o);

	if (m)
		m->seg_free(h, res->pair);
	res->pair = NULL;
}

bool perf_pair_keep(struct seg_result *res, const struct fk_perf_opts *o, const struct header *hd,
                    struct pair_rec *pr)
{
	memset(pr, 0, sizeof *pr);
	pr->prev_tid = pr->next_tid = -1;
	return mode_of(o)->keep(res->pair, o, hd, pr);
}

int perf_pair_record(struct seg_result *res, const struct fk_perf_opts *o, struct pusher *p,
                     const struct pair_rec *pr, const struct fk_sample *meta,
                     const struct stack *st)
{
	if (meta->flags & FK_SAMPLE_TIME)
		perf_tcheck_note(&res->order, meta->time_ns);
	return mode_of(o)->record(res->pair, p, pr, meta, st);
}

int perf_pair_run_begin(const struct fk_host *h, const struct fk_perf_opts *o, struct pair_run *r)
{
	memset(r, 0, sizeof *r);
	r->m = mode_of(o);
	if (r->m && !(r->state = perf_pair_state_new(h, r->m->run_size)))
		return FK_ERR_NOMEM;
	return 0;
}

int perf_pair_settle(struct pair_run *r, struct seg_result *res, struct pusher *p)
{
	int rc;

	if (r->m && (rc = r->m->settle(r->state, res->pair, p)) < 0)
		return rc;
	perf_tcheck_join(&r->order, &res->order);
	return 0;
}

int perf_pair_end(struct pair_run *r, struct pusher *p)
{
	return r->m && r->m->end ? r->m->end(r->state, p) : 0;
}

void perf_pair_report(const struct fk_host *h, struct fk_input *in, const struct fk_perf_opts *o,
                      const struct pair_run *r)
{
	if (r->m)
		r->m->report(h, in, r->state, o);
	perf_tcheck_report(h, in, &r->order);
}

void perf_pair_run_free(const struct fk_host *h, struct pair_run *r)
{
	if (r->m)
		r->m->run_free(h, r->state);
	r->state = NULL;
}
