//! Our disassembly listing: one line per instruction with offset, control bits, guard,
//! mnemonic, registers written and read, and branch target (sass-and-cubin-format.md §6).

use std::fmt::Write;

use super::abi::CallConvention;
use super::{DefUse, Instruction, RegFile};

/// One listing line for the instruction at byte offset `pc` (a call's registers
/// conservatively, "any register": [`line_in`] knows its function's calling convention).
pub fn line(i: &Instruction, pc: u64) -> String {
    line_with(i, pc, &i.def_use())
}

/// One listing line for the instruction at byte offset `pc` of a function whose calls follow
/// `conv`.
pub fn line_in(i: &Instruction, pc: u64, conv: &CallConvention) -> String {
    line_with(i, pc, &conv.def_use(i))
}

fn line_with(i: &Instruction, pc: u64, du: &DefUse) -> String {
    let mut s = String::new();
    let _ = write!(s, "/*{pc:04x}*/ {} ", i.control);
    let guard = if i.guard.is_true() {
        String::new()
    } else {
        let uniform = i
            .operands
            .iter()
            .any(|o| o.spec.lo == 12 && o.spec.file == RegFile::Upred);
        format!("@{} ", i.guard.display(if uniform { "UP" } else { "P" }))
    };
    let _ = write!(s, "{:>5}{:<10}", guard, i.mnemonic());
    let files = RegFile::ALL;
    let mut defs = Vec::new();
    let mut uses = Vec::new();
    for f in files {
        defs.extend(du.writes.render(f));
        uses.extend(du.reads.render(f));
        if du.any_write[f.index()] {
            defs.push(format!("{}*", f.prefix()));
        }
        if du.any_read[f.index()] {
            uses.push(format!("{}*", f.prefix()));
        }
    }
    let _ = write!(s, " def [{}] use [{}]", defs.join(" "), uses.join(" "));
    if let Some(t) = i.branch_target(pc) {
        let _ = write!(s, " -> {t:#06x}");
    }
    if i.control.reuse != 0 {
        let _ = write!(s, " reuse {:#x}", i.control.reuse);
    }
    let _ = write!(
        s,
        "  // {:#018x} {:#018x}",
        i.word as u64,
        (i.word >> 64) as u64
    );
    s
}
