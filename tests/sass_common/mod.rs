//! Shared helpers of the SASS/cubin tests: the cubin corpus ptxas 12.9 builds from every CUDA
//! kernel of bench/kernels for sm_80, sm_86, sm_89 (from the sm_80 PTX) and sm_90, built once per
//! test process in a temporary folder.

#![allow(dead_code, reason = "each test binary uses a different subset")]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex, OnceLock};

use warpsmith::sass::nvdisasm::{self, Listing};
use warpsmith::tools::{self, Tool};

/// One cubin of the corpus.
#[derive(Debug, Clone)]
pub struct CorpusCubin {
    /// Where it is.
    pub path: PathBuf,
    /// `sm_80`, `sm_86`, `sm_89` or `sm_90`.
    pub arch: String,
    /// `<kernel file>.<O0|O3>`.
    pub name: String,
}

/// The archs every corpus test covers.
pub const ARCHS: [&str; 4] = ["sm_80", "sm_86", "sm_89", "sm_90"];

/// The repository root.
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Prints the skip line and returns `false` when `tool` is missing.
pub fn require(tool: Tool, test: &str) -> bool {
    match tools::find(tool) {
        Ok(_) => true,
        Err(_) => {
            eprintln!("SKIPPED: {tool} not found ({test})");
            false
        }
    }
}

pub use crate::common::parallel_map;

/// Whether process `pid` is running (Linux: `/proc/<pid>`; elsewhere assumed running, so that
/// nothing of another run is removed).
fn process_is_running(pid: u32) -> bool {
    let proc = Path::new("/proc");
    !proc.is_dir() || proc.join(pid.to_string()).exists()
}

fn build() -> Result<Vec<CorpusCubin>, String> {
    let ptxas = tools::find(Tool::Ptxas).map_err(|e| e.to_string())?;
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("sass-corpus-{}", std::process::id()));
    // Corpora of earlier runs are not needed any more; those of test processes still running
    // (several engineers share the target folder) are.
    if let Ok(rd) = std::fs::read_dir(env!("CARGO_TARGET_TMPDIR")) {
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().to_string();
            if let Some(pid) = name.strip_prefix("sass-corpus-") {
                if pid.parse::<u32>().is_ok_and(|p| !process_is_running(p)) {
                    let _ = std::fs::remove_dir_all(e.path());
                }
            }
        }
    }
    let ptx_dir = dir.join("ptx");
    let status = Command::new("bash")
        .arg(repo_root().join("scripts/compile-kernels.sh"))
        .arg(&ptx_dir)
        .stdout(std::process::Stdio::null())
        .status()
        .map_err(|e| format!("compile-kernels.sh: {e}"))?;
    if !status.success() {
        return Err("scripts/compile-kernels.sh failed".into());
    }
    let mut jobs = Vec::new();
    let mut ptx: Vec<PathBuf> = std::fs::read_dir(&ptx_dir)
        .map_err(|e| e.to_string())?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
        .collect();
    ptx.sort();
    for p in &ptx {
        // <name>.<sm_80|sm_90>.<O0|O3>.ptx
        let stem = p.file_stem().unwrap().to_string_lossy().to_string();
        let parts: Vec<&str> = stem.rsplitn(3, '.').collect();
        let (level, src_arch, kname) = (parts[0], parts[1], parts[2]);
        let targets: &[&str] = if src_arch == "sm_80" {
            &["sm_80", "sm_86", "sm_89"]
        } else {
            &["sm_90"]
        };
        for t in targets {
            let name = format!("{kname}.{level}");
            jobs.push((
                p.clone(),
                t.to_string(),
                name.clone(),
                dir.join(format!("{name}.{t}.cubin")),
            ));
        }
    }
    let results = parallel_map(&jobs, |(ptx, arch, _, out)| {
        let o = Command::new(&ptxas)
            .arg(format!("-arch={arch}"))
            .arg(ptx)
            .arg("-o")
            .arg(out)
            .output();
        match o {
            Ok(o) if o.status.success() => Ok(()),
            Ok(o) => Err(format!(
                "ptxas -arch={arch} {}: {}",
                ptx.display(),
                String::from_utf8_lossy(&o.stderr)
            )),
            Err(e) => Err(e.to_string()),
        }
    });
    for r in results {
        r?;
    }
    Ok(jobs
        .into_iter()
        .map(|(_, arch, name, path)| CorpusCubin { path, arch, name })
        .collect())
}

/// The corpus, built once per process; `None` (after printing a SKIPPED line) when ptxas or
/// clang is missing.
pub fn corpus(test: &str) -> Option<&'static [CorpusCubin]> {
    static CORPUS: OnceLock<Result<Vec<CorpusCubin>, String>> = OnceLock::new();
    if !require(Tool::Ptxas, test) || !require(Tool::Clang, test) {
        return None;
    }
    match CORPUS.get_or_init(build) {
        Ok(v) => Some(v.as_slice()),
        Err(e) => panic!("building the cubin corpus failed: {e}"),
    }
}

/// nvdisasm's whole listing (`-hex`, every section) of the cubin at `path`, made once per
/// test process: the decoder check and the NOP test both compare against it, and each nvdisasm
/// run costs about 0.4 s however small the cubin (most of the corpus tests' time).
pub fn whole_listing(path: &Path) -> Result<Arc<Listing>, String> {
    type Slot = Arc<OnceLock<Result<Arc<Listing>, String>>>;
    static LISTINGS: OnceLock<Mutex<HashMap<PathBuf, Slot>>> = OnceLock::new();
    let slot = {
        let mut map = LISTINGS
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        Arc::clone(map.entry(path.to_path_buf()).or_default())
    };
    // Outside the map's lock: another thread asking for the same cubin waits for this one,
    // threads asking for others go on.
    slot.get_or_init(|| {
        nvdisasm::list_all_bytes(&read(path))
            .map(Arc::new)
            .map_err(|e| format!("{}: {e}", path.display()))
    })
    .clone()
}

/// Reads a file.
pub fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}
