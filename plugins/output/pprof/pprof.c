/*
 * Output plugin "pprof": a gzip-compressed profile.proto that `go tool
 * pprof`, Pyroscope, Parca, Grafana and Perfetto read.
 *
 * One Function and one Location per distinct frame (by its full name, with
 * any _[k] suffix, so the stacks are the collapse's); one sample type per
 * series holding data, named after its unit (samples/count,
 * cpu/nanoseconds, offcpu/microseconds, space/bytes, ...).  When the inputs
 * gave timed or per-thread samples, each becomes a pprof sample with
 * numeric labels "pid", "tid" and "timestamp_ns" (what the pprof input
 * plugin reads back), a string label "comm" with its thread name, and a
 * string label for each of its attributes (ABI 1.3: a pprof input's
 * goroutine labels come back as they were, numeric ones as text); and
 * duration_nanos spans them.  time_nanos, the capture's wall-clock start,
 * is written when an input gave one (ABI 1.8's start_time: perf's
 * header), and left out otherwise: the samples' clocks are monotonic,
 * perf's and V8's from boot or process start, and go tool pprof would show
 * them as "Jan 1, 1970".  Otherwise each stack is one sample
 * with its total.  Weights are rounded to integers (pprof's values are
 * int64).
 *
 * Memory stays with the distinct frames: the functions, locations and
 * strings are one message, and the samples follow in batches, each packed
 * as a Profile holding only samples (protobuf concatenates repeated fields)
 * and compressed as it is written.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "fk_pprof.h"
#include "vector/fkvector.h"

typedef Perftools__Profiles__Sample pb_sample;
typedef Perftools__Profiles__Label pb_label;

#define BATCH 4096

/* A ProtobufCBuffer that gzips into the writer. */
struct gzout {
	ProtobufCBuffer base;
	const struct fk_host *h;
	struct fk_writer *w;
	z_stream z;
	int rc;
	unsigned char out[65536];
};

static int gz_pump(struct gzout *g, int flush)
{
	int zr;

	do {
		g->z.next_out = g->out;
		g->z.avail_out = sizeof g->out;
		zr = deflate(&g->z, flush);
		if (zr == Z_STREAM_ERROR)
			return FK_ERR_INTERNAL;
		if (sizeof g->out - g->z.avail_out > 0) {
			int rc = g->h->write(g->w, g->out, sizeof g->out - g->z.avail_out);
			if (rc < 0)
				return rc;
		}
	} while (g->z.avail_out == 0 || (flush == Z_FINISH && zr != Z_STREAM_END));
	return 0;
}

static void gz_append(ProtobufCBuffer *b, size_t len, const uint8_t *data)
{
	struct gzout *g = (struct gzout *)b;

	while (g->rc == 0 && len > 0) {
		uInt n = len > (1u << 30) ? 1u << 30 : (uInt)len;
		g->z.next_in = (Bytef *)data;
		g->z.avail_in = n;
		g->rc = gz_pump(g, Z_NO_FLUSH);
		data += n;
		len -= n;
	}
}

/* The strings of the samples' labels (attribute keys and values, thread
 * names), each once, NUL-terminated copies, numbered from `base` in the
 * string table after the frames.  Found by content: an open-addressing
 * table of index + 1. */
struct labstr {
	char **v;
	size_t n, cap;
	size_t *slots, mask;
	size_t base;
};

/* Everything about the profile but its samples. */
struct head {
	fk_pprof_profile pf;
	Perftools__Profiles__ValueType vt[FK_SERIES_MAX], *vtp[FK_SERIES_MAX];
	int series[FK_SERIES_MAX];
	size_t nseries;
	uint32_t *loc;                 /* frame id -> location id, 0 when unused */
	Perftools__Profiles__Function *fn, **fnp;
	Perftools__Profiles__Location *lc, **lcp;
	Perftools__Profiles__Line *ln, **lnp;
	char **strs;
	char *arena;                   /* frame names, NUL-terminated */
	struct labstr lab;             /* label strings, after the frames */
	char name2[FK_SERIES_MAX][64];
};

enum { S_EMPTY, S_PID, S_TID, S_TIME, S_NS, S_COMM, S_FIXED };

static uint64_t hash_bytes(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

/* The string-table index of s[0..n), added when new (add); -1 when out of
 * memory or (not add) unknown. */
static int64_t labstr_find(const struct fk_host *h, struct labstr *t, const char *s, size_t n,
                           int add)
{
	size_t j, k;

	if (t->mask == 0 || (add && (t->n + 1) * 2 > t->mask + 1)) {
		size_t nm = t->mask ? t->mask * 2 + 1 : 255;
		size_t *ns = h->alloc((nm + 1) * sizeof *ns);
		if (!ns)
			return -1;
		memset(ns, 0, (nm + 1) * sizeof *ns);
		for (size_t i = 0; i < t->n; i++) {
			for (j = hash_bytes(t->v[i], strlen(t->v[i])) & nm; ns[j]; j = (j + 1) & nm)
				;
			ns[j] = i + 1;
		}
		h->free(t->slots);
		t->slots = ns;
		t->mask = nm;
	}
	for (j = hash_bytes(s, n) & t->mask; (k = t->slots[j]) != 0; j = (j + 1) & t->mask)
		if (strncmp(t->v[k - 1], s, n) == 0 && t->v[k - 1][n] == '\0')
			return (int64_t)(t->base + k - 1);
	if (!add)
		return -1;
	if (fk_vector_grow((void **)&t->v, &t->cap, t->n + 1, sizeof *t->v, h->realloc) < 0)
		return -1;
	if (!(t->v[t->n] = h->alloc(n + 1)))
		return -1;
	/* a NUL inside would cut the string: protobuf-c's are C strings */
	memcpy(t->v[t->n], s, n);
	t->v[t->n][n] = '\0';
	t->slots[j] = ++t->n;
	return (int64_t)(t->base + t->n - 1);
}

static void labstr_free(const struct fk_host *h, struct labstr *t)
{
	for (size_t i = 0; i < t->n; i++)
		h->free(t->v[i]);
	h->free(t->v);
	h->free(t->slots);
}

/* Every label string of the logged samples into t (an engine before 1.3
 * keeps no attributes: nothing to do). */
static int collect_labels(const struct fk_host *h, const struct fk_profile *p, struct labstr *t)
{
	if (!FK_HOST_HAS(h, sample_attrs) || !FK_HOST_HAS(h, sample_comm))
		return 0;
	for (size_t i = 0, ns = h->samples(p); i < ns; i++) {
		const struct fk_attr *a;
		size_t na = h->sample_attrs(p, i, &a), len;
		const char *comm = h->sample_comm(p, i, &len);
		if (comm && labstr_find(h, t, comm, len, 1) < 0)
			return FK_ERR_NOMEM;
		for (size_t k = 0; k < na; k++)
			if (labstr_find(h, t, a[k].key, a[k].key_len, 1) < 0 ||
			    labstr_find(h, t, a[k].value, a[k].value_len, 1) < 0)
				return FK_ERR_NOMEM;
	}
	return 0;
}

static int build_head(const struct fk_host *h, const struct fk_profile *p, struct head *hd)
{
	size_t nodes = h->nodes(p), nframes = 0, used = 0;
	unsigned mask = h->series_mask(p);
	size_t nstr;

	perftools__profiles__profile__init(&hd->pf);
	for (int s = 0; s < FK_SERIES_MAX; s++)
		if (mask & (1u << s))
			hd->series[hd->nseries++] = s;
	if (hd->nseries == 0)
		hd->series[hd->nseries++] = 0;
	for (size_t n = 1; n < nodes; n++) {
		fk_frame_t f = h->node_frame(p, (fk_node_t)n);
		if (f + 1 > nframes)
			nframes = (size_t)f + 1;
	}
	hd->loc = h->alloc((nframes ? nframes : 1) * sizeof *hd->loc);
	if (!hd->loc)
		return FK_ERR_NOMEM;
	memset(hd->loc, 0, (nframes ? nframes : 1) * sizeof *hd->loc);
	for (size_t n = 1; n < nodes; n++) {
		fk_frame_t f = h->node_frame(p, (fk_node_t)n);
		if (!hd->loc[f])
			hd->loc[f] = (uint32_t)++used;
	}
	hd->lab.base = S_FIXED + 2 * hd->nseries + used;
	if (collect_labels(h, p, &hd->lab) < 0)
		return FK_ERR_NOMEM;
	nstr = hd->lab.base + hd->lab.n;
	hd->strs = h->alloc(nstr * sizeof *hd->strs);
	hd->fn = h->alloc((used ? used : 1) * sizeof *hd->fn);
	hd->fnp = h->alloc((used ? used : 1) * sizeof *hd->fnp);
	hd->lc = h->alloc((used ? used : 1) * sizeof *hd->lc);
	hd->lcp = h->alloc((used ? used : 1) * sizeof *hd->lcp);
	hd->ln = h->alloc((used ? used : 1) * sizeof *hd->ln);
	hd->lnp = h->alloc((used ? used : 1) * sizeof *hd->lnp);
	if (!hd->strs || !hd->fn || !hd->fnp || !hd->lc || !hd->lcp || !hd->ln || !hd->lnp)
		return FK_ERR_NOMEM;
	hd->strs[S_EMPTY] = (char *)"";
	hd->strs[S_PID] = (char *)"pid";
	hd->strs[S_TID] = (char *)"tid";
	hd->strs[S_TIME] = (char *)"timestamp_ns";
	hd->strs[S_NS] = (char *)"nanoseconds";
	hd->strs[S_COMM] = (char *)"comm";
	for (size_t i = 0; i < hd->lab.n; i++)
		hd->strs[hd->lab.base + i] = hd->lab.v[i];
	for (size_t i = 0; i < hd->nseries; i++) {
		const char *t, *u;
		fk_pprof_unit_out(h->series_unit(p, hd->series[i]), &t, &u);
		/* two series of one unit: pprof needs distinct type names */
		if (i > 0 && strcmp(t, hd->strs[S_FIXED]) == 0) {
			snprintf(hd->name2[i], sizeof hd->name2[i], "%s%d", t, hd->series[i] + 1);
			t = hd->name2[i];
		}
		hd->strs[S_FIXED + 2 * i] = (char *)t;
		hd->strs[S_FIXED + 2 * i + 1] = (char *)u;
		perftools__profiles__value_type__init(&hd->vt[i]);
		hd->vt[i].type = (int64_t)(S_FIXED + 2 * i);
		hd->vt[i].unit = (int64_t)(S_FIXED + 2 * i + 1);
		hd->vtp[i] = &hd->vt[i];
	}
	for (size_t f = 0, at = 0; f < nframes; f++) {
		size_t len;
		if (hd->loc[f])
			at += (h->frame_name(p, (fk_frame_t)f, &len), len) + 1;
		if (f + 1 == nframes && !(hd->arena = h->alloc(at)))
			return FK_ERR_NOMEM;
	}
	for (size_t f = 0, at = 0; f < nframes; f++) {
		size_t k = hd->loc[f], len;
		const char *name;
		if (!k--)
			continue;
		/* a copy: the ABI does not promise a NUL, and a NUL inside a name
		 * would cut it (protobuf strings here are C strings) */
		name = h->frame_name(p, (fk_frame_t)f, &len);
		memcpy(hd->arena + at, name, len);
		hd->arena[at + len] = '\0';
		hd->strs[S_FIXED + 2 * hd->nseries + k] = hd->arena + at;
		at += len + 1;
		perftools__profiles__function__init(&hd->fn[k]);
		hd->fn[k].id = k + 1;
		hd->fn[k].name = hd->fn[k].system_name = (int64_t)(S_FIXED + 2 * hd->nseries + k);
		hd->fnp[k] = &hd->fn[k];
		perftools__profiles__line__init(&hd->ln[k]);
		hd->ln[k].function_id = k + 1;
		hd->lnp[k] = &hd->ln[k];
		perftools__profiles__location__init(&hd->lc[k]);
		hd->lc[k].id = k + 1;
		hd->lc[k].n_line = 1;
		hd->lc[k].line = &hd->lnp[k];
		hd->lcp[k] = &hd->lc[k];
	}
	hd->pf.n_sample_type = hd->nseries;
	hd->pf.sample_type = hd->vtp;
	hd->pf.n_function = hd->pf.n_location = used;
	hd->pf.function = hd->fnp;
	hd->pf.location = hd->lcp;
	hd->pf.n_string_table = nstr;
	hd->pf.string_table = hd->strs;
	return 0;
}

static void free_head(const struct fk_host *h, struct head *hd)
{
	h->free(hd->loc);
	h->free(hd->strs);
	h->free(hd->arena);
	h->free(hd->fn);
	h->free(hd->fnp);
	h->free(hd->lc);
	h->free(hd->lcp);
	h->free(hd->ln);
	h->free(hd->lnp);
	labstr_free(h, &hd->lab);
}

/* Batches of samples, each packed as a Profile holding only them. */
struct batch {
	pb_sample smp[BATCH], *smpp[BATCH];
	int64_t val[BATCH][FK_SERIES_MAX];
	uint64_t *ids;     /* location ids of all the batch's samples */
	size_t nids, capids, n;
	pb_label *labs;    /* labels of all the batch's samples */
	pb_label **labps;  /* pointers to them, set at flush */
	size_t nlabs, caplabs;
};

static int64_t to_int(double v)
{
	if (!(v == v))
		return 0;
	if (v >= 9.2e18)
		return INT64_MAX;
	if (v <= -9.2e18)
		return INT64_MIN;
	return (int64_t)llround(v);
}

static void flush(struct batch *b, struct gzout *g)
{
	fk_pprof_profile part;
	size_t at = 0;

	if (b->n == 0)
		return;
	for (size_t i = 0, lat = 0; i < b->n; i++) {
		/* ids and labels were appended while the arrays could move:
		 * point now */
		b->smp[i].location_id = b->ids + at;
		at += b->smp[i].n_location_id;
		b->smp[i].label = b->labps + lat;
		for (size_t k = 0; k < b->smp[i].n_label; k++, lat++)
			b->labps[lat] = &b->labs[lat];
	}
	perftools__profiles__profile__init(&part);
	part.n_sample = b->n;
	part.sample = b->smpp;
	perftools__profiles__profile__pack_to_buffer(&part, &g->base);
	b->n = b->nids = b->nlabs = 0;
}

/* A new label of the batch's current sample, NULL when out of memory. */
static pb_label *new_label(const struct fk_host *h, struct batch *b)
{
	pb_label *l;

	if (b->nlabs == b->caplabs) {
		size_t nc = b->caplabs ? b->caplabs * 2 : 4 * BATCH;
		pb_label *nl = h->realloc(b->labs, nc * sizeof *nl);
		pb_label **np;
		if (!nl)
			return NULL;
		b->labs = nl;
		if (!(np = h->realloc(b->labps, nc * sizeof *np)))
			return NULL;
		b->labps = np;
		b->caplabs = nc;
	}
	l = &b->labs[b->nlabs++];
	perftools__profiles__label__init(l);
	return l;
}

/* Logged sample i's labels: pid, tid, time, thread name, attributes. */
static int add_labels(const struct fk_host *h, const struct fk_profile *p, const struct head *hd,
                      struct batch *b, size_t i, size_t *nl)
{
	static const struct { unsigned flag; int key; } keys[] = {
		{ FK_SAMPLE_PID, S_PID }, { FK_SAMPLE_TID, S_TID }, { FK_SAMPLE_TIME, S_TIME },
	};
	const struct fk_logged_sample *ls = h->sample(p, i);
	struct labstr *t = (struct labstr *)&hd->lab;
	const struct fk_attr *a = NULL;
	const char *comm = NULL;
	size_t na = 0, len = 0;
	pb_label *l;

	for (size_t k = 0; k < 3; k++) {
		if (!(ls->flags & keys[k].flag))
			continue;
		if (!(l = new_label(h, b)))
			return FK_ERR_NOMEM;
		l->key = keys[k].key;
		l->num = keys[k].key == S_PID ? ls->pid : keys[k].key == S_TID ? ls->tid : ls->time_ns;
		if (keys[k].key == S_TIME)
			l->num_unit = S_NS;
		++*nl;
	}
	if (FK_HOST_HAS(h, sample_attrs) && FK_HOST_HAS(h, sample_comm)) {
		comm = h->sample_comm(p, i, &len);
		na = h->sample_attrs(p, i, &a);
	}
	if (comm) {
		if (!(l = new_label(h, b)))
			return FK_ERR_NOMEM;
		l->key = S_COMM;
		l->str = labstr_find(h, t, comm, len, 0);
		++*nl;
	}
	for (size_t k = 0; k < na; k++) {
		if (!(l = new_label(h, b)))
			return FK_ERR_NOMEM;
		l->key = labstr_find(h, t, a[k].key, a[k].key_len, 0);
		l->str = labstr_find(h, t, a[k].value, a[k].value_len, 0);
		++*nl;
	}
	return 0;
}

/* Add one sample: the stack of `leaf`, weights w, labels from logged
 * sample `li` (or none when li is (size_t)-1). */
static int add(const struct fk_host *h, const struct fk_profile *p, const struct head *hd,
               struct batch *b, struct gzout *g, fk_node_t leaf, const double *w, size_t li)
{
	size_t depth = h->node_depth(p, leaf), k = b->n, nl = 0;
	pb_sample *s = &b->smp[k];

	if (b->nids + depth > b->capids) {
		size_t nc = b->capids ? b->capids : 65536;
		uint64_t *ni;
		while (nc < b->nids + depth)
			nc *= 2;
		if (!(ni = h->realloc(b->ids, nc * sizeof *ni)))
			return FK_ERR_NOMEM;
		b->ids = ni;
		b->capids = nc;
	}
	perftools__profiles__sample__init(s);
	s->n_location_id = 0;
	for (fk_node_t n = leaf; n != FK_NODE_ROOT; n = h->node_parent(p, n)) {
		b->ids[b->nids++] = hd->loc[h->node_frame(p, n)];
		s->n_location_id++;
	}
	for (size_t i = 0; i < hd->nseries; i++)
		b->val[k][i] = to_int(w[hd->series[i]]);
	s->n_value = hd->nseries;
	s->value = b->val[k];
	if (li != (size_t)-1 && add_labels(h, p, hd, b, li, &nl) < 0)
		return FK_ERR_NOMEM;
	s->n_label = nl;
	b->smpp[k] = s;
	if (++b->n == BATCH)
		flush(b, g);
	return g->rc;
}

static int write_samples(const struct fk_host *h, const struct fk_profile *p, const struct head *hd,
                         struct batch *b, struct gzout *g)
{
	size_t ns = h->samples(p), nodes = h->nodes(p);
	int rc = 0;

	for (size_t i = 0; i < ns && rc == 0; i++) {
		const struct fk_logged_sample *ls = h->sample(p, i);
		rc = add(h, p, hd, b, g, ls->leaf, ls->weight, i);
	}
	for (size_t n = 1; ns == 0 && n < nodes && rc == 0; n++) {
		double w[FK_SERIES_MAX];
		if (!h->node_is_leaf(p, (fk_node_t)n))
			continue;
		for (int s = 0; s < FK_SERIES_MAX; s++)
			w[s] = h->node_self(p, (fk_node_t)n, s);
		rc = add(h, p, hd, b, g, (fk_node_t)n, w, (size_t)-1);
	}
	if (rc == 0)
		flush(b, g);
	return rc ? rc : g->rc;
}

/* The profile's time span from the timed samples, and its wall-clock
 * start when an input gave one (see the top of this file). */
static void time_span(const struct fk_host *h, const struct fk_profile *p, fk_pprof_profile *pf)
{
	int64_t t0 = INT64_MAX, t1 = INT64_MIN, wall;

	if (FK_HOST_HAS(h, start_time) && h->start_time(p, &wall))
		pf->time_nanos = wall;

	for (size_t i = 0, ns = h->samples(p); i < ns; i++) {
		const struct fk_logged_sample *ls = h->sample(p, i);
		if (!(ls->flags & FK_SAMPLE_TIME))
			continue;
		if (ls->time_ns < t0)
			t0 = ls->time_ns;
		if (ls->time_ns > t1)
			t1 = ls->time_ns;
	}
	if (t0 <= t1) {
		/* the inputs here keep times within 2^62 ns of 0
		 * (plugins/input/common/time.h), but a third-party one may
		 * not: a span over INT64_MAX is clamped, as pprof cannot hold
		 * it, without a signed overflow */
		uint64_t span = (uint64_t)t1 - (uint64_t)t0;
		pf->duration_nanos = span > INT64_MAX ? INT64_MAX : (int64_t)span;
	}
}

static int render(const struct fk_host *h, const struct fk_profile *p, struct fk_writer *w, const void *opts)
{
	struct head hd;
	struct batch *b = NULL;
	struct gzout *g = h->alloc(sizeof *g);
	int rc, zinit = 0;

	(void)opts;
	memset(&hd, 0, sizeof hd);
	if (!g) {
		rc = FK_ERR_NOMEM;
		goto out;
	}
	memset(g, 0, sizeof *g);
	g->base.append = gz_append;
	g->h = h;
	g->w = w;
	/* windowBits 15 + 16: a gzip header, whose mtime stays 0 (same bytes
	 * for the same profile) */
	if (deflateInit2(&g->z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		rc = FK_ERR_NOMEM;
		goto out;
	}
	zinit = 1;
	if ((rc = build_head(h, p, &hd)) < 0)
		goto out;
	time_span(h, p, &hd.pf);
	perftools__profiles__profile__pack_to_buffer(&hd.pf, &g->base);
	if ((rc = g->rc) < 0)
		goto out;
	if (!(b = h->alloc(sizeof *b))) {
		rc = FK_ERR_NOMEM;
		goto out;
	}
	memset(b, 0, sizeof *b);
	if ((rc = write_samples(h, p, &hd, b, g)) < 0)
		goto out;
	rc = gz_pump(g, Z_FINISH);
out:
	if (rc == FK_ERR_NOMEM)
		h->log(FK_LOG_ERROR, "out of memory writing the pprof profile");
	else if (rc == FK_ERR_INTERNAL)
		h->log(FK_LOG_ERROR, "zlib failed compressing the pprof profile");
	if (zinit)
		deflateEnd(&g->z);
	if (b) {
		h->free(b->ids);
		h->free(b->labs);
		h->free(b->labps);
	}
	h->free(b);
	h->free(g);
	free_head(h, &hd);
	return rc;
}

static struct fk_output_plugin plugin = {
	.h = {
		.name = "pprof",
		.version = "1.0",
		.description = "pprof's gzip-compressed profile.proto (go tool pprof, Pyroscope, Parca, Perfetto)",
	},
	.needs = FK_OUTPUT_NEEDS_SAMPLES,
	.render = render,
};

FLAMEKIT_REGISTER_OUTPUT(plugin)
