#!/usr/bin/env python3
"""Independent oracle for Instruments' `xctrace export` XML of the Time
Profiler table (and of the CPU Profiler's, schema cpu-profile, weighed by its
cycle-weight; tables of other schemas are passed over): folded stacks,
written from the export's documented layout (rows of columns named by
element, <X ref="ID"/> meaning the earlier <X id="ID">, <sentinel/> an empty
column, frames leaf first, the weight in ns), not from flamekit's code.  Reads the XML with python's own parser
(xml.sax, expat), builds each element's value as it closes, and prints the
stacks summed and sorted bytewise; the lines of the rows it skips (no
backtrace, or no weight when weighing by time) go to stderr.

    xctrace.py [--samples] [--thread-root] [--per-thread] [--state-root] FILE

--per-thread: a frame "THREAD-PID/TID" at each root, as
lua/per-thread.lua inserts it; --state-root: the thread state at the root
("none" without one).
"""
import sys
import xml.sax

args = sys.argv[1:]
samples = '--samples' in args
thread_root = '--thread-root' in args
per_thread = '--per-thread' in args
state_root = '--state-root' in args
args = [a for a in args if not a.startswith('--')]


class El:
    def __init__(self, tag, attrs, line):
        self.tag, self.attrs, self.line = tag, dict(attrs), line
        self.kids, self.text = [], ''


class Reader(xml.sax.ContentHandler):
    def __init__(self):
        super().__init__()
        self.stack, self.ids, self.out, self.skipped = [], {}, {}, []
        self.schema = None

    def setDocumentLocator(self, loc):
        self.loc = loc

    def startElement(self, tag, attrs):
        el = El(tag, attrs.items(), self.loc.getLineNumber())
        if tag == 'schema' and len(self.stack) == 2:
            self.schema = el.attrs.get('name')
        if self.stack:
            self.stack[-1].kids.append(el)
        self.stack.append(el)

    def characters(self, s):
        self.stack[-1].text += s

    def endElement(self, tag):
        el = self.stack.pop()
        if tag == 'row' and len(self.stack) == 2:
            self.row(el)
            self.stack[-1].kids.pop()  # rows are not kept

    # the value of a column or of an element inside one
    def value(self, el):
        if 'ref' in el.attrs:
            return self.ids[el.attrs['ref']]
        t, a = el.tag, el.attrs
        kid = {k.tag: k for k in el.kids}
        if t in ('sample-time', 'weight', 'cycle-weight', 'tid', 'pid'):
            v = int(el.text.strip()) if el.text.strip() else None
        elif t == 'thread':
            v = {'name': a.get('fmt', ''),
                 'tid': self.value(kid['tid']) if 'tid' in kid else None,
                 'process': self.value(kid['process']) if 'process' in kid else None}
        elif t == 'process':
            v = {'pid': self.value(kid['pid']) if 'pid' in kid else None}
        elif t == 'thread-state':
            v = a.get('fmt') or el.text
        elif t == 'frame':
            v = a.get('name') or a.get('addr') or '[unknown]'
        elif t in ('backtrace', 'tagged-backtrace'):
            v = []
            for k in el.kids:
                if k.tag == 'frame':
                    v.append(self.value(k))
                elif k.tag == 'backtrace' and t == 'tagged-backtrace':
                    v.extend(self.value(k))
        else:
            v = None
        if 'id' in a:
            self.ids[a['id']] = v
        return v

    def row(self, el):
        if self.schema not in ('time-profile', 'cpu-profile'):
            return
        col = {}
        for k in el.kids:
            if k.tag != 'sentinel':
                col[k.tag] = self.value(k)
        bt = col.get('tagged-backtrace', col.get('backtrace'))
        w = 1 if samples else col.get('cycle-weight' if self.schema == 'cpu-profile' else 'weight')
        if not bt or w is None:
            self.skipped.append(el.line)
            return
        names = list(reversed(bt))
        th = col.get('thread')
        if thread_root and th and th['name']:
            names.insert(0, th['name'])
        if per_thread:
            proc = col.get('process') or (th and th['process'])
            names.insert(0, '%s-%s/%s' % (th['name'], proc['pid'], th['tid']))
        if state_root:
            names.insert(0, col.get('thread-state') or 'none')
        key = ';'.join(n.replace(';', ':').replace('\n', ' ') for n in names)
        self.out[key] = self.out.get(key, 0) + w


r = Reader()
xml.sax.parse(args[0], r)
for k in sorted(r.out, key=lambda s: s.encode('utf-8')):
    print(k, r.out[k])
for line in r.skipped:
    print(line, file=sys.stderr)
