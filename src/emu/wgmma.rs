//! Warpgroup matrix multiply-accumulate, `wgmma.mma_async` (PTX ISA §9.7.15): the instruction
//! forms, the shared-memory matrix descriptors with their swizzle modes (§9.7.15.5.1.2, "Shared
//! memory matrix layout" and "Matrix descriptor"), and the register fragments (§9.7.15.5.1.1).
//!
//! A warpgroup (four consecutive warps, 128 threads) computes `D (64×N) = A (64×K) · B (K×N)
//! [+ D]`. Warp `w` of the group holds rows `16w … 16w+15` of D (and of A when A is in registers),
//! and those rows depend only on its own rows of A, all of B (shared memory) and its own
//! accumulators — so the emulator computes each warp's 16 rows when that warp executes the
//! instruction, without waiting for the other three. The arithmetic is [`super::tensor::matmul`]'s
//! (one fixed order; see docs/emulator.md).
//!
//! # Shared-memory layouts
//!
//! A descriptor gives the start address, the leading- and stride-dimension byte offsets (LBO, SBO)
//! and the swizzle mode. With `e` the element size in bytes, `W` the swizzle width (32, 64 or 128
//! bytes), element (`mn`, `k`) of an operand (`mn` the row of A or column of B) lies at:
//!
//! - K-major (`imm-trans` 0), swizzled: `start + (mn mod 8)·W + (mn div 8)·SBO + k·e`;
//!   not swizzled ("interleaved" 8×16-byte core matrices): `start + (mn mod 8)·16 +
//!   (mn div 8)·SBO + (k·e mod 16) + (k·e div 16)·LBO`.
//! - MN-major (`imm-trans` 1), swizzled: `start + (mn·e mod W) + (mn·e div W)·LBO + (k mod 8)·W +
//!   (k div 8)·SBO`; not swizzled: `start + (mn·e mod 16) + (mn·e div 16)·SBO + (k mod 8)·16 +
//!   (k div 8)·LBO`.
//!
//! and the swizzle then XORs the 16-byte chunk index within a `W`-byte row (address bits 4…)
//! with the row index within the pattern (address bits 7…): `a ^ ((a >> 7) mod (W/16)) << 4`,
//! on the shared-memory address itself (the patterns repeat at 256/512/1024-byte boundaries;
//! a descriptor with a non-zero base offset is refused).

use super::tensor::{self, Elem, MmaSpec};
use crate::ptx::ir::Type;

/// A decoded `wgmma.mma_async.sync.aligned.m64nNkK.<d>.<a>.<b>` form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WgmmaSpec {
    /// Columns of B and D (8 … 256).
    pub n: u32,
    /// Depth (16 for 16-bit inputs, 8 for tf32, 32 for 8-bit inputs).
    pub k: u32,
    /// D's (and the accumulator's) element type.
    pub d: Elem,
    /// A's element type.
    pub a: Elem,
    /// B's element type.
    pub b: Elem,
    /// `.satfinite` (integer forms).
    pub satfinite: bool,
}

impl WgmmaSpec {
    /// Decodes the shape word and the three types (`.dtype.atype.btype`).
    pub fn parse(shape: &str, types: &[Type], satfinite: bool) -> Result<WgmmaSpec, String> {
        let bad = || format!("wgmma shape .{shape} is not supported");
        let rest = shape.strip_prefix("m64n").ok_or_else(bad)?;
        let (n, k) = rest.split_once('k').ok_or_else(bad)?;
        let (n, k): (u32, u32) = (n.parse().map_err(|_| bad())?, k.parse().map_err(|_| bad())?);
        let [d, a, b] = types else {
            return Err("wgmma needs three types (.dtype.atype.btype)".into());
        };
        let ty = |t: &Type| {
            Elem::of(*t).ok_or_else(|| format!("wgmma element type .{t} is not supported"))
        };
        let spec = WgmmaSpec {
            n,
            k,
            d: ty(d)?,
            a: ty(a)?,
            b: ty(b)?,
            satfinite,
        };
        use Elem::*;
        let ok_k = match (spec.a, spec.b) {
            (F16, F16) => k == 16 && matches!(spec.d, F16 | F32),
            (Bf16, Bf16) => k == 16 && spec.d == F32,
            (Tf32, Tf32) => k == 8 && spec.d == F32,
            (E4m3 | E5m2, E4m3 | E5m2) => k == 32 && matches!(spec.d, F16 | F32),
            (S8 | U8, S8 | U8) => k == 32 && spec.d == S32,
            _ => false,
        };
        let ok_n = n % 8 == 0
            && (8..=256).contains(&n)
            && (spec.d != S32 || n % 16 == 0 || n == 8 || n == 24);
        if !ok_k || !ok_n {
            return Err(format!(
                "wgmma.m64n{n}k{k} .{}.{}.{} is not supported",
                spec.d, spec.a, spec.b
            ));
        }
        if satfinite && spec.d != S32 {
            return Err("wgmma .satfinite on a floating-point form is not supported".into());
        }
        Ok(spec)
    }

    /// Registers per thread of D (f16 D: two elements per register).
    pub fn d_regs(&self) -> usize {
        (self.n / 2) as usize / self.d.per_reg()
    }

    /// Registers per thread of A when A is in registers.
    pub fn a_regs(&self) -> usize {
        4
    }

    /// Bytes per element of A and B.
    pub fn elem_bytes(&self) -> u32 {
        self.a.bits() / 8
    }

    /// The element types and `.satfinite` in the form [`tensor::matmul`] takes.
    fn arith(&self) -> MmaSpec {
        MmaSpec {
            m: 16,
            n: self.n,
            k: self.k,
            d: self.d,
            a: self.a,
            b: self.b,
            c: self.d,
            satfinite: self.satfinite,
        }
    }
}

/// (row within the warp's 16, column) of accumulator element `i` of `lane`: per 8-column group
/// `i / 4`: (g, 2t), (g, 2t+1), (g+8, 2t), (g+8, 2t+1).
pub fn d_pos(lane: u32, i: u32) -> (u32, u32) {
    let (g, t) = (lane >> 2, lane & 3);
    (g + 8 * ((i >> 1) & 1), 8 * (i >> 2) + 2 * t + (i & 1))
}

/// (row within the warp's 16, k) of element `i` of `lane`'s A registers: the `mma.m16n8k16`
/// layout for 16-bit types (`k` = 16), the `m16n8k8` tf32 layout, the `m16n8k32` one for 8-bit
/// types.
pub fn a_pos(spec: &WgmmaSpec, lane: u32, i: u32) -> (u32, u32) {
    let (g, t) = (lane >> 2, lane & 3);
    match spec.a.bits() {
        16 => (g + 8 * ((i >> 1) & 1), 2 * t + (i & 1) + 8 * (i >> 2)),
        32 => (g + 8 * (i & 1), t + 4 * (i >> 1)),
        _ => (g + 8 * ((i >> 2) & 1), 4 * t + (i & 3) + 16 * (i >> 3)),
    }
}

/// The swizzle mode of a descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Swizzle {
    /// No swizzling (8×16-byte core matrices).
    None,
    /// 32-byte swizzle.
    B32,
    /// 64-byte swizzle.
    B64,
    /// 128-byte swizzle.
    B128,
}

impl Swizzle {
    /// The row width in bytes (16 for no swizzle).
    pub fn width(self) -> u64 {
        match self {
            Swizzle::None => 16,
            Swizzle::B32 => 32,
            Swizzle::B64 => 64,
            Swizzle::B128 => 128,
        }
    }

    /// Applies the XOR pattern to a shared-memory byte address.
    pub fn apply(self, a: u64) -> u64 {
        let chunks = self.width() / 16; // 1, 2, 4, 8
        a ^ (((a >> 7) & (chunks - 1)) << 4)
    }
}

/// A decoded shared-memory matrix descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Desc {
    /// Start address (shared-memory offset).
    pub start: u64,
    /// Leading-dimension byte offset.
    pub lbo: u64,
    /// Stride-dimension byte offset.
    pub sbo: u64,
    /// Swizzle mode.
    pub swizzle: Swizzle,
}

impl Desc {
    /// Decodes a 64-bit descriptor (bits 0–13 start >> 4, 16–29 LBO >> 4, 32–45 SBO >> 4,
    /// 49–51 base offset, 62–63 swizzle: 0 none, 1 128B, 2 64B, 3 32B).
    pub fn decode(v: u64) -> Result<Desc, String> {
        let field = |lo: u32| ((v >> lo) & 0x3fff) << 4;
        let base_offset = (v >> 49) & 7;
        if base_offset != 0 {
            return Err(format!(
                "wgmma descriptor {v:#018x} has a non-zero matrix base offset ({base_offset}), \
                 which is not supported"
            ));
        }
        let swizzle = match v >> 62 {
            0 => Swizzle::None,
            1 => Swizzle::B128,
            2 => Swizzle::B64,
            _ => Swizzle::B32,
        };
        Ok(Desc {
            start: field(0),
            lbo: field(16),
            sbo: field(32),
            swizzle,
        })
    }

    /// The shared-memory address of element (`mn`, `k`) of `e`-byte elements (module
    /// documentation); `mn_major`: the instruction's `imm-trans` is 1.
    pub fn addr(&self, mn: u32, k: u32, e: u32, mn_major: bool) -> u64 {
        let (mn, k, e) = (u64::from(mn), u64::from(k), u64::from(e));
        let w = self.swizzle.width();
        let logical = if self.swizzle == Swizzle::None {
            if mn_major {
                (mn * e % 16) + (mn * e / 16) * self.sbo + (k % 8) * 16 + (k / 8) * self.lbo
            } else {
                (mn % 8) * 16 + (mn / 8) * self.sbo + (k * e % 16) + (k * e / 16) * self.lbo
            }
        } else if mn_major {
            (mn * e % w) + (mn * e / w) * self.lbo + (k % 8) * w + (k / 8) * self.sbo
        } else {
            (mn % 8) * w + (mn / 8) * self.sbo + k * e
        };
        self.swizzle.apply(self.start + logical)
    }
}

/// One warp's share of a `wgmma`: `a` holds its 16 rows of A (16×K element bits, row-major),
/// `b` all of B (K×N, row-major), `acc` its D registers (`[reg][lane]`, ignored when
/// `!scale_d`); `neg` is `imm-scale-a/b` = −1. Returns the new D registers.
pub fn compute(
    spec: &WgmmaSpec,
    a: &[u64],
    b: &[u64],
    acc: &[[u64; 32]],
    scale_d: bool,
    neg: (bool, bool),
) -> Vec<[u64; 32]> {
    let n = spec.n as usize;
    let (w, per) = (spec.d.bits(), spec.d.per_reg());
    let mask = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
    // Accumulators to a dense 16×N matrix (+0 everywhere without scale-d).
    let mut c = vec![0u64; 16 * n];
    if scale_d {
        for lane in 0..32u32 {
            for i in 0..(spec.n / 2) {
                let (r, col) = d_pos(lane, i);
                let (reg, sh) = (i as usize / per, (i as usize % per) as u32 * w);
                c[r as usize * n + col as usize] = (acc[reg][lane as usize] >> sh) & mask;
            }
        }
    }
    let d = tensor::matmul(&spec.arith(), 16, (a, b, &c), neg);
    let mut out = vec![[0u64; 32]; spec.d_regs()];
    for lane in 0..32u32 {
        for i in 0..(spec.n / 2) {
            let (r, col) = d_pos(lane, i);
            let (reg, sh) = (i as usize / per, (i as usize % per) as u32 * w);
            out[reg][lane as usize] |= d[r as usize * n + col as usize] << sh;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_forms_triton_emits() {
        use Type::*;
        let s = WgmmaSpec::parse("m64n128k16", &[F32, F16, F16], false).unwrap();
        assert_eq!((s.n, s.k, s.d_regs()), (128, 16, 64));
        let h = WgmmaSpec::parse("m64n64k16", &[F16, F16, F16], false).unwrap();
        assert_eq!(h.d_regs(), 16);
        let i = WgmmaSpec::parse("m64n128k32", &[S32, S8, S8], true).unwrap();
        assert_eq!((i.k, i.elem_bytes()), (32, 1));
        assert!(WgmmaSpec::parse("m64n256k32", &[F32, E4m3, E4m3], false).is_ok());
        assert!(WgmmaSpec::parse("m64n64k8", &[F32, F16, F16], false).is_err());
        assert!(WgmmaSpec::parse("m64n260k16", &[F32, F16, F16], false).is_err());
        assert!(WgmmaSpec::parse("m32n64k16", &[F32, F16, F16], false).is_err());
    }

    #[test]
    fn descriptor_fields() {
        // Triton's sm_90 matmul: A 64B swizzle, SBO 512; B 128B swizzle, SBO 1024.
        let a = Desc::decode(0x8000_0020_0000_0000 | 0x40).unwrap();
        assert_eq!(
            (a.start, a.lbo, a.sbo, a.swizzle),
            (0x400, 0, 512, Swizzle::B64)
        );
        let b = Desc::decode(0x4000_0040_0001_0000).unwrap();
        assert_eq!((b.lbo, b.sbo, b.swizzle), (16, 1024, Swizzle::B128));
        assert_eq!(
            Desc::decode(0xc000_0000_0000_0000).unwrap().swizzle,
            Swizzle::B32
        );
        assert!(Desc::decode(1 << 49).is_err());
    }

    #[test]
    fn swizzle_patterns() {
        // 128B: chunk c of row r (r < 8) lands at chunk c ^ r.
        for r in 0..8u64 {
            for c in 0..8u64 {
                assert_eq!(
                    Swizzle::B128.apply(r * 128 + c * 16 + 2),
                    r * 128 + ((c ^ r) * 16) + 2
                );
            }
        }
        // 64B: rows of 64 bytes, two rows per 128 bytes; the XOR uses address bits 7-8.
        assert_eq!(Swizzle::B64.apply(128 + 16), 128);
        assert_eq!(Swizzle::B64.apply(3 * 128 + 16), 3 * 128 + 32);
        assert_eq!(Swizzle::B32.apply(128), 128 + 16);
        assert_eq!(Swizzle::None.apply(1234), 1234);
    }

    #[test]
    fn addresses_of_each_layout() {
        let d = |sw, lbo, sbo| Desc {
            start: 0,
            lbo,
            sbo,
            swizzle: sw,
        };
        // K-major 128B, f16: row mn at mn*128 (8 rows), k contiguous; next 8 rows at SBO.
        let k128 = d(Swizzle::B128, 0, 1024);
        assert_eq!(k128.addr(0, 3, 2, false), 6);
        assert_eq!(k128.addr(1, 0, 2, false), 128 + 16); // chunk 0 ^ row 1
        assert_eq!(k128.addr(9, 8, 2, false), (1024 + 128 + 16) ^ 16);
        // K-major, no swizzle: core matrices of 8 rows × 16 bytes; k 8..16 at LBO.
        let kn = d(Swizzle::None, 256, 128);
        assert_eq!(kn.addr(3, 2, 2, false), 3 * 16 + 4);
        assert_eq!(kn.addr(3, 9, 2, false), 3 * 16 + 2 + 256);
        assert_eq!(kn.addr(10, 0, 2, false), 128 + 2 * 16);
        // MN-major 128B, f16: k-row of 64 elements (128 bytes); 8 k-rows per atom; next 8 at SBO.
        let m128 = d(Swizzle::B128, 8192, 1024);
        assert_eq!(m128.addr(5, 0, 2, false), 5 * 128 + 5 * 16);
        assert_eq!(m128.addr(5, 0, 2, true), 10);
        assert_eq!(m128.addr(8, 1, 2, true), 128); // (128 + 16) with chunk 1 ^ row 1
        assert_eq!(m128.addr(64, 8, 2, true), 8192 + 1024);
        // MN-major, no swizzle: 8 mn-elements (16 bytes) per row of a core matrix, k rows of 16.
        let mn = d(Swizzle::None, 512, 128);
        assert_eq!(mn.addr(9, 3, 2, true), 128 + 2 + 3 * 16);
        assert_eq!(mn.addr(0, 8, 2, true), 512);
    }

    #[test]
    fn accumulator_and_a_register_layouts() {
        assert_eq!(d_pos(5, 0), (1, 2));
        assert_eq!(d_pos(5, 3), (9, 3));
        assert_eq!(d_pos(5, 6), (9, 10));
        let s = WgmmaSpec::parse("m64n8k16", &[Type::F32, Type::F16, Type::F16], false).unwrap();
        assert_eq!(a_pos(&s, 5, 5), (1, 11));
        // Every (row, col) of a warp's 16×N D is held once.
        let mut seen = vec![0; 16 * 64];
        for lane in 0..32 {
            for i in 0..32 {
                let (r, c) = d_pos(lane, i);
                seen[(r * 64 + c) as usize] += 1;
            }
        }
        assert!(seen.iter().all(|&x| x == 1));
    }

    #[test]
    fn compute_with_scale_d_and_negation() {
        use Type::*;
        let s = WgmmaSpec::parse("m64n8k16", &[F32, F16, F16], false).unwrap();
        let one = 0x3c00u64; // f16 1.0
        let a = vec![one; 16 * 16];
        let b = vec![one; 16 * 8];
        let acc = vec![[u64::from(5f32.to_bits()); 32]; s.d_regs()];
        let d = compute(&s, &a, &b, &acc, true, (false, false));
        assert_eq!(f32::from_bits(d[0][0] as u32), 21.0);
        let d = compute(&s, &a, &b, &acc, false, (false, false));
        assert_eq!(f32::from_bits(d[3][31] as u32), 16.0);
        let d = compute(&s, &a, &b, &acc, true, (true, false));
        assert_eq!(f32::from_bits(d[1][7] as u32), -11.0);
        let d = compute(&s, &a, &b, &acc, true, (true, true));
        assert_eq!(f32::from_bits(d[2][9] as u32), 21.0);
    }
}
