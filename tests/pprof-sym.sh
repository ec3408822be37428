#!/bin/sh
# pprof profiles with addresses but no names, symbolized from the local
# binaries (the pprof input's --symbolize=local, libfksym), against go tool
# pprof -symbolize=local (golang-go) and the Go runtime's own names: a Go
# program (tests/data/pprofsym/busy.go) built and profiled at test time,
# its profile stripped of functions and lines by tests/pprof-strip.py (the
# test's tool, editing the wire format).  Then build ids, a missing file,
# PPROF_BINARY_PATH, a link planted by another user, a file that must not
# be run, hostile mapping ranges, and inline frames against addr2line -i.
. "$FK_SRCDIR/tests/lib.sh"
PY=${PYTHON3:-python3}
STRIP="$FK_SRCDIR/tests/pprof-strip.py"
ORACLE="$FK_SRCDIR/tests/interop.py"
# go keeps a build cache and wants a home; neither may be the real one
GOCACHE="$TMP/gocache" HOME="$TMP/home" PPROF_TMPDIR="$TMP" CGO_ENABLED=0
export GOCACHE HOME PPROF_TMPDIR CGO_ENABLED
unset PPROF_BINARY_PATH
mkdir "$TMP/home"

if ! command -v go > /dev/null 2>&1 || ! go tool pprof -h > /dev/null 2>&1; then
	skip_all "pprof symbolized from local binaries" "go tool pprof is not installed (Debian: golang-go)"
fi
# traces FILE [ARGS]: go tool pprof's stacks, folded
traces() {
	f=$1
	shift
	go tool pprof -sample_index=samples -traces "$@" "$f" 2> /dev/null | "$PY" "$ORACLE" traces
}
cd "$TMP" || exit 1
BID=00112233445566778899aabbccddeeff00112233
go build -ldflags=-B=0x$BID -o busy "$FK_SRCDIR/tests/data/pprofsym/busy.go" || exit 1
./busy cpu.pb.gz || exit 1
"$PY" "$STRIP" strip cpu.pb.gz bare.pb.gz

# --- the stripped profile named again, as go tool pprof names it ---------
run "$FLAMEKIT" collapse --sample-type samples bare.pb.gz
is "$out" "$(traces bare.pb.gz -symbolize=local)" "unsymbolized Go profile: go tool pprof -symbolize=local's stacks"
is "$rc:$err" "0:" "unsymbolized Go profile: no message, exit 0"
is "$out" "$("$FLAMEKIT" collapse --sample-type samples cpu.pb.gz)" "the same stacks as the runtime's own names"
is "$out" "$(traces cpu.pb.gz)" "the same stacks as go tool pprof reads in the named profile"
case "$out" in
*"runtime.main;main.main;main.mid;main.leaf"*) ok 0 "the stacks name the program's functions" ;;
*) ok 1 "the stacks name the program's functions" ;;
esac
bare=$(traces bare.pb.gz -symbolize=none)
run "$FLAMEKIT" collapse --sample-type samples --symbolize=none bare.pb.gz
is "$out" "$bare" "--symbolize=none: [busy] frames, as go tool pprof -symbolize=none"
case "$bare" in
"[busy];[busy]"*) ok 0 "the unsymbolized frames are [busy]" ;;
*) ok 1 "the unsymbolized frames are [busy]" ;;
esac
run "$FLAMEKIT" collapse --sample-type samples --symbolize=remote bare.pb.gz
is "$rc:$err" "1:flamekit: bare.pb.gz: --symbolize takes local or none, not 'remote'" "--symbolize=remote refused"

# --- build ids ----------------------------------------------------------
"$PY" "$STRIP" strip cpu.pb.gz wrongbid.pb.gz build_id=ffee
run "$FLAMEKIT" collapse --sample-type samples wrongbid.pb.gz
is "$out" "$bare" "another build id: the frames stay [busy]"
is "$err" "flamekit: warning: [input:pprof] wrongbid.pb.gz: $TMP/busy: build id $BID differs from the profile's ffee: not used; its locations stay unsymbolized" \
	"another build id: one message naming the file and both ids"
is "$rc" 0 "another build id: exit 0"

# --- a missing binary, one found in PPROF_BINARY_PATH / --binary-path ------
"$PY" "$STRIP" strip cpu.pb.gz gone.pb.gz file=/nonexistent/dir/busy build_id=
run "$FLAMEKIT" collapse --sample-type samples gone.pb.gz
is "$out" "$(traces gone.pb.gz)" "a missing binary: [busy] frames, as go tool pprof leaves them"
is "$err" "flamekit: warning: [input:pprof] gone.pb.gz: /nonexistent/dir/busy: cannot read: No such file or directory; its locations stay unsymbolized" \
	"a missing binary: one message naming it"
mkdir -p bins/one bins/two
cp busy bins/two/busy
named=$(traces bare.pb.gz -symbolize=local)
is "$(PPROF_BINARY_PATH="$TMP/bins/one:$TMP/bins/two" traces gone.pb.gz)" "$named" \
	"go tool pprof finds the binary in PPROF_BINARY_PATH's second directory"
PPROF_BINARY_PATH="$TMP/bins/one:$TMP/bins/two"
export PPROF_BINARY_PATH
run "$FLAMEKIT" collapse --sample-type samples gone.pb.gz
is "$rc:$err:$out" "0::$named" "PPROF_BINARY_PATH: the binary found by its base name"
unset PPROF_BINARY_PATH
run "$FLAMEKIT" collapse --sample-type samples --binary-path "$TMP/bins/one:$TMP/bins/two" gone.pb.gz
is "$rc:$err:$out" "0::$named" "--binary-path: the same"
mkdir -p "bins/$BID" home/pprof/binaries/nonexistent/dir/busy
cp busy "bins/$BID/anything"
"$PY" "$STRIP" strip cpu.pb.gz gonebid.pb.gz file=/nonexistent/dir/busy
run "$FLAMEKIT" collapse --sample-type samples --binary-path "$TMP/bins" gonebid.pb.gz
is "$rc:$err:$out" "0::$named" "--binary-path: DIR/BUILDID/* (pprof's glob)"
cp busy "home/pprof/binaries/nonexistent/dir/busy/$BID"
run "$FLAMEKIT" collapse --sample-type samples gonebid.pb.gz
is "$rc:$err:$out" "0::$named" "by default \$HOME/pprof/binaries, in perf's layout DIR/FILE/BUILDID"
cp /bin/true bins/one/busy
run "$FLAMEKIT" collapse --sample-type samples --binary-path "$TMP/bins/one" gonebid.pb.gz
tbid=$(readelf -n /bin/true | awk '/Build ID/ { print $3 }')
is "$err" "flamekit: warning: [input:pprof] gonebid.pb.gz: $TMP/bins/one/busy: build id $tbid differs from the profile's $BID: not used
flamekit: warning: [input:pprof] gonebid.pb.gz: /nonexistent/dir/busy: cannot read: No such file or directory; its locations stay unsymbolized" \
	"a candidate of another build id is not used, and said so; then the missing file"
is "$out" "$bare" "... and the frames stay [busy]"

# --- what a profile names is read, never run, never reached through a
# link another user planted -------------------------------------------------
printf '#!/bin/sh\ntouch %s/ran\n' "$TMP" > script
chmod +x script
"$PY" "$STRIP" strip cpu.pb.gz script.pb.gz file="$TMP/script" build_id=
run "$FLAMEKIT" collapse --sample-type samples script.pb.gz
is "$err" "flamekit: warning: [input:pprof] script.pb.gz: $TMP/script: cannot read: not an ELF file; its locations stay unsymbolized" \
	"a script named as the binary: not an ELF file"
ok "$(test ! -e ran; echo $?)" "... and never run"
mkfifo fifo
"$PY" "$STRIP" strip cpu.pb.gz fifo.pb.gz file="$TMP/fifo" build_id=
run "$FLAMEKIT" collapse --sample-type samples fifo.pb.gz
is "$err" "flamekit: warning: [input:pprof] fifo.pb.gz: $TMP/fifo: cannot read: not a regular file; its locations stay unsymbolized" \
	"a FIFO named as the binary: refused without waiting for a writer"
"$PY" "$STRIP" strip cpu.pb.gz dev.pb.gz file=/dev/null build_id=
run "$FLAMEKIT" collapse --sample-type samples dev.pb.gz
is "$err" "flamekit: warning: [input:pprof] dev.pb.gz: /dev/null: cannot read: not a regular file; its locations stay unsymbolized" \
	"a device named as the binary: judged before it is opened, refused"
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null 2>&1; then
	# a sticky world-writable directory, as /tmp, inside this test's own
	chmod 755 "$TMP"
	mkdir -m 1777 sticky
	setpriv --reuid=nobody --regid=nogroup --clear-groups ln -s "$TMP/busy" sticky/planted
	ln -s "$TMP/busy" sticky/mine
	"$PY" "$STRIP" strip cpu.pb.gz planted.pb.gz file="$TMP/sticky/planted"
	run "$FLAMEKIT" collapse --sample-type samples planted.pb.gz
	is "$err" "flamekit: warning: [input:pprof] planted.pb.gz: $TMP/sticky/planted: not followed: a symbolic link on its path is owned by uid $(id -u nobody), in a sticky world-writable directory of another user; its locations stay unsymbolized" \
		"another user's link in a sticky directory is not followed"
	is "$out" "$(echo "$bare" | sed 's/\[busy\]/[planted]/g')" "... and its frames stay unsymbolized"
	setpriv --reuid=nobody --regid=nogroup --clear-groups ln -s "$TMP" sticky/dirlink
	"$PY" "$STRIP" strip cpu.pb.gz dirlink.pb.gz file="$TMP/sticky/dirlink/busy"
	run "$FLAMEKIT" collapse --sample-type samples dirlink.pb.gz
	is "$err" "flamekit: warning: [input:pprof] dirlink.pb.gz: $TMP/sticky/dirlink/busy: not followed: a symbolic link on its path is owned by uid $(id -u nobody), in a sticky world-writable directory of another user; its locations stay unsymbolized" \
		"... nor is one to a directory on the way"
	"$PY" "$STRIP" strip cpu.pb.gz mine.pb.gz file="$TMP/sticky/mine"
	run "$FLAMEKIT" collapse --sample-type samples mine.pb.gz
	is "$rc:$err:$out" "0::$named" "one's own link there is followed"
	chmod 700 "$TMP"
else
	skip "a link planted by another user" "needs root and setpriv"
	skip "a planted link's frames" "needs root and setpriv"
	skip "a planted link to a directory" "needs root and setpriv"
	skip "one's own link" "needs root and setpriv"
fi

# --- hostile mapping ranges: refused, never a crash -------------------------
leaf=$(go tool nm busy | awk '$3 == "main.leaf" { print $1 }')
at=$(printf '%x' $((0x$leaf + 4)))
cp busy busy2
"$PY" "$STRIP" make ranges.pb \
	"$TMP/busy,400000,300000,0" "$TMP/busy,400000,500000,fffffffffffff000" \
	"$TMP/busy,400000,500000,0" "$TMP/busy2,400000,500000,0" "$TMP/busy,ffffffffffff0000,ffffffffffffffff,ffffffffffffffff" -- \
	"1,$at" "2,$at" "3,$at" "4,$at" "3,500000" "3,3ff000" "5,ffffffffffff1000"
run "$FLAMEKIT" collapse ranges.pb
is "$out" "[busy] 5
main.leaf 2" "hostile ranges: a limit below the start, an offset that overflows, an address outside its mapping: unsymbolized"
is "$rc:$err" "0:" "hostile ranges: no message, exit 0"
set --
i=1
while [ $i -le 20 ]; do
	set -- "$@" "/nonexistent/m$i,400000,500000,0"
	i=$((i + 1))
done
"$PY" "$STRIP" make many.pb "$@" -- $(i=1; while [ $i -le 20 ]; do printf '%d,4a0000 ' $i; i=$((i + 1)); done)
run "$FLAMEKIT" collapse many.pb
exp=$(i=1; while [ $i -le 16 ]; do
	echo "flamekit: warning: [input:pprof] many.pb: /nonexistent/m$i: cannot read: No such file or directory; its locations stay unsymbolized"
	i=$((i + 1))
done)
is "$err" "$exp
flamekit: warning: [input:pprof] many.pb: 4 more binaries could not symbolize their locations" \
	"20 missing binaries: 16 named, the rest counted"
"$PY" "$STRIP" make overlap.pb "$TMP/busy,400000,500000,0" "$TMP/busy2,400000,500000,0" -- "1,$at" "2,$at"
run "$FLAMEKIT" collapse overlap.pb
is "$out" "$(traces overlap.pb -symbolize=local)" "overlapping mappings of two files: each location in its own, as go tool pprof"

# --- inline frames (--inline) against addr2line -i, a C program -------------
cat > inl.c <<'EOF'
static inline __attribute__((always_inline)) int sq(int x) { return x * x + (x >> 3); }
__attribute__((noinline)) int work(int n) { int s = 0; for (int i = 0; i < n; i++) s += sq(i ^ s); return s; }
int main(int argc, char **argv) { (void)argv; return work(argc * 1000) & 1; }
EOF
if cc -O2 -g -o inl inl.c 2> /dev/null; then
	set -- $(nm -S inl | awk '$4 == "work" { print $1, $2 }')
	: > addrs
	i=0
	while [ $i -lt $((0x$2)) ]; do
		printf '%x\n' $((0x$1 + i)) >> addrs
		i=$((i + 1))
	done
	# addr2line -a -i -f: each address, then name and line of the inlined
	# functions, innermost first, then of the function: a stack per
	# address, root first
	exp=$(sed 's/^/0x/' addrs | addr2line -a -i -f -e inl | awk '
		/^0x/ { if (s != "") print s; s = ""; k = 0; next }
		k++ % 2 == 0 { s = s == "" ? $0 : $0 ";" s }
		END { if (s != "") print s }' | sort | uniq -c | awk '{ print $2, $1 }')
	locs=$(while read -r a; do printf '1,%x ' $((0x$a + 0x555555554000)); done < addrs)
	# shellcheck disable=SC2086
	"$PY" "$STRIP" make inl.pb "$TMP/inl,555555554000,555555560000,0" -- $locs
	run "$FLAMEKIT" collapse --inline inl.pb
	is "$out" "$exp" "--inline: addr2line -i's frames for every byte of a function with an inlined callee"
	case "$out" in
	*"work;sq "*) ok 0 "--inline: the inlined sq is among them" ;;
	*) ok 1 "--inline: the inlined sq is among them" ;;
	esac
	# go tool pprof reads only Go's own tables (it leaves a C binary's
	# frames [inl]): nm's range of work is the oracle
	run "$FLAMEKIT" collapse inl.pb
	is "$out" "work $(wc -l < addrs | tr -d ' ')" "without --inline: work, the function nm says covers every address"
else
	skip "--inline against addr2line -i" "no C compiler"
	skip "--inline: the inlined sq" "no C compiler"
	skip "a C binary without --inline" "no C compiler"
fi
done_testing
