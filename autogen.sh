#!/bin/sh
# Generate ./configure from a fresh checkout.
set -e
cd "$(dirname "$0")"
mkdir -p m4 build-aux
autoreconf --install --force
# automake does not install the TAP driver on its own.
cp "$(automake --print-libdir)/tap-driver.sh" build-aux/tap-driver.sh
