//! The LLVM 22 pass plugin (`libwarpsmith.so`), Rust side.
//!
//! The plugin is the package's `cdylib`. Its C++ half, `src/plugin/shim.cpp` (compiled by
//! `build.rs` against `llvm-config-22` and linked into the cdylib only), registers the function
//! analysis `affine-divergence` and the printer `print<affine-divergence>` with the new pass
//! manager, flattens each LLVM function into the C structs mirrored here, and calls
//! [`warpsmith_llvm_analyze`], which runs the divergence analysis of
//! [`crate::analysis::divergence::llvm`] (Sampaio et al. §2 with LLVM UniformityAnalysis-style
//! sync dependence) and hands the classes back.
//!
//! The code-generation hook (`PreCodeGenCallback`, see [`codegen`] and `docs/spill.md`): when
//! `llc`/`clang` compile an NVPTX module to PTX and spilling is requested (`-warpsmith-spill=N|auto`
//! or `WARPSMITH_SPILL_MAX_REGS`), the shim generates the PTX into a buffer and [`codegen`] runs
//! the shared-memory spilling pass on it; otherwise the hook declines and LLVM's back end runs
//! unchanged.
//!
//! Plugin ABI (LLVM 22, `llvm/Plugins/PassPlugin.h`): `llvmGetPassPluginInfo` returns the
//! five-field `PassPluginLibraryInfo` (API version 2, with the shim's `PreCodeGenCallback`). It must be
//! exported by the cdylib, so it is defined here in Rust; the shim's static constructor gives it
//! the C++ function that fills the struct ([`warpsmith_register_plugin_info`]). Without the shim
//! (no LLVM 22 at build time) the entry point reports API version 0 and LLVM refuses the plugin
//! with an error instead of crashing.
//!
//! Every entry point called from C++ catches panics and validates the description, so a bug
//! never unwinds into LLVM.

pub mod codegen;

use std::ffi::{c_char, c_void};
use std::sync::atomic::{AtomicPtr, Ordering};

use crate::analysis::divergence::engine::CycleData;
use crate::analysis::divergence::llvm::{
    analyze, BlockDesc, BranchDesc, FunctionDesc, OperandDesc, ValueDesc, ValueKind,
};
use crate::analysis::divergence::{Class, Options, Scope, Taint};

/// One argument or instruction (mirrors `WsValue` in shim.cpp).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct WsValue {
    /// [`ValueKind`] number.
    pub kind: u32,
    /// Block index, `u32::MAX` for arguments.
    pub block: u32,
    /// Integer/pointer bit width, 0 otherwise.
    pub width: u32,
    /// Flag bits.
    pub flags: u32,
    /// Kind-specific number.
    pub aux: u32,
    /// First operand in the operand array.
    pub first_op: u32,
    /// Number of operands.
    pub num_ops: u32,
}

/// One operand (mirrors `WsOperand`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct WsOperand {
    /// 0 value, 1 int, 2 uniform constant, 3 undef, 4 block, 5 scaled value.
    pub kind: u32,
    /// Value or block index.
    pub index: u32,
    /// Integer or scale.
    pub imm: i64,
}

/// One block (mirrors `WsBlock`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct WsBlock {
    /// First successor in the list array.
    pub first_succ: u32,
    /// Number of successors.
    pub num_succs: u32,
    /// Innermost cycle, `u32::MAX` for none.
    pub cycle: u32,
    /// 0 none, 1 on a value, 2 unknown.
    pub branch_kind: u32,
    /// The condition value.
    pub branch_value: u32,
}

/// One cycle (mirrors `WsCycle`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct WsCycle {
    /// Header block.
    pub header: u32,
    /// Parent cycle, `u32::MAX` for none.
    pub parent: u32,
    /// Depth (1 outermost).
    pub depth: u32,
    /// 1 when reducible.
    pub reducible: u32,
    /// First exit block in the list array.
    pub first_exit: u32,
    /// Number of exits.
    pub num_exits: u32,
}

/// One function (mirrors `WsFunction`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct WsFunction {
    /// Name bytes (not NUL-terminated).
    pub name: *const c_char,
    /// Name length.
    pub name_len: u64,
    /// 1 for kernels.
    pub is_kernel: u32,
    /// 1 when `reqntid` is valid.
    pub has_reqntid: u32,
    /// `nvvm.reqntid`.
    pub reqntid: [u32; 3],
    /// 1 when `block_dim` is valid.
    pub has_block_dim: u32,
    /// `-affine-divergence-block-dim`.
    pub block_dim: [u32; 3],
    /// `-affine-divergence-assume-1d`.
    pub assume_1d: u32,
    /// `-affine-divergence-assume-no-overflow`.
    pub assume_no_wrap: u32,
    /// Values.
    pub values: *const WsValue,
    /// Number of values.
    pub num_values: u64,
    /// Operands.
    pub operands: *const WsOperand,
    /// Number of operands.
    pub num_operands: u64,
    /// Blocks.
    pub blocks: *const WsBlock,
    /// Number of blocks.
    pub num_blocks: u64,
    /// Cycles.
    pub cycles: *const WsCycle,
    /// Number of cycles.
    pub num_cycles: u64,
    /// Successor and exit lists.
    pub lists: *const u32,
    /// Length of `lists`.
    pub num_lists: u64,
}

/// One class (mirrors `WsResult`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WsResult {
    /// 0 undefined, 1 constant, 2 uniform, 3 constant-affine, 4 affine, 5 divergent.
    pub cls: u32,
    /// 0 warp, 1 block.
    pub scope: u32,
    /// Coefficient (or the constant).
    pub coef: i64,
    /// Base of constant-affine values.
    pub base: i64,
}

impl WsResult {
    /// Encodes a class.
    pub fn from_class(c: Class) -> WsResult {
        let s = |s: Scope| u32::from(s == Scope::Block);
        match c {
            Class::Undefined => WsResult::default(),
            Class::Constant(v) => WsResult {
                cls: 1,
                scope: 1,
                coef: v,
                base: 0,
            },
            Class::Uniform(sc) => WsResult {
                cls: 2,
                scope: s(sc),
                coef: 0,
                base: 0,
            },
            Class::ConstantAffine { coef, base } => WsResult {
                cls: 3,
                scope: 1,
                coef,
                base,
            },
            Class::Affine { coef, scope } => WsResult {
                cls: 4,
                scope: s(scope),
                coef,
                base: 0,
            },
            Class::Divergent => WsResult {
                cls: 5,
                ..WsResult::default()
            },
        }
    }

    /// Decodes a class (unknown codes: divergent).
    pub fn to_class(self) -> Class {
        let sc = if self.scope == 1 {
            Scope::Block
        } else {
            Scope::Warp
        };
        match self.cls {
            0 => Class::Undefined,
            1 => Class::Constant(self.coef),
            2 => Class::Uniform(sc),
            3 => Class::ConstantAffine {
                coef: self.coef,
                base: self.base,
            },
            4 => Class::Affine {
                coef: self.coef,
                scope: sc,
            },
            _ => Class::Divergent,
        }
    }
}

/// Builds a slice from a C pointer and length, empty when null.
///
/// # Safety
/// `p` must point to `n` valid elements when non-null.
unsafe fn slice<'a, T>(p: *const T, n: u64) -> &'a [T] {
    if p.is_null() || n == 0 {
        &[]
    } else {
        // SAFETY: the caller guarantees `p` points to `n` elements.
        unsafe { std::slice::from_raw_parts(p, n as usize) }
    }
}

fn opt_index(x: u32) -> Option<u32> {
    (x != u32::MAX).then_some(x)
}

/// Converts the C description into a [`FunctionDesc`] (indices are checked later by
/// [`crate::analysis::divergence::llvm::validate`]; list ranges here).
///
/// # Safety
/// Every pointer of `f` must be valid for its length.
pub unsafe fn to_desc(f: &WsFunction) -> Result<(FunctionDesc, Options), String> {
    // SAFETY: forwarded from the caller.
    let (name, values, ops, blocks, cycles, lists) = unsafe {
        (
            slice(f.name as *const u8, f.name_len),
            slice(f.values, f.num_values),
            slice(f.operands, f.num_operands),
            slice(f.blocks, f.num_blocks),
            slice(f.cycles, f.num_cycles),
            slice(f.lists, f.num_lists),
        )
    };
    let range =
        |first: u32, n: u32, len: usize, what: &str| -> Result<std::ops::Range<usize>, String> {
            let a = first as usize;
            let b = a
                .checked_add(n as usize)
                .filter(|&b| b <= len)
                .ok_or_else(|| format!("{what} range {first}+{n} out of bounds ({len})"))?;
            Ok(a..b)
        };
    let mut desc = FunctionDesc {
        name: String::from_utf8_lossy(name).into_owned(),
        is_kernel: f.is_kernel != 0,
        reqntid: (f.has_reqntid != 0).then(|| f.reqntid.to_vec()),
        ..FunctionDesc::default()
    };
    for (i, v) in values.iter().enumerate() {
        let kind =
            ValueKind::from_u32(v.kind).ok_or_else(|| format!("value {i}: kind {}", v.kind))?;
        let mut operands = Vec::with_capacity(v.num_ops as usize);
        for o in &ops[range(v.first_op, v.num_ops, ops.len(), "operand")?] {
            operands.push(match o.kind {
                0 => OperandDesc::Value(o.index),
                1 => OperandDesc::Int(o.imm),
                2 => OperandDesc::Uniform,
                3 => OperandDesc::Undef,
                4 => OperandDesc::Block(o.index),
                5 => OperandDesc::Scaled(o.index, o.imm),
                k => return Err(format!("value {i}: operand kind {k}")),
            });
        }
        desc.values.push(ValueDesc {
            kind,
            block: opt_index(v.block),
            width: v.width,
            flags: v.flags,
            aux: v.aux,
            operands,
        });
    }
    for b in blocks {
        let succs = lists[range(b.first_succ, b.num_succs, lists.len(), "successor")?].to_vec();
        desc.blocks.push(BlockDesc {
            succs,
            cycle: opt_index(b.cycle),
            branch: match b.branch_kind {
                1 => BranchDesc::On(b.branch_value),
                2 => BranchDesc::Divergent,
                _ => BranchDesc::None,
            },
        });
    }
    for c in cycles {
        desc.cycles.push(CycleData {
            header: c.header,
            parent: opt_index(c.parent),
            depth: c.depth,
            reducible: c.reducible != 0,
            exits: lists[range(c.first_exit, c.num_exits, lists.len(), "exit")?].to_vec(),
        });
    }
    let opts = Options {
        block_dim: (f.has_block_dim != 0).then_some(f.block_dim),
        assume_1d: f.assume_1d != 0,
        assume_no_wrap: f.assume_no_wrap != 0,
    };
    Ok((desc, opts))
}

/// Writes `s` NUL-terminated into `buf` (truncated to fit); returns the length written.
fn write_c(s: &str, buf: *mut c_char, cap: u64) -> u64 {
    if buf.is_null() || cap == 0 {
        return 0;
    }
    let n = s.len().min(cap as usize - 1);
    // SAFETY: the caller provides `cap` writable bytes at `buf`; n < cap.
    unsafe {
        std::ptr::copy_nonoverlapping(s.as_ptr(), buf as *mut u8, n);
        *buf.add(n) = 0;
    }
    n as u64
}

/// Runs the analysis on a function described by the shim. Writes one [`WsResult`] per value to
/// `out_values`, one taint (0 none, 1 warp, 2 divergent) per block to `out_branches`, and to
/// `text` the line `shape <description>` followed by one line per note (or the error). Returns
/// 0 on success, -1 on a malformed description or an internal error.
///
/// # Safety
/// `f` must be a valid description; `out_values` must hold `num_values` results,
/// `out_branches` `num_blocks` entries, `text` `text_cap` bytes.
#[no_mangle]
pub unsafe extern "C" fn warpsmith_llvm_analyze(
    f: *const WsFunction,
    out_values: *mut WsResult,
    out_branches: *mut u32,
    text: *mut c_char,
    text_cap: u64,
) -> i32 {
    let run = || -> Result<String, String> {
        // SAFETY: the shim passes a valid, live description.
        let f = unsafe { f.as_ref() }.ok_or("null function description")?;
        // SAFETY: as above.
        let (desc, opts) = unsafe { to_desc(f) }?;
        let r = analyze(&desc, &opts).map_err(|e| e.to_string())?;
        for (i, v) in r.values.iter().enumerate() {
            if !out_values.is_null() {
                // SAFETY: `out_values` holds `num_values` = `r.values.len()` entries.
                unsafe { *out_values.add(i) = WsResult::from_class(v.class()) };
            }
        }
        for (i, t) in r.branches.iter().enumerate() {
            if !out_branches.is_null() {
                let code = match t {
                    Taint::None => 0,
                    Taint::Warp => 1,
                    Taint::Divergent => 2,
                };
                // SAFETY: `out_branches` holds `num_blocks` = `r.branches.len()` entries.
                unsafe { *out_branches.add(i) = code };
            }
        }
        let mut s = format!("shape {}\n", r.shape.describe());
        for n in &r.notes {
            s.push_str(n);
            s.push('\n');
        }
        Ok(s)
    };
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)) {
        Ok(Ok(s)) => {
            write_c(&s, text, text_cap);
            0
        }
        Ok(Err(e)) => {
            log::warn!("affine-divergence: {e}");
            write_c(&e, text, text_cap);
            -1
        }
        Err(_) => {
            write_c(
                "internal error (panic) in the divergence analysis",
                text,
                text_cap,
            );
            -1
        }
    }
}

/// Formats a class the way the CLI does (`affine coef=1 scope=warp`); returns the length.
///
/// # Safety
/// `r` must be valid; `buf` must hold `cap` bytes.
#[no_mangle]
pub unsafe extern "C" fn warpsmith_format_class(
    r: *const WsResult,
    buf: *mut c_char,
    cap: u64,
) -> u64 {
    // SAFETY: the shim passes a valid result.
    let Some(r) = (unsafe { r.as_ref() }) else {
        return 0;
    };
    write_c(&r.to_class().to_string(), buf, cap)
}

/// The C++ function that fills `PassPluginLibraryInfo`, set by the shim when loaded.
static FILL_INFO: AtomicPtr<c_void> = AtomicPtr::new(std::ptr::null_mut());

/// Called by the shim's static constructor with its `warpsmith_fill_plugin_info`.
#[no_mangle]
pub extern "C" fn warpsmith_register_plugin_info(
    fill: Option<unsafe extern "C" fn(*mut PassPluginLibraryInfo)>,
) {
    if let Some(f) = fill {
        FILL_INFO.store(f as *mut c_void, Ordering::SeqCst);
    }
}

/// Mirror of LLVM 22's `llvm::PassPluginLibraryInfo` (five fields).
#[repr(C)]
#[derive(Debug)]
pub struct PassPluginLibraryInfo {
    /// `LLVM_PLUGIN_API_VERSION` (2 for LLVM 22).
    pub api_version: u32,
    /// Plugin name.
    pub plugin_name: *const c_char,
    /// Plugin version.
    pub plugin_version: *const c_char,
    /// `void (*)(PassBuilder &)`.
    pub register_callbacks: *const c_void,
    /// `bool (*)(Module &, TargetMachine &, CodeGenFileType, raw_pwrite_stream &)`: the shim's
    /// spilling hook (null without the shim).
    pub pre_codegen_callback: *const c_void,
}

/// The plugin entry point LLVM looks up (`PassPlugin::Load`).
#[no_mangle]
pub extern "C" fn llvmGetPassPluginInfo() -> PassPluginLibraryInfo {
    let mut info = PassPluginLibraryInfo {
        api_version: 0,
        plugin_name: c"warpsmith (built without LLVM 22: no passes)".as_ptr(),
        plugin_version: c"0.1.0".as_ptr(),
        register_callbacks: std::ptr::null(),
        pre_codegen_callback: std::ptr::null(),
    };
    let fill = FILL_INFO.load(Ordering::SeqCst);
    if !fill.is_null() {
        // SAFETY: only `warpsmith_register_plugin_info` stores here, with a function of this type.
        let fill: unsafe extern "C" fn(*mut PassPluginLibraryInfo) =
            unsafe { std::mem::transmute(fill) };
        // SAFETY: `info` is a valid, initialised struct of the layout the shim expects.
        unsafe { fill(&mut info) };
    }
    info
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_encoding_round_trips() {
        for c in [
            Class::Undefined,
            Class::Constant(-3),
            Class::Uniform(Scope::Warp),
            Class::Uniform(Scope::Block),
            Class::ConstantAffine { coef: 4, base: 8 },
            Class::Affine {
                coef: 1,
                scope: Scope::Warp,
            },
            Class::Divergent,
        ] {
            assert_eq!(WsResult::from_class(c).to_class(), c);
        }
    }

    #[test]
    fn analyze_through_the_c_abi() {
        // @k(i32 %n): %t = tid.x; %a = add %t, %n; ret
        let values = [
            WsValue {
                kind: 0,
                block: u32::MAX,
                width: 32,
                flags: 32,
                aux: 0,
                first_op: 0,
                num_ops: 0,
            },
            WsValue {
                kind: 22,
                block: 0,
                width: 32,
                flags: 0,
                aux: 0,
                first_op: 0,
                num_ops: 0,
            },
            WsValue {
                kind: 2,
                block: 0,
                width: 32,
                flags: 0,
                aux: 0,
                first_op: 0,
                num_ops: 2,
            },
            WsValue {
                kind: 21,
                block: 0,
                width: 0,
                flags: 0,
                aux: 0,
                first_op: 2,
                num_ops: 0,
            },
        ];
        let ops = [
            WsOperand {
                kind: 0,
                index: 1,
                imm: 0,
            },
            WsOperand {
                kind: 0,
                index: 0,
                imm: 0,
            },
        ];
        let blocks = [WsBlock {
            first_succ: 0,
            num_succs: 0,
            cycle: u32::MAX,
            branch_kind: 0,
            branch_value: u32::MAX,
        }];
        let name = b"k";
        let f = WsFunction {
            name: name.as_ptr() as *const c_char,
            name_len: 1,
            is_kernel: 1,
            has_reqntid: 1,
            reqntid: [128, 1, 1],
            has_block_dim: 0,
            block_dim: [0; 3],
            assume_1d: 0,
            assume_no_wrap: 0,
            values: values.as_ptr(),
            num_values: values.len() as u64,
            operands: ops.as_ptr(),
            num_operands: ops.len() as u64,
            blocks: blocks.as_ptr(),
            num_blocks: 1,
            cycles: std::ptr::null(),
            num_cycles: 0,
            lists: std::ptr::null(),
            num_lists: 0,
        };
        let mut out = [WsResult::default(); 4];
        let mut br = [9u32; 1];
        let mut text = [0 as c_char; 256];
        // SAFETY: every buffer has the documented size.
        let rc = unsafe {
            warpsmith_llvm_analyze(
                &f,
                out.as_mut_ptr(),
                br.as_mut_ptr(),
                text.as_mut_ptr(),
                256,
            )
        };
        assert_eq!(rc, 0);
        assert_eq!(out[0].to_class(), Class::Uniform(Scope::Block));
        assert_eq!(out[2].to_class().to_string(), "affine coef=1 scope=warp");
        assert_eq!(br[0], 0);
        // SAFETY: NUL-terminated by write_c.
        let s = unsafe { std::ffi::CStr::from_ptr(text.as_ptr()) }
            .to_str()
            .unwrap()
            .to_string();
        assert!(s.starts_with("shape 128x1x1"), "{s}");

        // A malformed description is an error, not a crash.
        let bad_ops = [
            WsOperand {
                kind: 0,
                index: 77,
                imm: 0,
            },
            ops[1],
        ];
        let f2 = WsFunction {
            operands: bad_ops.as_ptr(),
            ..f
        };
        // SAFETY: as above.
        let rc = unsafe {
            warpsmith_llvm_analyze(
                &f2,
                out.as_mut_ptr(),
                br.as_mut_ptr(),
                text.as_mut_ptr(),
                256,
            )
        };
        assert_eq!(rc, -1);
        let f3 = WsFunction {
            num_operands: 1,
            ..f
        };
        // SAFETY: as above (the operand range check fails before reading past the end).
        let rc = unsafe {
            warpsmith_llvm_analyze(
                &f3,
                out.as_mut_ptr(),
                br.as_mut_ptr(),
                text.as_mut_ptr(),
                256,
            )
        };
        assert_eq!(rc, -1);
        // SAFETY: null is accepted.
        assert_eq!(
            unsafe {
                warpsmith_llvm_analyze(
                    std::ptr::null(),
                    std::ptr::null_mut(),
                    std::ptr::null_mut(),
                    std::ptr::null_mut(),
                    0,
                )
            },
            -1
        );
    }

    #[test]
    fn entry_point_without_shim_or_with_it() {
        let info = llvmGetPassPluginInfo();
        // In unit tests the shim is not linked: version 0 (LLVM refuses the plugin cleanly) and
        // no callbacks; with the shim, version 2 and both callbacks.
        match info.api_version {
            0 => {
                assert!(info.register_callbacks.is_null());
                assert!(info.pre_codegen_callback.is_null());
            }
            2 => {
                assert!(!info.register_callbacks.is_null());
                assert!(!info.pre_codegen_callback.is_null());
            }
            v => panic!("unexpected plugin API version {v}"),
        }
    }
}
