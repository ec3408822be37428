#!/usr/bin/env python3
"""Per-function costs from callgrind_annotate's or cg_annotate's report:
reads the profile (for its file names: fl=, fi=, fe=) and the report, and
prints "function cost" lines, costs of one function name summed over its
files and objects, sorted bytewise; "TOTAL cost" first.  Written from the
reports' layout ("1,234 (5.6%)  file:function [object]"), not from
flamekit's code."""
import os
import re
import sys

profile, report = sys.argv[1], sys.argv[2]
files = set()
for line in open(profile, encoding='latin-1'):
    m = re.match(r'(?:c?f[lie])=(?:\(\d+\))?\s*(.*?)\s*$', line)
    if m and m.group(1):
        files.add(m.group(1))
# the reports name files under the current directory relative to it
here = os.getcwd() + '/'
files |= {f[len(here):] for f in files if f.startswith(here)}
files = sorted(files, key=len, reverse=True) + ['???']
costs, total, body = {}, None, False
for line in open(report, encoding='latin-1'):
    line = line.rstrip('\n')
    m = re.match(r'\s*([\d,]+)\s+\([\s\d.]+%\)\s+(?:[\d,]+(?:\s+\([\s\d.]+%\))?\s+)*(.*)$', line)
    if 'file:function' in line:
        body = True
        continue
    if not m:
        if body and line.startswith('-') and costs:
            break
        continue
    cost, what = int(m.group(1).replace(',', '')), m.group(2)
    if what == 'PROGRAM TOTALS':
        total = cost
        continue
    if not body:
        continue
    what = re.sub(r' \[[^\]]*\]$', '', what)
    for f in files:
        if what.startswith(f + ':'):
            what = what[len(f) + 1:]
            break
    costs[what] = costs.get(what, 0) + cost
print('TOTAL', total)
for k in sorted(costs, key=lambda s: s.encode('latin-1')):
    print(k, costs[k])
