/*
 * Output plugin "flamechart": stacks along an x axis of time.
 *
 * With timestamps (perf samples carry time_ns and tid), each thread gets a
 * band whose root frame names the thread; its samples are taken in time
 * order, each lasting until the thread's next sample but at most one
 * sampling interval (--interval, or the median gap between a thread's
 * samples), so idle time stays empty; adjacent identical stacks merge.  The
 * axis is labelled in seconds from the first sample, tooltips in ms.
 *
 * Without timestamps (folded input), it is flamegraph.pl's --flamechart:
 * input lines in order, adjacent ones merged, x = cumulated counts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout.h"
#include "vector/fkvector.h"

static const struct fk_option options[] = {
	SVG_COMMON_OPTIONS("0"),
	FK_OPTION(FK_OPT_FLAG, "flamechart", "1", struct svg_opts, flamechart,
	          "accepted for flamegraph.pl compatibility (always a flame chart)"),
	FK_OPTION(FK_OPT_DOUBLE, "interval", "0", struct svg_opts, frequency,
	          "longest time one sample stands for, in ms (0: the median gap between samples)"),
	FK_OPTION_END,
};

struct ts {
	int64_t lane, t;
	size_t i;
};

static int cmp_ts(const void *a, const void *b)
{
	const struct ts *x = a, *y = b;
	if (x->lane != y->lane)
		return x->lane < y->lane ? -1 : 1;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* A timed chart being laid out: threads one after the other, rows upward. */
struct chart {
	const struct fk_host *h;
	const struct fk_profile *p;
	const struct svg_opts *o;
	const struct ts *v;      /* timed samples by thread, then time */
	int diff;
	int64_t t0, t1, interval;
	uint32_t row;            /* first row of the next thread */
	fk_frame_t *path;
	size_t cap;
	struct svg_frame *all;   /* every thread's frames */
	size_t nall, capall;
	char (*labels)[48];      /* "thread N", one per thread */
	size_t nlanes;
};

/* The first timestamp, and how long one sample lasts at most: --interval,
 * else the median gap between a thread's consecutive samples. */
static void sample_interval(struct chart *c, size_t m, int64_t *gaps)
{
	const struct ts *v = c->v;
	size_t ng = 0;

	c->t0 = INT64_MAX;
	for (size_t i = 0; i < m; i++) {
		if (v[i].t < c->t0)
			c->t0 = v[i].t;
		if (i + 1 < m && v[i + 1].lane == v[i].lane && v[i + 1].t > v[i].t)
			gaps[ng++] = v[i + 1].t - v[i].t;
	}
	if (c->o->frequency > 0) {
		/* an interval past int64 is longer than any span of times
		 * anyway: each sample lasts until the next (sample_end keeps
		 * the sums in range) */
		double iv = c->o->frequency * 1e6;
		c->interval = iv < 0x1p63 ? (int64_t)iv : INT64_MAX;
	} else if (ng) {
		qsort(gaps, ng, sizeof *gaps, cmp_i64);
		c->interval = gaps[ng / 2];
	} else {
		c->interval = 10000000; /* one sample alone: 10 ms */
	}
	if (c->interval < 1)
		c->interval = 1;
}

/* When the sample at time t ends at most: one interval later, but never
 * so late that its distance from t0 overflows (times keep within 2^62 ns
 * of 0, so t - t0 fits; t - t0 + interval may not). */
static int64_t sample_end(const struct chart *c, int64_t t)
{
	int64_t room = INT64_MAX - (t - c->t0);

	return t + (c->interval < room ? c->interval : room);
}

/* Samples v[a..b) of one thread through flow(), each lasting until the
 * next one but at most one interval; idle time closes all but the thread. */
static int lay_samples(struct chart *c, struct flow *fl, size_t a, size_t b, uint32_t *maxrow)
{
	const struct fk_host *h = c->h;
	const struct ts *v = c->v;

	for (size_t k = a; k < b; k++) {
		const struct fk_logged_sample *s = h->sample(c->p, v[k].i);
		size_t dep = h->node_depth(c->p, s->leaf);
		fk_node_t n = s->leaf;
		int64_t end = sample_end(c, v[k].t);
		if (k + 1 < b && v[k + 1].t < end)
			end = v[k + 1].t;
		if (fk_vector_grow((void **)&c->path, &c->cap, dep + 1, sizeof *c->path, h->realloc) < 0)
			return FK_ERR_NOMEM;
		for (size_t q = dep; q > 0; q--) {
			c->path[c->o->reverse ? dep - q : q - 1] = h->node_frame(c->p, n);
			n = h->node_parent(c->p, n);
		}
		if (c->row + dep > *maxrow)
			*maxrow = c->row + (uint32_t)dep;
		if (layout_flow_add(fl, c->path, dep, (double)(v[k].t - c->t0), 0) < 0)
			return FK_ERR_NOMEM;
		if ((k + 1 == b || v[k + 1].t > end) &&
		    layout_flow_add(fl, NULL, 0, (double)(end - c->t0), 0) < 0)
			return FK_ERR_NOMEM;
		if (end > c->t1)
			c->t1 = end;
	}
	return 0;
}

/* One thread's band: its frames, its root labelled "thread N", appended
 * to c->all. */
static int lay_lane(struct chart *c, size_t a, size_t b)
{
	const struct fk_host *h = c->h;
	const struct ts *v = c->v;
	struct flow fl;
	uint32_t maxrow = c->row;

	layout_flow_begin(&fl, h, c->diff, c->row);
	fl.maxdelta = 1;
	if (lay_samples(c, &fl, a, b, &maxrow) < 0 ||
	    layout_flow_end(&fl, (double)(sample_end(c, v[b - 1].t) - c->t0)) < 0) {
		layout_flow_free(&fl);
		return FK_ERR_NOMEM;
	}
	if (sample_end(c, v[b - 1].t) > c->t1)
		c->t1 = sample_end(c, v[b - 1].t);
	snprintf(c->labels[c->nlanes], sizeof c->labels[0], "thread %lld", (long long)v[a].lane);
	for (size_t k = 0; k < fl.n; k++) {
		if (fl.out[k].frame == FK_FRAME_NONE && fl.out[k].row == c->row) {
			fl.out[k].flags |= SF_LABEL;
			fl.out[k].label = c->labels[c->nlanes];
			fl.out[k].label_len = strlen(c->labels[c->nlanes]);
		}
	}
	c->nlanes++;
	if (fk_vector_grow((void **)&c->all, &c->capall, c->nall + fl.n, sizeof *c->all,
	                   h->realloc) < 0) {
		h->free(fl.out);
		return FK_ERR_NOMEM;
	}
	memcpy(c->all + c->nall, fl.out, fl.n * sizeof *fl.out);
	c->nall += fl.n;
	h->free(fl.out);
	c->row = maxrow + 1;
	return 0;
}

static int render_timed(const struct fk_host *h, const struct fk_profile *p, struct fk_writer *w,
                        const struct svg_opts *oin, size_t ns)
{
	struct svg_opts o = *oin;
	struct ts *v = h->alloc(ns * sizeof *v);
	int64_t *gaps = h->alloc(ns * sizeof *gaps);
	struct chart c;
	size_t m = 0;
	struct svg_axis axis = { 0, 1e9 };
	struct svg_doc d;
	int rc = FK_ERR_NOMEM;

	memset(&c, 0, sizeof c);
	c.h = h;
	c.p = p;
	c.o = &o;
	c.v = v;
	c.t1 = INT64_MIN;
	svg_width_series(h, p, &c.diff);
	if (!v || !gaps)
		goto out;
	for (size_t i = 0; i < ns; i++) {
		const struct fk_logged_sample *s = h->sample(p, i);
		if (!(s->flags & FK_SAMPLE_TIME))
			continue;
		v[m].lane = (s->flags & FK_SAMPLE_TID) ? s->tid : (s->flags & FK_SAMPLE_PID) ? s->pid : 0;
		v[m].t = s->time_ns;
		v[m].i = i;
		m++;
	}
	qsort(v, m, sizeof *v, cmp_ts);
	sample_interval(&c, m, gaps);
	c.labels = h->alloc((m + 1) * sizeof *c.labels);
	if (!c.labels)
		goto out;
	for (size_t a = 0, b; a < m; a = b) {
		for (b = a; b < m && v[b].lane == v[a].lane; b++)
			;
		if (lay_lane(&c, a, b) < 0)
			goto out;
	}
	if (strcmp(o.countname, "samples") == 0) {
		o.countname = "ms";
		o.factor = o.factor / 1e6;
	}
	memset(&d, 0, sizeof d);
	d.h = h;
	d.p = p;
	d.w = w;
	d.o = &o;
	d.default_title = "Flame Chart";
	d.timemax = (double)(c.t1 - c.t0);
	d.maxdelta = 1;
	d.axis = &axis;
	rc = svg_write(&d, c.all, c.nall);
out:
	if (rc == FK_ERR_NOMEM)
		h->log(FK_LOG_ERROR, "out of memory laying out the flame chart");
	h->free(v);
	h->free(gaps);
	h->free(c.all);
	h->free(c.path);
	h->free(c.labels);
	return rc;
}

static int render(const struct fk_host *h, const struct fk_profile *p, struct fk_writer *w, const void *opts)
{
	const struct svg_opts *o = opts;
	size_t ns = h->samples(p);
	int rc;

	if ((rc = svg_check_opts(h, o)) < 0)
		return rc;
	for (size_t i = 0; i < ns; i++)
		if (h->sample(p, i)->flags & FK_SAMPLE_TIME)
			return render_timed(h, p, w, o, ns);
	return svg_render_profile(h, p, w, o, "Flame Chart", 1);
}

static struct fk_output_plugin plugin = {
	.h = {
		.name = "flamechart",
		.version = "1.0",
		.description = "flame chart: stacks along time (per thread), or in input order",
		.options = options,
		.options_size = sizeof(struct svg_opts),
	},
	.needs = FK_OUTPUT_NEEDS_SAMPLES,
	.render = render,
	.check = svg_check,
	.min_weight = svg_min_weight,
};

FLAMEKIT_REGISTER_OUTPUT(plugin)
