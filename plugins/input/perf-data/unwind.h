/*
 * User stacks of `perf record --call-graph dwarf` samples (REGS_USER and
 * STACK_USER, pdfile.h) unwound in-process with elfutils' libdwfl, the way
 * perf's tools/perf/util/unwind-libdw.c unwinds them: one Dwfl per process,
 * the mapped files reported as modules at map start - pgoff as samples
 * reach them, memory read from the stack copy or else from the mapped
 * file's bytes, the x86_64 registers given in DWARF's order.  The frames
 * are perf's: the sample's ip, then each caller's return address - 1
 * (unless a signal frame), at most max of them.
 *
 * Files are opened with fk_sym_open_guarded (a planted link or a device is
 * refused), under --symfs when given; a file that cannot be read is
 * reported once through host->log and the unwinding stops there, as perf's
 * stops.  Debug info beside a file (.debug_frame) is not looked for:
 * .eh_frame is what the unwinding uses.  The vDSO is perf record's copy in
 * the build-id cache ($HOME/.debug/[vdso]/ID/vdso), else this process's own
 * when its build id is the recorded one.
 *
 * A process's Dwfl is kept across its samples and made again when a map it
 * was given has changed (an exec, a dlclose) since; past 64 of them (each
 * holds a file descriptor per module) the others are dropped, to be made
 * again when their processes' samples come.
 *
 * Ownership: the unwinder owns its Dwfls, files and copies of names; the
 * machine, thread and sample it is given are only read during the call.
 * Built without it (PD_UNWIND undefined: no libfksym) pd_unwind_new says why
 * and the caller runs perf script instead.
 */
#ifndef FK_PERF_DATA_UNWIND_H
#define FK_PERF_DATA_UNWIND_H

#include <flamekit/plugin.h>

#include "machine.h"
#include "pdfile.h"

struct pd_unwind;

/* Why file f's user stacks cannot be unwound natively (other
 * architectures), as a phrase, or NULL. */
const char *pd_unwind_unsupported(const struct pd_file *f);
/* Why sample s cannot be unwound natively (a 32-bit process's registers),
 * or NULL. */
const char *pd_unwind_sample_unsupported(const struct pd_sample *s);
/* What is wrong with an attribute's sample_regs_user mask for unwinding
 * (a phrase for "its user registers (sample_regs_user 0x...) ..."), or
 * NULL. */
const char *pd_unwind_mask_problem(uint64_t mask);

/* NULL with *why set when user stacks cannot be unwound in-process, NULL
 * with *why NULL when out of memory.  f (its build ids) must outlive the
 * unwinder; symfs: --symfs DIR or NULL (copied). */
struct pd_unwind *pd_unwind_new(const struct fk_host *h, const struct pd_file *f, const char *path,
                                const char *symfs, const char **why);
void pd_unwind_free(struct pd_unwind *u);

/* The user frames of sample s of thread t into ips[0 .. *n), innermost
 * first, at most max; *n 0 when the sample has no registers or stack.
 * 0; 1 when the registers lack the instruction pointer (perf then prints
 * none of the sample's callchain); -1 when out of memory. */
int pd_unwind_sample(struct pd_unwind *u, struct pd_machine *m, struct pd_thread *t,
                     const struct pd_sample *s, uint64_t *ips, unsigned max, unsigned *n);

#endif
