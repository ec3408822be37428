/* libfksym: the symbolizer, its DSO cache, its string pool and lookups. */
#define _GNU_SOURCE /* asprintf */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <gelf.h>
#include <libiberty/demangle.h>

#include "flamekit/plugin.h"
#include "internal.h"

/* Strings live in chunks that never move, so names stay valid. */
struct pool_chunk {
	struct pool_chunk *next;
	size_t used, cap;
	char data[];
};

const char *fk_sym_strdup(struct fk_symbolizer *s, const char *str, size_t len)
{
	struct pool_chunk *c = s->pool;
	char *p;

	if (!c || c->cap - c->used < len + 1) {
		size_t cap = len + 1 > 65536 ? len + 1 : 65536;

		c = malloc(sizeof(*c) + cap);
		if (!c) {
			s->oom = 1;
			return NULL;
		}
		c->next = s->pool;
		c->used = 0;
		c->cap = cap;
		s->pool = c;
	}
	p = c->data + c->used;
	memcpy(p, str, len);
	p[len] = '\0';
	c->used += len + 1;
	return p;
}

char *fk_sym_pool_slurp(struct fk_symbolizer *s, FILE *f, size_t *len)
{
	struct stat st;
	/* a file's size; else (/proc/kallsyms says 0) room for a large
	 * kallsyms at once: a block that big is mapped, so the pages the text
	 * does not fill are never touched, and none is copied as it grows */
	size_t cap = fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	                     (uint64_t)st.st_size < SIZE_MAX / 2
	             ? (size_t)st.st_size + 1
	             : (size_t)8 << 20,
	       n = 0, got;
	struct pool_chunk *c = malloc(sizeof(*c) + cap + 1), *bigger;

	while (c && (got = fread(c->data + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n < cap)
			continue;
		cap *= 2;
		if (!(bigger = realloc(c, sizeof(*c) + cap + 1)))
			free(c);
		c = bigger;
	}
	if (!c) {
		s->oom = 1;
		return NULL;
	}
	c->data[n] = '\0';
	c->used = c->cap = n + 1;
	/* behind the chunk strings are being taken from */
	if (s->pool) {
		c->next = s->pool->next;
		s->pool->next = c;
	} else {
		c->next = NULL;
		s->pool = c;
	}
	*len = n;
	return c->data;
}

/* As perf 6.1 built without libbfd: libiberty's cplus_demangle with no
 * options (no parameter lists; Rust legacy and v0 through libiberty's Rust
 * demangler, hash suffix dropped); kernel symbols are not demangled. */
const char *fk_sym_demangle(struct fk_symbolizer *s, const char *name, int kernel)
{
	char *dm;
	const char *r;

	if (!s->cfg.demangle || kernel)
		return fk_sym_strdup(s, name, strlen(name));
	dm = cplus_demangle(name, DMGL_NO_OPTS);
	if (!dm)
		return fk_sym_strdup(s, name, strlen(name));
	r = fk_sym_strdup(s, dm, strlen(dm));
	free(dm);
	return r;
}

/* Demangling 100,000 C++ names costs more than loading them (node: 250 ms
 * of 270): a symbol is demangled when a lookup first returns it, or when
 * choose_best_symbol must compare it. */
void fk_sym_demangle_late(struct fk_symbolizer *s, struct fk_sym *sym)
{
	char *dm;

	if (!sym->mangled)
		return;
	sym->mangled = 0;
	dm = cplus_demangle(sym->name, DMGL_NO_OPTS);
	if (dm) {
		const char *p = fk_sym_strdup(s, dm, strlen(dm));

		if (p)
			sym->name = p;
		free(dm);
	}
}

void fk_sym_log(struct fk_symbolizer *s, int level, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	if (!s->host || !s->host->log)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	s->host->log(level, "%s", buf);
}

void fk_hex(char *out, const unsigned char *bid, size_t len)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < len; i++) {
		out[2 * i] = digits[bid[i] >> 4];
		out[2 * i + 1] = digits[bid[i] & 15];
	}
	out[2 * len] = '\0';
}

static char *dup_or_null(const char *s, int *err)
{
	char *r;

	if (!s)
		return NULL;
	r = strdup(s);
	if (!r)
		*err = 1;
	return r;
}

struct fk_symbolizer *fk_symbolizer_new(const struct fk_sym_config *cfg, const struct fk_host *host)
{
	struct fk_symbolizer *s = calloc(1, sizeof(*s));
	int err = 0;

	if (!s)
		return NULL;
	elf_version(EV_CURRENT);
	if (cfg)
		s->cfg = *cfg;
	s->host = host;
	s->symfs = dup_or_null(s->cfg.symfs, &err);
	s->kallsyms = dup_or_null(s->cfg.kallsyms, &err);
	if (s->cfg.buildid_dir) {
		s->buildid_dir = dup_or_null(s->cfg.buildid_dir, &err);
	} else {
		const char *home = getenv("HOME");

		if (home && *home && asprintf(&s->buildid_dir, "%s/.debug", home) < 0) {
			s->buildid_dir = NULL;
			err = 1;
		}
	}
	s->cfg.symfs = s->symfs;
	s->cfg.kallsyms = s->kallsyms;
	s->cfg.buildid_dir = s->buildid_dir;
	s->cap = 64;
	s->dsos = calloc(s->cap, sizeof(*s->dsos));
	if (err || !s->dsos) {
		fk_symbolizer_free(s);
		return NULL;
	}
	return s;
}

static void dso_free(struct fk_dso *d)
{
	if (!d)
		return;
	free(d->modnames);
	free(d->kmod);
	fk_symtab_free(&d->syms);
	fk_dwarf_free(d);
	fk_a2l_free(d);
	free(d->segs);
	free(d->dwarf_path);
	free(d->key);
	free(d);
}

void fk_symbolizer_free(struct fk_symbolizer *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->cap && s->dsos; i++)
		dso_free(s->dsos[i]);
	free(s->dsos);
	while (s->pool) {
		struct pool_chunk *next = s->pool->next;

		free(s->pool);
		s->pool = next;
	}
	free(s->symfs);
	free(s->kallsyms);
	free(s->buildid_dir);
	free(s);
}

static size_t hash_str(const char *k)
{
	size_t h = 1469598103934665603u;

	while (*k)
		h = (h ^ (unsigned char)*k++) * 1099511628211u;
	return h;
}

static int grow(struct fk_symbolizer *s)
{
	size_t cap = s->cap * 2, i;
	struct fk_dso **v = calloc(cap, sizeof(*v));

	if (!v)
		return -1;
	for (i = 0; i < s->cap; i++) {
		size_t j;

		if (!s->dsos[i])
			continue;
		for (j = hash_str(s->dsos[i]->key) & (cap - 1); v[j]; j = (j + 1) & (cap - 1))
			;
		v[j] = s->dsos[i];
	}
	free(s->dsos);
	s->dsos = v;
	s->cap = cap;
	return 0;
}

/* The cached dso for key, or a new empty one inserted (*fresh set). */
static struct fk_dso *dso_get(struct fk_symbolizer *s, const char *key, enum fk_dso_kind kind, int *fresh)
{
	size_t j;
	struct fk_dso *d;

	*fresh = 0;
	for (j = hash_str(key) & (s->cap - 1); s->dsos[j]; j = (j + 1) & (s->cap - 1))
		if (strcmp(s->dsos[j]->key, key) == 0)
			return s->dsos[j];
	if ((s->ndsos + 1) * 2 > s->cap) {
		if (grow(s) < 0)
			return NULL;
		for (j = hash_str(key) & (s->cap - 1); s->dsos[j]; j = (j + 1) & (s->cap - 1))
			;
	}
	d = calloc(1, sizeof(*d));
	if (!d || !(d->key = strdup(key))) {
		free(d);
		return NULL;
	}
	d->s = s;
	d->kind = kind;
	d->dw_fd = -1;
	s->dsos[j] = d;
	s->ndsos++;
	*fresh = 1;
	return d;
}

/* Out of memory: a shared empty dso, so callers never get NULL. */
static struct fk_dso oom_dso = { .kind = FK_DSO_JIT, .name = "[unknown]", .dw_fd = -1 };

static struct fk_dso *make_key(struct fk_symbolizer *s, const char *kind, const char *path,
			       const unsigned char *bid, size_t bid_len, enum fk_dso_kind k, int *fresh)
{
	char hex[2 * 64 + 1], *key;
	struct fk_dso *d;

	if (bid_len > 64)
		bid_len = 64;
	fk_hex(hex, bid ? bid : (const unsigned char *)"", bid ? bid_len : 0);
	if (asprintf(&key, "%s:%s\n%s", kind, hex, path) < 0)
		return NULL;
	d = dso_get(s, key, k, fresh);
	free(key);
	return d;
}

/* The dso for kind and path, named path; oom_dso (never fresh) on failure. */
static struct fk_dso *named(struct fk_symbolizer *s, const char *kind, const char *path,
			    const unsigned char *bid, size_t bid_len, enum fk_dso_kind k, int *fresh)
{
	struct fk_dso *d = make_key(s, kind, path, bid, bid_len, k, fresh);

	if (!d) {
		*fresh = 0;
		return &oom_dso;
	}
	if (*fresh && !(d->name = fk_sym_strdup(s, path, strlen(path))))
		d->name = "[unknown]";
	return d;
}

struct fk_dso *fk_sym_dso(struct fk_symbolizer *s, const char *path, const unsigned char *build_id,
			  size_t build_id_len)
{
	int fresh;
	struct fk_dso *d = named(s, "f", path, build_id, build_id_len, FK_DSO_FILE, &fresh);

	if (fresh)
		fk_dso_load_file(d, path, build_id, build_id_len);
	return d;
}

struct fk_dso *fk_sym_kernel(struct fk_symbolizer *s, const unsigned char *build_id, size_t build_id_len)
{
	int fresh;
	struct fk_dso *d = make_key(s, "k", "[kernel.kallsyms]", build_id, build_id_len, FK_DSO_KERNEL, &fresh);

	if (!d)
		return &oom_dso;
	if (fresh) {
		d->name = "[kernel.kallsyms]";
		fk_dso_load_kernel(d, build_id, build_id_len);
	}
	return d;
}

struct fk_dso *fk_sym_jitmap(struct fk_symbolizer *s, int pid)
{
	char path[64];
	int fresh;
	struct fk_dso *d;

	snprintf(path, sizeof(path), "/tmp/perf-%d.map", pid);
	d = named(s, "j", path, NULL, 0, FK_DSO_JIT, &fresh);
	if (fresh)
		fk_dso_load_jitmap(d, pid);
	return d;
}

int fk_sym_lookup(struct fk_dso *d, uint64_t addr, struct fk_sym_result *out)
{
	const struct fk_sym *sym;

	out->dso_name = d->name;
	out->n = 0;
	if (d->kind == FK_DSO_KERNEL)
		return fk_kernel_lookup(d, addr, out);
	sym = fk_symtab_find(&d->syms, addr);
	if (!sym)
		return 0;
	fk_sym_demangle_late(d->s, (struct fk_sym *)sym);
	if (d->kind == FK_DSO_FILE && (d->s->cfg.inline_frames || d->s->cfg.srcline))
		return fk_dwarf_frames(d, addr, sym, out);
	out->n = 1;
	out->frames[0] = (struct fk_sym_frame){ .name = sym->name, .offset = addr - sym->start };
	return 0;
}
