"""Writes the xctrace benchmark input (bench/40-inputs.sh): xctrace-gen.py
MB FILE, about MB megabytes of an `xctrace export` of a Time Profiler table
laid out as xctrace writes it: every row a new sample-time, the thread,
process, core, state and weight by ref, the same 2,000 distinct stacks of 8
to 31 frames as the other inputs' files.  A stack's first row writes its
backtrace (its frames new or by ref, each frame's binary by ref), later rows
refer to it; one row in five writes its backtrace again under a new id, frames
by ref, as recordings with many distinct stacks do."""
import random
import sys

mb, path = float(sys.argv[1]), sys.argv[2]
random.seed(42)
limit = mb * 1e6
ids = [0]


def new_id():
    ids[0] += 1
    return ids[0]


frame_id, stack_id = {}, {}
with open(path, 'w') as out:
    out.write('<?xml version="1.0"?>\n<trace-query-result>\n<node xpath=\'//trace-toc[1]/run[1]/data[1]/table[13]\'>'
              '<schema name="time-profile"><col><mnemonic>time</mnemonic><name>Sample Time</name>'
              '<engineering-type>sample-time</engineering-type></col></schema>\n')
    th, tid, pr, pid, core, st, w, binary = (new_id() for _ in range(8))
    size, t = 0, 0
    first = True
    while size < limit:
        k = random.randrange(2000)
        d = 8 + k % 24
        t += 1000000
        s = '<row><sample-time id="%d" fmt="%s">%d</sample-time>' % (new_id(), '00:%02d.%03d.000' % (t // 10**9 % 60, t // 10**6 % 1000), t)
        if first:
            s += ('<thread id="%d" fmt="Main Thread 0x2a (bench, pid: 4242)"><tid id="%d" fmt="0x2a">42</tid>'
                  '<process id="%d" fmt="bench (4242)"><pid id="%d" fmt="4242">4242</pid></process></thread>'
                  '<process ref="%d"/><core id="%d" fmt="CPU 0 (P Core)">0</core>'
                  '<thread-state id="%d" fmt="Running">Running</thread-state>'
                  '<weight id="%d" fmt="1.00 ms">1000000</weight>') % (th, tid, pr, pid, pr, core, st, w)
        else:
            s += ('<thread ref="%d"/><process ref="%d"/><core ref="%d"/><thread-state ref="%d"/><weight ref="%d"/>'
                  % (th, pr, core, st, w))
        if k in stack_id and random.random() >= 0.2:
            s += '<backtrace ref="%d"/>' % stack_id[k]
        else:
            stack_id[k] = new_id()
            s += '<backtrace id="%d">' % stack_id[k]
            for i in range(d - 1, -1, -1):
                name = 'fn_%d_%d' % (k % 97, i)
                if name in frame_id:
                    s += '<frame ref="%d"/>' % frame_id[name]
                else:
                    frame_id[name] = new_id()
                    s += '<frame id="%d" name="%s" addr="0x%x">' % (frame_id[name], name, 4096 + len(frame_id) * 64)
                    if first and i == d - 1:
                        s += ('<binary id="%d" name="bench" UUID="11111111-2222-3333-4444-555555555555" arch="arm64e" '
                              'load-addr="0x100000000" path="/usr/local/bin/bench"/></frame>' % binary)
                    else:
                        s += '<binary ref="%d"/></frame>' % binary
            s += '</backtrace>'
        s += '</row>\n'
        first = False
        out.write(s)
        size += len(s)
    out.write('</node></trace-query-result>\n')
