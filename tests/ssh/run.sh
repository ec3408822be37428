#!/bin/sh
# flamekit-parallel over ssh: start a throw-away sshd on 127.0.0.1 (a free
# port, fresh host and user keys, nothing outside $TMP), run a collapse on
# two hosts (':' and the ssh one, whose flamekit is this build tree) and
# check the merged result equals the one-machine collapse.  Needs root,
# sshd (Debian openssh-server) and GNU parallel; skips without them.
#
# Run by make check, or by hand / CI as: tests/ssh/run.sh [BUILDDIR]
# (default: the source tree, as after ./quickstart.sh).
if [ -z "${FLAMEKIT:-}" ]; then
	FK_BUILDDIR=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
	FK_SRCDIR=$(cd "$(dirname "$0")/../.." && pwd)
	FLAMEKIT=$FK_BUILDDIR/flamekit
	FLAMEKIT_PLUGIN_PATH=$FK_BUILDDIR/plugins
	FK_CONFORMANCE=${FK_CONFORMANCE:-$FK_SRCDIR/../shared/conformance}
	export FK_BUILDDIR FK_SRCDIR FLAMEKIT FLAMEKIT_PLUGIN_PATH FK_CONFORMANCE
fi
. "$FK_SRCDIR/tests/lib.sh"
not_sanitized "flamekit-parallel over ssh" "sshd and GNU parallel"

SSHD=/usr/sbin/sshd
why=
[ "$(id -u)" -eq 0 ] || why="not root"
[ -n "$why" ] || [ -x "$SSHD" ] || why="no $SSHD (Debian package openssh-server)"
[ -n "$why" ] || command -v parallel > /dev/null 2>&1 || why="no GNU parallel (Debian package parallel)"
[ -n "$why" ] || command -v ssh > /dev/null 2>&1 || why="no ssh client"
[ -n "$why" ] || command -v python3 > /dev/null 2>&1 || why="no python3 to pick a free port"
if [ -n "$why" ]; then
	skip_all "flamekit-parallel over ssh" "$why"
fi

pid=
cleanup() {
	if [ -n "$pid" ]; then
		kill "$pid" 2> /dev/null
		wait "$pid" 2> /dev/null
	fi
	rm -rf "$TMP"
}
trap cleanup EXIT

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
ssh-keygen -q -t ed25519 -N '' -f "$TMP/host_key" -C fk-test-host
ssh-keygen -q -t ed25519 -N '' -f "$TMP/user_key" -C fk-test-user
cp "$TMP/user_key.pub" "$TMP/authorized_keys"
chmod 600 "$TMP/authorized_keys"
printf '[127.0.0.1]:%s %s\n' "$port" "$(cut -d' ' -f1,2 "$TMP/host_key.pub")" > "$TMP/known_hosts"
cat > "$TMP/sshd_config" <<CFG
ListenAddress 127.0.0.1
Port $port
HostKey $TMP/host_key
AuthorizedKeysFile $TMP/authorized_keys
PidFile $TMP/sshd.pid
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
AllowUsers root
CFG
cat > "$TMP/ssh_config" <<CFG
Host fk-loopback
	HostName 127.0.0.1
	Port $port
	User root
	IdentityFile $TMP/user_key
	IdentitiesOnly yes
	UserKnownHostsFile $TMP/known_hosts
	StrictHostKeyChecking yes
	BatchMode yes
	ConnectTimeout 5
CFG
mkdir -p /run/sshd
"$SSHD" -D -f "$TMP/sshd_config" -E "$TMP/sshd.log" &
pid=$!
up=1
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
	if ssh -F "$TMP/ssh_config" fk-loopback true 2> "$TMP/ssh.err"; then
		up=0
		break
	fi
	sleep 0.25
done
ok $up "sshd answers on 127.0.0.1:$port"
if [ $up -ne 0 ]; then
	sed 's/^/# /' "$TMP/ssh.err" "$TMP/sshd.log"
	done_testing
	exit 1
fi

# Inputs: folded files from the tree and the corpus, if present.
set -- "$FK_SRCDIR"/tests/data/folded/*.txt
if [ -d "$FK_CONFORMANCE" ]; then
	set -- "$@" "$FK_CONFORMANCE"/perf/expected/perf-*-collapsed.txt "$FK_CONFORMANCE"/svg/inputs/*.txt
fi
"$FLAMEKIT" collapse --format folded "$@" > "$TMP/single.folded" 2> /dev/null
export PARALLEL_SSH="ssh -F $TMP/ssh_config"
export HOME="$TMP" # GNU parallel keeps its state in ~/.parallel
FKP="$FK_SRCDIR/scripts/flamekit-parallel"
REMOTE="env FLAMEKIT_PLUGIN_PATH=$FK_BUILDDIR/plugins $FLAMEKIT"

run bash "$FKP" --flamekit "$FLAMEKIT" --remote-flamekit "$REMOTE" -S : -S fk-loopback \
	--format folded --keep "$TMP/parts" -o "$TMP/files.folded" "$@"
ok $rc "flamekit-parallel, one job per file, on ':' and fk-loopback${err:+ ($err)}"
same_file "$TMP/single.folded" "$TMP/files.folded" "per-file jobs merged == one-machine collapse"
ok $([ "$(ls "$TMP/parts" | wc -l)" -eq $# ]; echo $?) "one folded part per file came back"

run bash "$FKP" --flamekit "$FLAMEKIT" --remote-flamekit "$REMOTE" -S 1/:,1/fk-loopback \
	--format folded --shards 3 "$@"
printf '%s\n' "$out" > "$TMP/shards.folded"
ok $rc "flamekit-parallel --shards 3 to stdout${err:+ ($err)}"
same_file "$TMP/single.folded" "$TMP/shards.folded" "3 shards of each file merged == one-machine collapse"

# The ssh host really ran jobs: its sshd logged the sessions.
ok $([ "$(grep -c 'Accepted publickey' "$TMP/sshd.log")" -ge 2 ]; echo $?) "jobs ran through sshd"

run bash "$FKP" --flamekit "$FLAMEKIT" --remote-flamekit "$REMOTE" -S fk-loopback \
	--format folded "$TMP/no-such-file"
is "$rc:$err" "2:flamekit-parallel: $TMP/no-such-file: cannot read it" "missing input"

done_testing
