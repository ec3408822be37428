# Job files and Lua filters: their tests (the example jobs install from
# conf/local.mk, the stock scripts from lua/local.mk).

# Test-only plugins: an input with modules and metadata, an output showing
# modules and colours, an output with min_weight() showing its tree.
check_LTLIBRARIES += tests/modules/meta.la tests/modules/dump.la tests/modules/prune.la
tests_modules_meta_la_SOURCES = tests/modules/meta.c
tests_modules_meta_la_LDFLAGS = $(TEST_MODULE_LDFLAGS)
tests_modules_dump_la_SOURCES = tests/modules/dump.c
tests_modules_dump_la_LDFLAGS = $(TEST_MODULE_LDFLAGS)
tests_modules_prune_la_SOURCES = tests/modules/prune.c
tests_modules_prune_la_LDFLAGS = $(TEST_MODULE_LDFLAGS)

TESTS += tests/job.sh tests/diff-job.sh tests/lua.sh tests/unit/job.t
check_PROGRAMS += tests/unit/job.t
tests_unit_job_t_SOURCES = tests/unit/job.c tests/unit/testlib.h
tests_unit_job_t_CFLAGS = $(TEST_CFLAGS)
tests_unit_job_t_LDADD = $(TEST_LDADD)
EXTRA_DIST += tests/job.sh tests/diff-job.sh tests/lua.sh tests/data/job tests/data/lua
