//! Calls in the PTX interpreter ([`super`]; PTX ISA §9.7.12.2 `call`): the lanes that call are
//! grouped by target (an indirect call with several targets runs once per target, all
//! reconverging after the call), and a frame is pushed with the callee's registers, its `.param`
//! slots filled from the arguments, and its `.local` frame on each calling lane's local stack.
//! `vprintf` is accepted and returns 0; other functions without a body are refused. The return
//! (`ret`, copying the results back) is `Machine::finish_frame`'s.

use super::{
    concrete, diverge, lanes, rd, set_top_pc, Entry, Env, Frame, Limits, Step, Stop, CODE_BASE,
    WINDOW_SHIFT,
};
use crate::emu::decode::{CallArg, CallRet, Callee, DFunc, Program, NO_RPC};
use crate::emu::domain::{Domain, MemAt};
use crate::emu::memory::Region;

/// What a `call` reads and changes: the warp's frames and local stacks.
pub(super) struct Caller<'a, 'e, D: Domain> {
    pub dom: &'a mut D,
    pub frames: &'a mut Vec<Frame<D::Val>>,
    pub local: &'a mut [Vec<u8>],
    pub local_top: &'a mut u64,
    pub env: &'a Env<'e>,
    /// The calling frame's top SIMT stack entry.
    pub top: Entry,
    /// The lanes whose guard holds.
    pub active: u32,
    /// The lanes of `top` that have not exited.
    pub live: u32,
}

/// `call`: pushes the callee's frame for the calling lanes (or serialises several targets).
pub(super) fn call<D: Domain>(
    c: Caller<'_, '_, D>,
    prog: &Program,
    limits: &Limits,
    (callee, args, rets): (&Callee, &[CallArg], &[CallRet]),
) -> Step<()> {
    let Caller {
        dom,
        frames,
        local,
        local_top,
        env,
        top,
        active,
        live,
    } = c;
    let frames_len = frames.len() as u32;
    let Some(frame) = frames.last_mut() else {
        return Err(Stop::Limit("internal: a call without a frame".into()));
    };
    let regs = &frame.regs;
    if active == 0 {
        set_top_pc(&mut frame.stack, top.pc + 1);
        return Ok(());
    }
    let groups = targets(dom, regs, env, prog, callee, active)?;
    if groups.len() > 1 {
        // Serialise the targets: one entry per target re-executes this call with a
        // uniform callee; all reconverge after the call.
        let paths: Vec<(u32, u32)> = groups.iter().rev().map(|g| (top.pc, g.1)).collect();
        diverge(&mut frame.stack, &paths, top.pc + 1, live);
        return Ok(());
    }
    let (target, mask) = groups[0];
    let callee_f = &prog.funcs[target as usize];
    if !callee_f.has_body {
        external(callee_f, rets, mask, frame)?;
        set_top_pc(&mut frame.stack, top.pc + 1);
        return Ok(());
    }
    if frames_len >= limits.max_call_depth {
        return Err(Stop::Limit(format!(
            "call depth limit of {} frames reached (unbounded recursion?)",
            limits.max_call_depth
        )));
    }
    let new_top = *local_top + callee_f.local_size;
    if new_top > limits.max_local_bytes {
        return Err(Stop::Limit(format!(
            "local memory limit of {} bytes per thread reached",
            limits.max_local_bytes
        )));
    }
    for lane in lanes(mask) {
        if local[lane].len() < new_top as usize {
            local[lane].resize(new_top as usize, 0);
        }
    }
    let psize = callee_f.param_size;
    let (params, cregs) = arguments(dom, env, callee_f, args, mask, frame)?;
    let callee_frame = Frame {
        func: target,
        regs: cregs,
        stack: vec![Entry {
            pc: 0,
            rpc: NO_RPC,
            mask,
            blocked: 0,
        }],
        params,
        psize,
        local_base: *local_top,
        call_mask: mask,
    };
    *local_top = new_top;
    frames.push(callee_frame);
    Ok(())
}

/// The calling lanes grouped by the function they call, in order of first appearance.
fn targets<D: Domain>(
    dom: &mut D,
    regs: &[D::Val],
    env: &Env,
    prog: &Program,
    callee: &Callee,
    active: u32,
) -> Step<Vec<(u32, u32)>> {
    let mut groups: Vec<(u32, u32)> = Vec::new();
    match callee {
        Callee::Direct(f) => groups.push((*f, active)),
        Callee::Indirect(src) => {
            for lane in lanes(active) {
                let v = rd(dom, regs, *src, lane, env)?;
                let a = concrete(dom, &v, "call target")?;
                let fi = a.wrapping_sub(CODE_BASE) / 16;
                if a >> WINDOW_SHIFT != CODE_BASE >> WINDOW_SHIFT
                    || a % 16 != 0
                    || fi as usize >= prog.funcs.len()
                {
                    return Err(Stop::Fault(
                        format!("indirect call to {a:#x}, which is no function"),
                        Some(lane),
                    ));
                }
                let fi = fi as u32;
                match groups.iter_mut().find(|g| g.0 == fi) {
                    Some(g) => g.1 |= 1 << lane,
                    None => groups.push((fi, 1 << lane)),
                }
            }
        }
    }
    Ok(groups)
}

/// A call to a function without a body: `vprintf` prints nothing and returns 0; any other is
/// refused.
fn external<V>(callee_f: &DFunc, rets: &[CallRet], mask: u32, frame: &mut Frame<V>) -> Step<()> {
    if callee_f.name != "vprintf" {
        return Err(Stop::Unsupported(format!(
            "call to external function `{}` (no body in the module)",
            callee_f.name
        )));
    }
    for r in rets {
        if let CallRet::Slot(off, size) = r {
            for lane in lanes(mask) {
                let s = lane * frame.psize as usize + *off as usize;
                if let Some(b) = frame.params.get_mut(s..s + *size as usize) {
                    b.fill(0);
                }
            }
        }
    }
    Ok(())
}

/// The callee's `.param` bytes and registers, per calling lane (`mask`), filled from the caller's
/// arguments: `.param` slots copied, values stored (or put in the callee's parameter register,
/// where it keeps one).
fn arguments<D: Domain>(
    dom: &mut D,
    env: &Env,
    callee_f: &DFunc,
    args: &[CallArg],
    mask: u32,
    frame: &Frame<D::Val>,
) -> Step<(Vec<u8>, Vec<D::Val>)> {
    let regs = &frame.regs;
    let psize = callee_f.param_size;
    let mut params = vec![0u8; psize as usize * 32];
    let undef = dom.undef();
    let mut cregs = vec![undef; callee_f.nregs as usize * 32];
    for (i, slot) in callee_f.params.iter().enumerate() {
        let Some(arg) = args.get(i) else { break };
        for lane in lanes(mask) {
            let dst = lane * psize as usize + slot.offset as usize;
            let n = (slot.size as usize).min(8);
            let at = MemAt {
                region: Region::FrameParam(lane as u8),
                offset: u64::from(slot.offset),
                size: n as u32,
            };
            match (arg, slot.reg) {
                (CallArg::Slot(off, size), None) => {
                    let n = (*size).min(slot.size) as usize;
                    let src = lane * frame.psize as usize + *off as usize;
                    if let (Some(s), true) =
                        (frame.params.get(src..src + n), dst + n <= params.len())
                    {
                        params[dst..dst + n].copy_from_slice(s);
                    }
                }
                (CallArg::Value(src), None) => {
                    let v = rd(dom, regs, *src, lane, env)?;
                    dom.store(at, &v, &mut params[dst..dst + n])?;
                }
                (CallArg::Value(src), Some(r)) => {
                    cregs[r as usize * 32 + lane] = rd(dom, regs, *src, lane, env)?;
                }
                (CallArg::Slot(off, size), Some(r)) => {
                    let src = lane * frame.psize as usize + *off as usize;
                    let n = (*size as usize).min(8);
                    if let Some(b) = frame.params.get(src..src + n) {
                        cregs[r as usize * 32 + lane] = dom.load(at, b);
                    }
                }
            }
        }
    }
    Ok((params, cregs))
}
