# Shared by bench/*.sh (sourced): measure LABEL CMD... runs CMD once with
# stdout to /dev/null and sets SECS and KB (its wall time and peak RSS).
# GNU time (Debian package time) gives the command's own peak RSS; without
# it python's getrusage(RUSAGE_CHILDREN) does, which then includes the
# python process the command was forked from (about 10 MB).
measure() {
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f '%e %M' -o "$FK_BENCH_DATA/.time" "$@" > /dev/null
		read -r SECS KB < "$FK_BENCH_DATA/.time"
	else
		set -- $(python3 -c 'import resource, subprocess, sys, time
t = time.time(); subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)
print(time.time() - t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$@")
		SECS=$1 KB=$2
	fi
}

# best N CMD...: the fastest of N runs (SECS) and the largest peak RSS (KB).
best() {
	_n=$1
	shift
	_s= _k=0
	while [ "$_n" -gt 0 ]; do
		measure "$@"
		_s=$(awk -v a="$_s" -v b="$SECS" 'BEGIN { print (a == "" || b < a) ? b : a }')
		[ "$KB" -gt "$_k" ] && _k=$KB
		_n=$((_n - 1))
	done
	SECS=$_s KB=$_k
}

# row LABEL: one line of figures from SECS and KB.
row() {
	awk -v l="$1" -v s="$SECS" -v kb="$KB" 'BEGIN { printf "%-34s %7.2f s  peak RSS %7.1f MB\n", l, s, kb / 1024 }'
}

# The 100,000 / 400,000 distinct stacks 5-25 frames deep of issue 14.
gen_stacks() {
	awk -v n="$1" 'BEGIN{srand(3); for (i=0;i<n;i++){ s="root"; d=5+int(rand()*20); for(j=0;j<d;j++) s=s ";fn_" int(rand()*2000) "_" j; printf "%s %d\n", s, 1+int(rand()*100)}}'
}

# flamegraph.pl for comparison, never part of flamekit: $FK_FLAMEGRAPH, or
# a FlameGraph checkout cached in $FK_BENCH_DATA/FlameGraph (cloned there
# when git and the network allow).  Prints its path, or nothing.
flamegraph_pl() {
	if [ -n "${FK_FLAMEGRAPH:-}" ] && [ -f "$FK_FLAMEGRAPH" ]; then
		echo "$FK_FLAMEGRAPH"
		return
	fi
	_fg="$FK_BENCH_DATA/FlameGraph"
	if [ ! -f "$_fg/flamegraph.pl" ] && command -v git > /dev/null 2>&1; then
		GIT_TERMINAL_PROMPT=0 timeout 60 git clone -q --depth 1 \
			https://github.com/brendangregg/FlameGraph "$_fg" > /dev/null 2>&1 || rm -rf "$_fg"
	fi
	[ -f "$_fg/flamegraph.pl" ] && echo "$_fg/flamegraph.pl"
}
