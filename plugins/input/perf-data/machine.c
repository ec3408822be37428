/* Threads and maps as perf keeps them: see machine.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machine.h"

/* One process's maps, sorted by start, not overlapping; shared by its
 * threads (refs). */
struct pd_maps {
	struct pd_map *v;
	size_t n, cap;
	size_t hit;               /* where maps_find last found a map */
	uint64_t stamp;           /* this state's (pd_maps_stamp) */
	unsigned refs;
};

struct pd_machine {
	struct pd_thread **slots; /* open addressing on tid; NULL: empty */
	size_t nslots, nthreads;
	struct pd_maps kernel;
	uint64_t stamps;          /* the last stamp given to a state of maps */
	char **strs;              /* every string the machine made */
	size_t nstrs, capstrs;
};

static const char *keep(struct pd_machine *m, const char *s, size_t n)
{
	char *c;

	if (m->nstrs == m->capstrs) {
		size_t cap = m->capstrs ? 2 * m->capstrs : 256;
		char **nv = realloc(m->strs, cap * sizeof *nv);
		if (!nv)
			return NULL;
		m->strs = nv;
		m->capstrs = cap;
	}
	if (!(c = malloc(n + 1)))
		return NULL;
	memcpy(c, s, n);
	c[n] = '\0';
	m->strs[m->nstrs++] = c;
	return c;
}

static struct pd_maps *maps_new(void)
{
	struct pd_maps *ms = calloc(1, sizeof *ms);
	if (ms)
		ms->refs = 1;
	return ms;
}

static void maps_put(struct pd_maps *ms)
{
	if (ms && --ms->refs == 0) {
		free(ms->v);
		free(ms);
	}
}

/* A new state of ms: a stamp no state of any maps had. */
static void restamp(struct pd_machine *m, struct pd_maps *ms)
{
	ms->stamp = ++m->stamps;
}

/* The index of the first map whose end is above addr. */
static size_t maps_lower(const struct pd_maps *ms, uint64_t addr)
{
	size_t lo = 0, hi = ms->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ms->v[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Insert mp, splitting or removing what it overlaps (maps__fixup_overlappings). */
static int maps_insert(struct pd_maps *ms, const struct pd_map *mp)
{
	size_t i = maps_lower(ms, mp->start), j = i, add = 1;
	struct pd_map before, after;
	int has_before = 0, has_after = 0;

	while (j < ms->n && ms->v[j].start < mp->end)
		j++;
	/* maps i .. j-1 overlap mp */
	if (i < j && ms->v[i].start < mp->start) {
		before = ms->v[i];
		before.end = mp->start;
		has_before = 1;
	}
	if (i < j && ms->v[j - 1].end > mp->end) {
		after = ms->v[j - 1];
		if (after.kind == PD_MAP_FILE)
			after.pgoff += mp->end - after.start;
		after.start = mp->end;
		has_after = 1;
	}
	add += (size_t)has_before + (size_t)has_after;
	if (ms->n - (j - i) + add > ms->cap) {
		size_t cap = ms->cap ? 2 * ms->cap : 16;
		struct pd_map *nv;
		while (cap < ms->n - (j - i) + add)
			cap *= 2;
		if (!(nv = realloc(ms->v, cap * sizeof *nv)))
			return -1;
		ms->v = nv;
		ms->cap = cap;
	}
	memmove(ms->v + i + add, ms->v + j, (ms->n - j) * sizeof *ms->v);
	ms->n = ms->n - (j - i) + add;
	if (has_before)
		ms->v[i++] = before;
	ms->v[i++] = *mp;
	if (has_after)
		ms->v[i] = after;
	return 0;
}

/* The map covering addr.  A callchain's next frame is mostly in the map
 * of the one before (the kernel's, the program's, libc's), so the last
 * hit is tried first: maps do not overlap, so a map there that covers
 * addr is the one, whatever changed since. */
static struct pd_map *maps_find(struct pd_maps *ms, uint64_t addr)
{
	size_t i = ms->hit;

	if (i < ms->n && ms->v[i].start <= addr && addr < ms->v[i].end)
		return &ms->v[i];
	i = maps_lower(ms, addr);
	if (i < ms->n && ms->v[i].start <= addr) {
		ms->hit = i;
		return &ms->v[i];
	}
	return NULL;
}

static size_t slot_of(const struct pd_machine *m, int tid)
{
	uint64_t h = (uint64_t)(uint32_t)tid * 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 20) & (m->nslots - 1);
}

static struct pd_thread **lookup(struct pd_machine *m, int tid)
{
	size_t i = slot_of(m, tid);

	while (m->slots[i] && m->slots[i]->tid != tid)
		i = (i + 1) & (m->nslots - 1);
	return &m->slots[i];
}

static int grow(struct pd_machine *m)
{
	struct pd_thread **old = m->slots;
	size_t n = m->nslots;

	if (!(m->slots = calloc(2 * n, sizeof *m->slots))) {
		m->slots = old;
		return -1;
	}
	m->nslots = 2 * n;
	for (size_t i = 0; i < n; i++)
		if (old[i])
			*lookup(m, old[i]->tid) = old[i];
	free(old);
	return 0;
}

static void thread_free(struct pd_thread *t)
{
	if (t) {
		maps_put(t->maps);
		free(t);
	}
}

/* Drop the thread with this tid (a FORK reusing it). */
static void drop(struct pd_machine *m, int tid)
{
	struct pd_thread **s = lookup(m, tid);
	size_t i, j;

	if (!*s)
		return;
	thread_free(*s);
	*s = NULL;
	m->nthreads--;
	/* re-place the run after the hole (linear probing deletion) */
	i = (size_t)(s - m->slots);
	for (j = (i + 1) & (m->nslots - 1); m->slots[j]; j = (j + 1) & (m->nslots - 1)) {
		struct pd_thread *t = m->slots[j];
		m->slots[j] = NULL;
		*lookup(m, t->tid) = t;
	}
}

struct pd_thread *pd_thread_get(struct pd_machine *m, int pid, int tid)
{
	struct pd_thread **s, *t, *leader;
	char name[16];

	s = lookup(m, tid);
	if ((t = *s)) {
		/* machine__update_thread_pid: a pid is learnt once, never changed */
		if (pid == -1 || t->pid == pid || t->pid != -1)
			return t;
		t->pid = pid;
		if (pid == tid)
			return t;
		if (!(leader = pd_thread_get(m, pid, pid)))
			return NULL;
		t = *lookup(m, tid);
		if (t->maps != leader->maps) {
			maps_put(t->maps);
			t->maps = leader->maps;
			t->maps->refs++;
		}
		return t;
	}
	if (2 * (m->nthreads + 1) > m->nslots && grow(m) < 0)
		return NULL;
	if (!(t = calloc(1, sizeof *t)))
		return NULL;
	t->pid = pid;
	t->tid = tid;
	snprintf(name, sizeof name, ":%d", tid);
	if (!(t->comm = keep(m, name, strlen(name)))) {
		free(t);
		return NULL;
	}
	*lookup(m, tid) = t;
	m->nthreads++;
	if (pid == tid || pid == -1) {
		if ((t->maps = maps_new()))
			restamp(m, t->maps);
	} else if ((leader = pd_thread_get(m, pid, pid))) {
		t = *lookup(m, tid);
		t->maps = leader->maps;
		t->maps->refs++;
	}
	return t->maps ? t : NULL;
}

struct pd_machine *pd_machine_new(void)
{
	struct pd_machine *m = calloc(1, sizeof *m);
	struct pd_thread *idle;

	if (!m || !(m->slots = calloc(m->nslots = 1024, sizeof *m->slots)))
		goto fail;
	if (!(idle = pd_thread_get(m, 0, 0)) || !(idle->comm = keep(m, "swapper", 7)))
		goto fail;
	idle->comm_set = 1;
	return m;
fail:
	pd_machine_free(m);
	return NULL;
}

void pd_machine_free(struct pd_machine *m)
{
	if (!m)
		return;
	for (size_t i = 0; m->slots && i < m->nslots; i++)
		thread_free(m->slots[i]);
	free(m->slots);
	free(m->kernel.v);
	for (size_t i = 0; i < m->nstrs; i++)
		free(m->strs[i]);
	free(m->strs);
	free(m);
}

int pd_machine_comm(struct pd_machine *m, int pid, int tid, const char *comm)
{
	struct pd_thread *t = pd_thread_get(m, pid, tid);

	if (!t || !(t->comm = keep(m, comm, strlen(comm))))
		return -1;
	t->comm_set = 1;
	return 0;
}

int pd_machine_fork(struct pd_machine *m, int pid, int tid, int ppid, int ptid, int clone_maps)
{
	struct pd_thread *t, *parent;

	if (!(parent = pd_thread_get(m, ppid, ptid)))
		return -1;
	drop(m, tid);
	/* a thread there under ptid that is not the parent (a lost EXIT and
	 * FORK): perf drops it and makes the parent anew */
	if ((parent = pd_thread_get(m, ppid, ptid)) && parent->pid != ppid) {
		drop(m, ptid);
		parent = pd_thread_get(m, ppid, ptid);
	}
	if (!parent || !(t = pd_thread_get(m, pid, tid)) || !(parent = pd_thread_get(m, ppid, ptid)))
		return -1;
	if (parent->comm_set) {
		t->comm = parent->comm;
		t->comm_set = 1;
	}
	if (t->pid == parent->pid || t->maps == parent->maps || !clone_maps)
		return 0;
	/* a new process: a copy of the parent's maps */
	restamp(m, t->maps);
	for (size_t i = 0; i < parent->maps->n; i++)
		if (maps_insert(t->maps, &parent->maps->v[i]) < 0)
			return -1;
	return 0;
}

/* "[name]" for a module's path: its file name to the first '.', '-' as '_'
 * (kmod_path__parse_name). */
static const char *module_name(struct pd_machine *m, const char *path)
{
	const char *b = strrchr(path, '/');
	char buf[256];
	size_t n = 0;

	b = b ? b + 1 : path;
	buf[n++] = '[';
	for (; *b && *b != '.' && n < sizeof buf - 2; b++)
		buf[n++] = *b == '-' ? '_' : *b;
	buf[n++] = ']';
	return keep(m, buf, n);
}

static int starts(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

/* map__new's is_anon_memory (or MAP_HUGETLB in the record's flags) */
static int anon_memory(const char *filename, uint32_t flags)
{
	return strcmp(filename, "//anon") == 0 || starts(filename, "/dev/zero") ||
	       starts(filename, "/anon_hugepage") || (flags & PD_MAP_HUGETLB);
}

/* map__new's is_no_dso_memory */
static int no_dso_memory(const char *filename)
{
	return starts(filename, "[stack") || starts(filename, "/SYSV") || strcmp(filename, "[heap]") == 0;
}

int pd_machine_mmap(struct pd_machine *m, int kernel, int pid, int tid, uint64_t start,
                    uint64_t len, uint64_t pgoff, uint32_t prot, uint32_t flags,
                    const char *filename)
{
	struct pd_map mp = { 0 };
	struct pd_thread *t;
	char jit[40];

	mp.start = start;
	mp.end = start + len;
	mp.pgoff = pgoff;
	mp.pid = pid;
	if (kernel) {
		mp.kind = PD_MAP_KERNEL;
		if (starts(filename, "[kernel.kallsyms]")) {
			mp.name = keep(m, "[kernel.kallsyms]", 17);
			/* "[kernel.kallsyms]_text": the reference symbol, at pgoff */
			mp.path = keep(m, filename, strlen(filename));
			if (start == 0 && len == 0)
				mp.end = ~0ull;
		} else if (filename[0] == '/' || filename[0] == '[') {
			mp.name = mp.path = module_name(m, filename);
		} else
			return 0; /* perf ignores it too */
		restamp(m, &m->kernel);
		return mp.name && mp.path ? maps_insert(&m->kernel, &mp) : -1;
	}
	if (!(t = pd_thread_get(m, pid, tid)))
		return -1;
	/* map__new: anonymous memory and memory with no file ([heap],
	 * [stack*], /SYSV*) are mapped ip as is; when executable they are
	 * named /tmp/perf-PID.map, the JIT map (the thread's nsinfo has the
	 * pid; the idle task's, pid 0, is NULL, and keeps the name).  So
	 * chromium's code range, an rwx region the kernel names [heap] as it
	 * covers the program break, is perf-PID.map. */
	if (anon_memory(filename, flags) || no_dso_memory(filename)) {
		mp.kind = PD_MAP_IDENTITY;
		if ((prot & PD_PROT_EXEC) && pid != 0) {
			snprintf(jit, sizeof jit, "/tmp/perf-%d.map", pid);
			filename = jit;
		}
	} else {
		/* a file, or what map__new takes for one: [vsyscall] too (ip -
		 * start + pgoff, as perf prints it) */
		mp.kind = PD_MAP_FILE;
	}
	mp.name = mp.path = keep(m, filename, strlen(filename));
	if (!mp.name)
		return -1;
	restamp(m, t->maps);
	return maps_insert(t->maps, &mp);
}

int pd_machine_ksymbol(struct pd_machine *m, uint64_t addr, uint64_t len, int unregister,
                       const char *name)
{
	struct pd_map mp = { 0 }, *old = maps_find(&m->kernel, addr);

	if (unregister) {
		if (old && old->kind == PD_MAP_KSYM) {
			size_t i = (size_t)(old - m->kernel.v);
			memmove(old, old + 1, (m->kernel.n - i - 1) * sizeof *old);
			m->kernel.n--;
			restamp(m, &m->kernel);
		}
		return 0;
	}
	if (old)
		return 0; /* perf adds the symbol to the map there; ours come from the symbolizer */
	mp.start = addr;
	mp.end = addr + len;
	mp.kind = PD_MAP_KSYM;
	if (!(mp.name = keep(m, name, strlen(name))))
		return -1;
	mp.path = mp.name;
	restamp(m, &m->kernel);
	return maps_insert(&m->kernel, &mp);
}

struct pd_map *pd_map_find(struct pd_machine *m, struct pd_thread *t, int kernel, uint64_t addr)
{
	return maps_find(kernel ? &m->kernel : t->maps, addr);
}

uint64_t pd_maps_stamp(const struct pd_thread *t)
{
	return t->maps->stamp;
}

uint64_t pd_kernel_stamp(const struct pd_machine *m)
{
	return m->kernel.stamp;
}
