#!/usr/bin/env python3
"""Learns warpsmith's SASS operand tables (sm_8x.tbl, sm_90.tbl) from nvdisasm.

Development tool, not needed to build or test warpsmith; docs/sass.md explains when to run it.

    learn_tables.py --nvdisasm PATH --out DIR CUBIN...
    learn_tables.py --self-test        # checks of the selector search (tests/sass_lea.rs)
    learn_tables.py ... --new-keys-only CUBIN...   # add only the keys DIR's tables lack

Method (sass-and-cubin-format.md §9, technique 2 — nv_isa_solver's bit-level probing):
 1. Every instruction of the given cubins is listed with `nvdisasm -c -hex -lrm narrow`; the
    life-range columns say which registers (GPR, PRED, UGPR, UPRED) each instruction reads (v),
    writes (^) or both (x). nvdisasm 13.x computes life ranges only for "standard" CUDA ELF
    headers, so a copy with EI_OSABI 0x41, EI_ABIVERSION 8 and e_flags = sm << 8 is listed.
 2. Instructions are grouped by opcode key (bits [0:11] plus bit 91 as bit 12) and by signature
    (the word with register, predicate, immediate and control fields cleared). For each
    signature, mutants with fresh, well-separated register numbers in every candidate register
    field are written into a template kernel and listed again, so that no register is read or
    written by coincidence.
 3. For each signature and register file, the smallest assignment of (read width, write width)
    to candidate fields that predicts exactly the marks of every sample is found.
 4. Per opcode key, the bit range among the modifier bits that selects between different
    assignments is searched (e.g. the LDS size field); selector values never seen stay unknown,
    so that the decoder keeps such instructions raw rather than mis-decoding them.
 5. An opcode left with an inexact form (`implicit`) is learned again without each of its
    predicate-field candidates in turn (new signatures, new mutants): a candidate may be
    modifier bits that only happened to equal a predicate the instruction reads (BAR on sm_90:
    bits [77:79] select .SYNC/.RED and equal 2 in `BAR.RED.POPC 0x0, P2`, whose P2 is in
    [87:89]); the first variant whose forms are all exact is kept.
 6. CALL: nvdisasm's life ranges of a call follow the calling convention (src/sass/isa/abi.rs:
    reads R0, R1; writes the caller-saved registers below the function's register count, every
    predicate, UR4-UR35). Those marks are taken out before solving, so only the fields remain
    (the target register of `CALL.REL.NOINC Rx`, the guard), and the form is marked `call`.
 7. Ties between equally small assignments go to the guard [12:14] (every instruction reads it);
    another predicate field that holds the guard's register in every sample is a coincidence
    (BREAK's [84:86] = P0 under `@!P0`). A signature's assignment is solved over all its
    samples and mutants first, then over the mutants that kept the printed form: nvdisasm
    omits PT/RZ operands, so a mutant with a register in a field that is PT in every sample
    (LEA.X's carry-out [81:83]) prints differently and is still evidence.
 8. Selector bits are probed, not guessed (opcode keys with more than one layout):
    a. a candidate predicate field that no layout uses is released (its bits were modifier or
       operand bits that happened to equal a predicate the instruction reads: LEA's [77:79] is
       the top of the shift amount, bit 80 — its "negation" — is .HI), and the key is learned
       again with new signatures and mutants when no form gets less exact;
    b. every modifier bit that varies among the samples is flipped in real samples (one per
       layout, then further signatures, PROBE_SIGS at most), with the same fresh registers in
       both words of the pair, and both are listed: a bit is a selector bit when the flip
       changes the registers read or written. The selector is every such bit, plus the fewest
       further bits (fewest table lines first) that explain every signature; a shift amount
       that merely separates the corpus's forms is no longer chosen;
    c. flipped words whose selector values no sample has become extra samples, learned from
       their own mutants (LEA.X without .HI, from a LEA.HI.X);
    d. for every opcode key, not only those with several layouts: bits no sample varies (the
       modifier bits in [16:31] and [64:90] outside register fields and outside slots that are
       RZ/PT in every sample) are flipped in two samples, once more with P0 in the predicate
       slots that are PT in every sample: a bit whose flip changes no register or role (an
       operand value, or a modifier that leaves the operands alone) leaves the envelope
       (LEA's shift bit 79 when no sample shifts by 16 or more; LDS's address scale `.X4`;
       `.FTZ` and `|R|` on an FMNMX form seen only without them). On sm_8x the flips are
       listed for every template given (`--template-8x` and `--extra-templates-8x`): one table
       serves sm_80, sm_86 and sm_89, so a bit is free only when it leaves the operands alone
       on each of them;
    e. before b-d, for every opcode key: a predicate slot that holds PT in every sample and is
       no candidate field is set to an unnamed predicate in up to PROBE_SIGS signatures; when
       nvdisasm then lists the same opcode reading or writing exactly that predicate besides
       the first word's registers, the slot becomes a candidate field and the key's mutants
       are made again (IADD3's second carry-out and carry-in on sm_8x's uniform-register form,
       LEA's carry-out with an immediate addend: PT in every generated sample).
    f. after d, for every opcode key that is not control flow: each field step 9 would fix is
       probed first (`probe_unused_fields`): set to other registers in up to two samples of its
       line (one of each layout for a key-wide field), it is free — left out of the envelope —
       when nvdisasm lists every probe as the same opcode reading, writing and naming the same
       registers, on every template of the generation (`WARPSYNC R`'s [16:31] and [64:71],
       non-.HI LEA's [64:71]: RZ in every sample, yet other compilers write other bits there).
 9. A candidate register field that no layout uses and that holds one value in every sample
    joins the envelope (`unused_fields`): cleared from the signatures, it is no selector
    bit, and any other value may name an operand no sample showed (LDG's predicate output
    [81:83], PT in every sample). `scripts/sass-neighbours.py` finds such forms: it flips each
    modifier bit of a word of every known form and compares the decode with nvdisasm's text.
    Per table line too (`line_fields`): a field a layout of the key uses stays fixed in the
    lines whose layout does not (LDG's probed selector-7 form writes a predicate at [81:83]).
"""
import argparse
import collections
import itertools
import os
import random
import re
import struct
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

FILES = ("GPR", "PRED", "UGPR", "UPRED")
# Candidate register fields: (file, low bit, bits, zero register value).
SLOTS = {
    "GPR": [(16, 8), (24, 8), (32, 8), (64, 8)],
    # Uniform registers are 6-bit fields (UR0-UR62, 63 = URZ) at the GPR field positions; the
    # two bits above may be modifiers (e.g. bit 70 of ST's descriptor field).
    "UGPR": [(16, 6), (24, 6), (32, 6), (64, 6)],
    "PRED": [(12, 3), (68, 3), (77, 3), (81, 3), (84, 3), (87, 3)],
    "UPRED": [(12, 3), (68, 3), (77, 3), (81, 3), (84, 3), (87, 3)],
}
ZERO = {"GPR": 255, "UGPR": 63, "PRED": 7, "UPRED": 7}
MAXW = {"GPR": 4, "UGPR": 4, "PRED": 1, "UPRED": 1}
LETTER = {"GPR": "g", "PRED": "p", "UGPR": "u", "UPRED": "q"}
# Always cleared to form a signature: guard, immediate/constant operand, control bits.
SIG_CLEAR = [(12, 4), (32, 32), (105, 23)]
# Negation bit of each predicate field.
PRED_NEG = {12: 15, 68: 71, 77: 80, 87: 90}
# Inverted predicate fields, by mnemonic: (file, low bit). The field holds 7 - n for register n
# and 0 for the true predicate. The warpgroup MMAs' accumulate flag (scale-d) is such a field:
# probed with nvdisasm 13.5 on sm_90a (27 Nov 2026), every value 0-7 of [87:89] of HGMMA,
# IGMMA and QGMMA words lists UP(7 - v) as read (0: `!UPT` or nothing), bit 90 negates
# (`QGMMA ... R24, UP1` has 6 there). Read as an ordinary field, whose 7 is the true predicate,
# it names the wrong register (fresh seed 2003: UP1 as UP0) and, cleared from no signature,
# splits every form per flag value. Table token `q~87:r1`; the learner checks the rule on every
# sample and mutant of a signature before using it (`inverted_reads`).
INVERTED = {mn: ("UPRED", 87) for mn in ("HGMMA", "IGMMA", "QGMMA", "BGMMA")}
CONTROL_FLOW = {"BRA", "BRX", "BRXU", "JMP", "JMX", "JMXU", "CALL", "RET", "EXIT", "BSSY",
                "BSYNC", "BREAK", "KILL", "BPT", "RTT"}
# Relative branch-target fields (sass-and-cubin-format.md §6.3/6.4), by mnemonic.
# Relative branch-target fields by generation: pieces (low bit, bits) from the low end of the
# 4-byte-scaled offset. sm_90 keeps the low 8 bits of the offset in [16:23] for BRA, CALL, RET
# and BRX (checked against nvdisasm's labels by `warpsmith sass check`).
TARGETS = {
    "sm_8x": {"BRA": "34:48", "BSSY": "34:30", "CALL": "34:48", "BRX": "34:48", "RET": "34:48",
              "JMX": "34:48"},
    "sm_90": {"BRA": "16:8,34:48", "BSSY": "34:30", "CALL": "16:8,34:48", "BRX": "16:8,34:48",
              "RET": "16:8,34:48", "JMX": "16:8,34:48", "WARPSYNC": "16:8,34:48",
              # `LEPC Rd, label` (the return address of a CALL.ABS): a byte offset from the next
              # instruction in [24:81]; probed with nvdisasm, bits [24:25] give unaligned
              # addresses and stay in the envelope (0).
              "LEPC": "26:56"},
}


BRANCH_MNEMONICS = {mn for t in TARGETS.values() for mn in t}


def target_mask(gen, mn):
    """The bits of `mn`'s branch-target field on `gen` (0 when it has none)."""
    m = 0
    for piece in TARGETS[gen].get(mn or '', '').split(','):
        if piece:
            lo, n = map(int, piece.split(':'))
            m |= mask(lo, n)
    return m


def has_target(text):
    """Whether nvdisasm prints a relative branch target for this instruction: a label (or
    BRX's offset) on an opcode with a target field, except on the absolute forms
    (`CALL.ABS.NOINC `(f)` is a relocation, not a field: the target is filled in by the
    loader). A label elsewhere names a relocated symbol (`LDGSTS [R3+`($__smem__348)]`)."""
    if not text or base(text) not in BRANCH_MNEMONICS:
        return False
    return ('`(' in text or base(text) == 'BRX') and '.ABS' not in mnemonic(text)


def is_control_flow(ss):
    """Whether an opcode's samples are control flow (no mutants: a synthetic branch would take
    the template's control flow with it)."""
    return any(t and base(t) in CONTROL_FLOW for w, t, m in ss)


# The plain forms src/sass/isa/encode.rs emits (operand fields zero; learned with mutants), so
# that its output is always in the tables: LDS/STS 32/64/128, LDL/STL through a uniform register
# in every size (the frame's remainder when part of it moves to shared memory; ptxas reaches
# them on sm_90 but not from the generator's programs on sm_8x), S2R of each special register
# it offers, MOV, IMAD, IADD3, LEA, ULDC, UIADD3 (a Rust test checks that every encoder output
# decodes as known).
ENCODER_SEEDS = (
    [0x7984 | (sz << 73) for sz in (4, 5, 6)]
    + [0x7388 | (sz << 73) for sz in (4, 5, 6)]
    # LDL R8, [R3+UR40] and STL [R3+UR40], R8 (nvdisasm's life ranges leave UR0 out: a seed
    # names registers it shows), ULDC UR40, UIADD3 UR40, UR41, imm.
    + [0x7983 | 8 << 16 | 3 << 24 | 40 << 32 | (0x0810_0000 << 64) | (sz << 73) for sz in range(7)]
    + [0x7987 | 3 << 24 | 8 << 32 | (0x0810_0028 << 64) | (sz << 73) for sz in range(7)]
    + [0x7ab9 | 40 << 16 | (0x800 << 64), 0x7890 | 40 << 16 | 41 << 24 | (0x0fff_e03f << 64)]
    + [0x7919 | (sr << 72) for sr in (0, 33, 34, 35, 37, 38, 39)]
    + [0x7802 | (0xf00 << 64), 0x7202 | (0xf00 << 64), 0x7224 | (0x078e0200 << 64),
       0x7824 | (0x078e0200 << 64), 0x7210 | (0x07ffe000 << 64), 0x7810 | (0x07ffe000 << 64),
       0x7211 | (0x078e00ff << 64), 0x7918]
)
# The calling convention as nvdisasm's life ranges show it (src/sass/isa/abi.rs is the
# authority; this mirror only takes the convention's marks out of CALL samples). GPR: reads R0
# and R1; may write R0, R3-R15 and, from R32 up, the first four of every eight (R32-R35,
# R40-R43, ...), below the function's register count (not known here: any of them).
CALL_GPR_READS = {0, 1}
CALL_UGPR_WRITES = set(range(4, 36))


def call_gpr_clobbered(r):
    return r == 0 or 3 <= r <= 15 or (r >= 32 and r % 8 < 4)


def call_residual(f, R, W):
    """The marks of a CALL sample that its fields must explain: the convention's taken out."""
    if f == "GPR":
        return R - CALL_GPR_READS, frozenset(r for r in W if not call_gpr_clobbered(r))
    if f == "UGPR":
        return R, W - CALL_UGPR_WRITES
    return R, frozenset()  # PRED, UPRED: a call may write every predicate


EXIT_W = (0x000000000000794d, 0x000fea0003800000)
BRA_SELF = (0xfffffff000007947, 0x000fc0000383ffff)
NOP_W = (0x0000000000007918, 0x000fc00000000000)

INST_RE = re.compile(r'^\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*/\* (0x[0-9a-f]{16}) \*/\s*(//.*)?$')
HI_RE = re.compile(r'^\s*/\* (0x[0-9a-f]{16}) \*/\s*(//.*)?$')


def inverted_register(mn, w):
    """The register the inverted predicate field of `mn` names in `w`, as (file, register);
    None when `mn` has no such field or it holds the true predicate."""
    if mn not in INVERTED:
        return None
    f, lo = INVERTED[mn]
    v = field(w, lo, 3)
    return (f, 7 - v) if v else None


def inverted_reads(mn, data):
    """Whether every sample in `data` ([(word, text, marks)]) reads the register its inverted
    predicate field names (`inverted_register`): the rule holds for this signature."""
    for w, t, m in data:
        r = inverted_register(mn, w)
        if r is not None and r[1] not in rw_sets(m[r[0]])[0]:
            return False
    return True


def mask(lo, n):
    return ((1 << n) - 1) << lo


def key_hints(ss, gen=None):
    """Candidate register fields of one opcode: those where some sample has a marked register,
    RZ, or — where nvdisasm prints `URZ` — URZ (a uniform operand that is URZ in every sample
    is still an operand: `UMOV UR4, URZ` must teach the read of [24:29]); every GPR field for
    opcodes only seen without life ranges. Bits of a branch-target field are never register
    fields (LEPC's offset starts at bit 24)."""
    hints = set()
    # Control flow gets no mutants, so a predicate field is evidence only where the guard does
    # not already explain the mark: `@P4 RET.REL` has 4 in [84:86] by coincidence, and hinting
    # it would clear bits that tell RET.REL from RET.ABS (bit 85) out of every signature.
    control = is_control_flow(ss)
    mn = key_mnemonic(ss)
    if mn in INVERTED:
        hints.add(INVERTED[mn][1])
    for w, t, m in ss:
        if m:
            # A register the inverted field explains is no evidence for another slot.
            inv = inverted_register(mn, w)
            upred = set(m["UPRED"]) - ({inv[1]} if inv else set())
            for lo, n in SLOTS["PRED"]:
                v = field(w, lo, n)
                if control and lo != 12 and v == field(w, 12, 3):
                    continue
                if mn in INVERTED and lo == INVERTED[mn][1]:
                    continue
                if v != 7 and (v in m["PRED"] or v in upred):
                    hints.add(lo)
            urz = bool(t) and re.search(r'\bURZ\b', t) is not None
            for lo, n in SLOTS["GPR"]:
                v = field(w, lo, n)
                if v == 255 or v in m["GPR"] or (v < 63 and v in m["UGPR"]):
                    hints.add(lo)
                elif urz and field(w, lo, 6) == 63:
                    hints.add(lo)
        else:
            hints |= {lo for lo, n in SLOTS["GPR"]}
    tbits = target_mask(gen, key_mnemonic(ss)) if gen else 0
    width = {lo: n for f in ("GPR", "PRED") for lo, n in SLOTS[f]}
    return {lo for lo in hints if not tbits & mask(lo, width[lo])}


def sig_mask(gen, mn, hints):
    """Bits cleared to form a signature: SIG_CLEAR, the candidate register fields, the branch
    target. The remaining bits of [16:31] and [64:104] may select between forms."""
    m = 0
    for lo, n in SIG_CLEAR:
        m |= mask(lo, n)
    for lo, n in SLOTS["GPR"]:
        if lo in hints:
            m |= mask(lo, 8)
    for lo, n in SLOTS["PRED"]:
        if lo in hints:
            m |= mask(lo, 3)
            if lo in PRED_NEG:
                m |= mask(PRED_NEG[lo], 1)
    return m | target_mask(gen, mn)


def selector_bits(smask):
    return [b for b in list(range(16, 32)) + list(range(64, 105)) if not (smask >> b) & 1]


def key_of(w):
    return (w & 0xFFF) | ((w >> 91) & 1) << 12


def sections(d):
    shoff = struct.unpack_from('<Q', d, 0x28)[0]
    shnum = struct.unpack_from('<H', d, 0x3c)[0]
    shstr = struct.unpack_from('<H', d, 0x3e)[0]
    secs = [list(struct.unpack_from('<IIQQQQIIQQ', d, shoff + i * 64)) for i in range(shnum)]
    so = secs[shstr][4]
    return [(d[so + s[0]:d.index(b'\0', so + s[0])].decode(), s) for s in secs]


def std_header(d):
    """The "standard ELF" header nvdisasm 13 analyses (see the module doc)."""
    d = bytearray(d)
    fl = struct.unpack_from('<I', d, 0x30)[0]
    d[7] = 0x41
    d[8] = 8
    struct.pack_into('<I', d, 0x30, (fl & 0xff) << 8)
    return d


def boxes(line):
    return line[line.index('//') + 2:].split('|')[1:-1]


def listing(nvdisasm, path, life_ranges=True):
    """Instructions of a cubin: (function, offset, text, word, {file: {reg: mark}})."""
    out = subprocess.run([nvdisasm, '-c', '-hex'] + (['-lrm', 'narrow'] if life_ranges else []) + [path],
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError("nvdisasm %s: %s" % (path, out.stderr))
    lines = out.stdout.splitlines()
    res, cols, func = [], None, None
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith('\t.section\t.text.'):
            func, cols = line.split()[1].split(',')[0], None
        if '// |' in line and '#' in line and cols is None:
            bx = boxes(line)
            titles = [t.strip() for t in boxes(lines[i - 3])]
            prev = [boxes(lines[i - k]) for k in (1, 2)]
            cols = []
            for bi, b in enumerate(bx):
                h = b.index('#')
                regs = []
                for j in range(h + 1, len(b)):
                    if not b[j].isdigit():
                        continue
                    n = int(b[j])
                    for k, pb in enumerate(prev):
                        c = pb[bi][j] if j < len(pb[bi]) else ' '
                        if c.isdigit():
                            n += int(c) * 10 ** (k + 1)
                    regs.append((j, n))
                cols.append((titles[bi], regs))
        m = INST_RE.match(line)
        if m:
            m2 = HI_RE.match(lines[i + 1])
            word = int(m.group(3), 16) | int(m2.group(1), 16) << 64
            marks = {f: {} for f in FILES}
            if m2.group(2) and cols:
                bx = boxes(lines[i + 1])
                for bi, (title, regs) in enumerate(cols):
                    for j, n in regs:
                        c = bx[bi][j] if j < len(bx[bi]) else ' '
                        if c in '^vx':
                            marks[title][n] = c
            res.append((func, int(m.group(1), 16), m.group(2), word, marks))
            i += 2
            continue
        i += 1
    return res


def mnemonic(text):
    t = text.split()
    if t and t[0].startswith('@'):
        t = t[1:]
    return t[0].rstrip(';') if t else '?'


def base(text):
    return mnemonic(text).split('.')[0]


def shape(text):
    """The instruction's printed form with register numbers and numbers abstracted: mutants of
    the same shape differ only in operand values."""
    t = text.split()
    if t and t[0].startswith('@'):
        t = t[1:]
    t = ' '.join(t)
    t = re.sub(r'\b(UR|UP|R|P|B)\d+', r'\1#', t)
    t = re.sub(r'-?\b0x[0-9a-f]+|-?\b\d+(\.\d+)?(e[-+]?\d+)?', '#', t)
    return t.replace('RZ', 'R#').replace('URZ', 'UR#').replace('PT', 'P#')


def key_mnemonic(ss):
    mn = collections.Counter(base(t) for w, t, m in ss if t).most_common(1)
    return mn[0][0] if mn else None


def rw_sets(marks):
    r = frozenset(k for k, c in marks.items() if c in 'vx')
    w = frozenset(k for k, c in marks.items() if c in '^x')
    return r, w


def field(w, lo, n):
    return (w >> lo) & ((1 << n) - 1)


def solve(file, samples, exact=True):
    """Smallest {slot: (read width, write width)} explaining every sample's marks of `file`.

    samples: [(word, R, W)]. With exact=False, marks not explained by any slot are allowed
    (implicit operands) and the result says so."""
    slots = SLOTS[file]
    z = ZERO[file]
    cands = [(a, b) for a in range(MAXW[file] + 1) for b in range(MAXW[file] + 1)]

    def val(w, lo, n):
        v = field(w, lo, n)
        return None if v == z else v

    def regs(v, k):
        """Registers v..v+k-1 below the zero register: a 4-wide uniform operand at UR60 reads
        UR60-UR62, and UR63 is URZ (a mutant's UR60 would otherwise make `u24:r4` inexact)."""
        return range(v, min(v + k, z))

    per = []
    for lo, n in slots:
        ok = []
        for wr, ww in cands:
            good = True
            for w, R, W in samples:
                v = val(w, lo, n)
                if v is None:
                    continue
                if any(r not in R for r in regs(v, wr)) or any(r not in W for r in regs(v, ww)):
                    good = False
                    break
            if good:
                ok.append((wr, ww))
        per.append(ok)
    best = None
    for combo in itertools.product(*per):
        # Among equally small assignments, prefer reads through the guard [12:14]: every
        # instruction reads its guard, while another predicate field holding the same register
        # (BREAK's [84:86] = P0 under `@!P0`) is a coincidence, not evidence of an operand.
        cost = (sum(a + b for a, b in combo),
                sum(1 for (lo, n), rw in zip(slots, combo) if rw != (0, 0)
                    and not (file == "PRED" and lo == 12)))
        if exact and best is not None and cost >= best[0]:
            continue
        good = True
        implicit = False
        missed = 0
        for w, R, W in samples:
            pr, pw = set(), set()
            for (lo, n), (wr, ww) in zip(slots, combo):
                v = val(w, lo, n)
                if v is None:
                    continue
                pr |= set(regs(v, wr))
                pw |= set(regs(v, ww))
            if exact:
                if pr != R or pw != W:
                    good = False
                    break
            else:
                if not (pr <= R and pw <= W):
                    good = False
                    break
                if pr != R or pw != W:
                    implicit = True
                    missed += len(R - pr) + len(W - pw)
        if good:
            score = cost if exact else (missed, cost)
            if best is None or score < best[3]:
                best = (cost, combo, implicit, score)
    if best is None:
        return None
    ops = {lo: rw for (lo, n), rw in zip(slots, best[1]) if rw != (0, 0)}
    return ops, best[2]


def make_mutants(word, n, rng, hints):
    """Copies of `word` with fresh values in candidate register fields: `n` with every field in
    `hints` (GPR/UGPR bytes and predicate fields) and the guard changed at once, then two per
    field with only that field changed (so that a field whose change alters the instruction's
    form does not spoil the others)."""
    pool = list(range(4, 61, 8))
    gpr = [lo for lo, bits in SLOTS["GPR"] if lo in hints]
    prd = [lo for lo, bits in SLOTS["PRED"] if lo == 12 or lo in hints]

    def setf(w, lo, bits, v):
        return (w & ~mask(lo, bits)) | (v << lo)

    out = []
    for _ in range(n):
        w = word
        for lo, v in zip(gpr, rng.sample(pool, len(gpr))):
            w = setf(w, lo, 8, v)
        for lo, v in zip(prd, rng.sample(range(7), len(prd))):
            w = setf(w, lo, 3, v)
        out.append(w)
    for lo in gpr:
        for v in rng.sample(pool, 2):
            out.append(setf(word, lo, 8, v))
    for lo in prd:
        for v in rng.sample(range(7), 2):
            out.append(setf(word, lo, 3, v))
    return out


# Warpgroup MMAs: the shape's N, which sets how many accumulator (and A) registers are read
# and written, is encoded in [32:63] — bits every signature clears as an immediate field — so
# a layout solved from the samples of one shape (IGMMA.64x8x32: four accumulators) does not
# hold for the signature's other shapes. Their GPR operands are always "any register".
SHAPE_IN_IMMEDIATE_FIELD = {"HGMMA", "IGMMA", "QGMMA", "BGMMA"}

# Probing (step 8): at most this many signatures of one opcode key get their bits flipped.
PROBE_SIGS = 8


def fresh_registers(word, hints):
    """`word` with fixed, well-separated registers in every candidate field (GPR/UGPR bytes:
    R4, R12, ...; predicate fields: P1, P2, ...; the guard: P6), as a probe pair shares them."""
    w = word
    for (lo, bits), v in zip([s for s in SLOTS["GPR"] if s[0] in hints], range(4, 61, 8)):
        w = (w & ~mask(lo, 8)) | (v << lo)
    prd = [lo for lo, bits in SLOTS["PRED"] if lo != 12 and lo in hints]
    for lo, v in zip(prd, range(1, 6)):
        w = (w & ~mask(lo, 3)) | (v << lo)
    return (w & ~mask(12, 3)) | (6 << 12)


def field_bits(results):
    """The bits of every register field some layout of `results` uses."""
    bits = set()
    for lay in results.values():
        for letter, lo, rw in lay:
            if isinstance(lo, int) and letter[0] in 'gupq':
                bits |= set(range(lo, lo + {'g': 8, 'u': 6, 'p': 3, 'q': 3}[letter[0]]))
    return bits


def unused_fields(hk, results, taught):
    """{low bit: bits} of the candidate register fields (`hk`, not the guard) that no layout of
    `results` uses and that hold one value in every taught sample: they join the envelope
    unless probing shows them free (`probe_unused_fields`). A candidate field is cleared from
    the signatures, so it is no selector bit and would otherwise take any value; the solver
    found no role for it only because no sample or kept mutant varied it (LDG's predicate
    output [81:83] and its inverted predicate [64:66] are PT in every sample; with P3 there
    nvdisasm lists `LDG.E P3, R2, [R2.64]`, which writes P3). A file some layout reads and
    writes as "any register" (`implicit`) already covers its fields."""
    used = field_bits(results)
    implicit = set.intersection(*({letter for letter, lo, rw in lay if lo == 'implicit'}
                                  for lay in results.values())) if results else set()
    width = {lo: n for f in ("GPR", "PRED") for lo, n in SLOTS[f]}
    fields = {}
    for lo in sorted(hk):
        if lo == 12:
            continue
        pred = lo in dict(SLOTS["PRED"])
        if implicit & ({'p', 'q'} if pred else {'g', 'u'}):
            continue
        bits = mask(lo, width[lo]) | (mask(PRED_NEG[lo], 1) if pred and lo in PRED_NEG else 0)
        if any((bits >> b) & 1 for b in used):
            continue
        if len({w & bits for w, t, m in taught}) == 1:
            fields[lo] = bits
    return fields


def envelope_bits(fields, free=()):
    """The bits of `fields` ({low bit: bits}, see `unused_fields`) but those whose low bit is in
    `free` (step 8f)."""
    return sum(bits for lo, bits in fields.items() if lo not in free)


def taught_at(taught, sel, v):
    """The samples of `taught` whose selector ranges `sel` hold the values `v`."""
    return [s for s in taught if tuple(field(s[0], lo, n) for lo, n in sel) == tuple(v)]


def line_fields(hk, layout, sel, v, taught):
    """The unused fields (`unused_fields`) of one table line (selector values `v` of ranges `sel`, operand
    layout `layout`, with at least one sample): candidate fields this layout does not use that
    hold one value in every sample of the key. The key-wide envelope (`unused_fields`) leaves out
    a field that any layout of the key uses; `LDG`'s probed selector-7 form writes a predicate at
    [81:83], so the other sizes' lines would decode a word with a predicate there as if [81:83]
    were free. A line no sample has (a probed value) gets nothing here.

    Only fields that hold one value in every sample of the key join: a field that varies under
    another selector value is an operand there, and likely here too in words the corpus lacks.
    Per field, not per bit: `LDC`'s byte offset starts at bit 38, inside the candidate field
    [32:39]; the corpus's 8-bit loads vary bit 38, no sample sets bit 39, and ZLUDA's `LDC.U16
    c[0x3][0x2]` does."""
    if not sel or not taught or not taught_at(taught, sel, v):
        return {}
    return unused_fields(hk, {0: layout}, taught)


def unused_predicate_fields(results, hk):
    """Candidate predicate fields (not the guard) that no layout of `results` uses."""
    used = {lo for lay in results.values() for letter, lo, rw in lay if letter[0] in 'pq'}
    return {lo for lo, n in SLOTS["PRED"] if lo != 12 and lo in hk and lo not in used}


def varying_unused_predicate_fields(results, hk, ss):
    """The unused candidate predicate fields (`unused_predicate_fields`) whose value varies
    among the samples `ss`. A candidate field is cleared from the signatures, so its bits are
    no selector bits, and, varying, it is no envelope field either: a word decodes with the
    key's layout whatever those bits hold. `HFMA2`'s [77:79] coincided with a predicate the
    instruction names on sm_8x; its bit 79 is `.RELU`, which reads the predicate at [87:89]
    (PT in every `.RELU` sample, so no sample showed the read and the opcode kept one layout,
    and a `.RELU` word with P0 there decoded as reading no predicate). Released, the field's
    bits split the signatures, the `.RELU` ones are learned from their own mutants, and step 8
    can probe bit 79."""
    out = set()
    for lo in unused_predicate_fields(results, hk):
        bits = mask(lo, 3) | (mask(PRED_NEG[lo], 1) if lo in PRED_NEG else 0)
        if len({w & bits for w, t, m in ss}) > 1:
            out.add(lo)
    return out


def solved_keys(gen, samples, mutants, hints):
    """Every opcode key that is not control flow, in key order: (key, samples,
    key_results(...))."""
    for key in sorted(samples):
        ss = samples[key]
        if is_control_flow(ss):
            continue
        yield key, ss, key_results(gen, key, ss, mutants, hints[key], collections.Counter())


def probe_selectors(args, gen, template, tmpdir, rng, samples, mutants, hints):
    """Step 8: which modifier bits select an opcode's operand layout. For every opcode key whose
    signatures have more than one layout, each bit that varies among its samples (and is not
    a register, immediate or control field) is flipped in real samples — one sample per layout,
    then further signatures, PROBE_SIGS at most — with the same fresh registers in both words of
    the pair, and both are listed by nvdisasm. A bit is a selector bit when the flip changes the
    registers read or written (e.g. LEA's bit 80, `.HI`, adds the read of [64:71]); a bit whose
    flip changes nothing (LEA's shift amount [75:79]) is not, however well it happens to
    separate the corpus's forms. Flipped words whose selector values the corpus lacks are kept
    as extra samples (LEA.X without .HI, from a LEA.HI.X), learned from their own mutants.

    Returns ({key: {'bits': selector bits, 'probed': varying bits probed, 'extra': [(word,
    text, marks)], 'reads': [(flipped word, predicate slot it added the read of)]}}, mutants of
    the extra samples by (key, signature))."""
    pairs = []
    probes = {}
    for key, ss, (mn, smask, results, sigs) in solved_keys(gen, samples, mutants, hints):
        fb = field_bits(results)
        cand = [b for b in selector_bits(smask) if b not in fb]
        vary = [b for b in cand if len({(w >> b) & 1 for w, t, m in ss}) == 2]
        if vary or unvaried_bits(ss, smask, results):
            # A key with probe evidence (even none that changes a layout) is generalised
            # over the probed bits only.
            probes[key] = {'bits': set(), 'probed': set(), 'extra': [], 'reads': []}
        for sig in covering_signatures(results, vary):
            w = fresh_registers(sigs[sig][0][0], hints[key])
            for b in vary:
                pairs.append((key, b, w, w ^ (1 << b)))
    words = sorted({w for _, _, a, b in pairs for w in (a, b)})
    got = {w: (t, m) for w, t, m in
           run_synthetic(args.nvdisasm, template, args.kernel, words, tmpdir, gen + '-probe')}
    flips = collections.defaultdict(list)
    for key, b, w0, w1 in pairs:
        pr = probes[key]
        if w0 not in got or w1 not in got:
            continue
        pr['probed'].add(b)
        if got[w0][1] != got[w1][1]:
            pr['bits'].add(b)
            flips[key].append((w1,) + got[w1])
            lo = added_predicate_read(w1, got[w0][1], got[w1][1], hints[key])
            if lo is not None:
                pr['reads'].append((w1, lo))
    # Extra samples: flipped words whose values of the selector bits no sample has.
    plan = []
    for key, pr in sorted(probes.items()):
        bits = sorted(pr['bits'])
        print("%s 0x%04x %s: %d bits probed, layout changes with %s"
              % (gen, key, key_mnemonic(samples[key]), len(pr['probed']), bits or 'none'),
              file=sys.stderr)
        seen = {tuple((w >> b) & 1 for b in bits) for w, t, m in samples[key]}
        smask = sig_mask(gen, key_mnemonic(samples[key]), hints[key])
        for w, t, m in flips[key]:
            v = tuple((w >> b) & 1 for b in bits)
            if v not in seen:
                seen.add(v)
                pr['extra'].append((w, t, m))
                plan += [(None, key, w & ~smask, mw)
                         for mw in make_mutants(w, args.mutants, rng, hints[key])]
    got = run_synthetic(args.nvdisasm, template, args.kernel, [mw for _, _, _, mw in plan],
                        tmpdir, gen + '-probe-mutants')
    by_word = {w: (t, m) for w, t, m in got}
    extra_mutants = collections.defaultdict(list)
    for _, key, sig, mw in plan:
        if mw in by_word:
            extra_mutants[(key, sig)].append((mw,) + by_word[mw])
    return probes, extra_mutants


def covering_signatures(results, vary):
    """The signatures step 8 probes: `probe_signatures`' first PROBE_SIGS, then, for every bit
    of `vary` and each of its values that none of them holds, the first signature that holds
    it: a bit whose flip changes the layout only at one value of another varying bit (`HFMA2`'s
    [88:89] read as a predicate only when bit 79, `.RELU`, is set) must be flipped in a
    signature with that value."""
    order = probe_signatures(results)
    chosen = order[:PROBE_SIGS]
    for b in vary:
        for v in (0, 1):
            if not any((sig >> b) & 1 == v for sig in chosen):
                more = next((sig for sig in order if (sig >> b) & 1 == v), None)
                if more is not None:
                    chosen.append(more)
    return chosen


def added_predicate_read(w1, m0, m1, hk):
    """The predicate slot (not the guard, no candidate field of `hk`) whose read is the only
    difference between a probe pair's marks `m0` and those of its flipped word `w1`, `m1`; None
    when the flip changed anything else or no slot of `w1` holds the register."""
    if any(m0[f] != m1[f] for f in FILES if f != "PRED"):
        return None
    extra = {r: c for r, c in m1["PRED"].items() if m0["PRED"].get(r) != c}
    if len(extra) != 1 or set(extra.values()) != {'v'}:
        return None
    if {r: c for r, c in m0["PRED"].items() if r not in extra} != \
            {r: c for r, c in m1["PRED"].items() if r not in extra}:
        return None
    x = next(iter(extra))
    slots = [lo for lo, n in SLOTS["PRED"]
             if lo != 12 and lo not in hk and field(w1, lo, n) == x]
    return slots[0] if len(slots) == 1 else None


def pt_slots(ss, hk, results):
    """Step 8e's candidates: predicate slots (not the guard) that hold PT in every sample of a
    key, are no candidate field (`hk`) and overlap no register field a layout uses."""
    fb = field_bits(results)
    return [lo for lo, n in SLOTS["PRED"]
            if lo != 12 and lo not in hk and not fb & set(range(lo, lo + n))
            and all(field(w, lo, n) == 7 for w, t, m in ss)]


def probe_pt_slots(args, gen, template, tmpdir, samples, mutants, hints):
    """Step 8e: predicate operands no sample used. A slot that holds PT in every sample of an
    opcode key (`pt_slots`) is set to a predicate the instruction does not otherwise name, in
    the first sample of up to PROBE_SIGS signatures (fresh registers), and both words are
    listed: when nvdisasm lists the pair as the same opcode, with modifiers it can name, and
    the second word reads or writes exactly that predicate in addition to what the first does,
    the slot is an operand (IADD3's second carry-out [84:86] and second carry-in [77:79] on
    sm_8x's uniform-register form, where ptxas put PT in every generated sample; LEA's carry-out
    [81:83] with an immediate addend). Such a slot becomes a candidate field of the key, so
    that its mutants (`make_mutants`) teach the role; other slots stay PT in the envelope.

    Returns {key: slots found to be operands}."""
    pairs = []
    for key, ss, (mn, smask, results, sigs) in solved_keys(gen, samples, mutants, hints):
        slots = pt_slots(ss, hints[key], results)
        for sig in probe_signatures(results)[:PROBE_SIGS]:
            w = fresh_registers(sigs[sig][0][0], hints[key])
            named = {field(w, lo, n) for lo, n in SLOTS["PRED"]}
            x = min(set(range(7)) - named)
            for lo in slots:
                pairs.append((key, lo, x, w, (w & ~mask(lo, 3)) | (x << lo)))
    got = {w: (t, m) for w, t, m in
           run_synthetic(args.nvdisasm, template, args.kernel,
                         sorted({w for p in pairs for w in p[3:]}), tmpdir, gen + '-pt')}
    found = collections.defaultdict(set)
    for key, lo, x, w0, w1 in pairs:
        if w0 not in got or w1 not in got:
            continue
        (t0, m0), (t1, m1) = got[w0], got[w1]
        if base(t0) != base(t1) or '???' in t1:
            continue
        for f in ("PRED", "UPRED"):
            extra = {r: c for r, c in m1[f].items() if m0[f].get(r) != c}
            if extra and set(extra) == {x} and {r: c for r, c in m1[f].items()
                                                if r != x} == {r: c for r, c in m0[f].items()
                                                               if r != x}:
                found[key].add(lo)
    for key in sorted(found):
        print("%s 0x%04x %s: PT slots %s are operands"
              % (gen, key, key_mnemonic(samples[key]), sorted(found[key])), file=sys.stderr)
    return found


def probe_signatures(results):
    """The signatures of one opcode key in probing order: the first of each layout, then the
    rest."""
    first = {}
    for sig in sorted(results):
        first.setdefault(results[sig], sig)
    reps = sorted(first.values())
    return reps + [sig for sig in sorted(results) if sig not in reps]


def unvaried_bits(ss, smask, results):
    """Step 8d's candidates: modifier bits (selector bits up to 90, outside every register field
    a layout uses) that no sample of the key varies. A candidate register slot that holds the
    zero register (RZ/PT/URZ) in every sample may be an operand no sample uses (IADD3's second
    carry-out [84:86]): its bits are operand values, not candidates; bits 91-104 are opcode and
    reserved bits."""
    fb = field_bits(results)
    zero_slots = set()
    for f in ("GPR", "UGPR", "PRED"):
        for lo, n in SLOTS[f]:
            if all(field(w, lo, n) == ZERO[f] for w, t, m in ss):
                zero_slots |= set(range(lo, lo + n))
    return [b for b in selector_bits(smask) if b not in fb and b <= 90 and b not in zero_slots
            and len({(w >> b) & 1 for w, t, m in ss}) == 1]


def with_unused_predicates(word, ss, hints):
    """`word` with P0 in every predicate slot that holds PT in every sample and is no candidate
    field: a flip that makes the instruction read such a slot (a predicate operand no sample
    used) then changes the registers read, where with PT it would not."""
    w = word
    for lo, n in SLOTS["PRED"]:
        inside_gpr_field = lo == 68 and 64 in hints
        if (lo != 12 and lo not in hints and not inside_gpr_field
                and all(field(s, lo, n) == 7 for s, t, m in ss)):
            w &= ~mask(lo, n)
    return w


def probe_free_bits(args, gen, template, tmpdir, samples, mutants, hints):
    """Step 8d, for every opcode key that is not control flow: each modifier bit no sample
    varies (`unvaried_bits`) is flipped in two signatures (`probe_signatures`), with the same
    fresh registers in both words of a pair, once as the sample has it and once with its
    unused predicate slots set to P0 (`with_unused_predicates`). A bit is free when every pair
    was listed as the same opcode, with modifiers nvdisasm can name (no `???`), reading and
    writing the same registers: an operand value (a shift amount of 16 or more) or a modifier
    that leaves the operands alone (`.FTZ`, `|R|` on FMNMX, LDS's `.X4`), and no combination of
    it with free bits up to three positions above changes the registers (a field of several
    bits).
    Free bits leave the envelope, so that a word with such a modifier no sample had decodes with
    the form of its other bits instead of as unknown. A bit whose flip changes the registers, or
    that nvdisasm rejects, stays in the envelope.

    Returns {key: free bits}."""
    pairs = []
    for key, ss, (mn, smask, results, sigs) in solved_keys(gen, samples, mutants, hints):
        cand = unvaried_bits(ss, smask, results)
        for sig in probe_signatures(results)[:2]:
            w = fresh_registers(sigs[sig][0][0], hints[key])
            filled = with_unused_predicates(w, ss, hints[key])
            for b in cand:
                pairs.append((key, b, w, w ^ (1 << b)))
                if filled != w:
                    pairs.append((key, b, filled, filled ^ (1 << b)))
    # One table serves every architecture of the generation (sm_80, sm_86, sm_89): a bit is
    # free only when each of them lists the flip with the same operands.
    templates = [template] + (list(args.extra_templates_8x) if gen == "sm_8x" else [])
    gots = [list_pairs(args, t, tmpdir, pairs, '%s-free-%d' % (gen, i))
            for i, t in enumerate(templates)]
    got = gots[0]
    probed = collections.defaultdict(set)
    changed = collections.defaultdict(set)
    for key, b, w0, w1 in pairs:
        probed[key].add(b)
        if not all(same_operands(g, w0, w1) for g in gots):
            changed[key].add(b)
    # Bits free one at a time may still form a field together (a size field whose value 3 is
    # `.64` while 1 and 2 keep the width): every combination of two or more free bits within
    # four consecutive positions is flipped too, and a combination nvdisasm lists as a valid
    # instruction with other registers or roles takes its bits out of the free set.
    combos = []
    for key, b, w0, w1 in pairs:
        single = probed[key] - changed[key]
        if b not in single:
            continue
        near = [c for c in sorted(single) if b < c <= b + 3]
        for k in range(1, len(near) + 1):
            for more in itertools.combinations(near, k):
                flip = (1 << b) | sum(1 << c for c in more)
                combos.append((key, (b,) + more, w0, w0 ^ flip))
    for i, (t, g) in enumerate(zip(templates, gots)):
        g.update(list_pairs(args, t, tmpdir, combos, '%s-free-combos-%d' % (gen, i)))
    joint = collections.defaultdict(set)
    for key, bits, w0, w1 in combos:
        for g in gots:
            if w1 in g and '???' not in g[w1][0] and not same_operands(g, w0, w1):
                joint[key] |= set(bits)
    free = {}
    for key in sorted(probed):
        free[key] = probed[key] - changed[key] - joint[key]
        print("%s 0x%04x %s: %d unvaried bits probed, free %s%s"
              % (gen, key, key_mnemonic(samples[key]), len(probed[key]),
                 sorted(free[key]) or 'none',
                 ', not free together %s' % sorted(joint[key]) if joint[key] else ''),
              file=sys.stderr)
    return free


# Step 8f: the values an unused general-register field is probed with (R26 and R229: every bit
# set in one of them, and clear of the registers `fresh_registers` puts in the used fields,
# R4-R7, R12-R15, ...).
FIELD_PROBE_VALUES = (26, 229)


def register_names(text):
    """The numbered registers (R, UR, P, UP, B) nvdisasm's `text` names."""
    return set(re.findall(r'\b(?:UR|UP|R|P|B)\d+\b', text or ''))


def field_probes(word, lo, bits, layout):
    """Step 8f's probe pairs for the unused field at `lo` (`bits`, with a predicate's negation
    bit) of `word`, whose operands are `layout`: the word with fresh registers in the used
    fields and the field's own value, then the same word with other values in the field — for a
    register field R26 and R229, for a predicate field every predicate the word does not
    otherwise name and one of them negated."""
    used = {lo_ for letter, lo_, rw in layout if isinstance(lo_, int) and letter[0] in 'gupq'}
    w0 = (fresh_registers(word, used - {lo}) & ~bits) | (word & bits)
    if lo in dict(SLOTS["PRED"]):
        named = {field(w0, s, 3) for s, n in SLOTS["PRED"] if s != lo and s in used} | {6}
        free_preds = [v for v in range(7) if v not in named]
        values = [v << lo for v in free_preds]
        if free_preds and lo in PRED_NEG:
            values.append(free_preds[0] << lo | 1 << PRED_NEG[lo])
    else:
        values = [v << lo for v in FIELD_PROBE_VALUES]
    return [(w0, (w0 & ~bits) | v) for v in values if (w0 & ~bits) | v != w0]


def probe_unused_fields(args, gen, template, tmpdir, requests):
    """Step 8f: the unused fields (`unused_fields`, `line_fields`) that are free. The envelope
    fixes a candidate register field that no layout uses and that holds one value in every
    sample; where ptxas writes RZ there in every sample but the field means nothing to the form,
    a word another compiler wrote with other bits there decodes as unknown (`WARPSYNC R`'s
    [16:31] and [64:71] in ZLUDA's corpus, non-`.HI` `LEA` with a register in [64:71]). Each
    requested field is set to other values (`field_probes`) in samples of its line (or, for the
    key-wide fields, one sample of each layout) and listed by nvdisasm, on every template of
    the generation: the field is free when every probe is listed as the same opcode, reading and
    writing the same registers and naming the same registers in its text (an immediate or a
    modifier may change). A field some value of which makes the word read, write or name another
    register (LDG's predicate output [81:83]), or that nvdisasm rejects, stays in the envelope.

    `requests`: [(key, scope, {low bit: bits}, [(word, layout)])], scope None for the key-wide
    fields or a line's selector values. Returns {key: {scope: {free low bits}}}. With
    LEARN_DEBUG_FIELDS=1 in the environment, every probe that keeps a field fixed is printed."""
    pairs = []
    for key, scope, fields, words in requests:
        for lo, bits in fields.items():
            for w, layout in words:
                for w0, w1 in field_probes(w, lo, bits, layout):
                    pairs.append((key, (scope, lo), w0, w1))
    templates = [template] + (list(args.extra_templates_8x) if gen == "sm_8x" else [])
    gots = [list_pairs(args, t, tmpdir, pairs, '%s-fields-%d' % (gen, i))
            for i, t in enumerate(templates)]
    probed = collections.defaultdict(set)
    changed = collections.defaultdict(set)
    for key, sl, w0, w1 in pairs:
        probed[key].add(sl)
        for g in gots:
            if not (same_operands(g, w0, w1)
                    and register_names(g[w0][0]) == register_names(g[w1][0])):
                changed[key].add(sl)
                if os.environ.get('LEARN_DEBUG_FIELDS'):
                    print('field %s of 0x%04x: %s -> %s' % (sl, key, g.get(w0), g.get(w1)),
                          file=sys.stderr)
    free = {}
    for key in sorted(probed):
        found = probed[key] - changed[key]
        for scope, lo in found:
            free.setdefault(key, {}).setdefault(scope, set()).add(lo)
        print("%s 0x%04x: %d unused fields probed, free %s" % (
            gen, key, len(probed[key]),
            ', '.join('%s@%s' % (lo, 'key' if scope is None else ','.join(map(str, scope)))
                      for scope, lo in sorted(found, key=str)) or 'none'), file=sys.stderr)
    return free


def list_pairs(args, template, tmpdir, pairs, tag):
    """nvdisasm's (text, marks) of every word of `pairs` [(key, bits, word, word)] it accepts."""
    words = sorted({w for _, _, a, b in pairs for w in (a, b)})
    return {w: (t, m) for w, t, m in
            run_synthetic(args.nvdisasm, template, args.kernel, words, tmpdir, tag)}


def same_operands(got, w0, w1):
    """Whether nvdisasm lists both words, as the same opcode with modifiers it can name, reading
    and writing the same registers."""
    if w0 not in got or w1 not in got:
        return False
    (t0, m0), (t1, m1) = got[w0], got[w1]
    return m0 == m1 and base(t0) == base(t1) and '???' not in t1


def kernel_capacity(template, kernel):
    """How many words `synthetic_kernel` can write into `kernel` of `template`."""
    for name, s in sections(open(template, 'rb').read()):
        if name == '.text.' + kernel:
            return s[5] // 16 - 2
    raise RuntimeError('%s has no kernel %s' % (template, kernel))


def synthetic_kernel(template, kernel, words):
    """The cubin `template` with `words` (at most `kernel_capacity`) as the code of `kernel`,
    then EXIT, BRA self and NOPs, and the code-offset attributes of its `.nv.info` section
    set to the words' end."""
    dd = bytearray(open(template, 'rb').read())
    off = size = None
    for name, s in sections(dd):
        if name == '.text.' + kernel:
            off, size = s[4], s[5]
    ws = [(w & (2 ** 64 - 1), w >> 64) for w in words] + [EXIT_W, BRA_SELF]
    ws += [NOP_W] * (size // 16 - len(ws))
    for i, (lo, hi) in enumerate(ws):
        struct.pack_into('<QQ', dd, off + 16 * i, lo, hi)
    for name, s in sections(dd):
        if name == '.nv.info.' + kernel:
            o, e = s[4], s[4] + s[5]
            while o < e:
                fmt, at = dd[o], dd[o + 1]
                if fmt == 4:
                    ln = struct.unpack_from('<H', dd, o + 2)[0]
                    if at in (0x1c, 0x1d, 0x28, 0x31):
                        for k in range(ln // 4):
                            struct.pack_into('<I', dd, o + 4 + 4 * k, 16 * len(words))
                    o += 4 + ln
                else:
                    o += 4
    return dd


def run_synthetic(nvdisasm, template, kernel, words, tmpdir, tag):
    """Writes `words` into `kernel` of `template` (then EXIT, BRA self, NOPs) and lists it."""
    cap = kernel_capacity(template, kernel)
    results = []
    pending = [words[i:i + cap] for i in range(0, len(words), cap)]
    n = 0
    while pending:
        chunk = pending.pop()
        n += 1
        dd = synthetic_kernel(template, kernel, chunk)
        path = os.path.join(tmpdir, '%s-%d.cubin' % (tag, n))
        open(path, 'wb').write(std_header(dd))
        try:
            lst = listing(nvdisasm, path)
        except RuntimeError as e:
            bad = {int(a, 16) // 16 for a in re.findall(r'at address (0x[0-9a-f]+)', str(e))}
            if not bad:
                print("dropping %d words: %s" % (len(chunk), str(e)[:200]), file=sys.stderr)
                continue
            pending.append([w for i, w in enumerate(chunk) if i not in bad])
            continue
        got = {o: (t, w, m) for f, o, t, w, m in lst if f == '.text.' + kernel}
        for i, w in enumerate(chunk):
            t, ww, m = got.get(16 * i, (None, None, None))
            if ww == w:
                results.append((w, t, m))
    return results


def replace_mutants(mutants, key, new):
    """Drops every mutant of opcode `key` from `mutants` ({(key, signature): [...]}) and adds
    `new`, the mutants of the key learned again under other candidate fields."""
    for k in [k for k in mutants if k[0] == key]:
        del mutants[k]
    mutants.update(new)


def learn(args):
    rng = random.Random(12345)
    tmpdir = tempfile.mkdtemp(prefix='warpsmith-learn-')
    gens = {"sm_8x": [], "sm_90": []}
    for path in args.cubins:
        sm = struct.unpack_from('<I', open(path, 'rb').read(), 0x30)[0] & 0xff
        gens["sm_90" if sm == 90 else "sm_8x"].append(path)

    def list_std(path):
        p = os.path.join(tmpdir, os.path.basename(path) + '.std')
        open(p, 'wb').write(std_header(open(path, 'rb').read()))
        return listing(args.nvdisasm, p)

    for gen, paths in gens.items():
        if not paths:
            continue
        with ThreadPoolExecutor(4) as ex:
            listings = list(ex.map(list_std, paths))
        samples = collections.defaultdict(list)   # key -> [(word, text, marks)]
        for lst in listings:
            for f, o, t, w, m in lst:
                samples[key_of(w)].append((w, t, m))
        # The life-range listing leaves out the NOP padding after the last branch: instructions
        # only the plain listing has are learned from mutants alone.
        with ThreadPoolExecutor(4) as ex:
            plain = list(ex.map(lambda p: listing(args.nvdisasm, p, False), paths))
        seen = {w for lst in listings for f, o, t, w, m in lst}
        for lst in plain:
            for f, o, t, w, m in lst:
                if w not in seen:
                    seen.add(w)
                    samples[key_of(w)].append((w, t, None))
        template = args.template_90 if gen == "sm_90" else args.template_8x
        # Extra seeds: encodings the encoders emit that the corpus may lack, listed in the
        # template first, so that they carry nvdisasm's text and life ranges like a corpus
        # sample (a seed without them is learned from mutants alone, and a mutant that changes
        # the form then spoils the solution: sm_8x's LDL/STL through a uniform register).
        # Control bits: stall 1, no scoreboards (a store with a write scoreboard is illegal).
        extra = [w | 0x7e1 << 105 for w in ENCODER_SEEDS]
        extra += [int(h, 16) for g, h in (s.split(':') for s in args.seed or []) if g == gen]
        listed = {w: (t, m) for w, t, m in
                  run_synthetic(args.nvdisasm, template, args.kernel, extra, tmpdir, gen + '-seeds')}
        for w in extra:
            t, m = listed.get(w, (None, None))
            samples[key_of(w)].append((w, t, m))
        hints = {key: key_hints(ss, gen) for key, ss in samples.items()}

        def plan_for(key, hk, tag):
            """Mutants per signature of one opcode under candidate fields `hk`."""
            ss = samples[key]
            if is_control_flow(ss):
                return []
            smask = sig_mask(gen, key_mnemonic(ss), hk)
            sigs = {}
            for w, t, m in ss:
                sigs.setdefault(w & ~smask, w)
            return [(tag, key, sig, mw) for sig, w in sigs.items()
                    for mw in make_mutants(w, args.mutants, rng, hk)]

        def run_plan(plan, name):
            got = run_synthetic(args.nvdisasm, template, args.kernel,
                                [mw for _, _, _, mw in plan], tmpdir, name)
            by_word = {w: (t, m) for w, t, m in got}
            mutants = collections.defaultdict(lambda: collections.defaultdict(list))
            for tag, key, sig, mw in plan:
                if mw in by_word:
                    mutants[tag][(key, sig)].append((mw,) + by_word[mw])
            return mutants, by_word

        plan = [e for key in samples for e in plan_for(key, hints[key], None)]
        runs, by_word = run_plan(plan, gen)
        mutants = runs[None]
        dropped = collections.Counter(key for _, key, sig, mw in plan if mw not in by_word)
        total = collections.Counter(key for _, key, sig, mw in plan)
        for key in sorted(dropped):
            if dropped[key] * 2 > total[key]:
                print("%s 0x%04x: %d of %d mutants rejected by nvdisasm" % (gen, key, dropped[key], total[key]), file=sys.stderr)
        # Step 5: opcodes with an inexact form, again without each predicate candidate.
        retry = [key for key in sorted(samples)
                 if key_mnemonic(samples[key]) != "CALL"
                 and any(':implicit' in l
                         for l in key_lines(gen, key, samples[key], mutants, hints[key],
                                            collections.Counter()))]
        plan = [e for key in retry for lo, n in SLOTS["PRED"]
                if lo != 12 and lo in hints[key]
                for e in plan_for(key, hints[key] - {lo}, (key, lo))]
        if plan:
            runs, _ = run_plan(plan, gen + '-retry')
            for key in retry:
                for lo, n in SLOTS["PRED"]:
                    if lo == 12 or lo not in hints[key]:
                        continue
                    hk = hints[key] - {lo}
                    lines = key_lines(gen, key, samples[key], runs[(key, lo)], hk,
                                      collections.Counter())
                    if not any(':implicit' in l or l.endswith((' unknown', ' conflict'))
                               for l in lines):
                        print("%s 0x%04x: bits [%d:%d] are modifier bits, not a predicate"
                              % (gen, key, lo, lo + 2), file=sys.stderr)
                        hints[key] = hk
                        replace_mutants(mutants, key, runs[(key, lo)])
                        break
        # Step 8a: a candidate predicate field that no layout of a multi-layout opcode uses
        # holds modifier or operand bits that coincided with a predicate the instruction reads
        # (LEA's [77:79] is part of the shift amount [75:79], and bit 80, its "negation", is
        # .HI). Such fields are learned again as ordinary bits (new signatures, new mutants)
        # when that leaves no form less exact, so that step 8 can probe their bits. On an
        # opcode with one layout, the unused fields whose value varies among the samples
        # (`varying_unused_predicate_fields`) are released the same way.
        release = {}
        for key, ss, (mn, smask, results, sigs) in solved_keys(gen, samples, mutants, hints):
            if len(set(results.values())) > 1:
                unused = unused_predicate_fields(results, hints[key])
            else:
                unused = varying_unused_predicate_fields(results, hints[key], ss)
            if unused:
                release[key] = hints[key] - unused
        plan = [e for key, hk in sorted(release.items())
                for e in plan_for(key, hk, ('release', key))]
        if plan:
            runs, _ = run_plan(plan, gen + '-release')

            def inexact(lines):
                return sum(1 for l in lines if ':implicit' in l
                           or l.endswith((' unknown', ' conflict')))

            for key, hk in sorted(release.items()):
                before = key_lines(gen, key, samples[key], mutants, hints[key],
                                   collections.Counter())
                after = key_lines(gen, key, samples[key], runs[('release', key)], hk,
                                  collections.Counter())
                if inexact(after) <= inexact(before):
                    print("%s 0x%04x %s: predicate fields %s are not operands"
                          % (gen, key, key_mnemonic(samples[key]),
                             sorted(hints[key] - hk)), file=sys.stderr)
                    hints[key] = hk
                    replace_mutants(mutants, key, runs[('release', key)])
        # Step 8e: predicate slots that are PT in every sample and still operands.
        operands = probe_pt_slots(args, gen, template, tmpdir, samples, mutants, hints)
        plan = [e for key, slots in sorted(operands.items())
                for e in plan_for(key, hints[key] | slots, ('pt', key))]
        if plan:
            runs, _ = run_plan(plan, gen + '-pt-mutants')
            for key, slots in sorted(operands.items()):
                hints[key] = hints[key] | slots
                replace_mutants(mutants, key, runs[('pt', key)])
        probes, extra_mutants = probe_selectors(args, gen, template, tmpdir, rng, samples,
                                                mutants, hints)
        for k, v in extra_mutants.items():
            mutants.setdefault(k, []).extend(v)
        free = probe_free_bits(args, gen, template, tmpdir, samples, mutants, hints)
        # Step 8f: the unused fields the envelopes would fix, probed.
        requests = []
        for key in sorted(samples):
            if is_control_flow(samples[key]):
                continue  # a branch or exit in the listed kernel would end it early
            key_lines(gen, key, samples[key], mutants, hints[key], collections.Counter(),
                      probes.get(key), free.get(key, frozenset()), requests=requests)
        free_fields = probe_unused_fields(args, gen, template, tmpdir, requests)
        write_table(args, gen, samples, mutants, hints, probes, free, free_fields)


def bit_ranges(bits):
    """Sorted bit numbers as (lo, n) ranges of consecutive bits."""
    ranges = []
    for b in sorted(bits):
        if ranges and ranges[-1][0] + ranges[-1][1] == b:
            ranges[-1] = (ranges[-1][0], ranges[-1][1] + 1)
        else:
            ranges.append((b, 1))
    return tuple(ranges)


def layout_key(op):
    """The order of the operands in a layout (`key_lines`)."""
    return (op[0], str(op[1]))


def adopt_pt_reads(results, required):
    """`results` ({sig: layout}) where a signature that holds PT (not negated) in a predicate
    slot that is no candidate field takes the layout of another signature that agrees with it
    on the probed selector bits `required` and that is its own layout plus a read of that slot:
    reading PT names no register, so both layouts predict its samples, and the probe showed that
    at these selector values the slot is read. `HFMA2`'s `.RELU` (bit 79) reads [87:89]; ptxas
    writes PT there in every `.RELU` sample and P0 in the plain form, so the corpus's `.RELU`
    signatures have no read, the probed flip of a plain word reads P0, and no selector over bit
    79 explained both. Without probed bits nothing changes."""
    if not required:
        return results
    out = {}
    for sig, lay in results.items():
        for other, richer in results.items():
            extra = set(richer) - set(lay)
            if len(extra) != 1 or not set(lay) <= set(richer):
                continue
            letter, lo, rw = next(iter(extra))
            if (letter in ('p', 'q') and isinstance(lo, int) and lo != 12 and rw == (1, 0)
                    and pt_slot_agrees(sig, lo, other, required)):
                lay = richer
                break
        out[sig] = lay
    return out


def pt_slot_agrees(sig, lo, other, required):
    """Whether signature `sig` holds PT (not negated) in the predicate slot at `lo` and agrees
    with the word `other` on the probed selector bits `required`. The slot's own bits are probed
    too (PT to P5 reads P5): they may differ."""
    if field(sig, lo, 3) != 7 or (lo in PRED_NEG and (sig >> PRED_NEG[lo]) & 1):
        return False
    slot = set(range(lo, lo + 3)) | ({PRED_NEG[lo]} if lo in PRED_NEG else set())
    return all((other >> b) & 1 == (sig >> b) & 1 for b in set(required) - slot)


def adopt_probed_reads(results, required, reads):
    """`results` ({sig: layout}) where a signature that holds PT (not negated) in a predicate
    slot takes a read of that slot when a probed flip (`reads`: [(flipped word, slot)], see
    `added_predicate_read`) that agrees with it on the probed selector bits `required` (the
    slot's own bits aside) added exactly that read. `adopt_pt_reads` needs a signature of the
    corpus with the richer layout; here the flipped word stands for it: `HFMA2`'s plain words
    hold P0 in [87:89], the flip of bit 79 (`.RELU`) reads it, and every `.RELU` signature holds
    PT there, so no sample shows the read. Reading PT names no register: the samples still
    agree."""
    if not required or not reads:
        return results
    out = {}
    for sig, lay in results.items():
        for w1, lo in reads:
            op = ('p', lo, (1, 0))
            if op not in lay and pt_slot_agrees(sig, lo, w1, required):
                lay = tuple(sorted(set(lay) | {op}, key=layout_key))
        out[sig] = lay
    return out


def generalise(results, sel_bits, required=None):
    """results: {sig: layout}. Finds the selector bit ranges whose values determine the layout:
    () (one layout), or a tuple of (lo, bits) ranges.

    With `required` (the bits whose flip changed the layout of a probed sample, see
    `probe_selectors`): every required bit is a selector bit (a selector without it would give
    the flipped word the unflipped one's layout); bits are added only where the required ones
    leave two signatures with different layouts on one selector value, the fewest that explain
    every signature, and among those the choice with the fewest table lines. Without probe
    evidence: the first one or two bit ranges that fit, else every selector bit (exact
    signatures)."""
    if len(set(results.values())) <= 1:
        return (), {(): next(iter(results.values()))} if results else {}

    def try_ranges(ranges):
        m = {}
        for sig, lay in results.items():
            v = tuple(field(sig, lo, n) for lo, n in ranges)
            if m.setdefault(v, lay) != lay:
                return None
        return m

    if required is not None:
        req = sorted(b for b in required if b in sel_bits)
        others = [b for b in sel_bits if b not in required]
        for k in range(0, 3):
            best = None
            for more in itertools.combinations(others, k):
                ranges = bit_ranges(req + list(more))
                if not ranges:
                    continue
                m = try_ranges(ranges)
                if m is not None and (best is None or len(m) < len(best[1])):
                    best = (ranges, m)
            if best is not None:
                return best
        print("probed selector bits %s do not explain the signatures" % req, file=sys.stderr)

    singles = [(lo, n) for n in (1, 2, 3, 4) for lo in sel_bits
               if all(b in sel_bits for b in range(lo, lo + n))]
    for r in singles:
        m = try_ranges((r,))
        if m is not None:
            return (r,), m
    for i, a in enumerate(singles):
        for b in singles[i + 1:]:
            if a[0] + a[1] <= b[0] or b[0] + b[1] <= a[0]:
                ranges = tuple(sorted((a, b)))
                m = try_ranges(ranges)
                if m is not None:
                    return ranges, m
    ranges = tuple((b, 1) for b in sel_bits)
    m = try_ranges(ranges)
    return (ranges, m) if m is not None else ('conflict', None)


def layout_of(per_file):
    """Canonical, hashable operand layout."""
    ops = []
    for f in FILES:
        ops_f, implicit = per_file[f]
        for lo in sorted(ops_f):
            ops.append((LETTER[f], lo, ops_f[lo]))
        if implicit:
            ops.append((LETTER[f], 'implicit', None))
    return tuple(ops)


def key_results(gen, key, ss, mutants, hk, stats, extra=()):
    """The operand layout of every signature of one opcode key (samples `ss` plus the probed
    words `extra`, mutants by (key, signature), candidate register fields `hk`): (mnemonic,
    signature mask, {signature: layout}, {signature: [samples]})."""
    mn = key_mnemonic(ss)
    smask = sig_mask(gen, mn, hk)
    sigs = {}
    for w, t, m in list(ss) + list(extra):
        sigs.setdefault(w & ~smask, []).append((w, t, m))
    results = {}
    for sig, group in sigs.items():
        data = [(w, t, m) for w, t, m in group if m is not None]
        data += mutants.get((key, sig), [])
        if not data:
            continue
        if mn is None:
            mn = base(data[0][1])
        per_file = {}
        forms = {shape(t) for w, t, m in group if t}
        same = [(w, t, m) for w, t, m in data if shape(t) in forms]
        has_mutants = len(same) > len([1 for w, t, m in group if m is not None])
        is_call = mn == "CALL"

        inverted = mn in INVERTED and inverted_reads(mn, data)
        if mn in INVERTED and not inverted:
            print("0x%04x %s: a sample does not read what its inverted field names; learned as an"
                  " ordinary field" % (key, mn), file=sys.stderr)

        def marks(m, f, w):
            r, wr = rw_sets(m[f])
            inv = inverted_register(mn, w) if inverted else None
            if inv is not None and inv[0] == f:
                r = r - {inv[1]}
            return call_residual(f, r, wr) if is_call else (r, wr)

        for f in FILES:
            smp = [(w,) + marks(m, f, w) for w, t, m in data]
            # Every sample and mutant first: nvdisasm leaves out a PT/RZ operand, so a mutant
            # with a register in a field that is PT in every sample (LEA.X's carry-out [81:83])
            # prints differently, and is still evidence that the field is written.
            r = solve(f, smp, exact=True)
            if r is None and has_mutants:
                # Then the mutants that kept the instruction's printed form: a field whose
                # change alters the form (a modifier, not a register) is left out.
                r = solve(f, [(w,) + marks(m, f, w) for w, t, m in same], exact=True)
            if r is None:
                r = solve(f, smp, exact=False)
            if r is None:
                per_file = None
                break
            per_file[f] = r
        if per_file is None:
            stats['unsolved-sig'] += 1
            continue
        if mn in SHAPE_IN_IMMEDIATE_FIELD:
            per_file["GPR"] = ({}, True)
        lay = layout_of(per_file)
        if inverted:
            lay = lay + ((LETTER[INVERTED[mn][0]] + '~', INVERTED[mn][1], (1, 0)),)
        if is_call:
            lay = lay + (('c', 'call', None),)
        # Whether this form has a branch target (nvdisasm prints a label, or BRX's offset).
        if any(has_target(t) for w, t, m in group):
            lay = lay + (('t', 0, None),)
        results[sig] = lay
    return mn, smask, results, sigs


def key_lines(gen, key, ss, mutants, hk, stats, probe=None, free=frozenset(), free_fields=None,
              requests=None):
    """The table lines of one opcode key (samples `ss`, mutants by (key, signature), candidate
    register fields `hk`; `probe`: what probing found for the key, see `probe_selectors`;
    `free`: the bits step 8d found free, see `probe_free_bits`; `free_fields`: the unused
    fields step 8f found free, {None (key-wide) or a line's selector values: {low bit}}, see
    `probe_unused_fields`). With `requests` (a list), the unused fields the envelopes would fix
    are appended to it as step 8f's probe requests `(key, scope, {low bit: bits}, [(word,
    layout)])`."""
    free_fields = free_fields or {}
    lines = []
    extra = probe['extra'] if probe else ()
    mn, smask, results, sigs = key_results(gen, key, ss, mutants, hk, stats, extra)
    if not results:
        stats['unknown-key'] += 1
        lines.append("0x%04x %s - unknown" % (key, mn))
        return lines
    # The guard predicate exists in every form of an opcode; evidence of it in one form
    # (a mutant with a non-PT guard) holds for all.
    guards = {op for lay in results.values() for op in lay if op[1] == 12 and op[2] == (1, 0)}
    results = {sig: tuple(sorted(set(lay) | guards, key=layout_key))
               for sig, lay in results.items()}
    required = probe['bits'] if probe else None
    results = adopt_pt_reads(results, required)
    results = adopt_probed_reads(results, required, probe['reads'] if probe else ())
    sel_bits = selector_bits(smask)
    if probe:
        # A bit of a register field is no selector, whether or not it was a candidate field.
        fb = field_bits(results)
        sel_bits = [b for b in sel_bits if b not in fb]
    sel, m = generalise(results, sel_bits, required)
    if sel == 'conflict' and extra:
        # A probed word that no selector over the probed bits explains together with the
        # corpus: learn the key from the corpus alone.
        print("0x%04x %s: probed forms left out (no selector explains them)" % (key, mn),
              file=sys.stderr)
        return key_lines(gen, key, ss, mutants, hk, stats,
                         dict(probe, extra=()) if probe else None, free, free_fields, requests)
    # The envelope: selector-candidate bits that never varied among the opcode's samples
    # must keep their value, so that an unseen modifier (e.g. STS.128 when only STS was
    # seen) decodes as unknown instead of borrowing a seen form's operands.
    fixed_mask = 0
    # Only samples whose signature got a layout widen the envelope: a sample nvdisasm gave no
    # life ranges for (and no mutants: control flow) taught nothing, and must not make its bits
    # look free — `RET.ABS.NODEC` in a relocatable cubin would otherwise match `RET.REL`'s form
    # and be given its branch-target field.
    taught = [(w, t, m) for w, t, m in ss if (w & ~smask) in results] or list(ss)
    for b in selector_bits(smask):
        vals = {(w >> b) & 1 for w, t, m in taught}
        if len(vals) == 1 and b not in free:
            fixed_mask |= 1 << b
    key_fields = unused_fields(hk, results, taught)
    fixed_mask |= envelope_bits(key_fields, free_fields.get(None, ()))
    if sel == 'conflict':
        stats['conflict'] += 1
        lines.append("0x%04x %s - conflict" % (key, mn))
        return lines
    stats['ok'] += 1
    if requests is not None and key_fields:
        # One sample of each layout (at most eight) for the key-wide fields.
        firsts = {}
        for w, t, m_ in taught:
            firsts.setdefault(results.get(w & ~smask), w)
        requests.append((key, None, key_fields,
                         [(w, lay) for lay, w in firsts.items() if lay is not None][:8]))
    for v in sorted(m):
        # The line's own fields hold one value in every taught sample, like the key's.
        fields = {lo: bits for lo, bits in line_fields(hk, m[v], sel, v, taught).items()
                  if lo not in key_fields}
        if requests is not None and fields:
            requests.append((key, v, fields,
                             [(w, m[v]) for w, t, m_ in taught_at(taught, sel, v)[:2]]))
        line_mask = fixed_mask | envelope_bits(fields, free_fields.get(v, ()))
        line_value = taught[0][0] & line_mask
        ops = []
        implicit = {letter for letter, lo, rw in m[v] if lo == 'implicit'}
        for letter, lo, rw in m[v]:
            if letter == 'c':
                ops.append('call')
                continue
            if letter == 't':
                if TARGETS[gen].get(mn):
                    ops.append('t' + TARGETS[gen][mn])
                continue
            if lo == 'implicit':
                ops.append('%s:implicit' % letter)
                continue
            if letter in implicit:
                continue  # "any register of the file" covers the field
            wr, ww = rw
            role = ('r%d' % wr if wr else '') + ('w%d' % ww if ww else '')
            ops.append('%s%d:%s' % (letter, lo, role))
        selector = ','.join('%d:%d=%d' % (lo, n, x) for (lo, n), x in zip(sel, v)) or '-'
        if line_mask:
            ops.append('m%x=%x' % (line_mask, line_value))
        lines.append("0x%04x %s %s %s" % (key, mn, selector, ' '.join(ops)))
    return lines


def merged_with_new_keys(path, learned, gen):
    """`--new-keys-only`: the table at `path` with the learned lines of the opcode keys it does
    not have yet, in key order; every line it has stays as it is."""
    with open(path) as fh:
        old = [l.rstrip('\n') for l in fh if l.strip() and not l.startswith('#')]
    have = {l.split()[0] for l in old}
    new = [l for l in learned if l.split()[0] not in have]
    for l in new:
        print(gen, 'new key:', l, file=sys.stderr)
    return sorted(old + new, key=lambda l: int(l.split()[0], 16))


def write_table(args, gen, samples, mutants, hints, probes, free, free_fields):
    lines = []
    stats = collections.Counter()
    for key in sorted(samples):
        lines += key_lines(gen, key, samples[key], mutants, hints[key], stats, probes.get(key),
                           free.get(key, frozenset()), free_fields.get(key))
    path = os.path.join(args.out, '%s.tbl' % gen)
    if args.new_keys_only:
        lines = merged_with_new_keys(path, lines, gen)
    with open(path, 'w') as fh:
        fh.write("# warpsmith SASS operand table, generation %s. Generated by learn_tables.py from\n" % gen)
        fh.write("# nvdisasm life ranges (docs/sass.md); do not edit by hand.\n")
        fh.write("# opcode-key mnemonic selector(lo:bits=value|-) operands: <file><lowbit>:r<n>w<n>\n")
        fh.write("# files: g=GPR u=UGPR p=PRED q=UPRED; <file>:implicit = registers not in any field;\n")
        fh.write("# call = a subroutine call: registers beyond its fields follow the calling convention\n")
        for l in lines:
            fh.write(l + "\n")
    print(gen, dict(stats), file=sys.stderr)


def self_test():
    """Checks of the pure parts (`--self-test`; run by tests/sass_lea.rs)."""
    assert bit_ranges([80, 74, 73, 75]) == ((73, 3), (80, 1))
    # A 4-wide uniform read at UR60 reads UR60-UR62 (UR63 is URZ): still `u24:r4`, exact.
    w60 = 60 << 24
    assert solve("UGPR", [(w60, frozenset({60, 61, 62}), frozenset()),
                          ((4 << 24), frozenset({4, 5, 6, 7}), frozenset())]) == ({24: (4, 0)}, False)
    # LEA-like signatures: bit 74 (.X) adds a carry-in read, bit 80 (.HI) a read of [64:71];
    # the shift amount [75:79] takes values that happen to separate the forms.
    lay = {(0, 0): ('g16',), (1, 1): ('g16', 'g64', 'p87'), (0, 1): ('g16', 'g64')}
    results = {}
    for x, hi, shift in [(0, 0, 2), (0, 0, 4), (1, 1, 1), (0, 1, 1), (0, 0, 8), (1, 1, 2)]:
        results[(x << 74) | (hi << 80) | (shift << 75)] = lay[(x, hi)]
    sel_bits = list(range(72, 81))
    ranges, m = generalise(results, sel_bits)
    assert ranges != ((74, 1), (80, 1)), "without probing, a range that fits is taken"
    ranges, m = generalise(results, sel_bits, required={74, 80})
    assert ranges == ((74, 1), (80, 1)) and len(m) == 3, (ranges, m)
    # A required bit that leaves two layouts on one value gets the fewest extra bits.
    results[(1 << 73) | (1 << 80)] = ('g16',)  # .HI.SX32: no read of [64:71]
    ranges, m = generalise(results, sel_bits, required={74, 80})
    assert ranges == ((73, 2), (80, 1)), ranges
    # HFMA2: `.RELU` (bit 79) signatures hold PT in [87:89] (no read), the probed flip of a
    # plain word (P0 there) reads it; the plain signature keeps its layout.
    plain, relu, flipped = 0 << 87, 1 << 79 | 7 << 87, 1 << 79
    base_, reads = (('g', 16, (0, 1)),), (('g', 16, (0, 1)), ('p', 87, (1, 0)))
    adopted = adopt_pt_reads({plain: base_, relu: base_, flipped: reads}, {79, 88, 89})
    assert adopted == {plain: base_, relu: reads, flipped: reads}, adopted
    assert adopt_pt_reads({plain: base_, relu: base_, flipped: reads}, set())[relu] == base_
    # The same with the flipped word no signature: the probe's evidence gives `.RELU` the read.
    adopted = adopt_probed_reads({plain: base_, relu: base_}, {79}, [(flipped, 87)])
    assert adopted == {plain: base_, relu: reads}, adopted
    assert adopt_probed_reads({plain: base_, relu: base_}, {79}, []) == {plain: base_,
                                                                       relu: base_}
    no_pt = 1 << 79 | 3 << 87
    assert adopt_probed_reads({no_pt: base_}, {79}, [(flipped, 87)])[no_pt] == base_
    # A flip of bit 88 in a `.RELU` word (PT -> P5 in [87:89]) adds the read of P5; with P0 in
    # several slots, the read of P0 names no one slot.
    marks = {f: {} for f in FILES}
    relu_p5 = 1 << 79 | 5 << 87 | 7 << 68 | 7 << 81 | 7 << 84
    read_p5 = dict(marks, PRED={5: 'v'})
    assert added_predicate_read(relu_p5, marks, read_p5, {16, 12}) == 87
    assert added_predicate_read(relu_p5, marks, read_p5, {16, 12, 87}) is None
    assert added_predicate_read(relu_p5, marks, dict(marks, PRED={5: '^'}), {16}) is None
    assert added_predicate_read(relu_p5, marks, dict(read_p5, GPR={4: 'v'}), {16}) is None
    assert added_predicate_read(flipped, marks, dict(marks, PRED={0: 'v'}), {16}) is None
    adopted = adopt_probed_reads({plain: base_, relu: base_}, {79, 88}, [(relu_p5, 87)])
    assert adopted == {plain: base_, relu: reads}, adopted
    # Probing covers both values of every varying bit.
    sigs = {s_: base_ for s_ in range(12)}
    sigs[1 << 79] = base_
    assert 1 << 79 in covering_signatures(sigs, [79])
    assert len(covering_signatures(sigs, [])) == PROBE_SIGS
    lay_a = ((('g', 16, (0, 1)),), (('g', 16, (0, 1)), ('p', 87, (1, 0))))
    assert field_bits({1: lay_a[1]}) == set(range(16, 24)) | {87, 88, 89}
    assert unused_predicate_fields({1: lay_a[1]}, {16, 77, 87, 12}) == {77}
    # A line's own envelope: selector [73:75] = 4 keeps [81:83] at PT (7) in its samples and its
    # layout has no field there; the probed value 7 writes a predicate at [81:83] and has no
    # sample.
    lay4 = (('g', 16, (0, 1)), ('g', 24, (2, 0)))
    lay7 = (('g', 16, (0, 1)), ('g', 24, (2, 0)), ('p', 81, (0, 1)))
    taught = [(4 << 73 | 7 << 81 | r << 16, None, None) for r in (2, 6)]
    assert line_fields({16, 24, 81}, lay4, ((73, 3),), (4,), taught) == {81: 7 << 81}
    assert line_fields({16, 24, 81}, lay7, ((73, 3),), (7,), taught) == {}
    assert envelope_bits(unused_fields({16, 24, 81}, {1: lay4, 2: lay7}, taught)) == 0
    # A bit that varies under another selector value stays out of every line's envelope: the
    # samples with [73:75] = 2 hold 0 in the candidate field [32:39], those with 3 set bit 38.
    taught_c = [(2 << 73 | r << 16, None, None) for r in (2, 6)] + \
        [(3 << 73 | 1 << 38 | 4 << 16, None, None)]
    assert line_fields({16, 32}, lay4[:1], ((73, 3),), (2,), taught_c) == {}
    taught_d = [(2 << 73 | r << 16, None, None) for r in (2, 6)] + \
        [(3 << 73 | 4 << 16, None, None)]
    assert line_fields({16, 32}, lay4[:1], ((73, 3),), (2,), taught_d) == {32: 0xff << 32}
    assert envelope_bits(unused_fields({16, 32}, {1: lay4[:1]}, taught_d), free={32}) == 0
    # Step 8e's candidates: [84:86] PT in every sample, not hinted, no register field over it;
    # [81:83] holds P1 in one sample; [68:70] lies inside a GPR field [64:71] a layout uses.
    pt = 7 << 84 | 7 << 77 | 7 << 87 | 7 << 68
    ss = [(pt | 7 << 81, None, None), (pt | 1 << 81, None, None)]
    lay_g64 = {1: (('g', 16, (0, 1)), ('g', 64, (1, 0)), ('p', 81, (0, 1)))}
    assert pt_slots(ss, {16, 64, 81, 12}, lay_g64) == [77, 84, 87]
    assert pt_slots(ss, {16, 64, 81, 12, 87}, lay_g64) == [77, 84]
    assert pt_slots(ss, {16, 81, 12}, {1: lay_a[0]}) == [68, 77, 84, 87]
    # The warpgroup MMAs' accumulate flag: [87:89] = 7 - n names UPn, 0 the true predicate.
    gmma = 0x9f3 | 1 << 91
    assert inverted_register("QGMMA", gmma | 6 << 87) == ("UPRED", 1)
    assert inverted_register("QGMMA", gmma | 1 << 90) is None
    assert inverted_register("IMAD", gmma | 6 << 87) is None
    reads_up1 = {"GPR": {}, "PRED": {}, "UGPR": {}, "UPRED": {1: 'v'}}
    assert inverted_reads("QGMMA", [(gmma | 6 << 87, None, reads_up1)])
    assert not inverted_reads("QGMMA", [(gmma | 7 << 87, None, reads_up1)])
    lay_inv = {1: (('g', 'implicit', None), ('q~', 87, (1, 0)))}
    assert field_bits(lay_inv) == {87, 88, 89}
    assert unused_predicate_fields(lay_inv, {87, 12}) == set()
    print("learn_tables self-test: ok")


def main():
    if sys.argv[1:] == ['--self-test']:
        self_test()
        return
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--nvdisasm', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--template-8x', required=True, help='an sm_8x cubin with a large kernel')
    ap.add_argument('--template-90', required=True, help='an sm_90 cubin with a large kernel')
    ap.add_argument('--kernel', required=True, help='the large kernel in both templates')
    ap.add_argument('--extra-templates-8x', nargs='*', default=[],
                    help='sm_86/sm_89 cubins with the same kernel: a modifier bit is free only '
                         'when it leaves the operands alone on every architecture')
    ap.add_argument('--mutants', type=int, default=6)
    ap.add_argument('--seed', action='append', help='GEN:HEXWORD extra encodings to learn')
    ap.add_argument('--new-keys-only', action='store_true',
                    help='add to the tables in --out only the lines of opcode keys they do not '
                         'have (learned from the given cubins alone); keep every other line')
    ap.add_argument('cubins', nargs='+')
    learn(ap.parse_args())


if __name__ == '__main__':
    main()
