# Tests of the input plugins dtrace, stap, pmcstat, instruments and ljp, and
# of format auto-detection.
TESTS += tests/input.sh # and tests/detect.sh, first (Makefile.am)
# Their fixtures ship folder by folder, as tests/job.mk ships tests/data/job.
EXTRA_DIST += tests/input.sh tests/detect.sh tests/data/detect tests/data/dtrace \
	tests/data/stap tests/data/pmcstat tests/data/instruments tests/data/ljp

# pprof and v8 in, pprof and speedscope out, against go tool pprof and the
# V8 file's own node tree (tests/interop.sh).
TESTS += tests/interop.sh
EXTRA_DIST += tests/interop.sh tests/interop.py \
	tests/data/pprof/gen.go tests/data/pprof/cpu.pb.gz tests/data/pprof/heap.pb.gz \
	tests/data/pprof/labels.pb.gz \
	tests/data/v8/gen.js tests/data/v8/node.cpuprofile

# pprof profiles without names symbolized from local binaries, against go
# tool pprof -symbolize=local and addr2line -i (tests/pprof-sym.sh).
TESTS += tests/pprof-sym.sh
EXTRA_DIST += tests/pprof-sym.sh tests/pprof-strip.py tests/data/pprofsym/busy.go
# The v8 input's old format (the "head" tree) against tests/oracle/cpuprofile-head.py,
# and current profiles converted to it (tests/v8-head.sh).
TESTS += tests/v8-head.sh
EXTRA_DIST += tests/v8-head.sh tests/oracle/cpuprofile-head.py tests/data/v8/old.cpuprofile

# Bounded on hostile input: deep V8 and report chains, decompression bombs,
# /dev/zero, --max-input-size (tests/bounds.sh; timings in bench/70-bounds.sh).
TESTS += tests/bounds.sh
EXTRA_DIST += tests/bounds.sh tests/pbgen.py
# The JSON input plugins (speedscope, ...): hand-written files against
# Python oracles over the JSON, round trips through flamekit's outputs.
TESTS += tests/speedscope.sh
EXTRA_DIST += tests/speedscope.sh tests/speedscope.py tests/jsonlib.sh \
	tests/data/speedscope/mixed.json tests/data/speedscope/profiles-first.json \
	tests/data/speedscope/bytes.json
TESTS += tests/chrome.sh
EXTRA_DIST += tests/chrome.sh tests/chrome.py \
	tests/data/chrome/startup.json tests/data/chrome/events.json tests/data/chrome/cpuprofile-event.json \
	tests/data/chrome/cpuprofile-head-event.json \
	tests/data/chrome/both-deltas.json tests/data/chrome/string-ids.json tests/data/chrome/lost-chunk.json tests/data/chrome/hermes-samples.json \
	tests/data/chrome/busy.html tests/data/chrome/record.sh
TESTS += tests/gecko.sh
EXTRA_DIST += tests/gecko.sh tests/gecko.py \
	tests/data/gecko/firefox.json tests/data/gecko/samply.json tests/data/gecko/alloc.json \
	tests/data/gecko/shared-tables.json tests/data/gecko/data-first.json tests/data/gecko/old-strings.json tests/data/gecko/devtools-recording.json
