//! The PTX emulator: warpsmith's correctness oracle (DESIGN.md, "A rewrite is correct only if the
//! emulator says so").
//!
//! One interpreter ([`exec`]) executes a grid of CTAs of 32-lane warps with SIMT semantics over a
//! value [`domain::Domain`]: the [`concrete`] domain now, a Z3 bit-vector domain later. Modules:
//!
//! - [`domain`]: the value-domain trait and the operation vocabulary ([`domain::Op`]).
//! - [`concrete`]: `u64` values with exact PTX semantics; [`float`]: exact IEEE rounding;
//!   [`fp8`]: the 8-bit float formats of `cvt`.
//! - [`decode`]: pre-decodes PTX IR into a compact executable form.
//! - [`memory`]: state spaces, the generic address map, bounds and alignment checks.
//! - [`exec`]: the SIMT interpreter (IPDOM reconvergence stack, barriers, calls, warp collectives).
//! - [`launch`]: JSON launch specs, deterministic inputs, running a kernel.
//! - [`tensor`], [`wgmma`]: fragment layouts, shared-memory matrix descriptors and the arithmetic
//!   of the tensor-core instructions.
//! - [`mbarrier`]: the state machine of the `mbarrier` object.
//! - [`cluster`]: thread-block cluster shapes and their special registers (both emulators).
//! - [`tensormap`]: the emulator's encoding of tensor maps and the boxes of tensor copies.
//! - [`equiv`]: differential checking of two modules.
//! - [`symbolic`]: the Z3 bit-vector domain (shuffle synthesis drives it with its own path-forking
//!   engine, src/shuffle/symexec.rs, over the same decoded instructions).
//!
//! See docs/emulator.md for the design, the model's limits and the supported instructions.

pub mod cluster;
pub mod concrete;
pub mod decode;
pub mod domain;
pub mod equiv;
pub mod error;
pub mod exec;
pub mod float;
pub mod fp8;
pub mod launch;
pub mod mbarrier;
pub mod memory;
pub mod symbolic;
pub mod tensor;
pub mod tensormap;
pub mod wgmma;

pub use error::{EmuError, EmuResult};
pub use launch::{run, spec_for, Hints, LaunchSpec, RunOptions, RunOutput};
