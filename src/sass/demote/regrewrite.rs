//! The code changes of register demotion (RegDem §3.2–3.3 on Ampere/Hopper SASS): every kept
//! register renumbered by the plan's map; around each instruction that touches a demoted
//! register, `LDS` of its slot into a scratch register before, the instruction on the scratch
//! register, `STS` of the scratch register after; the control bits that make it safe.
//!
//! Control bits (`sass-and-cubin-format.md` §6.2, [`super::timing`]):
//! - each inserted `LDS` sets the load scoreboard; the instruction waits on it;
//! - an `STS` after a fixed-latency instruction issues [`ALU_LATENCY`] cycles after it (the
//!   instruction's stall is raised); after a variable-latency one it waits on that
//!   instruction's write scoreboard (moved to the load scoreboard where only our `STS` reads the
//!   result: [`own_load_scoreboard`]); every `STS` sets the store scoreboard when it has read;
//! - before anything writes a scratch register (an `LDS`, or a renamed instruction), it waits
//!   for every earlier reader of scratch registers that may read late: the `STS`s and
//!   variable-latency instructions (their read scoreboard — ours where ptxas set none — or
//!   their write scoreboard). At a basic-block start every such scoreboard is waited on,
//!   whatever path led there (a wait on a clear scoreboard costs nothing);
//! - operand-reuse flags are cleared on every changed instruction and on the one before an
//!   insertion.
//!
//! The scoreboards are ones ptxas does not use in the kernel, or, in a kernel without `DEPBAR`
//! (which counts a scoreboard's pending operations), the least used: extra operations on a
//! scoreboard only make ptxas's own waits on it longer.
//!
//! A guarded instruction's `STS` carries the same guard, unless the instruction writes its own
//! guard predicate: then the demoted destination is loaded first and stored unguarded.
//!
//! The bits are derived with each group next to its instruction; [`super::schedule`] then moves
//! the loads up and the stores down within their blocks, under rules that keep these bits valid,
//! and repairs the stall counts and reuse flags the moves touch.

use std::collections::{BTreeMap, BTreeSet};

use super::frame::SP;
use super::regplan::RegisterPlan;
use super::schedule::{self, slot_access};
use super::timing::{timing, Timing, ALU_LATENCY, NO_SB};
use crate::sass::edit::{EditError, Editor};
use crate::sass::isa::encode::{self, Width};
use crate::sass::isa::{Control, Instruction, Pred, RegFile};
use crate::sched::Item;

/// The two scoreboards the inserted code uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scoreboards {
    /// Set by each inserted `LDS`.
    pub load: u8,
    /// Set (as read scoreboard) by each inserted `STS`, and by variable-latency instructions
    /// that read a scratch register and had no read scoreboard.
    pub store: u8,
}

/// Picks [`Scoreboards`] for the kernel `body`, or says why none are safe.
pub fn scoreboards(body: &[Instruction]) -> Result<Scoreboards, String> {
    let mut uses = [0usize; 6];
    for i in body {
        for sb in [i.control.write_sb, i.control.read_sb] {
            if sb < 6 {
                uses[sb as usize] += 1;
            }
        }
    }
    let counted = body.iter().any(|i| i.opcode().contains("DEPBAR"));
    let mut order: Vec<u8> = (0..6).rev().collect();
    order.sort_by_key(|&sb| uses[sb as usize]);
    let free: Vec<u8> = order
        .iter()
        .copied()
        .filter(|&sb| uses[sb as usize] == 0)
        .collect();
    match (free.as_slice(), counted) {
        ([a, b, ..], _) => Ok(Scoreboards {
            load: *a,
            store: *b,
        }),
        ([a], _) => Ok(Scoreboards {
            load: *a,
            store: *a,
        }),
        ([], false) => Ok(Scoreboards {
            load: order[0],
            store: order[1],
        }),
        ([], true) => Err(
            "every scoreboard is in use and the kernel counts them with DEPBAR: an inserted \
             operation could satisfy a DEPBAR early"
                .into(),
        ),
    }
}

/// The byte offset from R1 of each demoted register's slot.
pub type SlotOffset<'a> = &'a dyn Fn(usize) -> i32;

/// Rewrites `body` (the kernel's original instructions, padding excluded) on `ed` by `plan`.
/// `skip`: instructions another rewrite replaces (the frame's `LDL`/`STL`); they touch no
/// demoted register and are renamed there. Returns (instructions changed, LDS, STS inserted,
/// inserted instructions the scheduler moved).
pub fn apply(
    ed: &mut Editor,
    body: &[Instruction],
    leaders: &BTreeSet<usize>,
    plan: &RegisterPlan,
    slot: SlotOffset,
    sbs: Scoreboards,
    skip: &BTreeSet<usize>,
) -> Result<(usize, usize, usize, usize), EditError> {
    let kernel = ed.function.name.clone();
    let fail = |reason: String| EditError::Unsupported {
        kernel: kernel.clone(),
        reason,
    };
    let remat_defs: BTreeSet<usize> = plan.remat.values().copied().collect();
    let touched: Vec<Vec<u32>> = body.iter().map(|i| demoted_regs(i, plan)).collect();
    let all_pending = pending_mask(body, &touched, sbs);
    let mut out: Vec<Instruction> = body.to_vec();
    let mut before_items: Vec<Vec<Item>> = vec![Vec::new(); body.len()];
    let mut after_items: Vec<Vec<Item>> = vec![Vec::new(); body.len()];
    let (mut loads, mut stores) = (0, 0);
    // Successive instructions use successive scratch banks (RegisterPlan::scratch_banks).
    let mut bank = 0usize;
    let mut pending = 0u8;
    let mut late_reads = LateReads::default();
    for (k, orig) in body.iter().enumerate() {
        if k > 0 && leaders.contains(&k) {
            pending = all_pending;
            late_reads.clear();
        }
        if skip.contains(&k) {
            continue;
        }
        let t = &touched[k];
        if remat_defs.contains(&k) {
            // The definition of a rematerialised register: recomputed at each use instead.
            out[k] = encode::nop(
                ed.arch,
                Control {
                    reuse: 0,
                    ..orig.control
                },
            );
            continue;
        }
        let scratch = plan.scratch_in_bank(t, bank);
        let mut inst = rename(orig, plan, &scratch).map_err(&fail)?;
        late_reads.wait_before(&mut inst);
        if t.is_empty() {
            out[k] = inst;
            continue;
        }
        bank += 1;
        let du = orig.def_use();
        let g = RegFile::Gpr;
        let reads: Vec<u32> = t
            .iter()
            .copied()
            .filter(|&r| du.reads.contains(g, r))
            .collect();
        let writes: Vec<u32> = t
            .iter()
            .copied()
            .filter(|&r| du.writes.contains(g, r))
            .collect();
        let preload = !orig.guard.is_true()
            && !writes.is_empty()
            && du.writes.contains(RegFile::Pred, orig.guard.index as u32);
        let mut load_regs = reads.clone();
        if preload {
            load_regs.extend(writes.iter().filter(|r| !reads.contains(r)));
        }
        let group = Group {
            arch: ed.arch,
            plan,
            scratch: &scratch,
            slot,
            sbs,
        };
        let before = group.loads(body, &load_regs, pending).map_err(&fail)?;
        if !before.is_empty() {
            pending = 0;
        }
        if before.iter().any(|i| i.inst.control.write_sb == sbs.load) {
            inst.control.wait |= 1 << sbs.load;
        }
        inst.control.reuse = 0;
        let timing = own_load_scoreboard(orig, &mut inst, timing(orig), plan, sbs);
        if !writes.is_empty() {
            inst.control.wait |= pending;
            pending = 0;
        }
        if !reads.is_empty() {
            if let Timing::Variable {
                write_sb,
                read_sb_ok,
            } = timing
            {
                if read_sb_ok {
                    if inst.control.read_sb == NO_SB {
                        inst.control.read_sb = sbs.store;
                        late_reads.add(sbs.store, &inst);
                    }
                    pending |= 1 << inst.control.read_sb;
                } else if let Some(w) = write_sb {
                    pending |= 1 << w;
                }
            }
        }
        let mut after = Vec::new();
        if !writes.is_empty() {
            let first_wait = match timing {
                Timing::Fixed => {
                    inst.control.stall = inst.control.stall.max(ALU_LATENCY);
                    0
                }
                Timing::Variable {
                    write_sb: Some(w), ..
                } => 1 << w,
                _ => {
                    return Err(fail(format!(
                        "{} at {:#x} writes a demoted register but its latency is not known",
                        orig.mnemonic(),
                        k * 16
                    )))
                }
            };
            let guard = if preload { Pred::PT } else { orig.guard };
            after = group.stores(&writes, guard, first_wait).map_err(&fail)?;
            pending |= 1 << sbs.store;
        }
        settle(&mut inst.control);
        loads += before.len();
        stores += after.len();
        for i in before.iter().chain(&after) {
            if !i.inst.is_known() {
                return Err(fail(format!(
                    "{} is not a form the decoder knows",
                    i.inst.mnemonic()
                )));
            }
        }
        out[k] = inst;
        before_items[k] = before;
        after_items[k] = after;
    }
    let scratch = plan.scratch..plan.scratch_end();
    let rule = schedule::rule(scratch, all_pending);
    let placed =
        schedule::place(out, before_items, after_items, leaders, skip, &rule).map_err(&fail)?;
    let mut n = 0;
    let groups = placed.before.into_iter().zip(placed.after);
    for (k, (inst, (before, after))) in placed.code.into_iter().zip(groups).enumerate() {
        if !before.is_empty() {
            ed.insert_before(k, before)?;
        }
        if !after.is_empty() {
            ed.insert_after(k, after)?;
        }
        if inst != body[k] {
            ed.replace(k, inst)?;
            n += 1;
        }
    }
    Ok((n, loads, stores, placed.moved))
}

/// The sources of instructions this rewrite gave a read scoreboard where ptxas had set none
/// (a variable-latency reader of a scratch register). ptxas judged those sources safe to
/// overwrite without one; once the scoreboard is set, the hazard check's read rule
/// ([`crate::sass::hazard`]) holds the instruction to it, so a later fixed-latency writer of
/// one of them in the same block waits on it (a wait on a scoreboard already released costs
/// nothing). Found on Triton's softmax, whose register demotion the check refused.
#[derive(Default)]
struct LateReads(Vec<(u8, RegFile, u32)>);

impl LateReads {
    fn clear(&mut self) {
        self.0.clear();
    }

    /// `inst` reads its general and uniform registers under read scoreboard `sb`.
    fn add(&mut self, sb: u8, inst: &Instruction) {
        let du = inst.own_def_use();
        for f in [RegFile::Gpr, RegFile::Ugpr] {
            self.0.extend(du.reads.iter(f).map(|r| (sb, f, r)));
        }
    }

    /// Makes `inst` wait before it overwrites a tracked source at fixed latency; forgets what
    /// its waits cover.
    fn wait_before(&mut self, inst: &mut Instruction) {
        if self.0.is_empty() {
            return;
        }
        if timing(inst) == Timing::Fixed {
            let du = inst.own_def_use();
            for &(sb, f, r) in &self.0 {
                if du.writes.contains(f, r) {
                    inst.control.wait |= 1 << sb;
                }
            }
        }
        let waits = inst.control.wait;
        self.0.retain(|&(sb, _, _)| waits & (1 << sb) == 0);
    }
}

/// Cycles between an instruction that sets a scoreboard and the first instruction that may wait
/// on it (ptxas never waits sooner: 1233 waits at exactly 2 cycles in the `bench/gpu` corpus,
/// none at 1; the H100 computed wrong results at 1).
pub const SB_SETTLE: u8 = 2;

/// Makes an instruction that sets a scoreboard stall long enough for the next one to wait on it.
fn settle(c: &mut Control) {
    if c.write_sb != NO_SB || c.read_sb != NO_SB {
        c.stall = c.stall.max(SB_SETTLE);
    }
}

/// What the inserted loads and stores around one instruction are made from.
struct Group<'a> {
    arch: crate::sass::isa::Arch,
    plan: &'a RegisterPlan,
    /// The scratch register of each demoted register the instruction touches.
    scratch: &'a BTreeMap<u32, u32>,
    slot: SlotOffset<'a>,
    sbs: Scoreboards,
}

impl Group<'_> {
    /// The instructions before: an `LDS` of each register's slot (or, rematerialised, a copy of
    /// its definition) into its scratch register; the first waits on `pending`, the last settles.
    fn loads(&self, body: &[Instruction], regs: &[u32], pending: u8) -> Result<Vec<Item>, String> {
        let mut out = Vec::with_capacity(regs.len());
        for (j, &r) in regs.iter().enumerate() {
            let wait = if j == 0 { pending } else { 0 };
            let s = self.scratch[&r];
            let i = match self.plan.remat.get(&r) {
                Some(&def) => Item::inserted(remat_copy(&body[def], s, wait)?, None),
                None => {
                    let control = Control {
                        stall: 1,
                        write_sb: self.sbs.load,
                        wait,
                        ..Control::NONE
                    };
                    let off = (self.slot)(self.plan.slot_word[&r] as usize);
                    let lds = encode::lds(self.arch, s, SP, off, Width::B32, control, Pred::PT)
                        .map_err(|e| e.to_string())?;
                    Item::inserted(lds, Some(slot_access(SP, off, false)))
                }
            };
            out.push(i);
        }
        if let Some(last) = out.last_mut() {
            last.inst.control.stall = last.inst.control.stall.max(SB_SETTLE);
        }
        Ok(out)
    }

    /// The instructions after: an `STS` of each written register's scratch register to its
    /// slot under `guard`, each setting the store scoreboard; the first waits on `first_wait`,
    /// the last settles.
    fn stores(&self, regs: &[u32], guard: Pred, first_wait: u8) -> Result<Vec<Item>, String> {
        let mut out = Vec::with_capacity(regs.len());
        for (j, &r) in regs.iter().enumerate() {
            let control = Control {
                stall: if j + 1 == regs.len() { SB_SETTLE } else { 1 },
                read_sb: self.sbs.store,
                wait: if j == 0 { first_wait } else { 0 },
                ..Control::NONE
            };
            let off = (self.slot)(self.plan.slot_word[&r] as usize);
            let sts = encode::sts(
                self.arch,
                SP,
                off,
                self.scratch[&r],
                Width::B32,
                control,
                guard,
            )
            .map_err(|e| e.to_string())?;
            out.push(Item::inserted(sts, Some(slot_access(SP, off, true))));
        }
        Ok(out)
    }
}

/// A copy of `def` (an unguarded, fixed-latency definition that reads no register) writing
/// `scratch`, waiting on `wait`, issuing the next instruction after the result is ready.
fn remat_copy(def: &Instruction, scratch: u32, wait: u8) -> Result<Instruction, String> {
    let mut i = def.clone();
    let dst = i
        .operands
        .iter_mut()
        .find(|o| o.spec.file == RegFile::Gpr && o.spec.write > 0 && !o.is_zero())
        .ok_or_else(|| format!("{} writes no register to recompute", def.mnemonic()))?;
    dst.index = u8::try_from(scratch).map_err(|_| format!("register {scratch} out of range"))?;
    i.control = Control {
        stall: ALU_LATENCY,
        wait,
        ..Control::NONE
    };
    Ok(i)
}

/// The demoted registers `inst` reads or writes, ascending.
fn demoted_regs(inst: &Instruction, plan: &RegisterPlan) -> Vec<u32> {
    let du = inst.def_use();
    let g = RegFile::Gpr;
    let all: BTreeSet<u32> = du.reads.iter(g).chain(du.writes.iter(g)).collect();
    all.into_iter().filter(|&r| plan.is_demoted(r)).collect()
}

/// A variable-latency instruction whose every result is demoted (only our `STS` reads it) moves
/// to the load scoreboard, so the `STS` waits for it alone and not for every other load ptxas
/// counts on the same scoreboard (ptxas puts whole runs of loads on one). Only where ptxas
/// protects its sources with a read scoreboard: a later write of a source register may
/// otherwise be waiting on the write scoreboard this takes it off.
fn own_load_scoreboard(
    orig: &Instruction,
    inst: &mut Instruction,
    t: Timing,
    plan: &RegisterPlan,
    sbs: Scoreboards,
) -> Timing {
    let Timing::Variable {
        write_sb: Some(w),
        read_sb_ok,
    } = t
    else {
        return t;
    };
    let du = orig.def_use();
    let g = RegFile::Gpr;
    let only_demoted = du.is_exact()
        && !du.writes.is_empty_in(g)
        && du.writes.iter(g).all(|r| plan.is_demoted(r))
        && du.writes_only(g);
    if w == sbs.load || !only_demoted || orig.control.read_sb == NO_SB {
        return t;
    }
    inst.control.write_sb = sbs.load;
    Timing::Variable {
        write_sb: Some(sbs.load),
        read_sb_ok,
    }
}

/// Every scoreboard a scratch-register writer may have to wait on.
fn pending_mask(body: &[Instruction], touched: &[Vec<u32>], sbs: Scoreboards) -> u8 {
    let mut mask = 1 << sbs.store | 1 << sbs.load;
    for (inst, t) in body.iter().zip(touched) {
        if t.is_empty() {
            continue;
        }
        if let Timing::Variable {
            write_sb,
            read_sb_ok,
        } = timing(inst)
        {
            if read_sb_ok && inst.control.read_sb != NO_SB {
                mask |= 1 << inst.control.read_sb;
            } else if !read_sb_ok {
                if let Some(w) = write_sb {
                    mask |= 1 << w;
                }
            }
        }
    }
    mask
}

/// `inst` with every general register renumbered: demoted ones to their `scratch` register,
/// kept ones by the plan's map.
fn rename(
    inst: &Instruction,
    plan: &RegisterPlan,
    scratch: &BTreeMap<u32, u32>,
) -> Result<Instruction, String> {
    let mut out = inst.clone();
    for op in out.operands.iter_mut() {
        if op.spec.file != RegFile::Gpr || op.is_zero() {
            continue;
        }
        let r = op.index as u32;
        let new = match scratch.get(&r) {
            Some(&s) => s,
            None => plan.map.get(r as usize).copied().flatten().ok_or_else(|| {
                format!(
                    "R{r} of {} has no new number (not in the plan's map)",
                    inst.mnemonic()
                )
            })?,
        };
        op.index = u8::try_from(new).map_err(|_| format!("register {new} out of range"))?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sass::isa::encode::RZ;
    use crate::sass::isa::Arch;

    fn with_sbs(write_sb: u8, read_sb: u8) -> Instruction {
        let control = Control {
            write_sb,
            read_sb,
            ..Control::NONE
        };
        encode::lds(Arch::Sm80, 4, 5, 0, Width::B32, control, Pred::PT).unwrap()
    }

    #[test]
    fn scoreboards_are_free_ones_or_refused_under_depbar() {
        let body = vec![with_sbs(0, 1), with_sbs(2, 7), with_sbs(5, 3)];
        // SB4 is the only free one: both roles share it.
        assert_eq!(scoreboards(&body), Ok(Scoreboards { load: 4, store: 4 }));
        let body = vec![with_sbs(0, 7)];
        let s = scoreboards(&body).unwrap();
        assert!(s.load != 0 && s.store != 0 && s.load != s.store);
        // All six in use, no DEPBAR: the least used; a rename is still correct (more waiting).
        let body = vec![
            with_sbs(0, 1),
            with_sbs(2, 3),
            with_sbs(4, 5),
            with_sbs(0, 1),
        ];
        let s = scoreboards(&body).unwrap();
        assert!([2, 3, 4, 5].contains(&s.load) && [2, 3, 4, 5].contains(&s.store));
    }

    #[test]
    fn late_reads_make_fixed_writers_of_the_sources_wait() {
        let a = Arch::Sm80;
        // An LDS that reads R5 under read scoreboard 3 (standing in for the STS we gave one).
        let reader = with_sbs(NO_SB, 3);
        let mut late = LateReads::default();
        late.add(3, &reader);
        // A variable-latency writer of R5 (through the memory pipe, in order) need not wait.
        let mut lds = encode::lds(a, 5, 9, 0, Width::B32, Control::NONE, Pred::PT).unwrap();
        late.wait_before(&mut lds);
        assert_eq!(lds.control.wait, 0);
        // A fixed-latency writer of another register does not wait; one of R5 does.
        let mut other = encode::iadd3(a, 6, 7, 8, RZ as u32, Control::NONE).unwrap();
        late.wait_before(&mut other);
        assert_eq!(other.control.wait, 0);
        let mut writer = encode::iadd3(a, 5, 7, 8, RZ as u32, Control::NONE).unwrap();
        late.wait_before(&mut writer);
        assert_eq!(writer.control.wait, 1 << 3);
        // Once waited on, the scoreboard is released: the next writer goes free.
        let mut again = encode::iadd3(a, 5, 7, 8, RZ as u32, Control::NONE).unwrap();
        late.wait_before(&mut again);
        assert_eq!(again.control.wait, 0);
    }

    #[test]
    fn rename_maps_kept_registers_and_scratch() {
        let a = Arch::Sm80;
        let inst = encode::iadd3(a, 7, 4, 5, RZ as u32, Control::NONE).unwrap();
        let mut map = vec![None; 255];
        map[4] = Some(2);
        map[5] = Some(3);
        let plan = RegisterPlan {
            units: vec![],
            slot_word: BTreeMap::from([(7, 0)]),
            remat: BTreeMap::new(),
            map,
            scratch: 10,
            scratch_count: 1,
            scratch_banks: 1,
            registers: 13,
        };
        let out = rename(&inst, &plan, &BTreeMap::from([(7, 10)])).unwrap();
        let du = out.def_use();
        assert_eq!(du.writes.iter(RegFile::Gpr).collect::<Vec<_>>(), vec![10]);
        assert_eq!(du.reads.iter(RegFile::Gpr).collect::<Vec<_>>(), vec![2, 3]);
        // A register with no number is an error, not a guess.
        let orphan = encode::iadd3(a, 7, 6, 5, RZ as u32, Control::NONE).unwrap();
        assert!(rename(&orphan, &plan, &BTreeMap::from([(7, 10)])).is_err());
    }
}
