//! The code changes that move a frame to shared memory (RegDem §3, local-to-shared): a prologue
//! that turns R1 into the thread's shared-memory base, every `STL`/`LDL` replaced by
//! `STS`/`LDS` pieces with the same guard and scoreboards, and the stack set-up removed. When
//! only part of the frame moves ([`super::split`]), the prologue also rebuilds the smaller frame
//! in a uniform register and the accesses that stay address it (`STL [URk+o]`).
//!
//! Control bits (`sass-and-cubin-format.md` §6.2): LDS/STS are variable-latency like LDL/STL and
//! use the same scoreboard protocol, so each piece keeps the original's write scoreboard (loads),
//! read scoreboard (stores) and wait mask; a split access sets the same scoreboard once per
//! piece (scoreboards count). Operand-reuse flags are cleared (always safe). The prologue runs
//! before anything else, when no scoreboard is pending; its fixed-latency instructions stall
//! [`ALU_STALL`] cycles each, more than any ALU result latency on sm_80–sm_90.

use super::frame::{Frame, LocalAccess, SP};
use super::layout::SharedFrame;
use super::split::{Placement, Split};
use crate::sass::edit::{EditError, Editor};
use crate::sass::isa::encode::{self, SpecialReg, RZ};
use crate::sass::isa::{Arch, Control, Instruction, IsaError};

/// Stall cycles after each fixed-latency prologue instruction.
pub const ALU_STALL: u8 = 6;

/// Registers the prologue uses as scratch (dead at the kernel entry); the kernel must have more.
pub const SCRATCH: [u32; 6] = [0, 2, 3, 4, 5, 6];

fn alu(stall: u8) -> Control {
    Control {
        stall,
        ..Control::NONE
    }
}

fn variable(write_sb: u8) -> Control {
    Control {
        stall: 1,
        write_sb,
        ..Control::NONE
    }
}

/// Where a kernel's region starts: the end of its static area plus the launch's dynamic size,
/// read at run time from `c[0x0][0x2c]`, or (`dynamic` given: `demote --grow-dynamic`, whose
/// launches add the region to the dynamic size) that size fixed — so a launch that does not add
/// the region's bytes puts the region outside the block's shared memory, a fault, rather than
/// over the kernel's own dynamic data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegionBase {
    /// The end of the static area (at least 0x400 on sm_90).
    pub start: u32,
    /// The dynamic size, when fixed.
    pub dynamic: Option<u32>,
}

impl From<u32> for RegionBase {
    fn from(start: u32) -> RegionBase {
        RegionBase {
            start,
            dynamic: None,
        }
    }
}

/// The prologue: `R1 = align4(region_start + c[0x0][0x2c]) + 4·t` (with a fixed dynamic size,
/// `align4(region_start + D)`) with `t` the linear thread index `tid.x + ntid.x·(tid.y +
/// ntid.y·tid.z)`; on sm_90 also `+ (SR_CgaCtaId << 24)`, the block's rank in its cluster, which
/// ptxas puts in every shared address it forms there.
pub fn prologue(arch: Arch, base: RegionBase) -> Result<Vec<Instruction>, IsaError> {
    let [tx, ty, tz, ny, nx, cga] = SCRATCH;
    let first_use = Control {
        wait: 0b11,
        ..alu(ALU_STALL)
    };
    let hopper = arch.sm() >= 90;
    let mut p = vec![
        encode::s2r(arch, tx, SpecialReg::TidX, variable(0))?,
        encode::s2r(arch, ty, SpecialReg::TidY, variable(0))?,
        encode::s2r(arch, tz, SpecialReg::TidZ, variable(0))?,
    ];
    if hopper {
        p.push(encode::s2r(arch, cga, SpecialReg::CgaCtaId, variable(0))?);
    }
    p.extend([
        encode::ldc(arch, ny, (0, 0x4), variable(1))?,
        encode::ldc(arch, nx, (0, 0x0), variable(1))?,
        // Two cycles before the first wait on its scoreboard (ptxas never waits sooner).
        encode::ldc(
            arch,
            SP,
            (0, 0x2c),
            Control {
                stall: 2,
                ..variable(1)
            },
        )?,
        // ty = tid.y + ntid.y·tid.z; ty = tid.x + ntid.x·ty
        encode::imad(arch, ty, tz, ny, ty, first_use)?,
        encode::imad(arch, ty, ty, nx, tx, alu(ALU_STALL))?,
        // R1 = (start + D + 3) & !3 (a fixed D: the loaded value is dead, the add reads RZ;
        // the IMAD above waited for the load, so it cannot land after this write)
        match base.dynamic {
            None => encode::iadd3_imm(arch, SP, SP, base.start + 3, RZ as u32, alu(ALU_STALL))?,
            Some(d) => encode::iadd3_imm(
                arch,
                SP,
                RZ as u32,
                base.start.wrapping_add(d).wrapping_add(3),
                RZ as u32,
                alu(ALU_STALL),
            )?,
        },
        encode::mov_imm(arch, tz, !3u32, alu(ALU_STALL))?,
        encode::lop3(arch, SP, SP, tz, RZ as u32, 0xc0, alu(ALU_STALL))?,
    ]);
    if hopper {
        // R1 += cga << 24
        p.push(encode::lea(arch, SP, cga, SP, 24, alu(ALU_STALL))?);
    }
    // R1 += 4·t
    p.push(encode::lea(arch, SP, ty, SP, 2, alu(15))?);
    Ok(p)
}

/// What moves: the whole frame, or part of it ([`super::split`]) with the rest addressed
/// through a uniform register.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Move {
    /// Every access to shared memory.
    Whole(SharedFrame),
    /// The split's shared words to shared memory, the others to the new frame at `URk`.
    Part {
        /// Where each word goes.
        split: Split,
        /// The uniform register that holds the new frame's address.
        uniform_sp: u32,
    },
}

impl Move {
    /// The shared region.
    pub fn shared(&self) -> &SharedFrame {
        match self {
            Move::Whole(l) => l,
            Move::Part { split, .. } => &split.shared,
        }
    }

    /// Bytes of local memory left per thread.
    pub fn local_bytes(&self) -> u32 {
        match self {
            Move::Whole(_) => 0,
            Move::Part { split, .. } => split.local_bytes,
        }
    }

    fn place(&self, a: &LocalAccess) -> Placement {
        match self {
            Move::Whole(l) => Placement::Shared(l.pieces(a)),
            Move::Part { split, .. } => split.place(a),
        }
    }
}

/// The frame that stays, rebuilt in a uniform register after the prologue:
/// `ULDC URk, c[0x0][0x28]; UIADD3 URk, URk, -size, URZ` (ptxas's own set-up, in the uniform
/// datapath).
fn uniform_frame(arch: Arch, uniform_sp: u32, bytes: u32) -> Result<Vec<Instruction>, IsaError> {
    Ok(vec![
        encode::uldc(arch, uniform_sp, (0, 0x28), alu(ALU_STALL))?,
        encode::uiadd3_imm(
            arch,
            uniform_sp,
            uniform_sp,
            bytes.wrapping_neg(),
            alu(ALU_STALL),
        )?,
    ])
}

/// The instructions that replace access `a`: shared pieces, or the access at its new offset
/// through the uniform register, with the original's guard and scoreboards.
fn replacement(arch: Arch, a: &LocalAccess, how: &Move) -> Result<Vec<Instruction>, IsaError> {
    let control = |k: usize| Control {
        reuse: 0,
        wait: if k == 0 { a.control.wait } else { 0 },
        ..a.control
    };
    match how.place(a) {
        Placement::Shared(pieces) => pieces
            .into_iter()
            .enumerate()
            .map(|(k, p)| {
                if a.store {
                    encode::sts(arch, SP, p.offset, p.data, p.width, control(k), a.guard)
                } else {
                    encode::lds(arch, p.data, SP, p.offset, p.width, control(k), a.guard)
                }
            })
            .collect(),
        Placement::Local(offset) => {
            let Move::Part { uniform_sp, .. } = how else {
                unreachable!("a whole move places every access in shared memory")
            };
            let rz = RZ as u32;
            Ok(vec![if a.store {
                encode::stl_ur(
                    arch,
                    rz,
                    *uniform_sp,
                    offset,
                    a.data,
                    a.width,
                    control(0),
                    a.guard,
                )?
            } else {
                encode::ldl_ur(
                    arch,
                    a.data,
                    rz,
                    *uniform_sp,
                    offset,
                    a.width,
                    control(0),
                    a.guard,
                )?
            }])
        }
    }
}

/// Makes the edits on `ed`: the prologue before the first instruction, the stack set-up
/// removed, every access of `frame` replaced as `how` places it. Returns the accesses replaced.
pub fn apply(
    ed: &mut Editor,
    frame: &Frame,
    how: &Move,
    region_start: RegionBase,
) -> Result<usize, EditError> {
    let arch = ed.arch;
    let kernel = ed.function.name.clone();
    let unsupported = |reason: String| EditError::Unsupported {
        kernel: kernel.clone(),
        reason,
    };
    let mut pro = prologue(arch, region_start).map_err(|e| unsupported(e.to_string()))?;
    if let Move::Part { uniform_sp, split } = how {
        pro.extend(
            uniform_frame(arch, *uniform_sp, split.local_bytes)
                .map_err(|e| unsupported(e.to_string()))?,
        );
    }
    ed.insert_before(0, pro)?;
    ed.remove(frame.sp_def)?;
    ed.remove(frame.alloc)?;
    for a in &frame.accesses {
        let mut insts = replacement(arch, a, how).map_err(|e| unsupported(e.to_string()))?;
        if let Some(i) = insts.iter().find(|i| !i.is_known()) {
            return Err(unsupported(format!(
                "the replacement of the access at {:#x} ({}) is not a form the decoder knows",
                a.index * 16,
                i.mnemonic()
            )));
        }
        let rest = insts.split_off(1);
        ed.replace(a.index, insts.remove(0))?;
        if !rest.is_empty() {
            ed.insert_after(a.index, rest)?;
        }
    }
    Ok(frame.accesses.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sass::isa::RegFile;

    #[test]
    fn prologue_writes_r1_and_only_scratch_registers() {
        for arch in Arch::ALL {
            let p = prologue(arch, 0x400.into()).unwrap();
            assert!(
                p.iter().all(|i| i.is_known()),
                "{arch}: unknown prologue form"
            );
            let mut written = std::collections::BTreeSet::new();
            for i in &p {
                written.extend(i.def_use().writes.iter(RegFile::Gpr));
            }
            let allowed: Vec<u32> = SCRATCH.iter().copied().chain([SP]).collect();
            assert!(written.iter().all(|r| allowed.contains(r)), "{written:?}");
            assert!(p.iter().all(|i| i.control.is_valid()));
        }
    }
}
