//! A register assignment for counting (issue 12's register model, [`super::regmodel`]): how
//! many hardware register numbers a kernel's per-thread values need when 64-bit values take an
//! even-aligned pair and a vector destination (`ld.v2`/`ld.v4`, `mma`'s fragments) takes
//! consecutive registers aligned to its size, as the SASS encodings require (`R2:R3`, a
//! `LDG.E.128` into `R4..R7`). A liveness count assumes any free unit can hold any value; the
//! alignment leaves holes, and ptxas's count is the highest register number used, not the
//! number of live values.
//!
//! The assignment is a greedy colouring of the interference graph (Chaitin's rule: a value
//! defined at an instruction interferes with everything live after it), in the order the values
//! are first defined in the layout, each value at the lowest aligned free position; `R1` (the
//! stack pointer) is never given out. It is a count, not ptxas's allocator: ptxas coalesces,
//! splits and rematerialises, and numbers registers its own way.

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
/// live from the first to the last of its instructions in the layout.
pub fn registers_used(
    body: &Body,
    cfg: &Cfg,
    weight: &impl Fn(usize, u32) -> u32,
    pinned: &[Vec<Inst>],
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
    let interference = interference(body, cfg, &sizes, &positions, &spans);
    let (order, groups) = definition_order(body, cfg, &sizes, &positions, &spans);
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
        let b = (0..)
            .map(|k| k * alignment(total))
            .find(|&b| fits(b))
            .expect("some position is free");
        for (&m, &o) in members.iter().zip(&offsets) {
            base[m] = Some(b + o);
        }
        top = top.max(b + total);
    }
    top
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
    sizes: &[u32],
    positions: &HashMap<Inst, usize>,
    spans: &[(usize, usize)],
) -> Vec<BitSet> {
    let n = sizes.len();
    let first_pinned = n - spans.len();
    let liveness = Liveness::compute(body, cfg);
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
        let body = ptx(text);
        let cfg = Cfg::compute(&body);
        let order: Vec<Inst> = body.inst_order().collect();
        let pinned: Vec<Vec<Inst>> = pinned
            .iter()
            .map(|uses| uses.iter().map(|&k| order[k]).collect())
            .collect();
        registers_used(&body, &cfg, &|_, u| u, &pinned)
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
}
