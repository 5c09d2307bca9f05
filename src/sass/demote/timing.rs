//! When an instruction reads and writes its registers, as far as the register demoter must know
//! to keep the scoreboard protocol intact (RegDem §3.3, "fix the scheduling control bits", on
//! Ampere/Hopper's scoreboards; `sass-and-cubin-format.md` §6.2).
//!
//! A register the demoter moves is renamed to a scratch register around each instruction that
//! touches it, with an `LDS` before and an `STS` after. That is only safe where we know:
//! - for a **fixed-latency** instruction (no write scoreboard): it reads its sources at issue and
//!   its result is in the register file [`ALU_LATENCY`] cycles later (the stall we give it);
//! - for a **variable-latency** one: its result arrives through its write scoreboard, and its
//!   sources are read before its read scoreboard (or, without one, its write scoreboard) clears.
//!
//! The fixed-latency list is what ptxas 12.9 schedules without a scoreboard on sm_80–sm_90 and
//! whose results it reads at most 5 cycles later (the compares, `VOTE` and `R2P` write predicates
//! or read them; they read their general registers at issue like the rest) (measured over the 163 bench, Triton and stencil
//! cubins: `bench/gpu`); `HMMA`, `P2R`, `DFMA` and everything else outside the lists is
//! [`Timing::Unknown`], and the demoter leaves the registers such instructions touch alone.

use crate::sass::isa::Instruction;

/// Stall cycles a fixed-latency instruction gets before an `STS` reads its result: more than
/// the largest result latency ptxas assumes for the [`FIXED`] list (5 cycles).
pub const ALU_LATENCY: u8 = 6;

/// The scoreboard value meaning "none".
pub const NO_SB: u8 = 7;

/// Fixed-latency ALU instructions (base mnemonics).
const FIXED: &[&str] = &[
    "IMAD",
    "IADD3",
    "LEA",
    "SHF",
    "LOP3",
    "MOV",
    "SEL",
    "FSEL",
    "FADD",
    "FMUL",
    "FFMA",
    "FMNMX",
    "IMNMX",
    "VIMNMX",
    "VIADD",
    "VIADDMNMX",
    "IABS",
    "PRMT",
    "SGXT",
    "CS2R",
    "HFMA2",
    "HADD2",
    "HMUL2",
    "F2FP",
    "I2FP",
    "BMSK",
    "ISETP",
    "FSETP",
    "HSETP2",
    "VOTE",
    "R2P",
];

/// Variable-latency instructions on which ptxas sets read scoreboards (memory, `MUFU`, `SHFL`,
/// conversions through the XU): a read scoreboard we add is honoured.
const READ_SCOREBOARD: &[&str] = &[
    "LDG", "STG", "LDS", "STS", "LDL", "STL", "LD", "ST", "ATOM", "ATOMG", "ATOMS", "RED", "MUFU",
    "SHFL", "F2I", "LDGSTS", "LDSM",
];

/// How an instruction's registers are timed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timing {
    /// Reads at issue; result after at most [`ALU_LATENCY`] cycles.
    Fixed,
    /// Result through the write scoreboard (`None`: the instruction writes nothing that is
    /// tracked); sources read before `read_sb` (when it may carry one) or the write
    /// scoreboard clears.
    Variable {
        /// The write scoreboard ptxas gave it.
        write_sb: Option<u8>,
        /// Whether a read scoreboard may be set on it.
        read_sb_ok: bool,
    },
    /// Not known: the demoter must not rename its registers.
    Unknown,
}

/// The timing class of `inst` as ptxas scheduled it.
pub fn timing(inst: &Instruction) -> Timing {
    if !inst.is_known() {
        return Timing::Unknown;
    }
    let base = inst.opcode();
    let c = inst.control;
    let write_sb = (c.write_sb != NO_SB).then_some(c.write_sb);
    let read_sb_ok = READ_SCOREBOARD.contains(&base.as_str());
    if write_sb.is_none() && c.read_sb == NO_SB && FIXED.contains(&base.as_str()) {
        return Timing::Fixed;
    }
    if write_sb.is_some() || read_sb_ok {
        return Timing::Variable {
            write_sb,
            read_sb_ok,
        };
    }
    Timing::Unknown
}

impl Timing {
    /// Whether a register this instruction reads may be renamed to a scratch register.
    pub fn may_read_scratch(self) -> bool {
        match self {
            Timing::Fixed => true,
            Timing::Variable {
                write_sb,
                read_sb_ok,
            } => read_sb_ok || write_sb.is_some(),
            Timing::Unknown => false,
        }
    }

    /// Whether a register this instruction writes may be renamed to a scratch register (its
    /// result must be timed: fixed latency or a write scoreboard).
    pub fn may_write_scratch(self) -> bool {
        match self {
            Timing::Fixed => true,
            Timing::Variable { write_sb, .. } => write_sb.is_some(),
            Timing::Unknown => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sass::isa::encode::{self, Width, RZ};
    use crate::sass::isa::{Arch, Control, Pred};

    #[test]
    fn classifies_alu_memory_and_unknown() {
        let a = Arch::Sm80;
        let alu = encode::iadd3_imm(a, 4, 5, 1, RZ as u32, Control::NONE).unwrap();
        assert_eq!(timing(&alu), Timing::Fixed);
        let ld = encode::lds(
            a,
            4,
            5,
            0,
            Width::B32,
            Control {
                write_sb: 2,
                ..Control::NONE
            },
            Pred::PT,
        )
        .unwrap();
        assert_eq!(
            timing(&ld),
            Timing::Variable {
                write_sb: Some(2),
                read_sb_ok: true
            }
        );
        assert!(timing(&ld).may_write_scratch());
        // An LDS without a write scoreboard (ptxas relies on in-order completion): its result
        // is not timed for us.
        let ld_untracked = encode::lds(a, 4, 5, 0, Width::B32, Control::NONE, Pred::PT).unwrap();
        assert!(!timing(&ld_untracked).may_write_scratch());
        assert!(timing(&ld_untracked).may_read_scratch());
        let unknown = Instruction::decode(a, 0xffff_ffff_ffff_ffff_ffff_ffff_ffff_0fffu128);
        assert_eq!(timing(&unknown), Timing::Unknown);
        assert!(!Timing::Unknown.may_read_scratch());
    }
}
