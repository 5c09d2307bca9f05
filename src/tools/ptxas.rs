//! Running `ptxas` and reading the resource figures that `ptxas -v` prints.
//!
//! `ptxas -v` writes, on standard error, one group of lines per function, for example (ptxas 12.9):
//!
//! ```text
//! ptxas info    : 0 bytes gmem, 256 bytes cmem[3]
//! ptxas info    : Compiling entry function 'k' for 'sm_80'
//! ptxas info    : Function properties for k
//!     128 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads
//! ptxas info    : Used 16 registers, used 1 barriers, 1024 bytes smem, 128 bytes cumulative stack size, 364 bytes cmem[0]
//! ptxas info    : Compile time = 4.265 ms
//! ptxas info    : Function properties for helper
//!     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
//! ```
//!
//! Entries (`.entry`) get a `Used …` line; device functions (`.func`) usually only get the stack
//! line (their registers are counted in the entries that call them). [`parse_ptxas_verbose`]
//! turns such text into one [`KernelResources`] per function; [`ptxas_verbose`] runs ptxas and
//! parses what it printed.

use super::temp::TempDir;
use super::{find, run_at, Tool, ToolError};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// How many times this process has run ptxas ([`ptxas_runs`]).
static PTXAS_RUNS: AtomicU64 = AtomicU64::new(0);

/// How many times this process has run ptxas so far (every function of this module that
/// assembles counts once per run): the spilling pass's searches are measured by it
/// (`bench/spill_baseline.rs`).
pub fn ptxas_runs() -> u64 {
    PTXAS_RUNS.load(Ordering::Relaxed)
}

/// What `ptxas -v` reports for one function (an `.entry` kernel or a `.func`).
///
/// Figures ptxas does not print for a function are 0 (for example `registers` of a `.func` that
/// is compiled into its callers).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KernelResources {
    /// The function's name as it appears in the PTX (mangled when the PTX is).
    pub name: String,
    /// The target ptxas compiled for (`sm_80`, …).
    pub arch: String,
    /// Whether ptxas compiled it as an entry (`Compiling entry function …`).
    pub entry: bool,
    /// Registers per thread (`Used N registers`).
    pub registers: u32,
    /// Named barriers used (`used N barriers`).
    pub barriers: u32,
    /// Bytes per thread stored by register spilling (`N bytes spill stores`).
    pub spill_stores: u32,
    /// Bytes per thread loaded back by register spilling (`N bytes spill loads`).
    pub spill_loads: u32,
    /// This function's own stack frame per thread, in bytes (local arrays and spill slots).
    pub stack_frame: u32,
    /// Stack of the function and everything it calls, in bytes (`N bytes cumulative stack
    /// size`; only printed when the stack is not empty).
    pub cumulative_stack: u32,
    /// Static shared memory per block, in bytes (`N bytes smem`).
    pub shared: u32,
    /// Local memory per thread, in bytes: `N bytes lmem` where this ptxas prints it (older
    /// releases), otherwise the larger of `stack_frame` and `cumulative_stack`.
    pub local: u32,
    /// Constant memory used, per bank: `(bank, bytes)` from `N bytes cmem[bank]`, in printed order.
    pub cmem: Vec<(u32, u32)>,
}

/// Runs `ptxas -arch=<arch> -v <extra_args> <ptx_path>` (output into a temporary file that is
/// deleted) and returns the figures of every function, sorted by name.
///
/// `arch` is `sm_80`-style; a bare number (`"80"`) is read as `sm_80`. A non-zero exit gives
/// [`ToolError::Failed`] with what ptxas printed.
pub fn ptxas_verbose(
    ptx_path: &Path,
    arch: &str,
    extra_args: &[&str],
) -> Result<Vec<KernelResources>, ToolError> {
    let ptxas = find(Tool::Ptxas)?;
    ptxas_verbose_with(&ptxas, ptx_path, arch, extra_args)
}

/// [`ptxas_verbose`] with an explicit ptxas executable.
pub fn ptxas_verbose_with(
    ptxas: &Path,
    ptx_path: &Path,
    arch: &str,
    extra_args: &[&str],
) -> Result<Vec<KernelResources>, ToolError> {
    let arch = normalize_arch(arch);
    let mut args = vec![format!("-arch={arch}"), "-v".to_string()];
    args.extend(extra_args.iter().map(|s| s.to_string()));
    let (stdout, stderr) = run_ptxas(ptxas, ptx_path, args)?;
    let mut text = stderr;
    text.push_str(&stdout);
    parse_ptxas_verbose(&text, &arch)
}

/// [`ptxas_verbose`] on PTX text (written to a temporary file first).
pub fn ptxas_verbose_source(
    ptx: &str,
    arch: &str,
    extra_args: &[&str],
) -> Result<Vec<KernelResources>, ToolError> {
    let ptxas = find(Tool::Ptxas)?;
    let dir = temp_dir()?;
    let input = write_input(&dir, ptx)?;
    ptxas_verbose_with(&ptxas, &input, arch, extra_args)
}

/// A cubin ptxas made, with the `-v` figures of every function (sorted by name).
#[derive(Debug, Clone)]
pub struct Assembled {
    /// The cubin's bytes.
    pub cubin: Vec<u8>,
    /// `ptxas -v`'s figures.
    pub resources: Vec<KernelResources>,
}

/// Runs `ptxas -arch=<arch> -v <extra_args>` on PTX text and keeps the cubin as well as the
/// figures (the performance predictor runs the cubin on the SASS emulator).
pub fn ptxas_assemble_source(
    ptx: &str,
    arch: &str,
    extra_args: &[&str],
) -> Result<Assembled, ToolError> {
    let ptxas = find(Tool::Ptxas)?;
    let dir = temp_dir()?;
    let input = write_input(&dir, ptx)?;
    let arch = normalize_arch(arch);
    let mut args = vec![format!("-arch={arch}"), "-v".to_string()];
    args.extend(extra_args.iter().map(|s| s.to_string()));
    let out = dir.path().join("out.cubin");
    let (stdout, mut text) = run_ptxas_to(&ptxas, &input, args, &out)?;
    text.push_str(&stdout);
    let resources = parse_ptxas_verbose(&text, &arch)?;
    let cubin = std::fs::read(&out).map_err(|source| ToolError::Io {
        context: format!("cannot read ptxas's output {}", out.display()),
        source,
    })?;
    Ok(Assembled { cubin, resources })
}

/// Checks that ptxas assembles the PTX file for `arch`: `Ok(())`, or [`ToolError::Failed`] with
/// ptxas's diagnostics.
pub fn ptxas_accepts(ptx_path: &Path, arch: &str) -> Result<(), ToolError> {
    let ptxas = find(Tool::Ptxas)?;
    let arch = normalize_arch(arch);
    run_ptxas(&ptxas, ptx_path, vec![format!("-arch={arch}")]).map(|_| ())
}

/// [`ptxas_accepts`] on PTX text (written to a temporary file first).
pub fn ptxas_accepts_source(ptx: &str, arch: &str) -> Result<(), ToolError> {
    find(Tool::Ptxas)?;
    let dir = temp_dir()?;
    let input = write_input(&dir, ptx)?;
    ptxas_accepts(&input, arch)
}

/// `"80"` → `"sm_80"`; anything else unchanged.
fn normalize_arch(arch: &str) -> String {
    if !arch.is_empty()
        && arch.bytes().all(|b| b.is_ascii_alphanumeric())
        && arch.as_bytes()[0].is_ascii_digit()
    {
        format!("sm_{arch}")
    } else {
        arch.to_string()
    }
}

fn temp_dir() -> Result<TempDir, ToolError> {
    TempDir::new("ptxas").map_err(|source| ToolError::Io {
        context: "cannot create a temporary folder for ptxas".to_string(),
        source,
    })
}

fn write_input(dir: &TempDir, ptx: &str) -> Result<std::path::PathBuf, ToolError> {
    let input = dir.path().join("input.ptx");
    std::fs::write(&input, ptx).map_err(|source| ToolError::Io {
        context: format!("cannot write {}", input.display()),
        source,
    })?;
    Ok(input)
}

/// Runs ptxas on `ptx_path` with `args`, writing the cubin into a temporary folder; returns
/// (stdout, stderr).
fn run_ptxas(
    ptxas: &Path,
    ptx_path: &Path,
    args: Vec<String>,
) -> Result<(String, String), ToolError> {
    if let Err(source) = std::fs::metadata(ptx_path) {
        return Err(ToolError::Io {
            context: format!("cannot read {}", ptx_path.display()),
            source,
        });
    }
    let dir = temp_dir()?;
    let out = dir.path().join("out.cubin");
    run_ptxas_to(ptxas, ptx_path, args, &out)
}

/// [`run_ptxas`] writing the cubin to `out`.
fn run_ptxas_to(
    ptxas: &Path,
    ptx_path: &Path,
    mut args: Vec<String>,
    out: &Path,
) -> Result<(String, String), ToolError> {
    args.push(ptx_path.display().to_string());
    args.push("-o".to_string());
    args.push(out.display().to_string());
    PTXAS_RUNS.fetch_add(1, Ordering::Relaxed);
    let output = run_at(Tool::Ptxas, ptxas, &args)?;
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    for line in stderr.lines().filter(|l| l.starts_with("ptxas warning")) {
        log::debug!("{line}");
    }
    Ok((stdout, stderr))
}

/// A line of ptxas's standard error without the `ptxas fatal   :` or `ptxas FILE, line N; error
/// :` that leads it.
pub fn without_prefix(line: &str) -> &str {
    match line.split_once(" : ") {
        Some((head, rest)) if head.starts_with("ptxas") => rest.trim(),
        _ => line.trim(),
    }
}

/// The first line of ptxas's standard error that reports an error (`error` or `fatal`), without
/// its prefix ([`without_prefix`]): why ptxas refused an input, in one line.
pub fn first_error(stderr: &str) -> Option<&str> {
    stderr
        .lines()
        .find(|l| l.contains("error") || l.contains("fatal"))
        .map(without_prefix)
}

/// Parses the text `ptxas -v` printed into one record per function, sorted by name.
///
/// `default_arch` is used for functions that no `Compiling … for 'sm_XX'` line names (device
/// functions, which ptxas lists without their target). Lines that carry no per-function figures
/// (`gmem` totals, compile times, warnings) are ignored; a figures line of an unexpected shape is
/// a [`ToolError::Parse`].
pub fn parse_ptxas_verbose(
    text: &str,
    default_arch: &str,
) -> Result<Vec<KernelResources>, ToolError> {
    let mut records: BTreeMap<String, KernelResources> = BTreeMap::new();
    let mut lmem: BTreeMap<String, u32> = BTreeMap::new();
    // The function of the latest "Compiling … function" line, and its target.
    let mut compiling: Option<String> = None;
    let mut current_arch = default_arch.to_string();
    // The function of the latest "Function properties for" line.
    let mut props: Option<String> = None;

    for (idx, raw) in text.lines().enumerate() {
        let line_no = idx + 1;
        let line = raw.trim();
        let parse_err = |message: &str| ToolError::Parse {
            tool: Tool::Ptxas,
            line: line_no,
            message: message.to_string(),
            text: raw.to_string(),
        };
        let msg = info_message(line);

        if let Some(rest) = msg
            .strip_prefix("Compiling entry function ")
            .map(|r| (r, true))
            .or_else(|| msg.strip_prefix("Compiling function ").map(|r| (r, false)))
        {
            let (rest, is_entry) = rest;
            let (name, after) =
                quoted(rest).ok_or_else(|| parse_err("expected a quoted function name"))?;
            if let Some(arch) = after
                .trim()
                .strip_prefix("for ")
                .and_then(|a| quoted(a.trim()))
                .map(|(a, _)| a)
            {
                current_arch = arch.to_string();
            }
            let rec = record(&mut records, name, &current_arch);
            rec.entry |= is_entry;
            rec.arch = current_arch.clone();
            compiling = Some(name.to_string());
        } else if let Some(name) = msg.strip_prefix("Function properties for ") {
            let name = name.trim();
            if name.is_empty() {
                return Err(parse_err("missing function name"));
            }
            let arch = if compiling.as_deref() == Some(name) {
                current_arch.clone()
            } else {
                default_arch.to_string()
            };
            record(&mut records, name, &arch);
            props = Some(name.to_string());
        } else if msg.contains("bytes stack frame") {
            let name = props
                .clone()
                .ok_or_else(|| parse_err("stack figures before any `Function properties` line"))?;
            let rec = record(&mut records, &name, default_arch);
            for item in msg.split(',') {
                let (n, what) =
                    count_then(item).ok_or_else(|| parse_err("expected `N bytes …`"))?;
                match what.strip_prefix("bytes ").map(str::trim) {
                    Some("stack frame") => rec.stack_frame = n,
                    Some("spill stores") => rec.spill_stores = n,
                    Some("spill loads") => rec.spill_loads = n,
                    _ => log::debug!("ptxas -v: ignoring `{}`", item.trim()),
                }
            }
        } else if let Some(rest) = msg.strip_prefix("Used ") {
            let name = props
                .clone()
                .or_else(|| compiling.clone())
                .ok_or_else(|| parse_err("`Used` line before any function is named"))?;
            let rec = record(&mut records, &name, default_arch);
            let mut items = rest.split(',');
            let first = items.next().unwrap_or_default();
            match number_then(first) {
                Some((n, "registers")) | Some((n, "register")) => rec.registers = n,
                _ => return Err(parse_err("expected `Used N registers`")),
            }
            for item in items {
                let item = item.trim();
                let counted = item.strip_prefix("used ").unwrap_or(item);
                let (n, what) =
                    number_then(counted).ok_or_else(|| parse_err("expected a number"))?;
                match what {
                    "barriers" | "barrier" => rec.barriers = n,
                    "bytes smem" => rec.shared = n,
                    "bytes lmem" => {
                        lmem.insert(name.clone(), n);
                    }
                    "bytes cumulative stack size" => rec.cumulative_stack = n,
                    w => {
                        if let Some(bank) = w
                            .strip_prefix("bytes cmem[")
                            .and_then(|b| b.strip_suffix(']'))
                        {
                            let bank = bank
                                .trim()
                                .parse::<u32>()
                                .map_err(|_| parse_err("bad constant bank number"))?;
                            rec.cmem.push((bank, n));
                        } else {
                            log::debug!("ptxas -v: ignoring `{item}` for {name}");
                        }
                    }
                }
            }
        } else if !msg.is_empty() {
            log::trace!("ptxas -v: skipping `{msg}`");
        }
    }

    let mut out: Vec<KernelResources> = records.into_values().collect();
    for rec in &mut out {
        rec.local = match lmem.get(&rec.name) {
            Some(&n) => n,
            None => rec.stack_frame.max(rec.cumulative_stack),
        };
    }
    Ok(out)
}

/// The record for `name`, created with `arch` when new.
fn record<'a>(
    records: &'a mut BTreeMap<String, KernelResources>,
    name: &str,
    arch: &str,
) -> &'a mut KernelResources {
    records
        .entry(name.to_string())
        .or_insert_with(|| KernelResources {
            name: name.to_string(),
            arch: arch.to_string(),
            ..KernelResources::default()
        })
}

/// The message of a `-v` line: what follows `ptxas info    :`, whatever name the assembler runs
/// under (`ptxas-blackwell info    :` for the CUDA 13 ptxas Triton 3.9 bundles for sm_90 and
/// later); other lines (the indented figures) as they are.
fn info_message(line: &str) -> &str {
    let Some((tool, rest)) = line.split_once(' ') else {
        return line;
    };
    match rest.trim_start().strip_prefix("info") {
        Some(rest) if tool.starts_with("ptxas") => rest.trim_start().trim_start_matches(':').trim(),
        _ => line,
    }
}

/// `'abc' rest` → (`abc`, ` rest`).
fn quoted(s: &str) -> Option<(&str, &str)> {
    let s = s.strip_prefix('\'')?;
    let end = s.find('\'')?;
    Some((&s[..end], &s[end + 1..]))
}

/// A stack or spill figure: as [`number_then`], but ptxas 12.9 prints negative spill counts for
/// some kernels under `.pragma "enable_smem_spilling"` (`-16 bytes spill stores`: every spill
/// went to shared memory and the count was reduced past zero); those read as 0.
fn count_then(s: &str) -> Option<(u32, &str)> {
    match s.trim().strip_prefix('-') {
        Some(rest) => {
            let (n, what) = number_then(rest)?;
            log::debug!("ptxas -v printed -{n} {what}: read as 0");
            Some((0, what))
        }
        None => number_then(s),
    }
}

/// `" 128 bytes stack frame"` → (128, `bytes stack frame`).
fn number_then(s: &str) -> Option<(u32, &str)> {
    let s = s.trim();
    let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let n = s[..end].parse().ok()?;
    Some((n, s[end..].trim()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ptxas 12.9, `-arch=sm_80 -v`, whole-program mode: entries with `.func` callees.
    const WHOLE_PROGRAM: &str = "\
ptxas info    : 64 bytes gmem, 256 bytes cmem[3], 8 bytes cmem[4]
ptxas info    : Compiling entry function 'k' for 'sm_80'
ptxas info    : Function properties for k
    128 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 16 registers, used 0 barriers, 128 bytes cumulative stack size, 364 bytes cmem[0]
ptxas info    : Compile time = 4.265 ms
ptxas info    : Function properties for _Z6helperPfi
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Compiling entry function 'call_indirect' for 'sm_80'
ptxas info    : Function properties for call_indirect
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 24 registers, used 0 barriers, 388 bytes cmem[0], 32 bytes cmem[2]
ptxas info    : Compile time = 2.990 ms
";

    /// ptxas 12.9, `-arch=sm_90 -v -c` (relocatable): functions come before their callers.
    const RELOCATABLE_SM90: &str = "\
ptxas info    : 0 bytes gmem
ptxas info    : Function properties for op_add
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Compile time = 3.195 ms
ptxas info    : Function properties for ackermann_small
    32 bytes stack frame, 28 bytes spill stores, 28 bytes spill loads
ptxas info    : Compile time = 5.390 ms
ptxas info    : Compiling entry function 'call_recursive' for 'sm_90'
ptxas info    : Function properties for call_recursive
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 24 registers, used 0 barriers
ptxas info    : Compile time = 1.632 ms
ptxas info    : Compiling entry function 'histogram_shared_atomic' for 'sm_90'
ptxas info    : Function properties for histogram_shared_atomic
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 22 registers, used 1 barriers, 1024 bytes smem
ptxas info    : Compile time = 6.228 ms
";

    /// ptxas 12.9 on a kernel bounded by `.maxntid 256 .minnctapersm 4`: spills.
    const SPILLS: &str = "\
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'lb_256x4' for 'sm_80'
ptxas info    : Function properties for lb_256x4
    296 bytes stack frame, 580 bytes spill stores, 632 bytes spill loads
ptxas info    : Used 64 registers, used 0 barriers, 296 bytes cumulative stack size, 372 bytes cmem[0]
ptxas info    : Compile time = 40.1 ms
";

    /// ptxas 13.4 as Triton 3.9 bundles it (`ptxas-blackwell`, run for sm_90 and later): every
    /// line names the assembler by its file name; Triton's causal attention, d=128, sm_90a.
    const BLACKWELL_NAMED: &str = "\
ptxas-blackwell info    : 11 bytes gmem
ptxas-blackwell info    : Compiling entry function 'attention_forward' for 'sm_90a'
ptxas-blackwell info    : Function properties for attention_forward
    136 bytes stack frame, 168 bytes spill stores, 156 bytes spill loads
ptxas-blackwell info    : Used 255 registers, used 1 barriers, 136 bytes cumulative stack size
ptxas-blackwell info    : Compile time = 236.023 ms
";

    #[test]
    fn lines_named_for_another_assembler_name() {
        let r = parse_ptxas_verbose(BLACKWELL_NAMED, "sm_90a").unwrap();
        assert_eq!(r.len(), 1);
        let k = &r[0];
        assert!(k.entry);
        assert_eq!(
            (k.name.as_str(), k.arch.as_str()),
            ("attention_forward", "sm_90a")
        );
        assert_eq!(
            (
                k.registers,
                k.barriers,
                k.stack_frame,
                k.spill_stores,
                k.spill_loads
            ),
            (255, 1, 136, 168, 156)
        );
        // Not an info line of an assembler: left as it is.
        assert_eq!(info_message("nvlink info    : x"), "nvlink info    : x");
        assert_eq!(
            info_message("ptxas info    : Used 3 registers"),
            "Used 3 registers"
        );
    }

    #[test]
    fn whole_program_entries_and_functions() {
        let r = parse_ptxas_verbose(WHOLE_PROGRAM, "sm_80").unwrap();
        let names: Vec<_> = r.iter().map(|k| k.name.as_str()).collect();
        assert_eq!(names, ["_Z6helperPfi", "call_indirect", "k"]);
        let k = &r[2];
        assert!(k.entry);
        assert_eq!(k.arch, "sm_80");
        assert_eq!(
            (
                k.registers,
                k.barriers,
                k.stack_frame,
                k.cumulative_stack,
                k.local
            ),
            (16, 0, 128, 128, 128)
        );
        assert_eq!(k.cmem, vec![(0, 364)]);
        assert_eq!(k.shared, 0);
        let ci = &r[1];
        assert_eq!(ci.registers, 24);
        assert_eq!(ci.cmem, vec![(0, 388), (2, 32)]);
        let helper = &r[0];
        assert!(!helper.entry);
        assert_eq!((helper.registers, helper.stack_frame), (0, 0));
        assert_eq!(helper.arch, "sm_80");
    }

    #[test]
    fn relocatable_mode_functions_before_entries() {
        let r = parse_ptxas_verbose(RELOCATABLE_SM90, "sm_90").unwrap();
        let names: Vec<_> = r.iter().map(|k| k.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "ackermann_small",
                "call_recursive",
                "histogram_shared_atomic",
                "op_add"
            ]
        );
        let ack = &r[0];
        assert!(!ack.entry);
        assert_eq!(
            (
                ack.stack_frame,
                ack.spill_stores,
                ack.spill_loads,
                ack.local
            ),
            (32, 28, 28, 32)
        );
        let h = &r[2];
        assert!(h.entry);
        assert_eq!((h.registers, h.barriers, h.shared), (22, 1, 1024));
        assert!(h.cmem.is_empty(), "sm_90 prints no cmem[0] for entries");
        assert_eq!(h.arch, "sm_90");
    }

    #[test]
    fn spill_figures() {
        let r = parse_ptxas_verbose(SPILLS, "sm_80").unwrap();
        assert_eq!(r.len(), 1);
        let k = &r[0];
        assert_eq!(
            (k.registers, k.spill_stores, k.spill_loads, k.stack_frame),
            (64, 580, 632, 296)
        );
    }

    #[test]
    fn negative_spill_counts_under_the_smem_pragma_read_as_zero() {
        // The shape ptxas 12.9 printed for heavy_lu8x8 (bench/kernels/heavy.cu), sm_90, `.maxnreg
        // 72` + the pragma (the Used line here is illustrative).
        let text = "\
ptxas info    : Compiling entry function 'heavy_lu8x8' for 'sm_90'
ptxas info    : Function properties for heavy_lu8x8
    0 bytes stack frame, -16 bytes spill stores, -16 bytes spill loads
ptxas info    : Used 72 registers, 9216 bytes smem, 392 bytes cmem[0]
";
        let k = &parse_ptxas_verbose(text, "sm_90").unwrap()[0];
        assert_eq!(
            (k.registers, k.stack_frame, k.spill_stores, k.spill_loads),
            (72, 0, 0, 0)
        );
        let bad = "ptxas info    : Function properties for k\n    -x bytes stack frame\n";
        assert!(parse_ptxas_verbose(bad, "sm_80").is_err());
    }

    #[test]
    fn older_format_with_lmem_and_textures() {
        // The shape older ptxas releases print (lmem in the Used line, no barrier count).
        let text = "\
ptxas info    : Compiling entry function 'old' for 'sm_35'
ptxas info    : Function properties for old
    8 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads
ptxas info    : Used 10 registers, 24 bytes lmem, 2048 bytes smem, 352 bytes cmem[0], 4 textures
";
        let r = parse_ptxas_verbose(text, "sm_80").unwrap();
        let k = &r[0];
        assert_eq!(k.arch, "sm_35", "the Compiling line's target wins");
        assert_eq!(
            (k.registers, k.local, k.shared, k.barriers),
            (10, 24, 2048, 0)
        );
        assert_eq!(k.cmem, vec![(0, 352)]);
    }

    #[test]
    fn no_functions_and_noise() {
        let text = "ptxas info    : 0 bytes gmem\nptxas warning : something odd\n\n";
        assert!(parse_ptxas_verbose(text, "sm_80").unwrap().is_empty());
        assert!(parse_ptxas_verbose("", "sm_80").unwrap().is_empty());
    }

    #[test]
    fn malformed_figures_are_errors() {
        let text = "ptxas info    : Function properties for k\n    lots of bytes stack frame\n";
        let err = parse_ptxas_verbose(text, "sm_80").unwrap_err();
        assert!(matches!(err, ToolError::Parse { line: 2, .. }), "{err}");
        let text =
            "ptxas info    : Function properties for k\nptxas info    : Used many registers\n";
        assert!(matches!(
            parse_ptxas_verbose(text, "sm_80"),
            Err(ToolError::Parse { line: 2, .. })
        ));
        let text = "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n";
        assert!(parse_ptxas_verbose(text, "sm_80").is_err());
    }

    #[test]
    fn arch_normalisation() {
        assert_eq!(normalize_arch("80"), "sm_80");
        assert_eq!(normalize_arch("90a"), "sm_90a");
        assert_eq!(normalize_arch("sm_90"), "sm_90");
    }

    /// A module with an entry (shared memory, a barrier, a call) and a `.func`.
    const SAMPLE_PTX: &str = r#".version 8.0
.target sm_80
.address_size 64

.func (.param .b32 r) helper(.param .b32 x)
{
  .reg .b32 %r<4>;
  ld.param.b32 %r1, [x];
  mul.lo.s32 %r2, %r1, 3;
  st.param.b32 [r], %r2;
  ret;
}

.visible .entry sample_kernel(.param .u64 p)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<3>;
  .shared .align 4 .b8 sm[1024];
  ld.param.u64 %rd1, [p];
  cvta.to.global.u64 %rd2, %rd1;
  ld.global.u32 %r1, [%rd2];
  st.shared.u32 [sm], %r1;
  bar.sync 0;
  ld.shared.u32 %r2, [sm+4];
  {
  .param .b32 a;
  .param .b32 rv;
  st.param.b32 [a], %r2;
  call.uni (rv), helper, (a);
  ld.param.b32 %r3, [rv];
  }
  st.global.u32 [%rd2], %r3;
  ret;
}
"#;

    /// Runs the real ptxas. The one allowed skip: ptxas is not installed.
    #[test]
    fn real_ptxas_verbose_and_accepts() {
        match find(Tool::Ptxas) {
            Err(e @ ToolError::NotFound { .. }) => {
                eprintln!("skipping real_ptxas_verbose_and_accepts: {e}");
                return;
            }
            Err(e) => panic!("{e}"),
            Ok(_) => {}
        }
        for arch in ["sm_80", "90"] {
            let r = ptxas_verbose_source(SAMPLE_PTX, arch, &[]).expect("ptxas -v");
            let k = r
                .iter()
                .find(|k| k.name == "sample_kernel")
                .expect("entry reported");
            assert!(k.entry);
            assert_eq!(k.arch, normalize_arch(arch));
            assert!(k.registers > 0 && k.registers <= 255, "{k:?}");
            assert_eq!((k.shared, k.barriers, k.spill_stores), (1024, 1, 0));
            assert!(r.iter().any(|k| k.name == "helper" && !k.entry), "{r:?}");
            let mut sorted = r.clone();
            sorted.sort_by(|a, b| a.name.cmp(&b.name));
            assert_eq!(sorted, r);
        }
        let runs = ptxas_runs();
        ptxas_accepts_source(SAMPLE_PTX, "sm_80").expect("ptxas accepts valid PTX");
        // Every run counts (other tests may run ptxas at the same time: at least one more).
        assert!(ptxas_runs() > runs);
        // Extra arguments reach ptxas: an impossible register limit is clamped, not an error.
        let r = ptxas_verbose_source(SAMPLE_PTX, "sm_80", &["-maxrregcount", "24"]).unwrap();
        assert!(r.iter().all(|k| k.registers <= 24), "{r:?}");
    }

    #[test]
    fn real_ptxas_rejects_bad_ptx() {
        match find(Tool::Ptxas) {
            Err(e @ ToolError::NotFound { .. }) => {
                eprintln!("skipping real_ptxas_rejects_bad_ptx: {e}");
                return;
            }
            Err(e) => panic!("{e}"),
            Ok(_) => {}
        }
        let bad = SAMPLE_PTX.replace("mul.lo.s32", "mul.bogus.s32");
        match ptxas_accepts_source(&bad, "sm_80") {
            Err(ToolError::Failed {
                tool,
                status,
                stderr,
            }) => {
                assert_eq!(tool, Tool::Ptxas);
                assert!(!status.success());
                assert!(stderr.contains("line 9"), "{stderr}");
            }
            other => panic!("expected Failed, got {other:?}"),
        }
        let err = ptxas_verbose(Path::new("/nonexistent/x.ptx"), "sm_80", &[]).unwrap_err();
        assert!(matches!(err, ToolError::Io { .. }), "{err}");
    }
}
