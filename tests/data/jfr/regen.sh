#!/bin/sh
# Records small.jfr.gz again (needs openjdk-17-jdk-headless) and writes
# expected/*.txt (and *.skipped: the events the oracle skips) from it with the oracle, tests/oracle/jfr.py, over
# `jfr print --json`: never from flamekit.  Run from tests/data/jfr:
#   ./regen.sh            record anew, then compute the expected outputs
#   ./regen.sh --keep     only compute them, from the shipped recording
set -e
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
if [ "$1" != --keep ]; then
	javac -d "$T" Busy.java
	(cd "$T" && java -XX:StartFlightRecording=filename="$T/small.jfr",settings="$PWD/small.jfc" -cp "$T" Busy 1500 > /dev/null 2>&1) ||
		java -XX:StartFlightRecording=filename="$T/small.jfr",settings="$PWD/small.jfc" -cp "$T" Busy 1500 > /dev/null
	gzip -9n < "$T/small.jfr" > small.jfr.gz
fi
gzip -dc small.jfr.gz > "$T/small.jfr"
jfr print --json --stack-depth 4096 "$T/small.jfr" > "$T/all.json"
mkdir -p expected
while read -r name type opts; do
	# shellcheck disable=SC2086
	python3 ../../oracle/jfr.py "$type" $opts < "$T/all.json" > "expected/$name.txt" 2> "$T/err"
	sed -n 's/^skipped //p' "$T/err" > "expected/$name.skipped"
done < cases
