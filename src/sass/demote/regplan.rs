//! Which registers the register demoter moves to shared memory, and the new register numbers of
//! the rest (RegDem §3.1–3.2 on Ampere/Hopper SASS: demotion candidates by access cost, then
//! register compaction so the kernel's register count falls to the target).
//!
//! - **Units**: registers that some operand reads or writes together (64-bit pairs, 128-bit
//!   quads, tensor-core fragments) form one unit, renumbered as a block that keeps its position
//!   modulo its power-of-two size, so every operand keeps its alignment. Units of 1, 2 or 4
//!   registers can be demoted: each of its registers gets a slot word, and an instruction that
//!   touches it gets an aligned block of scratch registers of the unit's size.
//! - **Cost**: each access (read or write) weighs `8^d` for loop depth `d` (intervals between a
//!   backward branch and its target), the SASS form of RegDem's access counts weighted by loop
//!   depth.
//! - **Choice**: the demotable units cheapest per register, one by one, until the packed kept
//!   registers, the scratch registers (the most one instruction needs) and the two
//!   registers ptxas always reserves (`REGCOUNT` = highest register + 3, checked on every cubin
//!   of the bench) fit the target.
//!
//! - **Rematerialisation** (the design card's "constants rematerialised"): a single register
//!   written exactly once, unguarded, by a fixed-latency instruction that reads no register
//!   (`MOV R4, 0x40`, `HFMA2.MMA R5, -RZ, RZ, …`, `MOV R6, c[0x0][0x160]`: immediates and the
//!   constant bank) needs no slot: its definition becomes a `NOP` and each use gets a copy of it
//!   into a scratch register. Such registers count a quarter of their accesses (an ALU
//!   instruction instead of a shared-memory round trip).
//!
//! R1 (the stack pointer, our shared-memory base) never moves.

use std::collections::{BTreeMap, BTreeSet};

use super::frame::{FrameError, SP};
use super::timing::timing;
use crate::sass::isa::{Instruction, RegFile};

/// Registers ptxas's `REGCOUNT` counts beyond the highest register used.
pub const RESERVED: u32 = 2;

/// Registers per thread are allocated in multiples of this (256 per warp) on sm_80–sm_90.
pub const ALLOCATION_GRANULE: u32 = 8;

/// The most scratch banks a plan takes.
pub const MAX_SCRATCH_BANKS: u32 = 4;

/// Registers the machine has per thread (R0–R254).
const GPRS: u32 = 255;

/// One block of registers renumbered together.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unit {
    /// First register.
    pub base: u32,
    /// Registers.
    pub size: u32,
}

impl Unit {
    fn modulus(self) -> u32 {
        self.size.next_power_of_two()
    }

    /// Whether register `r` is in the unit.
    pub fn contains(self, r: u32) -> bool {
        (self.base..self.base + self.size).contains(&r)
    }

    fn registers(self) -> std::ops::Range<u32> {
        self.base..self.base + self.size
    }
}

/// The demoter's decision for one kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegisterPlan {
    /// Units moved to shared memory, in slot order.
    pub units: Vec<Unit>,
    /// Every demoted register that lives in a slot, and its slot word (its unit's first word +
    /// its place in the unit).
    pub slot_word: BTreeMap<u32, u32>,
    /// Demoted registers recomputed at each use instead: the index of their one definition.
    pub remat: BTreeMap<u32, usize>,
    /// New number of every kept register (`None` for demoted or unused ones).
    pub map: Vec<Option<u32>>,
    /// The first scratch register; scratch registers are `scratch..scratch + scratch_count`.
    pub scratch: u32,
    /// Scratch registers one instruction needs (a bank).
    pub scratch_count: u32,
    /// Banks of scratch registers, used in turn by successive instructions so that the
    /// scheduler can overlap one's loads with another's ([`RegisterPlan::widen_scratch`]).
    pub scratch_banks: u32,
    /// The register count after the rewrite (`REGCOUNT`).
    pub registers: u32,
}

impl RegisterPlan {
    /// Registers demoted (in slots or rematerialised), ascending.
    pub fn demoted(&self) -> impl Iterator<Item = u32> + '_ {
        let all: BTreeSet<u32> = self
            .slot_word
            .keys()
            .chain(self.remat.keys())
            .copied()
            .collect();
        all.into_iter()
    }

    /// Whether register `r` is demoted.
    pub fn is_demoted(&self, r: u32) -> bool {
        self.slot_word.contains_key(&r) || self.remat.contains_key(&r)
    }

    /// Distance between two scratch banks: a bank rounded up to the widest unit's alignment.
    pub fn bank_stride(&self) -> u32 {
        let align = self.units.iter().map(|u| u.modulus()).max().unwrap_or(1);
        self.scratch_count.next_multiple_of(align)
    }

    /// One past the last scratch register.
    pub fn scratch_end(&self) -> u32 {
        match self.scratch_count {
            0 => self.scratch,
            n => self.scratch + self.bank_stride() * (self.scratch_banks - 1) + n,
        }
    }

    /// Adds scratch banks while the register count stays within `target` and within its
    /// allocation granule (8 registers per thread on sm_80–sm_90: occupancy cannot change), at
    /// most [`MAX_SCRATCH_BANKS`].
    pub fn widen_scratch(&mut self, target: u32) {
        if self.scratch_count == 0 {
            return;
        }
        let limit = target.min(self.registers.next_multiple_of(ALLOCATION_GRANULE));
        while self.scratch_banks < MAX_SCRATCH_BANKS
            && self.scratch_end() + self.bank_stride() + RESERVED <= limit
            && self.scratch_end() + self.bank_stride() <= GPRS
        {
            self.scratch_banks += 1;
        }
        self.registers = self.scratch_end() + RESERVED;
    }

    /// [`RegisterPlan::scratch_for`] in bank `bank` (taken modulo the bank count).
    pub fn scratch_in_bank(&self, regs: &[u32], bank: usize) -> BTreeMap<u32, u32> {
        let shift = self.bank_stride() * (bank as u32 % self.scratch_banks.max(1));
        let mut out = self.scratch_for(regs);
        for s in out.values_mut() {
            *s += shift;
        }
        out
    }

    /// The scratch register of each demoted register in `regs` (those one instruction touches):
    /// each unit they belong to gets a block of its size, the largest first, so every block is
    /// aligned to its size.
    pub fn scratch_for(&self, regs: &[u32]) -> BTreeMap<u32, u32> {
        let mut units: Vec<Unit> = self
            .units
            .iter()
            .copied()
            .filter(|u| regs.iter().any(|&r| u.contains(r)))
            .collect();
        units.sort_by_key(|u| (std::cmp::Reverse(u.size), u.base));
        let mut out = BTreeMap::new();
        let mut at = self.scratch;
        for u in units {
            for r in regs.iter().copied().filter(|&r| u.contains(r)) {
                out.insert(r, at + r - u.base);
            }
            at += u.size;
        }
        out
    }
}

/// Why no plan reaches the target.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    /// An instruction's registers are not exactly known.
    #[error("{mnemonic} at {pc:#x}: the registers it reads or writes are not exactly known")]
    Inexact {
        /// Byte offset.
        pc: u64,
        /// The instruction.
        mnemonic: String,
    },
    /// A call out of the kernel's code or through a register ([`FrameError::Call`]): the
    /// callee is not in view.
    #[error(transparent)]
    Call(FrameError),
    /// Even demoting every candidate leaves too many registers.
    #[error(
        "{target} registers are out of reach: at best {best} ({candidates} of {used} registers \
         can be demoted; {wide} are parts of multi-register operands ({wide_demotable} of them \
         demotable); {untimed} single registers are \
         touched by instructions whose timing is not known: {blockers})"
    )]
    Unreachable {
        /// Registers in multi-register units.
        wide: usize,
        /// Of those, the ones in demotable units.
        wide_demotable: usize,
        /// Single registers touched by instructions of unknown timing.
        untimed: usize,
        /// The mnemonics that blocked single registers, with counts.
        blockers: String,
        /// The target.
        target: u32,
        /// The fewest registers a plan reaches.
        best: u32,
        /// Demotable registers.
        candidates: usize,
        /// Registers the kernel uses.
        used: usize,
    },
}

/// The facts about a kernel's code the choice needs.
pub struct Usage {
    /// Per instruction, the general registers it reads or writes (expanded ranges).
    touched: Vec<BTreeSet<u32>>,
    /// Units, ascending by base.
    units: Vec<Unit>,
    /// Demotable units with their costs, cheapest per register first.
    candidates: Vec<(Unit, u64)>,
    /// Per register, the first mnemonic whose timing kept it from being demoted.
    blocked_by: Vec<Option<String>>,
    /// Per register, its one definition where that can be recomputed at each use.
    remat_def: Vec<Option<usize>>,
}

impl Usage {
    /// Reads `body` (the kernel's code without padding, with the subroutines it calls).
    /// `pinned` registers are never demoted (those the frame rewrite or the caller needs).
    pub fn of(body: &[Instruction], pinned: &BTreeSet<u32>) -> Result<Usage, PlanError> {
        let g = RegFile::Gpr;
        let mut touched = Vec::with_capacity(body.len());
        let mut span = vec![0u32; GPRS as usize];
        let mut blocked_by: Vec<Option<String>> = vec![None; GPRS as usize];
        for (k, inst) in body.iter().enumerate() {
            let pc = k as u64 * 16;
            // A call into this section (ptxas's slow paths of division and the like): its
            // callee is in `body` and renamed with it; the call itself touches only its fields.
            let end = body.len() as u64 * 16;
            if inst.is_call() && inst.branch_target(pc).is_none_or(|t| t >= end) {
                return Err(PlanError::Call(FrameError::Call {
                    pc,
                    mnemonic: inst.mnemonic(),
                }));
            }
            let du = inst.own_def_use();
            if !du.is_exact() {
                return Err(PlanError::Inexact {
                    pc,
                    mnemonic: inst.mnemonic(),
                });
            }
            let mut regs = BTreeSet::new();
            for op in inst.operands.iter().filter(|o| o.spec.file == g) {
                let r = op.registers();
                if r.start < GPRS {
                    let s = &mut span[r.start as usize];
                    *s = (*s).max(r.len() as u32);
                }
                regs.extend(r.filter(|&x| x < GPRS));
            }
            // Every register the summary names must be some operand's (nothing implicit).
            let named: BTreeSet<u32> = du.reads.iter(g).chain(du.writes.iter(g)).collect();
            if !named.is_subset(&regs) {
                return Err(PlanError::Inexact {
                    pc,
                    mnemonic: inst.mnemonic(),
                });
            }
            let t = timing(inst);
            let mut block = |r: u32| {
                blocked_by[r as usize].get_or_insert_with(|| inst.opcode());
            };
            for r in du.reads.iter(g).filter(|_| !t.may_read_scratch()) {
                block(r);
            }
            for r in du.writes.iter(g).filter(|_| !t.may_write_scratch()) {
                block(r);
            }
            touched.push(regs);
        }
        let units = units(&touched, &span);
        let remat_def = remat_defs(body);
        let depth = loop_depth(body);
        let mut cost = vec![0u64; GPRS as usize];
        for (k, regs) in touched.iter().enumerate() {
            for &r in regs {
                cost[r as usize] += 8u64.pow(depth[k].min(6));
            }
        }
        let mut candidates: Vec<(Unit, u64)> = units
            .iter()
            .copied()
            .filter(|u| matches!(u.size, 1 | 2 | 4))
            .filter(|u| u.registers().all(|r| r != SP && !pinned.contains(&r)))
            .filter(|u| u.registers().all(|r| blocked_by[r as usize].is_none()))
            .map(|u| {
                let c: u64 = u.registers().map(|r| cost[r as usize]).sum();
                let remat = u.size == 1 && remat_def[u.base as usize].is_some();
                (u, if remat { c / 4 } else { c })
            })
            .collect();
        // Cheapest per register: c_a / s_a < c_b / s_b.
        candidates.sort_by(|(a, ca), (b, cb)| {
            (ca * b.size as u64)
                .cmp(&(cb * a.size as u64))
                .then(a.base.cmp(&b.base))
        });
        Ok(Usage {
            touched,
            units,
            candidates,
            blocked_by,
            remat_def,
        })
    }

    /// The registers the kernel uses.
    pub fn used(&self) -> usize {
        self.units.iter().map(|u| u.size as usize).sum()
    }

    /// The first plan, demoting the cheapest candidates first, whose register count is at
    /// most `target`.
    pub fn plan(&self, target: u32) -> Result<RegisterPlan, PlanError> {
        let mut best = u32::MAX;
        for d in 0..=self.candidates.len() {
            let demoted: Vec<Unit> = self.candidates[..d].iter().map(|c| c.0).collect();
            let Some(p) = self.plan_with(&demoted) else {
                continue;
            };
            if p.registers <= target {
                let mut p = p;
                p.widen_scratch(target);
                return Ok(p);
            }
            best = best.min(p.registers);
        }
        let singles: Vec<u32> = self
            .units
            .iter()
            .filter(|u| u.size == 1)
            .map(|u| u.base)
            .collect();
        let mut blockers = std::collections::BTreeMap::<&str, usize>::new();
        for r in &singles {
            if let Some(m) = &self.blocked_by[*r as usize] {
                *blockers.entry(m.as_str()).or_default() += 1;
            }
        }
        Err(PlanError::Unreachable {
            target,
            best,
            candidates: self.candidates.iter().map(|c| c.0.size as usize).sum(),
            used: self.used(),
            wide: self.used() - singles.len(),
            wide_demotable: self
                .candidates
                .iter()
                .filter(|c| c.0.size > 1)
                .map(|c| c.0.size as usize)
                .sum(),
            untimed: blockers.values().sum(),
            blockers: if blockers.is_empty() {
                "none".into()
            } else {
                blockers
                    .iter()
                    .map(|(m, n)| format!("{m} ({n})"))
                    .collect::<Vec<_>>()
                    .join(", ")
            },
        })
    }

    /// The plan that demotes exactly the units `demoted` (`None` where the registers do not
    /// fit).
    pub fn plan_with(&self, demoted: &[Unit]) -> Option<RegisterPlan> {
        let kept: Vec<Unit> = self
            .units
            .iter()
            .copied()
            .filter(|u| !demoted.contains(u))
            .collect();
        let map = pack(&kept)?;
        let align = demoted.iter().map(|u| u.modulus()).max().unwrap_or(1);
        let top_kept = map.iter().flatten().map(|&r| r + 1).max().unwrap_or(0);
        let mut slot_word = BTreeMap::new();
        let mut remat = BTreeMap::new();
        let mut word = 0;
        for u in demoted {
            if let (1, Some(def)) = (u.size, self.remat_def[u.base as usize]) {
                remat.insert(u.base, def);
                continue;
            }
            for r in u.registers() {
                slot_word.insert(r, word);
                word += 1;
            }
        }
        let mut plan = RegisterPlan {
            units: demoted.to_vec(),
            slot_word,
            remat,
            map,
            scratch: top_kept.next_multiple_of(align),
            scratch_count: 0,
            scratch_banks: 1,
            registers: 0,
        };
        plan.scratch_count = self
            .touched
            .iter()
            .map(|t| {
                let regs: Vec<u32> = t.iter().copied().filter(|&r| plan.is_demoted(r)).collect();
                plan.scratch_for(&regs)
                    .values()
                    .map(|&s| s + 1)
                    .max()
                    .map_or(0, |m| m - plan.scratch)
            })
            .max()
            .unwrap_or(0);
        let top = if plan.scratch_count == 0 {
            top_kept
        } else {
            plan.scratch + plan.scratch_count
        };
        plan.registers = top + RESERVED;
        (top <= GPRS).then_some(plan)
    }
}

/// The units of the registers `touched`: a register joins the unit before it when an operand
/// range starting in that unit covers it; `span[r]` is the longest operand range starting at
/// `r` (ranges of power-of-two size are aligned, so they nest or are disjoint).
fn units(touched: &[BTreeSet<u32>], span: &[u32]) -> Vec<Unit> {
    let used: BTreeSet<u32> = touched.iter().flatten().copied().collect();
    let mut out: Vec<Unit> = Vec::new();
    for &r in &used {
        let end = r + span[r as usize].max(1);
        match out.last_mut() {
            Some(u) if r < u.base + u.size => u.size = u.size.max(end - u.base),
            _ => out.push(Unit {
                base: r,
                size: end - r,
            }),
        }
    }
    out
}

/// Base mnemonics whose result is a pure function of their immediate and constant-bank operands
/// when they read no register.
const PURE: &[&str] = &[
    "MOV", "IMAD", "IADD3", "HFMA2", "LOP3", "SHF", "LEA", "FFMA", "FADD", "FMUL", "SEL", "FSEL",
];

/// Per register: the index of its one definition, where it can be recomputed at every use (an
/// unguarded fixed-latency instruction of [`PURE`] that reads no register of any file and writes
/// only this one).
fn remat_defs(body: &[Instruction]) -> Vec<Option<usize>> {
    let g = RegFile::Gpr;
    let mut writers = vec![0u32; GPRS as usize];
    let mut def: Vec<Option<usize>> = vec![None; GPRS as usize];
    for (k, inst) in body.iter().enumerate() {
        let du = inst.own_def_use();
        let written: Vec<u32> = du.writes.iter(g).collect();
        for &r in &written {
            writers[r as usize] += 1;
        }
        let pure = timing(inst) == super::timing::Timing::Fixed
            && PURE.contains(&inst.opcode().as_str())
            && inst.guard.is_true()
            && du.is_exact()
            && du.reads.is_empty()
            && written.len() == 1
            && du.writes_only(g);
        if pure {
            def[written[0] as usize] = Some(k);
        }
    }
    (0..GPRS as usize)
        .map(|r| def[r].filter(|_| writers[r] == 1))
        .collect()
}

/// New numbers for the `kept` units: the widest first, each at the lowest free position that
/// keeps its base modulo its power-of-two size; R1 stays R1.
fn pack(kept: &[Unit]) -> Option<Vec<Option<u32>>> {
    let mut map = vec![None; GPRS as usize];
    let mut taken = vec![false; GPRS as usize];
    taken[SP as usize] = true;
    let mut order: Vec<Unit> = kept.to_vec();
    order.sort_by_key(|u| (std::cmp::Reverse(u.size), u.base));
    for u in order {
        if u.base == SP && u.size == 1 {
            map[SP as usize] = Some(SP);
            continue;
        }
        let m = u.modulus();
        let mut at = u.base % m;
        loop {
            if at + u.size > GPRS {
                return None;
            }
            if (at..at + u.size).all(|x| !taken[x as usize]) {
                break;
            }
            at += m;
        }
        for k in 0..u.size {
            taken[(at + k) as usize] = true;
            map[(u.base + k) as usize] = Some(at + k);
        }
    }
    Some(map)
}

/// Per instruction, how many loops contain it: intervals `[target, branch]` of backward
/// branches.
fn loop_depth(body: &[Instruction]) -> Vec<u32> {
    let mut depth = vec![0u32; body.len()];
    for (k, inst) in body.iter().enumerate() {
        let Some(t) = inst.branch_target(k as u64 * 16) else {
            continue;
        };
        let t = (t / 16) as usize;
        if t <= k && !inst.mnemonic().starts_with("RET") {
            for d in &mut depth[t..=k] {
                *d += 1;
            }
        }
    }
    depth
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sass::isa::encode::{self, RZ};
    use crate::sass::isa::Control;

    fn body() -> Vec<Instruction> {
        let a = crate::sass::isa::Arch::Sm80;
        let c = Control::NONE;
        vec![
            // R4:R5 a pair (IMAD.WIDE-like via MOV of both halves is not a pair; use LDS.64).
            encode::lds(
                a,
                4,
                10,
                0,
                encode::Width::B64,
                c,
                crate::sass::isa::Pred::PT,
            )
            .unwrap(),
            encode::iadd3(a, 7, 4, 5, 9, c).unwrap(),
            encode::iadd3(a, 8, 7, 7, RZ as u32, c).unwrap(),
            encode::iadd3(a, 9, 8, 10, 11, c).unwrap(),
        ]
    }

    #[test]
    fn units_keep_pairs_together_and_packing_keeps_alignment() {
        let u = Usage::of(&body(), &BTreeSet::new()).unwrap();
        assert!(u.units.contains(&Unit { base: 4, size: 2 }));
        assert!(u.units.contains(&Unit { base: 7, size: 1 }));
        // Registers 4,5,7,8,9,10,11 used; the pair must land on an even register.
        let p = u.plan_with(&[]).unwrap();
        let r4 = p.map[4].unwrap();
        assert_eq!(r4 % 2, 0);
        assert_eq!(p.map[5], Some(r4 + 1));
        assert_eq!(p.scratch_count, 0);
        // 7 registers + R1 taken = R0..R7 at best: highest 7, +1 +2 reserved.
        assert_eq!(p.registers, 8 + RESERVED);
    }

    #[test]
    fn demotes_the_cheapest_singles_until_the_target_fits() {
        let u = Usage::of(&body(), &BTreeSet::new()).unwrap();
        // The pair (LDS.64 without a write scoreboard) is not a candidate, nor are registers an
        // untracked LDS writes; R10 (its address, read) is.
        assert!(u
            .candidates
            .iter()
            .all(|c| !c.0.contains(4) && !c.0.contains(5)));
        let p = u.plan(9).unwrap();
        assert!(p.registers <= 9);
        assert!(p.demoted().next().is_some());
        for r in p.demoted() {
            assert_eq!(p.map[r as usize], None);
        }
        assert!(matches!(u.plan(3), Err(PlanError::Unreachable { .. })));
    }

    #[test]
    fn scratch_blocks_are_aligned_to_their_unit() {
        let plan = RegisterPlan {
            units: vec![
                Unit { base: 9, size: 1 },
                Unit { base: 12, size: 4 },
                Unit { base: 20, size: 2 },
            ],
            slot_word: BTreeMap::new(),
            remat: BTreeMap::new(),
            map: vec![],
            scratch: 16,
            scratch_count: 7,
            scratch_banks: 1,
            registers: 25,
        };
        // The quad first (16..19), then the pair (20..21), then the single (22).
        let s = plan.scratch_for(&[9, 13, 21]);
        assert_eq!(s, BTreeMap::from([(13, 17), (21, 21), (9, 22)]));
    }

    #[test]
    fn scratch_banks_stay_in_the_allocation_granule_and_keep_alignment() {
        let mut plan = RegisterPlan {
            units: vec![Unit { base: 4, size: 2 }, Unit { base: 9, size: 1 }],
            slot_word: BTreeMap::new(),
            remat: BTreeMap::new(),
            map: vec![],
            scratch: 20,
            scratch_count: 3,
            scratch_banks: 1,
            registers: 25,
        };
        // Stride 4 (3 rounded up to the pair's alignment 2); 25 rounds up to 32: banks at 20,
        // 24 and 28 end at 31, plus the two reserved = 33 > 32, so two banks (registers 29).
        plan.widen_scratch(40);
        assert_eq!(plan.bank_stride(), 4);
        assert_eq!(plan.scratch_banks, 2);
        assert_eq!(plan.registers, 29);
        assert_eq!(plan.scratch_end(), 27);
        let first = plan.scratch_in_bank(&[4, 5, 9], 0);
        let second = plan.scratch_in_bank(&[4, 5, 9], 1);
        let third = plan.scratch_in_bank(&[4, 5, 9], 2);
        assert_eq!(first, BTreeMap::from([(4, 20), (5, 21), (9, 22)]));
        assert_eq!(second, BTreeMap::from([(4, 24), (5, 25), (9, 26)]));
        assert_eq!(third, first, "banks are used in turn");
        // A target below the granule bounds it: no room for a second bank at 28.
        let mut tight = RegisterPlan {
            scratch_banks: 1,
            registers: 25,
            ..plan.clone()
        };
        tight.widen_scratch(28);
        assert_eq!((tight.scratch_banks, tight.registers), (1, 25));
    }
}
