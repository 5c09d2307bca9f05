//! A model of the registers ptxas gives a kernel (issue 12). The spilling pass reads it where
//! ptxas is not run (`--no-ptxas`: the kernel's count, the caps `auto` tries, whether a rewrite
//! fits; docs/spill.md step 9), and `warpsmith stats --arch` prints it; with ptxas, `ptxas -v`
//! decides and the model is not read. The PTX register pressure ([`crate::machine::pressure`])
//! counts every live virtual register; ptxas keeps several kinds of value out of the per-thread
//! register file:
//!
//! - constants (Sampaio et al. §2's constant class): immediates folded into the instructions that
//!   use them, or rematerialised next to them;
//! - kernel parameters and what is only copied or converted from them (`ld.param`, `mov`,
//!   `cvta.to.global`): operands in constant bank 0 (`c[0x0][…]`) until combined with a
//!   per-thread value — except, from sm_90 on, a pointer added to a `mul.wide` product, which
//!   ptxas loads into a register pair for `IMAD.WIDE` (`LDC_POINTER_CC`). A device
//!   function's parameters and a call's return value arrive in registers and count;
//! - warp-uniform values (the affine divergence analysis' uniform class): on sm_75 and later
//!   ptxas's uniform datapath keeps them in the 63 uniform registers (`UR`), which are shared by
//!   the warp and are not part of the per-thread count, as long as they fit.
//!
//! Warp-uniform values count as uniform only when every definition is an instruction the uniform
//! datapath has (integer and logic arithmetic, moves, special registers, constant-bank loads):
//! a uniform float, or a uniform value loaded from global or shared memory, is per-thread. So is
//! a 64-bit uniform value (an empirical rule, see `classify`), except a `wgmma` matrix
//! descriptor and what only builds one (`descriptor_arithmetic`).
//!
//! A parameter or uniform pointer that a global load, store or atomic reads directly is copied
//! into a per-thread register pair, which `LDG`/`STG`/`ATOMG` take their address from
//! ([`address_regs`]).
//!
//! 64-bit values that SASS keeps in 32 bits count one unit: shared and local addresses
//! (`narrow_addresses`), and 32-bit values widened only to be added to an address
//! (`extended_offsets`).
//!
//! Some PTX instructions are one instruction in PTX and a long sequence or a subroutine in SASS
//! (IEEE division, square root and reciprocal, integer division and remainder): at such an
//! instruction the kernel needs the values live across it plus the registers the expansion uses
//! ([`expansion_need`], measured with ptxas).
//!
//! ptxas's scheduler issues a block's loads, and the arithmetic that feeds them, early, so that
//! several are in flight: their results and addresses are live together. The per-thread peak is
//! counted on that order ([`super::issue_order`]), at most [`SCHEDULE_SLACK`] units above the PTX
//! order's. A short guarded block (a bounds check around a load) is predicated first, as ptxas
//! if-converts it ([`super::if_conversion`]), so that its loads are scheduled with the rest.
//! Where the pressure-first order ([`issue_order::pressure_first`]: loads sunk to their
//! uses, one sum finished before the next) needs few enough registers that more warps would be
//! resident (at the kernel's block size, [`ASSUMED_BLOCK_SIZE`] without launch bounds), the
//! figures are counted on that order instead: ptxas trades latency for occupancy. Measured on the
//! register-model bench (29 Nov): 91 → 96 of 144 within ±10 %; taking it whenever it is lower
//! gives 91 (the register-tiled kernels, 95–167 registers, fall 13–19 %). Where the
//! latency-first order would not fit under the kernel's register cap and the pressure-first one
//! would, ptxas reschedules rather than spill and lands about midway between the two
//! (`OrderChoice::cap_values`, an empirical rule from four Triton kernels on sm_80).
//!
//! The model is the largest of that per-thread peak (with the kinds above weighed 0), the
//! register numbers an aligned, bank-aware assignment of the same values needs
//! ([`reg_assign`]), and the expansions' peak; plus the uniform values' peak beyond the uniform
//! register file, plus the registers ptxas's count always holds ([`RESERVED_REGS`]), plus an
//! empirical [`SMALL_KERNEL_SPREAD`] below the full-occupancy count; at least the calling
//! convention's return-address registers in a kernel that calls through it
//! ([`CALL_RETURN_REG`]); at most the cap the kernel's launch bounds and `.maxnreg` set
//! ([`launch_cap`]: above it ptxas spills or reschedules). A direct call to a function of the
//! module counts like an expansion: the values live across it plus the callee's own, modelled
//! on its body ([`call_regs`]).
//! `bench/pressure_model.rs` tabulates it against `ptxas -v` (docs/benchmarks.md).

use crate::analysis::call_regs::{CallKind, Callees};
use crate::analysis::divergence::{self, Class};
use crate::analysis::occupancy::{self, ArchLimits};
use crate::analysis::{address_regs, call_regs, issue_order, loop_unroll, reg_assign};
use crate::machine::cfg::Cfg;
use crate::machine::liveness::Liveness;
use crate::machine::pressure::{LiveAcross, Pressure};
use crate::ptx::{
    roles, Body, FuncDirective, FuncKind, Function, Imm, Inst, InstData, Module, Opcode, Operand,
    StateSpace, Type,
};

/// Uniform registers a kernel's warp-uniform values may occupy before the rest go to the
/// per-thread file (63 `UR`s, less what ptxas keeps for itself).
pub const UNIFORM_REGS: u32 = 56;

/// Registers ptxas's count holds beyond the values: `R1`, the stack pointer (set in every
/// kernel, stack or not), and the two that `ptxas -v` and `cuobjdump -res-usage` add to the
/// highest register number + 1. Measured (ptxas 12.9): the count is the highest `R` index in the
/// SASS + 3 on all 41 kernels checked (20 bench kernels on sm_80, the Triton suite on sm_80 and
/// sm_90a; one, layer norm on sm_80, + 4).
pub const RESERVED_REGS: u32 = 3;

/// The registers ptxas leaves unused in a kernel that needs fewer than the full-occupancy count
/// (`full_occupancy_regs`), beyond what the assignment's alignment and banks explain: an
/// empirical figure, not a mechanism. Measured in the SASS (sm_80, -O3 bench kernels, liveness
/// from `warpsmith sass dis`): at or below 32 registers the highest number used is 2 to 9 above
/// the SASS's own peak of live registers, where ptxas's choice of number is the lowest free one
/// for only 1061 of 3713 definitions. Calibrated on the 104 kernels the model is built on (29
/// Nov): +1 takes them from 48 to 56 within ±10 %, +2 to 49; checked on the 40 holdout kernels,
/// which +1 takes from 16 to 20 (docs/benchmarks.md).
pub const SMALL_KERNEL_SPREAD: u32 = 1;

/// [`SMALL_KERNEL_SPREAD`] for an estimate of `count` registers on `arch`.
fn spread(count: u32, arch: &ArchLimits) -> u32 {
    if count < full_occupancy_regs(arch) {
        SMALL_KERNEL_SPREAD
    } else {
        0
    }
}

/// The highest register a kernel uses at least when it (or a function it calls) makes a call
/// through the calling convention — through a pointer, to a function with no body in the
/// module, or recursively ([`call_regs`]): the convention passes the return address in
/// `R20:R21` (every `RET` of such calls in the bench's SASS reads them; `CALL` clobbers
/// `R0`–`R15`). Measured (ptxas 12.9, sm_80): `call_indirect` and `call_recursive` of
/// bench/kernels/calls.cu use 24 and 27 registers, where their own values need 5 to 9. Direct
/// calls to the module's own functions do not follow it: ptxas allocates across them
/// (`call_noinline_triple` returns through `R6` and `R8`).
pub const CALL_RETURN_REG: u32 = 21;

/// ptxas's largest per-thread register count.
pub const MAX_REGS: u32 = 255;

/// The model's figures for one kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct RegModel {
    /// Peak PTX register pressure, 32-bit units (every live register counted).
    pub pressure: u32,
    /// Peak of the values kept in per-thread registers (constants, parameters and warp-uniform
    /// values left out), on the order ptxas is expected to issue ([`per_thread_figures`]: the
    /// latency-first order, at most `SCHEDULE_SLACK` = 16 above the PTX order's, or the
    /// pressure-first order, or midway between the latter and the cap).
    pub per_thread: u32,
    /// The register numbers (`R1` left out) that the per-thread values, and the immediates ptxas
    /// holds in registers ([`held_constants`]), need when 64-bit values and vector destinations
    /// take aligned consecutive registers ([`reg_assign`]), on the same order as `per_thread`.
    pub assigned: u32,
    /// Peak of the warp-uniform values alone.
    pub uniform: u32,
    /// Peak over the instructions ptxas expands ([`expansion_need`]) and the direct calls
    /// ([`call_regs`]): the per-thread values live across one plus what its expansion or callee
    /// needs (0 when the kernel has none).
    pub expansion: u32,
    /// The registers ptxas may give the kernel at most ([`launch_cap`]; [`MAX_REGS`] without
    /// launch bounds or `.maxnreg`).
    pub cap: u32,
    /// The estimate of ptxas's register count: `max(per_thread, assigned, expansion)` plus
    /// `max(0, uniform - UNIFORM_REGS)` plus [`RESERVED_REGS`], plus [`SMALL_KERNEL_SPREAD`]
    /// below the full-occupancy count; at least [`CALL_RETURN_REG`] + [`RESERVED_REGS`] in a
    /// kernel that calls through the calling convention; at most `cap`.
    pub estimate: u32,
    /// The estimate before the cap: above `cap`, ptxas spills (or reschedules further than the
    /// model counts); where neither issue order fits under the cap, counted on the one that
    /// needs less. The spilling pass reads it without ptxas, on a rewrite that carries its own
    /// `.maxnreg` (CUTLASS's sm_80 tensor-op GEMM under `.maxnreg 168`: 244, where the
    /// latency-first order would say 328).
    pub need: u32,
}

/// The most registers per thread ptxas gives kernel `f` on `arch`: `.maxnreg` if given, and the
/// most that lets `.minnctapersm` blocks (1 if absent) of `.maxntid`/`.reqntid` threads be
/// resident on one SM by registers — the occupancy calculator's rule
/// ([`occupancy::occupancy`]'s `blocks_by_registers`: warps spread over the SM's
/// sub-partitions, registers allocated per warp in units). Measured with ptxas 12.9 on sm_80
/// and sm_90 (a 127-register body under `.maxntid` 32–1024 and `.minnctapersm` 1–20,
/// docs/benchmarks.md): 17–20 warps give 96, 21–24 give 80, 25–28 give 72, 29–32 give 64, 40
/// give 48 — ptxas may choose fewer still.
pub fn launch_cap(f: &Function, arch: &'static ArchLimits) -> u32 {
    let mut cap = arch.max_regs_per_thread.min(MAX_REGS);
    for d in &f.directives {
        if let FuncDirective::MaxNreg(n) = d {
            cap = cap.min(*n);
        }
    }
    let Some(threads) = f.block_size_bound().filter(|&t| t > 0) else {
        return cap;
    };
    let blocks = f
        .directives
        .iter()
        .find_map(|d| match d {
            FuncDirective::MinNctaPerSm(n) => Some((*n).max(1)),
            _ => None,
        })
        .unwrap_or(1);
    let resident = |regs: u32| {
        let launch = occupancy::LaunchResources {
            regs_per_thread: regs,
            threads_per_block: threads,
            static_smem: 0,
            dynamic_smem: 0,
            carveout_kib: None,
        };
        occupancy::occupancy(arch, &launch).is_ok_and(|o| o.blocks_by_registers >= blocks)
    };
    (1..=cap).rev().find(|&r| resident(r)).unwrap_or(1)
}

/// How the model counts one register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Kept in the per-thread file.
    PerThread,
    /// An immediate or a constant-bank operand.
    Free,
    /// Warp-uniform: the uniform register file.
    Uniform,
}

/// The divergence of kernel `f` as the model reads it: no block shape assumed.
fn kernel_divergence(f: &Function) -> Result<divergence::FunctionDivergence, String> {
    divergence::analyze_function(
        f,
        &divergence::Options {
            block_dim: None,
            assume_1d: false,
            assume_no_wrap: false,
        },
    )
    .map_err(|e| e.to_string())
}

/// Runs the model on kernel `f` of `module` compiled for `arch`; `module` holds the functions
/// `f` calls ([`call_regs`]).
pub fn model(module: &Module, f: &Function, arch: &'static ArchLimits) -> Result<RegModel, String> {
    model_with(f, arch, &Callees::of(module))
}

/// The values part of `r`: the registers its values take before [`RESERVED_REGS`] and
/// [`SMALL_KERNEL_SPREAD`] (what a caller needs for a direct call to the function modelled).
fn values_of(r: &RegModel) -> u32 {
    r.per_thread.max(r.assigned).max(r.expansion) + r.uniform.saturating_sub(UNIFORM_REGS)
}

/// [`model`], with the callees `f`'s calls resolve to.
fn model_with(
    f: &Function,
    arch: &'static ArchLimits,
    callees: &Callees<'_>,
) -> Result<RegModel, String> {
    // Constant guards folded as ptxas folds them (`constant_guards`), the labels no
    // instruction names dropped and short guarded blocks predicated: ptxas schedules across
    // them (`unnamed_labels`, `if_conversion`).
    let folded_guards = f.body.as_ref().and_then(|body| {
        let stages: [fn(&Body) -> Option<Body>; 2] =
            [super::unnamed_labels::remove, super::constant_guards::fold];
        stages.iter().fold(None, |done: Option<Body>, stage| {
            stage(done.as_ref().unwrap_or(body)).or(done)
        })
    });
    let unguarded;
    let f = match folded_guards {
        Some(body) => {
            unguarded = Function {
                body: Some(body),
                ..f.clone()
            };
            &unguarded
        }
        None => f,
    };
    let body = f.body.as_ref().ok_or("a declaration has no body")?;
    let div = kernel_divergence(f)?;
    let kinds = classify(f, &div, arch);
    let cfg = Cfg::compute(body);
    let liveness = Liveness::compute(body, &cfg);
    let all = Pressure::compute(body, &cfg, &liveness).max_units();
    // Short guarded blocks predicated, as ptxas if-converts them (`if_conversion`); the kinds
    // are those of the branching body, which holds the same registers.
    let predicated = super::if_conversion::convert(body, &cfg, &liveness);
    let (body, cfg) = match &predicated {
        Some(p) => (p, Cfg::compute(p)),
        None => (body, cfg),
    };
    // Constant offsets folded into the addresses that use them, as SASS encodes them.
    let folded = address_regs::fold_offsets(body);
    let (body, cfg) = match &folded {
        Some(folded) => (folded, Cfg::compute(folded)),
        None => (body, cfg),
    };
    // The copies of parameter and uniform pointers that global accesses read are per-thread
    // registers (past the end of `kinds`, so `Kind::PerThread` below).
    let held = address_regs::materialise(body, &cfg, |r| kinds[r.index()] != Kind::PerThread);
    let (body, cfg) = match &held {
        Some(held) => (&held.body, Cfg::compute(&held.body)),
        None => (body, cfg),
    };
    let lv = Liveness::compute(body, &cfg);
    let kinds = &kinds;
    let narrow: Vec<bool> = narrow_addresses(body)
        .into_iter()
        .zip(extended_offsets(body))
        .map(|(a, b)| a || b)
        .collect();
    let narrow = &narrow;
    let weigh = |want: Kind| {
        move |r: usize, u: u32| {
            if kinds.get(r).copied().unwrap_or(Kind::PerThread) != want {
                0
            } else if narrow.get(r).copied().unwrap_or(false) {
                u.min(1)
            } else {
                u
            }
        }
    };
    let (thread_pressure, across) =
        Pressure::compute_weighted_with_across(body, &cfg, &lv, weigh(Kind::PerThread));
    let ptx_order_peak = thread_pressure.max_units();
    let thread_weight = weigh(Kind::PerThread);
    let bank_room = full_occupancy_regs(arch).saturating_sub(RESERVED_REGS - 1);
    let threads = f.block_size_bound().unwrap_or(ASSUMED_BLOCK_SIZE);
    let warps = |values: u32| resident_warps(arch, values + RESERVED_REGS, threads);
    let more_warps = |latency: u32, sparing: u32| warps(sparing) > warps(latency);
    let cap = launch_cap(f, arch);
    let choice = OrderChoice {
        bank_room,
        cap_values: cap.saturating_sub(RESERVED_REGS),
        more_warps: &more_warps,
    };
    let order = per_thread_figures(body, &cfg, ptx_order_peak, &thread_weight, kinds, &choice);
    let (per_thread, assigned) = (order.per_thread, order.assigned);
    let call_need = |i: Inst| match callees.kind(body.inst(i))? {
        CallKind::Direct(g) => {
            let need = callees.direct_need(g, arch, |g, arch, inner| {
                model_with(g, arch, inner).map(|r| values_of(&r))
            })?;
            let kept = call_regs::arguments_kept_across(body, &cfg, &lv, i, thread_weight);
            Some(need.saturating_sub(kept))
        }
        CallKind::Convention => None,
    };
    let expansion = expansion_peak(body, &cfg, &across, call_need);
    let uniform = Pressure::compute_weighted(body, &cfg, &lv, weigh(Kind::Uniform)).max_units();
    let uniform_excess = uniform.saturating_sub(UNIFORM_REGS);
    let values = per_thread.max(assigned).max(expansion) + uniform_excess;
    let mut estimate = values + RESERVED_REGS + spread(values + RESERVED_REGS, arch);
    if let Some(latency) = order.latency_need {
        let latency_regs = latency.max(expansion) + uniform_excess + RESERVED_REGS;
        estimate = fill_level(estimate, latency_regs, |regs| warps(regs - RESERVED_REGS));
    }
    if callees.uses_convention(f) {
        estimate = estimate.max(CALL_RETURN_REG + RESERVED_REGS);
    }
    Ok(RegModel {
        pressure: all,
        per_thread,
        assigned,
        uniform,
        expansion,
        cap,
        estimate: estimate.min(cap),
        need: estimate,
    })
}

/// The immediates ptxas has to hold in a register, each with the instructions that use it: the
/// multiplier of a `mul.wide` whose product is added to a constant-bank operand (SASS's
/// `IMAD.WIDE` takes an immediate or a constant-bank operand, not both), and the nonzero data
/// of a store or an atomic (`STG`/`RED`/`ATOMG` read data from registers only; zero is `RZ`).
fn held_constants(body: &Body, kinds: &[Kind]) -> Vec<Vec<Inst>> {
    use std::collections::BTreeMap;
    let mut readers: Vec<Vec<Inst>> = vec![Vec::new(); body.regs.len()];
    for i in body.inst_order() {
        for r in roles::uses(body.inst(i)) {
            readers[r.index()].push(i);
        }
    }
    let imm_key = |o: &Operand| match o {
        Operand::Imm(Imm::Int { value, .. }) => Some(*value as u64),
        Operand::Imm(Imm::Hex { value, .. }) => Some(*value),
        Operand::Imm(Imm::F32(b)) => Some(u64::from(*b)),
        Operand::Imm(Imm::F64(b)) => Some(*b),
        _ => None,
    };
    let mut held: BTreeMap<u64, Vec<Inst>> = BTreeMap::new();
    for i in body.inst_order() {
        let inst = body.inst(i);
        let keys: Vec<u64> = match inst.opcode {
            Opcode::Mul if inst.has_word("wide") => {
                let Some(Operand::Reg(d)) = inst.operands.first() else {
                    continue;
                };
                let added_to_bank = readers[d.index()].iter().any(|&u| {
                    let user = body.inst(u);
                    user.opcode == Opcode::Add
                        && user.operands.iter().skip(1).any(|o| {
                            matches!(o, Operand::Reg(r) if r != d && kinds.get(r.index()) == Some(&Kind::Free))
                        })
                });
                if !added_to_bank {
                    continue;
                }
                inst.operands.iter().skip(1).filter_map(imm_key).collect()
            }
            Opcode::St | Opcode::Atom | Opcode::Red => {
                let mut v = Vec::new();
                for o in inst.operands.iter().skip(1) {
                    match o {
                        Operand::Vector(parts) => v.extend(parts.iter().filter_map(imm_key)),
                        o => v.extend(imm_key(o)),
                    }
                }
                v.retain(|&k| k != 0);
                v
            }
            _ => continue,
        };
        for k in keys {
            held.entry(k).or_default().push(i);
        }
    }
    held.into_values().collect()
}

/// How far above the PTX order's peak the latency-first order's peak may count: ptxas's
/// scheduler trades registers for overlapped latency only up to a point when nothing caps it
/// (bench/kernels/bigregs.cu's 128 accumulators: the latency-first order issues 127 independent
/// multiplications before their additions, 255 units; ptxas uses 167 for a PTX-order peak of
/// 139). On the register-model bench (28 Nov) any value from 8 to 32 gave 40 or 41 of 104
/// kernels within ±10 % (38 without a bound); with the assignment, the unrolling and the clocked
/// issue order (29 Nov) 8 and 32 give 43, 16 gives 45; docs/benchmarks.md.
const SCHEDULE_SLACK: u32 = 16;

/// How far above the top of its occupancy level the latency-first order's count may lie for
/// ptxas to fill the level rather than keep the pressure-first order's count ([`fill_level`]).
const FILL_SLACK: u32 = 4;

/// The count where the pressure-first order (count `estimate`) was chosen because it lets more
/// warps be resident than the latency-first order (count `latency_regs`): when the latency-first
/// count lies at most [`FILL_SLACK`] above the highest count that keeps `estimate`'s occupancy
/// level (`warps(regs)`: resident warps at `regs` registers), ptxas schedules for latency up to
/// that count and uses it (NVRTC's `matvec` on sm_90: pressure-first 18, latency-first 34,
/// ptxas 32 — the full-occupancy count — with 27 values live in its SASS where the loop,
/// unrolled 4 times by NVVM, is unrolled 4 times more by ptxas). Measured (30 Nov 2026,
/// docs/benchmarks.md): on the bench kernels compiled by NVRTC, 121 → 133 of 202 rows within
/// ±10 % of ptxas, none out; on the 169 rows of the clang, Triton and holdout bench, one row
/// moves (within ±10 % before and after). A slack of 2, 3, 5, 6 or unbounded: 126, 128, 133,
/// 134, 132 and 120, 120, 119, 118, 116.
fn fill_level(estimate: u32, latency_regs: u32, warps: impl Fn(u32) -> u32) -> u32 {
    let level = warps(estimate);
    let mut top = estimate;
    while top < MAX_REGS && warps(top + 1) == level {
        top += 1;
    }
    if latency_regs > top && latency_regs <= top + FILL_SLACK {
        top
    } else {
        estimate
    }
}

/// The block size the register model assumes for a kernel without `.maxntid` or `.reqntid`
/// when it asks whether fewer registers would let more warps be resident.
pub const ASSUMED_BLOCK_SIZE: u32 = 256;

/// The warps of `threads`-thread blocks resident on one SM of `arch` at `regs` registers per
/// thread, without shared memory.
fn resident_warps(arch: &'static ArchLimits, regs: u32, threads: u32) -> u32 {
    let launch = occupancy::LaunchResources {
        regs_per_thread: regs.min(MAX_REGS),
        threads_per_block: threads,
        static_smem: 0,
        dynamic_smem: 0,
        carveout_kib: None,
    };
    occupancy::occupancy(arch, &launch).map_or(0, |o| o.warps_per_sm)
}

/// The most registers per thread at which every warp slot of an SM can be resident (32 on
/// sm_80 and sm_90, 40 on sm_86 and sm_89): below it, registers cost no occupancy, and ptxas
/// spends them on operands in different register banks ([`reg_assign::registers_used`]'s
/// `bank_room`). Measured on the register-model bench (29 Nov, docs/benchmarks.md): the bank
/// rule up to this count gives 64 of 144 kernels within ±10 % (61 without the rule); with the
/// room set to 24 numbers 63, to 38 63, unbounded 62 (14 kernels further from ptxas, against 3).
fn full_occupancy_regs(arch: &ArchLimits) -> u32 {
    let per_thread = arch.regs_per_sm / (arch.max_warps_per_sm * 32);
    let unit = (arch.reg_alloc_unit / 32).max(1);
    per_thread / unit * unit
}

/// What decides between the latency-first and the pressure-first order's figures
/// ([`per_thread_figures`]).
struct OrderChoice<'a> {
    /// [`reg_assign::registers_used`]'s `bank_room` ([`full_occupancy_regs`]).
    bank_room: u32,
    /// The values the kernel's register cap leaves room for ([`launch_cap`] less
    /// [`RESERVED_REGS`]). Where the latency-first order needs more and the pressure-first order
    /// fits, ptxas reschedules rather than spill, and lands between the two: the figures are
    /// midway between the pressure-first need and the cap. An empirical rule, measured on the
    /// Triton suite on sm_80 (29 Nov late, docs/benchmarks.md): attention d=128 (ptxas 207,
    /// pressure-first 193, latency-first 286 before the cap), attention d=64 with and without the
    /// causal mask (255 and 255; 226 and 242) and the int8 matmul (233; 214), each within 8 % of
    /// midway; the pressure-first figure alone puts the first two rows 8 % and 11 % under.
    cap_values: u32,
    /// Whether the pressure-first order's need (second) lets more warps be resident than the
    /// latency-first order's (first).
    more_warps: &'a dyn Fn(u32, u32) -> bool,
}

/// The per-thread peak and the aligned assignment's register numbers ([`RegModel::per_thread`],
/// [`RegModel::assigned`]), both on the order ptxas's scheduler is expected to issue each block
/// in ([`issue_order::latency_first`]: loads and expanded instructions, and what feeds them,
/// first). Where that order's peak is more than [`SCHEDULE_SLACK`] above the PTX order's
/// (`ptx_order_peak`), the peak counts as the PTX order's plus the slack and the assignment is
/// made on the PTX order. Where the pressure-first order's figures are lower and
/// `choice.more_warps(latency-first need, pressure-first need)` says they let more warps be
/// resident, they are the pressure-first order's ([`issue_order::pressure_first`]): of the
/// orders its greedy weighings give ([`issue_order::Greedy`]), the one that needs the fewest
/// registers. Where only the pressure-first order fits under the cap, they are midway
/// ([`OrderChoice::cap_values`]).
fn per_thread_figures(
    body: &Body,
    cfg: &Cfg,
    ptx_order_peak: u32,
    weight: &impl Fn(usize, u32) -> u32,
    kinds: &[Kind],
    choice: &OrderChoice,
) -> OrderFigures {
    let unrolled = loop_unroll::unroll_small_self_loops(body, cfg);
    let held = held_constants(body, kinds);
    match unrolled {
        None => figures_on(body, cfg, ptx_order_peak, weight, &held, choice),
        Some(u) => {
            let origin = &u.origin;
            let weight = |r: usize, units: u32| weight(origin.get(r).copied().unwrap_or(r), units);
            let ucfg = Cfg::compute(&u.body);
            let liveness = Liveness::compute(&u.body, &ucfg);
            let peak = Pressure::compute_weighted(&u.body, &ucfg, &liveness, weight).max_units();
            figures_on(
                &u.body,
                &ucfg,
                peak.max(ptx_order_peak),
                &weight,
                &held,
                choice,
            )
        }
    }
}

/// [`per_thread_figures`] on one body (the kernel's, or the one with ptxas's unrolling).
fn figures_on(
    body: &Body,
    cfg: &Cfg,
    ptx_order_peak: u32,
    weight: &impl Fn(usize, u32) -> u32,
    held: &[Vec<Inst>],
    choice: &OrderChoice,
) -> OrderFigures {
    let bank_room = choice.bank_room;
    let scheduled = issue_order::latency_first(body, cfg, |i| expansion_need(i).is_some());
    let scheduled_cfg = Cfg::compute(&scheduled);
    let liveness = Liveness::compute(&scheduled, &scheduled_cfg);
    let scheduled_peak =
        Pressure::compute_weighted(&scheduled, &scheduled_cfg, &liveness, weight).max_units();
    let numbers = if scheduled_peak <= ptx_order_peak + SCHEDULE_SLACK {
        reg_assign::registers_used(&scheduled, &scheduled_cfg, weight, held, bank_room)
    } else {
        reg_assign::registers_used(body, cfg, weight, held, bank_room)
    };
    // The assignment counts R1, which RESERVED_REGS holds.
    let latency = (
        scheduled_peak.min(ptx_order_peak + SCHEDULE_SLACK),
        numbers.saturating_sub(1),
    );
    let liveness = Liveness::compute(body, cfg);
    let need = |(peak, numbers): (u32, u32)| peak.max(numbers);
    let Some(pressure_first) = issue_order::Greedy::ALL
        .into_iter()
        .filter_map(|greedy| {
            let sparing = issue_order::pressure_first(body, cfg, &liveness, weight, greedy);
            let sparing_cfg = Cfg::compute(&sparing);
            let sparing_liveness = Liveness::compute(&sparing, &sparing_cfg);
            let peak =
                Pressure::compute_weighted(&sparing, &sparing_cfg, &sparing_liveness, weight)
                    .max_units();
            (peak < latency.0).then(|| {
                let numbers =
                    reg_assign::registers_used(&sparing, &sparing_cfg, weight, held, bank_room);
                (peak, numbers.saturating_sub(1))
            })
        })
        .min_by_key(|&figures| need(figures))
    else {
        return OrderFigures::of(latency, None);
    };
    let cap = choice.cap_values;
    if need(latency) > cap && need(pressure_first) <= cap {
        // ptxas reschedules rather than spill, to about midway (`OrderChoice::cap_values`).
        let midway = (need(pressure_first) + cap) / 2;
        return OrderFigures::of((midway, midway), None);
    }
    if need(latency) > cap && need(pressure_first) > cap {
        // Neither order fits under the cap: ptxas spills (the estimate is the cap), and the
        // least it would need is the lesser order's — what `RegModel::need` reports.
        let lesser = if need(pressure_first) < need(latency) {
            pressure_first
        } else {
            latency
        };
        return OrderFigures::of(lesser, None);
    }
    if (choice.more_warps)(need(latency), need(pressure_first)) {
        OrderFigures::of(pressure_first, Some(need(latency)))
    } else {
        OrderFigures::of(latency, None)
    }
}

/// The per-thread figures of the order the model expects ptxas to issue in.
struct OrderFigures {
    /// [`RegModel::per_thread`].
    per_thread: u32,
    /// [`RegModel::assigned`].
    assigned: u32,
    /// Where the pressure-first order was taken because it lets more warps be resident: what
    /// the latency-first order would have needed (its per-thread peak or register numbers,
    /// whichever is larger). ptxas then schedules for latency as far as that occupancy level
    /// allows ([`fill_level`]).
    latency_need: Option<u32>,
}

impl OrderFigures {
    fn of((per_thread, assigned): (u32, u32), latency_need: Option<u32>) -> OrderFigures {
        OrderFigures {
            per_thread,
            assigned,
            latency_need,
        }
    }
}

/// The largest `across + need` over the reachable instructions ptxas expands
/// ([`expansion_need`]) and the direct calls (`call_need`: the callee's values and the return
/// address, [`call_regs`]).
fn expansion_peak(
    body: &Body,
    cfg: &Cfg,
    across: &LiveAcross,
    call_need: impl Fn(Inst) -> Option<u32>,
) -> u32 {
    cfg.blocks()
        .filter(|&b| cfg.is_reachable(b))
        .flat_map(|b| cfg.insts(b).iter().copied())
        .filter_map(|i| {
            let need = expansion_need(body.inst(i)).or_else(|| call_need(i))?;
            Some(across.at(i).units + need)
        })
        .max()
        .unwrap_or(0)
}

/// The registers ptxas's SASS for `inst` needs beyond the values live across it (its operands,
/// its result and the expansion's temporaries), for the instructions ptxas expands into a
/// sequence or a subroutine call; `None` for the rest, which the pressure counts.
///
/// Measured with ptxas 12.9 (CPU only, 2026-11-27) on a kernel that loads one value, applies the
/// instruction to it and a parameter, and keeps 4 loaded values and a 64-bit address live across
/// it: the count less [`RESERVED_REGS`] and the 6 live-across units. sm_90 gives the same within
/// 2 (`div.rn.f64` 21, 64-bit unsigned division 15). `tests/regmodel_expansions.rs` measures them
/// again against this model whenever ptxas is present. A divisor that is an immediate saves at
/// most one register (integer) or none (float), so it is not told apart.
pub fn expansion_need(inst: &InstData) -> Option<u32> {
    let ty = inst.ty()?;
    let approx = inst.has_word("approx") || inst.has_word("full");
    match (&inst.opcode, ty) {
        (Opcode::Div, Type::F32) if !approx => Some(10),
        (Opcode::Div, Type::F64) => Some(20),
        (Opcode::Rcp, Type::F32) if !approx && !inst.has_word("ftz") => Some(10),
        (Opcode::Rcp, Type::F64) if !approx => Some(9),
        (Opcode::Sqrt, Type::F32) if !approx => Some(7),
        (Opcode::Sqrt, Type::F64) if !approx => Some(15),
        (Opcode::Div | Opcode::Rem, Type::S32) => Some(7),
        (Opcode::Div | Opcode::Rem, Type::U32 | Type::B32) => Some(5),
        (Opcode::Div | Opcode::Rem, Type::S64 | Type::U64 | Type::B64) => Some(13),
        _ => None,
    }
}

/// The kind of every register of `f`.
///
/// 64-bit warp-uniform values are per-thread. ptxas's uniform datapath has 64-bit forms
/// (`UIMAD.WIDE`, `ULEA` with a carry; Triton's matmul on sm_80 uses them), but clang's grid
/// strides and block base pointers, uniform 64-bit values read by per-thread address
/// arithmetic, sit in `R` pairs (`st_gridstride`'s stride in `R2:R21`, `double_buffer_avg`'s
/// `src` and `dst` in `R4:R5` and `R8:R9`). An empirical rule, measured on the register-model
/// bench (29 Nov, docs/benchmarks.md): 83 → 89 of 144 kernels within ±10 %, all of it on the
/// holdouts (20 → 26; the build set stays at 63, its Triton rows' mean |error| 14 → 16 %).
/// Counting every uniform value per-thread gives 83; only the 64-bit ones that feed no uniform
/// value, 86. `wgmma` descriptors are the exception ([`descriptor_arithmetic`]): `IGMMA` reads
/// them from uniform registers (29 Nov evening: 4 Triton rows on sm_90a closer, none further).
fn classify(f: &Function, div: &divergence::FunctionDivergence, arch: &ArchLimits) -> Vec<Kind> {
    let body = f.body.as_ref().expect("checked by the caller");
    let n = body.regs.len();
    // Parameter-derived: every definition an `ld.param`, or a copy/conversion of such a value.
    let mut param = vec![true; n];
    let mut defined = vec![false; n];
    until_stable(body, |inst, defs| {
        let mut changed = false;
        if defs.is_empty() {
            return false;
        }
        let from_param = match inst.opcode {
            Opcode::Ld => reads_kernel_param(f, inst),
            Opcode::Mov | Opcode::Cvta | Opcode::Cvt => {
                inst.guard.is_none()
                    && roles::source_operands(inst).iter().all(|o| match o {
                        Operand::Reg(r) => param[r.index()],
                        Operand::Sym(_) | Operand::Imm(_) => true,
                        _ => false,
                    })
            }
            _ => false,
        };
        for d in defs {
            defined[d.index()] = true;
            if param[d.index()] && !from_param {
                param[d.index()] = false;
                changed = true;
            }
        }
        changed
    });
    // Uniform-datapath computable: every definition an instruction the uniform datapath has.
    let mut uniform_op = vec![true; n];
    for i in body.inst_order() {
        let inst = body.inst(i);
        let ok = on_uniform_datapath(inst);
        for d in roles::defs(inst) {
            uniform_op[d.index()] &= ok;
        }
    }
    let descriptor = descriptor_arithmetic(body);
    let loaded_pointer = if arch.cc >= LDC_POINTER_CC {
        wide_addends(body)
    } else {
        vec![false; n]
    };
    (0..n)
        .map(|r| {
            let reg = crate::ptx::Reg::new(r);
            match div.class(reg) {
                Class::Constant(_) | Class::Undefined => Kind::Free,
                _ if defined[r] && param[r] && !loaded_pointer[r] => Kind::Free,
                c if c.is_uniform()
                    && uniform_op[r]
                    && (body.regs[r].ty.bits() <= 32 || descriptor[r]) =>
                {
                    Kind::Uniform
                }
                _ => Kind::PerThread,
            }
        })
        .collect()
}

/// Whether `inst` is an `ld.param` of one of kernel `f`'s own parameters, which live in
/// constant bank 0. A device function's parameters arrive in registers, and a `call`'s return
/// value (an `ld.param` of the call's own `.param`) is a register the callee wrote.
fn reads_kernel_param(f: &Function, inst: &InstData) -> bool {
    if inst.space() != Some(StateSpace::Param) || f.kind != FuncKind::Entry {
        return false;
    }
    // A call's own `.param` is the only other name an `ld.param` in a kernel can read; an address
    // in a register (`mov.b64 %rd3, k_param_4; ld.param.b32 %r10, [%rd3+4]`) is a kernel's.
    let mut other = false;
    for o in roles::source_operands(inst) {
        o.for_each_sym(&mut |s| {
            other |= !f.param_list().iter().any(|p| p.name.as_deref() == Some(s))
        });
    }
    !other
}

/// Per register, whether it is a `wgmma` matrix descriptor (a 64-bit register operand of
/// `wgmma.mma_async`) or 64-bit arithmetic whose every reader computes one: ptxas keeps them
/// in uniform registers (`IGMMA R24, gdesc[UR8], …` in Triton's int8 matmul for sm_90a).
fn descriptor_arithmetic(body: &Body) -> Vec<bool> {
    let n = body.regs.len();
    let wide = |r: usize| body.regs[r].ty.bits() == 64;
    let mut descriptor = vec![false; n];
    let mut readers: Vec<Vec<Inst>> = vec![Vec::new(); n];
    for i in body.inst_order() {
        let inst = body.inst(i);
        for r in roles::uses(inst) {
            readers[r.index()].push(i);
        }
        if inst.opcode == Opcode::Wgmma && inst.has_word("mma_async") {
            for o in inst.operands.iter() {
                if let Operand::Reg(r) = o {
                    if wide(r.index()) {
                        descriptor[r.index()] = true;
                    }
                }
            }
        }
    }
    let mut changed = true;
    while changed {
        changed = false;
        for r in 0..n {
            if !wide(r) || descriptor[r] || readers[r].is_empty() {
                continue;
            }
            let feeds_only_descriptors = readers[r].iter().all(|&i| {
                let defs = roles::defs(body.inst(i));
                !defs.is_empty() && defs.iter().all(|d| descriptor[d.index()])
            });
            if feeds_only_descriptors {
                descriptor[r] = true;
                changed = true;
            }
        }
    }
    descriptor
}

/// From this compute capability on, ptxas loads a kernel parameter that is added to a
/// `mul.wide` product into a per-thread register pair (`LDC.64 R12, c[0x0][0x220]`, issued at
/// the kernel's start with the other constant loads) and fuses the two into
/// `IMAD.WIDE R2, R17, 0x4, R12`; on sm_80 the same `IMAD.WIDE` reads the parameter from the
/// constant bank (`c[0x0][0x160]`) and holds the multiplier in a register instead
/// ([`held_constants`]). A parameter added to anything else stays in the constant bank or a
/// uniform register on both (`IADD3 R4, P0, R8, UR6, RZ`). Measured with ptxas 12.9 on sm_80
/// and sm_90: Black-Scholes (bench/regmodel_holdout) 21 and 31 registers, its six pointers in
/// `LDC.64`s on sm_90 only; every Triton kernel of the suite has 6 to 12 `LDC.64`s on sm_90a, 1
/// to 9 on sm_80. Newer architectures are assumed to do as sm_90 does (not measured).
const LDC_POINTER_CC: u32 = 90;

/// Whether `inst` is an `add` of 64-bit integers (an address computation).
fn adds_wide_integers(inst: &InstData) -> bool {
    inst.opcode == Opcode::Add && inst.ty().is_some_and(|t| t.bits() == 64 && !t.is_float())
}

/// Per register, whether an `add` of 64-bit integers adds it to a `mul.wide` product: the pair
/// SASS fuses into one `IMAD.WIDE`.
fn wide_addends(body: &Body) -> Vec<bool> {
    let mut product = vec![false; body.regs.len()];
    for i in body.inst_order() {
        let inst = body.inst(i);
        if inst.opcode == Opcode::Mul && inst.has_word("wide") {
            for d in roles::defs(inst) {
                product[d.index()] = true;
            }
        }
    }
    let mut addend = vec![false; body.regs.len()];
    for i in body.inst_order() {
        let inst = body.inst(i);
        if !adds_wide_integers(inst) {
            continue;
        }
        let sources: Vec<usize> = inst
            .operands
            .iter()
            .skip(1)
            .filter_map(|o| match o {
                Operand::Reg(r) => Some(r.index()),
                _ => None,
            })
            .collect();
        if let [x, y] = sources[..] {
            addend[x] |= product[y];
            addend[y] |= product[x];
        }
    }
    addend
}

/// Per register, whether it is a 32-bit value widened to 64 bits only to be added to 64-bit
/// addresses, which ptxas keeps in 32 bits: every definition is a `cvt` from a 32-bit integer to
/// a 64-bit one, and every reader an `add` of 64-bit integers. SASS adds the 32-bit register
/// to a pair directly, the high half sign- or zero-extended (`IADD3 R8, P1, R155, R152, RZ;
/// LEA.HI.X.SX32 R9, R155, R20, 0x1, P1` in Triton's int8 matmul, whose PTX holds four row
/// offsets as `cvt.s64.s32 %rd6, %r77` through its main loop).
fn extended_offsets(body: &Body) -> Vec<bool> {
    use crate::machine::pressure::{reg_class, RegClass};
    let mut offset: Vec<bool> = body
        .regs
        .iter()
        .map(|reg| reg_class(reg.ty) == RegClass::General(2))
        .collect();
    let mut defined = vec![false; body.regs.len()];
    for i in body.inst_order() {
        let inst = body.inst(i);
        let widens = inst.opcode == Opcode::Cvt && {
            let mut types = inst.types();
            let integer = |t: Option<crate::ptx::ir::Type>, bits: u32| {
                t.is_some_and(|t| t.bits() == bits && !t.is_float())
            };
            integer(types.next(), 64) && integer(types.next(), 32) && types.next().is_none()
        };
        let adds = adds_wide_integers(inst);
        for d in roles::defs(inst) {
            defined[d.index()] = true;
            if !widens {
                offset[d.index()] = false;
            }
        }
        if !adds {
            for r in roles::uses(inst) {
                offset[r.index()] = false;
            }
        }
    }
    offset.iter().zip(&defined).map(|(&o, &d)| o && d).collect()
}

/// Per register, whether it is a 64-bit address ptxas keeps in 32 bits: every use is the
/// address of a shared- or local-memory access (`LDS`/`STS`/`LDL`/`STL` take a 32-bit address)
/// or a source of an `add`, `sub` or `mov` whose result is such an address too. clang's PTX
/// computes shared addresses in 64 bits (`mov.b64 %rd27, smem; add.s64 %rd2, %rd27, %rd26;
/// ld.shared.b32 %r3, [%rd2]`).
fn narrow_addresses(body: &Body) -> Vec<bool> {
    use crate::machine::pressure::{reg_class, RegClass};
    let mut narrow: Vec<bool> = body
        .regs
        .iter()
        .map(|reg| reg_class(reg.ty) == RegClass::General(2))
        .collect();
    until_stable(body, |inst, defs| {
        let mut changed = false;
        let short_space = matches!(
            inst.space(),
            Some(StateSpace::Shared) | Some(StateSpace::Local)
        ) && matches!(
            inst.opcode,
            Opcode::Ld | Opcode::St | Opcode::Atom | Opcode::Red
        );
        let feeds_narrow = matches!(inst.opcode, Opcode::Add | Opcode::Sub | Opcode::Mov)
            && matches!(inst.operands.first(), Some(Operand::Reg(d)) if narrow[d.index()]);
        for (k, o) in inst.operands.iter().enumerate() {
            let bad: Vec<usize> = match o {
                Operand::Addr(a) => match &a.base {
                    crate::ptx::ir::AddrBase::Reg(r) if !short_space => vec![r.index()],
                    _ => vec![],
                },
                Operand::Reg(r) if k == 0 && defs.contains(r) => vec![],
                Operand::Reg(r) if feeds_narrow && k > 0 => vec![],
                o => {
                    let mut v = Vec::new();
                    o.for_each_reg(&mut |r| v.push(r.index()));
                    v
                }
            };
            for r in bad {
                if narrow[r] {
                    narrow[r] = false;
                    changed = true;
                }
            }
        }
        changed
    });
    narrow
}

/// Calls `step` on every instruction (with its definitions) in order until a whole pass
/// reports no change: the fixed-point loop of [`classify`]'s parameter flags and
/// [`narrow_addresses`].
fn until_stable(body: &Body, mut step: impl FnMut(&InstData, &[crate::ptx::Reg]) -> bool) {
    let mut changed = true;
    while changed {
        changed = false;
        for i in body.inst_order() {
            let inst = body.inst(i);
            let defs = roles::defs(inst);
            changed |= step(inst, &defs);
        }
    }
}

/// Whether ptxas can compute `inst`'s result on the uniform datapath (sm_75 and later): integer
/// and logic arithmetic (`UIADD3`, `UIMAD`, `UIMAD.WIDE`, `ULEA`, `ULOP3`, `USHF`, `UPRMT`,
/// `USEL`, `UISETP`, `UFLO`, `UPOPC`, `UBREV`), moves, special registers (`S2UR`) and
/// constant-bank loads (`ULDC`). Floating point, integer division (a float reciprocal sequence),
/// and loads from global, shared or local memory write per-thread registers even when every
/// lane's value is the same.
fn on_uniform_datapath(inst: &InstData) -> bool {
    let float = inst.types().any(|t| t.is_float());
    match inst.opcode {
        Opcode::Ld | Opcode::Ldu => matches!(
            inst.space(),
            Some(StateSpace::Param) | Some(StateSpace::Const)
        ),
        Opcode::Mov => true,
        Opcode::Add
        | Opcode::Sub
        | Opcode::Mul
        | Opcode::Mad
        | Opcode::Neg
        | Opcode::Shl
        | Opcode::Shr
        | Opcode::Shf
        | Opcode::And
        | Opcode::Or
        | Opcode::Xor
        | Opcode::Not
        | Opcode::Cnot
        | Opcode::Lop3
        | Opcode::Prmt
        | Opcode::Selp
        | Opcode::Setp
        | Opcode::Cvt
        | Opcode::Cvta
        | Opcode::Popc
        | Opcode::Brev
        | Opcode::Bfind => !float,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptx::parse_module;

    fn sm_80() -> &'static ArchLimits {
        crate::analysis::occupancy::arch("sm_80").expect("sm_80 is known")
    }

    fn kernel(directives: &str, body: &str) -> crate::ptx::Module {
        let text = format!(
            ".version 8.0\n.target sm_80\n.address_size 64\n\
             .visible .entry k(.param .u64 p, .param .u32 n)\n{directives}\n{{\n{body}\n}}\n"
        );
        parse_module(&text, "t.ptx").expect("test PTX parses")
    }

    /// A descriptor and the 64-bit arithmetic that only builds it are uniform registers; a
    /// 64-bit value that also feeds a global address is not a descriptor.
    #[test]
    fn wgmma_descriptors_are_uniform_arithmetic() {
        let m = kernel(
            "",
            "
            .reg .b32 %r<2>;
            .reg .b64 %rd<8>;
            .reg .f32 %f<5>;
            ld.param.u64 %rd1, [p];
            mov.u32 %r1, %ctaid.x;
            mul.wide.u32 %rd2, %r1, 1024;
            add.s64 %rd3, %rd2, 64;
            add.s64 %rd4, %rd3, 32;
            add.s64 %rd5, %rd1, 128;
            add.s64 %rd6, %rd1, 8;
            wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd4, %rd5, 0, 1, 1, 0, 0;
            ld.global.f32 %f1, [%rd6];
            ret;",
        );
        let body = m
            .functions()
            .next()
            .and_then(|f| f.body.as_ref())
            .expect("a body");
        let d = descriptor_arithmetic(body);
        let reg = |name: &str| body.reg_by_name(name).expect("declared").index();
        assert!(d[reg("%rd4")] && d[reg("%rd3")] && d[reg("%rd2")]);
        assert!(d[reg("%rd5")], "a descriptor operand itself");
        assert!(!d[reg("%rd1")], "%rd1 also feeds the global address %rd6");
        let k = classify(
            m.functions().next().expect("one kernel"),
            &kernel_divergence(m.functions().next().expect("one kernel")).expect("analysis runs"),
            crate::analysis::occupancy::arch("sm_90").expect("sm_90 is known"),
        );
        assert_eq!(k[reg("%rd4")], Kind::Uniform);
        assert!(!d[reg("%rd6")]);
    }

    fn model_of(body: &str) -> RegModel {
        let m = kernel("", body);
        let f = m.functions().next().expect("one kernel");
        model(&m, f, sm_80()).expect("model runs")
    }

    fn cap_of(directives: &str) -> u32 {
        let m = kernel(directives, "ret;");
        let f = m.functions().next().expect("one kernel");
        launch_cap(f, sm_80())
    }

    /// The caps ptxas 12.9 was measured to keep on sm_80 (see `launch_cap`).
    #[test]
    fn launch_bounds_cap_the_registers_as_ptxas_does() {
        assert_eq!(cap_of(""), MAX_REGS);
        assert_eq!(cap_of(".maxnreg 40"), 40);
        for (threads, blocks, cap) in [
            (512, 1, 128),
            (544, 1, 96),
            (640, 1, 96),
            (672, 1, 80),
            (768, 1, 80),
            (800, 1, 72),
            (896, 1, 72),
            (928, 1, 64),
            (1024, 1, 64),
            (256, 3, 80),
            (256, 5, 48),
            (96, 5, 128),
            (160, 4, 96),
            (100, 7, 72),
            (64, 9, 96),
        ] {
            let d = format!(".maxntid {threads}\n.minnctapersm {blocks}");
            assert_eq!(cap_of(&d), cap, "{d}");
        }
        assert_eq!(cap_of(".reqntid 32, 32\n.maxnreg 48"), 48);
        assert_eq!(cap_of(".maxntid 96\n.minnctapersm 1"), MAX_REGS);
    }

    #[test]
    fn the_estimate_stays_under_the_launch_cap() {
        let m = kernel(".maxntid 1024", &eight_uniform(true));
        let r = model(&m, m.functions().next().expect("one kernel"), sm_80()).expect("model runs");
        assert_eq!(r.cap, 64);
        // Too few for any order: the estimate is the cap (ptxas spills).
        let m = kernel(".maxnreg 4", &eight_uniform(true));
        let r = model(&m, m.functions().next().expect("one kernel"), sm_80()).expect("model runs");
        assert!(r.per_thread + RESERVED_REGS > 4, "{r:?}");
        assert_eq!(r.estimate, 4, "{r:?}");
    }

    /// Under a cap that the latency-first order exceeds and the pressure-first order meets, the
    /// figures fit under the cap (midway between the pressure-first need and the cap).
    #[test]
    fn a_cap_that_only_the_pressure_first_order_meets_is_met() {
        let unbounded = kernel("", &eight_uniform(true));
        let f = unbounded.functions().next().expect("one kernel");
        let latency = model(&unbounded, f, sm_80()).expect("model runs");
        let m = kernel(".maxnreg 8", &eight_uniform(true));
        let r = model(&m, m.functions().next().expect("one kernel"), sm_80()).expect("model runs");
        assert!(latency.per_thread + RESERVED_REGS > 8, "{latency:?}");
        assert!(r.per_thread + RESERVED_REGS <= 8, "{r:?}");
        assert_eq!(r.estimate, 8, "{r:?}");
    }

    /// Under a cap that neither order meets, the need is the lesser order's: what the spilling
    /// pass compares with the cap it writes.
    #[test]
    fn over_a_cap_no_order_meets_the_need_is_the_lesser_orders() {
        let free = kernel("", &eight_uniform(true));
        let free =
            model(&free, free.functions().next().expect("one kernel"), sm_80()).expect("runs");
        let m = kernel(".maxnreg 8", &eight_uniform(true));
        let at8 = model(&m, m.functions().next().expect("one kernel"), sm_80()).expect("runs");
        let m = kernel(".maxnreg 4", &eight_uniform(true));
        let at4 = model(&m, m.functions().next().expect("one kernel"), sm_80()).expect("runs");
        assert_eq!(at4.estimate, 4, "{at4:?}");
        // The pressure-first order meets 8 (ptxas lands midway between it and the cap); under
        // 4 it is counted as it is, below the latency-first order of the uncapped kernel.
        assert!(at4.per_thread < at8.per_thread, "{at4:?} {at8:?}");
        assert!(at4.per_thread < free.per_thread, "{at4:?} {free:?}");
        assert!(at4.need > 4 && at4.need < free.need, "{at4:?} {free:?}");
    }

    /// Eight uniform values live together, computed on the uniform datapath (integer adds of a
    /// parameter and the block id) or not (the same sums as floats), each summed into a
    /// per-thread value at the end.
    fn eight_uniform(float: bool) -> String {
        let (ty, conv) = if float {
            ("f32", "cvt.rn.f32.u32 %u0, %r1;")
        } else {
            ("u32", "mov.u32 %u0, %r1;")
        };
        let mut b = format!(
            ".reg .b32 %r<4>;\n.reg .{ty} %u<9>, %t;\n.reg .b64 %rd<2>;\n\
             ld.param.u32 %r0, [n];\nmov.u32 %r2, %ctaid.x;\nadd.u32 %r1, %r0, %r2;\n{conv}\n"
        );
        for i in 1..9 {
            b += &format!("add.{ty} %u{i}, %u{}, %u0;\n", i - 1);
        }
        // A barrier, so that no scheduling interleaves the sums with the values' definitions:
        // the eight are live together in any order.
        b += "bar.sync 0;\nmov.u32 %r3, %tid.x;\n";
        b += &if float {
            "cvt.rn.f32.u32 %t, %r3;\n".to_string()
        } else {
            "mov.u32 %t, %r3;\n".to_string()
        };
        for i in 1..9 {
            b += &format!("add.{ty} %t, %t, %u{i};\n");
        }
        b += "ld.param.u64 %rd0, [p];\ncvta.to.global.u64 %rd1, %rd0;\n";
        b += &format!("st.global.{ty} [%rd1], %t;\nret;");
        b
    }

    #[test]
    fn uniform_integers_go_to_the_uniform_datapath() {
        let m = model_of(&eight_uniform(false));
        assert!(m.uniform >= 8, "{m:?}");
        assert!(m.per_thread <= 4, "{m:?}");
        // A small kernel: ptxas's spread on top.
        assert_eq!(
            m.estimate,
            m.per_thread + RESERVED_REGS + SMALL_KERNEL_SPREAD,
            "{m:?}"
        );
    }

    /// A per-thread value divided by a parameter with `live` loaded values live across.
    fn division(inst: &str, live: usize) -> RegModel {
        let mut b = String::from(
            ".reg .f32 %x, %y, %p, %acc, %l<9>;\n.reg .b32 %t;\n.reg .b64 %a, %o;\n\
             ld.param.u64 %a, [p];\ncvta.to.global.u64 %a, %a;\nld.param.f32 %p, [n];\n\
             mov.u32 %t, %tid.x;\nmul.wide.u32 %o, %t, 4;\nadd.s64 %a, %a, %o;\n\
             ld.global.f32 %x, [%a];\n",
        );
        for j in 0..live {
            b += &format!("ld.global.f32 %l{j}, [%a+{}];\n", 64 + 4 * j);
        }
        b += inst;
        b += "\nst.global.f32 [%a], %y;\nmov.f32 %acc, 0f00000000;\n";
        for j in 0..live {
            b += &format!("add.f32 %acc, %acc, %l{j};\n");
        }
        b += "st.global.f32 [%a+4], %acc;\nret;";
        model_of(&b)
    }

    #[test]
    fn expanded_instructions_need_their_temporaries() {
        // The address pair and the 4 loaded values live across the division.
        let m = division("div.rn.f32 %y, %x, %p;", 4);
        assert_eq!(m.expansion, 6 + 10, "{m:?}");
        assert_eq!(
            m.estimate,
            6 + 10 + RESERVED_REGS + SMALL_KERNEL_SPREAD,
            "{m:?}"
        );
        let m = division("div.rn.f32 %y, %x, %p;", 8);
        assert_eq!(m.expansion, 10 + 10, "{m:?}");
        // The approximate division is one MUFU and a multiply: no expansion.
        let m = division("div.full.f32 %y, %x, %p;", 4);
        assert_eq!(m.expansion, 0, "{m:?}");
        assert_eq!(
            m.estimate,
            m.per_thread + RESERVED_REGS + SMALL_KERNEL_SPREAD,
            "{m:?}"
        );
    }

    /// A 64-bit shared address (and what only feeds shared addresses) is one register; a
    /// 64-bit value also used for a global address stays two.
    #[test]
    fn shared_addresses_are_narrow() {
        let text = ".reg .b32 %r<4>;\n.reg .b64 %rd<8>;\n.shared .align 4 .b8 s[1024];\n\
                    ld.param.u64 %rd1, [p];\ncvta.to.global.u64 %rd2, %rd1;\n\
                    mov.u32 %r1, %tid.x;\nmul.wide.u32 %rd3, %r1, 4;\n\
                    add.s64 %rd4, %rd2, %rd3;\nld.global.u32 %r2, [%rd4];\n\
                    mov.u64 %rd5, s;\nadd.s64 %rd6, %rd5, %rd3;\n\
                    st.shared.u32 [%rd6], %r2;\nadd.s64 %rd7, %rd6, 4;\n\
                    ld.shared.u32 %r3, [%rd7+8];\nst.global.u32 [%rd4], %r3;\nret;";
        assert_flags(
            text,
            narrow_addresses,
            &[
                ("%rd3", false),
                ("%rd4", false),
                ("%rd5", true),
                ("%rd6", true),
                ("%rd7", true),
            ],
        );
    }

    /// Asserts the per-register flags `flags` computes on the kernel body `text`.
    fn assert_flags(text: &str, flags: fn(&Body) -> Vec<bool>, expected: &[(&str, bool)]) {
        let m = kernel("", text);
        let body = m.functions().next().and_then(|f| f.body.as_ref()).unwrap();
        let got = flags(body);
        let reg = |name: &str| crate::machine::testutil::reg_named(body, name).index();
        for &(name, want) in expected {
            assert_eq!(got[reg(name)], want, "{name}");
        }
    }

    /// A sign- or zero-extended offset that only `add.s64`s read is held in 32 bits; one that
    /// a shift or a memory access reads, or that something else defines, is not.
    #[test]
    fn extended_offsets_added_to_addresses_are_narrow() {
        let text = ".reg .b32 %r<4>;\n.reg .b64 %rd<12>;\n\
                    ld.param.u64 %rd1, [p];\nmov.u32 %r1, %tid.x;\n\
                    cvt.s64.s32 %rd2, %r1;\nadd.s64 %rd3, %rd1, %rd2;\n\
                    cvt.u64.u32 %rd4, %r1;\nshl.b64 %rd5, %rd4, 2;\nadd.s64 %rd6, %rd1, %rd5;\n\
                    cvt.s64.s32 %rd7, %r1;\nld.global.u32 %r2, [%rd7];\n\
                    mul.wide.s32 %rd8, %r1, 4;\nadd.s64 %rd9, %rd1, %rd8;\n\
                    add.s64 %rd10, %rd3, %rd6;\nadd.s64 %rd11, %rd10, %rd9;\n\
                    st.global.u32 [%rd11], %r2;\nret;";
        assert_flags(
            text,
            extended_offsets,
            &[
                ("%rd2", true),
                ("%rd4", false),
                ("%rd7", false),
                ("%rd8", false),
                ("%rd3", false),
            ],
        );
    }

    /// On sm_90 a parameter pointer added to a `mul.wide` product takes a register pair (the
    /// `LDC.64` that `IMAD.WIDE` reads); on sm_80 it stays in the constant bank and the
    /// multiplier is held instead. A parameter added to anything else is free on both.
    #[test]
    fn pointers_for_imad_wide_are_loaded_on_sm_90() {
        let text = ".reg .b32 %r<4>;\n.reg .b64 %rd<8>;\n\
                    ld.param.u64 %rd1, [p];\ncvta.to.global.u64 %rd2, %rd1;\n\
                    mov.u32 %r1, %tid.x;\nmul.wide.u32 %rd3, %r1, 4;\n\
                    add.s64 %rd4, %rd2, %rd3;\nld.global.u32 %r2, [%rd4];\n\
                    ld.param.u64 %rd5, [p];\ncvt.u64.u32 %rd6, %r2;\nadd.s64 %rd7, %rd5, %rd6;\n\
                    st.global.u32 [%rd7], %r2;\nret;";
        let m = kernel("", text);
        let f = m.functions().next().expect("one kernel");
        let div = kernel_divergence(f).expect("divergence runs");
        let body = f.body.as_ref().expect("a body");
        let reg = |name: &str| body.reg_by_name(name).expect("declared").index();
        let sm_90 = crate::analysis::occupancy::arch("sm_90").expect("sm_90 is known");
        let on_80 = classify(f, &div, sm_80());
        let on_90 = classify(f, &div, sm_90);
        assert_eq!(on_80[reg("%rd2")], Kind::Free);
        assert_eq!(on_90[reg("%rd2")], Kind::PerThread);
        assert_eq!(on_80[reg("%rd5")], Kind::Free);
        assert_eq!(on_90[reg("%rd5")], Kind::Free);
        assert_eq!(
            held_constants(body, &on_80).len(),
            1,
            "the multiplier 4 on sm_80"
        );
        assert!(
            held_constants(body, &on_90).is_empty(),
            "an immediate on sm_90"
        );
    }

    /// The spread applies below the full-occupancy count only (32 on sm_80).
    #[test]
    fn the_spread_applies_to_small_kernels_only() {
        let a = sm_80();
        assert_eq!(full_occupancy_regs(a), 32);
        assert_eq!(spread(31, a), SMALL_KERNEL_SPREAD);
        assert_eq!(spread(32, a), 0);
        assert_eq!(spread(100, a), 0);
    }

    #[test]
    fn halves_unpacked_from_a_loaded_word_are_per_thread() {
        // Triton's bf16 rows: each loaded word is split into its halves (`mov.b32 {lo, hi}, w`)
        // and converted; the eight floats stay live across the barrier. The destination vector
        // is one operand: counting its two registers as two skipped the source, and the halves
        // passed for copies of a parameter (free).
        let mut body = String::from(
            ".reg .b16 %rs<9>;\n.reg .b32 %r<40>;\n.reg .b64 %rd<8>;\n\
             ld.param.u64 %rd1, [p];\nmov.u32 %r1, %tid.x;\n\
             mul.wide.u32 %rd2, %r1, 16;\nadd.s64 %rd3, %rd1, %rd2;\n",
        );
        for w in 0..4 {
            let (lo, hi) = (2 * w + 1, 2 * w + 2);
            body.push_str(&format!(
                "ld.global.b32 %r{}, [%rd3+{}];\nmov.b32 {{%rs{lo}, %rs{hi}}}, %r{};\n\
                 cvt.f32.bf16 %r{}, %rs{lo};\ncvt.f32.bf16 %r{}, %rs{hi};\n",
                10 + w,
                4 * w,
                10 + w,
                20 + lo,
                20 + hi
            ));
        }
        body.push_str("bar.sync 0;\nmov.f32 %r30, 0f00000000;\n");
        for v in 21..29 {
            body.push_str(&format!("add.f32 %r30, %r30, %r{v};\n"));
        }
        body.push_str("st.global.f32 [%rd3], %r30;\nret;");
        let m = model_of(&body);
        assert!(m.per_thread >= 8, "{m:?}");
    }

    #[test]
    fn uniform_floats_stay_per_thread() {
        let m = model_of(&eight_uniform(true));
        assert!(m.uniform <= 1, "{m:?}");
        assert!(m.per_thread >= 8, "{m:?}");
        // Each sum is read beside %u0: with room for banks the eight take odd numbers (ptxas
        // moves the sums past the barrier instead and needs 8 registers: not modelled).
        assert!(m.estimate >= m.per_thread + RESERVED_REGS, "{m:?}");
    }

    /// bench/kernels/atomics_cas.cu's CAS loop: the parameter pointer the atomic retries on is
    /// held in a register pair across the loop (ptxas: `R4:R5`), two units beside the loaded
    /// value, the expected value and the result.
    #[test]
    fn a_parameter_pointer_read_by_global_accesses_holds_a_pair() {
        let cas = |space: &str| {
            model_of(&format!(
                ".reg .pred %p;\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n.shared .b32 s[32];\n\
                 ld.param.u64 %rd0, [p];\ncvta.to.{space}.u64 %rd1, %rd0;\n\
                 mov.u32 %r0, %tid.x;\nmul.wide.u32 %rd2, %r0, 4;\nadd.s64 %rd3, %rd1, %rd2;\n\
                 ld.{space}.u32 %r1, [%rd3];\nld.{space}.u32 %r2, [%rd1];\n\
                 L: atom.{space}.cas.b32 %r3, [%rd1], %r2, %r1;\n\
                 setp.ne.u32 %p, %r3, %r2;\nmov.u32 %r2, %r3;\n@%p bra L;\nret;"
            ))
        };
        let global = cas("global");
        let shared = cas("shared");
        assert_eq!(
            global.per_thread,
            shared.per_thread + 2,
            "{global:?} {shared:?}"
        );
    }

    /// A kernel that calls `f` through `call` (`f` defined after `decl`).
    fn calling_kernel(decl: &str, call: &str) -> crate::ptx::Module {
        let text = format!(
            ".version 8.0\n.target sm_80\n.address_size 64\n{decl}\n\
             .func (.param .b32 r) f(.param .b32 a)\n{{\n.reg .b32 %x;\n\
             ld.param.b32 %x, [a];\nadd.u32 %x, %x, 1;\nst.param.b32 [r], %x;\nret;\n}}\n\
             .visible .entry k(.param .u64 p)\n{{\n.reg .b32 %t, %v;\n.reg .b64 %a<2>;\n\
             mov.u32 %t, %tid.x;\n\
             {{ .param .b32 a0;\n.param .b32 r0;\nst.param.b32 [a0], %t;\n\
             {call}\nld.param.b32 %v, [r0];\n}}\n\
             ld.param.u64 %a0, [p];\ncvta.to.global.u64 %a1, %a0;\n\
             st.global.u32 [%a1], %v;\nret;\n}}\n"
        );
        parse_module(&text, "t.ptx").expect("test PTX parses")
    }

    fn kernel_k(m: &crate::ptx::Module) -> RegModel {
        let k = m.function("k").expect("the kernel");
        model(m, k, sm_80()).expect("model runs")
    }

    /// A direct call to a function of the module: ptxas allocates across it (the return
    /// address in one low register), and the count is the values live across plus the
    /// callee's own. ptxas 12.9 (sm_80) gives this kernel 8 registers and keeps the `CALL`;
    /// the model says 7 (the convention's floor said 24).
    #[test]
    fn a_direct_call_costs_the_callees_values_not_the_convention() {
        let r = kernel_k(&calling_kernel("", "call.uni (r0), f, (a0);"));
        assert!(r.expansion > 0, "the call is counted: {r:?}");
        assert!((7..=9).contains(&r.estimate), "ptxas: 8; {r:?}");
    }

    /// A call to a function with no body in the module follows the calling convention: the
    /// return address in `R20:R21`, however few values the kernel has (ptxas 12.9 `-c`, sm_80:
    /// 24 registers). So does a call through a register.
    #[test]
    fn an_external_or_indirect_call_keeps_the_conventions_registers() {
        let ext = ".extern .func (.param .b32 r) g(.param .b32 a);";
        let r = kernel_k(&calling_kernel(ext, "call.uni (r0), g, (a0);"));
        assert!(r.per_thread < 8, "{r:?}");
        assert_eq!(r.estimate, CALL_RETURN_REG + RESERVED_REGS, "{r:?}");
        let proto = "proto: .callprototype (.param .b32 _) _ (.param .b32 _);";
        let through = format!("mov.u64 %a0, f;\n{proto}\ncall (r0), %a0, (a0), proto;");
        let r = kernel_k(&calling_kernel("", &through));
        assert_eq!(r.estimate, CALL_RETURN_REG + RESERVED_REGS, "{r:?}");
    }

    /// Forty loads summed: the latency-first order keeps most in flight (37 units, an estimate
    /// of 40 registers: 48 warps at 256 threads); the pressure-first order sinks each load to
    /// its addition and needs a handful, which lets all 64 warps be resident, so the model
    /// counts that order.
    #[test]
    fn occupancy_takes_the_pressure_first_order() {
        let mut b = String::from(
            ".reg .f32 %f<41>, %s;\n.reg .b64 %a<2>;\n\
             ld.param.u64 %a0, [p];\ncvta.to.global.u64 %a1, %a0;\n",
        );
        for k in 0..40 {
            b += &format!("ld.global.f32 %f{k}, [%a1+{}];\n", 4 * k);
        }
        b += "add.f32 %s, %f0, %f1;\n";
        for k in 2..40 {
            b += &format!("add.f32 %s, %s, %f{k};\n");
        }
        b += "st.global.f32 [%a1], %s;\nret;";
        let m = model_of(&b);
        assert!(m.per_thread <= 6, "{m:?}");
        assert!(m.estimate < full_occupancy_regs(sm_80()), "{m:?}");
    }

    /// 64-bit warp-uniform values are counted per-thread (`classify`): eight 64-bit sums of a
    /// parameter and the block id, live together.
    #[test]
    fn wide_uniform_values_are_per_thread() {
        let mut b = String::from(
            ".reg .b32 %r<4>;\n.reg .b64 %u<9>, %t, %rd<3>;\n\
             ld.param.u64 %rd0, [p];\nmov.u32 %r2, %ctaid.x;\ncvt.u64.u32 %rd1, %r2;\n\
             add.u64 %u0, %rd0, %rd1;\n",
        );
        for i in 1..9 {
            b += &format!("add.u64 %u{i}, %u{}, %u0;\n", i - 1);
        }
        b += "bar.sync 0;\nmov.u32 %r3, %tid.x;\ncvt.u64.u32 %t, %r3;\n";
        for i in 1..9 {
            b += &format!("add.u64 %t, %t, %u{i};\n");
        }
        b += "cvta.to.global.u64 %rd2, %rd0;\nst.global.u64 [%rd2], %t;\nret;";
        let m = model_of(&b);
        assert!(m.uniform <= 1, "{m:?}");
        assert!(m.per_thread >= 16, "{m:?}");
    }

    /// `IMAD.WIDE` cannot take both an immediate and a constant-bank operand, and atomics read
    /// their data from a register: those immediates are held; a `mul.wide` added to a per-thread
    /// value, a zero store (`RZ`) and an immediate in arithmetic are not.
    #[test]
    fn immediates_sass_cannot_encode_are_held() {
        let m = kernel(
            "",
            ".reg .b32 %r<4>;\n.reg .b64 %rd<8>;\n\
             ld.param.u64 %rd1, [p];\ncvta.to.global.u64 %rd2, %rd1;\n\
             mov.u32 %r1, %tid.x;\nadd.s32 %r2, %r1, 5;\n\
             mul.wide.u32 %rd3, %r1, 4;\nadd.s64 %rd4, %rd2, %rd3;\n\
             atom.global.add.u32 %r3, [%rd4], 1;\n\
             mul.wide.u32 %rd5, %r2, 8;\nadd.s64 %rd6, %rd4, %rd5;\n\
             st.global.u32 [%rd6], 0;\nred.global.add.u32 [%rd6], 1;\nret;",
        );
        let f = m.functions().next().expect("one kernel");
        let div = kernel_divergence(f).expect("divergence runs");
        let body = f.body.as_ref().expect("a body");
        let held = held_constants(body, &classify(f, &div, sm_80()));
        let order: Vec<Inst> = body.inst_order().collect();
        // 1 (the atom at 6 and the red at 10), 4 (the mul.wide at 4).
        assert_eq!(held, vec![vec![order[6], order[10]], vec![order[4]]]);
    }

    /// Where the pressure-first count was taken for occupancy and the latency-first count lies
    /// at most FILL_SLACK above the top of the pressure-first count's level, the estimate is
    /// that top; further above, or where no level is crossed, it stays.
    #[test]
    fn a_level_is_filled_when_the_latency_first_count_is_just_above_it() {
        // 64 warps up to 32 registers, 48 up to 40, 40 up to 48, 32 beyond.
        let warps = |r: u32| match r {
            0..=32 => 64,
            33..=40 => 48,
            41..=48 => 40,
            _ => 32,
        };
        assert_eq!(fill_level(18, 34, warps), 32);
        assert_eq!(fill_level(18, 32 + FILL_SLACK, warps), 32);
        assert_eq!(fill_level(18, 33 + FILL_SLACK, warps), 18);
        assert_eq!(fill_level(18, 30, warps), 18);
        assert_eq!(fill_level(35, 42, warps), 40);
    }

    /// ptxas unrolls a small counted loop by 4 and issues the copies' loads together: four
    /// loads per iteration (into four sums) are sixteen values in flight, not four.
    #[test]
    fn small_counted_loops_count_unrolled() {
        let mut body = String::from(
            ".reg .pred %p<2>;\n.reg .b32 %r<5>;\n.reg .f32 %f<40>;\n.reg .b64 %rd<6>;\n\
             ld.param.u32 %r1, [n];\nld.param.u64 %rd2, [p];\nmov.u32 %r2, %tid.x;\n\
             mul.wide.u32 %rd1, %r2, 4;\nadd.s64 %rd1, %rd1, %rd2;\n\
             mov.f32 %f20, 0f00000000;\nmov.f32 %f21, 0f00000000;\n\
             mov.f32 %f22, 0f00000000;\nmov.f32 %f23, 0f00000000;\nmov.u32 %r3, 0;\nL1:\n",
        );
        for j in 0..4 {
            body.push_str(&format!(
                "ld.global.nc.f32 %f{}, [%rd1+{}];\n",
                10 + j,
                4 * j
            ));
        }
        for j in 0..4 {
            body.push_str(&format!(
                "add.f32 %f{}, %f{}, %f{};\n",
                20 + j,
                20 + j,
                10 + j
            ));
        }
        let counted = format!(
            "{body}add.s64 %rd1, %rd1, 128;\nadd.s32 %r3, %r3, 1;\n\
             setp.lt.s32 %p1, %r3, %r1;\n@%p1 bra L1;\nst.global.v4.f32 [%rd1], {{%f20, %f21, %f22, %f23}};\nret;"
        );
        let m = model_of(&counted);
        assert!(m.per_thread >= 16, "{m:?}");
        // The same loop stepping by a register (a grid-stride loop) stays rolled.
        let strided = counted.replace("add.s32 %r3, %r3, 1;", "add.s32 %r3, %r3, %r1;");
        let m = model_of(&strided);
        assert!(m.per_thread < 12, "{m:?}");
    }
}
