//! Encoders for the instructions the register demoter inserts: LDS/STS and LDL/STL (8, 16, 32,
//! 64, 128 bits; LDL/STL also through a uniform register), S2R, LDC, IMAD, LEA, IADD3, LOP3, MOV,
//! NOP, the branches BRA/BSSY, and the uniform ULDC and UIADD3, each with explicit control bits.
//!
//! Reference: `sass-and-cubin-format.md` §0 item 4 (LDS 0x984 / STS 0x388: Rd/Ra/Rb fields,
//! simm24 at [40:63], size at [73:75]: 32 = 4, 64 = 5, 128 = 6), §6.1 (ALU forms: 1 = R,R,R;
//! 2 = R,R,imm with the second register moved to [64:71]; 4 = R,imm,R), §6.3 (opcodes, S2R's
//! special register at [72:79]).
//!
//! Each encoder starts from the word ptxas 12.9 emits for the plain form (taken from the
//! bench-kernel corpus; identical on sm_8x and sm_90) and sets the operand fields, so every
//! modifier bit is what ptxas uses. The corpus test disassembles every encoder's output with
//! `nvdisasm -b SMxx` and compares the text.

use super::word::{bits, with_bits, Control, Pred};
use super::{Arch, Instruction, IsaError};

/// `RZ`.
pub const RZ: u8 = 255;

/// Special registers for [`s2r`] (§6.3, MD `SR` enum).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum SpecialReg {
    /// `SR_LANEID`.
    LaneId = 0,
    /// `SR_TID.X`.
    TidX = 33,
    /// `SR_TID.Y`.
    TidY = 34,
    /// `SR_TID.Z`.
    TidZ = 35,
    /// `SR_CTAID.X`.
    CtaidX = 37,
    /// `SR_CTAID.Y`.
    CtaidY = 38,
    /// `SR_CTAID.Z`.
    CtaidZ = 39,
    /// `SR_CgaCtaId` (sm_90: the block's rank in its cluster; bits 24+ of a shared address).
    CgaCtaId = 0x88,
}

/// Access width of LDS/STS/LDL/STL (the size field [73:76]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Width {
    /// 8 bits, zero-extended (`.U8`).
    U8,
    /// 8 bits, sign-extended (`.S8`).
    S8,
    /// 16 bits, zero-extended (`.U16`).
    U16,
    /// 16 bits, sign-extended (`.S16`).
    S16,
    /// 32 bits.
    B32,
    /// 64 bits (register pair, even base).
    B64,
    /// 128 bits (register quad, base a multiple of 4).
    B128,
}

impl Width {
    fn size_field(self) -> u64 {
        match self {
            Width::U8 => 0,
            Width::S8 => 1,
            Width::U16 => 2,
            Width::S16 => 3,
            Width::B32 => 4,
            Width::B64 => 5,
            Width::B128 => 6,
        }
    }

    /// The width a size field value [73:76] names (7 is not a size).
    pub fn from_size_field(v: u64) -> Option<Width> {
        [
            Width::U8,
            Width::S8,
            Width::U16,
            Width::S16,
            Width::B32,
            Width::B64,
            Width::B128,
        ]
        .into_iter()
        .find(|w| w.size_field() == v)
    }

    /// Bytes accessed.
    pub fn bytes(self) -> u32 {
        match self {
            Width::U8 | Width::S8 => 1,
            Width::U16 | Width::S16 => 2,
            _ => 4 * self.regs(),
        }
    }

    /// Number of registers.
    pub fn regs(self) -> u32 {
        match self {
            Width::U8 | Width::S8 | Width::U16 | Width::S16 | Width::B32 => 1,
            Width::B64 => 2,
            Width::B128 => 4,
        }
    }
}

fn w(lo: u64, hi: u64) -> u128 {
    lo as u128 | (hi as u128) << 64
}

fn reg(v: u32) -> Result<u64, IsaError> {
    if v <= 255 && v != 254 {
        Ok(v as u64)
    } else {
        Err(IsaError::Register(v))
    }
}

fn aligned(r: u32, width: Width) -> Result<u64, IsaError> {
    if !(r == RZ as u32 || r % width.regs() == 0 && r + width.regs() <= 254) {
        return Err(IsaError::Register(r));
    }
    reg(r)
}

fn finish(arch: Arch, word: u128, control: Control, guard: Pred) -> Instruction {
    let word = guard.apply_guard(control.apply(word));
    Instruction::decode(arch, word)
}

fn simm24(offset: i32) -> Result<u64, IsaError> {
    if !(-(1 << 23)..(1 << 23)).contains(&offset) {
        return Err(IsaError::Register(offset as u32));
    }
    Ok((offset as u32 & 0xff_ffff) as u64)
}

/// `NOP`.
pub fn nop(arch: Arch, control: Control) -> Instruction {
    finish(arch, w(0x7918, 0), control, Pred::PT)
}

/// A shared- or local-memory access `[Ra + offset]` of `width` from the plain word `base`: the
/// data register (`data`, pair- or quad-aligned for wide accesses) goes to bits [16:24] for a
/// load and [32:40] for a store; the address register to [24:32], the signed 24-bit offset to
/// [40:64], the size to [73:76].
#[allow(clippy::too_many_arguments)]
fn memory_access(
    arch: Arch,
    base: u128,
    store: bool,
    data: u32,
    ra: u32,
    offset: i32,
    width: Width,
    control: Control,
    guard: Pred,
) -> Result<Instruction, IsaError> {
    let mut x = with_bits(base, if store { 32 } else { 16 }, 8, aligned(data, width)?);
    x = with_bits(x, 24, 8, reg(ra)?);
    x = with_bits(x, 40, 24, simm24(offset)?);
    x = with_bits(x, 73, 3, width.size_field());
    Ok(finish(arch, x, control, guard))
}

/// `LDS[.64|.128] Rd, [Ra + offset]` (`Ra` = RZ for an absolute address).
pub fn lds(
    arch: Arch,
    rd: u32,
    ra: u32,
    offset: i32,
    width: Width,
    control: Control,
    guard: Pred,
) -> Result<Instruction, IsaError> {
    let base = w(0x7984 | 0xff << 24, 0);
    memory_access(arch, base, false, rd, ra, offset, width, control, guard)
}

/// `STS[.64|.128] [Ra + offset], Rb`.
pub fn sts(
    arch: Arch,
    ra: u32,
    offset: i32,
    rb: u32,
    width: Width,
    control: Control,
    guard: Pred,
) -> Result<Instruction, IsaError> {
    memory_access(
        arch,
        w(0x7388, 0),
        true,
        rb,
        ra,
        offset,
        width,
        control,
        guard,
    )
}

/// `LDL[.64|.128] Rd, [Ra + offset]` (local memory; `Ra` is usually R1, the stack pointer).
pub fn ldl(
    arch: Arch,
    rd: u32,
    ra: u32,
    offset: i32,
    width: Width,
    control: Control,
    guard: Pred,
) -> Result<Instruction, IsaError> {
    // ptxas's spill refill `LDL R4, [R1+0x180]`: 0x0001800001047983 0x...00100800.
    let base = w(0x7983, 0x10_0000);
    memory_access(arch, base, false, rd, ra, offset, width, control, guard)
}

/// `STL[.64|.128] [Ra + offset], Rb` (local memory).
pub fn stl(
    arch: Arch,
    ra: u32,
    offset: i32,
    rb: u32,
    width: Width,
    control: Control,
    guard: Pred,
) -> Result<Instruction, IsaError> {
    // ptxas's spill `STL [R1+0x188], R12`: 0x0001880c01007387 0x...00100800.
    let base = w(0x7387, 0x10_0000);
    memory_access(arch, base, true, rb, ra, offset, width, control, guard)
}

/// A local access through a uniform register, `[Ra + URu + offset]` (opcode bit 91 set; sm_8x and
/// sm_90): the uniform register goes to [32:37] for a load (the data register is at [16:23]) and
/// to [64:69] for a store (data at [32:39]). ptxas's `LDL.S8 R0, [R7+UR5]` on sm_90 is
/// 0x0000000507007983 0x…08100200, `STL.U8 [R7+UR4], R8` 0x0000000807007987 0x…08100004.
#[allow(clippy::too_many_arguments)]
fn local_access_ur(
    arch: Arch,
    store: bool,
    data: u32,
    ra: u32,
    ur: u32,
    offset: i32,
    width: Width,
    control: Control,
    guard: Pred,
) -> Result<Instruction, IsaError> {
    if ur >= 63 {
        return Err(IsaError::Register(ur));
    }
    let base = if store {
        w(0x7987, 0x0810_0000)
    } else {
        w(0x7983, 0x0810_0000)
    };
    let i = memory_access(arch, base, store, data, ra, offset, width, control, guard)?;
    let x = with_bits(i.word, if store { 64 } else { 32 }, 6, ur as u64);
    Ok(Instruction::decode(arch, x))
}

/// `LDL[.64|.128] Rd, [Ra + URu + offset]` (`Ra` = RZ: the address is the uniform register's).
#[allow(clippy::too_many_arguments)]
pub fn ldl_ur(
    arch: Arch,
    rd: u32,
    ra: u32,
    ur: u32,
    offset: i32,
    width: Width,
    control: Control,
    guard: Pred,
) -> Result<Instruction, IsaError> {
    local_access_ur(arch, false, rd, ra, ur, offset, width, control, guard)
}

/// `STL[.64|.128] [Ra + URu + offset], Rb`.
#[allow(clippy::too_many_arguments)]
pub fn stl_ur(
    arch: Arch,
    ra: u32,
    ur: u32,
    offset: i32,
    rb: u32,
    width: Width,
    control: Control,
    guard: Pred,
) -> Result<Instruction, IsaError> {
    local_access_ur(arch, true, rb, ra, ur, offset, width, control, guard)
}

/// `LOP3.LUT Rd, Ra, Rb, Rc, lut, !PT` (no predicate output).
pub fn lop3(
    arch: Arch,
    rd: u32,
    ra: u32,
    rb: u32,
    rc: u32,
    lut: u8,
    control: Control,
) -> Result<Instruction, IsaError> {
    // `LOP3.LUT R7, R31, R0, RZ, 0xc0, !PT`: 0x000000001f077212 0x...078ec0ff.
    let mut x = w(0x7212, 0x078e_0000);
    x = with_bits(x, 16, 8, reg(rd)?);
    x = with_bits(x, 24, 8, reg(ra)?);
    x = with_bits(x, 32, 8, reg(rb)?);
    x = with_bits(x, 64, 8, reg(rc)?);
    x = with_bits(x, 72, 8, lut as u64);
    Ok(finish(arch, x, control, Pred::PT))
}

/// `BRA target` at code offset `pc` (relative branch; `guard` makes it conditional).
pub fn bra(
    arch: Arch,
    pc: u64,
    target: u64,
    control: Control,
    guard: Pred,
) -> Result<Instruction, IsaError> {
    // `BRA` with PT in its second predicate [87:89]: 0x...7947 0x...03800000.
    let mut i = finish(arch, w(0x7947, 0x0380_0000), control, guard);
    i.set_branch_target(pc, target)?;
    Ok(i)
}

/// `BSSY Bn, target` at code offset `pc` (the reconvergence point of a divergent region).
pub fn bssy(
    arch: Arch,
    barrier: u32,
    pc: u64,
    target: u64,
    control: Control,
) -> Result<Instruction, IsaError> {
    if barrier > 15 {
        return Err(IsaError::Register(barrier));
    }
    // `BSSY B1, target`: 0x000001e000017945 0x...03800000.
    let mut x = w(0x7945, 0x0380_0000);
    x = with_bits(x, 16, 4, barrier as u64);
    let mut i = finish(arch, x, control, Pred::PT);
    i.set_branch_target(pc, target)?;
    Ok(i)
}

/// `S2R Rd, SR_*`.
pub fn s2r(arch: Arch, rd: u32, sr: SpecialReg, control: Control) -> Result<Instruction, IsaError> {
    let mut x = w(0x7919, 0);
    x = with_bits(x, 16, 8, reg(rd)?);
    x = with_bits(x, 72, 8, sr as u64);
    Ok(finish(arch, x, control, Pred::PT))
}

/// `MOV Rd, imm32`.
pub fn mov_imm(arch: Arch, rd: u32, imm: u32, control: Control) -> Result<Instruction, IsaError> {
    let mut x = w(0x7802, 0xf00);
    x = with_bits(x, 16, 8, reg(rd)?);
    x = with_bits(x, 32, 32, imm as u64);
    Ok(finish(arch, x, control, Pred::PT))
}

/// `MOV Rd, Rb`.
pub fn mov(arch: Arch, rd: u32, rb: u32, control: Control) -> Result<Instruction, IsaError> {
    let mut x = w(0x7202, 0xf00);
    x = with_bits(x, 16, 8, reg(rd)?);
    x = with_bits(x, 32, 8, reg(rb)?);
    Ok(finish(arch, x, control, Pred::PT))
}

/// `IMAD Rd, Ra, Rb, Rc` (Rd = Ra·Rb + Rc, low 32 bits).
pub fn imad(
    arch: Arch,
    rd: u32,
    ra: u32,
    rb: u32,
    rc: u32,
    control: Control,
) -> Result<Instruction, IsaError> {
    let mut x = w(0x7224, 0x078e_0200);
    x = with_bits(x, 16, 8, reg(rd)?);
    x = with_bits(x, 24, 8, reg(ra)?);
    x = with_bits(x, 32, 8, reg(rb)?);
    x = with_bits(x, 64, 8, reg(rc)?);
    Ok(finish(arch, x, control, Pred::PT))
}

/// `IMAD Rd, Ra, imm32, Rc` (form R, imm, R).
pub fn imad_imm(
    arch: Arch,
    rd: u32,
    ra: u32,
    imm: u32,
    rc: u32,
    control: Control,
) -> Result<Instruction, IsaError> {
    let mut x = w(0x7824, 0x078e_0200);
    x = with_bits(x, 16, 8, reg(rd)?);
    x = with_bits(x, 24, 8, reg(ra)?);
    x = with_bits(x, 32, 32, imm as u64);
    x = with_bits(x, 64, 8, reg(rc)?);
    Ok(finish(arch, x, control, Pred::PT))
}

/// `IADD3 Rd, Ra, Rb, Rc` (no carry out).
pub fn iadd3(
    arch: Arch,
    rd: u32,
    ra: u32,
    rb: u32,
    rc: u32,
    control: Control,
) -> Result<Instruction, IsaError> {
    let mut x = w(0x7210, 0x07ff_e000);
    x = with_bits(x, 16, 8, reg(rd)?);
    x = with_bits(x, 24, 8, reg(ra)?);
    x = with_bits(x, 32, 8, reg(rb)?);
    x = with_bits(x, 64, 8, reg(rc)?);
    Ok(finish(arch, x, control, Pred::PT))
}

/// `IADD3 Rd, Ra, imm32, Rc` (no carry out).
pub fn iadd3_imm(
    arch: Arch,
    rd: u32,
    ra: u32,
    imm: u32,
    rc: u32,
    control: Control,
) -> Result<Instruction, IsaError> {
    let mut x = w(0x7810, 0x07ff_e000);
    x = with_bits(x, 16, 8, reg(rd)?);
    x = with_bits(x, 24, 8, reg(ra)?);
    x = with_bits(x, 32, 32, imm as u64);
    x = with_bits(x, 64, 8, reg(rc)?);
    Ok(finish(arch, x, control, Pred::PT))
}

/// `LEA Rd, Ra, Rb, shift` (Rd = (Ra << shift) + Rb; no carry out).
pub fn lea(
    arch: Arch,
    rd: u32,
    ra: u32,
    rb: u32,
    shift: u32,
    control: Control,
) -> Result<Instruction, IsaError> {
    if shift > 31 {
        return Err(IsaError::Register(shift));
    }
    let mut x = w(0x7211, 0x078e_00ff);
    x = with_bits(x, 16, 8, reg(rd)?);
    x = with_bits(x, 24, 8, reg(ra)?);
    x = with_bits(x, 32, 8, reg(rb)?);
    x = with_bits(x, 75, 5, shift as u64);
    Ok(finish(arch, x, control, Pred::PT))
}

/// A constant-bank operand `c[bank][offset]` as the field [40:59] of LDC and the ALU forms: the word index
/// at [40:54], the bank at [54:59].
fn cbank(bank: u32, offset: u32) -> Result<u64, IsaError> {
    if bank > 31 || offset % 4 != 0 || offset >= 1 << 16 {
        return Err(IsaError::Register(offset));
    }
    Ok((offset / 4) as u64 | (bank as u64) << 14)
}

/// `LDC Rd, c[bank][offset]` (32 bits; a variable-latency load: give it a write scoreboard).
pub fn ldc(
    arch: Arch,
    rd: u32,
    (bank, offset): (u32, u32),
    control: Control,
) -> Result<Instruction, IsaError> {
    // `LDC R1, c[0x0][0x28]`: 0x00000a00ff017b82 0x...00000800.
    let mut x = w(0xff00_7b82, 0x800);
    x = with_bits(x, 16, 8, reg(rd)?);
    x = with_bits(x, 40, 19, cbank(bank, offset)?);
    Ok(finish(arch, x, control, Pred::PT))
}

/// `ULDC URd, c[bank][offset]` (32 bits; fixed latency: ptxas waits on no scoreboard for it).
pub fn uldc(
    arch: Arch,
    urd: u32,
    (bank, offset): (u32, u32),
    control: Control,
) -> Result<Instruction, IsaError> {
    // `ULDC UR5, c[0x0][0x224]`: 0x0000890000057ab9 0x…00000800.
    if urd >= 63 {
        return Err(IsaError::Register(urd));
    }
    let mut x = w(0x7ab9, 0x800);
    x = with_bits(x, 16, 6, urd as u64);
    x = with_bits(x, 40, 19, cbank(bank, offset)?);
    Ok(finish(arch, x, control, Pred::PT))
}

/// `UIADD3 URd, URa, imm32, URZ`.
pub fn uiadd3_imm(
    arch: Arch,
    urd: u32,
    ura: u32,
    imm: u32,
    control: Control,
) -> Result<Instruction, IsaError> {
    // `UIADD3 UR4, UR4, -0x3, URZ`: 0xfffffffd04047890 0x…0fffe03f.
    if urd >= 63 || ura > 63 {
        return Err(IsaError::Register(urd.max(ura)));
    }
    let mut x = w(0x7890, 0x0fff_e03f);
    x = with_bits(x, 16, 6, urd as u64);
    x = with_bits(x, 24, 6, ura as u64);
    x = with_bits(x, 32, 32, imm as u64);
    Ok(finish(arch, x, control, Pred::PT))
}

/// The immediate of `MOV Rd, imm32` (opcode key 0x802), if `i` is one.
pub fn mov_immediate(i: &Instruction) -> Option<u32> {
    (i.key == 0x802).then(|| bits(i.word, 32, 32) as u32)
}

/// `i` (a `MOV Rd, imm32`) with a new immediate.
pub fn set_mov_immediate(i: &Instruction, imm: u32) -> Option<Instruction> {
    if i.key != 0x802 {
        return None;
    }
    let mut n = Instruction::decode(i.arch, with_bits(i.encode(), 32, 32, imm as u64));
    n.control = i.control;
    Some(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sass::isa::RegFile;

    fn c() -> Control {
        Control {
            stall: 2,
            no_yield: true,
            write_sb: 7,
            read_sb: 7,
            wait: 0,
            reuse: 0,
        }
    }

    #[test]
    fn corpus_words_are_reproduced() {
        // LDS.64 R8, [R3] and LDS.128 R16, [R26] (sm_80, control bits masked off).
        let a = Arch::Sm80;
        let l = lds(a, 8, 3, 0, Width::B64, Control::default(), Pred::PT).unwrap();
        assert_eq!(
            l.word & !super::super::word::CONTROL_MASK,
            w(0x3087984, 0xa00)
        );
        let l = lds(a, 16, 26, 0, Width::B128, Control::default(), Pred::PT).unwrap();
        assert_eq!(
            l.word & !super::super::word::CONTROL_MASK,
            w(0x1a107984, 0xc00)
        );
        let s = sts(a, 0, 0, 9, Width::B32, Control::default(), Pred::PT).unwrap();
        assert_eq!(
            s.word & !super::super::word::CONTROL_MASK,
            w(0x900007388, 0x800)
        );
        let m = mov_imm(a, 4, 4, Control::default()).unwrap();
        assert_eq!(
            m.word & !super::super::word::CONTROL_MASK,
            w(0x400047802, 0xf00)
        );
        let m = mov(a, 11, 9, Control::default()).unwrap();
        assert_eq!(
            m.word & !super::super::word::CONTROL_MASK,
            w(0x9000b7202, 0xf00)
        );
        let m = imad(a, 11, 11, 10, RZ as u32, Control::default()).unwrap();
        assert_eq!(
            m.word & !super::super::word::CONTROL_MASK,
            w(0xa0b0b7224, 0x78e02ff)
        );
        let m = imad_imm(a, 9, 0, 3, RZ as u32, Control::default()).unwrap();
        assert_eq!(
            m.word & !super::super::word::CONTROL_MASK,
            w(0x300097824, 0x78e02ff)
        );
        let s = s2r(a, 0, SpecialReg::CtaidX, Control::default()).unwrap();
        assert_eq!(
            s.word & !super::super::word::CONTROL_MASK,
            w(0x7919, 0x2500)
        );
    }

    #[test]
    fn def_use_of_encoded_instructions() {
        let a = Arch::Sm90;
        let l = lds(a, 6, 3, 16, Width::B128, c(), Pred::PT);
        assert!(l.is_err(), "R6 is not 4-aligned for LDS.128");
        let l = lds(
            a,
            8,
            3,
            -16,
            Width::B64,
            c(),
            Pred {
                index: 0,
                negated: true,
            },
        )
        .unwrap();
        let du = l.def_use();
        assert_eq!(du.writes.render(RegFile::Gpr), ["R8", "R9"]);
        assert_eq!(du.reads.render(RegFile::Gpr), ["R3"]);
        assert_eq!(du.reads.render(RegFile::Pred), ["P0"]);
        assert_eq!(l.control, c());
        let s = sts(a, 3, 8, 12, Width::B128, c(), Pred::PT).unwrap();
        assert_eq!(
            s.def_use().reads.render(RegFile::Gpr),
            ["R3", "R12", "R13", "R14", "R15"]
        );
        let m = set_mov_immediate(&mov_imm(a, 20, 0x180, c()).unwrap(), 0x1c0).unwrap();
        assert_eq!(mov_immediate(&m), Some(0x1c0));
        assert_eq!(m.control, c());
    }
}
