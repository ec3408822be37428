# Engine tests: cmocka units, deliberately broken plugin modules, CLI tests.

check_PROGRAMS += tests/unit/engine.t tests/unit/loader.t tests/unit/context.t tests/unit/vector.t
TESTS += tests/unit/engine.t tests/unit/loader.t tests/unit/context.t tests/unit/vector.t
tests_unit_engine_t_SOURCES = tests/unit/engine.c tests/unit/testlib.h
tests_unit_engine_t_CFLAGS = $(TEST_CFLAGS)
tests_unit_engine_t_LDADD = $(TEST_LDADD)
tests_unit_context_t_SOURCES = tests/unit/context.c tests/unit/testlib.h
tests_unit_context_t_CFLAGS = $(TEST_CFLAGS)
tests_unit_context_t_LDADD = $(TEST_LDADD)
tests_unit_loader_t_SOURCES = tests/unit/loader.c tests/unit/testlib.h
tests_unit_loader_t_CFLAGS = $(TEST_CFLAGS)
tests_unit_loader_t_LDADD = $(TEST_LDADD)
tests_unit_vector_t_SOURCES = tests/unit/vector.c tests/unit/testlib.h
tests_unit_vector_t_CFLAGS = $(TEST_CFLAGS)
tests_unit_vector_t_LDADD = $(TEST_LDADD)

# The one caller of plugin callbacks (engine/calls.c): its unit test, and
# the scan that keeps every call of a callback there.
check_PROGRAMS += tests/unit/calls.t
TESTS += tests/unit/calls.t tests/calls.sh
tests_unit_calls_t_SOURCES = tests/unit/calls.c tests/unit/testlib.h
tests_unit_calls_t_CFLAGS = $(TEST_CFLAGS)
tests_unit_calls_t_LDADD = $(TEST_LDADD)
EXTRA_DIST += tests/calls.sh

# Test-only modules (not installed): -rpath makes libtool build them shared.
TEST_MODULE_LDFLAGS = -module -avoid-version -rpath /nowhere
check_LTLIBRARIES += tests/modules/badmagic.la tests/modules/wrongabi.la \
	tests/modules/noentry.la tests/modules/dupname.la tests/modules/oldminor.la
tests_modules_badmagic_la_SOURCES = tests/modules/badmagic.c
tests_modules_badmagic_la_LDFLAGS = $(TEST_MODULE_LDFLAGS)
tests_modules_wrongabi_la_SOURCES = tests/modules/wrongabi.c
tests_modules_wrongabi_la_LDFLAGS = $(TEST_MODULE_LDFLAGS)
tests_modules_noentry_la_SOURCES = tests/modules/noentry.c
tests_modules_noentry_la_LDFLAGS = $(TEST_MODULE_LDFLAGS)
tests_modules_dupname_la_SOURCES = tests/modules/dupname.c
tests_modules_dupname_la_LDFLAGS = $(TEST_MODULE_LDFLAGS)
tests_modules_oldminor_la_SOURCES = tests/modules/oldminor.c
tests_modules_oldminor_la_LDFLAGS = $(TEST_MODULE_LDFLAGS)
EXTRA_DIST += tests/modules/garbage.so

TESTS += tests/cli.sh tests/folded-conformance.sh tests/limits.sh tests/outputs.sh
TESTS += tests/context.sh tests/graph-job.sh tests/layering.sh
EXTRA_DIST += tests/context.sh tests/graph-job.sh tests/layering.sh
EXTRA_DIST += tests/cli.sh tests/folded-conformance.sh tests/limits.sh tests/outputs.sh tests/lib.sh tests/dist-files.sh tests/distcheck.list \
	tests/data/folded/basic.txt tests/data/folded/hostile.txt

# A worker's error in job k of n (engine/workers.c) said once and in order,
# as one thread says it: chunks, ranges and perf-data's time slices.
TESTS += tests/threads-errors.sh
EXTRA_DIST += tests/threads-errors.sh

# Shell completion, installed by make install and driven as bash drives it.
TESTS += tests/completion.sh
EXTRA_DIST += tests/completion.sh

# inferno's spellings and palettes (rust, python) against an awk oracle.
TESTS += tests/inferno.sh
EXTRA_DIST += tests/inferno.sh

# Narrowing flags (the narrow filter) against go tool pprof and awk.
TESTS += tests/narrow.sh
EXTRA_DIST += tests/narrow.sh

# The strip-hex filter (difffolded.pl -s) against sed and awk: collapse,
# graph, a job, diff.
TESTS += tests/strip-hex.sh
EXTRA_DIST += tests/strip-hex.sh

# Root among other users: links another user planted, the --cp map, signals.
TESTS += tests/trust.sh
EXTRA_DIST += tests/trust.sh

# The command built with fault injection (cli/main.c, FK_FAULT_INJECTION):
# tests/faults.sh fails the engine's allocations at every point of whole runs.
check_PROGRAMS += tests/flamekit-faults
tests_flamekit_faults_SOURCES = $(flamekit_SOURCES)
tests_flamekit_faults_CPPFLAGS = $(AM_CPPFLAGS) -DFK_FAULT_INJECTION
tests_flamekit_faults_LDADD = libfkengine.la
# (TESTS lists tests/faults.sh first: Makefile.am)
EXTRA_DIST += tests/faults.sh

# Descriptors a third party could write from the header that break one
# loader rule each (tests/unit/loader.c): kept in a directory of their own
# so the directory-loading test above keeps its count.
check_LTLIBRARIES += tests/modules/bad/optsize.la tests/modules/bad/optname.la \
	tests/modules/bad/optdup.la tests/modules/bad/optdefault.la \
	tests/modules/bad/opttype.la tests/modules/bad/wrongkind.la \
	tests/modules/bad/demangle.la tests/modules/check/top.la
tests_modules_bad_optsize_la_SOURCES = tests/modules/bad/optsize.c tests/modules/bad/common.h
tests_modules_bad_optsize_la_LDFLAGS = $(TEST_MODULE_LDFLAGS)
tests_modules_bad_optname_la_SOURCES = tests/modules/bad/optname.c tests/modules/bad/common.h
tests_modules_bad_optname_la_LDFLAGS = $(TEST_MODULE_LDFLAGS)
tests_modules_bad_optdup_la_SOURCES = tests/modules/bad/optdup.c tests/modules/bad/common.h
tests_modules_bad_optdup_la_LDFLAGS = $(TEST_MODULE_LDFLAGS)
tests_modules_bad_optdefault_la_SOURCES = tests/modules/bad/optdefault.c tests/modules/bad/common.h
tests_modules_bad_optdefault_la_LDFLAGS = $(TEST_MODULE_LDFLAGS)
tests_modules_bad_opttype_la_SOURCES = tests/modules/bad/opttype.c tests/modules/bad/common.h
tests_modules_bad_opttype_la_LDFLAGS = $(TEST_MODULE_LDFLAGS)
tests_modules_bad_wrongkind_la_SOURCES = tests/modules/bad/wrongkind.c
tests_modules_bad_wrongkind_la_LDFLAGS = $(TEST_MODULE_LDFLAGS)
tests_modules_bad_demangle_la_SOURCES = tests/modules/bad/demangle.c
tests_modules_bad_demangle_la_LDFLAGS = $(TEST_MODULE_LDFLAGS)
# A good third-party output with a range check in check(): tests/sdk/checks.sh.
tests_modules_check_top_la_SOURCES = tests/modules/check/top.c
tests_modules_check_top_la_LDFLAGS = $(TEST_MODULE_LDFLAGS)
