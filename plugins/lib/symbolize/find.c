/* Which files give a mapped path its symbols, in perf 6.1's order
 * (dso__load's binary_type_symtab, dso__read_binary_type_filename):
 * debuglink, the build-id cache (elf, then debug), /usr/lib/debug/PATH.debug,
 * /usr/lib/debug/PATH, /usr/lib/debug/.build-id/xx/rest.debug, then the file
 * itself, each under --symfs.  The first with a .symtab gives the symbols;
 * else the file's .gnu_debugdata; else its .dynsym.  PLT entries come from
 * the file itself.  Every candidate's build id must be the recorded one (or,
 * when none was recorded, the file's own). */
#define _GNU_SOURCE /* asprintf */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "flamekit/plugin.h"
#include "internal.h"

#define MAXBID 64

struct cand {
	int fd;
	Elf *elf;
	long link_uid; /* a link fk_sym_open_guarded refused: its owner, else -1 */
};

static void cand_close(struct cand *c)
{
	if (c->elf)
		elf_end(c->elf);
	if (c->fd >= 0)
		close(c->fd);
	c->elf = NULL;
	c->fd = -1;
}

/* c->fd (open, or -1 with errno set) as ELF; 0, or -1 (errno kept for the
 * caller's message). */
static int cand_elf(struct cand *c)
{
	struct stat st;

	c->elf = NULL;
	if (c->fd < 0)
		return -1;
	if (fstat(c->fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		cand_close(c);
		errno = EISDIR;
		return -1;
	}
	c->elf = elf_begin(c->fd, ELF_C_READ_MMAP, NULL);
	if (!c->elf || elf_kind(c->elf) != ELF_K_ELF) {
		cand_close(c);
		errno = ENOEXEC;
		return -1;
	}
	return 0;
}

/* Open path as ELF (guard: through fk_sym_open_guarded); 0, or -1. */
static int cand_open(struct cand *c, const char *path, int guard)
{
	c->link_uid = -1;
	c->fd = guard ? fk_sym_open_guarded(path, &c->link_uid)
	              : open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	return cand_elf(c);
}

static int bid_matches(Elf *elf, const unsigned char *bid, size_t len)
{
	unsigned char got[MAXBID];
	int n;

	if (!len)
		return 1;
	n = fk_elf_build_id(elf, got, sizeof(got));
	return n > 0 && (size_t)n >= len && memcmp(got, bid, len) == 0;
}

/* The candidate paths, NULL-terminated, in perf's order (malloc'd). */
static int candidates(struct fk_dso *d, const char *path, Elf *runtime, const char *hex,
		      int vdso, char **out, size_t max)
{
	struct fk_symbolizer *s = d->s;
	const char *symfs = s->symfs ? s->symfs : "";
	size_t n = 0;
	char *p;

#define ADD(...) do { if (n + 1 < max && asprintf(&p, __VA_ARGS__) >= 0) out[n++] = p; } while (0)
	if (runtime && !vdso) {
		const char *link = fk_elf_debuglink(runtime);

		if (link && !strchr(link, '/')) {
			const char *slash = strrchr(path, '/');
			int dl = slash ? (int)(slash - path) : 0;

			ADD("%s%.*s/%s", symfs, dl, path, link);
			ADD("%s%.*s/.debug/%s", symfs, dl, path, link);
			ADD("/usr/lib/debug%s%.*s/%s", symfs, dl, path, link);
		}
	}
	if (*hex && s->buildid_dir) {
		ADD("%s/.build-id/%.2s/%s", s->buildid_dir, hex, hex + 2);
		ADD("%s/.build-id/%.2s/%s/%s", s->buildid_dir, hex, hex + 2, vdso ? "vdso" : "elf");
		if (!vdso)
			ADD("%s/.build-id/%.2s/%s/debug", s->buildid_dir, hex, hex + 2);
	}
	if (!vdso) {
		ADD("%s/usr/lib/debug%s.debug", symfs, path);
		ADD("%s/usr/lib/debug%s", symfs, path);
		if (*hex)
			ADD("%s/usr/lib/debug/.build-id/%.2s/%s.debug", symfs, hex, hex + 2);
	}
#undef ADD
	out[n] = NULL;
	return 0;
}

/* The running kernel's vDSO, read from this process's memory (the same
 * image for every 64-bit process of one kernel). */
static Elf *own_vdso(void)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)base;
	size_t size;

	if (!base || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64)
		return NULL;
	size = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	if (size > (1u << 20))
		return NULL;
	return elf_memory((char *)base, size);
}

static int load_from(struct fk_dso *d, Elf *elf, int want_symtab, const char *path)
{
	int r = fk_elf_load_syms(d, elf, want_symtab);

	if (r == -2)
		d->s->oom = 1;
	if (r == 0 && !d->dwarf_path && path && fk_elf_has_section(elf, ".debug_info"))
		d->dwarf_path = strdup(path);
	return r;
}

int fk_sym_file_build_id(const char *path, int guard, unsigned char *out, size_t size, long *link_uid)
{
	struct cand c = { .fd = -1 };
	int n;

	*link_uid = -1;
	c.fd = guard ? fk_sym_open_guarded(path, link_uid) : open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (cand_elf(&c) < 0)
		return -errno;
	n = fk_elf_build_id(c.elf, out, size);
	cand_close(&c);
	return n > 0 ? n : 0;
}

/* Names no path reaches: a memfd, a device, a file deleted while mapped.
 * Unresolved without a word, as perf leaves them. */
static int unreadable_by_design(const char *path)
{
	size_t n = strlen(path);

	return strncmp(path, "/memfd:", 7) == 0 || strncmp(path, "/dev/", 5) == 0 ||
	       (n > 10 && strcmp(path + n - 10, " (deleted)") == 0);
}

void fk_dso_load_file(struct fk_dso *d, const char *path, const unsigned char *bid, size_t bid_len)
{
	struct fk_symbolizer *s = d->s;
	int vdso = strcmp(path, "[vdso]") == 0;
	struct cand rt = { .fd = -1, .link_uid = -1 }, c = { .fd = -1, .link_uid = -1 };
	unsigned char own[MAXBID];
	char hex[2 * MAXBID + 1], *full = NULL, *cands[12];
	Elf *vdso_elf = NULL;
	const char *rt_path;
	int rt_ok = 0, have_symtab = 0, open_err = 0, i;
	int want_a2l = s->cfg.inline_frames && s->cfg.dwarf_names;

	cands[0] = NULL;
	if (bid_len > MAXBID)
		bid_len = MAXBID;
	if (!vdso && path[0] != '/')
		return;                       /* //anon, [heap], [stack]: nothing to read */
	if (vdso) {
		vdso_elf = own_vdso();
		rt.elf = vdso_elf;
	} else if (asprintf(&full, "%s%s", s->symfs ? s->symfs : "", path) < 0) {
		s->oom = 1;
		return;
	} else if (cand_open(&rt, full, s->cfg.guard_links) < 0) {
		open_err = errno;
	}
	rt_path = vdso ? path : full;
	if (rt.elf) {
		int n = fk_elf_build_id(rt.elf, own, sizeof(own));

		if (!bid_len && n > 0) {
			bid = own;
			bid_len = (size_t)n;
			rt_ok = 1;
		} else if (bid_matches(rt.elf, bid, bid_len)) {
			rt_ok = 1;
		} else if (!vdso) {
			char want[2 * MAXBID + 1], got[2 * MAXBID + 1];

			fk_hex(want, bid, bid_len);
			fk_hex(got, own, n > 0 ? (size_t)n : 0);
			fk_sym_log(s, FK_LOG_WARN, "%s: build id %s differs from the recorded %s: not used",
				   full, n > 0 ? got : "(none)", want);
		}
	}
	if (rt_ok && fk_elf_segments(d, rt.elf) < 0)
		s->oom = 1;
	fk_hex(hex, bid ? bid : own, bid ? bid_len : 0);
	candidates(d, vdso ? "[vdso]" : path, rt_ok ? rt.elf : NULL, hex, vdso, cands, 12);
	for (i = 0; cands[i] && !have_symtab; i++) {
		if (cand_open(&c, cands[i], s->cfg.guard_links) < 0)
			continue;
		if (bid_matches(c.elf, bid, bid_len)) {
			if (!d->segs && fk_elf_segments(d, c.elf) < 0)
				s->oom = 1;
			have_symtab = load_from(d, c.elf, 1, cands[i]) == 0;
			if (have_symtab && want_a2l && fk_a2l_load(d, c.elf) < 0)
				s->oom = 1;
			if (!d->dwarf_path && fk_elf_has_section(c.elf, ".debug_info"))
				d->dwarf_path = strdup(cands[i]);
			/* No usable file itself: the first candidate with a
			 * .dynsym stands in for it (perf's runtime_ss). */
			if (!rt_ok && !have_symtab && fk_elf_has_section(c.elf, ".dynsym")) {
				if (vdso)
					elf_end(vdso_elf);
				else
					cand_close(&rt);
				rt = c;
				rt_path = cands[i];
				vdso_elf = NULL;
				rt_ok = 1;
				c.fd = -1;
				c.elf = NULL;
				continue;
			}
		}
		cand_close(&c);
	}
	if (!vdso && !rt.elf && !have_symtab && !unreadable_by_design(path)) {
		if (open_err == EACCES && rt.link_uid >= 0)
			fk_sym_log(s, FK_LOG_WARN, "%s: not followed: a symbolic link on its path is owned "
				   "by uid %ld, in a sticky world-writable directory of another user; its "
				   "addresses are [unknown]", full, rt.link_uid);
		else
			fk_sym_log(s, FK_LOG_WARN, "%s: cannot read: %s; its addresses are [unknown]", full,
				   open_err == EISDIR ? "not a regular file" : strerror(open_err));
	}
	if (rt_ok) {
		if (!have_symtab)
			have_symtab = load_from(d, rt.elf, 1, vdso ? NULL : rt_path) == 0;
		if (!have_symtab && fk_elf_load_debugdata(d, rt.elf) < 0)
			load_from(d, rt.elf, 0, NULL);
		if (fk_elf_load_plt(d, rt.elf) == -2)
			s->oom = 1;
		/* perf runs addr2line on the file its .symtab came from, else
		 * on the file itself (dso__name); never on the vDSO */
		if (want_a2l && !vdso && fk_a2l_load(d, rt.elf) < 0)
			s->oom = 1;
		if (!d->dwarf_path && !vdso && fk_elf_has_section(rt.elf, ".debug_info"))
			d->dwarf_path = strdup(rt_path);
	}
	for (i = 0; cands[i]; i++)
		free(cands[i]);
	if (vdso_elf && rt.elf == vdso_elf)
		rt.elf = NULL;
	if (vdso_elf)
		elf_end(vdso_elf);
	cand_close(&rt);
	free(full);
}
