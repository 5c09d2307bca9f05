//! Memory accesses of the PTX interpreter ([`super`]): the memory one warp-instruction can reach
//! ([`MemView`]: global memory, the CTA's shared memory, the lanes' local memory, the constant
//! bank, the kernel's and the frame's parameters), and the plain accesses through it — `ld` and
//! `st` (PTX ISA §9.7.9.8–9; a vector element by element, its first element checked against the
//! whole vector's alignment) and `atom`/`red` (§9.7.13.5–6) — one lane after another in
//! increasing lane order, which is how racing stores and atomics of one warp-instruction resolve.

use super::misrouted;
use super::{addr_value, check_writable, lanes, locate, rd, region_bytes, Lanes, Step, Stop};
use crate::emu::decode::{Addr, AtomKind, DInst, Src};
use crate::emu::domain::{Cmp, Domain, MemAt, Op};
use crate::emu::memory::{GlobalMem, Region};

/// The memory a warp-instruction can reach, borrowed from the machine, the CTA and the frame.
pub(super) struct MemView<'a> {
    pub global: &'a mut GlobalMem,
    pub shared: &'a mut [u8],
    pub local: &'a mut [Vec<u8>],
    pub local_top: u64,
    pub const_bank: &'a mut [u8],
    pub kparams: &'a mut [u8],
    pub fparams: &'a mut [u8],
    pub psize: u32,
}

impl MemView<'_> {
    /// Resolves and checks an access of `size` bytes at `at`, aligned to `align`.
    pub(super) fn locate(
        &self,
        addr: &Addr,
        at: u64,
        size: u32,
        align: u32,
        lane: usize,
    ) -> Step<(Region, u64)> {
        locate(
            self.global,
            self.shared,
            self.local,
            self.local_top,
            self.const_bank,
            self.kparams,
            self.psize,
            addr,
            at,
            size,
            align,
            lane,
        )
        .map_err(|f| Stop::Fault(f.to_string(), Some(lane)))
    }

    fn bytes(&mut self, region: Region, off: u64, size: u32) -> &mut [u8] {
        region_bytes(
            self.global,
            self.shared,
            self.local,
            self.const_bank,
            self.kparams,
            self.fparams,
            self.psize,
            region,
            off,
            size,
        )
    }

    pub(super) fn load<D: Domain>(
        &mut self,
        dom: &mut D,
        region: Region,
        offset: u64,
        size: u32,
    ) -> D::Val {
        let at = MemAt {
            region,
            offset,
            size,
        };
        dom.load(at, self.bytes(region, offset, size))
    }

    pub(super) fn store<D: Domain>(
        &mut self,
        dom: &mut D,
        region: Region,
        offset: u64,
        v: &D::Val,
        size: u32,
        lane: usize,
    ) -> Step<()> {
        let at = MemAt {
            region,
            offset,
            size,
        };
        dom.store(at, v, self.bytes(region, offset, size))
            .map_err(|e| Stop::Domain(e, Some(lane)))
    }
}

/// Executes `ld`, `st` or `atom`/`red` (`step` routes only those here); returns how many of
/// the accesses read global memory.
pub(super) fn exec<D: Domain>(l: Lanes<'_, '_, D>, mem: &mut MemView, kind: &DInst) -> Step<u64> {
    match kind {
        DInst::Ld {
            size,
            ext,
            dsts,
            addr,
        } => load(l, mem, (size, ext), dsts, addr),
        DInst::St { size, srcs, addr } => store(l, mem, size, srcs, addr).map(|()| 0),
        DInst::Atom {
            kind,
            size,
            d,
            addr,
            b,
            c,
        } => atomic(l, mem, (kind, size), d, addr, (b, c)).map(|()| 0),
        other => Err(misrouted("a memory access", other)),
    }
}

/// `ld`: each lane's `dsts.len()` elements of `size` bytes (`ext` widening each); returns how
/// many of the accesses read global memory.
fn load<D: Domain>(
    l: Lanes<'_, '_, D>,
    mem: &mut MemView,
    (size, ext): (&u32, &Option<Op>),
    dsts: &[Option<u32>],
    addr: &Addr,
) -> Step<u64> {
    let Lanes {
        dom,
        regs,
        env,
        active,
        ..
    } = l;
    let n = dsts.len() as u32;
    let mut global = 0;
    for lane in lanes(active) {
        let a0 = addr_value(dom, regs, addr, lane, env)?;
        for (k, dst) in dsts.iter().enumerate() {
            let at = a0.wrapping_add(k as u64 * u64::from(*size));
            let align = if k == 0 { size * n } else { *size };
            let (region, off) = mem.locate(addr, at, *size, align, lane)?;
            if matches!(region, Region::Global(_)) {
                global += 1;
            }
            let mut v = mem.load(dom, region, off, *size);
            if let Some(e) = ext {
                v = dom.apply(*e, &[v])?;
            }
            if let Some(dst) = dst {
                regs[*dst as usize * 32 + lane] = v;
            }
        }
    }
    Ok(global)
}

/// `st`: each lane's `srcs.len()` elements of `size` bytes.
fn store<D: Domain>(
    l: Lanes<'_, '_, D>,
    mem: &mut MemView,
    size: &u32,
    srcs: &[Src],
    addr: &Addr,
) -> Step<()> {
    let Lanes {
        dom,
        regs,
        env,
        active,
        ..
    } = l;
    let n = srcs.len() as u32;
    for lane in lanes(active) {
        let a0 = addr_value(dom, regs, addr, lane, env)?;
        for (k, src) in srcs.iter().enumerate() {
            let v = rd(dom, regs, *src, lane, env)?;
            let at = a0.wrapping_add(k as u64 * u64::from(*size));
            let align = if k == 0 { size * n } else { *size };
            let (region, off) = mem.locate(addr, at, *size, align, lane)?;
            check_writable(region, addr.space, at)
                .map_err(|f| Stop::Fault(f.to_string(), Some(lane)))?;
            mem.store(dom, region, off, &v, *size, lane)?;
        }
    }
    Ok(())
}

/// `atom`/`red`: per lane, the old value (into `d`, if any) and `kind`'s new one.
fn atomic<D: Domain>(
    l: Lanes<'_, '_, D>,
    mem: &mut MemView,
    (kind, size): (&AtomKind, &u32),
    d: &Option<u32>,
    addr: &Addr,
    (b, c): (&Src, &Option<Src>),
) -> Step<()> {
    let Lanes {
        dom,
        regs,
        env,
        active,
        ..
    } = l;
    for lane in lanes(active) {
        let at = addr_value(dom, regs, addr, lane, env)?;
        let (region, off) = mem.locate(addr, at, *size, *size, lane)?;
        check_writable(region, addr.space, at)
            .map_err(|f| Stop::Fault(f.to_string(), Some(lane)))?;
        let old = mem.load(dom, region, off, *size);
        let bv = rd(dom, regs, *b, lane, env)?;
        let new = match kind {
            AtomKind::Op(op) => dom.apply(*op, &[old.clone(), bv])?,
            AtomKind::Exch => bv,
            AtomKind::Cas => {
                let cv = rd(dom, regs, c.unwrap_or(Src::Imm(0)), lane, env)?;
                let eq = dom.apply(
                    Op::CmpI {
                        cmp: Cmp::Eq,
                        bits: size * 8,
                        signed: false,
                    },
                    &[old.clone(), bv],
                )?;
                dom.apply(Op::Select, &[cv, old.clone(), eq])?
            }
        };
        mem.store(dom, region, off, &new, *size, lane)?;
        if let Some(d) = d {
            regs[*d as usize * 32 + lane] = old;
        }
    }
    Ok(())
}
