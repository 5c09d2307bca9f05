//! Memory accesses of the PTX interpreter ([`super`]): the memory one warp-instruction can reach
//! ([`MemView`]: global memory, the CTA's shared memory, the lanes' local memory, the constant
//! bank, the kernel's and the frame's parameters), and the plain accesses through it — `ld` and
//! `st` (PTX ISA §9.7.9.8–9; a vector element by element, its first element checked against the
//! whole vector's alignment) and `atom`/`red` (§9.7.13.5–6) — one lane after another in
//! increasing lane order, which is how racing stores and atomics of one warp-instruction resolve.

use super::mbarrier::complete_tx;
use super::misrouted;
use super::{addr_value, check_writable, lanes, rd, Lanes, Step, Stop};
use crate::emu::decode::{ABase, Addr, AtomKind, DInst, Src};
use crate::emu::domain::{Cmp, Domain, MemAt, Op, Space};
use crate::emu::memory::{
    check_range, classify_generic, split_cluster_shared, Fault, GlobalMem, Region, WINDOW_SHIFT,
};

/// The memory a warp-instruction can reach, borrowed from the machine, the CTA and the frame.
pub(super) struct MemView<'a> {
    pub global: &'a mut GlobalMem,
    pub shared: &'a mut [u8],
    /// The shared memory of the cluster's CTAs by rank (the executing CTA's own slot is empty).
    pub peers: &'a mut [Vec<u8>],
    /// The executing CTA's rank in its cluster.
    pub rank: u32,
    pub local: &'a mut [Vec<u8>],
    pub local_top: u64,
    pub const_bank: &'a mut [u8],
    pub kparams: &'a mut [u8],
    pub fparams: &'a mut [u8],
    pub psize: u32,
}

impl MemView<'_> {
    /// Resolves and checks an access of `size` bytes at `at` (interpreted per `addr`), aligned
    /// to `align`.
    pub(super) fn locate(
        &self,
        addr: &Addr,
        at: u64,
        size: u32,
        align: u32,
        lane: usize,
    ) -> Step<(Region, u64)> {
        self.resolve(addr, at, size, align, lane)
            .map_err(|f| Stop::Fault(f.to_string(), Some(lane)))
    }

    fn resolve(
        &self,
        addr: &Addr,
        at: u64,
        size: u32,
        align: u32,
        lane: usize,
    ) -> Result<(Region, u64), Fault> {
        if let ABase::FParam(_) = addr.base {
            check_range(Space::Param, at, at, size, u64::from(self.psize))?;
            return Ok((Region::FrameParam(lane as u8), at));
        }
        let (space, a) = match addr.space {
            Space::Generic => classify_generic(at).ok_or_else(|| Fault::OutOfBounds {
                space: Space::Generic,
                addr: at,
                size,
                detail: if at < (1 << WINDOW_SHIFT) {
                    "not in any state space (a null or uninitialised pointer?)".into()
                } else {
                    "not in any state space window".into()
                },
            })?,
            s => (s, at),
        };
        if align > size && a % u64::from(align) != 0 {
            return Err(Fault::Misaligned {
                space,
                addr: at,
                align,
            });
        }
        match space {
            Space::Global | Space::Generic => {
                let (i, off) = self.global.locate(a, size)?;
                Ok((Region::Global(i), off))
            }
            Space::Shared => match split_cluster_shared(a) {
                (Some(r), off) if r != self.rank => {
                    let len = self.peers.get(r as usize).map_or(0, |p| p.len());
                    check_range(space, a, off, size, len as u64)?;
                    Ok((Region::PeerShared(r as u8), off))
                }
                (_, off) => {
                    check_range(space, a, off, size, self.shared.len() as u64)?;
                    Ok((Region::Shared, off))
                }
            },
            Space::Local => {
                let len = self.local.get(lane).map_or(0, |v| v.len()) as u64;
                check_range(space, a, a, size, len.min(self.local_top))?;
                Ok((Region::Local(lane as u8), a))
            }
            Space::Const => {
                check_range(space, a, a, size, self.const_bank.len() as u64)?;
                Ok((Region::Const, a))
            }
            Space::Param => {
                check_range(space, a, a, size, self.kparams.len() as u64)?;
                Ok((Region::KernelParam, a))
            }
        }
    }

    /// The bytes of an access [`MemView::locate`] resolved (bounds already checked).
    fn bytes(&mut self, region: Region, off: u64, size: u32) -> &mut [u8] {
        let (o, n) = (off as usize, size as usize);
        match region {
            Region::Global(i) => &mut self.global.allocs[i as usize].data[o..o + n],
            Region::Shared => &mut self.shared[o..o + n],
            Region::PeerShared(r) => &mut self.peers[r as usize][o..o + n],
            Region::Local(l) => &mut self.local[l as usize][o..o + n],
            Region::Const => &mut self.const_bank[o..o + n],
            Region::KernelParam => &mut self.kparams[o..o + n],
            Region::FrameParam(l) => {
                let s = l as usize * self.psize as usize + o;
                &mut self.fparams[s..s + n]
            }
        }
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
        DInst::St {
            size,
            srcs,
            addr,
            mbar,
        } => store(l, mem, size, srcs, (addr, mbar.as_ref())).map(|()| 0),
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
/// `st` (and `st.async`, whose bytes then complete on its mbarrier, lane by lane).
fn store<D: Domain>(
    l: Lanes<'_, '_, D>,
    mem: &mut MemView,
    size: &u32,
    srcs: &[Src],
    (addr, mbar): (&Addr, Option<&Addr>),
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
            check_writable(region, at, lane)?;
            mem.store(dom, region, off, &v, *size, lane)?;
        }
        if let Some(m) = mbar {
            complete_tx(dom, regs, mem, env, m, lane, u64::from(size * n))?;
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
        check_writable(region, at, lane)?;
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
