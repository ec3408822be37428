/* Frame text through libfksym, cached: see symtext.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/symbolize/symbolize.h"
#include "symtext.h"

struct centry {
	uintptr_t dso;      /* 0: empty slot */
	uint64_t addr;
	uint32_t off, len;  /* the callchain lines ("\t" ADDR SYM " (" DSO ")\n" each) in the arena */
	uint32_t last, lastlen; /* the real function's " SYM (DSO)", within them */
	uint32_t lines;     /* the callchain lines */
};

struct pd_symtext {
	const struct fk_host *h;
	const struct pd_file *f;
	struct fk_symbolizer *sym;
	struct fk_dso *kernel;
	struct centry *tab;
	size_t ntab, used;
	char *arena;
	size_t alen, acap;
	int srcline;
};

#ifdef HAVE_LIBFKSYM
struct pd_symtext *pd_symtext_new(const struct fk_host *h, const struct pd_file *f,
                                  const struct pd_symtext_opts *o, const char **why)
{
	struct pd_symtext *st = calloc(1, sizeof *st);
	struct fk_sym_config cfg = { 0 };

	*why = NULL;
	if (!st)
		return NULL;
	st->h = h;
	st->f = f;
	st->srcline = o->srcline;
	cfg.symfs = o->symfs;
	cfg.kallsyms = o->kallsyms;
	cfg.inline_frames = o->inline_frames; /* perf script prints them with --inline,
	                                      * and on an unwound user stack's frames */
	cfg.srcline = o->srcline;
	cfg.demangle = o->demangle;
	cfg.dwarf_names = o->dwarf_names;
	/* the files a capture names (its maps, the build-id cache, debuglinks):
	 * another user's link in a sticky directory is not followed, a FIFO or
	 * a device is not opened (fk_sym_open_guarded) */
	cfg.guard_links = 1;
	if (!(st->sym = fk_symbolizer_new(&cfg, h)) ||
	    !(st->tab = calloc(st->ntab = 1 << 14, sizeof *st->tab))) {
		pd_symtext_free(st);
		return NULL;
	}
	return st;
}
#else
struct pd_symtext *pd_symtext_new(const struct fk_host *h, const struct pd_file *f,
                                  const struct pd_symtext_opts *o, const char **why)
{
	(void)h, (void)f, (void)o;
	*why = "symbols need libfksym, which this flamekit was built without";
	return NULL;
}
#endif

void pd_symtext_free(struct pd_symtext *st)
{
	if (!st)
		return;
#ifdef HAVE_LIBFKSYM
	if (st->sym)
		fk_symbolizer_free(st->sym);
#endif
	free(st->tab);
	free(st->arena);
	free(st);
}

#ifdef HAVE_LIBFKSYM
/* The recorded build id of path, or NULL. */
static const struct pd_build_id *build_id(const struct pd_file *f, const char *path, int kernel)
{
	for (unsigned i = 0; i < f->nbids; i++)
		if ((kernel ? (f->bids[i].misc & 7) == 1 && strcmp(f->bids[i].path, "[kernel.kallsyms]") == 0
		            : strcmp(f->bids[i].path, path) == 0))
			return &f->bids[i];
	return NULL;
}

static struct fk_dso *kernel_dso(struct pd_symtext *st)
{
	const struct pd_build_id *b;

	if (!st->kernel) {
		b = build_id(st->f, NULL, 1);
		st->kernel = fk_sym_kernel(st->sym, b ? b->id : NULL, b ? b->len : 0);
	}
	return st->kernel;
}

/* The map's dso, found once. */
static struct fk_dso *dso_of(struct pd_symtext *st, struct pd_map *map)
{
	const struct pd_build_id *b;

	if (map->dso)
		return map->dso;
	switch (map->kind) {
	case PD_MAP_FILE:
		b = build_id(st->f, map->path, 0);
		map->dso = fk_sym_dso(st->sym, map->path, b ? b->id : NULL, b ? b->len : 0);
		break;
	case PD_MAP_KERNEL:
		map->dso = kernel_dso(st);
		/* KASLR: where the MMAP's reference symbol was when recorded */
		if (strlen(map->path) > 17 && strncmp(map->path, "[kernel.kallsyms]", 17) == 0)
			(void)fk_sym_kernel_reloc(map->dso, map->path + 17, map->pgoff);
		break;
	case PD_MAP_IDENTITY:
		if (strncmp(map->name, "/tmp/perf-", 10) == 0)
			map->dso = fk_sym_jitmap(st->sym, map->pid);
		break;
	case PD_MAP_KSYM:
		break;
	}
	return map->dso;
}

static int lookup(struct fk_dso *d, uint64_t addr, struct fk_sym_result *r)
{
	return fk_sym_lookup(d, addr, r);
}
#else
struct fk_dso;
static struct fk_dso *dso_of(struct pd_symtext *st, struct pd_map *map)
{
	(void)st, (void)map;
	return NULL;
}

static struct fk_dso *kernel_dso(struct pd_symtext *st)
{
	(void)st;
	return NULL;
}

static int lookup(struct fk_dso *d, uint64_t addr, struct fk_sym_result *r)
{
	(void)d, (void)addr;
	memset(r, 0, sizeof *r);
	return 0;
}
#endif

static int arena_put(struct pd_symtext *st, const char *s, size_t len)
{
	if (st->alen + len > st->acap) {
		size_t cap = st->acap ? 2 * st->acap : 1 << 16;
		char *na;
		while (cap < st->alen + len)
			cap *= 2;
		if (cap > UINT32_MAX || !(na = realloc(st->arena, cap)))
			return -1;
		st->arena = na;
		st->acap = cap;
	}
	memcpy(st->arena + st->alen, s, len);
	st->alen += len;
	return 0;
}

/* One callchain line: "\t" ADDR " " NAME[":" FILE ":" LINE]["+0x" OFF] TAIL "\n";
 * *seg, *seglen: where " NAME... TAIL" is.  The source line goes before
 * the offset, which the perf parser strips, so it stays in the frame. */
static int line(struct pd_symtext *st, uint64_t addr, const struct fk_sym_frame *fr, uint64_t off,
                const char *tail, uint32_t *seg, uint32_t *seglen)
{
	char buf[64];
	struct obuf hex = { 0 };
	char hx[16];

	hex.b = hx;
	hex.cap = sizeof hx;
	ob_hex16(&hex, addr);
	if (arena_put(st, "\t", 1) < 0 || arena_put(st, hx, 16) < 0)
		return -1;
	*seg = (uint32_t)st->alen;
	if (arena_put(st, " ", 1) < 0 || arena_put(st, fr->name, strlen(fr->name)) < 0)
		return -1;
	if (st->srcline && fr->file && fr->line) { /* perf's srcline: the file's base name */
		const char *base = strrchr(fr->file, '/');
		base = base ? base + 1 : fr->file;
		snprintf(buf, sizeof buf, ":%u", fr->line);
		if (arena_put(st, ":", 1) < 0 || arena_put(st, base, strlen(base)) < 0 ||
		    arena_put(st, buf, strlen(buf)) < 0)
			return -1;
	}
	if (off != (uint64_t)-1) {
		snprintf(buf, sizeof buf, "+0x%llx", (unsigned long long)off);
		if (arena_put(st, buf, strlen(buf)) < 0)
			return -1;
	}
	if (arena_put(st, tail, strlen(tail)) < 0)
		return -1;
	*seglen = (uint32_t)st->alen - *seg;
	return arena_put(st, "\n", 1);
}

/* Fill e with the text for addr in map (dso d). */
static int resolve(struct pd_symtext *st, struct pd_map *map, struct fk_dso *d, uint64_t addr,
                   struct centry *e)
{
	static const struct fk_sym_frame unknown = { .name = "[unknown]" };
	struct fk_sym_result r;
	const char *dso = map ? map->name : "[unknown]";
	char tail[4200];
	uint32_t sg, sl;
	unsigned n;

	memset(&r, 0, sizeof r);
	if (map && map->kind == PD_MAP_KSYM) {
		r.n = 1;
		r.frames[0].name = map->name;
		r.frames[0].offset = addr;
	} else if (d && lookup(d, addr, &r) < 0)
		return -1;
	if (r.dso_name && (map || r.n))
		dso = r.dso_name;
	e->off = (uint32_t)st->alen;
	snprintf(tail, sizeof tail, " (%s)", dso);
	if (r.n == 0 && line(st, addr, &unknown, (uint64_t)-1, tail, &e->last, &e->lastlen) < 0)
		return -1;
	/* perf's inline symbols start where their function does (new_inline_sym):
	 * each line has the function's offset, and no DSO; so has the function
	 * itself where DWARF names it otherwise than its ELF symbol */
	n = r.n < 16 ? r.n : 16;
	for (unsigned k = 0; k < n; k++) {
		int real = k + 1 == n;
		if (line(st, addr, &r.frames[k], r.frames[n - 1].offset,
		         real && !r.frames[k].inlined ? tail : " (inlined)",
		         &sg, &sl) < 0)
			return -1;
		if (real)
			e->last = sg, e->lastlen = sl;
	}
	e->len = (uint32_t)(st->alen - e->off);
	e->lines = 0;
	for (uint32_t k = 0; k < e->len; k++)
		e->lines += st->arena[e->off + k] == '\n';
	return 0;
}

static int grow(struct pd_symtext *st)
{
	struct centry *old = st->tab;
	size_t n = st->ntab;

	if (!(st->tab = calloc(2 * n, sizeof *st->tab))) {
		st->tab = old;
		return -1;
	}
	st->ntab = 2 * n;
	for (size_t i = 0; i < n; i++) {
		size_t j;
		if (!old[i].dso)
			continue;
		j = (size_t)((old[i].dso * 31 + old[i].addr) * 0x9e3779b97f4a7c15ull >> 17) &
		    (st->ntab - 1);
		while (st->tab[j].dso)
			j = (j + 1) & (st->ntab - 1);
		st->tab[j] = old[i];
	}
	free(old);
	return 0;
}

/* The cache entry of ip in map, resolved when new; NULL when out of memory. */
static struct centry *entry(struct pd_symtext *st, struct pd_map *map, int kernel, uint64_t ip)
{
	/* A kernel address no MMAP covers (.init.text past _etext): perf,
	 * reading /proc/kcore beside kallsyms, has the kernel image mapped
	 * whole; the kernel's symbols decide, [unknown] when they miss. */
	struct fk_dso *d = map ? dso_of(st, map) : kernel ? kernel_dso(st) : NULL;
	uint64_t addr = pd_map_ip(map, ip);
	/* the key: the dso, or the map for those without one (never 0); a
	 * kernel address outside the maps apart from those inside */
	uintptr_t key = !map && d ? (uintptr_t)st : d ? (uintptr_t)d : map ? (uintptr_t)map->name : 1;
	struct centry *e;
	size_t j;

	if (2 * (st->used + 1) > st->ntab && grow(st) < 0)
		return NULL;
	j = (size_t)((key * 31 + addr) * 0x9e3779b97f4a7c15ull >> 17) & (st->ntab - 1);
	while (st->tab[j].dso && !(st->tab[j].dso == key && st->tab[j].addr == addr))
		j = (j + 1) & (st->ntab - 1);
	e = &st->tab[j];
	if (!e->dso) {
		if (resolve(st, map, d, addr, e) < 0)
			return NULL;
		e->dso = key;
		e->addr = addr;
		st->used++;
	}
	return e;
}

int pd_symtext_frame(struct pd_symtext *st, struct obuf *o, struct pd_map *map, int kernel,
                     uint64_t ip, int cc)
{
	const struct centry *e = entry(st, map, kernel, ip);

	if (!e)
		return -1;
	if (!cc) {
		ob_hex16(o, ip);
		ob_mem(o, st->arena + e->last, e->lastlen);
	} else
		ob_mem(o, st->arena + e->off, e->len);
	return 0;
}

int pd_symtext_ref(struct pd_symtext *st, struct pd_map *map, int kernel, uint64_t ip,
                   struct pd_symref *ref)
{
	const struct centry *e = entry(st, map, kernel, ip);

	if (!e)
		return -1;
	ref->off = e->off;
	ref->len = e->len;
	ref->lines = e->lines;
	return 0;
}

const char *pd_symtext_text(const struct pd_symtext *st, uint32_t off)
{
	return st->arena ? st->arena + off : NULL;
}

const char *pd_symtext_ksym(struct pd_symtext *st, struct pd_map *map, uint64_t *addr)
{
	struct fk_dso *d = map ? dso_of(st, map) : kernel_dso(st);
	struct fk_sym_result r;

	if (map && map->kind == PD_MAP_KSYM) {
		*addr = map->start;
		return map->name;
	}
	if (!d || lookup(d, pd_map_ip(map, *addr), &r) < 0 || r.n == 0)
		return NULL;
	*addr -= r.frames[r.n - 1].offset;
	return r.frames[r.n - 1].name;
}
