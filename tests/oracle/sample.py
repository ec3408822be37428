#!/usr/bin/env python3
"""Independent oracle for macOS `sample` call graphs: folded stacks, each
node's own count (its count less its children's), module`function frames
(.dylib dropped; --no-modules: the function alone), the thread line's text
at the root, stacks ending in one of stackcollapse-sample.awk's waits left
out (--waiting: kept).  Written from the report's layout, not from
flamekit's code; prints the stacks summed and sorted bytewise."""
import re
import sys

args = sys.argv[1:]
modules, waiting = True, False
while args and args[0].startswith('--'):
    modules = modules and args[0] != '--no-modules'
    waiting = waiting or args[0] == '--waiting'
    args = args[1:]
WAITS = {'__psynch_cvwait', '__select', '__semwait_signal', '__ulock_wait', '__wait4',
         '__workq_kernreturn', 'kevent', 'mach_msg_trap', 'read', 'semaphore_wait_trap'}
LINE = re.compile(r'^    ([ +!:|]*)(\d+) (.*)$')
text = open(args[0], 'rb').read().decode('latin-1').replace('\r\n', '\n')
graph, path, out = False, [], {}


def close(depth):
    while len(path) > depth:
        name, fn, own = path.pop()
        if own > 0 and (waiting or fn not in WAITS):
            k = ';'.join(p[0] for p in path) + (';' if path else '') + name
            out[k] = out.get(k, 0) + own


for line in text.split('\n'):
    if line.startswith('Call graph:'):
        close(0)
        graph = True
        continue
    if line.startswith('Total number'):
        close(0)
        graph = False
        continue
    m = LINE.match(line) if graph else None
    if not m:
        continue
    depth, count, rest = len(m.group(1)) // 2, int(m.group(2)), m.group(3).strip()
    close(depth)
    fn, mod = rest, None
    mm = re.match(r'^(.*?)  \(in ([^)]*)\)', rest)
    if mm:
        fn, mod = mm.group(1).strip(), mm.group(2)
    if path:
        path[-1][2] -= count
    name = fn
    if mod is not None and modules and depth > 0:
        name = re.sub(r'\.dylib$', '', mod) + '`' + fn
    path.append([name.replace(';', ':'), fn, count])
close(0)
for k in sorted(out, key=lambda s: s.encode('latin-1')):
    print(k, out[k])
