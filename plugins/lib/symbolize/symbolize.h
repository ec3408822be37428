/* libfksym: symbols for addresses in mapped files, the kernel and JIT maps,
 * resolved as `perf script -F ip,sym,symoff,dso` (perf 6.1) resolves them.
 *
 * A convenience library (plugins/lib/libfksym.la, PIC) linked into the
 * plugins that need it: perf-data, pprof.  Built on elfutils (libelf, libdw)
 * and libiberty (demangling); liblzma for .gnu_debugdata.
 *
 * Ownership: the symbolizer owns every dso and every string it hands out;
 * all of them stay valid until fk_symbolizer_free().  A symbolizer is not
 * thread-safe: use one per worker.  The config's strings are copied.
 * See doc/SYMBOLIZE.md for the rules followed and where they differ from perf.
 */
#ifndef FK_SYMBOLIZE_H
#define FK_SYMBOLIZE_H

#include <stddef.h>
#include <stdint.h>

struct fk_host;
struct fk_symbolizer;                 /* one per input; caches DSOs; not thread-safe: one per worker */
struct fk_dso;                        /* owned by the symbolizer, valid until fk_symbolizer_free */
struct fk_sym_config {
	const char *symfs;                /* --symfs DIR, or NULL */
	const char *kallsyms;             /* --kallsyms FILE, or NULL: /proc/kallsyms when the build id matches */
	const char *buildid_dir;          /* perf's build-id cache, default $HOME/.debug; NULL = default */
	int inline_frames;                /* --inline: report inlined callers */
	int srcline;                      /* --srcline: file:line */
	int demangle;                     /* 0 = as stored, 1 = as perf script prints (C++ and Rust, no parameters) */
	int guard_links;                  /* files opened by fk_sym_open_guarded (paths an untrusted file names) */
	int dwarf_names;                  /* with inline_frames: the real function named as DWARF names it where
	                                   * that is not its ELF symbol's name, marked inlined (perf's
	                                   * append_inlines on an unwound user stack) */
};
struct fk_sym_frame { const char *name; uint64_t offset; const char *file; unsigned line;
                     int inlined; /* the real function named by DWARF, not its ELF symbol's name: perf prints it "(inlined)" */
};  /* strings owned by the symbolizer */
struct fk_sym_result {
	const char *dso_name;             /* what perf script prints in parentheses */
	unsigned n;                       /* frames: [0] the innermost inline frame ... [n-1] the real function; n=0: unresolved */
	struct fk_sym_frame frames[16];
};
struct fk_symbolizer *fk_symbolizer_new(const struct fk_sym_config *cfg, const struct fk_host *host);
void fk_symbolizer_free(struct fk_symbolizer *s);
/* A mapped file by path and recorded build id (NULL/0 when the record has none). Never NULL: a
 * file that cannot be read, or whose build id differs (reported once through host->log), gives a
 * dso whose lookups are unresolved, as perf prints [unknown]. */
struct fk_dso *fk_sym_dso(struct fk_symbolizer *s, const char *path, const unsigned char *build_id, size_t build_id_len);
struct fk_dso *fk_sym_kernel(struct fk_symbolizer *s, const unsigned char *build_id, size_t build_id_len); /* [kernel.kallsyms] with modules */
struct fk_dso *fk_sym_jitmap(struct fk_symbolizer *s, int pid);   /* /tmp/perf-PID.map, or an empty dso */
/* Look an address up. For a mapped file, pgoff_addr is the file offset as perf computes it
 * (ip - map_start + map_pgoff); the library maps file offsets to ELF virtual addresses through the
 * program headers (as perf's map__map_ip + dso rip conversion do). For the kernel and JIT maps,
 * addr is the absolute address. Returns 0, or a negative status on out-of-memory only. */
int fk_sym_lookup(struct fk_dso *d, uint64_t addr, struct fk_sym_result *out);

/* Added after the agreed interface. */

/* KASLR: the kernel MMAP record of a capture names a reference symbol and
 * where it was then ("[kernel.kallsyms]_text", pgoff = _text's address).
 * When kallsyms (read at another boot) has it elsewhere, lookups on k are
 * moved by the difference, as perf's kallsyms__delta moves its symbols.
 * ref_name: "_text" or "_stext".  0, or -1 when kallsyms lacks it (nothing changed). */
int fk_sym_kernel_reloc(struct fk_dso *k, const char *ref_name, uint64_t recorded_addr);

/* Open the regular file at path read-only, following a symbolic link only
 * where fs.protected_symlinks' rule lets the caller, whatever the sysctl
 * says (open.c): the fd, or -1 with errno; anything but a regular file
 * (a FIFO, a device) is refused before it is opened, with EISDIR; a refused
 * link gives EACCES and its owner in *link_uid (else -1). */
int fk_sym_open_guarded(const char *path, long *link_uid);
/* The GNU build id of the ELF file at path into out (at most size bytes):
 * its length, 0 when it has none, or -errno when path cannot be read as a
 * regular ELF file (-ENOEXEC: not ELF; -EACCES with *link_uid set: a link
 * refused as fk_sym_open_guarded refuses it, when guard). */
int fk_sym_file_build_id(const char *path, int guard, unsigned char *out, size_t size, long *link_uid);

#endif
