//! A cubin's module-scope `.global` variables (`__device__` variables: sections `.nv.global`,
//! zero-filled, and `.nv.global.init`, with initial bytes) placed in the emulator's global memory,
//! and the relocations that hand their addresses to the code, resolved as the CUDA driver does
//! when it loads a module:
//!
//! - data relocations into a module constant bank (`.rel(a).nv.constant4`: ptxas's table of
//!   variable addresses, read as `c[0x4][off]`) and into `.nv.global.init` (a variable initialised
//!   with another's address): `R_CUDA_32` (1, the low word), `R_CUDA_64` (2) and `R_CUDA_G64` (4)
//!   write the symbol's address plus the addend;
//! - code relocations (`.rel(a).text.<k>`, in relocatable and `nvlink`ed cubins):
//!   `R_CUDA_ABS32_LO_32` (56) and `R_CUDA_ABS32_HI_32` (57) patch the 32-bit immediate at bit 32
//!   of a `MOV`/`UMOV` (`32@lo(sym)`, `32@hi(sym)` in nvdisasm's text).
//!
//! A relocation against a `__constant__` variable (a generic pointer to it) gives an address in
//! the emulator's constant window ([`const_address`]), the window `cvta.const` reaches too.
//!
//! A REL entry's addend is the value already in place; a RELA entry carries it. Relocations
//! against anything else (functions, textures, an undefined symbol) are not guessed at: a
//! constant-bank slot the loader cannot resolve is refused with its reason when it is read, one
//! in `.nv.global.init` makes every launch of the module fail, and a code relocation leaves its
//! instruction refused with the reason when it executes.
//!
//! The variables are allocated in symbol-table order, one allocation each — the PTX emulator
//! allocates a module's `.global` variables the same way in declaration order, which is the
//! order ptxas writes their symbols — so a `.ptx` and its cubin put every variable and every
//! buffer argument at the same address. RegDem §3 (the emulator is the oracle for binary
//! rewrites); `sass-and-cubin-format.md` §8.5 (relocations).

use std::collections::HashMap;

use crate::emu::memory::{GlobalMem, CONST_BASE};
use crate::sass::elf::symbols::{Relocation, Symbol, STT_SECTION};
use crate::sass::elf::{Cubin, SHT_RELA};

use super::SassEmuError;

/// `st_info` type of a data symbol.
pub const STT_OBJECT: u8 = 1;
/// `st_info` type ptxas gives data symbols in relocatable cubins (`ptxas -c`).
pub const STT_CUDA_OBJECT: u8 = 13;
/// `R_CUDA_32`: the low 32 bits of the address.
const R_CUDA_32: u32 = 1;
/// `R_CUDA_64`: the 64-bit address.
const R_CUDA_64: u32 = 2;
/// `R_CUDA_G64`: the 64-bit address of a global variable (in `.nv.global.init`).
const R_CUDA_G64: u32 = 4;
/// `R_CUDA_ABS32_LO_32`: the low word into the immediate at bit 32 of an instruction.
const R_CUDA_ABS32_LO_32: u32 = 56;
/// `R_CUDA_ABS32_HI_32`: the high word into the immediate at bit 32 of an instruction.
const R_CUDA_ABS32_HI_32: u32 = 57;
/// The most bytes of module variables a cubin may ask for (a corrupt size must not allocate more).
const MAX_MODULE_BYTES: u64 = 1 << 30;

/// One module `.global` variable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GlobalVar {
    /// The symbol's name.
    pub name: String,
    /// Its allocation in [`ModuleGlobals::mem`].
    pub alloc: u32,
    /// The section it lives in.
    section: usize,
    /// Its offset in that section.
    offset: u64,
    /// Its size in bytes.
    size: u64,
}

/// A constant bank's bytes as the driver leaves them after relocation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BankPatch {
    /// The bank (`.nv.constant<bank>`).
    pub bank: u8,
    /// Byte offset in the bank.
    pub offset: usize,
    /// The bytes written there.
    pub bytes: Vec<u8>,
}

/// Bytes of a module constant bank whose relocation the loader could not resolve: a read of them
/// is refused with `why` (a `printf` kernel's `c[0x4]` slot holding `vprintf`'s address must not
/// stop the other kernels of its module).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnresolvedSlot {
    /// The bank.
    pub bank: u8,
    /// The first byte.
    pub offset: usize,
    /// How many bytes.
    pub len: usize,
    /// Why the address is not given.
    pub why: String,
}

impl UnresolvedSlot {
    /// Whether `[offset, offset + len)` of `bank` overlaps the slot.
    pub fn overlaps(&self, bank: u8, offset: usize, len: usize) -> bool {
        bank == self.bank && offset < self.offset + self.len && self.offset < offset + len
    }
}

/// A code relocation's outcome for one instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CodeValue {
    /// The 32-bit immediate that replaces `32@lo(…)`/`32@hi(…)`.
    Word {
        /// Which half of the address.
        high: bool,
        /// The value.
        value: u32,
    },
    /// A shared variable's offset in its kernel's shared memory (`` `(sym)` `` or
    /// `` `((sym + 0x20))` `` in nvdisasm's text, in relocatable cubins): the symbol and its
    /// offset, to which the printed addend is added.
    Shared {
        /// The symbol's name as nvdisasm prints it.
        name: String,
        /// Its offset in the kernel's `.nv.shared.<k>` ([`shared_symbol`]).
        offset: u64,
    },
    /// Why the immediate has no value in the emulator.
    Unresolved(String),
}

impl CodeValue {
    /// The instruction text `text` with the relocated operand replaced by its value, or why it
    /// cannot be.
    pub fn apply(&self, text: &str) -> Result<String, String> {
        match self {
            CodeValue::Word { high, value } => {
                substitute_word(text, *high, *value).ok_or_else(|| {
                    "a relocation names this instruction, but its text has no 32@lo/32@hi operand"
                        .to_string()
                })
            }
            CodeValue::Shared { name, offset } => substitute_symbol(text, name, *offset)
                .ok_or_else(|| {
                    format!(
                        "a relocation against `{name}` names this instruction, but its text has \
                         no `({name} [+ 0xN])` operand"
                    )
                }),
            CodeValue::Unresolved(why) => Err(why.clone()),
        }
    }
}

/// The module's `.global` variables, placed and relocated.
#[derive(Clone, Debug, Default)]
pub struct ModuleGlobals {
    /// Global memory holding every variable (initialised), before any argument is allocated.
    pub mem: GlobalMem,
    /// The variables, in allocation order.
    pub vars: Vec<GlobalVar>,
    /// What the relocations write into module constant banks.
    pub bank_patches: Vec<BankPatch>,
    /// Code relocations: (text section index, instruction offset) → value.
    pub code: HashMap<(usize, u64), CodeValue>,
    /// Relocations into `.nv.global.init` that could not be resolved, each with why (a launch
    /// refuses them: the variable's bytes would be wrong).
    pub unresolved: Vec<String>,
    /// Constant-bank bytes whose relocation could not be resolved (a read refuses them).
    pub unresolved_slots: Vec<UnresolvedSlot>,
    /// Module constant sections: section index → bank.
    const_sections: HashMap<usize, u8>,
}

impl ModuleGlobals {
    /// Places `cubin`'s `.global` variables and resolves the relocations against them.
    pub fn load(cubin: &Cubin) -> Result<ModuleGlobals, SassEmuError> {
        let symbols = cubin
            .symbols()
            .map_err(|e| SassEmuError::Cubin(e.to_string()))?;
        let mut g = place_variables(cubin, &symbols)?;
        g.const_sections = (cubin.sections.iter().enumerate())
            .filter_map(|(i, sec)| Some((i, module_bank(&sec.name)?)))
            .collect();
        let sections = cubin
            .relocation_sections()
            .map_err(|e| SassEmuError::Cubin(e.to_string()))?;
        for (ri, target, rels) in sections {
            let rela = cubin.sections[ri].header.sh_type == SHT_RELA;
            let Some(t) = cubin.sections.get(target) else {
                continue;
            };
            if is_global_section(&t.name) {
                for r in &rels {
                    g.relocate_variable(cubin, &symbols, target, r);
                }
            } else if let Some(bank) = module_bank(&t.name) {
                for r in &rels {
                    g.relocate_bank(&symbols, bank, &t.data, r);
                }
            } else if t.name.starts_with(".text.") {
                for r in &rels {
                    let value = if let Some(v) = shared_symbol(cubin, &symbols, target, r) {
                        v
                    } else if is_code_word(r.r_type) {
                        g.code_word(&symbols, &t.data, r, rela)
                    } else {
                        continue;
                    };
                    g.code.insert((target, r.r_offset), value);
                }
            }
        }
        Ok(g)
    }

    /// The address `sym + addend` has in the emulator's memory.
    fn address(&self, symbols: &[Symbol], sym: u32, addend: i64) -> Result<u64, String> {
        let s = symbols
            .get(sym as usize)
            .ok_or_else(|| format!("symbol {sym} is not in the symbol table"))?;
        let section = usize::from(s.st_shndx);
        if let Some(bank) = self.const_sections.get(&section) {
            return const_symbol_address(*bank, s, addend);
        }
        let (v, offset) = match s.kind() {
            // The variable the symbol names; the addend may point past it, as in the PTX.
            STT_OBJECT | STT_CUDA_OBJECT => (
                self.vars
                    .iter()
                    .find(|v| v.section == section && v.offset == s.st_value && v.name == s.name),
                addend,
            ),
            // A section symbol: the variable holding the addend's byte.
            STT_SECTION => {
                let at = addend as u64;
                let v = self
                    .vars
                    .iter()
                    .find(|v| v.section == section && v.offset <= at && at < v.offset + v.size);
                (v, v.map_or(0, |v| at.wrapping_sub(v.offset) as i64))
            }
            k => {
                return Err(format!(
                    "`{}` (symbol type {k}) has no address the emulator gives",
                    s.name
                ))
            }
        };
        let v = v.ok_or_else(|| {
            format!(
                "`{}`{addend:+} is not a module `.global` variable",
                if s.name.is_empty() {
                    "a section"
                } else {
                    &s.name
                }
            )
        })?;
        Ok(self.mem.allocs[v.alloc as usize]
            .base
            .wrapping_add(offset as u64))
    }

    /// A data relocation into `.nv.global.init`: the address written into the variable it lands in.
    fn relocate_variable(
        &mut self,
        cubin: &Cubin,
        symbols: &[Symbol],
        target: usize,
        r: &Relocation,
    ) {
        let what = |why: &str| {
            format!(
                "relocation of type {} at {}+{:#x}: {why}",
                r.r_type, cubin.sections[target].name, r.r_offset
            )
        };
        let Some(width) = data_width(r.r_type) else {
            self.unresolved
                .push(what("not a type the emulator applies"));
            return;
        };
        let Some(v) = self.vars.iter().find(|v| {
            v.section == target && v.offset <= r.r_offset && r.r_offset + width <= v.offset + v.size
        }) else {
            self.unresolved.push(what("not inside a variable"));
            return;
        };
        let (alloc, at) = (v.alloc as usize, (r.r_offset - v.offset) as usize);
        let addend = r
            .addend
            .unwrap_or_else(|| in_place(&self.mem.allocs[alloc].data, at, width));
        match self.address(symbols, r.sym, addend) {
            Ok(a) => self.mem.allocs[alloc].data[at..at + width as usize]
                .copy_from_slice(&a.to_le_bytes()[..width as usize]),
            Err(why) => self.unresolved.push(what(&why)),
        }
    }

    /// A data relocation into module constant bank `bank` (section bytes `data`): the address
    /// patched into the bank, or the slot refused when it cannot be given.
    fn relocate_bank(&mut self, symbols: &[Symbol], bank: u8, data: &[u8], r: &Relocation) {
        let what = |why: &str| {
            format!(
                "relocation of type {} at c[{bank:#x}][{:#x}]: {why}",
                r.r_type, r.r_offset
            )
        };
        let at = r.r_offset as usize;
        let slot = |len: u64, why: String| UnresolvedSlot {
            bank,
            offset: at,
            len: len as usize,
            why,
        };
        let Some(width) = data_width(r.r_type) else {
            // The width is not known either: the slot's first word, at least.
            let s = slot(8, what("not a type the emulator applies"));
            self.unresolved_slots.push(s);
            return;
        };
        if r.r_offset + width > 0x10000 {
            self.unresolved.push(what("outside the 64 KiB bank"));
            return;
        }
        let addend = r.addend.unwrap_or_else(|| in_place(data, at, width));
        match self.address(symbols, r.sym, addend) {
            Ok(a) => self.bank_patches.push(BankPatch {
                bank,
                offset: at,
                bytes: a.to_le_bytes()[..width as usize].to_vec(),
            }),
            Err(why) => {
                let s = slot(width, what(&why));
                self.unresolved_slots.push(s);
            }
        }
    }

    /// A code relocation's immediate (`text`: the code section's bytes).
    fn code_word(&self, symbols: &[Symbol], text: &[u8], r: &Relocation, rela: bool) -> CodeValue {
        // The immediate field is bits 32..64 of the instruction; a REL addend is what it holds.
        let addend = match r.addend {
            Some(a) if rela => a,
            _ => in_place(text, r.r_offset as usize + 4, 4),
        };
        match self.address(symbols, r.sym, addend) {
            Ok(a) => {
                let high = r.r_type == R_CUDA_ABS32_HI_32;
                CodeValue::Word {
                    high,
                    value: if high { (a >> 32) as u32 } else { a as u32 },
                }
            }
            Err(why) => CodeValue::Unresolved(format!(
                "its immediate is relocated (type {}): {why}",
                r.r_type
            )),
        }
    }
}

/// The generic address of `sym + addend` in module constant bank `bank` (a `__constant__`
/// variable reached through a generic pointer): [`const_address`], which the SASS emulator
/// reads from that bank (and refuses to write). The PTX emulator's
/// generic constant addresses use its own layout, so the two emulators agree on what such a
/// pointer reads, not on its value.
fn const_symbol_address(bank: u8, s: &Symbol, addend: i64) -> Result<u64, String> {
    let base = if is_data(s) { s.st_value } else { 0 };
    let off = base.wrapping_add(addend as u64);
    if off >= 0x10000 {
        return Err(format!(
            "`{}`{addend:+} lies outside constant bank {bank}",
            s.name
        ));
    }
    Ok(const_address(bank, off))
}

/// The bank ptxas puts `__constant__` variables in (sm_80–sm_90).
pub const USER_CONST_BANK: u8 = 3;

/// The generic address of byte `offset` (< 64 KiB) of constant bank `bank` in the SASS
/// emulator: `CONST_BASE + bank·2¹⁶ + offset`.
pub fn const_address(bank: u8, offset: u64) -> u64 {
    CONST_BASE + (u64::from(bank) << 16) + offset
}

/// The (bank, offset) an address of the constant window names, given as its offset from
/// `CONST_BASE` (the inverse of [`const_address`]).
pub fn const_bank_offset(window_offset: u64) -> (u8, usize) {
    (
        (window_offset >> 16) as u8,
        (window_offset & 0xffff) as usize,
    )
}

/// A code relocation against a shared variable of the kernel whose code section is `text` (in a
/// relocatable cubin every shared variable's offset is relocated, and the symbol's value is its
/// alignment: `nvlink` places the variables). Resolved only where the placement is not a
/// choice — the kernel's `.nv.shared.<k>` holds this one variable, at offset 0, on sm_80–89;
/// with several, or on sm_90 (a reserved area comes first), the layout is the linker's and the
/// instruction is refused.
fn shared_symbol(
    cubin: &Cubin,
    symbols: &[Symbol],
    text: usize,
    r: &Relocation,
) -> Option<CodeValue> {
    let s = symbols.get(r.sym as usize)?;
    let section = usize::from(s.st_shndx);
    let sec = cubin.sections.get(section)?;
    let kernel = cubin.sections[text].name.strip_prefix(".text.")?;
    let owner = sec.name.strip_prefix(".nv.shared.")?;
    let vars = symbols
        .iter()
        .filter(|v| usize::from(v.st_shndx) == section && is_data(v))
        .count();
    if cubin.sm() >= 90 {
        // sm_90 code finds its variables past a reserved area the linker adds (`__UDT_OFFSET`).
        return Some(CodeValue::Unresolved(format!(
            "`{}`: shared variables of an sm_90 relocatable cubin are placed by the linker, \
             after a reserved area",
            s.name
        )));
    }
    Some(match (owner == kernel && is_data(s), vars) {
        (true, 1) if s.st_size <= sec.size() => CodeValue::Shared {
            name: s.name.clone(),
            offset: 0,
        },
        (true, n) => CodeValue::Unresolved(format!(
            "`{}` is one of {n} shared variables of a relocatable cubin, whose offsets the \
             linker chooses",
            s.name
        )),
        (false, _) => CodeValue::Unresolved(format!(
            "its shared-memory offset is relocated against `{}` of {}, not a variable of this \
             kernel",
            s.name, sec.name
        )),
    })
}

/// `text` with the first `` `(name)` `` or `` `((name + 0xN))` `` replaced by `offset` (+ N)
/// (`None` when the text has no such expression).
fn substitute_symbol(text: &str, name: &str, offset: u64) -> Option<String> {
    let start = text.find("`(")?;
    let end = start + 1 + balanced_len(&text[start + 1..])?;
    let inner = text[start + 1..end].trim_matches(|c| c == '(' || c == ')');
    let (sym, add) = match inner.split_once('+') {
        Some((a, b)) => {
            let b = b.trim().strip_prefix("0x")?;
            (a.trim(), u64::from_str_radix(b, 16).ok()?)
        }
        None => (inner.trim(), 0),
    };
    (sym == name).then(|| format!("{}{:#x}{}", &text[..start], offset + add, &text[end..]))
}

/// The length of the parenthesised group `s` starts with (`None` when it is not closed).
fn balanced_len(s: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// Allocates every `.global` variable of `symbols` in order, with its initial bytes.
fn place_variables(cubin: &Cubin, symbols: &[Symbol]) -> Result<ModuleGlobals, SassEmuError> {
    let mut g = ModuleGlobals::default();
    let mut total = 0u64;
    for s in symbols {
        let section = usize::from(s.st_shndx);
        let Some(sec) = cubin.sections.get(section) else {
            continue;
        };
        if !is_data(s) || !is_global_section(&sec.name) {
            continue;
        }
        total = total.saturating_add(s.st_size);
        let end = s.st_value.checked_add(s.st_size);
        if total > MAX_MODULE_BYTES || end.is_none_or(|e| e > sec.size()) {
            return Err(SassEmuError::Cubin(format!(
                "module variable `{}` ({} bytes at {:#x} of {}) does not fit its section or the \
                 emulator's {} MiB of module variables",
                s.name,
                s.st_size,
                s.st_value,
                sec.name,
                MAX_MODULE_BYTES >> 20
            )));
        }
        let data = if sec.is_nobits() {
            vec![0; s.st_size as usize]
        } else {
            sec.data[s.st_value as usize..(s.st_value + s.st_size) as usize].to_vec()
        };
        let align = sec.header.sh_addralign.max(1);
        let (alloc, _) = g.mem.alloc(&s.name, data, align);
        g.vars.push(GlobalVar {
            name: s.name.clone(),
            alloc,
            section,
            offset: s.st_value,
            size: s.st_size,
        });
    }
    Ok(g)
}

/// Whether `s` is a named data symbol.
pub fn is_data(s: &Symbol) -> bool {
    matches!(s.kind(), STT_OBJECT | STT_CUDA_OBJECT) && !s.name.is_empty()
}

/// `.nv.global` or `.nv.global.init`.
fn is_global_section(name: &str) -> bool {
    matches!(name, ".nv.global" | ".nv.global.init")
}

/// The bank of a module-level constant section (`.nv.constant<N>`, no kernel suffix, N ≠ 0).
fn module_bank(name: &str) -> Option<u8> {
    let n = name.strip_prefix(".nv.constant")?.parse::<u8>().ok()?;
    (n != 0).then_some(n)
}

/// Bytes a data relocation of `r_type` writes.
fn data_width(r_type: u32) -> Option<u64> {
    match r_type {
        R_CUDA_32 => Some(4),
        R_CUDA_64 | R_CUDA_G64 => Some(8),
        _ => None,
    }
}

/// Whether `r_type` patches a 32-bit instruction immediate the loader resolves.
fn is_code_word(r_type: u32) -> bool {
    matches!(r_type, R_CUDA_ABS32_LO_32 | R_CUDA_ABS32_HI_32)
}

/// The little-endian value of `width` bytes at `at` (0 past the end), sign-extended from 32 bits
/// for a 4-byte field (an addend).
fn in_place(data: &[u8], at: usize, width: u64) -> i64 {
    let mut b = [0u8; 8];
    if let Some(s) = data.get(at..at + width as usize) {
        b[..s.len()].copy_from_slice(s);
    }
    if width == 4 {
        i64::from(i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    } else {
        i64::from_le_bytes(b)
    }
}

/// `text` with the `32@lo(…)` or `32@hi(…)` operand replaced by `value` (`None` when the text
/// has no such operand).
fn substitute_word(text: &str, high: bool, value: u32) -> Option<String> {
    let key = if high { "32@hi(" } else { "32@lo(" };
    let start = text.find(key)?;
    let end = start + 5 + balanced_len(&text[start + 5..])?;
    Some(format!("{}{value:#x}{}", &text[..start], &text[end..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relocated_operands_become_immediates() {
        assert_eq!(
            substitute_word("UMOV UR4, 32@lo(arr) ;", false, 0x1234).as_deref(),
            Some("UMOV UR4, 0x1234 ;")
        );
        assert_eq!(
            substitute_word("MOV R3, 32@hi((arr+0x8)) ;", true, 7).as_deref(),
            Some("MOV R3, 0x7 ;")
        );
        assert_eq!(substitute_word("MOV R3, 32@hi(arr) ;", false, 7), None);
        assert_eq!(substitute_word("MOV R3, 32@lo(arr ;", false, 7), None);
    }

    #[test]
    fn relocated_shared_offsets_become_immediates() {
        assert_eq!(
            substitute_symbol("@!P0 STS [R61+`($__xbuf__8)], R60 ;", "$__xbuf__8", 4).as_deref(),
            Some("@!P0 STS [R61+0x4], R60 ;")
        );
        assert_eq!(
            substitute_symbol("LDS R6, [R2.X4+`(($sp + 0x20))] ;", "$sp", 0x10).as_deref(),
            Some("LDS R6, [R2.X4+0x30] ;")
        );
        assert_eq!(
            substitute_symbol("UMOV UR4, `($buf) ;", "$buf", 0).as_deref(),
            Some("UMOV UR4, 0x0 ;")
        );
        assert_eq!(substitute_symbol("UMOV UR4, `($buf) ;", "$other", 0), None);
        assert_eq!(
            substitute_symbol("UMOV UR4, `(($buf - 0x4)) ;", "$buf", 8),
            None
        );
        assert_eq!(
            substitute_symbol("UMOV UR4, `(($buf + 0x4) ;", "$buf", 8),
            None
        );
    }

    #[test]
    fn rel_addends_are_read_in_place_and_sign_extended() {
        let d = [0xfc, 0xff, 0xff, 0xff, 1, 0, 0, 0];
        assert_eq!(in_place(&d, 0, 4), -4);
        assert_eq!(in_place(&d, 0, 8), 0x1_ffff_fffc);
        assert_eq!(in_place(&d, 6, 4), 0, "past the end reads zero");
    }

    #[test]
    fn only_module_level_constant_banks_are_relocated_here() {
        assert_eq!(module_bank(".nv.constant4"), Some(4));
        assert_eq!(module_bank(".nv.constant0"), None);
        assert_eq!(module_bank(".nv.constant0.k"), None);
        assert_eq!(module_bank(".nv.constant3.k"), None);
    }
}
