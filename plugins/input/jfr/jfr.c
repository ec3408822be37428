/*
 * Input plugin "jfr": Java Flight Recorder files, as the JDK writes them
 * (-XX:StartFlightRecording, jcmd JFR.dump) and as async-profiler does
 * (-o jfr).  The file is read whole (it ends with the pools its events
 * refer to), chunk by chunk (chunk.c): each chunk's metadata says how
 * every event and constant is laid out, so nothing here knows an offset.
 *
 * One event type is a sample type (--sample-type, default
 * jdk.ExecutionSample): each of its events with a stack trace is one
 * sample, weighed as its type says (see weights[] below).  A stack's
 * frames come leaf first in the file and are pushed root first, named
 * "pkg/Class.method" (the class's internal name, as jfr print --json and
 * async-profiler's jfr2flame write it), with ":LINE" under --lines and
 * the frame type as _[j] (JIT compiled), _[i] (Inlined) or _[k] (Kernel)
 * under --all.  The sampled thread's name and id become the sample's comm
 * and tid, its state (when the event has one) the attribute "state";
 * --thread-root puts the thread's name at the root, --state keeps only the
 * events in the states listed.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jfr.h"
#include "../common/limit.h"

struct opts {
	const char *sample_type;
	int lines, all, threads;
	const char *state;
	const char *max_input_size;
};

static const struct fk_option options[] = {
	FK_OPTION(FK_OPT_STRING, "sample-type", "jdk.ExecutionSample", struct opts, sample_type,
	          "the event type whose stacks are the samples: jdk.ExecutionSample, "
	          "jdk.NativeMethodSample, jdk.ObjectAllocationSample, jdk.ObjectAllocationInNewTLAB, "
	          "jdk.ObjectAllocationOutsideTLAB, jdk.JavaMonitorEnter, jdk.ThreadPark, ..."),
	FK_OPTION(FK_OPT_FLAG, "lines", "0", struct opts, lines,
	          "append each frame's line number (Class.method:LINE)"),
	FK_OPTION(FK_OPT_FLAG, "all", "0", struct opts, all,
	          "annotate frames by type: _[j] JIT compiled, _[i] inlined, _[k] kernel"),
	FK_OPTION(FK_OPT_FLAG, "thread-root", "0", struct opts, threads,
	          "put the thread's name at the root of each stack"),
	FK_OPTION(FK_OPT_STRING, "state", NULL, struct opts, state,
	          "keep only events whose thread state is in this comma-separated list "
	          "(RUNNABLE, SLEEPING, ...; STATE_ prefix optional)"),
	FK_OPTION(FK_OPT_STRING, "max-input-size", "auto", struct opts, max_input_size, FK_LIMIT_HELP),
	FK_OPTION_END,
};

/* What an event type weighs: a field of it (in ticks when ticks is set,
 * turned into ns) and the unit; types not listed weigh 1 each. */
static const struct {
	const char *type, *field, *unit;
	int ticks;
} weights[] = {
	{ "jdk.ObjectAllocationSample", "weight", "bytes", 0 },
	{ "jdk.ObjectAllocationInNewTLAB", "tlabSize", "bytes", 0 },
	{ "jdk.ObjectAllocationOutsideTLAB", "allocationSize", "bytes", 0 },
	{ "jdk.OldObjectSample", NULL, "samples", 0 },
	{ "jdk.JavaMonitorEnter", "duration", "ns", 1 },
	{ "jdk.JavaMonitorWait", "duration", "ns", 1 },
	{ "jdk.ThreadPark", "duration", "ns", 1 },
	{ "jdk.ThreadSleep", "duration", "ns", 1 },
	{ "jdk.SocketRead", "duration", "ns", 1 },
	{ "jdk.SocketWrite", "duration", "ns", 1 },
	{ "jdk.FileRead", "duration", "ns", 1 },
	{ "jdk.FileWrite", "duration", "ns", 1 },
	{ "profiler.WallClockSample", "samples", "samples", 0 },
	{ "profiler.LiveObject", "allocationSize", "bytes", 0 },
	{ "profiler.Malloc", "size", "bytes", 0 },
	{ "profiler.NativeLock", "duration", "ns", 1 },
	{ "jdk.MethodTrace", "duration", "ns", 1 },
};

/* (u64, u64) -> u64 map (value + 1 stored; 0: empty). */
struct map {
	uint64_t *k, *k2, *v;
	size_t mask, used;
};

/* A name made from a pool entry: its text x->text[off .. off + len), and
 * what else the entry says: a frame type's annotation and whether its
 * frames are C/C++ or kernel functions (bare), a method's module (text
 * following its name, mlen bytes; none when 0), a thread's id. */
struct name {
	size_t off, len;
	int annot, bare;
	size_t mlen;
	uint64_t tid;
};

struct ctx {
	const struct fk_host *h;
	struct fk_input *in;
	struct fk_sink *sink;
	const struct opts *o;
	struct jfr_chunk c;
	/* this chunk's classes and field indexes */
	int k_ev, k_st, k_frame, k_method, k_class, k_sym, k_ftype, k_thread, k_state, k_string;
	int f_stack, f_thread, f_state, f_weight, f_time;
	int f_frames, f_trunc, fr_method, fr_line, fr_type, m_type, m_name, c_name, s_string;
	int ft_desc, t_java, t_os, t_tid, ts_name;
	int asprof;          /* async-profiler's chunk: its Native frames are C functions */
	int weight_ticks;
	struct jfr_val *vals, *fvals;
	size_t nvals;
	/* memos, per chunk (keys are the chunk's) */
	struct map methods, threads, ftypes, states, stacks;
	struct name *names;
	size_t nnames, cap_names;
	char *text;
	size_t ntext, cap_text;
	/* one stack being built */
	struct fk_frameref *refs;
	size_t *roff, *rlen, *rmod;
	size_t cap_refs;
	uint64_t samples, nostack, filtered;
	int found;
	struct jfr_log log;  /* async-profiler's warnings, over every chunk */
};

static uint64_t hash(uint64_t k, uint64_t k2)
{
	k = (k ^ k2 * 0xc2b2ae3d27d4eb4full) * 0x9e3779b97f4a7c15ull;
	return k ^ k >> 31;
}

static uint64_t *map_get2(const struct map *m, uint64_t k, uint64_t k2)
{
	if (!m->k)
		return NULL;
	for (size_t i = hash(k, k2) & m->mask;; i = (i + 1) & m->mask) {
		if (!m->v[i])
			return NULL;
		if (m->k[i] == k && m->k2[i] == k2)
			return &m->v[i];
	}
}

static int map_grow(const struct fk_host *h, struct map *m)
{
	size_t n = m->k ? 2 * (m->mask + 1) : 256;
	uint64_t *nk = h->alloc(n * sizeof *nk), *nk2 = h->alloc(n * sizeof *nk2), *nv = h->alloc(n * sizeof *nv);

	if (!nk || !nk2 || !nv) {
		h->free(nk);
		h->free(nk2);
		h->free(nv);
		return FK_ERR_NOMEM;
	}
	memset(nv, 0, n * sizeof *nv);
	for (size_t i = 0; m->k && i <= m->mask; i++)
		if (m->v[i])
			for (size_t j = hash(m->k[i], m->k2[i]) & (n - 1);; j = (j + 1) & (n - 1))
				if (!nv[j]) {
					nk[j] = m->k[i];
					nk2[j] = m->k2[i];
					nv[j] = m->v[i];
					break;
				}
	h->free(m->k);
	h->free(m->k2);
	h->free(m->v);
	m->k = nk;
	m->k2 = nk2;
	m->v = nv;
	m->mask = n - 1;
	return 0;
}

static int map_put2(const struct fk_host *h, struct map *m, uint64_t k, uint64_t k2, uint64_t v)
{
	int rc;

	if (2 * (m->used + 1) > (m->k ? m->mask + 1 : 0) && (rc = map_grow(h, m)) < 0)
		return rc;
	for (size_t i = hash(k, k2) & m->mask;; i = (i + 1) & m->mask)
		if (!m->v[i] || (m->k[i] == k && m->k2[i] == k2)) {
			m->used += !m->v[i];
			m->k[i] = k;
			m->k2[i] = k2;
			m->v[i] = v + 1;
			return 0;
		}
}

static void map_free(const struct fk_host *h, struct map *m)
{
	h->free(m->k);
	h->free(m->k2);
	h->free(m->v);
	memset(m, 0, sizeof *m);
}

/* Room for n more bytes of text. */
static int text_room(struct ctx *x, size_t n)
{
	return fk_vector_grow((void **)&x->text, &x->cap_text, x->ntext + n, 1, x->h->realloc);
}

/* Append the text of v (a string, or a pool key of a class whose field
 * sf is the string) to x->text. */
static int append(struct ctx *x, const struct jfr_val *v)
{
	size_t cap = v->kind == 2 ? v->len * 3 + 1 : 65536 + 1;
	int rc;

	if ((rc = text_room(x, cap)) < 0)
		return rc;
	x->ntext += jfr_text(&x->c, v, x->k_string, x->text + x->ntext, cap);
	return 0;
}

/* Decode pool entry (cls, key) into vals (nvals of them); 0 when absent. */
static int pool_read(struct ctx *x, int cls, uint64_t key, struct jfr_val *vals, size_t nvals)
{
	size_t off = jfr_pool_find(&x->c, cls, key);
	struct jfr_rd r = { &x->c, off, x->c.end };

	for (size_t i = 0; i < nvals; i++)
		vals[i].kind = 0;
	if (!off)
		return 0;
	jfr_read_struct(&r, cls, vals, nvals, 0);
	return x->c.err ? -1 : 1;
}

static int new_name(struct ctx *x, const struct name *nm, size_t *idx)
{
	if (fk_vector_grow((void **)&x->names, &x->cap_names, x->nnames + 1, sizeof *x->names,
	    x->h->realloc) < 0)
		return FK_ERR_NOMEM;
	x->names[x->nnames] = *nm;
	*idx = x->nnames++;
	return 0;
}

#define VMAX 32 /* fields decoded per pool entry */

/* Appends to x->text what pool entry v (NULL when the pool lacks it) of key
 * k is called (then its module, counted in nm->mlen), and sets the other
 * fields of *nm the entry gives; bare: the caller's (a method's frame is
 * a C/C++ or kernel function's): 0 or a negative status. */
typedef int namer_fn(struct ctx *x, const struct jfr_val *v, uint64_t k, struct name *nm);

/* The name of pool entry (cls, k), made once by fill and memoised in m
 * (per bare, for methods): its index in x->names.  The one reader of the
 * pools' names. */
static int pool_name(struct ctx *x, struct map *m, int cls, uint64_t k, int bare, namer_fn *fill,
                     size_t *idx)
{
	struct jfr_val v[VMAX];
	uint64_t *memo = map_get2(m, k, (uint64_t)bare);
	struct name nm = { .off = x->ntext, .annot = FK_ANNOT_NONE, .bare = bare };
	int rc;

	if (memo) {
		*idx = *memo - 1;
		return 0;
	}
	if ((rc = pool_read(x, cls, k, v, VMAX)) < 0)
		return rc;
	if ((rc = fill(x, rc > 0 ? v : NULL, k, &nm)) < 0)
		return rc;
	if (x->c.err)
		return -1;
	nm.len = x->ntext - nm.off - nm.mlen;
	if ((rc = new_name(x, &nm, idx)) < 0)
		return rc;
	return map_put2(x->h, m, k, (uint64_t)bare, *idx);
}

/* Append field f of v, when v and f are there. */
static int append_field(struct ctx *x, const struct jfr_val *v, int f)
{
	return v && f >= 0 ? append(x, &v[f]) : 0;
}

/* Append the text of symbol key k (a field of v, when there): the string
 * of pool entry (jdk.types.Symbol, k). */
static int append_symbol(struct ctx *x, const struct jfr_val *v, int f)
{
	struct jfr_val sv[VMAX];

	if (!v || f < 0 || v[f].kind != 1 || pool_read(x, x->k_sym, v[f].u, sv, VMAX) <= 0)
		return 0;
	return append_field(x, sv, x->s_string);
}

/* A C/C++ or kernel function: its name (else "[unknown function K]"),
 * then its class's name as its module. */
static int fill_function(struct ctx *x, const struct jfr_val *mv, uint64_t k, struct name *nm)
{
	struct jfr_val cv[VMAX];
	size_t off = x->ntext, mod;
	int rc;

	if ((rc = append_symbol(x, mv, x->m_name)) < 0)
		return rc;
	if (x->ntext == off) {
		if ((rc = text_room(x, 40)) < 0)
			return rc;
		x->ntext += (size_t)snprintf(x->text + off, 40, "[unknown function %" PRIu64 "]", k);
	}
	mod = x->ntext;
	if (mv && x->m_type >= 0 && mv[x->m_type].kind == 1 &&
	    pool_read(x, x->k_class, mv[x->m_type].u, cv, VMAX) > 0 &&
	    (rc = append_symbol(x, cv, x->c_name)) < 0)
		return rc;
	nm->mlen = x->ntext - mod;
	return 0;
}

/* A method: "pkg/Class.method", else "[unknown method K]"; a C/C++ or
 * kernel function (bare): its name, with its class (the library
 * async-profiler found it in) as its module. */
static int fill_method(struct ctx *x, const struct jfr_val *mv, uint64_t k, struct name *nm)
{
	struct jfr_val cv[VMAX];
	size_t off = x->ntext;
	int rc;

	if (nm->bare)
		return fill_function(x, mv, k, nm);
	if (mv && x->m_type >= 0 && mv[x->m_type].kind == 1 &&
	    pool_read(x, x->k_class, mv[x->m_type].u, cv, VMAX) > 0) {
		if ((rc = append_symbol(x, cv, x->c_name)) < 0)
			return rc;
		if (x->ntext > off) {
			if ((rc = text_room(x, 1)) < 0)
				return rc;
			x->text[x->ntext++] = '.';
		}
	}
	if (x->c.err)
		return -1;
	if ((rc = append_symbol(x, mv, x->m_name)) < 0)
		return rc;
	if (x->c.err)
		return -1;
	if (x->ntext == off) {
		if ((rc = text_room(x, 32)) < 0)
			return rc;
		x->ntext += (size_t)snprintf(x->text + off, 32, "[unknown method %" PRIu64 "]", k);
	}
	return 0;
}

/* Is text d[0 .. n) the string s? */
static int is(const char *d, size_t n, const char *s)
{
	return n == strlen(s) && !memcmp(d, s, n);
}

/* A frame type: its description, the annotation it gives (C1 compiled
 * code is JIT compiled code, as async-profiler's graphs draw it), and
 * whether its frames are C/C++ or kernel functions: async-profiler's C++
 * and Kernel frames, and its Native ones (the JDK's are Java methods). */
static int fill_ftype(struct ctx *x, const struct jfr_val *v, uint64_t k, struct name *nm)
{
	size_t off = x->ntext, n;
	const char *d;
	int rc;

	(void)k;
	if ((rc = append_field(x, v, x->ft_desc)) < 0)
		return rc;
	n = x->ntext - off;
	d = x->text + off;
	if (is(d, n, "JIT compiled") || is(d, n, "C1 compiled"))
		nm->annot = FK_ANNOT_JIT;
	else if (is(d, n, "Inlined"))
		nm->annot = FK_ANNOT_INLINE;
	else if (is(d, n, "Kernel"))
		nm->annot = FK_ANNOT_KERNEL;
	nm->bare = is(d, n, "C++") || is(d, n, "Kernel") || (x->asprof && is(d, n, "Native"));
	return 0;
}

/* A thread: its java name, else its OS name, else [tid=N]. */
static int fill_thread(struct ctx *x, const struct jfr_val *v, uint64_t k, struct name *nm)
{
	size_t off = x->ntext;
	int rc;

	(void)k;
	if (v && x->t_tid >= 0 && v[x->t_tid].kind == 1)
		nm->tid = v[x->t_tid].u;
	if ((rc = append_field(x, v, x->t_java)) < 0)
		return rc;
	if (x->ntext == off && (rc = append_field(x, v, x->t_os)) < 0)
		return rc;
	if (x->ntext == off) {
		if ((rc = text_room(x, 32)) < 0)
			return rc;
		x->ntext += (size_t)snprintf(x->text + off, 32, "[tid=%" PRIu64 "]", nm->tid);
	}
	return 0;
}

/* A thread state: its name. */
static int fill_state(struct ctx *x, const struct jfr_val *v, uint64_t k, struct name *nm)
{
	(void)k;
	(void)nm;
	return append_field(x, v, x->ts_name);
}

/* Is state name s in the --state list? */
static int state_wanted(const char *list, const char *s, size_t n)
{
	if (n > 6 && !strncasecmp(s, "STATE_", 6)) {
		s += 6;
		n -= 6;
	}
	while (*list) {
		const char *e = strchr(list, ','), *w = list;
		size_t wl = e ? (size_t)(e - list) : strlen(list);
		if (wl > 6 && !strncasecmp(w, "STATE_", 6)) {
			w += 6;
			wl -= 6;
		}
		if (wl == n && !strncasecmp(w, s, n))
			return 1;
		if (!e)
			break;
		list = e + 1;
	}
	return 0;
}

static int refs_room(struct ctx *x, size_t n)
{
	size_t c1 = x->cap_refs, c2 = x->cap_refs, c3 = x->cap_refs, c4 = x->cap_refs;

	if (fk_vector_grow((void **)&x->refs, &c1, n, sizeof *x->refs, x->h->realloc) < 0 ||
	    fk_vector_grow((void **)&x->roff, &c2, n, sizeof *x->roff, x->h->realloc) < 0 ||
	    fk_vector_grow((void **)&x->rlen, &c3, n, sizeof *x->rlen, x->h->realloc) < 0 ||
	    fk_vector_grow((void **)&x->rmod, &c4, n, sizeof *x->rmod, x->h->realloc) < 0)
		return FK_ERR_NOMEM;
	x->cap_refs = c4;
	return 0;
}


/* The frames of stack key k (pool entry k, leaf first in the file) into
 * x->refs, root first, under thread name tn when --thread-root: their
 * count in *depth, their names in x->text from *mark on (scratch the
 * caller drops after the push); 1 when the stack has no frames. */
static int build_stack(struct ctx *x, uint64_t k, const struct name *tn, size_t *depth, size_t *mark)
{
	size_t off = jfr_pool_find(&x->c, x->k_st, k), n = 0, root = tn ? 1 : 0;
	struct jfr_rd r = { &x->c, off, x->c.end };
	const struct jfr_class *st = &x->c.cls[x->k_st];
	int rc;

	for (size_t i = 0; i < st->nf && !x->c.err; i++) {
		const struct jfr_field *f = &x->c.f[st->f0 + i];
		uint32_t nf;
		if ((int)i != x->f_frames || !f->array || f->cls != x->k_frame || x->k_frame < 0) {
			jfr_skip_field(&r, f, 1);
			continue;
		}
		nf = jfr_int(&r);
		if (!x->c.err && (r.pos > r.end || nf > jfr_left(&r))) {
			jfr_fail(&r, "stack trace %" PRIu64 " counts %u frames, more than the bytes left", k, nf);
			break;
		}
		if ((rc = refs_room(x, root + nf)) < 0)
			return rc;
		for (uint32_t j = 0; j < nf && !x->c.err; j++) {
			struct jfr_val *v = x->fvals;
			size_t idx;
			int64_t line = 0;
			int bare;
			jfr_read_struct(&r, x->k_frame, v, VMAX, 1);
			if (x->c.err)
				break;
			if (x->fr_method < 0 || v[x->fr_method].kind != 1) {
				jfr_fail(&r, "a frame of stack trace %" PRIu64 " has no method", k);
				break;
			}
			if (x->fr_line >= 0 && v[x->fr_line].kind == 1)
				line = (int32_t)v[x->fr_line].u;
			x->refs[n].annot = FK_ANNOT_NONE;
			bare = 0;
			if (x->fr_type >= 0 && v[x->fr_type].kind == 1) {
				if ((rc = pool_name(x, &x->ftypes, x->k_ftype, v[x->fr_type].u, 0, fill_ftype, &idx)) < 0)
					return rc;
				x->refs[n].annot = x->o->all ? x->names[idx].annot : FK_ANNOT_NONE;
				bare = x->names[idx].bare;
			}
			if ((rc = pool_name(x, &x->methods, x->k_method, v[x->fr_method].u, bare, fill_method, &idx)) < 0)
				return rc;
			x->roff[n] = idx;
			x->rlen[n] = x->o->lines && line > 0 ? (size_t)line : 0;
			n++;
		}
	}
	if (x->c.err)
		return -1;
	if (n == 0)
		return 1; /* no frames: skipped, as a missing stack is */
	/* names into the text (line-suffixed ones as scratch), then root first */
	*mark = x->ntext;
	for (size_t j = 0; j < n; j++) {
		const struct name *nm = &x->names[x->roff[j]];
		x->rmod[j] = nm->off + nm->len;
		x->refs[j].module_len = nm->mlen;
		if (x->rlen[j]) {
			size_t at = x->ntext;
			if ((rc = text_room(x, nm->len + 24)) < 0)
				return rc;
			memcpy(x->text + at, x->text + nm->off, nm->len);
			x->ntext += nm->len + (size_t)snprintf(x->text + at + nm->len, 24, ":%zu", x->rlen[j]);
			x->roff[j] = at;
			x->rlen[j] = x->ntext - at;
		} else {
			x->roff[j] = nm->off;
			x->rlen[j] = nm->len;
		}
	}
	if (tn) {
		x->roff[n] = tn->off;
		x->rlen[n] = tn->len;
		x->refs[n].module_len = 0;
	}
	{
		struct fk_frameref tmp;
		for (size_t j = 0; j < n + root; j++) {
			x->refs[j].name = x->text + x->roff[j];
			x->refs[j].len = x->rlen[j];
			x->refs[j].module = x->refs[j].module_len ? x->text + x->rmod[j] : NULL;
		}
		if (tn)
			x->refs[n].annot = FK_ANNOT_NONE;
		for (size_t a = 0, b = n + root; a + 1 < b; a++, b--) {
			tmp = x->refs[a];
			x->refs[a] = x->refs[b - 1];
			x->refs[b - 1] = tmp;
		}
	}
	*depth = n + root;
	return 0;
}

/* Ticks since the chunk's start as nanoseconds since the epoch; -1 when
 * outside what a sample's time may hold. */
static int64_t ticks_ns(const struct jfr_chunk *c, uint64_t t)
{
	uint64_t d, ns;

	if (t < c->start_ticks)
		return -1;
	d = t - c->start_ticks;
	ns = d / c->tps * 1000000000u + d % c->tps * 1000000000u / c->tps;
	if (d / c->tps > ((uint64_t)1 << 34) || c->start_nanos + ns >= (uint64_t)1 << 62)
		return -1;
	return (int64_t)(c->start_nanos + ns);
}

static int event(struct ctx *x, struct jfr_rd *r)
{
	struct jfr_val *v = x->vals;
	struct fk_sample smp = { 0 };
	struct fk_sample_ext ext = FK_SAMPLE_EXT_INIT, *pext = NULL;
	struct fk_attr attr;
	const struct name *tn = NULL;
	struct name tname, sname = { 0 };
	uint64_t sk, *memo, ck2 = 0;
	fk_node_t node = FK_NODE_NONE;
	size_t idx, depth, mark;
	int rc;

	jfr_read_struct(r, x->k_ev, v, x->nvals, 0);
	if (x->c.err)
		return -1;
	x->found = 1;
	if (x->f_stack < 0 || v[x->f_stack].kind != 1 || !jfr_pool_find(&x->c, x->k_st, v[x->f_stack].u)) {
		x->nostack++;
		return 0;
	}
	sk = v[x->f_stack].u;
	if (x->f_state >= 0 && v[x->f_state].kind == 1) {
		if ((rc = pool_name(x, &x->states, x->k_state, v[x->f_state].u, 0, fill_state, &idx)) < 0)
			return rc;
		sname = x->names[idx];
		attr = (struct fk_attr){ "state", 5, x->text + sname.off, sname.len };
		if (attr.value_len && FK_HOST_HAS(x->h, push_ext)) {
			ext.attrs = &attr;
			ext.nattrs = 1;
			pext = &ext;
		}
		if (x->o->state && !state_wanted(x->o->state, attr.value, attr.value_len)) {
			x->filtered++;
			return 0;
		}
	} else if (x->o->state) {
		x->filtered++;
		return 0;
	}
	smp.weight[0] = 1;
	if (x->f_weight >= 0 && v[x->f_weight].kind == 1)
		smp.weight[0] = x->weight_ticks ?
		                (double)v[x->f_weight].u / (double)x->c.tps * 1e9 : (double)v[x->f_weight].u;
	if (x->weight_ticks && x->f_weight >= 0 && v[x->f_weight].kind == 1) {
		uint64_t d = v[x->f_weight].u;
		if (d / x->c.tps < ((uint64_t)1 << 30))
			smp.weight[0] = (double)(d / x->c.tps * 1000000000u + d % x->c.tps * 1000000000u / x->c.tps);
	}
	if (smp.weight[0] <= 0) {
		x->filtered++;
		return 0;
	}
	if (x->f_thread >= 0 && v[x->f_thread].kind == 1) {
		if ((rc = pool_name(x, &x->threads, x->k_thread, v[x->f_thread].u, 0, fill_thread, &idx)) < 0)
			return rc;
		tname = x->names[idx];
		tn = &tname;
		ck2 = x->o->threads ? idx + 1 : 0;
		smp.comm = x->text + tn->off;
		smp.comm_len = tn->len;
		smp.flags |= FK_SAMPLE_COMM;
		if (tn->tid && tn->tid <= INT32_MAX) {
			smp.tid = (int32_t)tn->tid;
			smp.flags |= FK_SAMPLE_TID;
		}
	}
	if (x->f_time >= 0 && v[x->f_time].kind == 1) {
		int64_t t = ticks_ns(&x->c, v[x->f_time].u);
		if (t >= 0) {
			smp.time_ns = t;
			smp.flags |= FK_SAMPLE_TIME;
		}
	}
	x->samples++;
	/* a stack is pushed once per (stack, root thread): the key pair */
	if ((memo = map_get2(&x->stacks, sk, ck2))) {
		node = (fk_node_t)(*memo - 1);
		return pext ? x->h->push_ext(x->sink, node, &smp, pext, NULL) : x->h->push_node(x->sink, node, &smp);
	}
	if ((rc = build_stack(x, sk, x->o->threads ? tn : NULL, &depth, &mark)) < 0)
		return rc;
	if (rc > 0) {
		x->samples--;
		x->nostack++;
		return 0;
	}
	/* the text may have moved while the stack was built */
	if (tn)
		smp.comm = x->text + tn->off;
	attr.value = x->text + sname.off;
	smp.frames = x->refs;
	smp.nframes = depth;
	rc = pext ? x->h->push_ext(x->sink, FK_NODE_NONE, &smp, pext, &node) : x->h->push(x->sink, &smp, &node);
	x->ntext = mark;
	if (rc < 0)
		return rc;
	/* with per-sample filters the engine gives no node: nothing to cache */
	return node != FK_NODE_NONE ? map_put2(x->h, &x->stacks, sk, ck2, node) : 0;
}

/* Is this chunk async-profiler's?  Its frame types include Kernel, as its
 * converter tells (the JDK has none): then its Native frames are C
 * functions, where the JDK's are Java native methods. */
static int asprof_chunk(struct ctx *x)
{
	struct jfr_val v[VMAX];
	char d[8];
	size_t it = 0, off;

	if (x->ft_desc < 0)
		return 0;
	while ((off = jfr_pool_next(&x->c, x->k_ftype, &it))) {
		struct jfr_rd r = { &x->c, off, x->c.end };
		jfr_read_struct(&r, x->k_ftype, v, VMAX, 0);
		if (x->c.err)
			return 0;
		if (is(d, jfr_text(&x->c, &v[x->ft_desc], x->k_string, d, sizeof d), "Kernel"))
			return 1;
	}
	return 0;
}

static int field_named(struct ctx *x, int cls, const char *name)
{
	return jfr_field_index(&x->c, cls, name);
}

/* This chunk's classes and fields; 0, or 1 when the chunk has no events
 * of the sample type. */
static int resolve(struct ctx *x, const char **unit)
{
	struct jfr_chunk *c = &x->c;
	const char *wf = NULL;

	x->k_ev = jfr_class_named(c, x->o->sample_type);
	x->k_st = jfr_class_named(c, "jdk.types.StackTrace");
	x->k_frame = jfr_class_named(c, "jdk.types.StackFrame");
	x->k_method = jfr_class_named(c, "jdk.types.Method");
	x->k_class = jfr_class_named(c, "java.lang.Class");
	x->k_sym = jfr_class_named(c, "jdk.types.Symbol");
	x->k_ftype = jfr_class_named(c, "jdk.types.FrameType");
	x->k_thread = jfr_class_named(c, "java.lang.Thread");
	x->k_state = jfr_class_named(c, "jdk.types.ThreadState");
	x->k_string = jfr_class_named(c, "java.lang.String");
	if (x->k_ev < 0)
		return 1;
	x->f_stack = field_named(x, x->k_ev, "stackTrace");
	x->f_thread = field_named(x, x->k_ev, "sampledThread");
	if (x->f_thread < 0)
		x->f_thread = field_named(x, x->k_ev, "eventThread");
	x->f_state = field_named(x, x->k_ev, "state");
	x->f_time = field_named(x, x->k_ev, "startTime");
	x->weight_ticks = 0;
	*unit = "samples";
	for (size_t i = 0; i < sizeof weights / sizeof *weights; i++)
		if (!strcmp(weights[i].type, x->o->sample_type)) {
			wf = weights[i].field;
			*unit = weights[i].unit;
			x->weight_ticks = weights[i].ticks;
		}
	x->f_weight = wf ? field_named(x, x->k_ev, wf) : -1;
	x->f_frames = field_named(x, x->k_st, "frames");
	x->fr_method = field_named(x, x->k_frame, "method");
	x->fr_line = field_named(x, x->k_frame, "lineNumber");
	x->fr_type = field_named(x, x->k_frame, "type");
	x->m_type = field_named(x, x->k_method, "type");
	x->m_name = field_named(x, x->k_method, "name");
	x->c_name = field_named(x, x->k_class, "name");
	x->s_string = field_named(x, x->k_sym, "string");
	x->ft_desc = field_named(x, x->k_ftype, "description");
	x->t_java = field_named(x, x->k_thread, "javaName");
	x->t_os = field_named(x, x->k_thread, "osName");
	x->t_tid = field_named(x, x->k_thread, "osThreadId");
	x->ts_name = field_named(x, x->k_state, "name");
	if (x->k_st < 0)
		x->f_stack = -1;
	/* fields past VMAX of a pool type are never looked at */
	if (x->fr_method >= VMAX) x->fr_method = -1;
	if (x->fr_line >= VMAX) x->fr_line = -1;
	if (x->fr_type >= VMAX) x->fr_type = -1;
	if (x->m_type >= VMAX) x->m_type = -1;
	if (x->m_name >= VMAX) x->m_name = -1;
	if (x->c_name >= VMAX) x->c_name = -1;
	if (x->s_string >= VMAX) x->s_string = -1;
	if (x->ft_desc >= VMAX) x->ft_desc = -1;
	if (x->t_java >= VMAX) x->t_java = -1;
	if (x->t_os >= VMAX) x->t_os = -1;
	if (x->t_tid >= VMAX) x->t_tid = -1;
	if (x->ts_name >= VMAX) x->ts_name = -1;
	x->nvals = c->cls[x->k_ev].nf;
	x->asprof = asprof_chunk(x);
	return c->err ? -1 : 0;
}

static void chunk_done(struct ctx *x)
{
	map_free(x->h, &x->methods);
	map_free(x->h, &x->threads);
	map_free(x->h, &x->ftypes);
	map_free(x->h, &x->states);
	map_free(x->h, &x->stacks);
	x->nnames = 0;
	x->ntext = 0;
	jfr_chunk_free(&x->c);
}

static int chunk(struct ctx *x, const uint8_t *buf, size_t len, size_t start, size_t *next,
                 const char **unit)
{
	struct jfr_chunk *c = &x->c;
	struct jfr_rd r;
	int rc, have;

	if ((rc = jfr_chunk_open(c, x->h, buf, len, start)) < 0)
		return rc;
	*next = c->end;
	if ((rc = resolve(x, unit)) < 0)
		return rc;
	have = rc == 0;
	jfr_log_resolve(&x->log, c);
	if (!have && x->log.cls < 0)
		return 0;
	if (have && x->nvals) {
		struct jfr_val *v = x->h->realloc(x->vals, x->nvals * sizeof *v);
		if (!v)
			return FK_ERR_NOMEM;
		x->vals = v;
	}
	r = (struct jfr_rd){ c, start + 68, c->end };
	while (r.pos < c->end && !c->err) {
		size_t at = r.pos;
		uint64_t size = jfr_int(&r), type;
		if (c->err)
			break;
		if (size == 0 || size > c->end - at) {
			r.pos = at;
			jfr_fail(&r, "an event's size %" PRIu64 " runs past the chunk", size);
			break;
		}
		type = jfr_long(&r);
		if (!c->err && have && type == c->cls[x->k_ev].id) {
			struct jfr_rd ev = { c, r.pos, at + (size_t)size };
			if ((rc = event(x, &ev)) < 0 && !c->err)
				return rc;
		}
		if (!c->err && x->log.cls >= 0 && type == x->log.id) {
			struct jfr_rd ev = { c, r.pos, at + (size_t)size };
			jfr_log_event(&x->log, &ev);
		}
		r.pos = at + (size_t)size;
	}
	return c->err ? -1 : 0;
}

/* The whole input into *buf (the caller frees it). */
static int slurp(const struct fk_host *h, struct fk_input *in, const struct opts *o, uint8_t **buf,
                 size_t *len)
{
	struct fk_input_limit lim;
	struct stat st;
	size_t cap = 1 << 16, n = 0;
	uint8_t *b = h->alloc(cap);
	ssize_t got;

	fk_limit_for(h, in, o->max_input_size, &lim);
	/* a regular file's size first (one read when it is not compressed) */
	if (stat(h->input_name(in), &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size < lim.bytes &&
	    (uint64_t)st.st_size + 1 > cap && (size_t)st.st_size + 1 > (size_t)st.st_size) {
		h->free(b);
		cap = (size_t)st.st_size + 1;
		b = h->alloc(cap);
	}
	if (!b)
		return FK_ERR_NOMEM;
	for (;;) {
		if (n == cap) {
			uint8_t *nb;
			if (cap >= lim.bytes) {
				h->free(b);
				return fk_limit_exceeded(h, in, &lim);
			}
			if (!(nb = h->realloc(b, cap * 2))) {
				h->free(b);
				return FK_ERR_NOMEM;
			}
			b = nb;
			cap *= 2;
		}
		got = h->read(in, b + n, cap - n > lim.bytes - n + 1 ? (size_t)(lim.bytes - n + 1) : cap - n);
		if (got < 0) {
			h->free(b);
			return FK_ERR_IO;
		}
		if (got == 0)
			break;
		n += (size_t)got;
		if (n > lim.bytes) {
			h->free(b);
			return fk_limit_exceeded(h, in, &lim);
		}
	}
	*buf = b;
	*len = n;
	return 0;
}

FK_LIMIT_CHECK_FN(check, struct opts, max_input_size)

static int parse(const struct fk_host *h, struct fk_input *in, struct fk_sink *sink, const void *op)
{
	const struct opts *o = op;
	struct ctx x = { .h = h, .in = in, .sink = sink, .o = o };
	struct jfr_val fvals[VMAX];
	const char *unit = "samples";
	uint8_t *buf = NULL;
	size_t len = 0, at = 0;
	int rc, chunks = 0;

	x.fvals = fvals;
	/* the names' text is never a null pointer, even before the first */
	if (text_room(&x, 1) < 0)
		return FK_ERR_NOMEM;
	if ((rc = slurp(h, in, o, &buf, &len)) < 0)
		goto out;
	if (len == 0) {
		rc = h->input_error(in, 0, "an empty file is not a JFR recording");
		goto out;
	}
	while (at < len) {
		size_t next = len;
		rc = chunk(&x, buf, len, at, &next, &unit);
		if (rc < 0) {
			if (x.c.err)
				rc = h->input_error(in, 0, "at byte %zu: %s", x.c.errat, x.c.errmsg);
			else if (rc == FK_ERR_NOMEM)
				h->input_error(in, 0, "out of memory");
			chunk_done(&x);
			goto out;
		}
		chunk_done(&x);
		chunks++;
		at = next;
	}
	if (x.log.n)
		h->log(FK_LOG_WARN, "%s: async-profiler logged %" PRIu64 " message%s of level WARN or ERROR "
		       "while profiling; the first: %s", h->input_name(in), x.log.n, x.log.n == 1 ? "" : "s",
		       x.log.first);
	if (!x.found) {
		rc = h->input_error(in, 0, "no %s events in this recording (--sample-type names another "
		                    "event type: jfr summary lists them)", o->sample_type);
		goto out;
	}
	if (x.nostack)
		h->log(FK_LOG_WARN, "%s: %" PRIu64 " %s events without a stack trace (or with no frames) skipped",
		       h->input_name(in), x.nostack, o->sample_type);
	if (h->sink_set_unit)
		h->sink_set_unit(sink, unit);
	rc = 0;
out:
	h->free(buf);
	h->free(x.vals);
	h->free(x.names);
	h->free(x.text);
	h->free(x.refs);
	h->free(x.roff);
	h->free(x.rlen);
	h->free(x.rmod);
	return rc;
}

/* The magic of every chunk, and a version JFR has had (1.0 in JDK 9 and
 * 10, 2.x since 11, async-profiler's too). */
static int probe(const unsigned char *buf, size_t len)
{
	if (len < 6 || memcmp(buf, "FLR", 4) != 0)
		return 0;
	return buf[4] == 0 && (buf[5] == 1 || buf[5] == 2) ? 100 : 0;
}

static struct fk_input_plugin plugin = {
	.h = {
		.name = "jfr",
		.version = "1.0",
		.description = "Java Flight Recorder recordings (JDK -XX:StartFlightRecording, async-profiler -o jfr)",
		.options = options,
		.options_size = sizeof(struct opts),
	},
	.probe = probe,
	.parse = parse,
	.check = check,
	/* Java names pass unchanged; the native frames of
	 * async-profiler's recordings are C++, which its converter demangles */
	.demangle = FK_DEMANGLE_FULL,
};

FLAMEKIT_REGISTER_INPUT(plugin)
