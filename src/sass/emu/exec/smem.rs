//! The fast path of `LDS`/`STS` of whole registers (4, 8, 16 bytes): every executing lane's
//! offset is computed and checked first, then the words move without the per-lane address
//! classification of the general path (`ld`/`st` in exec.rs, which defines the semantics). When
//! any lane's access is misaligned or out of bounds the fast path declines and the general path
//! reports the fault for the right lane. Speed only (the oracle runs every test kernel).

use super::*;

impl Machine<'_> {
    /// The shared-memory offsets of the lanes of `exec` for an access of `bytes` at `a`, when
    /// all are aligned and in bounds (`raw`: the addresses as computed, for the statistics).
    fn shared_offsets(
        &self,
        w: &Warp,
        exec: u32,
        a: &Addr,
        bytes: u32,
        len: usize,
    ) -> Option<([u32; 32], [u64; 32])> {
        let mut offs = [0u32; 32];
        let mut raw = [0u64; 32];
        for l in lanes(exec) {
            let r = self.addr(w, l, a, Space::Shared);
            let off = r & 0xffff_ffff;
            if off % u64::from(bytes) != 0 || off + u64::from(bytes) > len as u64 {
                return None;
            }
            raw[l] = r;
            offs[l] = off as u32;
        }
        Some((offs, raw))
    }

    /// `LDS` of 4/8/16 bytes into registers; `None` when the general path must run.
    pub(super) fn lds_fast(
        &mut self,
        i: &DInst,
        w: &mut Warp,
        exec: u32,
        bytes: u32,
        shared: &[u8],
    ) -> Option<()> {
        let (Some(Opnd::R { n: rd, .. }), Some(Opnd::Mem(a))) = (i.ops.first(), i.ops.get(1))
        else {
            return None;
        };
        if bytes < 4 || *rd == RZ {
            return None;
        }
        let (offs, raw) = self.shared_offsets(w, exec, a, bytes, shared.len())?;
        for l in lanes(exec) {
            let o = offs[l] as usize;
            for k in 0..bytes as usize / 4 {
                let b = &shared[o + 4 * k..o + 4 * k + 4];
                let v = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                set(w, l, rd.wrapping_add(k as u8), v);
            }
        }
        self.access(Space::Shared, &raw, exec, bytes, true);
        Some(())
    }

    /// `STS` of 4/8/16 bytes from registers; `None` when the general path must run.
    pub(super) fn sts_fast(
        &mut self,
        i: &DInst,
        w: &mut Warp,
        exec: u32,
        bytes: u32,
        shared: &mut [u8],
    ) -> Option<()> {
        let (Some(Opnd::Mem(a)), Some(Opnd::R { n: rs, .. })) = (i.ops.first(), i.ops.get(1))
        else {
            return None;
        };
        if bytes < 4 {
            return None;
        }
        let (offs, raw) = self.shared_offsets(w, exec, a, bytes, shared.len())?;
        for l in lanes(exec) {
            let o = offs[l] as usize;
            for k in 0..bytes as usize / 4 {
                let v = if *rs == RZ {
                    0
                } else {
                    reg(w, l, rs.wrapping_add(k as u8))
                };
                shared[o + 4 * k..o + 4 * k + 4].copy_from_slice(&v.to_le_bytes());
            }
        }
        self.access(Space::Shared, &raw, exec, bytes, false);
        Some(())
    }
}
