/*
 * Local symbolization of a pprof profile (localsym.h), as go tool pprof's
 * -symbolize=local does it (pprof's internal/symbolizer and
 * internal/driver/fetch.go, locateBinaries):
 *
 * - a mapping is symbolized when a location uses it, its profile says it
 *   has no functions, file names or line numbers, and its file is named and
 *   not one pprof calls unsymbolizable ("[vdso]" and other "[...]" names,
 *   "linux-vdso*", "/dev/dri/...") or an http URL without a build id;
 * - its binary is searched in PPROF_BINARY_PATH's directories (default
 *   $HOME/pprof/binaries), in pprof's order: DIR/BUILDID/BASENAME,
 *   DIR/BUILDID/ANY (sorted), DIR/FILE/BUILDID (perf's layout) when the
 *   mapping has a build id; DIR/BASENAME, DIR/FILE.  A candidate is used
 *   when its build id is the mapping's (or the mapping has none); else the
 *   mapping's own file, when it is an absolute path, unless it carries
 *   another build id than the mapping's;
 * - an address is looked up at its file offset, address - memory_start +
 *   file_offset (libfksym turns it into an ELF address through the
 *   program headers, as pprof's base computation does), only inside
 *   [memory_start, memory_limit).
 *
 * Files are opened read-only, never through a symbolic link another user
 * planted (fk_sym_open_guarded), and never executed.  A file that cannot
 * be used is reported once, naming it; its locations keep the names
 * pprof gives unsymbolized locations.
 */
#define _GNU_SOURCE /* asprintf */
#include <errno.h>
#include <glob.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "localsym.h"

#define MAXBID 64
#define MAX_REPORTS 16   /* files named in messages; the rest counted */
#define MAX_FILES 1024   /* binaries read for one profile */

enum { UNTRIED, UNUSED, USED };

struct mstate {
	int state;
	struct fk_dso *dso;
};

struct psym {
	const struct fk_host *h;
	struct fk_input *in;
	const struct fk_pprof_data *p;
	struct fk_symbolizer *s;
	struct mstate *m;        /* per mapping */
	size_t *seen;            /* (filename, build id) -> mapping index + 1, open addressing */
	size_t seen_mask;
	char *path;              /* the search path */
	size_t reports, unsaid;
	/* the binaries read: one dso per file, however many names reach it */
	struct file { dev_t dev; ino_t ino; size_t nb; unsigned char bid[MAXBID]; struct fk_dso *dso; } *files;
	size_t nfiles;
};

static const char *str(const struct fk_pprof_data *p, int64_t k)
{
	return k >= 0 && (uint64_t)k < p->n_string_table ? p->string_table[k] : "";
}

int psym_new(const struct fk_host *h, struct fk_input *in, const struct fk_pprof_data *p,
             const char *binary_path, int inline_frames, struct psym **out)
{
	struct fk_sym_config cfg = { .demangle = 1, .inline_frames = inline_frames, .guard_links = 1 };
	struct psym *ps = h->alloc(sizeof *ps);
	size_t cap = 16;
	const char *home = getenv("HOME");
	int rc = 0;

	*out = NULL;
	if (!ps)
		return FK_ERR_NOMEM;
	memset(ps, 0, sizeof *ps);
	ps->h = h;
	ps->in = in;
	ps->p = p;
	while (cap < 2 * p->n_mapping)
		cap *= 2;
	ps->seen_mask = cap - 1;
	if (!binary_path)
		binary_path = getenv("PPROF_BINARY_PATH");
	if (binary_path && *binary_path)
		ps->path = strdup(binary_path);
	else if (asprintf(&ps->path, "%s/pprof/binaries", home ? home : "") < 0)
		ps->path = NULL;
	if (!ps->path || !(ps->m = h->alloc((p->n_mapping ? p->n_mapping : 1) * sizeof *ps->m)) ||
	    !(ps->seen = h->alloc(cap * sizeof *ps->seen)) || !(ps->s = fk_symbolizer_new(&cfg, h)) ||
	    !(ps->files = h->alloc(MAX_FILES * sizeof *ps->files))) {
		rc = FK_ERR_NOMEM;
		goto out;
	}
	memset(ps->m, 0, (p->n_mapping ? p->n_mapping : 1) * sizeof *ps->m);
	memset(ps->seen, 0, cap * sizeof *ps->seen);
out:
	if (rc < 0)
		psym_free(ps);
	else
		*out = ps;
	return rc;
}

/* What pprof's Mapping.Unsymbolizable says, and a source URL. */
static int skipped(const char *file, const char *hex)
{
	const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
	const char *colon = strstr(file, "://");

	if (base[0] == '[' || !strncmp(base, "linux-vdso", 10) || !strncmp(file, "/dev/dri/", 9))
		return 1;
	if (!*hex && colon) {
		for (const char *c = file; c < colon; c++)
			if ((c[0] == 'h' || c[0] == 'H') && !strncasecmp(c, "http", 4) && c + 4 <= colon)
				return 1;
	}
	return 0;
}

static void report(struct psym *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void report(struct psym *ps, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;

	if (ps->reports >= MAX_REPORTS) {
		ps->unsaid++;
		return;
	}
	ps->reports++;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	ps->h->log(FK_LOG_WARN, "%s: %s", ps->h->input_name(ps->in), buf);
}

static void hex_of(char *out, const unsigned char *b, int n)
{
	for (int i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
	out[n > 0 ? 2 * n : 0] = '\0';
}

/* Bytes of a hex build id; 0 when it is not hex. */
static size_t parse_hex(const char *hex, unsigned char *out)
{
	size_t n = strlen(hex);

	if (n == 0 || n % 2 || n / 2 > MAXBID || strspn(hex, "0123456789abcdefABCDEF") != n)
		return 0;
	for (size_t i = 0; i < n / 2; i++) {
		unsigned v;
		sscanf(hex + 2 * i, "%2x", &v);
		out[i] = (unsigned char)v;
	}
	return n / 2;
}

/* The first usable candidate of one search directory, malloc'd, or NULL. */
static char *search_dir(struct psym *ps, const char *dir, const char *file, const char *hex)
{
	const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
	char *own[4] = { NULL, NULL, NULL, NULL }, *pat = NULL, *found = NULL;
	const char **names = NULL;
	glob_t g = { 0 };
	size_t n = 0, k = 0;
	int globbed = 0;

	/* pprof's order: DIR/BUILDID/BASE, DIR/BUILDID/ANY sorted, DIR/FILE/BUILDID,
	 * DIR/BASE, DIR/FILE */
	if (*hex) {
		if (asprintf(&own[k], "%s/%s/%s", dir, hex, base) >= 0)
			k++;
		/* a pattern only of a hex build id: the profile chooses the id,
		 * and "* / * / *" would walk the file system */
		if (strspn(hex, "0123456789abcdefABCDEF") == strlen(hex) &&
		    asprintf(&pat, "%s/%s/*", dir, hex) >= 0 && glob(pat, 0, NULL, &g) == 0)
			globbed = 1;
		if (asprintf(&own[k], "%s/%s/%s", dir, file, hex) >= 0)
			k++;
	}
	if (*base && asprintf(&own[k], "%s/%s", dir, base) >= 0)
		k++;
	if (asprintf(&own[k], "%s/%s", dir, file) >= 0)
		k++;
	if (!(names = malloc((k + (globbed ? g.gl_pathc : 0)) * sizeof *names)))
		goto out;
	for (size_t i = 0; i < k; i++) {
		names[n++] = own[i];
		for (size_t j = 0; i == 0 && *hex && globbed && j < g.gl_pathc; j++)
			names[n++] = g.gl_pathv[j];
	}
	for (size_t i = 0; i < n && !found; i++) {
		unsigned char bid[MAXBID];
		char got[2 * MAXBID + 1];
		long uid;
		int r = fk_sym_file_build_id(names[i], 1, bid, sizeof bid, &uid);
		if (r < 0)
			continue; /* pprof tries the next name without a word */
		hex_of(got, bid, r);
		if (*hex && strcmp(got, hex) != 0) {
			report(ps, "%s: build id %s differs from the profile's %s: not used", names[i],
			       r ? got : "(none)", hex);
			continue;
		}
		found = strdup(names[i]);
	}
out:
	free(names);
	for (size_t i = 0; i < k; i++)
		free(own[i]);
	if (globbed)
		globfree(&g);
	free(pat);
	return found;
}

/* The binary of mapping m: its path (malloc'd) and the build id to check
 * it against (*nb bytes of bid, 0: none), or NULL (reported). */
static char *locate(struct psym *ps, const struct fk_pprof_map *m, unsigned char *bid, size_t *nb)
{
	const char *file = str(ps->p, m->filename), *hex = str(ps->p, m->build_id);
	char *dirs = strdup(ps->path), *save = NULL, *found = NULL;
	unsigned char own[MAXBID];
	char got[2 * MAXBID + 1];
	long uid;
	int k;

	*nb = 0;
	for (char *d = dirs ? strtok_r(dirs, ":", &save) : NULL; d && !found; d = strtok_r(NULL, ":", &save))
		found = search_dir(ps, d, file, hex);
	free(dirs);
	if (found) {
		*nb = parse_hex(hex, bid);
		return found;
	}
	if (file[0] != '/') {
		report(ps, "%s: not an absolute path, and not found in %s: its locations stay unsymbolized",
		       file, ps->path);
		return NULL;
	}
	k = fk_sym_file_build_id(file, 1, own, sizeof own, &uid);
	if (k == -EACCES && uid >= 0) {
		report(ps, "%s: not followed: a symbolic link on its path is owned by uid %ld, in a sticky "
		       "world-writable directory of another user; its locations stay unsymbolized", file, uid);
		return NULL;
	}
	if (k < 0) {
		report(ps, "%s: cannot read: %s; its locations stay unsymbolized", file,
		       k == -ENOEXEC ? "not an ELF file" : k == -EISDIR ? "not a regular file" : strerror(-k));
		return NULL;
	}
	hex_of(got, own, k);
	/* pprof's own rule for the mapped file: a mismatch only when both
	 * have a build id */
	if (*hex && k && strcmp(got, hex) != 0) {
		report(ps, "%s: build id %s differs from the profile's %s: not used; its locations stay "
		       "unsymbolized", file, got, hex);
		return NULL;
	}
	if (k)
		*nb = parse_hex(hex, bid);
	return strdup(file);
}

/* The dso of the file at path: the one already read when another name
 * reached the same file (a profile may spell one path many ways), at most
 * MAX_FILES of them.  NULL: not read (reported). */
static struct fk_dso *file_dso(struct psym *ps, const char *path, const unsigned char *bid, size_t nb)
{
	struct stat sb;
	struct file *f;

	if (stat(path, &sb) < 0)
		return NULL;
	for (size_t i = 0; i < ps->nfiles; i++) {
		f = &ps->files[i];
		if (f->dev == sb.st_dev && f->ino == sb.st_ino && f->nb == nb && !memcmp(f->bid, bid, nb))
			return f->dso;
	}
	if (ps->nfiles == MAX_FILES) {
		report(ps, "%s: not read: the profile names more than %d binaries; its locations stay "
		       "unsymbolized", path, MAX_FILES);
		return NULL;
	}
	f = &ps->files[ps->nfiles++];
	f->dev = sb.st_dev;
	f->ino = sb.st_ino;
	f->nb = nb;
	memcpy(f->bid, bid, nb);
	f->dso = fk_sym_dso(ps->s, path, nb ? bid : NULL, nb);
	return f->dso;
}

static size_t key_hash(const struct fk_pprof_map *m)
{
	uint64_t x = ((uint64_t)m->filename * 0x9e3779b97f4a7c15ull) ^ (uint64_t)m->build_id;
	return (size_t)(x ^ (x >> 31));
}

/* Mapping mi's dso, found once per (file, build id). */
static int resolve(struct psym *ps, size_t mi)
{
	const struct fk_pprof_map *m = &ps->p->mapping[mi];
	struct mstate *st = &ps->m[mi];
	unsigned char bid[MAXBID];
	size_t k = key_hash(m) & ps->seen_mask, nb;
	char *path;

	st->state = UNUSED;
	if (!*str(ps->p, m->filename) || m->has_symbols ||
	    skipped(str(ps->p, m->filename), str(ps->p, m->build_id)))
		return 0;
	for (;; k = (k + 1) & ps->seen_mask) {
		size_t j = ps->seen[k];
		if (!j)
			break;
		if (ps->p->mapping[j - 1].filename == m->filename && ps->p->mapping[j - 1].build_id == m->build_id) {
			*st = ps->m[j - 1];
			return 0;
		}
	}
	ps->seen[k] = mi + 1;
	if (!(path = locate(ps, m, bid, &nb)))
		return 0;
	st->dso = file_dso(ps, path, bid, nb);
	free(path);
	st->state = st->dso ? USED : UNUSED;
	return 0;
}

int psym_lookup(struct psym *ps, size_t mi, uint64_t addr, struct fk_sym_result *res)
{
	const struct fk_pprof_map *m = &ps->p->mapping[mi];
	int rc;

	res->n = 0;
	if (ps->m[mi].state == UNTRIED && (rc = resolve(ps, mi)) < 0)
		return rc;
	if (ps->m[mi].state != USED)
		return 0;
	/* only inside the mapping, and where the file offset is a number */
	if (addr < m->memory_start || addr >= m->memory_limit ||
	    addr - m->memory_start > UINT64_MAX - m->file_offset)
		return 0;
	if (fk_sym_lookup(ps->m[mi].dso, addr - m->memory_start + m->file_offset, res) < 0)
		return FK_ERR_NOMEM;
	return 0;
}

void psym_free(struct psym *ps)
{
	if (!ps)
		return;
	if (ps->unsaid)
		ps->h->log(FK_LOG_WARN, "%s: %zu more binaries could not symbolize their locations",
		           ps->h->input_name(ps->in), ps->unsaid);
	fk_symbolizer_free(ps->s);
	ps->h->free(ps->m);
	ps->h->free(ps->seen);
	ps->h->free(ps->files);
	free(ps->path);
	ps->h->free(ps);
}
