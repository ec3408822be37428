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

/* What the user asked of the symbols (the strings stay the caller's). */
struct pd_symtext_opts {
	const char *symfs, *kallsyms; /* --symfs, --kallsyms, or NULL */
	int inline_frames;            /* --inline: "\t ADDR NAME+0xOFF (inlined)" lines, innermost
	                               * first, OFF the function's own, as perf script --inline */
	int srcline;                  /* --srcline: ":FILE:LINE" (FILE's base name) after NAME */
	int demangle;                 /* 0: names as the files hold them (--no-demangle) */
	int dwarf_names;              /* the function itself as DWARF names it, "(inlined)" where
	                               * that is not its ELF name: an unwound user stack's frames */
};

/* NULL with *why set when symbols cannot be resolved in-process, NULL
 * with *why NULL when out of memory. */
struct pd_symtext *pd_symtext_new(const struct fk_host *h, const struct pd_file *f,
                                  const struct pd_symtext_opts *o, const char **why);
void pd_symtext_free(struct pd_symtext *st);

/* Print ip (in map, NULL for none; kernel: a kernel-mode address) into o: cc 1 as callchain lines
 * ("\t" ADDR " " SYM " (" DSO ")\n", after one per inline frame), cc 0 as the
 * one-line form of a sample without callchain (raw ip, no newline).
 * 0, or -1 when out of memory. */
int pd_symtext_frame(struct pd_symtext *st, struct obuf *o, struct pd_map *map, int kernel,
                     uint64_t ip, int cc);

/* The same callchain lines by reference: where they are in st's text
 * (pd_symtext_text), how long, how many; an entry's text never changes
 * and no other entry's starts at the same offset.  0, or -1 when out of
 * memory. */
struct pd_symref {
	uint32_t off, len, lines;
};
int pd_symtext_ref(struct pd_symtext *st, struct pd_map *map, int kernel, uint64_t ip,
                   struct pd_symref *ref);
/* The text at off: valid until the next pd_symtext_frame or _ref (which
 * may move it). */
const char *pd_symtext_text(const struct pd_symtext *st, uint32_t off);

/* The kernel function holding *addr (in map, NULL for none), as a
 * callchain frame there is named: its name, *addr moved to its start; NULL
 * when unresolved.  For a tracepoint's "%pS" (trace.h). */
const char *pd_symtext_ksym(struct pd_symtext *st, struct pd_map *map, uint64_t *addr);

#endif
