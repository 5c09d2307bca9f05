#!/usr/bin/env python3
"""Generates random, well-formed PTX kernels that exercise the SASS instruction families ptxas
emits, so that the operand tables (learn_tables.py) are learned — and checked — beyond the bench
corpus. Deterministic: the same seed and target give the same PTX.

    gen_ptx.py --seed N --target sm_80|sm_90|sm_90a [--kernels K] -o OUT.ptx
    gen_ptx.py --build DIR --seeds A-B --ptxas PTXAS [--archs sm_80,sm_86,...]

`--build` writes the PTX of every seed in A..B and compiles it with ptxas for every arch
(sm_80/86/89 from the sm_80 PTX, sm_90 and sm_90a from their own): DIR/g<seed>.O<n>.<arch>.cubin.
The ptxas options vary with the seed (-O0..-O3 by seed % 4; -maxrregcount none/32/64/128 by
seed // 4 % 4; relocatable `-c` when seed % 5 == 2, which keeps the `.visible` functions as
standalone functions; device debug `-g` when seed % 8 == 4), so a range of seeds covers every
optimisation level and register limit. Seeds 1-999 are the learning seeds (learn_tables.py);
1000 and up are holdout seeds (tests/sass_holdout.rs).

Each kernel is a random sequence of snippets over pools of live values (b32, b64, f32, f64,
f16x2/bf16x2 in b32, predicates), each value marked uniform (derived only from parameters,
%ctaid, %ntid and loop counters) or not. Uniform values feed the uniform datapath (UIMAD.WIDE,
ULEA, UISETP with immediates, UPLOP3, USEL, UMOV, …), in particular loop-invariant 64-bit
address arithmetic inside loops bounded by a parameter. Families: integer (add/sub/mul/mad,
.hi/.wide, carries, shifts, funnel shifts, bfe/bfi/prmt/brev/popc/clz/bfind, dp4a/dp2a, sad,
min/max, lop3), float and double (rounding modes, .ftz/.sat, approximate transcendentals,
compares, conversions), half and bfloat16 pairs (HADD2/HFMA2/HMNMX2/HSET2/HSETP2, F2FP),
predicates (setp with combining operations, and/or/xor/not), memory (global/shared/local loads
and stores of every width, .nc, volatile, atomics and reductions in global and shared memory),
warp operations (shfl, vote, match, redux, activemask), barriers and fences, and tensor cores:
mma.sync (f16, bf16, tf32, s8, f64), ldmatrix, cp.async with commit/wait groups, mbarriers;
on sm_90: stmatrix, elect, cluster special registers; on sm_90a: wgmma and
cp.async.bulk(.tensor); forms other compilers' PTX reaches (saturating adds, scalar f16
min/max/set, video shifts, barriers with a register id or thread count, textures and surfaces,
calls to the program's functions with early returns, relative and absolute calls). Every
kernel ends with Triton's address arithmetic (`triton_addressing`), a few rare modifier and
operand combinations (`rare_forms`) and the forms the Triton suite reached beyond those
(`extra_forms`: adds fused into min/max, sm_90a's integer and fp8 wgmma), each drawn from a
generator of its own so the rest of the program does not change with it. Every result is stored to global
memory so nothing is dead.
"""
import argparse
import os
import random
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

CMP_I = ["eq", "ne", "lt", "le", "gt", "ge"]
CMP_U = ["eq", "ne", "lo", "ls", "hi", "hs"]
CMP_F = ["eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"]
BOOL = ["and", "or", "xor"]


class Kernel:
    def __init__(self, rng, target, name):
        self.rng = rng
        self.target = target
        self.sm = int(target[3:5])
        self.name = name
        self.n = {"r": 0, "rd": 0, "f": 0, "fd": 0, "p": 0, "h": 0}
        self.body = []
        # pools: kind -> list of (name, uniform)
        self.pool = {"b32": [], "b64": [], "f32": [], "f64": [], "h2": [], "pred": []}
        self.stores = 0
        self.labels = 0
        # the program's functions (see `functions`): a .func with early returns, a .visible one
        self.functions = ("%s_f" % name.split("_")[0], "%s_vf" % name.split("_")[0])

    # -- registers ---------------------------------------------------------------------------
    def new(self, kind):
        pre = {"b32": "r", "h2": "r", "b64": "rd", "f32": "f", "f64": "fd", "pred": "p",
               "b16": "h"}[kind]
        self.n[pre] += 1
        return "%%%s%d" % (pre, self.n[pre])

    def emit(self, s):
        self.body.append("\t" + s)

    def pick(self, kind, uniform=None):
        c = [v for v in self.pool[kind] if uniform is None or v[1] == uniform]
        if not c:
            return None
        # prefer recent values, so that chains form
        return self.rng.choice(c[-8:] if self.rng.random() < 0.7 else c)[0]

    def put(self, kind, name, uniform):
        self.pool[kind].append((name, uniform))
        return name

    def imm32(self):
        return self.rng.choice([str(self.rng.randint(1, 31)), str(self.rng.randint(32, 4095)),
                                "0x%x" % self.rng.getrandbits(32), str(-self.rng.randint(1, 200))])

    def any_b32(self, uniform=None):
        v = self.pick("b32", uniform)
        return v if v else self.pick("b32")

    def operand(self, uniform, imm_ok=True):
        if imm_ok and self.rng.random() < 0.3:
            return self.imm32()
        return self.any_b32(uniform)

    def uni(self):
        """Whether the next snippet works on uniform values only."""
        return self.rng.random() < 0.45

    # -- snippets ---------------------------------------------------------------------------
    def s_int(self):
        r, u = self.rng, self.uni()
        a, b, c = self.any_b32(u), self.operand(u), self.any_b32(u)
        d = self.new("b32")
        t = r.choice(["u32", "s32"])
        op = r.choice(["add", "sub", "mul.lo", "mul.hi", "mad.lo", "mad.hi", "and", "or", "xor",
                       "shl", "shr", "min", "max", "mul24.lo", "mad24.lo", "sad", "rem", "div",
                       "not", "neg", "abs", "popc", "clz", "brev", "bfind", "bfind.shiftamt",
                       "cnot", "selp", "prmt", "bfe", "bfi", "shf", "lop3", "dp4a", "dp2a",
                       "addc", "mul.wide", "cvt.pack", "f2i16", "call"] + (["min.relu", "max.relu"] if self.sm >= 90 else []))
        if op in ("and", "or", "xor", "not", "cnot", "popc", "clz", "brev"):
            t = "b32"
        if op == "shl":
            t = "b32"
            b = self.rng.choice([str(r.randint(1, 31)), self.any_b32(u)])
        if op == "shr":
            b = self.rng.choice([str(r.randint(1, 31)), self.any_b32(u)])
        if op in ("mul.lo", "mul.hi", "add", "sub", "min", "max", "and", "or", "xor", "mul24.lo",
                  "rem", "div"):
            if op in ("rem", "div"):
                b = self.rng.choice([str(r.choice([3, 7, 10, 16, 100])), self.any_b32(True)])
            self.emit("%s.%s %s, %s, %s;" % (op, t, d, a, b))
        elif op in ("min.relu", "max.relu"):
            self.emit("%s.s32 %s, %s, %s;" % (op, d, a, b))
        elif op in ("mad.lo", "mad.hi", "mad24.lo", "sad"):
            self.emit("%s.%s %s, %s, %s, %s;" % (op, t, d, a, b, c))
        elif op in ("not", "cnot", "popc", "clz", "brev"):
            self.emit("%s.%s %s, %s;" % (op, t, d, a))
        elif op in ("neg", "abs"):
            self.emit("%s.s32 %s, %s;" % (op, d, a))
        elif op.startswith("bfind"):
            self.emit("%s.%s %s, %s;" % (op, t, d, a))
        elif op == "selp":
            p = self.pick("pred", u) or self.pick("pred")
            if p is None:
                return
            self.emit("selp.b32 %s, %s, %s, %s;" % (d, a, b, p))
        elif op == "prmt":
            mode = r.choice(["", ".f4e", ".b4e", ".rc8", ".ecl", ".ecr", ".rc16"])
            self.emit("prmt.b32%s %s, %s, %s, %s;" % (mode, d, a, self.any_b32(u),
                                                      "0x%04x" % r.getrandbits(16) if not mode or r.random() < 0.5 else c))
        elif op == "bfe":
            self.emit("bfe.%s %s, %s, %s, %s;" % (t, d, a, r.choice([str(r.randint(0, 24)), c]),
                                                  r.choice([str(r.randint(1, 8)), self.any_b32(u)])))
        elif op == "bfi":
            self.emit("bfi.b32 %s, %s, %s, %s, %s;" % (d, a, c, r.choice([str(r.randint(0, 24)), self.any_b32(u)]),
                                                       str(r.randint(1, 8))))
        elif op == "shf":
            self.emit("shf.%s.%s.b32 %s, %s, %s, %s;" % (r.choice("lr"), r.choice(["wrap", "clamp"]),
                                                         d, a, c, r.choice([str(r.randint(1, 31)), self.any_b32(u)])))
        elif op == "lop3":
            self.emit("lop3.b32 %s, %s, %s, %s, 0x%02x;" % (d, a, self.any_b32(u), c, r.getrandbits(8)))
        elif op in ("dp4a", "dp2a"):
            ta, tb = r.choice(["u32", "s32"]), r.choice(["u32", "s32"])
            mode = "." + r.choice(["lo", "hi"]) if op == "dp2a" else ""
            self.emit("%s%s.%s.%s %s, %s, %s, %s;" % (op, mode, ta, tb, d, a, self.any_b32(u), c))
        elif op == "addc":
            d2 = self.new("b32")
            self.emit("add.cc.u32 %s, %s, %s;" % (d, a, b))
            self.emit("addc.cc.u32 %s, %s, %s;" % (d2, c, self.operand(u)))
            e = self.new("b32")
            self.emit("addc.u32 %s, %s, 0;" % (e, a))
            self.put("b32", d2, u)
            self.put("b32", e, u)
        elif op == "cvt.pack":
            t8 = r.choice(["s8", "u8", "s16", "u16"])
            if t8.endswith("8"):
                self.emit("cvt.pack.sat.%s.s32.b32 %s, %s, %s, %s;" % (t8, d, a, self.any_b32(u), c))
            else:
                self.emit("cvt.pack.sat.%s.s32 %s, %s, %s;" % (t8, d, a, self.any_b32(u)))
        elif op == "f2i16":
            f = self.pick("f32")
            if f is None:
                return
            h = self.new("b16")
            self.emit("cvt.r%si.%s.f32 %s, %s;" % (r.choice("nzmp"), r.choice(["u16", "s16", "u8", "s8"]), h, f))
            self.emit("cvt.u32.u16 %s, %s;" % (d, h))
        elif op == "call":
            if r.random() < 0.7:
                return
            fmt = self.new("b64")
            self.emit("cvta.global.u64 %s, fmtstr;" % fmt)
            self.emit("{")
            self.emit(".param .b64 pa0; .param .b64 pa1; .param .b32 rv;")
            self.emit("st.param.b64 [pa0], %s;" % fmt)
            self.emit("st.param.b64 [pa1], 0;")
            self.emit("call.uni (rv), vprintf, (pa0, pa1);")
            self.emit("ld.param.b32 %s, [rv];" % d)
            self.emit("}")
        elif op == "mul.wide":
            d64 = self.new("b64")
            self.emit("mul.wide.%s %s, %s, %s;" % (t, d64, a, b))
            self.put("b64", d64, u)
            return
        self.put("b32", d, u)

    def s_int64(self):
        r, u = self.rng, self.uni()
        a = self.pick("b64", u) or self.pick("b64")
        a32 = self.any_b32(u)
        d = self.new("b64")
        op = r.choice(["add", "sub", "mul.lo", "shl", "shr", "and", "or", "xor", "mad.wide",
                       "cvt.u", "cvt.s", "min", "max", "mul.hi", "mad.lo", "lea", "mov.pack",
                       "mov.unpack", "neg", "popc", "clz", "brev"])
        if op in ("add", "sub", "and", "or", "xor", "min", "max", "mul.lo", "mul.hi"):
            b = r.choice([self.pick("b64", u) or a, str(r.randint(1, 1 << 20))])
            t = {"and": "b64", "or": "b64", "xor": "b64"}.get(op, r.choice(["u64", "s64"]))
            self.emit("%s.%s %s, %s, %s;" % (op, t, d, a, b))
        elif op in ("shl", "shr"):
            t = "b64" if op == "shl" else r.choice(["u64", "s64"])
            self.emit("%s.%s %s, %s, %s;" % (op, t, d, a, r.choice([str(r.randint(1, 63)), a32])))
        elif op == "mad.wide":
            self.emit("mad.wide.%s %s, %s, %s, %s;" % (r.choice(["u32", "s32"]), d, a32,
                                                       self.operand(u), a))
        elif op == "mad.lo":
            self.emit("mad.lo.u64 %s, %s, %s, %s;" % (d, a, self.pick("b64", u) or a, a))
        elif op == "cvt.u":
            self.emit("cvt.u64.u32 %s, %s;" % (d, a32))
        elif op == "cvt.s":
            self.emit("cvt.s64.s32 %s, %s;" % (d, a32))
        elif op == "lea":
            t = self.new("b64")
            self.emit("mul.wide.u32 %s, %s, %d;" % (t, a32, r.choice([2, 4, 8, 16, 32])))
            self.emit("add.s64 %s, %s, %s;" % (d, a, t))
        elif op == "mov.pack":
            self.emit("mov.b64 %s, {%s, %s};" % (d, a32, self.any_b32(u)))
        elif op == "mov.unpack":
            x, y = self.new("b32"), self.new("b32")
            self.emit("mov.b64 {%s, %s}, %s;" % (x, y, a))
            self.put("b32", x, u)
            self.put("b32", y, u)
            return
        elif op == "neg":
            self.emit("neg.s64 %s, %s;" % (d, a))
        elif op in ("popc", "clz", "brev"):
            if op == "brev":
                self.emit("brev.b64 %s, %s;" % (d, a))
            else:
                x = self.new("b32")
                self.emit("%s.b64 %s, %s;" % (op, x, a))
                self.put("b32", x, u)
                return
        self.put("b64", d, u)

    def s_setp(self):
        r, u = self.rng, self.uni()
        p = self.new("pred")
        kind = r.choice(["i", "i", "u", "f", "f64", "i64", "comb", "logic", "h2"])
        comb = ""
        if r.random() < 0.3 and self.pick("pred", u):
            comb = ".%s" % r.choice(BOOL)
        q = (", %s%s" % ("!" if r.random() < 0.3 else "", self.pick("pred", u))) if comb else ""
        if kind in ("i", "u"):
            cmp_ = r.choice(CMP_I if kind == "i" else CMP_U)
            t = "s32" if kind == "i" else "u32"
            self.emit("setp.%s%s.%s %s, %s, %s%s;" % (cmp_, comb, t, p, self.any_b32(u),
                                                      self.operand(u), q))
        elif kind == "i64":
            a = self.pick("b64", u) or self.pick("b64")
            self.emit("setp.%s.%s %s, %s, %s;" % (r.choice(CMP_U), "u64", p, a,
                                                  r.choice([self.pick("b64") or a, str(r.randint(0, 9999))])))
        elif kind == "f":
            a = self.pick("f32")
            if a is None:
                return
            b = r.choice([self.pick("f32"), "0f3F000000", "0f00000000"])
            ftz = ".ftz" if r.random() < 0.3 else ""
            self.emit("setp.%s%s%s.f32 %s, %s, %s%s;" % (r.choice(CMP_F), comb, ftz, p, a, b, q))
            u = False
        elif kind == "f64":
            a = self.pick("f64")
            if a is None:
                return
            self.emit("setp.%s.f64 %s, %s, %s;" % (r.choice(CMP_F), p, a,
                                                   r.choice([self.pick("f64"), "0d3FE0000000000000"])))
            u = False
        elif kind == "h2":
            a = self.pick("h2")
            if a is None:
                return
            p2 = self.new("pred")
            t = r.choice(["f16x2", "bf16x2"]) if self.sm >= 90 else "f16x2"
            self.emit("setp.%s.%s %s|%s, %s, %s;" % (r.choice(CMP_F[:12]), t, p, p2, a,
                                                     self.pick("h2")))
            self.put("pred", p2, False)
            u = False
        elif kind == "comb":
            a, b = self.pick("pred", u), self.pick("pred", u)
            if a is None or b is None:
                return
            self.emit("%s.pred %s, %s, %s;" % (r.choice(BOOL), p, a, b))
        else:
            a = self.pick("pred", u)
            if a is None:
                return
            self.emit("not.pred %s, %s;" % (p, a))
        self.put("pred", p, u)

    def s_float(self):
        r = self.rng
        a, b, c = self.pick("f32"), self.pick("f32"), self.pick("f32")
        if a is None:
            return
        d = self.new("f32")
        rnd = r.choice(["rn", "rz", "rm", "rp"])
        ftz = ".ftz" if r.random() < 0.3 else ""
        sat = ".sat" if r.random() < 0.15 else ""
        imm = r.choice([b, "0f3F800000", "0f40490FDB", "0fC1200000"])
        op = r.choice(["add", "sub", "mul", "fma", "min", "max", "abs", "neg", "rcp", "sqrt",
                       "rsqrt", "ex2", "lg2", "sin", "cos", "tanh", "div", "frnd", "i2f", "f2i",
                       "selp", "copysign", "testp", "mov.b32", "cvt.f64", "min.nan"])
        if op in ("add", "sub", "mul"):
            self.emit("%s.%s%s%s.f32 %s, %s, %s;" % (op, rnd, ftz, sat, d, a, imm))
        elif op == "fma":
            self.emit("fma.%s%s%s.f32 %s, %s, %s, %s;" % (rnd, ftz, sat, d, a, imm, c))
        elif op in ("min", "max"):
            self.emit("%s%s.f32 %s, %s, %s;" % (op, ftz, d, a, imm))
        elif op == "min.nan":
            self.emit("%s.NaN.f32 %s, %s, %s;" % (r.choice(["min", "max"]), d, a, b))
        elif op in ("abs", "neg"):
            self.emit("%s%s.f32 %s, %s;" % (op, ftz, d, a))
        elif op in ("rcp", "sqrt"):
            self.emit("%s.%s%s.f32 %s, %s;" % (op, r.choice(["approx", rnd]), ftz, d, a))
        elif op in ("rsqrt", "ex2", "lg2", "sin", "cos"):
            self.emit("%s.approx%s.f32 %s, %s;" % (op, ".ftz" if op != "rsqrt" or ftz else "", d, a))
        elif op == "tanh":
            self.emit("tanh.approx.f32 %s, %s;" % (d, a))
        elif op == "div":
            self.emit("div.%s%s.f32 %s, %s, %s;" % (r.choice(["approx", "full", rnd]), ftz, d, a, b))
        elif op == "frnd":
            self.emit("cvt.%si%s.f32.f32 %s, %s;" % (rnd, ftz, d, a))
        elif op == "i2f":
            src_t = r.choice(["s32", "u32", "s64", "u64", "s16", "u8"])
            src = self.pick("b64") if src_t.endswith("64") else self.any_b32()
            if src_t in ("s16", "u8"):
                h = self.new("b16")
                self.emit("cvt.u16.u32 %s, %s;" % (h, self.any_b32()))
                src = h
            self.emit("cvt.%s.f32.%s %s, %s;" % (rnd, src_t, d, src))
        elif op == "f2i":
            t = r.choice(["s32", "u32", "s64", "u64"])
            x = self.new("b64" if t.endswith("64") else "b32")
            self.emit("cvt.%si%s.%s.f32 %s, %s;" % (rnd, ftz, t, x, a))
            self.put("b64" if t.endswith("64") else "b32", x, False)
            return
        elif op == "selp":
            p = self.pick("pred")
            if p is None:
                return
            self.emit("selp.f32 %s, %s, %s, %s;" % (d, a, imm, p))
        elif op == "copysign":
            self.emit("copysign.f32 %s, %s, %s;" % (d, a, b))
        elif op == "testp":
            p = self.new("pred")
            self.emit("testp.%s.f32 %s, %s;" % (r.choice(["finite", "infinite", "number", "notanumber",
                                                          "normal", "subnormal"]), p, a))
            self.put("pred", p, False)
            return
        elif op == "mov.b32":
            x = self.new("b32")
            self.emit("mov.b32 %s, %s;" % (x, a))
            self.put("b32", x, False)
            return
        elif op == "cvt.f64":
            x = self.new("f64")
            self.emit("cvt.f64.f32 %s, %s;" % (x, a))
            self.put("f64", x, False)
            return
        self.put("f32", d, False)

    def s_double(self):
        r = self.rng
        a, b = self.pick("f64"), self.pick("f64")
        if a is None:
            x = self.new("f64")
            self.emit("cvt.rn.f64.s32 %s, %s;" % (x, self.any_b32()))
            self.put("f64", x, False)
            return
        d = self.new("f64")
        rnd = r.choice(["rn", "rz", "rm", "rp"])
        op = r.choice(["add", "mul", "fma", "min", "max", "neg", "abs", "cvt.f32", "cvt.i", "rcp",
                       "sqrt", "div", "frnd", "mov.split"])
        imm = r.choice([b, "0d4000000000000000"])
        if op in ("add", "mul"):
            self.emit("%s.%s.f64 %s, %s, %s;" % (op, rnd, d, a, imm))
        elif op == "fma":
            self.emit("fma.%s.f64 %s, %s, %s, %s;" % (rnd, d, a, imm, b))
        elif op in ("min", "max"):
            self.emit("%s.f64 %s, %s, %s;" % (op, d, a, b))
        elif op in ("neg", "abs"):
            self.emit("%s.f64 %s, %s;" % (op, d, a))
        elif op == "cvt.f32":
            x = self.new("f32")
            self.emit("cvt.%s.f32.f64 %s, %s;" % (rnd, x, a))
            self.put("f32", x, False)
            return
        elif op == "cvt.i":
            t = r.choice(["s32", "u32", "s64"])
            x = self.new("b64" if t.endswith("64") else "b32")
            self.emit("cvt.%si.%s.f64 %s, %s;" % (rnd, t, x, a))
            self.put("b64" if t.endswith("64") else "b32", x, False)
            return
        elif op == "rcp":
            self.emit("rcp.%s.f64 %s, %s;" % (r.choice(["rn", "approx.ftz"]), d, a))
        elif op == "sqrt":
            self.emit("sqrt.rn.f64 %s, %s;" % (d, a))
        elif op == "div":
            self.emit("div.rn.f64 %s, %s, %s;" % (d, a, b))
        elif op == "frnd":
            self.emit("cvt.%si.f64.f64 %s, %s;" % (rnd, d, a))
        elif op == "mov.split":
            x, y = self.new("b32"), self.new("b32")
            self.emit("mov.b64 {%s, %s}, %s;" % (x, y, a))
            self.put("b32", x, False)
            self.put("b32", y, False)
            return
        self.put("f64", d, False)

    def s_half(self):
        r = self.rng
        a, b, c = self.pick("h2"), self.pick("h2"), self.pick("h2")
        if a is None or r.random() < 0.2:
            f1, f2 = self.pick("f32"), self.pick("f32")
            if f1 is None:
                return
            d = self.new("h2")
            self.emit("cvt.rn%s.%s.f32 %s, %s, %s;" % (r.choice(["", ".relu"]),
                                                       r.choice(["f16x2", "bf16x2"]), d, f1, f2))
            self.put("h2", d, False)
            return
        d = self.new("h2")
        t = r.choice(["f16x2", "f16x2", "bf16x2"])
        if self.sm >= 90 and r.random() < 0.15:
            f1, f2 = self.pick("f32"), self.pick("f32")
            if f1 is None:
                return
            h = self.new("b16")
            e = r.choice(["e4m3x2", "e5m2x2"])
            if r.random() < 0.5:
                self.emit("cvt.rn.satfinite.%s.f32 %s, %s, %s;" % (e, h, f1, f2))
            else:
                self.emit("cvt.rn.satfinite.%s.f16x2 %s, %s;" % (e, h, a))
            self.emit("cvt.rn.f16x2.%s %s, %s;" % (e, d, h))
            self.put("h2", d, False)
            return
        op = r.choice(["add", "sub", "mul", "fma", "min", "max", "neg", "abs", "set", "unpack",
                       "cvt.f32", "ex2", "tanh", "fma.relu", "min.nan"])
        if op in ("add", "sub", "mul"):
            if t == "bf16x2":
                self.emit("fma.rn.bf16x2 %s, %s, %s, %s;" % (d, a, b, c))
            else:
                self.emit("%s%s%s.f16x2 %s, %s, %s;" % (op, r.choice([".rn", ""]),
                                                          r.choice(["", ".ftz", ".sat"]), d, a, b))
        elif op in ("fma", "fma.relu"):
            mod = ".rn" + (".relu" if op == "fma.relu" else r.choice(["", ".sat", ".ftz"]) if t == "f16x2" else "")
            self.emit("fma%s.%s %s, %s, %s, %s;" % (mod, t, d, a, b, c))
        elif op in ("min", "max"):
            self.emit("%s%s.%s %s, %s, %s;" % (op, "" if t == "bf16x2" else r.choice(["", ".ftz"]),
                                               t, d, a, b))
        elif op == "min.nan":
            self.emit("%s.NaN.%s %s, %s, %s;" % (r.choice(["min", "max"]), t, d, a, b))
        elif op in ("neg", "abs"):
            self.emit("%s.%s %s, %s;" % (op, t, d, a))
        elif op == "set":
            self.emit("set.%s.%s.f16x2 %s, %s, %s;" % (r.choice(CMP_F[:12]), r.choice(["u32", "f16x2"]),
                                                       d, a, b))
        elif op == "ex2":
            self.emit("ex2.approx.f16x2 %s, %s;" % (d, a))
        elif op == "tanh":
            self.emit("tanh.approx.f16x2 %s, %s;" % (d, a))
        elif op in ("unpack", "cvt.f32"):
            lo, hi = self.new("b16"), self.new("b16")
            self.emit("mov.b32 {%s, %s}, %s;" % (lo, hi, a))
            x = self.new("f32")
            src = r.choice(["f16", "bf16"]) if self.sm >= 90 else "f16"
            self.emit("cvt.f32.%s %s, %s;" % (src, x, r.choice([lo, hi])))
            self.put("f32", x, False)
            y = self.new("f64")
            self.emit("cvt.f64.f16 %s, %s;" % (y, lo))
            self.put("f64", y, False)
            return
        self.put("h2", d, False)

    def s_mem(self):
        r = self.rng
        kind = r.choice(["ldg", "ldg", "stg", "lds", "sts", "local", "atom", "atom", "red", "atoms", "ldc",
                         "generic", "generic"])
        u = self.uni()
        off = self.rng.choice([0, 4, 8, 16, 64, 256, 4096]) if kind in ("ldg", "stg") else 0
        if kind in ("ldg", "stg"):
            base = self.gaddr(u)
            w = r.choice(["u8", "s8", "u16", "s16", "u32", "u64", "v2.u32", "v4.u32", "v2.u64",
                          "f32", "v2.f32", "v4.f32", "f64"])
            cache = r.choice(["", "", ".nc", ".ca", ".cg", ".cs", ".lu", ".volatile", ".relaxed.gpu",
                              ".acquire.gpu"]) if kind == "ldg" else r.choice(["", ".wb", ".cg", ".cs", ".wt",
                                                                              ".volatile", ".release.gpu"])
            if cache in (".volatile", ".relaxed.gpu", ".acquire.gpu", ".release.gpu") and "v" in w[:1]:
                cache = ""
            align = {"v2.u32": 8, "v4.u32": 16, "v2.u64": 16, "v2.f32": 8, "v4.f32": 16, "u64": 8, "f64": 8}
            off -= off % align.get(w, 1)
            self.mem_op(kind == "ldg", "global" + cache, w, base, off)
        elif kind in ("lds", "sts"):
            a = self.saddr()
            w = r.choice(["u8", "s16", "u32", "u64", "v2.u32", "v4.u32", "f32", "v2.f32"])
            self.mem_op(kind == "lds", "shared", w, a, r.choice([0, 16, 128]))
        elif kind == "local":
            # a local array indexed at run time: STL/LDL
            w = r.choice(["u32", "u64", "v2.u32", "v4.u32", "u8", "u16"])
            idx = self.any_b32(False)
            i2 = self.new("b32")
            self.emit("and.b32 %s, %s, 15;" % (i2, idx))
            a = self.new("b32")
            self.emit("mov.u32 %s, lmem;" % a)
            self.emit("mad.lo.u32 %s, %s, 16, %s;" % (a, i2, a))
            self.mem_op(False, "local", w, a, 0)
            j = self.new("b32")
            self.emit("and.b32 %s, %s, 7;" % (j, self.any_b32(False)))
            b = self.new("b32")
            self.emit("mov.u32 %s, lmem;" % b)
            self.emit("mad.lo.u32 %s, %s, 16, %s;" % (b, j, b))
            self.mem_op(True, "local", w, b, 0)
        elif kind in ("atom", "red", "atoms"):
            sp = "shared" if kind == "atoms" else "global"
            a = self.saddr() if sp == "shared" else self.gaddr(u)
            op, t = r.choice([("add", "u32"), ("add", "s32"), ("add", "f32"), ("add", "u64"), ("exch", "b32"),
                              ("cas", "b32"), ("cas", "b64"), ("min", "s32"), ("max", "u32"), ("and", "b32"),
                              ("or", "b32"), ("xor", "b32"), ("inc", "u32"), ("dec", "u32"), ("add", "f64"),
                              ("min", "u64"), ("max", "s64"), ("exch", "b64"), ("and", "b64")])
            if sp == "shared" and t in ("f64", "f16x2"):
                t = "f32"
            sem = r.choice(["", "", ".relaxed.gpu", ".acq_rel.gpu", ".sys", ".cta"]) if t != "f16x2" else ""
            is64 = t.endswith("64")
            if t == "f32":
                src = self.pick("f32")
                d = self.new("f32")
            elif t == "f64":
                src = self.pick("f64")
                d = self.new("f64")
            else:
                src = self.pick("b64") if is64 else self.any_b32()
                d = self.new("b64" if is64 else "b32")
            if src is None:
                return
            if kind == "red" and op != "cas" and op != "exch":
                sem = sem.replace(".acq_rel", ".release")
                self.emit("red%s.%s.%s.%s [%s], %s;" % (sem, sp, op, t, a, src))
                return
            if op == "cas":
                self.emit("atom%s.%s.cas.%s %s, [%s], %s, %s;" % (sem, sp, t, d, a, src, src))
            else:
                self.emit("atom%s.%s.%s.%s %s, [%s], %s;" % (sem, sp, op, t, d, a, src))
            kindn = {"f32": "f32", "f64": "f64"}.get(t, "b64" if is64 else "b32")
            self.put(kindn, d, False)
        elif kind == "generic":
            # generic addressing (LD/ST/ATOM without .global): the global address made generic
            g = self.gaddr(u)
            a = self.new("b64")
            self.emit("cvta.global.u64 %s, %s;" % (a, g))
            if r.random() < 0.3:
                op, t = r.choice([("cas", "b32"), ("inc", "u32"), ("add", "u32"), ("exch", "b64"), ("add", "f32")])
                d = self.new({"b64": "b64", "f32": "f32"}.get(t, "b32"))
                src = {"b64": self.pick("b64"), "f32": self.pick("f32")}.get(t) or self.any_b32()
                extra = ", %s" % src if op == "cas" else ""
                self.emit("atom%s.%s.%s %s, [%s], %s%s;" % (r.choice(["", ".relaxed.gpu", ".acq_rel.gpu"]), op, t,
                                                            d, a, src, extra))
                self.put({"b64": "b64", "f32": "f32"}.get(t, "b32"), d, False)
                return
            w = r.choice(["u8", "s16", "u16", "u32", "u64", "v2.u32", "v4.u32", "f32", "v2.u64"])
            cache = r.choice(["", "", ".volatile", ".relaxed.gpu", ".acquire.gpu", ".relaxed.sys"])
            if w.startswith("v") and cache not in ("", ".volatile"):
                cache = ""
            align = {"v2.u32": 8, "v4.u32": 16, "v2.u64": 16, "u64": 8}
            if r.random() < 0.5:
                self.mem_op(True, cache[1:] if cache else "", w, a, 0)
            else:
                self.mem_op(False, cache.replace("acquire", "release")[1:] if cache else "", w, a,
                            align.get(w, 4) * r.randint(0, 4))
        elif kind == "ldc":
            d = self.new("b32")
            self.emit("ld.const.u32 %s, [cdata+%d];" % (d, 4 * r.randint(0, 15)))
            self.put("b32", d, True)

    def mem_op(self, load, space, w, addr, off):
        vec = 1
        t = w
        if w.startswith("v"):
            vec, t = int(w[1]), w[3:]
        kind = {"f32": "f32", "f64": "f64", "u64": "b64"}.get(t, "b32")
        reg_t = {"u8": "b16", "s8": "b16", "u16": "b16", "s16": "b16"}.get(t)
        if load:
            regs = [self.new(kind if not reg_t else "b32") for _ in range(vec)]
            t2 = t
            if reg_t:
                t2 = t  # loading a byte or half into a 32-bit register widens it
            op = "ld.%s.%s" % (space, (("v%d." % vec) if vec > 1 else "") + t2)
            op = op.replace("..", ".")
            dst = regs[0] if vec == 1 else "{%s}" % ", ".join(regs)
            self.emit("%s %s, [%s+%d];" % (op, dst, addr, off))
            for x in regs:
                self.put(kind if not reg_t else "b32", x, False)
        else:
            srcs = []
            for _ in range(vec):
                if reg_t:
                    s = self.any_b32()
                elif kind == "b32":
                    s = self.any_b32()
                else:
                    s = self.pick(kind)
                if s is None:
                    return
                srcs.append(s)
            op = "st.%s.%s" % (space, (("v%d." % vec) if vec > 1 else "") + t)
            op = op.replace("..", ".")
            src = srcs[0] if vec == 1 else "{%s}" % ", ".join(srcs)
            self.emit("%s [%s+%d], %s;" % (op, addr, off, src))

    def gaddr(self, u):
        """A global address: the input buffer plus a (uniform or per-thread) offset."""
        r = self.rng
        idx = self.any_b32(u)
        m = self.new("b32")
        self.emit("and.b32 %s, %s, %d;" % (m, idx, r.choice([63, 255, 1023])))
        off = self.new("b64")
        self.emit("mul.wide.u32 %s, %s, %d;" % (off, m, r.choice([4, 8, 16])))
        a = self.new("b64")
        self.emit("add.s64 %s, %s, %s;" % (a, r.choice(["%rd_in", "%rd_out"]), off))
        return a

    def saddr(self):
        r = self.rng
        m = self.new("b32")
        self.emit("and.b32 %s, %s, %d;" % (m, self.any_b32(), r.choice([63, 127])))
        a = self.new("b32")
        self.emit("mov.u32 %s, smem;" % a)
        self.emit("mad.lo.u32 %s, %s, 16, %s;" % (a, m, a))
        return a

    def s_warp(self):
        r = self.rng
        op = r.choice(["shfl", "shfl", "vote", "ballot", "match", "redux", "activemask", "bar",
                       "barred", "fence", "nanosleep", "syncwarp", "clock", "laneid", "globaltimer"])
        d = self.new("b32")
        if op == "shfl":
            mode = r.choice(["up", "down", "bfly", "idx"])
            lane = r.choice([str(r.randint(0, 31)), self.any_b32()])
            c = r.choice(["0x1f", "0", "0x101f", self.any_b32()])
            p = self.new("pred")
            self.emit("shfl.sync.%s.b32 %s|%s, %s, %s, %s, 0xffffffff;" % (mode, d, p, self.any_b32(), lane, c))
            self.put("pred", p, False)
        elif op == "vote":
            p = self.pick("pred")
            if p is None:
                return
            q = self.new("pred")
            self.emit("vote.sync.%s.pred %s, %s, 0xffffffff;" % (r.choice(["all", "any", "uni"]), q, p))
            self.put("pred", q, False)
            return
        elif op == "ballot":
            p = self.pick("pred")
            if p is None:
                return
            self.emit("vote.sync.ballot.b32 %s, %s%s, 0xffffffff;" % (d, r.choice(["", "!"]), p))
        elif op == "match":
            if r.random() < 0.5:
                self.emit("match.any.sync.b32 %s, %s, 0xffffffff;" % (d, self.any_b32()))
            else:
                p = self.new("pred")
                self.emit("match.all.sync.b64 %s|%s, %s, 0xffffffff;" % (d, p, self.pick("b64")))
                self.put("pred", p, False)
        elif op == "redux":
            o, t = r.choice([("add", "u32"), ("add", "s32"), ("min", "u32"), ("max", "s32"),
                             ("and", "b32"), ("or", "b32"), ("xor", "b32")])
            self.emit("redux.sync.%s.%s %s, %s, 0xffffffff;" % (o, t, d, self.any_b32()))
        elif op == "activemask":
            self.emit("activemask.b32 %s;" % d)
        elif op == "bar":
            self.emit(r.choice(["bar.sync 0;", "barrier.sync 1, 64;", "bar.arrive 2, 32;",
                                "barrier.sync.aligned 0;"]))
            return
        elif op == "barred":
            p = self.pick("pred")
            if p is None:
                return
            if r.random() < 0.5:
                self.emit("bar.red.popc.u32 %s, 0, %s;" % (d, p))
            else:
                q = self.new("pred")
                self.emit("bar.red.%s.pred %s, 0, %s;" % (r.choice(["and", "or"]), q, p))
                self.put("pred", q, False)
                return
        elif op == "fence":
            self.emit(r.choice(["membar.gl;", "membar.cta;", "membar.sys;", "fence.acq_rel.gpu;",
                                "fence.sc.cta;", "fence.proxy.alias;", "fence.sc.sys;", "fence.sc.gpu;",
                                "fence.acq_rel.sys;"]))
            return
        elif op == "nanosleep":
            self.emit("nanosleep.u32 %s;" % r.choice(["100", self.any_b32()]))
            return
        elif op == "syncwarp":
            self.emit("bar.warp.sync 0xffffffff;")
            return
        elif op == "clock":
            x = self.new("b64")
            self.emit("mov.u64 %s, %%clock64;" % x)
            self.put("b64", x, False)
            self.emit("mov.u32 %s, %%clock;" % d)
        elif op == "laneid":
            self.emit("mov.u32 %s, %s;" % (d, r.choice(["%laneid", "%warpid", "%lanemask_lt",
                                                         "%nsmid", "%smid", "%lanemask_ge"])))
        elif op == "globaltimer":
            x = self.new("b64")
            self.emit("mov.u64 %s, %%globaltimer;" % x)
            self.put("b64", x, False)
            return
        self.put("b32", d, False)

    def s_tensor(self):
        r = self.rng
        kind = r.choice(["mma_f16", "mma_bf16", "mma_tf32", "mma_s8", "mma_f64", "mma_f16acc",
                         "mma_k8", "ldmatrix", "ldmatrix", "cp_async", "cp_async", "mbarrier",
                         "mma_s4", "mma_b1"] + (["stmatrix", "elect", "cluster"] if self.sm >= 90 else [])
                        + (["wgmma", "tma", "bulk"] if self.target == "sm_90a" else []))
        f = lambda k, n: [self.pick(k) or self.any_b32() for _ in range(n)]  # noqa: E731

        def b32s(n):
            return [self.any_b32() for _ in range(n)]

        def fs(n):
            out = []
            for _ in range(n):
                x = self.pick("f32")
                if x is None:
                    x = self.new("f32")
                    self.emit("mov.f32 %s, 0f3F800000;" % x)
                out.append(x)
            return out

        def dst(kind, n):
            return [self.new(kind) for _ in range(n)]

        def lst(xs):
            return "{%s}" % ", ".join(xs)

        if kind in ("mma_f16", "mma_bf16"):
            t = "f16" if kind == "mma_f16" else "bf16"
            d = dst("f32", 4)
            self.emit("mma.sync.aligned.m16n8k16.row.col.f32.%s.%s.f32 %s, %s, %s, %s;" % (
                t, t, lst(d), lst(b32s(4)), lst(b32s(2)), lst(fs(4))))
            for x in d:
                self.put("f32", x, False)
        elif kind == "mma_k8":
            d = dst("f32", 4)
            self.emit("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 %s, %s, %s, %s;" % (
                lst(d), lst(b32s(2)), lst(b32s(1)), lst(fs(4))))
            for x in d:
                self.put("f32", x, False)
        elif kind == "mma_f16acc":
            d = dst("b32", 2)
            self.emit("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 %s, %s, %s, %s;" % (
                lst(d), lst(b32s(4)), lst(b32s(2)), lst(b32s(2))))
            for x in d:
                self.put("h2", x, False)
        elif kind == "mma_tf32":
            d = dst("f32", 4)
            self.emit("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 %s, %s, %s, %s;" % (
                lst(d), lst(b32s(4)), lst(b32s(2)), lst(fs(4))))
            for x in d:
                self.put("f32", x, False)
        elif kind == "mma_s8":
            d = dst("b32", 4)
            sat = r.choice(["", ".satfinite"])
            self.emit("mma.sync.aligned.m16n8k32.row.col%s.s32.%s.%s.s32 %s, %s, %s, %s;" % (
                sat, r.choice(["s8", "u8"]), r.choice(["s8", "u8"]), lst(d), lst(b32s(4)), lst(b32s(2)), lst(b32s(4))))
            for x in d:
                self.put("b32", x, False)
        elif kind == "mma_s4":
            d = dst("b32", 4)
            self.emit("mma.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32 %s, %s, %s, %s;" % (
                lst(d), lst(b32s(4)), lst(b32s(2)), lst(b32s(4))))
            for x in d:
                self.put("b32", x, False)
        elif kind == "mma_b1":
            d = dst("b32", 4)
            self.emit("mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.%s.popc %s, %s, %s, %s;" % (
                r.choice(["and", "xor"]), lst(d), lst(b32s(4)), lst(b32s(2)), lst(b32s(4))))
            for x in d:
                self.put("b32", x, False)
        elif kind == "mma_f64":
            a, b = self.pick("f64"), self.pick("f64")
            if a is None:
                return
            d = dst("f64", 2)
            self.emit("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 %s, {%s}, {%s}, {%s, %s};" % (
                lst(d), a, b, a, b))
            for x in d:
                self.put("f64", x, False)
        elif kind == "ldmatrix":
            n = r.choice([1, 2, 4])
            d = dst("b32", n)
            self.emit("ldmatrix.sync.aligned.m8n8.x%d%s.shared.b16 %s, [%s];" % (
                n, r.choice(["", ".trans"]), lst(d), self.saddr()))
            for x in d:
                self.put("b32", x, False)
        elif kind == "stmatrix":
            n = r.choice([1, 2, 4])
            self.emit("stmatrix.sync.aligned.m8n8.x%d%s.shared.b16 [%s], %s;" % (
                n, r.choice(["", ".trans"]), self.saddr(), lst(b32s(n))))
        elif kind == "cp_async":
            sz = r.choice([4, 8, 16])
            g = self.gaddr(self.uni())
            cache = "cg" if sz == 16 and r.random() < 0.5 else "ca"
            extra = ""
            if r.random() < 0.3:
                extra = ", %s" % r.choice(["0", "4", self.any_b32()]) if sz == 4 else ", %d" % (sz // 2)
            self.emit("cp.async.%s.shared.global [%s], [%s], %d%s;" % (cache, self.saddr(), g, sz, extra))
            self.emit("cp.async.commit_group;")
            self.emit(r.choice(["cp.async.wait_group %d;" % r.randint(0, 3), "cp.async.wait_all;"]))
        elif kind == "mbarrier":
            a = self.saddr()
            self.emit("mbarrier.init.shared.b64 [%s], %d;" % (a, r.randint(1, 128)))
            st = self.new("b64")
            self.emit("mbarrier.arrive.shared.b64 %s, [%s];" % (st, a))
            p = self.new("pred")
            if self.sm >= 90 and r.random() < 0.5:
                self.emit("mbarrier.try_wait.shared.b64 %s, [%s], %s;" % (p, a, st))
            else:
                self.emit("mbarrier.test_wait.shared.b64 %s, [%s], %s;" % (p, a, st))
            if r.random() < 0.5:
                self.emit("cp.async.mbarrier.arrive.shared.b64 [%s];" % a)
            self.put("pred", p, False)
            self.put("b64", st, False)
        elif kind == "elect":
            d, p = self.new("b32"), self.new("pred")
            self.emit("elect.sync %s|%s, 0xffffffff;" % (d, p))
            self.put("b32", d, False)
            self.put("pred", p, False)
        elif kind == "cluster":
            d = self.new("b32")
            self.emit("mov.u32 %s, %s;" % (d, r.choice(["%cluster_ctarank", "%clusterid.x", "%cluster_nctarank",
                                                         "%cluster_ctaid.x"])))
            self.put("b32", d, True)
            if r.random() < 0.5:
                e = self.new("b32")
                self.emit("mapa.shared::cluster.u32 %s, %s, %s;" % (e, self.saddr(), d))
                self.put("b32", e, False)
        elif kind == "wgmma":
            da = self.pick("b64", True) or self.pick("b64")
            db = self.pick("b64", True) or self.pick("b64")
            n = r.choice([8, 8, 16, 32, 64])
            d = dst("f32", n // 2)
            for x, s in zip(d, fs(n // 2)):
                self.emit("mov.f32 %s, %s;" % (x, s))
            self.emit("wgmma.fence.sync.aligned;")
            ab = r.choice(["f16.f16", "bf16.bf16"])
            if r.random() < 0.3:
                # A from registers (four b32 per thread), B from a descriptor
                a = [self.any_b32() for _ in range(4)]
                self.emit("wgmma.mma_async.sync.aligned.m64n%dk16.f32.%s %s, {%s}, %s, 1, 1, 1, %d;" % (
                    n, ab, lst(d), ", ".join(a), db, r.randint(0, 1)))
            else:
                self.emit("wgmma.mma_async.sync.aligned.m64n%dk16.f32.%s %s, %s, %s, 1, 1, 1, %d, %d;" % (
                    n, ab, lst(d), da, db, r.randint(0, 1), r.randint(0, 1)))
            if r.random() < 0.5:
                # the next k step: descriptors advanced by constants; Triton's carry their
                # layout bits in the high word (both halves non-zero: `UIADD3.64`)
                da2, db2 = self.new("b64"), self.new("b64")
                self.emit("add.s64 %s, %s, %d;" % (da2, da, r.choice([2, 4, 0x80, 0x200, -9223371899415822334])))
                self.emit("add.s64 %s, %s, %d;" % (db2, db, r.choice([2, 4, 0x1fe, 0x202, 4611686293305294976])))
                self.emit("wgmma.mma_async.sync.aligned.m64n%dk16.f32.%s %s, %s, %s, 1, 1, 1, %d, %d;" % (
                    n, ab, lst(d), da2, db2, r.randint(0, 1), r.randint(0, 1)))
            self.emit("wgmma.commit_group.sync.aligned;")
            self.emit("wgmma.wait_group.sync.aligned %d;" % r.randint(0, 1))
            for x in d:
                self.put("f32", x, False)
        elif kind == "tma":
            a, m = self.saddr(), self.saddr()
            self.emit("mbarrier.init.shared.b64 [%s], 1;" % m)
            self.emit("fence.proxy.async.shared::cta;")
            self.emit("mbarrier.arrive.expect_tx.shared.b64 _, [%s], %d;" % (m, r.choice([256, 1024])))
            self.emit("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                      " [%s], [%%rd_tmap, {%s, %s}], [%s];" % (a, self.any_b32(True), self.any_b32(), m))
            p = self.new("pred")
            self.emit("mbarrier.try_wait.parity.shared.b64 %s, [%s], %d;" % (p, m, r.randint(0, 1)))
            self.put("pred", p, False)
            if r.random() < 0.5:
                self.emit("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%%rd_tmap, {%s, %s}], [%s];" % (
                    self.any_b32(), self.any_b32(True), a))
                self.emit("cp.async.bulk.commit_group;")
                self.emit("cp.async.bulk.wait_group.read %d;" % r.randint(0, 1))
        elif kind == "bulk":
            a, m = self.saddr(), self.saddr()
            g = self.gaddr(True)
            self.emit("mbarrier.init.shared.b64 [%s], 1;" % m)
            self.emit("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%s], [%s], %d, [%s];" % (
                a, g, r.choice([16, 256]), m))
            self.emit("cp.async.bulk.global.shared::cta.bulk_group [%s], [%s], %d;" % (g, a, 16 * r.randint(1, 8)))
            self.emit("cp.async.bulk.commit_group;")
            self.emit("cp.async.bulk.wait_group %d;" % r.randint(0, 1))

    def s_extra(self):
        """Forms other compilers' PTX reaches that the families above did not: saturating
        integer adds (PLOP3 on sign bits), scalar f16 min/max/set, video shifts, barriers with
        a register id or a thread count, textures and surfaces through a handle, and calls to
        the program's functions (`.visible`: CALL.ABS/RET.ABS; `.func` with early returns:
        guarded RET.REL)."""
        r, u = self.rng, self.uni()
        op = r.choice(["addsat", "half1", "vshift", "barreg", "tex", "tld", "surf", "callf",
                       "callv"])
        d = self.new("b32")
        a, b = self.any_b32(u), self.any_b32(u)
        if op == "addsat":
            self.emit("%s.sat.s32 %s, %s, %s;" % (r.choice(["add", "sub"]), d, a, self.operand(u)))
        elif op == "half1":
            x, y, z = self.new("b16"), self.new("b16"), self.new("b16")
            self.emit("mov.b32 {%s, %s}, %s;" % (x, y, a))
            form = r.choice(["min", "max", "min.NaN", "max.NaN", "set"])
            if form == "set":
                cmp = r.choice(CMP_F)
                if r.random() < 0.5:
                    self.emit("set.%s.u32.f16 %s, %s, %s;" % (cmp, d, x, y))
                else:
                    self.emit("set.%s.u32.f16x2 %s, %s, %s;" % (cmp, d, a, b))
                self.put("b32", d, u)
                return
            self.emit("%s.%sf16 %s, %s, %s;" % (form, r.choice(["", "ftz."]) if "NaN" not in form else "",
                                               z, x, y))
            self.emit("mov.b32 %s, {%s, %s};" % (d, z, x))
        elif op == "vshift":
            self.emit("%s.u32.u32.u32.%s.%s %s, %s, %s, %s;" % (
                r.choice(["vshr", "vshl"]), r.choice(["clamp", "wrap"]), r.choice(["add", "min", "max"]),
                d, a, r.choice([b, str(r.randint(0, 40))]), self.any_b32(u)))
        elif op == "barreg":
            idn = self.new("b32")
            self.emit("and.b32 %s, %s, 15;" % (idn, self.any_b32(True)))
            self.emit(r.choice(["bar.sync %s;" % idn, "bar.sync %s, 128;" % idn,
                                "bar.arrive %s, 64;" % idn, "bar.sync 3, 128;",
                                "barrier.sync %s, 96;" % idn]))
            return
        elif op in ("tex", "tld"):
            v = [self.new("f32") for _ in range(4)]
            dim = r.choice(["1d", "2d", "3d"])
            n = {"1d": 1, "2d": 2, "3d": 4}[dim]
            if op == "tex":
                cs = [self.pick("f32") or "%f_p" for _ in range(n)]
                ct = "f32"
            else:
                cs = [self.any_b32() for _ in range(n)]
                ct = "s32"
            handle = r.choice(["%rd_tmap", "tref"])
            if op == "tex" and r.random() < 0.3:
                self.emit("tex.level.%s.v4.f32.%s {%s}, [%s, {%s}], %s;" % (
                    dim, ct, ", ".join(v), handle, ", ".join(cs), cs[0]))
            else:
                self.emit("tex.%s.v4.f32.%s {%s}, [%s, {%s}];" % (
                    dim, ct, ", ".join(v), handle, ", ".join(cs)))
            # Two components (ptxas writes RZ and a write mask) or all four (two register
            # pairs, no mask: ZLUDA's texture tests)
            for x in (v if r.random() < 0.5 else v[:2]):
                self.put("f32", x, False)
            return
        elif op == "surf":
            x = self.any_b32()
            if r.random() < 0.5:
                self.emit("suld.b.1d.b32.%s {%s}, [%%rd_tmap, {%s}];" % (r.choice(["trap", "clamp", "zero"]), d, x))
            else:
                self.emit("sust.b.1d.b32.%s [%%rd_tmap, {%s}], {%s};" % (r.choice(["trap", "clamp", "zero"]), x, a))
                return
        elif op in ("callf", "callv"):
            fn = self.functions[0 if op == "callf" else 1]
            self.emit("{")
            self.emit(".param .b32 ca0; .param .b32 ca1; .param .b32 crv;")
            self.emit("st.param.b32 [ca0], %s;" % a)
            self.emit("st.param.b32 [ca1], %s;" % b)
            self.emit("call%s (crv), %s, (ca0, ca1);" % (r.choice(["", ".uni"]), fn))
            self.emit("ld.param.b32 %s, [crv];" % d)
            self.emit("}")
            u = False
        self.put("b32", d, u)

    def s_loop(self, depth):
        """A loop bounded by a parameter whose body does uniform 64-bit address arithmetic."""
        r = self.rng
        i = self.new("b32")
        self.labels += 1
        lbl = "L%d" % self.labels
        self.emit("mov.u32 %s, 0;" % i)
        acc = self.new("b32")
        facc = self.new("f32")
        self.emit("mov.u32 %s, 0;" % acc)
        self.emit("mov.f32 %s, 0f00000000;" % facc)
        self.body.append("%s:" % lbl)
        # loop-invariant and loop-variant uniform address math
        base = self.new("b64")
        stride = self.any_b32(True)
        self.emit("mul.wide.%s %s, %s, %s;" % (r.choice(["u32", "s32"]), base, stride, r.choice(["4", "8", "%r_m"])))
        j = self.new("b32")
        self.emit("mad.lo.u32 %s, %s, %s, %%r_cta;" % (j, i, r.choice(["%r_m", "3", "%r_n"])))
        k = self.new("b32")
        self.emit("and.b32 %s, %s, 1023;" % (k, j))
        o = self.new("b64")
        self.emit("mul.wide.u32 %s, %s, 4;" % (o, k))
        a = self.new("b64")
        self.emit("add.s64 %s, %%rd_in, %s;" % (a, o))
        v, fv = self.new("b32"), self.new("f32")
        self.emit("ld.global%s.u32 %s, [%s];" % (r.choice(["", ".nc"]), v, a))
        # a uniform 64-bit pointer advanced every iteration
        self.emit("add.s64 %%rd_ptr, %%rd_ptr, %s;" % r.choice(["64", "%rd_in", str(r.randint(1, 1 << 16))]))
        pv = self.new("b32")
        self.emit("and.b32 %s, %s, 4095;" % (pv, self.any_b32(True)))
        pa = self.new("b64")
        self.emit("mul.wide.u32 %s, %s, 4;" % (pa, pv))
        self.emit("add.s64 %s, %s, %%rd_in;" % (pa, pa))
        self.emit("st.global.u64 [%s], %%rd_ptr;" % pa)
        self.emit("ld.global.f32 %s, [%s+4];" % (fv, a))
        self.put("b32", i, True)
        self.put("b32", j, True)
        self.put("b64", base, True)
        self.put("b64", a, True)
        self.put("b32", v, False)
        self.put("f32", fv, False)
        saved = {k2: list(v2) for k2, v2 in self.pool.items()}
        for _ in range(r.randint(2, 8)):
            self.snippet(depth + 1)
        x = self.any_b32()
        self.emit("add.u32 %s, %s, %s;" % (acc, acc, x))
        fx = self.pick("f32") or fv
        self.emit("add.f32 %s, %s, %s;" % (facc, facc, fx))
        self.emit("add.u32 %s, %s, 1;" % (i, i))
        p = self.new("pred")
        self.emit("setp.%s.u32 %s, %s, %s;" % (r.choice(["lt", "ne"]), p, i, r.choice(["%r_n", "%r_m"])))
        self.emit("@%s bra%s %s;" % (p, r.choice(["", ".uni"]), lbl))
        self.pool = saved
        self.put("b32", acc, False)
        self.put("f32", facc, False)

    def s_if(self, depth):
        """A guarded region (a branch around it); its values are stored inside."""
        p = self.pick("pred")
        if p is None:
            return
        self.labels += 1
        lbl = "S%d" % self.labels
        self.emit("@%s%s bra %s;" % (self.rng.choice(["", "!"]), p, lbl))
        saved = {k: list(v) for k, v in self.pool.items()}
        for _ in range(self.rng.randint(1, 5)):
            self.snippet(depth + 1)
        self.store_all(limit=4)
        self.pool = saved
        self.body.append("%s:" % lbl)

    def s_guarded(self):
        """A predicated instruction."""
        p = self.pick("pred")
        if p is None:
            return
        d = self.new("b32")
        a = self.any_b32()
        self.emit("mov.u32 %s, %s;" % (d, self.any_b32()))
        self.emit("@%s%s add.u32 %s, %s, %s;" % (self.rng.choice(["", "!"]), p, d, a, self.operand(None)))
        self.put("b32", d, False)

    def snippet(self, depth=0):
        r = self.rng
        fams = [(self.s_int, 6), (self.s_int64, 3), (self.s_setp, 4), (self.s_float, 4), (self.s_double, 1),
                (self.s_half, 2), (self.s_mem, 3), (self.s_warp, 2), (self.s_tensor, 2), (self.s_guarded, 1), (self.s_extra, 2)]
        if depth < 2:
            fams += [(self.s_loop, 1), (self.s_if, 1)]
        tot = sum(w for _, w in fams)
        x = r.uniform(0, tot)
        for fn, w in fams:
            x -= w
            if x <= 0:
                if fn in (self.s_loop, self.s_if):
                    fn(depth)
                else:
                    fn()
                return
        fams[0][0]()

    def store_all(self, limit=None):
        """Stores live values to global memory (out + gid * 8 + k * 65536)."""
        vals = []
        for kind in ("b32", "f32", "b64", "f64", "h2", "pred"):
            vals += [(kind, v) for v, _ in self.pool[kind][-(limit or 10 ** 6):]]
        if limit:
            self.rng.shuffle(vals)
            vals = vals[:limit]
        for kind, v in vals:
            self.stores += 1
            off = 8 * (self.stores % 4096)
            if kind == "pred":
                x = self.new("b32")
                self.emit("selp.u32 %s, 1, 0, %s;" % (x, v))
                v, kind = x, "b32"
            t = {"b32": "u32", "h2": "b32", "f32": "f32", "b64": "u64", "f64": "f64"}[kind]
            self.emit("st.global.%s [%%rd_o+%d], %s;" % (t, off, v))

    def render(self, nsnip):
        for _ in range(nsnip):
            self.snippet()
        self.store_all()
        r = self.rng
        head = [".visible .entry %s(" % self.name,
                "\t.param .u64 p_out, .param .u64 p_in, .param .u32 p_n, .param .u32 p_m,",
                "\t.param .f32 p_f, .param .u64 p_tmap)"]
        extra, extra_decl = extra_forms(random.Random("%s-forms" % self.name), self.name, self.target)
        # a k32 wgmma may need more registers than a small limit or 1024 threads allow
        big = any("wgmma.mma_async" in line for line in extra)
        if r.random() < 0.4:
            ntid = r.choice([128, 256, 1024])
            if not (big and ntid > 256):
                head.append(".maxntid %d, 1, 1" % ntid)
        if r.random() < 0.3:
            cap = r.choice([32, 40, 64, 128])
            if any("wgmma.mma_async" in line for line in self.body):
                cap = 128  # a wgmma accumulator does not fit a small cap
            if not big:
                head.append(".maxnreg %d" % cap)
        head.append("{")
        decl = ["\t.reg .b32 %%r<%d>;" % (self.n["r"] + 1), "\t.reg .b64 %%rd<%d>;" % (self.n["rd"] + 1),
                "\t.reg .f32 %%f<%d>;" % (self.n["f"] + 1), "\t.reg .f64 %%fd<%d>;" % (self.n["fd"] + 1),
                "\t.reg .pred %%p<%d>;" % (self.n["p"] + 1), "\t.reg .b16 %%h<%d>;" % (self.n["h"] + 1),
                "\t.reg .b32 %r_n, %r_m, %r_tid, %r_cta, %r_ntid, %r_gid, %r_ctay;",
                "\t.reg .b64 %rd_out, %rd_in, %rd_o, %rd_tmap, %rd_t, %rd_ptr;", "\t.reg .f32 %f_p;",
                "\t.shared .align 16 .b8 smem[4096];", "\t.local .align 16 .b8 lmem[256];"]
        pro = ["ld.param.u64 %rd_out, [p_out];", "cvta.to.global.u64 %rd_out, %rd_out;",
               "ld.param.u64 %rd_in, [p_in];", "cvta.to.global.u64 %rd_in, %rd_in;",
               "ld.param.u64 %rd_tmap, [p_tmap];", "mov.u64 %rd_ptr, %rd_in;",
               "ld.param.u32 %r_n, [p_n];", "ld.param.u32 %r_m, [p_m];", "ld.param.f32 %f_p, [p_f];",
               "mov.u32 %r_tid, %tid.x;", "mov.u32 %r_cta, %ctaid.x;", "mov.u32 %r_ntid, %ntid.x;",
               "mov.u32 %r_ctay, %ctaid.y;",
               "mad.lo.u32 %r_gid, %r_cta, %r_ntid, %r_tid;",
               "mul.wide.u32 %rd_t, %r_gid, 8;", "add.s64 %rd_o, %rd_out, %rd_t;"]
        tail = triton_addressing(random.Random("%s-tri" % self.name), self.name,
                                 random.Random("%s-tri-base" % self.name))
        decl.append("\t.reg .b64 %rt<13>;")
        decl.append("\t.reg .b32 %rti<16>;")
        decl.append("\t.reg .b16 %rth<2>;")
        tail += rare_forms(random.Random("%s-rare" % self.name), self.name)
        decl.append("\t.reg .b32 %ru<8>, %ru_s;")
        decl.append("\t.reg .b64 %rl<3>, %rl_s, %rl_o;")
        tail += extra
        decl += extra_decl
        decl.append("\t.reg .f32 %rg<4>, %rg_s;")
        decl.append("\t.reg .f64 %rgd<4>, %rgd_s;")
        decl.append("\t.reg .pred %rq<2>;")
        decl.append("\t.reg .b16 %rh<2>;")
        decl.append("\t.reg .pred %rtp;")
        return "\n".join(head + decl + ["\t" + p for p in pro] + self.body + ["\t" + t for t in tail] +
                         ["\tret;", "}", ""])


def triton_addressing(rng, name, base_rng):
    """Triton's address arithmetic, appended to every kernel (its own generators, so the main
    program is what it was): a signed 32-bit index scaled into a raw `.param` pointer
    (`mad.wide.s32 …, %param`: ptxas's `LEA` / `LEA.HI.X.SX32` pair with the pointer's high word
    from the constant bank, or from a uniform register inside a loop), then a block base shared
    by several loads (`triton_shared_base`). Like the rest of the generator's programs these are
    compiled, never run."""
    scale = rng.choice([1, 2, 4, 8])
    ty = {1: "u8", 2: "u16", 4: "u32", 8: "u32"}[scale]
    loop = "$%s_tri" % name
    out = ["// Triton-style addressing",
           "ld.param.u64 %rt0, [p_in];", "ld.param.u64 %rt1, [p_out];",
           "rem.s32 %rti0, %r_tid, %r_n;", "mul.lo.s32 %rti1, %rti0, %r_n;",
           "mov.u32 %rti2, 0;", "mov.u32 %rti3, 0;"]
    if rng.random() < 0.5:
        # straight-line: the pointer's high word stays in the constant bank
        out += ["mad.wide.s32 %%rt2, %%rti1, %d, %%rt0;" % scale,
                "add.s32 %rti4, %rti1, %r_n;",
                "mad.wide.s32 %%rt3, %%rti4, %d, %%rt0;" % scale,
                "ld.global.%s %%rti5, [%%rt2];" % ty, "ld.global.%s %%rti6, [%%rt3];" % ty,
                "add.s32 %rti3, %rti5, %rti6;"]
    else:
        # in a loop: the pointer goes to a uniform register
        out += ["%s:" % loop,
                "add.s32 %rti4, %rti1, %rti2;",
                "mad.wide.s32 %%rt2, %%rti4, %d, %%rt0;" % scale,
                "add.s32 %rti5, %rti4, %r_n;",
                "mad.wide.s32 %%rt3, %%rti5, %d, %%rt0;" % scale,
                "ld.global.%s %%rti6, [%%rt2];" % ty, "ld.global.%s %%rti7, [%%rt3];" % ty,
                "add.s32 %rti3, %rti3, %rti6;", "add.s32 %rti3, %rti3, %rti7;",
                "add.s32 %%rti2, %%rti2, %d;" % rng.choice([32, 64, 128]),
                "setp.lt.s32 %rtp, %rti2, %r_m;",
                "@%%rtp bra %s;" % loop]
    out += triton_shared_base(base_rng)
    # a 64-bit sum of per-thread values and a store through the output pointer
    out += ["and.b32 %rti8, %rti3, 1023;", "mul.wide.s32 %rt4, %rti8, 4;",
            "and.b32 %rti9, %rti0, 255;", "cvt.s64.s32 %rt5, %rti9;",
            "add.s64 %rt6, %rt4, %rt5;", "add.s64 %rt7, %rt6, %rt3;",
            "st.global.u32 [%rt7], %rti3;",
            "mad.wide.s32 %rt8, %rti0, 4, %rt1;",
            "st.global.u32 [%rt8], %rti3;"]
    return out


def triton_shared_base(rng):
    """Triton's block base: the raw pointer plus two scaled signed products
    (`mad.wide.s32 b, y, 2, p` twice), shared by several loads so ptxas cannot fold it into each
    load's `IMAD.WIDE`. It becomes a three-input 64-bit add: `IADD3 R, P0, P1, R, c[…]|UR, R`
    with two carry-outs and `IADD3.X … P0, P1` with two carry-ins when a product is per-thread,
    `UIADD3 UR, UP0, UP1, …` when both are uniform (block ids)."""
    y0, y1 = rng.choice([("%rti0", "%r_tid"), ("%r_cta", "%r_ctay"), ("%r_cta", "%r_tid"),
                         ("%r_tid", "%r_ctay")])
    return ["mul.lo.s32 %%rti10, %s, %%r_n;" % y0, "mad.wide.s32 %rt9, %rti10, 2, %rt0;",
            "mul.lo.s32 %%rti11, %s, %%r_m;" % y1, "mad.wide.s32 %rt10, %rti11, 2, %rt9;",
            "mul.lo.s32 %rti12, %r_tid, %r_n;", "add.s32 %rti13, %rti12, %r_m;",
            "mad.wide.s32 %rt11, %rti12, 2, %rt10;", "mad.wide.s32 %rt12, %rti13, 2, %rt10;",
            "ld.global.u16 %rth0, [%rt11];", "ld.global.u16 %rth1, [%rt12];",
            "cvt.u32.u16 %rti14, %rth0;", "cvt.u32.u16 %rti15, %rth1;",
            "add.s32 %rti3, %rti3, %rti14;", "add.s32 %rti3, %rti3, %rti15;"]


# Rare modifier and operand combinations, each a form the main families reach only by chance:
# the first ten are what the generated holdout (seeds 1000-1007) named unknown after the first
# relearning of 27 Nov 2026; the last three are keys the tables had that seeds 1-200 stopped
# reaching once the texture snippets changed.
RARE_FORMS = [
    # FRND.FLOOR of a uniform value (c[] or UR)
    ["cvt.rmi.f32.f32 %rg1, %f_p;", "add.f32 %rg_s, %rg_s, %rg1;"],
    # UPRMT UR, UR, UR, UR (a byte permute of uniform values with a uniform selector)
    ["add.s32 %ru1, %r_n, %r_cta;", "prmt.b32 %ru2, %r_n, %ru1, %r_m;", "add.s32 %ru_s, %ru_s, %ru2;"],
    # ULDC.U8: a byte of a parameter
    ["ld.param.u8 %rh0, [p_n+1];", "cvt.u32.u16 %ru3, %rh0;", "add.s32 %ru_s, %ru_s, %ru3;"],
    # FSETP.NAN.FTZ.OR … RZ, c[]|UR, P
    ["setp.gt.f32 %rq0, %rg_s, 0f3F000000;", "setp.nan.or.ftz.f32 %rq0, 0f00000000, %f_p, %rq0;",
     "selp.u32 %ru4, 1, 2, %rq0;", "add.s32 %ru_s, %ru_s, %ru4;"],
    # DFMA R, R, -c[]|-UR, R
    ["ld.param.f64 %rgd1, [p_in];", "cvt.f64.f32 %rgd2, %rg_s;", "neg.f64 %rgd3, %rgd1;",
     "fma.rn.f64 %rgd_s, %rgd2, %rgd3, %rgd_s;"],
    # DADD.RM with an immediate
    ["add.rm.f64 %rgd_s, %rgd_s, 0d4000000000000000;"],
    # SHF.R.S64 by a uniform amount
    ["cvt.s64.s32 %rl0, %r_tid;", "mul.lo.s64 %rl1, %rl0, %rl_s;", "shr.s64 %rl2, %rl1, %r_n;",
     "add.s64 %rl_s, %rl_s, %rl2;"],
    # F2IP.U8.F32 of a uniform value (sm_86 and up)
    ["cvt.rzi.u8.f32 %rh1, %f_p;", "cvt.u32.u16 %ru5, %rh1;", "add.s32 %ru_s, %ru_s, %ru5;"],
    # FMNMX with a negated operand
    ["neg.f32 %rg2, %rg_s;", "min.f32 %rg3, %rg2, %f_p;", "add.f32 %rg_s, %rg_s, %rg3;"],
    # REDG.E.ADD.F32.FTZ.RN.STRONG.SM: a block-scope float reduction
    ["red.cta.global.add.f32 [%rl_o+24], %rg_s;"],
    # FRND.F64 of a uniform register pair
    ["ld.param.f64 %rgd1, [p_in];", "cvt.rni.f64.f64 %rgd2, %rgd1;", "add.f64 %rgd_s, %rgd_s, %rgd2;"],
    # FCHK P, R, UR: the range check of a full-precision division by a uniform value
    ["div.rn.f32 %rg1, %rg_s, %f_p;", "add.f32 %rg_s, %rg_s, %rg1;"],
    # SGXT R, R, UR: sign extension at a uniform bit position
    ["szext.clamp.s32 %ru6, %ru_s, %r_n;", "add.s32 %ru_s, %ru_s, %ru6;"],
]


def rare_forms(rng, name):
    """`RARE_FORMS`, each with probability 1/2, straight-line or (half the time) in a loop, where
    ptxas may hold the uniform operands in uniform registers instead of reading the constant
    bank. Appended after `triton_addressing` with a generator of its own; results are stored 1 MiB
    past the thread's output word, so no earlier store becomes dead."""
    chosen = [f for f in RARE_FORMS if rng.random() < 0.5]
    loop = rng.random() < 0.5
    label = "$%s_rare" % name
    out = ["// rare forms", "mov.u32 %ru_s, 0;", "cvt.rn.f32.u32 %rg_s, %r_tid;",
           "cvt.f64.f32 %rgd_s, %rg_s;", "cvt.u64.u32 %rl_s, %r_tid;",
           "add.s64 %rl_o, %rd_o, 1048576;", "mov.u32 %ru7, 0;"]
    if loop:
        out.append("%s:" % label)
    for form in chosen:
        out += form
    if loop:
        out += ["add.s32 %ru7, %ru7, 1;", "setp.lt.s32 %rq1, %ru7, %r_m;", "@%%rq1 bra %s;" % label]
    out += ["st.global.u32 [%rl_o], %ru_s;", "st.global.f32 [%rl_o+4], %rg_s;",
            "st.global.f64 [%rl_o+8], %rgd_s;", "st.global.u64 [%rl_o+16], %rl_s;"]
    return out


# Shapes of the sm_90a integer and fp8 warpgroup MMAs (`IGMMA`, `QGMMA`): N of m64nNk32.
GMMA_K32_N = [8, 16, 24, 32, 48, 64, 96, 128, 192, 256]


def fused_min_max(rng):
    """sm_90's add fused into a min or max (`VIADDMNMX`, `.U32`, the `PT`/`!PT` choice of min or
    max), from a per-thread sum bounded by a register, an immediate, a parameter (constant bank)
    or a uniform value ptxas computes in a uniform register (`mad.lo` of %ctaid: the causal
    mask bound of Triton's attention). On sm_8x the same PTX is an IADD3 and an IMNMX."""
    out = ["// add fused into min/max", "ld.global.u32 %rm0, [%rd_o+12];", "mov.u32 %rm_s, 0;",
           "mad.lo.s32 %rm1, %r_cta, %r_n, %r_m;"]
    for k in range(rng.randint(2, 5)):
        ty = rng.choice(["s32", "u32"])
        op = rng.choice(["min", "max"])
        b = rng.choice(["%r_tid", "%rm0", str(rng.randint(1, 4095)), "%r_n"])
        bound = rng.choice(["%rm1", "%rm1", "%r_m", "%rm_s", str(rng.randint(1, 1 << 20))])
        out += ["add.s32 %%rm2, %s, %s;" % (rng.choice(["%rm0", "%r_tid", "%rm_s"]), b),
                "%s.%s %%rm3, %%rm2, %s;" % (op, ty, bound),
                "add.s32 %rm_s, %rm_s, %rm3;"]
    out.append("st.global.u32 [%rl_o+32], %rm_s;")
    return out


def gmma_k32(rng):
    """sm_90a's integer and fp8 warpgroup MMAs (`wgmma … k32`, SASS `IGMMA` and `QGMMA`): a
    shape from GMMA_K32_N, A from a descriptor or from four registers, accumulators loaded
    from global memory (so ptxas keeps them, rather than starting from RZ), the accumulate
    flag from a predicate, and the results stored. `.satfinite` on the integer forms, an f16
    or f32 accumulator and negated operands on the fp8 ones."""
    n = rng.choice(GMMA_K32_N)
    integer = rng.random() < 0.5
    if integer:
        types = rng.choice(["s8.s8", "s8.u8", "u8.s8", "u8.u8"])
        acc, count = "s32", n // 2
    else:
        types = rng.choice(["e4m3.e4m3", "e4m3.e5m2", "e5m2.e4m3", "e5m2.e5m2"])
        acc = rng.choice(["f32", "f16"])
        count = n // 2 if acc == "f32" else n // 4
    regs = ["%%rw%d" % i for i in range(count)]
    a = ("{%rwa0, %rwa1, %rwa2, %rwa3}" if rng.random() < 0.4 else "%rt0")
    out = ["// integer/fp8 wgmma", "ld.param.u64 %rt0, [p_tmap];", "add.s64 %rt1, %rt0, 64;",
           "setp.ne.s32 %rwp, %r_n, 0;"]
    out += ["ld.global.b32 %%rwa%d, [%%rd_o+%d];" % (i, 4 * i) for i in range(4)]
    out += ["ld.global.b32 %s, [%%rl_o+%d];" % (x, 64 + 4 * i) for i, x in enumerate(regs)]
    out.append("wgmma.fence.sync.aligned;")
    shape = "m64n%dk32" % n
    for step in range(rng.randint(1, 2)):
        b = "%rt1" if step == 0 else "%rt2"
        if step:
            out.append("add.s64 %%rt2, %%rt1, %d;" % rng.choice([2, 4, 0x80]))
        # the accumulate flag: a predicate (`UPn`), always (no predicate printed: Triton's
        # k loop), or never (`RZ, !UPT`: the first k step)
        scale = rng.choice(["%rwp", "1", "0"] if step == 0 else ["%rwp", "1"])
        if integer:
            sat = ".satfinite" if rng.random() < 0.3 else ""
            out.append("wgmma.mma_async.sync.aligned.%s.s32.%s%s {%s}, %s, %s, %s;"
                       % (shape, types, sat, ", ".join(regs), a, b, scale))
        else:
            out.append("wgmma.mma_async.sync.aligned.%s.%s.%s {%s}, %s, %s, %s, %d, %d;"
                       % (shape, acc, types, ", ".join(regs), a, b, scale, rng.choice([1, -1]),
                          rng.choice([1, -1])))
    out += ["wgmma.commit_group.sync.aligned;", "wgmma.wait_group.sync.aligned 0;"]
    out += ["st.global.b32 [%%rl_o+%d], %s;" % (64 + 4 * i, x) for i, x in enumerate(regs)]
    return out, count


def uniform_scaled_index(rng, name):
    """sm_90's uniform `ULEA` forms: a uniform 32-bit index (a loop counter times a parameter
    plus %ctaid) scaled into a raw pointer (`mad.wide.s32`: `ULEA UR, UP, UR, UR, s` and
    `ULEA.HI.X.SX32 UR, UR, UR, s, UP`), and the high word of a scaled index added to a uniform
    value (`ULEA.HI.SX32 UR, UR, UR, s`)."""
    label = "$%s_ulea" % name
    scale = rng.choice([2, 4, 8, 16])
    return ["// uniform scaled index", "mov.u32 %rm4, 0;", "mov.u32 %rm5, 0;",
            "ld.param.u64 %rt0, [p_in];",
            "%s:" % label,
            "mad.lo.s32 %rm6, %rm4, %r_n, %r_cta;",
            "mad.wide.s32 %%rt1, %%rm6, %d, %%rt0;" % scale,
            "ld.global.u32 %rm7, [%rt1];", "add.s32 %rm5, %rm5, %rm7;",
            "mul.wide.s32 %%rt2, %%rm6, %d;" % rng.choice([2, 4, 8, 16, 256]),
            "mov.b64 {%rm8, %rm9}, %rt2;", "add.s32 %rm9, %rm9, %r_m;",
            "add.s32 %rm5, %rm5, %rm9;",
            "add.s32 %rm4, %rm4, 1;", "setp.lt.s32 %rwq, %rm4, %r_m;", "@%%rwq bra %s;" % label,
            "st.global.u32 [%rl_o+36], %rm5;"]


def local_uniform_offset(rng):
    """sm_90's local accesses with a uniform offset, `STL.U8 [R+UR]` ... `LDL.S16 R, [R+UR]`: a
    generic pointer to the kernel's `lmem` (cvta and back, so that ptxas keeps the stack
    address in a register) plus an offset from a parameter. Every store width, every load
    width and sign, in random order (fresh seeds' `STL.U8 [UR], R` was unknown on sm_90a)."""
    off = rng.choice([0xf0, 0x70, 0xe0])
    out = ["// local accesses at a uniform offset", "mov.u64 %rdv0, lmem;",
           "cvta.local.u64 %rdv0, %rdv0;", "cvta.to.local.u64 %rdv1, %rdv0;",
           "and.b32 %%rv0, %%r_n, %d;" % off, "cvt.u64.u32 %rdv2, %rv0;",
           "add.u64 %rdv3, %rdv1, %rdv2;", "cvt.u16.u32 %rhv, %r_tid;"]
    stores = ["st.local.u8 [%rdv3], %rhv;", "st.local.u16 [%rdv3+2], %rhv;",
              "st.local.u32 [%rdv3+4], %r_tid;", "st.local.v2.u32 [%rdv3+8], {%r_tid, %r_m};",
              "st.local.v4.u32 [%rdv3+16], {%r_tid, %r_m, %r_n, %r_cta};"]
    loads = ["ld.local.s8 %rv1, [%rdv3+1];", "ld.local.s16 %rv2, [%rdv3+2];",
             "ld.local.u8 %rv3, [%rdv3+3];", "ld.local.u16 %rv4, [%rdv3+6];",
             "ld.local.u32 %rv5, [%rdv3+4];", "ld.local.v2.u32 {%rv6, %rv7}, [%rdv3+8];"]
    rng.shuffle(stores)
    rng.shuffle(loads)
    out += stores + loads
    out += ["add.s32 %%rv1, %%rv1, %%rv%d;" % i for i in range(2, 8)]
    return out + ["st.global.u32 [%rl_o+40], %rv1;"]


def extra_forms(rng, name, target):
    """Forms the Triton suite reached and the other generators did not (their own generator,
    appended after `rare_forms`): `fused_min_max` always, `gmma_k32` on sm_90a in three
    kernels of four, `uniform_scaled_index` and `local_uniform_offset` on sm_90 and sm_90a (after
    the other draws, so that sm_80 programs and the earlier forms do not change with them).
    Returns the lines and the declarations they need."""
    out = fused_min_max(rng)
    decl = []
    if target == "sm_90a" and rng.random() < 0.75:
        lines, count = gmma_k32(rng)
        out += lines
        decl += ["\t.reg .b32 %%rw<%d>, %%rwa<4>;" % count, "\t.reg .pred %rwp;"]
    if target == "sm_80":
        decl.insert(0, "\t.reg .b32 %rm<4>, %rm_s;")
    else:
        out += uniform_scaled_index(rng, name)
        decl += ["\t.reg .b32 %rm<10>;", "\t.reg .pred %rwq;", "\t.reg .b32 %rm_s;"]
        out += local_uniform_offset(rng)
        decl += ["\t.reg .b32 %rv<8>;", "\t.reg .b64 %rdv<4>;", "\t.reg .b16 %rhv;"]
    return out, decl


def functions(seed, rng):
    """Functions: `g<seed>_f`, a .func whose early returns ptxas makes guarded `RET.REL`,
    `g<seed>_vf`, a .visible .func that calls it (both called by kernels), and
    `g<seed>_wf`, a .visible .func no kernel calls, which calls `g<seed>_vf`."""
    f, vf = "g%d_f" % seed, "g%d_vf" % seed
    cmp = rng.choice(["lt", "gt", "ne"])
    k = rng.randint(2, 99)
    early = rng.choice([
        ["@%q ret;"],
        ["@%%q bra $%s_L1;" % f, "mul.lo.s32 %%t3, %%t1, %d;" % k, "st.param.b32 [rv], %t3;", "ret;",
         "$%s_L1:" % f],
    ])
    body_f = (["ld.param.b32 %t1, [a];", "ld.param.b32 %t2, [b];",
               "setp.%s.s32 %%q, %%t1, %%t2;" % cmp, "st.param.b32 [rv], %t1;"] + early +
              ["mad.lo.s32 %%t3, %%t1, %%t2, %d;" % k, "st.param.b32 [rv], %t3;", "ret;"])
    body_vf = ["ld.param.b32 %t1, [a];", "ld.param.b32 %t2, [b];",
               "xor.b32 %%t3, %%t1, %d;" % k,
               "{", ".param .b32 x0; .param .b32 x1; .param .b32 xr;",
               "st.param.b32 [x0], %t3;", "st.param.b32 [x1], %t2;",
               "call.uni (xr), %s, (x0, x1);" % f, "ld.param.b32 %t3, [xr];", "}",
               "st.param.b32 [rv], %t3;", "ret;"]
    # no kernel calls wf: ptxas compiles it (and vf) as standalone functions, which call and
    # return through absolute addresses (CALL.ABS.NOINC, RET.ABS.NODEC)
    body_wf = [l.replace(f + ",", vf + ",") for l in body_vf]
    out = []
    for vis, name, body in (("", f, body_f), (".visible ", vf, body_vf),
                            (".visible ", "g%d_wf" % seed, body_wf)):
        out.append("%s.func (.param .b32 rv) %s(.param .b32 a, .param .b32 b)" % (vis, name))
        out.append("{")
        out.append("\t.reg .b32 %t<4>;")
        out.append("\t.reg .pred %q;")
        out += ["\t" + l for l in body]
        out.append("}")
        out.append("")
    return out


def program(seed, target, kernels=3, size=40):
    rng = random.Random("%d-%s" % (seed, target))
    out = [".version 8.7" if target != "sm_80" else ".version 8.0",
           ".target %s" % target, ".address_size 64", "",
           ".const .align 4 .b8 cdata[64] = {%s};" % ", ".join(str(rng.randint(0, 255)) for _ in range(64)),
           ".global .align 1 .b8 fmtstr[4] = {37, 100, 10, 0};",
           ".extern .func (.param .b32 rv) vprintf (.param .b64 pa0, .param .b64 pa1);",
           ".global .texref tref;", ""]
    out += functions(seed, rng)
    for k in range(kernels):
        kern = Kernel(rng, target, "g%d_k%d" % (seed, k))
        kern.pool["b32"] = [("%r_n", True), ("%r_m", True), ("%r_cta", True), ("%r_ntid", True),
                            ("%r_ctay", True), ("%r_tid", False), ("%r_gid", False)]
        kern.pool["b64"] = [("%rd_in", True), ("%rd_out", True)]
        kern.pool["f32"] = [("%f_p", True)]
        kern.emit("// seed %d kernel %d" % (seed, k))
        # a few loaded values to start from
        x, f = kern.new("b32"), kern.new("f32")
        kern.emit("ld.global.u32 %s, [%%rd_o];" % x)
        kern.emit("ld.global.f32 %s, [%%rd_o+4];" % f)
        kern.put("b32", x, False)
        kern.put("f32", f, False)
        out.append(kern.render(rng.randint(size // 2, size)))
    if target == "sm_90a":
        # its own generator, after the other kernels: their PTX (and SASS) stay as they were
        out.append(mbarrier_kernel(random.Random("%d-mbar" % seed), "g%d_mbar" % seed))
    return "\n".join(out)


def mbarrier_kernel(rng, name):
    """An mbarrier's whole life on sm_90a (Triton's TMA kernels; session 58): `init` with a
    constant or a parameter count, `arrive` (with a state, a count, `expect_tx`), `expect_tx`,
    a tensor copy of random rank onto it, `test_wait`/`try_wait` with a state or a parity,
    `elect.sync`, a tensor store, and `inval` (`SYNCS.CCTL.IV`, unknown to the tables before)."""
    rank = rng.randint(1, 5)
    box = rng.randint(1, 4) * 16
    coords = ", ".join("%%r_c%d" % d for d in range(rank))
    lines = [".visible .entry %s(.param .align 64 .b8 %s_map[128], .param .u64 %s_out, .param .u32 %s_n)"
             % (name, name, name, name), "{",
             "  .reg .b32 %r<20>; .reg .b32 %r_c<5>; .reg .b64 %rd<10>; .reg .pred %p<8>;",
             "  .shared .align 1024 .b8 tile[4096];", "  .shared .align 8 .b64 bars[2];",
             "  mov.u32 %r0, %tid.x;", "  mov.u32 %r1, tile;", "  mov.u32 %r2, bars;",
             "  add.u32 %r3, %r2, 8;", "  ld.param.u32 %%r4, [%s_n];" % name,
             "  mov.b64 %%rd1, %s_map;" % name, "  cvta.param.u64 %rd2, %rd1;",
             "  setp.eq.u32 %p1, %r0, 0;"]
    for d in range(rank):
        lines.append("  add.u32 %%r_c%d, %%r4, %d;" % (d, rng.randint(-8, 8)))
    count = rng.choice(["1", "%r4"])
    lines += ["  @%%p1 mbarrier.init.shared::cta.b64 [%%r2], %s;" % count,
              "  @%%p1 mbarrier.init.shared::cta.b64 [%%r3], %d;" % rng.randint(1, 200),
              "  bar.sync 0;"]
    if rng.random() < 0.5:
        lines.append("  @%%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%%r2], %d;" % box)
    else:
        lines.append("  @%%p1 mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%%r2], %d;" % box)
        lines.append("  @%p1 mbarrier.arrive.shared::cta.b64 %rd3, [%r2];")
    lines.append("  @%%p1 cp.async.bulk.tensor.%dd.shared::cluster.global.mbarrier::complete_tx::bytes"
                 " [%%r1], [%%rd2, {%s}], [%%r2];" % (rank, coords))
    lines.append("  mbarrier.arrive.shared::cta.b64 %rd4, [%r3];")
    lines.append("  @%%p1 mbarrier.arrive.shared::cta.b64 %%rd5, [%%r3], %d;" % rng.randint(1, 3))
    lines += ["WAIT_%s:" % name,
              "  mbarrier.try_wait.parity.shared::cta.b64 %%p2, [%%r2], %s;" % rng.choice(["0", "%r4"]),
              "  @!%%p2 bra WAIT_%s;" % name]
    wait = rng.choice(["test_wait", "try_wait"])
    lines += ["WAIT2_%s:" % name, "  mbarrier.%s.shared::cta.b64 %%p3, [%%r3], %%rd4;" % wait,
              "  @!%%p3 bra WAIT2_%s;" % name,
              "  elect.sync %r5|%p4, -1;", "  selp.u32 %r6, 1, 0, %p4;", "  add.u32 %r7, %r6, %r5;",
              "  ld.param.u64 %%rd6, [%s_out];" % name, "  mul.wide.u32 %rd7, %r0, 4;",
              "  add.s64 %rd8, %rd6, %rd7;", "  st.global.u32 [%rd8], %r7;",
              "  fence.proxy.async.shared::cta;", "  bar.sync 0;",
              "  @%%p1 cp.async.bulk.tensor.%dd.global.shared::cta.bulk_group [%%rd2, {%s}], [%%r1];"
              % (rank, coords),
              "  @%p1 cp.async.bulk.commit_group;", "  @%p1 cp.async.bulk.wait_group.read 0;",
              "  bar.sync 0;"]
    guard = rng.choice(["@%p1 ", ""])
    lines += ["  %smbarrier.inval.shared::cta.b64 [%%r2];" % guard,
              "  %smbarrier.inval.shared::cta.b64 [%%r3];" % guard, "  ret;", "}"]
    return "\n".join(lines) + "\n"


def ptxas_options(seed):
    """The -O level and register limit a seed is compiled with."""
    opts = ["-O%d" % (seed % 4)]
    cap = [None, 32, 64, 128][seed // 4 % 4]
    if cap:
        opts.append("-maxrregcount=%d" % cap)
    if seed % 5 == 2:
        # relocatable: .visible functions are kept as standalone functions (CALL.ABS/RET.ABS)
        opts.append("-c")
    if seed % 8 == 4:
        # device debug (an -O0 seed): MEMBAR.SC.VC and ERRBAR at exits, as in `.target …, debug`
        opts.append("-g")
    return opts


def build(out, seeds, ptxas, archs, jobs=2):
    """Writes and compiles the programs of `seeds`; returns the number of ptxas failures."""
    os.makedirs(out, exist_ok=True)
    work = []
    for seed in seeds:
        for target in ("sm_80", "sm_90", "sm_90a"):
            goal = {"sm_80": ["sm_80", "sm_86", "sm_89"], "sm_90": ["sm_90"], "sm_90a": ["sm_90a"]}[target]
            goal = [g for g in goal if g in archs]
            if not goal:
                continue
            ptx = os.path.join(out, "g%d.%s.ptx" % (seed, target))
            with open(ptx, "w") as f:
                f.write(program(seed, target))
            opts = ptxas_options(seed)
            for g in goal:
                cubin = os.path.join(out, "g%d.%s.%s.cubin" % (seed, opts[0][1:], g))
                work.append([ptxas, "-arch=" + g] + opts + [ptx, "-o", cubin])

    def run(cmd):
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0 and "Insufficient registers" in r.stderr:
            # a large wgmma needs more registers than the seed's limit: compile without it
            cmd = [c for c in cmd if not c.startswith("-maxrregcount")]
            r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            print("%s: %s" % (" ".join(cmd), r.stderr.strip()[:500]), file=sys.stderr)
        return r.returncode == 0

    with ThreadPoolExecutor(jobs) as ex:
        return sum(1 for ok in ex.map(run, work) if not ok)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int)
    ap.add_argument("--target", choices=["sm_80", "sm_90", "sm_90a"])
    ap.add_argument("--kernels", type=int, default=3)
    ap.add_argument("--size", type=int, default=40, help="snippets per kernel (at most)")
    ap.add_argument("-o", "--out")
    ap.add_argument("--build", help="write and compile the programs of --seeds into this folder")
    ap.add_argument("--seeds", help="A-B (inclusive)")
    ap.add_argument("--ptxas", default="ptxas")
    ap.add_argument("--archs", default="sm_80,sm_86,sm_89,sm_90,sm_90a")
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    if a.build:
        lo, hi = map(int, a.seeds.split("-"))
        failed = build(a.build, range(lo, hi + 1), a.ptxas, a.archs.split(","), a.jobs)
        sys.exit(1 if failed else 0)
    if a.seed is None or a.target is None or a.out is None:
        ap.error("--seed, --target and -o are required without --build")
    with open(a.out, "w") as f:
        f.write(program(a.seed, a.target, a.kernels, a.size))


if __name__ == "__main__":
    main()
