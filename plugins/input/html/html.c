/*
 * Input plugin "html": reads back the profile a flamekit HTML report (the
 * `html` output plugin) embeds, so a report can be re-rendered or diffed
 * later.  The stacks and weights come back exactly; per-sample times and
 * threads do not (the report keeps them for its own views only).  The
 * format is described in plugins/lib/report/report.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <flamekit/plugin.h>

#include "../../lib/report/report.h"

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

static int push_tree(struct rd *r, struct fk_sink *sink, const struct names *nm)
{
	const struct fk_host *h = r->h;
	const char *t = find_key(r, "tree"), *t2 = find_key(r, "tree2"), *fw = find_key(r, "fw");
	const char *ser = find_key(r, "series");
	int two = ser && *skip_ws(ser, r->end) == '2';
	struct fk_frameref *fr = NULL;
	size_t cap = 0, depth = 0, node = 0;
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
		struct fk_sample smp;
		if (w < 0 || (uint64_t)up > depth || (uint64_t)f >= nm->n) {
			rc = h->input_error(r->in, 0, "the report's stack tree is damaged at node %zu", node);
			goto out;
		}
		depth = depth + 1 - (size_t)up;
		if (grow_path(h, &fr, &cap, depth) < 0) {
			rc = h->input_error(r->in, 0, "out of memory");
			goto out;
		}
		fr[depth - 1].name = nm->v[f];
		fr[depth - 1].len = nm->len[f];
		memset(&smp, 0, sizeof smp);
		if (two && t2 && !fw) {
			int64_t w2 = next_num(r, &t2);
			if (w2 < 0) {
				rc = h->input_error(r->in, 0, "the report's second series is damaged at node %zu", node);
				goto out;
			}
			if (w || w2) {
				smp.flags = FK_SAMPLE_SERIES;
				smp.weight[0] = w ? (double)(w - 1) : 0;
				smp.weight[1] = w2 ? (double)(w2 - 1) : 0;
				w = 1;
			}
		} else if (w && fw) {
			if (next_fw(&fw, r->end, &smp.weight[0]) < 0 ||
			    (two && next_fw(&fw, r->end, &smp.weight[1]) < 0)) {
				rc = h->input_error(r->in, 0, "the report's weights are damaged at node %zu", node);
				goto out;
			}
			if (two)
				smp.flags = FK_SAMPLE_SERIES;
		} else if (w) {
			smp.weight[0] = (double)(w - 1);
		}
		if (w) {
			smp.frames = fr;
			smp.nframes = depth;
			rc = h->push(sink, &smp, NULL);
			if (rc < 0)
				goto out;
		}
		node++;
	}
out:
	h->free(fr);
	return rc;
}

static int parse(const struct fk_host *h, struct fk_input *in, struct fk_sink *sink, const void *opts)
{
	struct rd r = { .h = h, .in = in };
	struct names nm = { 0 };
	size_t cap = 1 << 20;
	int rc = 0;
	char unit[64];
	const char *u;

	(void)opts;
	r.buf = h->alloc(cap + 1);
	if (!r.buf)
		return h->input_error(in, 0, "out of memory");
	for (;;) {
		ssize_t n;
		if (r.len == cap) {
			char *nb = h->realloc(r.buf, cap * 2 + 1);
			if (!nb) {
				rc = h->input_error(in, 0, "out of memory");
				goto out;
			}
			r.buf = nb;
			cap *= 2;
		}
		n = h->read(in, r.buf + r.len, cap - r.len);
		if (n < 0) {
			rc = (int)n;
			goto out;
		}
		if (n == 0)
			break;
		r.len += (size_t)n;
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
	size_t m = strlen(REPORT_MAGIC);
	for (size_t i = 0; i + m <= len && i < 4096; i++)
		if (buf[i] == '<' && memcmp(buf + i, REPORT_MAGIC, m) == 0)
			return 100;
	return 0;
}

static struct fk_input_plugin plugin = {
	.h = {
		.name = "html",
		.version = "1.0",
		.description = "the profile inside a flamekit HTML report (output plugin html)",
	},
	.probe = probe,
	.parse = parse,
};

FLAMEKIT_REGISTER_INPUT(plugin)
