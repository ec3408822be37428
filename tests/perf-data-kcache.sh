#!/bin/sh
# The kernel's symbols of a capture of the running kernel, read from perf
# record's copy of /proc/kallsyms in the build-id cache
# ($HOME/.debug/[kernel.kallsyms]/BUILDID/kallsyms) when that copy is of
# this boot, instead of having the kernel print /proc/kallsyms again: the
# same bytes as perf script (which reads /proc/kallsyms), through `flamekit
# collapse --format perf`, with no perf in PATH.  That the copy is what is
# read: a kernel function renamed in it is renamed in the profile (the
# oracle: perf script's profile with that name changed by awk).  A copy
# older than the boot, or another user's, is not read; a copy whose kernel
# part ends early answers for no address past it: those come from
# /proc/kallsyms, every symbol of it.  HOME is a temporary directory.
. "$FK_SRCDIR/tests/lib.sh"
need_perf "kernel symbols from perf's build-id cache"
perf_home
# system-wide, a pipe busy meanwhile: kernel stacks of many functions
record_or_skip "kernel symbols from perf's build-id cache" -q -a -g -o sys.data -- \
	sh -c 'seq 400000 | wc -l > seq.out'
cache=$(find home/.debug -path '*kernel.kallsyms*' -name kallsyms -type f 2> /dev/null | head -1)
if [ -z "$cache" ]; then
	skip_all "kernel symbols from perf's build-id cache" "perf record kept no copy of kallsyms"
fi
cp "$cache" copy.orig
# the stacks of this test's own programs and the idle task: a system-wide
# capture holds other tests' programs too, which they may delete between
# perf script's reading and ours
own() { grep -E '^(seq|wc|sh|swapper)[-;]'; }
perf script -i sys.data 2> /dev/null | "$FLAMEKIT" collapse --format perf 2> /dev/null | own > want.folded
# collapse: ours, of this test's programs
collapse() { env PATH=/nonexistent "$FLAMEKIT" collapse sys.data 2> /dev/null | own; }

# the copy as perf record left it
run env PATH=/nonexistent "$FLAMEKIT" collapse sys.data
printf '%s\n' "$out" | own > got.folded
same_file want.folded got.folded "this boot's copy: perf script's bytes ($(wc -l < want.folded) stacks)"
is "$rc:$(printf '%s\n' "$err" | sed '/samples were lost while recording/d')" "0:" \
	"this boot's copy: nothing said"

# a kernel function of the profile, the only symbol at its address in the
# copy, renamed there
fn=$(awk 'NR == FNR { n = split($0, f, ";"); sub(/ [0-9]+$/, "", f[n]);
		for (i = 1; i <= n; i++) seen[f[i]] = 1; next }
	$2 ~ /^[tT]$/ && NF == 3 { at[$1]++; name[$1] = $3 }
	END { for (a in at) if (at[a] == 1 && (name[a] in seen) && name[a] ~ /^[a-z_][a-z0-9_]*$/) {
		print name[a]; exit } }' want.folded copy.orig)
if [ -z "$fn" ]; then
	skip "a function renamed in the copy" "no kernel function of the profile is alone at its address"
else
	awk -v fn="$fn" '$3 == fn && NF == 3 { $3 = fn "_renamed" } { print }' copy.orig > "$cache"
	touch -r copy.orig "$cache"
	awk -v fn="$fn" '{ k = match($0, / [0-9]+$/); n = split(substr($0, 1, k - 1), f, ";"); s = "";
		for (i = 1; i <= n; i++) s = s (i > 1 ? ";" : "") (f[i] == fn ? fn "_renamed" : f[i]);
		print s substr($0, k) }' want.folded | LC_ALL=C sort > want.renamed
	collapse | LC_ALL=C sort > got.sorted
	same_file want.renamed got.sorted "$fn renamed in the copy: renamed in the profile (the copy is read)"
	# older than the boot: /proc/kallsyms
	touch -d @1 "$cache"
	collapse > got.folded
	same_file want.folded got.folded "a copy older than the boot: not read (perf script's bytes)"
	touch -r copy.orig "$cache"
	# another user's: /proc/kallsyms
	if [ "$(id -u)" = 0 ] && chown 65534 "$cache" 2> /dev/null; then
		collapse > got.folded
		same_file want.folded got.folded "another user's copy: not read (perf script's bytes)"
		chown 0 "$cache"
	else
		skip "another user's copy" "not root"
	fi
	# writable by others: /proc/kallsyms
	chmod 666 "$cache"
	collapse > got.folded
	same_file want.folded got.folded "a copy others can write: not read (perf script's bytes)"
	chmod 644 "$cache"
fi

# a copy whose kernel part ends after its first lines (before the text
# the samples are in): the addresses past it come from /proc/kallsyms
head -5 copy.orig > "$cache"
touch -r copy.orig "$cache"
collapse > got.folded
same_file want.folded got.folded "a copy cut short: the addresses past it from /proc/kallsyms (perf script's bytes)"
cp copy.orig "$cache"
done_testing
