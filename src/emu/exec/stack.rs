//! The dynamic stack of the PTX emulator: `alloca`, `stacksave` and `stackrestore` (PTX ISA 7.3,
//! "Stack manipulation instructions").
//!
//! A warp's lanes share one stack pointer (`local_top`, which calls also move: each lane's
//! local memory holds the frames of the calls it is in, at the same offsets for every lane).
//! `alloca` therefore takes the largest size any executing lane asks for, so every lane gets
//! at least its own size at one local address; the PTX ISA leaves where the memory lies to the
//! implementation, and a program can tell only through the addresses. `stackrestore` needs one
//! value on every executing lane (the value `stacksave` gave): lanes that restore different
//! pointers would need a stack each, which this model does not have, and are an error.
//! Memory `alloca` gave is freed by `stackrestore` below it and by the return of its function
//! (`ret` resets the stack pointer to the frame's base); accesses above the stack pointer fault.

use super::{concrete, lanes, rd, Env, Step, Stop};
use crate::emu::decode::{DInst, Src};
use crate::emu::domain::Domain;

/// What the stack instructions read and change.
pub(super) struct StackView<'a, D: Domain> {
    pub dom: &'a mut D,
    pub regs: &'a mut [D::Val],
    pub env: &'a Env<'a>,
    pub active: u32,
    /// Every lane's local memory.
    pub local: &'a mut [Vec<u8>],
    /// The warp's stack pointer (bytes from the start of each lane's local memory).
    pub local_top: &'a mut u64,
    /// The current frame's base: the lowest pointer `stackrestore` may set.
    pub frame_base: u64,
    /// The most local memory per thread.
    pub max_local_bytes: u64,
}

/// Executes `alloca`, `stacksave` or `stackrestore`.
pub(super) fn exec<D: Domain>(v: StackView<'_, D>, kind: &DInst) -> Step<()> {
    match kind {
        DInst::Alloca { d, size, align } => alloca(v, *d, *size, *align),
        DInst::StackSave { d } => {
            let top = *v.local_top;
            write(v.dom, v.regs, *d, v.active, top);
            Ok(())
        }
        DInst::StackRestore { a } => restore(v, *a),
        other => Err(super::misrouted("stack", other)),
    }
}

fn alloca<D: Domain>(v: StackView<'_, D>, d: u32, size: Src, align: u64) -> Step<()> {
    let mut bytes = 0u64;
    for lane in lanes(v.active) {
        let s = rd(v.dom, v.regs, size, lane, v.env)?;
        bytes = bytes.max(concrete(v.dom, &s, "alloca size")?);
    }
    let base = v.local_top.next_multiple_of(align);
    let top = base.saturating_add(bytes);
    if top > v.max_local_bytes {
        return Err(Stop::Limit(format!(
            "local memory limit of {} bytes per thread reached (alloca of {bytes} bytes)",
            v.max_local_bytes
        )));
    }
    for lane in lanes(v.active) {
        if v.local[lane].len() < top as usize {
            v.local[lane].resize(top as usize, 0);
        }
    }
    *v.local_top = top;
    write(v.dom, v.regs, d, v.active, base);
    Ok(())
}

fn restore<D: Domain>(v: StackView<'_, D>, a: Src) -> Step<()> {
    let mut to = None;
    for lane in lanes(v.active) {
        let x = rd(v.dom, v.regs, a, lane, v.env)?;
        let x = concrete(v.dom, &x, "stackrestore pointer")?;
        match to {
            Some(t) if t != x => {
                return Err(Stop::Unsupported(format!(
                    "stackrestore of different stack pointers on one warp ({t:#x} and {x:#x})"
                )))
            }
            _ => to = Some(x),
        }
    }
    let Some(to) = to else { return Ok(()) };
    if to < v.frame_base || to > v.max_local_bytes {
        return Err(Stop::Fault(
            format!(
                "stackrestore to {to:#x}, outside the function's stack (its frame starts at {:#x})",
                v.frame_base
            ),
            None,
        ));
    }
    *v.local_top = to;
    Ok(())
}

fn write<D: Domain>(dom: &mut D, regs: &mut [D::Val], d: u32, active: u32, value: u64) {
    for lane in lanes(active) {
        regs[d as usize * 32 + lane] = dom.lit(value);
    }
}
