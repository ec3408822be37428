#!/bin/sh
# Quick start: install the Debian packages flamekit needs, build it, and run
# the example job on the perf profile shipped in examples/profiles/.
# Usage: ./quickstart.sh            (uses sudo for apt-get when not root)
set -e
cd "$(dirname "$0")"

PACKAGES="build-essential autoconf automake libtool pkg-config libltdl-dev libyaml-dev
liblua5.4-dev libcmocka-dev zlib1g-dev libxml2-utils python3 mandoc
protobuf-c-compiler libprotobuf-c-dev golang-github-google-pprof-dev libyajl-dev libiberty-dev
libelf-dev libdw-dev liblzma-dev libzstd-dev libtraceevent-dev libxml2-dev"
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
missing=
for p in $PACKAGES; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "quickstart: installing$missing"
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
fi

[ -x configure ] || ./autogen.sh
[ -f Makefile ] || ./configure
make -j"$(nproc)"

./flamekit run conf/demo.yaml
echo "quickstart: open demo.svg in a browser"
