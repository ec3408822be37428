#!/usr/bin/env python3
# The oracle of tests/jfr.sh: folded stacks from `jfr print --json`
# (the JDK's own reader), never from flamekit.
#
#   jfr print --json --events TYPE x.jfr | jfr.py TYPE [--lines] [--all] [--thread-root] [--state LIST]
#                                                      [--async-profiler]
#
# Each event with a stack trace is one stack: frames root first, named
# "pkg/Class.method" (the class name as the JSON gives it), ":LINE" with
# --lines (when the line is positive), _[j]/_[i]/_[k] for JIT compiled
# (and C1 compiled), inlined and kernel frames with --all, the thread's
# javaName (else osName) at the root with --thread-root.  C++ and Kernel
# frames are named by the method alone (their class is the library holding
# them), and so are Native frames with --async-profiler: the recording (one
# chunk) is async-profiler's, whose Native frames are C functions where the
# JDK's are Java native methods.  Weights: a count for sample
# events, bytes for allocations, nanoseconds of duration for monitor and
# park events, async-profiler's batched wall-clock samples' count.
# Events of zero weight are dropped; events without a stack trace or with
# no frames are skipped and counted ("skipped N" on stderr).  Output: "stack weight" lines sorted.
import json
import sys
from decimal import Decimal

args = sys.argv[1:]
etype = args.pop(0)
lines = '--lines' in args
annot = '--all' in args
threads = '--thread-root' in args
asprof = '--async-profiler' in args
states = None
if '--state' in args:
    states = {s.upper().removeprefix('STATE_') for s in args[args.index('--state') + 1].split(',')}

WEIGHT = {
    'jdk.ObjectAllocationSample': 'weight',
    'jdk.ObjectAllocationInNewTLAB': 'tlabSize',
    'jdk.ObjectAllocationOutsideTLAB': 'allocationSize',
    'jdk.JavaMonitorEnter': 'duration',
    'jdk.JavaMonitorWait': 'duration',
    'jdk.ThreadPark': 'duration',
    'jdk.ThreadSleep': 'duration',
    'jdk.SocketRead': 'duration',
    'jdk.SocketWrite': 'duration',
    'jdk.FileRead': 'duration',
    'jdk.FileWrite': 'duration',
    'profiler.WallClockSample': 'samples',
    'profiler.LiveObject': 'allocationSize',
    'profiler.Malloc': 'size',
    'profiler.NativeLock': 'duration',
    'jdk.MethodTrace': 'duration',
}


def duration_ns(s):
    # ISO-8601 durations as jfr print --json writes them: PT0.001234S, PT1M2.5S, ...
    assert s.startswith('PT'), s
    s = s[2:]
    total = Decimal(0)
    num = ''
    for ch in s:
        if ch in 'HMS':
            total += Decimal(num) * {'H': 3600, 'M': 60, 'S': 1}[ch]
            num = ''
        else:
            num += ch
    return int(total * 1000000000)


def text(v):
    # a symbol: its text (jfr print writes {"string": ...} for a Symbol type
    # without the JDK's own annotations, as in jfr-forge.py's files)
    return (v or {}).get('string') or '' if isinstance(v, dict) else v or ''


def name(fr):
    m = fr['method']
    cls = text((m.get('type') or {}).get('name'))
    if fr.get('type') in ('C++', 'Kernel') or asprof and fr.get('type') == 'Native':
        cls = ''

    n = (cls + '.' if cls else '') + text(m['name'])
    if lines and fr.get('lineNumber', 0) > 0:
        n += ':%d' % fr['lineNumber']
    if annot:
        n += {'JIT compiled': '_[j]', 'C1 compiled': '_[j]', 'Inlined': '_[i]', 'Kernel': '_[k]'}.get(fr.get('type'), '')
    return n.replace(';', ':')


events = json.load(sys.stdin)['recording']['events']
out = {}
skipped = 0
for e in events:
    if e['type'] != etype:
        continue
    v = e['values']
    st = v.get('stackTrace')
    if not st:
        skipped += 1
        continue
    if states is not None:
        s = (v.get('state') or {}).get('name') if isinstance(v.get('state'), dict) else v.get('state')
        if not s or s.upper().removeprefix('STATE_') not in states:
            continue
    f = WEIGHT.get(etype)
    if f is None:
        w = 1
    elif f == 'duration':
        w = duration_ns(v[f])
    else:
        w = int(v[f])
    if w <= 0:
        continue
    if not st['frames']:
        skipped += 1
        continue
    stack = [name(fr) for fr in reversed(st['frames'])]
    if threads:
        t = v.get('sampledThread') or v.get('eventThread') or {}
        tname = t.get('javaName') or t.get('osName') or '[tid=%d]' % t.get('osThreadId', 0)
        stack.insert(0, tname.replace(';', ':'))
    key = ';'.join(stack)
    out[key] = out.get(key, 0) + w
for k in sorted(out):
    print(k, out[k])
if skipped:
    print('skipped %d' % skipped, file=sys.stderr)
