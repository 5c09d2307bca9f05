//! sm_90's TMA and mbarrier instructions (PTX ISA §9.7.9.25.5.2 tensor copies, §9.7.13.15
//! mbarrier; the SASS forms are in `decode::decode_tma`): `ELECT`, `SYNCS.EXCH.64`
//! (`mbarrier.init`), `SYNCS.ARRIVE.TRANS64` (`arrive`, `arrive.expect_tx`, `expect_tx`),
//! `SYNCS.PHASECHK.TRANS64` (`test_wait`/`try_wait`), `SYNCS.CCTL.IV` (`inval`) and
//! `UTMALDG`/`UTMASTG` (`cp.async.bulk.tensor` tile mode).
//!
//! One engine with the PTX emulator: the mbarrier object is [`crate::emu::mbarrier::Mbar`] in
//! the emulator's encoding, the tensor map [`crate::emu::tensormap::TensorMap`] in the
//! emulator's encoding (a map the emulator did not write stops the run), the box walk and the
//! swizzle are the same functions. ptxas's code initialises an mbarrier by writing a word it
//! computes ([`crate::emu::mbarrier::ptxas_init_word`]); any other word stops the run.
//!
//! Operand conventions, read off ptxas 12.9 for copies of every rank with distinct constant
//! coordinates: `UTMALDG.<n>D [URa], [URb]` takes the shared destination in `URa`, the mbarrier in
//! `URa+1` and the coordinates (innermost first) in `URa+2` …; `UTMASTG.<n>D [URa], [URb]` the
//! shared source in `URa` and the coordinates in `URa+1` …; `URb` pair holds the tensor map's
//! generic address (Triton's `cvta.param` of a by-value map: `c[0x0][0x198]` plus the parameter's
//! offset, see `launch.rs`). A tensor copy is a uniform instruction: it runs once per warp when
//! its guard holds.
//!
//! **Copies complete when issued**, as in the PTX emulator: a load's bytes are in shared memory
//! and completed on its mbarrier at once, so `UTMACMDFLUSH` and the `DEPBAR.LE SB0` after a
//! store have nothing left to wait for. A `PHASECHK` whose phase has not completed does not run:
//! the warp waits before it (the scheduler asks [`Machine::mbar_blocked`]) until another warp's
//! arrival completes the phase, so a spinning `TRYWAIT` loop costs nothing, and warps that all
//! wait so are a deadlock.

use super::*;
use crate::emu::mbarrier::Mbar;
use crate::emu::tensormap::{box_address, TensorMap, MAP_BYTES};

use decode::Arrivals;

/// Operand `k` of `i`.
fn op(i: &DInst, k: usize) -> Result<&Opnd, Stop> {
    operand(&i.ops, k).map_err(|m| Stop::Msg(m, None))
}

/// The uniform register of a memory operand `[URx]` (no other register, no offset, not `URZ`).
fn mem_ureg(o: &Opnd) -> Option<u8> {
    match o {
        Opnd::Mem(Addr {
            reg: None,
            ureg: Some(u),
            off: 0,
            ..
        }) if *u != URZ => Some(*u),
        _ => None,
    }
}

/// The 64-bit mbarrier word at shared offset `at` (checked by [`Machine::shared_object`]).
fn mbar_word(shared: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(shared[at..at + 8].try_into().unwrap_or([0; 8]))
}

/// Writes `m` as the word at shared offset `at`.
fn put_mbar(shared: &mut [u8], at: usize, m: Mbar) {
    shared[at..at + 8].copy_from_slice(&m.encode().to_le_bytes());
}

impl Machine<'_> {
    /// `ELECT`, `SYNCS.*`, `UTMALDG`/`UTMASTG` for the lanes `exec`.
    pub(super) fn exec_tma(
        &mut self,
        i: &DInst,
        w: &mut Warp,
        exec: u32,
        shared: &mut [u8],
    ) -> Result<(), Stop> {
        match i.kind {
            Kind::Elect => self.elect(i, w, exec),
            Kind::MbarInit => self.mbar_init(i, w, exec, shared),
            Kind::MbarArrive { count, tx } => self.mbar_arrive(i, w, exec, (count, tx), shared),
            Kind::MbarTest => self.mbar_test(i, w, exec, shared),
            Kind::MbarInval => {
                for l in lanes(exec) {
                    let at = self.mbar_at(i, w, l, 0, shared.len())?;
                    shared[at..at + 8].fill(0);
                }
                Ok(())
            }
            Kind::Tma { rank, load } if exec != 0 => self.tensor_copy(i, w, rank, load, shared),
            Kind::BulkCopy { load } if exec != 0 => self.bulk_copy(i, w, load, shared),
            _ => Ok(()),
        }
    }

    /// Whether warp `w`'s next instruction at `pc` is a `PHASECHK` whose phase has not completed
    /// in some lane that executes it (the warp waits before it).
    pub(crate) fn mbar_blocked(&self, w: &Warp, pc: u32, act: u32, shared: &[u8]) -> bool {
        let Some(i) = self.code.get(pc as usize) else {
            return false;
        };
        if !matches!(i.kind, Kind::MbarTest) {
            return false;
        }
        lanes(guard_mask(w, i.guard, act))
            .any(|l| matches!(self.phase_done(i, w, l, shared), Ok(false)))
    }

    fn elect(&mut self, i: &DInst, w: &mut Warp, exec: u32) -> Result<(), Stop> {
        let Some(leader) = lanes(exec).next() else {
            return Ok(());
        };
        let (pd, ud) = (op(i, 0)?, op(i, 1)?);
        for l in lanes(exec) {
            self.wp(w, l, pd, l == leader)
                .map_err(|m| Stop::Msg(m, Some(l)))?;
        }
        self.wr(w, leader, ud, leader as u32)
            .map_err(|m| Stop::Msg(m, Some(leader)))
    }

    /// The shared-memory offset of the 8-byte mbarrier object that memory operand `k` names in
    /// lane `l` (aligned, in bounds).
    fn mbar_at(
        &self,
        i: &DInst,
        w: &Warp,
        l: usize,
        k: usize,
        shared_len: usize,
    ) -> Result<usize, Stop> {
        let Opnd::Mem(a) = op(i, k)? else {
            return Err(Stop::Msg("mbarrier operand is not an address".into(), None));
        };
        let raw = self.addr(w, l, a, Space::Shared);
        self.shared_object(w, l, raw, shared_len)
    }

    /// The offset of the mbarrier object at shared address `raw` (lane `l`).
    fn shared_object(
        &self,
        w: &Warp,
        l: usize,
        raw: u64,
        shared_len: usize,
    ) -> Result<usize, Stop> {
        let (_, off) = self
            .locate(w, l, Space::Shared, raw, 8, shared_len)
            .map_err(|m| Stop::Fault(format!("mbarrier object: {m}"), Some(l)))?;
        Ok(off as usize)
    }

    fn mbar_init(
        &mut self,
        i: &DInst,
        w: &mut Warp,
        exec: u32,
        shared: &mut [u8],
    ) -> Result<(), Stop> {
        let Opnd::Ur { n, .. } = op(i, 2)? else {
            return Err(Stop::Msg("SYNCS.EXCH.64 source".into(), None));
        };
        let word = ureg_pair(w, *n);
        for l in lanes(exec) {
            let at = self.mbar_at(i, w, l, 1, shared.len())?;
            let m = Mbar::from_ptxas_init(word).ok_or_else(|| {
                Stop::Fault(
                    format!(
                        "SYNCS.EXCH.64 writes {word:#x}, not the mbarrier initialisation word \
                         ptxas computes (the emulator models no other use)"
                    ),
                    Some(l),
                )
            })?;
            put_mbar(shared, at, m);
        }
        Ok(())
    }

    fn mbar_arrive(
        &mut self,
        i: &DInst,
        w: &mut Warp,
        exec: u32,
        (count, tx): (Arrivals, bool),
        shared: &mut [u8],
    ) -> Result<(), Stop> {
        let (d, s) = (op(i, 0)?.clone(), op(i, 2)?.clone());
        for l in lanes(exec) {
            let at = self.mbar_at(i, w, l, 1, shared.len())?;
            let arg = u64::from(self.rd(w, l, &s).map_err(|m| Stop::Msg(m, Some(l)))?);
            let old = mbar_word(shared, at);
            let mut m = Mbar::decode(old);
            let fault = |e: String| Stop::Fault(e, Some(l));
            if tx {
                m.tx(arg, 1).map_err(fault)?;
            }
            match count {
                Arrivals::Zero => {}
                Arrivals::One => m.arrive(1, false, false).map_err(fault)?,
                Arrivals::Reg => m.arrive(arg, false, false).map_err(fault)?,
            }
            put_mbar(shared, at, m);
            if matches!(d, Opnd::R { n, .. } if n != RZ) {
                self.wr64(w, l, &d, old)
                    .map_err(|m| Stop::Msg(m, Some(l)))?;
            }
        }
        Ok(())
    }

    /// Whether lane `l`'s `PHASECHK` finds its phase completed: the object's phase differs from
    /// bit 31 of the source (a state's high word, or a parity shifted there).
    fn phase_done(&self, i: &DInst, w: &Warp, l: usize, shared: &[u8]) -> Result<bool, Stop> {
        let at = self.mbar_at(i, w, l, 1, shared.len())?;
        let want = self
            .rd(w, l, op(i, 2)?)
            .map_err(|m| Stop::Msg(m, Some(l)))?;
        Ok(Mbar::decode(mbar_word(shared, at)).parity_done(u64::from(want >> 31)))
    }

    fn mbar_test(
        &mut self,
        i: &DInst,
        w: &mut Warp,
        exec: u32,
        shared: &mut [u8],
    ) -> Result<(), Stop> {
        let pd = op(i, 0)?;
        for l in lanes(exec) {
            let done = self.phase_done(i, w, l, shared)?;
            self.wp(w, l, pd, done).map_err(|m| Stop::Msg(m, Some(l)))?;
        }
        Ok(())
    }

    /// The tensor map at the address in uniform pair `n`: 128 bytes of global memory, 64-byte
    /// aligned, in the emulator's encoding.
    fn tensor_map(&self, w: &Warp, n: u8) -> Result<TensorMap, Stop> {
        let at = ureg_pair(w, n);
        if at % 64 != 0 {
            return Err(Stop::Fault(
                format!("tensor map at {at:#x} is not 64-byte aligned"),
                None,
            ));
        }
        let mut bytes = [0u8; MAP_BYTES];
        for (k, chunk) in bytes.chunks_exact_mut(8).enumerate() {
            let (idx, off) = self.global.locate(at + 8 * k as u64, 8).map_err(|f| {
                Stop::Fault(
                    format!("tensor map at {at:#x} (not a global or parameter address): {f}"),
                    None,
                )
            })?;
            let off = off as usize;
            chunk.copy_from_slice(&self.global.allocs[idx as usize].data[off..off + 8]);
        }
        TensorMap::decode(&bytes)
            .map_err(|e| Stop::Fault(format!("tensor map at {at:#x}: {e}"), None))
    }

    /// `UBLKCP`: `URc` 16-byte units between global memory (a `UR` pair) and shared memory,
    /// completed at once; a load completes its bytes on the mbarrier at `URa+1` (the operand
    /// convention of `UTMALDG`, read off ptxas 12.9: `cp.async.bulk` of 1024 and 2048 bytes
    /// gives `URc` 0x40 and 0x80).
    fn bulk_copy(
        &mut self,
        i: &DInst,
        w: &mut Warp,
        load: bool,
        shared: &mut [u8],
    ) -> Result<(), Stop> {
        let ur = |k: usize| {
            let o = op(i, k)?;
            match o {
                Opnd::Ur { n, .. } if *n != URZ => Some(*n),
                _ => mem_ureg(o),
            }
            .ok_or_else(|| {
                Stop::Msg(
                    format!("bulk copy operand {} is not a uniform register", k + 1),
                    None,
                )
            })
        };
        let (a, b, c) = (ur(0)?, ur(1)?, ur(2)?);
        let bytes = u64::from(ureg(w, c)) * 16;
        let (shared_at, global_at) = if load {
            (u64::from(ureg(w, a)), ureg_pair(w, b))
        } else {
            (u64::from(ureg(w, b)), ureg_pair(w, a))
        };
        if bytes == 0 || shared_at % 16 != 0 || global_at % 16 != 0 {
            return Err(Stop::Fault(
                format!(
                    "bulk copy of {bytes} bytes between shared {shared_at:#x} and global \
                     {global_at:#x}: the size and both addresses must be multiples of 16"
                ),
                None,
            ));
        }
        let len = shared.len();
        let (_, s) = self
            .locate(w, 0, Space::Shared, shared_at, 16, len)
            .map_err(|m| Stop::Fault(format!("bulk copy: {m}"), None))?;
        let s = s as usize;
        if s as u64 + bytes > len as u64 {
            return Err(Stop::Fault(
                format!("bulk copy: {bytes} bytes at shared {s:#x} pass the CTA's {len} bytes"),
                None,
            ));
        }
        let n = bytes as usize;
        let (idx, off) = self
            .global
            .locate(global_at, bytes as u32)
            .map_err(|f| Stop::Fault(format!("bulk copy: {f}"), None))?;
        let data = &mut self.global.allocs[idx as usize].data[off as usize..off as usize + n];
        if load {
            shared[s..s + n].copy_from_slice(data);
            self.complete_tx(w, a.wrapping_add(1), bytes, shared)?;
        } else {
            data.copy_from_slice(&shared[s..s + n]);
        }
        Ok(())
    }

    /// `UTMALDG`/`UTMASTG`: one box between global memory and shared memory.
    fn tensor_copy(
        &mut self,
        i: &DInst,
        w: &mut Warp,
        rank: u8,
        load: bool,
        shared: &mut [u8],
    ) -> Result<(), Stop> {
        let group = |k: usize| {
            mem_ureg(op(i, k)?).ok_or_else(|| {
                Stop::Msg(
                    format!("tensor copy operand {} is not a uniform register", k + 1),
                    None,
                )
            })
        };
        let (a, b) = (group(0)?, group(1)?);
        let map = self.tensor_map(w, b)?;
        if map.rank != usize::from(rank) {
            return Err(Stop::Fault(
                format!(
                    "a {rank}-dimensional copy through a tensor map of rank {}",
                    map.rank
                ),
                None,
            ));
        }
        let first = if load { 2 } else { 1 };
        let coords: Vec<i32> = (0..rank)
            .map(|k| ureg(w, a.wrapping_add(first + k)) as i32)
            .collect();
        let start = u64::from(ureg(w, a));
        if start % 128 != 0 {
            return Err(Stop::Fault(
                format!("tensor copy: shared-memory address {start:#x} is not 128-byte aligned"),
                None,
            ));
        }
        let size = map.elem_size;
        let fill = map.nan.unwrap_or(0).to_le_bytes();
        map.try_for_each_element(&coords, |offset, g| {
            let raw = box_address(map.swizzle, start, offset);
            let (_, s) = self
                .locate(w, 0, Space::Shared, raw, size, shared.len())
                .map_err(|m| Stop::Fault(format!("tensor copy: {m}"), None))?;
            let s = s as usize..s as usize + size as usize;
            let global = |at: u64, m: &Machine| {
                m.global
                    .locate(at, size)
                    .map(|(idx, off)| (idx as usize, off as usize))
                    .map_err(|f| Stop::Fault(format!("tensor copy: {f}"), None))
            };
            match (load, g) {
                (true, Some(at)) => {
                    let (idx, off) = global(at, self)?;
                    shared[s]
                        .copy_from_slice(&self.global.allocs[idx].data[off..off + size as usize]);
                }
                (true, None) => shared[s].copy_from_slice(&fill[..size as usize]),
                (false, Some(at)) => {
                    let (idx, off) = global(at, self)?;
                    self.global.allocs[idx].data[off..off + size as usize]
                        .copy_from_slice(&shared[s]);
                }
                (false, None) => {}
            }
            Ok(())
        })?;
        if load {
            self.complete_tx(w, a.wrapping_add(1), map.box_bytes(), shared)?;
        }
        Ok(())
    }

    /// Completes `bytes` transaction bytes of a copy on the mbarrier at the shared address in
    /// uniform register `u`.
    fn complete_tx(&self, w: &Warp, u: u8, bytes: u64, shared: &mut [u8]) -> Result<(), Stop> {
        let raw = u64::from(ureg(w, u));
        let at = self.shared_object(w, 0, raw, shared.len())?;
        let mut m = Mbar::decode(mbar_word(shared, at));
        m.tx(bytes, -1).map_err(|e| Stop::Fault(e, None))?;
        put_mbar(shared, at, m);
        Ok(())
    }
}
