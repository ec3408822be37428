# Tests of the input plugins dtrace, stap, pmcstat, instruments and ljp, and
# of format auto-detection.
TESTS += tests/input.sh tests/detect.sh
EXTRA_DIST += tests/input.sh tests/detect.sh \
	tests/data/detect/ghc-prof.format \
	tests/data/detect/ghc-prof.txt \
	tests/data/detect/ghc-prof-ticks.format \
	tests/data/detect/ghc-prof-ticks.txt \
	tests/data/detect/xdebug-computer.format \
	tests/data/detect/xdebug-computer.txt \
	tests/data/detect/xdebug-human.format \
	tests/data/detect/xdebug-human.txt \
	tests/data/detect/bcc-offwaketime.format \
	tests/data/detect/bcc-offwaketime.txt \
	tests/data/detect/bcc-profile.format \
	tests/data/detect/bcc-profile.txt \
	tests/data/detect/bcc-profile-delimited.format \
	tests/data/detect/bcc-profile-delimited.txt \
	tests/data/detect/bcc-stackcount.format \
	tests/data/detect/bcc-stackcount.txt \
	tests/data/detect/bcc-stackcount-pid.format \
	tests/data/detect/bcc-stackcount-pid.txt \
	tests/data/detect/perf-weird.format \
	tests/data/detect/perf-weird.txt \
	tests/data/detect/dtrace-noheader.format \
	tests/data/detect/dtrace-noheader.txt \
	tests/data/detect/dtrace-odd-header.format \
	tests/data/detect/dtrace-odd-header.txt \
	tests/data/detect/ljp-odd.format \
	tests/data/detect/ljp-odd.txt \
	tests/data/detect/pmcstat-comments.format \
	tests/data/detect/pmcstat-comments.txt \
	tests/data/detect/stap-odd.format \
	tests/data/detect/stap-odd.txt \
	tests/data/dtrace/odd-header.out \
	tests/data/dtrace/odd-header.txt tests/data/dtrace/offsets.stacks \
	tests/data/detect/folded-java.format \
	tests/data/detect/folded-java.txt \
	tests/data/detect/folded.format \
	tests/data/detect/folded.txt \
	tests/data/detect/instruments-noheader.format \
	tests/data/detect/instruments-noheader.txt \
	tests/data/detect/ljp-nototal.format \
	tests/data/detect/ljp-nototal.txt \
	tests/data/detect/pmcstat-noheader.format \
	tests/data/detect/pmcstat-noheader.txt \
	tests/data/detect/prose.format \
	tests/data/detect/prose.txt \
	tests/data/dtrace/fixes.out \
	tests/data/dtrace/fixes.txt \
	tests/data/dtrace/header-auto.out \
	tests/data/dtrace/header-auto.txt \
	tests/data/dtrace/header-lines.args \
	tests/data/dtrace/header-lines.out \
	tests/data/dtrace/header-lines.txt \
	tests/data/dtrace/hugecount.err \
	tests/data/dtrace/hugecount.out \
	tests/data/dtrace/hugecount.txt \
	tests/data/dtrace/lonecount.err \
	tests/data/dtrace/lonecount.out \
	tests/data/dtrace/lonecount.txt \
	tests/data/dtrace/noheader.out \
	tests/data/dtrace/noheader.txt \
	tests/data/dtrace/truncated.err \
	tests/data/dtrace/truncated.out \
	tests/data/dtrace/truncated.txt \
	tests/data/instruments/cycles.out \
	tests/data/instruments/cycles.txt \
	tests/data/instruments/units.err \
	tests/data/instruments/units.out \
	tests/data/instruments/units.txt \
	tests/data/instruments/v16.err \
	tests/data/instruments/v16.out \
	tests/data/instruments/v16.txt \
	tests/data/instruments/v7.out \
	tests/data/instruments/v7.txt \
	tests/data/ljp/early-total.err \
	tests/data/ljp/early-total.out \
	tests/data/ljp/early-total.txt \
	tests/data/ljp/nototal.out \
	tests/data/ljp/nototal.txt \
	tests/data/pmcstat/badlines.err \
	tests/data/pmcstat/badlines.out \
	tests/data/pmcstat/badlines.txt \
	tests/data/pmcstat/lost-preserve.args \
	tests/data/pmcstat/lost-preserve.out \
	tests/data/pmcstat/lost-preserve.txt \
	tests/data/pmcstat/lost.out \
	tests/data/pmcstat/lost.txt \
	tests/data/stap/fixes.out \
	tests/data/stap/fixes.txt \
	tests/data/stap/hugecount.err \
	tests/data/stap/hugecount.out \
	tests/data/stap/hugecount.txt \
	tests/data/stap/truncated.err \
	tests/data/stap/truncated.out \
	tests/data/stap/truncated.txt

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
