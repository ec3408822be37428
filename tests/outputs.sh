#!/bin/sh
# Where -o and a job's outputs may point: devices, FIFOs and /proc fd links
# are written in place, a symlink's target is replaced (the link stays), a
# replaced file keeps its mode and owner, and two outputs into one file, or
# an output that is an input, are refused however they are spelled.  Everything happens in $TMP, and the
# device tests in a private mount namespace: never the machine's /dev.
. "$FK_SRCDIR/tests/lib.sh"
D="$FK_SRCDIR/tests/data/folded"
printf 'a;b 2\na;c 1\n' > "$TMP/in.folded"
want='a;b 2
a;c 1'
cd "$TMP" || exit 1

# A FIFO: its reader gets the output; no temporary, no rename.
mkfifo fifo
timeout 20 cat fifo > fifo.out &
reader=$!
run timeout 20 "$FLAMEKIT" collapse -o fifo in.folded
wait $reader
is "$rc:$err:$(cat fifo.out)" "0::$want" "-o FIFO: the reader gets the output"
ok $([ -p fifo ]; echo $?) "-o FIFO: the FIFO is still a FIFO"
is "$(ls | grep -c tmp)" "0" "-o FIFO: no temporary left beside it"

# A symlink: its target is replaced, the link stays a link.
mkdir d
echo old > d/target.folded
ln -s d/target.folded link.folded
run "$FLAMEKIT" collapse -o link.folded in.folded
is "$rc:$(cat d/target.folded)" "0:$want" "-o symlink: the target gets the output"
is "$(readlink link.folded)" "d/target.folded" "-o symlink: the link stays a link to it"
ln -s link.folded link2.folded
ln -s ../nowhere.folded d/dangling.folded
run "$FLAMEKIT" collapse -o link2.folded in.folded
is "$rc:$(readlink link2.folded):$(cat d/target.folded)" "0:link.folded:$want" \
	"-o a link to a link: the final target is replaced"
run "$FLAMEKIT" collapse -o d/dangling.folded in.folded
is "$rc:$(readlink d/dangling.folded):$(cat nowhere.folded)" "0:../nowhere.folded:$want" \
	"-o a dangling link: its target is created beside the target"

# /dev/stdout, /dev/stderr and /proc/self/fd/N: written through, into a
# pipe, a file the shell opened, and a link to the fd.  The /dev links are
# the private copies of a tmpfs mounted on /dev in a private mount
# namespace, so that a broken writer replaces those, not the machine's.
private_dev() { # private_dev SHELL-COMMAND
	unshare -m sh -c "mount -t tmpfs none /dev && mknod -m 666 /dev/null c 1 3 &&
		ln -s /proc/self/fd /dev/fd && ln -s /proc/self/fd/1 /dev/stdout &&
		ln -s /proc/self/fd/2 /dev/stderr && $1"
}
if [ "$(id -u)" = 0 ] && unshare -m true 2> /dev/null; then
	private_dev "'$FLAMEKIT' collapse -o /dev/stdout in.folded" > stdout.out 2> stdout.err
	is "$?:$(cat stdout.err):$(cat stdout.out)" "0::$want" "-o /dev/stdout writes stdout (a file)"
	private_dev "'$FLAMEKIT' collapse -o /dev/stdout in.folded | cat" > piped.out
	is "$(cat piped.out)" "$want" "-o /dev/stdout into a pipe"
	private_dev "'$FLAMEKIT' collapse -o /dev/stderr in.folded" 2> err.out
	is "$(cat err.out)" "$want" "-o /dev/stderr writes stderr"
	private_dev "ls -l /dev/stdout /dev/stderr | sed 's/.* -> //'" > links.out
	is "$(cat links.out)" "/proc/self/fd/2
/proc/self/fd/1" "the private /dev links are what the tests wrote through"
else
	skip "-o /dev/stdout, /dev/stderr" "needs root and unshare -m"
fi
ln -s /proc/self/fd/1 fd1.link
"$FLAMEKIT" collapse -o fd1.link in.folded > shell.out
is "$(cat shell.out)" "$want" "-o a link to /proc/self/fd/1 writes the file stdout is"
ok $([ -L fd1.link ]; echo $?) "-o a link to /proc/self/fd/1: the link is kept"
"$FLAMEKIT" collapse -o fd1.link in.folded | cat > fdpipe.out
is "$(cat fdpipe.out)" "$want" "-o a link to /proc/self/fd/1 into a pipe"
"$FLAMEKIT" collapse -o /proc/self/fd/3 in.folded 3> fd3.out
is "$(cat fd3.out)" "$want" "-o /proc/self/fd/3"

# A replaced file keeps its permission bits (and, as root, owner and group).
echo old > mode.folded
chmod 640 mode.folded
run "$FLAMEKIT" collapse -o mode.folded in.folded
is "$rc:$(stat -c %a mode.folded)" "0:640" "a replaced file keeps its mode"
if [ "$(id -u)" = 0 ]; then
	echo old > owned.folded
	chown 1234:2345 owned.folded
	chmod 4750 owned.folded
	run "$FLAMEKIT" collapse -o owned.folded in.folded
	is "$rc:$(stat -c %u:%g:%a owned.folded):$(cat owned.folded)" "0:1234:2345:4750:$want" \
		"as root, a replaced file keeps its owner, group and set-id bits"
else
	skip "as root, a replaced file keeps its owner and group" "not root"
fi

# Two outputs of one job into one file, however spelled.
cat > same.yaml <<EOY
inputs: [in.folded]
outputs:
  - plugin: folded
    path: x.folded
  - plugin: svg
    path: d/../x.folded
EOY
run "$FLAMEKIT" run same.yaml
is "$rc:$err" '2:flamekit: same.yaml:6:11: two outputs write the same file: "d/../x.folded" is "x.folded"' \
	"job: two outputs, one via dir/.."
touch x.folded
ln -s x.folded xl.folded
sed -e 's|d/../x.folded|xl.folded|' same.yaml > link.yaml
run "$FLAMEKIT" run link.yaml
is "$rc:$err" '2:flamekit: link.yaml:6:11: two outputs write the same file: "xl.folded" is "x.folded"' \
	"job: two outputs, one through a symlink"
is "$(cat x.folded)" "" "job refused: the file is untouched"
if [ "$(id -u)" = 0 ] && unshare -m true 2> /dev/null; then
	sed -e 's|d/../x.folded|/dev/null|; s|path: x.folded|path: /dev/null|' same.yaml > null.yaml
	private_dev "'$FLAMEKIT' run null.yaml && stat -c %F /dev/null" > null.out 2>&1
	is "$?:$(cat null.out)" "0:character special file" \
		"job: two outputs into (a private) /dev/null are both written"
fi

# An output that is one of the inputs would replace the profile being read:
# refused, by inode (through a link, another spelling, stdin), the input
# untouched.
cp in.folded self.folded
ln -s self.folded selflink.folded
for args in "graph -o self.folded self.folded" "graph --format folded -o self.folded self.folded" \
	"collapse -o self.folded self.folded" "merge -o self.folded self.folded" \
	"diff -o self.folded in.folded self.folded" "graph -o selflink.folded self.folded" \
	"graph -o d/../self.folded ./self.folded"; do
	run "$FLAMEKIT" $args
	o=${args#* -o }
	o=${o%% *}
	in=${args##* }
	is "$rc:$err" "2:flamekit: the output \"$o\" would overwrite the input \"$in\"" \
		"$args: refused"
	same_file in.folded self.folded "$args: the input is untouched"
done
run "$FLAMEKIT" graph -o self.folded < self.folded
is "$rc:$err" '2:flamekit: the output "self.folded" would overwrite the input "<stdin>"' \
	"graph -o FILE < FILE: refused"
same_file in.folded self.folded "graph -o FILE < FILE: the input is untouched"
printf 'inputs: [in.folded, self.folded]\noutputs:\n  - {plugin: svg, path: selflink.folded}\n' > self.yaml
run "$FLAMEKIT" run self.yaml
is "$rc:$err" '2:flamekit: self.yaml:3:25: the output "selflink.folded" would overwrite the input "self.folded"' \
	"job: an output that is an input is refused at its line"
same_file in.folded self.folded "job: the input is untouched"

# Devices, in a private mount namespace on a tmpfs: no temporary, no
# rename, no truncation.
if unshare -m true 2> /dev/null && [ "$(id -u)" = 0 ]; then
	mkdir dev
	unshare -m sh -c "mount -t tmpfs none '$TMP/dev' && mknod '$TMP/dev/null' c 1 3 &&
		'$FLAMEKIT' collapse -o '$TMP/dev/null' '$TMP/in.folded' &&
		'$FLAMEKIT' graph -o '$TMP/dev/null' '$TMP/in.folded' &&
		stat -c %F '$TMP/dev/null' && ls '$TMP/dev'" > dev.out 2>&1
	is "$?:$(cat dev.out)" "0:character special file
null" "-o a character device: written in place, still a device, no temporary"
else
	skip "-o a character device" "needs root and unshare -m"
fi

done_testing
