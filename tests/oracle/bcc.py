#!/usr/bin/env python3
"""Independent oracle for the default (not -f) output of bcc's profile,
offcputime, offwaketime and stackcount: the folded stacks their -f option
would print (summed and sorted bytewise), from the print statements of
bcc's tools: each record is frame lines, a process line ("-  comm (pid)",
"comm [pid]", or offwaketime's "waker:"/"target:" pair), an indented
count and a blank line.  Stderr gets the numbers of the lines that belong
to no record.  Not written from flamekit's code.
"""
import re
import sys

HEADERS = ('Sampling at ', 'Tracing ', 'Detaching...', 'WARNING: ', 'WARN: ')


def main():
    data = open(sys.argv[1], 'rb').read().decode('latin-1')
    lines = data.split('\n')
    if lines and lines[-1] == '':
        lines.pop()
    totals, skipped = {}, []
    frames, comm, waker, first = [], None, None, None

    def reset():
        nonlocal frames, comm, waker, first
        frames, comm, waker, first = [], None, None, None

    for no, raw in enumerate(lines, 1):
        line = raw.rstrip()
        if not line.strip():
            continue
        if not line[0].isspace():
            if not (line.startswith(HEADERS) or re.fullmatch(r'\d\d:\d\d:\d\d', line)):
                skipped.append(no)
            continue
        body = line.strip()
        first = first or no
        if re.fullmatch(r'\d+', body):
            if (not frames and comm is None) or len(body) >= 64:
                skipped.extend(range(first, no + 1))
            else:
                names = ([comm] if comm is not None else []) + frames[::-1] + \
                    ([waker] if waker is not None else [])
                key = ';'.join(n.replace(';', ':') for n in names)
                totals[key] = totals.get(key, 0) + int(body)
            reset()
            continue
        m = (re.fullmatch(r'-\s+(.*) \(\d+\)', body) or re.fullmatch(r'target:\s+(.*) \d+', body)
             or (re.fullmatch(r'(.*) \[\d+\]', body) if len(line) - len(line.lstrip()) >= 4 else None))
        w = re.fullmatch(r'waker:\s+(.*) \d+', body)
        if body in ('-', '--'):
            frames.append('-')
        elif re.fullmatch(r'--\s+--', body):
            frames.append('--')
        elif w:
            waker = w.group(1)
        elif m:
            comm = m.group(1)
        else:
            if len(line) - len(line.lstrip()) == 2:
                v = re.fullmatch(r'[0-9a-fA-F]{1,16} +(.+)', body)
                body = v.group(1) if v else body
            frames.append(body)
    assert first is None, 'record at line %d has no count' % first
    for k in sorted(totals, key=lambda s: s.encode('latin-1')):
        sys.stdout.buffer.write(('%s %d\n' % (k, totals[k])).encode('latin-1'))
    sys.stderr.write(' '.join(map(str, skipped)) + '\n')


main()
