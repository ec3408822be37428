# The folded grammar's one owner: a convenience library linked by the engine
# (and so by the command) and by the folded input and output plugins.
noinst_LTLIBRARIES += lib/folded/libfkfolded.la
lib_folded_libfkfolded_la_SOURCES = lib/folded/fkfolded.c lib/folded/fkfolded.h
lib_folded_libfkfolded_la_LIBADD = $(LIBM)
