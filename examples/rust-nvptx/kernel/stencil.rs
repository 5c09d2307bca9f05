//! The example's GPU kernel, compiled by `build.rs` with rustc's `nvptx64-nvidia-cuda` target:
//!
//!     RUSTC_BOOTSTRAP=1 rustc --target nvptx64-nvidia-cuda --crate-type cdylib \
//!         -C target-cpu=sm_80 -O --emit=asm kernel/stencil.rs -o stencil.ptx
//!
//! `#![no_core]` because a stable toolchain has no `core` for this target (rustup's nvptx64
//! target component is not installed, and `-Zbuild-std` needs the `rust-src` component); the few
//! language items the code uses are declared below. README.md explains each unstable feature.
//!
//! `stencil3(input, output)`: `output[i] = input[i] + input[i + 1] + input[i + 2]` for every
//! thread `i = ctaid.x * ntid.x + tid.x` (the launch covers the output exactly; `input` has two
//! more elements). `input[i + 1]` and `input[i + 2]` are what lanes `+1` and `+2` load as their
//! `input[i]`: warpsmith's shuffle synthesis replaces those loads with `shfl.sync`.
#![feature(no_core, lang_items, abi_ptx, link_llvm_intrinsics, intrinsics)]
#![no_core]
#![allow(internal_features)]

// The `Sized` hierarchy: every generic parameter is `Sized` unless it says otherwise.
#[lang = "pointee_sized"]
pub trait PointeeSized {}
#[lang = "meta_sized"]
pub trait MetaSized: PointeeSized {}
#[lang = "sized"]
pub trait Sized: MetaSized {}

// Values the kernel copies.
#[lang = "copy"]
pub trait Copy {}
impl Copy for u32 {}
impl Copy for usize {}
impl Copy for f32 {}
impl<T: ?Sized> Copy for *const T {}
impl<T: ?Sized> Copy for *mut T {}

// `+` and `*`: the compiler lowers them on primitives itself, but type-checks them through these.
#[lang = "add"]
pub trait Add<Rhs = Self> {
    type Output;
    fn add(self, rhs: Rhs) -> Self::Output;
}
impl Add for u32 {
    type Output = u32;
    fn add(self, rhs: u32) -> u32 {
        self + rhs
    }
}
impl Add for usize {
    type Output = usize;
    fn add(self, rhs: usize) -> usize {
        self + rhs
    }
}
impl Add for f32 {
    type Output = f32;
    fn add(self, rhs: f32) -> f32 {
        self + rhs
    }
}
#[lang = "mul"]
pub trait Mul<Rhs = Self> {
    type Output;
    fn mul(self, rhs: Rhs) -> Self::Output;
}
impl Mul for u32 {
    type Output = u32;
    fn mul(self, rhs: u32) -> u32 {
        self * rhs
    }
}

// Pointer arithmetic that LLVM sees as such (a GEP), so that its address-space inference proves
// the kernel's pointers global and the PTX uses `ld.global` (integer arithmetic on addresses
// would leave generic `ld`, which shuffle synthesis does not consider).
#[rustc_intrinsic]
unsafe fn offset<Ptr, Delta>(dst: Ptr, offset: Delta) -> Ptr;

// The special registers, as NVVM intrinsics.
unsafe extern "C" {
    #[link_name = "llvm.nvvm.read.ptx.sreg.tid.x"]
    safe fn tid_x() -> u32;
    #[link_name = "llvm.nvvm.read.ptx.sreg.ntid.x"]
    safe fn ntid_x() -> u32;
    #[link_name = "llvm.nvvm.read.ptx.sreg.ctaid.x"]
    safe fn ctaid_x() -> u32;
}

unsafe fn load(p: *const f32, i: usize) -> f32 {
    unsafe { *offset(p, i) }
}

/// The kernel (`.entry stencil3`).
///
/// # Safety
/// `input` must hold `n + 2` and `output` `n` floats, for `n` threads in all.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn stencil3(input: *const f32, output: *mut f32) {
    let i = (ctaid_x() * ntid_x() + tid_x()) as usize;
    let s = unsafe { load(input, i) + load(input, i + 1) + load(input, i + 2) };
    unsafe { *offset(output, i) = s };
}
