//! `sass nop-test`: a test mode that proves the editing machinery — a NOP is inserted at every
//! basic-block start of every kernel and every dependent offset is fixed by [`Editor::commit`];
//! [`compare_listings`] then checks with nvdisasm that the result is the original instruction
//! stream plus the NOPs, with every branch, indirect-branch target and `.nv.info` offset label
//! naming the same original instruction as before.
//!
//! Reference: `sass-and-cubin-format.md` §11 (testing: nvdisasm must accept the modified cubin
//! and list the same code) and §10 (clear the reuse flags of the instruction before an insertion
//! point).

use std::collections::HashMap;

use super::edit::{EditError, EditReport, Editor};
use super::elf::Cubin;
use super::isa::{encode, Control};
use super::nvdisasm::{ListedFunction, Listing};

/// The control bits of an inserted NOP: stall 1, yield, no scoreboards.
pub const NOP_CONTROL: Control = Control {
    stall: 1,
    no_yield: false,
    write_sb: 7,
    read_sb: 7,
    wait: 0,
    reuse: 0,
};

/// What happened to one kernel.
#[derive(Debug, Clone)]
pub enum KernelOutcome {
    /// NOPs were inserted.
    Edited {
        /// NOPs inserted (one per block start).
        nops: usize,
        /// What the commit rewrote.
        report: EditReport,
    },
    /// The kernel was left unchanged, with the reason.
    Skipped(String),
}

/// Inserts a NOP at every basic-block start of every kernel of `cubin`. Kernels the editor
/// cannot edit safely are left unchanged and reported as skipped; other errors abort.
pub fn run(cubin: &mut Cubin) -> Result<Vec<(String, KernelOutcome)>, EditError> {
    let mut out = Vec::new();
    for f in cubin.functions() {
        let mut ed = match Editor::new(cubin, &f.name) {
            Ok(e) => e,
            Err(EditError::Unsupported { reason, .. }) => {
                out.push((f.name.clone(), KernelOutcome::Skipped(reason)));
                continue;
            }
            Err(e) => return Err(e),
        };
        let starts = ed.block_starts(cubin);
        let arch = ed.arch;
        for &k in &starts {
            ed.insert_before(k, vec![encode::nop(arch, NOP_CONTROL)])?;
            if k > 0 {
                if let Some(prev) = ed.instruction(k - 1) {
                    if prev.control.reuse != 0 {
                        let mut p = prev.clone();
                        p.control.reuse = 0;
                        ed.replace(k - 1, p)?;
                    }
                }
            }
        }
        let mut trial = cubin.clone();
        match ed.commit(&mut trial) {
            Ok(report) => {
                *cubin = trial;
                out.push((
                    f.name.clone(),
                    KernelOutcome::Edited {
                        nops: starts.len(),
                        report,
                    },
                ));
            }
            Err(EditError::Unsupported { reason, .. }) => {
                out.push((f.name.clone(), KernelOutcome::Skipped(reason)));
            }
            Err(e) => return Err(e),
        }
    }
    Ok(out)
}

/// Numbers from [`compare_listings`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Comparison {
    /// Original instructions matched.
    pub instructions: usize,
    /// Inserted NOPs seen.
    pub nops: usize,
    /// Branch targets compared.
    pub branches: usize,
    /// `.nv.info` offset labels compared.
    pub attribute_labels: usize,
    /// Immediates that changed as return addresses.
    pub return_addresses: usize,
}

/// The text of an instruction with what legitimately changes removed: `.reuse` flags, branch
/// labels and branch-target lists (compared separately), and the offset of `BRX`.
fn normalise(text: &str) -> String {
    let mut t = text.replace(".reuse", "");
    if let Some(i) = t.find("`(") {
        t.truncate(i);
    }
    // nvdisasm annotations `(*"..."*)` (branch-target lists, EIATTR_ANNOTATIONS) are compared
    // separately.
    if let Some(i) = t.find("(*\"") {
        t.truncate(i);
    }
    let mut t = t.trim_end().to_string();
    if t.split_whitespace()
        .any(|w| w.starts_with("BRX") || w.starts_with("JMX"))
    {
        if let Some(i) = t.rfind(' ') {
            t.truncate(i);
        }
    }
    t.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn labels_of(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(i) = text.find("`(") {
        if let Some(j) = text[i..].find(')') {
            out.push(text[i + 2..i + j].to_string());
        }
    }
    if let Some(i) = text.find("BRANCH_TARGETS ") {
        let rest = &text[i + "BRANCH_TARGETS ".len()..];
        let end = rest.find('"').unwrap_or(rest.len());
        out.extend(rest[..end].split(',').map(|s| s.trim().to_string()));
    }
    out
}

/// For one function: the original index of every new instruction (None for inserted NOPs),
/// found by walking both listings together.
fn align(
    old: &ListedFunction,
    new: &ListedFunction,
    cmp: &mut Comparison,
    errors: &mut Vec<String>,
) -> Vec<Option<usize>> {
    let mut map = Vec::with_capacity(new.instructions.len());
    let mut i = 0;
    for n in &new.instructions {
        let nt = normalise(&n.text);
        if i < old.instructions.len() {
            let ot = normalise(&old.instructions[i].text);
            if nt == ot {
                map.push(Some(i));
                i += 1;
                continue;
            }
            // A return address (MOV Rx, <code offset>) changes value only.
            let mov = |t: &str| {
                t.starts_with("MOV ") && t.rsplit(' ').next().is_some_and(|x| x.starts_with("0x"))
            };
            if mov(&nt)
                && mov(&ot)
                && nt.rsplit_once(' ').map(|x| x.0) == ot.rsplit_once(' ').map(|x| x.0)
            {
                cmp.return_addresses += 1;
                map.push(Some(i));
                i += 1;
                continue;
            }
        }
        if nt == "NOP" {
            map.push(None);
            continue;
        }
        errors.push(format!(
            "{} {:#06x}: `{}` does not match the original `{}`",
            new.name,
            n.offset,
            n.text,
            old.instructions.get(i).map_or("<end>", |x| x.text.as_str())
        ));
        map.push(None);
    }
    // Trailing padding may differ in length.
    while i < old.instructions.len() && normalise(&old.instructions[i].text) == "NOP" {
        i += 1;
    }
    if i != old.instructions.len() {
        errors.push(format!(
            "{}: {} original instructions not found in the new listing",
            new.name,
            old.instructions.len() - i
        ));
    }
    cmp.instructions += i;
    // Inserted NOPs: those before the last original non-NOP instruction (the rest is padding).
    let last = map
        .iter()
        .rposition(|m| m.is_some_and(|o| normalise(&old.instructions[o].text) != "NOP"))
        .unwrap_or(0);
    cmp.nops += map[..last].iter().filter(|m| m.is_none()).count();
    map
}

/// The original instruction a label of the old listing names.
fn old_target(f: &ListedFunction, label: &str) -> Option<usize> {
    f.labels.get(label).map(|&o| (o / 16) as usize)
}

/// The original instruction a label of the new listing names: the first original one at or
/// after it.
fn new_target(
    f: &ListedFunction,
    map: &[Option<usize>],
    label: &str,
    old_len: usize,
) -> Option<usize> {
    let k = (*f.labels.get(label)? / 16) as usize;
    Some(
        map[k.min(map.len())..]
            .iter()
            .flatten()
            .next()
            .copied()
            .unwrap_or(old_len),
    )
}

/// Compares the nvdisasm listings (`nvdisasm -hex`, all sections) of a cubin before and after
/// [`run`]: same instructions in the same order apart from inserted NOPs (and `.reuse` flags and
/// return-address immediates), every branch and indirect-branch target naming the same original
/// instruction, every `.nv.info` label naming the same original instruction. Returns the
/// numbers, or every difference.
pub fn compare_listings(old: &Listing, new: &Listing) -> Result<Comparison, Vec<String>> {
    let mut cmp = Comparison::default();
    let mut errors = Vec::new();
    let mut maps: HashMap<&str, (Vec<Option<usize>>, &ListedFunction, &ListedFunction)> =
        HashMap::new();
    for of in &old.functions {
        let Some(nf) = new.functions.iter().find(|f| f.name == of.name) else {
            errors.push(format!("{}: missing from the new listing", of.name));
            continue;
        };
        let map = align(of, nf, &mut cmp, &mut errors);
        // Branches.
        for (k, n) in nf.instructions.iter().enumerate() {
            let Some(oi) = map[k] else { continue };
            let ol = labels_of(&of.instructions[oi].text);
            let nl = labels_of(&n.text);
            if ol.len() != nl.len() {
                errors.push(format!(
                    "{} {:#06x}: branch labels differ",
                    nf.name, n.offset
                ));
                continue;
            }
            for (a, b) in ol.iter().zip(&nl) {
                cmp.branches += 1;
                let want = old_target(of, a);
                let got = new_target(nf, &map, b, of.instructions.len());
                if want != got {
                    errors.push(format!(
                        "{} {:#06x} `{}`: target is original instruction {:?}, was {:?}",
                        nf.name, n.offset, n.text, got, want
                    ));
                }
            }
        }
        maps.insert(of.name.as_str(), (map, of, nf));
    }
    // .nv.info labels: the k-th label of each section must name the same original instruction.
    type Refs<'a> = HashMap<&'a str, Vec<(&'a str, &'a str)>>;
    let mut old_by_sec: Refs = HashMap::new();
    for (s, a, l) in &old.label_refs {
        old_by_sec.entry(s).or_default().push((a, l));
    }
    let mut new_by_sec: Refs = HashMap::new();
    for (s, a, l) in &new.label_refs {
        new_by_sec.entry(s).or_default().push((a, l));
    }
    for (sec, ol) in &old_by_sec {
        let nl = new_by_sec.get(sec).cloned().unwrap_or_default();
        if ol.len() != nl.len() {
            errors.push(format!(
                "{sec}: {} code labels before, {} after",
                ol.len(),
                nl.len()
            ));
            continue;
        }
        let kernel = sec.strip_prefix(".nv.info.").unwrap_or(sec);
        let Some((map, of, nf)) = maps.get(kernel) else {
            continue;
        };
        for (&(attr, a), &(_, b)) in ol.iter().zip(&nl) {
            cmp.attribute_labels += 1;
            let want = old_target(of, a);
            // Offset attributes name the instruction itself: the label must sit on it.
            // Indirect-branch targets are entered like branch targets: the first original
            // instruction at or after the label.
            let got = if attr == "EIATTR_INDIRECT_BRANCH_TARGETS" {
                new_target(nf, map, b, of.instructions.len())
            } else {
                nf.labels.get(b).and_then(|&o| {
                    let k = (o / 16) as usize;
                    map.get(k)
                        .copied()
                        .flatten()
                        .or_else(|| (k >= map.len()).then_some(of.instructions.len()))
                })
            };
            if want != got {
                errors.push(format!(
                    "{sec}: label {b} names original instruction {got:?}, {a} named {want:?}"
                ));
            }
        }
    }
    if errors.is_empty() {
        Ok(cmp)
    } else {
        Err(errors)
    }
}
