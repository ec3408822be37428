#!/bin/sh
# flamekit run: cost of a Lua filter.  A ~200 MB folded profile goes
# through the same job three ways: no filter, a Lua frame() that renames
# frames (asked once per distinct frame), and a Lua sample() that sees
# every sample (single-threaded by nature).  Prints the times, the
# overhead of each filter over the plain job, MB/s and peak RSS, beside
# cat and wc -l on the same file.  Target: the renaming filter costs at
# most 15%.
set -e
: "${FLAMEKIT:?run through make bench}"
DATA="$FK_BENCH_DATA/job-200m-v2.folded"
W="$FK_BENCH_DATA/job"
mkdir -p "$W"

if [ ! -s "$DATA" ]; then
	echo "generating $DATA ..."
	# 30,000 distinct stacks over 4,000 distinct frames, drawn with a
	# skewed distribution, as in a real profile: the tree stays small while
	# the input is large.
	awk 'BEGIN {
		srand(40);
		for (i = 0; i < 4000; i++) f[i] = sprintf("com/example/pkg%d/Class%d.method%d+0x%x", i % 37, i % 211, i, i * 7);
		for (n = 0; n < 30000; n++) {
			d = 6 + int(rand() * 16); s = "main";
			for (k = 0; k < d; k++) s = s ";" f[int(rand() * rand() * 4000)];
			st[n] = s;
		}
		target = 200 * 1024 * 1024; bytes = 0;
		while (bytes < target) {
			line = st[int(rand() * rand() * 30000)] " " (1 + int(rand() * 9));
			print line; bytes += length(line) + 1;
		}
	}' > "$DATA"
fi

cat > "$W/rename.lua" <<'LUA'
-- strip the offset and the package, as strip-offsets and short-names do.
-- (Patterns anchored with ^: an unanchored pattern is tried at every
-- position of the name, which costs ten times more here.)
function frame(f)
	return (f.name:gsub("^.*/", ""):gsub("%+0x%x+$", ""))
end
LUA
cat > "$W/sample.lua" <<'LUA'
function sample(s)
	s.weight = s.weight * 2
end
LUA
job() { # NAME FILTERS
	printf 'inputs: [{path: %s, format: folded}]\nfilters: %s\noutputs: [{plugin: folded, path: %s/%s.out}]\n' \
		"$DATA" "$2" "$W" "$1" > "$W/$1.yaml"
}
job plain '[]'
job rename "[{plugin: lua, script: $W/rename.lua}]"
job sample "[{plugin: lua, script: $W/sample.lua}]"
job grep "[{plugin: grep, options: {exclude: \"Class7[.]\"}}]"

PY=${PYTHON3:-python3}
# time_cmd CMD...: prints "CPU_SECONDS WALL_SECONDS RSS_KB".  CPU time
# (user + system) is what the overheads are computed from: on a shared
# machine the wall time mostly measures the other processes.
time_cmd() {
	"$PY" - "$@" <<'PYEOF'
import resource, subprocess, sys, time
t = time.monotonic()
subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)
dt = time.monotonic() - t
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.3f %.3f %d" % (r.ru_utime + r.ru_stime, dt, r.ru_maxrss))
PYEOF
}
mb=$(du -m "$DATA" | cut -f1)
best() { # NAME CMD... : best of 3 runs
	name=$1; shift
	b=
	for i in 1 2 3; do
		r=$(time_cmd "$@")
		if [ -z "$b" ] || awk -v a="${r%% *}" -v b="${b%% *}" 'BEGIN { exit !(a < b) }'; then b=$r; fi
	done
	echo "$b"
}
r_cat=$(best cat cat "$DATA")
r_wc=$(best wc wc -l "$DATA")
r_plain=$(best plain "$FLAMEKIT" run "$W/plain.yaml")
r_rename=$(best rename "$FLAMEKIT" run "$W/rename.yaml")
r_sample=$(best sample "$FLAMEKIT" run "$W/sample.yaml")
r_grep=$(best grep "$FLAMEKIT" run "$W/grep.yaml")
base=${r_plain%% *}
report() { # LABEL RESULT
	echo "$2" | awk -v l="$1" -v mb="$mb" -v base="$base" '{
		cpu = $1 > 0 ? $1 : 0.001
		printf "%-34s cpu %6.2f s  wall %6.2f s %7.0f MB/s(cpu) %6.0f MB peak RSS", l, $1, $2, mb / cpu, $3 / 1024;
		if (l ~ /^flamekit/ && l !~ /no filter/) printf "  overhead %+.1f%%", ($1 - base) * 100 / base;
		printf "\n" }'
}
echo "input: $DATA ($mb MB, $(wc -l < "$DATA") lines); best CPU time of 3"
report "cat" "$r_cat"
report "wc -l" "$r_wc"
report "flamekit run, no filter" "$r_plain"
report "flamekit run, lua frame() rename" "$r_rename"
report "flamekit run, lua sample()" "$r_sample"
report "flamekit run, grep exclude" "$r_grep"
echo "target: lua frame() rename overhead <= 15% (of CPU time)"
