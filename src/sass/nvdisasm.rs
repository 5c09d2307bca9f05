//! nvdisasm as an oracle: runs it on a cubin and parses its listing — instruction text, raw
//! words (`-hex`) and the registers each instruction reads and writes (`-lrm narrow` life-range
//! columns: `v` read, `^` written, `x` both) — plus the labels that branch operands name.
//!
//! Reference: `sass-and-cubin-format.md` §7 (nvdisasm options; the life-range table is the
//! read/write oracle for the def/use tables).
//!
//! nvdisasm 13.x computes life ranges (dataflow) only for cubins with the newer "standard" CUDA
//! ELF header; for ptxas 12.x cubins it prints "Disassembling Std Elf to Old format … switching
//! to Old format" and refuses `-lrm`. [`std_header_copy`] rewrites only the header of a copy
//! (EI_OSABI 0x41, EI_ABIVERSION 8, `e_flags` = SM << 8), which nvdisasm then analyses; the code
//! bytes are untouched.

use std::collections::HashMap;
use std::path::Path;

use crate::tools::{self, Tool, ToolError};

use super::isa::RegFile;

/// One instruction as nvdisasm lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedInstruction {
    /// Byte offset in the function's section.
    pub offset: u64,
    /// The text (with guard, without the trailing `;`).
    pub text: String,
    /// The 128-bit word from `-hex`.
    pub word: u128,
    /// Registers read, per file ([`RegFile::index`]); `None` without life ranges.
    pub reads: Option<[Vec<u32>; 4]>,
    /// Registers written, per file.
    pub writes: Option<[Vec<u32>; 4]>,
}

impl ListedInstruction {
    /// The base mnemonic (`IMAD` for `@!P0 IMAD.MOV.U32 …`).
    pub fn base_mnemonic(&self) -> &str {
        let mut t = self.text.split_whitespace();
        let mut first = t.next().unwrap_or("");
        if first.starts_with('@') {
            first = t.next().unwrap_or("");
        }
        let first = first.trim_end_matches(';');
        first.split('.').next().unwrap_or("")
    }

    /// The label a branch operand names (`` `(.L_x_3) `` → `.L_x_3`).
    pub fn branch_label(&self) -> Option<&str> {
        let start = self.text.find("`(")? + 2;
        let end = self.text[start..].find(')')? + start;
        Some(&self.text[start..end])
    }
}

/// One function (code section) of a listing.
#[derive(Debug, Clone, Default)]
pub struct ListedFunction {
    /// Section name without `.text.`.
    pub name: String,
    /// Instructions in order.
    pub instructions: Vec<ListedInstruction>,
    /// Label → byte offset (labels after the last instruction get the section end).
    pub labels: HashMap<String, u64>,
    /// The registers of each file ([`RegFile::index`]) that the life-range table has a column
    /// for (empty without life ranges). nvdisasm makes one column per register up to the
    /// highest one used anywhere in the cubin, so a register beyond them cannot be shown.
    pub columns: [Vec<u32>; 4],
}

/// A whole listing: the functions, and the code labels that other sections name
/// (`.word .L_x_3@srel` in `.nv.info.<k>` attributes), per section in order.
#[derive(Debug, Clone, Default)]
pub struct Listing {
    /// The code sections.
    pub functions: Vec<ListedFunction>,
    /// (section name, attribute name, label) for every `label@srel` outside code, in order;
    /// the attribute is the `EIATTR_*` the reference belongs to (empty outside `.nv.info`).
    pub label_refs: Vec<(String, String, String)>,
}

/// Copies `cubin` with the newer CUDA ELF header so that nvdisasm 13 runs its dataflow analysis.
pub fn std_header_copy(cubin: &[u8]) -> Vec<u8> {
    let mut d = cubin.to_vec();
    if d.len() >= 64 {
        let flags = u32::from_le_bytes([d[48], d[49], d[50], d[51]]);
        let sm = if d[8] >= 8 || d[7] == 0x41 {
            (flags >> 8) & 0xff
        } else {
            flags & 0xff
        };
        d[7] = 0x41;
        d[8] = 8;
        d[48..52].copy_from_slice(&(sm << 8).to_le_bytes());
    }
    d
}

fn boxes(line: &str) -> Option<Vec<&str>> {
    let i = line.find("//")?;
    let parts: Vec<&str> = line[i + 2..].split('|').collect();
    if parts.len() < 3 {
        return None;
    }
    Some(parts[1..parts.len() - 1].to_vec())
}

fn file_of(title: &str) -> Option<RegFile> {
    Some(match title.trim() {
        "GPR" => RegFile::Gpr,
        "PRED" => RegFile::Pred,
        "UGPR" => RegFile::Ugpr,
        "UPRED" => RegFile::Upred,
        _ => return None,
    })
}

/// Parses `/*0040*/ TEXT ; /* 0x... */` into (offset, text, low word).
fn parse_inst_line(line: &str) -> Option<(u64, String, u64)> {
    let t = line.trim_start();
    let rest = t.strip_prefix("/*")?;
    let end = rest.find("*/")?;
    let off = u64::from_str_radix(&rest[..end], 16).ok()?;
    let after = &rest[end + 2..];
    let hex_at = after.find("/* 0x")?;
    let text = after[..hex_at]
        .trim()
        .trim_end_matches(';')
        .trim()
        .to_string();
    let h = &after[hex_at + 5..];
    let lo = u64::from_str_radix(h.get(..16)?, 16).ok()?;
    Some((off, text, lo))
}

fn parse_hi_line(line: &str) -> Option<u64> {
    let t = line.trim_start();
    let h = t.strip_prefix("/* 0x")?;
    u64::from_str_radix(h.get(..16)?, 16).ok()
}

/// Column layout of the life-range table: per box, its file and (column, register) pairs.
type Columns = Vec<(Option<RegFile>, Vec<(usize, u32)>)>;

fn parse_columns(lines: &[&str], i: usize) -> Option<Columns> {
    let ones = boxes(lines[i])?;
    let title = boxes(lines.get(i.checked_sub(3)?)?)?;
    let tens = boxes(lines.get(i.checked_sub(1)?)?)?;
    let hundreds = boxes(lines.get(i.checked_sub(2)?)?)?;
    let mut cols = Vec::new();
    for (bi, b) in ones.iter().enumerate() {
        let bytes = b.as_bytes();
        let h = b.find('#')?;
        let mut regs = Vec::new();
        for (j, &c) in bytes.iter().enumerate().skip(h + 1) {
            if !c.is_ascii_digit() {
                continue;
            }
            let mut n = (c - b'0') as u32;
            for (k, row) in [&tens, &hundreds].iter().enumerate() {
                if let Some(&d) = row.get(bi).and_then(|r| r.as_bytes().get(j)) {
                    if d.is_ascii_digit() {
                        n += (d - b'0') as u32 * 10u32.pow(k as u32 + 1);
                    }
                }
            }
            regs.push((j, n));
        }
        cols.push((title.get(bi).and_then(|t| file_of(t)), regs));
    }
    Some(cols)
}

/// Parses the output of `nvdisasm -c -hex [-lrm narrow]`.
pub fn parse_listing(out: &str) -> Vec<ListedFunction> {
    parse_full_listing(out).functions
}

/// Parses the output of `nvdisasm -hex [-c] [-lrm narrow]`, with the label references of
/// non-code sections.
pub fn parse_full_listing(out: &str) -> Listing {
    let lines: Vec<&str> = out.lines().collect();
    let mut funcs: Vec<ListedFunction> = Vec::new();
    let mut label_refs = Vec::new();
    let mut section = String::new();
    let mut attr = String::new();
    let mut in_text = false;
    let mut cols: Option<Columns> = None;
    let mut pending_labels: Vec<String> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if let Some(rest) = line.strip_prefix("\t.section\t") {
            section = rest.split(',').next().unwrap_or("").to_string();
            in_text = section.starts_with(".text.");
            if let Some(f) = funcs.last_mut() {
                let end = f.instructions.last().map_or(0, |x| x.offset + 16);
                for l in pending_labels.drain(..) {
                    f.labels.insert(l, end);
                }
            }
            pending_labels.clear();
            if in_text {
                funcs.push(ListedFunction {
                    name: section[".text.".len()..].to_string(),
                    ..Default::default()
                });
                cols = None;
            }
        }
        if !in_text {
            if let Some(a) = line.split("nvinfo : ").nth(1) {
                attr = a.trim().to_string();
            }
            if line.contains("@srel") {
                for tok in
                    line.split(|c: char| c.is_whitespace() || c == ',' || c == '(' || c == ')')
                {
                    if let Some(l) = tok.strip_suffix("@srel") {
                        label_refs.push((section.clone(), attr.clone(), l.to_string()));
                    }
                }
            }
            i += 1;
            continue;
        }
        if cols.is_none() && line.contains("// |") && line.contains('#') {
            cols = parse_columns(&lines, i);
            if let (Some(c), Some(f)) = (&cols, funcs.last_mut()) {
                for (file, regs) in c {
                    if let Some(file) = file {
                        f.columns[file.index()] = regs.iter().map(|&(_, n)| n).collect();
                    }
                }
            }
        }
        let code = line.split("//").next().unwrap_or("");
        let ct = code.trim();
        if !ct.is_empty() && ct.ends_with(':') && !ct.starts_with('.')
            || ct.starts_with(".L") && ct.ends_with(':')
        {
            pending_labels.push(ct.trim_end_matches(':').to_string());
        }
        if let Some((off, text, lo)) = parse_inst_line(line) {
            let hi = lines.get(i + 1).and_then(|l| parse_hi_line(l)).unwrap_or(0);
            let mut reads: Option<[Vec<u32>; 4]> = None;
            let mut writes: Option<[Vec<u32>; 4]> = None;
            if let (Some(c), Some(bx)) = (&cols, lines.get(i + 1).and_then(|l| boxes(l))) {
                let mut r: [Vec<u32>; 4] = Default::default();
                let mut w: [Vec<u32>; 4] = Default::default();
                for (bi, (file, regs)) in c.iter().enumerate() {
                    let (Some(file), Some(b)) = (file, bx.get(bi)) else {
                        continue;
                    };
                    let bb = b.as_bytes();
                    for &(j, n) in regs {
                        match bb.get(j) {
                            Some(b'v') => r[file.index()].push(n),
                            Some(b'^') => w[file.index()].push(n),
                            Some(b'x') => {
                                r[file.index()].push(n);
                                w[file.index()].push(n);
                            }
                            _ => {}
                        }
                    }
                }
                reads = Some(r);
                writes = Some(w);
            }
            if let Some(f) = funcs.last_mut() {
                for l in pending_labels.drain(..) {
                    f.labels.insert(l, off);
                }
                f.instructions.push(ListedInstruction {
                    offset: off,
                    text,
                    word: lo as u128 | (hi as u128) << 64,
                    reads,
                    writes,
                });
            }
            i += 2;
            continue;
        }
        i += 1;
    }
    // Labels after the last instruction: the end of the section.
    if let Some(f) = funcs.last_mut() {
        let end = f.instructions.last().map_or(0, |x| x.offset + 16);
        for l in pending_labels.drain(..) {
            f.labels.insert(l, end);
        }
    }
    Listing {
        functions: funcs,
        label_refs,
    }
}

/// Lists a cubin file's code with nvdisasm (`-c -hex`, plus `-lrm narrow` when `life_ranges`;
/// then on a standard-header copy).
pub fn list(cubin: &Path, life_ranges: bool) -> Result<Vec<ListedFunction>, ToolError> {
    let bytes = std::fs::read(cubin).map_err(|e| ToolError::Io {
        context: format!("reading {}", cubin.display()),
        source: e,
    })?;
    list_bytes(&bytes, life_ranges)
}

/// Like [`list`], for cubin bytes.
pub fn list_bytes(cubin: &[u8], life_ranges: bool) -> Result<Vec<ListedFunction>, ToolError> {
    run_listing(cubin, life_ranges, true).map(|l| l.functions)
}

/// The whole listing of cubin bytes (`nvdisasm -hex`, all sections): code and the label
/// references of `.nv.info` attributes.
pub fn list_all_bytes(cubin: &[u8]) -> Result<Listing, ToolError> {
    run_listing(cubin, false, false)
}

fn run_listing(cubin: &[u8], life_ranges: bool, code_only: bool) -> Result<Listing, ToolError> {
    let data = if life_ranges {
        std_header_copy(cubin)
    } else {
        cubin.to_vec()
    };
    let mut args: Vec<&str> = vec!["-hex"];
    if code_only {
        args.push("-c");
    }
    if life_ranges {
        args.extend(["-lrm", "narrow"]);
    }
    let out = run_on_bytes(&data, &args)?;
    Ok(parse_full_listing(&String::from_utf8_lossy(&out.stdout)))
}

/// Runs `nvdisasm ARGS FILE` on `cubin` written to a temporary file (removed afterwards).
fn run_on_bytes(cubin: &[u8], args: &[&str]) -> Result<std::process::Output, ToolError> {
    let nvdisasm = tools::find(Tool::Nvdisasm)?;
    let path = std::env::temp_dir().join(format!(
        "warpsmith-nvdisasm-{}-{}.cubin",
        std::process::id(),
        unique()
    ));
    std::fs::write(&path, cubin).map_err(|e| ToolError::Io {
        context: format!("writing {}", path.display()),
        source: e,
    })?;
    let mut argv: Vec<std::ffi::OsString> = args.iter().map(Into::into).collect();
    argv.push(path.clone().into());
    let out = tools::run_at(Tool::Nvdisasm, &nvdisasm, &argv);
    let _ = std::fs::remove_file(&path);
    out
}

/// One instruction of `nvdisasm -g`: where its source line is, and whether ptxas marked it as
/// spill code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinedInstruction {
    /// Function (section name without `.text.`).
    pub function: String,
    /// Byte offset in the function.
    pub offset: u64,
    /// Source file and line of the last `//## File "…", line N` annotation before it.
    pub source: Option<(String, u32)>,
    /// nvdisasm's `(*"SpillRefill"*)` tag: ptxas's own register spill or refill.
    pub spill: bool,
}

/// Parses `nvdisasm -g` output: every instruction with its source line.
pub fn parse_line_listing(out: &str) -> Vec<LinedInstruction> {
    let mut v = Vec::new();
    let (mut function, mut source) = (String::new(), None);
    for line in out.lines() {
        let t = line.trim();
        if let Some(name) = t.strip_prefix(".text.").and_then(|r| r.strip_suffix(':')) {
            function = name.to_string();
            source = None;
        } else if let Some(rest) = t.strip_prefix("//## File \"") {
            source = rest.split_once("\", line ").and_then(|(file, n)| {
                let n: String = n.chars().take_while(char::is_ascii_digit).collect();
                Some((file.to_string(), n.parse().ok()?))
            });
        } else if let Some(rest) = t.strip_prefix("/*") {
            let Some((hex, _)) = rest.split_once("*/") else {
                continue;
            };
            if let (Ok(offset), false) = (u64::from_str_radix(hex, 16), function.is_empty()) {
                v.push(LinedInstruction {
                    function: function.clone(),
                    offset,
                    source: source.clone(),
                    spill: t.contains("(*\"SpillRefill\"*)"),
                });
            }
        }
    }
    v
}

/// `nvdisasm -g` of cubin bytes: the source line of every instruction (from `.debug_line`,
/// present when ptxas ran with `-lineinfo`) and ptxas's spill tags.
pub fn line_listing(cubin: &[u8]) -> Result<Vec<LinedInstruction>, ToolError> {
    let out = run_on_bytes(cubin, &["-g"])?;
    Ok(parse_line_listing(&String::from_utf8_lossy(&out.stdout)))
}

fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_listing_with_life_ranges() {
        let out = "\t.section\t.text.k,\"ax\",@progbits
                                   // +--------+------+
                                   // |  GPR   | PRED |
                                   // |        |      |
                                   // |    000 |      |
                                   // |  # 012 | # 0  |
                                   // +--------+------+
k:                                 // |        |      |
        /*0000*/                   IMAD R2, R0, R1, RZ ; /* 0x0000000100027224 */ // |        |      |
                                                         /* 0x000fe200078e02ff */ // |  3 vv^ |      |
.L_x_0:                                                                           // |        |      |
        /*0010*/               @P0 BRA `(.L_x_0) ; /* 0xfffffff000000947 */ // |        |      |
                                                   /* 0x000fc0000383ffff */ // |        | 1 v  |
";
        let f = parse_listing(out);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].name, "k");
        let i = &f[0].instructions;
        assert_eq!(i.len(), 2);
        assert_eq!(i[0].base_mnemonic(), "IMAD");
        assert_eq!(i[0].reads.as_ref().unwrap()[0], vec![0, 1]);
        assert_eq!(i[0].writes.as_ref().unwrap()[0], vec![2]);
        assert_eq!(i[1].reads.as_ref().unwrap()[1], vec![0]);
        assert_eq!(i[1].branch_label(), Some(".L_x_0"));
        assert_eq!(f[0].labels[".L_x_0"], 0x10);
        assert_eq!(f[0].labels["k"], 0);
        assert_eq!(i[1].word >> 64, 0x000fc0000383ffff);
        assert_eq!(f[0].columns[RegFile::Gpr.index()], vec![0, 1, 2]);
        assert_eq!(f[0].columns[RegFile::Pred.index()], vec![0]);
        assert!(f[0].columns[RegFile::Ugpr.index()].is_empty());
    }

    #[test]
    fn parses_line_annotations_and_spill_tags() {
        let out = "\t.section\t.text.k,\"ax\",@progbits
.text.k:
\t//## File \"/x/k.cu\", line 12
        /*0000*/                   MOV R1, c[0x0][0x28] ;
.L_x_1:
        /*0010*/                   STL [R1+0x4], R3                  (*\"SpillRefill\"*);
\t//## File \"/x/k.cu\", line 14
        /*0020*/                   EXIT ;
";
        let v = parse_line_listing(out);
        assert_eq!(v.len(), 3);
        assert_eq!(v[1].function, "k");
        assert_eq!(v[1].offset, 0x10);
        assert_eq!(v[1].source, Some(("/x/k.cu".to_string(), 12)));
        assert!(v[1].spill && !v[0].spill);
        assert_eq!(v[2].source.as_ref().map(|s| s.1), Some(14));
    }

    #[test]
    fn header_copy() {
        let mut h = vec![0u8; 64];
        h[7] = 0x33;
        h[8] = 7;
        h[48..52].copy_from_slice(&0x0050_0550u32.to_le_bytes());
        let c = std_header_copy(&h);
        assert_eq!((c[7], c[8]), (0x41, 8));
        assert_eq!(u32::from_le_bytes([c[48], c[49], c[50], c[51]]), 0x5000);
    }
}
