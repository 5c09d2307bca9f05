//! Typed views of `.symtab` (ELF64 symbols) and of relocation sections (`.rel.*`: 16-byte
//! entries; `.rela.*`: 24-byte entries with an addend), parsed from and serialised back to the
//! section bytes exactly.
//!
//! Reference: `sass-and-cubin-format.md` §8.2 (kernel symbols, local `$kernel$func` symbols) and
//! §8.5 (relocations: `r_offset` is the byte offset of the instruction; addends against the
//! kernel symbol are code offsets).

use super::bytes::{push_u16, push_u32, push_u64, u16_at, u32_at, u64_at, u8_at};
use super::{Cubin, ElfError, SHT_REL, SHT_RELA, SHT_SYMTAB};

/// `st_info` type: function.
pub const STT_FUNC: u8 = 2;
/// `st_info` type: section.
pub const STT_SECTION: u8 = 3;
/// `st_other` flag of kernel entry points.
pub const STO_CUDA_ENTRY: u8 = 0x10;

/// One ELF64 symbol.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol {
    /// The name (from the linked string table; empty when it cannot be resolved).
    pub name: String,
    /// `st_name`.
    pub st_name: u32,
    /// `st_info` (binding << 4 | type).
    pub st_info: u8,
    /// `st_other` (visibility, `STO_CUDA_ENTRY`).
    pub st_other: u8,
    /// `st_shndx`: index of the section the symbol is defined in.
    pub st_shndx: u16,
    /// `st_value`: offset inside the section.
    pub st_value: u64,
    /// `st_size`.
    pub st_size: u64,
}

impl Symbol {
    /// The symbol type (`st_info & 0xf`).
    pub fn kind(&self) -> u8 {
        self.st_info & 0xf
    }
}

/// One relocation (REL or RELA).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Relocation {
    /// Offset inside the target section.
    pub r_offset: u64,
    /// Symbol index.
    pub sym: u32,
    /// Relocation type (`R_CUDA_*`).
    pub r_type: u32,
    /// Addend (`None` for REL entries).
    pub addend: Option<i64>,
}

/// Parses symbol-table bytes (24-byte entries), resolving names in `strtab`.
pub fn parse_symbols(data: &[u8], strtab: &[u8]) -> Result<Vec<Symbol>, ElfError> {
    if data.len() % 24 != 0 {
        return Err(ElfError::Malformed {
            what: "symbol table size",
            offset: data.len() as u64,
        });
    }
    let mut out = Vec::with_capacity(data.len() / 24);
    for i in 0..(data.len() / 24) as u64 {
        let o = i * 24;
        let w = "symbol";
        let st_name = u32_at(data, o, w)?;
        out.push(Symbol {
            name: super::bytes::cstr(strtab, st_name as u64, "symbol name").unwrap_or_default(),
            st_name,
            st_info: u8_at(data, o + 4, w)?,
            st_other: u8_at(data, o + 5, w)?,
            st_shndx: u16_at(data, o + 6, w)?,
            st_value: u64_at(data, o + 8, w)?,
            st_size: u64_at(data, o + 16, w)?,
        });
    }
    Ok(out)
}

/// Serialises symbols (names are not written: `st_name` is kept).
pub fn symbols_to_bytes(syms: &[Symbol]) -> Vec<u8> {
    let mut out = Vec::with_capacity(syms.len() * 24);
    for s in syms {
        push_u32(&mut out, s.st_name);
        out.push(s.st_info);
        out.push(s.st_other);
        push_u16(&mut out, s.st_shndx);
        push_u64(&mut out, s.st_value);
        push_u64(&mut out, s.st_size);
    }
    out
}

/// Parses relocation bytes: 16-byte REL entries, or 24-byte RELA entries when `rela`.
pub fn parse_relocations(data: &[u8], rela: bool) -> Result<Vec<Relocation>, ElfError> {
    let es = if rela { 24 } else { 16 };
    if data.len() % es != 0 {
        return Err(ElfError::Malformed {
            what: "relocation section size",
            offset: data.len() as u64,
        });
    }
    let mut out = Vec::with_capacity(data.len() / es);
    for i in 0..(data.len() / es) as u64 {
        let o = i * es as u64;
        let info = u64_at(data, o + 8, "relocation")?;
        out.push(Relocation {
            r_offset: u64_at(data, o, "relocation")?,
            sym: (info >> 32) as u32,
            r_type: info as u32,
            addend: if rela {
                Some(u64_at(data, o + 16, "relocation")? as i64)
            } else {
                None
            },
        });
    }
    Ok(out)
}

/// Serialises relocations (RELA when the entries carry addends).
pub fn relocations_to_bytes(rels: &[Relocation]) -> Vec<u8> {
    let mut out = Vec::new();
    for r in rels {
        push_u64(&mut out, r.r_offset);
        push_u64(&mut out, ((r.sym as u64) << 32) | r.r_type as u64);
        if let Some(a) = r.addend {
            push_u64(&mut out, a as u64);
        }
    }
    out
}

impl Cubin {
    /// The symbols of `.symtab`.
    pub fn symbols(&self) -> Result<Vec<Symbol>, ElfError> {
        let i = self
            .symtab_index()
            .ok_or_else(|| ElfError::NoSection(".symtab".into()))?;
        let st = &self.sections[i];
        let strtab = self
            .sections
            .get(st.header.sh_link as usize)
            .map(|s| s.data.as_slice())
            .unwrap_or(&[]);
        parse_symbols(&st.data, strtab)
    }

    /// Replaces the symbols of `.symtab` (same count expected; names are not rewritten).
    pub fn set_symbols(&mut self, syms: &[Symbol]) -> Result<(), ElfError> {
        let i = self
            .symtab_index()
            .ok_or_else(|| ElfError::NoSection(".symtab".into()))?;
        self.sections[i].set_data(symbols_to_bytes(syms));
        Ok(())
    }

    /// Every relocation section: (section index, target section index, entries).
    pub fn relocation_sections(&self) -> Result<Vec<(usize, usize, Vec<Relocation>)>, ElfError> {
        let mut out = Vec::new();
        for (i, s) in self.sections.iter().enumerate() {
            let t = s.header.sh_type;
            if t == SHT_REL || t == SHT_RELA {
                out.push((
                    i,
                    s.header.sh_info as usize,
                    parse_relocations(&s.data, t == SHT_RELA)?,
                ));
            }
        }
        Ok(out)
    }

    /// Whether section `i` is the symbol table (for callers that walk sections).
    pub fn is_symtab(&self, i: usize) -> bool {
        self.sections
            .get(i)
            .is_some_and(|s| s.header.sh_type == SHT_SYMTAB)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symbol_and_relocation_round_trip() {
        let s = Symbol {
            name: String::new(),
            st_name: 5,
            st_info: 0x12,
            st_other: 0x10,
            st_shndx: 16,
            st_value: 0x40,
            st_size: 0x280,
        };
        let b = symbols_to_bytes(std::slice::from_ref(&s));
        let back = parse_symbols(&b, b"").unwrap();
        assert_eq!(back[0].st_size, 0x280);
        assert_eq!(symbols_to_bytes(&back), b);
        let r = vec![Relocation {
            r_offset: 0x20,
            sym: 3,
            r_type: 56,
            addend: Some(-4),
        }];
        let b = relocations_to_bytes(&r);
        assert_eq!(parse_relocations(&b, true).unwrap(), r);
        assert!(parse_relocations(&b[..23], true).is_err());
    }
}
