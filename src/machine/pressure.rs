//! Register pressure: how many 32-bit register units are live at each program point, from
//! [`Liveness`]. This is the figure the occupancy calculator and the shared-memory spiller compare
//! against a register budget (`.maxnreg`, or the per-thread budget an occupancy target allows).
//!
//! Units follow the hardware register file, whose registers are 32 bits wide: a register counts
//! `ceil(bits / 32)` units and at least one (`.b8`/`.b16`/`.b32`/`.f32` = 1, `.b64`/`.u64`/`.f64` = 2,
//! `.b128` = 4, a `.v4 .f32` vector register = 4). Predicates live in a separate file and are
//! counted apart.
//!
//! The pressure *at an instruction* is the larger of the set live before it and the set live after
//! it plus the registers it writes (a write needs a register even if the value is dead at once);
//! a source that dies at the instruction may share a register with its destination, so the two sets
//! are not added. An empty block's pressure is its live-in set. The function maxima count reachable
//! blocks only (ptxas drops unreachable code); per-block figures exist for every block.

use super::bitset::BitSet;
use super::cfg::{Block, Cfg};
use super::liveness::Liveness;
use super::slots::slots;
use crate::ptx::ir::{Body, Inst, RegType, Type};

/// The register file a register lives in and the units it takes there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegClass {
    /// A general register taking this many 32-bit units.
    General(u32),
    /// A predicate register.
    Pred,
}

/// The class and size of a register of type `ty`.
pub fn reg_class(ty: RegType) -> RegClass {
    if ty.ty == Type::Pred {
        RegClass::Pred
    } else {
        RegClass::General(ty.bits().div_ceil(32).max(1))
    }
}

/// Pressure at one point: general units and predicates.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Units {
    /// 32-bit general-register units.
    pub units: u32,
    /// Predicate registers.
    pub preds: u32,
}

impl Units {
    fn plus(self, o: Units) -> Units {
        Units {
            units: self.units + o.units,
            preds: self.preds + o.preds,
        }
    }
    fn minus(self, o: Units) -> Units {
        Units {
            units: self.units.saturating_sub(o.units),
            preds: self.preds.saturating_sub(o.preds),
        }
    }
}

/// Per instruction, the units live across it: live before and after it, neither read nor
/// written by it ([`Pressure::compute_weighted_with_across`]).
#[derive(Clone, Debug, Default)]
pub struct LiveAcross(Vec<Units>);

impl LiveAcross {
    /// The units live across `inst` (zero for an instruction outside the layout).
    pub fn at(&self, inst: Inst) -> Units {
        self.0.get(inst.index()).copied().unwrap_or_default()
    }
}

/// Register pressure of every instruction and block of a function body.
#[derive(Clone, Debug, Default)]
pub struct Pressure {
    /// Per register: general units (0 for predicates).
    reg_units: Vec<u32>,
    /// Per register: true for predicates.
    reg_pred: Vec<bool>,
    /// Per instruction (indexed by [`Inst`]); zero for instructions outside the layout.
    at_inst: Vec<Units>,
    /// Per block: the maximum over its points.
    block_max: Vec<Units>,
    max: Units,
    max_units_at: Option<Inst>,
    max_preds_at: Option<Inst>,
}

impl Pressure {
    /// Computes the pressure of `body` from its CFG and liveness.
    pub fn compute(body: &Body, cfg: &Cfg, liveness: &Liveness) -> Pressure {
        Self::compute_weighted(body, cfg, liveness, |_, u| u)
    }

    /// [`Pressure::compute`] with each general register counted as `weight(reg, units)` units
    /// instead of its natural units (0 leaves it out): the register-count model weighs values
    /// that ptxas keeps outside the per-thread register file.
    pub fn compute_weighted(
        body: &Body,
        cfg: &Cfg,
        liveness: &Liveness,
        weight: impl Fn(usize, u32) -> u32,
    ) -> Pressure {
        Self::walk(body, cfg, liveness, weight, None)
    }

    /// [`Pressure::compute_weighted`], plus the units live across each instruction (the
    /// register-count model's expansions need them; the spiller does not, so it is not paid for
    /// there).
    pub fn compute_weighted_with_across(
        body: &Body,
        cfg: &Cfg,
        liveness: &Liveness,
        weight: impl Fn(usize, u32) -> u32,
    ) -> (Pressure, LiveAcross) {
        let mut across = vec![Units::default(); body.insts.len()];
        let p = Self::walk(body, cfg, liveness, weight, Some(&mut across));
        (p, LiveAcross(across))
    }

    /// The backward walk of every block; fills `across` (indexed by [`Inst`]) when given.
    fn walk(
        body: &Body,
        cfg: &Cfg,
        liveness: &Liveness,
        weight: impl Fn(usize, u32) -> u32,
        mut across: Option<&mut Vec<Units>>,
    ) -> Pressure {
        let (mut reg_units, mut reg_pred) = (
            Vec::with_capacity(body.regs.len()),
            Vec::with_capacity(body.regs.len()),
        );
        for (i, r) in body.regs.iter().enumerate() {
            match reg_class(r.ty) {
                RegClass::General(u) => {
                    reg_units.push(weight(i, u));
                    reg_pred.push(false);
                }
                RegClass::Pred => {
                    reg_units.push(0);
                    reg_pred.push(true);
                }
            }
        }
        let mut p = Pressure {
            reg_units,
            reg_pred,
            at_inst: vec![Units::default(); body.insts.len()],
            block_max: vec![Units::default(); cfg.num_blocks()],
            ..Pressure::default()
        };
        // One backward walk per block, counting incrementally: O(slots) per instruction.
        let mut live = BitSet::new(body.regs.len());
        let mut new_defs: Vec<usize> = Vec::new();
        for b in cfg.blocks() {
            live.copy_from(liveness.live_out(b));
            let mut cur = p.measure(&live);
            // An empty block's only point is its live-in (= live-out) set.
            let mut block_max = cur;
            let mut points: Vec<(Inst, Units)> = Vec::with_capacity(cfg.insts(b).len());
            let mut read_here: Vec<usize> = Vec::new();
            for &i in cfg.insts(b).iter().rev() {
                let sl = slots(body.inst(i)).slots;
                // After the instruction, plus the registers it writes that are dead after it.
                let mut with_defs = cur;
                new_defs.clear();
                for r in sl.iter().filter(|s| s.writes()).map(|s| s.reg.index()) {
                    if !live.contains(r) && !new_defs.contains(&r) {
                        new_defs.push(r);
                        with_defs = with_defs.plus(p.unit(r));
                    }
                }
                for r in sl.iter().filter(|s| s.kills).map(|s| s.reg.index()) {
                    if live.remove(r) {
                        cur = cur.minus(p.unit(r));
                    }
                }
                if let Some(across) = across.as_deref_mut() {
                    // Live after and not written: what is live across, plus the reads that stay
                    // live.
                    let mut a = cur;
                    read_here.clear();
                    for r in sl.iter().filter(|s| s.reads()).map(|s| s.reg.index()) {
                        if live.contains(r) && !read_here.contains(&r) {
                            a = a.minus(p.unit(r));
                        }
                        read_here.push(r);
                    }
                    across[i.index()] = a;
                }
                for r in sl.iter().filter(|s| s.reads()).map(|s| s.reg.index()) {
                    if live.insert(r) {
                        cur = cur.plus(p.unit(r));
                    }
                }
                points.push((
                    i,
                    Units {
                        units: cur.units.max(with_defs.units),
                        preds: cur.preds.max(with_defs.preds),
                    },
                ));
            }
            for &(i, u) in points.iter().rev() {
                p.at_inst[i.index()] = u;
                block_max.units = block_max.units.max(u.units);
                block_max.preds = block_max.preds.max(u.preds);
                if cfg.is_reachable(b) {
                    if p.max_units_at.is_none_or(|m| u.units > p.at(m).units) {
                        p.max_units_at = Some(i);
                    }
                    if p.max_preds_at.is_none_or(|m| u.preds > p.at(m).preds) {
                        p.max_preds_at = Some(i);
                    }
                }
            }
            if cfg.is_reachable(b) {
                p.max.units = p.max.units.max(block_max.units);
                p.max.preds = p.max.preds.max(block_max.preds);
            }
            p.block_max[b.index()] = block_max;
        }
        p
    }

    /// The units of register index `r`.
    fn unit(&self, r: usize) -> Units {
        if self.reg_pred.get(r).copied().unwrap_or(false) {
            Units { units: 0, preds: 1 }
        } else {
            Units {
                units: self.reg_units.get(r).copied().unwrap_or(0),
                preds: 0,
            }
        }
    }

    /// The units of a set of registers.
    pub fn measure(&self, live: &BitSet) -> Units {
        let mut u = Units::default();
        for r in live {
            if self.reg_pred.get(r).copied().unwrap_or(false) {
                u.preds += 1;
            } else {
                u.units += self.reg_units.get(r).copied().unwrap_or(0);
            }
        }
        u
    }

    /// The pressure at `inst` (zero for an instruction outside the layout).
    pub fn at(&self, inst: Inst) -> Units {
        self.at_inst.get(inst.index()).copied().unwrap_or_default()
    }

    /// The largest pressure in `b`.
    pub fn block_max(&self, b: Block) -> Units {
        self.block_max.get(b.index()).copied().unwrap_or_default()
    }

    /// The largest number of general units live at once in reachable code.
    pub fn max_units(&self) -> u32 {
        self.max.units
    }

    /// The largest number of predicates live at once in reachable code.
    pub fn max_preds(&self) -> u32 {
        self.max.preds
    }

    /// The first instruction (in block order) where [`Pressure::max_units`] is reached; `None`
    /// when no reachable block has an instruction or the maximum is only reached at a block entry.
    pub fn max_units_at(&self) -> Option<Inst> {
        self.max_units_at
            .filter(|&i| self.at(i).units == self.max.units)
    }

    /// The first instruction (in block order) where [`Pressure::max_preds`] is reached.
    pub fn max_preds_at(&self) -> Option<Inst> {
        self.max_preds_at
            .filter(|&i| self.at(i).preds == self.max.preds)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::testutil::*;

    fn pressure(text: &str) -> (Body, Cfg, Pressure) {
        let body = ptx(text);
        let cfg = Cfg::compute(&body);
        let lv = Liveness::compute(&body, &cfg);
        let p = Pressure::compute(&body, &cfg, &lv);
        (body, cfg, p)
    }

    #[test]
    fn register_classes() {
        let class = |ty| reg_class(RegType::scalar(ty));
        assert_eq!(class(Type::B64), RegClass::General(2));
        assert_eq!(class(Type::U64), RegClass::General(2));
        assert_eq!(class(Type::F64), RegClass::General(2));
        assert_eq!(class(Type::B128), RegClass::General(4));
        assert_eq!(class(Type::B16), RegClass::General(1));
        assert_eq!(class(Type::U8), RegClass::General(1));
        assert_eq!(class(Type::F32), RegClass::General(1));
        assert_eq!(
            reg_class(RegType {
                vec: Some(4),
                ty: Type::F32
            }),
            RegClass::General(4)
        );
        assert_eq!(class(Type::Pred), RegClass::Pred);
    }

    #[test]
    fn wide_registers_count_double() {
        let (_, cfg, p) = pressure(
            "
            .reg .b64 %rd<3>;
            .reg .b32 %r1;
            .reg .b16 %rs1;
            .reg .pred %p1;
            mov.b64 %rd1, 0;
            mov.b64 %rd2, 1;
            mov.b32 %r1, 2;
            mov.b16 %rs1, 3;
            setp.eq.s32 %p1, %r1, 0;
            @%p1 st.global.v2.u64 [%rd1], {%rd2, %rd2};
            @%p1 st.global.u16 [%rd1+16], %rs1;
            ret;
        ",
        );
        // Before the first store: %rd1, %rd2 (2 units each), %r1 is dead, %rs1 (1), and %p1.
        assert_eq!(p.at(Inst(5)), Units { units: 5, preds: 1 });
        // At the setp: %rd1, %rd2, %rs1, and %r1 read while %p1 is written.
        assert_eq!(p.at(Inst(4)), Units { units: 6, preds: 1 });
        assert_eq!(p.max_units(), 6);
        assert_eq!(p.max_preds(), 1);
        assert_eq!(
            p.max_units_at(),
            Some(Inst(3)),
            "first reached when %rs1 is defined"
        );
        assert_eq!(p.max_preds_at(), Some(Inst(4)));
        assert_eq!(p.block_max(cfg.entry()), Units { units: 6, preds: 1 });
        assert_eq!(p.at(Inst(7)), Units::default());
    }

    #[test]
    fn dying_source_shares_with_destination() {
        let (_, _, p) = pressure(
            "
            .reg .b32 %r<3>;
            mov.b32 %r1, 0;
            add.s32 %r2, %r1, 1;
            mov.b32 %r1, %r2;
            ret;
        ",
        );
        assert_eq!(p.at(Inst(1)).units, 1);
        assert_eq!(p.max_units(), 1);
    }

    #[test]
    fn live_across_leaves_out_the_instructions_own_registers() {
        let body = ptx("
            .reg .b32 %r<5>;
            .reg .b64 %rd1;
            mov.b64 %rd1, 0;
            mov.b32 %r1, 1;
            mov.b32 %r2, 2;
            add.s32 %r3, %r1, %r2;
            add.s32 %r4, %r3, %r1;
            st.global.u32 [%rd1], %r4;
            ret;
        ");
        let cfg = Cfg::compute(&body);
        let lv = Liveness::compute(&body, &cfg);
        let (p, across) = Pressure::compute_weighted_with_across(&body, &cfg, &lv, |_, u| u);
        // The plain walk gives the same pressure.
        assert_eq!(
            Pressure::compute(&body, &cfg, &lv).at(Inst(3)),
            p.at(Inst(3))
        );
        // At the first add: %rd1 (2 units) lives across; %r1 is read and stays live, %r2 dies
        // there, %r3 is written: none of them counts.
        assert_eq!(across.at(Inst(3)).units, 2);
        assert_eq!(p.at(Inst(3)).units, 4);
        // At the second add both sources die: only the address lives across.
        assert_eq!(across.at(Inst(4)).units, 2);
    }

    #[test]
    fn dead_def_still_needs_a_register() {
        let (_, _, p) = pressure(
            "
            .reg .b128 %rq1;
            mov.b128 %rq1, 0;
            ret;
        ",
        );
        assert_eq!(p.at(Inst(0)).units, 4);
    }

    #[test]
    fn loop_pressure() {
        let (_, cfg, p) = pressure(
            "
            .reg .f64 %fd<3>;
            .reg .b32 %r1;
            .reg .pred %p1;
            mov.f64 %fd1, 0d0000000000000000;
            mov.b32 %r1, 0;
        LOOP:
            add.f64 %fd1, %fd1, %fd2;
            add.s32 %r1, %r1, 1;
            setp.lt.s32 %p1, %r1, 8;
            @%p1 bra LOOP;
            ret;
        ",
        );
        // %fd1, %fd2 (uninitialised, live throughout) and %r1: 5 units in the loop.
        assert_eq!(p.block_max(Block(1)), Units { units: 5, preds: 1 });
        assert_eq!(p.max_units(), 5);
        assert!(cfg.is_reachable(Block(1)));
    }

    #[test]
    fn unreachable_code_does_not_count() {
        let (_, cfg, p) = pressure(
            "
            .reg .b32 %r1;
            .reg .b64 %rd<3>;
            mov.b32 %r1, 0;
            ret;
            st.global.u64 [%rd1], %rd2;
        ",
        );
        assert_eq!(p.max_units(), 1);
        assert_eq!(p.block_max(Block(1)).units, 4);
        assert!(!cfg.is_reachable(Block(1)));
    }

    #[test]
    fn incremental_count_matches_measuring_sets() {
        let mut rng = Rng::new(9);
        for _ in 0..200 {
            let (body, _) = random_program(&mut rng, true);
            let cfg = Cfg::compute(&body);
            let lv = Liveness::compute(&body, &cfg);
            let p = Pressure::compute(&body, &cfg, &lv);
            for b in cfg.blocks() {
                lv.for_each_point(&body, &cfg, b, |i, before, after| {
                    let mut with_defs = after.clone();
                    for s in slots(body.inst(i)).slots.iter().filter(|s| s.writes()) {
                        with_defs.insert(s.reg.index());
                    }
                    let (x, y) = (p.measure(before), p.measure(&with_defs));
                    assert_eq!(
                        p.at(i),
                        Units {
                            units: x.units.max(y.units),
                            preds: x.preds.max(y.preds)
                        }
                    );
                });
            }
        }
    }
}
