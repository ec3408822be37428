/* libfksym internals: shared by the files of plugins/lib/symbolize only. */
#ifndef FK_SYM_INTERNAL_H
#define FK_SYM_INTERNAL_H

#include <stdint.h>
#include <stddef.h>
#include <stdio.h>

#include "symbolize.h"

struct Dwarf;
struct Elf;

/* One symbol: [start, end) in the dso's address space (file offsets for
 * mapped files, as perf keeps them; absolute addresses for the kernel and
 * JIT maps).  name points into the symbolizer's string pool. */
struct fk_sym {
	uint64_t start, end;
	const char *name;
	uint32_t order;                   /* insertion order: ties keep the first, as perf's rbtree */
	uint8_t binding;                  /* STB_LOCAL, STB_GLOBAL, STB_WEAK */
	uint8_t sized;                    /* had a size of its own (not from fixup_end) */
	uint8_t mangled;                  /* name not demangled yet: done at first sight */
};

/* A node of perf's symbol rbtree, emulated over a symtab's entries
 * (indexes into v; FK_RB_NIL for none). */
#define FK_RB_NIL UINT32_MAX
struct fk_rbnode {
	uint64_t start;                   /* v[i].start, beside the links: the walks touch only these */
	uint32_t kid[2], parent;          /* kid[0] left, kid[1] right */
	uint8_t red;
};

/* A growing array of symbols, sorted and fixed up by fk_symtab_finish().
 * An ELF image's table also keeps the shape perf 6.1's rbtree of them
 * would have (rb, parallel to v; fk_symtab_finish_rb), since perf's lookup
 * of an address that two symbols cover returns the one nearer the root. */
struct fk_symtab {
	struct fk_sym *v;
	size_t n, cap;
	struct fk_rbnode *rb;             /* NULL: no tree, binary search */
	size_t rb_n, rb_cap;              /* entries v[0..rb_n) are in the tree */
	uint32_t root;
};

/* One compilation unit's functions and inlined instances by address
 * (dwarf.c), made the first time an address falls in it. */
struct fk_dw_cu;

/* A PT_LOAD segment: file offsets <-> ELF virtual addresses. */
struct fk_seg {
	uint64_t vaddr, offset, filesz;
};

/* Cached DWARF answer for one address (only with --inline or --srcline). */
struct fk_dw_entry {
	uint64_t addr;                    /* file offset; UINT64_MAX: empty slot */
	unsigned n;                       /* inline frames before the real function */
	struct fk_sym_frame *frames;      /* n entries, innermost first (name, file:line) */
	const char *fn_file, *addr_file;  /* the real function's line (call site), the address's */
	const char *fn_name;              /* the real function's DWARF name (--inline), or NULL */
	unsigned fn_line, addr_line;
};

enum fk_dso_kind { FK_DSO_FILE, FK_DSO_KERNEL, FK_DSO_JIT };

struct fk_dso {
	struct fk_symbolizer *s;
	enum fk_dso_kind kind;
	char *key;                        /* cache key: path + build id */
	const char *name;                 /* dso_name for results (pool) */
	struct fk_symtab syms;
	/* Kernel: module symbols stay in syms (module memory can interleave);
	 * kmod[i] is symbol i's module + 1 in modnames, 0 for the kernel. */
	const char **modnames;            /* "[mod]" (pool) */
	size_t nmods;
	uint16_t *kmod;
	uint64_t kdelta;                  /* kernel: kallsyms address - recorded address */
	uint64_t ktext, kstext;           /* kernel: _text and _stext in kallsyms, 0 if absent */
	/* kernel: syms hold only the kernel's own symbols, from perf's copy
	 * of kallsyms (kernel.c), for addresses in [kcore_lo, kcore_hi);
	 * kfull: /proc/kallsyms, all of it, from now on */
	int kcore, kfull;
	uint64_t kcore_lo, kcore_hi;
	unsigned char kbid[64];
	size_t kbid_len;
	/* DWARF, for mapped files with --inline/--srcline. */
	struct fk_seg *segs;
	size_t nsegs;
	char *dwarf_path;                 /* file with .debug_info, or NULL */
	struct Dwarf *dw;
	int dw_fd, dw_tried;
	struct fk_dw_entry *dwc;
	size_t dwc_n, dwc_cap;            /* entries used, slots (power of two) */
	struct fk_dw_cu *dwcu;            /* the units' function indexes (dwarf.c), by offset */
	size_t dwcu_n, dwcu_cap;
	struct fk_a2l *a2l;               /* with dwarf_names: the symbols addr2line reads (a2l.c) */
};

struct fk_symbolizer {
	struct fk_sym_config cfg;
	const struct fk_host *host;
	char *symfs, *kallsyms, *buildid_dir;
	struct fk_dso **dsos;             /* hash table by key, open addressing */
	size_t ndsos, cap;
	struct fk_dso *kernel;
	struct pool_chunk *pool;          /* strings handed out */
	int oom;
};

/* symbolize.c */
const char *fk_sym_strdup(struct fk_symbolizer *s, const char *str, size_t len);
/* The rest of f, NUL-terminated, in a chunk of the pool (freed with the
 * symbolizer; the caller may write into it); its length in *len.  NULL
 * and s->oom set when out of memory. */
char *fk_sym_pool_slurp(struct fk_symbolizer *s, FILE *f, size_t *len);
const char *fk_sym_demangle(struct fk_symbolizer *s, const char *name, int kernel);
void fk_sym_demangle_late(struct fk_symbolizer *s, struct fk_sym *sym);
void fk_sym_log(struct fk_symbolizer *s, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* symtab.c */
int fk_symtab_add(struct fk_symtab *t, uint64_t start, uint64_t size, int binding, const char *name);
void fk_symtab_finish(struct fk_symbolizer *s, struct fk_symtab *t, int kallsyms);
/* fk_symtab_finish (not kallsyms) of an ELF symbol table, as one pass of
 * perf's dso__load_sym_internal: the entries added since the last call
 * inserted into the tree as __symbols__insert does, then symbols__fixup_end
 * and symbols__fixup_duplicate (its losers erased from the tree). */
void fk_symtab_finish_rb(struct fk_symbolizer *s, struct fk_symtab *t);
/* The entries added since the last call inserted as symbols__insert
 * inserts them (dso__synthesize_plt_symbols), with no fixups: v is left
 * unsorted, which a table with a tree does not need.  A table without a
 * tree is finished as fk_symtab_finish(s, t, 0). */
void fk_symtab_insert_rb(struct fk_symbolizer *s, struct fk_symtab *t);
const struct fk_sym *fk_symtab_find(const struct fk_symtab *t, uint64_t addr);
void fk_symtab_free(struct fk_symtab *t);

/* elf.c: symbols of one ELF image into d (file offsets); 0, or -1 when the
 * image gave none.  want_symtab: only a .symtab counts. */
int fk_elf_build_id(struct Elf *elf, unsigned char *out, size_t size);
int fk_elf_load_syms(struct fk_dso *d, struct Elf *elf, int want_symtab);
int fk_elf_load_plt(struct fk_dso *d, struct Elf *elf);
int fk_elf_load_debugdata(struct fk_dso *d, struct Elf *elf);
int fk_elf_segments(struct fk_dso *d, struct Elf *elf);
int fk_elf_has_section(struct Elf *elf, const char *name);
const char *fk_elf_debuglink(struct Elf *elf);

/* find.c: the files to read for a mapped path */
void fk_dso_load_file(struct fk_dso *d, const char *path, const unsigned char *bid, size_t bid_len);

/* kernel.c */
void fk_dso_load_kernel(struct fk_dso *d, const unsigned char *bid, size_t bid_len);
void fk_dso_load_jitmap(struct fk_dso *d, int pid);
int fk_kernel_lookup(struct fk_dso *d, uint64_t addr, struct fk_sym_result *out);

/* dwarf.c */
int fk_dwarf_frames(struct fk_dso *d, uint64_t off, const struct fk_sym *sym, struct fk_sym_result *out);
void fk_dwarf_free(struct fk_dso *d);

/* a2l.c: the function addr2line names for an address from the symbol
 * table of the file perf hands it (perf's dso__name), where DWARF names
 * none.  fk_a2l_load: 0, or -1 when out of memory. */
struct fk_a2l;
int fk_a2l_load(struct fk_dso *d, struct Elf *elf);
const char *fk_a2l_name(struct fk_dso *d, uint64_t vaddr); /* NULL: addr2line names none */
void fk_a2l_free(struct fk_dso *d);

void fk_hex(char *out, const unsigned char *bid, size_t len);

#endif
