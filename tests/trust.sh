#!/bin/sh
# Root among other users: an output never follows a link another user
# planted where the kernel's fs.protected_symlinks rule would refuse it
# (whatever the sysctl says), the --cp palette is written only by a run
# that succeeds, an output is never one of the inputs, and SIGINT, SIGTERM
# and SIGHUP leave no temporary behind.  The other user is `nobody`, whose
# links are planted in a sticky world-writable directory under $TMP.
. "$FK_SRCDIR/tests/lib.sh"
cd "$TMP" || exit 1
printf 'a;b 2\na;c 1\n' > a.folded
want='a;b 2
a;c 1'

as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
tmps() { find "$TMP" -name '*.tmp.*' | wc -l; }

if [ "$(id -u)" = 0 ] && as_nobody true 2> /dev/null; then
	chmod 711 "$TMP"
	S=$(mktemp -d "$TMP/sticky.XXXXXX")
	chmod 1777 "$S"
	V=$TMP/victim
	mkdir -m 755 "$V"

	# The reproduction: nobody's link to a file root would create.
	as_nobody ln -s "$V/authorized_keys" "$S/f.folded"
	run "$FLAMEKIT" collapse -o "$S/f.folded" a.folded
	is "$rc:$err" "1:flamekit: $S/f.folded: refusing to follow the symbolic link $S/f.folded, owned by nobody, in a sticky world-writable directory owned by root" \
		"a link nobody planted in a sticky directory is refused, naming it and its owner"
	is "$(ls -A "$V"):$(tmps)" ":0" "refused: nothing created, no temporary"

	# The same link to a file that exists: content and mode untouched.
	printf 'ssh-ed25519 AAAA root@host\n' > "$V/authorized_keys"
	chmod 600 "$V/authorized_keys"
	for cmd in collapse graph; do
		run "$FLAMEKIT" $cmd -o "$S/f.folded" a.folded
		is "$rc:$(cat "$V/authorized_keys"):$(stat -c %a "$V/authorized_keys")" \
			"1:ssh-ed25519 AAAA root@host:600" "$cmd: the link's existing target keeps its content and mode"
	done
	cat > job.yaml <<EOY
inputs: [a.folded]
outputs:
  - {plugin: folded, path: $TMP/ok.folded}
  - {plugin: svg, path: $S/f.folded}
EOY
	run "$FLAMEKIT" run job.yaml
	is "$rc:$err:$(ls ok.folded 2>&1 | grep -c 'No such')" "1:flamekit: $S/f.folded: refusing to follow the symbolic link $S/f.folded, owned by nobody, in a sticky world-writable directory owned by root:1" \
		"a job: the planted output is refused and no other output is written"

	# A link as a directory on the way, and a link further down a chain.
	as_nobody ln -s "$V" "$S/d"
	run "$FLAMEKIT" collapse -o "$S/d/authorized_keys" a.folded
	is "$rc:$err" "1:flamekit: $S/d/authorized_keys: refusing to follow the symbolic link $S/d, owned by nobody, in a sticky world-writable directory owned by root" \
		"a planted link as a directory of the path is refused"
	ln -s f.folded "$S/mine.folded"
	run "$FLAMEKIT" collapse -o "$S/mine.folded" a.folded
	is "$rc:$err" "1:flamekit: $S/mine.folded: refusing to follow the symbolic link $S/f.folded, owned by nobody, in a sticky world-writable directory owned by root" \
		"root's link to nobody's link: the second is refused"
	is "$(cat "$V/authorized_keys"):$(tmps)" "ssh-ed25519 AAAA root@host:0" "the target is still untouched"

	# Links the caller owns are followed, in the sticky directory too.
	ln -s "$V/out.folded" "$S/root.folded"
	run "$FLAMEKIT" collapse -o "$S/root.folded" a.folded
	is "$rc:$err:$(cat "$V/out.folded")" "0::$want" "root's own link in the sticky directory is followed"
	ln -s /proc/self/fd/1 "$S/stdout"
	run "$FLAMEKIT" collapse -o "$S/stdout" a.folded
	is "$rc:$out" "0:$want" "root's own link to /proc/self/fd/1 writes stdout"
	"$FLAMEKIT" collapse -o /proc/self/fd/3 a.folded 3> "$S/fd3.out"
	is "$?:$(cat "$S/fd3.out")" "0:$want" "-o /proc/self/fd/3"
	as_nobody ln -s /proc/self/fd/1 "$S/nstdout"
	run "$FLAMEKIT" collapse -o "$S/nstdout" a.folded
	is "$rc:$err" "1:flamekit: $S/nstdout: refusing to follow the symbolic link $S/nstdout, owned by nobody, in a sticky world-writable directory owned by root" \
		"nobody's link to /proc/self/fd/1 is refused like any other"
	mkfifo "$S/fifo"
	timeout 20 cat "$S/fifo" > fifo.out &
	reader=$!
	run timeout 20 "$FLAMEKIT" collapse -o "$S/fifo" a.folded
	wait $reader
	is "$rc:$(cat fifo.out):$(tmps)" "0:$want:0" "a FIFO in the sticky directory is written in place"

	# The link's owner owns the directory: followed to a file that exists,
	# never to create one in root's name.
	N=$(mktemp -d "$TMP/nobodys.XXXXXX")
	chown nobody:nogroup "$N"
	chmod 1777 "$N"
	echo old > "$V/kept.folded"
	chmod 640 "$V/kept.folded"
	as_nobody ln -s "$V/kept.folded" "$N/l.folded"
	run "$FLAMEKIT" collapse -o "$N/l.folded" a.folded
	is "$rc:$err:$(cat "$V/kept.folded"):$(stat -c %a "$V/kept.folded")" "0::$want:640" \
		"nobody's link in nobody's sticky directory is followed (the kernel's rule)"
	as_nobody ln -s "$V/created.folded" "$N/new.folded"
	run "$FLAMEKIT" collapse -o "$N/new.folded" a.folded
	is "$rc:$err:$(ls "$V" | grep -c created)" "1:flamekit: $N/new.folded: refusing to create a file through the symbolic link $N/new.folded, owned by nobody, whose target does not exist:0" \
		"a dangling link of another user is not followed to create its target"
	P=$TMP/plain
	mkdir -m 755 "$P"
	chown nobody:nogroup "$P"
	as_nobody ln -s "$V/created.folded" "$P/new.folded"
	run "$FLAMEKIT" collapse -o "$P/new.folded" a.folded
	is "$rc:$(ls "$V" | grep -c created)" "1:0" "...nor in a directory that is not sticky"
	ln -s "$V/created.folded" "$S/rootnew.folded"
	run "$FLAMEKIT" collapse -o "$S/rootnew.folded" a.folded
	is "$rc:$err:$(cat "$V/created.folded")" "0::$want" "root's own dangling link creates its target"

	# The --cp palette map goes through the same writer: the rule above,
	# written only when the run succeeds, mode and owner kept.
	printf 'old->rgb(1,2,3)\n' > pal.map
	chown 1234:2345 pal.map
	chmod 640 pal.map
	if unshare -m true 2> /dev/null; then
		mkdir dev
		cat > cp.yaml <<EOY
inputs: [a.folded]
outputs:
  - {plugin: svg, path: cp.svg, options: {cp: true, palette-file: pal.map}}
  - {plugin: folded, path: $TMP/dev/full}
EOY
		unshare -m sh -c "mount -t tmpfs none '$TMP/dev' && mknod '$TMP/dev/full' c 1 7 &&
			exec '$FLAMEKIT' run cp.yaml" > cp.out 2>&1
		is "$?:$(cat cp.out)" "1:flamekit: $TMP/dev/full: write error: No space left on device" \
			"--cp: a job whose last output fails (a private /dev/full) fails"
		is "$(cat pal.map):$(stat -c %u:%g:%a pal.map):$(ls cp.svg 2>&1 | grep -c 'No such'):$(tmps)" \
			"old->rgb(1,2,3):1234:2345:640:1:0" "--cp: ...and leaves the palette map untouched"
	else
		skip "--cp: a job whose last output fails" "needs unshare -m"
		skip "--cp: ...and leaves the palette map untouched" "needs unshare -m"
	fi
	run "$FLAMEKIT" graph --cp --palette-file pal.map -o cp.svg a.folded
	is "$rc:$err:$(stat -c %u:%g:%a pal.map):$(sed 's/->.*//' pal.map | tr '\n' ' ')" \
		"0::1234:2345:640: a b c old " "--cp: a run that succeeds rewrites the map, sorted, keeping its owner and mode"
	is "$(grep '^old' pal.map)" "old->rgb(1,2,3)" "--cp: the map's old colours are kept"
	mv pal.map real.map
	ln -s real.map pal.map
	run "$FLAMEKIT" graph --cp --palette-file pal.map -o cp2.svg $FK_SRCDIR/tests/data/folded/basic.txt
	is "$rc:$(readlink pal.map):$(grep -c . real.map | awk '{print ($1 > 5)}')" "0:real.map:1" \
		"--cp: through the caller's link, the link's target is rewritten, the link kept"
	cp real.map "$V/pal.map"
	chmod 600 "$V/pal.map"
	as_nobody ln -s "$V/pal.map" "$S/pal.map"
	printf 'new;names 1\n' > new.folded
	run "$FLAMEKIT" graph --cp --palette-file "$S/pal.map" -o cp3.svg new.folded
	is "$rc:$err:$(ls cp3.svg 2>&1 | grep -c 'No such')" "1:flamekit: [output:svg] $S/pal.map: refusing to follow the symbolic link $S/pal.map, owned by nobody, in a sticky world-writable directory owned by root:1" \
		"--cp: a palette map planted as nobody's link is refused, and the graph not written"
	same_file real.map "$V/pal.map" "--cp: the link's target is untouched"
else
	for t in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24; do
		skip "planted links" "needs root and setpriv to act as nobody"
	done
fi

# Two outputs of one run sharing a palette map: the second reads the map the
# first is going to write, so both draw every frame in the map's colour
# (random colours with different seeds, so that sharing shows).
mkdir cp2
printf 'main;foo 3\nmain;bar 2\nmain;foo;baz 1\n' > cp2/p.folded
cat > cp2/two.yaml <<EOY
inputs: [p.folded]
outputs:
  - {plugin: svg, path: o1.svg, options: {cp: true, palette-file: pal.map, random: true, seed: 1}}
  - {plugin: icicle, path: o2.svg, options: {cp: true, palette-file: pal.map, random: true, seed: 2}}
EOY
colours() { # NAME->fill of every frame but the root, sorted
	sed -n 's/.*<title>\([a-z]*\) (.* fill="\([^"]*\)".*/\1->\2/p' "$1" | grep -v '^all->' | sort
}
run "$FLAMEKIT" run cp2/two.yaml
is "$rc:$err:$(colours cp2/o1.svg)" "0::$(grep -v '^->' cp2/pal.map)" \
	"--cp: the first output draws the map's colours"
is "$(colours cp2/o2.svg)" "$(grep -v '^->' cp2/pal.map)" "--cp: the second output of the run draws the same ones"

# Interrupted runs: SIGINT, SIGTERM and SIGHUP in the middle of a job with
# three outputs.  The input is a FIFO the test holds open without writing,
# so flamekit waits in its read with every temporary created, whatever the
# timing; env --default-signal undoes the SIGINT a shell ignores for `&`.
mkdir sig
cd sig || exit 1
mkfifo in.fifo
echo old > out.folded
cat > sig.yaml <<EOY
inputs: [{path: in.fifo, format: folded}]
outputs:
  - {plugin: folded, path: out.folded}
  - {plugin: svg, path: out.svg}
  - {plugin: folded, path: sub/out2.folded}
EOY
mkdir sub
for sig in INT TERM HUP; do
	exec 3<> in.fifo
	env --default-signal "$FLAMEKIT" run sig.yaml > /dev/null 2> err &
	pid=$!
	n=0
	while [ "$(find . -name '*.tmp.*' | wc -l)" -lt 3 ] && [ $n -lt 600 ]; do
		sleep 0.05
		n=$((n + 1))
	done
	is "$(find . -name '*.tmp.*' | wc -l)" 3 "SIG$sig: the run is under way, its three temporaries created"
	kill -s $sig $pid
	wait $pid
	rc=$?
	exec 3>&-
	case $sig in INT) code=130 ;; TERM) code=143 ;; HUP) code=129 ;; esac
	is "$rc:$(cat err):$(find . -name '*.tmp.*' | wc -l)" "$code::0" "SIG$sig: exit 128+$sig, every temporary removed"
	is "$(cat out.folded):$(ls out.svg sub/out2.folded 2>&1 | grep -c 'No such')" "old:2" \
		"SIG$sig: the final paths are untouched"
done
cd "$TMP" || exit 1

done_testing
