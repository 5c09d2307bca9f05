//! Decoding of the warp-level matrix and asynchronous-copy instructions: `ldmatrix` and
//! `stmatrix` (PTX ISA §9.7.9.26–27; shapes .m8n8, .b16), `mma.sync.aligned` (§9.7.14.5.14;
//! forms in [`crate::emu::tensor::MmaSpec`]), `cp.async` with `commit_group`/`wait_group`/
//! `wait_all` (§9.7.9.25), and `createpolicy` (§9.7.9.18).

use crate::emu::domain::Space;
use crate::emu::tensor::{MmaSpec, Operand as MOp};
use crate::ptx::ir::{InstData, Operand, Type};

use super::{inst_space, operand, words, Ctx, DInst, DResult, Src};

/// The registers of a `{a, b, …}` vector operand (or a single register).
fn vector(op: &Operand) -> &[Operand] {
    match op {
        Operand::Vector(v) => v,
        other => std::slice::from_ref(other),
    }
}

/// `.x1`/`.x2`/`.x4`: the number of 8×8 matrices.
fn matrix_count(inst: &InstData) -> DResult<u32> {
    let n = words(inst)
        .find_map(|w| match w {
            "x1" => Some(1),
            "x2" => Some(2),
            "x4" => Some(4),
            _ => None,
        })
        .ok_or("ldmatrix/stmatrix without .x1, .x2 or .x4")?;
    if !words(inst).any(|w| w == "m8n8") || inst.ty() != Some(Type::B16) {
        return Err("only the .m8n8 .b16 shape of ldmatrix/stmatrix is supported".into());
    }
    Ok(n)
}

/// The state space of a matrix access: `.shared` (or `::cta`), or generic.
fn matrix_space(inst: &InstData) -> DResult<Space> {
    match inst_space(inst)? {
        s @ (Space::Shared | Space::Generic) => Ok(s),
        _ => Err("ldmatrix/stmatrix address shared memory only".into()),
    }
}

/// `ldmatrix.sync.aligned.m8n8.x{1,2,4}{.trans}{.shared}.b16 {d…}, [a]`.
pub(super) fn decode_ldmatrix(ctx: &Ctx, inst: &InstData) -> DResult<DInst> {
    let n = matrix_count(inst)?;
    let dsts = vector(operand(inst, 0)?)
        .iter()
        .map(|o| ctx.dst(o))
        .collect::<DResult<Vec<_>>>()?;
    if dsts.len() != n as usize {
        return Err(format!(
            "ldmatrix .x{n} needs {n} destination registers, found {}",
            dsts.len()
        ));
    }
    Ok(DInst::Ldmatrix {
        trans: inst.has_word("trans"),
        dsts,
        addr: ctx.addr(operand(inst, 1)?, matrix_space(inst)?)?,
    })
}

/// `stmatrix.sync.aligned.m8n8.x{1,2,4}{.trans}{.shared}.b16 [a], {s…}`.
pub(super) fn decode_stmatrix(ctx: &Ctx, inst: &InstData) -> DResult<DInst> {
    let n = matrix_count(inst)?;
    let srcs = vector(operand(inst, 1)?)
        .iter()
        .map(|o| ctx.src(o, Type::B32))
        .collect::<DResult<Vec<_>>>()?;
    if srcs.len() != n as usize {
        return Err(format!(
            "stmatrix .x{n} needs {n} source registers, found {}",
            srcs.len()
        ));
    }
    Ok(DInst::Stmatrix {
        trans: inst.has_word("trans"),
        srcs,
        addr: ctx.addr(operand(inst, 0)?, matrix_space(inst)?)?,
    })
}

/// `mma.sync.aligned.<shape>.row.col[.satfinite].<d>.<a>.<b>.<c> d, a, b, c`.
pub(super) fn decode_mma(ctx: &Ctx, inst: &InstData) -> DResult<DInst> {
    if !inst.has_word("sync") || !inst.has_word("aligned") {
        return Err("only mma.sync.aligned is supported".into());
    }
    if let Some(w) = words(inst).find(|w| w.starts_with("sp")) {
        return Err(format!("sparse mma (.{w}) is not supported"));
    }
    let shape = words(inst)
        .find(|w| w.starts_with('m') && w.contains('n') && w.contains('k'))
        .ok_or("mma without a shape")?;
    let types: Vec<Type> = inst.types().collect();
    let ws: Vec<&str> = words(inst).collect();
    let spec = MmaSpec::parse(shape, &types, &ws)?;
    if inst.operands.len() != 4 {
        return Err("mma needs four operands (d, a, b, c)".into());
    }
    let srcs = |i: usize, which: MOp, name: &str| -> DResult<Vec<Src>> {
        let ty = if spec.reg_bits(which) == 64 {
            Type::F64
        } else {
            types[match which {
                MOp::A => 1,
                MOp::B => 2,
                _ => 3,
            }]
        };
        // Immediates are typed by the element type for 32- and 64-bit elements (C of f32/f64).
        let ty = if ty.bits() == spec.reg_bits(which) {
            ty
        } else {
            Type::B32
        };
        let v = vector(operand(inst, i)?)
            .iter()
            .map(|o| ctx.src(o, ty))
            .collect::<DResult<Vec<_>>>()?;
        if v.len() != spec.regs(which) {
            return Err(format!(
                "mma operand {name} needs {} registers, found {}",
                spec.regs(which),
                v.len()
            ));
        }
        Ok(v)
    };
    let d = vector(operand(inst, 0)?)
        .iter()
        .map(|o| ctx.dst(o))
        .collect::<DResult<Vec<_>>>()?;
    if d.len() != spec.regs(MOp::D) {
        return Err(format!(
            "mma operand d needs {} registers, found {}",
            spec.regs(MOp::D),
            d.len()
        ));
    }
    Ok(DInst::Mma {
        spec: Box::new(spec),
        d,
        a: srcs(1, MOp::A, "a")?,
        b: srcs(2, MOp::B, "b")?,
        c: srcs(3, MOp::C, "c")?,
    })
}

/// `cp.async.{ca,cg}.shared{::cta}.global{.L2::cache_hint}{.L2::prefetch} [d], [s], size
/// {, src-size | ignore-src}{, policy}`, `cp.async.commit_group`, `cp.async.wait_group N`,
/// `cp.async.wait_all`.
pub(super) fn decode_cp(ctx: &Ctx, inst: &InstData) -> DResult<DInst> {
    if !inst.has_word("async") {
        return Err("only cp.async is supported among the cp instructions".into());
    }
    if inst.has_word("bulk") {
        return super::mbarrier::decode_bulk(ctx, inst);
    }
    if inst.has_word("commit_group") {
        return Ok(DInst::CpAsyncCommit);
    }
    if inst.has_word("wait_all") {
        return Ok(DInst::CpAsyncWait {
            keep: 0,
            commit: true,
        });
    }
    if inst.has_word("wait_group") {
        let keep = match operand(inst, 0)? {
            Operand::Imm(i) => u32::try_from(i.bits()).map_err(|_| "wait_group count too large")?,
            _ => return Err("cp.async.wait_group needs an immediate count".into()),
        };
        return Ok(DInst::CpAsyncWait {
            keep,
            commit: false,
        });
    }
    if inst.has_word("mbarrier") && inst.has_word("arrive") {
        let space = match inst.space() {
            None => Space::Generic,
            Some(_) => Space::Shared,
        };
        return Ok(DInst::CpAsyncMbarArrive {
            noinc: inst.has_word("noinc"),
            addr: ctx.addr(operand(inst, 0)?, space)?,
        });
    }
    if let Some(w) = words(inst).find(|w| matches!(*w, "mbarrier" | "tensor")) {
        return Err(format!("cp.async.{w} is not supported"));
    }
    let cg = inst.has_word("cg");
    if !cg && !inst.has_word("ca") {
        return Err("cp.async needs .ca or .cg".into());
    }
    let size = match operand(inst, 2)? {
        Operand::Imm(i) => i.bits(),
        _ => return Err("cp.async needs an immediate copy size".into()),
    };
    if !matches!(size, 4 | 8 | 16) || (cg && size != 16) {
        return Err(format!("cp.async copy size {size} is not allowed"));
    }
    let hint = inst.has_word("L2::cache_hint");
    let extra = inst
        .operands
        .len()
        .checked_sub(3 + usize::from(hint))
        .ok_or("cp.async with .L2::cache_hint needs a cache-policy operand")?;
    let fill = match extra {
        0 => CpFill::Full,
        1 => {
            let o = operand(inst, 3)?;
            let is_pred = matches!(o, Operand::Reg(r) if ctx.reg_bits[r.index()] == 1);
            if is_pred {
                CpFill::IgnoreSrc(ctx.src(o, Type::Pred)?)
            } else {
                CpFill::SrcSize(ctx.src(o, Type::U32)?)
            }
        }
        _ => return Err("cp.async has too many operands".into()),
    };
    Ok(DInst::CpAsync {
        size: size as u32,
        fill,
        dst: ctx.addr(operand(inst, 0)?, Space::Shared)?,
        src: ctx.addr(operand(inst, 1)?, Space::Global)?,
    })
}

/// How much of a `cp.async` source is read (the rest of the destination is zero-filled).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CpFill {
    /// All `size` bytes.
    Full,
    /// The first `src-size` bytes (a value ≤ size).
    SrcSize(Src),
    /// None when the predicate is true, all otherwise.
    IgnoreSrc(Src),
}

/// `createpolicy.fractional.<primary>{.<secondary>}.b64 d, [a], size, total` / `…, fraction`,
/// `createpolicy.range…`, `createpolicy.cvt.L2.b64 d, s`. A cache policy has no effect in the
/// emulator beyond its value, which is an emulator-defined encoding of the form (see
/// docs/emulator.md): the priorities and, for `.fractional` without an address, the fraction.
pub(super) fn decode_createpolicy(ctx: &Ctx, inst: &InstData) -> DResult<DInst> {
    let d = ctx.reg(operand(inst, 0)?)?;
    if inst.has_word("cvt") {
        return Ok(DInst::Mov {
            d,
            a: ctx.src(operand(inst, 1)?, Type::B64)?,
        });
    }
    let priority = |w: &str| match w {
        "L2::evict_normal" => Some(1u64),
        "L2::evict_first" => Some(2),
        "L2::evict_last" => Some(3),
        "L2::evict_unchanged" => Some(4),
        _ => None,
    };
    let mut prio = words(inst).filter_map(priority);
    let primary = prio
        .next()
        .ok_or("createpolicy without an eviction priority")?;
    let secondary = prio.next().unwrap_or(0);
    let kind = u64::from(inst.has_word("range")) << 8;
    let fraction = match inst.operands.get(1) {
        Some(Operand::Imm(i)) if inst.operands.len() == 2 => super::imm_bits(i, Type::F32) << 32,
        _ => 0,
    };
    Ok(DInst::Mov {
        d,
        a: Src::Imm(fraction | kind | secondary << 4 | primary),
    })
}

/// Where `wgmma` finds A.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WgmmaA {
    /// A shared-memory matrix descriptor.
    Desc(Src),
    /// Registers (the `mma` fragment layout, per warp).
    Regs(Vec<Src>),
}

/// An immediate operand that must be one of `allowed`.
fn imm_operand(inst: &InstData, i: usize, allowed: &[i64]) -> DResult<i64> {
    match operand(inst, i)? {
        Operand::Imm(imm) => {
            let v = imm.bits() as i64;
            let v = if v > i64::from(i32::MAX) {
                v - (1i64 << 32)
            } else {
                v
            };
            if allowed.contains(&v) {
                Ok(v)
            } else {
                Err(format!(
                    "wgmma operand {} must be one of {allowed:?}",
                    i + 1
                ))
            }
        }
        _ => Err(format!("wgmma operand {} must be an immediate", i + 1)),
    }
}

/// `wgmma.mma_async.sync.aligned.m64nNkK[.satfinite].<d>.<a>.<b> d, a-desc|{a}, b-desc, scale-d
/// [, imm-scale-a, imm-scale-b [, imm-trans-a], imm-trans-b]`; `wgmma.fence`, `commit_group`
/// and `wait_group` are no-ops because the emulator completes each `wgmma` when it is issued.
pub(super) fn decode_wgmma(ctx: &Ctx, inst: &InstData) -> DResult<DInst> {
    if inst.has_word("fence") || inst.has_word("commit_group") || inst.has_word("wait_group") {
        return Ok(DInst::Nop);
    }
    if !inst.has_word("mma_async") || inst.has_word("sp") {
        return Err("only wgmma.mma_async (dense) is supported".into());
    }
    let shape = words(inst)
        .find(|w| w.starts_with("m64n"))
        .ok_or("wgmma without an m64nNkK shape")?;
    let types: Vec<Type> = inst.types().collect();
    let spec = crate::emu::wgmma::WgmmaSpec::parse(shape, &types, inst.has_word("satfinite"))?;
    let d = vector(operand(inst, 0)?)
        .iter()
        .map(|o| ctx.dst(o))
        .collect::<DResult<Vec<_>>>()?;
    if d.len() != spec.d_regs() {
        return Err(format!(
            "wgmma d needs {} registers, found {}",
            spec.d_regs(),
            d.len()
        ));
    }
    let a = match operand(inst, 1)? {
        Operand::Vector(v) => {
            if v.len() != spec.a_regs() {
                return Err(format!(
                    "wgmma a needs {} registers, found {}",
                    spec.a_regs(),
                    v.len()
                ));
            }
            WgmmaA::Regs(
                v.iter()
                    .map(|o| ctx.src(o, Type::B32))
                    .collect::<DResult<_>>()?,
            )
        }
        o => WgmmaA::Desc(ctx.src(o, Type::B64)?),
    };
    let a_regs = matches!(a, WgmmaA::Regs(_));
    let n = inst.operands.len();
    let float = !spec.d.is_int();
    // Immediates after scale-d: scale-a, scale-b (floating types), then trans-a (A in shared
    // memory) and trans-b (16-bit types only).
    let has_trans = matches!(spec.a.bits(), 16);
    let want = 4
        + if float { 2 } else { 0 }
        + if has_trans {
            2 - usize::from(a_regs)
        } else {
            0
        };
    if n != want {
        return Err(format!(
            "wgmma of this form takes {want} operands, found {n}"
        ));
    }
    let neg = if float {
        (
            imm_operand(inst, 4, &[1, -1])? == -1,
            imm_operand(inst, 5, &[1, -1])? == -1,
        )
    } else {
        (false, false)
    };
    let trans = if has_trans {
        let tb = imm_operand(inst, n - 1, &[0, 1])? == 1;
        let ta = !a_regs && imm_operand(inst, 6, &[0, 1])? == 1;
        (ta, tb)
    } else {
        (false, false)
    };
    Ok(DInst::Wgmma {
        spec: Box::new(spec),
        d,
        a,
        b: ctx.src(operand(inst, 2)?, Type::B64)?,
        scale_d: ctx.src(operand(inst, 3)?, Type::Pred)?,
        neg,
        trans,
    })
}
