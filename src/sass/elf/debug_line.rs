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
const DW_LNS_ADVANCE_LINE: u8 = 3;
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

/// One decoded opcode of a line program and the bytes it occupies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    /// A special opcode: address step (bytes) and line step.
    Special { step: u64, line: i64 },
    /// `DW_LNE_set_address`: where its operand is, and its value.
    SetAddress { operand: u64, value: u64 },
    /// `DW_LNE_end_sequence`.
    EndSequence,
    /// `DW_LNS_advance_pc`, `DW_LNS_const_add_pc` or `DW_LNS_fixed_advance_pc`: bytes.
    Advance(u64),
    /// `DW_LNS_advance_line`.
    AdvanceLine(i64),
    /// `DW_LNS_copy`.
    Copy,
    /// Anything else (file, column, flags, other extended opcodes): copied as it is.
    Other,
}

fn sleb(d: &[u8], at: &mut usize) -> Result<i64, ElfError> {
    let (mut v, mut shift) = (0i64, 0);
    loop {
        let b = *d.get(*at).ok_or_else(|| bad("truncated LEB128".into()))?;
        *at += 1;
        if shift < 64 {
            v |= ((b & 0x7f) as i64) << shift;
        }
        shift += 7;
        if b & 0x80 == 0 {
            if shift < 64 && b & 0x40 != 0 {
                v |= -1i64 << shift;
            }
            return Ok(v);
        }
    }
}

/// Decodes the opcodes of a program in `d[at..end]`: each with its byte range.
fn decode(
    d: &[u8],
    h: &Header,
    mut at: usize,
    end: usize,
) -> Result<Vec<(Op, usize, usize)>, ElfError> {
    let mut ops = Vec::new();
    while at < end {
        let start = at;
        let op = d[at];
        at += 1;
        let decoded = if op >= h.opcode_base {
            let adj = (op - h.opcode_base) as u64;
            Op::Special {
                step: adj / h.line_range as u64 * h.min_inst,
                line: h.line_base as i64 + (adj % h.line_range as u64) as i64,
            }
        } else {
            match op {
                0 => {
                    let len = uleb(d, &mut at)? as usize;
                    let body = at;
                    at += len;
                    if at > end || len == 0 {
                        return Err(bad(format!("extended opcode at {start:#x}")));
                    }
                    match d[body] {
                        DW_LNE_SET_ADDRESS => {
                            let operand = (body + 1) as u64;
                            Op::SetAddress {
                                operand,
                                value: read_address(d, operand, len - 1)?,
                            }
                        }
                        DW_LNE_END_SEQUENCE => Op::EndSequence,
                        _ => Op::Other,
                    }
                }
                DW_LNS_COPY => Op::Copy,
                DW_LNS_ADVANCE_PC => Op::Advance(uleb(d, &mut at)? * h.min_inst),
                DW_LNS_ADVANCE_LINE => Op::AdvanceLine(sleb(d, &mut at)?),
                DW_LNS_CONST_ADD_PC => {
                    Op::Advance((255 - h.opcode_base as u64) / h.line_range as u64 * h.min_inst)
                }
                DW_LNS_FIXED_ADVANCE_PC => {
                    at += 2;
                    Op::Advance(u16_at(d, at as u64 - 2, "fixed_advance_pc")? as u64)
                }
                _ => {
                    // Every other standard opcode: its ULEB128 operands.
                    let n = h.std_lengths.get(op as usize - 1).copied().unwrap_or(0);
                    for _ in 0..n {
                        uleb(d, &mut at)?;
                    }
                    Op::Other
                }
            }
        };
        ops.push((decoded, start, at));
    }
    Ok(ops)
}

/// Appends `DW_LNS_advance_pc` for `bytes` (nothing for 0).
fn put_advance(out: &mut Vec<u8>, bytes: u64, min_inst: u64) {
    if bytes > 0 {
        out.push(DW_LNS_ADVANCE_PC);
        put_uleb(out, bytes / min_inst.max(1));
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
    let mut out = Vec::with_capacity(data.len() + 64);
    let mut moved = BTreeMap::new();
    let mut unit = 0;
    while unit < data.len() {
        let (h, program, end) = header(data, unit)?;
        let start = out.len();
        out.extend_from_slice(&data[unit..program]);
        // The old absolute address of the current row, in a sequence of the edited section.
        let mut addr: Option<u64> = None;
        for (op, from, to) in decode(data, &h, program, end)? {
            let step = match op {
                Op::Special { step, .. } | Op::Advance(step) => step,
                _ => 0,
            };
            match (op, addr) {
                (Op::Special { line, .. }, Some(a)) if step > 0 => {
                    put_advance(&mut out, map(a + step).saturating_sub(map(a)), h.min_inst);
                    // The same line step with no address step.
                    out.push(h.opcode_base + (line - h.line_base as i64) as u8);
                    addr = Some(a + step);
                }
                (Op::Advance(_), Some(a)) => {
                    put_advance(&mut out, map(a + step).saturating_sub(map(a)), h.min_inst);
                    addr = Some(a + step);
                }
                (Op::SetAddress { operand, value }, _) => {
                    addr = bases.get(&operand).map(|b| b + value);
                    moved.insert(operand, (out.len() + (operand as usize - from)) as u64);
                    out.extend_from_slice(&data[from..to]);
                }
                (Op::EndSequence, _) => {
                    addr = None;
                    out.extend_from_slice(&data[from..to]);
                }
                _ => out.extend_from_slice(&data[from..to]),
            }
        }
        let len = (out.len() - start - 4) as u32;
        out[start..start + 4].copy_from_slice(&len.to_le_bytes());
        unit = end;
    }
    Ok((out, moved))
}

fn read_address(d: &[u8], at: u64, size: usize) -> Result<u64, ElfError> {
    match size {
        8 => super::bytes::u64_at(d, at, "set_address"),
        4 => u32_at(d, at, "set_address").map(u64::from),
        n => Err(bad(format!("{n}-byte address"))),
    }
}

/// The rows of a line program: (old address, line) per row of the sequences that `bases`
/// places (see [`remap`]).
pub fn rows(data: &[u8], bases: &BTreeMap<u64, u64>) -> Result<Vec<(u64, i64)>, ElfError> {
    let mut rows = Vec::new();
    let mut unit = 0;
    while unit < data.len() {
        let (h, program, end) = header(data, unit)?;
        let (mut addr, mut line) = (None::<u64>, 1i64);
        for (op, ..) in decode(data, &h, program, end)? {
            match op {
                Op::Special { step, line: dl } => {
                    line += dl;
                    if let Some(a) = addr.as_mut() {
                        *a += step;
                        rows.push((*a, line));
                    }
                }
                Op::Copy => rows.extend(addr.map(|a| (a, line))),
                Op::Advance(step) => addr = addr.map(|a| a + step),
                Op::AdvanceLine(dl) => line += dl,
                Op::SetAddress { operand, value } => addr = bases.get(&operand).map(|b| b + value),
                Op::EndSequence => (addr, line) = (None, 1),
                Op::Other => {}
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
