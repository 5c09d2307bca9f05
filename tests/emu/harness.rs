//! Shared helpers of the emulator tests: compiling bench/kernels/*.cu with clang 22 exactly as
//! scripts/compile-kernels.sh does (into a per-process temporary folder, each file once), building
//! launch specs from Rust vectors, and comparing outputs with CPU references.

#![allow(dead_code, reason = "each test binary uses a different subset")]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use warpsmith::emu::launch::{
    ArgSpec, BufferSpec, ElemType, InitSpec, LaunchSpec, OutBuffer, ScalarSpec, SplitMix64,
};
use warpsmith::emu::{EmuError, RunOptions};
use warpsmith::ptx::{parse_module, Module};
use warpsmith::tools::{self, Tool};

/// The repository root.
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// clang 22, if installed.
pub fn clang() -> Option<&'static Path> {
    static CLANG: OnceLock<Option<PathBuf>> = OnceLock::new();
    CLANG
        .get_or_init(|| tools::find(Tool::Clang).ok())
        .as_deref()
}

/// Compiles `bench/kernels/<file>.cu` for sm_80 at `level` ("O0"/"O3") and parses it; `None`
/// (after printing SKIPPED) when clang is absent. Panics on a compile error (a broken test
/// setup, not a skipped test).
pub fn kernel_module(file: &str, level: &str) -> Option<(Module, PathBuf)> {
    let Some(clang) = clang() else {
        eprintln!("SKIPPED: clang-22 not found");
        return None;
    };
    static DONE: OnceLock<Mutex<HashMap<String, PathBuf>>> = OnceLock::new();
    let done = DONE.get_or_init(|| Mutex::new(HashMap::new()));
    let key = format!("{file}.sm_80.{level}");
    let cached = done.lock().ok().and_then(|m| m.get(&key).cloned());
    let path = match cached {
        Some(p) => p,
        None => {
            let out = compile(clang, file, level);
            if let Ok(mut m) = done.lock() {
                m.insert(key.clone(), out.clone());
            }
            out
        }
    };
    let text = std::fs::read_to_string(&path).expect("read PTX");
    let m = parse_module(&text, &path.display().to_string()).expect("clang's PTX parses");
    Some((m, path))
}

/// Compiles one file with the command line of scripts/compile-kernels.sh into
/// `CARGO_TARGET_TMPDIR/emu-kernels/`, named by a hash of the sources (so unchanged kernels are
/// reused across runs; written to a temporary name and renamed, so concurrent test binaries
/// never see a partial file).
fn compile(clang: &Path, file: &str, level: &str) -> PathBuf {
    use std::hash::{Hash, Hasher};
    let root = repo_root();
    let src = root.join(format!("bench/kernels/{file}.cu"));
    let prelude = warpsmith::tools::cuda::bench_prelude();
    let mut h = std::collections::hash_map::DefaultHasher::new();
    std::fs::read(&src).expect("kernel source").hash(&mut h);
    std::fs::read(&prelude).expect("prelude.h").hash(&mut h);
    clang.hash(&mut h);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("emu-kernels");
    std::fs::create_dir_all(&dir).expect("temp dir");
    let out = dir.join(format!("{file}.sm_80.{level}.{:016x}.ptx", h.finish()));
    if out.is_file() {
        return out;
    }
    let tmp = dir.join(format!(".{file}.{level}.{}.tmp", std::process::id()));
    let text = warpsmith::tools::cuda::cuda_to_ptx(clang, &src, "sm_80", level)
        .unwrap_or_else(|e| panic!("clang failed on {file}.cu: {e}"));
    std::fs::write(&tmp, text).expect("write compiled PTX");
    std::fs::rename(&tmp, &out).expect("rename compiled PTX");
    out
}

/// A typed host buffer.
#[derive(Clone, Debug, PartialEq)]
pub enum Buf {
    /// f32
    F32(Vec<f32>),
    /// f64
    F64(Vec<f64>),
    /// s32
    S32(Vec<i32>),
    /// u32
    U32(Vec<u32>),
    /// s64
    S64(Vec<i64>),
    /// u64
    U64(Vec<u64>),
    /// u8
    U8(Vec<u8>),
    /// f16 bits
    F16(Vec<u16>),
}

impl Buf {
    /// Element type.
    pub fn ty(&self) -> ElemType {
        match self {
            Buf::F32(_) => ElemType::F32,
            Buf::F64(_) => ElemType::F64,
            Buf::S32(_) => ElemType::S32,
            Buf::U32(_) => ElemType::U32,
            Buf::S64(_) => ElemType::S64,
            Buf::U64(_) => ElemType::U64,
            Buf::U8(_) => ElemType::U8,
            Buf::F16(_) => ElemType::F16,
        }
    }
    /// JSON list items (floats as numbers: exact round trip; f16 as raw bits).
    pub fn items(&self) -> Vec<serde_json::Value> {
        use serde_json::json;
        match self {
            Buf::F32(v) => v.iter().map(|x| json!(f64::from(*x))).collect(),
            Buf::F64(v) => v.iter().map(|x| json!(x)).collect(),
            Buf::S32(v) => v.iter().map(|x| json!(x)).collect(),
            Buf::U32(v) => v.iter().map(|x| json!(x)).collect(),
            Buf::S64(v) => v.iter().map(|x| json!(x)).collect(),
            Buf::U64(v) => v.iter().map(|x| json!(format!("0x{x:x}"))).collect(),
            Buf::U8(v) => v.iter().map(|x| json!(x)).collect(),
            Buf::F16(v) => v.iter().map(|x| json!(format!("0x{x:x}"))).collect(),
        }
    }
    /// Little-endian bytes.
    pub fn bytes(&self) -> Vec<u8> {
        match self {
            Buf::F32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Buf::F64(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Buf::S32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Buf::U32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Buf::S64(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Buf::U64(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Buf::U8(v) => v.clone(),
            Buf::F16(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        }
    }
    fn spec(&self) -> BufferSpec {
        let items = self.items();
        BufferSpec {
            ty: self.ty(),
            len: Some(items.len() as u64),
            init: InitSpec::List(items),
            seed: None,
            range: None,
        }
    }
}

/// A kernel argument.
#[derive(Clone, Debug)]
pub enum A {
    /// A global buffer.
    B(Buf),
    /// A scalar.
    S(ElemType, serde_json::Value),
    /// A by-value aggregate.
    V(Buf),
}

/// `A::S(s32, v)`.
pub fn s32(v: i32) -> A {
    A::S(ElemType::S32, serde_json::json!(v))
}
/// `A::S(u32, v)`.
pub fn u32s(v: u32) -> A {
    A::S(ElemType::U32, serde_json::json!(v))
}
/// `A::S(f32, v)`.
pub fn f32s(v: f32) -> A {
    A::S(ElemType::F32, serde_json::json!(f64::from(v)))
}
/// `A::S(f64, v)`.
pub fn f64s(v: f64) -> A {
    A::S(ElemType::F64, serde_json::json!(v))
}
/// `A::S(u64, v)`.
pub fn u64s(v: u64) -> A {
    A::S(ElemType::U64, serde_json::json!(v))
}

/// A launch built from host data.
#[derive(Clone, Debug)]
pub struct Launch {
    /// Kernel name.
    pub kernel: &'static str,
    /// Grid.
    pub grid: [u32; 3],
    /// Block.
    pub block: [u32; 3],
    /// Dynamic shared memory.
    pub smem: u64,
    /// Arguments.
    pub args: Vec<A>,
    /// Module variables.
    pub globals: Vec<(&'static str, Buf)>,
}

impl Launch {
    /// A launch with no arguments yet.
    pub fn new(kernel: &'static str, grid: [u32; 3], block: [u32; 3]) -> Launch {
        Launch {
            kernel,
            grid,
            block,
            smem: 0,
            args: Vec::new(),
            globals: Vec::new(),
        }
    }
    /// Adds an argument.
    pub fn arg(mut self, a: A) -> Launch {
        self.args.push(a);
        self
    }
    /// Adds a buffer argument.
    pub fn buf(self, b: Buf) -> Launch {
        self.arg(A::B(b))
    }
    /// The JSON launch spec.
    pub fn spec(&self) -> LaunchSpec {
        LaunchSpec {
            kernel: self.kernel.to_string(),
            grid: self.grid.to_vec(),
            block: self.block.to_vec(),
            dynamic_smem: self.smem,
            cluster: None,
            args: self
                .args
                .iter()
                .map(|a| match a {
                    A::B(b) => ArgSpec::Buffer(b.spec()),
                    A::V(b) => ArgSpec::Byval(b.spec()),
                    A::S(t, v) => ArgSpec::Scalar(ScalarSpec {
                        ty: *t,
                        value: v.clone(),
                    }),
                })
                .collect(),
            globals: self
                .globals
                .iter()
                .map(|(n, b)| (n.to_string(), b.spec()))
                .collect(),
            max_instructions: Some(200_000_000),
        }
    }
}

/// Runs `l` on `m`; returns the output buffers.
pub fn run(m: &Module, file: &Path, l: &Launch) -> Result<Vec<OutBuffer>, EmuError> {
    let opts = RunOptions {
        file: file.display().to_string(),
        ..RunOptions::default()
    };
    warpsmith::emu::run(m, &l.spec(), &opts).map(|o| o.buffers)
}

/// What an output must be.
pub enum Expect {
    /// Exactly these bytes.
    Exact(Buf),
    /// f32 values within a relative tolerance (plus `tol` absolute near zero).
    F32Near(Vec<f32>, f32),
    /// f64 values within a relative tolerance.
    F64Near(Vec<f64>, f64),
}

/// Compares output `out` of argument `arg` with `e`; returns a message on mismatch.
pub fn compare(arg: usize, out: &[u8], e: &Expect) -> Result<(), String> {
    match e {
        Expect::Exact(b) => {
            let want = b.bytes();
            if want.len() != out.len() {
                return Err(format!(
                    "arg{arg}: {} bytes, expected {}",
                    out.len(),
                    want.len()
                ));
            }
            let es = b.ty().size();
            for i in 0..want.len() / es {
                let (x, y) = (&out[i * es..(i + 1) * es], &want[i * es..(i + 1) * es]);
                if x != y {
                    return Err(format!(
                        "arg{arg}[{i}]: got {}, expected {}",
                        b.ty().format(x),
                        b.ty().format(y)
                    ));
                }
            }
            Ok(())
        }
        Expect::F32Near(v, tol) => {
            if out.len() != v.len() * 4 {
                return Err(format!(
                    "arg{arg}: {} bytes, expected {}",
                    out.len(),
                    v.len() * 4
                ));
            }
            for (i, want) in v.iter().enumerate() {
                let got = f32::from_le_bytes([
                    out[4 * i],
                    out[4 * i + 1],
                    out[4 * i + 2],
                    out[4 * i + 3],
                ]);
                let ok = (got - want).abs() <= tol * want.abs().max(1.0)
                    || (got.is_nan() && want.is_nan());
                if !ok {
                    return Err(format!(
                        "arg{arg}[{i}]: got {got:e}, expected {want:e} (tolerance {tol:e})"
                    ));
                }
            }
            Ok(())
        }
        Expect::F64Near(v, tol) => {
            if out.len() != v.len() * 8 {
                return Err(format!(
                    "arg{arg}: {} bytes, expected {}",
                    out.len(),
                    v.len() * 8
                ));
            }
            for (i, want) in v.iter().enumerate() {
                let mut b = [0u8; 8];
                b.copy_from_slice(&out[8 * i..8 * i + 8]);
                let got = f64::from_le_bytes(b);
                if (got - want).abs() > tol * want.abs().max(1.0) {
                    return Err(format!("arg{arg}[{i}]: got {got:e}, expected {want:e}"));
                }
            }
            Ok(())
        }
    }
}

/// Runs `l` on `file`.cu at -O0 and -O3 and checks every expected output. Returns false when
/// skipped (no clang).
pub fn check_kernel(file: &str, l: &Launch, expect: &[(usize, Expect)]) -> bool {
    for level in ["O0", "O3"] {
        let Some((m, path)) = kernel_module(file, level) else {
            return false;
        };
        let outs = match run(&m, &path, l) {
            Ok(o) => o,
            Err(e) => panic!("{} {level}: emulation failed: {e}", l.kernel),
        };
        for (arg, e) in expect {
            let out = outs
                .iter()
                .find(|b| b.arg == Some(*arg))
                .unwrap_or_else(|| panic!("{}: no output for arg{arg}", l.kernel));
            if let Err(msg) = compare(*arg, &out.data, e) {
                panic!("{} {level} (block {:?}): {msg}", l.kernel, l.block);
            }
        }
    }
    true
}

/// Deterministic test data.
pub struct Rng(SplitMix64);

impl Rng {
    /// A generator.
    pub fn new(seed: u64) -> Rng {
        Rng(SplitMix64::new(seed))
    }
    /// Integers in `[lo, hi)`.
    pub fn int(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.0.next_u64() % (hi - lo) as u64) as i64
    }
    /// `n` i32 in `[lo, hi)`.
    pub fn i32s(&mut self, n: usize, lo: i32, hi: i32) -> Vec<i32> {
        (0..n)
            .map(|_| self.int(i64::from(lo), i64::from(hi)) as i32)
            .collect()
    }
    /// `n` f32 holding small integers in `[lo, hi)` (exact under any evaluation order).
    pub fn f32i(&mut self, n: usize, lo: i32, hi: i32) -> Vec<f32> {
        (0..n)
            .map(|_| self.int(i64::from(lo), i64::from(hi)) as f32)
            .collect()
    }
    /// `n` f32 in [-1, 1).
    pub fn f32u(&mut self, n: usize) -> Vec<f32> {
        (0..n)
            .map(|_| ((self.0.next_u64() >> 40) as f32) * (1.0 / 8388608.0) - 1.0)
            .collect()
    }
    /// `n` raw u64.
    pub fn u64s(&mut self, n: usize) -> Vec<u64> {
        (0..n).map(|_| self.0.next_u64()).collect()
    }
}

/// f32 → f16 bits, round to nearest even (an independent implementation for references).
pub fn f32_to_f16(x: f32) -> u16 {
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xff) as i32;
    let man = b & 0x7f_ffff;
    if exp == 0xff {
        return sign | 0x7c00 | if man != 0 { 0x200 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 31 {
        return sign | 0x7c00;
    }
    let full = man | 0x80_0000; // 24-bit significand
    let shift = if e <= 0 { 14 - e } else { 13 };
    if shift > 24 {
        return sign;
    }
    let kept = full >> shift;
    let rem = full & ((1 << shift) - 1);
    let half = 1 << (shift - 1);
    let mut v = kept + u32::from(rem > half || (rem == half && kept & 1 == 1));
    if e <= 0 {
        return sign | v as u16;
    }
    let mut e = e as u32;
    if v >= 0x800 {
        v >>= 1;
        e += 1;
        if e >= 31 {
            return sign | 0x7c00;
        }
    }
    sign | ((e << 10) as u16) | (v & 0x3ff) as u16
}

/// f16 bits → f32 (exact).
pub fn f16_to_f32(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0f32 } else { 1.0 };
    let e = i32::from((h >> 10) & 0x1f);
    let m = f32::from(h & 0x3ff);
    if e == 0 {
        sign * m * 2f32.powi(-24)
    } else if e == 31 {
        if m == 0.0 {
            sign * f32::INFINITY
        } else {
            f32::NAN
        }
    } else {
        sign * (1.0 + m / 1024.0) * 2f32.powi(e - 15)
    }
}
