//! Warp-level matrix fragments: the data layouts and arithmetic of `mma.sync` (PTX ISA §9.7.14.5,
//! "Matrix fragments for mma.m*n*k*"), `ldmatrix` (§9.7.14.5.15) and `stmatrix` (§9.7.14.5.16).
//!
//! Everything here is pure and concrete: it works on the 32 lanes' register words of one warp
//! (`[u64; 32]` per register of a fragment) and never touches the interpreter. The interpreter
//! (`exec/matrix.rs`) gathers the registers, calls [`mma`] or the `ldmatrix` position map, and
//! scatters the results.
//!
//! # Fragment layouts
//!
//! Every layout is the ISA's formula in terms of `g = %laneid >> 2` (the group) and
//! `t = %laneid % 4` (the thread in the group), written once per shape and element class in
//! [`MmaSpec::pos`]; element `i` of a lane's fragment is bits `[i·w, (i+1)·w)` of the
//! concatenated registers (`w` the element width), low element first.
//!
//! # Arithmetic (documented in docs/emulator.md, "Tensor cores")
//!
//! The ISA does not specify the order or the intermediate precision of the accumulation, so a GPU
//! and this emulator may differ in the last bits. What is implemented, deterministically:
//!
//! - floating point with an f32 accumulator and `f16`, `bf16` or `tf32` inputs (`.f16` or `.f32`
//!   C/D): one *block FMA* per instruction, the model fitted to an H100
//!   ([`block_fma`]; bench/gpu/mma): the K products are exact (at most 11 significant bits per
//!   input), the K + 1 addends (products and `C[m][n]`) are aligned to the largest one's exponent
//!   `E` and truncated toward zero to multiples of `2^(E−26)` (27 bits), summed exactly, and the
//!   sum is rounded toward zero to f32. On the H100 this reproduces 99.7 % of bf16, 96.8 % of tf32
//!   and 95.5 % of f16 `mma.sync` results bit for bit (the sequential round-to-nearest FMAs used
//!   before: 37–55 %); the rest differ by an ulp or so. An `.f16` D is the f32 result rounded
//!   once to nearest f16. `tf32` inputs use only their top 19 bits (the low 13 fraction bits are
//!   ignored, as on the hardware). Infinite or NaN addends take the plain IEEE sum; NaN results
//!   are the canonical NaN.
//! - fp8 inputs (`e4m3`, `e5m2`): `acc = C[m][n]`, then `acc = fma(A[m][k], B[k][n], acc)` rounded
//!   to nearest f32 for `k = 0 … K−1` (not fitted: Hopper keeps fewer accumulator bits for fp8,
//!   docs/gpu.md).
//! - `f64` (`m8n8k4`): the same order with f64 FMAs (`.rn`).
//! - integers (`s8`/`u8` → `s32`): the exact sum `C + Σ A·B`, wrapped to 32 bits, or clamped to
//!   the `s32` range with `.satfinite`.

use std::fmt;

use super::float::{self, Rnd};
use super::fp8::Fp8;
use crate::ptx::ir::Type;

/// An element type of a fragment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Elem {
    /// `.f16`
    F16,
    /// `.bf16`
    Bf16,
    /// `.tf32` (an f32 word of which the top 19 bits count)
    Tf32,
    /// `.f32`
    F32,
    /// `.f64`
    F64,
    /// `.s8`
    S8,
    /// `.u8`
    U8,
    /// `.s32`
    S32,
    /// `.e4m3` (fp8: 4 exponent bits, bias 7, 3 fraction bits; no infinities, NaN = all ones)
    E4m3,
    /// `.e5m2` (fp8: 5 exponent bits, bias 15, 2 fraction bits; IEEE-like)
    E5m2,
}

impl Elem {
    /// The element type of a PTX type, if fragments of it are supported.
    pub fn of(t: Type) -> Option<Elem> {
        Some(match t {
            Type::F16 => Elem::F16,
            Type::Bf16 => Elem::Bf16,
            Type::Tf32 => Elem::Tf32,
            Type::F32 => Elem::F32,
            Type::F64 => Elem::F64,
            Type::S8 => Elem::S8,
            Type::U8 => Elem::U8,
            Type::S32 => Elem::S32,
            Type::E4m3 => Elem::E4m3,
            Type::E5m2 => Elem::E5m2,
            _ => return None,
        })
    }

    /// Width in bits.
    pub fn bits(self) -> u32 {
        match self {
            Elem::F16 | Elem::Bf16 => 16,
            Elem::Tf32 | Elem::F32 | Elem::S32 => 32,
            Elem::F64 => 64,
            Elem::S8 | Elem::U8 | Elem::E4m3 | Elem::E5m2 => 8,
        }
    }

    /// Elements per register (registers are 32 bits wide, f64 registers 64).
    pub fn per_reg(self) -> usize {
        match self {
            Elem::F64 => 1,
            e => (32 / e.bits()) as usize,
        }
    }

    /// True for the integer types.
    pub fn is_int(self) -> bool {
        matches!(self, Elem::S8 | Elem::U8 | Elem::S32)
    }

    /// The element's value (exact in f64 for every type).
    fn value(self, bits: u64) -> f64 {
        match self {
            Elem::F16 => float::F16.to_f64(bits),
            Elem::Bf16 => float::BF16.to_f64(bits),
            Elem::Tf32 => float::F32.to_f64(bits & 0xffff_e000),
            Elem::F32 => float::F32.to_f64(bits),
            Elem::F64 => f64::from_bits(bits),
            Elem::S8 => f64::from(bits as u8 as i8),
            Elem::U8 => f64::from(bits as u8),
            Elem::S32 => f64::from(bits as u32 as i32),
            Elem::E4m3 => Fp8::E4m3.value(bits as u8),
            Elem::E5m2 => Fp8::E5m2.value(bits as u8),
        }
    }

    fn int_value(self, bits: u64) -> i64 {
        match self {
            Elem::S8 => i64::from(bits as u8 as i8),
            Elem::U8 => i64::from(bits as u8),
            _ => i64::from(bits as u32 as i32),
        }
    }
}

impl fmt::Display for Elem {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let s = match self {
            Elem::F16 => "f16",
            Elem::Bf16 => "bf16",
            Elem::Tf32 => "tf32",
            Elem::F32 => "f32",
            Elem::F64 => "f64",
            Elem::S8 => "s8",
            Elem::U8 => "u8",
            Elem::S32 => "s32",
            Elem::E4m3 => "e4m3",
            Elem::E5m2 => "e5m2",
        };
        f.write_str(s)
    }
}

/// One of the four matrices of an `mma`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operand {
    /// The multiplicand A (M × K).
    A,
    /// The multiplicand B (K × N).
    B,
    /// The addend C (M × N).
    C,
    /// The result D (M × N).
    D,
}

/// A decoded `mma.sync.aligned` form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MmaSpec {
    /// Rows of A and D.
    pub m: u32,
    /// Columns of B and D.
    pub n: u32,
    /// Columns of A, rows of B.
    pub k: u32,
    /// Element types of D, A, B, C.
    pub d: Elem,
    /// A's element type.
    pub a: Elem,
    /// B's element type.
    pub b: Elem,
    /// C's element type.
    pub c: Elem,
    /// `.satfinite` (integer forms: clamp to the s32 range).
    pub satfinite: bool,
}

impl MmaSpec {
    /// Decodes `mma.sync.aligned.<shape>.row.col[.satfinite].<dtype>.<atype>.<btype>.<ctype>`
    /// from its shape word, its four types (in that order) and its other modifier words.
    pub fn parse(shape: &str, types: &[Type], words: &[&str]) -> Result<MmaSpec, String> {
        let (m, n, k) = match shape {
            "m16n8k16" => (16, 8, 16),
            "m16n8k8" => (16, 8, 8),
            "m16n8k4" => (16, 8, 4),
            "m16n8k32" => (16, 8, 32),
            "m8n8k4" => (8, 8, 4),
            "m8n8k16" => (8, 8, 16),
            other => return Err(format!("mma shape .{other} is not supported")),
        };
        let [d, a, b, c] = types else {
            return Err("mma needs four types (.dtype.atype.btype.ctype)".into());
        };
        let ty = |t: &Type| {
            Elem::of(*t).ok_or_else(|| format!("mma element type .{t} is not supported"))
        };
        let spec = MmaSpec {
            m,
            n,
            k,
            d: ty(d)?,
            a: ty(a)?,
            b: ty(b)?,
            c: ty(c)?,
            satfinite: words.contains(&"satfinite"),
        };
        if !(words.contains(&"row") && words.contains(&"col")) {
            return Err("mma layouts other than .row.col are not supported".into());
        }
        if let Some(w) = words
            .iter()
            .find(|w| w.starts_with("kind") || w.starts_with("block"))
        {
            return Err(format!("mma .{w} is not supported"));
        }
        spec.check()?;
        Ok(spec)
    }

    /// An `mma` of shape `m`×`n`×`k` with the element types `[d, a, b, c]`, checked like
    /// [`MmaSpec::parse`] (the SASS emulator builds its `HMMA`/`IMMA` forms with it).
    pub fn new(
        (m, n, k): (u32, u32, u32),
        [d, a, b, c]: [Elem; 4],
        satfinite: bool,
    ) -> Result<MmaSpec, String> {
        let spec = MmaSpec {
            m,
            n,
            k,
            d,
            a,
            b,
            c,
            satfinite,
        };
        spec.check()?;
        Ok(spec)
    }

    /// Checks that the shape and types form an `mma` this module implements.
    fn check(&self) -> Result<(), String> {
        use Elem::*;
        let (a, b, c, d) = (self.a, self.b, self.c, self.d);
        let ok = match (self.m, self.n, self.k) {
            (16, 8, 16) | (16, 8, 8) if matches!((a, b), (F16, F16)) => {
                matches!(c, F16 | F32) && matches!(d, F16 | F32)
            }
            (16, 8, 16) | (16, 8, 8) if matches!((a, b), (Bf16, Bf16)) => c == F32 && d == F32,
            (16, 8, 8) | (16, 8, 4) if matches!((a, b), (Tf32, Tf32)) => c == F32 && d == F32,
            (16, 8, 32) if matches!(a, E4m3 | E5m2) && matches!(b, E4m3 | E5m2) => {
                matches!(c, F16 | F32) && c == d
            }
            (16, 8, 32) | (16, 8, 16) | (8, 8, 16) => {
                matches!(a, S8 | U8) && matches!(b, S8 | U8) && c == S32 && d == S32
            }
            (8, 8, 4) => a == F64 && b == F64 && c == F64 && d == F64,
            _ => false,
        };
        if !ok {
            return Err(format!(
                "mma.m{}n{}k{} .{d}.{a}.{b}.{c} is not supported",
                self.m, self.n, self.k
            ));
        }
        if self.satfinite && !d.is_int() {
            return Err("mma .satfinite on a floating-point form is not supported".into());
        }
        Ok(())
    }

    fn elem(&self, op: Operand) -> Elem {
        match op {
            Operand::A => self.a,
            Operand::B => self.b,
            Operand::C => self.c,
            Operand::D => self.d,
        }
    }

    fn dims(&self, op: Operand) -> (u32, u32) {
        match op {
            Operand::A => (self.m, self.k),
            Operand::B => (self.k, self.n),
            Operand::C | Operand::D => (self.m, self.n),
        }
    }

    /// Elements of `op` each lane holds.
    pub fn elems(&self, op: Operand) -> usize {
        let (r, c) = self.dims(op);
        (r * c / 32) as usize
    }

    /// Registers per lane of `op`'s fragment.
    pub fn regs(&self, op: Operand) -> usize {
        self.elems(op) / self.elem(op).per_reg()
    }

    /// Width in bits of each register of `op`'s fragment.
    pub fn reg_bits(&self, op: Operand) -> u32 {
        if self.elem(op) == Elem::F64 {
            64
        } else {
            32
        }
    }

    /// (row, column) of element `i` of `lane`'s fragment of `op` (the ISA's formulas).
    pub fn pos(&self, op: Operand, lane: u32, i: u32) -> (u32, u32) {
        let (g, t) = (lane >> 2, lane & 3);
        let e = self.elem(op);
        match op {
            Operand::C | Operand::D => {
                if self.m == 16 {
                    (g + 8 * (i >> 1), 2 * t + (i & 1))
                } else {
                    (g, 2 * t + i)
                }
            }
            Operand::A => match (e, self.m, self.k) {
                (Elem::F16 | Elem::Bf16, 16, 16) => {
                    (g + 8 * ((i >> 1) & 1), 2 * t + (i & 1) + 8 * (i >> 2))
                }
                (Elem::F16 | Elem::Bf16, _, _) => (g + 8 * (i >> 1), 2 * t + (i & 1)),
                (Elem::Tf32, _, 8) => (g + 8 * (i & 1), t + 4 * (i >> 1)),
                (Elem::Tf32, _, _) => (g + 8 * i, t),
                (Elem::S8 | Elem::U8 | Elem::E4m3 | Elem::E5m2, 16, 32) => {
                    (g + 8 * ((i >> 2) & 1), 4 * t + (i & 3) + 16 * (i >> 3))
                }
                (Elem::S8 | Elem::U8, 16, _) => (g + 8 * (i >> 2), 4 * t + (i & 3)),
                (Elem::S8 | Elem::U8, _, _) => (g, 4 * t + i),
                _ => (g, t),
            },
            Operand::B => match (e, self.k) {
                (Elem::F16 | Elem::Bf16, 16) => (2 * t + (i & 1) + 8 * (i >> 1), g),
                (Elem::F16 | Elem::Bf16, _) => (2 * t + i, g),
                (Elem::Tf32, 8) => (t + 4 * i, g),
                (Elem::S8 | Elem::U8 | Elem::E4m3 | Elem::E5m2, 32) => {
                    (4 * t + (i & 3) + 16 * (i >> 2), g)
                }
                (Elem::S8 | Elem::U8, _) => (4 * t + i, g),
                _ => (t, g),
            },
        }
    }

    /// Unpacks a fragment (`regs[r][lane]`) into a dense row-major matrix of element bits.
    fn unpack(&self, op: Operand, regs: &[[u64; 32]]) -> Vec<u64> {
        let (rows, cols) = self.dims(op);
        let e = self.elem(op);
        let (w, per) = (e.bits(), e.per_reg());
        let mask = if w == 64 { u64::MAX } else { (1 << w) - 1 };
        let mut out = vec![0u64; (rows * cols) as usize];
        for lane in 0..32u32 {
            for i in 0..self.elems(op) {
                let word = regs[i / per][lane as usize];
                let bits = (word >> ((i % per) as u32 * w)) & mask;
                let (r, c) = self.pos(op, lane, i as u32);
                out[(r * cols + c) as usize] = bits;
            }
        }
        out
    }

    /// Packs a dense row-major matrix of element bits into D's fragment registers.
    fn pack(&self, dense: &[u64]) -> Vec<[u64; 32]> {
        let op = Operand::D;
        let (_, cols) = self.dims(op);
        let e = self.elem(op);
        let (w, per) = (e.bits(), e.per_reg());
        let mut out = vec![[0u64; 32]; self.regs(op)];
        for lane in 0..32u32 {
            for i in 0..self.elems(op) {
                let (r, c) = self.pos(op, lane, i as u32);
                let bits = dense[(r * cols + c) as usize];
                out[i / per][lane as usize] |= bits << ((i % per) as u32 * w);
            }
        }
        out
    }
}

/// Executes `D = A·B + C` on whole-warp fragments: `a`, `b`, `c` hold `spec.regs(op)` registers
/// of 32 lanes each; returns D's registers the same way. The arithmetic is described in the module
/// documentation.
pub fn mma(spec: &MmaSpec, a: &[[u64; 32]], b: &[[u64; 32]], c: &[[u64; 32]]) -> Vec<[u64; 32]> {
    let (am, bm, cm) = (
        spec.unpack(Operand::A, a),
        spec.unpack(Operand::B, b),
        spec.unpack(Operand::C, c),
    );
    spec.pack(&matmul(
        spec,
        spec.m as usize,
        (&am, &bm, &cm),
        (false, false),
    ))
}

/// `D = A·B + C` on dense row-major element bits: A is `m`×K, B K×N, C and the result `m`×N
/// (`spec` gives K, N, the element types and `.satfinite`; `m` may differ from `spec.m`, as for
/// one warp's rows of a `wgmma`). `neg`: negate A / B (floating types). Each input element is
/// converted once; the order and precision are those of the module documentation.
pub fn matmul(
    spec: &MmaSpec,
    m: usize,
    (a, b, c): (&[u64], &[u64], &[u64]),
    (neg_a, neg_b): (bool, bool),
) -> Vec<u64> {
    let (n, k) = (spec.n as usize, spec.k as usize);
    let mut d = vec![0u64; m * n];
    match spec.d {
        Elem::S32 => {
            let av: Vec<i64> = a.iter().map(|&x| spec.a.int_value(x)).collect();
            let bv: Vec<i64> = b.iter().map(|&x| spec.b.int_value(x)).collect();
            for (i, (drow, crow)) in d.chunks_mut(n).zip(c.chunks(n)).enumerate() {
                for (j, (dij, &cij)) in drow.iter_mut().zip(crow).enumerate() {
                    let mut acc = spec.c.int_value(cij);
                    for x in 0..k {
                        acc += av[i * k + x] * bv[x * n + j];
                    }
                    if spec.satfinite {
                        acc = acc.clamp(i64::from(i32::MIN), i64::from(i32::MAX));
                    }
                    *dij = u64::from(acc as u32);
                }
            }
        }
        Elem::F64 => {
            let sign = |neg: bool| if neg { -1.0 } else { 1.0 };
            let av: Vec<f64> = a.iter().map(|&x| spec.a.value(x) * sign(neg_a)).collect();
            let bv: Vec<f64> = b.iter().map(|&x| spec.b.value(x) * sign(neg_b)).collect();
            for (i, (drow, crow)) in d.chunks_mut(n).zip(c.chunks(n)).enumerate() {
                for (j, (dij, &cij)) in drow.iter_mut().zip(crow).enumerate() {
                    let mut acc = spec.c.value(cij);
                    for x in 0..k {
                        acc = av[i * k + x].mul_add(bv[x * n + j], acc);
                    }
                    *dij = if acc.is_nan() {
                        float::F64.canonical_nan()
                    } else {
                        acc.to_bits()
                    };
                }
            }
        }
        _ => {
            // Inputs of at most 11 significant bits: every value is exact in f32.
            let sign = |neg: bool| if neg { -1.0 } else { 1.0 };
            let av: Vec<f32> = a
                .iter()
                .map(|&x| (spec.a.value(x) * sign(neg_a)) as f32)
                .collect();
            let bv: Vec<f32> = b
                .iter()
                .map(|&x| (spec.b.value(x) * sign(neg_b)) as f32)
                .collect();
            let fmt = if spec.d == Elem::F16 {
                float::F16
            } else {
                float::F32
            };
            let fp8 = matches!(spec.a, Elem::E4m3 | Elem::E5m2);
            let mut products = vec![0f64; k];
            for (i, (drow, crow)) in d.chunks_mut(n).zip(c.chunks(n)).enumerate() {
                for (j, (dij, &cij)) in drow.iter_mut().zip(crow).enumerate() {
                    let mut acc = spec.c.value(cij) as f32;
                    if fp8 {
                        for x in 0..k {
                            acc = av[i * k + x].mul_add(bv[x * n + j], acc);
                        }
                    } else {
                        for (x, p) in products.iter_mut().enumerate() {
                            *p = f64::from(av[i * k + x]) * f64::from(bv[x * n + j]);
                        }
                        acc = block_fma(acc, &products);
                    }
                    *dij = if acc.is_nan() {
                        fmt.canonical_nan()
                    } else if spec.d == Elem::F32 {
                        u64::from(acc.to_bits())
                    } else {
                        float::from_f64(f64::from(acc), fmt, Rnd::Rn)
                    };
                }
            }
        }
    }
    d
}

/// Bits the block FMA keeps below the largest addend's leading bit, that bit included.
const BLOCK_FMA_BITS: i32 = 27;

/// `c + Σ products` as one tensor-core instruction computes it for f16/bf16/tf32 inputs (the
/// model in the module documentation): every addend truncated toward zero to a multiple of
/// `2^(E − 26)`, `E` the largest addend's exponent, the truncated addends summed exactly, the
/// sum rounded toward zero to f32. Every product must be exact in f64 (inputs of at most 11
/// significant bits); then every step here is exact in f64 too: the truncated addends are
/// integers times `2^(E − 26)` below `2^(E + 1)`, and K + 1 ≤ 33 of them sum below `2^33` units.
pub fn block_fma(c: f32, products: &[f64]) -> f32 {
    let c = f64::from(c);
    let finite = c.is_finite() && products.iter().all(|p| p.is_finite());
    if !finite {
        return (c + products.iter().sum::<f64>()) as f32;
    }
    let exponent = |x: f64| ((x.to_bits() >> 52) & 0x7ff) as i32 - 1023;
    let Some(e_max) = std::iter::once(c)
        .chain(products.iter().copied())
        .filter(|x| *x != 0.0)
        .map(exponent)
        .max()
    else {
        return c as f32;
    };
    let quantum = 2f64.powi(e_max - (BLOCK_FMA_BITS - 1));
    let sum: f64 = std::iter::once(c)
        .chain(products.iter().copied())
        .map(|x| (x / quantum).trunc() * quantum)
        .sum();
    f32::from_bits(float::from_f64(sum, float::F32, Rnd::Rz) as u32)
}

/// Who holds element (`row`, `col`) of an 8×8 matrix of 16-bit elements in an `ldmatrix` or
/// `stmatrix` fragment: (lane, half), half 0 being the low 16 bits of the lane's register for
/// that matrix.
///
/// Without `.trans` lane `l` holds row `l / 4`, elements `2·(l % 4)` (low) and `2·(l % 4) + 1`
/// (high); with `.trans` it holds column `l / 4`, rows `2·(l % 4)` (low) and `2·(l % 4) + 1`
/// (high) — the matrix is transposed on the way between memory and registers.
pub fn matrix_holder(row: u32, col: u32, trans: bool) -> (usize, u32) {
    let (major, minor) = if trans { (col, row) } else { (row, col) };
    ((4 * major + minor / 2) as usize, minor & 1)
}

/// The lane that supplies the address of row `row` of matrix `i` (`ldmatrix`, `stmatrix`):
/// threads `8i … 8i+7` give matrix `i`'s rows, in order.
pub fn row_addr_lane(i: u32, row: u32) -> usize {
    (8 * i + row) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(shape: &str, t: [Type; 4], words: &[&str]) -> MmaSpec {
        let mut w = vec!["sync", "aligned", "row", "col"];
        w.extend_from_slice(words);
        MmaSpec::parse(shape, &t, &w).expect("supported form")
    }

    /// Each (row, col) of each operand is held by exactly one (lane, element).
    #[test]
    fn layouts_are_bijections() {
        use Type::*;
        let specs = [
            spec("m16n8k16", [F32, F16, F16, F32], &[]),
            spec("m16n8k8", [F16, F16, F16, F16], &[]),
            spec("m16n8k16", [F32, Bf16, Bf16, F32], &[]),
            spec("m16n8k8", [F32, Tf32, Tf32, F32], &[]),
            spec("m16n8k4", [F32, Tf32, Tf32, F32], &[]),
            spec("m16n8k32", [S32, S8, U8, S32], &[]),
            spec("m16n8k16", [S32, S8, S8, S32], &[]),
            spec("m8n8k16", [S32, U8, U8, S32], &[]),
            spec("m8n8k4", [F64, F64, F64, F64], &[]),
        ];
        for s in specs {
            for op in [Operand::A, Operand::B, Operand::C] {
                let (r, c) = s.dims(op);
                let mut seen = vec![0u32; (r * c) as usize];
                for lane in 0..32 {
                    for i in 0..s.elems(op) as u32 {
                        let (x, y) = s.pos(op, lane, i);
                        assert!(x < r && y < c, "{s:?} {op:?} lane {lane} elem {i}");
                        seen[(x * c + y) as usize] += 1;
                    }
                }
                assert!(seen.iter().all(|&n| n == 1), "{s:?} {op:?}: {seen:?}");
            }
        }
    }

    /// Spot checks against the ISA's fragment figures (lane 5: group 1, thread 1).
    #[test]
    fn layouts_match_the_isa_figures() {
        use Type::*;
        let s = spec("m16n8k16", [F32, F16, F16, F32], &[]);
        // A: a0,a1 row g cols 2t,2t+1; a2,a3 row g+8; a4..a7 columns +8.
        assert_eq!(s.pos(Operand::A, 5, 0), (1, 2));
        assert_eq!(s.pos(Operand::A, 5, 3), (9, 3));
        assert_eq!(s.pos(Operand::A, 5, 4), (1, 10));
        assert_eq!(s.pos(Operand::A, 5, 7), (9, 11));
        // B: b0,b1 rows 2t,2t+1; b2,b3 rows 2t+8, 2t+9; column g.
        assert_eq!(s.pos(Operand::B, 5, 1), (3, 1));
        assert_eq!(s.pos(Operand::B, 5, 2), (10, 1));
        // C: c0,c1 row g, c2,c3 row g+8.
        assert_eq!(s.pos(Operand::C, 5, 3), (9, 3));
        let t = spec("m16n8k8", [F32, Tf32, Tf32, F32], &[]);
        assert_eq!(t.pos(Operand::A, 5, 1), (9, 1));
        assert_eq!(t.pos(Operand::A, 5, 2), (1, 5));
        assert_eq!(t.pos(Operand::B, 5, 1), (5, 1));
        let i = spec("m16n8k32", [S32, S8, S8, S32], &[]);
        assert_eq!(i.pos(Operand::A, 5, 5), (9, 5));
        assert_eq!(i.pos(Operand::A, 5, 8), (1, 20));
        assert_eq!(i.pos(Operand::B, 5, 4), (20, 1));
        let f = spec("m8n8k4", [F64, F64, F64, F64], &[]);
        assert_eq!(f.pos(Operand::A, 5, 0), (1, 1));
        assert_eq!(f.pos(Operand::C, 5, 1), (1, 3));
    }

    #[test]
    fn register_counts() {
        use Type::*;
        let s = spec("m16n8k16", [F32, F16, F16, F32], &[]);
        assert_eq!(
            [Operand::A, Operand::B, Operand::C, Operand::D].map(|o| s.regs(o)),
            [4, 2, 4, 4]
        );
        let h = spec("m16n8k16", [F16, F16, F16, F16], &[]);
        assert_eq!(h.regs(Operand::D), 2);
        let i = spec("m16n8k32", [S32, S8, S8, S32], &[]);
        assert_eq!([i.regs(Operand::A), i.regs(Operand::B)], [4, 2]);
        let f = spec("m8n8k4", [F64, F64, F64, F64], &[]);
        assert_eq!([f.regs(Operand::A), f.regs(Operand::C)], [1, 2]);
        assert_eq!(f.reg_bits(Operand::A), 64);
    }

    #[test]
    fn rejects_unsupported_forms() {
        use Type::*;
        let w = ["sync", "aligned", "row", "col"];
        assert!(MmaSpec::parse("m16n8k16", &[F32, Tf32, Tf32, F32], &w).is_err());
        assert!(MmaSpec::parse("m16n8k256", &[S32, S8, S8, S32], &w).is_err());
        assert!(MmaSpec::parse("m16n8k16", &[F32, F16, F16], &w).is_err());
        assert!(MmaSpec::parse("m8n8k4", &[F32, F16, F16, F32], &["sync", "row", "row"]).is_err());
        assert!(MmaSpec::parse("m16n8k16", &[F32, E4m3, E4m3, F32], &w).is_err());
    }

    /// A warp fragment built from dense matrices through the layout (inverse of `unpack`).
    fn frag(s: &MmaSpec, op: Operand, dense: &[u64]) -> Vec<[u64; 32]> {
        let (_, cols) = s.dims(op);
        let e = s.elem(op);
        let (w, per) = (e.bits(), e.per_reg());
        let mut out = vec![[0u64; 32]; s.regs(op)];
        for lane in 0..32u32 {
            for i in 0..s.elems(op) {
                let (r, c) = s.pos(op, lane, i as u32);
                out[i / per][lane as usize] |=
                    dense[(r * cols + c) as usize] << ((i % per) as u32 * w);
            }
        }
        out
    }

    fn f16(x: f64) -> u64 {
        float::from_f64(x, float::F16, Rnd::Rn)
    }

    #[test]
    fn f16_matmul_equals_reference() {
        use Type::*;
        let s = spec("m16n8k16", [F32, F16, F16, F32], &[]);
        let a: Vec<f64> = (0..16 * 16)
            .map(|i| f64::from(i * 7 % 23 - 11) / 8.0)
            .collect();
        let b: Vec<f64> = (0..16 * 8)
            .map(|i| f64::from(i * 5 % 17 - 8) / 4.0)
            .collect();
        let c: Vec<f64> = (0..16 * 8).map(|i| f64::from(i) / 2.0).collect();
        let fa = frag(
            &s,
            Operand::A,
            &a.iter().map(|&x| f16(x)).collect::<Vec<_>>(),
        );
        let fb = frag(
            &s,
            Operand::B,
            &b.iter().map(|&x| f16(x)).collect::<Vec<_>>(),
        );
        let fc = frag(
            &s,
            Operand::C,
            &c.iter()
                .map(|&x| u64::from((x as f32).to_bits()))
                .collect::<Vec<_>>(),
        );
        let d = s.unpack(Operand::D, &mma(&s, &fa, &fb, &fc));
        for i in 0..16 {
            for j in 0..8 {
                let want: f64 =
                    c[i * 8 + j] + (0..16).map(|k| a[i * 16 + k] * b[k * 8 + j]).sum::<f64>();
                assert_eq!(
                    f32::from_bits(d[i * 8 + j] as u32),
                    want as f32,
                    "D[{i}][{j}]"
                );
            }
        }
    }

    /// One block FMA per instruction: 2^24 + 1 + 1 keeps both ones (sequential round-to-nearest
    /// FMAs would lose both), the sum is truncated toward zero to f32, and an addend 27 or more
    /// binades below the largest is dropped.
    #[test]
    fn accumulation_is_one_truncating_block_fma() {
        use Type::*;
        let s = spec("m16n8k8", [F32, F16, F16, F32], &[]);
        let run = |c0: f32, a01: [f64; 2]| {
            let mut a = vec![0u64; 16 * 8];
            let mut b = vec![0u64; 8 * 8];
            let mut c = vec![0u64; 16 * 8];
            a[0] = f16(a01[0]);
            a[1] = f16(a01[1]);
            b[0] = f16(1.0);
            b[8] = f16(1.0);
            c[0] = u64::from(c0.to_bits());
            let d = mma(
                &s,
                &frag(&s, Operand::A, &a),
                &frag(&s, Operand::B, &b),
                &frag(&s, Operand::C, &c),
            );
            // Lane 0 holds D[0][0] in its first register.
            f32::from_bits(d[0][0] as u32)
        };
        assert_eq!(run(16_777_216.0, [1.0, 1.0]), 16_777_218.0);
        // 2^24 + 1: not representable; toward zero, not to the even neighbour above.
        assert_eq!(run(16_777_216.0, [1.0, 0.0]), 16_777_216.0);
        assert_eq!(run(-16_777_216.0, [-1.0, 0.0]), -16_777_216.0);
        // 1 + 2^-24 + 2^-24: the addends sit 24 binades down, inside the 27 kept bits, and sum
        // to 2^-23, one f32 ulp of 1.
        let tiny = 2f64.powi(-24);
        assert_eq!(run(1.0, [tiny, tiny]), 1.0 + f32::EPSILON);
        // Exactly representable sums are exact.
        assert_eq!(run(0.5, [0.25, -0.125]), 0.625);
    }

    #[test]
    fn block_fma_drops_what_lies_below_its_window_and_keeps_ieee_specials() {
        // 2^-27 below a leading 1.0 is outside the 27-bit window: dropped, even twice.
        let e = 2f64.powi(-27);
        assert_eq!(block_fma(1.0, &[e, e]), 1.0);
        assert_eq!(block_fma(0.0, &[e, e]), (2.0 * e) as f32);
        assert_eq!(block_fma(0.0, &[]), 0.0);
        assert!(block_fma(f32::INFINITY, &[1.0]).is_infinite());
        assert!(block_fma(1.0, &[f64::NAN]).is_nan());
    }

    #[test]
    fn f16_accumulator_rounds_once() {
        use Type::*;
        let s = spec("m16n8k8", [F16, F16, F16, F16], &[]);
        let mut a = vec![0u64; 16 * 8];
        let mut b = vec![0u64; 8 * 8];
        // 2049 is not an f16 (spacing 2 above 2048): 2048 + 1 rounds to even, 2048.
        a[0] = f16(2048.0);
        a[1] = f16(1.0);
        b[0] = f16(1.0);
        b[8] = f16(1.0);
        let c = vec![0u64; 16 * 8];
        let d = mma(
            &s,
            &frag(&s, Operand::A, &a),
            &frag(&s, Operand::B, &b),
            &frag(&s, Operand::C, &c),
        );
        assert_eq!(d[0][0] & 0xffff, f16(2048.0));
        // Lane 1 holds D[0][2], D[0][3]: zero.
        assert_eq!(d[0][1], 0);
    }

    #[test]
    fn integer_mma_wraps_or_saturates() {
        use Type::*;
        for sat in [false, true] {
            let words: &[&str] = if sat { &["satfinite"] } else { &[] };
            let s = spec("m16n8k32", [S32, S8, U8, S32], words);
            let a = vec![0x7fu64; 16 * 32]; // 127
            let b = vec![0xffu64; 32 * 8]; // 255 (unsigned)
            let c = vec![0x7fff_ffffu64; 16 * 8];
            let d = mma(
                &s,
                &frag(&s, Operand::A, &a),
                &frag(&s, Operand::B, &b),
                &frag(&s, Operand::C, &c),
            );
            // 0x7fffffff + 32·127·255 = 0x7fffffff + 1036320
            let exact = 0x7fff_ffffi64 + 32 * 127 * 255;
            let expect = if sat {
                0x7fff_ffff
            } else {
                exact as u64 & 0xffff_ffff
            };
            assert_eq!(d[0][0], expect, "satfinite {sat}");
        }
        let s = spec("m16n8k32", [S32, S8, S8, S32], &[]);
        let a = vec![0x80u64; 16 * 32]; // -128
        let b = vec![0x02u64; 32 * 8];
        let c = vec![5u64; 16 * 8];
        let d = mma(
            &s,
            &frag(&s, Operand::A, &a),
            &frag(&s, Operand::B, &b),
            &frag(&s, Operand::C, &c),
        );
        assert_eq!(d[3][7] as u32 as i32, 5 - 32 * 256);
    }

    #[test]
    fn tf32_ignores_low_bits_and_f64_is_exact() {
        use Type::*;
        let s = spec("m16n8k8", [F32, Tf32, Tf32, F32], &[]);
        let mut a = vec![0u64; 16 * 8];
        let mut b = vec![0u64; 8 * 8];
        a[0] = u64::from(1.0f32.to_bits() | 0x1fff); // low 13 bits ignored
        b[0] = u64::from(3.0f32.to_bits());
        let c = vec![0u64; 16 * 8];
        let d = mma(
            &s,
            &frag(&s, Operand::A, &a),
            &frag(&s, Operand::B, &b),
            &frag(&s, Operand::C, &c),
        );
        assert_eq!(f32::from_bits(d[0][0] as u32), 3.0);
        let f = spec("m8n8k4", [F64, F64, F64, F64], &[]);
        let a: Vec<u64> = (0..32)
            .map(|i| (1.0 + f64::from(i) / 1024.0).to_bits())
            .collect();
        let b: Vec<u64> = (0..32).map(|i| (f64::from(i) - 0.5).to_bits()).collect();
        let c: Vec<u64> = (0..64).map(|i| f64::from(i).to_bits()).collect();
        let d = f.unpack(
            Operand::D,
            &mma(
                &f,
                &frag(&f, Operand::A, &a),
                &frag(&f, Operand::B, &b),
                &frag(&f, Operand::C, &c),
            ),
        );
        let av = |i: usize| f64::from_bits(a[i]);
        let bv = |i: usize| f64::from_bits(b[i]);
        for i in 0..8 {
            for j in 0..8 {
                let mut acc = i as f64 * 8.0 + j as f64;
                for k in 0..4 {
                    acc = av(i * 4 + k).mul_add(bv(k * 8 + j), acc);
                }
                assert_eq!(f64::from_bits(d[i * 8 + j]), acc);
            }
        }
    }

    #[test]
    fn fp8_values_and_mma() {
        assert_eq!(Elem::E4m3.value(0x38), 1.0);
        assert_eq!(Elem::E4m3.value(0x7e), 448.0);
        assert_eq!(Elem::E4m3.value(0x01), 2f64.powi(-9));
        assert_eq!(Elem::E4m3.value(0xc0), -2.0);
        assert!(Elem::E4m3.value(0x7f).is_nan());
        assert_eq!(Elem::E5m2.value(0x3c), 1.0);
        assert_eq!(Elem::E5m2.value(0x7b), 57344.0);
        assert_eq!(Elem::E5m2.value(0x7c), f64::INFINITY);
        assert!(Elem::E5m2.value(0x7d).is_nan());
        use Type::*;
        let s = spec("m16n8k32", [F32, E4m3, E5m2, F32], &[]);
        let a = vec![0x38u64; 16 * 32]; // 1.0
        let b = vec![0xc0u64; 32 * 8]; // e5m2 -2.0
        let c = vec![u64::from(1f32.to_bits()); 16 * 8];
        let d = mma(
            &s,
            &frag(&s, Operand::A, &a),
            &frag(&s, Operand::B, &b),
            &frag(&s, Operand::C, &c),
        );
        assert_eq!(f32::from_bits(d[2][9] as u32), 1.0 - 64.0);
    }

    #[test]
    fn ldmatrix_holders() {
        // Plain: lane 13 holds row 3, elements 2 and 3.
        assert_eq!(matrix_holder(3, 2, false), (13, 0));
        assert_eq!(matrix_holder(3, 3, false), (13, 1));
        // Transposed: lane 13 holds column 3, rows 2 and 3.
        assert_eq!(matrix_holder(2, 3, true), (13, 0));
        assert_eq!(matrix_holder(3, 3, true), (13, 1));
        let mut seen = [0u32; 64];
        for r in 0..8 {
            for c in 0..8 {
                let (l, h) = matrix_holder(r, c, true);
                seen[l * 2 + h as usize] += 1;
            }
        }
        assert!(seen.iter().all(|&n| n == 1));
        assert_eq!(row_addr_lane(2, 5), 21);
    }
}
