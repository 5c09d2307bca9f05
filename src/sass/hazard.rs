//! A static check of the scheduling control bits of straight-line SASS (`sass-and-cubin-format.md`
//! §6.2; RegDem §3.3's "fix the control bits", checked instead of trusted): the SASS emulator
//! proves data flow, not timing, and a rewrite that inserts instructions can be wrong only in
//! its control bits (the first H100 run of register demotion was: docs/gpu.md). Within each basic
//! block:
//!
//! - **settle**: an instruction waiting on scoreboard `x` issues at least [`SETTLE`] cycles after
//!   the latest instruction that set `x` (ptxas never waits sooner: 1233 waits at exactly 2
//!   cycles in the corpus, none at 1);
//! - **result**: an instruction reading a register whose latest writer set a write scoreboard `x`
//!   is preceded (after that writer, itself included) by a wait on `x`;
//! - **read**: a fixed-latency ALU instruction ([`Timing::Fixed`]) writing a general or uniform
//!   register that an earlier instruction of the block reads under a read scoreboard `x` is
//!   preceded (after that reader) by a wait on `x`. (A variable-latency writer goes through the
//!   memory pipe in order and writes after the reader has read — ptxas does not wait there; a
//!   guard predicate is read at issue, not under the read scoreboard.)
//!
//! Block starts reset the state (a path from elsewhere is not followed). Instructions whose
//! registers are not exactly known, and `DEPBAR` (a partial wait), end the tracking of every
//! register. This finds violations; it
//! does not prove their absence across blocks.

use std::collections::BTreeSet;

use super::demote::regrewrite::SB_SETTLE;
use super::demote::timing::{timing, Timing};
use super::isa::{DefUse, Instruction, RegFile};

/// Cycles from an instruction that sets a scoreboard to the first one that may wait on it (the
/// demoter's [`SB_SETTLE`], which its rewrites give).
pub const SETTLE: u32 = SB_SETTLE as u32;

/// One violation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hazard {
    /// Index of the instruction that breaks the rule.
    pub index: usize,
    /// Which rule, and the scoreboard or register involved.
    pub what: String,
}

/// Per register of one file: the scoreboard its latest writer set, with the writer's index.
type Pending = Vec<Option<(u8, usize)>>;

/// Every violation in `body` (a kernel's instructions) with basic blocks starting at `leaders`.
pub fn check(body: &[Instruction], leaders: &BTreeSet<usize>) -> Vec<Hazard> {
    let mut out = Vec::new();
    let files = [RegFile::Gpr, RegFile::Pred, RegFile::Ugpr, RegFile::Upred];
    let size = |f: RegFile| f.zero() as usize;
    let mut write_pending: Vec<Pending> = files.iter().map(|&f| vec![None; size(f)]).collect();
    let mut read_pending: Vec<Pending> = files.iter().map(|&f| vec![None; size(f)]).collect();
    // Cycle at which each scoreboard was last set (issue time of the setter).
    let mut set_at: [Option<u32>; 6] = [None; 6];
    let mut cycle = 0u32;
    for (k, inst) in body.iter().enumerate() {
        if k > 0 && leaders.contains(&k) {
            for p in write_pending.iter_mut().chain(read_pending.iter_mut()) {
                p.fill(None);
            }
            set_at = [None; 6];
        }
        let c = inst.control;
        // Settle.
        for (sb, at) in set_at.iter().enumerate() {
            if c.wait & (1 << sb) != 0 {
                if let Some(t) = at {
                    if cycle - t < SETTLE {
                        out.push(Hazard {
                            index: k,
                            what: format!(
                                "waits on SB{sb} {} cycle(s) after it was set",
                                cycle - t
                            ),
                        });
                    }
                }
            }
        }
        // A wait clears what it covers.
        for p in write_pending.iter_mut().chain(read_pending.iter_mut()) {
            for slot in p.iter_mut() {
                if slot.is_some_and(|(sb, _)| c.wait & (1 << sb) != 0) {
                    *slot = None;
                }
            }
        }
        // `DEPBAR.LE SBx, n` waits for some of a scoreboard's operations (which, we do not decode):
        // nothing pending is followed past it.
        if inst.mnemonic().contains("DEPBAR") {
            for p in write_pending.iter_mut().chain(read_pending.iter_mut()) {
                p.fill(None);
            }
        }
        let du = inst.own_def_use();
        if !du.is_exact() {
            for p in write_pending.iter_mut().chain(read_pending.iter_mut()) {
                p.fill(None);
            }
        } else {
            let fixed = timing(inst) == Timing::Fixed;
            check_registers(
                k,
                &du,
                fixed,
                &files,
                &write_pending,
                &read_pending,
                &mut out,
            );
            record(k, inst, &du, &files, &mut write_pending, &mut read_pending);
        }
        for (sb, at) in set_at.iter_mut().enumerate() {
            if c.sets() & (1 << sb) != 0 {
                *at = Some(cycle);
            }
        }
        cycle += u32::from(c.stall.max(1));
    }
    out
}

/// The result and read rules for instruction `k`.
fn check_registers(
    k: usize,
    du: &DefUse,
    fixed: bool,
    files: &[RegFile; 4],
    write_pending: &[Pending],
    read_pending: &[Pending],
    out: &mut Vec<Hazard>,
) {
    for (fi, &f) in files.iter().enumerate() {
        for r in du.reads.iter(f) {
            if let Some((sb, w)) = write_pending[fi][r as usize] {
                out.push(Hazard {
                    index: k,
                    what: format!(
                        "reads {}{r} written at {:#x} under SB{sb} without waiting on it",
                        f.prefix(),
                        w * 16
                    ),
                });
            }
        }
        let late_read = matches!(f, RegFile::Gpr | RegFile::Ugpr);
        for r in du.writes.iter(f).filter(|_| fixed && late_read) {
            if let Some((sb, rd)) = read_pending[fi][r as usize] {
                out.push(Hazard {
                    index: k,
                    what: format!(
                        "writes {}{r} read at {:#x} under read SB{sb} without waiting on it",
                        f.prefix(),
                        rd * 16
                    ),
                });
            }
        }
    }
}

/// What instruction `k` leaves pending: its results under its write scoreboard, its sources
/// under its read scoreboard; a write without a scoreboard ends what was pending on the register.
fn record(
    k: usize,
    inst: &Instruction,
    du: &DefUse,
    files: &[RegFile; 4],
    write_pending: &mut [Pending],
    read_pending: &mut [Pending],
) {
    let c = inst.control;
    for (fi, &f) in files.iter().enumerate() {
        for r in du.writes.iter(f) {
            write_pending[fi][r as usize] = (c.write_sb < 6).then_some((c.write_sb, k));
            read_pending[fi][r as usize] = None;
        }
        if c.read_sb < 6 {
            for r in du.reads.iter(f) {
                read_pending[fi][r as usize] = Some((c.read_sb, k));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sass::isa::encode::{self, Width, RZ};
    use crate::sass::isa::{Arch, Control, Pred};

    fn lds(rd: u32, wsb: u8, stall: u8) -> Instruction {
        let c = Control {
            write_sb: wsb,
            stall,
            ..Control::NONE
        };
        encode::lds(Arch::Sm90, rd, 1, 0, Width::B32, c, Pred::PT).unwrap()
    }

    fn add(rd: u32, ra: u32, wait: u8) -> Instruction {
        let c = Control {
            wait,
            ..Control::NONE
        };
        encode::iadd3_imm(Arch::Sm90, rd, ra, 1, RZ as u32, c).unwrap()
    }

    #[test]
    fn flags_an_early_wait_a_missing_wait_and_accepts_the_right_ones() {
        let leaders = BTreeSet::from([0]);
        // Waits one cycle after the LDS set SB3: too early.
        let early = vec![lds(4, 3, 1), add(5, 4, 1 << 3)];
        let h = check(&early, &leaders);
        assert_eq!(h.len(), 1, "{h:?}");
        assert!(h[0].what.contains("1 cycle"));
        // Two cycles: fine.
        assert!(check(&[lds(4, 3, 2), add(5, 4, 1 << 3)], &leaders).is_empty());
        // No wait at all before reading the result.
        let h = check(&[lds(4, 3, 2), add(5, 4, 0)], &leaders);
        assert!(h[0].what.contains("reads R4"), "{h:?}");
        // A block start between them: not followed.
        assert!(check(&[lds(4, 3, 2), add(5, 4, 0)], &BTreeSet::from([0, 1])).is_empty());
    }
}
