/*
 * Laying frames out as flamegraph.pl does.
 *
 * Flame graph: flamegraph.pl sorts the folded lines and merges each line
 * with the previous one, so a frame starts where its first line starts and
 * its own samples come before its children's (its own line, "a;b 5", sorts
 * before "a;b;c 3").  On the merged tree that is: a node's first child starts
 * after the node's self count, the next child after the first, and so on in
 * node_children() order, which is flamegraph.pl's line order.
 *
 * Flame chart (--flamechart): lines are taken in input order and only
 * adjacent lines merge.  The sample log holds one sample per input line, so
 * replaying it through flamegraph.pl's flow() gives the same frames.
 */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "layout.h"
#include "vector/fkvector.h"

struct vec {
	const struct fk_host *h;
	struct svg_frame *v;
	size_t n, cap;
};

static struct svg_frame *vec_push(struct vec *a)
{
	if (fk_vector_grow((void **)&a->v, &a->cap, a->n + 1, sizeof *a->v, a->h->realloc) < 0)
		return NULL;
	memset(&a->v[a->n], 0, sizeof a->v[0]);
	return &a->v[a->n++];
}

int svg_width_series(const struct fk_host *h, const struct fk_profile *p, int *differential)
{
	unsigned mask = h->series_mask(p);
	*differential = (mask & 2) != 0;
	return (mask & 2) ? 1 : 0;
}

/* Is node n's frame the "--" that separates a chain graph's stacks? */
static bool separator(const struct fk_host *h, const struct fk_profile *p, fk_node_t n)
{
	size_t len;
	const char *name;

	if (n == 0)
		return false;
	name = h->frame_name(p, h->node_frame(p, n), &len);
	return len == 2 && memcmp(name, "--", 2) == 0;
}

/* The largest change of any frame, kept or not: differential colours
 * scale against it. */
static double max_delta(const struct fk_host *h, const struct fk_profile *p, const struct svg_opts *o)
{
	size_t nn = h->nodes(p);
	double m = 1;

	for (size_t i = 0; i < nn; i++) {
		fk_node_t n = (fk_node_t)i;
		double d = o->diff_subtree ? h->node_total(p, n, 1) - h->node_total(p, n, 0)
		                           : h->node_self(p, n, 1) - h->node_self(p, n, 0);
		if (fabs(d) > m)
			m = fabs(d);
	}
	return m;
}

/*
 * Depth first from the root, children in node_children() order, so the
 * frames come out in the same order whatever the node ids (which depend on
 * how the input was split among threads).  A frame narrower than minw is
 * skipped with its whole subtree (children are never wider than their
 * parent): the walk costs what is drawn, not what the tree holds.
 */
int layout_tree(const struct fk_host *h, const struct fk_profile *p, const struct svg_opts *o,
                double minw, struct svg_frame **out, size_t *nout, double *maxdelta)
{
	struct vec a = { h, NULL, 0, 0 };
	struct { fk_node_t n; double x; bool waker; } *st = NULL;
	size_t sp = 0, scap = 0;
	int diff, ws = svg_width_series(h, p, &diff), rc = 0;
	/* --colors=chain: the frames above a "--" are the waker stack */
	bool chain = o->colors && strcmp(o->colors, "chain") == 0;

	*maxdelta = diff ? max_delta(h, p, o) : 1;
	if (h->node_total(p, FK_NODE_ROOT, ws) >= minw) {
		scap = 256;
		if (!(st = h->alloc(scap * sizeof *st)))
			return FK_ERR_NOMEM;
		st[sp].n = FK_NODE_ROOT;
		st[sp].waker = false;
		st[sp++].x = 0;
	}
	while (sp > 0) {
		fk_node_t n = st[--sp].n;
		double x = st[sp].x, tot = h->node_total(p, n, ws);
		bool waker = st[sp].waker, kid_waker = chain && (waker || separator(h, p, n));
		const fk_node_t *kids;
		size_t k = h->node_children(p, n, &kids), keep = 0;
		struct svg_frame *f = vec_push(&a);

		if (!f) {
			rc = FK_ERR_NOMEM;
			break;
		}
		f->frame = n != FK_NODE_ROOT ? h->node_frame(p, n) : FK_FRAME_NONE;
		if (waker)
			f->palette = PAL_CHAIN_WAKER;
		f->row = h->node_depth(p, n);
		f->stime = x;
		f->etime = x + tot;
		if (diff) {
			f->flags |= SF_DELTA;
			f->delta = o->diff_subtree ? h->node_total(p, n, 1) - h->node_total(p, n, 0)
			                           : h->node_self(p, n, 1) - h->node_self(p, n, 0);
		}
		if (fk_vector_grow((void **)&st, &scap, sp + k, sizeof *st, h->realloc) < 0) {
			rc = FK_ERR_NOMEM;
			break;
		}
		/* push the kept children in reverse, so they pop in order */
		x += h->node_self(p, n, ws);
		for (size_t j = 0; j < k; j++) {
			double t = h->node_total(p, kids[j], ws);
			if (t >= minw) {
				st[sp + keep].n = kids[j];
				st[sp + keep].waker = kid_waker;
				st[sp + keep++].x = x;
			}
			x += t;
		}
		for (size_t i = 0, j = keep; i < j / 2; i++) {
			__typeof__(*st) t = st[sp + i];
			st[sp + i] = st[sp + j - 1 - i];
			st[sp + j - 1 - i] = t;
		}
		sp += keep;
	}
	h->free(st);
	if (rc < 0) {
		h->free(a.v);
		return rc;
	}
	*out = a.v;
	*nout = a.n;
	return 0;
}

int layout_flow_begin(struct flow *fl, const struct fk_host *h, int differential, uint32_t row0)
{
	memset(fl, 0, sizeof *fl);
	fl->h = h;
	fl->differential = differential;
	fl->row0 = row0;
	return 0;
}

/* Close frames last[len_same..] at time t. */
static int close_to(struct flow *fl, size_t len_same, double t)
{
	while (fl->nlast > len_same) {
		size_t i = --fl->nlast;
		struct svg_frame *f;
		if (fk_vector_grow((void **)&fl->out, &fl->cap, fl->n + 1, sizeof *fl->out, fl->h->realloc) < 0)
			return FK_ERR_NOMEM;
		f = &fl->out[fl->n++];
		memset(f, 0, sizeof *f);
		f->frame = fl->last[i].frame;
		f->row = fl->row0 + (uint32_t)i;
		f->stime = fl->last[i].stime;
		f->etime = t;
		if (fl->differential) {
			f->flags |= SF_DELTA;
			f->delta = fl->last[i].delta;
			if (fabs(f->delta) > fl->maxdelta)
				fl->maxdelta = fabs(f->delta);
		}
	}
	return 0;
}

/* One line: frames[0..n) root first (without the "all" root), starting at t. */
int layout_flow_add(struct flow *fl, const fk_frame_t *frames, size_t n, double t, double delta)
{
	size_t same = 0, want = n + 1;

	if (fk_vector_grow((void **)&fl->last, &fl->lastcap, want, sizeof *fl->last, fl->h->realloc) < 0)
		return FK_ERR_NOMEM;
	if (fl->nlast > 0)
		same = 1; /* the root is always shared */
	while (same < fl->nlast && same < want && fl->last[same].frame == frames[same - 1])
		same++;
	if (close_to(fl, same, t) < 0)
		return FK_ERR_NOMEM;
	for (size_t i = fl->nlast; i < want; i++) {
		fl->last[i].frame = i ? frames[i - 1] : FK_FRAME_NONE;
		fl->last[i].stime = t;
		fl->last[i].delta = 0;
	}
	fl->nlast = want;
	/* flamegraph.pl adds the delta only to a frame it opens, so a repeated
	 * line lost its delta; the leaf always gets it here. */
	fl->last[want - 1].delta += delta;
	return 0;
}

void layout_flow_free(struct flow *fl)
{
	fl->h->free(fl->last);
	fl->h->free(fl->out);
	fl->last = NULL;
	fl->out = NULL;
}

int layout_flow_end(struct flow *fl, double t)
{
	int rc = close_to(fl, 0, t);
	fl->h->free(fl->last);
	fl->last = NULL;
	return rc;
}

int layout_samples(const struct fk_host *h, const struct fk_profile *p, const struct svg_opts *o,
                   struct svg_frame **out, size_t *nout, double *maxdelta, double *time)
{
	size_t ns = h->samples(p), cap = 0;
	fk_frame_t *path = NULL;
	struct flow fl;
	int diff, ws = svg_width_series(h, p, &diff), rc = 0;
	double t = 0;

	layout_flow_begin(&fl, h, diff, 0);
	fl.maxdelta = 1;
	for (size_t i = 0; i < ns && rc == 0; i++) {
		const struct fk_logged_sample *s = h->sample(p, i);
		size_t d = h->node_depth(p, s->leaf);
		fk_node_t n = s->leaf;
		if (fk_vector_grow((void **)&path, &cap, d + 1, sizeof *path, h->realloc) < 0) {
			rc = FK_ERR_NOMEM;
			break;
		}
		for (size_t k = d; k > 0; k--) {
			path[o->reverse ? d - k : k - 1] = h->node_frame(p, n);
			n = h->node_parent(p, n);
		}
		rc = layout_flow_add(&fl, path, d, t, diff ? s->weight[1] - s->weight[0] : 0);
		t += s->weight[ws];
	}
	if (rc == 0)
		rc = layout_flow_end(&fl, t);
	else
		h->free(fl.last);
	h->free(path);
	if (rc < 0) {
		h->free(fl.out);
		return rc;
	}
	*out = fl.out;
	*nout = fl.n;
	*maxdelta = fl.maxdelta;
	*time = t;
	return 0;
}

int svg_render_profile(const struct fk_host *h, const struct fk_profile *p, struct fk_writer *w,
                       const struct svg_opts *o, const char *default_title, int flow)
{
	struct svg_doc d;
	struct svg_frame *v = NULL;
	struct fk_profile *rev = NULL;
	size_t n = 0;
	int diff, ws, rc;
	double time;

	if ((rc = svg_check_opts(h, o)) < 0)
		return rc;
	if (o->reverse && !flow) {
		rev = h->profile_reversed(p);
		if (!rev) {
			h->log(FK_LOG_ERROR, "out of memory reversing the stacks");
			return FK_ERR_NOMEM;
		}
		p = rev;
	}
	ws = svg_width_series(h, p, &diff);
	memset(&d, 0, sizeof d);
	d.h = h;
	d.p = p;
	d.w = w;
	d.o = o;
	d.default_title = default_title;
	d.differential = diff;
	if (flow) {
		rc = layout_samples(h, p, o, &v, &n, &d.maxdelta, &time);
	} else {
		time = h->node_total(p, FK_NODE_ROOT, ws);
		d.timemax = o->total > time ? o->total : time;
		rc = layout_tree(h, p, o, d.timemax > 0 ? svg_minwidth_time(o, d.timemax) : 0, &v, &n,
		                 &d.maxdelta);
	}
	if (rc == 0) {
		if (o->total > 0 && o->total < time && o->total / time > 0.02)
			h->log(FK_LOG_WARN, "--total %g is less than the actual total %g, so ignored", o->total, time);
		d.timemax = o->total > time ? o->total : time;
		/* flamegraph.pl draws the root across the whole --total */
		for (size_t i = 0; i < n; i++)
			if (v[i].frame == FK_FRAME_NONE && v[i].row == 0)
				v[i].etime = d.timemax;
		rc = svg_write(&d, v, n);
	} else {
		h->log(FK_LOG_ERROR, "out of memory laying out the graph");
	}
	h->free(v);
	if (rev)
		h->profile_free(rev);
	return rc;
}
