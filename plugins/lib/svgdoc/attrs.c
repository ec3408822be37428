/*
 * The side files a graph reads: --nameattr (per-function attributes, whose
 * raw attribute text is re-emitted only as well-formed, escaped pairs and
 * never as an event handler or a script URL) and the --cp palette map.
 */
#include <errno.h>
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
 * line.  Values are stored as "key\0value\0key\0value\0\0".
 */
int svg_nameattr_load(const struct fk_host *h, const char *path, struct svg_smap *m)
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
		rc = svg_smap_put(m, line, (size_t)(tab - line), val);
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
void svg_put_extra(struct svg_out *o, const char *s)
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
			svg_put(o, " ", 1);
			svg_put(o, name, (size_t)(eq - name));
			svg_put(o, "=\"", 2);
			svg_put_xml(o, v, (size_t)(ve - v));
			svg_put(o, "\"", 1);
		}
		s = ve + 1;
	}
}

int svg_href_ok(const char *s)
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
