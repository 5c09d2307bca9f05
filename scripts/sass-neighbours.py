#!/usr/bin/env python3
"""Checks warpsmith's SASS decoder on the one-bit neighbours of every form it knows (issue 14:
"no unknown form, no guessed form" beyond the corpus the tables were learned from).

    sass-neighbours.py --warpsmith WS --nvdisasm NV --template-dir DIR [--kernel K]
                       [--bits 61-63,72-104] [--per-form 1] [--chunk N] [--jobs N]
                       DIR_OR_CUBIN...

For every architecture and every form the decoder knows in the given cubins (an opcode as
`warpsmith sass dis` names it with one combination of the modifier bits [72:104]), up to
--per-form instruction words are taken; each bit of --bits is flipped in each of them. The
neighbours nvdisasm accepts are written into the template kernel (`DIR/bigregs.O3.<arch>.cubin`,
kernel --kernel, with learn_tables.py's `synthetic_kernel`), listed by nvdisasm and by
`warpsmith sass dis`, and compared.

The oracle is nvdisasm's text, not its life ranges: in a synthetic kernel no register is
defined before or read after the instruction, so life ranges omit reads of undefined registers
and dead writes. A decode is **wrong** when its opcode differs from nvdisasm's or when the text
names a register (R, UR, P, UP; not RZ/URZ/PT/UPT) that the decode neither reads nor writes — a
guessed form that drops an operand. Registers the decode adds (a memory descriptor's UR pair,
the second register of a pair) are not judged here; `sass check` judges roles and widths on
real programs.

Prints, per architecture: neighbours tried, accepted by nvdisasm, refused (unknown: raw bits
kept, conservative summary — safe, but a form the tables lack) and wrong. Refusals are grouped
by the bit flipped and by mnemonic; wrong decodes are printed. Exits 1 when any decode is
wrong.
"""
import argparse
import collections
import importlib.util
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'src', 'sass',
                                'isa', 'tables'))
import learn_tables as lt  # noqa: E402  (synthetic kernels, nvdisasm's listing format)

_spec = importlib.util.spec_from_file_location(
    'sass_compare_forms', os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                       'sass-compare-forms.py'))
compare_forms = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(compare_forms)
cubins = compare_forms.cubins

DIS_RE = re.compile(r'^\s*/\*([0-9a-f]+)\*/\s+\[[^\]]*\]\s+(@!?U?P\S+\s+)?(\S+)\s+(.*?)//\s*'
                    r'(0x[0-9a-f]+) (0x[0-9a-f]+)')
# A register nvdisasm's text names (the zero registers and PT/UPT name none).
NAMED_RE = re.compile(r'(?<![\w.])(UR\d+|UP[0-6]|R\d+|P[0-6])(?![\w])')
# Branches, calls and reconvergence: a flipped one can make the synthetic kernel fall through,
# which nvdisasm's life ranges refuse; their fields are the branch-target tests' business.
CONTROL_FLOW = {'BRA', 'BRX', 'JMP', 'JMX', 'CALL', 'RET', 'EXIT', 'BSSY', 'BSYNC', 'BREAK',
                'WARPSYNC', 'BPT', 'KILL', 'NOP', 'YIELD', 'BMOV'}


def parse_bits(spec):
    out = []
    for part in spec.split(','):
        lo, _, hi = part.partition('-')
        out.extend(range(int(lo), int(hi or lo) + 1))
    return out


def arch_of(path):
    sm = struct.unpack_from('<I', open(path, 'rb').read(), 0x30)[0] & 0xff
    return 'sm_%d' % sm


def dis(ws, path, kernel=None):
    """[(offset, mnemonic, word, registers the decode names)] of every instruction `ws sass dis`
    lists (of `kernel` only, when given); the registers are those of `def [...]` and `use
    [...]` and the guard, with `R*`-style entries (any register of a file) kept as the file's
    prefix and `*`."""
    out = subprocess.run([ws, 'sass', 'dis', path], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError('%s sass dis %s: %s' % (ws, path, out.stderr.strip()[:300]))
    res, current = [], None
    for line in out.stdout.splitlines():
        if line.startswith('// function '):
            current = line[len('// function '):].split(':')[0]
            continue
        m = DIS_RE.match(line)
        if m and (kernel is None or current == kernel):
            regs = set(re.findall(r'[A-Z]+\d+|[A-Z]+\*', m.group(4)))
            if m.group(2):
                regs.add(m.group(2).strip().lstrip('@!'))
            res.append((int(m.group(1), 16), m.group(3),
                        int(m.group(5), 16) | int(m.group(6), 16) << 64, regs))
    return res


def refused(mnemonic):
    """Whether the decoder refused the word: an unknown opcode key or a form outside the
    learned envelopes (raw bits kept, "may read and write every register")."""
    return mnemonic.endswith('?') or mnemonic == 'UNKNOWN'


def missing(text, ours):
    """The registers nvdisasm's text names that our decode does not read, write or cover with
    an "any register" entry (`R*`)."""
    out = []
    for r in NAMED_RE.findall(text):
        file = re.match(r'[A-Z]+', r).group(0)
        if r not in ours and file + '*' not in ours:
            out.append(r)
    return out


def samples(ws, paths, per_form, jobs):
    """{arch: {(mnemonic, modifier bits [72:104]): [word, ...]}} of the forms the decoder
    knows: up to `per_form` words per opcode and modifier combination."""
    with ThreadPoolExecutor(jobs) as ex:
        listed = list(ex.map(lambda p: (arch_of(p), dis(ws, p)), paths))
    out = collections.defaultdict(lambda: collections.defaultdict(list))
    for arch, insts in listed:
        for _, mn, w, _ in insts:
            if refused(mn) or mn.split('.')[0] in CONTROL_FLOW:
                continue
            ws_ = out[arch][(mn, (w >> 72) & ((1 << 33) - 1))]
            if len(ws_) < per_form and w not in ws_:
                ws_.append(w)
    return out


def write_kernel(template, kernel, words, path):
    """`words` (at most `lt.kernel_capacity`) as the code of `kernel` of `template`, in `path`."""
    open(path, 'wb').write(lt.synthetic_kernel(template, kernel, words))


def accepted_cubin(nv, template, kernel, words, path):
    """Writes the words nvdisasm accepts into `path`; returns them and nvdisasm's listing. A
    rejected word is dropped by the address nvdisasm names; an error without an address splits
    the words in halves."""
    while words:
        write_kernel(template, kernel, words, path)
        out = subprocess.run([nv, '-c', '-hex', path], capture_output=True, text=True)
        if out.returncode == 0:
            return words, out.stdout
        bad = {int(x, 16) // 16 for x in re.findall(r'at address (0x[0-9a-f]+)', out.stderr)}
        if bad:
            words = [w for i, w in enumerate(words) if i not in bad]
            continue
        if len(words) == 1:
            return [], ''
        half = len(words) // 2
        words = (accepted_cubin(nv, template, kernel, words[:half], path)[0] +
                 accepted_cubin(nv, template, kernel, words[half:], path)[0])
        if not words:
            return [], ''
        write_kernel(template, kernel, words, path)
        out = subprocess.run([nv, '-c', '-hex', path], capture_output=True, text=True)
        return (words, out.stdout) if out.returncode == 0 else ([], '')
    return [], ''


def nvdisasm_text(listing, kernel):
    """{offset: text} of `kernel` in nvdisasm's `listing`."""
    res, inside = {}, False
    for line in listing.splitlines():
        if line.startswith('\t.section\t.text.'):
            inside = line.split()[1].split(',')[0] == '.text.' + kernel
        m = lt.INST_RE.match(line)
        if m and inside:
            res[int(m.group(1), 16)] = m.group(2).rstrip(' ;')
    return res


def check_chunk(a, arch, words, tag, tmpdir):
    """(accepted words, {word: mnemonic}, [(word, nvdisasm text, registers missing)])."""
    template = os.path.join(a.template_dir, 'bigregs.O3.%s.cubin' % arch)
    path = os.path.join(tmpdir, '%s-%s.cubin' % (arch, tag))
    words, listing = accepted_cubin(a.nvdisasm, template, a.kernel, words, path)
    if not words:
        return [], {}, []
    listed = {off: (mn, w, regs) for off, mn, w, regs in dis(a.warpsmith, path, a.kernel)}
    texts = nvdisasm_text(listing, a.kernel)
    ours, wrong, kept = {}, [], []
    for i, w in enumerate(words):
        mn, lw, regs = listed.get(16 * i, (None, None, None))
        if lw != w:
            raise RuntimeError('%s: word %d is not where it was written' % (path, i))
        text = texts.get(16 * i, '')
        if not text:
            continue  # nvdisasm lists the words with no instruction text: not accepted
        kept.append(w)
        ours[w] = mn
        if refused(mn):
            continue
        if mn.split('.')[0] != lt.base(text).split('.')[0]:
            wrong.append((w, text, 'opcode %s' % mn))
            continue
        lost = missing(text, regs)
        if lost:
            wrong.append((w, text, 'names %s, which the decode neither reads nor writes'
                          % ' '.join(lost)))
    return kept, ours, wrong


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--warpsmith', required=True)
    ap.add_argument('--nvdisasm', required=True)
    ap.add_argument('--template-dir', required=True,
                    help='folder with bigregs.O3.<arch>.cubin for every architecture checked')
    ap.add_argument('--kernel', default='many_accumulators128')
    ap.add_argument('--bits', default='61-63,72-104',
                    help='bit positions to flip (default: the modifier bits and the first '
                         "word's high bits; 12-104 takes every operand field too)")
    ap.add_argument('--per-form', type=int, default=1,
                    help='words per opcode and modifier combination')
    ap.add_argument('--chunk', type=int, default=0,
                    help='words per synthetic cubin (default: as many as the template kernel '
                         'holds; each nvdisasm run costs ~0.4 s of start-up, so fewer, larger '
                         'cubins are faster: 400 words took 354 runs and 103 s, 2502 took 66 '
                         'runs and 23 s, with the same report)')
    ap.add_argument('--jobs', type=int, default=2)
    ap.add_argument('--show', type=int, default=30, help='wrong decodes to print')
    ap.add_argument('paths', nargs='+', help='cubins, or folders of cubins')
    a = ap.parse_args()
    bits = parse_bits(a.bits)
    forms = samples(a.warpsmith, list(cubins(a.paths)), a.per_form, a.jobs)
    tmpdir = tempfile.mkdtemp(prefix='warpsmith-neighbours-')
    try:
        any_wrong = check_arches(a, bits, forms, tmpdir)
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)
    sys.exit(1 if any_wrong else 0)


def check_arches(a, bits, forms, tmpdir):
    """Checks the neighbours of `forms` per architecture and prints the summary; returns
    whether any decode is wrong."""
    any_wrong = False
    for arch in sorted(forms):
        known = {w for ws in forms[arch].values() for w in ws}
        origin = {}
        for (mn, _), ws in forms[arch].items():
            for w in ws:
                for b in bits:
                    n = w ^ (1 << b)
                    if n not in known:
                        origin.setdefault(n, (mn, b))
        words = sorted(origin)
        template = os.path.join(a.template_dir, 'bigregs.O3.%s.cubin' % arch)
        capacity = lt.kernel_capacity(template, a.kernel)
        size = min(a.chunk, capacity) if a.chunk > 0 else capacity
        chunks = [words[i:i + size] for i in range(0, len(words), size)]
        with ThreadPoolExecutor(a.jobs) as ex:
            results = list(ex.map(lambda c: check_chunk(a, arch, c[1], c[0], tmpdir),
                                  enumerate(chunks)))
        accepted = [w for ws, _, _ in results for w in ws]
        ours = {}
        for _, o, _ in results:
            ours.update(o)
        wrong = [x for _, _, ws in results for x in ws]
        refused_ = [w for w in accepted if refused(ours.get(w, '?'))]
        print('%s: %d forms, %d neighbours, %d accepted by nvdisasm, %d refused (unknown), '
              '%d wrong' % (arch, len(forms[arch]), len(words), len(accepted), len(refused_),
                            len(wrong)))
        by_bit = collections.Counter(origin[w][1] for w in refused_)
        print('  refused by bit flipped: ' +
              ' '.join('%d:%d' % (b, n) for b, n in sorted(by_bit.items())))
        by_mn = collections.Counter(origin[w][0] for w in refused_)
        print('  refused by form: ' +
              ' '.join('%s:%d' % (m, n) for m, n in by_mn.most_common(25)))
        for w, text, what in wrong[:a.show]:
            mn, b = origin[w]
            print('  WRONG %s bit %d of %s: %#034x `%s`: %s' % (arch, b, mn, w, text, what))
        any_wrong |= bool(wrong)
    return any_wrong


if __name__ == '__main__':
    main()
