#!/usr/bin/env python3
"""perf script text with what `perf script --inline` and stackcollapse-perf.pl
--srcline would add, from addr2line (tests/perf-data-inline.sh's oracle).

usage: inline-oracle.py MODE PROGRAM < perf-script-text > text
  MODE inline:  before each callchain line of a mapped file, one
                "\tADDR NAME+0xOFF (inlined)" line per function binutils'
                `addr2line -f -i -e FILE ADDR` shows inlined there
                (innermost first; OFF the function's own), as perf script
                --inline prints them where perf has its inline support;
  MODE srcline: ":FILE:LINE" (the file's base name) after each frame's name,
                the address's own line, as stackcollapse-perf.pl --srcline
                makes of `perf script -F +srcline`;
  MODE both:    the inline lines, each frame with its own line (the call
                site of the next inner one), as --inline --context.
PROGRAM's frames are resolved with binutils' addr2line; other files' with
elfutils' eu-addr2line: binutils 2.40 names the including .c file instead
of the header at the right line for glibc's functions defined in headers
(libc-start.c:74 for libc_start_call_main.h:74).  Frames without a line
keep their name.
"""
import os
import re
import subprocess
import sys

mode, program = sys.argv[1], os.path.realpath(sys.argv[2])
cache = {}


def records(dso, addr):
    """[(name, file, line)] innermost first, or [] when no line is known."""
    key = (dso, addr)
    if key in cache:
        return cache[key]
    eu = os.path.realpath(dso) != program
    cmd = ["eu-addr2line" if eu else "addr2line", "-f", "-i", "-e", dso, "0x" + addr]
    out = subprocess.run(cmd, capture_output=True, text=True).stdout.splitlines()
    recs = []
    for k in range(0, len(out) - 1, 2):
        name = out[k].split(" inlined at ")[0]
        loc = re.sub(r" \(discriminator \d+\)$", "", out[k + 1])
        if eu:
            loc = re.sub(r":\d+$", "", loc) if loc.count(":") >= 2 else loc
        f, _, ln = loc.rpartition(":")
        recs.append((name, os.path.basename(f), ln))
    if not recs or recs[-1][0] == "??" or recs[-1][2] in ("0", "?", ""):
        recs = [r for r in recs if r[2] not in ("0", "?", "")]
    cache[key] = recs
    return recs


frame = re.compile(r"^(\t *)([0-9a-f]+) (.+?)(\+0x[0-9a-f]+)? \((/[^)]*)\)$")
for text in sys.stdin:
    m = frame.match(text.rstrip("\n"))
    if not m or not os.path.exists(m.group(5)):
        sys.stdout.write(text)
        continue
    lead, addr, name, off, dso = m.groups()
    off = off or ""
    recs = records(dso, addr)
    inl = recs[:-1] if mode != "srcline" and recs and recs[-1][0] != "??" else []
    for n, f, ln in inl:
        src = ":%s:%s" % (f, ln) if mode == "both" else ""
        sys.stdout.write("%s%s %s%s%s (inlined)\n" % (lead, addr, n, src, off))
    src = ""
    if mode == "srcline" and recs:
        src = ":%s:%s" % (recs[0][1], recs[0][2])
    elif mode == "both" and recs:
        src = ":%s:%s" % (recs[-1][1], recs[-1][2])
    sys.stdout.write("%s%s %s%s%s (%s)\n" % (lead, addr, name, src, off, dso))
