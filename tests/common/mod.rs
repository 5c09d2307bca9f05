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

/// Compiles `bench/kernels/<rel>.cu` with clang 22 (sm_80, -O3, the command line of
/// scripts/compile-kernels.sh) and parses it; `None`, after printing why the test `test` is
/// skipped, when clang is absent. A compile or parse failure panics.
pub fn compile_bench_kernel(test: &str, rel: &str) -> Option<warpsmith::ptx::Module> {
    compile_bench_kernel_at(test, rel, "O3")
}

/// [`compile_bench_kernel`] at optimisation level `level` (`"O0"`, `"O3"`).
pub fn compile_bench_kernel_at(
    test: &str,
    rel: &str,
    level: &str,
) -> Option<warpsmith::ptx::Module> {
    use warpsmith::tools::{self, Tool};
    let clang = match tools::find(Tool::Clang) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("SKIPPED ({test}): {e}");
            return None;
        }
    };
    let src = repo_root().join(format!("bench/kernels/{rel}.cu"));
    let text = tools::cuda::cuda_to_ptx(&clang, &src, "sm_80", level)
        .unwrap_or_else(|e| panic!("clang failed on {rel}.cu at -{level}: {e}"));
    Some(warpsmith::ptx::parse_module(&text, &format!("{rel}.{level}.ptx")).unwrap())
}

/// Launch hints for `kernel`: its 32-bit integer parameters take `sizes` in order (the last one
/// repeated), its buffers `len` elements.
pub fn int_param_hints(
    m: &warpsmith::ptx::Module,
    kernel: &str,
    sizes: &[u64],
    len: u64,
) -> warpsmith::emu::launch::Hints {
    use warpsmith::ptx::ir::Type;
    let f = m.function(kernel).expect("the kernel");
    let mut h = warpsmith::emu::launch::Hints::new().len(len);
    let mut k = 0;
    for (i, p) in f.param_list().iter().enumerate() {
        if matches!(p.ty, Type::S32 | Type::U32 | Type::B32) {
            h = h.scalar(i, sizes[k.min(sizes.len() - 1)]);
            k += 1;
        }
    }
    h
}

/// Runs `kernel` of `a` and of `b` on the emulator on every launch in `launches` with `seeds`
/// input sets each, and panics unless every output byte is equal; returns the reports (their
/// counters) in launch order.
pub fn assert_equivalent(
    a: &warpsmith::ptx::Module,
    b: &warpsmith::ptx::Module,
    kernel: &str,
    launches: &[warpsmith::emu::launch::Hints],
    seeds: u64,
) -> Vec<warpsmith::emu::equiv::EquivReport> {
    let f = a.function(kernel).expect("the kernel");
    launches
        .iter()
        .map(|h| {
            let spec = warpsmith::emu::launch::spec_for(f, h).expect("a launch spec");
            let r = warpsmith::emu::equiv::check(a, b, &spec, seeds)
                .unwrap_or_else(|e| panic!("{kernel}: emulator: {e}"));
            assert!(
                r.is_equal(),
                "{kernel}: block {:?}: {:?}",
                h.block,
                r.verdict
            );
            r
        })
        .collect()
}

/// Prints `m`, parses the text back and checks that ptxas accepts it for sm_80 (reported as
/// skipped when ptxas is absent); returns the re-parsed module. `what` names it in panics.
pub fn print_reparse_assemble(what: &str, m: &warpsmith::ptx::Module) -> warpsmith::ptx::Module {
    let text = print_module(m);
    let back = parse_module(&text, "out.ptx").unwrap_or_else(|e| panic!("{what}: {e}"));
    match tools::ptxas_accepts_source(&text, "sm_80") {
        Ok(()) => {}
        Err(tools::ToolError::NotFound { .. }) => eprintln!("SKIPPED (ptxas check): no ptxas"),
        Err(e) => panic!("{what}: ptxas rejects the output: {e}\n{text}"),
    }
    back
}

/// The bench kernels compiled by NVIDIA's NVRTC for sm_80 and sm_90
/// (scripts/compile-kernels-nvrtc.py: `<name>.<arch>.nvrtc.ptx`), once per test process; `None`,
/// after printing why `test` is skipped, when libnvrtc is not installed. A compile error panics.
pub fn nvrtc_kernels_dir(test: &str) -> Option<&'static PathBuf> {
    use std::sync::OnceLock;
    static DIR: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let dir = DIR.get_or_init(|| {
        let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("nvrtc-kernels");
        let o = std::process::Command::new("python3")
            .arg(repo_root().join("scripts/compile-kernels-nvrtc.py"))
            .arg(&out)
            .output()
            .map_err(|e| format!("cannot run python3: {e}"))?;
        match o.status.code() {
            Some(0) => Ok(out),
            Some(2) => Err(String::from_utf8_lossy(&o.stderr).trim().to_string()),
            _ => panic!(
                "scripts/compile-kernels-nvrtc.py failed:\n{}",
                String::from_utf8_lossy(&o.stderr)
            ),
        }
    });
    match dir {
        Ok(d) => Some(d),
        Err(why) => {
            eprintln!("SKIPPED ({test}): {why}");
            None
        }
    }
}

/// Launch hints for a kernel whose inputs are not known: `grid` × `block` threads, every buffer
/// 16 Ki elements initialised with `init` (`"random"`, `"zero"`, …), 16 KiB of dynamic shared
/// memory, and 8 for every parameter that is not 64 bits wide.
pub fn generic_hints(
    f: &warpsmith::ptx::ir::Function,
    grid: &[u32],
    block: &[u32],
    init: &str,
) -> warpsmith::emu::launch::Hints {
    use warpsmith::emu::launch::{Hints, InitSpec};
    let mut h = Hints::new()
        .grid(grid)
        .block(block)
        .len(1 << 14)
        .dynamic_smem(1 << 14);
    for (i, p) in f.param_list().iter().enumerate() {
        h = h.init(i, InitSpec::Named(init.into()));
        if p.size_bytes() != 8 {
            h = h.scalar(i, 8);
        }
    }
    h
}

/// A block or grid shape of one to three numbers as three, the missing ones 1 (the analysis's
/// `Options::block_dim`).
pub fn dim3(v: &[u32]) -> [u32; 3] {
    let mut d = [1u32; 3];
    for (k, x) in v.iter().take(3).enumerate() {
        d[k] = *x;
    }
    d
}

/// A fixed-seed xorshift generator: the fuzz tests' mutations are the same on every run.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Assembles `ptx` for `arch` with `ptxas` and `extra` options in a temporary folder (removed
/// afterwards) and returns the cubin's bytes; panics with ptxas's message when it refuses.
pub fn assemble_cubin(ptxas: &Path, ptx: &Path, arch: &str, extra: &[&str]) -> Vec<u8> {
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let dir = std::env::temp_dir().join(format!(
        "warpsmith-test-cubin-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let cubin = dir.join(format!("{arch}.cubin"));
    let out = std::process::Command::new(ptxas)
        .args(extra)
        .args(["-arch", arch, "-o"])
        .arg(&cubin)
        .arg(ptx)
        .output()
        .expect("ptxas runs");
    assert!(
        out.status.success(),
        "ptxas failed on {}: {}",
        ptx.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(&cubin).expect("cubin");
    let _ = std::fs::remove_dir_all(&dir);
    bytes
}
