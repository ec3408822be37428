/*
 * Input plugin "chrome": the Trace Event Format JSON of Chrome and
 * Chromium (DevTools' Performance panel "Save profile", chrome://tracing,
 * --trace-startup, Perfetto's JSON export, and anything else that writes
 * the format), as {"traceEvents": [...]} or as a bare array of events:
 *
 *     {"ph": "P", "name": "Profile", "id": "0x1", "pid": 7, "tid": 7,
 *      "args": {"data": {"startTime": T0}}}
 *     {"ph": "P", "name": "ProfileChunk", "id": "0x1", "pid": 7, "tid": 9,
 *      "args": {"data": {"cpuProfile": {"nodes": [{"id": 1, "callFrame":
 *        {"functionName": "(root)", ...}}, {"id": 2, "parent": 1, ...}],
 *        "samples": [2, 2]}, "timeDeltas": [100, 250]}}}
 *     {"ph": "X", "name": "RunTask", "pid": 7, "tid": 7, "ts": T, "dur": D}
 *     {"ph": "M", "name": "thread_name", "pid": 7, "tid": 7, "args": {"name": "CrRendererMain"}}
 *
 * Two kinds of stacks (option events=, auto by default):
 *  - samples: the V8 CPU profiles.  A Profile event and the ProfileChunk
 *    events of its id (and pid) are one profile of the Profile event's
 *    thread; nodes are named as the v8 plugin names them ("FUNCTION
 *    URL:LINE", "(root)" not a frame).  Sample i is at startTime plus the
 *    time deltas up to it, samples are put in time order, and each weighs
 *    the time to the next one, in ns; the last weighs the interval before
 *    it (none when it is alone).  A sample of no time is not pushed.
 *    Older Chrome's "CpuProfile" event, a whole .cpuprofile (nodes with
 *    "children", its own startTime and timeDeltas) in args.data.cpuProfile,
 *    is one profile of its thread.
 *  - durations: B/E pairs and X events of each thread as a flame chart:
 *    nested by time, each stretch between two event boundaries one sample
 *    of the events open then, timed at its start and weighted by its
 *    length in ns (so a stack's total is its innermost event's self time).
 *    An event that starts inside another and ends after it is cut at the
 *    other's end.  An E without a B before it on its thread, a B never
 *    ended, and a B/E/X without a numeric ts (or an X without dur) are
 *    skipped and counted.
 * auto reads the samples when the trace has any, else the durations.  Each
 * sample carries its thread: pid, tid, and the thread_name metadata as its
 * thread name (comm).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chrome.h"
#include "fk_json.h"
#include "../common/time.h"

struct opts {
	const char *events;
	const char *max_input_size;
};

static const struct fk_option options[] = {
	FK_OPTION(FK_OPT_STRING, "events", "auto", struct opts, events,
	          "which stacks: samples (the V8 CPU profiles), durations (B/E and X events "
	          "as a flame chart) or auto (samples when the trace has any, else durations)"),
	FK_OPTION(FK_OPT_STRING, "max-input-size", "auto", struct opts, max_input_size, FK_LIMIT_HELP),
	FK_OPTION_END,
};

FK_LIMIT_CHECK_FN(check, struct opts, max_input_size)

struct ctx {
	const struct fk_host *h;
	struct fk_input *in;
	struct fk_sink *sink;
	struct cr_trace t;
	struct fk_frameref *refs;
	size_t caprefs;
	size_t *stack;             /* the open durations of a thread */
	size_t capstack;
};

static int nomem(struct ctx *c)
{
	c->h->input_error(c->in, 0, "out of memory");
	return FK_ERR_NOMEM;
}

static const struct cr_thread *thread_named(const struct ctx *c, int32_t pid, int32_t tid)
{
	for (size_t i = 0; i < c->t.nthreads; i++)
		if (c->t.threads[i].pid == pid && c->t.threads[i].tid == tid)
			return &c->t.threads[i];
	return NULL;
}

static void set_thread(const struct ctx *c, struct fk_sample *smp, int32_t pid, int32_t tid)
{
	const struct cr_thread *th = thread_named(c, pid, tid);

	smp->flags |= FK_SAMPLE_PID | FK_SAMPLE_TID;
	smp->pid = pid;
	smp->tid = tid;
	if (th && th->named && th->name_len) {
		smp->flags |= FK_SAMPLE_COMM;
		smp->comm = c->t.text + th->name_off;
		smp->comm_len = th->name_len;
	}
}

static int time_ns(struct ctx *c, double us, int64_t *ns)
{
	double x = us * 1000;

	if (!fk_time_ns_fits(x))
		return c->h->input_error(c->in, 0, "not a Chrome trace: an event or sample is at %g "
		                         "microseconds, beyond the " FK_TIME_YEARS " years either side "
		                         "of 0 that flamekit's times hold", us);
	*ns = (int64_t)llround(x);
	return 0;
}

/* --- samples ---------------------------------------------------------- */

static int cmp_node(const void *a, const void *b)
{
	const struct cr_node *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int cmp_sample(const void *a, const void *b)
{
	const struct cr_sample *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static size_t find_node(const struct cr_prof *p, double id)
{
	struct cr_node key;
	const struct cr_node *r;

	/* V8 numbers its nodes 1..n: sorted, node k is at k - first */
	if (p->n && p->v[p->n - 1].id - p->v[0].id == (double)(p->n - 1)) {
		double k = id - p->v[0].id;
		return k >= 0 && k < (double)p->n && k == floor(k) ? (size_t)k : CR_NONE;
	}
	key.id = id;
	r = id == id && p->n ? bsearch(&key, p->v, p->n, sizeof *p->v, cmp_node) : NULL;
	return r ? (size_t)(r - p->v) : CR_NONE;
}

/* Chrome's trace buffer drops chunks (and their nodes) and V8 names
 * children it never wrote: a child that is no node is left out, a node
 * whose parent is no node starts its stack (counted, and said once). */
static int link_prof(struct ctx *c, struct cr_prof *p)
{
	size_t orphans = 0;

	if (p->n > 1)
		qsort(p->v, p->n, sizeof *p->v, cmp_node);
	for (size_t i = 1; i < p->n; i++)
		if (p->v[i].id == p->v[i - 1].id)
			return c->h->input_error(c->in, 0, "not a Chrome trace: profile %s of pid %.0f "
			                         "has node %.0f twice", p->id, p->pid, p->v[i].id);
	for (size_t i = 0; i < p->n; i++) {
		if (p->v[i].parent_id != p->v[i].parent_id)
			continue;
		p->v[i].parent = find_node(p, p->v[i].parent_id);
	}
	for (size_t e = 0; e + 1 < p->nedges; e += 2) {
		size_t q = find_node(p, p->edges[e]), k = find_node(p, p->edges[e + 1]);
		if (k == CR_NONE)
			continue; /* a child V8 did not write */
		if (p->v[k].parent != CR_NONE && p->v[k].parent != q)
			return c->h->input_error(c->in, 0, "not a Chrome trace: node %.0f of profile %s "
			                         "has two parents", p->v[k].id, p->id);
		p->v[k].parent = q;
	}
	for (size_t i = 0; i < p->n; i++)
		orphans += p->v[i].parent_id == p->v[i].parent_id && p->v[i].parent == CR_NONE;
	if (orphans)
		c->h->log(FK_LOG_WARN, "%s: profile %s: the parent of %zu node%s is not in the trace "
		          "(a chunk lost?); stacks start there", c->h->input_name(c->in), p->id,
		          orphans, orphans == 1 ? "" : "s");
	return 0;
}

static int push_sample(struct ctx *c, struct cr_prof *p, size_t k, struct fk_sample *smp)
{
	size_t m = 0, steps = 0;

	if (p->v[k].leaf != FK_NODE_NONE)
		return c->h->push_node(c->sink, p->v[k].leaf, smp);
	for (size_t j = k; j != CR_NONE; j = p->v[j].parent) {
		if (++steps > p->n)
			return c->h->input_error(c->in, 0, "not a Chrome trace: the parents of node "
			                         "%.0f of profile %s form a cycle", p->v[k].id, p->id);
		m += !p->v[j].is_root;
	}
	if (CR_GROW(c->h, c->refs, c->caprefs, m + 1) < 0)
		return nomem(c);
	smp->nframes = m;
	for (size_t j = k; j != CR_NONE; j = p->v[j].parent) {
		struct fk_frameref *r;
		if (p->v[j].is_root)
			continue;
		r = &c->refs[--m];
		memset(r, 0, sizeof *r);
		r->name = c->t.text + p->v[j].name_off;
		r->len = p->v[j].name_len;
	}
	smp->frames = c->refs;
	if (smp->nframes == 0)
		return 0; /* the (root) node itself: no frame to draw */
	return c->h->push(c->sink, smp, &p->v[k].leaf);
}

static int push_prof(struct ctx *c, struct cr_prof *p)
{
	int rc;

	if ((rc = link_prof(c, p)) < 0)
		return rc;
	for (size_t i = 1; i < p->ns; i++)
		if (cmp_sample(&p->s[i - 1], &p->s[i]) > 0) { /* a negative delta: sort */
			qsort(p->s, p->ns, sizeof *p->s, cmp_sample);
			break;
		}
	for (size_t i = 0; i < p->ns; i++) {
		struct fk_sample smp;
		double w = i + 1 < p->ns ? p->s[i + 1].t - p->s[i].t : i > 0 ? p->s[i].t - p->s[i - 1].t : 0;
		size_t k = find_node(p, p->s[i].node);
		if (k == CR_NONE) { /* its node's chunk lost: still the end of the one before */
			c->h->input_skip(c->in, p->s[i].line);
			continue;
		}
		if (!(w > 0))
			continue;
		memset(&smp, 0, sizeof smp);
		set_thread(c, &smp, p->spid, p->stid);
		smp.weight[0] = w * 1000;
		smp.flags |= FK_SAMPLE_TIME;
		if ((rc = time_ns(c, p->start + p->s[i].t, &smp.time_ns)) < 0 ||
		    (rc = push_sample(c, p, k, &smp)) < 0)
			return rc;
	}
	return 0;
}

/* --- durations -------------------------------------------------------- */

static int cmp_dur(const void *a, const void *b)
{
	const struct cr_dur *x = a, *y = b;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1; /* the longer one encloses */
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* One stretch [t0, t1) of the open durations stack[0 .. n). */
static int stretch(struct ctx *c, const size_t *stack, size_t n, double t0, double t1)
{
	const struct cr_dur *d = c->t.durs;
	const struct cr_thread *th;
	struct fk_sample smp;
	int rc;

	if (!n || !(t1 > t0))
		return 0;
	if (CR_GROW(c->h, c->refs, c->caprefs, n) < 0)
		return nomem(c);
	for (size_t i = 0; i < n; i++) {
		memset(&c->refs[i], 0, sizeof c->refs[i]);
		c->refs[i].name = c->t.text + d[stack[i]].name_off;
		c->refs[i].len = d[stack[i]].name_len;
	}
	memset(&smp, 0, sizeof smp);
	th = &c->t.threads[d[stack[0]].thread];
	set_thread(c, &smp, th->pid, th->tid);
	smp.frames = c->refs;
	smp.nframes = n;
	smp.weight[0] = (t1 - t0) * 1000;
	smp.flags |= FK_SAMPLE_TIME;
	if ((rc = time_ns(c, t0, &smp.time_ns)) < 0)
		return rc;
	return c->h->push(c->sink, &smp, NULL);
}

static int push_durs(struct ctx *c)
{
	struct cr_dur *d = c->t.durs;
	size_t n = c->t.ndurs, depth = 0;
	double now = 0;
	int rc = 0;

	for (size_t i = 0; i < n; i++)
		if (d[i].end != d[i].end)
			c->h->input_skip(c->in, d[i].line); /* a B never ended */
	if (n > 1)
		qsort(d, n, sizeof *d, cmp_dur);
	if (CR_GROW(c->h, c->stack, c->capstack, n + 1) < 0)
		return nomem(c);
	for (size_t i = 0; i <= n && rc == 0; i++) {
		int last = i == n || (depth && d[i].thread != d[c->stack[0]].thread);
		double at = i < n ? d[i].start : 0;
		if (i < n && d[i].end != d[i].end)
			continue; /* unended */
		/* close what ends before this one starts (all of it at a new thread) */
		while (depth && (last || d[c->stack[depth - 1]].end <= at) && rc == 0) {
			double e = d[c->stack[depth - 1]].end;
			rc = stretch(c, c->stack, depth, now, e);
			now = e;
			depth--;
		}
		if (i == n || rc < 0)
			break;
		if (depth && (rc = stretch(c, c->stack, depth, now, at)) < 0)
			break;
		now = at;
		if (depth && d[i].end > d[c->stack[depth - 1]].end)
			d[i].end = d[c->stack[depth - 1]].end; /* cut at its parent's end */
		c->stack[depth++] = i;
	}
	return rc;
}

static int parse(const struct fk_host *h, struct fk_input *in, struct fk_sink *sink, const void *op)
{
	const struct opts *o = op;
	const char *ev = o && o->events ? o->events : "auto";
	struct ctx c = { .h = h, .in = in, .sink = sink };
	struct fk_input_limit lim;
	int samples = 0, rc;

	if (strcmp(ev, "auto") && strcmp(ev, "samples") && strcmp(ev, "durations"))
		return h->input_error(in, 0, "events=%s: give samples, durations or auto", ev);
	fk_limit_for(h, in, o ? o->max_input_size : NULL, &lim);
	if ((rc = cr_read(h, in, &lim, &c.t)) < 0)
		goto out;
	for (size_t i = 0; i < c.t.nprofs; i++)
		samples |= c.t.profs[i].ns > 0;
	if (!strcmp(ev, "samples") || (!strcmp(ev, "auto") && samples)) {
		for (size_t i = 0; i < c.t.nprofs && rc == 0; i++)
			rc = push_prof(&c, &c.t.profs[i]);
	} else {
		rc = push_durs(&c);
	}
	if (rc == 0 && h->sink_set_unit)
		h->sink_set_unit(sink, "ns");
out:
	cr_trace_free(h, &c.t);
	h->free(c.refs);
	h->free(c.stack);
	return rc;
}

/* Detection: the object form's "traceEvents" key, or an array whose first
 * element is an object with "ph" and "pid" or "ts" keys (an event). */
static int probe(const unsigned char *buf, size_t len)
{
	int first = fk_json_first(buf, len);

	if (first == '{')
		return fk_json_has_key(buf, len, "traceEvents") && fk_json_has_key(buf, len, "ph") ? 100 : 0;
	if (first == '[') {
		size_t i = (size_t)((const unsigned char *)memchr(buf, '[', len) - buf) + 1;
		while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\r' || buf[i] == '\n'))
			i++;
		if (i < len && buf[i] == '{' && fk_json_has_key(buf + i, len - i, "ph") &&
		    (fk_json_has_key(buf + i, len - i, "pid") || fk_json_has_key(buf + i, len - i, "ts")))
			return 95;
	}
	return 0;
}

static struct fk_input_plugin plugin = {
	.h = {
		.name = "chrome",
		.version = "1.0",
		.description = "Chrome's Trace Event Format JSON (DevTools profiles, chrome://tracing, --trace-startup)",
		.options = options,
		.options_size = sizeof(struct opts),
	},
	.probe = probe,
	.parse = parse,
	.check = check,
	/* JavaScript names pass unchanged; native and wasm frames are
	 * C++ or Rust, which Perfetto's trace processor demangles */
	.demangle = FK_DEMANGLE_FULL,
};

FLAMEKIT_REGISTER_INPUT(plugin)
