/* The kernel from kallsyms (with modules) and JIT maps (/tmp/perf-PID.map),
 * as perf 6.1 reads them (util/symbol.c: dso__load_kallsyms,
 * symbols__fixup_end with is_kallsyms, dso__split_kallsyms;
 * dso__load_perf_map). */
#define _GNU_SOURCE /* asprintf */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "flamekit/plugin.h"
#include "internal.h"

/* The running kernel's build id from /sys/kernel/notes; its length or -1. */
static int running_build_id(unsigned char *out, size_t size)
{
	unsigned char buf[4096];
	ssize_t n;
	size_t off = 0;
	int fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	while (n > 0 && off + 12 <= (size_t)n) {
		uint32_t namesz, descsz, type;
		size_t name_off = off + 12, desc_off;

		memcpy(&namesz, buf + off, 4);
		memcpy(&descsz, buf + off + 4, 4);
		memcpy(&type, buf + off + 8, 4);
		desc_off = name_off + ((namesz + 3) & ~3u);
		if (desc_off + descsz > (size_t)n)
			break;
		if (type == NT_GNU_BUILD_ID && namesz == 4 && memcmp(buf + name_off, "GNU", 4) == 0) {
			size_t k = descsz < size ? descsz : size;

			memcpy(out, buf + desc_off, k);
			return (int)k;
		}
		off = desc_off + ((descsz + 3) & ~3u);
	}
	return -1;
}

/* perf's symbol_type__filter: T, W, D, B in either case. */
static int kept_type(char t)
{
	/* c | 0x20 is a lower-case letter only for that letter's two cases */
	t = (char)(t | 0x20);
	return t == 't' || t == 'w' || t == 'd' || t == 'b';
}

/* A hex digit's value plus one, 0 for any other byte. */
#define H(c, v) [c] = (v) + 1
static const unsigned char hex1[256] = {
	H('0', 0), H('1', 1), H('2', 2), H('3', 3), H('4', 4), H('5', 5), H('6', 6), H('7', 7),
	H('8', 8), H('9', 9), H('a', 10), H('b', 11), H('c', 12), H('d', 13), H('e', 14),
	H('f', 15), H('A', 10), H('B', 11), H('C', 12), H('D', 13), H('E', 14), H('F', 15),
};
#undef H

/* The address at the start of a line, as strtoull(line, &end, 16) reads
 * it: 16 hex digits by table (every kallsyms line), anything else through
 * strtoull. */
static uint64_t line_addr(const char *line, char **end)
{
	uint64_t addr = 0;
	unsigned v;
	int i;

	for (i = 0; i < 16 && (v = hex1[(unsigned char)line[i]]) != 0; i++)
		addr = addr << 4 | (v - 1);
	if (i == 0 || hex1[(unsigned char)line[i]])
		return strtoull(line, end, 16);
	*end = (char *)line + i;
	return addr;
}

/* One pass over the file read whole into the pool: names stay where they
 * are, NUL-terminated in place (a 122,000-line kallsyms in one read, no
 * per-line copy). */
static int parse_kallsyms(struct fk_dso *d, FILE *f, int core_only)
{
	char *line, *next, *end, *stop;
	size_t len;
	int nonzero = 0;

	if (!(line = fk_sym_pool_slurp(d->s, f, &len)))
		return -2;
	for (stop = line + len; line < stop; line = next) {
		uint64_t addr;
		char type, *name, *nl = memchr(line, '\n', (size_t)(stop - line));
		int bind;

		next = nl ? nl + 1 : stop;
		if (nl)
			*nl = '\0';
		addr = line_addr(line, &end);
		if (end == line || *end != ' ' || !end[1] || end[2] != ' ' || !end[3])
			continue;
		type = end[1];
		name = end + 3;
		/* the kernel's own symbols come first, then modules' ("\t[mod]") */
		if (core_only && strchr(name, '\t'))
			break;
		if (!kept_type(type))
			continue;
		nonzero |= addr != 0;
		if (name[0] == '_' && name[1] == 't' && strcmp(name, "_text") == 0)
			d->ktext = addr;
		else if (name[0] == '_' && name[1] == 's' && strcmp(name, "_stext") == 0)
			d->kstext = addr;
		bind = type == 'W' || type == 'w' ? STB_WEAK : type >= 'A' && type <= 'Z' ? STB_GLOBAL : STB_LOCAL;
		if (fk_symtab_add(&d->syms, addr, 0, bind, name) < 0)
			return -2;
	}
	return nonzero ? 0 : -1;      /* kptr_restrict: every address 0 */
}

/* Module symbols ("name\t[mod]"): named without the module, which goes to
 * kmod (perf's dso__split_kallsyms moves them to the module's map). */
static int split_modules(struct fk_dso *d)
{
	struct fk_symbolizer *s = d->s;
	size_t i, last = 0;

	if (d->syms.n && !(d->kmod = calloc(d->syms.n, sizeof(*d->kmod))))
		return -2;
	for (i = 0; i < d->syms.n; i++) {
		struct fk_sym *sym = &d->syms.v[i];
		const char *tab = strchr(sym->name, '\t');
		size_t m;

		if (!tab || tab[1] != '[')
			continue;
		/* consecutive symbols are mostly of one module */
		if (last && strcmp(d->modnames[last - 1], tab + 1) == 0) {
			m = last;
		} else {
			for (m = d->nmods; m > 0 && strcmp(d->modnames[m - 1], tab + 1) != 0; m--)
				;
			if (m == 0) {
				const char **v;

				if (d->nmods >= UINT16_MAX)
					continue;
				v = realloc(d->modnames, (d->nmods + 1) * sizeof(*v));
				if (!v)
					return -2;
				d->modnames = v;
				if (!(v[d->nmods] = fk_sym_strdup(s, tab + 1, strlen(tab + 1))))
					return -2;
				m = ++d->nmods;
			}
		}
		d->kmod[i] = (uint16_t)m;
		last = m;
		*(char *)tab = '\0';    /* the name is in the file's pool chunk */
	}
	return 0;
}

/* When the machine booted (/proc/stat's btime), or 0. */
static long long boot_time(void)
{
	char line[256];
	long long t = 0;
	FILE *f = fopen("/proc/stat", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "btime ", 6) == 0) {
			t = strtoll(line + 6, NULL, 10);
			break;
		}
	fclose(f);
	return t;
}

/* perf record's copy of /proc/kallsyms in the build-id cache
 * ([kernel.kallsyms]/BUILDID/kallsyms), when it is one of this boot: a
 * regular file of the caller's or root's that only its owner can write
 * (no link another user planted), written since the machine booted, so
 * its kernel addresses are those of now (KASLR moves them only at boot).
 * Reading it is reading a file, where /proc/kallsyms has the kernel print
 * every symbol (40 ms of a 120 ms collapse here).  NULL when there is none
 * to trust. */
static FILE *cached_kallsyms(struct fk_symbolizer *s, const char *hex, char *what, size_t wsz)
{
	struct stat st;
	long long boot;
	long link_uid;
	FILE *f;
	int fd;

	if (!s->buildid_dir || snprintf(what, wsz, "%s/[kernel.kallsyms]/%s/kallsyms", s->buildid_dir,
					hex) >= (int)wsz)
		return NULL;
	if ((fd = fk_sym_open_guarded(what, &link_uid)) < 0)
		return NULL;
	boot = boot_time();
	if (fstat(fd, &st) < 0 || (st.st_uid != geteuid() && st.st_uid != 0) ||
	    (st.st_mode & (S_IWGRP | S_IWOTH)) || !boot || (long long)st.st_mtime < boot ||
	    !(f = fdopen(fd, "r"))) {
		close(fd);
		return NULL;
	}
	return f;
}

static FILE *open_kallsyms(struct fk_dso *d, const unsigned char *bid, size_t bid_len, char *what, size_t wsz)
{
	struct fk_symbolizer *s = d->s;
	unsigned char run[64];
	char hex[129], rhex[129];
	int rn;
	FILE *f;

	if (s->kallsyms) {
		snprintf(what, wsz, "%s", s->kallsyms);
		return fopen(s->kallsyms, "re");
	}
	rn = running_build_id(run, sizeof(run));
	if (bid_len > 64)
		bid_len = 64;
	fk_hex(hex, bid, bid_len);
	if (!bid_len || (rn > 0 && (size_t)rn == bid_len && memcmp(run, bid, bid_len) == 0)) {
		/* the kernel part of perf's copy, when it is this boot's; the
		 * modules' (which come and go) from /proc/kallsyms if an address
		 * needs them (fk_kernel_lookup) */
		if (bid_len && !d->kfull && (f = cached_kallsyms(s, hex, what, wsz))) {
			d->kcore = 1;
			return f;
		}
		d->kcore = 0;
		snprintf(what, wsz, "/proc/kallsyms");
		return fopen("/proc/kallsyms", "re");
	}
	if (s->buildid_dir) {
		snprintf(what, wsz, "%s/[kernel.kallsyms]/%s/kallsyms", s->buildid_dir, hex);
		if ((f = fopen(what, "re")))
			return f;
	}
	fk_hex(rhex, run, rn > 0 ? (size_t)rn : 0);
	fk_sym_log(s, FK_LOG_WARN, "the capture's kernel (build id %s) is not the running one (%s) and %s "
		   "has no kallsyms for it (give --kallsyms FILE): kernel addresses are [unknown]",
		   hex, rn > 0 ? rhex : "unknown", s->buildid_dir ? s->buildid_dir : "the build-id cache");
	what[0] = '\0';
	return NULL;
}

void fk_dso_load_kernel(struct fk_dso *d, const unsigned char *bid, size_t bid_len)
{
	char what[4200];
	FILE *f = open_kallsyms(d, bid, bid_len, what, sizeof(what));
	int r;

	if (!f) {
		if (what[0])
			fk_sym_log(d->s, FK_LOG_WARN, "%s: cannot read: %s; kernel addresses are [unknown]",
				   what, strerror(errno));
		return;
	}
	r = parse_kallsyms(d, f, d->kcore);
	fclose(f);
	if (r == -1 && d->kcore) { /* a copy made under kptr_restrict: the kernel's own */
		fk_symtab_free(&d->syms);
		d->kfull = 1;
		fk_dso_load_kernel(d, bid, bid_len);
		return;
	}
	if (r == -1)
		fk_sym_log(d->s, FK_LOG_WARN, "%s: every address is 0 (kernel.kptr_restrict): kernel addresses are [unknown]",
			   what);
	if (r < 0) {
		d->s->oom |= r == -2;
		fk_symtab_free(&d->syms);
		return;
	}
	fk_symtab_finish(d->s, &d->syms, 1);
	if (split_modules(d) < 0)
		d->s->oom = 1;
	if (d->kcore && d->syms.n) {
		/* the range the kernel part answers for: its text on (what lies
		 * below it, per-CPU data, is no code) to its last symbol's end */
		size_t i = 0;

		while (i < d->syms.n && d->syms.v[i].start < (d->kstext ? d->kstext : d->ktext))
			i++;
		d->kcore_lo = i < d->syms.n ? d->syms.v[i].start : d->syms.v[0].start;
		d->kcore_hi = d->syms.v[d->syms.n - 1].end;
		d->kbid_len = bid_len < sizeof(d->kbid) ? bid_len : sizeof(d->kbid);
		memcpy(d->kbid, bid, d->kbid_len);
	}
}

/* An address outside the kernel part read from perf's copy (a module's, a
 * BPF program's): every symbol again, from /proc/kallsyms. */
static void load_full(struct fk_dso *d)
{
	uint64_t delta = d->kdelta;

	fk_symtab_free(&d->syms);
	free(d->kmod);
	d->kmod = NULL;
	d->kcore = 0;
	d->kfull = 1;
	fk_dso_load_kernel(d, d->kbid, d->kbid_len);
	d->kdelta = delta; /* the same boot's _text */
}

int fk_sym_kernel_reloc(struct fk_dso *k, const char *ref_name, uint64_t recorded_addr)
{
	uint64_t now = 0;

	if (k->kind != FK_DSO_KERNEL)
		return -1;
	if (strcmp(ref_name, "_text") == 0)
		now = k->ktext;
	else if (strcmp(ref_name, "_stext") == 0)
		now = k->kstext;
	if (!now)
		return -1;
	k->kdelta = now - recorded_addr;
	return 0;
}

int fk_kernel_lookup(struct fk_dso *d, uint64_t addr, struct fk_sym_result *out)
{
	const struct fk_sym *sym;
	size_t i;

	addr += d->kdelta;
	if (d->kcore && (addr < d->kcore_lo || addr >= d->kcore_hi))
		load_full(d);
	sym = fk_symtab_find(&d->syms, addr);
	if (!sym)
		return 0;
	i = (size_t)(sym - d->syms.v);
	if (d->kmod && d->kmod[i])
		out->dso_name = d->modnames[d->kmod[i] - 1];
	out->n = 1;
	out->frames[0] = (struct fk_sym_frame){ .name = sym->name, .offset = addr - sym->start };
	return 0;
}

/* Who may own a JIT map: the caller, root, or the user the process runs as
 * (when it still runs).  A symlink, a non-regular file or a file others can
 * write is refused: root reading another user's /tmp must not be steered. */
static int jitmap_trusted(const struct stat *st, int pid)
{
	char proc[64];
	struct stat ps;

	if (!S_ISREG(st->st_mode) || (st->st_mode & (S_IWGRP | S_IWOTH)))
		return 0;
	if (st->st_uid == geteuid() || st->st_uid == 0)
		return 1;
	snprintf(proc, sizeof(proc), "/proc/%d", pid);
	return stat(proc, &ps) == 0 && ps.st_uid == st->st_uid;
}

/* Lines "START SIZE name", hex without 0x, as perf's hex2u64 reads them. */
static int parse_jitmap(struct fk_dso *d, FILE *f)
{
	char *line = NULL, *p, *q;
	size_t cap = 0;
	ssize_t len;
	int ret = 0;

	while ((len = getline(&line, &cap, f)) > 0) {
		uint64_t start, size;
		const char *nm;

		if (line[len - 1] == '\n')
			line[--len] = '\0';
		start = strtoull(line, &p, 16);
		if (p == line || *p != ' ')
			continue;
		size = strtoull(p + 1, &q, 16);
		if (q == p + 1 || *q != ' ' || !q[1])
			continue;
		nm = fk_sym_strdup(d->s, q + 1, strlen(q + 1));
		if (!nm || fk_symtab_add(&d->syms, start, size, STB_GLOBAL, nm) < 0) {
			ret = -2;
			break;
		}
	}
	free(line);
	return ret;
}

static int by_start_order(const void *a, const void *b)
{
	const struct fk_sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

void fk_dso_load_jitmap(struct fk_dso *d, int pid)
{
	struct stat st;
	FILE *f;
	int fd = open(d->name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0) {
		if (errno != ENOENT)
			fk_sym_log(d->s, FK_LOG_WARN, "%s: cannot read: %s; its addresses are [unknown]",
				   d->name, strerror(errno));
		return;
	}
	if (fstat(fd, &st) < 0 || !jitmap_trusted(&st, pid)) {
		fk_sym_log(d->s, FK_LOG_WARN, "%s: not used: owned by uid %u, neither you, root nor the process's user, "
			   "or not a plain file only its owner can write", d->name, (unsigned)st.st_uid);
		close(fd);
		return;
	}
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		d->s->oom = 1;
		return;
	}
	if (parse_jitmap(d, f) < 0)
		d->s->oom = 1;
	fclose(f);
	/* perf neither fixes sizes nor drops duplicates here: sort only. */
	if (d->syms.n)
		qsort(d->syms.v, d->syms.n, sizeof(*d->syms.v), by_start_order);
}
