//! Affine divergence analysis: which values are the same on every lane of a warp (or of the whole
//! thread block), which are affine functions `c·lane + b` of the lane, and which are divergent.
//!
//! The algorithm is Sampaio, Martins, Collange and Pereira's divergence analysis with affine
//! constraints, as summarised in Sampaio et al., "Spill Code Placement for SIMD Machines" §2
//! (`../shared/papers/divergence-aware-spill-code-placement.txt`): every value is abstracted as
//! `a1·T + a2` with `a1`, `a2` in the constant lattice (⊤, integers, ⊥), giving the classes
//! *constant*, *uniform*, *constant-affine*, *affine* and *divergent*. Beyond the paper the analysis
//! tells *block-uniform* from *warp-uniform* values and tracks enough about wrapping to be sound on
//! machine integers (see [`lattice`]). Control dependence is handled as in LLVM's
//! `UniformityAnalysis` (sync dependence, temporal divergence at cycle exits; see [`engine`]).
//!
//! The engine is written once against the [`engine::DivergenceIr`] trait and has two front ends:
//! - [`ptx`]: PTX registers at machine level. A register written by several instructions takes the
//!   meet of its definitions (the paper's treatment of SSA elimination), and a register defined on
//!   paths that diverged and live where they meet is divergent.
//! - [`llvm`]: LLVM IR values, described by the plugin's C++ shim (`src/plugin/shim.cpp`) in a flat
//!   form ([`llvm::FunctionDesc`]) so that the analysis itself stays in Rust.
//!
//! `T` is the lane's position in the warp (`%laneid`). `%tid.x` equals `32·warp + lane` only when
//! consecutive lanes have consecutive `%tid.x`: in 1-D blocks, or when `ntid.x` is a multiple of 32.
//! The front ends learn the block shape from `.reqntid` (`nvvm.reqntid` in LLVM IR) or from
//! [`Options`]; without it `%tid` is treated as divergent and the result says why.

pub mod engine;
pub mod lattice;
pub mod llvm;
pub mod ptx;
pub mod soundness;

pub use lattice::{Abs, Class, Coef, Scope, Taint};
pub use ptx::{analyze_function, analyze_module, FunctionDivergence, RegisterClass};

/// What the analysis may assume about the launch and the arithmetic.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// The block shape `(x, y, z)`, as if every kernel had `.reqntid x, y, z`. Overrides the
    /// kernel's own `.reqntid`.
    pub block_dim: Option<[u32; 3]>,
    /// Assume 1-D blocks (`ntid.y = ntid.z = 1`) for kernels whose shape is otherwise unknown.
    pub assume_1d: bool,
    /// Assume integer arithmetic never wraps (LLVM's `nsw`/`nuw` everywhere). PTX carries no such
    /// flags, so without this a sign- or zero-extension of an affine value whose base alignment is
    /// unknown is divergent.
    pub assume_no_wrap: bool,
}

/// Parses `X`, `X,Y` or `X,Y,Z` (missing dimensions are 1), for `--block-dim` (the
/// `divergence` and `spill` commands) and `WARPSMITH_SPILL_BLOCK_DIM`.
pub fn parse_block_dim(s: &str) -> Result<[u32; 3], String> {
    let parts: Vec<&str> = s.split([',', 'x']).map(str::trim).collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!("expected X[,Y[,Z]], got {s:?}"));
    }
    let mut d = [1u32; 3];
    for (i, p) in parts.iter().enumerate() {
        d[i] = p
            .parse::<u32>()
            .ok()
            .filter(|&v| (1..=1024).contains(&v))
            .ok_or_else(|| format!("{p:?} is not a block dimension (1..1024)"))?;
    }
    if d.iter().map(|&v| u64::from(v)).product::<u64>() > 1024 {
        return Err(format!("{s}: more than 1024 threads per block"));
    }
    Ok(d)
}

/// What the analysis knows about the block shape of a function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockShape {
    /// `(x, y, z)`, from `.reqntid`/`nvvm.reqntid` or [`Options::block_dim`].
    Known([u32; 3]),
    /// 1-D blocks assumed ([`Options::assume_1d`]); `ntid.x` unknown.
    Assumed1d,
    /// Nothing known.
    Unknown,
}

impl BlockShape {
    /// The shape for a function with launch bounds `reqntid` (as written, 1 to 3 numbers).
    pub fn new(reqntid: Option<&[u32]>, opts: &Options) -> BlockShape {
        if let Some(d) = opts.block_dim {
            return BlockShape::Known(d);
        }
        if let Some(v) = reqntid {
            if !v.is_empty() && v.len() <= 3 && v.iter().all(|&x| x > 0) {
                let mut d = [1u32; 3];
                d[..v.len()].copy_from_slice(v);
                return BlockShape::Known(d);
            }
        }
        if opts.assume_1d {
            BlockShape::Assumed1d
        } else {
            BlockShape::Unknown
        }
    }

    /// How the shape is described in outputs: `256x1x1`, `1-D (assumed)`, `unknown`.
    pub fn describe(&self) -> String {
        match self {
            BlockShape::Known([x, y, z]) => format!("{x}x{y}x{z}"),
            BlockShape::Assumed1d => "1-D (assumed)".into(),
            BlockShape::Unknown => "unknown".into(),
        }
    }

    /// The abstract value of `%tid.<c>` (c = 0, 1, 2), and a note when it has to be divergent.
    /// A known shape also bounds it: `%tid.c ≤ ntid.c − 1`.
    pub fn tid(&self, c: usize) -> (Abs, Option<String>) {
        let (abs, note) = self.tid_unbounded(c);
        match *self {
            BlockShape::Known(d) => {
                let max = u64::from(d[c.min(2)].saturating_sub(1));
                (abs.with_umax(Some(max), 32), note)
            }
            _ => (abs, note),
        }
    }

    /// [`BlockShape::tid`] without the bound.
    fn tid_unbounded(&self, c: usize) -> (Abs, Option<String>) {
        use lattice::EXACT_BOTH;
        let lane_consecutive = Abs::affine(1, Scope::Warp, 5, EXACT_BOTH);
        match (*self, c) {
            (BlockShape::Known([x, y, z]), 0) => {
                if y * z == 1 && x <= 32 {
                    (Abs::constant_affine(1, 0, EXACT_BOTH), None)
                } else if y * z == 1 || x % 32 == 0 {
                    (lane_consecutive, None)
                } else {
                    (
                        Abs::DIVERGENT,
                        Some(format!(
                            "%tid.x is divergent: in a {x}x{y}x{z} block ntid.x = {x} is not a \
                             multiple of 32, so consecutive lanes need not have consecutive %tid.x"
                        )),
                    )
                }
            }
            (BlockShape::Known([x, y, z]), 1) => {
                if y == 1 {
                    (Abs::constant(0), None)
                } else if x % 32 == 0 {
                    (Abs::uniform(Scope::Warp), None)
                } else {
                    (
                        Abs::DIVERGENT,
                        Some(format!(
                            "%tid.y is divergent: in a {x}x{y}x{z} block a warp spans several rows"
                        )),
                    )
                }
            }
            (BlockShape::Known([x, y, z]), _) => {
                if z == 1 {
                    (Abs::constant(0), None)
                } else if (x * y) % 32 == 0 {
                    (Abs::uniform(Scope::Warp), None)
                } else {
                    (
                        Abs::DIVERGENT,
                        Some(format!(
                            "%tid.z is divergent: in a {x}x{y}x{z} block a warp spans several planes"
                        )),
                    )
                }
            }
            (BlockShape::Assumed1d, 0) => (lane_consecutive, None),
            (BlockShape::Assumed1d, _) => (Abs::constant(0), None),
            (BlockShape::Unknown, _) => (
                Abs::DIVERGENT,
                Some(
                    "%tid is treated as divergent: the block shape is unknown (no .reqntid), and \
                     %tid.x is affine in the lane only for 1-D blocks or when ntid.x is a multiple \
                     of 32; give the shape with --block-dim X,Y,Z or --assume-1d \
                     (-affine-divergence-block-dim=X,Y,Z or -affine-divergence-assume-1d in the \
                     LLVM plugin)"
                        .into(),
                ),
            ),
        }
    }

    /// The abstract value of `%ntid.<c>`.
    pub fn ntid(&self, c: usize) -> Abs {
        match *self {
            BlockShape::Known(d) => Abs::constant(i64::from(d[c.min(2)])),
            BlockShape::Assumed1d if c > 0 => Abs::constant(1),
            _ => Abs::uniform(Scope::Block),
        }
    }
}

/// Errors of the divergence analysis.
#[derive(Debug, thiserror::Error)]
pub enum DivergenceError {
    /// The function is only declared.
    #[error("function {0} has no body")]
    NoBody(String),
    /// An LLVM function description from the plugin is inconsistent (a bug in the shim).
    #[error("malformed LLVM function description: {0}")]
    BadDescription(String),
}

/// Counts of each class in a result, for summaries and the precision table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct ClassCounts {
    /// Values never written on a reachable path.
    pub undefined: usize,
    /// Constants.
    pub constant: usize,
    /// Block-uniform values (constants excluded).
    pub uniform_block: usize,
    /// Warp-uniform values that are not block-uniform.
    pub uniform_warp: usize,
    /// Constant-affine values.
    pub constant_affine: usize,
    /// Affine values.
    pub affine: usize,
    /// Divergent values.
    pub divergent: usize,
}

impl ClassCounts {
    /// Adds one value of class `c`.
    pub fn add(&mut self, c: &Class) {
        match c {
            Class::Undefined => self.undefined += 1,
            Class::Constant(_) => self.constant += 1,
            Class::Uniform(Scope::Block) => self.uniform_block += 1,
            Class::Uniform(Scope::Warp) => self.uniform_warp += 1,
            Class::ConstantAffine { .. } => self.constant_affine += 1,
            Class::Affine { .. } => self.affine += 1,
            Class::Divergent => self.divergent += 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_dims_parse() {
        assert_eq!(parse_block_dim("256"), Ok([256, 1, 1]));
        assert_eq!(parse_block_dim("16,16"), Ok([16, 16, 1]));
        assert_eq!(parse_block_dim("8x8x4"), Ok([8, 8, 4]));
        assert!(parse_block_dim("0").is_err());
        assert!(parse_block_dim("64,64").is_err());
        assert!(parse_block_dim("1,2,3,4").is_err());
        assert!(parse_block_dim("x").is_err());
    }
}
