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

static int render_timed(const struct fk_host *h, const struct fk_profile *p, struct fk_writer *w,
                        const struct svg_opts *oin, size_t ns)
{
	struct svg_opts o = *oin;
	struct ts *v = h->alloc(ns * sizeof *v);
	int64_t *gaps = h->alloc(ns * sizeof *gaps);
	struct svg_frame *all = NULL;
	size_t nall = 0, capall = 0, m = 0, ng = 0, cap = 0;
	fk_frame_t *path = NULL;
	char (*labels)[48] = NULL;
	size_t nlanes = 0;
	int64_t t0 = INT64_MAX, t1 = INT64_MIN, interval;
	uint32_t row = 0;
	struct svg_axis axis = { 0, 1e9 };
	struct svg_doc d;
	int rc = FK_ERR_NOMEM, diff;

	svg_width_series(h, p, &diff);
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
	for (size_t i = 0; i < m; i++) {
		if (v[i].t < t0)
			t0 = v[i].t;
		if (i + 1 < m && v[i + 1].lane == v[i].lane && v[i + 1].t > v[i].t)
			gaps[ng++] = v[i + 1].t - v[i].t;
	}
	if (o.frequency > 0) {
		interval = (int64_t)(o.frequency * 1e6);
	} else if (ng) {
		qsort(gaps, ng, sizeof *gaps, cmp_i64);
		interval = gaps[ng / 2];
	} else {
		interval = 10000000; /* one sample alone: 10 ms */
	}
	if (interval < 1)
		interval = 1;
	labels = h->alloc((m + 1) * sizeof *labels);
	if (!labels)
		goto out;
	for (size_t a = 0; a < m;) {
		size_t b = a;
		struct flow fl;
		uint32_t maxrow = row;
		while (b < m && v[b].lane == v[a].lane)
			b++;
		layout_flow_begin(&fl, h, diff, row);
		fl.maxdelta = 1;
		for (size_t k = a; k < b; k++) {
			const struct fk_logged_sample *s = h->sample(p, v[k].i);
			size_t dep = h->node_depth(p, s->leaf);
			fk_node_t n = s->leaf;
			int64_t end = v[k].t + interval;
			if (k + 1 < b && v[k + 1].t < end)
				end = v[k + 1].t;
			if (dep + 1 > cap) {
				fk_frame_t *np = h->realloc(path, (dep + 64) * sizeof *np);
				if (!np) {
					layout_flow_free(&fl);
					goto out;
				}
				path = np;
				cap = dep + 64;
			}
			for (size_t q = dep; q > 0; q--) {
				path[o.reverse ? dep - q : q - 1] = h->node_frame(p, n);
				n = h->node_parent(p, n);
			}
			if (row + dep > maxrow)
				maxrow = row + (uint32_t)dep;
			if (layout_flow_add(&fl, path, dep, (double)(v[k].t - t0), 0) < 0) {
				layout_flow_free(&fl);
				goto out;
			}
			/* idle until the next sample: close all but the thread */
			if (k + 1 == b || v[k + 1].t > end)
				if (layout_flow_add(&fl, NULL, 0, (double)(end - t0), 0) < 0) {
					layout_flow_free(&fl);
					goto out;
				}
			if (end > t1)
				t1 = end;
		}
		if (layout_flow_end(&fl, (double)(v[b - 1].t + interval - t0)) < 0) {
			layout_flow_free(&fl);
			goto out;
		}
		if (v[b - 1].t + interval > t1)
			t1 = v[b - 1].t + interval;
		snprintf(labels[nlanes], sizeof labels[0], "thread %lld", (long long)v[a].lane);
		for (size_t k = 0; k < fl.n; k++) {
			if (fl.out[k].frame == FK_FRAME_NONE && fl.out[k].row == row) {
				fl.out[k].flags |= SF_LABEL;
				fl.out[k].label = labels[nlanes];
				fl.out[k].label_len = strlen(labels[nlanes]);
			}
		}
		nlanes++;
		if (nall + fl.n > capall) {
			size_t nc = (nall + fl.n) * 2;
			struct svg_frame *na = h->realloc(all, nc * sizeof *na);
			if (!na) {
				h->free(fl.out);
				goto out;
			}
			all = na;
			capall = nc;
		}
		memcpy(all + nall, fl.out, fl.n * sizeof *fl.out);
		nall += fl.n;
		h->free(fl.out);
		row = maxrow + 1;
		a = b;
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
	d.timemax = (double)(t1 - t0);
	d.maxdelta = 1;
	d.axis = &axis;
	rc = svg_write(&d, all, nall);
out:
	if (rc == FK_ERR_NOMEM)
		h->log(FK_LOG_ERROR, "out of memory laying out the flame chart");
	h->free(v);
	h->free(gaps);
	h->free(all);
	h->free(path);
	h->free(labels);
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
};

FLAMEKIT_REGISTER_OUTPUT(plugin)
