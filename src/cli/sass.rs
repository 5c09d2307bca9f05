//! `warpsmith sass`: cubin and SASS tools — `dis` (our disassembly with control bits and
//! def/use), `check` (our decoder against nvdisasm) and `nop-test` (insert NOPs at every basic
//! block start and fix everything that depends on code offsets).

use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Subcommand;
use warpsmith::fsutil::write_atomic;
use warpsmith::sass::elf::nvinfo::{self, NvInfo};
use warpsmith::sass::elf::Cubin;
use warpsmith::sass::isa::abi::CallConvention;
use warpsmith::sass::isa::{decode_all, print, Arch};
use warpsmith::sass::liveness::{gpr_liveness, Liveness};
use warpsmith::sass::{nop_test, nvdisasm, SassError};

use super::{emit, CliError};

/// `writeln!` into a `String` (cannot fail).
macro_rules! outln {
    ($out:expr, $($arg:tt)*) => {{
        let _ = writeln!($out, $($arg)*);
    }};
}

/// The `sass` sub-subcommands.
#[derive(Subcommand, Debug)]
pub enum SassCommand {
    /// Disassemble a cubin: per instruction the control bits ([wait:read SB:write SB:yield:stall]),
    /// guard, mnemonic, registers written and read, branch target and raw words; per kernel the
    /// register count, shared memory and `.nv.info` attributes.
    Dis {
        /// The cubin.
        input: PathBuf,
        /// Only this kernel (section `.text.<KERNEL>`).
        #[arg(long)]
        kernel: Option<String>,
        /// Where to write; standard output when absent. Written atomically.
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Also print, per instruction, how many general-purpose registers are live before it
        /// (a dataflow over the listing's def/use and branches), and per function the peak: how
        /// many values ptxas keeps at once, against the register count it reports.
        #[arg(long)]
        liveness: bool,
    },
    /// Compare our decode of every instruction with nvdisasm (raw words, decode→encode, opcode,
    /// registers read and written in every register file, branch targets). Exit status 1 on any
    /// mismatch.
    Check {
        /// The cubin.
        input: PathBuf,
        /// Print every mismatch (default: the first 20).
        #[arg(long)]
        all: bool,
    },
    /// Test mode of the editing machinery: insert a NOP at every basic-block start and fix branch
    /// targets, offset attributes, relocations, symbols and padding.
    NopTest {
        /// The cubin.
        input: PathBuf,
        /// The output cubin (written atomically).
        #[arg(short, long)]
        output: PathBuf,
        /// Also compare the nvdisasm listings of input and output (exit status 1 on any
        /// difference).
        #[arg(long)]
        verify: bool,
    },
}

fn load(path: &Path) -> Result<(Vec<u8>, Cubin), CliError> {
    let bytes = std::fs::read(path).map_err(|e| CliError::Read {
        path: path.to_path_buf(),
        source: e,
    })?;
    let cubin = Cubin::parse(&bytes).map_err(|e| CliError::Sass(SassError::from(e)))?;
    Ok((bytes, cubin))
}

fn arch_of(c: &Cubin) -> Result<Arch, CliError> {
    Arch::from_sm(c.sm()).ok_or(CliError::Sass(SassError::Arch(c.sm())))
}

/// Runs a `sass` sub-subcommand.
pub fn run(cmd: &SassCommand) -> Result<ExitCode, CliError> {
    match cmd {
        SassCommand::Dis {
            input,
            kernel,
            output,
            liveness,
        } => dis(input, kernel.as_deref(), output.as_deref(), *liveness),
        SassCommand::Check { input, all } => check(input, *all),
        SassCommand::NopTest {
            input,
            output,
            verify,
        } => nop_test(input, output, *verify),
    }
}

fn dis(
    input: &Path,
    kernel: Option<&str>,
    output: Option<&Path>,
    liveness: bool,
) -> Result<ExitCode, CliError> {
    let (_, cubin) = load(input)?;
    let arch = arch_of(&cubin)?;
    let mut out = String::new();
    let _ = writeln!(out, "// {} ({arch})", input.display());
    let syms = cubin.symbols().unwrap_or_default();
    let global_info = cubin
        .section(".nv.info")
        .and_then(|s| NvInfo::parse_global(&s.data).ok())
        .unwrap_or_default();
    let mut found = false;
    for f in cubin.functions() {
        if kernel.is_some_and(|k| k != f.name) {
            continue;
        }
        found = true;
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "// function {}: {} registers, {} barriers, {} bytes shared, {} bytes of code",
            f.name,
            cubin.register_count(&f),
            f.barriers,
            cubin.shared_size(&f.name),
            cubin.sections[f.text].data.len()
        );
        for r in &global_info.records {
            if let nvinfo::Attribute::RegCount { sym, count }
            | nvinfo::Attribute::SymValue { sym, value: count } = &r.value
            {
                if *sym == f.symbol {
                    let _ = writeln!(out, "//   .nv.info {}: {count:#x}", r.name());
                }
            }
        }
        if let Some(info) = cubin
            .section(&format!(".nv.info.{}", f.name))
            .and_then(|s| NvInfo::parse(&s.data).ok())
        {
            for r in &info.records {
                let _ = writeln!(
                    out,
                    "//   .nv.info.{} {}: {}",
                    f.name,
                    r.name(),
                    nvinfo::describe(r)
                );
            }
        }
        let labels: Vec<(u64, &str)> = syms
            .iter()
            .filter(|s| s.st_shndx as usize == f.text && s.kind() == 2)
            .map(|s| (s.st_value, s.name.as_str()))
            .collect();
        let conv = CallConvention::of(cubin.register_count(&f));
        let insts = decode_all(arch, &cubin.sections[f.text].data);
        let live = liveness.then(|| gpr_liveness(&insts, &conv));
        if let Some(l) = &live {
            write_peak(&mut out, l);
        }
        for (k, i) in insts.iter().enumerate() {
            let pc = k as u64 * 16;
            for (v, n) in &labels {
                if *v == pc {
                    let _ = writeln!(out, "{n}:");
                }
            }
            let line = print::line_in(i, pc, &conv);
            match &live {
                Some(l) => {
                    let _ = writeln!(out, "        live {:>3}  {line}", l.count(k));
                    log::debug!(
                        "{} /*{pc:04x}*/ live: {}",
                        f.name,
                        l.live_in[k]
                            .iter()
                            .map(|r| format!("R{r}"))
                            .collect::<Vec<_>>()
                            .join(" ")
                    );
                }
                None => {
                    let _ = writeln!(out, "        {line}");
                }
            }
        }
    }
    if let Some(k) = kernel {
        if !found {
            return Err(CliError::Sass(SassError::Elf(
                warpsmith::sass::elf::ElfError::NoKernel(k.to_string()),
            )));
        }
    }
    emit(output, &out)?;
    Ok(ExitCode::SUCCESS)
}

/// The `--liveness` header of one function: its peak and where the analysis guessed.
fn write_peak(out: &mut String, l: &Liveness) {
    if let Some((k, n)) = l.peak() {
        let _ = writeln!(
            out,
            "//   liveness: at most {n} registers live at once (first before /*{:04x}*/)",
            k * 16
        );
    }
    for a in &l.approximate {
        let _ = writeln!(out, "//   liveness approximate: {a}");
    }
}

fn check(input: &Path, all: bool) -> Result<ExitCode, CliError> {
    let (bytes, _) = load(input)?;
    let mut out = String::new();
    let report =
        warpsmith::sass::check::check_cubin(&bytes).map_err(|e| CliError::Sass(e.into()))?;
    let c = &report.counts;
    let pct = |n: usize| {
        if c.instructions == 0 {
            100.0
        } else {
            100.0 * n as f64 / c.instructions as f64
        }
    };
    let arch = report.arch.map_or("?".to_string(), |a| a.to_string());
    outln!(
        out,
        "{}: {arch}, {} instructions",
        input.display(),
        c.instructions
    );
    outln!(
        out,
        "  raw words equal nvdisasm's:      {} ({:.2}%)",
        c.words_agree,
        pct(c.words_agree)
    );
    outln!(
        out,
        "  decode->encode bit-exact:        {} ({:.2}%)",
        c.encode_agree,
        pct(c.encode_agree)
    );
    outln!(
        out,
        "  form known to the table:         {} ({:.2}%)",
        c.known,
        pct(c.known)
    );
    outln!(
        out,
        "  opcode agrees:                   {} ({:.2}%)",
        c.opcode_agree,
        pct(c.opcode_agree)
    );
    // Registers are compared where nvdisasm gives life ranges (not on the end padding).
    let ranged = c.instructions - c.regs_unlisted;
    let rpct = |n: usize| {
        if ranged == 0 {
            100.0
        } else {
            100.0 * n as f64 / ranged as f64
        }
    };
    outln!(out, "  with life ranges from nvdisasm:  {ranged}");
    outln!(
        out,
        "  registers and roles agree:       {} ({:.2}% of those; {} calls, by their function's calling convention)",
        c.regs_exact,
        rpct(c.regs_exact),
        c.calls_exact
    );
    outln!(
        out,
        "  conservative (implicit/unknown): {} ({:.2}% of those){}",
        c.regs_conservative,
        rpct(c.regs_conservative),
        if report.conservative_by_mnemonic.is_empty() {
            String::new()
        } else {
            format!(
                ": {}",
                report
                    .conservative_by_mnemonic
                    .iter()
                    .map(|(k, v)| format!("{k} {v}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
    );
    outln!(
        out,
        "  no life ranges (end padding):    {}",
        c.regs_unlisted
    );
    outln!(
        out,
        "  branch targets agree:            {} of {}",
        c.targets_agree,
        c.targets
    );
    let n = if all { usize::MAX } else { 20 };
    for m in report.mismatches.iter().take(n) {
        outln!(
            out,
            "  MISMATCH {} {:#06x} `{}`: {}",
            m.function,
            m.offset,
            m.text,
            m.what
        );
    }
    if report.mismatches.len() > n {
        outln!(
            out,
            "  … {} more mismatches (--all prints them)",
            report.mismatches.len() - n
        );
    }
    if report.ok() {
        outln!(out, "  OK: every instruction agrees with nvdisasm");
        emit(None, &out)?;
        Ok(ExitCode::SUCCESS)
    } else {
        outln!(out, "  FAILED: {} mismatches", report.mismatches.len());
        emit(None, &out)?;
        Ok(ExitCode::from(1))
    }
}

fn nop_test(input: &Path, output: &Path, verify: bool) -> Result<ExitCode, CliError> {
    let (bytes, mut cubin) = load(input)?;
    arch_of(&cubin)?;
    let mut out = String::new();
    let outcomes = nop_test::run(&mut cubin).map_err(|e| CliError::Sass(e.into()))?;
    let mut skipped = 0;
    for (name, o) in &outcomes {
        match o {
            nop_test::KernelOutcome::Edited { nops, report } => outln!(out,
                "{name}: {nops} NOPs; rewrote {} branches, {} return addresses, {} attribute offsets, \
                 {} jump-table entries, {} function pointers, {} relocations, {} symbols, {} FDEs; \
                 {} -> {} bytes",
                report.branches,
                report.return_addresses,
                report.attribute_offsets,
                report.jump_table_entries,
                report.function_pointers,
                report.relocations,
                report.symbols,
                report.fdes,
                report.size.0,
                report.size.1
            ),
            nop_test::KernelOutcome::Skipped(why) => {
                skipped += 1;
                outln!(out, "{name}: SKIPPED (left unchanged): {why}")
            }
        }
    }
    let bytes_out = cubin.to_bytes();
    write_atomic(output, &bytes_out).map_err(|e| CliError::Write {
        path: output.to_path_buf(),
        source: e,
    })?;
    if verify {
        let old = nvdisasm::list_all_bytes(&bytes).map_err(|e| CliError::Sass(e.into()))?;
        let new = nvdisasm::list_all_bytes(&bytes_out).map_err(|e| CliError::Sass(e.into()))?;
        match nop_test::compare_listings(&old, &new) {
            Ok(c) => {
                outln!(out,
                "verified with nvdisasm: {} original instructions, {} NOPs, {} branch targets, \
                 {} .nv.info labels, {} return addresses",
                c.instructions, c.nops, c.branches, c.attribute_labels, c.return_addresses
            )
            }
            Err(errs) => {
                for e in &errs {
                    outln!(out, "  DIFFERENCE {e}");
                }
                outln!(
                    out,
                    "FAILED: the nvdisasm listings differ ({} differences)",
                    errs.len()
                );
                emit(None, &out)?;
                return Ok(ExitCode::from(1));
            }
        }
    }
    if skipped > 0 {
        outln!(out, "note: {skipped} kernel(s) skipped (see above)");
    }
    outln!(
        out,
        "note: the output is checked with nvdisasm only; it has not been run on a GPU"
    );
    emit(None, &out)?;
    Ok(ExitCode::SUCCESS)
}
