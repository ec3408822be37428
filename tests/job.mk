# Job files and Lua filters: the installed example jobs and stock scripts,
# and their tests.

# `flamekit run` with no job runs $(pkgdatadir)/conf/example.yaml.
flamekit_CPPFLAGS = $(AM_CPPFLAGS) -DFK_PKGDATADIR='"$(pkgdatadir)"'

luadir = $(pkgdatadir)/lua
dist_lua_DATA = \
	lua/collapse-recursion.lua \
	lua/colour-kernel.lua \
	lua/colour-module.lua \
	lua/cut-above.lua \
	lua/drop-idle.lua \
	lua/exclude.lua \
	lua/focus.lua \
	lua/per-thread.lua \
	lua/short-names.lua \
	lua/strip-offsets.lua

confdir = $(pkgdatadir)/conf
dist_conf_DATA = \
	conf/example.yaml \
	conf/folded.yaml \
	conf/svg.yaml \
	conf/icicle.yaml \
	conf/flamechart.yaml \
	conf/differential.yaml \
	conf/hotcold.yaml
EXTRA_DIST += conf/perf.yaml conf/demo.yaml conf/hotcold-perf.yaml
confdatadir = $(pkgdatadir)/conf/data
dist_confdata_DATA = \
	conf/data/app.folded \
	conf/data/before.folded \
	conf/data/after.folded \
	conf/data/on-cpu.folded \
	conf/data/off-cpu.folded

# Test-only plugins: an input with modules and metadata, an output showing
# modules and colours.
check_LTLIBRARIES += tests/modules/meta.la tests/modules/dump.la
tests_modules_meta_la_SOURCES = tests/modules/meta.c
tests_modules_meta_la_LDFLAGS = $(TEST_MODULE_LDFLAGS)
tests_modules_dump_la_SOURCES = tests/modules/dump.c
tests_modules_dump_la_LDFLAGS = $(TEST_MODULE_LDFLAGS)

TESTS += tests/job.sh tests/lua.sh tests/unit/job.t
check_PROGRAMS += tests/unit/job.t
tests_unit_job_t_SOURCES = tests/unit/job.c tests/unit/testlib.h
tests_unit_job_t_CFLAGS = $(TEST_CFLAGS)
tests_unit_job_t_LDADD = $(TEST_LDADD)
EXTRA_DIST += tests/job.sh tests/lua.sh tests/data/job tests/data/lua
