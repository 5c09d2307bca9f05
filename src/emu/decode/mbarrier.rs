//! Decoding of `mbarrier` (PTX ISA §9.7.13.15: init, arrive with its `expect_tx`, `drop` and
//! `noComplete` forms, expect_tx, complete_tx, test_wait/try_wait with a state or a phase
//! parity, pending_count, inval) and of the bulk copies `cp.async.bulk` between global and shared
//! memory (§9.7.9.25.4) with their `mbarrier::complete_tx::bytes` completion or bulk groups, and
//! the tensor copies `cp.async.bulk.tensor` in tile mode (§9.7.9.25.5.2; the tensor map's
//! encoding and the box geometry are [`crate::emu::tensormap`]'s).

use crate::emu::domain::Space;
use crate::ptx::ir::{InstData, Modifier, Operand, StateSpace, Type};

use super::{operand, space_of, words, Addr, Ctx, DInst, DResult, Src};
use crate::emu::tensormap::MAX_RANK;

/// An `mbarrier` operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MbarOp {
    /// `init` (`a`: the expected count).
    Init,
    /// `arrive` (`a`: the count, default 1; with `expect_tx`, the transaction bytes).
    Arrive {
        /// `.expect_tx`
        expect_tx: bool,
        /// `arrive_drop`
        drop: bool,
        /// `.noComplete`
        no_complete: bool,
    },
    /// `expect_tx` (`a`: bytes).
    ExpectTx,
    /// `complete_tx` (`a`: bytes).
    CompleteTx,
    /// `test_wait`/`try_wait` (`a`: a state, or with `parity` a phase parity).
    Wait {
        /// `.parity`
        parity: bool,
    },
    /// `inval`.
    Inval,
}

/// The state space of an `mbarrier` address: `.shared{::cta,::cluster}` or generic.
fn mbar_space(inst: &InstData) -> DResult<Space> {
    match inst.space() {
        None => Ok(Space::Generic),
        Some(s) => match space_of(s) {
            Some(Space::Shared) => Ok(Space::Shared),
            _ => Err("mbarrier objects live in shared memory".into()),
        },
    }
}

pub(super) fn decode_mbarrier(ctx: &Ctx, inst: &InstData) -> DResult<DInst> {
    let space = mbar_space(inst)?;
    let op = |i| operand(inst, i);
    if inst.has_word("pending_count") {
        return Ok(DInst::MbarPending {
            d: ctx.reg(op(0)?)?,
            a: ctx.src(op(1)?, Type::B64)?,
        });
    }
    let (mop, d, addr_at, a_at, a_ty) = if inst.has_word("init") {
        (MbarOp::Init, None, 0, Some(1), Type::U32)
    } else if inst.has_word("inval") {
        (MbarOp::Inval, None, 0, None, Type::U32)
    } else if inst.has_word("test_wait") || inst.has_word("try_wait") {
        let parity = inst.has_word("parity");
        let t = if parity { Type::U32 } else { Type::B64 };
        (MbarOp::Wait { parity }, Some(0), 1, Some(2), t)
    } else if inst.has_word("arrive") || inst.has_word("arrive_drop") {
        let expect_tx = inst.has_word("expect_tx");
        let m = MbarOp::Arrive {
            expect_tx,
            drop: inst.has_word("arrive_drop"),
            no_complete: inst.has_word("noComplete"),
        };
        // `arrive [a]` (no state: the .shared::cluster form) or `arrive state, [a]{, n}`.
        if matches!(op(0)?, Operand::Addr(_)) {
            (m, None, 0, inst.operands.get(1).map(|_| 1), Type::U32)
        } else {
            (m, Some(0), 1, inst.operands.get(2).map(|_| 2), Type::U32)
        }
    } else if inst.has_word("expect_tx") {
        (MbarOp::ExpectTx, None, 0, Some(1), Type::U32)
    } else if inst.has_word("complete_tx") {
        (MbarOp::CompleteTx, None, 0, Some(1), Type::U32)
    } else {
        return Err("this mbarrier operation is not supported".into());
    };
    let d = match d {
        Some(i) => ctx.dst(op(i)?)?,
        None => None,
    };
    let a = match a_at {
        Some(i) => Some(ctx.src(op(i)?, a_ty)?),
        None => None,
    };
    Ok(DInst::Mbarrier {
        op: mop,
        d,
        addr: ctx.addr(op(addr_at)?, space)?,
        a,
    })
}

/// The state spaces named by an instruction, in order.
fn spaces(inst: &InstData) -> Vec<StateSpace> {
    inst.mods
        .iter()
        .filter_map(|m| match m {
            Modifier::Space(s) => Some(*s),
            _ => None,
        })
        .collect()
}

/// `cp.async.bulk.<dst>.<src>.{mbarrier::complete_tx::bytes | bulk_group}{.L2::cache_hint}
/// [d], [s], size{, [mbar]}{, policy}`; `cp.async.bulk.commit_group`/`wait_group{.read} N` and
/// `cp.async.bulk.prefetch` are no-ops (bulk copies complete when issued).
pub(super) fn decode_bulk(ctx: &Ctx, inst: &InstData) -> DResult<DInst> {
    if inst.has_word("commit_group") || inst.has_word("wait_group") || inst.has_word("prefetch") {
        // `cp.async.bulk.prefetch.tensor` only warms the L2 cache.
        return Ok(DInst::Nop);
    }
    if let Some(w) = words(inst).find(|w| w.starts_with("multicast")) {
        return Err(format!("cp.async.bulk .{w} is not supported"));
    }
    if inst.has_word("tensor") {
        return decode_tensor_copy(ctx, inst);
    }
    let sp = spaces(inst);
    let [dst, src] = sp.as_slice() else {
        return Err("cp.async.bulk needs a destination and a source state space".into());
    };
    let (dst, src) = (
        space_of(*dst).ok_or("cp.async.bulk: unsupported destination space")?,
        space_of(*src).ok_or("cp.async.bulk: unsupported source space")?,
    );
    let ok = matches!(
        (dst, src),
        (Space::Shared, Space::Global) | (Space::Global, Space::Shared)
    );
    if !ok {
        return Err("cp.async.bulk between these state spaces is not supported".into());
    }
    let mbar = if words(inst).any(|w| w.contains("complete_tx")) {
        Some(ctx.addr(operand(inst, 3)?, Space::Shared)?)
    } else {
        None
    };
    if dst == Space::Shared && mbar.is_none() {
        return Err("cp.async.bulk into shared memory needs its mbarrier".into());
    }
    Ok(DInst::BulkCopy {
        dst: ctx.addr(operand(inst, 0)?, dst)?,
        src: ctx.addr(operand(inst, 1)?, src)?,
        size: ctx.src(operand(inst, 2)?, Type::U32)?,
        mbar,
    })
}

/// A decoded `cp.async.bulk.tensor` (tile mode, one CTA).
#[derive(Clone, Debug)]
pub struct TensorCopy {
    /// Global → shared (`.shared::cluster.global`, completing on `mbar`), or shared → global
    /// (`.global.shared::cta.bulk_group`).
    pub to_shared: bool,
    /// The box's start in shared memory.
    pub smem: Addr,
    /// The tensor map's generic address (or a `.param`, `.const` or `.global` variable).
    pub map: Addr,
    /// The box's coordinates, innermost first (as many as the `.<n>d` rank).
    pub coords: Vec<Src>,
    /// The mbarrier a copy into shared memory completes its bytes on.
    pub mbar: Option<Addr>,
}

/// `cp.async.bulk.tensor.<n>d.shared::cluster.global{.tile}.mbarrier::complete_tx::bytes
/// {.L2::cache_hint} [dst], [map, {c…}], [mbar]{, policy}` and
/// `cp.async.bulk.tensor.<n>d.global.shared::cta{.tile}.bulk_group{.L2::cache_hint}
/// [map, {c…}], [src]{, policy}`. Other load modes (`im2col`, `gather4`, `scatter4`), multicast
/// and `.cta_group` are refused.
fn decode_tensor_copy(ctx: &Ctx, inst: &InstData) -> DResult<DInst> {
    let mut rank = None;
    for w in words(inst) {
        if let Some(n) = w.strip_suffix('d').and_then(|n| n.parse::<usize>().ok()) {
            rank = Some(n);
        } else if w.starts_with("im2col")
            || w.starts_with("gather")
            || w.starts_with("scatter")
            || w.starts_with("cta_group")
        {
            return Err(format!("cp.async.bulk.tensor .{w} is not supported"));
        }
    }
    let rank = rank
        .filter(|n| (1..=MAX_RANK).contains(n))
        .ok_or("cp.async.bulk.tensor needs a rank .1d to .5d")?;
    let sp = spaces(inst);
    let to_shared = match sp.as_slice() {
        [d, s] if space_of(*d) == Some(Space::Shared) && space_of(*s) == Some(Space::Global) => {
            true
        }
        [d, s] if space_of(*d) == Some(Space::Global) && space_of(*s) == Some(Space::Shared) => {
            false
        }
        _ => return Err("cp.async.bulk.tensor copies between global and shared memory".into()),
    };
    let (tensor_at, smem_at) = if to_shared { (1, 0) } else { (0, 1) };
    let Operand::Bracket(parts) = operand(inst, tensor_at)? else {
        return Err("cp.async.bulk.tensor: expected `[tensorMap, {coordinates}]`".into());
    };
    let [map, Operand::Vector(coords)] = parts.as_slice() else {
        return Err("cp.async.bulk.tensor: expected `[tensorMap, {coordinates}]`".into());
    };
    if coords.len() != rank {
        return Err(format!(
            "cp.async.bulk.tensor.{rank}d with {} coordinates",
            coords.len()
        ));
    }
    // The parser makes the first element of a bracket an address (`[%rd1, …]`, `[p, …]`).
    let Operand::Addr(_) = map else {
        return Err(format!("cp.async.bulk.tensor: tensor map operand {map:?}"));
    };
    let map = ctx.addr(map, Space::Generic)?;
    let coords = coords
        .iter()
        .map(|c| ctx.src(c, Type::S32))
        .collect::<DResult<Vec<_>>>()?;
    let mbar = if to_shared {
        if !words(inst).any(|w| w.contains("complete_tx")) {
            return Err("cp.async.bulk.tensor into shared memory needs its mbarrier".into());
        }
        Some(ctx.addr(operand(inst, 2)?, Space::Shared)?)
    } else {
        None
    };
    Ok(DInst::TensorCopy(Box::new(TensorCopy {
        to_shared,
        smem: ctx.addr(operand(inst, smem_at)?, Space::Shared)?,
        map,
        coords,
        mbar,
    })))
}
