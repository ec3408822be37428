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
 * demangled, when the name is empty).  A location without lines is
 * symbolized from its mapping's local binary (localsym.c, libfksym), as
 * go tool pprof -symbolize=local does; when that finds nothing, or with
 * --symbolize=none, it is named as go tool pprof -traces names it:
 * "[binary]" after its mapping's file, "<unknown>" without one, or its
 * address with --addresses.
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
 * The profile is read field by field (plugins/lib/pprof/stream.c): its
 * tables in compact form, its samples as bytes unpacked one at a time, so
 * memory follows what the profile holds, not its inflated bytes; an input
 * holding more than --max-input-size is refused (common/limit.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fk_pprof.h"
#include "localsym.h"
#include "../common/limit.h"
#include "../common/time.h"
#include "vector/fkvector.h"

struct opts {
	const char *sample_type;
	int all, addresses;
	const char *max_input_size;
	const char *symbolize, *binary_path;
	int inline_frames;
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
	FK_OPTION(FK_OPT_STRING, "max-input-size", "auto", struct opts, max_input_size, FK_LIMIT_HELP),
	FK_OPTION(FK_OPT_STRING, "symbolize", "local", struct opts, symbolize,
	          "local: name a location without lines from its mapping's local binary, as go tool pprof "
	          "-symbolize=local; none: leave it unsymbolized"),
	FK_OPTION(FK_OPT_STRING, "binary-path", NULL, struct opts, binary_path,
	          "where to look for the profile's binaries, directories separated by ':' "
	          "(default: $PPROF_BINARY_PATH, else $HOME/pprof/binaries, as pprof)"),
	FK_OPTION(FK_OPT_FLAG, "inline", "0", struct opts, inline_frames,
	          "with --symbolize=local, add the functions inlined at an address (from DWARF), as pprof does "
	          "with addr2line -i"),
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

/* A stack seen before: its location ids (cids[at .. at + n)) and the
 * leaf node the host gave for them. */
struct seen {
	size_t at;
	uint32_t n;
	fk_node_t node;      /* FK_NODE_NONE: an empty slot */
};

#define CACHE_MIN 1024
#define CACHE_MAX ((size_t)1 << 22)

struct ctx {
	const struct fk_host *h;
	struct fk_input *in;
	struct fk_pprof_data *pf;
	struct fk_pprof_alloc pa;  /* for the samples, one at a time */
	struct map locs, funcs, maps;
	/* every location's frames, leaf first: lf[lstart[i] .. lstart[i+1]) */
	struct fk_frameref *lf;
	size_t *lstart;
	char (*addrs)[24];   /* names of line-less locations, per location */
	char **mapnames;     /* "[basename]" per mapping */
	struct psym *sym;    /* local binaries (--symbolize=local), or NULL */
	size_t cap_lf;
	struct fk_frameref *refs;
	size_t cap_refs;
	struct seen *cache;
	size_t cache_mask, cache_used;
	uint64_t *cids;      /* the cached stacks' location ids */
	size_t ncids, cap_cids;
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
static int make_index(struct ctx *c, struct map *m, size_t n, uint64_t (*id)(const struct fk_pprof_data *, size_t),
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

static uint64_t loc_id(const struct fk_pprof_data *p, size_t i) { return p->location[i].id; }
static uint64_t func_id(const struct fk_pprof_data *p, size_t i) { return p->function[i].id; }
static uint64_t map_id(const struct fk_pprof_data *p, size_t i) { return p->mapping[i].id; }

/* The string at index k, or NULL when k is out of the table. */
static const char *str(const struct fk_pprof_data *p, int64_t k)
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
	const struct fk_pprof_data *p = c->pf;
	char list[512];
	size_t ll = 0;

	if (p->n_sample_type == 0)
		return c->h->input_error(c->in, 0, "not a valid pprof profile: no sample types");
	for (size_t i = 0; i < p->n_sample_type; i++) {
		const char *t = str(p, p->sample_type[i].type), *u = str(p, p->sample_type[i].unit);
		if (!t || !u)
			return bad_string(c, "a sample type", !t ? p->sample_type[i].type : p->sample_type[i].unit);
	}
	if (!want) {
		*vi = p->n_sample_type - 1;
		for (size_t i = 0; p->default_sample_type > 0 && i < p->n_sample_type; i++)
			if (p->sample_type[i].type == p->default_sample_type)
				*vi = i;
		return 0;
	}
	for (size_t i = 0; i < p->n_sample_type; i++) {
		const char *t = str(p, p->sample_type[i].type);
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
static bool time_label(const struct fk_pprof_data *p, const Perftools__Profiles__Label *lb)
{
	const char *key = p->string_table[lb->key];

	return lb->str == 0 && (!strcmp(key, "timestamp") || !strcmp(key, "timestamp_ns"));
}

/* Check every reference of the tables once, so the sample loop can trust
 * them. */
static int check_refs(struct ctx *c)
{
	const struct fk_pprof_data *p = c->pf;

	for (size_t i = 0; i < p->n_function; i++) {
		const struct fk_pprof_func *f = &p->function[i];
		if (!str(p, f->name))
			return bad_string(c, "a function name", f->name);
		if (!str(p, f->system_name))
			return bad_string(c, "a function's system name", f->system_name);
	}
	for (size_t i = 0; i < p->n_mapping; i++) {
		if (!str(p, p->mapping[i].filename))
			return bad_string(c, "a mapping's file name", p->mapping[i].filename);
		if (!str(p, p->mapping[i].build_id))
			return bad_string(c, "a mapping's build id", p->mapping[i].build_id);
	}
	for (size_t i = 0; i < p->n_location; i++) {
		const struct fk_pprof_loc *l = &p->location[i];
		if (l->mapping_id && find(&c->maps, l->mapping_id) == NONE)
			return c->h->input_error(c->in, 0, "not a valid pprof profile: location %" PRIu64
			                         " names mapping %" PRIu64 ", which is not in the profile",
			                         l->id, l->mapping_id);
		for (size_t k = 0; k < l->nline; k++)
			if (find(&c->funcs, p->line_func[l->line0 + k]) == NONE)
				return c->h->input_error(c->in, 0, "not a valid pprof profile: location %" PRIu64
				                         " names function %" PRIu64 ", which is not in the profile",
				                         l->id, p->line_func[l->line0 + k]);
	}
	return 0;
}

/* Check sample i's references, and its time (common/time.h). */
static int check_sample(struct ctx *c, const Perftools__Profiles__Sample *s, size_t i)
{
	const struct fk_pprof_data *p = c->pf;

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
	return 0;
}

/* Labels into the sample's pid, tid, thread name and time; the others
 * into c->attrs (*nattrs of them). */
static void apply_labels(struct ctx *c, const Perftools__Profiles__Sample *s,
                         struct fk_sample *smp, size_t *nattrs)
{
	const struct fk_pprof_data *p = c->pf;

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

/* Room for the labels of sample s, when the engine takes attributes. */
static int attr_space(struct ctx *c, const Perftools__Profiles__Sample *s)
{
	size_t c1 = c->cap_attrs, c2 = c->cap_attrs;
	fk_vector_realloc_fn *re = c->h->realloc;

	if (!FK_HOST_HAS(c->h, push_ext))
		return 0;
	/* attrs and nums share cap_attrs: both grow the same way from it */
	if (fk_vector_grow((void **)&c->attrs, &c1, s->n_label, sizeof *c->attrs, re) < 0 ||
	    fk_vector_grow((void **)&c->nums, &c2, s->n_label, sizeof *c->nums, re) < 0)
		return FK_ERR_NOMEM;
	c->cap_attrs = c1;
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
static struct fk_frameref unsymbolized(struct ctx *c, const struct fk_pprof_loc *l, size_t i)
{
	const struct fk_pprof_data *p = c->pf;
	const char *file = l->mapping_id ? p->string_table[p->mapping[find(&c->maps, l->mapping_id)].filename] : "";
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
	const struct fk_pprof_data *p = c->pf;

	if (p->n_mapping == 0)
		return 0;
	c->mapnames = c->h->alloc(p->n_mapping * sizeof *c->mapnames);
	if (!c->mapnames)
		return FK_ERR_NOMEM;
	memset(c->mapnames, 0, p->n_mapping * sizeof *c->mapnames);
	for (size_t i = 0; i < p->n_mapping; i++) {
		const char *file = p->string_table[p->mapping[i].filename];
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

/* Room for k more frames in c->lf after `at`. */
static int lf_room(struct ctx *c, size_t at, size_t k)
{
	size_t was = c->cap_lf;

	if (at + k < at ||
	    fk_vector_grow((void **)&c->lf, &c->cap_lf, at + k, sizeof *c->lf, c->h->realloc) < 0)
		return FK_ERR_NOMEM;
	memset(c->lf + was, 0, (c->cap_lf - was) * sizeof *c->lf);
	return 0;
}

/* The frames of a location without lines at c->lf[*at ...]: from its
 * binary when symbolizing finds it, else as unsymbolized() names it. */
static int lineless_frames(struct ctx *c, const struct fk_pprof_loc *l, size_t i, size_t *at)
{
	struct fk_sym_result r;
	int rc;

	r.n = 0;
	if (c->sym && l->mapping_id &&
	    (rc = psym_lookup(c->sym, find(&c->maps, l->mapping_id), l->address, &r)) < 0)
		return rc;
	if ((rc = lf_room(c, *at, r.n ? r.n : 1)) < 0)
		return rc;
	if (r.n == 0) {
		c->lf[(*at)++] = unsymbolized(c, l, i);
		return 0;
	}
	for (unsigned j = 0; j < r.n; j++) {
		struct fk_frameref *f = &c->lf[(*at)++];
		f->name = r.frames[j].name;
		f->len = strlen(f->name);
		/* Go's linker names an assembly function's ABI0 symbol NAME.abi0
		 * where a wrapper has NAME (cmd/link's mangleABIName); pprof
		 * reads Go's own table, which says NAME */
		if (f->len > 5 && !memcmp(f->name + f->len - 5, ".abi", 4) &&
		    f->name[f->len - 1] >= '0' && f->name[f->len - 1] <= '9')
			f->len -= 5;
		if (c->all && j + 1 < r.n)
			f->annot = FK_ANNOT_INLINE;
	}
	return 0;
}

/* Every location's frames, leaf first, once (references checked). */
static int location_frames(struct ctx *c)
{
	const struct fk_pprof_data *p = c->pf;
	size_t at = 0;
	int rc;

	c->lstart = c->h->alloc((p->n_location + 1) * sizeof *c->lstart);
	c->addrs = c->h->alloc((p->n_location ? p->n_location : 1) * sizeof *c->addrs);
	if (!c->lstart || !c->addrs || lf_room(c, 0, 1) < 0)
		return FK_ERR_NOMEM;
	for (size_t i = 0; i < p->n_location; i++) {
		const struct fk_pprof_loc *l = &p->location[i];
		c->lstart[i] = at;
		if (l->nline == 0) {
			if ((rc = lineless_frames(c, l, i, &at)) < 0)
				return rc;
			continue;
		}
		if ((rc = lf_room(c, at, l->nline)) < 0)
			return rc;
		for (size_t j = 0; j < l->nline; j++) {
			const struct fk_pprof_func *f = &p->function[find(&c->funcs, p->line_func[l->line0 + j])];
			const char *name = p->string_table[f->name];
			if (!*name)
				name = p->string_table[f->system_name];
			c->lf[at].name = name;
			c->lf[at].len = strlen(name);
			if (c->all && j + 1 < l->nline)
				c->lf[at].annot = FK_ANNOT_INLINE;
			at++;
		}
	}
	c->lstart[p->n_location] = at;
	return 0;
}

/* Frames of sample s (number i), root first, into c->refs; *n gets the
 * count. */
static int frames_of(struct ctx *c, const Perftools__Profiles__Sample *s, size_t i, size_t *n)
{
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
	if (fk_vector_grow((void **)&c->refs, &c->cap_refs, m, sizeof *c->refs, c->h->realloc) < 0)
		return FK_ERR_NOMEM;
	*n = m;
	/* the file is leaf first: fill from the end */
	for (size_t k = 0; k < s->n_location_id; k++) {
		size_t li = find(&c->locs, s->location_id[k]);
		for (size_t j = c->lstart[li]; j < c->lstart[li + 1]; j++)
			c->refs[--m] = c->lf[j];
	}
	return 0;
}

static size_t ids_hash(const uint64_t *ids, size_t n)
{
	uint64_t hash = 1469598103934665603ull;

	for (size_t k = 0; k < n; k++)
		hash = (hash ^ ids[k]) * 1099511628211ull;
	return (size_t)(hash ^ (hash >> 29));
}

/* The cache slot for the stack of location ids ids[0..n): the one holding
 * the same ids, or the empty one where it goes. */
static struct seen *cache_slot(const struct ctx *c, const uint64_t *ids, size_t n)
{
	for (size_t k = ids_hash(ids, n) & c->cache_mask;; k = (k + 1) & c->cache_mask) {
		struct seen *e = &c->cache[k];
		if (e->node == FK_NODE_NONE)
			return e;
		if (e->n == n && (n == 0 || !memcmp(c->cids + e->at, ids, n * sizeof *ids)))
			return e;
	}
}

/* An empty table of cap slots for the cache (the old one moved in), or -1
 * when there is no memory for it (the old one stays). */
static int cache_resize(struct ctx *c, size_t cap)
{
	struct seen *old = c->cache, *v = c->h->alloc(cap * sizeof *v);
	size_t oldcap = old ? c->cache_mask + 1 : 0;

	if (!v)
		return -1;
	for (size_t k = 0; k < cap; k++)
		v[k].node = FK_NODE_NONE;
	c->cache = v;
	c->cache_mask = cap - 1;
	for (size_t k = 0; k < oldcap; k++)
		if (old[k].node != FK_NODE_NONE)
			*cache_slot(c, c->cids + old[k].at, old[k].n) = old[k];
	c->h->free(old);
	return 0;
}

/* Remember sample s's stack in slot e, its ids copied.  The table grows
 * as stacks come, kept at most half full, up to CACHE_MAX slots; without
 * memory, a stack is not remembered. */
static void cache_keep(struct ctx *c, struct seen *e, const Perftools__Profiles__Sample *s, fk_node_t node)
{
	size_t n = s->n_location_id;

	if (node == FK_NODE_NONE || n > UINT32_MAX)
		return;
	if (c->cache_used >= (c->cache_mask + 1) / 2) {
		if (c->cache_mask + 1 >= CACHE_MAX || cache_resize(c, 2 * (c->cache_mask + 1)) < 0)
			return;
		e = cache_slot(c, s->location_id, n);
	}
	if (c->ncids + n > c->cap_cids) {
		size_t cap = c->cap_cids ? c->cap_cids : 4096;
		uint64_t *v;
		while (cap < c->ncids + n)
			cap *= 2;
		if (!(v = c->h->realloc(c->cids, cap * sizeof *v)))
			return;
		c->cids = v;
		c->cap_cids = cap;
	}
	if (n)
		memcpy(c->cids + c->ncids, s->location_id, n * sizeof *s->location_id);
	e->at = c->ncids;
	e->n = (uint32_t)n;
	e->node = node;
	c->ncids += n;
	c->cache_used++;
}

/* Sample s (number i), checked, pushed. */
static int push_sample(struct ctx *c, struct fk_sink *sink, const Perftools__Profiles__Sample *s,
                       size_t i, size_t vi)
{
	struct fk_sample smp;
	struct seen *e;
	fk_node_t node = FK_NODE_NONE;
	size_t n = 0, nz = 0, nattrs;
	int rc;

	if ((rc = check_sample(c, s, i)) < 0 || (rc = attr_space(c, s)) < 0)
		return rc;
	/* pprof drops a sample whose values are all zero (its merge does,
	 * even of one profile): so do we, for the same stacks */
	for (size_t k = 0; k < s->n_value; k++)
		nz += s->value[k] != 0;
	if (nz == 0)
		return 0;
	memset(&smp, 0, sizeof smp);
	smp.weight[0] = (double)s->value[vi];
	apply_labels(c, s, &smp, &nattrs);
	/* a stack seen before is pushed by its node: no names to intern */
	e = c->cache ? cache_slot(c, s->location_id, s->n_location_id) : NULL;
	if (e && e->node != FK_NODE_NONE)
		return push_one(c, sink, &smp, nattrs, e->node, NULL);
	if ((rc = frames_of(c, s, i, &n)) < 0)
		return rc;
	smp.frames = c->refs;
	smp.nframes = n;
	if ((rc = push_one(c, sink, &smp, nattrs, FK_NODE_NONE, &node)) < 0)
		return rc;
	if (e)
		cache_keep(c, e, s, node);
	return 0;
}

static int push_samples(struct ctx *c, struct fk_sink *sink, size_t vi)
{
	struct fk_pprof_data *p = c->pf;
	size_t off = 0;
	int rc = 0;

	/* a stack cache growing with the distinct stacks; without memory for
	 * it, no cache */
	cache_resize(c, CACHE_MIN);
	fk_pprof_allocator(&c->pa, c->h);
	for (size_t i = 0; rc == 0 && i < p->n_sample; i++) {
		Perftools__Profiles__Sample *s = fk_pprof_sample(p, &c->pa, &off);
		if (!s)
			return c->pa.failed ? FK_ERR_NOMEM :
			       c->h->input_error(c->in, 0, "not a pprof profile: sample %zu does not decode "
			                         "as a profile.proto Sample (truncated or corrupt)", i + 1);
		rc = push_sample(c, sink, s, i, vi);
		perftools__profiles__sample__free_unpacked(s, &c->pa.pa);
	}
	return rc;
}

/* Whether a location has a mapping and no lines: something to symbolize. */
static bool lineless(const struct fk_pprof_data *p)
{
	for (size_t i = 0; i < p->n_location; i++)
		if (p->location[i].nline == 0 && p->location[i].mapping_id)
			return true;
	return false;
}

FK_LIMIT_CHECK_FN(check, struct opts, max_input_size)

static int parse(const struct fk_host *h, struct fk_input *in, struct fk_sink *sink, const void *op)
{
	const struct opts *o = op;
	struct ctx c = { .h = h, .in = in, .all = o->all, .addresses = o->addresses };
	int local = !o->symbolize || !strcmp(o->symbolize, "local");
	struct fk_input_limit lim;
	struct fk_pprof_data pd;
	struct fk_pprof_data *pf = &pd;
	size_t vi = 0;
	int rc;

	if (!local && strcmp(o->symbolize, "none") != 0)
		return h->input_error(in, 0, "--symbolize takes local or none, not '%s'", o->symbolize);
	fk_limit_for(h, in, o->max_input_size, &lim);
	if ((rc = fk_pprof_read(h, in, &lim, &pd)) < 0)
		goto out_quiet;
	c.pf = pf;
	c.frames_max = c.frames_left = pf->bytes > FRAMES_MIN / FRAMES_PER_BYTE ?
	                               (size_t)pf->bytes * FRAMES_PER_BYTE : FRAMES_MIN;
	if (pf->n_string_table == 0 || pf->string_table[0][0] != '\0') {
		rc = h->input_error(in, 0, "not a valid pprof profile: its string table is missing or does not start with \"\" (truncated?)");
		goto out;
	}
	if ((rc = make_index(&c, &c.locs, pf->n_location, loc_id, "location")) < 0 ||
	    (rc = make_index(&c, &c.funcs, pf->n_function, func_id, "function")) < 0 ||
	    (rc = make_index(&c, &c.maps, pf->n_mapping, map_id, "mapping")) < 0 ||
	    (rc = pick_value(&c, o->sample_type, &vi)) < 0 || (rc = check_refs(&c)) < 0 ||
	    (rc = mapping_names(&c)) < 0)
		goto out;
	if (local && !c.addresses && lineless(pf) &&
	    (rc = psym_new(h, in, pf, o->binary_path, o->inline_frames, &c.sym)) < 0)
		goto out;
	if ((rc = location_frames(&c)) < 0)
		goto out;
	if ((rc = push_samples(&c, sink, vi)) < 0)
		goto out;
	if (h->sink_set_unit)
		h->sink_set_unit(sink, fk_pprof_unit_in(pf->string_table[pf->sample_type[vi].type],
		                                        pf->string_table[pf->sample_type[vi].unit]));
	if (pf->time_nanos && FK_HOST_HAS(h, sink_set_start_time)) /* pprof's own 0: not given */
		h->sink_set_start_time(sink, pf->time_nanos);
out:
	if (rc == FK_ERR_NOMEM)
		h->input_error(in, 0, "out of memory");
out_quiet:
	for (size_t i = 0; c.mapnames && i < pf->n_mapping; i++)
		h->free(c.mapnames[i]);
	h->free(c.mapnames);
	fk_pprof_data_free(pf);
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
	h->free(c.cids);
	h->free(c.attrs);
	h->free(c.nums);
	psym_free(c.sym);
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
	.check = check,
	/* go tool pprof demangles a function known only by its mangled
	 * system name, without argument lists (its default, simplified) */
	.demangle = FK_DEMANGLE_SHORT,
};

FLAMEKIT_REGISTER_INPUT(plugin)
