# symbolize: libfksym, addresses to symbols as `perf script` resolves them
# (symbolize.h, doc/SYMBOLIZE.md): ELF .symtab/.dynsym, separate debuginfo,
# .gnu_debugdata, PLT entries, the vDSO, kallsyms with modules, JIT maps,
# inline frames and source lines from DWARF.  A convenience library (PIC)
# linked into the plugins that need it (perf-data, pprof): link
# plugins/lib/symbolize/libfksym.la and add $(FK_SYM_CPPFLAGS).
noinst_LTLIBRARIES += plugins/lib/symbolize/libfksym.la
plugins_lib_symbolize_libfksym_la_SOURCES = \
	plugins/lib/symbolize/symbolize.h \
	plugins/lib/symbolize/internal.h \
	plugins/lib/symbolize/symbolize.c \
	plugins/lib/symbolize/symtab.c \
	plugins/lib/symbolize/elf.c \
	plugins/lib/symbolize/find.c \
	plugins/lib/symbolize/open.c \
	plugins/lib/symbolize/kernel.c \
	plugins/lib/symbolize/dwarf.c \
	plugins/lib/symbolize/a2l.c
plugins_lib_symbolize_libfksym_la_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS) $(LIBDW_CFLAGS) $(LIBLZMA_CFLAGS)
plugins_lib_symbolize_libfksym_la_LIBADD = $(LIBDW_LIBS) $(LIBELF_LIBS) $(LIBLZMA_LIBS) $(LIBIBERTY_LIBS)
FK_SYM_CPPFLAGS = -I$(top_srcdir)/plugins/lib/symbolize
# the contract note for the library's callers
EXTRA_DIST += doc/SYMBOLIZE.md
