/*
 * Writing the flame graph document.  Geometry, text and colours follow
 * flamegraph.pl (the conformance corpus pins them); what it writes without
 * escaping (titles, notes, attributes) is escaped here, and bytes XML cannot
 * carry (invalid UTF-8, control characters) or that would reorder the text
 * around them (bidi controls) become U+FFFD, so every graph is well-formed
 * XML whatever the frame names hold.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "svgdoc.h"

#define XPAD 10.0
#define FRAMEPAD 1.0

/* ---- output buffer ------------------------------------------------------ */

struct ob {
	const struct fk_host *h;
	struct fk_writer *w;
	char buf[1 << 16];
	size_t len;
	int rc;
};

static void ob_flush(struct ob *o)
{
	if (o->rc == 0 && o->len)
		o->rc = o->h->write(o->w, o->buf, o->len);
	o->len = 0;
}

static void put(struct ob *o, const char *s, size_t n)
{
	if (o->len + n > sizeof o->buf) {
		ob_flush(o);
		if (n > sizeof o->buf) {
			if (o->rc == 0)
				o->rc = o->h->write(o->w, s, n);
			return;
		}
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

static void puts_(struct ob *o, const char *s) { put(o, s, strlen(s)); }

static void FK_PRINTF(2, 3) putf(struct ob *o, const char *fmt, ...)
{
	char tmp[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	put(o, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/* A number as Perl prints it ("%.15g"). */
static void put_num(struct ob *o, double v)
{
	if (v == 0)
		v = 0; /* no "-0" */
	putf(o, "%.15g", v);
}

static int bad_char(int32_t cp)
{
	if (cp < 0)
		return 1;
	if (cp < 0x20 && cp != '\t')
		return 1;
	if (cp == 0x7f || (cp >= 0x80 && cp < 0xa0))
		return 1;
	if (cp == 0xfffe || cp == 0xffff)
		return 1;
	/* bidi embeddings, overrides, isolates and marks */
	if ((cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200e ||
	    cp == 0x200f || cp == 0x061c)
		return 1;
	return 0;
}

/* XML text or attribute value; quote: also escape '"' and '\''. */
static void put_xml(struct ob *o, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, run = 0;

	while (i < n) {
		int32_t cp;
		size_t k = pal_utf8(u + i, n - i, &cp);
		const char *rep = NULL;
		if (cp == '&')
			rep = "&amp;";
		else if (cp == '<')
			rep = "&lt;";
		else if (cp == '>')
			rep = "&gt;";
		else if (cp == '"')
			rep = "&quot;";
		else if (cp == '\'')
			rep = "&#39;";
		else if (bad_char(cp))
			rep = "\xef\xbf\xbd";
		if (rep) {
			put(o, s + run, i - run);
			puts_(o, rep);
			run = i + k;
		}
		i += k;
	}
	put(o, s + run, n - run);
}

static void put_xmls(struct ob *o, const char *s) { put_xml(o, s, strlen(s)); }

/* A JavaScript string literal, safe inside CDATA and in any browser. */
static void put_js_string(struct ob *o, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strlen(s), i = 0;

	put(o, "\"", 1);
	while (i < n) {
		int32_t cp;
		size_t k = pal_utf8(u + i, n - i, &cp);
		if (bad_char(cp))
			cp = 0xfffd;
		if ((cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || (cp >= '0' && cp <= '9') ||
		    cp == ' ' || cp == ':' || cp == '.' || cp == ',' || cp == '_' || cp == '-')
			putf(o, "%c", (char)cp);
		else if (cp < 0x10000)
			putf(o, "\\u%04x", (unsigned)cp);
		else
			putf(o, "\\u%04x\\u%04x", 0xd800u + (((unsigned)cp - 0x10000) >> 10),
			     0xdc00u + (((unsigned)cp - 0x10000) & 0x3ff));
		i += k;
	}
	put(o, "\"", 1);
}

/* ---- string map (nameattr, palette map) --------------------------------- */

struct smap_ent {
	char *key, *val;
	size_t klen;
};

struct smap {
	const struct fk_host *h;
	struct smap_ent *v;
	size_t mask, n;
	int dirty;
};

static uint64_t shash(const char *s, size_t n)
{
	uint64_t x = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < n; i++)
		x = (x ^ (unsigned char)s[i]) * 0x100000001b3ull;
	return x ^ (x >> 29);
}

static struct smap_ent *smap_find(const struct smap *m, const char *k, size_t n)
{
	if (!m->v)
		return NULL;
	for (size_t j = shash(k, n) & m->mask;; j = (j + 1) & m->mask) {
		struct smap_ent *e = &m->v[j];
		if (!e->key)
			return NULL;
		if (e->klen == n && memcmp(e->key, k, n) == 0)
			return e;
	}
}

static char *sdup(const struct fk_host *h, const char *s, size_t n)
{
	char *d = h->alloc(n + 1);
	if (d) {
		memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

/* Insert or replace; takes ownership of val. */
static int smap_put(struct smap *m, const char *k, size_t n, char *val)
{
	struct smap_ent *e;

	if ((m->n + 1) * 2 > m->mask) {
		size_t nm = m->mask ? m->mask * 2 + 1 : 255;
		struct smap_ent *nv = m->h->alloc((nm + 1) * sizeof *nv);
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
	e = smap_find(m, k, n);
	if (e) {
		m->h->free(e->val);
		e->val = val;
		return 0;
	}
	size_t j = shash(k, n) & m->mask;
	while (m->v[j].key)
		j = (j + 1) & m->mask;
	m->v[j].key = sdup(m->h, k, n);
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

static void smap_free(struct smap *m)
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
 * line.  Values are stored as "key\0value\0key\0value\0\0".
 */
static int load_nameattr(const struct fk_host *h, const char *path, struct smap *m)
{
	char *buf, *line, *end;
	size_t len, lineno = 0;
	int rc = slurp(h, path, &buf, &len, 0);

	if (rc < 0)
		return rc;
	for (line = buf; line < buf + len; line = end + 1) {
		char *nl = memchr(line, '\n', (size_t)(buf + len - line));
		char *tab, *val, *q;
		end = nl ? nl : buf + len;
		lineno++;
		if (end > line && end[-1] == '\r')
			end[-1] = '\0';
		*end = '\0';
		if (!*line)
			continue;
		tab = strchr(line, '\t');
		if (!tab) {
			h->log(FK_LOG_ERROR, "%s:%zu: expected FUNCTION<TAB>key=value", path, lineno);
			rc = FK_ERR_DATA;
			break;
		}
		val = h->alloc(strlen(tab) + 2);
		if (!val) {
			rc = FK_ERR_NOMEM;
			break;
		}
		q = val;
		for (char *f = tab + 1; f && *f;) {
			char *next = strchr(f, '\t'), *eq;
			if (next)
				*next++ = '\0';
			eq = strchr(f, '=');
			if (eq) {
				memcpy(q, f, (size_t)(eq - f));
				q += eq - f;
				*q++ = '\0';
				strcpy(q, eq + 1);
				q += strlen(eq + 1) + 1;
			}
			f = next;
		}
		*q = '\0';
		rc = smap_put(m, line, (size_t)(tab - line), val);
		if (rc < 0)
			break;
	}
	h->free(buf);
	return rc;
}

static const char *attr_get(const char *kv, const char *key)
{
	while (kv && *kv) {
		const char *v = kv + strlen(kv) + 1;
		if (strcmp(kv, key) == 0)
			return v;
		kv = v + strlen(v) + 1;
	}
	return NULL;
}

static int attr_name_ok(const char *s, size_t n)
{
	if (n == 0 || (n >= 2 && (s[0] == 'o' || s[0] == 'O') && (s[1] == 'n' || s[1] == 'N')))
		return 0; /* no event handlers */
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' ||
		      (i && ((c >= '0' && c <= '9') || c == '-' || c == '.'))))
			return 0;
	}
	return 1;
}

/* g_extra/a_extra hold raw attribute text in flamegraph.pl: re-emit only
 * well-formed name="value" pairs, escaped, and never an on* handler. */
static void put_extra(struct ob *o, const char *s)
{
	while (s && *s) {
		const char *name, *eq;
		while (*s == ' ' || *s == '\t')
			s++;
		name = s;
		while (*s && *s != '=' && *s != ' ')
			s++;
		eq = s;
		if (*s != '=')
			break;
		s++;
		char q = *s;
		if (q != '"' && q != '\'')
			break;
		const char *v = ++s, *ve = strchr(v, q);
		if (!ve)
			break;
		if (attr_name_ok(name, (size_t)(eq - name))) {
			put(o, " ", 1);
			put(o, name, (size_t)(eq - name));
			put(o, "=\"", 2);
			put_xml(o, v, (size_t)(ve - v));
			put(o, "\"", 1);
		}
		s = ve + 1;
	}
}

static int href_ok(const char *s)
{
	static const char *const bad[] = { "javascript:", "data:", "vbscript:" };
	while (*s == ' ' || *s == '\t' || (unsigned char)*s < 0x20)
		s++;
	for (size_t i = 0; i < 3; i++) {
		size_t n = strlen(bad[i]), k = 0;
		const char *p = s;
		/* compare case-insensitively, ignoring embedded whitespace */
		while (*p && k < n) {
			if (*p == '\t' || *p == '\n' || *p == '\r') {
				p++;
				continue;
			}
			char c = *p >= 'A' && *p <= 'Z' ? (char)(*p + 32) : *p;
			if (c != bad[i][k])
				break;
			p++;
			k++;
		}
		if (k == n)
			return 0;
	}
	return 1;
}

/* ---- palette map (--cp) -------------------------------------------------- */

static int load_palette(const struct fk_host *h, const char *path, struct smap *m)
{
	char *buf, *line, *end;
	size_t len;
	int rc = slurp(h, path, &buf, &len, 1);

	if (rc < 0 || !buf)
		return rc;
	for (line = buf; line < buf + len; line = end + 1) {
		char *nl = memchr(line, '\n', (size_t)(buf + len - line)), *arrow;
		end = nl ? nl : buf + len;
		*end = '\0';
		arrow = strstr(line, "->");
		if (!arrow)
			continue;
		char *v = sdup(h, arrow + 2, strlen(arrow + 2));
		if (!v || smap_put(m, line, (size_t)(arrow - line), v) < 0) {
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
	const struct smap_ent *x = *(const struct smap_ent *const *)a;
	const struct smap_ent *y = *(const struct smap_ent *const *)b;
	size_t n = x->klen < y->klen ? x->klen : y->klen;
	int r = memcmp(x->key, y->key, n);
	return r ? r : (x->klen > y->klen) - (x->klen < y->klen);
}

/* Rewrite the palette map, sorted, through a temporary file and rename. */
static int save_palette(const struct fk_host *h, const char *path, struct smap *m)
{
	struct smap_ent **v;
	size_t k = 0, plen = strlen(path);
	char *tmp;
	FILE *f;
	int rc = 0, fd;
	mode_t um;

	if (!m->dirty)
		return 0;
	v = h->alloc((m->n + 1) * sizeof *v);
	tmp = h->alloc(plen + 16);
	if (!v || !tmp) {
		h->free(v);
		h->free(tmp);
		return FK_ERR_NOMEM;
	}
	for (size_t i = 0; i <= m->mask; i++)
		if (m->v[i].key)
			v[k++] = &m->v[i];
	qsort(v, k, sizeof *v, cmp_ent);
	/* a unique temporary beside the palette, renamed into place: two runs
	 * sharing a palette file never mix their writes */
	snprintf(tmp, plen + 16, "%s.tmpXXXXXX", path);
	fd = mkstemp(tmp);
	f = fd < 0 ? NULL : fdopen(fd, "wb");
	if (!f) {
		h->log(FK_LOG_ERROR, "cannot write %s: %s", path, strerror(errno));
		if (fd >= 0) {
			close(fd);
			remove(tmp);
		}
		rc = FK_ERR_IO;
		goto out;
	}
	um = umask(0); /* mkstemp makes 0600: give the mode fopen would */
	umask(um);
	fchmod(fd, 0666 & ~um);
	for (size_t i = 0; i < k; i++) {
		fwrite(v[i]->key, 1, v[i]->klen, f);
		fprintf(f, "->%s\n", v[i]->val);
	}
	if (ferror(f)) {
		fclose(f);
		errno = EIO;
		f = NULL;
	}
	if (!f || fclose(f) != 0 || rename(tmp, path) != 0) {
		h->log(FK_LOG_ERROR, "cannot write %s: %s", path, strerror(errno));
		remove(tmp);
		rc = FK_ERR_IO;
	}
out:
	h->free(v);
	h->free(tmp);
	return rc;
}

/* ---- options -------------------------------------------------------------- */

static int font_ok(const char *s)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      *s == ' ' || *s == '-' || *s == '_' || *s == ',' || *s == '\''))
			return 0;
	return 1;
}

static int colour_ok(const char *s)
{
	size_t n = strlen(s);
	if (n == 7 && s[0] == '#' && strspn(s + 1, "0123456789abcdefABCDEF") == 6)
		return 1;
	if (n >= 10 && n < 24 && strncmp(s, "rgb(", 4) == 0 && s[n - 1] == ')' &&
	    strspn(s + 4, "0123456789,") == n - 5)
		return 1;
	return 0;
}

static int minwidth_parse(const char *s, double *v, int *pct)
{
	char *end;
	errno = 0;
	*v = strtod(s, &end);
	*pct = 0;
	if (end == s || errno || !isfinite(*v) || *v < 0)
		return -1;
	if (*end == '%') {
		*pct = 1;
		end++;
	}
	return *end ? -1 : 0;
}

int svg_check(const struct fk_host *h, const void *opts, const char *where)
{
	(void)where;
	return svg_check_opts(h, opts);
}

int svg_check_opts(const struct fk_host *h, const struct svg_opts *o)
{
	double v;
	int pct;

	if (!pal_known(o->colors)) {
		h->log(FK_LOG_ERROR, "unknown palette \"%s\" (--colors: hot mem io wakeup chain java js perl "
		       "red green blue aqua yellow purple orange)", o->colors);
		return FK_ERR_USAGE;
	}
	if (o->bgcolors && strcmp(o->bgcolors, "yellow") && strcmp(o->bgcolors, "blue") &&
	    strcmp(o->bgcolors, "green") && strcmp(o->bgcolors, "grey") &&
	    !(o->bgcolors[0] == '#' && colour_ok(o->bgcolors))) {
		h->log(FK_LOG_ERROR, "unknown background \"%s\" (--bgcolors: yellow blue green grey or #rrggbb)",
		       o->bgcolors);
		return FK_ERR_USAGE;
	}
	if (o->width < 20 + 1 || o->width > 10000000) {
		h->log(FK_LOG_ERROR, "--width must be from 21 to 10000000 pixels, not %lld", o->width);
		return FK_ERR_USAGE;
	}
	if (o->height < 1 || o->height > 10000) {
		h->log(FK_LOG_ERROR, "--height must be from 1 to 10000 pixels, not %lld", o->height);
		return FK_ERR_USAGE;
	}
	if (!(o->fontsize > 0 && o->fontsize < 1000) || !(o->fontwidth > 0 && o->fontwidth < 100)) {
		h->log(FK_LOG_ERROR, "--fontsize and --fontwidth must be positive");
		return FK_ERR_USAGE;
	}
	if (minwidth_parse(o->minwidth, &v, &pct) < 0) {
		h->log(FK_LOG_ERROR, "--minwidth takes pixels or a percentage (0.1, 5%%), not \"%s\"", o->minwidth);
		return FK_ERR_USAGE;
	}
	if (!font_ok(o->fonttype)) {
		h->log(FK_LOG_ERROR, "--fonttype takes font names (letters, digits, spaces, - _ , '), not \"%s\"",
		       o->fonttype);
		return FK_ERR_USAGE;
	}
	if (!colour_ok(o->searchcolor)) {
		h->log(FK_LOG_ERROR, "--searchcolor takes #rrggbb or rgb(r,g,b), not \"%s\"", o->searchcolor);
		return FK_ERR_USAGE;
	}
	if (o->encoding && (!*o->encoding || strspn(o->encoding, "abcdefghijklmnopqrstuvwxyz"
	                                                           "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != strlen(o->encoding))) {
		h->log(FK_LOG_ERROR, "--encoding takes an encoding name, not \"%s\"", o->encoding);
		return FK_ERR_USAGE;
	}
	if (!(o->factor > 0) || o->total < 0) {
		h->log(FK_LOG_ERROR, "--factor must be positive and --total not negative");
		return FK_ERR_USAGE;
	}
	return 0;
}

double svg_minwidth_time(const struct svg_opts *o, double timemax)
{
	double v = 0.1;
	int pct = 0;

	minwidth_parse(o->minwidth, &v, &pct);
	if (pct)
		return timemax * v / 100;
	return v / (((double)o->width - 2 * XPAD) / timemax);
}

/* ---- the document ---------------------------------------------------------- */

static void bg_colours(const struct svg_opts *o, const char **c1, const char **c2)
{
	const char *bg = o->bgcolors;

	if (!bg) {
		if (strcmp(o->colors, "mem") == 0)
			bg = "green";
		else if (!strcmp(o->colors, "io") || !strcmp(o->colors, "wakeup") || !strcmp(o->colors, "chain"))
			bg = "blue";
		else if (!strcmp(o->colors, "red") || !strcmp(o->colors, "green") || !strcmp(o->colors, "blue") ||
		         !strcmp(o->colors, "aqua") || !strcmp(o->colors, "yellow") ||
		         !strcmp(o->colors, "purple") || !strcmp(o->colors, "orange"))
			bg = "grey";
		else
			bg = "yellow";
	}
	if (!strcmp(bg, "yellow"))
		*c1 = "#eeeeee", *c2 = "#eeeeb0";
	else if (!strcmp(bg, "blue"))
		*c1 = "#eeeeee", *c2 = "#e0e0ff";
	else if (!strcmp(bg, "green"))
		*c1 = "#eef2ee", *c2 = "#e0ffe0";
	else if (!strcmp(bg, "grey"))
		*c1 = "#f8f8f8", *c2 = "#e8e8e8";
	else
		*c1 = *c2 = bg;
}

/* "1234567" -> "1,234,567" (perlfaq5's commify). */
static void commify(const char *in, char *out)
{
	size_t n = strlen(in), lead = in[0] == '-' || in[0] == '+', digits = n - lead, k = 0;

	if (lead)
		out[k++] = in[0];
	for (size_t i = 0; i < digits; i++) {
		if (i && (digits - i) % 3 == 0 && strspn(in + lead, "0123456789") == digits)
			out[k++] = ',';
		out[k++] = in[lead + i];
	}
	out[k] = '\0';
}

/* Strip flamegraph.pl's annotation suffix, s/_\[[kwij]\]$//. */
static size_t strip_annot(const char *s, size_t n)
{
	if (n >= 4 && s[n - 4] == '_' && s[n - 3] == '[' && s[n - 1] == ']' &&
	    (s[n - 2] == 'k' || s[n - 2] == 'w' || s[n - 2] == 'i' || s[n - 2] == 'j'))
		return n - 4;
	return n;
}

static void put_text(struct ob *o, const char *id, double x, double y, const char *s, const char *extra)
{
	if (id)
		putf(o, "<text id=\"%s\" x=\"%0.2f\" y=\"", id, x);
	else
		putf(o, "<text  x=\"%0.2f\" y=\"", x);
	put_num(o, y);
	putf(o, "\" %s>", extra ? extra : "");
	put_xmls(o, s);
	puts_(o, "</text>\n");
}

/* The label: as many characters as fit, the last two replaced by "..". */
static void put_label(struct ob *o, const char *s, size_t n, double width, const struct svg_opts *op)
{
	double c = width / (op->fontsize * op->fontwidth);
	long chars = c > 1e9 ? 1000000000L : (long)c;
	size_t total = 0, i = 0, cut = 0, keep;
	const unsigned char *u = (const unsigned char *)s;

	if (chars < 3)
		return;
	while (i < n) {
		int32_t cp;
		i += pal_utf8(u + i, n - i, &cp);
		total++;
	}
	if ((size_t)chars >= total) {
		put_xml(o, s, n);
		return;
	}
	keep = (size_t)chars - 2;
	for (size_t k = 0; k < keep; k++) {
		int32_t cp;
		cut += pal_utf8(u + cut, n - cut, &cp);
	}
	put_xml(o, s, cut);
	put(o, "..", 2);
}

static void frame_name(const struct svg_doc *d, const struct svg_frame *f, const char **name, size_t *len)
{
	if (f->flags & SF_LABEL) {
		*name = f->label;
		*len = f->label_len;
	} else if (f->frame == FK_FRAME_NONE) {
		*name = "";
		*len = 0;
	} else {
		*name = d->h->frame_name(d->p, f->frame, len);
	}
}

static void frame_fill(const struct svg_doc *d, const struct svg_frame *f, const char *name, size_t len,
                       struct pal_rand *rnd, struct smap *cp, char fill[32])
{
	const struct svg_opts *o = d->o;
	const char *fc = NULL;

	if (len == 2 && memcmp(name, "--", 2) == 0) {
		strcpy(fill, "rgb(160,160,160)");
		return;
	}
	if (len == 1 && name[0] == '-') {
		strcpy(fill, "rgb(200,200,200)");
		return;
	}
	if (d->differential && (f->flags & SF_DELTA)) {
		pal_scale(f->delta, d->maxdelta, o->negate, fill);
		return;
	}
	if (f->frame != FK_FRAME_NONE && d->h->frame_colour)
		fc = d->h->frame_colour(d->p, f->frame);
	if (fc && colour_ok(fc)) {
		snprintf(fill, 32, "%s", fc);
		return;
	}
	if (fc && pal_known(fc)) {
		pal_colour(fc, o->hash, o->random ? rnd : NULL, name, len, fill);
		return;
	}
	if (f->palette) {
		pal_colour(f->palette, o->hash, o->random ? rnd : NULL, name, len, fill);
		return;
	}
	if (cp) {
		struct smap_ent *e = smap_find(cp, name, len);
		if (e && strlen(e->val) < 32 && colour_ok(e->val)) {
			strcpy(fill, e->val);
			return;
		}
		pal_colour(o->colors, o->hash, o->random ? rnd : NULL, name, len, fill);
		char *v = sdup(d->h, fill, strlen(fill));
		if (v && smap_put(cp, name, len, v) == 0)
			cp->dirty = 1;
		return;
	}
	pal_colour(o->colors, o->hash, o->random ? rnd : NULL, name, len, fill);
}

static void put_axis(struct ob *ob, const struct svg_doc *d, double wpt, double y)
{
	const struct svg_axis *a = d->axis;
	double span = d->timemax / a->unit, step = 1e-9, x;
	static const double mult[] = { 1, 2, 5 };
	int k = 0;

	/* about 10 ticks, on 1-2-5 steps of seconds */
	while (span / step > 10) {
		step = step / mult[k] * mult[(k + 1) % 3] * (k == 2 ? 10 : 1);
		k = (k + 1) % 3;
	}
	putf(ob, "<g id=\"axis\">\n");
	for (double t = 0; t <= span + step / 1e6; t += step) {
		char lab[64];
		x = XPAD + t * a->unit * wpt;
		putf(ob, "<line x1=\"%0.2f\" y1=\"", x);
		put_num(ob, y - d->o->fontsize);
		putf(ob, "\" x2=\"%0.2f\" y2=\"", x);
		put_num(ob, y - d->o->fontsize + 4);
		puts_(ob, "\" stroke=\"rgb(0,0,0)\" stroke-width=\"0.5\" />\n");
		snprintf(lab, sizeof lab, "%.9gs", (a->origin / a->unit) + t);
		put_text(ob, NULL, x, y + 2, lab, "text-anchor=\"middle\" class=\"tick\"");
	}
	puts_(ob, "</g>\n");
}

int svg_write(const struct svg_doc *d, const struct svg_frame *v, size_t n)
{
	const struct svg_opts *o = d->o;
	const struct fk_host *h = d->h;
	struct ob *ob = h->alloc(sizeof *ob);
	struct smap attrs = { h, NULL, 0, 0, 0 }, cpmap = { h, NULL, 0, 0, 0 };
	struct pal_rand rnd;
	double fs = o->fontsize, fh = (double)o->height;
	double ypad1 = fs * 3, ypad2 = fs * 2 + 10, ypad3 = fs * 2, axispad = d->axis ? fs * 2 : 0;
	double W = (double)o->width, H, wpt, minw, timemax = d->timemax;
	const char *title = o->title && *o->title ? o->title : d->default_title;
	const char *bg1, *bg2;
	uint32_t maxrow = 0;
	int any = 0, rc = 0;

	if (!ob)
		return FK_ERR_NOMEM;
	ob->h = h;
	ob->w = d->w;
	ob->len = 0;
	ob->rc = 0;
	pal_srand(&rnd, (uint32_t)o->seed);
	if (o->nameattr && (rc = load_nameattr(h, o->nameattr, &attrs)) < 0)
		goto out;
	if (o->cp && (rc = load_palette(h, o->palette_file, &cpmap)) < 0)
		goto out;

	if (!(timemax > 0)) {
		/* flamegraph.pl's error graph, for tools that always expect an SVG */
		H = fs * 5;
		puts_(ob, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		          "<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" "
		          "\"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n");
		putf(ob, "<svg version=\"1.1\" width=\"%lld\" height=\"", o->width);
		put_num(ob, H);
		putf(ob, "\" viewBox=\"0 0 %lld ", o->width);
		put_num(ob, H);
		puts_(ob, "\" xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\">\n");
		put_text(ob, NULL, (double)(o->width / 2), fs * 2,
		         "ERROR: No valid input provided to flamegraph.pl.", "text-anchor=\"middle\"");
		puts_(ob, "</svg>\n");
		ob_flush(ob);
		rc = ob->rc;
		if (rc == 0) {
			h->log(FK_LOG_ERROR, "no stack counts found");
			rc = FK_ERR_DATA;
		}
		goto out;
	}
	wpt = (W - 2 * XPAD) / timemax;
	minw = svg_minwidth_time(o, timemax);
	for (size_t i = 0; i < n; i++) {
		if (v[i].etime - v[i].stime < minw)
			continue;
		any = 1;
		if (v[i].row > maxrow)
			maxrow = v[i].row;
	}
	(void)any;
	H = (maxrow + 1) * fh + ypad1 + ypad2 + axispad;
	if (o->subtitle && *o->subtitle)
		H += ypad3;
	bg_colours(o, &bg1, &bg2);

	puts_(ob, "<?xml version=\"1.0\"");
	if (o->encoding)
		putf(ob, " encoding=\"%s\"", o->encoding);
	puts_(ob, " standalone=\"no\"?>\n<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" "
	          "\"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n");
	putf(ob, "<svg version=\"1.1\" width=\"%lld\" height=\"", o->width);
	put_num(ob, H);
	putf(ob, "\" onload=\"init(evt)\" viewBox=\"0 0 %lld ", o->width);
	put_num(ob, H);
	puts_(ob, "\" xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\">\n"
	          "<!-- Flame graph drawn by flamekit; interactive: click to zoom, Ctrl-F to search. -->\n");
	puts_(ob, "<!-- NOTES: ");
	if (o->notes) {
		/* "--" may not occur inside a comment */
		const char *s = o->notes;
		size_t len = strlen(s), start = 0;
		for (size_t i = 0; i < len; i++) {
			if (s[i] == '-' && (i + 1 == len || s[i + 1] == '-')) {
				put_xml(ob, s + start, i - start);
				puts_(ob, "&#45;");
				start = i + 1;
			}
		}
		put_xml(ob, s + start, len - start);
	}
	puts_(ob, " -->\n");
	putf(ob, "<defs>\n\t<linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\" >\n"
	         "\t\t<stop stop-color=\"%s\" offset=\"5%%\" />\n"
	         "\t\t<stop stop-color=\"%s\" offset=\"95%%\" />\n"
	         "\t</linearGradient>\n</defs>\n", bg1, bg2);
	puts_(ob, "<style type=\"text/css\">\n\ttext { font-family:");
	put_xmls(ob, o->fonttype);
	puts_(ob, "; font-size:");
	put_num(ob, fs);
	puts_(ob, "px; fill:rgb(0,0,0); }\n"
	          "\t#search, #ignorecase { opacity:0.1; cursor:pointer; }\n"
	          "\t#search:hover, #search.show, #ignorecase:hover, #ignorecase.show { opacity:1; }\n"
	          "\t#subtitle { text-anchor:middle; fill:rgb(160,160,160); }\n"
	          "\t#title { text-anchor:middle; font-size:");
	put_num(ob, fs + 5);
	puts_(ob, "px}\n"
	          "\t#unzoom { cursor:pointer; }\n"
	          "\t#frames > *:hover { stroke:black; stroke-width:0.5; cursor:pointer; }\n"
	          "\t.hide { display:none; }\n"
	          "\t.parent { opacity:0.5; }\n"
	          "</style>\n<script type=\"text/ecmascript\">\n<![CDATA[\n");
	puts_(ob, svg_script);
	puts_(ob, "var FK_NAMETYPE = ");
	put_js_string(ob, o->nametype);
	puts_(ob, ";\nvar FK_FONTSIZE = ");
	put_num(ob, fs);
	puts_(ob, ", FK_FONTWIDTH = ");
	put_num(ob, o->fontwidth);
	putf(ob, ", FK_XPAD = 10, FK_INVERTED = %d;\nvar FK_SEARCHCOLOR = ", o->inverted ? 1 : 0);
	put_js_string(ob, o->searchcolor);
	puts_(ob, ";\n]]>\n</script>\n");
	puts_(ob, "<rect x=\"0.0\" y=\"0\" width=\"");
	putf(ob, "%0.1f\" height=\"%0.1f\" fill=\"url(#background)\"  />\n", W, H);
	put_text(ob, "title", (double)(o->width / 2), fs * 2, title, NULL);
	if (o->subtitle && *o->subtitle)
		put_text(ob, "subtitle", (double)(o->width / 2), fs * 4, o->subtitle, NULL);
	put_text(ob, "details", XPAD, H - axispad - ypad2 / 2, " ", NULL);
	put_text(ob, "unzoom", XPAD, fs * 2, "Reset Zoom", "class=\"hide\"");
	put_text(ob, "search", W - XPAD - 100, fs * 2, "Search", NULL);
	put_text(ob, "ignorecase", W - XPAD - 16, fs * 2, "ic", NULL);
	put_text(ob, "matched", W - XPAD - 100, H - axispad - ypad2 / 2, " ", NULL);
	puts_(ob, "<g id=\"frames\">\n");

	for (size_t i = 0; i < n && ob->rc == 0; i++) {
		const struct svg_frame *f = &v[i];
		const char *name, *kv = NULL, *t;
		size_t len, dlen;
		double x1, x2, y1, y2, w;
		char x1s[64], x2s[64], fill[32], samples[64], stxt[96], info[160];
		int root = f->frame == FK_FRAME_NONE && !(f->flags & SF_LABEL);

		if (f->etime - f->stime < minw)
			continue;
		frame_name(d, f, &name, &len);
		dlen = (f->flags & SF_LABEL) ? len : strip_annot(name, len);
		x1 = XPAD + f->stime * wpt;
		x2 = XPAD + f->etime * wpt;
		if (!o->inverted) {
			y1 = H - axispad - ypad2 - (f->row + 1) * fh + FRAMEPAD;
			y2 = H - axispad - ypad2 - f->row * fh;
		} else {
			double top = ypad1 + (o->subtitle && *o->subtitle ? ypad3 : 0);
			y1 = top + f->row * fh;
			y2 = top + (f->row + 1) * fh - FRAMEPAD;
		}
		snprintf(samples, sizeof samples, "%.0f", (f->etime - f->stime) * o->factor);
		commify(samples, stxt);
		if (attrs.v && !root) {
			struct smap_ent *e = smap_find(&attrs, name, len);
			kv = e ? e->val : NULL;
		}
		t = attr_get(kv, "href");
		if (t && !href_ok(t))
			t = NULL;
		if (t) {
			const char *tg = attr_get(kv, "target");
			puts_(ob, "<a xlink:href=\"");
			put_xmls(ob, t);
			puts_(ob, "\" target=\"");
			put_xmls(ob, tg && *tg ? tg : "_top");
			puts_(ob, "\"");
			put_extra(ob, attr_get(kv, "a_extra"));
		} else {
			puts_(ob, "<g ");
		}
		if ((t = attr_get(kv, "id")) != NULL) {
			puts_(ob, " id=\"");
			put_xmls(ob, t);
			puts_(ob, "\"");
		}
		if ((t = attr_get(kv, "class")) != NULL) {
			puts_(ob, " class=\"");
			put_xmls(ob, t);
			puts_(ob, "\"");
		}
		put_extra(ob, attr_get(kv, "g_extra"));
		puts_(ob, ">\n<title>");
		if ((t = attr_get(kv, "title")) != NULL && *t) {
			put_xmls(ob, t);
		} else if (root) {
			putf(ob, "all (%s ", stxt);
			put_xmls(ob, o->countname);
			puts_(ob, ", 100%)");
		} else {
			put_xml(ob, name, dlen);
			snprintf(info, sizeof info, " (%s ", stxt);
			puts_(ob, info);
			put_xmls(ob, o->countname);
			if (d->differential && (f->flags & SF_DELTA)) {
				double dd = o->negate ? -f->delta : f->delta;
				char dp[64];
				if (dd == 0)
					dd = 0; /* "0.00", never "-0.00" */
				snprintf(dp, sizeof dp, "%.2f", 100 * dd / (timemax * o->factor));
				snprintf(info, sizeof info, ", %.2f%%; %s%s%%)",
				         100 * strtod(samples, NULL) / (timemax * o->factor), dd > 0 ? "+" : "", dp);
			} else {
				snprintf(info, sizeof info, ", %.2f%%)",
				         100 * strtod(samples, NULL) / (timemax * o->factor));
			}
			puts_(ob, info);
		}
		puts_(ob, "</title>");
		frame_fill(d, f, root ? "" : name, root ? 0 : len, &rnd, o->cp ? &cpmap : NULL, fill);
		snprintf(x1s, sizeof x1s, "%0.1f", x1);
		snprintf(x2s, sizeof x2s, "%0.1f", x2);
		w = strtod(x2s, NULL) - strtod(x1s, NULL);
		putf(ob, "<rect x=\"%s\" y=\"", x1s);
		put_num(ob, y1);
		putf(ob, "\" width=\"%0.1f\" height=\"%0.1f\" fill=\"%s\" rx=\"2\" ry=\"2\" />\n", w, y2 - y1, fill);
		putf(ob, "<text  x=\"%0.2f\" y=\"", x1 + 3);
		put_num(ob, 3 + (y1 + y2) / 2);
		puts_(ob, "\" >");
		if (!root)
			put_label(ob, name, dlen, x2 - x1, o);
		puts_(ob, "</text>\n");
		puts_(ob, kv && attr_get(kv, "href") && href_ok(attr_get(kv, "href")) ? "</a>\n" : "</g>\n");
	}
	puts_(ob, "</g>\n");
	if (d->axis)
		put_axis(ob, d, wpt, H - fs);
	puts_(ob, "</svg>\n");
	ob_flush(ob);
	rc = ob->rc;
	if (rc == 0 && o->cp)
		rc = save_palette(h, o->palette_file, &cpmap);
out:
	smap_free(&attrs);
	smap_free(&cpmap);
	h->free(ob);
	return rc;
}
