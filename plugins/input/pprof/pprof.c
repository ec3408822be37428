/*
 * Input plugin "pprof": the profile.proto that Go's runtime/pprof, pprof
 * itself, async-profiler (-o pprof), Pyroscope and others write, gzip-
 * compressed (the engine inflates it, detected by content) or raw.  Decoded
 * with libprotobuf-c and the C code protoc-c generates at build time
 * (plugins/lib/pprof/), never by hand.
 *
 * Each sample's stack comes from its locations, leaf first in the file;
 * every line of a location is a frame, the lines before the last one being
 * functions inlined into it (annotated _[i] with --all, as perf's plugin
 * does).  A frame is named by its function's name (the system name, not
 * demangled, when the name is empty); a location without lines is named
 * as go tool pprof -traces names it: "[binary]" after its mapping's file,
 * "<unknown>" without one, or its address with --addresses.
 *
 * The weight is one of the sample's values: --sample-type NAME, or by
 * default the one pprof shows first: default_sample_type when the profile
 * names one, else the last.  Its unit is kept (nanoseconds -> ns, ...).
 * A sample whose values are all zero is dropped, as pprof's merge drops it.
 * Labels fill what a flamekit sample can hold: numeric "pid" and
 * "tid"/"thread_id" labels the pid and tid, a string "thread"/"thread_name"
 * label (or "comm", as the pprof output writes it) the thread name, and a
 * numeric "timestamp"/"timestamp_ns" label (nanoseconds) the time.  Every other label (goroutine labels set with
 * pprof.Do, async-profiler's) becomes a sample attribute (ABI 1.3,
 * host->push_ext) in the profile's order: a string label's value as it is,
 * a numeric one's as decimal text (its unit dropped).  An engine older
 * than 1.3 gets the samples without them.
 *
 * A profile is one message, so the whole input is read into memory first.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fk_pprof.h"
#include "../common/time.h"

struct opts {
	const char *sample_type;
	int all, addresses;
};

static const struct fk_option options[] = {
	FK_OPTION(FK_OPT_STRING, "sample-type", NULL, struct opts, sample_type,
	          "the value to weigh samples by (samples, cpu, alloc_space, inuse_space, ...); "
	          "default: the profile's default_sample_type, else the last, as go tool pprof"),
	FK_OPTION(FK_OPT_FLAG, "all", "0", struct opts, all,
	          "annotate inlined functions with _[i]"),
	FK_OPTION(FK_OPT_FLAG, "addresses", "0", struct opts, addresses,
	          "name a location without symbols by its address (0x...), not as go tool pprof "
	          "-traces does ([binary] or <unknown>)"),
	FK_OPTION_END,
};

/* id -> index for locations and functions: a direct table when the ids
 * are small (Go and flamekit number them 1..n), else a sorted array. */
struct idx {
	uint64_t id;
	size_t i;
};

struct map {
	struct idx *v;
	size_t n;
	size_t *dense;       /* dense[id] = index + 1, 0 for none */
	size_t ndense;
};

#define NONE ((size_t)-1)

/* A stack seen before: its location ids (those of sample `smp`) and the
 * leaf node the host gave for them. */
struct seen {
	size_t smp;          /* sample index + 1, 0 for an empty slot */
	fk_node_t node;
};

struct ctx {
	const struct fk_host *h;
	struct fk_input *in;
	const fk_pprof_profile *pf;
	struct map locs, funcs, maps;
	/* every location's frames, leaf first: lf[lstart[i] .. lstart[i+1]) */
	struct fk_frameref *lf;
	size_t *lstart;
	char (*addrs)[24];   /* names of line-less locations, per location */
	char **mapnames;     /* "[basename]" per mapping */
	struct fk_frameref *refs;
	size_t cap_refs;
	struct seen *cache;
	size_t cache_mask, cache_used;
	size_t frames_max, frames_left; /* the budget below */
	int all, addresses;
	/* a sample's other labels as attributes; nums[i] holds label i's
	 * number as text (cap_attrs of each) */
	struct fk_attr *attrs;
	char (*nums)[24];
	size_t cap_attrs;
};

/* A sample lists location ids and a location may have many lines, so a
 * small file can name an enormous stack (a 17 KB one, 15 million frames:
 * a location of 3,000 lines named 5,000 times, 57 s under ASan).  Real
 * profiles name far less than one frame per byte (Go's test profiles 0.01,
 * a 285 MB one 0.001); the stacks pushed (a stack seen before is free) may
 * hold FRAMES_PER_BYTE per byte of the profile, or FRAMES_MIN in all
 * (0.8 s under ASan for one 262,144-frame stack from 4 KB). */
#define FRAMES_PER_BYTE 16
#define FRAMES_MIN ((size_t)1 << 18)

static int cmp_idx(const void *a, const void *b)
{
	const struct idx *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* The index of id, or NONE. */
static size_t find(const struct map *m, uint64_t id)
{
	struct idx key = { id, 0 };
	const struct idx *r;

	if (m->dense)
		return id < m->ndense ? m->dense[id] - 1 : NONE;
	r = bsearch(&key, m->v, m->n, sizeof *m->v, cmp_idx);
	return r ? r->i : NONE;
}

/* Sort ids for lookup, refusing 0 and duplicates. */
static int make_index(struct ctx *c, struct map *m, size_t n, uint64_t (*id)(const fk_pprof_profile *, size_t),
                      const char *what)
{
	struct idx *v = c->h->alloc((n ? n : 1) * sizeof *v);

	if (!v)
		return FK_ERR_NOMEM;
	for (size_t i = 0; i < n; i++) {
		v[i].id = id(c->pf, i);
		v[i].i = i;
	}
	qsort(v, n, sizeof *v, cmp_idx);
	m->v = v;
	m->n = n;
	for (size_t i = 0; i < n; i++)
		if (v[i].id == 0 || (i > 0 && v[i].id == v[i - 1].id))
			return c->h->input_error(c->in, 0, "not a valid pprof profile: %s id %" PRIu64 " is %s",
			                         what, v[i].id, v[i].id ? "used twice" : "zero");
	if (n > 0 && v[n - 1].id < 2 * (uint64_t)n + 16) {
		m->ndense = (size_t)v[n - 1].id + 1;
		if (!(m->dense = c->h->alloc(m->ndense * sizeof *m->dense)))
			return FK_ERR_NOMEM;
		memset(m->dense, 0, m->ndense * sizeof *m->dense);
		for (size_t i = 0; i < n; i++)
			m->dense[v[i].id] = v[i].i + 1;
	}
	return 0;
}

static uint64_t loc_id(const fk_pprof_profile *p, size_t i) { return p->location[i]->id; }
static uint64_t func_id(const fk_pprof_profile *p, size_t i) { return p->function[i]->id; }
static uint64_t map_id(const fk_pprof_profile *p, size_t i) { return p->mapping[i]->id; }

/* The string at index k, or NULL when k is out of the table. */
static const char *str(const fk_pprof_profile *p, int64_t k)
{
	return k >= 0 && (uint64_t)k < p->n_string_table ? p->string_table[k] : NULL;
}

static int bad_string(struct ctx *c, const char *what, int64_t k)
{
	return c->h->input_error(c->in, 0, "not a valid pprof profile: %s names string %" PRId64
	                         " of a table of %zu", what, k, c->pf->n_string_table);
}

/* The value index to weigh by, from --sample-type or the defaults. */
static int pick_value(struct ctx *c, const char *want, size_t *vi)
{
	const fk_pprof_profile *p = c->pf;
	char list[512];
	size_t ll = 0;

	if (p->n_sample_type == 0)
		return c->h->input_error(c->in, 0, "not a valid pprof profile: no sample types");
	for (size_t i = 0; i < p->n_sample_type; i++) {
		const char *t = str(p, p->sample_type[i]->type), *u = str(p, p->sample_type[i]->unit);
		if (!t || !u)
			return bad_string(c, "a sample type", !t ? p->sample_type[i]->type : p->sample_type[i]->unit);
	}
	if (!want) {
		*vi = p->n_sample_type - 1;
		for (size_t i = 0; p->default_sample_type > 0 && i < p->n_sample_type; i++)
			if (p->sample_type[i]->type == p->default_sample_type)
				*vi = i;
		return 0;
	}
	for (size_t i = 0; i < p->n_sample_type; i++) {
		const char *t = str(p, p->sample_type[i]->type);
		if (strcmp(t, want) == 0) {
			*vi = i;
			return 0;
		}
		ll += (size_t)snprintf(list + ll, ll < sizeof list ? sizeof list - ll : 0, "%s%s",
		                       i ? ", " : "", t);
		if (ll >= sizeof list)
			ll = sizeof list - 1;
	}
	return c->h->input_error(c->in, 0, "no sample type '%s' in this profile (it has: %s)", want, list);
}

/* Whether label lb holds the sample's time: a numeric "timestamp" or
 * "timestamp_ns" (nanoseconds). */
static bool time_label(const fk_pprof_profile *p, const Perftools__Profiles__Label *lb)
{
	const char *key = p->string_table[lb->key];

	return lb->str == 0 && (!strcmp(key, "timestamp") || !strcmp(key, "timestamp_ns"));
}

/* Check every reference once, so the sample loop can trust them, and
 * every time (common/time.h). */
static int check_refs(struct ctx *c)
{
	const fk_pprof_profile *p = c->pf;

	for (size_t i = 0; i < p->n_function; i++) {
		const Perftools__Profiles__Function *f = p->function[i];
		if (!str(p, f->name))
			return bad_string(c, "a function name", f->name);
		if (!str(p, f->system_name))
			return bad_string(c, "a function's system name", f->system_name);
	}
	for (size_t i = 0; i < p->n_mapping; i++)
		if (!str(p, p->mapping[i]->filename))
			return bad_string(c, "a mapping's file name", p->mapping[i]->filename);
	for (size_t i = 0; i < p->n_location; i++) {
		const Perftools__Profiles__Location *l = p->location[i];
		if (l->mapping_id && find(&c->maps, l->mapping_id) == NONE)
			return c->h->input_error(c->in, 0, "not a valid pprof profile: location %" PRIu64
			                         " names mapping %" PRIu64 ", which is not in the profile",
			                         l->id, l->mapping_id);
		for (size_t k = 0; k < l->n_line; k++)
			if (find(&c->funcs, l->line[k]->function_id) == NONE)
				return c->h->input_error(c->in, 0, "not a valid pprof profile: location %" PRIu64
				                         " names function %" PRIu64 ", which is not in the profile",
				                         l->id, l->line[k]->function_id);
	}
	for (size_t i = 0; i < p->n_sample; i++) {
		const Perftools__Profiles__Sample *s = p->sample[i];
		if (s->n_value != p->n_sample_type)
			return c->h->input_error(c->in, 0, "not a valid pprof profile: sample %zu has %zu values "
			                         "for %zu sample types", i + 1, s->n_value, p->n_sample_type);
		for (size_t k = 0; k < s->n_location_id; k++)
			if (find(&c->locs, s->location_id[k]) == NONE)
				return c->h->input_error(c->in, 0, "not a valid pprof profile: sample %zu names "
				                         "location %" PRIu64 ", which is not in the profile",
				                         i + 1, s->location_id[k]);
		for (size_t k = 0; k < s->n_label; k++) {
			const Perftools__Profiles__Label *lb = s->label[k];
			if (!str(p, lb->key) || !str(p, lb->str) || !str(p, lb->num_unit))
				return bad_string(c, "a sample label", !str(p, lb->key) ? lb->key :
				                  !str(p, lb->str) ? lb->str : lb->num_unit);
			if (time_label(p, lb) && !fk_time_ns_fits_i64(lb->num))
				return c->h->input_error(c->in, 0, "not a usable pprof profile: sample %zu's "
				                         "%s label is %" PRId64 " ns, beyond the "
				                         FK_TIME_YEARS " years either side of 0 that "
				                         "flamekit's times hold", i + 1,
				                         p->string_table[lb->key], lb->num);
		}
	}
	return 0;
}

/* Labels into the sample's pid, tid, thread name and time; the others
 * into c->attrs (*nattrs of them). */
static void apply_labels(struct ctx *c, const Perftools__Profiles__Sample *s,
                         struct fk_sample *smp, size_t *nattrs)
{
	const fk_pprof_profile *p = c->pf;

	*nattrs = 0;
	for (size_t k = 0; k < s->n_label; k++) {
		const Perftools__Profiles__Label *lb = s->label[k];
		const char *key = p->string_table[lb->key], *sv = p->string_table[lb->str];
		if (lb->str > 0 && (!strcmp(key, "thread") || !strcmp(key, "thread_name") ||
		                    !strcmp(key, "thread name") || !strcmp(key, "comm"))) {
			smp->comm = sv;
			smp->comm_len = strlen(sv);
			smp->flags |= FK_SAMPLE_COMM;
		} else if (lb->str == 0 && !strcmp(key, "pid")) {
			smp->pid = (int32_t)lb->num;
			smp->flags |= FK_SAMPLE_PID;
		} else if (lb->str == 0 && (!strcmp(key, "tid") || !strcmp(key, "thread_id") ||
		                            !strcmp(key, "thread id"))) {
			smp->tid = (int32_t)lb->num;
			smp->flags |= FK_SAMPLE_TID;
		} else if (time_label(p, lb)) {
			smp->time_ns = lb->num;
			smp->flags |= FK_SAMPLE_TIME;
		} else if (c->attrs) {
			struct fk_attr *a = &c->attrs[(*nattrs)++];
			a->key = key;
			a->key_len = strlen(key);
			if (lb->str > 0) {
				a->value = sv;
			} else {
				snprintf(c->nums[k], sizeof c->nums[k], "%" PRId64, lb->num);
				a->value = c->nums[k];
			}
			a->value_len = strlen(a->value);
		}
	}
}

/* Room for the labels of the sample with the most, when the engine takes
 * attributes. */
static int attr_space(struct ctx *c)
{
	size_t most = 0;

	if (!FK_HOST_HAS(c->h, push_ext))
		return 0;
	for (size_t i = 0; i < c->pf->n_sample; i++)
		if (c->pf->sample[i]->n_label > most)
			most = c->pf->sample[i]->n_label;
	if (most == 0)
		return 0;
	c->attrs = c->h->alloc(most * sizeof *c->attrs);
	c->nums = c->h->alloc(most * sizeof *c->nums);
	if (!c->attrs || !c->nums)
		return FK_ERR_NOMEM;
	c->cap_attrs = most;
	return 0;
}

/* Push one sample, by its cached node when known, with its attributes
 * when there are any. */
static int push_one(struct ctx *c, struct fk_sink *sink, const struct fk_sample *smp,
                    size_t nattrs, fk_node_t known, fk_node_t *node)
{
	if (nattrs) {
		struct fk_sample_ext ext = FK_SAMPLE_EXT_INIT;
		ext.attrs = c->attrs;
		ext.nattrs = nattrs;
		return c->h->push_ext(sink, known, smp, &ext, node);
	}
	if (known != FK_NODE_NONE)
		return c->h->push_node(sink, known, smp);
	return c->h->push(sink, smp, node);
}

/* The frame of a location without lines: as go tool pprof -traces names
 * it ("[binary]" from its mapping's file, else "<unknown>"), or its
 * address with --addresses. */
static struct fk_frameref unsymbolized(struct ctx *c, const Perftools__Profiles__Location *l, size_t i)
{
	const fk_pprof_profile *p = c->pf;
	const char *file = l->mapping_id ? p->string_table[p->mapping[find(&c->maps, l->mapping_id)]->filename] : "";
	const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
	struct fk_frameref r;

	memset(&r, 0, sizeof r);
	if (c->addresses) {
		r.len = (size_t)snprintf(c->addrs[i], sizeof c->addrs[i], "0x%" PRIx64, l->address);
		r.name = c->addrs[i];
	} else if (*base) {
		/* "[" base "]": the string table entry is followed by nothing we
		 * may write to, so the brackets come from a per-mapping copy */
		size_t mi = find(&c->maps, l->mapping_id);
		r.name = c->mapnames[mi];
		r.len = strlen(r.name);
	} else {
		r.name = "<unknown>";
		r.len = 9;
	}
	return r;
}

/* "[basename]" for every mapping, for unsymbolized locations. */
static int mapping_names(struct ctx *c)
{
	const fk_pprof_profile *p = c->pf;

	if (p->n_mapping == 0)
		return 0;
	c->mapnames = c->h->alloc(p->n_mapping * sizeof *c->mapnames);
	if (!c->mapnames)
		return FK_ERR_NOMEM;
	memset(c->mapnames, 0, p->n_mapping * sizeof *c->mapnames);
	for (size_t i = 0; i < p->n_mapping; i++) {
		const char *file = p->string_table[p->mapping[i]->filename];
		const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
		size_t n = strlen(base);
		if (!(c->mapnames[i] = c->h->alloc(n + 3)))
			return FK_ERR_NOMEM;
		c->mapnames[i][0] = '[';
		memcpy(c->mapnames[i] + 1, base, n);
		c->mapnames[i][n + 1] = ']';
		c->mapnames[i][n + 2] = '\0';
	}
	return 0;
}

/* Every location's frames, leaf first, once (references checked). */
static int location_frames(struct ctx *c)
{
	const fk_pprof_profile *p = c->pf;
	size_t total = 0, at = 0;

	for (size_t i = 0; i < p->n_location; i++)
		total += p->location[i]->n_line ? p->location[i]->n_line : 1;
	c->lstart = c->h->alloc((p->n_location + 1) * sizeof *c->lstart);
	c->lf = c->h->alloc((total ? total : 1) * sizeof *c->lf);
	c->addrs = c->h->alloc((p->n_location ? p->n_location : 1) * sizeof *c->addrs);
	if (!c->lstart || !c->lf || !c->addrs)
		return FK_ERR_NOMEM;
	memset(c->lf, 0, (total ? total : 1) * sizeof *c->lf);
	for (size_t i = 0; i < p->n_location; i++) {
		const Perftools__Profiles__Location *l = p->location[i];
		c->lstart[i] = at;
		if (l->n_line == 0) {
			c->lf[at++] = unsymbolized(c, l, i);
			continue;
		}
		for (size_t j = 0; j < l->n_line; j++) {
			const Perftools__Profiles__Function *f = p->function[find(&c->funcs, l->line[j]->function_id)];
			const char *name = p->string_table[f->name];
			if (!*name)
				name = p->string_table[f->system_name];
			c->lf[at].name = name;
			c->lf[at].len = strlen(name);
			if (c->all && j + 1 < l->n_line)
				c->lf[at].annot = FK_ANNOT_INLINE;
			at++;
		}
	}
	c->lstart[p->n_location] = at;
	return 0;
}

/* Frames of sample s, root first, into c->refs; *n gets the count. */
static int frames_of(struct ctx *c, size_t i, size_t *n)
{
	const Perftools__Profiles__Sample *s = c->pf->sample[i];
	size_t m = 0;

	for (size_t k = 0; k < s->n_location_id; k++) {
		size_t li = find(&c->locs, s->location_id[k]);
		m += c->lstart[li + 1] - c->lstart[li];
	}
	if (m > c->frames_left)
		return c->h->input_error(c->in, 0, "not a usable pprof profile: at sample %zu its stacks "
		                         "hold more than %zu frames, over %d per byte of the profile: it "
		                         "names locations of many lines too often to be a real profile",
		                         i + 1, c->frames_max, FRAMES_PER_BYTE);
	c->frames_left -= m;
	if (m > c->cap_refs) {
		size_t cap = m < 64 ? 64 : m;
		struct fk_frameref *r = c->h->realloc(c->refs, cap * sizeof *r);
		if (!r)
			return FK_ERR_NOMEM;
		c->refs = r;
		c->cap_refs = cap;
	}
	*n = m;
	/* the file is leaf first: fill from the end */
	for (size_t k = 0; k < s->n_location_id; k++) {
		size_t li = find(&c->locs, s->location_id[k]);
		for (size_t j = c->lstart[li]; j < c->lstart[li + 1]; j++)
			c->refs[--m] = c->lf[j];
	}
	return 0;
}

/* The cache slot for sample i's stack: the one holding the same location
 * ids, or the empty one where it goes. */
static struct seen *cache_slot(const struct ctx *c, size_t i)
{
	const Perftools__Profiles__Sample *s = c->pf->sample[i];
	uint64_t hash = 1469598103934665603ull;
	size_t k;

	for (k = 0; k < s->n_location_id; k++)
		hash = (hash ^ s->location_id[k]) * 1099511628211ull;
	for (k = (size_t)(hash ^ (hash >> 29)) & c->cache_mask;; k = (k + 1) & c->cache_mask) {
		struct seen *e = &c->cache[k];
		const Perftools__Profiles__Sample *o;
		if (!e->smp)
			return e;
		o = c->pf->sample[e->smp - 1];
		if (o->n_location_id == s->n_location_id &&
		    (s->n_location_id == 0 ||
		     !memcmp(o->location_id, s->location_id, s->n_location_id * sizeof *s->location_id)))
			return e;
	}
}

/* The whole input, which protobuf-c decodes in one piece. */
static int slurp(const struct fk_host *h, struct fk_input *in, unsigned char **out, size_t *outlen)
{
	unsigned char *buf = NULL;
	size_t len = 0, cap = 0;
	ssize_t r;

	for (;;) {
		if (cap - len < 65536) {
			size_t nc = cap ? cap * 2 : 262144;
			unsigned char *nb = h->realloc(buf, nc);
			if (!nb) {
				h->free(buf);
				return FK_ERR_NOMEM;
			}
			buf = nb;
			cap = nc;
		}
		r = h->read(in, buf + len, cap - len);
		if (r < 0) {
			h->free(buf);
			return (int)r;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	*out = buf;
	*outlen = len;
	return 0;
}

static int push_samples(struct ctx *c, struct fk_sink *sink, size_t vi)
{
	const fk_pprof_profile *p = c->pf;
	size_t cap = 1024;

	/* a stack cache of up to 2^22 slots; without memory for it, no cache */
	while (cap < 2 * p->n_sample && cap < ((size_t)1 << 22))
		cap *= 2;
	if ((c->cache = c->h->alloc(cap * sizeof *c->cache)) != NULL) {
		memset(c->cache, 0, cap * sizeof *c->cache);
		c->cache_mask = cap - 1;
	}

	if (attr_space(c) < 0)
		return FK_ERR_NOMEM;
	for (size_t i = 0; i < p->n_sample; i++) {
		const Perftools__Profiles__Sample *s = p->sample[i];
		struct fk_sample smp;
		struct seen *e;
		fk_node_t node = FK_NODE_NONE;
		size_t n = 0, nz = 0, nattrs;
		int rc;

		/* pprof drops a sample whose values are all zero (its merge does,
		 * even of one profile): so do we, for the same stacks */
		for (size_t k = 0; k < s->n_value; k++)
			nz += s->value[k] != 0;
		if (nz == 0)
			continue;
		memset(&smp, 0, sizeof smp);
		smp.weight[0] = (double)s->value[vi];
		apply_labels(c, s, &smp, &nattrs);
		/* a stack seen before is pushed by its node: no names to intern */
		e = c->cache ? cache_slot(c, i) : NULL;
		if (e && e->smp) {
			if ((rc = push_one(c, sink, &smp, nattrs, e->node, NULL)) < 0)
				return rc;
			continue;
		}
		if ((rc = frames_of(c, i, &n)) < 0)
			return rc;
		smp.frames = c->refs;
		smp.nframes = n;
		if ((rc = push_one(c, sink, &smp, nattrs, FK_NODE_NONE, &node)) < 0)
			return rc;
		/* keep the table at most half full */
		if (e && node != FK_NODE_NONE && c->cache_used < (c->cache_mask + 1) / 2) {
			e->smp = i + 1;
			e->node = node;
			c->cache_used++;
		}
	}
	return 0;
}

static int parse(const struct fk_host *h, struct fk_input *in, struct fk_sink *sink, const void *op)
{
	const struct opts *o = op;
	struct ctx c = { .h = h, .in = in, .all = o->all, .addresses = o->addresses };
	struct fk_pprof_alloc pa;
	fk_pprof_profile *pf = NULL;
	unsigned char *buf = NULL;
	size_t len = 0, vi = 0;
	int rc;

	if ((rc = slurp(h, in, &buf, &len)) < 0)
		goto out;
	if (len == 0) {
		rc = h->input_error(in, 0, "not a pprof profile: the input is empty");
		goto out;
	}
	fk_pprof_allocator(&pa, h);
	pf = perftools__profiles__profile__unpack(&pa.pa, len, buf);
	if (!pf && pa.failed) {
		rc = FK_ERR_NOMEM;
		goto out;
	}
	if (!pf) {
		rc = h->input_error(in, 0, "not a pprof profile: its %zu bytes do not decode as a "
		                    "profile.proto message (truncated or corrupt)", len);
		goto out;
	}
	c.pf = pf;
	c.frames_max = c.frames_left = len > FRAMES_MIN / FRAMES_PER_BYTE ? len * FRAMES_PER_BYTE : FRAMES_MIN;
	if (pf->n_string_table == 0 || pf->string_table[0][0] != '\0') {
		rc = h->input_error(in, 0, "not a valid pprof profile: its string table is missing or does not start with \"\" (truncated?)");
		goto out;
	}
	if ((rc = make_index(&c, &c.locs, pf->n_location, loc_id, "location")) < 0 ||
	    (rc = make_index(&c, &c.funcs, pf->n_function, func_id, "function")) < 0 ||
	    (rc = make_index(&c, &c.maps, pf->n_mapping, map_id, "mapping")) < 0 ||
	    (rc = pick_value(&c, o->sample_type, &vi)) < 0 || (rc = check_refs(&c)) < 0 ||
	    (rc = mapping_names(&c)) < 0 || (rc = location_frames(&c)) < 0)
		goto out;
	if ((rc = push_samples(&c, sink, vi)) < 0)
		goto out;
	if (h->sink_set_unit)
		h->sink_set_unit(sink, fk_pprof_unit_in(pf->string_table[pf->sample_type[vi]->type],
		                                        pf->string_table[pf->sample_type[vi]->unit]));
out:
	if (rc == FK_ERR_NOMEM)
		h->input_error(in, 0, "out of memory");
	/* the mapping names are counted by pf: free them first */
	for (size_t i = 0; c.mapnames && i < pf->n_mapping; i++)
		h->free(c.mapnames[i]);
	h->free(c.mapnames);
	if (pf)
		perftools__profiles__profile__free_unpacked(pf, &pa.pa);
	h->free(buf);
	h->free(c.locs.v);
	h->free(c.locs.dense);
	h->free(c.funcs.v);
	h->free(c.funcs.dense);
	h->free(c.maps.v);
	h->free(c.maps.dense);
	h->free(c.lf);
	h->free(c.lstart);
	h->free(c.addrs);
	h->free(c.refs);
	h->free(c.cache);
	h->free(c.attrs);
	h->free(c.nums);
	return rc;
}

/* Detection: a walk over the top-level fields of a Profile message.  Every
 * field must be one of Profile's 14, with its wire type; the walk may stop
 * at the end of the peeked bytes.  A first field that is a well-formed
 * sample_type (what Go and pprof write first) makes it sure. */
static int varint(const unsigned char *b, size_t len, size_t *i, uint64_t *v)
{
	*v = 0;
	for (int sh = 0; sh < 64; sh += 7) {
		if (*i >= len)
			return -1;
		*v |= (uint64_t)(b[*i] & 0x7f) << sh;
		if (!(b[(*i)++] & 0x80))
			return 0;
	}
	return -1;
}

static int value_type_ok(const unsigned char *b, size_t len)
{
	size_t i = 0;
	uint64_t t, v;

	while (i < len)
		if (varint(b, len, &i, &t) < 0 || (t != 8 && t != 16) || varint(b, len, &i, &v) < 0)
			return 0;
	return 1;
}

static int probe(const unsigned char *buf, size_t len)
{
	/* wire type per field number 1..14: 2 = length-delimited, 0 = varint */
	static const signed char wt[15] = { -1, 2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 2, 0, 2, 0 };
	size_t i = 0, fields = 0;
	int first_ok = 0;

	while (i < len) {
		uint64_t tag, v;
		unsigned f, w;
		if (varint(buf, len, &i, &tag) < 0)
			break;
		f = (unsigned)(tag >> 3);
		w = (unsigned)(tag & 7);
		if (tag >> 3 > 14 || f == 0 || (w != (unsigned)wt[f] && !(f == 13 && w == 0)))
			return 0;
		if (varint(buf, len, &i, &v) < 0)
			break;
		if (w == 2) {
			if (fields == 0 && f == 1 && v <= len - i)
				first_ok = value_type_ok(buf + i, (size_t)v);
			if (v > len - i)
				break; /* runs past the peek (or a truncated file) */
			i += (size_t)v;
		}
		fields++;
	}
	if (fields < 2 && !(fields == 1 && first_ok && i < len))
		return 0;
	return first_ok ? 90 : 40;
}

static struct fk_input_plugin plugin = {
	.h = {
		.name = "pprof",
		.version = "1.0",
		.description = "pprof's profile.proto, gzip-compressed or raw (Go, pprof, async-profiler -o pprof)",
		.options = options,
		.options_size = sizeof(struct opts),
	},
	.probe = probe,
	.parse = parse,
};

FLAMEKIT_REGISTER_INPUT(plugin)
