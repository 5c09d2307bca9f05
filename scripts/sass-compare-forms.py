#!/usr/bin/env python3
"""Compares two builds of warpsmith's SASS decoder instruction by instruction: which
instructions one table decodes (a known form) and the other does not (`MNEMONIC?`). Used when
the tables are learned again (docs/sass.md): a relearning may keep every opcode key and still
lose a form (sm_90's `ULEA.HI.X.SX32` in the fifth round), so the check is per instruction, not
per key.

    sass-compare-forms.py --old OLD_WARPSMITH --new NEW_WARPSMITH [--jobs N] DIR_OR_CUBIN...

Both binaries list every cubin with `warpsmith sass dis`; the instructions are matched by
kernel and address. Prints a summary per mnemonic (lost: known to OLD, unknown to NEW; gained:
the reverse) and up to --show lost instructions with their words; exits 1 when any form is lost.
"""
import argparse
import collections
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

# `sass dis` prints a kernel header per `.text.` section, then one line per instruction:
#   /*1df0*/ [B------:R-:W-:-:S01]      QGMMA?     def [...] use [...]  // 0x... 0x...
INST_RE = re.compile(r'^\s*/\*([0-9a-f]+)\*/\s+\[[^\]]*\]\s+(?:@!?U?P\S+\s+)?(\S+)\s.*//\s*(0x[0-9a-f]+ 0x[0-9a-f]+)')


def listing(ws, path):
    """{(kernel, address): (mnemonic, words)} of one cubin as `ws` decodes it (kernels from
    the `// function NAME:` headers)."""
    out = subprocess.run([ws, 'sass', 'dis', path], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError('%s sass dis %s: %s' % (ws, path, out.stderr.strip()[:300]))
    insts = {}
    kernel = None
    for line in out.stdout.splitlines():
        m = INST_RE.match(line)
        if m:
            insts[(kernel, int(m.group(1), 16))] = (m.group(2), m.group(3))
        elif line.startswith('// function '):
            kernel = line[len('// function '):].split(':')[0]
    return insts


def cubins(paths):
    for p in paths:
        if os.path.isdir(p):
            for f in sorted(os.listdir(p)):
                if f.endswith('.cubin'):
                    yield os.path.join(p, f)
        else:
            yield p


def compare(old, new, path):
    a, b = listing(old, path), listing(new, path)
    if set(a) != set(b):
        raise RuntimeError('%s: the two listings have different instructions' % path)
    lost, gained = [], []
    for at in sorted(a, key=lambda k: (k[0] or '', k[1])):
        (ma, wa), (mb, wb) = a[at], b[at]
        if ma.endswith('?') == mb.endswith('?'):
            continue
        (lost if mb.endswith('?') else gained).append((path, at, ma, mb, wa))
    return lost, gained


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--old', required=True, help='warpsmith built with the old tables')
    ap.add_argument('--new', required=True, help='warpsmith built with the new tables')
    ap.add_argument('--jobs', type=int, default=2)
    ap.add_argument('--show', type=int, default=20, help='lost instructions to print')
    ap.add_argument('paths', nargs='+', help='cubins, or folders of cubins')
    a = ap.parse_args()
    paths = list(cubins(a.paths))
    with ThreadPoolExecutor(a.jobs) as ex:
        results = list(ex.map(lambda p: compare(a.old, a.new, p), paths))
    lost = [x for l, g in results for x in l]
    gained = [x for l, g in results for x in g]
    by = collections.Counter(x[2] for x in lost)
    gby = collections.Counter(x[3] for x in gained)
    print('%d cubins: %d instructions lost their form, %d gained one' %
          (len(paths), len(lost), len(gained)))
    for mn, n in sorted(by.items()):
        print('  lost   %-24s %d' % (mn, n))
    for mn, n in sorted(gby.items()):
        print('  gained %-24s %d' % (mn, n))
    for path, (kernel, addr), ma, mb, words in lost[:a.show]:
        print('LOST %s %s /*%04x*/ %s  // %s' % (path, kernel, addr, ma, words))
    sys.exit(1 if lost else 0)


if __name__ == '__main__':
    main()
