//! NVIDIA cubins as ELF64 files: a reader and a writer of our own (no ELF crate), built so that
//! reading then writing an unmodified cubin gives back identical bytes.
//!
//! Reference: `sass-and-cubin-format.md` §8 (header, per-kernel sections, `.nv.info`, relocations,
//! layout rules when resizing) and §2.3 (what CuAssembler rewrites).
//!
//! A [`Cubin`] holds the ELF header, every section (header plus bytes; `SHT_NOBITS` sections have
//! no bytes) and every program header. The file layout — the order of sections, section-header
//! table and program-header table in the file, and the padding between them — is recorded when
//! the file is read. [`Cubin::to_bytes`] writes everything back at its recorded offset, so an
//! unmodified cubin is reproduced byte for byte. After a size change, [`Cubin::relayout`] moves
//! the items with the rule ptxas uses (each item at the next offset aligned to its alignment, plus
//! whatever extra padding it had originally), then updates `e_shoff`, `e_phoff` and the program
//! headers (`PT_PHDR`, and `PT_LOAD` ranges over the sections they covered; memory sizes follow
//! `.nv.shared.*` size changes).
//!
//! Typed views: [`symbols`] (`.symtab`, `.rel`/`.rela` entries), [`nvinfo`] (`.nv.info` attribute
//! records), [`debug_frame`] (code offsets inside `.debug_frame`).
//!
//! Invariants after [`Cubin::parse`]: every non-NOBITS section's bytes lie inside the file, the
//! section names resolve, `e_shentsize` = 64 and `e_phentsize` = 56.

pub mod bytes;
pub mod debug_frame;
pub mod debug_line;
pub mod launch_attrs;
pub mod nvinfo;
pub mod symbols;

use bytes::{align_up, put, u16_at, u32_at, u64_at};

/// `e_machine` of CUDA cubins.
pub const EM_CUDA: u16 = 190;
/// `e_type` of a relocatable cubin (`ptxas -c`, what `nvlink` links).
pub const ET_REL: u16 = 1;
/// Section type: inactive header.
pub const SHT_NULL: u32 = 0;
/// Section type: program data.
pub const SHT_PROGBITS: u32 = 1;
/// Section type: symbol table.
pub const SHT_SYMTAB: u32 = 2;
/// Section type: string table.
pub const SHT_STRTAB: u32 = 3;
/// Section type: relocations with explicit addends.
pub const SHT_RELA: u32 = 4;
/// Section type: occupies no file space (`.nv.shared.*`, `.nv.global`).
pub const SHT_NOBITS: u32 = 8;
/// `.nv.shared.<k>` in a relocatable cubin (`ptxas -c`): like `SHT_NOBITS`, no bytes in the file
/// (ET_EXEC cubins give these sections `SHT_NOBITS`).
pub const SHT_CUDA_SHARED: u32 = 0x7000_000a;
/// `.nv.global` in a relocatable cubin: like `SHT_NOBITS`, no bytes in the file (its `sh_offset`
/// is that of the next item, often the section header table).
pub const SHT_CUDA_GLOBAL: u32 = 0x7000_0007;
/// Section type: relocations without addends.
pub const SHT_REL: u32 = 9;
/// Section type: `.nv.info` and `.nv.info.<kernel>`.
pub const SHT_CUDA_INFO: u32 = 0x7000_0000;
/// Section type: `.nv.callgraph`.
pub const SHT_CUDA_CALLGRAPH: u32 = 0x7000_0001;
/// Section type: `.nv.rel.action`.
pub const SHT_CUDA_RELOCINFO: u32 = 0x7000_000b;
/// Section flag: writable.
pub const SHF_WRITE: u64 = 1;
/// Section flag: occupies memory at run time.
pub const SHF_ALLOC: u64 = 2;
/// Section flag: executable.
pub const SHF_EXECINSTR: u64 = 4;
/// Section flag: `sh_info` holds a section index.
pub const SHF_INFO_LINK: u64 = 0x40;
/// Program header type: loadable segment.
pub const PT_LOAD: u32 = 1;
/// Program header type: the program-header table itself.
pub const PT_PHDR: u32 = 6;
/// Program header flag: writable.
pub const PF_W: u32 = 2;
/// Program header flag: readable.
pub const PF_R: u32 = 4;

const EHDR_SIZE: u64 = 64;
const SHDR_SIZE: u64 = 64;
const PHDR_SIZE: u64 = 56;

/// Errors of reading or editing a cubin.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ElfError {
    /// The file does not start with the ELF magic.
    #[error("not an ELF file (bad magic)")]
    BadMagic,
    /// An ELF feature cubins never use (32-bit, big-endian, another machine, extended numbering).
    #[error("unsupported ELF file: {0}")]
    Unsupported(String),
    /// A structure lies (partly) outside the file or its table, or is inconsistent.
    #[error("malformed cubin: {what} at offset {offset:#x}")]
    Malformed {
        /// What was being read.
        what: &'static str,
        /// Where (file offset, or offset within the section being decoded).
        offset: u64,
    },
    /// A section the operation needs does not exist.
    #[error("no section {0}")]
    NoSection(String),
    /// A kernel the operation names does not exist.
    #[error("no kernel {0}")]
    NoKernel(String),
    /// The requested change cannot be represented.
    #[error("cannot edit cubin: {0}")]
    Edit(String),
}

/// The ELF64 file header.
#[derive(Debug, Clone, PartialEq, Eq)]
#[allow(missing_docs, reason = "fields are named as in elf.h")]
pub struct ElfHeader {
    pub ident: [u8; 16],
    pub e_type: u16,
    pub e_machine: u16,
    pub e_version: u32,
    pub e_entry: u64,
    pub e_phoff: u64,
    pub e_shoff: u64,
    pub e_flags: u32,
    pub e_ehsize: u16,
    pub e_phentsize: u16,
    pub e_phnum: u16,
    pub e_shentsize: u16,
    pub e_shnum: u16,
    pub e_shstrndx: u16,
}

/// An ELF64 section header.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[allow(missing_docs, reason = "fields are named as in elf.h")]
pub struct SectionHeader {
    pub sh_name: u32,
    pub sh_type: u32,
    pub sh_flags: u64,
    pub sh_addr: u64,
    pub sh_offset: u64,
    pub sh_size: u64,
    pub sh_link: u32,
    pub sh_info: u32,
    pub sh_addralign: u64,
    pub sh_entsize: u64,
}

/// An ELF64 program header.
#[derive(Debug, Clone, PartialEq, Eq)]
#[allow(missing_docs, reason = "fields are named as in elf.h")]
pub struct ProgramHeader {
    pub p_type: u32,
    pub p_flags: u32,
    pub p_offset: u64,
    pub p_vaddr: u64,
    pub p_paddr: u64,
    pub p_filesz: u64,
    pub p_memsz: u64,
    pub p_align: u64,
}

/// One section: its name (from `.shstrtab`), header and contents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    /// The section's name.
    pub name: String,
    /// The header; for sections with contents, `sh_size` is rewritten from `data` on output.
    pub header: SectionHeader,
    /// The contents (empty for `SHT_NOBITS`).
    pub data: Vec<u8>,
}

impl Section {
    /// Whether the section occupies no file space.
    pub fn is_nobits(&self) -> bool {
        matches!(
            self.header.sh_type,
            SHT_NOBITS | SHT_CUDA_SHARED | SHT_CUDA_GLOBAL
        )
    }

    /// The section's size: its bytes, or `sh_size` for `SHT_NOBITS`.
    pub fn size(&self) -> u64 {
        if self.is_nobits() {
            self.header.sh_size
        } else {
            self.data.len() as u64
        }
    }

    fn file_size(&self) -> u64 {
        if self.is_nobits() {
            0
        } else {
            self.data.len() as u64
        }
    }

    /// Replaces the contents (and `sh_size`).
    pub fn set_data(&mut self, data: Vec<u8>) {
        self.header.sh_size = data.len() as u64;
        self.data = data;
    }
}

/// A thing placed in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Item {
    Section(usize),
    SectionHeaders,
    ProgramHeaders,
}

/// Which placed items a program header covers (recorded when read, used by relayout).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct SegmentCover {
    /// File-backed items inside `[p_offset, p_offset + p_filesz)`.
    file: Vec<Item>,
    /// `p_offset` minus the offset of the first file item.
    lead: u64,
    /// End of the last file item to `p_offset + p_filesz`.
    tail: u64,
    /// NOBITS sections whose memory the segment holds, with the sizes last seen.
    nobits: Vec<(usize, u64)>,
}

/// The recorded file layout.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct Layout {
    /// Items in file order, with the padding beyond alignment each had before it.
    items: Vec<(Item, u64)>,
    /// Bytes outside every item that were not zero (kept so that round trips are exact).
    fill: Vec<(u64, Vec<u8>)>,
    /// Bytes after the last item.
    trailing: u64,
    /// Per program header.
    covers: Vec<SegmentCover>,
}

/// A cubin: header, sections and program headers, with the layout they were read with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cubin {
    /// The ELF header (`e_shnum`/`e_phnum`/offsets are rewritten from the model on output).
    pub header: ElfHeader,
    /// Every section, by section index (index 0 is the null section).
    pub sections: Vec<Section>,
    /// Every program header.
    pub segments: Vec<ProgramHeader>,
    layout: Layout,
}

fn read_header(d: &[u8]) -> Result<ElfHeader, ElfError> {
    if d.len() < 4 || &d[..4] != b"\x7fELF" {
        return Err(ElfError::BadMagic);
    }
    if d.len() < EHDR_SIZE as usize {
        return Err(ElfError::Malformed {
            what: "ELF header",
            offset: 0,
        });
    }
    if d[4] != 2 {
        return Err(ElfError::Unsupported("not ELF64".into()));
    }
    if d[5] != 1 {
        return Err(ElfError::Unsupported("not little-endian".into()));
    }
    let mut ident = [0u8; 16];
    ident.copy_from_slice(&d[..16]);
    let h = "ELF header";
    Ok(ElfHeader {
        ident,
        e_type: u16_at(d, 16, h)?,
        e_machine: u16_at(d, 18, h)?,
        e_version: u32_at(d, 20, h)?,
        e_entry: u64_at(d, 24, h)?,
        e_phoff: u64_at(d, 32, h)?,
        e_shoff: u64_at(d, 40, h)?,
        e_flags: u32_at(d, 48, h)?,
        e_ehsize: u16_at(d, 52, h)?,
        e_phentsize: u16_at(d, 54, h)?,
        e_phnum: u16_at(d, 56, h)?,
        e_shentsize: u16_at(d, 58, h)?,
        e_shnum: u16_at(d, 60, h)?,
        e_shstrndx: u16_at(d, 62, h)?,
    })
}

fn read_section_header(d: &[u8], off: u64) -> Result<SectionHeader, ElfError> {
    let w = "section header";
    Ok(SectionHeader {
        sh_name: u32_at(d, off, w)?,
        sh_type: u32_at(d, off + 4, w)?,
        sh_flags: u64_at(d, off + 8, w)?,
        sh_addr: u64_at(d, off + 16, w)?,
        sh_offset: u64_at(d, off + 24, w)?,
        sh_size: u64_at(d, off + 32, w)?,
        sh_link: u32_at(d, off + 40, w)?,
        sh_info: u32_at(d, off + 44, w)?,
        sh_addralign: u64_at(d, off + 48, w)?,
        sh_entsize: u64_at(d, off + 56, w)?,
    })
}

fn read_program_header(d: &[u8], off: u64) -> Result<ProgramHeader, ElfError> {
    let w = "program header";
    Ok(ProgramHeader {
        p_type: u32_at(d, off, w)?,
        p_flags: u32_at(d, off + 4, w)?,
        p_offset: u64_at(d, off + 8, w)?,
        p_vaddr: u64_at(d, off + 16, w)?,
        p_paddr: u64_at(d, off + 24, w)?,
        p_filesz: u64_at(d, off + 32, w)?,
        p_memsz: u64_at(d, off + 40, w)?,
        p_align: u64_at(d, off + 48, w)?,
    })
}

impl Cubin {
    /// Reads a cubin. Fails (never panics) on anything malformed or outside what cubins use.
    pub fn parse(d: &[u8]) -> Result<Cubin, ElfError> {
        let header = read_header(d)?;
        if header.e_machine != EM_CUDA {
            return Err(ElfError::Unsupported(format!(
                "e_machine {} is not EM_CUDA (190)",
                header.e_machine
            )));
        }
        if header.e_ehsize as u64 != EHDR_SIZE
            || header.e_shentsize as u64 != SHDR_SIZE
            || (header.e_phnum > 0 && header.e_phentsize as u64 != PHDR_SIZE)
        {
            return Err(ElfError::Unsupported(
                "unusual ELF header, section or program header size".into(),
            ));
        }
        if header.e_shnum == 0 {
            return Err(ElfError::Unsupported(
                "no section headers (or extended section numbering)".into(),
            ));
        }
        let len = d.len() as u64;
        let table_end = |off: u64, n: u16, size: u64, what: &'static str| {
            off.checked_add(n as u64 * size)
                .filter(|&e| e <= len)
                .ok_or(ElfError::Malformed { what, offset: off })
        };
        table_end(
            header.e_shoff,
            header.e_shnum,
            SHDR_SIZE,
            "section header table",
        )?;
        table_end(
            header.e_phoff,
            header.e_phnum,
            PHDR_SIZE,
            "program header table",
        )?;

        let mut headers = Vec::with_capacity(header.e_shnum as usize);
        for i in 0..header.e_shnum as u64 {
            headers.push(read_section_header(d, header.e_shoff + i * SHDR_SIZE)?);
        }
        let mut segments = Vec::with_capacity(header.e_phnum as usize);
        for i in 0..header.e_phnum as u64 {
            segments.push(read_program_header(d, header.e_phoff + i * PHDR_SIZE)?);
        }
        let mut sections = Vec::with_capacity(headers.len());
        for h in headers {
            let data = if matches!(h.sh_type, SHT_NOBITS | SHT_CUDA_SHARED | SHT_NULL) {
                Vec::new()
            } else {
                bytes::slice(d, h.sh_offset, h.sh_size, "section contents")?.to_vec()
            };
            sections.push(Section {
                name: String::new(),
                header: h,
                data,
            });
        }
        let strndx = header.e_shstrndx as usize;
        let shstr = sections
            .get(strndx)
            .filter(|s| s.header.sh_type == SHT_STRTAB)
            .map(|s| s.data.clone())
            .ok_or(ElfError::Malformed {
                what: "section name string table index",
                offset: 62,
            })?;
        for s in sections.iter_mut() {
            s.name = bytes::cstr(&shstr, s.header.sh_name as u64, "section name")?;
        }
        let mut cubin = Cubin {
            header,
            sections,
            segments,
            layout: Layout::default(),
        };
        cubin.record_layout(d);
        Ok(cubin)
    }

    fn item_offset(&self, item: Item) -> u64 {
        match item {
            Item::Section(i) => self.sections[i].header.sh_offset,
            Item::SectionHeaders => self.header.e_shoff,
            Item::ProgramHeaders => self.header.e_phoff,
        }
    }

    fn item_size(&self, item: Item) -> u64 {
        match item {
            Item::Section(i) => self.sections[i].file_size(),
            Item::SectionHeaders => self.sections.len() as u64 * SHDR_SIZE,
            Item::ProgramHeaders => self.segments.len() as u64 * PHDR_SIZE,
        }
    }

    fn item_align(&self, item: Item) -> u64 {
        match item {
            // Cubins align to at most 128; an absurd alignment (a damaged file) counts as 1 so
            // that a relayout cannot blow the file up.
            Item::Section(i) => match self.sections[i].header.sh_addralign {
                a if a.is_power_of_two() && a <= 4096 => a,
                _ => 1,
            },
            Item::SectionHeaders | Item::ProgramHeaders => 8,
        }
    }

    /// Records the order of items, their extra padding, non-zero gap bytes and what each program
    /// header covers, from the current (consistent) offsets.
    fn record_layout(&mut self, original: &[u8]) {
        let mut items: Vec<Item> = (1..self.sections.len()).map(Item::Section).collect();
        items.push(Item::SectionHeaders);
        if !self.segments.is_empty() {
            items.push(Item::ProgramHeaders);
        }
        items.sort_by_key(|&it| {
            let rank = match it {
                Item::Section(i) => i,
                Item::SectionHeaders => usize::MAX - 1,
                Item::ProgramHeaders => usize::MAX,
            };
            (self.item_offset(it), self.item_size(it) > 0, rank)
        });
        let mut prev_end = EHDR_SIZE;
        let mut placed = Vec::with_capacity(items.len());
        let mut fill = Vec::new();
        for it in items {
            let off = self.item_offset(it);
            let size = self.item_size(it);
            let aligned = align_up(prev_end, self.item_align(it));
            let extra = off.saturating_sub(aligned);
            if off > prev_end {
                if let Ok(gap) = bytes::slice(original, prev_end, off - prev_end, "gap") {
                    if gap.iter().any(|&b| b != 0) {
                        fill.push((prev_end, gap.to_vec()));
                    }
                }
            }
            placed.push((it, extra));
            if size > 0 {
                prev_end = prev_end.max(off.saturating_add(size));
            }
        }
        let len = original.len() as u64;
        if len > prev_end {
            if let Ok(tail) = bytes::slice(original, prev_end, len - prev_end, "tail") {
                if tail.iter().any(|&b| b != 0) {
                    fill.push((prev_end, tail.to_vec()));
                }
            }
        }
        let trailing = len.saturating_sub(prev_end);
        let covers = self.segments.iter().map(|p| self.cover_of(p)).collect();
        self.layout = Layout {
            items: placed,
            fill,
            trailing,
            covers,
        };
    }

    fn cover_of(&self, p: &ProgramHeader) -> SegmentCover {
        let mut cover = SegmentCover::default();
        if p.p_type == PT_PHDR {
            cover.file.push(Item::ProgramHeaders);
            cover.lead = p.p_offset.wrapping_sub(self.header.e_phoff);
            return cover;
        }
        let start = p.p_offset;
        let end = p.p_offset.saturating_add(p.p_filesz);
        let mut candidates: Vec<Item> = (1..self.sections.len()).map(Item::Section).collect();
        candidates.push(Item::SectionHeaders);
        candidates.push(Item::ProgramHeaders);
        for it in candidates {
            let size = self.item_size(it);
            let off = self.item_offset(it);
            if size > 0 && off >= start && off.saturating_add(size) <= end {
                cover.file.push(it);
            }
        }
        cover.file.sort_by_key(|&it| self.item_offset(it));
        if let (Some(&first), Some(&last)) = (cover.file.first(), cover.file.last()) {
            cover.lead = start.saturating_sub(self.item_offset(first));
            cover.tail = end.saturating_sub(self.item_offset(last) + self.item_size(last));
        }
        if p.p_flags & PF_W != 0 {
            for (i, s) in self.sections.iter().enumerate() {
                if s.is_nobits() && s.header.sh_offset == end {
                    cover.nobits.push((i, s.header.sh_size));
                }
            }
        }
        cover
    }

    /// Recomputes every file offset after sizes changed, keeping the order and extra padding the
    /// file was read with, then the program headers. A no-op on an unmodified cubin.
    pub fn relayout(&mut self) {
        let mut cursor = EHDR_SIZE;
        let items = self.layout.items.clone();
        for &(it, extra) in &items {
            let off = align_up(cursor, self.item_align(it)).saturating_add(extra);
            match it {
                Item::Section(i) => self.sections[i].header.sh_offset = off,
                Item::SectionHeaders => self.header.e_shoff = off,
                Item::ProgramHeaders => self.header.e_phoff = off,
            }
            let size = self.item_size(it);
            if size > 0 {
                cursor = cursor.max(off.saturating_add(size));
            }
        }
        for s in self.sections.iter_mut() {
            if !s.is_nobits() {
                s.header.sh_size = s.data.len() as u64;
            }
        }
        let covers = self.layout.covers.clone();
        for (k, cover) in covers.iter().enumerate() {
            let Some(p) = self.segments.get(k).cloned() else {
                continue;
            };
            let mut q = p.clone();
            if let (Some(&first), Some(&last)) = (cover.file.first(), cover.file.last()) {
                q.p_offset = self.item_offset(first).saturating_add(cover.lead);
                let end = self
                    .item_offset(last)
                    .saturating_add(self.item_size(last))
                    .saturating_add(cover.tail);
                q.p_filesz = end.saturating_sub(q.p_offset);
            } else if let Some(&(i, _)) = cover.nobits.first() {
                q.p_offset = self.sections[i].header.sh_offset;
            }
            let mut memsz = p.p_memsz as i128 + q.p_filesz as i128 - p.p_filesz as i128;
            for &(i, old) in &cover.nobits {
                memsz += self.sections[i].header.sh_size as i128 - old as i128;
            }
            q.p_memsz = memsz.clamp(0, u64::MAX as i128) as u64;
            self.segments[k] = q;
        }
        // Gap bytes no longer sit between the same items: drop them (they were padding).
        if !self.layout.fill.is_empty() {
            log::warn!("cubin relayout drops non-zero padding bytes between sections");
        }
        self.layout.fill.clear();
        let refreshed: Vec<SegmentCover> = self.segments.iter().map(|p| self.cover_of(p)).collect();
        // Keep the recorded cover when the new one lost members (e.g. an emptied segment).
        for (k, c) in refreshed.into_iter().enumerate() {
            if let Some(old) = self.layout.covers.get_mut(k) {
                if c.file.len() >= old.file.len() && c.nobits.len() >= old.nobits.len() {
                    *old = c;
                } else {
                    for n in old.nobits.iter_mut() {
                        n.1 = self.sections[n.0].header.sh_size;
                    }
                }
            }
        }
    }

    /// The file length the layout implies.
    fn file_len(&self) -> u64 {
        let mut end = EHDR_SIZE;
        for &(it, _) in &self.layout.items {
            let size = self.item_size(it);
            if size > 0 {
                end = end.max(self.item_offset(it).saturating_add(size));
            }
        }
        end.saturating_add(self.layout.trailing)
    }

    /// Writes the cubin. Every section, table and recorded gap byte goes to its offset; on an
    /// unmodified cubin this reproduces the input exactly.
    pub fn to_bytes(&self) -> Vec<u8> {
        let len = usize::try_from(self.file_len()).unwrap_or(usize::MAX);
        let mut out = vec![0u8; len];
        for (off, b) in &self.layout.fill {
            put(&mut out, *off as usize, b);
        }
        let h = &self.header;
        let mut e = Vec::with_capacity(64);
        e.extend_from_slice(&h.ident);
        bytes::push_u16(&mut e, h.e_type);
        bytes::push_u16(&mut e, h.e_machine);
        bytes::push_u32(&mut e, h.e_version);
        bytes::push_u64(&mut e, h.e_entry);
        bytes::push_u64(&mut e, h.e_phoff);
        bytes::push_u64(&mut e, h.e_shoff);
        bytes::push_u32(&mut e, h.e_flags);
        bytes::push_u16(&mut e, h.e_ehsize);
        bytes::push_u16(&mut e, h.e_phentsize);
        bytes::push_u16(&mut e, self.segments.len() as u16);
        bytes::push_u16(&mut e, h.e_shentsize);
        bytes::push_u16(&mut e, self.sections.len() as u16);
        bytes::push_u16(&mut e, h.e_shstrndx);
        put(&mut out, 0, &e);
        for s in &self.sections {
            if !s.is_nobits() && !s.data.is_empty() {
                put(&mut out, s.header.sh_offset as usize, &s.data);
            }
        }
        let mut t = Vec::with_capacity(self.sections.len() * 64);
        for s in &self.sections {
            let sh = &s.header;
            bytes::push_u32(&mut t, sh.sh_name);
            bytes::push_u32(&mut t, sh.sh_type);
            bytes::push_u64(&mut t, sh.sh_flags);
            bytes::push_u64(&mut t, sh.sh_addr);
            bytes::push_u64(&mut t, sh.sh_offset);
            bytes::push_u64(&mut t, s.size());
            bytes::push_u32(&mut t, sh.sh_link);
            bytes::push_u32(&mut t, sh.sh_info);
            bytes::push_u64(&mut t, sh.sh_addralign);
            bytes::push_u64(&mut t, sh.sh_entsize);
        }
        put(&mut out, h.e_shoff as usize, &t);
        let mut p = Vec::with_capacity(self.segments.len() * 56);
        for ph in &self.segments {
            bytes::push_u32(&mut p, ph.p_type);
            bytes::push_u32(&mut p, ph.p_flags);
            bytes::push_u64(&mut p, ph.p_offset);
            bytes::push_u64(&mut p, ph.p_vaddr);
            bytes::push_u64(&mut p, ph.p_paddr);
            bytes::push_u64(&mut p, ph.p_filesz);
            bytes::push_u64(&mut p, ph.p_memsz);
            bytes::push_u64(&mut p, ph.p_align);
        }
        if !self.segments.is_empty() {
            put(&mut out, h.e_phoff as usize, &p);
        }
        out
    }

    /// The SASS architecture number (80, 86, 89, 90, …) from `e_flags`: the low byte in the
    /// classic layout (EI_ABIVERSION 7), bits 8–15 in the newer one (§8.1).
    pub fn sm(&self) -> u32 {
        let f = self.header.e_flags;
        let low = f & 0xff;
        if self.header.ident[8] >= 8 || self.header.ident[7] == 0x41 || low == 0 {
            (f >> 8) & 0xff
        } else {
            low
        }
    }

    /// The index of the section called `name`.
    pub fn section_index(&self, name: &str) -> Option<usize> {
        self.sections.iter().position(|s| s.name == name)
    }

    /// The section called `name`.
    pub fn section(&self, name: &str) -> Option<&Section> {
        self.sections.iter().find(|s| s.name == name)
    }

    /// The index of the symbol table section.
    pub fn symtab_index(&self) -> Option<usize> {
        self.sections
            .iter()
            .position(|s| s.header.sh_type == SHT_SYMTAB)
    }

    /// Every code section (`.text.<name>`), as kernels/functions with their resources.
    pub fn functions(&self) -> Vec<Function> {
        self.sections
            .iter()
            .enumerate()
            .filter_map(|(i, s)| {
                let name = s.name.strip_prefix(".text.")?;
                (s.header.sh_flags & SHF_EXECINSTR != 0).then(|| Function {
                    name: name.to_string(),
                    text: i,
                    symbol: s.header.sh_info & 0x00ff_ffff,
                    regcount: s.header.sh_info >> 24,
                    barriers: ((s.header.sh_flags >> 20) & 0x1f) as u32,
                })
            })
            .collect()
    }

    /// The code section of function `name`.
    pub fn function(&self, name: &str) -> Result<Function, ElfError> {
        self.functions()
            .into_iter()
            .find(|f| f.name == name)
            .ok_or_else(|| ElfError::NoKernel(name.to_string()))
    }

    /// Appends a string to `.shstrtab` and returns its offset.
    fn add_section_name(&mut self, name: &str) -> Result<u32, ElfError> {
        let idx = self.header.e_shstrndx as usize;
        let s = self
            .sections
            .get_mut(idx)
            .ok_or_else(|| ElfError::NoSection(".shstrtab".into()))?;
        let off = s.data.len() as u32;
        let mut data = std::mem::take(&mut s.data);
        data.extend_from_slice(name.as_bytes());
        data.push(0);
        s.set_data(data);
        Ok(off)
    }

    /// The register count of function `f`: its `EIATTR_REGCOUNT` record in `.nv.info` (ptxas
    /// 12.9 leaves `sh_info[31:24]` zero on sm_90), else `sh_info[31:24]` of its `.text`.
    pub fn register_count(&self, f: &Function) -> u32 {
        self.section(".nv.info")
            .and_then(|s| nvinfo::NvInfo::parse_global(&s.data).ok())
            .and_then(|info| {
                info.records.iter().find_map(|r| match r.value {
                    nvinfo::Attribute::RegCount { sym, count } if sym == f.symbol => Some(count),
                    _ => None,
                })
            })
            .unwrap_or(f.regcount)
    }

    /// Sets the register count of function `name` in both places: the `.text` section's
    /// `sh_info[31:24]` and the `EIATTR_REGCOUNT` record of `.nv.info` (§0 item 5).
    pub fn set_register_count(&mut self, name: &str, regs: u32) -> Result<(), ElfError> {
        if regs > 255 {
            return Err(ElfError::Edit(format!("register count {regs} > 255")));
        }
        let f = self.function(name)?;
        let sh = &mut self.sections[f.text].header;
        sh.sh_info = (sh.sh_info & 0x00ff_ffff) | (regs << 24);
        let idx = self
            .section_index(".nv.info")
            .ok_or_else(|| ElfError::NoSection(".nv.info".into()))?;
        let mut info = nvinfo::NvInfo::parse(&self.sections[idx].data)?;
        let mut found = false;
        for r in info.records.iter_mut() {
            if let nvinfo::Attribute::RegCount { sym, count } = &mut r.value {
                if *sym == f.symbol {
                    *count = regs;
                    found = true;
                }
            }
        }
        if !found {
            return Err(ElfError::Edit(format!(
                "no EIATTR_REGCOUNT record for {name} in .nv.info"
            )));
        }
        self.sections[idx].set_data(info.to_bytes());
        Ok(())
    }

    /// The static shared-memory size of function `name` (`sh_size` of `.nv.shared.<name>`; 0
    /// when the section does not exist).
    pub fn shared_size(&self, name: &str) -> u64 {
        self.section(&format!(".nv.shared.{name}"))
            .map_or(0, |s| s.header.sh_size)
    }

    /// Sets the static shared-memory size of function `name` (§0 item 6). When the kernel has no
    /// `.nv.shared.<name>` section, one is appended (NOBITS, flags WA+INFO_LINK, align 16) and
    /// the writable `PT_LOAD` segment, created if need be, grows to hold it, and the file is laid
    /// out again.
    pub fn set_shared_size(&mut self, name: &str, size: u64) -> Result<(), ElfError> {
        if size > 0xC000 {
            return Err(ElfError::Edit(format!(
                "static shared memory {size} bytes exceeds the 48 KiB limit"
            )));
        }
        let f = self.function(name)?;
        let sec_name = format!(".nv.shared.{name}");
        if let Some(i) = self.section_index(&sec_name) {
            self.sections[i].header.sh_size = size;
            return Ok(());
        }
        if size == 0 {
            return Ok(());
        }
        let name_off = self.add_section_name(&sec_name)?;
        // Placed at the end of the file part of the writable segment (or after the last
        // NOBITS-free item).
        let rw = self
            .segments
            .iter()
            .position(|p| p.p_type == PT_LOAD && p.p_flags & PF_W != 0);
        let offset = match rw {
            Some(k) => self.segments[k].p_offset + self.segments[k].p_filesz,
            None => self.header.e_shoff,
        };
        let idx = self.sections.len();
        // A relocatable cubin has no segments; ptxas types its shared sections SHT_CUDA_SHARED.
        let relocatable = self.header.e_type == ET_REL;
        self.sections.push(Section {
            name: sec_name,
            header: SectionHeader {
                sh_name: name_off,
                sh_type: if relocatable {
                    SHT_CUDA_SHARED
                } else {
                    SHT_NOBITS
                },
                sh_flags: SHF_WRITE | SHF_ALLOC | SHF_INFO_LINK,
                sh_offset: offset,
                sh_size: size,
                sh_info: f.text as u32,
                sh_addralign: 16,
                ..Default::default()
            },
            data: Vec::new(),
        });
        // Insert the new section in the layout just before the section header table.
        let pos = self
            .layout
            .items
            .iter()
            .position(|(it, _)| *it == Item::SectionHeaders)
            .unwrap_or(self.layout.items.len());
        self.layout.items.insert(pos, (Item::Section(idx), 0));
        match rw {
            Some(k) => {
                if let Some(c) = self.layout.covers.get_mut(k) {
                    c.nobits.push((idx, 0));
                }
            }
            None if relocatable => {}
            None => {
                self.segments.push(ProgramHeader {
                    p_type: PT_LOAD,
                    p_flags: PF_R | PF_W,
                    p_offset: offset,
                    p_vaddr: 0,
                    p_paddr: 0,
                    p_filesz: 0,
                    p_memsz: 0,
                    p_align: 8,
                });
                self.layout.covers.push(SegmentCover {
                    nobits: vec![(idx, 0)],
                    ..Default::default()
                });
                // The PT_PHDR/LOAD segments covering the program-header table grow with it.
            }
        }
        self.relayout();
        Ok(())
    }
}

/// A code section and what its headers say about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Function {
    /// The name (section name without `.text.`).
    pub name: String,
    /// Index of the `.text.<name>` section.
    pub text: usize,
    /// Symbol index of the function (`sh_info[23:0]`).
    pub symbol: u32,
    /// Register count (`sh_info[31:24]`).
    pub regcount: u32,
    /// Barrier count (`sh_flags[24:20]`).
    pub barriers: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_garbage_without_panicking() {
        assert_eq!(Cubin::parse(b"").unwrap_err(), ElfError::BadMagic);
        assert!(!Cubin::parse(b"\x7fELF").unwrap_err().to_string().is_empty());
        let mut h = vec![0u8; 64];
        h[..4].copy_from_slice(b"\x7fELF");
        h[4] = 2;
        h[5] = 1;
        assert!(matches!(Cubin::parse(&h), Err(ElfError::Unsupported(_))));
    }
}
