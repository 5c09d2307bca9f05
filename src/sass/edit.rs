//! The editing API: insert and remove instructions in a kernel's code and have everything that
//! depends on code offsets follow.
//!
//! Reference: `sass-and-cubin-format.md` §0 item 7 (everything that stores code offsets), §2.2
//! (CuAssembler attaches offset attributes to instructions, not bytes), §6.4 (branch
//! arithmetic), §8.4–8.6 (EIATTR offsets, relocations, layout when resizing).
//!
//! An [`Editor`] holds the decoded instructions of one `.text.<k>` section. Every original
//! instruction `i` owns a group *before* it and a group *after* it; the new code is
//! `B0 i0 A0 B1 i1 A1 …` followed by NOP padding to a multiple of 128 bytes. Two maps follow:
//!
//! - *start* map: an old offset → the start of its before-group. Used for everything that
//!   enters code there: branch targets (BRA, BSSY, CALL.REL, BRX, WARPSYNC.COLLECTIVE …),
//!   indirect-branch targets and jump tables, function symbols, `.debug_frame` locations.
//!   Code inserted *before* an instruction thus runs on every path into it, and code inserted
//!   *after* it only on its fall-through path.
//! - *instruction* map: an old offset → the new offset of that very instruction. Used for what
//!   names an instruction: `*_INSTR_OFFSETS` attributes, the branch site of
//!   `INDIRECT_BRANCH_TARGETS`, relocation offsets.
//!
//! [`Editor::commit`] rewrites: the code, every relative branch field, return-address
//! immediates of `CALL.REL` (ptxas writes the return address as `MOV Rx, <offset>` before the
//! call), jump tables in `.nv.constant2.<k>` listed by `INDIRECT_BRANCH_TARGETS`, the
//! `.nv.info.<k>` offsets, relocation offsets and code-address addends, symbol values and sizes,
//! `.debug_frame`, the line programs of `-lineinfo` (`.debug_line`, `.nv_debug_line_sass`), then
//! the file layout. What it cannot follow makes it fail before anything is
//! changed (`EditError::Unsupported`).

use std::collections::{BTreeMap, BTreeSet};

use super::elf::debug_frame;
use super::elf::nvinfo::{Attribute, NvInfo};
use super::elf::symbols::{parse_relocations, relocations_to_bytes, Relocation};
use super::elf::{Cubin, ElfError, Function, SHT_RELA};
use super::isa::{decode_all, encode, Arch, Instruction};

/// Errors of editing.
#[derive(Debug, thiserror::Error)]
pub enum EditError {
    /// The cubin could not be read or changed.
    #[error(transparent)]
    Elf(#[from] ElfError),
    /// The kernel contains something the editor cannot keep consistent.
    #[error("cannot edit {kernel}: {reason}")]
    Unsupported {
        /// The kernel.
        kernel: String,
        /// Why.
        reason: String,
    },
    /// A position is outside the kernel's instructions.
    #[error("instruction index {0} out of range")]
    Index(usize),
    /// An instruction could not be changed.
    #[error(transparent)]
    Isa(#[from] super::isa::IsaError),
}

/// The canonical padding NOP (`NOP` with stall 0, no scoreboards; §0 item 7).
pub const PAD_NOP: u128 = 0x0000_0000_0000_7918 | (0x000f_c000_0000_0000u128 << 64);

#[derive(Debug, Clone)]
struct Slot {
    inst: Instruction,
    removed: bool,
    before: Vec<Instruction>,
    after: Vec<Instruction>,
}

/// What a commit changed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EditReport {
    /// Instructions inserted.
    pub inserted: usize,
    /// Instructions removed.
    pub removed: usize,
    /// Branch fields rewritten (changed value).
    pub branches: usize,
    /// Return-address immediates rewritten.
    pub return_addresses: usize,
    /// `.nv.info` offsets rewritten.
    pub attribute_offsets: usize,
    /// Relocations whose offset or addend changed.
    pub relocations: usize,
    /// Symbols whose value or size changed.
    pub symbols: usize,
    /// `.debug_frame` FDEs remapped.
    pub fdes: usize,
    /// Line-program sections (`.debug_line`, `.nv_debug_line_sass`) re-encoded.
    pub line_programs: usize,
    /// Jump-table entries rewritten.
    pub jump_table_entries: usize,
    /// Function-pointer table entries rewritten.
    pub function_pointers: usize,
    /// Old and new code size (with padding).
    pub size: (u64, u64),
}

/// An editable view of one kernel's code.
#[derive(Debug, Clone)]
pub struct Editor {
    /// The architecture.
    pub arch: Arch,
    /// The function being edited.
    pub function: Function,
    slots: Vec<Slot>,
    /// Original instructions before the trailing NOP padding.
    body: usize,
    /// Original section size.
    old_size: u64,
    /// (index of the immediate-setting instruction, index of the CALL) pairs.
    return_addresses: Vec<(usize, usize)>,
    /// (index of an sm_90 `LEPC`, index of the CALL whose return point it computes) pairs.
    lepc_returns: Vec<(usize, usize)>,
    /// Offsets of the functions of this section (FUNC symbols), for function-pointer tables.
    entries: BTreeSet<u64>,
    /// Whether the code calls through a register (`CALL.REL.NOINC Rx`).
    register_calls: bool,
}

fn unsupported(kernel: &str, reason: impl Into<String>) -> EditError {
    EditError::Unsupported {
        kernel: kernel.to_string(),
        reason: reason.into(),
    }
}

/// Mnemonics after which control does not simply fall through to the next instruction.
const BLOCK_ENDERS: &[&str] = &[
    "BRA", "BRX", "BRXU", "JMP", "JMX", "JMXU", "EXIT", "RET", "CALL", "BREAK", "BSYNC", "KILL",
    "BPT", "WARPSYNC",
];

impl Editor {
    /// Decodes the code of `kernel` for editing.
    pub fn new(cubin: &Cubin, kernel: &str) -> Result<Editor, EditError> {
        let sm = cubin.sm();
        let arch = Arch::from_sm(sm)
            .ok_or_else(|| unsupported(kernel, format!("architecture sm_{sm}")))?;
        let function = cubin.function(kernel)?;
        let code = &cubin.sections[function.text].data;
        if code.len() % 16 != 0 {
            return Err(unsupported(kernel, "code size is not a multiple of 16"));
        }
        let insts = decode_all(arch, code);
        let mut body = insts.len();
        while body > 0 && insts[body - 1].word == PAD_NOP {
            body -= 1;
        }
        let slots: Vec<Slot> = insts
            .into_iter()
            .map(|inst| Slot {
                inst,
                removed: false,
                before: Vec::new(),
                after: Vec::new(),
            })
            .collect();
        let mut ed = Editor {
            arch,
            function,
            slots,
            body,
            old_size: code.len() as u64,
            return_addresses: Vec::new(),
            lepc_returns: Vec::new(),
            entries: BTreeSet::new(),
            register_calls: false,
        };
        let entries: BTreeSet<u64> = cubin
            .symbols()?
            .iter()
            .filter(|s| {
                s.st_shndx as usize == ed.function.text && s.kind() == super::elf::symbols::STT_FUNC
            })
            .map(|s| s.st_value)
            .collect();
        ed.refuse_unknown_branches(kernel)?;
        ed.find_lepc_returns(kernel)?;
        ed.find_return_addresses(kernel, &entries)?;
        ed.register_calls = ed.slots[..ed.body]
            .iter()
            .any(|s| is_register_call(&s.inst));
        ed.entries = entries;
        Ok(ed)
    }

    /// The original instructions (index = old offset / 16), including the padding.
    pub fn instructions(&self) -> impl Iterator<Item = &Instruction> {
        self.slots.iter().map(|s| &s.inst)
    }

    /// Number of original instructions before the trailing padding.
    pub fn body_len(&self) -> usize {
        self.body
    }

    /// The original instruction at `i`.
    pub fn instruction(&self, i: usize) -> Option<&Instruction> {
        self.slots.get(i).map(|s| &s.inst)
    }

    /// Replaces the original instruction at `i` (its position and the maps are unchanged).
    pub fn replace(&mut self, i: usize, inst: Instruction) -> Result<(), EditError> {
        let s = self.slots.get_mut(i).ok_or(EditError::Index(i))?;
        s.inst = inst;
        Ok(())
    }

    /// Inserts `insts` before original instruction `i` (branches to `i` will enter them first).
    pub fn insert_before(&mut self, i: usize, insts: Vec<Instruction>) -> Result<(), EditError> {
        let s = self.slots.get_mut(i).ok_or(EditError::Index(i))?;
        s.before.extend(insts);
        Ok(())
    }

    /// Inserts `insts` after original instruction `i` (on its fall-through path only).
    pub fn insert_after(&mut self, i: usize, insts: Vec<Instruction>) -> Result<(), EditError> {
        let s = self.slots.get_mut(i).ok_or(EditError::Index(i))?;
        s.after.splice(0..0, insts);
        Ok(())
    }

    /// Removes original instruction `i`: branches to it go to what follows it, offset
    /// attributes naming it are dropped; relocations at it make [`Editor::commit`] fail.
    pub fn remove(&mut self, i: usize) -> Result<(), EditError> {
        let s = self.slots.get_mut(i).ok_or(EditError::Index(i))?;
        s.removed = true;
        Ok(())
    }

    /// The indices of basic-block leaders among the body instructions: the first instruction,
    /// every branch target, every function symbol start and every instruction after one that
    /// ends a block.
    pub fn block_starts(&self, cubin: &Cubin) -> BTreeSet<usize> {
        let mut s = BTreeSet::new();
        if self.body > 0 {
            s.insert(0);
        }
        for (k, slot) in self.slots.iter().enumerate().take(self.body) {
            let pc = k as u64 * 16;
            if let Some(t) = slot.inst.branch_target(pc) {
                if t % 16 == 0 && ((t / 16) as usize) < self.body {
                    s.insert((t / 16) as usize);
                }
            }
            let m = slot.inst.mnemonic();
            let base = m.trim_end_matches('?');
            if BLOCK_ENDERS.contains(&base) && k + 1 < self.body {
                s.insert(k + 1);
            }
        }
        if let Ok(syms) = cubin.symbols() {
            for sym in syms {
                if sym.st_shndx as usize == self.function.text && sym.kind() == 2 {
                    let k = (sym.st_value / 16) as usize;
                    if sym.st_value % 16 == 0 && k < self.body {
                        s.insert(k);
                    }
                }
            }
        }
        if let Some(info) = nvinfo_of(cubin, &self.function.name) {
            for r in &info.records {
                if let Attribute::IndirectBranchTargets(v) = &r.value {
                    for b in v {
                        for &t in &b.targets {
                            if t % 16 == 0 && ((t / 16) as usize) < self.body {
                                s.insert((t / 16) as usize);
                            }
                        }
                    }
                }
            }
        }
        s
    }

    /// Moving code needs every code offset in the instructions: an instruction of unknown form
    /// whose opcode has a branch-target field in some form, or whose opcode the tables have
    /// never seen, may hold one nobody decoded. Such a kernel is refused.
    fn refuse_unknown_branches(&self, kernel: &str) -> Result<(), EditError> {
        let table = super::isa::table::table(self.arch.generation());
        for (k, s) in self.slots[..self.body].iter().enumerate() {
            let i = &s.inst;
            if i.is_known() {
                continue;
            }
            let why = if table.mnemonic(i.key).is_none() {
                "an opcode the SASS tables do not know"
            } else if table.key_has_target(i.key) {
                "an unknown form of an opcode with a branch target"
            } else {
                continue;
            };
            return Err(unsupported(
                kernel,
                format!(
                    "{} at {:#x} is {why}: code cannot move around it",
                    i.mnemonic(),
                    k * 16
                ),
            ));
        }
        Ok(())
    }

    /// sm_90 `LEPC Rd, offset` puts the address `offset` bytes past the next instruction in Rd:
    /// ptxas uses it for the return address of a `CALL.ABS.NOINC` (calls to `vprintf`), pointing
    /// just past the call. Each LEPC must be of known form and point just past a CALL of this
    /// function; the edit then points it just past that CALL's new position (before what is
    /// inserted after it, as `find_return_addresses` does for CALL.REL). Anything else is
    /// refused.
    fn find_lepc_returns(&mut self, kernel: &str) -> Result<(), EditError> {
        for k in 0..self.body {
            let inst = &self.slots[k].inst;
            if inst.mnemonic().trim_end_matches('?') != "LEPC" {
                continue;
            }
            let pc = k as u64 * 16;
            let Some(t) = inst.branch_target(pc).filter(|_| inst.is_known()) else {
                return Err(unsupported(
                    kernel,
                    format!("LEPC at {pc:#x}: its PC-relative offset is not decoded"),
                ));
            };
            let call = (t / 16).checked_sub(1).map(|c| c as usize);
            match call {
                Some(c)
                    if t % 16 == 0
                        && c > k
                        && c < self.body
                        && self.slots[c].inst.mnemonic() == "CALL" =>
                {
                    self.lepc_returns.push((k, c))
                }
                _ => {
                    return Err(unsupported(
                        kernel,
                        format!("LEPC at {pc:#x} points at {t:#x}, which does not follow a CALL"),
                    ))
                }
            }
        }
        Ok(())
    }

    /// Finds `MOV Rx, <return address>` for every `CALL.REL` to a function entry (module doc).
    /// A `CALL.REL` to a label inside a function is ptxas's conditional jump to a convergence
    /// point; it never returns and has no return address.
    fn find_return_addresses(
        &mut self,
        kernel: &str,
        entries: &BTreeSet<u64>,
    ) -> Result<(), EditError> {
        for c in 0..self.body {
            let inst = &self.slots[c].inst;
            if inst.mnemonic() != "CALL" || inst.branch_offset.is_none() {
                continue;
            }
            let target = inst.branch_target(c as u64 * 16).unwrap_or(u64::MAX);
            // Register calls (`CALL.REL.NOINC Rx`) go to function entries through Rx.
            let register_call = is_register_call(inst);
            if !entries.contains(&target) && !register_call {
                continue;
            }
            let want = (c as u64 + 1) * 16;
            let mut found = None;
            for k in (0..c).rev() {
                let i = &self.slots[k].inst;
                let base = i.mnemonic();
                if BLOCK_ENDERS.contains(&base.trim_end_matches('?')) {
                    break;
                }
                if let Some(v) = encode::mov_immediate(i) {
                    if v as u64 == want {
                        found = Some(k);
                        break;
                    }
                }
            }
            match found {
                Some(k) => self.return_addresses.push((k, c)),
                None => {
                    return Err(unsupported(
                        kernel,
                        format!(
                            "no return-address immediate found for the CALL at {:#x}",
                            c * 16
                        ),
                    ))
                }
            }
        }
        Ok(())
    }

    /// Commits the edit into `cubin` (which must be the cubin the editor was made from).
    pub fn commit(self, cubin: &mut Cubin) -> Result<EditReport, EditError> {
        let kernel = self.function.name.clone();
        let text = self.function.text;
        let mut report = EditReport::default();
        let layout = self.layout(&mut report);

        // Check what cannot be followed before changing anything.
        let info_name = format!(".nv.info.{kernel}");
        let mut info = match cubin.section_index(&info_name) {
            Some(i) => Some((i, NvInfo::parse(&cubin.sections[i].data)?)),
            None => None,
        };
        if let Some((_, inf)) = info.as_mut() {
            if let Some(r) = inf.records.iter().find(|r| r.has_opaque_offsets()) {
                return Err(unsupported(
                    &kernel,
                    format!(
                        "attribute EIATTR_{} holds code offsets we cannot remap",
                        r.name()
                    ),
                ));
            }
            check_info_offsets(inf, self.old_size, &kernel)?;
        }
        let map_start = |old: u64| layout.map_start(old);

        // 1. The code: new branch fields, return addresses.
        let code = self.code(&layout, &kernel, &mut report)?;
        report.size = (self.old_size, layout.new_size);

        // 2. Jump tables (INDIRECT_BRANCH_TARGETS with tables in .nv.constant2.<k>).
        if let Some((_, inf)) = &info {
            for r in &inf.records {
                if let Attribute::IndirectBranchTargets(v) = &r.value {
                    for b in v {
                        report.jump_table_entries +=
                            remap_jump_table(cubin, &kernel, &b.targets, &map_start)?;
                    }
                }
            }
        }

        // 2b. Function-pointer tables: ptxas writes the targets of register calls as plain
        // 64-bit code offsets into .nv.constant2.<k> (no relocation).
        if self.register_calls {
            report.function_pointers =
                remap_function_pointers(cubin, &kernel, &self.entries, &map_start)?;
        }

        // 3. .nv.info.<k> offsets.
        if let Some((idx, inf)) = info.as_mut() {
            remap_info_offsets(inf, &layout, &kernel, &mut report)?;
            let bytes = inf.to_bytes();
            cubin.sections[*idx].set_data(bytes);
        }

        // 4. Symbols of this section.
        let old_syms = cubin.symbols()?;
        let syms = remap_symbols(&old_syms, text, &layout, &mut report);
        cubin.set_symbols(&syms)?;

        // 4b. Line programs (`-lineinfo`): their address advances, and the offsets of the
        // relocated `set_address` operands, which step 5 then remaps like any code addend.
        for name in [".debug_line", ".nv_debug_line_sass"] {
            report.line_programs +=
                remap_line_program(cubin, name, text, &old_syms, &map_start, &kernel)?;
        }

        // 5. Relocations: offsets into this section, and code addends against its symbols.
        let remap = CodeRemap {
            kernel: &kernel,
            text,
            debug_frame: cubin.section_index(".debug_frame"),
            layout: &layout,
            old_syms: &old_syms,
            syms: &syms,
        };
        let fde_relocs = remap.relocations(cubin, &mut report)?;

        // 6. .debug_frame FDEs of this section.
        remap.debug_frame(cubin, &fde_relocs, &mut report)?;

        // 7. The code and the layout.
        cubin.sections[text].set_data(code);
        cubin.relayout();
        Ok(report)
    }

    /// The new offsets: where each group starts and where each kept instruction lands.
    fn layout(&self, report: &mut EditReport) -> Layout {
        let n = self.slots.len();
        let mut start = vec![0u64; n + 1];
        let mut at = vec![None::<u64>; n];
        let mut cursor = 0u64;
        for (k, s) in self.slots.iter().enumerate().take(self.body) {
            start[k] = cursor;
            cursor += 16 * s.before.len() as u64;
            if !s.removed {
                at[k] = Some(cursor);
                cursor += 16;
            }
            cursor += 16 * s.after.len() as u64;
            report.inserted += s.before.len() + s.after.len();
            report.removed += s.removed as usize;
        }
        let body_end = cursor;
        // ptxas pads with NOPs beyond the next 128-byte boundary (instruction prefetch): keep at
        // least the original amount of padding, rounded up to 128 bytes.
        let old_body_end = self.body as u64 * 16;
        let want = body_end + (self.old_size - old_body_end);
        let new_size = want.div_ceil(128).max(1) * 128;
        for (k, s) in start
            .iter_mut()
            .enumerate()
            .skip(self.body)
            .take(n + 1 - self.body)
        {
            // Padding and the section end: same distance from the end of the body, capped.
            let old = k as u64 * 16;
            *s = (body_end + (old - old_body_end)).min(new_size);
        }
        start[n] = new_size;
        Layout {
            start,
            at,
            body: self.body,
            old_size: self.old_size,
            new_size,
        }
    }

    /// The new code, padded to the layout's size: every group in order, branch fields and
    /// return-address immediates of kept instructions rewritten for their new positions.
    /// Inserted branches keep the offsets they were given relative to their new position.
    fn code(
        &self,
        layout: &Layout,
        kernel: &str,
        report: &mut EditReport,
    ) -> Result<Vec<u8>, EditError> {
        let mut new_insts: Vec<Instruction> = Vec::with_capacity((layout.new_size / 16) as usize);
        let ret_calls: BTreeMap<usize, usize> = self.return_addresses.iter().copied().collect();
        let lepc_calls: BTreeMap<usize, usize> = self.lepc_returns.iter().copied().collect();
        let at = &layout.at;
        for (k, s) in self.slots.iter().enumerate().take(self.body) {
            new_insts.extend(s.before.iter().cloned());
            if !s.removed {
                let mut inst = s.inst.clone();
                let old_pc = k as u64 * 16;
                let new_pc = at[k].unwrap_or(0);
                if let Some(t) = inst.branch_target(old_pc) {
                    let nt = match lepc_calls.get(&k) {
                        Some(&call) => {
                            at[call].ok_or_else(|| {
                                unsupported(
                                    kernel,
                                    "a CALL with an LEPC return address was removed",
                                )
                            })? + 16
                        }
                        None => layout.map_start(t),
                    };
                    let before = inst.encode();
                    inst.set_branch_target(new_pc, nt)?;
                    if inst.encode() != before {
                        report.branches += 1;
                    }
                }
                if let Some(&call) = ret_calls.get(&k) {
                    let call_pc = at[call].ok_or_else(|| {
                        unsupported(kernel, "a CALL with a return address was removed")
                    })?;
                    let before = inst.encode();
                    inst = encode::set_mov_immediate(&inst, (call_pc + 16) as u32)
                        .ok_or_else(|| unsupported(kernel, "cannot rewrite a return address"))?;
                    if inst.encode() != before {
                        report.return_addresses += 1;
                    }
                }
                new_insts.push(inst);
            }
            new_insts.extend(s.after.iter().cloned());
        }
        let mut code = super::isa::encode_all(&new_insts);
        while (code.len() as u64) < layout.new_size {
            code.extend_from_slice(&PAD_NOP.to_le_bytes());
        }
        Ok(code)
    }
}

/// Where the edited code puts the old offsets (the two maps of the module doc).
struct Layout {
    /// New offset of each slot's group (the code before its instruction); past the body, of the
    /// padding; the last entry is the new section size.
    start: Vec<u64>,
    /// New offset of each kept instruction.
    at: Vec<Option<u64>>,
    /// Original instructions before the padding.
    body: usize,
    old_size: u64,
    new_size: u64,
}

impl Layout {
    /// The *start* map: an old offset → where the code that ran from there now starts.
    fn map_start(&self, old: u64) -> u64 {
        if old >= self.old_size {
            return self.new_size + (old - self.old_size);
        }
        self.start[(old / 16) as usize] + old % 16
    }

    /// The *instruction* map: an old offset → that very instruction's new offset (`None`: it
    /// was removed).
    fn map_inst(&self, old: u64) -> Option<u64> {
        let k = (old / 16) as usize;
        if k >= self.body {
            return Some(self.map_start(old));
        }
        self.at.get(k).copied().flatten().map(|x| x + old % 16)
    }
}

/// Every code offset of the `.nv.info.<k>` records names an instruction of the old code
/// (16-aligned, inside its `old_size` bytes): a value that does not is a layout we misread, and
/// remapping it would corrupt the attribute.
fn check_info_offsets(inf: &mut NvInfo, old_size: u64, kernel: &str) -> Result<(), EditError> {
    for r in inf.records.iter_mut() {
        let name = r.name();
        if let Some(bad) = r
            .code_offsets_mut()
            .into_iter()
            .map(|o| *o as u64)
            .find(|&o| o % 16 != 0 || o >= old_size)
        {
            return Err(unsupported(
                kernel,
                format!("attribute EIATTR_{name} holds {bad:#x}, not an instruction offset"),
            ));
        }
    }
    Ok(())
}

/// The code offsets in `.nv.info.<k>` records: instruction offsets, indirect branches and their
/// targets, resume points, annotations (a removed annotated instruction drops its annotation).
fn remap_info_offsets(
    inf: &mut NvInfo,
    layout: &Layout,
    kernel: &str,
    report: &mut EditReport,
) -> Result<(), EditError> {
    let map_inst = |o: u64| layout.map_inst(o);
    for r in inf.records.iter_mut() {
        let name = r.name();
        match &mut r.value {
            Attribute::InstrOffsets(v) => {
                let old = v.clone();
                *v = old
                    .iter()
                    .filter_map(|&o| map_inst(o as u64).map(|x| x as u32))
                    .collect();
                report.attribute_offsets +=
                    old.iter().zip(v.iter()).filter(|(a, b)| a != b).count();
            }
            Attribute::InstrRecords(v) => {
                for rec in v.iter_mut() {
                    let removed = || format!("an instruction EIATTR_{name} describes was removed");
                    remap_kept(&mut rec.offset, layout, kernel, removed, report)?;
                }
            }
            Attribute::IndirectBranchTargets(v) => {
                for b in v.iter_mut() {
                    let removed = || "an indirect branch was removed".to_string();
                    remap_kept(&mut b.branch, layout, kernel, removed, report)?;
                    for t in b.targets.iter_mut() {
                        let nt = layout.map_start(*t as u64) as u32;
                        report.attribute_offsets += (nt != *t) as usize;
                        *t = nt;
                    }
                }
            }
            Attribute::ResumeIdOffsets(v) => {
                for (_, o) in v.iter_mut() {
                    let removed = || "a coroutine resume point was removed".to_string();
                    remap_kept(o, layout, kernel, removed, report)?;
                }
            }
            Attribute::Annotations(v) => {
                let old = std::mem::take(v);
                for (kind, o) in old {
                    if let Some(no) = map_inst(o as u64) {
                        report.attribute_offsets += (no as u32 != o) as usize;
                        v.push((kind, no as u32));
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// Remaps offset `o` of an instruction the edit must keep; where it was removed, refuses the edit
/// with `removed()`'s reason.
fn remap_kept(
    o: &mut u32,
    layout: &Layout,
    kernel: &str,
    removed: impl FnOnce() -> String,
    report: &mut EditReport,
) -> Result<(), EditError> {
    let no = layout
        .map_inst(*o as u64)
        .ok_or_else(|| unsupported(kernel, removed()))? as u32;
    report.attribute_offsets += (no != *o) as usize;
    *o = no;
    Ok(())
}

/// The symbol table with the symbols of section `text` (but its section symbol) moved and
/// resized by the start map.
fn remap_symbols(
    old_syms: &[super::elf::symbols::Symbol],
    text: usize,
    layout: &Layout,
    report: &mut EditReport,
) -> Vec<super::elf::symbols::Symbol> {
    let mut syms = old_syms.to_vec();
    for s in syms.iter_mut() {
        if s.st_shndx as usize != text || s.kind() == super::elf::symbols::STT_SECTION {
            continue;
        }
        let nv = layout.map_start(s.st_value);
        let ne = layout.map_start(s.st_value.saturating_add(s.st_size));
        let ns = ne.saturating_sub(nv);
        if (nv, ns) != (s.st_value, s.st_size) {
            report.symbols += 1;
        }
        s.st_value = nv;
        s.st_size = ns;
    }
    syms
}

/// A `.debug_frame` location field to remap: (its offset, the old code address, the new value
/// of its symbol, the RELA section holding its addend or `None` for an in-place one, the
/// relocation's index there).
type FdeReloc = (u64, u64, u64, Option<usize>, usize);

/// What steps 5 and 6 of [`Editor::commit`] share: the kernel, its section, the layout and the
/// symbols before and after.
struct CodeRemap<'a> {
    kernel: &'a str,
    text: usize,
    /// The `.debug_frame` section, if any.
    debug_frame: Option<usize>,
    layout: &'a Layout,
    old_syms: &'a [super::elf::symbols::Symbol],
    syms: &'a [super::elf::symbols::Symbol],
}

impl CodeRemap<'_> {
    /// Relocations: offsets into this section, and code addends against its symbols. Returns
    /// the `.debug_frame` locations, which [`CodeRemap::debug_frame`] remaps with their FDEs.
    fn relocations(
        &self,
        cubin: &mut Cubin,
        report: &mut EditReport,
    ) -> Result<Vec<FdeReloc>, EditError> {
        let (kernel, text, debug_frame) = (self.kernel, self.text, self.debug_frame);
        let mut fde_relocs: Vec<FdeReloc> = Vec::new();
        for (ri, target, rels) in cubin.relocation_sections()? {
            let mut rels: Vec<Relocation> = rels;
            let mut changed = false;
            let rela = cubin.sections[ri].header.sh_type == SHT_RELA;
            for (k, r) in rels.iter_mut().enumerate() {
                if target == text {
                    let no = self.layout.map_inst(r.r_offset).ok_or_else(|| {
                        unsupported(
                            kernel,
                            format!(
                                "a relocation at {:#x} names a removed instruction",
                                r.r_offset
                            ),
                        )
                    })?;
                    if no != r.r_offset {
                        r.r_offset = no;
                        changed = true;
                    }
                    if !rela
                        && self
                            .old_syms
                            .get(r.sym as usize)
                            .is_some_and(|s| s.st_shndx as usize == text)
                    {
                        return Err(unsupported(
                            kernel,
                            "REL relocation against code inside code",
                        ));
                    }
                }
                let Some(sym) = self.old_syms.get(r.sym as usize) else {
                    continue;
                };
                if sym.st_shndx as usize != text
                    || sym.kind() == super::elf::symbols::STT_SECTION && sym.st_value != 0
                {
                    continue;
                }
                let new_sym_value = self.syms[r.sym as usize].st_value;
                if Some(target) == debug_frame {
                    let addend = match r.addend {
                        Some(a) => a as u64,
                        None => super::elf::bytes::u64_at(
                            &cubin.sections[target].data,
                            r.r_offset,
                            ".debug_frame location",
                        )?,
                    };
                    fde_relocs.push((
                        r.r_offset,
                        sym.st_value.wrapping_add(addend),
                        new_sym_value,
                        rela.then_some(ri),
                        k,
                    ));
                    continue;
                }
                // A code address: symbol + addend.
                let old_addr = sym.st_value.wrapping_add(r.addend.unwrap_or(0) as u64);
                let new_addr = self.layout.map_start(old_addr);
                match r.addend {
                    Some(a) => {
                        let na = new_addr.wrapping_sub(new_sym_value) as i64;
                        if na != a {
                            r.addend = Some(na);
                            changed = true;
                        }
                    }
                    // In-place addends (R_CUDA_64 / R_CUDA_32 in data sections).
                    None if target == text => {}
                    None => {
                        let d = &mut cubin.sections[target].data;
                        if self.in_place_addend(d, r, sym.st_value, new_sym_value)? {
                            report.relocations += 1;
                        }
                    }
                }
            }
            if changed {
                report.relocations += 1;
                cubin.sections[ri].set_data(relocations_to_bytes(&rels));
            }
        }
        Ok(fde_relocs)
    }

    /// Rewrites the code address a REL relocation holds in place in `d` (the data it
    /// relocates); true if it changed.
    fn in_place_addend(
        &self,
        d: &mut [u8],
        r: &Relocation,
        old_sym_value: u64,
        new_sym_value: u64,
    ) -> Result<bool, EditError> {
        let width = match r.r_type {
            2 => 8,
            1 => 4,
            t => {
                return Err(unsupported(
                    self.kernel,
                    format!("REL relocation of type {t} against code"),
                ))
            }
        };
        let old_val = if width == 8 {
            super::elf::bytes::u64_at(d, r.r_offset, "relocated value")?
        } else {
            super::elf::bytes::u32_at(d, r.r_offset, "relocated value")? as u64
        };
        let nv = self
            .layout
            .map_start(old_sym_value.wrapping_add(old_val))
            .wrapping_sub(new_sym_value);
        if nv == old_val {
            return Ok(false);
        }
        let bytes = nv.to_le_bytes();
        super::elf::bytes::put(d, r.r_offset as usize, &bytes[..width]);
        Ok(true)
    }

    /// `.debug_frame` FDEs of this section: their locations and ranges, and the addends of the
    /// relocations that name them.
    fn debug_frame(
        &self,
        cubin: &mut Cubin,
        fde_relocs: &[FdeReloc],
        report: &mut EditReport,
    ) -> Result<(), EditError> {
        let Some(dfi) = self.debug_frame else {
            return Ok(());
        };
        if fde_relocs.is_empty() {
            return Ok(());
        }
        let map_start = |old: u64| self.layout.map_start(old);
        let fdes = debug_frame::parse(&cubin.sections[dfi].data)
            .map_err(|e| unsupported(self.kernel, format!(".debug_frame: {e}")))?;
        let mut rel_updates: BTreeMap<usize, Vec<(usize, i64)>> = BTreeMap::new();
        for &(field, old_loc, new_sym_value, rela_sec, k) in fde_relocs {
            let Some(fde) = fdes.iter().find(|f| f.location_field as u64 == field) else {
                continue;
            };
            let d = &mut cubin.sections[dfi].data;
            debug_frame::remap_fde(d, fde, old_loc, &map_start)?;
            let new_addend = map_start(old_loc).wrapping_sub(new_sym_value);
            match rela_sec {
                Some(ri) => rel_updates
                    .entry(ri)
                    .or_default()
                    .push((k, new_addend as i64)),
                None => super::elf::bytes::put(d, field as usize, &new_addend.to_le_bytes()),
            }
            report.fdes += 1;
        }
        for (ri, ups) in rel_updates {
            let mut rels = parse_relocations(&cubin.sections[ri].data, true)?;
            for (k, a) in ups {
                if let Some(r) = rels.get_mut(k) {
                    r.addend = Some(a);
                }
            }
            cubin.sections[ri].set_data(relocations_to_bytes(&rels));
        }
        Ok(())
    }
}

/// Re-encodes the line program section `name` for the edit of section `text` (`map`: old code
/// offset → new) and moves its relocations with it; 1 if it changed, 0 if there is none or no
/// sequence of it starts in `text`.
fn remap_line_program(
    cubin: &mut Cubin,
    name: &str,
    text: usize,
    old_syms: &[super::elf::symbols::Symbol],
    map: &dyn Fn(u64) -> u64,
    kernel: &str,
) -> Result<usize, EditError> {
    let Some(target) = cubin.section_index(name) else {
        return Ok(0);
    };
    let rel_sections: Vec<(usize, Vec<Relocation>)> = cubin
        .relocation_sections()?
        .into_iter()
        .filter(|(_, t, _)| *t == target)
        .map(|(ri, _, rels)| (ri, rels))
        .collect();
    let bases: BTreeMap<u64, u64> = rel_sections
        .iter()
        .flat_map(|(_, rels)| rels)
        .filter_map(|r| {
            let sym = old_syms.get(r.sym as usize)?;
            (sym.st_shndx as usize == text).then_some((r.r_offset, sym.st_value))
        })
        .collect();
    if bases.is_empty() {
        return Ok(0);
    }
    let (data, moved) = super::elf::debug_line::remap(&cubin.sections[target].data, &bases, map)
        .map_err(|e| unsupported(kernel, format!("{name}: {e}")))?;
    for (ri, mut rels) in rel_sections {
        for r in rels.iter_mut() {
            r.r_offset = *moved.get(&r.r_offset).ok_or_else(|| {
                unsupported(
                    kernel,
                    format!(
                        "{name}: a relocation at {:#x} is not a set_address operand",
                        r.r_offset
                    ),
                )
            })?;
        }
        cubin.sections[ri].set_data(relocations_to_bytes(&rels));
    }
    cubin.sections[target].set_data(data);
    Ok(1)
}

/// `CALL.REL.NOINC Rx` (key 0x344): a relative call through a register, whose targets ptxas
/// keeps as code offsets in a function-pointer table. `CALL.ABS.NOINC Rx` (to `vprintf`) takes
/// an absolute address the loader relocates, and has no table.
fn is_register_call(i: &Instruction) -> bool {
    i.mnemonic() == "CALL" && i.key & 0xe00 == 0x200 && i.branch_offset.is_some()
}

/// Rewrites the 64-bit, 8-byte-aligned values of `.nv.constant2.<k>` that equal the offset of a
/// function of the kernel's section (other than its start): the function-pointer table of
/// register calls. A kernel that calls through a register but has no such value is refused.
fn remap_function_pointers(
    cubin: &mut Cubin,
    kernel: &str,
    entries: &BTreeSet<u64>,
    map_start: &dyn Fn(u64) -> u64,
) -> Result<usize, EditError> {
    let name = format!(".nv.constant2.{kernel}");
    let Some(idx) = cubin.section_index(&name) else {
        return Err(unsupported(
            kernel,
            "register calls without a function table in .nv.constant2",
        ));
    };
    let d = &mut cubin.sections[idx].data;
    let mut found = 0;
    let mut changed = 0;
    for o in (0..d.len().saturating_sub(7)).step_by(8) {
        let v = super::elf::bytes::u64_at(d, o as u64, "function pointer")?;
        if v != 0 && entries.contains(&v) {
            found += 1;
            let nv = map_start(v);
            if nv != v {
                changed += 1;
                super::elf::bytes::put(d, o, &nv.to_le_bytes());
            }
        }
    }
    if found == 0 {
        return Err(unsupported(
            kernel,
            format!("register calls, but no function offsets in {name}"),
        ));
    }
    Ok(changed)
}

fn nvinfo_of(cubin: &Cubin, kernel: &str) -> Option<NvInfo> {
    cubin
        .section(&format!(".nv.info.{kernel}"))
        .and_then(|s| NvInfo::parse(&s.data).ok())
}

/// Rewrites the jump table of one indirect branch in `.nv.constant2.<k>`: the targets appear
/// there, in order, as 32-bit code offsets (ptxas sm_8x/sm_90 cubins).
fn remap_jump_table(
    cubin: &mut Cubin,
    kernel: &str,
    targets: &[u32],
    map_start: &dyn Fn(u64) -> u64,
) -> Result<usize, EditError> {
    if targets.is_empty() {
        return Ok(0);
    }
    let name = format!(".nv.constant2.{kernel}");
    let idx = cubin.section_index(&name).ok_or_else(|| {
        unsupported(
            kernel,
            "indirect branch without a jump table in .nv.constant2",
        )
    })?;
    let want: Vec<u8> = targets.iter().flat_map(|t| t.to_le_bytes()).collect();
    let data = &cubin.sections[idx].data;
    let hits: Vec<usize> = (0..=data.len().saturating_sub(want.len()))
        .step_by(4)
        .filter(|&o| data.get(o..o + want.len()) == Some(&want[..]))
        .collect();
    if hits.len() != 1 {
        return Err(unsupported(
            kernel,
            format!(
                "the jump table of an indirect branch is found {} times in {name}",
                hits.len()
            ),
        ));
    }
    let base = hits[0];
    let mut changed = 0;
    let d = &mut cubin.sections[idx].data;
    for (k, &t) in targets.iter().enumerate() {
        let nt = map_start(t as u64) as u32;
        if nt != t {
            changed += 1;
        }
        super::elf::bytes::put(d, base + 4 * k, &nt.to_le_bytes());
    }
    Ok(changed)
}
