//! Code offsets inside `.debug_frame` (DWARF call-frame information as ptxas emits it: 64-bit
//! DWARF, CIE version 3, code alignment factor 4): each FDE's initial location (relocated
//! against a function symbol), its address range, and the `DW_CFA_advance_loc*` steps between
//! instruction boundaries. The editing API remaps all three when instructions move.
//!
//! Reference: `sass-and-cubin-format.md` §0 item 7 ("`.debug_frame` FDEs … must be remapped")
//! and §8.5 (`.rel(a).debug_frame` entries of type `R_CUDA_64` to kernel symbols).
//!
//! Only the CFA instructions needed to walk an FDE are understood; anything else makes
//! [`parse`] fail, and the editor refuses to edit rather than corrupt the section.

use super::bytes::{u32_at, u64_at, u8_at};
use super::ElfError;

/// One FDE.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fde {
    /// Offset of the initial-location field (what the relocation patches).
    pub location_field: usize,
    /// Offset of the address-range field.
    pub range_field: usize,
    /// The instructions: `[start, end)` offsets in the section.
    pub instructions: (usize, usize),
    /// Code alignment factor of its CIE.
    pub code_align: u64,
}

/// A `DW_CFA_advance_loc*` operand inside an FDE's instructions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Advance {
    /// Offset of the opcode byte.
    pub at: usize,
    /// Operand size in bytes (0 = the 6-bit delta inside the opcode).
    pub size: u8,
    /// The delta in code-alignment units.
    pub delta: u64,
}

fn uleb(d: &[u8], o: &mut usize) -> Result<u64, ElfError> {
    let mut v = 0u64;
    let mut shift = 0;
    loop {
        let b = u8_at(d, *o as u64, "LEB128 in .debug_frame")?;
        *o += 1;
        if shift < 64 {
            v |= ((b & 0x7f) as u64) << shift;
        }
        shift += 7;
        if b & 0x80 == 0 {
            return Ok(v);
        }
        if shift > 70 {
            return Err(ElfError::Malformed {
                what: "LEB128 in .debug_frame",
                offset: *o as u64,
            });
        }
    }
}

/// Parses every FDE (CIEs are read for their code alignment factor).
pub fn parse(d: &[u8]) -> Result<Vec<Fde>, ElfError> {
    let mut cies: Vec<(usize, u64)> = Vec::new();
    let mut fdes = Vec::new();
    let mut o = 0usize;
    let bad = |what: &'static str, at: usize| ElfError::Malformed {
        what,
        offset: at as u64,
    };
    while o < d.len() {
        let start = o;
        let l32 = u32_at(d, o as u64, ".debug_frame length")?;
        let (len, hdr) = if l32 == 0xffff_ffff {
            (u64_at(d, o as u64 + 4, ".debug_frame length")?, 12)
        } else {
            (l32 as u64, 4)
        };
        let body = start + hdr;
        let end = body
            .checked_add(usize::try_from(len).map_err(|_| bad(".debug_frame length", start))?)
            .filter(|&e| e <= d.len())
            .ok_or(bad(".debug_frame entry", start))?;
        let wide = hdr == 12;
        let id = if wide {
            u64_at(d, body as u64, ".debug_frame CIE id")?
        } else {
            u32_at(d, body as u64, ".debug_frame CIE id")? as u64
        };
        let id_end = body + if wide { 8 } else { 4 };
        let is_cie = if wide {
            id == u64::MAX
        } else {
            id == 0xffff_ffff
        };
        if is_cie {
            let mut p = id_end;
            let _version = u8_at(d, p as u64, ".debug_frame CIE")?;
            p += 1;
            while u8_at(d, p as u64, ".debug_frame CIE augmentation")? != 0 {
                p += 1;
            }
            p += 1;
            let caf = uleb(d, &mut p)?;
            cies.push((start, caf));
        } else {
            // CIE pointer: offset of the CIE from the start of the section.
            let caf = cies
                .iter()
                .find(|(s, _)| *s as u64 == id)
                .map(|&(_, c)| c)
                .ok_or(bad(".debug_frame FDE without CIE", start))?;
            let (loc, range, instr) = if wide {
                (id_end, id_end + 8, id_end + 16)
            } else {
                (id_end, id_end + 4, id_end + 8)
            };
            if instr > end || !wide {
                return Err(bad(
                    ".debug_frame FDE (only 64-bit DWARF is supported)",
                    start,
                ));
            }
            fdes.push(Fde {
                location_field: loc,
                range_field: range,
                instructions: (instr, end),
                code_align: caf.max(1),
            });
        }
        o = end;
    }
    Ok(fdes)
}

/// The advance steps of an FDE, in order.
pub fn advances(d: &[u8], fde: &Fde) -> Result<Vec<Advance>, ElfError> {
    let (mut o, end) = fde.instructions;
    let mut out = Vec::new();
    let unsupported = |at: usize| ElfError::Malformed {
        what: "unsupported DW_CFA instruction in .debug_frame",
        offset: at as u64,
    };
    while o < end {
        let at = o;
        let op = u8_at(d, o as u64, ".debug_frame CFA")?;
        o += 1;
        match op >> 6 {
            1 => {
                out.push(Advance {
                    at,
                    size: 0,
                    delta: (op & 0x3f) as u64,
                });
                continue;
            }
            2 => {
                uleb(d, &mut o)?;
                continue;
            }
            3 => continue,
            _ => {}
        }
        match op {
            0x00 | 0x0a | 0x0b => {}
            0x02 => {
                out.push(Advance {
                    at,
                    size: 1,
                    delta: u8_at(d, o as u64, "CFA")? as u64,
                });
                o += 1;
            }
            0x03 => {
                let v = super::bytes::u16_at(d, o as u64, "CFA")? as u64;
                out.push(Advance {
                    at,
                    size: 2,
                    delta: v,
                });
                o += 2;
            }
            0x04 => {
                let v = u32_at(d, o as u64, "CFA")? as u64;
                out.push(Advance {
                    at,
                    size: 4,
                    delta: v,
                });
                o += 4;
            }
            0x05 | 0x09 | 0x0c | 0x11 | 0x12 | 0x14 | 0x15 => {
                uleb(d, &mut o)?;
                uleb(d, &mut o)?;
            }
            0x06..=0x08 | 0x0d | 0x0e | 0x13 | 0x2e => {
                uleb(d, &mut o)?;
            }
            0x0f => {
                let n = uleb(d, &mut o)? as usize;
                o = o.checked_add(n).ok_or(unsupported(at))?;
            }
            0x10 | 0x16 => {
                uleb(d, &mut o)?;
                let n = uleb(d, &mut o)? as usize;
                o = o.checked_add(n).ok_or(unsupported(at))?;
            }
            _ => return Err(unsupported(at)),
        }
    }
    if o > end {
        return Err(unsupported(end));
    }
    Ok(out)
}

/// Rewrites an FDE for moved code: `old_loc` is its old initial location (from the
/// relocation), `map` maps an old code offset to the new one. Updates the address range and
/// every advance step (the initial-location value is the caller's: it lives in a relocation
/// addend or in place).
pub fn remap_fde(
    d: &mut [u8],
    fde: &Fde,
    old_loc: u64,
    map: &dyn Fn(u64) -> u64,
) -> Result<(), ElfError> {
    let range = u64_at(d, fde.range_field as u64, ".debug_frame range")?;
    let new_loc = map(old_loc);
    let new_range = map(old_loc.saturating_add(range)).saturating_sub(new_loc);
    super::bytes::put(d, fde.range_field, &new_range.to_le_bytes());
    let caf = fde.code_align;
    let mut old_cur = old_loc;
    let mut new_cur = new_loc;
    for a in advances(d, fde)? {
        let old_next = old_cur.saturating_add(a.delta.saturating_mul(caf));
        let new_next = map(old_next);
        let delta_bytes = new_next.saturating_sub(new_cur);
        if delta_bytes % caf != 0 {
            return Err(ElfError::Edit(format!(
                ".debug_frame advance of {delta_bytes} bytes is not a multiple of {caf}"
            )));
        }
        let delta = delta_bytes / caf;
        let fits = match a.size {
            0 => delta < 64,
            1 => delta <= u8::MAX as u64,
            2 => delta <= u16::MAX as u64,
            _ => delta <= u32::MAX as u64,
        };
        if !fits {
            return Err(ElfError::Edit(format!(
                ".debug_frame advance at {:#x} cannot hold {delta} units",
                a.at
            )));
        }
        match a.size {
            0 => d[a.at] = 0x40 | delta as u8,
            1 => d[a.at + 1] = delta as u8,
            2 => super::bytes::put(d, a.at + 1, &(delta as u16).to_le_bytes()),
            _ => super::bytes::put(d, a.at + 1, &(delta as u32).to_le_bytes()),
        }
        old_cur = old_next;
        new_cur = new_next;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The CIE and first FDE ptxas writes (calls.O3.sm_80).
    fn sample() -> Vec<u8> {
        let mut d = Vec::new();
        // CIE: 64-bit length 0x24, id ~0, version 3, "", caf 4, daf -4, RA reg, instructions.
        d.extend_from_slice(&[0xff, 0xff, 0xff, 0xff, 0x24, 0, 0, 0, 0, 0, 0, 0]);
        d.extend_from_slice(&[0xff; 8]);
        d.extend_from_slice(&[
            0x03, 0x00, 0x04, 0x7c, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x0c, 0x81, 0x80, 0x80, 0x28,
            0x00, 0x08, 0xff, 0x81, 0x80, 0x28, 0x08, 0x81, 0x80, 0x80, 0x28, 0x00, 0x00, 0x00,
        ]);
        // FDE: length 0x34, CIE at 0, location 0, range 0x1d0, advances 4, 0x14, def_cfa, 0x58.
        d.extend_from_slice(&[0xff, 0xff, 0xff, 0xff, 0x34, 0, 0, 0, 0, 0, 0, 0]);
        d.extend_from_slice(&[0; 16]);
        d.extend_from_slice(&0x1d0u64.to_le_bytes());
        d.extend_from_slice(&[
            0x04, 0x04, 0, 0, 0, 0x04, 0x14, 0, 0, 0, 0x0c, 0x81, 0x80, 0x80, 0x28, 0x00, 0x04,
            0x58, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        ]);
        d
    }

    #[test]
    fn parses_and_remaps() {
        let mut d = sample();
        let f = parse(&d).unwrap();
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].code_align, 4);
        let adv = advances(&d, &f[0]).unwrap();
        assert_eq!(
            adv.iter().map(|a| a.delta).collect::<Vec<_>>(),
            vec![4, 0x14, 0x58]
        );
        // Insert 16 bytes at offset 0x20: everything from 0x20 on moves by 16.
        let map = |o: u64| if o >= 0x20 { o + 16 } else { o };
        remap_fde(&mut d, &f[0], 0, &map).unwrap();
        let adv = advances(&d, &f[0]).unwrap();
        assert_eq!(
            adv.iter().map(|a| a.delta).collect::<Vec<_>>(),
            vec![4, 0x18, 0x58]
        );
        assert_eq!(u64_at(&d, f[0].range_field as u64, "").unwrap(), 0x1e0);
        assert!(parse(&d[..30]).is_err());
    }
}
