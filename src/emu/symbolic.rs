//! The Z3 bit-vector value domain (DESIGN.md: "the emulator is written once, generic over a value
//! domain: concrete values … and Z3 bit-vectors"), used by shuffle synthesis (PTXASW, CC'23,
//! §4.1 "Instruction Encoding").
//!
//! A value is a 64-bit Z3 bit-vector holding the register's bits zero-extended, exactly like the
//! concrete domain's `u64`. Integer arithmetic, logic, shifts, comparisons, selections and
//! integer conversions are encoded precisely (same corner cases as [`super::concrete`]: division
//! by zero, shifts by the width or more). Everything else — floating point, `bfe`/`prmt`/`lop3`,
//! saturating forms — is an *uninterpreted function* of its arguments named after the operation:
//! the same operation on the same inputs gives the same value, which is all address reasoning
//! needs, and nothing more is assumed (PTXASW §4.1 carries floating point the same way).
//!
//! Values loaded from memory are uninterpreted functions of their address
//! ([`Z3Domain::load_symbolic`]); special registers become named symbols through
//! [`Z3Domain::special_symbol`].

use std::collections::HashMap;

use z3::ast::{Ast, Bool, BV};
use z3::{Context, FuncDecl, Sort};

use super::domain::{Cmp, CvtSpec, Domain, DomainError, MemAt, NumTy, Op, Space};

/// The Z3 domain over one context.
pub struct Z3Domain<'ctx> {
    ctx: &'ctx Context,
    /// Uninterpreted functions by name and arity.
    ufs: HashMap<(String, usize, u32), FuncDecl<'ctx>>,
    /// Symbols of special registers and parameters by name.
    syms: HashMap<String, BV<'ctx>>,
}

impl std::fmt::Debug for Z3Domain<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Z3Domain")
            .field("ufs", &self.ufs.len())
            .finish()
    }
}

/// Width in bits of the result of `op` (its register bits; predicates are 1).
pub fn result_bits(op: Op) -> u32 {
    match op {
        Op::Mov | Op::Select => 64,
        Op::Add { bits, .. }
        | Op::Sub { bits, .. }
        | Op::AddC { bits }
        | Op::SubC { bits }
        | Op::MulLo { bits }
        | Op::MulHi { bits, .. }
        | Op::Sad { bits, .. }
        | Op::Div { bits, .. }
        | Op::Rem { bits, .. }
        | Op::AbsI { bits }
        | Op::NegI { bits }
        | Op::MinI { bits, .. }
        | Op::MaxI { bits, .. }
        | Op::Brev { bits }
        | Op::Bfe { bits, .. }
        | Op::Bfi { bits }
        | Op::And { bits }
        | Op::Or { bits }
        | Op::Xor { bits }
        | Op::Not { bits }
        | Op::Shl { bits }
        | Op::Shr { bits, .. } => bits,
        Op::MulWide { bits, .. } => (2 * bits).min(64),
        Op::CarryOut { .. }
        | Op::SubCarryOut { .. }
        | Op::Cnot { .. }
        | Op::CmpI { .. }
        | Op::CmpF { .. }
        | Op::CmpHalf { .. }
        | Op::Testp { .. } => 1,
        Op::Ext { to, .. } => to,
        Op::Cvt(s) => s.reg_bits,
        Op::FAdd { ty, .. }
        | Op::FSub { ty, .. }
        | Op::FMul { ty, .. }
        | Op::FDiv { ty, .. }
        | Op::FFma { ty, .. }
        | Op::FMin { ty, .. }
        | Op::FMax { ty, .. }
        | Op::FNeg { ty, .. }
        | Op::FAbs { ty, .. }
        | Op::FSqrt { ty, .. }
        | Op::FRcp { ty, .. }
        | Op::FApprox { ty, .. }
        | Op::Copysign { ty } => ty.bits(),
        Op::CvtPack { .. } => 32,
        Op::CvtFp8 { how, .. } => match how {
            crate::emu::fp8::Fp8Cvt::ToF16x2 => 32,
            _ => 16,
        },
        _ => 32,
    }
}

impl<'ctx> Z3Domain<'ctx> {
    /// A domain over `ctx`.
    pub fn new(ctx: &'ctx Context) -> Z3Domain<'ctx> {
        Z3Domain {
            ctx,
            ufs: HashMap::new(),
            syms: HashMap::new(),
        }
    }

    /// The context.
    pub fn ctx(&self) -> &'ctx Context {
        self.ctx
    }

    /// A 64-bit constant.
    pub fn num(&self, v: u64) -> BV<'ctx> {
        BV::from_u64(self.ctx, v, 64)
    }

    /// The symbol `name` (created on first use), zero-extended from `bits` to 64 bits.
    pub fn special_symbol(&mut self, name: &str, bits: u32) -> BV<'ctx> {
        let ctx = self.ctx;
        self.syms
            .entry(name.to_string())
            .or_insert_with(|| {
                let s = BV::new_const(ctx, name, bits);
                if bits < 64 {
                    s.zero_ext(64 - bits)
                } else {
                    s
                }
            })
            .clone()
    }

    /// `name(args…)`: an uninterpreted function of 64-bit arguments whose result has `bits`
    /// bits, zero-extended to 64.
    pub fn uf(&mut self, name: &str, args: &[BV<'ctx>], bits: u32) -> BV<'ctx> {
        let bits = bits.clamp(1, 64);
        let ctx = self.ctx;
        let key = (name.to_string(), args.len(), bits);
        let sorts: Vec<Sort<'ctx>> = args
            .iter()
            .map(|a| Sort::bitvector(ctx, a.get_size()))
            .collect();
        let f = self.ufs.entry(key).or_insert_with(|| {
            let refs: Vec<&Sort<'ctx>> = sorts.iter().collect();
            FuncDecl::new(ctx, name, &refs, &Sort::bitvector(ctx, bits))
        });
        let dyn_args: Vec<&dyn Ast<'ctx>> = args.iter().map(|a| a as &dyn Ast<'ctx>).collect();
        let r = f
            .apply(&dyn_args)
            .as_bv()
            .expect("uninterpreted function has a bit-vector sort");
        zext64(&r)
    }

    fn low(&self, v: &BV<'ctx>, bits: u32) -> BV<'ctx> {
        low(v, bits)
    }
}

/// The low `bits` of `v` (1..=64). The low part of a zero extension is taken from the operand
/// directly, so terms keep their structure (`sign_ext(x + y)` stays visible to the prover).
pub fn low<'ctx>(v: &BV<'ctx>, bits: u32) -> BV<'ctx> {
    let bits = bits.clamp(1, 64);
    if v.get_size() == bits {
        v.clone()
    } else if v.get_size() > bits {
        if let Ok(d) = v.safe_decl() {
            if d.kind() == z3::DeclKind::ZERO_EXT {
                if let Some(c) = v.nth_child(0).and_then(|c| c.as_bv()) {
                    if c.get_size() == bits {
                        return c;
                    }
                    if c.get_size() < bits {
                        return c.zero_ext(bits - c.get_size());
                    }
                }
            }
        }
        v.extract(bits - 1, 0)
    } else {
        v.zero_ext(bits - v.get_size())
    }
}

/// `v` zero-extended to 64 bits.
pub fn zext64<'ctx>(v: &BV<'ctx>) -> BV<'ctx> {
    if v.get_size() < 64 {
        v.zero_ext(64 - v.get_size())
    } else {
        v.clone()
    }
}

fn sext_to<'ctx>(v: &BV<'ctx>, from: u32, to: u32) -> BV<'ctx> {
    let x = low(v, from);
    if to > from {
        x.sign_ext(to - from)
    } else {
        low(&x, to)
    }
}

fn bool_bv<'ctx>(ctx: &'ctx Context, b: &Bool<'ctx>) -> BV<'ctx> {
    b.ite(&BV::from_u64(ctx, 1, 64), &BV::from_u64(ctx, 0, 64))
}

fn icmp<'ctx>(cmp: Cmp, signed: bool, a: &BV<'ctx>, b: &BV<'ctx>) -> Option<Bool<'ctx>> {
    Some(match (cmp, signed) {
        (Cmp::Eq, _) => a._eq(b),
        (Cmp::Ne, _) => a._eq(b).not(),
        (Cmp::Lt, true) => a.bvslt(b),
        (Cmp::Le, true) => a.bvsle(b),
        (Cmp::Gt, true) => a.bvsgt(b),
        (Cmp::Ge, true) => a.bvsge(b),
        (Cmp::Lt, false) | (Cmp::Lo, _) => a.bvult(b),
        (Cmp::Le, false) | (Cmp::Ls, _) => a.bvule(b),
        (Cmp::Gt, false) | (Cmp::Hi, _) => a.bvugt(b),
        (Cmp::Ge, false) | (Cmp::Hs, _) => a.bvuge(b),
        _ => return None,
    })
}

impl<'ctx> Z3Domain<'ctx> {
    /// The precise encoding of `op`, or `None` when it is carried as an uninterpreted function.
    fn precise(&self, op: Op, args: &[BV<'ctx>]) -> Option<BV<'ctx>> {
        let ctx = self.ctx;
        let a = args.first();
        let b = args.get(1);
        let c = args.get(2);
        let lo = |v: Option<&BV<'ctx>>, bits: u32| v.map(|v| self.low(v, bits));
        let r = match op {
            Op::Mov => a?.clone(),
            Op::Add { bits, sat: false } => lo(a, bits)?.bvadd(&lo(b, bits)?),
            Op::Sub { bits, sat: false } => lo(a, bits)?.bvsub(&lo(b, bits)?),
            Op::AddC { bits } => lo(a, bits)?
                .bvadd(&lo(b, bits)?)
                .bvadd(&low(&lo(c, 1)?, bits)),
            Op::MulLo { bits } => lo(a, bits)?.bvmul(&lo(b, bits)?),
            Op::MulWide { bits, signed } => {
                let (x, y) = if signed {
                    (sext_to(a?, bits, 2 * bits), sext_to(b?, bits, 2 * bits))
                } else {
                    (lo(a, bits)?.zero_ext(bits), lo(b, bits)?.zero_ext(bits))
                };
                x.bvmul(&y)
            }
            Op::MulHi { bits, signed } => {
                let (x, y) = if signed {
                    (sext_to(a?, bits, 2 * bits), sext_to(b?, bits, 2 * bits))
                } else {
                    (lo(a, bits)?.zero_ext(bits), lo(b, bits)?.zero_ext(bits))
                };
                x.bvmul(&y).extract(2 * bits - 1, bits)
            }
            Op::Div { bits, signed } => {
                let (x, y) = (lo(a, bits)?, lo(b, bits)?);
                if signed {
                    let zero = BV::from_u64(ctx, 0, bits);
                    y._eq(&zero)
                        .ite(&BV::from_i64(ctx, -1, bits), &x.bvsdiv(&y))
                } else {
                    x.bvudiv(&y)
                }
            }
            Op::Rem { bits, signed } => {
                let (x, y) = (lo(a, bits)?, lo(b, bits)?);
                if signed {
                    x.bvsrem(&y)
                } else {
                    x.bvurem(&y)
                }
            }
            Op::NegI { bits } => lo(a, bits)?.bvneg(),
            Op::MinI { bits, signed } | Op::MaxI { bits, signed } => {
                let (x, y) = (lo(a, bits)?, lo(b, bits)?);
                let lt = if signed { x.bvslt(&y) } else { x.bvult(&y) };
                if matches!(op, Op::MinI { .. }) {
                    lt.ite(&x, &y)
                } else {
                    lt.ite(&y, &x)
                }
            }
            Op::And { bits } => lo(a, bits)?.bvand(&lo(b, bits)?),
            Op::Or { bits } => lo(a, bits)?.bvor(&lo(b, bits)?),
            Op::Xor { bits } => lo(a, bits)?.bvxor(&lo(b, bits)?),
            Op::Not { bits } => lo(a, bits)?.bvnot(),
            Op::Cnot { bits } => {
                return Some(bool_bv(ctx, &lo(a, bits)?._eq(&BV::from_u64(ctx, 0, bits))))
            }
            Op::Shl { bits } | Op::Shr { bits, .. } => {
                let x = lo(a, bits)?;
                // The amount is a 32-bit unsigned operand; amounts ≥ bits shift everything out.
                let amt = lo(b, 32)?;
                let constant = amt.simplify().as_u64();
                let big = amt.bvuge(&BV::from_u64(ctx, u64::from(bits), 32));
                let amt_b = if bits >= 32 {
                    amt.zero_ext(bits - 32)
                } else {
                    amt.extract(bits - 1, 0)
                };
                match op {
                    // A constant amount (the usual case): no case split, so that the analyses
                    // see `x << c` (= `x · 2^c`).
                    Op::Shl { .. } if constant.is_some_and(|c| c >= u64::from(bits)) => {
                        BV::from_u64(ctx, 0, bits)
                    }
                    Op::Shl { .. } if constant.is_some() => {
                        x.bvshl(&BV::from_u64(ctx, constant.unwrap_or(0), bits))
                    }
                    Op::Shl { .. } => big.ite(&BV::from_u64(ctx, 0, bits), &x.bvshl(&amt_b)),
                    Op::Shr { signed: true, .. } => {
                        let all = BV::from_u64(ctx, u64::from(bits - 1), bits);
                        big.ite(&x.bvashr(&all), &x.bvashr(&amt_b))
                    }
                    _ => big.ite(&BV::from_u64(ctx, 0, bits), &x.bvlshr(&amt_b)),
                }
            }
            Op::Ext { from, to, signed } => {
                if signed {
                    sext_to(a?, from, to)
                } else {
                    low(&lo(a, from.min(to))?, to)
                }
            }
            Op::Select => {
                let p = lo(c, 1)?._eq(&BV::from_u64(ctx, 1, 1));
                return Some(p.ite(a?, b?));
            }
            Op::CmpI { cmp, bits, signed } => {
                let p = icmp(cmp, signed, &lo(a, bits)?, &lo(b, bits)?)?;
                return Some(bool_bv(ctx, &p));
            }
            Op::Cvt(CvtSpec {
                src:
                    NumTy::Int {
                        bits: sb,
                        signed: ss,
                    },
                dst:
                    NumTy::Int {
                        bits: db,
                        signed: ds,
                    },
                reg_bits,
                sat: false,
                ..
            }) => {
                let wide = if ss {
                    sext_to(a?, sb, 64)
                } else {
                    low(&lo(a, sb)?, 64)
                };
                let r = low(&wide, db);
                if ds && reg_bits > db {
                    sext_to(&r, db, reg_bits)
                } else {
                    r
                }
            }
            _ => return None,
        };
        Some(zext64(&r))
    }
}

impl<'ctx> Domain for Z3Domain<'ctx> {
    type Val = BV<'ctx>;

    fn name(&self) -> &'static str {
        "z3"
    }

    fn lit(&mut self, bits: u64) -> BV<'ctx> {
        self.num(bits)
    }

    fn undef(&mut self) -> BV<'ctx> {
        BV::fresh_const(self.ctx, "undef", 64)
    }

    fn concrete(&self, v: &BV<'ctx>) -> Option<u64> {
        v.simplify().as_u64()
    }

    fn apply(&mut self, op: Op, args: &[BV<'ctx>]) -> Result<BV<'ctx>, DomainError> {
        if let Some(r) = self.precise(op, args) {
            return Ok(r);
        }
        // Carried opaquely: the same operation on the same inputs gives the same value.
        let name = format!("{op:?}");
        Ok(self.uf(&name, args, result_bits(op)))
    }

    fn special(&mut self, name: &'static str, _lane: u32, _value: u64) -> BV<'ctx> {
        self.special_symbol(name, 32)
    }

    fn load(&mut self, at: MemAt, _bytes: &[u8]) -> BV<'ctx> {
        // Memory contents are unknown to the symbolic domain: a function of the location.
        let addr = self.num(at.offset);
        self.uf(
            &format!("mem_{:?}_{}", at.region, at.size),
            &[addr],
            at.size * 8,
        )
    }

    fn store(&mut self, _at: MemAt, _v: &BV<'ctx>, out: &mut [u8]) -> Result<(), DomainError> {
        out.fill(0);
        Ok(())
    }

    fn load_symbolic(
        &mut self,
        space: Space,
        addr: &BV<'ctx>,
        size: u32,
    ) -> Result<BV<'ctx>, DomainError> {
        Ok(self.uf(
            &format!("load_{space:?}_{size}"),
            std::slice::from_ref(addr),
            size * 8,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emu::concrete::Concrete;
    use crate::emu::domain::Domain;

    /// Every precise encoding agrees with the concrete domain on sample values.
    #[test]
    fn precise_ops_agree_with_concrete() {
        let cfg = z3::Config::new();
        let ctx = Context::new(&cfg);
        let mut z = Z3Domain::new(&ctx);
        let mut c = Concrete;
        let samples: [u64; 7] = [0, 1, 5, 31, 0xffff_fffe, 0x8000_0000, 0xffff_ffff_ffff_fff0];
        let ops = [
            Op::Add {
                bits: 32,
                sat: false,
            },
            Op::Sub {
                bits: 64,
                sat: false,
            },
            Op::MulLo { bits: 32 },
            Op::MulWide {
                bits: 32,
                signed: true,
            },
            Op::MulWide {
                bits: 32,
                signed: false,
            },
            Op::MulHi {
                bits: 32,
                signed: true,
            },
            Op::Div {
                bits: 32,
                signed: true,
            },
            Op::Div {
                bits: 32,
                signed: false,
            },
            Op::Rem {
                bits: 32,
                signed: true,
            },
            Op::Rem {
                bits: 64,
                signed: false,
            },
            Op::Shl { bits: 32 },
            Op::Shr {
                bits: 32,
                signed: true,
            },
            Op::Shr {
                bits: 64,
                signed: false,
            },
            Op::And { bits: 32 },
            Op::MinI {
                bits: 32,
                signed: true,
            },
            Op::MaxI {
                bits: 32,
                signed: false,
            },
            Op::CmpI {
                cmp: Cmp::Lt,
                bits: 32,
                signed: true,
            },
            Op::CmpI {
                cmp: Cmp::Hs,
                bits: 64,
                signed: false,
            },
            Op::Ext {
                from: 32,
                to: 64,
                signed: true,
            },
            Op::Ext {
                from: 64,
                to: 32,
                signed: false,
            },
            Op::NegI { bits: 32 },
        ];
        for op in ops {
            for &x in &samples {
                for &y in &samples {
                    let want = c.apply(op, &[x, y]).unwrap();
                    let got = z.apply(op, &[z.num(x), z.num(y)]).unwrap();
                    assert_eq!(z.concrete(&got), Some(want), "{op:?} {x:#x} {y:#x}");
                }
            }
        }
    }

    #[test]
    fn opaque_ops_are_functions() {
        let cfg = z3::Config::new();
        let ctx = Context::new(&cfg);
        let mut z = Z3Domain::new(&ctx);
        let x = z.special_symbol("%tid.x", 32);
        let op = Op::FAdd {
            ty: crate::emu::domain::FTy::F32,
            m: crate::emu::domain::FMods {
                rnd: crate::emu::float::Rnd::Rn,
                ftz: false,
                sat: false,
            },
        };
        let a = z.apply(op, &[x.clone(), x.clone()]).unwrap();
        let b = z.apply(op, &[x.clone(), x]).unwrap();
        assert_eq!(a.simplify(), b.simplify());
        assert_eq!(z.concrete(&a), None);
    }
}
