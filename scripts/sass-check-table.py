#!/usr/bin/env python3
"""Runs `warpsmith sass check --all` on cubins and prints one table row per (set, arch):
cubins, instructions, instructions of unknown form, conservative (implicit) forms, and
mismatches against nvdisasm (an unknown opcode that nvdisasm names counts as a mismatch too).

    sass-check-table.py --warpsmith target/debug/warpsmith SET=DIR [SET=DIR ...]

The arch of a cubin is the last dotted component of its name before `.cubin` (e.g.
`k.O3.sm_90a.cubin`). Used to produce the holdout tables of docs/sass.md.
"""
import argparse
import collections
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor


def check(ws, path):
    out = subprocess.run([ws, 'sass', 'check', '--all', path], capture_output=True, text=True)
    txt = out.stdout + out.stderr
    m = re.search(r': \S+, (\d+) instructions', txt)
    if not m:
        return None, txt
    n = int(m.group(1))
    known = int(re.search(r'form known to the table:\s+(\d+)', txt).group(1))
    cons = int(re.search(r'conservative \(implicit/unknown\):\s+(\d+)', txt).group(1))
    mism = [l for l in txt.splitlines() if l.strip().startswith('MISMATCH')]
    return (n, n - known, cons, mism), txt


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--warpsmith', required=True)
    ap.add_argument('--jobs', type=int, default=2)
    ap.add_argument('--show', type=int, default=0, help='print this many mismatch lines per set')
    ap.add_argument('sets', nargs='+')
    a = ap.parse_args()
    rows = collections.OrderedDict()
    forms = collections.Counter()
    for s in a.sets:
        name, d = s.split('=', 1)
        paths = sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith('.cubin'))
        with ThreadPoolExecutor(a.jobs) as ex:
            res = list(ex.map(lambda p: (p, check(a.warpsmith, p)), paths))
        shown = 0
        for p, (r, txt) in res:
            arch = os.path.basename(p)[:-len('.cubin')].split('.')[-1]
            row = rows.setdefault((name, arch), [0, 0, 0, 0, 0, 0])
            if r is None:
                row[5] += 1
                print('ERROR %s: %s' % (p, txt.strip()[:300]), file=sys.stderr)
                continue
            n, unk, cons, mism = r
            row[0] += 1
            row[1] += n
            row[2] += unk
            row[3] += cons
            row[4] += len(mism)
            for l in mism:
                t = re.search(r'`([^`]*)`', l)
                if t:
                    mn = t.group(1).split()
                    mn = mn[1] if mn[0].startswith('@') and len(mn) > 1 else mn[0]
                    forms[(name, arch, mn.rstrip(';'))] += 1
                if shown < a.show:
                    print('  %s %s' % (os.path.basename(p), l.strip()), file=sys.stderr)
                    shown += 1
    print('| set | arch | cubins | instructions | unknown | conservative | mismatches |')
    print('|---|---|---|---|---|---|---|')
    for (name, arch), r in rows.items():
        err = ' (%d not checked)' % r[5] if r[5] else ''
        print('| %s | %s | %d%s | %d | %d | %d | %d |' % (name, arch, r[0], err, r[1], r[2], r[3], r[4]))
    if forms:
        print('\nmismatched forms (set, arch, mnemonic: count):')
        for (name, arch, mn), c in sorted(forms.items()):
            print('  %s %s %s: %d' % (name, arch, mn, c))


if __name__ == '__main__':
    main()
