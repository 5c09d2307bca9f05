//! The subroutine calling convention of a `CALL`, as nvdisasm's life ranges show it: which
//! registers a call reads and writes beyond its own fields (the target register of
//! `CALL.REL.NOINC Rx`, the guard). The decoder cannot know it per instruction: the GPRs a call
//! may clobber depend on the register count of the function the call is in, a cubin-level fact
//! ([`CallConvention::of`] of [`crate::sass::elf::Cubin::register_count`]).
//!
//! Reference: `sass-and-cubin-format.md` §9 (nvdisasm's life ranges as the read/write oracle),
//! §12 (device-function ABI calls: R1 is the stack pointer).
//!
//! The rule, measured on every CALL of the bench corpus (ptxas 12.9, sm_80/86/89/90, -O0 and
//! -O3: direct calls to ABI device functions, to ptxas's internal slow-path subroutines and to
//! internal labels, recursive calls, and indirect calls through function-pointer tables; see
//! docs/sass.md "Calls"):
//!
//! - reads R0 and R1 (the stack pointer);
//! - writes R0, R3–R15 and, from R32 up, the first four registers of every eight (R32–R35,
//!   R40–R43, …) — the caller-saved registers — but only those below the function's register
//!   count (R16–R31 and R36–R39, R44–R47, … are callee-saved and not written);
//! - writes every predicate P0–P6 and every uniform predicate UP0–UP6, and UR4–UR35.
//!
//! It does not depend on the callee: nvdisasm gives a call to a function that writes three
//! registers the same life ranges as one to a function that writes thirty. It is the caller's
//! view under the convention, not a dataflow summary of the callee. In particular the
//! argument registers (R4 upwards) are *not* listed as read: a liveness client that must keep
//! arguments alive across the instructions that set them cannot rely on nvdisasm's (or this)
//! read set; see docs/sass.md.

use super::{DefUse, Instruction, RegFile};

/// The calling convention of the calls in one function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallConvention {
    /// The register count of the function the calls are in
    /// ([`crate::sass::elf::Cubin::register_count`]).
    pub reg_count: u32,
}

/// Whether the convention lets a call clobber GPR `r` (regardless of the register count).
pub fn gpr_caller_saved(r: u32) -> bool {
    r == 0 || (3..=15).contains(&r) || (r >= 32 && r % 8 < 4)
}

/// GPRs a call reads besides its fields: R0 and the stack pointer R1.
pub const GPR_READS: [u32; 2] = [0, 1];

/// Uniform registers a call may clobber: UR4–UR35.
pub const UGPR_CLOBBERED: std::ops::RangeInclusive<u32> = 4..=35;

impl CallConvention {
    /// The convention of the calls in a function with `reg_count` registers.
    pub fn of(reg_count: u32) -> CallConvention {
        CallConvention { reg_count }
    }

    /// What a call reads and writes beyond its fields.
    pub fn effects(&self) -> DefUse {
        let mut du = DefUse::default();
        for r in GPR_READS {
            du.reads.insert(RegFile::Gpr, r);
        }
        for r in
            (0..self.reg_count.min(RegFile::Gpr.zero() as u32)).filter(|&r| gpr_caller_saved(r))
        {
            du.writes.insert(RegFile::Gpr, r);
        }
        for r in UGPR_CLOBBERED {
            du.writes.insert(RegFile::Ugpr, r);
        }
        for file in [RegFile::Pred, RegFile::Upred] {
            for r in 0..file.zero() as u32 {
                du.writes.insert(file, r);
            }
        }
        du
    }

    /// The registers `inst` reads and writes: its fields and guard, plus the convention's
    /// effects when it is a call; [`Instruction::def_use`] otherwise.
    pub fn def_use(&self, inst: &Instruction) -> DefUse {
        if !inst.is_call() {
            return inst.def_use();
        }
        let mut du = inst.field_def_use();
        let e = self.effects();
        for file in RegFile::ALL {
            for r in e.reads.iter(file) {
                du.reads.insert(file, r);
            }
            for r in e.writes.iter(file) {
                du.writes.insert(file, r);
            }
        }
        du
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sass::isa::Arch;

    fn w(lo: u64, hi: u64) -> u128 {
        lo as u128 | (hi as u128) << 64
    }

    #[test]
    fn caller_saved_registers() {
        let saved: Vec<u32> = (0..48).filter(|&r| gpr_caller_saved(r)).collect();
        let mut want = vec![0];
        want.extend(3..=15);
        want.extend(32..=35);
        want.extend(40..=43);
        assert_eq!(saved, want);
    }

    #[test]
    fn indirect_call_reads_its_target_and_the_convention() {
        // CALL.REL.NOINC R12 (sm_80, calls.cu -O3), in a function with 24 registers.
        let i = Instruction::decode(Arch::Sm80, w(0xfffffe800c007344, 0x023fea0003c3ffff));
        assert!(i.is_call());
        assert!(
            !i.def_use().is_exact(),
            "without the function's convention: conservative"
        );
        let du = CallConvention::of(24).def_use(&i);
        assert!(du.is_exact());
        assert_eq!(du.reads.render(RegFile::Gpr), ["R0", "R1", "R12", "R13"]);
        let writes: Vec<u32> = du.writes.iter(RegFile::Gpr).collect();
        let mut want = vec![0];
        want.extend(3..=15);
        assert_eq!(writes, want);
        assert_eq!(du.writes.iter(RegFile::Pred).count(), 7);
        assert_eq!(
            du.writes.iter(RegFile::Ugpr).collect::<Vec<_>>(),
            (4..=35).collect::<Vec<_>>()
        );
        // A larger function: the caller-saved quads above R31 below its register count.
        let du = CallConvention::of(42).def_use(&i);
        assert!(du.writes.contains(RegFile::Gpr, 35) && du.writes.contains(RegFile::Gpr, 41));
        assert!(!du.writes.contains(RegFile::Gpr, 36) && !du.writes.contains(RegFile::Gpr, 42));
    }

    #[test]
    fn guarded_direct_call_reads_its_guard() {
        // @!P0 CALL.REL.NOINC `(.L_x_3) (sm_80, bigregs.cu -O3).
        let i = Instruction::decode(Arch::Sm80, w(0x0000001000008944, 0x000fe20003c00000));
        assert!(i.is_call());
        let du = CallConvention::of(8).def_use(&i);
        assert_eq!(du.reads.render(RegFile::Pred), ["P0"]);
        assert_eq!(du.reads.render(RegFile::Gpr), ["R0", "R1"]);
        // Not a call: the convention changes nothing.
        let imad = Instruction::decode(Arch::Sm80, w(0x0000000007077a24, 0x001fca00078e0200));
        assert_eq!(CallConvention::of(8).def_use(&imad), imad.def_use());
    }
}
