//! Shared helpers of the integration tests: the round-trip check used on the ZLUDA corpus and on
//! the CUDA kernels of bench/kernels.

#![allow(dead_code, reason = "each test binary uses a different subset")]

use std::path::{Path, PathBuf};

use warpsmith::ptx::{parse_module, print_module};
use warpsmith::tools::{self, KernelResources, Tool};

/// The repository root.
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `../shared` beside the checkout (the workplace's shared folder), if present.
pub fn shared_dir() -> Option<PathBuf> {
    let p = repo_root().join("../shared");
    p.is_dir().then_some(p)
}

/// Every file below `dir` with extension `ext`, sorted.
pub fn files_with_ext(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == ext) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// What happened to one file.
#[derive(Debug)]
pub enum Outcome {
    /// Parsed, printed, re-parsed to an equal module; `ptxas` says whether the ptxas comparison
    /// ran (`Some(arch)`) or why not.
    RoundTrip { ptxas: Result<String, String> },
    /// The parser rejected the file: the first diagnostic.
    Rejected(String),
    /// A real failure: the message.
    Failed(String),
}

/// The target a PTX file names, as ptxas's `-arch` (`sm_80` when it names none or one ptxas 12.9
/// no longer supports).
pub fn file_arch(text: &str) -> String {
    let t = text
        .lines()
        .find_map(|l| l.trim().strip_prefix(".target"))
        .unwrap_or("");
    let sm = t
        .split(',')
        .map(str::trim)
        .find(|s| s.starts_with("sm_"))
        .unwrap_or("sm_80");
    let num: u32 = sm
        .trim_start_matches("sm_")
        .trim_end_matches(['a', 'f'])
        .parse()
        .unwrap_or(80);
    if num < 50 {
        "sm_80".into()
    } else {
        sm.into()
    }
}

/// Parses, prints, re-parses and compares; then, when ptxas is present and accepts the original
/// (for its own target, else sm_80), checks that it accepts the printed text with identical
/// `ptxas -v` figures.
pub fn round_trip(path: &Path, use_ptxas: bool) -> Outcome {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => return Outcome::Failed(format!("read: {e}")),
    };
    let name = path.display().to_string();
    let m1 = match parse_module(&text, &name) {
        Ok(m) => m,
        Err(e) => return Outcome::Rejected(e.0[0].to_string()),
    };
    let printed = print_module(&m1);
    let m2 = match parse_module(&printed, "printed.ptx") {
        Ok(m) => m,
        Err(e) => return Outcome::Failed(format!("printed text does not parse: {e}")),
    };
    if m1 != m2 {
        return Outcome::Failed("parse(print(parse(x))) != parse(x)".into());
    }
    if print_module(&m2) != printed {
        return Outcome::Failed("printing is not a fixed point".into());
    }
    if !use_ptxas {
        return Outcome::RoundTrip {
            ptxas: Err("ptxas comparison not requested".into()),
        };
    }
    let mut archs = vec![file_arch(&text)];
    if archs[0] != "sm_80" {
        archs.push("sm_80".into());
    }
    for arch in archs {
        let original = match tools::ptxas_verbose_source(&text, &arch, &[]) {
            Ok(r) => r,
            Err(_) => continue,
        };
        return match tools::ptxas_verbose_source(&printed, &arch, &[]) {
            Ok(ours) => compare_figures(&original, &ours)
                .map(|()| arch.clone())
                .map_or_else(
                    |e| Outcome::Failed(format!("{arch}: {e}")),
                    |a| Outcome::RoundTrip { ptxas: Ok(a) },
                ),
            Err(e) => Outcome::Failed(format!(
                "ptxas {arch} accepts the original but rejects the printed text: {e}"
            )),
        };
    }
    Outcome::RoundTrip {
        ptxas: Err("ptxas rejects the original".into()),
    }
}

/// Equal `ptxas -v` figures (registers, spills, stack, shared, constant memory) for every function.
pub fn compare_figures(a: &[KernelResources], b: &[KernelResources]) -> Result<(), String> {
    if a.len() != b.len() {
        return Err(format!("{} functions before, {} after", a.len(), b.len()));
    }
    for (x, y) in a.iter().zip(b) {
        if x != y {
            return Err(format!(
                "figures differ:\n  original: {x:?}\n  printed:  {y:?}"
            ));
        }
    }
    Ok(())
}

/// True when ptxas can be found; otherwise prints why the ptxas part is skipped.
pub fn ptxas_available(test: &str) -> bool {
    match tools::find(Tool::Ptxas) {
        Ok(_) => true,
        Err(e) => {
            eprintln!("SKIPPED ({test}): ptxas comparison — {e}");
            false
        }
    }
}

/// Runs `f` over `items` on all cores, keeping the order of results.
pub fn parallel_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let n = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .min(items.len().max(1));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: Vec<std::sync::Mutex<Option<R>>> =
        items.iter().map(|_| std::sync::Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..n {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if i >= items.len() {
                    break;
                }
                let r = f(&items[i]);
                *results[i].lock().unwrap() = Some(r);
            });
        }
    });
    results
        .into_iter()
        .map(|m| m.into_inner().unwrap().unwrap())
        .collect()
}
