//! sm_90 warpgroup MMAs (`HGMMA`, `IGMMA`, `QGMMA` = `wgmma.mma_async`, PTX ISA §9.7.15): each
//! warp computes its own 16 rows of the warpgroup's product when it issues the instruction, as
//! the PTX emulator does (`emu::exec::wgmma`; layouts, descriptors and arithmetic shared through
//! [`crate::emu::wgmma`]).
//!
//! Operands as nvdisasm prints them: `HGMMA.64xNxK.F32 Rd, gdesc[URq][.tnspA][.tnspB], Rc
//! [, !UPT] [, gsb0]` (A and B from shared memory: A's descriptor in `URq:URq+1`, B's in
//! `URq+2:URq+3`) or `HGMMA… Rd, Ra, gdesc[URq].tnspB, Rc` (A from the registers `Ra…Ra+3`).
//! `Rc` = RZ or a false predicate operand (scale-d) starts from zero; `.tnspA`/`.tnspB` mark an
//! M/N-major operand (`imm-trans` 1). `WARPGROUP.ARRIVE`/`WARPGROUP.DEPBAR` have nothing to wait
//! for (completion at issue; see docs/emulator.md).

use super::*;
use crate::emu::wgmma::{self, Desc, WgmmaSpec};

/// The operands of one warpgroup MMA.
struct Operands {
    d: u8,
    /// A's first register, or None when A is in shared memory.
    a_reg: Option<u8>,
    ur: u8,
    trans: (bool, bool),
    /// The accumulators are read (C not RZ, scale-d true).
    scale: bool,
}

impl Machine<'_> {
    /// `HGMMA`/`IGMMA`/`QGMMA` for the lanes `exec` (all 32 or none).
    pub(super) fn exec_gmma(
        &mut self,
        i: &DInst,
        w: &mut Warp,
        exec: u32,
        spec: &WgmmaSpec,
        shared: &[u8],
    ) -> Result<(), Stop> {
        if exec == 0 {
            return Ok(());
        }
        if exec != u32::MAX {
            return Err(Stop::Fault(
                format!("warpgroup MMA executed by lanes {exec:#010x}, not all 32"),
                None,
            ));
        }
        let o = gmma_operands(w, &i.ops).map_err(|m| Stop::Msg(m, None))?;
        let desc = |k: u8| {
            Desc::decode(u64::from(ureg(w, k)) | u64::from(ureg(w, k + 1)) << 32)
                .map_err(|m| Stop::Msg(m, None))
        };
        let b_desc = desc(o.ur + 2)?;
        let a = match o.a_reg {
            Some(r) => a_from_regs(w, spec, r),
            None => {
                let d = desc(o.ur)?;
                let row0 = 16 * (w.id % 4);
                let (k, e) = (spec.k, spec.elem_bytes());
                let mut a = vec![0u64; 16 * k as usize];
                for r in 0..16 {
                    for x in 0..k {
                        a[(r * k + x) as usize] =
                            element(shared, d.addr(row0 + r, x, e, o.trans.0), e)?;
                    }
                }
                a
            }
        };
        let (k, n, e) = (spec.k, spec.n, spec.elem_bytes());
        let mut b = vec![0u64; (k * n) as usize];
        for x in 0..k {
            for c in 0..n {
                b[(x * n + c) as usize] = element(shared, b_desc.addr(c, x, e, o.trans.1), e)?;
            }
        }
        let acc: Vec<[u64; 32]> = (0..spec.d_regs())
            .map(|r| std::array::from_fn(|l| u64::from(reg(w, l, o.d.wrapping_add(r as u8)))))
            .collect();
        let out = wgmma::compute(spec, &a, &b, &acc, o.scale, (false, false));
        for (r, vals) in out.iter().enumerate() {
            for (l, v) in vals.iter().enumerate() {
                set(w, l, o.d.wrapping_add(r as u8), *v as u32);
            }
        }
        Ok(())
    }
}

/// Reads the operand list (see the module documentation).
fn gmma_operands(w: &Warp, ops: &[Opnd]) -> R<Operands> {
    let bad = || "warpgroup MMA operands".to_string();
    let Some(Opnd::R { n: d, .. }) = ops.first() else {
        return Err(bad());
    };
    let (a_reg, k) = match ops.get(1) {
        Some(Opnd::R { n, .. }) => (Some(*n), 2),
        Some(Opnd::GDesc { .. }) => (None, 1),
        _ => return Err(bad()),
    };
    let Some(Opnd::GDesc { ur, tnsp_a, tnsp_b }) = ops.get(k) else {
        return Err(bad());
    };
    let Some(Opnd::R { n: c, .. }) = ops.get(k + 1) else {
        return Err(bad());
    };
    if *c != RZ && c != d {
        return Err("warpgroup MMA with C other than D or RZ".into());
    }
    let mut scale = *c != RZ;
    for x in &ops[k + 2..] {
        match x {
            Opnd::Up { n, not } => scale &= (w.up >> n & 1 == 1) != *not,
            Opnd::Gsb(_) => {}
            _ => return Err(bad()),
        }
    }
    if *ur > 59 {
        return Err(bad());
    }
    Ok(Operands {
        d: *d,
        a_reg,
        ur: *ur,
        trans: (*tnsp_a, *tnsp_b),
        scale,
    })
}

/// The warp's 16 rows of A (16×K element bits, row-major) from registers `r…r+3`.
fn a_from_regs(w: &Warp, spec: &WgmmaSpec, r: u8) -> Vec<u64> {
    let k = spec.k;
    let (bits, per) = (spec.a.bits(), spec.a.per_reg());
    let mask = (1u64 << bits) - 1;
    let mut out = vec![0u64; 16 * k as usize];
    for lane in 0..32u32 {
        for i in 0..(per * spec.a_regs()) {
            let word = u64::from(reg(w, lane as usize, r.wrapping_add((i / per) as u8)));
            let (row, x) = wgmma::a_pos(spec, lane, i as u32);
            out[(row * k + x) as usize] = (word >> ((i % per) as u32 * bits)) & mask;
        }
    }
    out
}

/// The `e`-byte element at shared offset `at` (bounds-checked).
fn element(shared: &[u8], at: u64, e: u32) -> Result<u64, Stop> {
    let (at, e) = (at as usize, e as usize);
    if at % e != 0 {
        return Err(Stop::Fault(
            format!("misaligned warpgroup MMA operand at shared offset {at:#x}"),
            None,
        ));
    }
    let bytes = shared.get(at..at + e).ok_or_else(|| {
        Stop::Fault(
            format!(
                "warpgroup MMA operand at shared offset {at:#x} beyond the {} bytes of shared memory",
                shared.len()
            ),
            None,
        )
    })?;
    Ok(bytes
        .iter()
        .rev()
        .fold(0u64, |acc, b| acc << 8 | u64::from(*b)))
}
