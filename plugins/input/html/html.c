/*
 * Input plugin "html": reads back the profile a flamekit HTML report (the
 * `html` output plugin) embeds, so a report can be re-rendered or diffed
 * later.  The stacks and weights come back exactly; where the report has a
 * timeline, so do each sample's thread and its time (to the report's
 * --time-resolution), so the report can be drawn again as a flame chart or
 * per thread.  The format is described in plugins/lib/report/report.h.
 *
 * The report is held whole, so it is read only up to --max-input-size
 * (common/limit.h), its timeline inflated only up to the same limit, and a
 * file without the generator tag in its first bytes is refused before
 * more is read (/dev/zero is not read for ever).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <flamekit/plugin.h>

#include <zlib.h>

#include "../../lib/report/b64.h"
#include "../../lib/report/report.h"
#include "../common/limit.h"

/* The generator tag must be within the first bytes (page.html puts it at
 * the top), as the probe looks for it. */
#define MAGIC_WITHIN 4096

struct opts {
	const char *max_input_size;
};

static const struct fk_option options[] = {
	FK_OPTION(FK_OPT_STRING, "max-input-size", "auto", struct opts, max_input_size, FK_LIMIT_HELP),
	FK_OPTION_END,
};

struct names {
	char **v;
	size_t *len;
	size_t n, cap;
};

struct rd {
	const struct fk_host *h;
	struct fk_input *in;
	char *buf;
	size_t len;
	const char *data, *end; /* the JSON object */
	signed char digit[256];
	struct fk_input_limit lim;
};

/* The value after "key": in the data object, or NULL. */
static const char *find_key(const struct rd *r, const char *key)
{
	size_t kl = strlen(key);
	for (const char *p = r->data; p && p + kl + 3 <= r->end;) {
		p = memchr(p, '"', (size_t)(r->end - p));
		if (!p)
			return NULL;
		if ((size_t)(r->end - p) > kl + 2 && memcmp(p + 1, key, kl) == 0 && p[kl + 1] == '"' &&
		    p[kl + 2] == ':')
			return p + kl + 3;
		/* skip this string */
		for (p++; p < r->end && *p != '"'; p++)
			if (*p == '\\')
				p++;
		p++;
	}
	return NULL;
}

static int hexval(const char *p, unsigned *v)
{
	*v = 0;
	for (int i = 0; i < 4; i++) {
		int c = p[i], d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
		                 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (d < 0)
			return -1;
		*v = *v << 4 | (unsigned)d;
	}
	return 0;
}

/* Decode the JSON string at *pp (at its opening quote) into out, which
 * holds cap bytes; returns its length, or -1 when it is malformed or does
 * not fit (the caller's guess of its end may stop at an escaped quote). */
static long jstring(const struct rd *r, const char **pp, char *out, size_t cap)
{
	const char *p = *pp;
	size_t n = 0;

	if (p >= r->end || *p != '"')
		return -1;
	for (p++; p < r->end && *p != '"'; p++) {
		unsigned v;
		if (n == cap)
			return -1;
		if (*p != '\\') {
			out[n++] = *p;
			continue;
		}
		if (++p >= r->end)
			return -1;
		switch (*p) {
		case 'n': out[n++] = '\n'; break;
		case 't': out[n++] = '\t'; break;
		case 'r': out[n++] = '\r'; break;
		case 'b': out[n++] = '\b'; break;
		case 'f': out[n++] = '\f'; break;
		case 'u':
			if (r->end - p < 5 || hexval(p + 1, &v) < 0 || (v >= 0xd800 && v <= 0xdfff))
				return -1;
			p += 4;
			if (v > 0xff && cap - n < 3)
				return -1;
			if (v < 0x80 || (v >= 0x80 && v <= 0xff)) { /* 0x80..0xff: a raw byte */
				out[n++] = (char)v;
			} else if (v < 0x800) {
				out[n++] = (char)(0xc0 | v >> 6);
				out[n++] = (char)(0x80 | (v & 0x3f));
			} else {
				out[n++] = (char)(0xe0 | v >> 12);
				out[n++] = (char)(0x80 | ((v >> 6) & 0x3f));
				out[n++] = (char)(0x80 | (v & 0x3f));
			}
			break;
		default: out[n++] = *p; break;
		}
	}
	if (p >= r->end)
		return -1;
	*pp = p + 1;
	return (long)n;
}

static const char *skip_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r'))
		p++;
	return p;
}

static int read_names(struct rd *r, struct names *nm)
{
	const struct fk_host *h = r->h;
	const char *p = find_key(r, "names");

	if (!p || *(p = skip_ws(p, r->end)) != '[')
		return h->input_error(r->in, 0, "the report has no frame-name table");
	p = skip_ws(p + 1, r->end);
	while (p < r->end && *p != ']') {
		const char *q = p;
		char *s;
		long l;
		for (q++; q < r->end && *q != '"'; q++)
			if (*q == '\\')
				q++;
		s = h->alloc((size_t)(q - p) + 1);
		if (!s)
			return h->input_error(r->in, 0, "out of memory");
		if (nm->n == nm->cap) {
			size_t nc = nm->cap ? nm->cap * 2 : 1024;
			char **nv = h->realloc(nm->v, nc * sizeof *nv);
			size_t *nl = nv ? h->realloc(nm->len, nc * sizeof *nl) : NULL;
			if (nv)
				nm->v = nv;
			if (!nv || !nl) {
				h->free(s);
				return h->input_error(r->in, 0, "out of memory");
			}
			nm->len = nl;
			nm->cap = nc;
		}
		l = jstring(r, &p, s, (size_t)(q - p) + 1);
		nm->v[nm->n] = s;
		nm->len[nm->n++] = l < 0 ? 0 : (size_t)l;
		if (l < 0)
			return h->input_error(r->in, 0, "frame name %zu of the report is not a valid string", nm->n);
		p = skip_ws(p, r->end);
		if (p < r->end && *p == ',')
			p = skip_ws(p + 1, r->end);
	}
	if (p >= r->end)
		return h->input_error(r->in, 0, "the report's frame-name table is cut short");
	return 0;
}

/* The next number of a digit string; -1 at its end or on a bad digit. */
static int64_t next_num(const struct rd *r, const char **pp)
{
	const char *p = *pp;
	int64_t v = 0;

	for (;; p++) {
		int d = r->digit[(unsigned char)*p];
		if (d < 0 || v > (INT64_MAX / REPORT_BASE) - REPORT_BASE)
			return -1;
		v = v * REPORT_BASE + d % REPORT_BASE;
		if (d < REPORT_BASE)
			break;
	}
	*pp = p + 1;
	return v;
}

/* The next of the "fw" numbers: a JSON number, so never NaN, infinite or
 * hex (strtod alone takes "nan", "inf", 1e999 and 0x10, which the writer
 * never writes, and no graph can draw the first three). */
static int next_fw(const char **pp, const char *end, double *v)
{
	char *e;
	const char *p = skip_ws(*pp, end);
	if (p < end && *p == ',')
		p = skip_ws(p + 1, end);
	*v = strtod(p, &e);
	if (e == p || e > end || !isfinite(*v))
		return -1;
	for (const char *q = p; q < e; q++)
		if (!strchr("+-.0123456789eE", *q))
			return -1; /* hex, "infinity" */
	*pp = e;
	return 0;
}

/* Raw inflate of n bytes into a buffer from h->alloc (*out, *outn bytes),
 * at most max bytes: -2 beyond, -1 when damaged or out of memory. */
static int inflate_all(const struct fk_host *h, const unsigned char *in, size_t n, uint64_t max,
                       char **out, size_t *outn)
{
	z_stream z;
	size_t cap = n * 4 + 1024;
	int zr = Z_OK, rc = -1;

	memset(&z, 0, sizeof z);
	*out = NULL;
	if ((zr = inflateInit2(&z, -15)) != Z_OK)
		return zr == Z_MEM_ERROR ? -3 : -1;
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)n;
	while (zr != Z_STREAM_END) {
		char *nb = h->realloc(*out, cap);
		if (!nb) {
			rc = -3;
			goto out;
		}
		*out = nb;
		z.next_out = (Bytef *)*out + z.total_out;
		z.avail_out = (uInt)(cap - z.total_out);
		zr = inflate(&z, Z_NO_FLUSH);
		if (zr == Z_MEM_ERROR)
			rc = -3;
		if (zr != Z_OK && zr != Z_STREAM_END)
			goto out;
		if (zr == Z_OK && z.avail_out)
			goto out; /* input ended before the stream did */
		if (zr == Z_OK && z.total_out >= max) {
			rc = -2;
			goto out;
		}
		cap *= 2;
		if (cap > max && max >= z.total_out)
			cap = (size_t)max + 1; /* one byte over says it is over */
	}
	if (z.total_out > max) {
		rc = -2;
		goto out;
	}
	if (z.total_out == cap) {
		char *nb = h->realloc(*out, cap + 1);
		if (!nb) {
			rc = -3;
			goto out;
		}
		*out = nb;
	}
	(*out)[z.total_out] = 0; /* next_num stops at a NUL */
	*outn = z.total_out;
	rc = 0;
out:
	inflateEnd(&z);
	return rc;
}

static int grow_path(const struct fk_host *h, struct fk_frameref **fr, size_t *cap, size_t need)
{
	size_t nc;
	struct fk_frameref *nf;
	if (need <= *cap)
		return 0;
	nc = *cap ? *cap : 64;
	while (nc < need)
		nc *= 2;
	nf = h->realloc(*fr, nc * sizeof *nf);
	if (!nf)
		return FK_ERR_NOMEM;
	memset(nf + *cap, 0, (nc - *cap) * sizeof *nf);
	*fr = nf;
	*cap = nc;
	return 0;
}

/* The stack tree decoded: node k (preorder, 0-based) has parent par[k]
 * (-1: a child of the root), frame frm[k] and, when a stack ends there
 * (end[k]), weights w0[k] and w1[k]. */
struct tree {
	int32_t *par;
	uint32_t *frm, *depth;
	double *w0, *w1, *used;
	unsigned char *end;
	fk_node_t *node;     /* the sink's node of each, or NULL (tree_nodes) */
	size_t n, cap;
};

static void tree_free(const struct fk_host *h, struct tree *t)
{
	h->free(t->par);
	h->free(t->frm);
	h->free(t->depth);
	h->free(t->w0);
	h->free(t->w1);
	h->free(t->used);
	h->free(t->end);
	h->free(t->node);
}

static int tree_grow(const struct fk_host *h, struct tree *t)
{
	size_t nc = t->cap ? t->cap * 2 : 1024;
#define GROW(f) do { void *np = h->realloc(t->f, nc * sizeof *t->f); if (!np) return FK_ERR_NOMEM; t->f = np; } while (0)
	GROW(par); GROW(frm); GROW(depth); GROW(w0); GROW(w1); GROW(used); GROW(end);
#undef GROW
	t->cap = nc;
	return 0;
}

/* One node's weights: from "tree2" or "fw" when the report has them. */
static int node_weights(struct rd *r, int two, const char **t2, const char **fw, int64_t w, double *w0, double *w1,
                        unsigned char *end)
{
	*w0 = *w1 = 0;
	*end = w != 0;
	if (two && *t2 && !*fw) {
		int64_t v = next_num(r, t2);
		if (v < 0)
			return -2;
		*w0 = w ? (double)(w - 1) : 0;
		*w1 = v ? (double)(v - 1) : 0;
		*end = w || v;
	} else if (w && *fw) {
		if (next_fw(fw, r->end, w0) < 0 || (two && next_fw(fw, r->end, w1) < 0))
			return -1;
	} else if (w) {
		*w0 = (double)(w - 1);
	}
	return 0;
}

static int read_tree(struct rd *r, const struct names *nm, struct tree *tr, int two)
{
	const struct fk_host *h = r->h;
	const char *t = find_key(r, "tree"), *t2 = find_key(r, "tree2"), *fw = find_key(r, "fw");
	int32_t *path = NULL;
	size_t depth = 0, pcap = 0;
	int rc = 0;

	if (!t || *t != '"')
		return h->input_error(r->in, 0, "the report has no stack tree");
	if (two && !t2 && !fw)
		return h->input_error(r->in, 0, "the report has two series but no second weights");
	t++;
	if (t2)
		t2++;
	if (fw)
		fw = skip_ws(fw, r->end) + 1;
	while (*t != '"') {
		int64_t up = next_num(r, &t), f = up < 0 ? -1 : next_num(r, &t), w = f < 0 ? -1 : next_num(r, &t);
		size_t k = tr->n;
		if (w < 0 || (uint64_t)up > depth || (uint64_t)f >= nm->n) {
			rc = h->input_error(r->in, 0, "the report's stack tree is damaged at node %zu", k);
			goto out;
		}
		depth = depth + 1 - (size_t)up;
		if (depth > pcap) {
			size_t nc = pcap ? pcap * 2 : 64;
			int32_t *np = h->realloc(path, nc * sizeof *np);
			if (!np)
				goto oom;
			path = np;
			pcap = nc;
		}
		if (k == tr->cap && tree_grow(h, tr) < 0)
			goto oom;
		path[depth - 1] = (int32_t)k;
		tr->par[k] = depth > 1 ? path[depth - 2] : -1;
		tr->frm[k] = (uint32_t)f;
		tr->depth[k] = (uint32_t)depth;
		tr->used[k] = 0;
		switch (node_weights(r, two, &t2, &fw, w, &tr->w0[k], &tr->w1[k], &tr->end[k])) {
		case -2:
			rc = h->input_error(r->in, 0, "the report's second series is damaged at node %zu", k);
			goto out;
		case -1:
			rc = h->input_error(r->in, 0, "the report's weights are damaged at node %zu", k);
			goto out;
		}
		tr->n++;
	}
	goto out;
oom:
	rc = h->input_error(r->in, 0, "out of memory");
out:
	h->free(path);
	return rc;
}

/* Every node's stack as a tree node of the sink, through push_child (ABI
 * 1.6): a node's from its parent's and its frame, so a chain of n nodes
 * costs n, not n squared.  Only the nodes on the way to a stack's end get
 * one (a node below which no stack ends holds no frame of the profile).
 * tr->node stays NULL when the host cannot (an older engine, per-sample
 * filters): push_node then pushes each path. */
static int tree_nodes(struct rd *r, struct fk_sink *sink, const struct names *nm, struct tree *tr)
{
	const struct fk_host *h = r->h;
	unsigned char *need;
	int rc = 0;

	if (!FK_HOST_HAS(h, push_child) || tr->n == 0)
		return 0;
	need = h->alloc(tr->n);
	tr->node = h->alloc(tr->n * sizeof *tr->node);
	if (!need || !tr->node) {
		rc = FK_ERR_NOMEM;
		goto out;
	}
	memcpy(need, tr->end, tr->n);
	for (size_t k = tr->n; k-- > 0;) /* parents come before children */
		if (need[k] && tr->par[k] >= 0)
			need[tr->par[k]] = 1;
	for (size_t k = 0; k < tr->n; k++) {
		struct fk_frameref f;
		tr->node[k] = FK_NODE_NONE;
		if (!need[k])
			continue;
		memset(&f, 0, sizeof f);
		f.name = nm->v[tr->frm[k]];
		f.len = nm->len[tr->frm[k]];
		if ((rc = h->push_child(sink, tr->par[k] < 0 ? FK_NODE_ROOT : tr->node[tr->par[k]], &f,
		                        &tr->node[k])) < 0)
			goto out;
		if (tr->node[k] == FK_NODE_NONE) {
			h->free(tr->node);
			tr->node = NULL;
			break;
		}
	}
out:
	h->free(need);
	if (rc == FK_ERR_NOMEM)
		return h->input_error(r->in, 0, "out of memory");
	return rc;
}

/* Push one stack: node k's, by its tree node when known, else its path,
 * root first. */
static int push_node(struct rd *r, struct fk_sink *sink, const struct names *nm, const struct tree *tr, size_t k,
                     struct fk_sample *smp, struct fk_frameref **fr, size_t *cap)
{
	size_t d = tr->depth[k];

	if (tr->node)
		return r->h->push_node(sink, tr->node[k], smp);
	if (grow_path(r->h, fr, cap, d) < 0)
		return r->h->input_error(r->in, 0, "out of memory");
	for (int32_t n = (int32_t)k; n >= 0; n = tr->par[n]) {
		d--;
		(*fr)[d].name = nm->v[tr->frm[n]];
		(*fr)[d].len = nm->len[tr->frm[n]];
	}
	smp->frames = *fr;
	smp->nframes = tr->depth[k];
	return r->h->push(sink, smp, NULL);
}

/* The timeline's columns (see report.h) as samples, thread by thread. */
struct cols {
	const char *nrec, *db, *leaf, *cnt, *w;
};

/* Find where each column starts: count the numbers of the one before. */
static int columns(struct rd *r, const char *dig, size_t nth, int same, struct cols *c)
{
	const char *p = dig;
	int64_t total = 0, v;

	c->nrec = p;
	for (size_t k = 0; k < nth; k++) {
		if ((v = next_num(r, &p)) < 0)
			return -1;
		total += v;
	}
	const char **col[] = { &c->db, &c->leaf, &c->cnt, &c->w };
	for (int i = 0; i < 4; i++) {
		*col[i] = p;
		if (i == 3 && same)
			break;
		for (int64_t k = 0; k < total; k++)
			if (next_num(r, &p) < 0)
				return -1;
	}
	return 0;
}

static int push_runs(struct rd *r, struct fk_sink *sink, const struct names *nm, struct tree *tr,
                     const size_t *ends, size_t nends, const char *dig, const char *th, double sweight, int timed,
                     int64_t t0, int64_t quantum, struct fk_frameref **fr, size_t *cap)
{
	struct cols c;
	size_t nth = 0, comm_len;
	char comm[256];
	int rc;

	for (const char *p = th + 1; p < r->end && *p != ']'; p++) /* th: at the list's '[' */
		if (*p == '[' && (p = memchr(p, ']', (size_t)(r->end - p))) != NULL)
			nth++;
		else if (!p)
			return 1;
	if (columns(r, dig, nth, sweight >= 0, &c) < 0)
		return 1; /* damaged: the caller says so */
	for (th++; nth--;) {
		long pid, tid;
		char *e;
		int64_t nrec = next_num(r, &c.nrec), b = 0;
		th = skip_ws(th, r->end);
		if (*th == ',')
			th = skip_ws(th + 1, r->end);
		if (*th != '[' || (pid = strtol(th + 1, &e, 10), *e != ',') || (tid = strtol(e + 1, &e, 10), *e != ']' && *e != ','))
			return 1;
		comm_len = 0;
		if (*e == ',') { /* the thread's name */
			const char *q = skip_ws(e + 1, r->end), *qe = q + 1;
			long l;
			for (; qe < r->end && *qe != '"'; qe++)
				if (*qe == '\\')
					qe++;
			if (*q != '"' || qe >= r->end || (size_t)(qe - q) >= sizeof comm || (l = jstring(r, &q, comm, sizeof comm)) < 0 || *q != ']')
				return 1;
			comm_len = (size_t)l;
			e = (char *)q;
		}
		th = e + 1;
		while (nrec--) {
			int64_t db = next_num(r, &c.db), leaf = next_num(r, &c.leaf), cnt = next_num(r, &c.cnt);
			int64_t w = sweight >= 0 ? 0 : next_num(r, &c.w);
			struct fk_sample smp;
			if (db < 0 || w < 0 || (uint64_t)leaf > nends || cnt < 1 || db > (INT64_MAX - t0) / quantum - b)
				return 1;
			b += db; /* t0 + b * quantum cannot overflow: checked above */
			if (!leaf)
				continue;
			memset(&smp, 0, sizeof smp);
			smp.weight[0] = sweight >= 0 ? sweight : (double)w;
			/* a run weighs no more than its stack in the tree (and a damaged
			 * count of weightless samples cannot keep us pushing for ever) */
			if (tr->used[ends[leaf - 1]] + smp.weight[0] * (double)cnt > tr->w0[ends[leaf - 1]] ||
			    (smp.weight[0] == 0 && cnt > (1 << 20)))
				return 1;
			smp.flags = (timed ? FK_SAMPLE_TIME : 0) | (pid >= 0 ? FK_SAMPLE_PID : 0) | (tid >= 0 ? FK_SAMPLE_TID : 0);
			if (comm_len) {
				smp.flags |= FK_SAMPLE_COMM;
				smp.comm = comm;
				smp.comm_len = comm_len;
			}
			smp.time_ns = t0 + b * quantum;
			smp.pid = (int32_t)pid;
			smp.tid = (int32_t)tid;
			tr->used[ends[leaf - 1]] += smp.weight[0] * (double)cnt;
			while (cnt--)
				if ((rc = push_node(r, sink, nm, tr, ends[leaf - 1], &smp, fr, cap)) < 0)
					return rc;
		}
	}
	return 0;
}

/* The timeline's runs, pushed as samples with their thread and time (to
 * the report's quantum), in the timeline's order: thread by thread, in time
 * order.  What a node's runs weigh is added to tr->used. */
static int push_timeline(struct rd *r, struct fk_sink *sink, const struct names *nm, struct tree *tr,
                         struct fk_frameref **fr, size_t *cap)
{
	const struct fk_host *h = r->h;
	const char *tl = find_key(r, "timeline"), *th = find_key(r, "threads"), *q;
	const char *sw = find_key(r, "sweight"), *t0s = find_key(r, "t0ns"), *qs = find_key(r, "quantum");
	const char *tim = find_key(r, "timed");
	int timed = tim && *skip_ws(tim, r->end) == '1';
	unsigned char *raw = NULL;
	char *dig = NULL;
	size_t *ends = NULL, nends = 0; /* leaf id -> node */
	long rawn;
	size_t dn = 0, tlen; /* dn: the inflated length (the digits end at a NUL) */
	int64_t t0 = t0s ? strtoll(skip_ws(t0s, r->end) + 1, NULL, 10) : 0;
	int64_t quantum = qs ? strtoll(skip_ws(qs, r->end), NULL, 10) : 0;
	double sweight = sw ? strtod(skip_ws(sw, r->end), NULL) : -1;
	int rc = 0;

	if (!tl)
		return 0;
	if (!th || *(th = skip_ws(th, r->end)) != '[' || *(tl = skip_ws(tl, r->end)) != '"' ||
	    !(q = memchr(tl + 1, '"', (size_t)(r->end - tl - 1))) || quantum < 1 || t0 < 0)
		return h->input_error(r->in, 0, "the report's timeline is damaged");
	tlen = (size_t)(q - tl - 1);
	ends = h->alloc((tr->n + 1) * sizeof *ends);
	if (!ends)
		return h->input_error(r->in, 0, "out of memory");
	for (size_t k = 0; k < tr->n; k++)
		if (tr->end[k])
			ends[nends++] = k;
	raw = h->alloc(tlen / 4 * 3 + 3);
	if (!raw) {
		rc = h->input_error(r->in, 0, "out of memory");
		goto out;
	}
	rawn = fk_b64_decode(tl + 1, tlen, raw);
	if (rawn >= 0 && (rc = inflate_all(h, raw, (size_t)rawn, r->lim.bytes, &dig, &dn)) == -2) {
		rc = fk_limit_exceeded(h, r->in, &r->lim);
		goto out;
	}
	if (rc == -3) {
		rc = h->input_error(r->in, 0, "out of memory");
		goto out;
	}
	if (rawn < 0 || rc < 0) {
		rc = h->input_error(r->in, 0, "the report's timeline is damaged (not deflated base64)");
		goto out;
	}
	rc = push_runs(r, sink, nm, tr, ends, nends, dig, th, sweight, timed, t0, quantum, fr, cap);
	if (rc == 1)
		goto damaged;
	goto out;
damaged:
	rc = h->input_error(r->in, 0, "the report's timeline is damaged");
out:
	h->free(ends);
	h->free(raw);
	h->free(dig);
	return rc;
}

/* The stacks: the timeline's samples, then what the tree holds beyond them
 * (all of it in a report without a timeline). */
static int push_tree(struct rd *r, struct fk_sink *sink, const struct names *nm)
{
	const struct fk_host *h = r->h;
	const char *ser = find_key(r, "series");
	int two = ser && *skip_ws(ser, r->end) == '2';
	struct tree tr = { 0 };
	struct fk_frameref *fr = NULL;
	size_t cap = 0;
	int rc = read_tree(r, nm, &tr, two);

	if (rc == 0)
		rc = tree_nodes(r, sink, nm, &tr);
	if (rc == 0 && !two)
		rc = push_timeline(r, sink, nm, &tr, &fr, &cap);
	for (size_t k = 0; rc == 0 && k < tr.n; k++) {
		struct fk_sample smp;
		if (!tr.end[k] || (tr.used[k] > 0 && tr.w0[k] - tr.used[k] <= 0))
			continue;
		memset(&smp, 0, sizeof smp);
		smp.weight[0] = tr.w0[k] - tr.used[k];
		smp.weight[1] = tr.w1[k];
		smp.flags = two ? FK_SAMPLE_SERIES : 0;
		rc = push_node(r, sink, nm, &tr, k, &smp, &fr, &cap);
	}
	h->free(fr);
	tree_free(h, &tr);
	return rc;
}

/* Whether the generator tag is in buf[0..len) where the probe looks. */
static int has_magic(const char *buf, size_t len)
{
	size_t m = strlen(REPORT_MAGIC);
	for (size_t i = 0; i + m <= len && i < MAGIC_WITHIN; i++)
		if (buf[i] == '<' && memcmp(buf + i, REPORT_MAGIC, m) == 0)
			return 1;
	return 0;
}

/* The whole report into r->buf (NUL-terminated), up to the limit, the
 * generator tag checked as soon as its bytes are in. */
static int read_all(struct rd *r)
{
	const struct fk_host *h = r->h;
	size_t cap = 1 << 20;
	int checked = 0;

	if (!(r->buf = h->alloc(cap + 1)))
		return FK_ERR_NOMEM;
	for (;;) {
		ssize_t n;
		if (r->len == cap) {
			char *nb = h->realloc(r->buf, cap * 2 + 1);
			if (!nb)
				return FK_ERR_NOMEM;
			r->buf = nb;
			cap *= 2;
		}
		n = h->read(r->in, r->buf + r->len, cap - r->len);
		if (n < 0)
			return (int)n;
		r->len += (size_t)n;
		if (!checked && (n == 0 || r->len >= MAGIC_WITHIN + strlen(REPORT_MAGIC))) {
			if (!has_magic(r->buf, r->len))
				return h->input_error(r->in, 0, "not a flamekit HTML report: no %s in its first "
				                      "%d bytes", REPORT_MAGIC, MAGIC_WITHIN);
			checked = 1;
		}
		if (n == 0)
			return 0;
		if (r->len > r->lim.bytes)
			return fk_limit_exceeded(h, r->in, &r->lim);
	}
}

FK_LIMIT_CHECK_FN(check, struct opts, max_input_size)

static int parse(const struct fk_host *h, struct fk_input *in, struct fk_sink *sink, const void *op)
{
	const struct opts *o = op;
	struct rd r = { .h = h, .in = in };
	struct names nm = { 0 };
	int rc = 0;
	char unit[64];
	const char *u;

	fk_limit_for(h, in, o->max_input_size, &r.lim);
	if ((rc = read_all(&r)) < 0) {
		if (rc == FK_ERR_NOMEM)
			rc = h->input_error(in, 0, "out of memory");
		goto out;
	}
	r.buf[r.len] = 0;
	r.data = strstr(r.buf, REPORT_DATA_OPEN);
	r.end = r.data ? strstr(r.data, REPORT_DATA_CLOSE) : NULL;
	if (r.data && !r.end) {
		rc = h->input_error(in, 0, "the report's data has no end (%s): the file is cut short",
		                    REPORT_DATA_CLOSE);
		goto out;
	}
	if (!r.data) {
		rc = h->input_error(in, 0, "not a flamekit HTML report: no %s ... %s element",
		                    REPORT_DATA_OPEN, REPORT_DATA_CLOSE);
		goto out;
	}
	r.data += strlen(REPORT_DATA_OPEN);
	memset(r.digit, -1, sizeof r.digit);
	for (int i = 0; i < 2 * REPORT_BASE; i++)
		r.digit[(unsigned char)REPORT_ALPHA[i]] = (signed char)i;
	u = find_key(&r, "unit");
	if (u && *(u = skip_ws(u, r.end)) == '"' && strchr(u + 1, '"') &&
	    (size_t)(strchr(u + 1, '"') - u) < sizeof unit) {
		long l = jstring(&r, &u, unit, sizeof unit - 1);
		if (l > 0 && h->sink_set_unit) {
			unit[l] = 0;
			h->sink_set_unit(sink, unit);
		}
	}
	rc = read_names(&r, &nm);
	if (rc == 0)
		rc = push_tree(&r, sink, &nm);
out:
	for (size_t i = 0; i < nm.n; i++)
		h->free(nm.v[i]);
	h->free(nm.v);
	h->free(nm.len);
	h->free(r.buf);
	return rc;
}

/* A report says so in its first bytes: the generator tag written at the top
 * of page.html. */
static int probe(const unsigned char *buf, size_t len)
{
	return has_magic((const char *)buf, len) ? 100 : 0;
}

static struct fk_input_plugin plugin = {
	.h = {
		.name = "html",
		.version = "1.0",
		.description = "the profile inside a flamekit HTML report (output plugin html)",
		.options = options,
		.options_size = sizeof(struct opts),
	},
	.probe = probe,
	.parse = parse,
	.check = check,
	/* flamekit's own report: its names are what the run that wrote
	 * it chose */
	.demangle = FK_DEMANGLE_NO,
};

FLAMEKIT_REGISTER_INPUT(plugin)
