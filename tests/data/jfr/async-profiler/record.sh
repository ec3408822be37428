#!/bin/sh
# Records this directory's *.jfr.gz again with async-profiler (built from
# its sources: git clone https://github.com/async-profiler/async-profiler,
# make; it needs g++ and a JDK) and ../Busy.java, one recording per line of
# cases.  Run from tests/data/jfr/async-profiler:
#   ./record.sh /path/to/libasyncProfiler.so
# The expected stacks are not stored: tests/jfr.sh computes them from
# `jfr print --json` with tests/oracle/jfr.py.
set -e
LIB=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
HERE=$(pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
javac -d "$T" ../Busy.java
while read -r file opts types; do
	case $file in '#'* | '') continue ;; esac
	# ../small.jfc: the JDK's own events jfrsync records beside async-profiler's
	opts=$(printf '%s' "$opts" | sed "s|@JFC@|$HERE/../small.jfc|")
	(cd "$T" && java -agentpath:"$LIB=start,$opts,file=$T/r.jfr,jfr" -cp "$T" Busy 1000 > /dev/null)
	gzip -9n < "$T/r.jfr" > "$file"
	echo "$file: $(wc -c < "$file") bytes"
done < cases
