//! Asynchronous global → shared copies: `LDGSTS` (`cp.async`, PTX ISA §9.7.9.25), `LDGDEPBAR`
//! (`cp.async.commit_group`) and `DEPBAR.LE SB0, n` (`cp.async.wait_group n`), with the PTX
//! emulator's completion model (docs/emulator.md, "Tensor cores and asynchronous copies").
//!
//! A copy is checked when it is issued (shared destination in bounds and aligned to the copy
//! size, global source readable for the bytes it reads) and queued per thread; `LDGDEPBAR` closes
//! the thread's current group; `DEPBAR.LE SB0, n` performs, in issue order, the copies of every
//! committed group except the `n` most recent. A copy reads its source when it is performed, so a
//! program (or a rewrite) that reads the destination before the wait sees the old bytes, as it
//! would on a GPU that has not finished yet. Copies never waited for die with their warp.
//!
//! Encodings (read off ptxas 12.9 for `cp.async` with and without `src-size`/`ignore-src`):
//! `LDGSTS.E[.BYPASS][.64|.128] [Rs+off], [Rg.64+off]{, P}`: without `P` the whole copy; with
//! `P` false every byte is zero (`src-size` 0). `.ZFILL` (a `src-size` register) adds
//! `(size − src-size) mod size` to the source address: its low bits count the bytes zero-filled
//! at the end, the source is the address with those bits cleared.

use super::*;

/// One queued copy.
#[derive(Clone, Copy, Debug)]
struct Copy {
    /// Shared-memory destination offset.
    dst: u32,
    /// Global source address.
    src: u64,
    /// Bytes written (4, 8, 16).
    bytes: u8,
    /// Bytes read from the source (the rest is zero).
    read: u8,
    /// The group it joins: the thread's commit count when it was issued.
    group: u32,
}

/// The copies in flight of one warp's threads.
#[derive(Clone, Debug, Default)]
pub(crate) struct Queue {
    /// Per lane: queued copies in issue order.
    copies: Vec<Vec<Copy>>,
    /// Per lane: groups committed so far.
    commits: [u32; 32],
}

impl Machine<'_> {
    /// `LDGSTS`, `LDGDEPBAR`, `DEPBAR.LE SB0, n` for the lanes `exec`.
    pub(super) fn exec_async_copy(
        &mut self,
        i: &DInst,
        w: &mut Warp,
        exec: u32,
        shared: &mut [u8],
    ) -> Result<(), Stop> {
        match i.kind {
            Kind::Ldgsts { bytes, zfill } => self.ldgsts(i, w, exec, (bytes, zfill), shared.len()),
            Kind::Ldgdepbar => {
                for l in lanes(exec) {
                    w.copies.commits[l] += 1;
                }
                Ok(())
            }
            Kind::DepbarLdgsts => {
                let keep = match i.ops.get(1) {
                    Some(Opnd::Imm(n)) if (0..64).contains(n) => *n as u32,
                    _ => return Err(Stop::Msg("DEPBAR.LE SB0 count".into(), None)),
                };
                for l in lanes(exec) {
                    self.perform(w, l, keep, shared)
                        .map_err(|m| Stop::Fault(m, Some(l)))?;
                }
                Ok(())
            }
            _ => Err(Stop::Msg("not an asynchronous copy".into(), None)),
        }
    }

    fn ldgsts(
        &mut self,
        i: &DInst,
        w: &mut Warp,
        exec: u32,
        (bytes, zfill): (u32, bool),
        shared_len: usize,
    ) -> Result<(), Stop> {
        let (Some(Opnd::Mem(d)), Some(Opnd::Mem(s))) = (i.ops.first(), i.ops.get(1)) else {
            return Err(Stop::Msg("LDGSTS operands".into(), None));
        };
        let cond = i.ops.get(2);
        let mut addrs = [0u64; 32];
        for l in lanes(exec) {
            let raw = self.addr(w, l, d, Space::Shared);
            let (_, dst) = self
                .locate(w, l, Space::Shared, raw, bytes, shared_len)
                .map_err(|m| Stop::Fault(m, Some(l)))?;
            let mut src = self.addr(w, l, s, Space::Global);
            let mut read = bytes;
            if zfill {
                read = bytes - (src % u64::from(bytes)) as u32;
                src -= src % u64::from(bytes);
            }
            if let Some(c) = cond {
                if !self.pred(w, l, c).map_err(|m| Stop::Msg(m, Some(l)))? {
                    read = 0;
                }
            }
            if read > 0 {
                self.locate(w, l, Space::Global, src, bytes, shared_len)
                    .and_then(|_| self.source(src, read))
                    .map_err(|m| Stop::Fault(m, Some(l)))?;
            }
            addrs[l] = src;
            if w.copies.copies.len() < 32 {
                w.copies.copies.resize(32, Vec::new());
            }
            let group = w.copies.commits[l];
            w.copies.copies[l].push(Copy {
                dst: dst as u32,
                src,
                bytes: bytes as u8,
                read: read as u8,
                group,
            });
        }
        self.access(Space::Global, &addrs, exec, bytes, true);
        Ok(())
    }

    /// The allocation and offset of `read` source bytes at `src` (aligned by the caller to the
    /// copy size, which a partial read need not be a multiple of).
    fn source(&self, src: u64, read: u32) -> R<(u32, u64)> {
        let (idx, off) = self.global.locate(src, 1).map_err(|f| f.to_string())?;
        let len = self.global.allocs[idx as usize].data.len() as u64;
        if off + u64::from(read) > len {
            return Err(format!(
                "out-of-bounds global read of {read} bytes at {src:#x} (LDGSTS source)"
            ));
        }
        Ok((idx, off))
    }

    /// Performs lane `l`'s copies of committed groups older than its `keep` most recent ones.
    fn perform(&mut self, w: &mut Warp, l: usize, keep: u32, shared: &mut [u8]) -> R<()> {
        let Some(q) = w.copies.copies.get_mut(l) else {
            return Ok(());
        };
        let limit = w.copies.commits[l].saturating_sub(keep);
        let (done, rest): (Vec<Copy>, Vec<Copy>) = q.drain(..).partition(|c| c.group < limit);
        *q = rest;
        for c in done {
            let mut buf = [0u8; 16];
            if c.read > 0 {
                let (idx, off) = self.source(c.src, u32::from(c.read))?;
                let data = &self.global.allocs[idx as usize].data;
                buf[..c.read as usize]
                    .copy_from_slice(&data[off as usize..off as usize + c.read as usize]);
            }
            let dst = c.dst as usize;
            shared[dst..dst + c.bytes as usize].copy_from_slice(&buf[..c.bytes as usize]);
        }
        Ok(())
    }
}
