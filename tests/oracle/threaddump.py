#!/usr/bin/env python3
"""Independent oracle for thread dumps (gdb's `thread apply all bt`,
eu-stack, jstack): the folded stacks they hold, one per thread, the
thread's name at the root (--root none: without it), --state LIST keeping
the threads in those states.  Prints the stacks summed and sorted
bytewise.  Written from the dumps' layouts, not from flamekit's code."""
import re
import sys

args = sys.argv[1:]
root, states = True, None
while args and args[0].startswith('--'):
    if args[0] == '--root':
        root = args[1] != 'none'
    elif args[0] == '--state':
        states = [s.upper() for s in args[1].split(',')]
    args = args[2:]
text = open(args[0], 'rb').read().decode('latin-1').replace('\r\n', '\n')

GDB_HEAD = re.compile(r'^Thread \d+ \(.*\):$')
EU_HEAD = re.compile(r'^TID \d+:$')
EU_PID = re.compile(r'^PID \d+ - ')
JS_HEAD = re.compile(r'^"(.*)" .*\bnid=')
GDB_FRAME = re.compile(r'^#\d+\s+(?:0x[0-9a-f]+ in )?(.*?)(?: \(.*)?$')
EU_FRAME = re.compile(r'^#\d+\s+(0x[0-9a-f]+)(?: (.*))?$')

stacks = {}
cur = None  # [name, state, frames leaf first]


def flush():
    global cur
    if cur is None:
        return
    name, state, frames = cur
    cur = None
    if states is not None and (state or '').upper() not in states:
        return
    st = ([name] if root and name else []) + frames[::-1]
    if st:
        k = ';'.join(f.replace(';', ':') for f in st)
        stacks[k] = stacks.get(k, 0) + 1


for line in text.split('\n'):
    line = line.rstrip()
    if not line:
        flush()
        continue
    if GDB_HEAD.match(line):
        flush()
        m = re.search(r'"([^"]*)"\):$', line)
        cur = [m.group(1) if m else '', None, []]
    elif EU_HEAD.match(line):
        flush()
        cur = ['', None, []]
    elif EU_PID.match(line):
        flush()
    elif JS_HEAD.match(line):
        flush()
        cur = [line[1:line.rindex('"')], None, []]
    elif cur is not None:
        t = line.strip()
        if t.startswith('#'):
            e = EU_FRAME.match(t)
            if e and ' in ' not in t and not re.search(r' \(', t):
                cur[2].append(e.group(2) or e.group(1))
                continue
            g = GDB_FRAME.match(t)
            name = g.group(1)
            if name == '??':
                name = re.match(r'^#\d+\s+(0x[0-9a-f]+)', t).group(1)
            cur[2].append(name)
        elif t.startswith('at '):
            cur[2].append(t[3:].split('(')[0])
        elif t.startswith('java.lang.Thread.State: '):
            cur[1] = t.split()[1]
flush()
for k in sorted(stacks, key=lambda s: s.encode('latin-1')):
    print(k, stacks[k])
