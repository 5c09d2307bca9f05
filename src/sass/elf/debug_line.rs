//! DWARF line programs in cubins (`.debug_line` from `-lineinfo`, `.nv_debug_line_sass`):
//! remapping their code addresses after an edit, so source attribution of an edited kernel stays
//! right (DWARF 2 §6.2; ref §8.5: everything that stores code offsets).
//!
//! A sequence starts with `DW_LNE_set_address`, whose operand ptxas relocates against the
//! function's symbol (REL, in-place addend). [`remap`] keeps every header and every opcode that
//! does not move the address byte for byte, and re-encodes only the address advances of the
//! sequences that start in the edited section: a special opcode becomes `DW_LNS_advance_pc` plus
//! the special opcode with the same line step and no address step; `DW_LNS_const_add_pc` and
//! `DW_LNS_fixed_advance_pc` become `DW_LNS_advance_pc`. Each row keeps its line and moves with
//! the instruction it names. The `set_address` operands themselves are left to the relocation
//! pass (they are relocated addends); their offsets move with the re-encoding and are returned.

use std::collections::BTreeMap;

use super::bytes::{u16_at, u32_at, u8_at};
use super::ElfError;

const DW_LNS_COPY: u8 = 1;
const DW_LNS_ADVANCE_PC: u8 = 2;
const DW_LNS_CONST_ADD_PC: u8 = 8;
const DW_LNS_FIXED_ADVANCE_PC: u8 = 9;
const DW_LNE_END_SEQUENCE: u8 = 1;
const DW_LNE_SET_ADDRESS: u8 = 2;

fn bad(what: String) -> ElfError {
    ElfError::Unsupported(format!("line program: {what}"))
}

fn uleb(d: &[u8], at: &mut usize) -> Result<u64, ElfError> {
    let (mut v, mut shift) = (0u64, 0);
    loop {
        let b = *d.get(*at).ok_or_else(|| bad("truncated LEB128".into()))?;
        *at += 1;
        if shift < 64 {
            v |= ((b & 0x7f) as u64) << shift;
        }
        shift += 7;
        if b & 0x80 == 0 {
            return Ok(v);
        }
    }
}

fn put_uleb(out: &mut Vec<u8>, mut v: u64) {
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

/// A unit's header fields the program needs.
struct Header {
    min_inst: u64,
    line_base: i8,
    line_range: u8,
    opcode_base: u8,
    std_lengths: Vec<u8>,
}

fn header(d: &[u8], unit: usize) -> Result<(Header, usize, usize), ElfError> {
    let u = unit as u64;
    let len = u32_at(d, u, "unit_length")? as usize;
    if len == 0xffff_ffff {
        return Err(bad("64-bit DWARF".into()));
    }
    let end = unit + 4 + len;
    let version = u16_at(d, u + 4, "version")?;
    if !(2..=4).contains(&version) {
        return Err(bad(format!("DWARF version {version}")));
    }
    let hlen = u32_at(d, u + 6, "header_length")? as usize;
    let program = unit + 10 + hlen;
    let mut at = u + 10;
    let min_inst = u8_at(d, at, "minimum_instruction_length")? as u64;
    at += if version >= 4 { 2 } else { 1 } + 1; // max_ops (v4), default_is_stmt
    let line_base = u8_at(d, at, "line_base")? as i8;
    let line_range = u8_at(d, at + 1, "line_range")?;
    let opcode_base = u8_at(d, at + 2, "opcode_base")?;
    let std_lengths = (0..opcode_base.saturating_sub(1) as u64)
        .map(|k| u8_at(d, at + 3 + k, "standard_opcode_lengths"))
        .collect::<Result<Vec<_>, _>>()?;
    if end > d.len() || program > end || line_range == 0 || opcode_base == 0 {
        return Err(bad(format!("unit at {unit:#x}: bad lengths")));
    }
    Ok((
        Header {
            min_inst,
            line_base,
            line_range,
            opcode_base,
            std_lengths,
        },
        program,
        end,
    ))
}

/// The state of one pass over a program.
struct Pass<'a> {
    d: &'a [u8],
    out: Vec<u8>,
    moved: BTreeMap<u64, u64>,
    /// The old absolute address of the current row, while in a sequence of the edited section.
    addr: Option<u64>,
}

impl Pass<'_> {
    /// Emits an address advance from old address `from` to old address `to`, remapped.
    fn advance(&mut self, from: u64, to: u64, map: &dyn Fn(u64) -> u64, min_inst: u64) {
        let delta = map(to).saturating_sub(map(from));
        if delta > 0 {
            self.out.push(DW_LNS_ADVANCE_PC);
            put_uleb(&mut self.out, delta / min_inst.max(1));
        }
    }
}

/// Re-encodes `data` (a whole `.debug_line`-style section). `bases` maps the offset of every
/// `set_address` operand relocated against a symbol of the edited section to that symbol's old
/// value; `map` maps an old section offset to the new one. Returns the new bytes and the new
/// offset of every `set_address` operand (for the relocations).
pub fn remap(
    data: &[u8],
    bases: &BTreeMap<u64, u64>,
    map: &dyn Fn(u64) -> u64,
) -> Result<(Vec<u8>, BTreeMap<u64, u64>), ElfError> {
    let mut p = Pass {
        d: data,
        out: Vec::with_capacity(data.len() + 64),
        moved: BTreeMap::new(),
        addr: None,
    };
    let mut unit = 0;
    while unit < data.len() {
        let (h, program, end) = header(data, unit)?;
        let start = p.out.len();
        p.out.extend_from_slice(&data[unit..program]);
        program_ops(&mut p, &h, program, end, bases, map)?;
        let len = (p.out.len() - start - 4) as u32;
        p.out[start..start + 4].copy_from_slice(&len.to_le_bytes());
        unit = end;
    }
    Ok((p.out, p.moved))
}

fn program_ops(
    p: &mut Pass,
    h: &Header,
    mut at: usize,
    end: usize,
    bases: &BTreeMap<u64, u64>,
    map: &dyn Fn(u64) -> u64,
) -> Result<(), ElfError> {
    let d = p.d;
    while at < end {
        let op_start = at;
        let op = d[at];
        at += 1;
        if op >= h.opcode_base {
            let adj = (op - h.opcode_base) as u64;
            let step = adj / h.line_range as u64 * h.min_inst;
            match p.addr {
                Some(a) if step > 0 => {
                    p.advance(a, a + step, map, h.min_inst);
                    p.addr = Some(a + step);
                    // The same line step with no address step.
                    p.out
                        .push(h.opcode_base + (adj % h.line_range as u64) as u8);
                }
                _ => p.out.push(op),
            }
            continue;
        }
        match op {
            0 => {
                let len = uleb(d, &mut at)? as usize;
                let body = at;
                at += len;
                if at > end || len == 0 {
                    return Err(bad(format!("extended opcode at {op_start:#x}")));
                }
                if d[body] == DW_LNE_SET_ADDRESS {
                    let operand = (body + 1) as u64;
                    let value = read_address(d, operand, len - 1)?;
                    p.addr = bases.get(&operand).map(|b| b + value);
                    let new_operand = (p.out.len() + (body + 1 - op_start)) as u64;
                    p.moved.insert(operand, new_operand);
                } else if d[body] == DW_LNE_END_SEQUENCE {
                    p.addr = None;
                }
                p.out.extend_from_slice(&d[op_start..at]);
            }
            DW_LNS_ADVANCE_PC | DW_LNS_CONST_ADD_PC | DW_LNS_FIXED_ADVANCE_PC => {
                let step = match op {
                    DW_LNS_ADVANCE_PC => uleb(d, &mut at)? * h.min_inst,
                    DW_LNS_CONST_ADD_PC => {
                        (255 - h.opcode_base as u64) / h.line_range as u64 * h.min_inst
                    }
                    _ => {
                        let v = u16_at(d, at as u64, "fixed_advance_pc")? as u64;
                        at += 2;
                        v
                    }
                };
                match p.addr {
                    Some(a) => {
                        p.advance(a, a + step, map, h.min_inst);
                        p.addr = Some(a + step);
                    }
                    None => p.out.extend_from_slice(&d[op_start..at]),
                }
            }
            _ => {
                // Every other standard opcode: its ULEB128 operands, copied.
                let n = h.std_lengths.get(op as usize - 1).copied().unwrap_or(0);
                for _ in 0..n {
                    uleb(d, &mut at)?;
                }
                p.out.extend_from_slice(&d[op_start..at]);
            }
        }
    }
    Ok(())
}

fn read_address(d: &[u8], at: u64, size: usize) -> Result<u64, ElfError> {
    match size {
        8 => super::bytes::u64_at(d, at, "set_address"),
        4 => u32_at(d, at, "set_address").map(u64::from),
        n => Err(bad(format!("{n}-byte address"))),
    }
}

/// The rows of a line program: (old address, line) per row of the sequences starting in the
/// edited section — for tests and checks.
pub fn rows(data: &[u8], bases: &BTreeMap<u64, u64>) -> Result<Vec<(u64, i64)>, ElfError> {
    let mut rows = Vec::new();
    let mut unit = 0;
    while unit < data.len() {
        let (h, mut at, end) = header(data, unit)?;
        let (mut addr, mut line) = (None::<u64>, 1i64);
        while at < end {
            let op = data[at];
            at += 1;
            if op >= h.opcode_base {
                let adj = (op - h.opcode_base) as u64;
                line += h.line_base as i64 + (adj % h.line_range as u64) as i64;
                if let Some(a) = addr.as_mut() {
                    *a += adj / h.line_range as u64 * h.min_inst;
                    rows.push((*a, line));
                }
                continue;
            }
            match op {
                0 => {
                    let len = uleb(data, &mut at)? as usize;
                    if data[at] == DW_LNE_SET_ADDRESS {
                        let operand = (at + 1) as u64;
                        addr = bases
                            .get(&operand)
                            .map(|b| b + read_address(data, operand, len - 1).unwrap_or(0));
                    } else if data[at] == DW_LNE_END_SEQUENCE {
                        addr = None;
                        line = 1;
                    }
                    at += len;
                }
                DW_LNS_COPY => {
                    if let Some(a) = addr {
                        rows.push((a, line));
                    }
                }
                DW_LNS_ADVANCE_PC => {
                    let v = uleb(data, &mut at)? * h.min_inst;
                    if let Some(a) = addr.as_mut() {
                        *a += v;
                    }
                }
                3 => {
                    let (mut v, mut shift, mut b) = (0i64, 0, 0x80u8);
                    while b & 0x80 != 0 {
                        b = data[at];
                        at += 1;
                        v |= ((b & 0x7f) as i64) << shift;
                        shift += 7;
                    }
                    if shift < 64 && b & 0x40 != 0 {
                        v |= -1i64 << shift;
                    }
                    line += v;
                }
                DW_LNS_CONST_ADD_PC => {
                    if let Some(a) = addr.as_mut() {
                        *a += (255 - h.opcode_base as u64) / h.line_range as u64 * h.min_inst;
                    }
                }
                DW_LNS_FIXED_ADVANCE_PC => {
                    let v = u16_at(data, at as u64, "fixed_advance_pc")? as u64;
                    at += 2;
                    if let Some(a) = addr.as_mut() {
                        *a += v;
                    }
                }
                _ => {
                    let n = h.std_lengths.get(op as usize - 1).copied().unwrap_or(0);
                    for _ in 0..n {
                        uleb(data, &mut at)?;
                    }
                }
            }
        }
        unit = end;
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A DWARF 2 unit: min_inst 1, line_base -5, line_range 14, opcode_base 10, no files.
    fn unit(program: &[u8]) -> Vec<u8> {
        let mut h = vec![1u8, 1, 0xfb, 14, 10, 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0];
        let mut d = Vec::new();
        d.extend_from_slice(&0u32.to_le_bytes());
        d.extend_from_slice(&2u16.to_le_bytes());
        d.extend_from_slice(&(h.len() as u32).to_le_bytes());
        d.append(&mut h);
        d.extend_from_slice(program);
        let len = (d.len() - 4) as u32;
        d[..4].copy_from_slice(&len.to_le_bytes());
        d
    }

    #[test]
    fn rows_move_with_their_instructions() {
        // set_address 0; copy (line 1); special: +16, +1 line; advance_pc 32; copy; end.
        let mut prog = vec![0, 9, DW_LNE_SET_ADDRESS];
        prog.extend_from_slice(&0u64.to_le_bytes());
        prog.push(DW_LNS_COPY);
        // Special opcode: opcode_base + (line step − line_base) + line_range · address step.
        prog.push(10 + (1 + 5) + 14); // address +1, line +1
        prog.extend_from_slice(&[
            DW_LNS_ADVANCE_PC,
            0x20,
            DW_LNS_COPY,
            0,
            1,
            DW_LNE_END_SEQUENCE,
        ]);
        let d = unit(&prog);
        let operand = (4 + 2 + 4 + 16 + 3) as u64;
        let bases = BTreeMap::from([(operand, 0u64)]);
        assert_eq!(rows(&d, &bases).unwrap(), vec![(0, 1), (1, 2), (33, 2)]);
        // 0x40 bytes inserted before everything at or after old offset 1.
        let map = |a: u64| if a >= 1 { a + 0x40 } else { a };
        let (n, moved) = remap(&d, &bases, &map).unwrap();
        assert_eq!(moved[&operand], operand);
        assert_eq!(
            rows(&n, &bases).unwrap(),
            vec![(0, 1), (0x41, 2), (0x61, 2)]
        );
        // Sequences of other sections are copied byte for byte.
        let (same, _) = remap(&d, &BTreeMap::new(), &map).unwrap();
        assert_eq!(same, d);
    }
}
