# Fuzzing: libFuzzer harnesses built with clang and ASan/UBSan, outside the
# normal build (see doc/FUZZING.md).
#   make fuzz                          build BUILDDIR/fuzz/bin/fuzz-*
#   make fuzz-run FUZZ_SECONDS=N       replay fuzz/regress/, then fuzz each for N s
#   make fuzz-run FUZZ_TARGETS="folded perf"   only those harnesses
#   make fuzz-run FUZZ_RUNS=N FUZZ_SEED=S      at most N inputs each, from seed S:
#                                      the same inputs every time (CI's round)
# make check replays fuzz/regress/ through the flamekit command (fuzz/regress.sh).

FUZZ_CC = clang
FUZZ_CFLAGS = -g -O1
FUZZ_SECONDS = 60
FUZZ_TARGETS =
FUZZ_RUNS =
FUZZ_SEED =
# Input plugins kept outside plugins/input/, as NAME=DIR.
FUZZ_PLUGIN_DIRS = bpftrace-example=examples/plugin-bpftrace
FUZZ_ENV = FUZZ_CC='$(FUZZ_CC)' FUZZ_CFLAGS='$(FUZZ_CFLAGS)' \
	FUZZ_PLUGIN_DIRS='$(FUZZ_PLUGIN_DIRS)' \
	FUZZ_CPPFLAGS='$(YAML_CFLAGS) $(LUA_CFLAGS) $(ZLIB_CFLAGS) $(PROTOBUF_C_CFLAGS) $(YAJL_CFLAGS) $(LIBDW_CFLAGS) $(ZSTD_CFLAGS) $(TRACEEVENT_CFLAGS) $(XML2_CFLAGS)' \
	FUZZ_LIBS='$(LTDL_LIBS) $(YAML_LIBS) $(LUA_LIBS) $(ZLIB_LIBS) $(PROTOBUF_C_LIBS) $(YAJL_LIBS) $(ZSTD_LIBS) $(TRACEEVENT_LIBS) $(XML2_LIBS) $(LIBM) $(LIBDW_LIBS) $(LIBELF_LIBS) $(LIBLZMA_LIBS) $(LIBIBERTY_LIBS)'

# the pprof harness compiles the code protoc-c generates
fuzz: $(BUILT_SOURCES)
	@$(FUZZ_ENV) $(SHELL) $(top_srcdir)/fuzz/build.sh '$(abs_top_srcdir)' '$(abs_top_builddir)'

fuzz-run: fuzz
	@FK_CONFORMANCE='$(CONFORMANCE_DIR)' FUZZ_RUNS='$(FUZZ_RUNS)' FUZZ_SEED='$(FUZZ_SEED)' \
		$(SHELL) $(top_srcdir)/fuzz/run.sh \
		'$(abs_top_srcdir)' '$(abs_top_builddir)' '$(FUZZ_SECONDS)' $(FUZZ_TARGETS)

fuzz-clean:
	-rm -rf fuzz/bin fuzz/obj fuzz/seed-inputs fuzz/crashes fuzz/*.log

.PHONY: fuzz fuzz-run fuzz-clean

TESTS += fuzz/regress.sh
# the perfscript library's sources, for the perf harness
EXTRA_DIST += fuzz/input-perf.sources
EXTRA_DIST += fuzz/input.c fuzz/build.sh fuzz/run.sh fuzz/regress.sh fuzz/regress fuzz/seeds \
	fuzz/input-pprof.sources fuzz/input-perf-data.sources fuzz/input-speedscope.sources fuzz/input-v8.sources fuzz/input-chrome.sources fuzz/input-gecko.sources fuzz/input-html.sources fuzz/lua.c fuzz/lua.sources fuzz/lua.dict \
	fuzz/job.c fuzz/job.sources fuzz/job.dict fuzz/perf-data-header.c fuzz/perf-data-header.sources \
	fuzz/html.dict fuzz/xctrace.dict fuzz/html.seeds fuzz/demangle.c fuzz/demangle.sources fuzz/filter-run.h \
	fuzz/run.h
