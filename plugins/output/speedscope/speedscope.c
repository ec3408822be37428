/*
 * Output plugin "speedscope": speedscope's file format
 * (https://www.speedscope.app/file-format-schema.json), which opens in
 * speedscope (the web app or `npx speedscope FILE`).
 *
 * Every distinct frame is one entry of shared.frames, named by its full
 * name (with any _[k] suffix), so the stacks are the collapse's.  Profiles
 * are of type "sampled", weights in the series' unit ("none" for samples,
 * "nanoseconds", "microseconds", "milliseconds", "seconds", "bytes"):
 *   - when samples carry a thread id, one profile per thread (by tid, then
 *     pid), its samples in time order, one entry per sample, named
 *     "COMM tid T (pid P)" after the thread name (comm) of its first sample
 *     when the input gave one (ABI 1.3's sample_comm), else "tid T (pid P)";
 *   - otherwise, when they carry times, one profile of every sample in
 *     time order;
 *   - otherwise one profile with one entry per distinct stack and its total,
 *     in the tree's order.
 * A two-series profile (differential or on/off-CPU) gives each series its
 * own profile(s), named after the series.  Names are JSON-escaped, bytes
 * that are not UTF-8 written as \\u00XX, and '<', '>', '&' escaped too so
 * the file is safe to embed in a page.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <flamekit/plugin.h>

#include "vector/fkvector.h"

struct ent {
	int64_t lane, t;
	size_t i;
	int32_t pid, tid;
};

struct ctx {
	const struct fk_host *h;
	const struct fk_profile *p;
	struct fk_writer *w;
	uint32_t *fidx;      /* frame id -> index in shared.frames + 1, 0 unused */
	uint32_t *path;
	size_t cap_path;
};

static int cmp_ent(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;
	if (x->lane != y->lane)
		return x->lane < y->lane ? -1 : 1;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* Length of the valid UTF-8 sequence at s[0..n), 0 when invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t k;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		k = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		k = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		k = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (k > n)
		return 0;
	for (size_t i = 1; i < k; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((k == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (k == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return k;
}

/* A JSON string, quoted. */
static int put_str(const struct ctx *c, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	char buf[512];
	size_t b = 0;
	int rc = 0;

	buf[b++] = '"';
	for (size_t i = 0; i < n && rc == 0;) {
		size_t k = utf8_len(u + i, n - i);
		if (b + 8 > sizeof buf) {
			rc = c->h->write(c->w, buf, b);
			b = 0;
		}
		if (k > 1) {
			memcpy(buf + b, s + i, k);
			b += k;
			i += k;
			continue;
		}
		if (k == 1 && u[i] >= 0x20 && u[i] != '"' && u[i] != '\\' && u[i] != '<' && u[i] != '>' &&
		    u[i] != '&' && u[i] != 0x7f) {
			buf[b++] = s[i++];
			continue;
		}
		if (u[i] == '"' || u[i] == '\\') {
			buf[b++] = '\\';
			buf[b++] = s[i++];
			continue;
		}
		b += (size_t)snprintf(buf + b, 7, "\\u%04x", u[i++]);
	}
	buf[b++] = '"';
	if (rc == 0)
		rc = c->h->write(c->w, buf, b);
	return rc;
}

static int put_num(const struct ctx *c, double v)
{
	if (!(v == v) || isinf(v))
		v = 0;
	if (v == floor(v) && fabs(v) < 9.2e18)
		return c->h->printf(c->w, "%lld", (long long)v);
	return c->h->printf(c->w, "%.17g", v);
}

static const char *unit_of(const char *u)
{
	static const char *const map[][2] = {
		{ "ns", "nanoseconds" }, { "us", "microseconds" }, { "ms", "milliseconds" },
		{ "s", "seconds" }, { "bytes", "bytes" },
	};
	for (size_t i = 0; u && i < sizeof map / sizeof map[0]; i++)
		if (strcmp(u, map[i][0]) == 0)
			return map[i][1];
	return "none";
}

/* shared.frames: every frame a node uses, in order of first use. */
static int put_frames(struct ctx *c)
{
	size_t nodes = c->h->nodes(c->p), nframes = 0;
	uint32_t used = 0;
	int rc;

	for (size_t n = 1; n < nodes; n++) {
		fk_frame_t f = c->h->node_frame(c->p, (fk_node_t)n);
		if (f + 1 > nframes)
			nframes = (size_t)f + 1;
	}
	c->fidx = c->h->alloc((nframes ? nframes : 1) * sizeof *c->fidx);
	if (!c->fidx)
		return FK_ERR_NOMEM;
	memset(c->fidx, 0, (nframes ? nframes : 1) * sizeof *c->fidx);
	rc = c->h->printf(c->w, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n"
	                  "\"shared\":{\"frames\":[");
	for (size_t n = 1; n < nodes && rc == 0; n++) {
		fk_frame_t f = c->h->node_frame(c->p, (fk_node_t)n);
		const char *name;
		size_t len;
		if (c->fidx[f])
			continue;
		c->fidx[f] = ++used;
		name = c->h->frame_name(c->p, f, &len);
		rc = c->h->printf(c->w, "%s\n{\"name\":", used > 1 ? "," : "");
		if (rc == 0)
			rc = put_str(c, name, len);
		if (rc == 0)
			rc = c->h->write(c->w, "}", 1);
	}
	if (rc == 0)
		rc = c->h->printf(c->w, "]},\n\"profiles\":[");
	return rc;
}

/* One stack, root first, as a JSON array of frame indices. */
static int put_stack(struct ctx *c, fk_node_t leaf)
{
	size_t d = c->h->node_depth(c->p, leaf), m = 0;
	int rc;

	if (fk_vector_grow((void **)&c->path, &c->cap_path, d, sizeof *c->path, c->h->realloc) < 0)
		return FK_ERR_NOMEM;
	for (fk_node_t n = leaf; n != FK_NODE_ROOT && m < d; n = c->h->node_parent(c->p, n))
		c->path[m++] = c->fidx[c->h->node_frame(c->p, n)] - 1;
	rc = c->h->write(c->w, "[", 1);
	while (m > 0 && rc == 0) {
		uint32_t k = c->path[--m];
		rc = c->h->printf(c->w, m ? "%u," : "%u", k);
	}
	if (rc == 0)
		rc = c->h->write(c->w, "]", 1);
	return rc;
}

/* One sampled profile: entries v[0..n) (sample indices, or nodes when
 * agg), weights of series s. */
/* The profile's name: the thread name (comm[0..comm_len), NULL for none),
 * name, and the series when there are two; escaped by put_str. */
static int put_label(struct ctx *c, const char *comm, size_t comm_len, const char *name, int s,
                     int two)
{
	const struct fk_host *h = c->h;
	const char *unit = h->series_unit(c->p, s);
	char tail[128], *label;
	size_t tl;
	int rc;

	snprintf(tail, sizeof tail, "%s%s%s%s", name, two ? " (" : "",
	         two ? (unit ? unit : s ? "series 2" : "series 1") : "", two ? ")" : "");
	if (!comm)
		return put_str(c, tail, strlen(tail));
	tl = strlen(tail);
	if (!(label = h->alloc(comm_len + 1 + tl)))
		return FK_ERR_NOMEM;
	memcpy(label, comm, comm_len);
	label[comm_len] = ' ';
	memcpy(label + comm_len + 1, tail, tl);
	rc = put_str(c, label, comm_len + 1 + tl);
	h->free(label);
	return rc;
}

static int put_profile(struct ctx *c, const struct ent *v, size_t n, int agg, int s, int two,
                       const char *name, int first)
{
	const struct fk_host *h = c->h;
	const char *comm = NULL;
	size_t comm_len = 0;
	double total = 0;
	int rc;

	for (size_t i = 0; i < n; i++)
		total += agg ? h->node_self(c->p, (fk_node_t)v[i].i, s) : h->sample(c->p, v[i].i)->weight[s];
	/* a thread's profile is named after its thread name, when known */
	if (!agg && n && v[0].tid >= 0 && FK_HOST_HAS(h, sample_comm))
		comm = h->sample_comm(c->p, v[0].i, &comm_len);
	rc = h->printf(c->w, "%s\n{\"type\":\"sampled\",\"name\":", first ? "" : ",");
	if (rc == 0)
		rc = put_label(c, comm, comm_len, name, s, two);
	if (rc == 0)
		rc = h->printf(c->w, ",\"unit\":\"%s\",\"startValue\":0,\"endValue\":",
		               unit_of(h->series_unit(c->p, s)));
	if (rc == 0)
		rc = put_num(c, total);
	if (rc == 0)
		rc = h->printf(c->w, ",\n\"samples\":[");
	for (size_t i = 0; i < n && rc == 0; i++) {
		if (i && (rc = h->write(c->w, ",", 1)) < 0)
			break;
		rc = put_stack(c, agg ? (fk_node_t)v[i].i : h->sample(c->p, v[i].i)->leaf);
	}
	if (rc == 0)
		rc = h->printf(c->w, "],\n\"weights\":[");
	for (size_t i = 0; i < n && rc == 0; i++) {
		if (i && (rc = h->write(c->w, ",", 1)) < 0)
			break;
		rc = put_num(c, agg ? h->node_self(c->p, (fk_node_t)v[i].i, s) : h->sample(c->p, v[i].i)->weight[s]);
	}
	if (rc == 0)
		rc = h->write(c->w, "]}", 2);
	return rc;
}

/* The entries to write: logged samples by thread and time, or stacks. */
static int entries(struct ctx *c, struct ent **out, size_t *n, int *agg)
{
	const struct fk_host *h = c->h;
	size_t ns = h->samples(c->p), nodes = h->nodes(c->p), m = 0;
	unsigned any = 0;
	struct ent *v;

	for (size_t i = 0; i < ns; i++)
		any |= h->sample(c->p, i)->flags;
	*agg = !(any & (FK_SAMPLE_TID | FK_SAMPLE_TIME));
	v = h->alloc(((*agg ? nodes : ns) + 1) * sizeof *v);
	if (!v)
		return FK_ERR_NOMEM;
	if (*agg) {
		for (size_t k = 1; k < nodes; k++)
			if (h->node_is_leaf(c->p, (fk_node_t)k))
				v[m++].i = k;
	} else {
		for (size_t i = 0; i < ns; i++) {
			const struct fk_logged_sample *ls = h->sample(c->p, i);
			v[m].lane = (ls->flags & FK_SAMPLE_TID) ? ((int64_t)ls->tid << 32) |
			            (uint32_t)((ls->flags & FK_SAMPLE_PID) ? ls->pid : -1) : INT64_MIN;
			v[m].t = (ls->flags & FK_SAMPLE_TIME) ? ls->time_ns : 0;
			v[m].i = i;
			v[m].pid = (ls->flags & FK_SAMPLE_PID) ? ls->pid : -1;
			v[m].tid = (ls->flags & FK_SAMPLE_TID) ? ls->tid : -1;
			m++;
		}
		qsort(v, m, sizeof *v, cmp_ent);
	}
	*out = v;
	*n = m;
	return 0;
}

static int render(const struct fk_host *h, const struct fk_profile *p, struct fk_writer *w, const void *opts)
{
	struct ctx c = { .h = h, .p = p, .w = w };
	unsigned mask = h->series_mask(p);
	int two = (mask & 3) == 3, agg = 0, first = 1, rc;
	struct ent *v = NULL;
	size_t n = 0;

	(void)opts;
	if ((rc = put_frames(&c)) < 0 || (rc = entries(&c, &v, &n, &agg)) < 0)
		goto out;
	for (int s = 0; s < FK_SERIES_MAX && rc == 0; s++) {
		if (!(mask & (1u << s)) && !(s == 0 && !mask))
			continue;
		for (size_t a = 0; a < n && rc == 0;) {
			size_t b = a;
			char name[64];
			while (b < n && (agg || v[b].lane == v[a].lane))
				b++;
			if (agg || v[a].lane == INT64_MIN)
				snprintf(name, sizeof name, "%s", agg ? "all stacks" :
				         v[n - 1].lane == INT64_MIN ? "all samples" : "samples without a thread");
			else if (v[a].pid >= 0)
				snprintf(name, sizeof name, "tid %ld (pid %ld)", (long)v[a].tid, (long)v[a].pid);
			else
				snprintf(name, sizeof name, "tid %ld", (long)v[a].tid);
			rc = put_profile(&c, v + a, b - a, agg, s, two, name, first);
			first = 0;
			a = b;
		}
	}
	if (rc == 0)
		rc = h->printf(w, "],\n\"name\":\"flamekit\",\"activeProfileIndex\":0,"
		               "\"exporter\":\"flamekit\"}\n");
out:
	if (rc == FK_ERR_NOMEM)
		h->log(FK_LOG_ERROR, "out of memory writing the speedscope profile");
	h->free(v);
	h->free(c.fidx);
	h->free(c.path);
	return rc;
}

static struct fk_output_plugin plugin = {
	.h = {
		.name = "speedscope",
		.version = "1.0",
		.description = "speedscope's JSON file format: a sampled profile per thread",
	},
	.needs = FK_OUTPUT_NEEDS_SAMPLES,
	.render = render,
};

FLAMEKIT_REGISTER_OUTPUT(plugin)
