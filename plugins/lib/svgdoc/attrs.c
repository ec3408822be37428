/*
 * The side files a graph reads: --nameattr (per-function attributes, checked
 * when read: only inert attributes, each once, links only to http, https,
 * mailto or relative URLs) and the --cp palette map.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attrs.h"

static uint64_t shash(const char *s, size_t n)
{
	uint64_t x = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < n; i++)
		x = (x ^ (unsigned char)s[i]) * 0x100000001b3ull;
	return x ^ (x >> 29);
}

struct svg_smap_ent *svg_smap_find(const struct svg_smap *m, const char *k, size_t n)
{
	if (!m->v)
		return NULL;
	for (size_t j = shash(k, n) & m->mask;; j = (j + 1) & m->mask) {
		struct svg_smap_ent *e = &m->v[j];
		if (!e->key)
			return NULL;
		if (e->klen == n && memcmp(e->key, k, n) == 0)
			return e;
	}
}

char *svg_strdup(const struct fk_host *h, const char *s, size_t n)
{
	char *d = h->alloc(n + 1);
	if (d) {
		memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

/* Insert or replace; takes ownership of val. */
int svg_smap_put(struct svg_smap *m, const char *k, size_t n, char *val)
{
	struct svg_smap_ent *e;

	if ((m->n + 1) * 2 > m->mask) {
		size_t nm = m->mask ? m->mask * 2 + 1 : 255;
		struct svg_smap_ent *nv = m->h->alloc((nm + 1) * sizeof *nv);
		if (!nv)
			goto nomem;
		memset(nv, 0, (nm + 1) * sizeof *nv);
		for (size_t i = 0; m->v && i <= m->mask; i++) {
			if (!m->v[i].key)
				continue;
			size_t j = shash(m->v[i].key, m->v[i].klen) & nm;
			while (nv[j].key)
				j = (j + 1) & nm;
			nv[j] = m->v[i];
		}
		m->h->free(m->v);
		m->v = nv;
		m->mask = nm;
	}
	e = svg_smap_find(m, k, n);
	if (e) {
		m->h->free(e->val);
		e->val = val;
		return 0;
	}
	size_t j = shash(k, n) & m->mask;
	while (m->v[j].key)
		j = (j + 1) & m->mask;
	m->v[j].key = svg_strdup(m->h, k, n);
	if (!m->v[j].key)
		goto nomem;
	m->v[j].klen = n;
	m->v[j].val = val;
	m->n++;
	return 0;
nomem:
	m->h->free(val);
	return FK_ERR_NOMEM;
}

void svg_smap_free(struct svg_smap *m)
{
	for (size_t i = 0; m->v && i <= m->mask; i++) {
		m->h->free(m->v[i].key);
		m->h->free(m->v[i].val);
	}
	m->h->free(m->v);
	m->v = NULL;
}

#define SLURP_MAX (64 << 20)

/* Read a whole small file (nameattr, palette map) into memory. */
static int slurp(const struct fk_host *h, const char *path, char **out, size_t *len, int missing_ok)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0, cap = 0;

	*out = NULL;
	*len = 0;
	if (!f) {
		if (missing_ok && errno == ENOENT)
			return 0;
		h->log(FK_LOG_ERROR, "cannot read %s: %s", path, strerror(errno));
		return FK_ERR_IO;
	}
	for (;;) {
		if (n + 4096 > cap) {
			size_t nc = cap ? cap * 2 : 8192;
			char *nb;
			/* These files are small; the cap keeps an option naming
			 * /dev/zero from eating all memory. */
			if (nc > SLURP_MAX) {
				h->log(FK_LOG_ERROR, "cannot read %s: larger than %d MiB", path, SLURP_MAX >> 20);
				h->free(buf);
				fclose(f);
				return FK_ERR_IO;
			}
			nb = h->realloc(buf, nc);
			if (!nb) {
				h->free(buf);
				fclose(f);
				return FK_ERR_NOMEM;
			}
			buf = nb;
			cap = nc;
		}
		size_t r = fread(buf + n, 1, cap - n - 1, f);
		n += r;
		if (r == 0)
			break;
	}
	if (ferror(f)) {
		h->log(FK_LOG_ERROR, "cannot read %s: %s", path, strerror(errno));
		h->free(buf);
		fclose(f);
		return FK_ERR_IO;
	}
	fclose(f);
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

/*
 * nameattr file: "FUNCTION<TAB>key=value<TAB>key=value...", one function a
 * line, with flamegraph.pl's keys.  Each line is checked whole when it is
 * read, so a graph is drawn with every attribute it names or not at all:
 * the attributes an element gets are written at most once each, from a
 * short list of inert ones (no event handler, no style, no link whose
 * scheme is not http, https or mailto).  The entry stored for a function is
 * "key\0value\0...\0": "title" for the tooltip, and "@NAME" for each
 * attribute in the order flamegraph.pl writes them, the link first.
 */

#define NA_MAX_ATTRS 64

/* Attributes g_extra and a_extra may carry besides data-* and aria-*:
 * none runs script, loads a resource or styles the frame. */
static const char *const na_inert[] = {
	"id", "class", "target", "rel", "title", "lang", "xml:lang", "role", "tabindex",
	"xlink:title", "xlink:show", NULL,
};

struct na_line {
	const struct fk_host *h;
	const char *path;
	size_t lineno;
	char *out, *q;   /* the entry being built, and its end */
	size_t nattrs;
};

static int na_fail(struct na_line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int na_fail(struct na_line *l, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	l->h->log(FK_LOG_ERROR, "%s:%zu: %s", l->path, l->lineno, msg);
	return FK_ERR_DATA;
}

static int lc_eq(const char *s, size_t n, const char *lit)
{
	size_t k = strlen(lit);
	if (n != k)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i] >= 'A' && s[i] <= 'Z' ? (char)(s[i] + 32) : s[i];
		if (c != lit[i])
			return 0;
	}
	return 1;
}

static size_t put_utf8(char *d, uint32_t cp)
{
	if (cp < 0x80) {
		d[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		d[0] = (char)(0xc0 | (cp >> 6));
		d[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		d[0] = (char)(0xe0 | (cp >> 12));
		d[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		d[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	d[0] = (char)(0xf0 | (cp >> 18));
	d[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	d[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	d[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* One pass of XML character and entity references decoded into d (never
 * longer than s), every space and control character dropped, as a URL
 * parser drops them; returns the length. */
static size_t url_decode_pass(const char *s, size_t n, char *d)
{
	static const struct { const char *name; char c; } named[] = {
		{ "amp", '&' }, { "lt", '<' }, { "gt", '>' }, { "quot", '"' }, { "apos", '\'' },
		{ "colon", ':' }, { "tab", '\t' }, { "newline", '\n' },
	};
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		const char *semi = c == '&' ? memchr(s + i, ';', n - i < 16 ? n - i : 16) : NULL;
		if (semi) {
			const char *e = s + i + 1;
			size_t en = (size_t)(semi - e);
			uint32_t cp = 0;
			int ok = 0;
			if (en >= 2 && e[0] == '#') {
				int hex = e[1] == 'x' || e[1] == 'X';
				ok = en > (size_t)(1 + hex);
				for (size_t j = 1 + (size_t)hex; ok && j < en; j++) {
					char ch = e[j];
					int v = ch >= '0' && ch <= '9' ? ch - '0'
					       : hex && ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
					       : hex && ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
					if (v < 0)
						ok = 0;
					else if (cp <= 0x10ffff)
						cp = cp * (hex ? 16u : 10u) + (uint32_t)v;
				}
				if (ok && cp > 0x20 && cp != 0x7f && cp <= 0x10ffff &&
				    !(cp >= 0xd800 && cp <= 0xdfff))
					k += put_utf8(d + k, cp);
			} else {
				for (size_t j = 0; j < sizeof named / sizeof named[0]; j++)
					if (lc_eq(e, en, named[j].name)) {
						ok = 1;
						if ((unsigned char)named[j].c > 0x20)
							d[k++] = named[j].c;
						break;
					}
			}
			if (ok) {
				i = (size_t)(semi - s);
				continue;
			}
		}
		if (c > 0x20 && c != 0x7f)
			d[k++] = (char)c;
	}
	return k;
}

/* A link flamekit writes: http, https, mailto, or no scheme (relative, or a
 * fragment), judged after references are decoded (again and again: a
 * browser decodes once, this is stricter) and spaces and controls dropped,
 * so "jav&#x09;ascript:" is the javascript: it would become. */
static int url_ok(const struct fk_host *h, const char *s, size_t n, int *ok)
{
	char *a = h->alloc(n + 1), *b = h->alloc(n + 1);
	size_t k, m;

	if (!a || !b) {
		h->free(a);
		h->free(b);
		return FK_ERR_NOMEM;
	}
	k = url_decode_pass(s, n, a);
	while ((m = url_decode_pass(a, k, b)) != k || memcmp(a, b, k) != 0) {
		char *t = a;
		a = b;
		b = t;
		k = m;
	}
	*ok = 1;
	if (k && ((a[0] >= 'a' && a[0] <= 'z') || (a[0] >= 'A' && a[0] <= 'Z'))) {
		size_t i = 1;
		while (i < k && ((a[i] >= 'a' && a[i] <= 'z') || (a[i] >= 'A' && a[i] <= 'Z') ||
		                 (a[i] >= '0' && a[i] <= '9') || a[i] == '+' || a[i] == '-' || a[i] == '.'))
			i++;
		if (i < k && a[i] == ':')
			*ok = lc_eq(a, i, "http") || lc_eq(a, i, "https") || lc_eq(a, i, "mailto");
	}
	h->free(a);
	h->free(b);
	return 0;
}

/* Append one attribute to the entry, refusing it if given before. */
static int na_put(struct na_line *l, const char *where, const char *name, size_t nn,
                  const char *val, size_t vn)
{
	for (const char *p = l->out; *p; p += strlen(p) + 1, p += strlen(p) + 1)
		if (p[0] == '@' && strlen(p + 1) == nn && memcmp(p + 1, name, nn) == 0)
			return na_fail(l, "%s: attribute %.*s given twice: an SVG element carries each attribute once",
			               where, (int)nn, name);
	if (++l->nattrs > NA_MAX_ATTRS)
		return na_fail(l, "%s: more than %d attributes", where, NA_MAX_ATTRS);
	*l->q++ = '@';
	memcpy(l->q, name, nn);
	l->q += nn;
	*l->q++ = '\0';
	memcpy(l->q, val, vn);
	l->q += vn;
	*l->q++ = '\0';
	*l->q = '\0';
	return 0;
}

/* A link attribute's value: refused unless url_ok. */
static int na_link(struct na_line *l, const char *where, const char *v, size_t vn)
{
	int ok, rc = url_ok(l->h, v, vn, &ok);

	if (rc < 0)
		return rc;
	if (!ok) {
		char shown[61];
		size_t k = vn < 60 ? vn : 60;
		for (size_t i = 0; i < k; i++) /* no control byte reaches a terminal */
			shown[i] = (unsigned char)v[i] < 0x20 || v[i] == 0x7f ? '?' : v[i];
		shown[k] = '\0';
		return na_fail(l, "%s: link \"%s\" refused: only http, https, mailto and relative links are written",
		               where, shown);
	}
	return 0;
}

/* Raw attribute text of g_extra or a_extra (flamegraph.pl pastes it into the
 * tag): name="value" or name='value' pairs, each an inert attribute. */
static int na_extra(struct na_line *l, const char *key, const char *s)
{
	while (*s) {
		const char *name, *v, *ve;
		size_t nn;
		int rc;
		char q;

		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		name = s;
		while ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		       *s == '_' || *s == '-' || *s == '.' || *s == ':')
			s++;
		nn = (size_t)(s - name);
		q = *s == '=' ? s[1] : 0;
		if (nn == 0 || (q != '"' && q != '\'') || !(ve = strchr(v = s + 2, q)))
			return na_fail(l, "%s: expected name=\"value\" pairs, found \"%.40s\"", key, name);
		if (nn >= 2 && lc_eq(name, 2, "on"))
			return na_fail(l, "%s: %.*s refused: flamekit writes no event handler", key, (int)nn, name);
		if (lc_eq(name, nn, "style"))
			return na_fail(l, "%s: style refused: a style can load URLs; use class", key);
		if (lc_eq(name, nn, "href") || lc_eq(name, nn, "xlink:href")) {
			if ((rc = na_link(l, key, v, (size_t)(ve - v))) < 0)
				return rc;
			return na_fail(l, "%s: %.*s refused: the href key gives a frame its link, once", key,
			               (int)nn, name);
		}
		int inert = 0;
		for (size_t i = 0; na_inert[i] && !inert; i++)
			inert = strlen(na_inert[i]) == nn && memcmp(na_inert[i], name, nn) == 0;
		if (!inert && nn > 5 && (memcmp(name, "data-", 5) == 0 || memcmp(name, "aria-", 5) == 0))
			inert = !memchr(name, ':', nn);
		if (!inert)
			return na_fail(l, "%s: attribute %.*s refused: only id, class, target, rel, title, lang, "
			               "xml:lang, role, tabindex, xlink:title, xlink:show, data-* and aria-* are written",
			               key, (int)nn, name);
		if ((rc = na_put(l, key, name, nn, v, (size_t)(ve - v))) < 0)
			return rc;
		s = ve + 1;
	}
	return 0;
}

enum { NA_HREF, NA_TARGET, NA_AEXTRA, NA_ID, NA_CLASS, NA_GEXTRA, NA_TITLE, NA_NKEYS };
static const char *const na_keys[NA_NKEYS] = {
	"href", "target", "a_extra", "id", "class", "g_extra", "title",
};

/* One line's fields (tab-separated key=value, NUL-terminated in place)
 * into l->out, checked. */
static int na_parse(struct na_line *l, char *fields)
{
	const char *kv[NA_NKEYS] = { 0 };
	int rc;

	for (char *f = fields; f;) {
		char *next = strchr(f, '\t'), *eq;
		size_t k;
		if (next)
			*next++ = '\0';
		eq = strchr(f, '=');
		if (!eq) {
			if (*f)
				return na_fail(l, "expected key=value, found \"%.40s\"", f);
			f = next;
			continue;
		}
		*eq = '\0';
		if (strcmp(f, "xlink:href") == 0)
			f = (char *)"href";
		for (k = 0; k < NA_NKEYS && strcmp(f, na_keys[k]) != 0; k++)
			;
		if (k == NA_NKEYS)
			return na_fail(l, "unknown key %.40s: the keys are title, href, target, id, class, "
			               "g_extra and a_extra", f);
		if (kv[k])
			return na_fail(l, "key %s given twice", f);
		kv[k] = eq + 1;
		f = next;
	}
	if (kv[NA_HREF] && *kv[NA_HREF]) {
		if ((rc = na_link(l, "href", kv[NA_HREF], strlen(kv[NA_HREF]))) < 0 ||
		    (rc = na_put(l, "href", "xlink:href", 10, kv[NA_HREF], strlen(kv[NA_HREF]))) < 0)
			return rc;
		/* default target=_top, else links open within an <object> */
		const char *tg = kv[NA_TARGET] && *kv[NA_TARGET] ? kv[NA_TARGET] : "_top";
		if ((rc = na_put(l, "target", "target", 6, tg, strlen(tg))) < 0)
			return rc;
	}
	/* a_extra is checked even where flamegraph.pl drops it (no link) */
	if (kv[NA_AEXTRA]) {
		char *mark = l->q;
		size_t n = l->nattrs;
		if ((rc = na_extra(l, "a_extra", kv[NA_AEXTRA])) < 0)
			return rc;
		if (!(kv[NA_HREF] && *kv[NA_HREF])) {
			l->q = mark;
			*l->q = '\0';
			l->nattrs = n;
		}
	}
	if (kv[NA_ID] && (rc = na_put(l, "id", "id", 2, kv[NA_ID], strlen(kv[NA_ID]))) < 0)
		return rc;
	if (kv[NA_CLASS] && (rc = na_put(l, "class", "class", 5, kv[NA_CLASS], strlen(kv[NA_CLASS]))) < 0)
		return rc;
	if (kv[NA_GEXTRA] && (rc = na_extra(l, "g_extra", kv[NA_GEXTRA])) < 0)
		return rc;
	if (kv[NA_TITLE]) {
		size_t n = strlen(kv[NA_TITLE]);
		memcpy(l->q, "title", 6);
		memcpy(l->q + 6, kv[NA_TITLE], n + 1);
		l->q += 6 + n + 1;
		*l->q = '\0';
	}
	return 0;
}

int svg_nameattr_load(const struct fk_host *h, const char *path, struct svg_smap *m)
{
	char *buf, *line, *end;
	size_t len;
	struct na_line l = { h, path, 0, NULL, NULL, 0 };
	int rc = slurp(h, path, &buf, &len, 0);

	if (rc < 0)
		return rc;
	for (line = buf; line < buf + len; line = end + 1) {
		char *nl = memchr(line, '\n', (size_t)(buf + len - line));
		char *tab;
		end = nl ? nl : buf + len;
		l.lineno++;
		if (end > line && end[-1] == '\r')
			end[-1] = '\0';
		*end = '\0';
		if (!*line)
			continue;
		tab = strchr(line, '\t');
		if (!tab) {
			rc = na_fail(&l, "expected FUNCTION<TAB>key=value");
			break;
		}
		/* "@xlink:href\0" and "@target\0_top\0" are the most an entry
		 * adds to its line's bytes, and '@' one per attribute */
		l.out = h->alloc(2 * strlen(tab) + 64);
		if (!l.out) {
			rc = FK_ERR_NOMEM;
			break;
		}
		l.q = l.out;
		*l.q = '\0';
		l.nattrs = 0;
		rc = na_parse(&l, tab + 1);
		if (rc < 0) {
			h->free(l.out);
			break;
		}
		rc = svg_smap_put(m, line, (size_t)(tab - line), l.out);
		if (rc < 0)
			break;
	}
	h->free(buf);
	return rc;
}

const char *svg_attr_get(const char *kv, const char *key)
{
	while (kv && *kv) {
		const char *v = kv + strlen(kv) + 1;
		if (strcmp(kv, key) == 0)
			return v;
		kv = v + strlen(v) + 1;
	}
	return NULL;
}

int svg_attr_link(const char *kv)
{
	return kv && strcmp(kv, "@xlink:href") == 0;
}

void svg_put_attrs(struct svg_out *o, const char *kv)
{
	int first = 1;

	while (kv && *kv) {
		const char *v = kv + strlen(kv) + 1;
		if (kv[0] == '@') {
			if (!first)
				svg_put(o, " ", 1);
			first = 0;
			svg_puts(o, kv + 1);
			svg_put(o, "=\"", 2);
			svg_put_xmls(o, v);
			svg_put(o, "\"", 1);
		}
		kv = v + strlen(v) + 1;
	}
}

/* ---- palette map (--cp) -------------------------------------------------- */

int svg_palmap_load(const struct fk_host *h, const char *path, struct svg_smap *m)
{
	char *buf, *line, *end;
	const char *pend = NULL;
	size_t len;
	int rc = 0;

	/* the map an earlier output of this run will write, if any */
	if (FK_HOST_HAS(h, side_pending))
		pend = h->side_pending(path, &len);
	if (pend) {
		if (!(buf = svg_strdup(h, pend, len)))
			return FK_ERR_NOMEM;
	} else if ((rc = slurp(h, path, &buf, &len, 1)) < 0 || !buf) {
		return rc;
	}
	for (line = buf; line < buf + len; line = end + 1) {
		char *nl = memchr(line, '\n', (size_t)(buf + len - line)), *arrow;
		end = nl ? nl : buf + len;
		*end = '\0';
		arrow = strstr(line, "->");
		if (!arrow)
			continue;
		char *v = svg_strdup(h, arrow + 2, strlen(arrow + 2));
		if (!v || svg_smap_put(m, line, (size_t)(arrow - line), v) < 0) {
			rc = FK_ERR_NOMEM;
			break;
		}
	}
	m->dirty = 0;
	h->free(buf);
	return rc;
}

static int cmp_ent(const void *a, const void *b)
{
	const struct svg_smap_ent *x = *(const struct svg_smap_ent *const *)a;
	const struct svg_smap_ent *y = *(const struct svg_smap_ent *const *)b;
	size_t n = x->klen < y->klen ? x->klen : y->klen;
	int r = memcmp(x->key, y->key, n);
	return r ? r : (x->klen > y->klen) - (x->klen < y->klen);
}

/* Rewrite the palette map, sorted, as a side output of w: the engine writes
 * it as it writes outputs (links judged, mode and owner kept, a temporary
 * renamed into place) and only when the whole run succeeds. */
int svg_palmap_save(const struct fk_host *h, struct fk_writer *w, const char *path,
                    struct svg_smap *m)
{
	struct svg_smap_ent **v;
	struct fk_writer *f;
	size_t k = 0;
	int rc = 0;

	if (!m->dirty)
		return 0;
	if (!FK_HOST_HAS(h, side_output)) {
		h->log(FK_LOG_ERROR, "cannot write %s: --cp needs flamekit's plugin ABI 1.5", path);
		return FK_ERR_PLUGIN;
	}
	if (!(v = h->alloc((m->n + 1) * sizeof *v)))
		return FK_ERR_NOMEM;
	for (size_t i = 0; i <= m->mask; i++)
		if (m->v[i].key)
			v[k++] = &m->v[i];
	qsort(v, k, sizeof *v, cmp_ent);
	if ((rc = h->side_output(w, path, &f)) < 0)
		goto out;
	for (size_t i = 0; i < k && rc == 0; i++)
		if ((rc = h->write(f, v[i]->key, v[i]->klen)) == 0)
			rc = h->printf(f, "->%s\n", v[i]->val);
out:
	h->free(v);
	return rc;
}
