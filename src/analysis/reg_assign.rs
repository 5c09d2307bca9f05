//! A register assignment for counting (issue 12's register model, [`super::regmodel`]): how
//! many hardware register numbers a kernel's per-thread values need when 64-bit values take an
//! even-aligned pair and a vector destination (`ld.v2`/`ld.v4`, `mma`'s fragments) takes
//! consecutive registers aligned to its size, as the SASS encodings require (`R2:R3`, a
//! `LDG.E.128` into `R4..R7`). A liveness count assumes any free unit can hold any value; the
//! alignment leaves holes, and ptxas's count is the highest register number used, not the
//! number of live values.
//!
//! The assignment is a greedy colouring of the interference graph (Chaitin's rule: a value
//! defined at an instruction interferes with everything live after it): the tuples (vector
//! destinations) first, then every other value, each in the order they are first defined in the
//! layout, at the lowest aligned free position; `R1` (the stack pointer) is never given out.
//! Tuples first, as a colouring allocator takes its most constrained values first: placed after
//! the values around them, a 64-register `wgmma` accumulator finds no aligned window below the
//! scattered singles (Triton's fp8 128×128×64 matmul on sm_90a: 207 numbers for 178 live
//! units, ptxas 168 registers; tuples first, 179; on the register-model bench 254 → 255 of 371
//! rows within ±10 %, docs/benchmarks.md). While registers cost no occupancy (`bank_room`), a
//! value read beside others by an arithmetic instruction takes the lowest free number in the other
//! register bank (even/odd) than theirs, as ptxas does to avoid bank conflicts; an accumulation
//! chain counts as one value there, as ptxas coalesces it into one register. It is a count, not
//! ptxas's allocator: ptxas coalesces, splits and rematerialises, and numbers registers its own
//! way.

use crate::machine::bitset::BitSet;
use crate::machine::cfg::Cfg;
use crate::machine::liveness::Liveness;
use crate::machine::pressure::{reg_class, RegClass};
use crate::machine::slots::slots;
use crate::ptx::ir::{Body, Inst, Operand};
use std::collections::HashMap;

/// The register number ptxas keeps for the stack pointer.
const STACK_POINTER: u32 = 1;

/// The members of the vector destination a register was first defined in, in order.
type Group = Option<Vec<usize>>;

/// The alignment SASS requires of `size` consecutive registers.
fn alignment(size: u32) -> u32 {
    match size {
        0 | 1 => 1,
        2 => 2,
        _ => 4,
    }
}

/// The number of register numbers (`R0` up to the highest used, `R1` included) that a greedy
/// aligned assignment of `body`'s general registers needs, each register `r` of natural size
/// `u` counted as `weight(r, u)` registers (0 leaves it out). Each entry of `pinned` is one more
/// 32-bit value that is not a PTX register (an immediate ptxas has to hold in a register): it is
/// live from the first to the last of its instructions in the layout. While fewer than
/// `bank_room` numbers are in use, a 32-bit value read beside others by an arithmetic
/// instruction takes the lowest free number in the other bank than theirs (`bank_partners`).
pub fn registers_used(
    body: &Body,
    cfg: &Cfg,
    weight: &impl Fn(usize, u32) -> u32,
    pinned: &[Vec<Inst>],
    bank_room: u32,
) -> u32 {
    let n = body.regs.len() + pinned.len();
    let sizes: Vec<u32> = body
        .regs
        .iter()
        .enumerate()
        .map(|(r, reg)| match reg_class(reg.ty) {
            RegClass::General(u) => weight(r, u),
            RegClass::Pred => 0,
        })
        .chain(pinned.iter().map(|_| 1))
        .collect();
    let positions = layout_positions(cfg);
    let spans: Vec<(usize, usize)> = pinned
        .iter()
        .map(|uses| {
            let at = uses.iter().filter_map(|i| positions.get(i).copied());
            (
                at.clone().min().unwrap_or(usize::MAX),
                at.max().unwrap_or(0),
            )
        })
        .collect();
    let liveness = Liveness::compute(body, cfg);
    let interference = interference(body, cfg, &liveness, &sizes, &positions, &spans);
    let (mut order, groups) = definition_order(body, cfg, &sizes, &positions, &spans);
    // Tuples first (see the module doc); the sort is stable, so each part keeps definition order.
    order.sort_by_key(|&r| groups[r].is_none());
    let heads = chain_heads(body, cfg, &liveness, &sizes, &interference);
    let partners = bank_partners(body, &sizes);
    let mut base: Vec<Option<u32>> = vec![None; n];
    let mut top = 0;
    for r in order {
        if base[r].is_some() {
            continue;
        }
        let members: Vec<usize> = match groups[r].as_ref() {
            Some(g) if g.iter().all(|&m| base[m].is_none()) => g.clone(),
            _ => vec![r],
        };
        let offsets: Vec<u32> = members
            .iter()
            .scan(0, |acc, &m| {
                let o = *acc;
                *acc += sizes[m];
                Some(o)
            })
            .collect();
        let total: u32 = members.iter().map(|&m| sizes[m]).sum();
        let fits = |b: u32| {
            members.iter().zip(&offsets).all(|(&m, &o)| {
                let (lo, hi) = (b + o, b + o + sizes[m]);
                !(lo..hi).contains(&STACK_POINTER)
                    && interference[m].iter().all(|other| match base[other] {
                        Some(ob) => ob + sizes[other] <= lo || hi <= ob,
                        None => true,
                    })
            })
        };
        let lowest = (0..)
            .map(|k| k * alignment(total))
            .find(|&b| fits(b))
            .expect("some position is free");
        let bank = (members.len() == 1 && total == 1 && top < bank_room)
            .then(|| preferred_bank(&partners[r], &heads, &base))
            .flatten();
        let b = match bank {
            Some(w) if lowest % 2 != w => (lowest + 1..)
                .find(|&b| b % 2 == w && fits(b))
                .unwrap_or(lowest),
            _ => lowest,
        };
        for (&m, &o) in members.iter().zip(&offsets) {
            base[m] = Some(b + o);
        }
        top = top.max(b + total);
    }
    top
}

/// Per value, the first value of the accumulation chain it belongs to: a 32-bit value whose
/// first definition reads a 32-bit value that dies there (`%r13 = %r11 + %r12` with `%r11`
/// last read there) continues that value's chain, as ptxas's coalescing puts the whole chain in
/// one register (a 9-load sum in bench/shuffle_styles/st_jacobi_long.cu keeps its partial sums
/// in R2 and loads its terms into odd registers). Where several sources die, the chain goes on
/// through one that already continues a chain — the running sum, not the term just loaded
/// (`stencil1d_naive`: `FFMA R0, R5, 0.1, R0`, its taps in R5…R15).
fn chain_heads(
    body: &Body,
    cfg: &Cfg,
    liveness: &Liveness,
    sizes: &[u32],
    interference: &[BitSet],
) -> Vec<usize> {
    let mut heads: Vec<usize> = (0..sizes.len()).collect();
    let mut defined = vec![false; sizes.len()];
    for b in cfg.blocks().filter(|&b| cfg.is_reachable(b)) {
        // Per instruction defining a 32-bit value: the value and its 32-bit sources that die
        // there (collected backwards, used forwards).
        let mut points: Vec<(usize, Vec<usize>)> = Vec::new();
        liveness.for_each_point(body, cfg, b, |i, _before, after| {
            let inst = body.inst(i);
            let Some(Operand::Reg(d)) = inst.operands.first() else {
                return;
            };
            let d = d.index();
            let writes_d = slots(inst)
                .slots
                .iter()
                .any(|s| s.reg.index() == d && s.writes());
            if sizes[d] != 1 || !writes_d {
                return;
            }
            let dying = inst
                .operands
                .iter()
                .skip(1)
                .filter_map(|o| match o {
                    Operand::Reg(a)
                        if a.index() != d
                            && sizes[a.index()] == 1
                            && !after.contains(a.index())
                            && !interference[d].contains(a.index()) =>
                    {
                        Some(a.index())
                    }
                    _ => None,
                })
                .collect();
            points.push((d, dying));
        });
        for (d, dying) in points.into_iter().rev() {
            if !defined[d] {
                // Only a value defined earlier: chains point backwards, so they end.
                // A source that already continues a chain (a partial sum) is the one ptxas
                // coalesces with: `fma %r10, %r9, c, %r8` keeps the sum `%r8`'s register.
                let earlier = || dying.iter().copied().filter(|&a| defined[a]);
                if let Some(a) = earlier()
                    .find(|&a| heads[a] != a)
                    .or_else(|| earlier().next())
                {
                    heads[d] = heads[a];
                }
                defined[d] = true;
            }
        }
    }
    heads
}

/// The register bank (number parity) a 32-bit value should take so that it differs from most
/// of its placed partners' chains, if they lean one way.
fn preferred_bank(partners: &[usize], heads: &[usize], base: &[Option<u32>]) -> Option<u32> {
    let placed: Vec<u32> = partners
        .iter()
        .filter_map(|&o| base[heads[o]].map(|b| b % 2))
        .collect();
    let odd = placed.iter().filter(|&&p| p == 1).count();
    let even = placed.len() - odd;
    match even.cmp(&odd) {
        std::cmp::Ordering::Greater => Some(1),
        std::cmp::Ordering::Less => Some(0),
        std::cmp::Ordering::Equal => None,
    }
}

/// Per value, the 32-bit values read beside it by one instruction that is not a memory access,
/// a move or a conversion: the operands ptxas puts in different register banks (even and odd
/// numbers; in the SASS of the bench kernels, 94 % of `FADD`s and 85 % of `IMAD`s with two
/// register sources read one of each, against 50 % by chance). Only values with one definition
/// count: a PTX register redefined along a sum (`add.f32 %acc, %acc, %l0` …) is several values
/// to ptxas, which renames it and lets the loads stay dense (tests/regmodel_expansions.rs's
/// kernel: 8 loads in consecutive registers, the sum walking down them).
fn bank_partners(body: &Body, sizes: &[u32]) -> Vec<Vec<usize>> {
    use crate::ptx::ir::Opcode;
    let mut partners = vec![Vec::new(); sizes.len()];
    let defs = crate::ptx::roles::definition_counts(body);
    for i in body.inst_order() {
        let inst = body.inst(i);
        if matches!(
            inst.opcode,
            Opcode::Ld | Opcode::St | Opcode::Atom | Opcode::Red | Opcode::Mov | Opcode::Cvt
        ) {
            continue;
        }
        let mut srcs: Vec<usize> = inst
            .operands
            .iter()
            .skip(1)
            .filter_map(|o| match o {
                Operand::Reg(r) if sizes[r.index()] == 1 && defs[r.index()] <= 1 => Some(r.index()),
                _ => None,
            })
            .collect();
        srcs.dedup();
        for &a in &srcs {
            for &b in &srcs {
                if a != b && !partners[a].contains(&b) {
                    partners[a].push(b);
                }
            }
        }
    }
    partners
}

/// The position of every instruction of the reachable blocks, in layout order.
fn layout_positions(cfg: &Cfg) -> HashMap<Inst, usize> {
    cfg.blocks()
        .filter(|&b| cfg.is_reachable(b))
        .flat_map(|b| cfg.insts(b).iter().copied())
        .enumerate()
        .map(|(k, i)| (i, k))
        .collect()
}

/// Per value with a size (the registers, then the pinned values), the values it interferes with.
fn interference(
    body: &Body,
    cfg: &Cfg,
    liveness: &Liveness,
    sizes: &[u32],
    positions: &HashMap<Inst, usize>,
    spans: &[(usize, usize)],
) -> Vec<BitSet> {
    let n = sizes.len();
    let first_pinned = n - spans.len();
    let mut graph: Vec<BitSet> = (0..n)
        .map(|r| BitSet::new(if sizes[r] > 0 { n } else { 0 }))
        .collect();
    for b in cfg.blocks().filter(|&b| cfg.is_reachable(b)) {
        liveness.for_each_point(body, cfg, b, |i, before, after| {
            let defs: Vec<usize> = slots(body.inst(i))
                .slots
                .iter()
                .filter(|s| s.writes())
                .map(|s| s.reg.index())
                .filter(|&d| sizes[d] > 0)
                .collect();
            for &d in &defs {
                for o in after.iter().chain(defs.iter().copied()) {
                    if o != d && sizes[o] > 0 {
                        graph[d].insert(o);
                        graph[o].insert(d);
                    }
                }
            }
            let Some(&at) = positions.get(&i) else {
                return;
            };
            for (k, &(lo, hi)) in spans.iter().enumerate() {
                if !(lo..=hi).contains(&at) {
                    continue;
                }
                // Read at its instructions: live before each, and after each but the last.
                let p = first_pinned + k;
                let after_too = at < hi;
                let others = before.iter().chain(
                    after
                        .iter()
                        .chain(defs.iter().copied())
                        .filter(|_| after_too),
                );
                for o in others {
                    if sizes[o] > 0 {
                        graph[p].insert(o);
                        graph[o].insert(p);
                    }
                }
            }
        });
    }
    // Pinned values whose spans overlap interfere with each other.
    for (k, &(lo, hi)) in spans.iter().enumerate() {
        for (q, &(qlo, qhi)) in spans.iter().enumerate() {
            if q != k && qlo <= hi && lo <= qhi {
                graph[first_pinned + k].insert(first_pinned + q);
            }
        }
    }
    graph
}

/// The sized registers in the order of their first definition in the layout, and per register
/// the vector destination it was first defined in (its members in order), if any.
fn definition_order(
    body: &Body,
    cfg: &Cfg,
    sizes: &[u32],
    positions: &HashMap<Inst, usize>,
    spans: &[(usize, usize)],
) -> (Vec<usize>, Vec<Group>) {
    let n = sizes.len();
    let first_pinned = n - spans.len();
    let mut seen = vec![false; n];
    let mut order = Vec::new();
    let mut groups: Vec<Group> = vec![None; n];
    for b in cfg.blocks().filter(|&b| cfg.is_reachable(b)) {
        for &i in cfg.insts(b) {
            let inst = body.inst(i);
            if let Some(&at) = positions.get(&i) {
                order.extend(
                    (0..spans.len())
                        .filter(|&k| spans[k].0 == at)
                        .map(|k| first_pinned + k),
                );
            }
            if let Some(Operand::Vector(parts)) = inst.operands.first() {
                let members: Vec<usize> = parts
                    .iter()
                    .filter_map(|p| match p {
                        Operand::Reg(r) if sizes[r.index()] > 0 => Some(r.index()),
                        _ => None,
                    })
                    .collect();
                let distinct = members
                    .iter()
                    .enumerate()
                    .all(|(k, m)| !members[..k].contains(m));
                if members.len() > 1 && distinct {
                    for &m in &members {
                        groups[m].get_or_insert_with(|| members.clone());
                    }
                }
            }
            for s in slots(inst).slots.iter().filter(|s| s.writes()) {
                let r = s.reg.index();
                if sizes[r] > 0 && !seen[r] {
                    seen[r] = true;
                    order.push(r);
                }
            }
        }
    }
    (order, groups)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::testutil::ptx;

    fn used(text: &str, pinned: &[Vec<usize>]) -> u32 {
        used_with_banks(text, pinned, 0)
    }

    fn used_with_banks(text: &str, pinned: &[Vec<usize>], bank_room: u32) -> u32 {
        let body = ptx(text);
        let cfg = Cfg::compute(&body);
        let order: Vec<Inst> = body.inst_order().collect();
        let pinned: Vec<Vec<Inst>> = pinned
            .iter()
            .map(|uses| uses.iter().map(|&k| order[k]).collect())
            .collect();
        registers_used(&body, &cfg, &|_, u| u, &pinned, bank_room)
    }

    /// Two 32-bit values live together take R0 and R2 (R1 is the stack pointer).
    #[test]
    fn the_stack_pointer_is_never_given_out() {
        let text = ".reg .b32 %r<3>;\n.reg .b64 %rd<2>;\n\
                    mov.u32 %r1, %tid.x;\nmov.u32 %r2, %tid.y;\n\
                    add.s32 %r1, %r1, %r2;\ncvt.u64.u32 %rd1, %r1;\n\
                    st.global.u32 [%rd1], %r1;\nret;";
        // %r1 R0, %r2 R2; %rd1 is live with %r1 only (%r2 died at the add): R2:R3.
        assert_eq!(used(text, &[]), 4);
    }

    /// A 64-bit value defined while one 32-bit value is live goes to R2:R3, not R1:R2 or
    /// R3:R4: the pair is even-aligned.
    #[test]
    fn pairs_are_even_aligned() {
        let text = ".reg .b32 %r<2>;\n.reg .b64 %rd<2>;\n\
                    mov.u32 %r1, %tid.x;\ncvt.u64.u32 %rd1, %r1;\n\
                    st.global.u32 [%rd1], %r1;\nret;";
        assert_eq!(used(text, &[]), 4);
    }

    /// A `.v4` load's destinations take four consecutive registers starting at a multiple of 4.
    #[test]
    fn vector_destinations_are_aligned_groups() {
        let text = ".reg .b32 %r<6>;\n.reg .b64 %rd<2>;\n\
                    mov.u32 %r5, %tid.x;\ncvt.u64.u32 %rd1, %r5;\n\
                    ld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd1];\n\
                    add.s32 %r1, %r1, %r2;\nadd.s32 %r1, %r1, %r3;\nadd.s32 %r1, %r1, %r4;\n\
                    add.s32 %r1, %r1, %r5;\n\
                    st.global.u32 [%rd1], %r1;\nret;";
        // %r5 R0, %rd1 R2:R3, the quad R4..R7.
        assert_eq!(used(text, &[]), 8);
    }

    /// Four singles live across a `.v4` load: placed first in definition order they take R0,
    /// R2, R3 and R4, and the quad R8..R11 (12 numbers); the quad placed first takes R4..R7
    /// and the singles R0, R2, R3 and R8.
    #[test]
    fn tuples_are_placed_before_the_singles_around_them() {
        let text = ".reg .b32 %r<10>;\n.reg .b64 %rd<2>;\n\
                    mov.u32 %r1, %tid.x;\nadd.s32 %r2, %r1, 1;\nadd.s32 %r3, %r1, 2;\n\
                    add.s32 %r4, %r1, 3;\ncvt.u64.u32 %rd1, %r1;\n\
                    ld.global.v4.u32 {%r5, %r6, %r7, %r8}, [%rd1];\n\
                    add.s32 %r9, %r5, %r6;\nadd.s32 %r9, %r9, %r7;\nadd.s32 %r9, %r9, %r8;\n\
                    add.s32 %r9, %r9, %r1;\nadd.s32 %r9, %r9, %r2;\nadd.s32 %r9, %r9, %r3;\n\
                    add.s32 %r9, %r9, %r4;\nst.shared.u32 [%r1], %r9;\nret;";
        // The address %rd1 dies at the load: R6:R7, beside the quad it does not outlive.
        assert_eq!(used(text, &[]), 9);
    }

    /// A pinned value is live from its first to its last instruction and takes a register of
    /// its own there.
    #[test]
    fn pinned_values_take_a_register_over_their_span() {
        let text = ".reg .b32 %r<3>;\n.reg .b64 %rd<2>;\n\
                    mov.u32 %r1, %tid.x;\ncvt.u64.u32 %rd1, %r1;\n\
                    st.global.u32 [%rd1], 7;\nst.global.u32 [%rd1+4], 7;\nret;";
        assert_eq!(used(text, &[]), 4);
        // The constant 7 lives across both stores, beside %rd1 (R2:R3): R0 it is.
        assert_eq!(used(text, &[vec![2, 3]]), 4);
        // Over the conversion too: it is placed when first met, just before the conversion,
        // beside %r1 (R0): R2; %rd1 then takes R4:R5.
        assert_eq!(used(text, &[vec![1, 3]]), 6);
    }

    /// A sum of three loads: the partial sums form one chain (headed by the first load), and
    /// with room for banks the other loads take odd numbers, away from the chain's even one.
    #[test]
    fn the_terms_of_a_sum_go_to_the_other_bank_while_there_is_room() {
        let text = ".reg .b32 %r<2>;\n.reg .b64 %rd<2>;\n.reg .f32 %f<6>;\n\
                    mov.u32 %r1, %tid.x;\ncvt.u64.u32 %rd1, %r1;\n\
                    ld.global.f32 %f1, [%rd1];\nld.global.f32 %f2, [%rd1+4];\n\
                    ld.global.f32 %f3, [%rd1+8];\n\
                    add.f32 %f4, %f1, %f2;\nadd.f32 %f5, %f4, %f3;\n\
                    st.global.f32 [%rd1], %f5;\nret;";
        // Densely: %rd1 R2:R3, %f1 R0, %f2 R4, %f3 R5.
        assert_eq!(used(text, &[]), 6);
        // Banked: %f1 (the chain) R0, %f2 R5, %f3 R7.
        assert_eq!(used_with_banks(text, &[], 30), 8);
        // Without room left (6 numbers in use before the loads), dense again.
        assert_eq!(used_with_banks(text, &[], 4), 6);
    }

    /// A weighted sum written term first (`fma %f6, %f2, 2.0, %f5`, as clang writes a stencil):
    /// the chain runs through the partial sums, so every later term goes to the other bank than
    /// the sum's, as ptxas puts `stencil1d_naive`'s taps in R5, R7, …, R15.
    #[test]
    fn a_chain_runs_through_the_partial_sum_not_the_term_read_first() {
        let text = ".reg .b32 %r<2>;\n.reg .b64 %rd<2>;\n.reg .f32 %f<9>;\n\
                    mov.u32 %r1, %tid.x;\ncvt.u64.u32 %rd1, %r1;\n\
                    ld.global.f32 %f1, [%rd1];\nld.global.f32 %f2, [%rd1+4];\n\
                    ld.global.f32 %f3, [%rd1+8];\nld.global.f32 %f4, [%rd1+12];\n\
                    mul.f32 %f5, %f1, 0f40000000;\nfma.rn.f32 %f6, %f2, 0f40000000, %f5;\n\
                    fma.rn.f32 %f7, %f3, 0f40000000, %f6;\nfma.rn.f32 %f8, %f4, 0f40000000, %f7;\n\
                    st.global.f32 [%rd1], %f8;\nret;";
        // %f1 (the chain) R0, %rd1 R2:R3, the terms R5, R7, R9.
        assert_eq!(used_with_banks(text, &[], 30), 10);
    }
}
