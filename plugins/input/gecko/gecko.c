/*
 * Input plugin "gecko": the Firefox Profiler's files, both the Gecko
 * format (what Firefox's profiler writes: tables as {"schema": {...},
 * "data": [[...]]}, a stringTable per thread, child "processes") and the
 * processed format (what profiler.firefox.com saves and samply writes:
 * tables as columns, a stringArray per thread or a shared one, libs at
 * the top level; in its newest versions the stack, frame, func and
 * resource tables shared by every thread too), gzipped or not (the engine unpacks gzip):
 *
 *     {"meta": {"interval": 1, "startTime": ..., ...}, "libs": [...],
 *      "threads": [{"name": "GeckoMain", "pid": "7", "tid": 7,
 *        "samples": {"stack": [2, null], "time": [0, 1], "weight": null, "weightType": "samples"},
 *        "stackTable": {"frame": [0, 1, 2], "prefix": [null, 0, 1]},
 *        "frameTable": {"func": [0, 1, 2], "address": [-1, 4660, -1]},
 *        "funcTable": {"name": [0, 1, 2], "resource": [-1, 0, -1]},
 *        "resourceTable": {"lib": [0]}, "stringArray": ["main", "0x1234", "js"]}]}
 *
 * A sample's stack is its stackTable entry and the entries its prefixes
 * name, root first.  A frame is its func's name (the processed format) or
 * its location string (the Gecko format).  An unsymbolicated frame, a
 * name that is a hexadecimal address, is "LIB+0xADDR" when its library
 * is known: through the func's resource in the processed format (the
 * address is relative to the library already), through the process's
 * libs' start and end in the Gecko format (the offset from the start).
 * The weight is the samples' weight column, or 1 each: weightType
 * samples is samples, tracing-ms is converted to ns, bytes stay bytes
 * (threads of two kinds in one file are refused).  Samples are timed
 * (time, or the sum of timeDeltas, milliseconds from the profile's start).
 * Each thread's name, pid and tid become the samples' thread name, pid and
 * tid (its number, 1, 2, ..., when the file gives no numeric tid).  A
 * sample with no stack (null) is skipped and counted.
 *
 * The tables are held as columns of numbers until the end (the file's
 * members come in any order), everything else is dropped as it is read.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gecko.h"
#include "fk_json.h"
#include "../common/time.h"

#define WHAT "not a Firefox Profiler file: "

struct ctx {
	const struct fk_host *h;
	struct fk_input *in;
	struct fk_sink *sink;
	struct gk_prof p;
	char *names;                 /* the current thread's frame names */
	size_t nlen, ncap;
	size_t *noff;                /* frame f: names[noff[f] .. noff[f+1]) */
	size_t capnoff;
	fk_node_t *leaf;             /* per stack index */
	size_t capleaf;
	struct fk_frameref *refs;
	size_t caprefs;
	int unit;
};

static int nomem(struct ctx *c)
{
	c->h->input_error(c->in, 0, "out of memory");
	return FK_ERR_NOMEM;
}

/* Column col's entry i as an index below n, or (size_t)-1. */
static size_t idx(const struct gk_thread *t, int col, size_t i, size_t n)
{
	double x;

	if (!t->has_col[col] || i >= t->col[col].n)
		return (size_t)-1;
	x = t->col[col].v[i];
	return x >= 0 && x < (double)n && x == floor(x) ? (size_t)x : (size_t)-1;
}

static int add_name(struct ctx *c, const char *s, size_t n)
{
	if (GK_GROW(c->h, c->names, c->ncap, c->nlen + n + 1) < 0)
		return -1;
	memcpy(c->names + c->nlen, s, n);
	c->nlen += n;
	return 0;
}

static int is_addr(const char *s, size_t n, uint64_t *a)
{
	char b[24];

	if (n < 3 || n > 18 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
		return 0;
	for (size_t i = 2; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f') || (s[i] >= 'A' && s[i] <= 'F')))
			return 0;
	memcpy(b, s, n);
	b[n] = '\0';
	*a = strtoull(b, NULL, 16);
	return 1;
}

/* Every frame's name into c->names. */
static int frame_names(struct ctx *c, const struct gk_thread *t, const struct gk_strs *st, size_t nframes)
{
	const struct gk_prof *p = &c->p;
	int processed = t->has_col[C_FFUNC];

	c->nlen = 0;
	if (GK_GROW(c->h, c->noff, c->capnoff, nframes + 1) < 0)
		return nomem(c);
	for (size_t f = 0; f < nframes; f++) {
		size_t nfuncs = t->col[C_UNAME].n, s, lib = (size_t)-1;
		const char *name = "";
		size_t len = 0;
		uint64_t a = 0;

		c->noff[f] = c->nlen;
		if (processed) {
			size_t fn = idx(t, C_FFUNC, f, nfuncs);
			s = fn == (size_t)-1 ? (size_t)-1 : idx(t, C_UNAME, fn, st->n);
			if (fn != (size_t)-1) {
				size_t res = idx(t, C_URES, fn, t->col[C_RLIB].n);
				lib = res == (size_t)-1 ? (size_t)-1 : idx(t, C_RLIB, res, p->nlibs);
			}
		} else {
			s = idx(t, C_FLOC, f, st->n);
		}
		if (s == (size_t)-1)
			return c->h->input_error(c->in, t->line, WHAT "thread %s: frame %zu has no name in "
			                         "the string table (%zu strings)", t->name ? t->name : "",
			                         f, st->n);
		name = st->text + st->off[s];
		len = st->off[s + 1] - st->off[s];
		if (!processed && is_addr(name, len, &a)) {
			for (size_t k = 0; k < p->nlibs && lib == (size_t)-1; k++)
				if (p->libs[k].proc == t->proc && (double)a >= p->libs[k].start && (double)a < p->libs[k].end)
					lib = k;
		}
		if (lib != (size_t)-1 && p->libs[lib].name_len && is_addr(name, len, &a)) {
			char num[24];
			if (!processed)
				a -= (uint64_t)p->libs[lib].start;
			snprintf(num, sizeof num, "+0x%" PRIx64, a);
			if (add_name(c, p->libtext + p->libs[lib].name_off, p->libs[lib].name_len) < 0 ||
			    add_name(c, num, strlen(num)) < 0)
				return nomem(c);
		} else if (add_name(c, name, len) < 0) {
			return nomem(c);
		}
	}
	c->noff[nframes] = c->nlen;
	return 0;
}

static int set_unit(struct ctx *c, const struct gk_thread *t, double *scale)
{
	static const char *const names[] = { "", "samples", "tracing-ms", "bytes" };
	int u = t->weight_type == W_UNSET || !t->has_col[C_WEIGHT] ? W_SAMPLES : t->weight_type;

	if (c->unit != W_UNSET && c->unit != u)
		return c->h->input_error(c->in, t->line, WHAT "thread %s weighs its samples in %s, an "
		                         "earlier one in %s: flamekit reads one unit per input",
		                         t->name ? t->name : "", names[u], names[c->unit]);
	c->unit = u;
	*scale = u == W_TRACING_MS ? 1e6 : 1;
	return 0;
}

static int push_thread(struct ctx *c, struct gk_thread *t, size_t number)
{
	const struct fk_host *h = c->h;
	const struct gk_strs *st = t->strs.set ? &t->strs : &c->p.shared;
	size_t nst = t->col[C_SFRAME].n, nfr = t->col[C_FLOC].n > t->col[C_FFUNC].n ?
	             t->col[C_FLOC].n : t->col[C_FFUNC].n, ns = t->col[C_STACK].n;
	const char *tn = t->name ? t->name : "";
	double scale = 1, tm = 0;
	struct fk_sample smp;
	int rc;

	if (ns == 0)
		return 0;
	if ((rc = set_unit(c, t, &scale)) < 0 || (rc = frame_names(c, t, st, nfr)) < 0)
		return rc;
	if (GK_GROW(h, c->leaf, c->capleaf, nst + 1) < 0)
		return nomem(c);
	for (size_t i = 0; i < nst; i++)
		c->leaf[i] = FK_NODE_NONE;
	memset(&smp, 0, sizeof smp);
	smp.flags = FK_SAMPLE_TID;
	smp.tid = t->tid >= 0 && t->tid <= INT32_MAX && t->tid == floor(t->tid) ? (int32_t)t->tid : (int32_t)number;
	if (t->pid >= 0 && t->pid <= INT32_MAX && t->pid == floor(t->pid)) {
		smp.flags |= FK_SAMPLE_PID;
		smp.pid = (int32_t)t->pid;
	}
	if (t->name_len) {
		smp.flags |= FK_SAMPLE_COMM;
		smp.comm = t->name;
		smp.comm_len = t->name_len;
	}
	for (size_t i = 0; i < ns; i++) {
		size_t s = idx(t, C_STACK, i, nst), m = 0, steps = 0;
		double w = t->has_col[C_WEIGHT] && i < t->col[C_WEIGHT].n ? t->col[C_WEIGHT].v[i] : 1;

		if (t->has_col[C_TDELTA] && i < t->col[C_TDELTA].n && t->col[C_TDELTA].v[i] == t->col[C_TDELTA].v[i])
			tm += t->col[C_TDELTA].v[i];
		else if (t->has_col[C_TIME] && i < t->col[C_TIME].n)
			tm = t->col[C_TIME].v[i];
		if (t->col[C_STACK].v[i] != t->col[C_STACK].v[i]) {
			h->input_skip(c->in, t->line); /* a sample without a stack */
			continue;
		}
		if (s == (size_t)-1)
			return h->input_error(c->in, t->line, WHAT "thread %s: sample %zu names stack %g, "
			                      "not in the stack table (%zu entries)", tn, i, t->col[C_STACK].v[i], nst);
		if (!(w == w))
			return h->input_error(c->in, t->line, WHAT "thread %s: sample %zu has no weight", tn, i);
		smp.weight[0] = w * scale;
		smp.flags &= ~(unsigned)FK_SAMPLE_TIME;
		if (tm == tm) {
			double ns_ = tm * 1e6;
			if (!fk_time_ns_fits(ns_))
				return h->input_error(c->in, t->line, WHAT "thread %s: sample %zu is at %g ms, "
				                      "beyond the " FK_TIME_YEARS " years either side of 0 that "
				                      "flamekit's times hold", tn, i, tm);
			smp.flags |= FK_SAMPLE_TIME;
			smp.time_ns = (int64_t)llround(ns_);
		}
		if (c->leaf[s] != FK_NODE_NONE) {
			if ((rc = h->push_node(c->sink, c->leaf[s], &smp)) < 0)
				return rc;
			continue;
		}
		for (size_t k = s; k != (size_t)-1; k = idx(t, C_SPREFIX, k, nst)) {
			size_t f = idx(t, C_SFRAME, k, nfr);
			if (++steps > nst)
				return h->input_error(c->in, t->line, WHAT "thread %s: the prefixes of stack %zu "
				                      "form a cycle", tn, s);
			if (f == (size_t)-1)
				return h->input_error(c->in, t->line, WHAT "thread %s: stack %zu names a frame "
				                      "not in the frame table (%zu frames)", tn, k, nfr);
			m++;
		}
		if (GK_GROW(h, c->refs, c->caprefs, m + 1) < 0)
			return nomem(c);
		smp.nframes = m;
		for (size_t k = s; k != (size_t)-1; k = idx(t, C_SPREFIX, k, nst)) {
			size_t f = idx(t, C_SFRAME, k, nfr);
			struct fk_frameref *r = &c->refs[--m];
			memset(r, 0, sizeof *r);
			r->name = c->names + c->noff[f];
			r->len = c->noff[f + 1] - c->noff[f];
		}
		smp.frames = c->refs;
		if ((rc = h->push(c->sink, &smp, &c->leaf[s])) < 0)
			return rc;
	}
	return 0;
}

static int parse(const struct fk_host *h, struct fk_input *in, struct fk_sink *sink, const void *op)
{
	struct ctx c = { .h = h, .in = in, .sink = sink };
	const struct fk_json_opts *o = op;
	struct fk_input_limit lim;
	int rc;

	fk_limit_for(h, in, o ? o->max_input_size : NULL, &lim);
	if ((rc = gk_read(h, in, &lim, &c.p)) < 0)
		goto out;
	if (!(c.names = h->alloc(1))) {
		rc = nomem(&c);
		goto out;
	}
	c.ncap = 1;
	for (size_t i = 0; i < c.p.nthreads && rc == 0; i++) {
		/* a table the thread lacks is the shared one, if any */
		struct gk_thread v = c.p.threads[i];
		for (int k = C_SFRAME; k < C_NCOLS; k++)
			if (!v.has_col[k] && c.p.shared_t.has_col[k]) {
				v.col[k] = c.p.shared_t.col[k];
				v.has_col[k] = 1;
			}
		rc = push_thread(&c, &v, i + 1);
	}
	if (rc == 0 && h->sink_set_unit && c.unit != W_UNSET)
		h->sink_set_unit(sink, c.unit == W_TRACING_MS ? "ns" : c.unit == W_BYTES ? "bytes" : "samples");
out:
	gk_prof_free(h, &c.p);
	h->free(c.names);
	h->free(c.noff);
	h->free(c.leaf);
	h->free(c.refs);
	return rc;
}

/* Detection: an object with a "meta" holding "interval" and "startTime"
 * (both formats' meta, written first), and a "threads" or "libs" key or
 * the processed format's "preprocessedProfileVersion"; or Firefox
 * DevTools' recording, whose Gecko profile (its meta far past the probe's
 * bytes) follows its "label", "duration" and "markers": seen when the
 * markers are few, else by its markers' own keys. */
static int probe(const unsigned char *buf, size_t len)
{
	int rec = fk_json_first(buf, len) == '{' && fk_json_top_key(buf, len, "label") &&
	          fk_json_top_key(buf, len, "duration") && fk_json_top_key(buf, len, "markers");

	if (rec && ((fk_json_top_key(buf, len, "profile") && fk_json_top_key(buf, len, "allocations") &&
	             (fk_json_has_key(buf, len, "libs") || fk_json_has_key(buf, len, "threads"))) ||
	            (fk_json_has_key(buf, len, "endStack") && fk_json_has_key(buf, len, "isOffMainThread"))))
		return 100;
	if (fk_json_first(buf, len) != '{' || !fk_json_has_key(buf, len, "meta") ||
	    !fk_json_has_key(buf, len, "interval") || !fk_json_has_key(buf, len, "startTime"))
		return 0;
	return fk_json_has_key(buf, len, "threads") || fk_json_has_key(buf, len, "libs") ||
	       fk_json_has_key(buf, len, "preprocessedProfileVersion") ? 100 : 0;
}

static struct fk_input_plugin plugin = {
	.h = {
		.name = "gecko",
		.version = "1.0",
		.description = "Firefox Profiler files: the Gecko format and the processed format (samply)",
		.options = fk_json_options,
		.options_size = sizeof(struct fk_json_opts),
	},
	.probe = probe,
	.parse = parse,
	.check = fk_json_check,
	/* the Firefox Profiler demangles the names it shows, in full */
	.demangle = FK_DEMANGLE_FULL,
};

FLAMEKIT_REGISTER_INPUT(plugin)
