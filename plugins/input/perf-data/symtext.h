/*
 * The text perf script prints for one address (`\t    ADDR SYM+0xOFF
 * (DSO)`, or `[unknown]`), resolved through libfksym
 * (plugins/lib/symbolize/symbolize.h) and cached per DSO and address.
 * Built without libfksym (HAVE_LIBFKSYM undefined), pd_symtext_new
 * says "symbols need libfksym" and the caller falls back to perf script.
 *
 * Ownership: the symtext owns its symbolizer and cache; the struct
 * pd_file it is given must outlive it.
 */
#ifndef FK_PERF_DATA_SYMTEXT_H
#define FK_PERF_DATA_SYMTEXT_H

#include <flamekit/plugin.h>

#include "machine.h"
#include "obuf.h"
#include "pdfile.h"

struct pd_symtext;

/* NULL with *why set when symbols cannot be resolved in-process, NULL
 * with *why NULL when out of memory. */
struct pd_symtext *pd_symtext_new(const struct fk_host *h, const struct pd_file *f,
                                  const char *symfs, const char *kallsyms, const char **why);
/* The same, its frames with their inline callers, as perf prints the
 * frames of an unwound user stack (unwind_entry's append_inlines). */
struct pd_symtext *pd_symtext_new_inline(const struct fk_host *h, const struct pd_file *f,
                                         const char *symfs, const char *kallsyms,
                                         const char **why);
void pd_symtext_free(struct pd_symtext *st);

/* Print ip (in map, NULL for none; kernel: a kernel-mode address) into o: cc 1 as callchain lines
 * ("\t" ADDR " " SYM " (" DSO ")\n", one per inline frame), cc 0 as the
 * one-line form of a sample without callchain (raw ip, no newline).
 * 0, or -1 when out of memory. */
int pd_symtext_frame(struct pd_symtext *st, struct obuf *o, struct pd_map *map, int kernel,
                     uint64_t ip, int cc);

/* The kernel function holding *addr (in map, NULL for none), as a
 * callchain frame there is named: its name, *addr moved to its start; NULL
 * when unresolved.  For a tracepoint's "%pS" (trace.h). */
const char *pd_symtext_ksym(struct pd_symtext *st, struct pd_map *map, uint64_t *addr);

#endif
