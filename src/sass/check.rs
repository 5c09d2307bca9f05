//! `sass check`: compares our decode of every instruction of a cubin with nvdisasm's — the raw
//! word, decode→encode, the opcode mnemonic, the registers read and written in each register
//! file (nvdisasm's life-range columns), and branch targets (nvdisasm's labels).
//!
//! Reference: `sass-and-cubin-format.md` §7 (nvdisasm as oracle), §9 (check the def/use tables
//! against nvdisasm life ranges), §6.4 (branch arithmetic).
//!
//! A `CALL`'s registers beyond its fields follow the calling convention of the function it is
//! in (`isa::abi`: caller-saved registers below the function's register count), so calls are
//! compared with [`CallConvention::def_use`] for that function; since nvdisasm has columns only
//! for registers up to the highest one the cubin uses, a call's registers are compared within
//! those columns.
//!
//! An instruction whose summary is conservative (unknown form, or a form with implicit
//! operands) is counted apart: it cannot agree exactly, but it claims every register of the
//! files concerned, so it is safe. Everything else must agree exactly; a disagreement is a
//! mismatch.

use std::collections::BTreeMap;

use super::elf::{Cubin, ElfError};
use super::isa::abi::CallConvention;
use super::isa::{decode_all, Arch, Instruction, RegFile};
use super::nvdisasm::{self, ListedFunction, ListedInstruction};
use crate::tools::ToolError;

/// Errors of the check (not disagreements: those are in the report).
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    /// The cubin could not be read.
    #[error(transparent)]
    Elf(#[from] ElfError),
    /// nvdisasm could not be run.
    #[error(transparent)]
    Tool(#[from] ToolError),
    /// The cubin is for an architecture we do not decode.
    #[error("unsupported architecture sm_{0} (supported: sm_80, sm_86, sm_89, sm_90)")]
    Arch(u32),
}

/// Counters of one check.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Instructions compared.
    pub instructions: usize,
    /// Our word equals nvdisasm's `-hex` word.
    pub words_agree: usize,
    /// `encode(decode(w)) == w`.
    pub encode_agree: usize,
    /// Instructions whose form the table knows.
    pub known: usize,
    /// Mnemonic equals nvdisasm's base mnemonic.
    pub opcode_agree: usize,
    /// Registers and roles equal nvdisasm's in all four files.
    pub regs_exact: usize,
    /// Conservative summary (implicit operands or unknown form), a superset of nvdisasm's.
    pub regs_conservative: usize,
    /// Instructions nvdisasm gives no life ranges for (the NOP padding after the last branch).
    pub regs_unlisted: usize,
    /// Calls among the exact ones (registers from the function's calling convention).
    pub calls_exact: usize,
    /// Branch targets compared.
    pub targets: usize,
    /// Branch targets that agree.
    pub targets_agree: usize,
}

impl Counts {
    fn add(&mut self, o: &Counts) {
        self.instructions += o.instructions;
        self.words_agree += o.words_agree;
        self.encode_agree += o.encode_agree;
        self.known += o.known;
        self.opcode_agree += o.opcode_agree;
        self.regs_exact += o.regs_exact;
        self.regs_conservative += o.regs_conservative;
        self.regs_unlisted += o.regs_unlisted;
        self.calls_exact += o.calls_exact;
        self.targets += o.targets;
        self.targets_agree += o.targets_agree;
    }

    /// Whether nothing disagrees.
    pub fn all_agree(&self) -> bool {
        let n = self.instructions;
        self.words_agree == n
            && self.encode_agree == n
            && self.opcode_agree == n
            && self.regs_exact + self.regs_conservative + self.regs_unlisted == n
            && self.targets_agree == self.targets
    }
}

/// One disagreement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// Function (section name without `.text.`).
    pub function: String,
    /// Byte offset.
    pub offset: u64,
    /// What disagrees.
    pub what: String,
    /// nvdisasm's text of the instruction.
    pub text: String,
}

/// The result of checking one cubin.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// The architecture.
    pub arch: Option<Arch>,
    /// Totals.
    pub counts: Counts,
    /// Opcode key → conservative-instruction count, for the summary.
    pub conservative_by_mnemonic: BTreeMap<String, usize>,
    /// Every disagreement.
    pub mismatches: Vec<Mismatch>,
}

impl Report {
    /// Whether nothing disagrees.
    pub fn ok(&self) -> bool {
        self.mismatches.is_empty() && self.counts.all_agree()
    }

    /// Adds another report's numbers.
    pub fn merge(&mut self, o: &Report) {
        self.counts.add(&o.counts);
        for (k, v) in &o.conservative_by_mnemonic {
            *self.conservative_by_mnemonic.entry(k.clone()).or_default() += v;
        }
        self.mismatches.extend(o.mismatches.iter().cloned());
    }
}

fn regs_string(file: RegFile, v: &[u32]) -> String {
    v.iter()
        .map(|r| format!("{}{r}", file.prefix()))
        .collect::<Vec<_>>()
        .join(",")
}

fn compare_one(
    ours: &Instruction,
    conv: &CallConvention,
    theirs: &ListedInstruction,
    f: &ListedFunction,
    c: &mut Counts,
    report_mm: &mut Vec<Mismatch>,
    conservative: &mut BTreeMap<String, usize>,
) {
    let mut mm = |what: String| {
        report_mm.push(Mismatch {
            function: f.name.clone(),
            offset: theirs.offset,
            what,
            text: theirs.text.clone(),
        })
    };
    c.instructions += 1;
    if ours.word == theirs.word {
        c.words_agree += 1;
    } else {
        mm(format!(
            "word {:#034x} but nvdisasm lists {:#034x}",
            ours.word, theirs.word
        ));
    }
    if ours.encode() == ours.word {
        c.encode_agree += 1;
    } else {
        mm(format!("encode(decode(w)) = {:#034x}", ours.encode()));
    }
    if ours.is_known() {
        c.known += 1;
    }
    let mn = ours.mnemonic();
    let base = mn.trim_end_matches('?');
    if base == theirs.base_mnemonic() {
        c.opcode_agree += 1;
    } else {
        mm(format!(
            "opcode {mn} but nvdisasm says {}",
            theirs.base_mnemonic()
        ));
    }
    let du = conv.def_use(ours);
    if let (Some(tr), Some(tw)) = (&theirs.reads, &theirs.writes) {
        let mut exact = true;
        let mut conservative_here = false;
        for file in RegFile::ALL {
            let k = file.index();
            let mut r: Vec<u32> = tr[k].clone();
            let mut w: Vec<u32> = tw[k].clone();
            r.sort_unstable();
            w.sort_unstable();
            if du.any_read[k] || du.any_write[k] {
                conservative_here = true;
                // Registers outside "any" files must still be covered.
                let ok_r = du.any_read[k] || r.iter().all(|&x| du.reads.contains(file, x));
                let ok_w = du.any_write[k] || w.iter().all(|&x| du.writes.contains(file, x));
                if !(ok_r && ok_w) {
                    exact = false;
                    mm(format!("{file:?}: conservative summary misses registers"));
                }
                continue;
            }
            // A call's convention names registers the cubin may not use; nvdisasm has no
            // column for those.
            let shown = |x: &u32| !ours.is_call() || f.columns[k].contains(x);
            let or: Vec<u32> = du.reads.iter(file).filter(shown).collect();
            let ow: Vec<u32> = du.writes.iter(file).filter(shown).collect();
            if or != r || ow != w {
                exact = false;
                mm(format!(
                    "{file:?} reads [{}] writes [{}] but nvdisasm: reads [{}] writes [{}]",
                    regs_string(file, &or),
                    regs_string(file, &ow),
                    regs_string(file, &r),
                    regs_string(file, &w)
                ));
            }
        }
        if exact {
            if conservative_here {
                c.regs_conservative += 1;
                *conservative.entry(mn.clone()).or_default() += 1;
            } else {
                c.regs_exact += 1;
                if ours.is_call() {
                    c.calls_exact += 1;
                }
            }
        }
    }
    if theirs.reads.is_none() {
        c.regs_unlisted += 1;
    }
    if let Some(label) = theirs.branch_label() {
        if let Some(&want) = f.labels.get(label) {
            c.targets += 1;
            match ours.branch_target(theirs.offset) {
                Some(t) if t == want => c.targets_agree += 1,
                // A refusal, not a guess: the editor refuses code with such an instruction.
                None if !ours.is_known() => mm(format!(
                    "unknown form: branch target not decoded; nvdisasm: {label} = {want:#x}"
                )),
                got => mm(format!(
                    "branch target {} but nvdisasm: {label} = {want:#x}",
                    got.map_or("none".to_string(), |t| format!("{t:#x}"))
                )),
            }
        }
    } else if let Some(t) = ours.branch_target(theirs.offset) {
        // We see a target nvdisasm does not print: not an error in itself (e.g. RET), but
        // count nothing.
        let _ = t;
    }
}

/// Checks every instruction of every code section of `bytes` against nvdisasm.
pub fn check_cubin(bytes: &[u8]) -> Result<Report, CheckError> {
    // The plain listing has every instruction (the life-range listing leaves out the NOP
    // padding after the last branch); the life-range listing gives registers and roles.
    let listed = nvdisasm::list_bytes(bytes, false)?;
    let ranges = nvdisasm::list_bytes(bytes, true)?;
    check_listed(bytes, &listed, &ranges)
}

/// [`check_cubin`] against listings already made: `listed`, nvdisasm's plain listing of
/// `bytes` ([`nvdisasm::list_bytes`] without life ranges, or the functions of
/// [`nvdisasm::list_all_bytes`], which are the same), and `ranges`, its life-range listing
/// ([`nvdisasm::list_bytes`] with them). A caller that lists a cubin for other checks too
/// runs nvdisasm once for both.
pub fn check_listed(
    bytes: &[u8],
    listed: &[ListedFunction],
    ranges: &[ListedFunction],
) -> Result<Report, CheckError> {
    let cubin = Cubin::parse(bytes)?;
    let sm = cubin.sm();
    let arch = Arch::from_sm(sm).ok_or(CheckError::Arch(sm))?;
    let mut report = Report {
        arch: Some(arch),
        ..Default::default()
    };
    for func in cubin.functions() {
        let code = &cubin.sections[func.text].data;
        let insts = decode_all(arch, code);
        let Some(lf) = listed.iter().find(|l| l.name == func.name) else {
            report.mismatches.push(Mismatch {
                function: func.name.clone(),
                offset: 0,
                what: "nvdisasm lists no such function".into(),
                text: String::new(),
            });
            continue;
        };
        if lf.instructions.len() != insts.len() {
            report.mismatches.push(Mismatch {
                function: func.name.clone(),
                offset: 0,
                what: format!(
                    "{} instructions but nvdisasm lists {}",
                    insts.len(),
                    lf.instructions.len()
                ),
                text: String::new(),
            });
        }
        let lr = ranges.iter().find(|l| l.name == func.name);
        let roles: std::collections::HashMap<u64, &ListedInstruction> = lr
            .map(|l| l.instructions.iter().map(|i| (i.offset, i)).collect())
            .unwrap_or_default();
        let conv = CallConvention::of(cubin.register_count(&func));
        // The life-range listing's columns, for the calls.
        let mut lf = lf.clone();
        if let Some(l) = lr {
            lf.columns = l.columns.clone();
        }
        let lf = &lf;
        for li in &lf.instructions {
            let Some(ours) = insts.get((li.offset / 16) as usize) else {
                continue;
            };
            let mut li = li.clone();
            if let Some(r) = roles.get(&li.offset) {
                if r.word == li.word {
                    li.reads = r.reads.clone();
                    li.writes = r.writes.clone();
                }
            }
            let li = &li;
            compare_one(
                ours,
                &conv,
                li,
                lf,
                &mut report.counts,
                &mut report.mismatches,
                &mut report.conservative_by_mnemonic,
            );
        }
    }
    Ok(report)
}
