/*
 * Threads and memory maps as perf keeps them while it reads a perf.data
 * file (tools/perf/util/machine.c, thread.c, maps.c, perf 6.1):
 *   - a thread is found by its tid; a new one is named ":TID" until a COMM
 *     names it, and shares the maps of its process's leader (pid == tid);
 *     thread 0 is "swapper" from the start (perf_session__register_idle_thread);
 *   - COMM renames the thread (an exec's COMM too: perf keeps the maps, the
 *     new program's MMAPs replace the old ones where they overlap);
 *   - FORK of a new process copies the parent's maps (unless the record is
 *     a synthesized one, PERF_RECORD_MISC_FORK_EXEC), of a new thread
 *     shares them, and takes the parent's name if it has one; a tid that
 *     exists already is a new thread (the old one is dropped);
 *   - EXIT changes nothing perf script prints;
 *   - an MMAP splits or removes the maps it overlaps (maps__fixup_overlappings);
 *   - kernel-mode MMAPs are the kernel's ([kernel.kallsyms]) and modules';
 *     KSYMBOL records add (and remove) BPF programs' maps, each with its one
 *     symbol.
 *
 * Ownership: the machine owns every thread, map and string; the pointers
 * it returns stay valid until the next call that changes it (a map) or
 * until pd_machine_free (strings).
 */
#ifndef FK_PERF_DATA_MACHINE_H
#define FK_PERF_DATA_MACHINE_H

#include <stddef.h>
#include <stdint.h>

enum pd_map_kind {
	PD_MAP_FILE,      /* a mapped file: address ip - start + pgoff */
	PD_MAP_IDENTITY,  /* anonymous JIT code (/tmp/perf-PID.map), [heap], [stack]: ip as is */
	PD_MAP_KERNEL,    /* [kernel.kallsyms] or a module: ip as is */
	PD_MAP_KSYM,      /* a BPF program (KSYMBOL): its own symbol, ip - start */
};

struct pd_map {
	uint64_t start, end, pgoff;
	const char *name;          /* what perf script prints as the DSO (owned by the machine) */
	const char *path;          /* the file to read symbols from (the MMAP's filename) */
	enum pd_map_kind kind;
	int pid;                   /* the JIT map's process */
	void *dso;                 /* the symbolizer's dso, set by the caller, NULL at first */
};

struct pd_maps;

struct pd_thread {
	int pid, tid;
	const char *comm;          /* owned by the machine */
	int comm_set;
	struct pd_maps *maps;
};

struct pd_machine;

struct pd_machine *pd_machine_new(void);
void pd_machine_free(struct pd_machine *m);

/* machine__findnew_thread: NULL only when out of memory. */
struct pd_thread *pd_thread_get(struct pd_machine *m, int pid, int tid);

/* The records.  0, or -1 when out of memory. */
int pd_machine_comm(struct pd_machine *m, int pid, int tid, const char *comm);
int pd_machine_fork(struct pd_machine *m, int pid, int tid, int ppid, int ptid, int clone_maps);
/* A user MMAP/MMAP2 (kernel: the cpumode of the record is kernel).  prot
 * and flags are the MMAP2 record's (an MMAP's: PD_PROT_EXEC unless its
 * misc says data, and no flags, as perf 6.1's machine__process_mmap_event
 * gives map__new). */
#define PD_PROT_EXEC 0x4u       /* PROT_EXEC */
#define PD_MAP_HUGETLB 0x40000u /* MAP_HUGETLB */
int pd_machine_mmap(struct pd_machine *m, int kernel, int pid, int tid, uint64_t start,
                    uint64_t len, uint64_t pgoff, uint32_t prot, uint32_t flags,
                    const char *filename);
int pd_machine_ksymbol(struct pd_machine *m, uint64_t addr, uint64_t len, int unregister,
                       const char *name);

/* The map covering addr in the thread's maps (user) or the kernel's, or
 * NULL. */
struct pd_map *pd_map_find(struct pd_machine *m, struct pd_thread *t, int kernel, uint64_t addr);

/* The stamp of the present state of the thread's maps, and of the
 * kernel's: a number that no other state of any maps of the machine has
 * had, so that what was found in a state can be kept by its stamp
 * (chains.h).  A state changes with each MMAP, KSYMBOL and new process. */
uint64_t pd_maps_stamp(const struct pd_thread *t);
uint64_t pd_kernel_stamp(const struct pd_machine *m);

/* The address perf prints for ip in map (map__map_ip), ip without a map. */
static inline uint64_t pd_map_ip(const struct pd_map *map, uint64_t ip)
{
	if (!map || map->kind == PD_MAP_IDENTITY || map->kind == PD_MAP_KERNEL)
		return ip;
	return ip - map->start + (map->kind == PD_MAP_FILE ? map->pgoff : 0);
}

#endif
