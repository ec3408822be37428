/*
 * Output plugin "hotcold": on-CPU samples (series 0) and off-CPU time
 * (series 1, from perf's --offcpu mode) in one flame graph, both in ms.
 *
 * On-CPU weights are converted from their unit: "ns" (perf cpu-clock
 * periods) and "us"/"ms" directly, "samples" as one sampling interval each,
 * 1000/--frequency ms (default 99 Hz, `perf record -F 99`, FlameGraph's
 * habit).  Off-CPU weights are "us" from perf --offcpu (or ns/ms/samples, the
 * same way).  On-CPU frames use --colors (hot by default), off-CPU frames
 * blues.
 *
 * Layout: by default the on-CPU stacks are drawn left of the off-CPU ones
 * under the root.  With --by-thread the split is made one level up: each
 * first frame (the comm, for perf stacks) is one frame holding that
 * thread's on-CPU stacks and then its off-CPU stacks, so a thread's running
 * and waiting time sit side by side.
 */
#include <math.h>
#include <string.h>

#include "layout.h"
#include "vector/fkvector.h"

static const struct fk_option options[] = {
	SVG_COMMON_OPTIONS("0"),
	FK_OPTION(FK_OPT_DOUBLE, "frequency", "99", struct svg_opts, frequency,
	          "sampling frequency in Hz, for weights counted in samples"),
	FK_OPTION(FK_OPT_FLAG, "by-thread", "0", struct svg_opts, by_thread,
	          "split on- and off-CPU time under each first frame (thread) instead of at the root"),
	FK_OPTION_END,
};

/* ms per unit of a series' weights. */
static double ms_per(const struct fk_host *h, const struct fk_profile *p, int s, double hz)
{
	const char *u = h->series_unit(p, s);
	if (u && strcmp(u, "ns") == 0)
		return 1e-6;
	if (u && strcmp(u, "us") == 0)
		return 1e-3;
	if (u && strcmp(u, "ms") == 0)
		return 1;
	if (u && strcmp(u, "s") == 0)
		return 1e3;
	/* off-CPU time without a unit (two-column folded input): microseconds,
	 * as offcputime and perf --offcpu write it */
	return s == 1 ? 1e-3 : 1000 / hz;
}

struct ctx {
	const struct fk_host *h;
	const struct fk_profile *p;
	double minw;
	struct svg_frame *v;
	size_t n, cap;
	fk_node_t *stack;
	double *sx;
	size_t scap;
};

static struct svg_frame *push(struct ctx *c)
{
	if (fk_vector_grow((void **)&c->v, &c->cap, c->n + 1, sizeof *c->v, c->h->realloc) < 0)
		return NULL;
	memset(&c->v[c->n], 0, sizeof c->v[0]);
	return &c->v[c->n++];
}

/* Push the nk children `kids` of a node onto the walk's stack, in reverse
 * so they pop in order, the first at x and each next one after the one
 * before (series s, scaled by k). */
static int push_kids(struct ctx *c, size_t *sp, const fk_node_t *kids, size_t nk, int s, double k,
                     double x)
{
	size_t c1 = c->scap, c2 = c->scap;

	/* the two parallel walk stacks share one capacity */
	if (fk_vector_grow((void **)&c->stack, &c1, *sp + nk, sizeof *c->stack, c->h->realloc) < 0 ||
	    fk_vector_grow((void **)&c->sx, &c2, *sp + nk, sizeof *c->sx, c->h->realloc) < 0)
		return FK_ERR_NOMEM;
	c->scap = c1 < c2 ? c1 : c2;
	for (size_t j = 0; j < nk; j++) {
		c->stack[*sp + nk - 1 - j] = kids[j];
		c->sx[*sp + nk - 1 - j] = x;
		x += c->h->node_total(c->p, kids[j], s) * k;
	}
	*sp += nk;
	return 0;
}

/* Lay out the descendants of `top` in series s (scaled by k), starting at x. */
static int walk(struct ctx *c, fk_node_t top, int s, double k, double x, const char *palette)
{
	const struct fk_host *h = c->h;
	size_t sp = 0;
	const fk_node_t *kids;
	size_t nk;
	int rc;

	nk = h->node_children(c->p, top, &kids);
	x += h->node_self(c->p, top, s) * k;
	if ((rc = push_kids(c, &sp, kids, nk, s, k, x)) < 0)
		return rc;
	while (sp > 0) {
		fk_node_t n = c->stack[--sp];
		double nx0 = c->sx[sp], w = h->node_total(c->p, n, s) * k;
		struct svg_frame *f;
		if (w <= 0 || w < c->minw)
			continue;
		if (!(f = push(c)))
			return FK_ERR_NOMEM;
		f->frame = h->node_frame(c->p, n);
		f->row = h->node_depth(c->p, n);
		f->stime = nx0;
		f->etime = nx0 + w;
		f->palette = palette;
		nk = h->node_children(c->p, n, &kids);
		if ((rc = push_kids(c, &sp, kids, nk, s, k, nx0 + h->node_self(c->p, n, s) * k)) < 0)
			return rc;
	}
	return 0;
}

static int render(const struct fk_host *h, const struct fk_profile *p, struct fk_writer *w, const void *opts)
{
	struct svg_opts o = *(const struct svg_opts *)opts;
	struct ctx c;
	struct svg_doc d;
	struct fk_profile *rev = NULL;
	double k0, k1, t0, t1;
	int rc;

	if ((rc = svg_check_opts(h, &o)) < 0)
		return rc;
	if (!(o.frequency > 0)) {
		h->log(FK_LOG_ERROR, "--frequency must be positive");
		return FK_ERR_USAGE;
	}
	if (o.reverse) {
		if (!(rev = h->profile_reversed(p)))
			return FK_ERR_NOMEM;
		p = rev;
	}
	if (strcmp(o.countname, "samples") == 0)
		o.countname = "ms";
	k0 = ms_per(h, p, 0, o.frequency);
	k1 = ms_per(h, p, 1, o.frequency);
	t0 = h->node_total(p, FK_NODE_ROOT, 0) * k0;
	t1 = h->node_total(p, FK_NODE_ROOT, 1) * k1;
	memset(&c, 0, sizeof c);
	c.h = h;
	c.p = p;
	memset(&d, 0, sizeof d);
	d.h = h;
	d.p = p;
	d.w = w;
	d.o = &o;
	d.default_title = "Hot/Cold Flame Graph";
	d.timemax = o.total > t0 + t1 ? o.total : t0 + t1;
	d.maxdelta = 1;
	rc = FK_ERR_NOMEM;
	if (d.timemax > 0) {
		struct svg_frame *f;
		c.minw = svg_minwidth_time(&o, d.timemax);
		if (!(f = push(&c)))
			goto out;
		f->frame = FK_FRAME_NONE;
		f->etime = d.timemax;
		if (!o.by_thread) {
			if (walk(&c, FK_NODE_ROOT, 0, k0, 0, NULL) < 0 ||
			    walk(&c, FK_NODE_ROOT, 1, k1, t0, "blue") < 0)
				goto out;
		} else {
			const fk_node_t *kids;
			size_t nk = h->node_children(p, FK_NODE_ROOT, &kids);
			double x = h->node_self(p, FK_NODE_ROOT, 0) * k0 + h->node_self(p, FK_NODE_ROOT, 1) * k1;
			for (size_t j = 0; j < nk; j++) {
				double a = h->node_total(p, kids[j], 0) * k0, b = h->node_total(p, kids[j], 1) * k1;
				if (a + b >= c.minw && a + b > 0) {
					if (!(f = push(&c)))
						goto out;
					f->frame = h->node_frame(p, kids[j]);
					f->row = 1;
					f->stime = x;
					f->etime = x + a + b;
					f->palette = a > 0 ? NULL : "blue";
					if (walk(&c, kids[j], 0, k0, x, NULL) < 0 ||
					    walk(&c, kids[j], 1, k1, x + a, "blue") < 0)
						goto out;
				}
				x += a + b;
			}
		}
	}
	rc = svg_write(&d, c.v, c.n);
out:
	if (rc == FK_ERR_NOMEM)
		h->log(FK_LOG_ERROR, "out of memory laying out the graph");
	h->free(c.v);
	h->free(c.stack);
	h->free(c.sx);
	if (rev)
		h->profile_free(rev);
	return rc;
}

static struct fk_output_plugin plugin = {
	.h = {
		.name = "hotcold",
		.version = "1.0",
		.description = "on-CPU (hot) and off-CPU (blue) time in one flame graph, in ms",
		.options = options,
		.options_size = sizeof(struct svg_opts),
	},
	.render = render,
	.check = svg_check,
};

FLAMEKIT_REGISTER_OUTPUT(plugin)
