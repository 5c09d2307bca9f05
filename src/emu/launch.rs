//! Launch specifications (JSON), deterministic input generation, argument validation, and the
//! entry point that runs a kernel on the concrete domain and returns its output buffers.
//!
//! # Launch spec
//!
//! ```json
//! {"kernel": "saxpy", "grid": [4,1,1], "block": [48,1,1], "dynamic_smem": 0,
//!  "args": [{"buffer": {"type": "f32", "len": 4096, "init": "random", "seed": 1}},
//!           {"buffer": {"type": "s32", "len": 16, "init": [1,2,3]}},
//!           {"scalar": {"type": "s32", "value": 64}},
//!           {"byval": {"type": "f32", "init": [0.1, 0.2, 0.4, 0.2, 0.1]}}],
//!  "globals": {"conv_filter": {"type": "f32", "len": 25, "init": "random", "seed": 9}},
//!  "max_instructions": 100000000}
//! ```
//!
//! - `buffer`: global memory; the kernel receives its (generic = global) address. `init` is
//!   `"random"`, `"zero"`, `"iota"` or a list (shorter lists are zero-padded; `len` may then be
//!   omitted). List items are numbers or, for floats, `"nan"`, `"inf"`, `"-inf"`; any item may be
//!   a string `"0x…"` giving the raw bits.
//! - `scalar`: a by-value parameter; its type's size must equal the parameter's.
//! - `byval`: the bytes of a by-value aggregate parameter (`.param .align 4 .b8 p[20]`).
//! - `globals`: initial contents of module-scope `.global`/`.const` variables by name.
//! - `range`: optional `[lo, hi)` for `random`.
//!
//! # The random generator (implemented identically in `bench/gpu/crosscheck.py`)
//!
//! splitmix64 seeded with the buffer's `seed` (default: argument index + 1; module variables, in
//! name order: 1001, 1002, …): `state += 0x9e37…7c15;
//! z = state; z = (z ^ z>>30) * 0xbf58…e5b9; z = (z ^ z>>27) * 0x94d0…11eb; z ^ z>>31`, one draw per
//! element. Floats: `u = (z >> 11) * 2^-53` in [0,1), `x = lo + (hi - lo) * u` computed in f64
//! (default range [-1, 1)), then rounded to nearest-even into the element type. Integers without a
//! range: the low bits of `z`; with a range `[lo, hi)`: `lo + z mod (hi - lo)` (128-bit math).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::ptx::ir::{Function, Module, Type};

use super::cluster::ClusterShape;
use super::concrete::Concrete;
use super::decode::{KParam, Program};
use super::domain::Domain;
use super::error::{EmuError, EmuResult};
use super::exec::{LaunchShape, Limits, Machine, Stats};
use super::float::{self, Rnd};

/// Element types of buffers and scalars.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElemType {
    /// `u8`
    U8,
    /// `s8`
    S8,
    /// `u16`
    U16,
    /// `s16`
    S16,
    /// `u32`
    U32,
    /// `s32`
    S32,
    /// `u64`
    U64,
    /// `s64`
    S64,
    /// `b8`
    B8,
    /// `b16`
    B16,
    /// `b32`
    B32,
    /// `b64`
    B64,
    /// `f16`
    F16,
    /// `bf16`
    Bf16,
    /// `f32`
    F32,
    /// `f64`
    F64,
}

impl ElemType {
    /// Size in bytes.
    pub fn size(self) -> usize {
        use ElemType::*;
        match self {
            U8 | S8 | B8 => 1,
            U16 | S16 | B16 | F16 | Bf16 => 2,
            U32 | S32 | B32 | F32 => 4,
            U64 | S64 | B64 | F64 => 8,
        }
    }
    /// True for the float types.
    pub fn is_float(self) -> bool {
        matches!(
            self,
            ElemType::F16 | ElemType::Bf16 | ElemType::F32 | ElemType::F64
        )
    }
    /// True for the signed integer types.
    pub fn is_signed(self) -> bool {
        matches!(
            self,
            ElemType::S8 | ElemType::S16 | ElemType::S32 | ElemType::S64
        )
    }
    /// The spelling used in specs.
    pub fn name(self) -> &'static str {
        use ElemType::*;
        match self {
            U8 => "u8",
            S8 => "s8",
            U16 => "u16",
            S16 => "s16",
            U32 => "u32",
            S32 => "s32",
            U64 => "u64",
            S64 => "s64",
            B8 => "b8",
            B16 => "b16",
            B32 => "b32",
            B64 => "b64",
            F16 => "f16",
            Bf16 => "bf16",
            F32 => "f32",
            F64 => "f64",
        }
    }
    /// Decodes one element of `bytes` (little-endian) for messages.
    pub fn format(self, bytes: &[u8]) -> String {
        let mut b = [0u8; 8];
        let n = bytes.len().min(8);
        b[..n].copy_from_slice(&bytes[..n]);
        let v = u64::from_le_bytes(b);
        use ElemType::*;
        match self {
            F32 => format!("{:?} ({v:#010x})", f32::from_bits(v as u32)),
            F64 => format!("{:?} ({v:#018x})", f64::from_bits(v)),
            F16 => format!("{:?} ({v:#06x})", float::F16.to_f64(v)),
            Bf16 => format!("{:?} ({v:#06x})", float::BF16.to_f64(v)),
            S8 => format!("{}", v as u8 as i8),
            S16 => format!("{}", v as u16 as i16),
            S32 => format!("{}", v as u32 as i32),
            S64 => format!("{}", v as i64),
            _ => format!("{v} ({v:#x})"),
        }
    }
}

/// How a buffer is initialised.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum InitSpec {
    /// `"random"`, `"zero"` or `"iota"`.
    Named(String),
    /// Explicit values.
    List(Vec<serde_json::Value>),
}

impl Default for InitSpec {
    fn default() -> InitSpec {
        InitSpec::Named("zero".into())
    }
}

/// A buffer (or by-value aggregate, or module variable) specification.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BufferSpec {
    /// Element type.
    #[serde(rename = "type")]
    pub ty: ElemType,
    /// Number of elements (defaults to the list's length).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub len: Option<u64>,
    /// Initial contents.
    #[serde(default)]
    pub init: InitSpec,
    /// Seed of `random` (default: argument index + 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// `[lo, hi)` for `random`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range: Option<[f64; 2]>,
}

/// A scalar argument.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScalarSpec {
    /// Its type.
    #[serde(rename = "type")]
    pub ty: ElemType,
    /// Its value: a number, or a string (`"0x…"` raw bits, `"nan"`, `"inf"`, `"-inf"`).
    pub value: serde_json::Value,
}

/// A tensor map argument (`CUtensorMap`, 128 bytes by value) and the tensor it describes, which
/// it owns like a buffer argument (its contents are an output too). Encoded as
/// [`crate::emu::tensormap`] describes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TensorMapSpec {
    /// Element type.
    #[serde(rename = "type")]
    pub ty: ElemType,
    /// Extent of each dimension in elements, innermost (contiguous) first; 1 to 5 of them.
    pub dims: Vec<u64>,
    /// Byte strides of dimensions 1… (one fewer than `dims`); default: dense.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strides: Option<Vec<u64>>,
    /// The box (the tile one copy moves) in elements, innermost first.
    #[serde(rename = "box")]
    pub boxdim: Vec<u32>,
    /// `none` (default), `32B`, `64B` or `128B`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub swizzle: Option<String>,
    /// What an element outside the tensor reads as: `zero` (default) or `nan`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oob_fill: Option<String>,
    /// Initial contents of the tensor.
    #[serde(default)]
    pub init: InitSpec,
    /// Seed of `random` (default: argument index + 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// `[lo, hi)` for `random`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range: Option<[f64; 2]>,
}

/// One kernel argument.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum ArgSpec {
    /// A global buffer passed by address.
    Buffer(BufferSpec),
    /// A scalar by value.
    Scalar(ScalarSpec),
    /// A by-value aggregate, given as elements.
    Byval(BufferSpec),
    /// A tensor map by value, with the tensor it describes.
    TensorMap(TensorMapSpec),
}

/// A launch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LaunchSpec {
    /// The kernel's name.
    pub kernel: String,
    /// `[x, y, z]` CTAs (1 to 3 numbers).
    pub grid: Vec<u32>,
    /// `[x, y, z]` threads per CTA (1 to 3 numbers).
    pub block: Vec<u32>,
    /// Bytes of dynamic shared memory.
    #[serde(default)]
    pub dynamic_smem: u64,
    /// `[x, y, z]` CTAs per cluster, for a launch with a cluster dimension
    /// (`cudaLaunchKernelEx`); a kernel's `.reqnctapercluster` gives it otherwise (docs/emulator.md,
    /// "Clusters").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster: Option<Vec<u32>>,
    /// The arguments, one per kernel parameter.
    pub args: Vec<ArgSpec>,
    /// Initial contents of module variables.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub globals: BTreeMap<String, BufferSpec>,
    /// Warp-instruction budget (default 2·10⁹).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_instructions: Option<u64>,
}

impl LaunchSpec {
    /// Parses a JSON spec.
    pub fn from_json(text: &str) -> EmuResult<LaunchSpec> {
        serde_json::from_str(text).map_err(|e| EmuError::Spec(format!("invalid JSON: {e}")))
    }
    /// Serialises to pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
    /// The spec with every `random` seed `s` replaced by `s + offset` (equivalence runs).
    pub fn with_seed_offset(&self, offset: u64) -> LaunchSpec {
        let mut s = self.clone();
        let bump = |init: &InitSpec, seed: &mut Option<u64>, default: u64| {
            if matches!(init, InitSpec::Named(n) if n == "random") {
                *seed = Some(seed.unwrap_or(default).wrapping_add(offset));
            }
        };
        for (i, a) in s.args.iter_mut().enumerate() {
            match a {
                ArgSpec::Buffer(b) | ArgSpec::Byval(b) => bump(&b.init, &mut b.seed, i as u64 + 1),
                ArgSpec::TensorMap(t) => bump(&t.init, &mut t.seed, i as u64 + 1),
                ArgSpec::Scalar(_) => {}
            }
        }
        for (j, b) in s.globals.values_mut().enumerate() {
            bump(&b.init, &mut b.seed, 1001 + j as u64);
        }
        s
    }
}

/// splitmix64 (Steele, Lea, Flood 2014), the generator of `random` inputs.
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator with the given seed.
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

fn float_bits(ty: ElemType, x: f64) -> u64 {
    match ty {
        ElemType::F64 => x.to_bits(),
        ElemType::F32 => float::from_f64(x, float::F32, Rnd::Rn),
        ElemType::F16 => float::from_f64(x, float::F16, Rnd::Rn),
        _ => float::from_f64(x, float::BF16, Rnd::Rn),
    }
}

fn int_from_f64(ty: ElemType, x: f64) -> u64 {
    let v = if ty.is_signed() {
        x as i64 as u64
    } else {
        x as u64
    };
    mask_to(ty, v)
}

fn mask_to(ty: ElemType, v: u64) -> u64 {
    if ty.size() == 8 {
        v
    } else {
        v & ((1u64 << (8 * ty.size())) - 1)
    }
}

/// One element from a JSON value.
fn elem_bits(ty: ElemType, v: &serde_json::Value, what: &str) -> EmuResult<u64> {
    let bad = || EmuError::Spec(format!("{what}: `{v}` is not a valid {} value", ty.name()));
    match v {
        serde_json::Value::Number(n) => {
            if ty.is_float() {
                Ok(float_bits(ty, n.as_f64().ok_or_else(bad)?))
            } else if let Some(i) = n.as_i64() {
                Ok(mask_to(ty, i as u64))
            } else if let Some(u) = n.as_u64() {
                Ok(mask_to(ty, u))
            } else {
                let f = n.as_f64().ok_or_else(bad)?;
                if f.fract() != 0.0 {
                    return Err(bad());
                }
                Ok(int_from_f64(ty, f))
            }
        }
        serde_json::Value::String(s) => {
            if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
                return u64::from_str_radix(h, 16)
                    .map(|b| mask_to(ty, b))
                    .map_err(|_| bad());
            }
            if !ty.is_float() {
                return Err(bad());
            }
            let x = match s.to_ascii_lowercase().as_str() {
                "nan" => f64::NAN,
                "inf" | "+inf" => f64::INFINITY,
                "-inf" => f64::NEG_INFINITY,
                other => other.parse::<f64>().map_err(|_| bad())?,
            };
            Ok(float_bits(ty, x))
        }
        serde_json::Value::Bool(b) => Ok(u64::from(*b)),
        _ => Err(bad()),
    }
}

/// The initial bytes of one module variable a spec's `globals` names.
pub(crate) struct ModuleVarInit<'s> {
    /// The variable's name.
    pub name: &'s str,
    /// How errors name it (`global `name``).
    pub what: String,
    /// Its bytes, generated as any buffer's.
    pub bytes: Vec<u8>,
}

impl ModuleVarInit<'_> {
    /// An error unless the bytes fit a variable of `size` bytes.
    pub fn fits(&self, size: u64) -> EmuResult<()> {
        if self.bytes.len() as u64 > size {
            return Err(EmuError::Spec(format!(
                "{}: {} bytes given, the variable has {size}",
                self.what,
                self.bytes.len()
            )));
        }
        Ok(())
    }
}

/// The spec's module variables in name order with their bytes: their default seeds are 1001,
/// 1002, … (the generator's argument-index rule given 1000 + j). The PTX and the SASS emulator
/// both fill their variables from here, so a `.ptx` and its cubin read the same bytes.
pub(crate) fn module_var_inits(spec: &LaunchSpec) -> EmuResult<Vec<ModuleVarInit<'_>>> {
    spec.globals
        .iter()
        .enumerate()
        .map(|(j, (name, b))| {
            let what = format!("global `{name}`");
            let bytes = buffer_bytes(b, 1000 + j as u64, &what)?;
            Ok(ModuleVarInit { name, what, bytes })
        })
        .collect()
}

/// Generates the bytes of a buffer spec (`index` gives the default seed).
pub fn buffer_bytes(b: &BufferSpec, index: u64, what: &str) -> EmuResult<Vec<u8>> {
    let list_len = match &b.init {
        InitSpec::List(l) => Some(l.len() as u64),
        _ => None,
    };
    let len = match (b.len, list_len) {
        (Some(l), Some(n)) if n > l => {
            return Err(EmuError::Spec(format!(
                "{what}: {n} initial values for a buffer of {l} elements"
            )))
        }
        (Some(l), _) => l,
        (None, Some(n)) => n,
        (None, None) => return Err(EmuError::Spec(format!("{what}: `len` is missing"))),
    };
    let es = b.ty.size();
    let total = len
        .checked_mul(es as u64)
        .filter(|&t| t <= (1 << 30))
        .ok_or_else(|| EmuError::Spec(format!("{what}: buffer of {len} elements is too large")))?;
    let mut out = vec![0u8; total as usize];
    let mut put = |i: usize, v: u64| {
        out[i * es..(i + 1) * es].copy_from_slice(&v.to_le_bytes()[..es]);
    };
    match &b.init {
        InitSpec::Named(n) => match n.as_str() {
            "zero" => {}
            "iota" => {
                for i in 0..len as usize {
                    let v = if b.ty.is_float() {
                        float_bits(b.ty, i as f64)
                    } else {
                        mask_to(b.ty, i as u64)
                    };
                    put(i, v);
                }
            }
            "random" => {
                let mut g = SplitMix64::new(b.seed.unwrap_or(index + 1));
                for i in 0..len as usize {
                    let z = g.next_u64();
                    put(i, random_elem(b.ty, z, b.range));
                }
            }
            other => {
                return Err(EmuError::Spec(format!(
                    "{what}: unknown init `{other}` (random, zero, iota or a list)"
                )))
            }
        },
        InitSpec::List(items) => {
            for (i, v) in items.iter().enumerate() {
                put(i, elem_bits(b.ty, v, what)?);
            }
        }
    }
    Ok(out)
}

/// The parameter bytes of a scalar argument.
pub fn scalar_bytes(s: &ScalarSpec, what: &str) -> EmuResult<Vec<u8>> {
    let v = elem_bits(s.ty, &s.value, what)?;
    Ok(v.to_le_bytes()[..s.ty.size()].to_vec())
}

/// One random element from 64 random bits.
pub fn random_elem(ty: ElemType, z: u64, range: Option<[f64; 2]>) -> u64 {
    if ty.is_float() {
        let [lo, hi] = range.unwrap_or([-1.0, 1.0]);
        let u = (z >> 11) as f64 * (1.0 / 9007199254740992.0);
        float_bits(ty, lo + (hi - lo) * u)
    } else {
        match range {
            None => mask_to(ty, z),
            Some([lo, hi]) => {
                let (lo, hi) = (lo as i128, hi as i128);
                let span = (hi - lo).max(1) as u128;
                let v = lo + (u128::from(z) % span) as i128;
                mask_to(ty, v as u64)
            }
        }
    }
}

/// A buffer after the run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutBuffer {
    /// `arg<N>` or a module variable's name.
    pub name: String,
    /// Argument index (None for module variables).
    pub arg: Option<usize>,
    /// Element type (module variables: b8).
    pub ty: ElemType,
    /// The bytes.
    pub data: Vec<u8>,
}

/// The result of a run.
#[derive(Clone, Debug)]
pub struct RunOutput {
    /// Every buffer argument, then every module `.global` variable, after the run.
    pub buffers: Vec<OutBuffer>,
    /// Counters.
    pub stats: Stats,
    /// Wall time of the emulation (excluding setup).
    pub elapsed: std::time::Duration,
}

/// The grid and block of `spec`, checked (1 to 3 non-zero extents each, at most 1024 threads per
/// block). Shared by the PTX and the SASS emulator.
/// The spec's cluster shape, when it gives one.
pub(crate) fn launch_cluster(spec: &LaunchSpec) -> EmuResult<Option<[u32; 3]>> {
    spec.cluster
        .as_deref()
        .map(|c| dims(c, "cluster"))
        .transpose()
}

pub(crate) fn grid_and_block(spec: &LaunchSpec) -> EmuResult<([u32; 3], [u32; 3])> {
    let grid = dims(&spec.grid, "grid")?;
    let block = dims(&spec.block, "block")?;
    let threads = u64::from(block[0]) * u64::from(block[1]) * u64::from(block[2]);
    if threads > 1024 {
        return Err(EmuError::Spec(format!(
            "block of {threads} threads (at most 1024)"
        )));
    }
    Ok((grid, block))
}

/// A buffer argument: its data generated and placed in `global` as `arg<i>` (recorded in `outs`
/// for the output), and the pointer's bytes returned. Shared by the PTX and the SASS emulator,
/// so both place the same bytes at the same addresses.
pub(crate) fn buffer_argument(
    b: &BufferSpec,
    i: usize,
    what: &str,
    global: &mut super::memory::GlobalMem,
    outs: &mut Vec<(usize, u32, ElemType)>,
) -> EmuResult<Vec<u8>> {
    let data = buffer_bytes(b, i as u64, what)?;
    let (idx, base) = global.alloc(&format!("arg{i}"), data, b.ty.size() as u64);
    outs.push((i, idx, b.ty));
    Ok(base.to_le_bytes().to_vec())
}

/// A tensor map argument: its tensor generated and placed in `global` as `arg<i>` (recorded in
/// `outs`), and the map's 128 bytes returned for a parameter of `param_size` bytes. Shared by the
/// PTX and the SASS emulator.
pub(crate) fn tensor_map_argument(
    t: &TensorMapSpec,
    i: usize,
    what: &str,
    param_size: u64,
    global: &mut super::memory::GlobalMem,
    outs: &mut Vec<(usize, u32, ElemType)>,
) -> EmuResult<Vec<u8>> {
    use super::tensormap::{swizzle_named, TensorMap, MAP_BYTES, MAX_RANK};
    let bad = |why: String| EmuError::Spec(format!("{what}: tensor map: {why}"));
    if param_size != MAP_BYTES as u64 {
        return Err(bad(format!(
            "needs a 128-byte parameter, the kernel's is {param_size} bytes"
        )));
    }
    let rank = t.dims.len();
    if !(1..=MAX_RANK).contains(&rank) || t.boxdim.len() != rank {
        return Err(bad(format!(
            "{rank} dimensions and {} box dimensions (1 to 5, as many of each)",
            t.boxdim.len()
        )));
    }
    let e = t.ty.size() as u64;
    let mut map = TensorMap {
        rank,
        elem_size: e as u32,
        swizzle: swizzle_named(t.swizzle.as_deref().unwrap_or("none"))
            .ok_or_else(|| bad("`swizzle` is one of `none`, `32B`, `64B`, `128B`".into()))?,
        nan: match t.oob_fill.as_deref().unwrap_or("zero") {
            "zero" => None,
            "nan" if t.ty.is_float() => Some(match t.ty {
                ElemType::F64 => 0x7fff_ffff_ffff_ffff,
                ElemType::F32 => 0x7fff_ffff,
                _ => 0x7fff,
            }),
            _ => return Err(bad("`oob_fill` is `zero`, or `nan` for a float type".into())),
        },
        base: 0,
        dims: [1; MAX_RANK],
        strides: [0; MAX_RANK],
        boxdim: [1; MAX_RANK],
    };
    map.dims[..rank].copy_from_slice(&t.dims);
    map.boxdim[..rank].copy_from_slice(&t.boxdim);
    map.strides[0] = e;
    match &t.strides {
        Some(st) if st.len() + 1 == rank => map.strides[1..rank].copy_from_slice(st),
        Some(st) => {
            return Err(bad(format!(
                "{} strides for {rank} dimensions (one fewer)",
                st.len()
            )))
        }
        None => {
            for d in 1..rank {
                map.strides[d] = map.strides[d - 1] * map.dims[d - 1];
            }
        }
    }
    map.validate().map_err(bad)?;
    let buffer = BufferSpec {
        ty: t.ty,
        len: Some(map.extent_bytes().div_ceil(e)),
        init: t.init.clone(),
        seed: t.seed,
        range: t.range,
    };
    let data = buffer_bytes(&buffer, i as u64, what)?;
    let (idx, base) = global.alloc(&format!("arg{i}"), data, 128);
    outs.push((i, idx, t.ty));
    map.base = base;
    Ok(map.encode().to_vec())
}

/// The output buffers of a run: every buffer argument's allocation after the run.
pub(crate) fn output_buffers(
    outs: Vec<(usize, u32, ElemType)>,
    global: &super::memory::GlobalMem,
) -> Vec<OutBuffer> {
    outs.into_iter()
        .map(|(i, idx, ty)| OutBuffer {
            name: format!("arg{i}"),
            arg: Some(i),
            ty,
            data: global.allocs[idx as usize].data.clone(),
        })
        .collect()
}

/// The module `.global` variables (name, allocation) after a run, as byte buffers.
pub(crate) fn module_var_buffers<'a>(
    vars: impl Iterator<Item = (&'a str, u32)>,
    global: &super::memory::GlobalMem,
) -> Vec<OutBuffer> {
    vars.map(|(name, idx)| OutBuffer {
        name: name.to_string(),
        arg: None,
        ty: ElemType::B8,
        data: global.allocs[idx as usize].data.clone(),
    })
    .collect()
}

fn dims(v: &[u32], what: &str) -> EmuResult<[u32; 3]> {
    if v.is_empty() || v.len() > 3 {
        return Err(EmuError::Spec(format!("`{what}` needs 1 to 3 numbers")));
    }
    let mut d = [1u32; 3];
    d[..v.len()].copy_from_slice(v);
    if d.contains(&0) {
        return Err(EmuError::Spec(format!("`{what}` has a zero dimension")));
    }
    Ok(d)
}

/// What a launch needs besides the program.
struct Prepared {
    global: super::memory::GlobalMem,
    const_bank: Vec<u8>,
    kparams: Vec<u8>,
    shape: LaunchShape,
    outs: Vec<(usize, u32, ElemType)>,
}

/// Checks `spec` against `kernel`'s parameters and builds the parameter block and the global
/// memory; returns them with the launch shape.
fn prepare(prog: &Program, kernel: u32, spec: &LaunchSpec) -> EmuResult<Prepared> {
    let kf = &prog.funcs[kernel as usize];
    let (grid, block) = grid_and_block(spec)?;
    let (declared, explicit) = match prog.function(kernel) {
        Some(f) => {
            check_launch_bounds(f, block)?;
            declared_cluster(f)
        }
        None => (None, false),
    };
    let cluster = ClusterShape::resolve(declared, launch_cluster(spec)?, explicit, grid)
        .map_err(EmuError::Spec)?;
    if prog.shared_static > 227 * 1024
        || (spec.dynamic_smem > 0 && prog.dyn_smem_offset + spec.dynamic_smem > 227 * 1024)
    {
        return Err(EmuError::Spec(format!(
            "{} bytes of shared memory per CTA (static {} + dynamic {}) exceed 227 KiB",
            prog.dyn_smem_offset + spec.dynamic_smem,
            prog.shared_static,
            spec.dynamic_smem
        )));
    }
    if spec.args.len() != kf.kparams.len() {
        return Err(EmuError::Spec(format!(
            "kernel `{}` has {} parameters, the spec gives {} arguments",
            kf.name,
            kf.kparams.len(),
            spec.args.len()
        )));
    }
    let mut global = prog.globals.clone();
    let mut const_bank = prog.const_bank.clone();
    for init in module_var_inits(spec)? {
        let name = init.name;
        let target: &mut [u8] =
            if let Some((_, idx)) = prog.global_vars.iter().find(|(n, _)| n == name) {
                &mut global.allocs[*idx as usize].data
            } else if let Some((_, off, size)) = prog.const_vars.iter().find(|(n, ..)| n == name) {
                &mut const_bank[*off as usize..(*off + *size) as usize]
            } else {
                return Err(EmuError::Spec(format!(
                    "{}: the module has no .global or .const variable of that name",
                    init.what
                )));
            };
        init.fits(target.len() as u64)?;
        target[..init.bytes.len()].copy_from_slice(&init.bytes);
    }
    let mut kparams = vec![0u8; kf.kparam_size as usize];
    let mut outs = Vec::new();
    for (i, (arg, p)) in spec.args.iter().zip(&kf.kparams).enumerate() {
        let what = format!("argument {i} (`{}`)", p.name);
        let bytes: Vec<u8> = match arg {
            ArgSpec::Buffer(b) => {
                if p.size != 8 {
                    return Err(EmuError::Spec(format!(
                        "{what}: a buffer needs a 64-bit pointer parameter, the kernel declares \
                         .{} ({} bytes)",
                        p.ty, p.size
                    )));
                }
                buffer_argument(b, i, &what, &mut global, &mut outs)?
            }
            ArgSpec::Scalar(s) => {
                if s.ty.size() as u64 != p.size {
                    return Err(EmuError::Spec(format!(
                        "{what}: a {} scalar ({} bytes) for a .{} parameter of {} bytes",
                        s.ty.name(),
                        s.ty.size(),
                        p.ty,
                        p.size
                    )));
                }
                check_scalar_type(s.ty, p, &what)?;
                scalar_bytes(s, &what)?
            }
            ArgSpec::TensorMap(t) => {
                tensor_map_argument(t, i, &what, p.size, &mut global, &mut outs)?
            }
            ArgSpec::Byval(b) => {
                let data = buffer_bytes(b, i as u64, &what)?;
                if data.len() as u64 != p.size {
                    return Err(EmuError::Spec(format!(
                        "{what}: {} bytes given for a by-value parameter of {} bytes",
                        data.len(),
                        p.size
                    )));
                }
                data
            }
        };
        let o = p.offset as usize;
        kparams[o..o + bytes.len()].copy_from_slice(&bytes);
    }
    Ok(Prepared {
        global,
        const_bank,
        kparams,
        shape: LaunchShape {
            grid,
            block,
            dynamic_smem: spec.dynamic_smem,
            cluster,
        },
        outs,
    })
}

/// The kernel's cluster directives: the shape of `.reqnctapercluster`, and whether it is marked
/// `.explicitcluster` (launched with a cluster shape given at launch).
fn declared_cluster(f: &Function) -> (Option<[u32; 3]>, bool) {
    use crate::ptx::ir::FuncDirective;
    let mut shape = None;
    let mut explicit = false;
    for d in &f.directives {
        if let FuncDirective::Other { name, args } = d {
            match &**name {
                "reqnctapercluster" => {
                    let mut s = [1u32; 3];
                    for (i, x) in args.iter().take(3).enumerate() {
                        s[i] = *x;
                    }
                    shape = Some(s);
                }
                "explicitcluster" => explicit = true,
                _ => {}
            }
        }
    }
    (shape, explicit)
}

fn check_scalar_type(ty: ElemType, p: &KParam, what: &str) -> EmuResult<()> {
    // Registers are bit containers, but a float scalar for an integer parameter (or the reverse)
    // is almost certainly a mistake in the spec; .b parameters take anything.
    let pf = p.ty.is_float();
    let generic = matches!(p.ty, Type::B8 | Type::B16 | Type::B32 | Type::B64);
    if !generic && pf != ty.is_float() {
        return Err(EmuError::Spec(format!(
            "{what}: a {} scalar for a .{} parameter",
            ty.name(),
            p.ty
        )));
    }
    Ok(())
}

fn check_launch_bounds(f: &Function, block: [u32; 3]) -> EmuResult<()> {
    use crate::ptx::ir::FuncDirective;
    for d in &f.directives {
        match d {
            FuncDirective::ReqNtid(v) => {
                let mut want = [1u32; 3];
                for (i, x) in v.iter().take(3).enumerate() {
                    want[i] = *x;
                }
                if want != block {
                    return Err(EmuError::Spec(format!(
                        "the kernel requires a block of {want:?} (.reqntid), the spec gives {block:?}"
                    )));
                }
            }
            FuncDirective::MaxNtid(v) => {
                let max: u32 = v.iter().product();
                let n = block[0] * block[1] * block[2];
                if n > max {
                    return Err(EmuError::Spec(format!(
                        "block of {n} threads exceeds the kernel's .maxntid of {max}"
                    )));
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// Options of a run.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// The file name used in messages.
    pub file: String,
    /// Limits (the spec's `max_instructions` overrides the instruction budget).
    pub limits: Limits,
}

/// Decodes `module` and runs `spec` on it (concrete domain).
pub fn run(module: &Module, spec: &LaunchSpec, opts: &RunOptions) -> EmuResult<RunOutput> {
    let file = if opts.file.is_empty() {
        "<input>"
    } else {
        &opts.file
    };
    let prog = Program::new(module, file).map_err(EmuError::Program)?;
    run_program(&prog, spec, opts)
}

/// Runs `spec` on an already decoded program.
pub fn run_program(prog: &Program, spec: &LaunchSpec, opts: &RunOptions) -> EmuResult<RunOutput> {
    run_program_with(prog, spec, opts, Concrete).map(|(out, _)| out)
}

/// Runs `spec` on a decoded program over any value domain `dom` (the same interpreter the
/// concrete runs use); returns the outputs (the bytes memory holds at the end) and the domain.
pub fn run_program_with<D: Domain>(
    prog: &Program,
    spec: &LaunchSpec,
    opts: &RunOptions,
    dom: D,
) -> EmuResult<(RunOutput, D)> {
    let kernel = *prog.by_name.get(&spec.kernel).ok_or_else(|| {
        let kernels: Vec<&str> = prog
            .funcs
            .iter()
            .filter(|f| f.is_kernel)
            .map(|f| f.name.as_str())
            .collect();
        EmuError::Spec(format!(
            "no kernel `{}` in the module (kernels: {})",
            spec.kernel,
            if kernels.is_empty() {
                "none".into()
            } else {
                kernels.join(", ")
            }
        ))
    })?;
    let kf = &prog.funcs[kernel as usize];
    if !kf.is_kernel || !kf.has_body {
        return Err(EmuError::Spec(format!(
            "`{}` is not a kernel with a body (.entry)",
            spec.kernel
        )));
    }
    let p = prepare(prog, kernel, spec)?;
    let mut limits = opts.limits;
    if let Some(m) = spec.max_instructions {
        limits.max_warp_insts = m;
    }
    if kf.local_size > limits.max_local_bytes {
        return Err(EmuError::Limit {
            at: None,
            what: format!(
                "kernel `{}` declares {} bytes of local memory per thread (limit {})",
                kf.name, kf.local_size, limits.max_local_bytes
            ),
        });
    }
    let mut m = Machine::new(
        prog,
        dom,
        kernel,
        p.global,
        p.const_bank,
        p.kparams,
        p.shape,
        limits,
    );
    let t0 = std::time::Instant::now();
    m.run()?;
    let elapsed = t0.elapsed();
    let mut buffers = output_buffers(p.outs, &m.global);
    buffers.extend(module_var_buffers(
        prog.global_vars.iter().map(|(n, i)| (n.as_str(), *i)),
        &m.global,
    ));
    Ok((
        RunOutput {
            buffers,
            stats: m.stats,
            elapsed,
        },
        m.dom,
    ))
}

/// Hints for [`spec_for`].
#[derive(Clone, Debug)]
pub struct Hints {
    /// Grid (default `[1,1,1]`).
    pub grid: Vec<u32>,
    /// Block (default `[32,1,1]`).
    pub block: Vec<u32>,
    /// Dynamic shared memory.
    pub dynamic_smem: u64,
    /// Default buffer length in elements.
    pub len: u64,
    /// Per-parameter buffer lengths.
    pub lens: BTreeMap<usize, u64>,
    /// Per-parameter element types (default f32).
    pub types: BTreeMap<usize, ElemType>,
    /// Per-parameter explicit initialisers.
    pub inits: BTreeMap<usize, InitSpec>,
    /// Scalar values by parameter index (others get `len`).
    pub scalars: BTreeMap<usize, serde_json::Value>,
    /// Base seed: buffer `i` gets `seed + i`.
    pub seed: u64,
}

impl Default for Hints {
    fn default() -> Hints {
        Hints {
            grid: vec![1, 1, 1],
            block: vec![32, 1, 1],
            dynamic_smem: 0,
            len: 1024,
            lens: BTreeMap::new(),
            types: BTreeMap::new(),
            inits: BTreeMap::new(),
            scalars: BTreeMap::new(),
            seed: 1,
        }
    }
}

impl Hints {
    /// Default hints.
    pub fn new() -> Hints {
        Hints::default()
    }
    /// Sets the grid.
    pub fn grid(mut self, g: &[u32]) -> Hints {
        self.grid = g.to_vec();
        self
    }
    /// Sets the block.
    pub fn block(mut self, b: &[u32]) -> Hints {
        self.block = b.to_vec();
        self
    }
    /// Sets the dynamic shared memory size.
    pub fn dynamic_smem(mut self, n: u64) -> Hints {
        self.dynamic_smem = n;
        self
    }
    /// Sets the default buffer length.
    pub fn len(mut self, n: u64) -> Hints {
        self.len = n;
        self
    }
    /// Sets parameter `i`'s buffer length.
    pub fn len_of(mut self, i: usize, n: u64) -> Hints {
        self.lens.insert(i, n);
        self
    }
    /// Sets parameter `i`'s element type.
    pub fn ty(mut self, i: usize, t: ElemType) -> Hints {
        self.types.insert(i, t);
        self
    }
    /// Sets parameter `i`'s initialiser.
    pub fn init(mut self, i: usize, init: InitSpec) -> Hints {
        self.inits.insert(i, init);
        self
    }
    /// Makes parameter `i` a scalar with value `v`.
    pub fn scalar(mut self, i: usize, v: impl Into<serde_json::Value>) -> Hints {
        self.scalars.insert(i, v.into());
        self
    }
}

/// A launch spec for `f` from its parameter list and `hints`: 64-bit parameters become random
/// buffers (`f32` unless typed, `hints.len` elements), other parameters scalars (`hints.scalars`
/// or, for integers, `hints.len`; floats 1.0).
pub fn spec_for(f: &Function, hints: &Hints) -> EmuResult<LaunchSpec> {
    let mut args = Vec::new();
    for (i, p) in f.param_list().iter().enumerate() {
        let scalar_hint = hints.scalars.get(&i);
        let elem = hints.types.get(&i).copied();
        let is_buffer =
            scalar_hint.is_none() && p.size_bytes() == 8 && p.dims.is_empty() && !p.ty.is_float();
        if is_buffer {
            let init = hints
                .inits
                .get(&i)
                .cloned()
                .unwrap_or_else(|| InitSpec::Named("random".into()));
            args.push(ArgSpec::Buffer(BufferSpec {
                ty: elem.unwrap_or(ElemType::F32),
                len: Some(hints.lens.get(&i).copied().unwrap_or(hints.len)),
                init,
                seed: Some(hints.seed + i as u64),
                range: None,
            }));
        } else if !p.dims.is_empty() {
            // f32 elements where the size allows; a 2-byte aggregate (a `__half` passed by value)
            // gets one 16-bit element, odd sizes bytes.
            let ty = elem.unwrap_or(match p.size_bytes() {
                n if n % 4 == 0 => ElemType::F32,
                n if n % 2 == 0 => ElemType::U16,
                _ => ElemType::U8,
            });
            let n = p.size_bytes() / ty.size() as u64;
            args.push(ArgSpec::Byval(BufferSpec {
                ty,
                len: Some(n),
                init: hints
                    .inits
                    .get(&i)
                    .cloned()
                    .unwrap_or_else(|| InitSpec::Named("random".into())),
                seed: Some(hints.seed + i as u64),
                range: None,
            }));
        } else {
            let ty = elem.unwrap_or(match (p.ty, p.ty.bytes()) {
                (Type::F32, _) => ElemType::F32,
                (Type::F64, _) => ElemType::F64,
                (Type::F16, _) => ElemType::F16,
                (_, 1) => ElemType::U8,
                (_, 2) => ElemType::U16,
                (_, 8) => ElemType::U64,
                _ => ElemType::S32,
            });
            let value = scalar_hint.cloned().unwrap_or_else(|| {
                if ty.is_float() {
                    serde_json::json!(1.0)
                } else {
                    serde_json::json!(hints.len)
                }
            });
            args.push(ArgSpec::Scalar(ScalarSpec { ty, value }));
        }
    }
    Ok(LaunchSpec {
        kernel: f.name.to_string(),
        grid: hints.grid.clone(),
        block: hints.block.clone(),
        dynamic_smem: hints.dynamic_smem,
        cluster: None,
        args,
        globals: BTreeMap::new(),
        max_instructions: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn by_value_aggregates_get_elements_that_divide_them() {
        let text = ".version 8.0\n.target sm_80\n.address_size 64\n\
            .visible .entry k(.param .align 2 .b8 k_h[2], .param .align 4 .b8 k_s[12], \
            .param .b8 k_c[3])\n{\nret;\n}\n";
        let m = crate::ptx::parse_module(text, "k.ptx").unwrap();
        let spec = spec_for(m.function("k").unwrap(), &Hints::new()).unwrap();
        let got: Vec<(ElemType, Option<u64>)> = spec
            .args
            .iter()
            .map(|a| match a {
                ArgSpec::Byval(b) => (b.ty, b.len),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(
            got,
            [
                (ElemType::U16, Some(1)),
                (ElemType::F32, Some(3)),
                (ElemType::U8, Some(3))
            ]
        );
    }

    #[test]
    fn splitmix_reference_values() {
        // Reference values of splitmix64 seeded with 0 (from the generator's published code).
        let mut g = SplitMix64::new(0);
        assert_eq!(g.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(g.next_u64(), 0x6e78_9e6a_a1b9_65f4);
        assert_eq!(g.next_u64(), 0x06c4_5d18_8009_454f);
    }

    #[test]
    fn random_floats_in_range() {
        let b = BufferSpec {
            ty: ElemType::F32,
            len: Some(1000),
            init: InitSpec::Named("random".into()),
            seed: Some(3),
            range: None,
        };
        let bytes = buffer_bytes(&b, 0, "t").unwrap();
        for c in bytes.chunks(4) {
            let x = f32::from_le_bytes([c[0], c[1], c[2], c[3]]);
            assert!((-1.0..1.0).contains(&x));
        }
    }

    #[test]
    fn lists_and_errors() {
        let b = BufferSpec {
            ty: ElemType::S32,
            len: Some(4),
            init: InitSpec::List(vec![serde_json::json!(1), serde_json::json!(-2)]),
            seed: None,
            range: None,
        };
        assert_eq!(
            buffer_bytes(&b, 0, "t").unwrap(),
            vec![1, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0]
        );
        let bad = BufferSpec {
            len: Some(1),
            ..b.clone()
        };
        assert!(buffer_bytes(&bad, 0, "t").is_err());
        let spec =
            LaunchSpec::from_json(r#"{"kernel":"k","grid":[1],"block":[32],"args":[],"bogus":1}"#);
        assert!(spec.is_err());
    }
}
