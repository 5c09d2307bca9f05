//! The library's front door for build scripts (`build.rs`) and other programs: PTX text in, PTX
//! text out, with the passes' options, reports and typed errors in one place.
//!
//! - [`parse`] / [`parse_file`]: PTX into the machine IR ([`Module`]); every syntax error is
//!   collected with its `file:line:col` ([`Error::Parse`]).
//! - [`divergence`]: the affine divergence analysis of every function, as a serialisable
//!   [`DivergenceReport`] (the class of each register and the count of each class).
//! - [`shuffle`]: shuffle synthesis — global loads that read what a neighbouring lane already
//!   loaded become guarded `shfl.sync` ([`ShuffleOptions`], [`ShuffleReport`]).
//! - [`spill`]: shared-memory spilling to a register target ([`SpillOptions::new`],
//!   [`SpillReport`]).
//! - [`print()`] / [`write_file`]: the module back to PTX (written atomically).
//!
//! The functions are thin: each is the library function of the same pass
//! ([`crate::ptx::parse_module`], [`crate::analysis::divergence::analyze_module`],
//! [`crate::shuffle::shuffle_module`], [`crate::spill::spill_module`]) with the errors gathered
//! into one [`Error`]. Use those modules directly for more (the emulator, the SASS tools).
//!
//! A `build.rs` that rewrites a kernel's PTX (this is a test: it runs with `cargo test --doc`):
//!
//! ```
//! use warpsmith::api::{self, Error, ShuffleOptions, SpillError, SpillOptions, SpillTarget};
//!
//! // In a build script: the PTX rustc (nvptx64-nvidia-cuda), clang or nvcc wrote.
//! let ptx = r#"
//! .version 7.0
//! .target sm_80
//! .address_size 64
//! .visible .entry stencil(.param .u64 in, .param .u64 out)
//! {
//!     .reg .b32 %r<8>;
//!     .reg .b64 %rd<8>;
//!     ld.param.u64 %rd1, [in];
//!     ld.param.u64 %rd2, [out];
//!     cvta.to.global.u64 %rd3, %rd1;
//!     cvta.to.global.u64 %rd4, %rd2;
//!     mov.u32 %r1, %ctaid.x;
//!     mov.u32 %r2, %ntid.x;
//!     mov.u32 %r3, %tid.x;
//!     mad.lo.s32 %r4, %r1, %r2, %r3;
//!     mul.wide.u32 %rd5, %r4, 4;
//!     add.s64 %rd6, %rd3, %rd5;
//!     ld.global.b32 %r5, [%rd6];
//!     ld.global.b32 %r6, [%rd6+4];
//!     add.s32 %r7, %r5, %r6;
//!     add.s64 %rd7, %rd4, %rd5;
//!     st.global.b32 [%rd7], %r7;
//!     ret;
//! }
//! "#;
//! let mut module = api::parse(ptx, "stencil.ptx")?;
//!
//! // Which registers are the same on every lane, which are affine in the lane.
//! let report = api::divergence(&module, &Default::default());
//! let stencil = &report.functions[0];
//! assert_eq!(stencil.class_of("%r2").as_deref(), Some("uniform scope=block")); // %ntid.x
//! println!("{}", serde_json::to_string(&report).unwrap());
//!
//! // `in[i + 1]` is what lane + 1 loaded as `in[i]`. By default a replacement is made only when
//! // it pays for the instructions it adds; in a kernel this small it does not, and the reason
//! // is in the report.
//! let mut copy = module.clone();
//! let shuffled = api::shuffle(&mut copy, &ShuffleOptions::default())?;
//! assert_eq!(shuffled.kernels[0].shuffles, 0);
//! assert!(shuffled.kernels[0].rejected.iter().any(|r| r.why.starts_with("unprofitable")));
//! // Every proved replacement: the load becomes a guarded shuffle.
//! let opts = ShuffleOptions { profitable_only: false, ..ShuffleOptions::default() };
//! let shuffled = api::shuffle(&mut module, &opts)?;
//! assert_eq!(shuffled.kernels[0].shuffles, 1);
//! assert!(api::print(&module).contains("shfl.sync"));
//!
//! // Spilling needs the block size: without launch bounds the error says so (a typed error,
//! // never a panic), and the module is left as it was.
//! let mut options = SpillOptions::new(SpillTarget::MaxRegs(32), "sm_80");
//! options.use_ptxas = false; // keep the rewrite unchecked (the default checks with `ptxas -v`)
//! match api::spill(&mut module, &options) {
//!     Err(Error::Spill(SpillError::NoBlockSize(kernel))) => assert_eq!(kernel, "stencil"),
//!     other => panic!("unexpected: {other:?}"),
//! }
//! options.block_size = Some(128);
//! let spilled = api::spill(&mut module, &options)?;
//! assert_eq!(spilled.kernels[0].max_regs, 32);
//!
//! // Syntax errors come with file:line:col.
//! let err = api::parse(".version 7.0\n.target sm_80\nbogus;\n", "bad.ptx").unwrap_err();
//! assert!(err.to_string().starts_with("bad.ptx:3:"), "{err}");
//! # Ok::<(), warpsmith::api::Error>(())
//! ```

use std::path::{Path, PathBuf};

use serde::Serialize;

pub use crate::analysis::divergence::Options as DivergenceOptions;
use crate::analysis::divergence::{analyze_module, BlockShape, ClassCounts};
pub use crate::ptx::{Module, ParseErrors};
pub use crate::shuffle::{Mode as ShuffleMode, ShuffleError, ShuffleOptions, ShuffleReport};
pub use crate::spill::{SpillError, SpillOptions, SpillReport, Target as SpillTarget};

/// Everything the functions of this module can fail with.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The PTX does not parse (every error, each with `file:line:col`).
    #[error("{0}")]
    Parse(#[from] ParseErrors),
    /// The spilling pass refused or failed.
    #[error("spill: {0}")]
    Spill(#[from] SpillError),
    /// Shuffle synthesis failed.
    #[error("shuffle: {0}")]
    Shuffle(#[from] ShuffleError),
    /// A file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// Parses PTX text; `file` names it in diagnostics.
pub fn parse(text: &str, file: &str) -> Result<Module, Error> {
    Ok(crate::ptx::parse_module(text, file)?)
}

/// Reads and parses a PTX file.
pub fn parse_file(path: &Path) -> Result<Module, Error> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse(&text, &path.display().to_string())
}

/// Prints the module as PTX.
pub fn print(module: &Module) -> String {
    crate::ptx::print_module(module)
}

/// Prints the module to `path`, atomically (a temporary file renamed into place).
pub fn write_file(module: &Module, path: &Path) -> Result<(), Error> {
    crate::fsutil::write_atomic(path, print(module).as_bytes()).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// Runs shuffle synthesis on every kernel of `module` (or `options.kernel`), in place.
pub fn shuffle(module: &mut Module, options: &ShuffleOptions) -> Result<ShuffleReport, Error> {
    Ok(crate::shuffle::shuffle_module(module, options)?)
}

/// Runs shared-memory spilling on every kernel of `module` (or `options.kernel`), in place.
/// On an error the module is unchanged.
pub fn spill(module: &mut Module, options: &SpillOptions) -> Result<SpillReport, Error> {
    Ok(crate::spill::spill_module(module, options)?)
}

impl SpillOptions {
    /// Options for `target` on `arch` (`sm_80`, …) with the CLI's defaults: every kernel, block
    /// size from the kernel's launch bounds, the default shared-memory budget, dynamic shared
    /// memory as the pass infers it, no extra ptxas options, and the `ptxas -v` check with the
    /// never-worse rule (`use_ptxas`: a rewrite is kept only when ptxas shows it is better; without
    /// ptxas nothing is rewritten — set `use_ptxas = false` to keep rewrites unchecked, which
    /// for [`SpillTarget::Auto`] the register model then judges: docs/spill.md, step 9).
    pub fn new(target: SpillTarget, arch: &str) -> Self {
        SpillOptions {
            target,
            kernel: None,
            arch: arch.to_string(),
            block_size: None,
            block_dim: None,
            smem_budget: None,
            use_ptxas: true,
            dynamic_smem: None,
            ptxas_args: Vec::new(),
            jobs: None,
        }
    }
}

/// The divergence analysis of a module ([`divergence`]).
#[derive(Clone, Debug, Serialize)]
pub struct DivergenceReport {
    /// Every function with a body, in the module's order.
    pub functions: Vec<FunctionDivergenceReport>,
}

/// The divergence analysis of one function.
#[derive(Clone, Debug, Serialize)]
pub struct FunctionDivergenceReport {
    /// The function's name.
    pub name: String,
    /// True for `.entry` kernels.
    pub is_kernel: bool,
    /// The block shape the analysis knew (`[x, y, z]`), if any.
    pub block_dim: Option<[u32; 3]>,
    /// How many registers fell in each class.
    pub counts: ClassCounts,
    /// Every register the body mentions, in declaration order.
    pub registers: Vec<RegisterDivergence>,
    /// Why some sources were treated conservatively.
    pub notes: Vec<String>,
}

/// The class of one register.
#[derive(Clone, Debug, Serialize)]
pub struct RegisterDivergence {
    /// Its PTX name (`%r4`).
    pub name: String,
    /// Its class in the one-line form of the CLI and the plugin: `constant value=5`,
    /// `uniform scope=block`, `constant-affine coef=4 base=8`, `affine coef=1 scope=warp`,
    /// `divergent`, `undefined`.
    pub class: String,
}

impl FunctionDivergenceReport {
    /// The class of the register named `name` (`%r4`), if the body mentions it.
    pub fn class_of(&self, name: &str) -> Option<String> {
        self.registers
            .iter()
            .find(|r| r.name == name)
            .map(|r| r.class.clone())
    }
}

/// The affine divergence analysis of every function of `module` with a body.
pub fn divergence(module: &Module, options: &DivergenceOptions) -> DivergenceReport {
    let functions = analyze_module(module, options)
        .into_iter()
        .map(|f| FunctionDivergenceReport {
            counts: f.counts(),
            block_dim: match f.shape {
                BlockShape::Known(d) => Some(d),
                BlockShape::Assumed1d | BlockShape::Unknown => None,
            },
            registers: f
                .registers
                .iter()
                .map(|r| RegisterDivergence {
                    name: r.name.clone(),
                    class: r.class.to_string(),
                })
                .collect(),
            name: f.name,
            is_kernel: f.is_kernel,
            notes: f.notes,
        })
        .collect();
    DivergenceReport { functions }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn io_errors_name_the_file() {
        let err = parse_file(Path::new("/nonexistent/k.ptx")).unwrap_err();
        assert!(matches!(err, Error::Io { .. }));
        assert!(err.to_string().starts_with("/nonexistent/k.ptx: "), "{err}");
    }

    #[test]
    fn unknown_kernel_is_a_typed_error() {
        let mut m = parse(
            ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\tret;\n}\n",
            "k.ptx",
        )
        .unwrap();
        let opts = ShuffleOptions {
            kernel: Some("missing".into()),
            ..ShuffleOptions::default()
        };
        assert!(matches!(
            shuffle(&mut m, &opts),
            Err(Error::Shuffle(ShuffleError::NoKernel(k))) if k == "missing"
        ));
        let mut sopts = SpillOptions::new(SpillTarget::Auto, "sm_80");
        sopts.kernel = Some("missing".into());
        assert!(matches!(
            spill(&mut m, &sopts),
            Err(Error::Spill(SpillError::NoKernel(k))) if k == "missing"
        ));
    }
}
