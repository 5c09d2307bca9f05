//! Tensor-core instructions of the interpreter: `HMMA`/`IMMA` (one warp-wide `mma.sync` on
//! register fragments) and `LDSM` (`ldmatrix`), sm_80 encodings (also sm_86/89/90), and the
//! dispatch of every matrix and asynchronous-copy instruction (`gmma`, `async_copy`).
//!
//! The fragment layouts and the arithmetic are the PTX emulator's ([`crate::emu::tensor`], PTX ISA
//! §9.7.14.5 "Matrix fragments for mma.m*n*k*" and §9.7.14.5.15 `ldmatrix`): `HMMA.16816.F32 Rd,
//! Ra, Rb, Rc` is `mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {Rd…}, {Ra…}, {Rb…}, {Rc…}`
//! with consecutive registers (RZ as C: zeros), so a cubin and its PTX compute the same bits.
//! Both need the 32 lanes of the warp: executed by fewer (a partial warp, a guard false in some
//! lanes, lanes on another path) they stop with a fault naming the instruction, as in the PTX
//! emulator.

use super::*;
use crate::emu::tensor::{self, matrix_holder, row_addr_lane, MmaSpec, Operand};

impl Machine<'_> {
    /// The matrix and asynchronous-copy instructions: `HMMA`, `IMMA`, `HGMMA`…, `LDSM`,
    /// `LDGSTS`, `LDGDEPBAR`, `DEPBAR.LE SB0`.
    pub(super) fn exec_matrix(
        &mut self,
        i: &DInst,
        w: &mut Warp,
        exec: u32,
        shared: &mut [u8],
    ) -> Result<(), Stop> {
        match &i.kind {
            Kind::Mma(spec) => self.exec_mma(i, w, exec, spec),
            Kind::Gmma(spec) => self.exec_gmma(i, w, exec, spec, shared),
            Kind::Ldsm { num, trans } => self.exec_ldsm(i, w, exec, (*num, *trans), shared),
            Kind::Stsm { num, trans } => self.exec_stsm(i, w, exec, (*num, *trans), shared),
            _ => self.exec_async_copy(i, w, exec, shared),
        }
    }

    /// `HMMA`/`IMMA` for the lanes `exec` (all 32 or none).
    fn exec_mma(&mut self, i: &DInst, w: &mut Warp, exec: u32, spec: &MmaSpec) -> R2 {
        if exec == 0 {
            return Ok(());
        }
        whole_warp(exec, "HMMA/IMMA")?;
        let base = |k: usize| match i.ops.get(k) {
            Some(Opnd::R { n, .. }) => Ok(*n),
            _ => Err(Stop::Msg(
                format!("operand {} is not a register", k + 1),
                None,
            )),
        };
        let (d, a, b, c) = (base(0)?, base(1)?, base(2)?, base(3)?);
        let frag = |op: Operand, n: u8| -> Vec<[u64; 32]> {
            (0..spec.regs(op))
                .map(|r| {
                    let mut v = [0u64; 32];
                    if n != RZ {
                        for (l, x) in v.iter_mut().enumerate() {
                            *x = u64::from(reg(w, l, n.wrapping_add(r as u8)));
                        }
                    }
                    v
                })
                .collect()
        };
        let out = tensor::mma(
            spec,
            &frag(Operand::A, a),
            &frag(Operand::B, b),
            &frag(Operand::C, c),
        );
        for (r, vals) in out.iter().enumerate() {
            for (l, v) in vals.iter().enumerate() {
                set(w, l, d.wrapping_add(r as u8), *v as u32);
            }
        }
        Ok(())
    }

    /// `LDSM.16.M88{,.2,.4}` / `.MT88`: lanes `8m … 8m+7` give the shared addresses of matrix
    /// `m`'s rows (16 bytes each, 16-byte aligned); register `Rd+m` of lane `l` receives the two
    /// elements [`matrix_holder`] assigns to it.
    fn exec_ldsm(
        &mut self,
        i: &DInst,
        w: &mut Warp,
        exec: u32,
        (num, trans): (u8, bool),
        shared: &[u8],
    ) -> R2 {
        if exec == 0 {
            return Ok(());
        }
        whole_warp(exec, "LDSM")?;
        let (Some(Opnd::R { n: d, .. }), Some(Opnd::Mem(a))) = (i.ops.first(), i.ops.get(1)) else {
            return Err(Stop::Msg("LDSM operands".into(), None));
        };
        let mut out = [[0u32; 32]; 4];
        for (m, row, off) in self.matrix_rows(w, a, num, shared.len(), true)? {
            let bytes = &shared[off..off + 16];
            for col in 0..8u32 {
                let c = col as usize;
                let e = u32::from(u16::from_le_bytes([bytes[2 * c], bytes[2 * c + 1]]));
                let (lane, half) = matrix_holder(row, col, trans);
                out[m as usize][lane] |= e << (16 * half);
            }
        }
        for (m, vals) in out.iter().take(num as usize).enumerate() {
            for (l, v) in vals.iter().enumerate() {
                set(w, l, d.wrapping_add(m as u8), *v);
            }
        }
        Ok(())
    }

    /// `STSM` (`stmatrix`, PTX ISA §9.7.14.5.16, sm_90): the inverse of `LDSM` — the same lanes
    /// give the rows' addresses, and each row's elements come from the fragment registers `Rs+m`
    /// where `LDSM` would have put them.
    fn exec_stsm(
        &mut self,
        i: &DInst,
        w: &mut Warp,
        exec: u32,
        (num, trans): (u8, bool),
        shared: &mut [u8],
    ) -> R2 {
        if exec == 0 {
            return Ok(());
        }
        whole_warp(exec, "STSM")?;
        let (Some(Opnd::Mem(a)), Some(Opnd::R { n: s, .. })) = (i.ops.first(), i.ops.get(1)) else {
            return Err(Stop::Msg("STSM operands".into(), None));
        };
        for (m, row, off) in self.matrix_rows(w, a, num, shared.len(), false)? {
            let bytes = &mut shared[off..off + 16];
            for col in 0..8u32 {
                let c = col as usize;
                let (lane, half) = matrix_holder(row, col, trans);
                let e = (reg(w, lane, s.wrapping_add(m as u8)) >> (16 * half)) as u16;
                bytes[2 * c..2 * c + 2].copy_from_slice(&e.to_le_bytes());
            }
        }
        Ok(())
    }

    /// The rows of `num` 8×8 b16 matrices (`LDSM`/`STSM`): (matrix, row, shared offset) with
    /// the offset checked (16 bytes, aligned) and the access recorded (a load or a store).
    fn matrix_rows(
        &mut self,
        w: &Warp,
        a: &Addr,
        num: u8,
        shared_len: usize,
        load: bool,
    ) -> Result<Vec<(u32, u32, usize)>, Stop> {
        let mut addrs = [0u64; 32];
        let mut rows = Vec::with_capacity(8 * usize::from(num));
        for m in 0..u32::from(num) {
            for row in 0..8 {
                let l = row_addr_lane(m, row);
                let raw = self.addr(w, l, a, Space::Shared);
                let (_, off) = self
                    .locate(w, l, Space::Shared, raw, 16, shared_len)
                    .map_err(|e| Stop::Fault(e, Some(l)))?;
                addrs[l] = raw;
                rows.push((m, row, off as usize));
            }
        }
        let n = (8 * u32::from(num)).min(32);
        self.access(Space::Shared, &addrs, lane_mask(n), 16, load);
        Ok(rows)
    }
}

/// The result type of the instructions here.
type R2 = Result<(), Stop>;

/// The low `n` lanes.
fn lane_mask(n: u32) -> u32 {
    if n >= 32 {
        u32::MAX
    } else {
        (1 << n) - 1
    }
}

/// Warp-collective matrix instructions need the 32 lanes.
fn whole_warp(exec: u32, what: &str) -> R2 {
    if exec == u32::MAX {
        Ok(())
    } else {
        Err(Stop::Fault(
            format!(
                "{what} is warp-collective: executed by lanes {exec:#010x}, not all 32 lanes \
                 of the warp"
            ),
            None,
        ))
    }
}
