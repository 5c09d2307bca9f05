//! The local-memory frame of a kernel as ptxas builds it, recognised exactly or refused.
//!
//! RegDem §3 (what the demoter changes) on Ampere/Hopper SASS: ptxas sets the stack pointer R1
//! once at the entry (`MOV R1, c[0x0][0x28]`, `IMAD.MOV.U32 R1, RZ, RZ, c[0x0][0x28]` or
//! `LDC R1, c[0x0][0x28]`), allocates the frame with `IADD3 R1, R1, -N, RZ` (sm_90 also
//! `VIADD R1, R1, -N`), and spills and
//! refills with `STL [R1+o], Rx` / `LDL[.LU] Rx, [R1+o]` (8 to 128 bits). Local arrays, callee
//! frames and generic pointers into the stack all read R1 in some other instruction. Calls
//! within the kernel's section (`CALL.REL.NOINC`, ptxas's slow paths of division and the like)
//! are allowed: their code is scanned with the kernel's.
//!
//! [`analyse`] accepts a kernel only when every use of R1 is one of those three kinds and every
//! local access is one of those forms, bit for bit (the word is rebuilt by the encoder and
//! compared); anything else is a typed refusal naming the instruction, never a guess.

use std::collections::BTreeSet;

use crate::sass::isa::encode::{self, Width, RZ};
use crate::sass::isa::word::{bits, Pred, CONTROL_MASK};
use crate::sass::isa::{Control, Instruction, RegFile};

/// The stack pointer.
pub const SP: u32 = 1;

/// Bit 85: the `.LU` (last use) cache hint of LDL.
const LAST_USE_BIT: u32 = 85;

/// One spill or refill: `STL [R1+offset], data` or `LDL data, [R1+offset]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocalAccess {
    /// Index of the instruction in the kernel's code.
    pub index: usize,
    /// A store (`STL`) or a load (`LDL`).
    pub store: bool,
    /// First data register.
    pub data: u32,
    /// Access width.
    pub width: Width,
    /// Byte offset in the frame.
    pub offset: i32,
    /// Guard predicate.
    pub guard: Pred,
    /// Control bits.
    pub control: Control,
}

/// A kernel's frame: where R1 is set up and every access through it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    /// The instruction that loads the stack pointer from `c[0x0][0x28]`.
    pub sp_def: usize,
    /// The `IADD3 R1, R1, -size, RZ` that allocates the frame.
    pub alloc: usize,
    /// Frame size in bytes.
    pub size: u32,
    /// Every spill and refill, in code order.
    pub accesses: Vec<LocalAccess>,
}

/// Why a kernel's local memory is not a frame this module can move.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    /// No instruction touches local memory.
    #[error("the kernel uses no local memory")]
    NoLocalMemory,
    /// An instruction the decoder does not know, and nvdisasm could not say, could read or write
    /// R1.
    #[error("{mnemonic} at {pc:#x} is not a known form and nvdisasm lists no registers for it")]
    Unknown {
        /// Byte offset.
        pc: u64,
        /// What the decoder calls it.
        mnemonic: String,
    },
    /// A call out of the section or through a register: the callee is not in view.
    #[error("{mnemonic} at {pc:#x}: a call whose callee is outside this kernel's code")]
    Call {
        /// Byte offset.
        pc: u64,
        /// The call.
        mnemonic: String,
    },
    /// R1 is used other than as the base of a spill or refill.
    #[error(
        "{mnemonic} at {pc:#x} uses the stack pointer R1 other than as a spill address \
         (a local array, a generic pointer to the stack, or a second frame)"
    )]
    StackPointer {
        /// Byte offset.
        pc: u64,
        /// The instruction.
        mnemonic: String,
    },
    /// A local access whose address is not `[R1+imm]`, or whose bits are not the plain form.
    #[error("{mnemonic} at {pc:#x} is not a [R1+imm] access of the plain form")]
    Access {
        /// Byte offset.
        pc: u64,
        /// The instruction.
        mnemonic: String,
    },
    /// An access outside `[0, frame size)`.
    #[error("the access at {pc:#x} ({offset:+} B, {bytes} B) is outside the {size}-byte frame")]
    Outside {
        /// Byte offset of the instruction.
        pc: u64,
        /// Frame offset.
        offset: i32,
        /// Bytes accessed.
        bytes: u32,
        /// Frame size.
        size: u32,
    },
    /// The entry does not set up the stack pointer and frame as ptxas does.
    #[error("no `R1 = c[0x0][0x28]` followed by `IADD3 R1, R1, -N, RZ` in the entry block")]
    NoFrame,
}

/// The kind of an instruction, as far as the frame is concerned.
enum Role {
    SpDef,
    Alloc(u32),
    Access(LocalAccess),
    Other,
}

/// For an instruction our decoder does not know exactly: whether it reads or writes R1,
/// according to an independent oracle (nvdisasm's life ranges); `None` when it cannot tell.
pub type SpOracle<'a> = &'a dyn Fn(usize) -> Option<bool>;

/// Recognises the frame of a kernel whose body is `insts` (padding excluded), with basic
/// blocks starting at `leaders`; `oracle` answers for instructions whose registers the decoder
/// does not know.
pub fn analyse(
    insts: &[Instruction],
    leaders: &BTreeSet<usize>,
    oracle: SpOracle,
) -> Result<Frame, FrameError> {
    match stack(insts, leaders, oracle)? {
        Stack::Frame(f) => Ok(f),
        Stack::Frameless { .. } => Err(FrameError::NoLocalMemory),
    }
}

/// What a kernel does with R1: a frame [`analyse`] can move, or none at all (R1 at most
/// loaded once at the entry and never used: free to become a shared-memory base).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stack {
    /// A frame with at least one access.
    Frame(Frame),
    /// No local memory and no other use of R1.
    Frameless {
        /// The entry's `R1 = c[0x0][0x28]`, if ptxas emitted one.
        sp_def: Option<usize>,
    },
}

/// Recognises the kernel's use of the stack pointer: a frame, nothing, or a refusal.
pub fn stack(
    insts: &[Instruction],
    leaders: &BTreeSet<usize>,
    oracle: SpOracle,
) -> Result<Stack, FrameError> {
    let (mut sp_def, mut alloc) = (None, None);
    let mut accesses = Vec::new();
    for (index, inst) in insts.iter().enumerate() {
        let pc = index as u64 * 16;
        match role(index, inst, insts.len() as u64 * 16, oracle)? {
            Role::SpDef if sp_def.is_none() => sp_def = Some(index),
            Role::Alloc(size) if sp_def.is_some() && alloc.is_none() => alloc = Some((index, size)),
            Role::Access(a) if alloc.is_some() => accesses.push(a),
            Role::Other => {}
            _ => {
                return Err(FrameError::StackPointer {
                    pc,
                    mnemonic: inst.mnemonic(),
                })
            }
        }
    }
    if alloc.is_none() && accesses.is_empty() {
        return Ok(Stack::Frameless { sp_def });
    }
    let (Some(sp_def), Some((alloc, size))) = (sp_def, alloc) else {
        return Err(FrameError::NoFrame);
    };
    // Both in the entry block: nothing branches between them and the start.
    if leaders.range(1..=alloc).next().is_some() {
        return Err(FrameError::NoFrame);
    }
    if accesses.is_empty() {
        return Err(FrameError::NoLocalMemory);
    }
    for a in &accesses {
        let bytes = a.width.bytes();
        if a.offset < 0 || a.offset as u32 + bytes > size || a.offset as u32 % bytes.min(4) != 0 {
            return Err(FrameError::Outside {
                pc: a.index as u64 * 16,
                offset: a.offset,
                bytes,
                size,
            });
        }
    }
    Ok(Stack::Frame(Frame {
        sp_def,
        alloc,
        size,
        accesses,
    }))
}

/// What `inst` does with R1 and local memory.
fn role(
    index: usize,
    inst: &Instruction,
    body_bytes: u64,
    oracle: SpOracle,
) -> Result<Role, FrameError> {
    let pc = index as u64 * 16;
    let op = inst.key & 0xfff;
    if op == 0x983 || op == 0x387 {
        return local_access(index, inst).map(Role::Access);
    }
    if inst.is_call() {
        // A relative call into this section: the callee's code is scanned with the kernel's,
        // so an R1 use there is refused like any other; CALL.REL.NOINC keeps its return
        // address in a register, not on the stack.
        return match inst.branch_target(pc) {
            Some(t) if t < body_bytes => Ok(Role::Other),
            _ => Err(FrameError::Call {
                pc,
                mnemonic: inst.mnemonic(),
            }),
        };
    }
    let du = inst.def_use();
    let g = RegFile::Gpr.index();
    if !du.is_exact() && (du.any_read[g] || du.any_write[g]) {
        return match oracle(index) {
            Some(false) => Ok(Role::Other),
            Some(true) => Err(FrameError::StackPointer {
                pc,
                mnemonic: inst.mnemonic(),
            }),
            None => Err(FrameError::Unknown {
                pc,
                mnemonic: inst.mnemonic(),
            }),
        };
    }
    let touches_sp = du.reads.contains(RegFile::Gpr, SP) || du.writes.contains(RegFile::Gpr, SP);
    if !touches_sp {
        return Ok(Role::Other);
    }
    if is_sp_def(inst) {
        return Ok(Role::SpDef);
    }
    if let Some(size) = frame_alloc(inst) {
        return Ok(Role::Alloc(size));
    }
    Err(FrameError::StackPointer {
        pc,
        mnemonic: inst.mnemonic(),
    })
}

/// `R1 = c[0x0][0x28]`: MOV (0xa02), IMAD.MOV.U32 with RZ, RZ (0x624) or LDC (0xb82), unguarded,
/// writing only R1 and reading no register.
fn is_sp_def(inst: &Instruction) -> bool {
    let op = inst.key & 0xfff;
    let du = inst.def_use();
    let writes_only_sp = du.writes.iter(RegFile::Gpr).eq([SP]);
    let reads_none = du.reads.is_empty_in(RegFile::Gpr);
    let c28 = bits(inst.word, 40, 19) == 0x28 / 4;
    [0xa02, 0x624, 0xb82].contains(&op)
        && inst.guard.is_true()
        && writes_only_sp
        && reads_none
        && c28
        && bits(inst.word, 24, 8) as u8 == if op == 0xa02 { 0 } else { RZ }
}

/// `IADD3 R1, R1, -size, RZ` (sm_80–sm_90; exactly the encoder's word) or `VIADD R1, R1, -size`
/// (sm_90: opcode 0x836, nothing but the fields set), unguarded: the frame size.
fn frame_alloc(inst: &Instruction) -> Option<u32> {
    if !inst.guard.is_true() {
        return None;
    }
    let imm = bits(inst.word, 32, 32) as u32;
    let size = imm.wrapping_neg();
    let exact = match inst.key & 0xfff {
        0x810 => {
            let rebuilt =
                encode::iadd3_imm(inst.arch, SP, SP, imm, RZ as u32, inst.control).ok()?;
            rebuilt.word == inst.word
        }
        0x836 => {
            let viadd = 0x7836 | (SP as u128) << 16 | (SP as u128) << 24 | (imm as u128) << 32;
            inst.word & !CONTROL_MASK == viadd
        }
        _ => false,
    };
    (exact && size > 0 && size < 1 << 24).then_some(size)
}

/// An LDL/STL `[R1+imm]` of the plain form (LDL may carry `.LU`).
fn local_access(index: usize, inst: &Instruction) -> Result<LocalAccess, FrameError> {
    let err = || FrameError::Access {
        pc: index as u64 * 16,
        mnemonic: inst.mnemonic(),
    };
    let store = inst.key & 0xfff == 0x387;
    let width = Width::from_size_field(bits(inst.word, 73, 3)).ok_or_else(err)?;
    let data = bits(inst.word, if store { 32 } else { 16 }, 8) as u32;
    let base = bits(inst.word, 24, 8) as u32;
    let offset = ((bits(inst.word, 40, 24) as u32) << 8) as i32 >> 8;
    if base != SP || data == SP || (!store && data == RZ as u32) {
        return Err(err());
    }
    let rebuilt = if store {
        encode::stl(inst.arch, SP, offset, data, width, inst.control, inst.guard)
    } else {
        encode::ldl(inst.arch, data, SP, offset, width, inst.control, inst.guard)
    }
    .map_err(|_| err())?;
    let plain = if store {
        inst.word
    } else {
        inst.word & !(1u128 << LAST_USE_BIT)
    };
    if rebuilt.word != plain {
        return Err(err());
    }
    Ok(LocalAccess {
        index,
        store,
        data,
        width,
        offset,
        guard: inst.guard,
        control: inst.control,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sass::isa::Arch;

    fn ctl() -> Control {
        Control::NONE
    }

    fn entry(arch: Arch, size: u32) -> Vec<Instruction> {
        vec![
            encode::ldc(arch, SP, (0, 0x28), ctl()).unwrap(),
            encode::iadd3_imm(arch, SP, SP, size.wrapping_neg(), RZ as u32, ctl()).unwrap(),
        ]
    }

    #[test]
    fn recognises_a_frame_and_its_accesses() {
        let a = Arch::Sm90;
        let mut code = entry(a, 16);
        code.push(encode::stl(a, SP, 8, 4, Width::B64, ctl(), Pred::PT).unwrap());
        code.push(encode::ldl(a, 6, SP, 12, Width::B32, ctl(), Pred::PT).unwrap());
        let f = analyse(&code, &BTreeSet::from([0]), &|_| None).unwrap();
        assert_eq!((f.sp_def, f.alloc, f.size), (0, 1, 16));
        assert_eq!(f.accesses.len(), 2);
        assert!(f.accesses[0].store && f.accesses[0].width == Width::B64);
        assert_eq!((f.accesses[1].data, f.accesses[1].offset), (6, 12));
    }

    #[test]
    fn refuses_what_it_cannot_prove() {
        let a = Arch::Sm80;
        // A local array: R1 copied into another register.
        let mut code = entry(a, 16);
        code.push(encode::iadd3_imm(a, 4, SP, 8, RZ as u32, ctl()).unwrap());
        assert!(matches!(
            analyse(&code, &BTreeSet::from([0]), &|_| None),
            Err(FrameError::StackPointer { pc: 0x20, .. })
        ));
        // An access past the frame.
        let mut code = entry(a, 8);
        code.push(encode::stl(a, SP, 8, 4, Width::B32, ctl(), Pred::PT).unwrap());
        assert!(matches!(
            analyse(&code, &BTreeSet::from([0]), &|_| None),
            Err(FrameError::Outside { .. })
        ));
        // An access not based on R1.
        let mut code = entry(a, 8);
        code.push(encode::ldl(a, 4, 2, 0, Width::B32, ctl(), Pred::PT).unwrap());
        assert!(matches!(
            analyse(&code, &BTreeSet::from([0]), &|_| None),
            Err(FrameError::Access { .. })
        ));
        // A branch target between the entry and the allocation.
        let mut code = entry(a, 8);
        code.push(encode::stl(a, SP, 0, 4, Width::B32, ctl(), Pred::PT).unwrap());
        assert_eq!(
            analyse(&code, &BTreeSet::from([0, 1]), &|_| None),
            Err(FrameError::NoFrame)
        );
        // No local memory at all.
        let code = vec![encode::ldc(a, SP, (0, 0x28), ctl()).unwrap()];
        assert_eq!(
            analyse(&code, &BTreeSet::from([0]), &|_| None),
            Err(FrameError::NoLocalMemory)
        );
        // An unknown instruction: refused, unless the oracle says it leaves R1 alone.
        let mut code = entry(a, 8);
        code.push(Instruction::decode(
            a,
            0xffff_ffff_ffff_ffff_ffff_ffff_ffff_0fffu128,
        ));
        code.push(encode::stl(a, SP, 0, 4, Width::B32, ctl(), Pred::PT).unwrap());
        assert!(!code[2].def_use().is_exact());
        assert!(matches!(
            analyse(&code, &BTreeSet::from([0]), &|_| None),
            Err(FrameError::Unknown { pc: 0x20, .. })
        ));
        assert!(analyse(&code, &BTreeSet::from([0]), &|i| Some(i != 2)).is_ok());
        assert!(matches!(
            analyse(&code, &BTreeSet::from([0]), &|_| Some(true)),
            Err(FrameError::StackPointer { pc: 0x20, .. })
        ));
    }
}
