/*
 * The report's reader (report.h): the data object of a page found, its
 * names, tree and timeline decoded, every number and length checked, so a
 * damaged or forged report gives one sentence (r->err), never a crash.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "b64.h"
#include "report.h"

static int damaged(struct report *r, const char *fmt, ...) FK_PRINTF(2, 3);

static int damaged(struct report *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->err, sizeof r->err, fmt, ap);
	va_end(ap);
	return FK_ERR_DATA;
}

int report_has_magic(const char *buf, size_t len)
{
	size_t m = strlen(REPORT_MAGIC);
	for (size_t i = 0; i + m <= len && i < REPORT_MAGIC_WITHIN; i++)
		if (buf[i] == '<' && memcmp(buf + i, REPORT_MAGIC, m) == 0)
			return 1;
	return 0;
}

/* The value after "key": in the data object, or NULL. */
static const char *find_key(const struct report *r, const char *key)
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

/* Where the JSON string at p (its opening quote) ends: its closing quote,
 * or r->end. */
static const char *string_end(const struct report *r, const char *p)
{
	for (p++; p < r->end && *p != '"'; p++)
		if (*p == '\\')
			p++;
	return p < r->end ? p : r->end;
}

/* Decode the JSON string at *pp (at its opening quote) into out, which
 * holds cap bytes; returns its length, or -1 when it is malformed or does
 * not fit. */
static long jstring(const struct report *r, const char **pp, char *out, size_t cap)
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
			if (v <= 0xff) { /* 0x80..0xff: a raw byte */
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

int report_open(struct report *r, const struct fk_host *h, const char *page, size_t len)
{
	(void)len;
	memset(r, 0, sizeof *r);
	r->h = h;
	r->series = 1;
	r->sweight = -1;
	memset(r->digit, -1, sizeof r->digit);
	for (int i = 0; i < 2 * REPORT_BASE; i++)
		r->digit[(unsigned char)REPORT_ALPHA[i]] = (signed char)i;
	r->data = strstr(page, REPORT_DATA_OPEN);
	r->end = r->data ? strstr(r->data, REPORT_DATA_CLOSE) : NULL;
	if (r->data && !r->end)
		return damaged(r, "the report's data has no end (%s): the file is cut short", REPORT_DATA_CLOSE);
	if (!r->data)
		return damaged(r, "not a flamekit HTML report: no %s ... %s element", REPORT_DATA_OPEN,
		               REPORT_DATA_CLOSE);
	r->data += strlen(REPORT_DATA_OPEN);
	return 0;
}

static void read_unit(struct report *r)
{
	const char *u = find_key(r, "unit");
	long l;

	if (u && *(u = skip_ws(u, r->end)) == '"' && strchr(u + 1, '"') &&
	    (size_t)(strchr(u + 1, '"') - u) < sizeof r->unit && (l = jstring(r, &u, r->unit, sizeof r->unit - 1)) > 0)
		r->unit_len = (size_t)l;
	r->unit[r->unit_len] = 0;
}

static int read_names(struct report *r)
{
	const struct fk_host *h = r->h;
	const char *p = find_key(r, "names");

	if (!p || *(p = skip_ws(p, r->end)) != '[')
		return damaged(r, "the report has no frame-name table");
	p = skip_ws(p + 1, r->end);
	while (p < r->end && *p != ']') {
		size_t cap = (size_t)(string_end(r, p) - p) + 1;
		char *s = h->alloc(cap + 1);
		long l;
		if (!s)
			return FK_ERR_NOMEM;
		if (r->nnames == r->namecap) {
			size_t nc = r->namecap ? r->namecap * 2 : 1024;
			char **nv = h->realloc(r->names, nc * sizeof *nv);
			size_t *nl = nv ? h->realloc(r->name_len, nc * sizeof *nl) : NULL;
			if (nv)
				r->names = nv;
			if (!nv || !nl) {
				h->free(s);
				return FK_ERR_NOMEM;
			}
			r->name_len = nl;
			r->namecap = nc;
		}
		l = jstring(r, &p, s, cap);
		r->names[r->nnames] = s;
		r->name_len[r->nnames++] = l < 0 ? 0 : (size_t)l;
		s[l < 0 ? 0 : l] = 0;
		if (l < 0)
			return damaged(r, "frame name %zu of the report is not a valid string", r->nnames);
		p = skip_ws(p, r->end);
		if (p < r->end && *p == ',')
			p = skip_ws(p + 1, r->end);
	}
	if (p >= r->end)
		return damaged(r, "the report's frame-name table is cut short");
	return 0;
}

/* The next number of a digit string; -1 at its end or on a bad digit. */
static int64_t next_num(const struct report *r, const char **pp)
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

/* One node's weights: from "tree2" or "fw" when the report has them. */
static int node_weights(struct report *r, const char **t2, const char **fw, int64_t w, struct report_node *n)
{
	int two = r->series == 2;

	n->w[0] = n->w[1] = 0;
	n->end = w != 0;
	if (two && *t2 && !*fw) {
		int64_t v = next_num(r, t2);
		if (v < 0)
			return -2;
		n->w[0] = w ? (double)(w - 1) : 0;
		n->w[1] = v ? (double)(v - 1) : 0;
		n->end = w || v;
	} else if (w && *fw) {
		if (next_fw(fw, r->end, &n->w[0]) < 0 || (two && next_fw(fw, r->end, &n->w[1]) < 0))
			return -1;
	} else if (w) {
		n->w[0] = (double)(w - 1);
	}
	return 0;
}

static int read_tree(struct report *r)
{
	const struct fk_host *h = r->h;
	const char *t = find_key(r, "tree"), *t2 = find_key(r, "tree2"), *fw = find_key(r, "fw");
	int32_t *path = NULL;
	size_t depth = 0, pcap = 0;
	int rc = 0;

	if (!t || *t != '"')
		return damaged(r, "the report has no stack tree");
	if (r->series == 2 && !t2 && !fw)
		return damaged(r, "the report has two series but no second weights");
	t++;
	if (t2)
		t2++;
	if (fw)
		fw = skip_ws(fw, r->end) + 1;
	while (*t != '"') {
		int64_t up = next_num(r, &t), f = up < 0 ? -1 : next_num(r, &t), w = f < 0 ? -1 : next_num(r, &t);
		size_t k = r->nnodes;
		struct report_node *n;
		if (w < 0 || (uint64_t)up > depth || (uint64_t)f >= r->nnames) {
			rc = damaged(r, "the report's stack tree is damaged at node %zu", k);
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
		if (k == r->nodecap) {
			size_t nc = r->nodecap ? r->nodecap * 2 : 1024;
			struct report_node *nn = h->realloc(r->nodes, nc * sizeof *nn);
			if (!nn)
				goto oom;
			r->nodes = nn;
			r->nodecap = nc;
		}
		n = &r->nodes[k];
		path[depth - 1] = (int32_t)k;
		n->parent = depth > 1 ? path[depth - 2] : -1;
		n->frame = (uint32_t)f;
		n->depth = (uint32_t)depth;
		n->used = 0;
		switch (node_weights(r, &t2, &fw, w, n)) {
		case -2:
			rc = damaged(r, "the report's second series is damaged at node %zu", k);
			goto out;
		case -1:
			rc = damaged(r, "the report's weights are damaged at node %zu", k);
			goto out;
		}
		r->nnodes++;
	}
	goto out;
oom:
	rc = FK_ERR_NOMEM;
out:
	h->free(path);
	return rc;
}

/* Raw inflate of n bytes into a buffer from h->alloc (*out, *outn bytes,
 * NUL-terminated), at most max bytes: FK_ERR_LIMIT beyond, FK_ERR_DATA when
 * damaged, FK_ERR_NOMEM. */
static int inflate_all(const struct fk_host *h, const unsigned char *in, size_t n, uint64_t max,
                       char **out, size_t *outn)
{
	z_stream z;
	size_t cap = n * 4 + 1024;
	int zr = Z_OK, rc = FK_ERR_DATA;

	memset(&z, 0, sizeof z);
	*out = NULL;
	if ((zr = inflateInit2(&z, -15)) != Z_OK)
		return zr == Z_MEM_ERROR ? FK_ERR_NOMEM : FK_ERR_DATA;
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)n;
	while (zr != Z_STREAM_END) {
		char *nb = h->realloc(*out, cap);
		if (!nb) {
			rc = FK_ERR_NOMEM;
			goto out;
		}
		*out = nb;
		z.next_out = (Bytef *)*out + z.total_out;
		z.avail_out = (uInt)(cap - z.total_out);
		zr = inflate(&z, Z_NO_FLUSH);
		if (zr == Z_MEM_ERROR)
			rc = FK_ERR_NOMEM;
		if (zr != Z_OK && zr != Z_STREAM_END)
			goto out;
		if (zr == Z_OK && z.avail_out)
			goto out; /* input ended before the stream did */
		if (zr == Z_OK && z.total_out >= max) {
			rc = FK_ERR_LIMIT;
			goto out;
		}
		cap *= 2;
		if (cap > max && max >= z.total_out)
			cap = (size_t)max + 1; /* one byte over says it is over */
	}
	if (z.total_out > max) {
		rc = FK_ERR_LIMIT;
		goto out;
	}
	if (z.total_out == cap) {
		char *nb = h->realloc(*out, cap + 1);
		if (!nb) {
			rc = FK_ERR_NOMEM;
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

/* One entry of "threads", at *pp: [pid,tid] or [pid,tid,"comm"].  0, FK_ERR_DATA
 * when damaged, FK_ERR_NOMEM. */
static int read_thread(struct report *r, const char **pp, struct report_thread *t)
{
	const char *p = *pp;
	char *e;
	long pid, tid, l;

	if (*p != '[' || (pid = strtol(p + 1, &e, 10), *e != ',') ||
	    (tid = strtol(e + 1, &e, 10), *e != ']' && *e != ',') || pid < INT32_MIN || pid > INT32_MAX ||
	    tid < INT32_MIN || tid > INT32_MAX)
		return FK_ERR_DATA;
	t->pid = (int32_t)pid;
	t->tid = (int32_t)tid;
	if (*e == ',') { /* the thread's name: no longer than its text */
		const char *q = skip_ws(e + 1, r->end), *qe;
		char *c;
		if (*q != '"' || (qe = string_end(r, q)) >= r->end)
			return FK_ERR_DATA;
		if (!(c = r->h->alloc((size_t)(qe - q) + 1)))
			return FK_ERR_NOMEM;
		t->comm = c;
		if ((l = jstring(r, &q, c, (size_t)(qe - q))) < 0 || *q != ']')
			return FK_ERR_DATA;
		c[l] = 0;
		t->comm_len = (size_t)l;
		e = (char *)q;
	}
	*pp = e + 1;
	return 0;
}

/* The "threads" list at th (its '['), each entry read. */
static int read_threads(struct report *r, const char *th)
{
	size_t cap = 0;
	int rc;

	for (th = skip_ws(th + 1, r->end); th < r->end && *th != ']';) {
		if (r->nthreads == cap) {
			size_t nc = cap ? cap * 2 : 16;
			struct report_thread *nt = r->h->realloc(r->threads, nc * sizeof *nt);
			if (!nt)
				return FK_ERR_NOMEM;
			memset(nt + cap, 0, (nc - cap) * sizeof *nt);
			r->threads = nt;
			cap = nc;
		}
		rc = read_thread(r, &th, &r->threads[r->nthreads]);
		r->nthreads++; /* its comm is freed with the others */
		if (rc < 0)
			return rc;
		th = skip_ws(th, r->end);
		if (*th == ',')
			th = skip_ws(th + 1, r->end);
	}
	return th < r->end ? 0 : FK_ERR_DATA;
}

/* Where each column starts: the run counts of the threads, then the
 * numbers of the one before counted. */
static int columns(struct report *r, const char *dig)
{
	const char *p = dig;
	int64_t total = 0, v;

	for (size_t k = 0; k < r->nthreads; k++) {
		if ((v = next_num(r, &p)) < 0 || v > INT64_MAX - total)
			return -1;
		r->threads[k].nruns = (uint64_t)v;
		total += v;
	}
	for (int i = 0; i < 4; i++) {
		r->col[i] = p;
		if (i == 3 && r->sweight >= 0)
			break;
		for (int64_t k = 0; k < total; k++)
			if (next_num(r, &p) < 0)
				return -1;
	}
	return 0;
}

static int read_timeline(struct report *r, uint64_t max_inflated)
{
	const struct fk_host *h = r->h;
	const char *tl = find_key(r, "timeline"), *th = find_key(r, "threads"), *q;
	const char *sw = find_key(r, "sweight"), *t0s = find_key(r, "t0ns"), *qs = find_key(r, "quantum");
	const char *tim = find_key(r, "timed");
	unsigned char *raw = NULL;
	long rawn;
	size_t dn = 0, tlen;
	int rc;

	if (!tl)
		return 0;
	r->has_timeline = 1;
	r->timed = tim && *skip_ws(tim, r->end) == '1';
	r->t0ns = t0s ? strtoll(skip_ws(t0s, r->end) + 1, NULL, 10) : 0;
	r->quantum = qs ? strtoll(skip_ws(qs, r->end), NULL, 10) : 0;
	r->sweight = sw ? strtod(skip_ws(sw, r->end), NULL) : -1;
	if (!th || *(th = skip_ws(th, r->end)) != '[' || *(tl = skip_ws(tl, r->end)) != '"' ||
	    !(q = memchr(tl + 1, '"', (size_t)(r->end - tl - 1))) || r->quantum < 1 || r->t0ns < 0)
		return damaged(r, "the report's timeline is damaged");
	tlen = (size_t)(q - tl - 1);
	r->ends = h->alloc((r->nnodes + 1) * sizeof *r->ends);
	raw = h->alloc(tlen / 4 * 3 + 3);
	if (!r->ends || !raw) {
		rc = FK_ERR_NOMEM;
		goto out;
	}
	for (size_t k = 0; k < r->nnodes; k++)
		if (r->nodes[k].end)
			r->ends[r->nends++] = k;
	rawn = report_b64_decode(tl + 1, tlen, raw);
	rc = rawn < 0 ? FK_ERR_DATA : inflate_all(h, raw, (size_t)rawn, max_inflated, &r->dig, &dn);
	if (rc == FK_ERR_DATA) {
		rc = damaged(r, "the report's timeline is damaged (not deflated base64)");
		goto out;
	}
	if (rc < 0)
		goto out;
	if ((rc = read_threads(r, th)) == FK_ERR_NOMEM)
		goto out;
	if (rc < 0 || columns(r, r->dig) < 0)
		rc = damaged(r, "the report's timeline is damaged");
out:
	h->free(raw);
	return rc;
}

int report_decode(struct report *r, uint64_t max_inflated)
{
	const char *ser = find_key(r, "series");
	int rc;

	r->series = ser && *skip_ws(ser, r->end) == '2' ? 2 : 1;
	read_unit(r);
	if ((rc = read_names(r)) < 0 || (rc = read_tree(r)) < 0)
		return rc;
	return r->series == 2 ? 0 : read_timeline(r, max_inflated);
}

int report_next(struct report *r, struct report_sample *s)
{
	const char **c = r->col;

	if (!r->has_timeline)
		return 0;
	for (;;) {
		int64_t db, leaf, cnt, w;
		struct report_node *n;
		while (r->left == 0) {
			if (r->thread == r->nthreads)
				return 0;
			r->left = r->threads[r->thread++].nruns;
			r->b = 0;
		}
		r->left--;
		db = next_num(r, &c[0]), leaf = next_num(r, &c[1]), cnt = next_num(r, &c[2]);
		w = r->sweight >= 0 ? 0 : next_num(r, &c[3]);
		if (db < 0 || w < 0 || (uint64_t)leaf > r->nends || cnt < 1 || db > (INT64_MAX - r->t0ns) / r->quantum - r->b)
			break;
		r->b += db; /* t0 + b * quantum cannot overflow: checked above */
		if (!leaf)
			continue;
		s->thread = r->thread - 1;
		s->node = r->ends[leaf - 1];
		s->time_ns = r->t0ns + r->b * r->quantum;
		s->weight = r->sweight >= 0 ? r->sweight : (double)w;
		s->cnt = (uint64_t)cnt;
		n = &r->nodes[s->node];
		/* a run weighs no more than its stack in the tree (and a damaged
		 * count of weightless samples cannot keep the reader pushing for ever) */
		if (n->used + s->weight * (double)cnt > n->w[0] || (s->weight == 0 && cnt > (1 << 20)))
			break;
		n->used += s->weight * (double)cnt;
		return 1;
	}
	return damaged(r, "the report's timeline is damaged");
}

void report_free(struct report *r)
{
	const struct fk_host *h = r->h;

	if (!h)
		return;
	for (size_t i = 0; i < r->nnames; i++)
		h->free(r->names[i]);
	for (size_t i = 0; i < r->nthreads; i++)
		h->free((char *)r->threads[i].comm);
	h->free(r->names);
	h->free(r->name_len);
	h->free(r->nodes);
	h->free(r->threads);
	h->free(r->ends);
	h->free(r->dig);
	r->h = NULL;
}
