#!/usr/bin/env python3
"""Independent oracle for bpftrace map output: what folded stacks a file
of `bpftrace -e '... @[kstack, ustack, comm] = count();'` output holds.

Reads bpftrace text on stdin (or the file given), prints folded stacks
(scalar key parts root first in key order, then the stacks, last key part
nearest the root, each root first), summed and sorted bytewise, and on
stderr the numbers of the lines that are not part of a stack record.
Written from bpftrace's printing rules (a map entry is "@NAME[" + key parts
joined by ", " + "]: " + value; a stack part is "\\n" + one line per frame),
not from flamekit's code.  --map NAME keeps one map.
"""
import re
import sys

OPEN = re.compile(r'^@(\w*)\[')
CLOSE = re.compile(r'^(.*)\]: (\d+)\s*$')
STACK = '\x01'


def frame(line):
    raw = re.fullmatch(r'([0-9a-fA-F]+)\s*', line)
    if raw and not line[0].isspace():
        return '0x' + raw.group(1)
    t = line.strip()
    perf = re.fullmatch(r'([0-9a-fA-F]+) (.+?)(?: \([^()]*\))?', t)
    if perf and line.startswith('\t'):
        return '0x' + perf.group(1) if perf.group(2) == '[unknown]' else perf.group(2)
    return t


def main():
    args = sys.argv[1:]
    want = None
    if args[:1] == ['--map']:
        want = args[1]
        args = args[2:]
    text = open(args[0], 'rb').read() if args else sys.stdin.buffer.read()
    lines = text.decode('latin-1').split('\n')
    if lines and lines[-1] == '':
        lines.pop()
    totals, skipped = {}, []
    rec = None  # [first line, map, key text, frames]
    for no, line in enumerate(lines, 1):
        line = line.rstrip('\r')
        m = OPEN.match(line)
        if m:
            assert rec is None, 'record at line %d not closed' % rec[0]
            rec = [no, '@' + m.group(1), '', []]
            rest = line[m.end():]
        elif rec is not None and line[:1] in (',', ']'):
            rest = line
        elif rec is not None:
            if line.strip():
                if not rec[2].endswith(STACK):
                    rec[2] += STACK
                rec[3].append(frame(line))
            continue
        else:
            if line.strip() and not line.lstrip().startswith(('Attaching ', 'Attached ')):
                skipped.append(no)
            continue
        c = CLOSE.match(rest)
        if not c:
            if ']:' in rest:
                skipped.extend(range(rec[0], no + 1))
                rec = None
                continue
            rec[2] += rest + (' ' if rest.endswith(',') else '')
            continue
        rec[2] += c.group(1)
        parts = rec[2].split(', ')
        scalars = [p for p in parts if p not in ('', STACK)]
        has_stack = any(p in ('', STACK) for p in parts)
        if want is not None and rec[1] != want:
            rec = None
            continue
        if not has_stack or len(c.group(2)) > 15 or not (scalars or rec[3]):
            skipped.extend(range(rec[0], no + 1))
            rec = None
            continue
        names = scalars + list(reversed(rec[3]))
        key = ';'.join(n.replace(';', ':') for n in names)
        totals[key] = totals.get(key, 0) + int(c.group(2))
        rec = None
    assert rec is None, 'record at line %d not closed' % rec[0]
    out = sys.stdout.buffer
    for k in sorted(totals, key=lambda s: s.encode('latin-1')):
        out.write(('%s %d\n' % (k, totals[k])).encode('latin-1'))
    sys.stderr.write(' '.join(map(str, skipped)) + '\n')


main()
