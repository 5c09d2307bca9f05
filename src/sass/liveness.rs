//! Which general-purpose registers are live before each instruction of a function's SASS: a
//! backward dataflow over the instructions' def/use ([`super::isa::Instruction::def_use`]) and
//! their control flow (branch targets, fall-through, `EXIT`, internal `CALL`/`RET`). ptxas's
//! register count is the highest register number it uses plus one; this is how many values it
//! actually keeps at once, the figure the register model (issue 12, `analysis::regmodel`) is
//! meant to follow before numbering. `warpsmith sass dis --liveness` prints it.
//!
//! A register counts where it is live (read later on some path before being written) and
//! defined (written on some path from the entry): ptxas reads registers it has not written —
//! a predicate mask built bit by bit in a register (`LOP3 R95, R95, …`), a pair written and
//! read under the same guard — and liveness alone would carry those back to the entry.
//!
//! Approximations, said in [`Liveness::approximate`]: a guarded write does not end a register's
//! life (the guard may be false); an instruction whose operands the tables do not know reads
//! nothing here; an indirect branch (`BRX`, `JMX`) falls through only. A subroutine's body
//! counts what its callers keep live after every call into it, together.

use super::isa::abi::CallConvention;
use super::isa::{Instruction, RegFile, RegSet};
use crate::machine::bitset::BitSet;
use crate::machine::liveness::solve_backward;

/// The live registers before each instruction of one function.
#[derive(Clone, Debug)]
pub struct Liveness {
    /// GPRs live and defined before instruction `k`, by register number (`RZ` never counts).
    pub live_in: Vec<BitSet>,
    /// Where the analysis had to guess, one line per kind.
    pub approximate: Vec<String>,
}

impl Liveness {
    /// GPRs live before instruction `k`.
    pub fn count(&self, k: usize) -> u32 {
        self.live_in.get(k).map_or(0, |s| s.len() as u32)
    }

    /// The most GPRs live at once and the first instruction before which that many are.
    pub fn peak(&self) -> Option<(usize, u32)> {
        (0..self.live_in.len())
            .map(|k| (k, self.count(k)))
            .fold(None, |best, (k, n)| match best {
                Some((_, m)) if m >= n => best,
                _ => Some((k, n)),
            })
    }
}

/// The mnemonic without its modifiers (`BRA.DIV` → `BRA`).
fn base(i: &Instruction) -> String {
    let m = i.mnemonic();
    m.trim_end_matches('?')
        .split('.')
        .next()
        .unwrap_or_default()
        .to_string()
}

/// The index of instruction `k`'s branch or call target when it lies in `insts`.
fn target_in(insts: &[Instruction], k: usize) -> Option<usize> {
    insts[k]
        .branch_target(k as u64 * 16)
        .filter(|t| t % 16 == 0 && ((t / 16) as usize) < insts.len())
        .map(|t| (t / 16) as usize)
}

/// Control flow of the function `insts`: the successors of each instruction.
fn successors(insts: &[Instruction], approximate: &mut Vec<String>) -> Vec<Vec<usize>> {
    let n = insts.len();
    let target_of = |k: usize| target_in(insts, k);
    // Where an internal subroutine's `RET` may go back to: after every call into the section.
    let returns: Vec<usize> = (0..n)
        .filter(|&k| insts[k].is_call() && target_of(k).is_some() && k + 1 < n)
        .map(|k| k + 1)
        .collect();
    let mut indirect = false;
    let succ = (0..n)
        .map(|k| {
            let i = &insts[k];
            let next = (k + 1 < n).then_some(k + 1);
            let conditional = !i.guard.is_true()
                || !i.field_def_use().reads.is_empty_in(RegFile::Pred)
                || i.mnemonic().contains(".DIV");
            let mut s: Vec<usize> = match base(i).as_str() {
                "EXIT" | "KILL" if !conditional => Vec::new(),
                "RET" if conditional => returns.iter().copied().chain(next).collect(),
                "RET" => returns.clone(),
                "BRA" | "JMP" => {
                    let mut v: Vec<usize> = target_of(k).into_iter().collect();
                    if conditional || v.is_empty() {
                        v.extend(next);
                    }
                    v
                }
                "BRX" | "BRXU" | "JMX" | "JMXU" => {
                    indirect = true;
                    next.into_iter().collect()
                }
                _ if i.is_call() => target_of(k).into_iter().chain(next).collect(),
                _ => next.into_iter().collect(),
            };
            s.sort_unstable();
            s.dedup();
            s
        })
        .collect();
    if indirect {
        approximate.push("an indirect branch is followed by its fall-through only".into());
    }
    succ
}

/// GPRs (`R0`–`R254`): the width of the sets.
const GPRS: usize = 255;

/// `set`'s GPRs as a bit set.
fn gprs(set: &RegSet) -> BitSet {
    let mut b = BitSet::new(GPRS);
    for r in set.iter(RegFile::Gpr) {
        b.insert(r as usize);
    }
    b
}

/// The GPRs instruction `i` reads and (unguarded) kills: a call into the section counts its own
/// fields, one outside it the calling convention's effects.
fn gen_kill(i: &Instruction, internal_call: bool, conv: &CallConvention) -> (BitSet, BitSet) {
    let du = if i.is_call() && !internal_call {
        conv.def_use(i)
    } else {
        i.own_def_use()
    };
    let kill = if i.guard.is_true() {
        gprs(&du.writes)
    } else {
        BitSet::new(GPRS)
    };
    (gprs(&du.reads), kill)
}

/// The predecessor lists of a graph given by its successor lists.
fn predecessors(succ: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let mut preds = vec![Vec::new(); succ.len()];
    for (k, ss) in succ.iter().enumerate() {
        for &s in ss {
            preds[s].push(k);
        }
    }
    preds
}

/// GPR liveness of one function's instructions (its `.text` section, decoded in order; calls
/// follow `conv`).
pub fn gpr_liveness(insts: &[Instruction], conv: &CallConvention) -> Liveness {
    let n = insts.len();
    let mut approximate = Vec::new();
    let succ = successors(insts, &mut approximate);
    let preds = predecessors(&succ);
    let unknown = insts.iter().filter(|i| !i.is_known()).count();
    if unknown > 0 {
        approximate.push(format!(
            "{unknown} instruction(s) of unknown form read nothing here"
        ));
    }
    let (gen, kill): (Vec<BitSet>, Vec<BitSet>) = (0..n)
        .map(|k| gen_kill(&insts[k], target_in(insts, k).is_some(), conv))
        .unzip();
    let backward: Vec<usize> = (0..n).rev().collect();
    let (live, _) = solve_backward(&backward, &succ, &preds, gen, &kill);
    // Written on some path from the entry: the same problem on the reversed graph, where a
    // node's "out" is what reaches it.
    let writes: Vec<BitSet> = insts
        .iter()
        .map(|i| gprs(&i.own_def_use().writes))
        .collect();
    let forward: Vec<usize> = (0..n).collect();
    let none = vec![BitSet::new(GPRS); n];
    let (_, defined) = solve_backward(&forward, &preds, &succ, writes, &none);
    let live_in = live
        .into_iter()
        .zip(&defined)
        .map(|(mut l, d)| {
            l.intersect_with(d);
            l
        })
        .collect();
    Liveness {
        live_in,
        approximate,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sass::isa::Arch;

    /// sm_80 instructions from their two listing words (low, high).
    fn decoded(words: &[(u64, u64)]) -> Vec<Instruction> {
        words
            .iter()
            .map(|&(lo, hi)| Instruction::decode(Arch::Sm80, u128::from(hi) << 64 | u128::from(lo)))
            .collect()
    }

    fn counts(insts: &[Instruction]) -> Vec<u32> {
        let l = gpr_liveness(insts, &CallConvention::of(32));
        (0..insts.len()).map(|k| l.count(k)).collect()
    }

    /// ptxas 12.9's sm_80 code for eight volatile loads stored back in reverse order
    /// (lit-tests/sass/Inputs/held8.ptx): the address pairs R2:R3 and R4:R5 and all eight
    /// values are live after the last load.
    #[test]
    fn straight_line_counts_every_value_until_its_last_read() {
        let insts = decoded(&[
            (0x00000a0000017a02, 0x000fe40000000f00), // MOV R1
            (0x0000000000047919, 0x000e220000002100), // S2R R4
            (0x00000020ff057435, 0x000fe200000001ff), // HFMA2 R5
            (0x0000460000047ab9, 0x000fd20000000a00), // ULDC UR4:UR5
            (0x0000580004027625, 0x001fca00078e0005), // IMAD.WIDE R2:R3
            (0x0000000402077981, 0x000ea8000c1f5900), // LDG R7
            (0x0000040402097981, 0x000ee8000c1f5900), // LDG R9
            (0x00000804020b7981, 0x000f28000c1f5900), // LDG R11
            (0x00000c04020d7981, 0x000f68000c1f5900), // LDG R13
            (0x00001004020f7981, 0x000ea8000c1f5900), // LDG R15
            (0x0000140402117981, 0x000ea8000c1f5900), // LDG R17
            (0x0000180402137981, 0x000ea8000c1f5900), // LDG R19
            (0x00001c0402157981, 0x000ea2000c1f5900), // LDG R21
            (0x00005a0004047625, 0x000fca00078e0005), // IMAD.WIDE R4:R5
            (0x0000001504007986, 0x004fe8000c115904), // STG R21
            (0x0000041304007986, 0x000fe8000c115904),
            (0x0000081104007986, 0x000fe8000c115904),
            (0x00000c0f04007986, 0x000fe8000c115904),
            (0x0000100d04007986, 0x020fe8000c115904),
            (0x0000140b04007986, 0x010fe8000c115904),
            (0x0000180904007986, 0x008fe8000c115904),
            (0x00001c0704007986, 0x000fe2000c115904), // STG R7
            (0x000000000000794d, 0x000fea0003800000), // EXIT
            (0xfffffff000007947, 0x000fc0000383ffff), // BRA self
        ]);
        let want = [
            0, 0, 1, 2, 2, 4, 5, 6, 7, 8, 9, 10, 11, 10, 10, 9, 8, 7, 6, 5, 4, 3, 0, 0,
        ];
        assert_eq!(counts(&insts), want);
        let l = gpr_liveness(&insts, &CallConvention::of(32));
        assert_eq!(l.peak(), Some((12, 11)));
        assert!(l.approximate.is_empty(), "{:?}", l.approximate);
    }

    /// The loop of lit-tests/sass/Inputs/loop.ptx (sm_80), cut out with its back edge and an
    /// `EXIT`: the sum R5 and the counter R0 stay live around the back edge; R2, read but never
    /// written here, is an input and does not count.
    #[test]
    fn values_carried_around_a_loop_are_live_at_its_head() {
        let insts = decoded(&[
            (0x0000000002047984, 0x000fe20000004800), // LDS R4, [R2]
            (0x0000000400007810, 0x000fc60007ffe0ff), // IADD3 R0, R0, 4
            (0x0000000002037984, 0x000e220000004800), // LDS R3, [R2]
            (0x0000000400007c0c, 0x000fc6000bf26070), // ISETP P1, R0, UR4
            (0x0000000002067984, 0x000fe80000004800), // LDS R6, [R2]
            (0x0000000002077984, 0x000e620000004800), // LDS R7, [R2]
            (0x0000000503037210, 0x001fc80007ffe004), // IADD3 R3, R3, R4, R5
            (0x0000000307057210, 0x002fe20007ffe006), // IADD3 R5, R3, R6, R7
            (0xffffff7000009947, 0x000fea000383ffff), // @!P1 BRA to the LDS at 0
            (0x000000000000794d, 0x000fea0003800000), // EXIT
        ]);
        assert_eq!(insts[8].branch_target(8 * 16), Some(0));
        assert_eq!(counts(&insts), [2, 3, 3, 4, 4, 5, 6, 4, 2, 0]);
    }
}
