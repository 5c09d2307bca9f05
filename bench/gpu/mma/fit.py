#!/usr/bin/env python3
"""Fits models of tensor-core accumulation to what a GPU computed (bench/gpu/mma, docs/gpu.md).

    python3 bench/gpu/mma/fit.py KERNEL GPU_D.bin EMU_D.bin [N]

KERNEL is mma_f16, mma_bf16 or mma_tf32 (bench/gpu/mma/mma.ptx with KERNEL.spec.json); GPU_D.bin
the D buffer the GPU wrote (bench/results/h100-2026-11-26-mma/KERNEL.d.bin, or h100_checks.py
--save-outputs); EMU_D.bin the emulator's (`warpsmith emulate bench/gpu/mma/mma.ptx --launch
bench/gpu/mma/KERNEL.spec.json --out DIR`: DIR/arg3.bin). The inputs are regenerated with the
emulator's generator (crosscheck.py). For the first N outputs (default 4096) it prints how many the
emulator matches bit for bit and how many each model does: blocks of `group` products with the
accumulator, every addend aligned to the largest exponent and truncated toward zero to `p` bits
(p = 0: exact), the block's sum rounded (rn/rz) to f32; and sequential round-to-nearest FMAs.
Exact rational arithmetic; slow (about a minute for 2048 outputs).
"""
import struct, sys, math, os
from fractions import Fraction as F
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import crosscheck, json
K = sys.argv[1]; N = int(sys.argv[4]) if len(sys.argv)>4 else 4096
spec = json.load(open(os.path.join(HERE, K + '.spec.json')))
bufs = [crosscheck.buffer_bytes(a['buffer'], i) for i,a in enumerate(spec['args'])]
g = open(sys.argv[2],'rb').read()
emu = open(sys.argv[3],'rb').read()
def half(bits):  # f16 bits -> Fraction
    s=-1 if bits>>15 else 1; e=(bits>>10)&31; m=bits&1023
    if e==0: return s*F(m,1<<24)
    return s*F(1024+m, 1<<(25-e)) if e<25 else s*F((1024+m)*(1<<(e-25)))
def bf16(bits):
    return f32(bits<<16)
def f32(bits):
    s=-1 if bits>>31 else 1; e=(bits>>23)&255; m=bits&((1<<23)-1)
    if e==0: return s*F(m)/ (1<<149)
    v=F((1<<23)+m); ex=e-150
    return s*(v*(1<<ex) if ex>=0 else v/(1<<-ex))
def tf32(bits): return f32(bits & 0xffffe000)
ty = {'mma_f16':'f16','mma_bf16':'bf16','mma_tf32':'tf32'}[K]
dec = {'f16':half,'bf16':bf16,'tf32':tf32}[ty]
if ty in ('f16','bf16'):
    A = [dec(x) for x in struct.unpack('<%dH'%(len(bufs[0])//2), bufs[0])]
    B = [dec(x) for x in struct.unpack('<%dH'%(len(bufs[1])//2), bufs[1])]
else:
    A = [dec(x) for x in struct.unpack('<%dI'%(len(bufs[0])//4), bufs[0])]
    B = [dec(x) for x in struct.unpack('<%dI'%(len(bufs[1])//4), bufs[1])]
C = [f32(x) for x in struct.unpack('<%dI'%(len(bufs[2])//4), bufs[2])]
G = struct.unpack('<%dI'%(len(g)//4), g)
E = struct.unpack('<%dI'%(len(emu)//4), emu)
def a_elem(w, row, col):
    # find lane/reg holding A[row][col]
    if ty in ('f16','bf16'):
        gid = row % 8; hi_r = row >= 8; hi_c = col >= 8; c = col % 8; tig = c // 2; lo = c % 2
        i = (2 if hi_r else 0) + (4 if hi_c else 0) + lo   # element index 0..7
        lane = gid*4 + tig
        t = w*32 + lane
        return A[t*8 + i]
    else:
        gid = row % 8; hi_r = row >= 8; hi_c = col >= 4; tig = col % 4
        reg = (1 if hi_r else 0) + (2 if hi_c else 0)
        t = w*32 + gid*4 + tig
        return A[t*4 + reg]
def b_elem(w, k, n):
    if ty in ('f16','bf16'):
        hi = k >= 8; kk = k % 8; tig = kk // 2; lo = kk % 2
        i = (2 if hi else 0) + lo
        t = w*32 + n*4 + tig
        return B[t*4 + i]
    else:
        hi = k >= 4; tig = k % 4
        t = w*32 + n*4 + tig
        return B[t*2 + (1 if hi else 0)]
KD = 16 if ty in ('f16','bf16') else 8
def terms(idx):
    t = idx // 4; r = idx % 4; w = t // 32; lane = t % 32
    gid = lane // 4; tig = lane % 4
    row = gid + (8 if r >= 2 else 0); col = tig*2 + (r & 1)
    return C[idx], [a_elem(w,row,k)*b_elem(w,k,col) for k in range(KD)]
def expo(x):
    x=abs(x); e = x.numerator.bit_length() - x.denominator.bit_length()
    if F(2)**e > x: e -= 1
    return e
def trunc_to(x, q):  # toward zero to multiple of q
    n = x / q
    n = math.floor(n) if n >= 0 else math.ceil(n)
    return n * q
def round32(x, mode):
    if x == 0: return x
    e = expo(x); q = F(2)**(e-23)
    if mode == 'rz': return trunc_to(x, q)
    n = x / q; fl = math.floor(n); r = n - fl
    if r > F(1,2) or (r == F(1,2) and fl % 2 == 1): fl += 1
    return fl * q
def bits32(x):
    if x == 0: return 0
    s = 0x80000000 if x < 0 else 0; x = abs(x); e = expo(x)
    m = x / F(2)**e  # in [1,2)
    return s | ((e+127) << 23) | int((m - 1) * (1 << 23))
def model(c, ps, group, p, mode):
    acc = c
    for i in range(0, len(ps), group):
        ts = [acc] + ps[i:i+group]
        nz = [t for t in ts if t != 0]
        if not nz: acc = F(0); continue
        Emax = max(expo(t) for t in nz)
        q = F(2)**(Emax - p + 1) if p else None
        s = sum(trunc_to(t, q) for t in ts) if p else sum(ts)
        acc = round32(s, mode)
    return acc
hyps = {}
for group in (4, 8, 16):
  if group > KD: continue
  for p in (0, 24, 25, 26, 27, 28):
    for mode in ('rn','rz'):
        hyps[(group,p,mode)] = 0
hyps['seq-fma-rn'] = 0
idxs = range(0, min(N, len(G)))
emu_match = 0
for idx in idxs:
    c, ps = terms(idx)
    gbits = G[idx]
    if E[idx] == gbits: emu_match += 1
    for h in hyps:
        if h == 'seq-fma-rn':
            acc = c
            for pp in ps: acc = round32(acc + pp, 'rn')
            v = acc
        else:
            v = model(c, ps, *h)
        if bits32(v) == gbits: hyps[h] += 1
n = len(idxs)
print(K, 'emulator matches', emu_match, '/', n)
for h,v in sorted(hyps.items(), key=lambda kv: -kv[1])[:8]:
    print('  ', h, v, '/', n)
