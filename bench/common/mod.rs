//! Inputs the benches share: the files of a folder, folder arguments (`--ptx DIR:sm_XX`), and
//! the bench kernels compiled by NVIDIA's NVRTC (scripts/compile-kernels-nvrtc.py).

use std::path::{Path, PathBuf};

/// The files of `dir` whose extension is `ext`, sorted.
pub fn files_with_ext(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .collect();
    files.sort();
    files
}

/// Every `FLAG DIR:sm_XX` pair of `args`.
pub fn folders(args: &[String], flag: &str) -> Vec<(PathBuf, String)> {
    args.iter()
        .enumerate()
        .filter(|(_, a)| *a == flag)
        .filter_map(|(i, _)| args.get(i + 1))
        .filter_map(|d| {
            d.rsplit_once(':')
                .map(|(p, a)| (PathBuf::from(p), a.to_string()))
        })
        .collect()
}

/// The bench kernels compiled by NVRTC for sm_80 and sm_90 (into target/nvrtc-kernels): each
/// PTX file with its architecture. `None`, with the reason printed, when the script fails.
pub fn nvrtc_ptx() -> Option<Vec<(PathBuf, &'static str)>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = root.join("target/nvrtc-kernels");
    let status = std::process::Command::new("python3")
        .arg(root.join("scripts/compile-kernels-nvrtc.py"))
        .arg(&out)
        .status();
    if !status.is_ok_and(|s| s.success()) {
        eprintln!("SKIPPED (--nvrtc): scripts/compile-kernels-nvrtc.py failed");
        return None;
    }
    Some(
        files_with_ext(&out, "ptx")
            .into_iter()
            .map(|p| {
                let name = p.file_name().unwrap_or_default().to_string_lossy();
                let arch = if name.contains(".sm_90.") {
                    "sm_90"
                } else {
                    "sm_80"
                };
                (p, arch)
            })
            .collect(),
    )
}
