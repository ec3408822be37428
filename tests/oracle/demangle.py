#!/usr/bin/env python3
"""Oracle for --demangle: folded stacks (stdin) with every frame's mangled
symbol replaced by what c++filt (binutils) prints for it, summed and sorted
bytewise.  A frame is (its _[k]-style annotation aside) [MODULE`]SYMBOL[REST]: the symbol is the run of
[A-Za-z0-9_.$] starting with _Z, _R, _D or __Z (c++filt -_ for that one).
--short: c++filt -p (no parameters), and for Rust names the hash
(::h + 16 hex digits) and the crate disambiguators ([hex]) dropped, as
inferno's short demangling does.
"""
import re
import subprocess
import sys

short = '--short' in sys.argv[1:]
# flamegraph.pl's annotations (kernel, inlined, jit, waker) are not names
ANNOT = re.compile(r'_\[[kijw]\]$')
SYM = re.compile(r'^((?:[^`]*`)?)((?:__Z|_Z|_R|_D)[A-Za-z0-9_.$]+)(.*)$', re.S)


def cxxfilt(names, extra):
    if not names:
        return {}
    args = ['c++filt'] + (['-p'] if short else []) + extra
    out = subprocess.run(args, input='\n'.join(names) + '\n', capture_output=True,
                         text=True, check=True).stdout.split('\n')
    return dict(zip(names, out))


def main():
    stacks = []
    for line in sys.stdin.read().splitlines():
        if not line.strip():
            continue
        stack, count = line.rsplit(' ', 1)
        stacks.append((stack.split(';'), int(count)))
    syms = set()
    for frames, _ in stacks:
        for f in frames:
            m = SYM.match(ANNOT.sub('', f))
            if m:
                syms.add(m.group(2))
    plain = cxxfilt(sorted(s for s in syms if not s.startswith('__Z')), [])
    plain.update(cxxfilt(sorted(s for s in syms if s.startswith('__Z')), ['-_']))
    # a clone suffix c++filt did not take: the symbol before the first '.'
    for s, d in list(plain.items()):
        if d == s and '.' in s:
            base = s.split('.')[0]
            plain[s] = cxxfilt([base], ['-_'] if base.startswith('__Z') else [])[base]
            if plain[s] != base:
                plain[s] += '\0' + s[len(base):]  # what stays after it
    totals = {}
    for frames, count in stacks:
        out = []
        for f in frames:
            a = ANNOT.search(f)
            f = ANNOT.sub('', f)
            m = SYM.match(f)
            if m:
                d = plain[m.group(2)]
                rest = m.group(3)
                if '\0' in d:
                    d, kept = d.split('\0')
                    rest = kept + rest
                if short and d != m.group(2) and (m.group(2).startswith('_R') or
                                                  re.search(r'17h[0-9a-f]{16}E', m.group(2))):
                    d = re.sub(r'::h[0-9a-f]{16}$', '', d)
                    d = re.sub(r'\[[0-9a-f]+\]', '', d)
                f = m.group(1) + d + rest
            out.append(f + (a.group(0) if a else ''))
        key = ';'.join(out)
        totals[key] = totals.get(key, 0) + count
    for k in sorted(totals, key=lambda s: s.encode()):
        print('%s %d' % (k, totals[k]))


main()
