/* User stacks unwound with libdwfl: see unwind.h. */
#define _GNU_SOURCE /* memfd_create */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unwind.h"

/* perf's x86_64 register numbers (arch/x86/include/uapi/asm/perf_regs.h) */
enum { R_AX, R_BX, R_CX, R_DX, R_SI, R_DI, R_BP, R_SP, R_IP, R_R8 = 16, R_R15 = 23 };

const char *pd_unwind_unsupported(const struct pd_file *f)
{
	static char why[128];
	int dwarf = 0;

	for (unsigned i = 0; i < f->nattrs; i++)
		if (f->attrs[i].sample_type & (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER))
			dwarf = 1;
	if (!dwarf)
		return NULL;
#ifndef __x86_64__
	return "user stacks (--call-graph dwarf) on another architecture than x86_64";
#endif
	if (f->arch && strcmp(f->arch, "x86_64") != 0) {
		snprintf(why, sizeof why, "user stacks (--call-graph dwarf) recorded on %.40s, not "
		         "x86_64", f->arch);
		return why;
	}
	return NULL;
}

const char *pd_unwind_sample_unsupported(const struct pd_sample *s)
{
	if (s->regs && s->regs_abi == PERF_SAMPLE_REGS_ABI_32)
		return "user stacks (--call-graph dwarf) of a 32-bit process";
	return NULL;
}

const char *pd_unwind_mask_problem(uint64_t mask)
{
	if (!(mask >> R_IP & 1) || !(mask >> R_SP & 1))
		return "lack the instruction or stack pointer: their user stacks are not unwound (and "
		       "without the instruction pointer their callchains are left out), as perf does";
	if (mask >> (R_R15 + 1))
		return "name registers x86_64 does not have (past r15): they are not used";
	return NULL;
}

#ifdef PD_UNWIND
#include <elfutils/libdwelf.h>
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <sys/auxv.h>
#include <sys/mman.h>

#include "../../lib/symbolize/symbolize.h"

struct rep {            /* a module reported: where its map was */
	uint64_t start, base;
	char *path;
};

struct proc {
	int pid;
	Dwfl *dwfl;
	int attached;
	struct rep *reps;
	size_t nrep;
	struct proc *next;
};

struct file {           /* a mapped file opened for reading, or that could not be */
	char *path;
	int fd;
	struct file *next;
};

#define NBUCKET 256
#define NREG 17     /* x86_64's DWARF registers the unwinder uses: rax..r15, rip */
#define RBX 3       /* rbx's DWARF number */
#define MAX_AGAIN 8 /* walks started again for one sample (pd_unwind_sample) */
#define MAX_DWFL 64 /* Dwfls kept at once: each holds an fd per module (RLIMIT_NOFILE) */

struct pd_unwind {
	const struct fk_host *h;
	const struct pd_file *f;
	const char *input;
	char *symfs;
	struct proc *procs[NBUCKET];
	struct file *files[NBUCKET];
	int oom;
	unsigned ndwfl;         /* procs with a Dwfl */
	/* the sample being unwound */
	struct pd_machine *m;
	struct pd_thread *t;
	const struct pd_sample *s;
	struct proc *p;
	uint64_t mask, sp;
	uint64_t *ips;
	unsigned max, n;
	/* the last frame's rbx (rbx_ok: it has one); lost: the last frame
	 * lacks the rbx the frame before it had, and init (bit i of init_set:
	 * known) is its registers with that rbx kept, the state a walk starts
	 * again from (see keep_same) */
	Dwarf_Word rbx, init[NREG];
	uint32_t init_set;
	int rbx_ok, lost;
	int again;              /* this walk starts from init, whose frame is walked */
};

static unsigned hash_str(const char *s)
{
	unsigned h = 5381;
	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h % NBUCKET;
}

/* This process's vDSO as a file (a memfd), when the capture's has its
 * build id (or records none): the kernel is the one recorded on.  -1 if not. */
static int own_vdso(const unsigned char *id, unsigned idlen)
{
	const unsigned char *img = (const unsigned char *)getauxval(AT_SYSINFO_EHDR);
	const void *own;
	Elf64_Ehdr eh;
	size_t size;
	ssize_t n;
	Elf *elf;
	int fd, same;

	if (!img || memcmp(img, ELFMAG, SELFMAG) != 0 || img[EI_CLASS] != ELFCLASS64)
		return -1;
	memcpy(&eh, img, sizeof eh);
	size = (size_t)eh.e_shoff + (size_t)eh.e_shnum * eh.e_shentsize; /* the section headers end it */
	if (size < sizeof eh || size > (1u << 20) || !(elf = elf_memory((char *)img, size)))
		return -1;
	n = dwelf_elf_gnu_build_id(elf, &own);
	same = !idlen || (n == (ssize_t)idlen && memcmp(own, id, idlen) == 0);
	elf_end(elf);
	if (!same || (fd = memfd_create("vdso", MFD_CLOEXEC)) < 0)
		return -1;
	if (write(fd, img, size) != (ssize_t)size) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The vDSO's image: perf record's copy in the build-id cache
 * ($HOME/.debug/[vdso]/ID/vdso), else this process's own. */
static int vdso_fd(struct pd_unwind *u)
{
	const struct pd_build_id *b = NULL;
	const char *home = getenv("HOME");
	char path[4096], hex[41];
	long link_uid;
	int fd = -1;

	for (unsigned i = 0; i < u->f->nbids && !b; i++)
		if (strcmp(u->f->bids[i].path, "[vdso]") == 0)
			b = &u->f->bids[i];
	if (b && home && home[0] == '/') {
		for (unsigned i = 0; i < b->len && i < 20; i++)
			snprintf(hex + 2 * i, 3, "%02x", b->id[i]);
		hex[2 * (b->len < 20 ? b->len : 20)] = '\0';
		if ((size_t)snprintf(path, sizeof path, "%s/.debug/[vdso]/%s/vdso", home, hex) < sizeof path)
			fd = fk_sym_open_guarded(path, &link_uid);
	}
	return fd >= 0 ? fd : own_vdso(b ? b->id : NULL, b ? b->len : 0);
}

/* The mapped file's fd (under --symfs), -1 when it cannot be read
 * (reported once). */
static int file_fd(struct pd_unwind *u, const char *path)
{
	unsigned b = hash_str(path);
	struct file *f;
	char *full;
	long link_uid = -1;
	size_t sl = u->symfs ? strlen(u->symfs) : 0;

	for (f = u->files[b]; f; f = f->next)
		if (strcmp(f->path, path) == 0)
			return f->fd;
	if (!(f = calloc(1, sizeof *f)) || !(f->path = strdup(path)) ||
	    !(full = malloc(sl + strlen(path) + 1))) {
		if (f)
			free(f->path);
		free(f);
		u->oom = 1;
		return -1;
	}
	if (sl) /* no --symfs: u->symfs is NULL, which memcpy may not be given */
		memcpy(full, u->symfs, sl);
	strcpy(full + sl, path);
	f->fd = path[0] == '/' ? fk_sym_open_guarded(full, &link_uid)
	        : strcmp(path, "[vdso]") == 0 ? vdso_fd(u) : (errno = ENOENT, -1);
	if (f->fd < 0 && path[0] == '/') {
		if (errno == EACCES && link_uid >= 0)
			u->h->log(FK_LOG_WARN, "%s: %s is a link owned by uid %ld, not followed: user "
			          "stacks are not unwound through it", u->input, full, link_uid);
		else
			u->h->log(FK_LOG_WARN, "%s: cannot read %s to unwind user stacks through it: %s",
			          u->input, full, strerror(errno));
	}
	free(full);
	f->next = u->files[b];
	u->files[b] = f;
	return f->fd;
}

static int find_elf(Dwfl_Module *mod, void **ud, const char *name, Dwarf_Addr base,
                    char **file_name, Elf **elfp)
{
	(void)mod, (void)ud, (void)name, (void)base, (void)file_name, (void)elfp;
	return -1; /* every module is reported with its file */
}

static int find_debuginfo(Dwfl_Module *mod, void **ud, const char *modname, Dwarf_Addr base,
                          const char *file_name, const char *debuglink_file,
                          GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	(void)mod, (void)ud, (void)modname, (void)base, (void)file_name, (void)debuglink_file;
	(void)debuglink_crc, (void)debuginfo_file_name;
	return -1; /* no separate debug info: .eh_frame unwinds */
}

static const Dwfl_Callbacks dwfl_cbs = { .find_elf = find_elf, .find_debuginfo = find_debuginfo };

static void proc_reset(struct pd_unwind *u, struct proc *p)
{
	if (p->dwfl) {
		dwfl_end(p->dwfl);
		u->ndwfl--;
	}
	p->dwfl = NULL;
	p->attached = 0;
	for (size_t i = 0; i < p->nrep; i++)
		free(p->reps[i].path);
	free(p->reps);
	p->reps = NULL;
	p->nrep = 0;
}

/* Report the mapped file holding addr as a module, as perf's
 * report_module: 0 when it is there (or addr is in no map), -1 when its
 * map's file cannot be made one. */
static int report(struct pd_unwind *u, uint64_t addr)
{
	struct pd_map *map = pd_map_find(u->m, u->t, 0, addr);
	struct proc *p = u->p;
	Dwfl_Module *mod;
	struct rep *nv;
	int fd;

	if (!map)
		return 0;
	if (map->kind != PD_MAP_FILE)
		return -1;
	if (dwfl_addrmodule(p->dwfl, addr))
		return 0;
	if ((fd = file_fd(u, map->path)) < 0 || (fd = dup(fd)) < 0)
		return -1;
	if (!(nv = realloc(p->reps, (p->nrep + 1) * sizeof *nv)) ||
	    !(nv[p->nrep].path = strdup(map->path))) {
		if (nv)
			p->reps = nv;
		close(fd);
		u->oom = 1;
		return -1;
	}
	p->reps = nv;
	dwfl_report_begin_add(p->dwfl);
	mod = dwfl_report_elf(p->dwfl, map->path, map->path, fd, map->start - map->pgoff, false);
	dwfl_report_end(p->dwfl, NULL, NULL);
	if (!mod) {
		close(fd);
		free(nv[p->nrep].path);
		return -1;
	}
	nv[p->nrep].start = map->start;
	nv[p->nrep].base = map->start - map->pgoff;
	p->nrep++;
	return dwfl_addrmodule(p->dwfl, addr) == mod ? 0 : -1;
}

static int reg(const struct pd_unwind *u, unsigned r, uint64_t *v)
{
	if (!(u->mask >> r & 1))
		return -1;
	*v = pd_u64(u->s->regs + 8 * __builtin_popcountll(u->mask & ((1ull << r) - 1)));
	return 0;
}

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct pd_unwind *u = arg;

	(void)dwfl;
	if (*thread_argp)
		return 0;
	*thread_argp = arg;
	return u->t->tid;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct pd_unwind *u = arg;
	struct pd_map *map;
	int fd;

	(void)dwfl;
	if (addr + 8 < addr)
		return false;
	if (addr >= u->sp && addr + 8 <= u->sp + u->s->stack_size) {
		memcpy(result, u->s->stack + (addr - u->sp), 8);
		return true;
	}
	if (!(map = pd_map_find(u->m, u->t, 0, addr)) || map->kind != PD_MAP_FILE ||
	    (fd = file_fd(u, map->path)) < 0)
		return false;
	return pread(fd, result, 8, (off_t)(addr - map->start + map->pgoff)) == 8;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	/* DWARF's x86_64 order: rax rdx rcx rbx rsi rdi rbp rsp r8-r15 rip */
	static const unsigned order[17] = { R_AX, R_DX, R_CX, R_BX, R_SI, R_DI, R_BP, R_SP,
		                            R_R8, R_R8 + 1, R_R8 + 2, R_R8 + 3, R_R8 + 4,
		                            R_R8 + 5, R_R8 + 6, R_R15, R_IP };
	struct pd_unwind *u = arg;
	Dwarf_Word regs[NREG];

	if (u->again) { /* a frame's registers, those it has */
		for (unsigned i = 0; i < NREG; i++)
			if (u->init_set >> i & 1 && !dwfl_thread_state_registers(thread, (int)i, 1, &u->init[i]))
				return false;
		return true;
	}
	for (unsigned i = 0; i < NREG; i++) {
		uint64_t v = 0;
		(void)reg(u, order[i], &v); /* absent: 0, as perf's */
		regs[i] = v;
	}
	return dwfl_thread_state_registers(thread, 0, NREG, regs);
}

static const Dwfl_Thread_Callbacks thread_cbs = {
	.next_thread = next_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

static int frame(Dwfl_Frame *state, void *arg)
{
	struct pd_unwind *u = arg;
	Dwarf_Addr pc;
	bool activation;

	if (!dwfl_frame_pc(state, &pc, NULL))
		return DWARF_CB_ABORT;
	(void)report(u, pc); /* before isactivation, which needs its CFI */
	if (!dwfl_frame_pc(state, &pc, &activation))
		return DWARF_CB_ABORT;
	if (!activation)
		pc--;
	{
		Dwarf_Word rbx;
		int ok = dwfl_frame_reg(state, RBX, &rbx) == 0;

		/* only a frame that lost rbx may need the others (keep_same) */
		if ((u->lost = !ok && u->rbx_ok)) {
			u->init_set = 1u << RBX | 1u << (NREG - 1);
			for (unsigned i = 0; i < NREG - 1; i++)
				if (i != RBX && dwfl_frame_reg(state, i, &u->init[i]) == 0)
					u->init_set |= 1u << i;
			u->init[RBX] = u->rbx;
			u->init[NREG - 1] = pc; /* where its CFI is looked up */
		}
		u->rbx_ok = ok;
		u->rbx = rbx;
	}
	if (u->again) /* the frame the walk starts from: walked already */
		u->again = 0;
	else if (pc)
		u->ips[u->n++] = pc;
	return u->n >= u->max || u->oom ? DWARF_CB_ABORT : DWARF_CB_OK;
}

/* After a walk that ended: whether it ended for want of rbx, the state a
 * walk starts again from being in u->init.  libdw takes a register the CFI does not
 * mention as undefined unless the ABI's defaults say it is call-saved, and
 * elfutils' x86_64 defaults name rax (DWARF 0) where rbx (3) is meant, so
 * a frame whose caller's CFA is rbx-based, as that of glibc's
 * _dl_runtime_resolve_xsavec, ends the walk when rbx is not saved yet (a
 * sample in the first instructions of _dl_fixup).  libunwind, perf's
 * unwinder, keeps such a register as the callee left it: so does this, when
 * the last frame's CFA needs rbx, which the frame before it had. */
static int keep_same(struct pd_unwind *u)
{
	Dwfl_Module *mod;
	Dwarf_CFI *cfi;
	Dwarf_Frame *fr;
	Dwarf_Addr bias;
	Dwarf_Op *ops;
	size_t nops;
	int uses = 0;

	if (!u->lost || !(mod = dwfl_addrmodule(u->p->dwfl, u->init[NREG - 1])) ||
	    !((cfi = dwfl_module_eh_cfi(mod, &bias)) || (cfi = dwfl_module_dwarf_cfi(mod, &bias))) ||
	    dwarf_cfi_addrframe(cfi, u->init[NREG - 1] - bias, &fr) != 0)
		return 0;
	if (dwarf_frame_cfa(fr, &ops, &nops) == 0)
		for (size_t i = 0; i < nops; i++)
			if (ops[i].atom == DW_OP_breg0 + RBX || ops[i].atom == DW_OP_reg0 + RBX ||
			    ((ops[i].atom == DW_OP_bregx || ops[i].atom == DW_OP_regx) &&
			     ops[i].number == RBX))
				uses = 1;
	free(fr);
	return uses;
}

/* The process's Dwfl, made again when a map it was given has changed. */
static struct proc *proc_of(struct pd_unwind *u, int pid)
{
	unsigned b = (unsigned)pid % NBUCKET;
	struct proc *p;

	for (p = u->procs[b]; p; p = p->next)
		if (p->pid == pid)
			break;
	if (!p) {
		if (!(p = calloc(1, sizeof *p)))
			return NULL;
		p->pid = pid;
		p->next = u->procs[b];
		u->procs[b] = p;
	}
	for (size_t i = 0; i < p->nrep; i++) {
		struct pd_map *map = pd_map_find(u->m, u->t, 0, p->reps[i].start);
		if (!map || map->kind != PD_MAP_FILE || map->start - map->pgoff != p->reps[i].base ||
		    strcmp(map->path, p->reps[i].path) != 0) {
			proc_reset(u, p);
			break;
		}
	}
	if (!p->dwfl && u->ndwfl >= MAX_DWFL) /* the others' are made again when needed */
		for (unsigned k = 0; k < NBUCKET; k++)
			for (struct proc *o = u->procs[k]; o; o = o->next)
				proc_reset(u, o);
	if (!p->dwfl) {
		if (!(p->dwfl = dwfl_begin(&dwfl_cbs)))
			return NULL;
		u->ndwfl++;
	}
	return p;
}

struct pd_unwind *pd_unwind_new(const struct fk_host *h, const struct pd_file *f, const char *path,
                                const char *symfs, const char **why)
{
	struct pd_unwind *u = calloc(1, sizeof *u);

	*why = NULL;
	if (!u)
		return NULL;
	u->h = h;
	u->f = f;
	u->input = path;
	if (symfs && symfs[0] && !(u->symfs = strdup(symfs))) {
		free(u);
		return NULL;
	}
	return u;
}

void pd_unwind_free(struct pd_unwind *u)
{
	if (!u)
		return;
	for (unsigned b = 0; b < NBUCKET; b++) {
		while (u->procs[b]) {
			struct proc *p = u->procs[b];
			u->procs[b] = p->next;
			proc_reset(u, p);
			free(p);
		}
		while (u->files[b]) {
			struct file *f = u->files[b];
			u->files[b] = f->next;
			if (f->fd >= 0)
				close(f->fd);
			free(f->path);
			free(f);
		}
	}
	free(u->symfs);
	free(u);
}

int pd_unwind_sample(struct pd_unwind *u, struct pd_machine *m, struct pd_thread *t,
                     const struct pd_sample *s, uint64_t *ips, unsigned max, unsigned *n)
{
	uint64_t ip;

	*n = 0;
	if (!s->regs || !s->stack || !s->stack_size || max == 0)
		return 0; /* perf: nothing captured, nothing unwound */
	u->m = m;
	u->t = t;
	u->s = s;
	u->mask = s->attr->regs_user;
	u->ips = ips;
	u->max = max;
	u->n = 0;
	if (reg(u, R_IP, &ip) < 0)
		return 1; /* perf's libunwind unwinder fails, and the callchain with it */
	if (reg(u, R_SP, &u->sp) < 0) {
		if (ip) /* it cannot step: the sample's ip alone */
			ips[(*n)++] = ip;
		return 0;
	}
	if (!(u->p = proc_of(u, t->pid)))
		return -1;
	u->again = u->rbx_ok = u->lost = 0;
	if (report(u, ip) == 0 && (u->p->attached ||
	    (u->p->attached = dwfl_attach_state(u->p->dwfl, NULL, t->pid, &thread_cbs, u))))
		for (unsigned k = 0; dwfl_getthread_frames(u->p->dwfl, t->tid, frame, u) <= 0 &&
		     u->n < u->max && !u->oom && k < MAX_AGAIN && keep_same(u); k++) {
			u->again = 1; /* from the frame it stopped at, with rbx kept */
			u->rbx_ok = u->lost = 0;
		}
	u->again = 0;
	if (u->n == 0 && ip) /* perf's libunwind unwinder starts with the sample's ip, always */
		ips[u->n++] = ip;
	*n = u->n;
	return u->oom ? -1 : 0;
}
#else
struct pd_unwind *pd_unwind_new(const struct fk_host *h, const struct pd_file *f, const char *path,
                                const char *symfs, const char **why)
{
	(void)h, (void)f, (void)path, (void)symfs;
	*why = "user stacks (--call-graph dwarf) need libdw's unwinder, which this build of the plugin lacks";
	return NULL;
}

void pd_unwind_free(struct pd_unwind *u)
{
	(void)u;
}

int pd_unwind_sample(struct pd_unwind *u, struct pd_machine *m, struct pd_thread *t,
                     const struct pd_sample *s, uint64_t *ips, unsigned max, unsigned *n)
{
	(void)u, (void)m, (void)t, (void)s, (void)ips, (void)max;
	*n = 0;
	return 0;
}
#endif
