/*
 * The report's writer (report.h): the data object from a report_src, its
 * strings escaped so no byte can end the <script> element or a JS line, the
 * tree and timeline as digit strings, the timeline deflated.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <zlib.h>

#include "b64.h"
#include "report.h"

void report_put(struct report_out *o, const void *p, size_t len)
{
	if (len == 0) /* p may be NULL then (an empty timeline) */
		return;
	if (len > sizeof o->buf - o->n)
		report_flush(o);
	if (len > sizeof o->buf) {
		if (o->rc == 0)
			o->rc = o->write(o->ctx, p, len);
		return;
	}
	memcpy(o->buf + o->n, p, len);
	o->n += len;
}

void report_puts(struct report_out *o, const char *s)
{
	report_put(o, s, strlen(s));
}

int report_flush(struct report_out *o)
{
	if (o->n && o->rc == 0)
		o->rc = o->write(o->ctx, o->buf, o->n);
	o->n = 0;
	return o->rc;
}

size_t report_number(uint64_t v, char out[REPORT_NUM_MAX])
{
	char d[REPORT_NUM_MAX];
	size_t n = 0, k = 0;

	d[n++] = REPORT_ALPHA[v % REPORT_BASE];
	v /= REPORT_BASE;
	while (v) {
		d[n++] = REPORT_ALPHA[v % REPORT_BASE + REPORT_BASE];
		v /= REPORT_BASE;
	}
	while (n)
		out[k++] = d[--n];
	return k;
}

static void num(struct report_out *o, uint64_t v)
{
	char d[REPORT_NUM_MAX];

	report_put(o, d, report_number(v, d));
}

static void escape(struct report_out *o, unsigned c)
{
	char e[8];

	snprintf(e, sizeof e, "\\u%04x", c);
	report_put(o, e, 6);
}

/* The length of the UTF-8 character at u[0..len), 0 when it is not one
 * (overlong, a surrogate, beyond U+10FFFF, cut short); its code point. */
static size_t utf8_char(const unsigned char *u, size_t len, uint32_t *cp)
{
	unsigned c = u[0];
	size_t k;

	if (c >= 0xc2 && c <= 0xdf)
		k = 2, *cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		k = 3, *cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		k = 4, *cp = c & 0x07;
	else
		return 0;
	for (size_t j = 1; j < k; j++) {
		if (j >= len || (u[j] & 0xc0) != 0x80)
			return 0;
		*cp = (*cp << 6) | (u[j] & 0x3f);
	}
	if ((k == 3 && (*cp < 0x800 || (*cp >= 0xd800 && *cp <= 0xdfff))) ||
	    (k == 4 && (*cp < 0x10000 || *cp > 0x10ffff)))
		return 0;
	return k;
}

/* A JSON string of the "names" kind: valid UTF-8 as is, but U+2028 and
 * U+2029; a byte that is not UTF-8 as \u0080..\u00ff. */
static void jstr(struct report_out *o, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;

	report_put(o, "\"", 1);
	for (size_t i = 0; i < len;) {
		unsigned c = u[i];
		uint32_t cp;
		size_t k;
		if (c >= 0x80) {
			if (!(k = utf8_char(u + i, len - i, &cp))) {
				escape(o, c);
				i++;
			} else if (cp == 0x2028 || cp == 0x2029) {
				escape(o, (unsigned)cp);
				i += k;
			} else {
				report_put(o, u + i, k);
				i += k;
			}
			continue;
		}
		if (c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' || c == 0x7f)
			escape(o, c);
		else
			report_put(o, u + i, 1);
		i++;
	}
	report_put(o, "\"", 1);
}

static void jcstr(struct report_out *o, const char *s)
{
	jstr(o, s ? s : "", s ? strlen(s) : 0);
}

/* A thread's name: every byte that is not printable ASCII as \u00XX. */
static void jcomm(struct report_out *o, const char *c, size_t len)
{
	report_put(o, "\"", 1);
	for (size_t i = 0; i < len; i++) {
		unsigned char u = (unsigned char)c[i];
		if (u < 0x20 || u >= 0x7f || u == '"' || u == '\\' || u == '<' || u == '>' || u == '&')
			escape(o, u);
		else
			report_put(o, c + i, 1);
	}
	report_put(o, "\"", 1);
}

static void dbl(struct report_out *o, double v)
{
	char b[40];

	if (!isfinite(v))
		v = 0;
	if (v == floor(v) && fabs(v) < 9e15)
		snprintf(b, sizeof b, "%.0f", v);
	else
		snprintf(b, sizeof b, "%.17g", v);
	report_puts(o, b);
}

static void pair(struct report_out *o, int first, size_t a, size_t b)
{
	char t[48];

	snprintf(t, sizeof t, "%s[%zu,%zu]", first ? "" : ",", a, b);
	report_puts(o, t);
}

static int int_weight(double v)
{
	return v >= 0 && v == floor(v) && v < 9007199254740992.0;
}

/* n strings from get, comma-separated (the "names" escape). */
static void put_strings(struct report_out *o, size_t n, const char *(*get)(void *ctx, size_t i, size_t *len),
                        void *ctx)
{
	for (size_t i = 0; i < n; i++) {
		size_t len;
		const char *t = get(ctx, i, &len);
		if (i)
			report_put(o, ",", 1);
		jstr(o, t, len);
	}
}

static void put_head(struct report_out *o, const struct report_src *s)
{
	report_puts(o, "{\"v\":2,\"title\":");
	jcstr(o, s->title);
	report_puts(o, ",\"palette\":");
	jcstr(o, s->palette);
	report_puts(o, s->inverted ? ",\"inverted\":1,\"unit\":" : ",\"unit\":");
	jcstr(o, s->unit ? s->unit : "samples");
	report_puts(o, ",\"units\":[");
	jcstr(o, s->units[0]);
	report_put(o, ",", 1);
	jcstr(o, s->units[1]);
	report_puts(o, s->series == 2 ? "],\"series\":2,\"names\":[" : "],\"series\":1,\"names\":[");
	put_strings(o, s->nnames, s->name, s->ctx);
	report_puts(o, "],\"colours\":[");
	for (size_t i = 0, first = 1; s->colour && i < s->nnames; i++) {
		const char *c = s->colour(s->ctx, i);
		char b[32];
		if (!c)
			continue;
		snprintf(b, sizeof b, "%s[%zu,", first ? "" : ",", i);
		report_puts(o, b);
		jcstr(o, c);
		report_put(o, "]", 1);
		first = 0;
	}
	report_puts(o, "],\"modules\":[");
	put_strings(o, s->nmodules, s->module, s->ctx);
	report_puts(o, "],\"fmods\":[");
	for (size_t i = 0, first = 1; s->frame_module && i < s->nnames; i++) {
		size_t k = s->frame_module(s->ctx, i);
		if (k == SIZE_MAX)
			continue;
		pair(o, (int)first, i, k);
		first = 0;
	}
	report_put(o, "]", 1);
}

static void put_tree(struct report_out *o, const struct report_src *s)
{
	int two = s->series == 2, ws = two ? 0 : s->wseries, fl = 0;
	struct report_node n;
	uint32_t prev = 0;

	for (size_t i = 0; i < s->nnodes && !fl; i++) {
		s->node(s->ctx, i, &n);
		fl = !int_weight(n.w[ws]) || (two && !int_weight(n.w[1]));
	}
	report_puts(o, ",\"tree\":\"");
	for (size_t i = 0; i < s->nnodes; i++) {
		s->node(s->ctx, i, &n);
		num(o, prev + 1 - n.depth);
		num(o, n.frame);
		num(o, !n.end ? 0 : fl ? 1 : (uint64_t)n.w[ws] + 1);
		prev = n.depth;
	}
	report_put(o, "\"", 1);
	if (two && !fl) {
		report_puts(o, ",\"tree2\":\"");
		for (size_t i = 0; i < s->nnodes; i++) {
			s->node(s->ctx, i, &n);
			num(o, n.end ? (uint64_t)n.w[1] + 1 : 0);
		}
		report_put(o, "\"", 1);
	}
	if (fl) {
		int first = 1;
		report_puts(o, ",\"fw\":[");
		for (size_t i = 0; i < s->nnodes; i++) {
			s->node(s->ctx, i, &n);
			if (!n.end)
				continue;
			for (int k = 0; k <= two; k++) {
				if (!first)
					report_put(o, ",", 1);
				first = 0;
				dbl(o, n.w[two ? k : ws]);
			}
		}
		report_put(o, "]", 1);
	}
}

int report_deflate64(const struct fk_host *h, const char *in, size_t n, char **out, size_t *outlen)
{
	z_stream z;
	uLong bound;
	unsigned char *d = NULL;
	int rc = FK_ERR_NOMEM;

	*out = NULL;
	memset(&z, 0, sizeof z);
	/* level 5: a 120,000-sample timeline's 421 KB of digits deflated to
	 * 76 KB in 7.6 ms here, at zlib's default 6 to 71 KB in 17 ms (6's
	 * lazy matching is slow on them), at 4 to 81 KB in 4.9 ms */
	if (deflateInit2(&z, 5, Z_DEFLATED, -15, 9, Z_DEFAULT_STRATEGY) != Z_OK)
		return FK_ERR_NOMEM;
	bound = deflateBound(&z, (uLong)n);
	d = h->alloc(bound);
	if (!d)
		goto out;
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)n;
	z.next_out = d;
	z.avail_out = (uInt)bound;
	if (deflate(&z, Z_FINISH) != Z_STREAM_END)
		goto out;
	*out = h->alloc(4 * (z.total_out / 3 + 1));
	if (!*out)
		goto out;
	*outlen = report_b64_encode(d, z.total_out, *out);
	rc = 0;
out:
	deflateEnd(&z);
	h->free(d);
	return rc;
}

/* A digit string in memory, to be deflated. */
struct digits {
	const struct fk_host *h;
	char *p;
	size_t n, cap;
	int oom;
};

static void addnum(struct digits *b, uint64_t v)
{
	if (b->oom)
		return;
	if (b->n + REPORT_NUM_MAX > b->cap) {
		size_t nc = b->cap ? b->cap * 2 : 4096;
		char *np = b->h->realloc(b->p, nc);
		if (!np) {
			b->oom = 1;
			return;
		}
		b->p = np;
		b->cap = nc;
	}
	b->n += report_number(v, b->p + b->n);
}

/* The runs column by column (each thread's run count, then every run's
 * quantum delta, leaf, count, weight): deflate finds more repeats in a
 * column than in rows. */
static int put_timeline(const struct fk_host *h, struct report_out *o, const struct report_timeline *t)
{
	struct digits dig = { .h = h };
	size_t nr = 0;
	char tmp[160], *z = NULL;
	size_t zn;
	int rc = FK_ERR_NOMEM;

	report_puts(o, ",\"threads\":[");
	for (size_t i = 0; i < t->nthreads; i++) {
		const struct report_thread *th = &t->threads[i];
		snprintf(tmp, sizeof tmp, "%s[%d,%d", i ? "," : "", th->pid, th->tid);
		report_puts(o, tmp);
		if (th->comm) {
			report_put(o, ",", 1);
			jcomm(o, th->comm, th->comm_len);
		}
		report_put(o, "]", 1);
		addnum(&dig, th->nruns);
		nr += th->nruns;
	}
	snprintf(tmp, sizeof tmp, "],\"timed\":%d,\"t0ns\":\"%lld\",\"quantum\":%lld,", !!t->timed,
	         (long long)t->t0ns, (long long)t->quantum);
	report_puts(o, tmp);
	if (t->same) {
		snprintf(tmp, sizeof tmp, "\"sweight\":%.0f,", t->sweight);
		report_puts(o, tmp);
	}
	report_puts(o, "\"timeline\":\"");
	for (size_t i = 0; i < nr; i++)
		addnum(&dig, t->runs[i].db);
	for (size_t i = 0; i < nr; i++)
		addnum(&dig, t->runs[i].leaf);
	for (size_t i = 0; i < nr; i++)
		addnum(&dig, t->runs[i].cnt);
	for (size_t i = 0; !t->same && i < nr; i++)
		addnum(&dig, t->runs[i].w);
	if (dig.oom || report_deflate64(h, dig.p, dig.n, &z, &zn) < 0)
		goto out;
	report_put(o, z, zn);
	report_put(o, "\"", 1);
	rc = 0;
out:
	h->free(z);
	h->free(dig.p);
	return rc;
}

int report_encode(const struct fk_host *h, struct report_out *o, const struct report_src *src)
{
	put_head(o, src);
	put_tree(o, src);
	if (src->timeline && src->series != 2 && put_timeline(h, o, src->timeline) < 0)
		return FK_ERR_NOMEM;
	report_put(o, "}", 1);
	return o->rc;
}
