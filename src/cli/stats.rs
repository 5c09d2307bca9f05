//! `warpsmith stats`: per-function statistics — instruction, block and loop counts, the most 32-bit
//! registers and predicates live at once (from the machine analyses), launch bounds, the static
//! shared and local memory each function declares or references, and with `--arch` the register
//! model's prediction of ptxas's count (issue 12).

use std::fmt::Write;
use std::path::Path;
use std::process::ExitCode;

use serde::Serialize;
use warpsmith::analysis::occupancy::{self, ArchLimits};
use warpsmith::analysis::regmodel::{self, RegModel};
use warpsmith::machine::summary::FunctionSummary;
use warpsmith::ptx::{DeclaredMemory, FuncDirective, FuncKind, Function, Module};

use super::{emit, load_ptx, CliError};

/// Launch bounds as written in the PTX.
#[derive(Debug, Default, Serialize)]
struct LaunchBounds {
    #[serde(skip_serializing_if = "Option::is_none")]
    maxntid: Option<Vec<u32>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reqntid: Option<Vec<u32>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    minnctapersm: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    maxnreg: Option<u32>,
}

impl LaunchBounds {
    fn of(f: &Function) -> LaunchBounds {
        let mut lb = LaunchBounds::default();
        for d in &f.directives {
            match d {
                FuncDirective::MaxNtid(v) => lb.maxntid = Some(v.clone()),
                FuncDirective::ReqNtid(v) => lb.reqntid = Some(v.clone()),
                FuncDirective::MinNctaPerSm(n) => lb.minnctapersm = Some(*n),
                FuncDirective::MaxNreg(n) => lb.maxnreg = Some(*n),
                _ => {}
            }
        }
        lb
    }

    fn text(&self) -> String {
        let list = |v: &[u32]| v.iter().map(u32::to_string).collect::<Vec<_>>().join(",");
        let mut parts = Vec::new();
        if let Some(v) = &self.reqntid {
            parts.push(format!("reqntid {}", list(v)));
        }
        if let Some(v) = &self.maxntid {
            parts.push(format!("maxntid {}", list(v)));
        }
        if let Some(n) = self.minnctapersm {
            parts.push(format!("minnctapersm {n}"));
        }
        if let Some(n) = self.maxnreg {
            parts.push(format!("maxnreg {n}"));
        }
        if parts.is_empty() {
            "-".into()
        } else {
            parts.join(" ")
        }
    }
}

/// Everything printed for one function.
#[derive(Debug, Serialize)]
struct FunctionStats {
    #[serde(flatten)]
    summary: FunctionSummary,
    launch_bounds: LaunchBounds,
    /// Static shared memory: `.shared` variables declared in the body plus module-level ones the
    /// body or a function it calls names (ptxas's `smem` for a kernel).
    shared_bytes: u64,
    /// True when the function uses an unsized `extern .shared` array (dynamic shared memory).
    dynamic_shared: bool,
    /// Local memory declared in the body (`.local` arrays such as `__local_depot`).
    local_bytes: u64,
    /// With `--arch`, for kernels: the register model's figures (`estimate` is its prediction of
    /// ptxas's count).
    #[serde(skip_serializing_if = "Option::is_none")]
    register_model: Option<RegModel>,
}

#[derive(Debug, Serialize)]
struct Report<'a> {
    file: &'a str,
    functions: Vec<FunctionStats>,
}

/// The register model's figures for kernel `f` on `arch`; `None` for device functions (ptxas
/// reports no count of their own) and where the model cannot read the kernel (logged).
fn register_model(module: &Module, f: &Function, arch: &'static ArchLimits) -> Option<RegModel> {
    if f.kind != FuncKind::Entry {
        return None;
    }
    regmodel::model(module, f, arch)
        .inspect_err(|why| log::warn!("register model on `{}`: {why}", f.name))
        .ok()
}

/// Runs the command.
pub fn run(
    input: &Path,
    json: bool,
    arch: Option<&str>,
    output: Option<&Path>,
) -> Result<ExitCode, CliError> {
    let arch = arch.map(occupancy::arch).transpose()?;
    let module = load_ptx(input)?;
    let functions: Vec<FunctionStats> = module
        .functions()
        .filter(|f| f.body.is_some())
        .map(|f| {
            let DeclaredMemory {
                shared: shared_bytes,
                dynamic_shared,
                local: local_bytes,
            } = DeclaredMemory::of(&module, f);
            FunctionStats {
                summary: FunctionSummary::compute(f),
                launch_bounds: LaunchBounds::of(f),
                shared_bytes,
                dynamic_shared,
                local_bytes,
                register_model: arch.and_then(|a| register_model(&module, f, a)),
            }
        })
        .collect();
    let file = input.display().to_string();
    let text = if json {
        let mut s = serde_json::to_string_pretty(&Report {
            file: &file,
            functions,
        })
        .unwrap_or_default();
        s.push('\n');
        s
    } else {
        table(&functions, arch.is_some())
    };
    emit(output, &text)?;
    Ok(ExitCode::SUCCESS)
}

/// The text table; `predicted` adds the register model's column.
fn table(functions: &[FunctionStats], predicted: bool) -> String {
    let name_w = functions
        .iter()
        .map(|f| f.summary.name.len())
        .max()
        .unwrap_or(0)
        .clamp(8, 48);
    let mut s = String::new();
    let regs_head = if predicted { "  regs~" } else { "" };
    let _ = writeln!(
        s,
        "{:<5} {:<name_w$} {:>6} {:>6} {:>5} {:>5} {:>6}{regs_head} {:>5} {:>8} {:>7}  launch bounds",
        "kind", "function", "insts", "blocks", "loops", "depth", "live32", "preds", "smem", "local"
    );
    for f in functions {
        let m = &f.summary;
        let smem = if f.dynamic_shared {
            format!("{}+dyn", f.shared_bytes)
        } else {
            f.shared_bytes.to_string()
        };
        let regs = match (&f.register_model, predicted) {
            (Some(r), _) => format!(" {:>6}", r.estimate),
            (None, true) => format!(" {:>6}", "-"),
            (None, false) => String::new(),
        };
        let _ = writeln!(
            s,
            "{:<5} {:<name_w$} {:>6} {:>6} {:>5} {:>5} {:>6}{regs} {:>5} {:>8} {:>7}  {}{}",
            if m.is_entry { "entry" } else { "func" },
            m.name,
            m.instructions,
            m.blocks,
            m.loops,
            m.max_loop_depth,
            m.max_live_units,
            m.max_live_preds,
            smem,
            f.local_bytes,
            f.launch_bounds.text(),
            if m.irreducible {
                "  (irreducible control flow)"
            } else {
                ""
            },
        );
    }
    if functions.is_empty() {
        s.push_str("(no function bodies)\n");
    } else if predicted {
        s.push_str(
            "regs~: the register model's prediction of ptxas's count, not a measurement \
             (docs/regmodel-table.md); `ptxas -v` gives the figure\n",
        );
    }
    s
}
