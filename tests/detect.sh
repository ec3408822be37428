#!/bin/sh
# Format auto-detection: `flamekit collapse FILE` without --format picks the
# right input plugin for every input of the conformance corpus (perf too,
# when a perf input plugin is loaded), reads every expected folded file as
# folded, never lets one of the five text formats claim perf script text,
# and names the formats it tried when nothing fits; every fixture against
# every plugin's probe alone.
. "$FK_SRCDIR/tests/lib.sh"
D="$FK_SRCDIR/tests/data"

inputs=$("$FLAMEKIT" plugins | awk '$1 == "input" { print $2 }')
has_perf=false
echo "$inputs" | grep -qx perf && has_perf=true
# the "tried" list: every input plugin with a probe, in load (name) order;
# all of ours have one
tried=$(echo "$inputs" | tr '\n' ',' | sed 's/,$//; s/,/, /g')

# Every file of tests/data and of the conformance corpus through
# `flamekit plugins --probe` at once: $TMP/picks holds "PATH NAME" a file,
# NAME the format detection picks (none: no plugin claims it, it is empty,
# or it cannot be read, as UTF-16 text cannot).  The sweeps below ("no
# other file is taken for FORMAT") read it; the checks of each format's own
# files ask `collapse -v` (detected), and the two are compared.
find "$D" "$FK_CONFORMANCE" -type f 2> /dev/null | LC_ALL=C sort > "$TMP/all.list"
"$FLAMEKIT" plugins --probe $(cat "$TMP/all.list") > "$TMP/probe.txt" 2> /dev/null
awk 'NR == FNR {
	p = $0; sub(/: [^:]*$/, "", p)
	n = substr($0, length(p) + 3); sub(/ .*/, "", n)
	pick[p] = n == "empty" ? "none" : n
	next
}
{ print $0, ($0 in pick) ? pick[$0] : "none" }' "$TMP/probe.txt" "$TMP/all.list" > "$TMP/picks"
# picked FILE: the table's pick for FILE
picked() { awk -v f="$1" '$1 == f { print $2 }' "$TMP/picks"; }
# taken_for PATTERN FORMAT...: the files of the table, but those matching
# the grep -E PATTERN, that are taken for one of FORMAT
taken_for() {
	pat=$1
	shift
	grep -Ev "$pat" "$TMP/picks" | while read -r f got; do
		case " $* " in *" $got "*) printf ' %s' "${f#"$FK_SRCDIR"/}" ;; esac
	done
}
is "$(wc -l < "$TMP/picks" | tr -d ' '):$(awk '$2 != "none"' "$TMP/picks" | wc -l | awk '$1 > 100 { print "many" }')" \
	"$(wc -l < "$TMP/all.list" | tr -d ' '):many" "plugins --probe: a pick for every file of the fixtures and the corpus"

# --probe itself: one line a file, on through a file it cannot read (its
# message on stderr, status 1); the standard input; its usage errors.
: > "$TMP/empty.txt"
run "$FLAMEKIT" plugins --probe "$TMP/empty.txt" "$TMP/missing.txt" "$D/perf-data/three-seconds.data"
is "$rc:$out:$err" "1:$TMP/empty.txt: empty
$D/perf-data/three-seconds.data: perf-data (perf-data 100, perf 50):flamekit: $TMP/missing.txt: cannot open: No such file or directory" \
	"plugins --probe: empty, unreadable (status 1) and a perf.data both probes claim, the surer first"
is "$(printf 'x;y 2\n' | "$FLAMEKIT" plugins --probe - 2>&1)" "<stdin>: folded (folded 60)" \
	"plugins --probe -: the standard input"
printf '\377\376a\000b\000' > "$TMP/u16.txt"
run "$FLAMEKIT" plugins --probe "$TMP/u16.txt"
is "$rc:$out:$err" "1::flamekit: $TMP/u16.txt: the input is UTF-16 text, which flamekit does not read; convert it to UTF-8 first (iconv -f UTF-16 -t UTF-8)" \
	"plugins --probe: UTF-16 text refused by name, as every command does"
run "$FLAMEKIT" plugins --probe
is "$rc:$out:$(printf '%s\n' "$err" | head -1)" "2::flamekit: plugins: --probe needs at least one FILE" \
	"plugins --probe without a file: a usage error"
run "$FLAMEKIT" plugins --probe --help perf "$TMP/empty.txt"
is "$rc:$out:$(printf '%s\n' "$err" | head -1)" "2::flamekit: plugins: --probe and --help cannot be given together" \
	"plugins --probe with --help: a usage error"

# detected FILE: the format name the engine logs at -v, or "none"
detected() {
	"$FLAMEKIT" collapse -v "$1" 2>&1 > /dev/null |
		sed -n 's/.*: detected format \([a-z0-9_-]*\)$/\1/p' | head -1 | grep . || echo none
}

# detected_cut FMT FILE: FILE's first bytes, cut mid-line, are taken for FMT
# or for none, never another; from 400 bytes on, always for FMT.
detected_cut() {
	got=
	for n in 60 150 400 1000 3000; do
		head -c $n "$2" > "$TMP/cut.txt"
		got="$got $(detected "$TMP/cut.txt")"
	done
	echo "$got" | grep -Eq "^( ($1|none)){2} $1 $1 $1$"
	ok $? "auto: $1/$(basename "$2") cut after 60, 150, 400, 1000, 3000 bytes:$got"
}

if [ ! -d "$FK_CONFORMANCE" ]; then
	skip "conformance inputs" "no conformance corpus at $FK_CONFORMANCE"
else
	for fmt in dtrace stap pmcstat instruments ljp; do
		for f in "$FK_CONFORMANCE/$fmt"/inputs/*.txt; do
			b=$(basename "$f")
			output_is "$FK_CONFORMANCE/$fmt/expected/$b" "auto: $fmt/$b" "$FLAMEKIT" collapse "$f"
			is "$(detected "$f"):$(picked "$f")" "$fmt:$fmt" "auto: $fmt/$b is detected as $fmt (collapse -v, plugins --probe)"
		done
	done
	for f in "$FK_CONFORMANCE"/perf/inputs/*.txt; do
		b=$(basename "$f" .txt)
		if $has_perf; then
			"$FLAMEKIT" collapse "$f" > "$TMP/out" 2> "$TMP/err"
			same_file "$FK_CONFORMANCE/perf/expected/$b-collapsed.txt" "$TMP/out" "auto: perf/$b.txt"
		else
			# no perf plugin in this build: none of the others may claim it
			run "$FLAMEKIT" collapse "$f"
			is "$rc:$err" "1:flamekit: $f: cannot tell the input format (tried: $tried); give one with --format NAME" \
				"auto: perf/$b.txt is claimed by no other format"
		fi
	done
	# every expected file is folded text, and reads back unchanged
	for f in "$FK_CONFORMANCE"/*/expected/*.txt; do
		case $f in */svg/*) continue ;; esac
		output_is "$f" "auto: ${f#$FK_CONFORMANCE/} is read as folded" "$FLAMEKIT" collapse "$f"
	done
fi

# The first bytes only, cut mid-line: the right format or none, never
# another; from 400 bytes on, always the right one.
if [ -d "$FK_CONFORMANCE" ]; then
	for fmt in dtrace stap pmcstat instruments ljp; do
		for f in "$FK_CONFORMANCE/$fmt"/inputs/*.txt; do
			detected_cut "$fmt" "$f"
		done
	done
fi

# real perf captures, gzip-compressed, and their first 64 KiB (cut mid-line)
PERF_DATA=${FK_CONFORMANCE%/*}/data
if ls "$PERF_DATA"/*.perf.txt.gz > /dev/null 2>&1; then
	for g in "$PERF_DATA"/*.perf.txt.gz; do
		gunzip -c "$g" | head -c 65536 > "$TMP/head.txt"
		if $has_perf; then
			is "$(detected "$g"):$(detected "$TMP/head.txt")" "perf:perf" "auto: $(basename "$g") is perf"
		else
			is "$(detected "$g"):$(detected "$TMP/head.txt")" "none:none" \
				"auto: $(basename "$g") is claimed by no other format"
		fi
	done
else
	skip "perf captures" "no $PERF_DATA"
fi

# Each format through gzip and with CRLF line endings, from the fixtures.
for c in dtrace/fixes stap/fixes pmcstat/lost instruments/units ljp/nototal; do
	fmt=${c%/*}
	gzip -c "$D/$c.txt" > "$TMP/in.gz"
	sed 's/$/\r/' "$D/$c.txt" > "$TMP/crlf.txt"
	is "$(detected "$TMP/in.gz"):$(detected "$TMP/crlf.txt")" "$fmt:$fmt" "auto: $c gzip-compressed and with CRLF"
	run "$FLAMEKIT" collapse "$TMP/in.gz"
	is "$rc:$out" "0:$(cat "$D/$c.out")" "auto: $c gzip-compressed gives the same stacks"
done

# Near misses: text that looks a little like a format is not claimed by it.
for f in "$D"/detect/*.txt; do
	exp=$(cat "${f%.txt}.format")
	is "$(detected "$f")" "$exp" "auto: detect/$(basename "$f") is $exp"
done

# A Safari timeline export: JSON on one line longer than the 64 KiB window,
# with ';' in its strings, is not a deep folded stack (generated: the
# property needs the size).
awk 'BEGIN {
	printf "{\"version\":1,\"recording\":{\"displayName\":\"Timeline Recording 1\",\"records\":["
	for (i = 0; i < 1000; i++)
		printf "%s{\"type\":\"timeline-record-type-script\",\"details\":\"a;b\",\"timestamp\":%d.5}", (i ? "," : ""), i
	printf "]}}"
}' > "$TMP/safari.json"
is "$(wc -c < "$TMP/safari.json" | awk '$1 > 65536 { print "long" }'):$(detected "$TMP/safari.json")" "long:none" \
	"auto: a Safari timeline JSON on one line over 64 KiB is none"

# --- The JSON formats (speedscope, chrome, gecko) ------------------------
# Each is detected on its own fixtures (tests/data/FORMAT/*.json, gzipped
# too), and no other file of tests/data or of the conformance corpus is
# taken for one of them.
json_formats="speedscope chrome gecko"
for fmt in $json_formats; do
	for f in "$D/$fmt"/*.json; do
		gzip -c "$f" > "$TMP/j.json.gz"
		is "$(detected "$f"):$(detected "$TMP/j.json.gz")" "$fmt:$fmt" "auto: $fmt/$(basename "$f") is $fmt, gzipped too"
	done
done
claimed=$(while read -r f got; do
	case " $json_formats " in
	*" $got "*) case $f in "$D/$got"/*) ;; *) printf ' %s' "$f:$got" ;; esac ;;
	esac
done < "$TMP/picks")
is "$claimed" "" "auto: no file of another format is taken for $json_formats"

# Empty input, or blank lines only: nothing, with status 0.
printf '\n\n  \n' > "$TMP/blank.txt"
run "$FLAMEKIT" collapse "$TMP/blank.txt"
is "$rc:$out:$err" "0::" "auto: blank lines only collapse to nothing, status 0"

# UTF-16 (PowerShell's '>'), with and without a byte-order mark: refused by name.
for enc in UTF-16 UTF-16LE UTF-16BE; do
	iconv -f UTF-8 -t $enc "$D/dtrace/fixes.txt" > "$TMP/utf16.txt"
	for fmt in auto dtrace; do
		run "$FLAMEKIT" collapse --format $fmt "$TMP/utf16.txt"
		is "$rc:$out:$err" "1::flamekit: $TMP/utf16.txt: the input is UTF-16 text, which flamekit does not read; convert it to UTF-8 first (iconv -f UTF-16 -t UTF-8)" \
			"$enc input, --format $fmt: refused, saying UTF-16"
	done
done

# graph reads any format by default: perf text in, a graph out, in one step.
if $has_perf; then
	run "$FLAMEKIT" graph "$D/perf/names.txt"
	"$FLAMEKIT" graph --format perf "$D/perf/names.txt" > "$TMP/perf.svg"
	is "$rc:$err:$(printf '%s\n' "$out" | cmp -s - "$TMP/perf.svg"; echo $?)" "0::0" \
		"graph detects perf text: the same graph as --format perf"
fi
run "$FLAMEKIT" graph "$D/dtrace/odd-header.txt"
"$FLAMEKIT" graph --format dtrace "$D/dtrace/odd-header.txt" > "$TMP/dtrace.svg"
is "$rc:$err:$(printf '%s\n' "$out" | cmp -s - "$TMP/dtrace.svg"; echo $?)" "0::0" \
	"graph detects dtrace with odd header lines"

# Every fixture of every format against every input plugin's probe alone:
# the plugins that claim a file (`plugins --probe` lists each probe that
# does, with its confidence; alone in a registry, any of them would be
# picked) are its own format's, or none for the text no plugin reads (GHC
# .prof, xdebug traces, bcc's profile, stackcount and offwaketime, prose;
# tests/data/detect/*.format says "none").  A weak match can only win where
# no plugin would claim the file on its own.
# claims FILE: the input plugins whose probe takes FILE, in load order
# (the table's line when FILE is in it, else its own --probe)
claims() {
	line=$(awk -v f="$1: " 'index($0, f) == 1 { print; exit }' "$TMP/probe.txt")
	[ -n "$line" ] || line=$("$FLAMEKIT" plugins --probe "$1" 2> /dev/null)
	names=$(printf '%s\n' "$line" | sed -n 's/^.* (\(.*\))$/\1/p' | sed 's/ [0-9]*,/ /g; s/ [0-9]*$//')
	c=
	for p in $inputs; do
		case " $names " in *" $p "*) c="$c $p" ;; esac
	done
	echo "${c# }"
}
# fixture FILE EXPECTED: FILE is claimed by EXPECTED (a list, maybe empty) only
fixture() {
	is "$(claims "$1")" "$2" "every probe on ${1#"$FK_SRCDIR/tests/data/"}: claimed by ${2:-none}"
}
for f in "$D"/detect/*.txt; do
	exp=$(cat "${f%.txt}.format")
	[ "$exp" = none ] && exp=
	fixture "$f" "$exp"
done
for fmt in dtrace stap pmcstat instruments ljp perf; do
	for f in "$D/$fmt"/*.txt; do
		case $f in
		*/ljp/early-total.txt) fixture "$f" "" ;; # a Total line first: read only as --format ljp
		*) fixture "$f" "$fmt" ;;
		esac
	done
done
for f in "$D"/folded/*.txt "$D"/svg/*.txt "$D"/html/hostile.txt "$D"/lua/meta.txt "$D"/*/*.folded; do
	fixture "$f" folded
done
fixture "$TMP/safari.json" "" # JSON on one line over 64 KiB
for f in "$D"/pprof/*.pb.gz; do fixture "$f" pprof; done
for f in "$D"/v8/*.cpuprofile; do fixture "$f" v8; done
for f in "$D"/jfr/*.jfr.gz; do fixture "$f" jfr; done
# perf's probe knows perf.data too, to say how to read it
for f in "$D"/perf-data/*.data; do fixture "$f" "perf perf-data"; done
if echo "$inputs" | grep -qx html; then
	"$FLAMEKIT" graph --output-plugin html -o "$TMP/report.html" "$D/svg/small.txt"
	fixture "$TMP/report.html" html
fi
if [ -d "$FK_CONFORMANCE" ]; then
	for fmt in dtrace stap pmcstat instruments ljp perf; do
		for f in "$FK_CONFORMANCE/$fmt"/inputs/*.txt; do fixture "$f" "$fmt"; done
	done
	for f in "$FK_CONFORMANCE"/svg/inputs/*.txt "$FK_CONFORMANCE"/*/expected/*.txt; do
		fixture "$f" folded
	done
fi
# A folded file whose window holds only the root's own weight (" 7", as
# sorting puts first) is still folded.
awk 'BEGIN { for (i = 0; i < 250; i++) print " 7"; print "a;b 1" }' > "$TMP/rootw.folded"
run "$FLAMEKIT" collapse "$TMP/rootw.folded"
is "$(detected "$TMP/rootw.folded"):$rc:$out:$err" "folded:0:a;b 1:" "auto: 250 root-weight lines, then a stack: folded"
# The near misses above through the whole registry: refused as today, with
# every format tried named (bcc's default output, once taken for DTrace, is
# now bcc's: see below); the odd perf file read as --format perf reads it.
for f in ghc-prof ghc-prof-ticks xdebug-computer xdebug-human; do
	run "$FLAMEKIT" collapse "$D/detect/$f.txt"
	is "$rc:$out:$err" "1::flamekit: $D/detect/$f.txt: cannot tell the input format (tried: $tried); give one with --format NAME" \
		"auto: detect/$f.txt is refused, no graph drawn"
done
if $has_perf; then
	run "$FLAMEKIT" collapse "$D/detect/perf-weird.txt"
	auto="$rc:$out:$err"
	run "$FLAMEKIT" collapse --format perf "$D/detect/perf-weird.txt"
	is "$auto" "$rc:$out:$err" "auto: two perf records, one with a line perf never prints, read as --format perf"
	# stackcollapse-perf.pl's output for this file (it warns of the line too)
	is "$rc:$out" "0:prog 1
prog;do_work 1" "auto: the odd perf file gives stackcollapse-perf.pl's stacks"
fi

# Nothing fits: a clear error naming every format tried.
printf '\001\002garbage\000\377\376 not a profile\n%%%%%%\n' > "$TMP/garbage.bin"
run "$FLAMEKIT" collapse "$TMP/garbage.bin"
is "$rc:$err" "1:flamekit: $TMP/garbage.bin: cannot tell the input format (tried: $tried); give one with --format NAME" \
	"garbage: exit 1, every format tried is named"
# --- bpftrace and bcc (branch formats) ---------------------------------------
# Each is detected on its own files, and no other file of the tests or of the
# conformance corpus is taken for either.
for f in "$D"/bpftrace/*.txt; do
	is "$(detected "$f")" bpftrace "auto: bpftrace/$(basename "$f") is bpftrace"
done
for f in "$D"/bcc/*.txt "$D"/detect/bcc-*.txt; do
	is "$(detected "$f")" bcc "auto: ${f#"$D"/} is bcc"
done
is "$(taken_for "^($D/bpftrace/|$D/bcc/|$D/detect/bcc-)" bpftrace bcc)" "" \
	"auto: no other fixture or conformance file is taken for bpftrace or bcc"
# their first bytes, cut mid-line: the right format or none; from 400 on, the right one
for f in "$D"/bpftrace/*.txt "$D"/bcc/*.txt; do
	detected_cut "$(basename "$(dirname "$f")")" "$f"
done
# --- end of bpftrace and bcc -------------------------------------------------

# --- callgrind, threaddump and sample (branch formats3) ---------------------
# Each is detected on its own files, and no other file of the tests or of
# the conformance corpus is taken for either; their first bytes give the
# right format or none, and from 1000 on the right one (a dump's first
# 400 bytes may hold its banner alone).
for fmt in callgrind threaddump sample; do
	for f in "$D"/$fmt/*.txt; do
		is "$(detected "$f")" $fmt "auto: $fmt/$(basename "$f") is $fmt"
	done
done
is "$(taken_for "^($D/callgrind/|$D/threaddump/|$D/sample/)" callgrind threaddump sample)" "" \
	"auto: no other fixture or conformance file is taken for callgrind, threaddump or sample"
for f in "$D"/callgrind/*.txt "$D"/threaddump/*.txt "$D"/sample/*.txt "$D"/xctrace/*.xml; do
	fmt=$(basename "$(dirname "$f")")
	got=
	for n in 60 150 400 1000; do
		head -c $n "$f" > "$TMP/cut.txt"
		got="$got $(detected "$TMP/cut.txt")"
	done
	echo "$got" | grep -Eq "^( ($fmt|none)){3} $fmt$"
	ok $? "auto: $fmt/$(basename "$f") cut after 60, 150, 400, 1000 bytes:$got"
done
# --- end of callgrind, threaddump and sample ---------------------------------

# --- xctrace (branch xctrace) -------------------------------------------------
# Its files (hostile ones too: a DOCTYPE is taken, to be refused by name) are
# xctrace, gzipped too, and through xctrace's probe alone; no other file of the
# tests or of the conformance corpus is taken for it (cut after 60, 150, 400
# and 1000 bytes: in the loop above).
for f in "$D"/xctrace/*.xml; do
	gzip -c "$f" > "$TMP/x.xml.gz"
	is "$(detected "$f"):$(detected "$TMP/x.xml.gz")" xctrace:xctrace "auto: xctrace/$(basename "$f") is xctrace, gzipped too"
	fixture "$f" xctrace
done
is "$(taken_for "^$D/xctrace/" xctrace)" "" "auto: no other fixture or conformance file is taken for xctrace"
# XML that is not an xctrace export: a trace table of contents, an SVG
printf '<?xml version="1.0"?>\n<trace-toc><run number="1"/></trace-toc>\n' > "$TMP/toc.xml"
"$FLAMEKIT" graph "$D/svg/small.txt" > "$TMP/g.svg"
is "$(detected "$TMP/toc.xml"):$(detected "$TMP/g.svg")" none:none "auto: other XML (a trace-toc, an SVG) is not xctrace"
# --- end of xctrace -----------------------------------------------------------

done_testing
