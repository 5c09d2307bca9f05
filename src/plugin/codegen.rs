//! The plugin's code-generation hook, Rust side: shared-memory spilling of the PTX that LLVM 22's
//! NVPTX back end emits, called from the `PreCodeGenCallback` of `src/plugin/shim.cpp` when
//! `llc --load-pass-plugin=libwarpsmith.so` or `clang -fpass-plugin=libwarpsmith.so` compiles an
//! NVPTX module to assembly.
//!
//! The shim generates the PTX with the module's own `TargetMachine` into a buffer and hands it
//! here; [`warpsmith_codegen_spill`] parses it, runs [`crate::spill::spill_module`] (RegDem §3,
//! Sampaio et al. §3; see `docs/spill.md`) and prints the result. Options come from
//! [`crate::spill::env`] (the same `WARPSMITH_SPILL_*` variables as the `warpsmith ptxas`
//! wrapper); the plugin's `-warpsmith-spill=N|auto|keep|off` option, when given, takes the place of
//! `WARPSMITH_SPILL_MAX_REGS`.
//!
//! Any failure (bad option, PTX the parser does not accept, a kernel the pass refuses, a panic) is
//! returned as a message: the shim warns and writes the PTX LLVM produced, so an optimisation never
//! breaks a build.
//!
//! Memory across the FFI: every buffer handed to C++ is allocated here ([`WsBuffer`]) and released
//! by [`warpsmith_buffer_free`]; nothing allocated in C++ is freed here. No panic unwinds into C++.

use std::ffi::c_char;

use crate::ptx::{parse_module, print_module};
use crate::spill::env::spill_options_with;
use crate::spill::{spill_module, SpillOptions, SpillReport};

/// The variable that requests spilling (and gives the register target) when the plugin option is
/// absent.
pub const MAX_REGS_VAR: &str = "WARPSMITH_SPILL_MAX_REGS";

/// A byte buffer allocated by Rust and owned by the caller until [`warpsmith_buffer_free`].
#[repr(C)]
#[derive(Debug)]
pub struct WsBuffer {
    /// The bytes (null when empty).
    pub ptr: *mut u8,
    /// Their number.
    pub len: u64,
}

impl WsBuffer {
    /// An empty buffer (nothing to free).
    pub const EMPTY: WsBuffer = WsBuffer {
        ptr: std::ptr::null_mut(),
        len: 0,
    };

    fn from_string(s: String) -> WsBuffer {
        if s.is_empty() {
            return WsBuffer::EMPTY;
        }
        let b: Box<[u8]> = s.into_bytes().into_boxed_slice();
        let len = b.len() as u64;
        WsBuffer {
            ptr: Box::into_raw(b) as *mut u8,
            len,
        }
    }
}

/// What the hook was asked for: `None` when spilling is not requested (the hook does nothing).
///
/// `option` is the plugin's `-warpsmith-spill` value (empty when not given): `off` (or `0`,
/// `none`) turns the hook off even when the variable is set; any other value requests spilling
/// with that target. Without it, [`MAX_REGS_VAR`] set to a non-empty value requests spilling.
pub fn requested(option: &str, get: &impl Fn(&str) -> Option<String>) -> Option<String> {
    let option = option.trim();
    if !option.is_empty() {
        return match option {
            "off" | "0" | "none" => None,
            v => Some(v.to_string()),
        };
    }
    get(MAX_REGS_VAR)
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
}

/// The spilling options: the environment, with the register target from the plugin option when
/// given. `arch` is the target machine's CPU (`sm_80`).
pub fn options(
    option: &str,
    arch: &str,
    get: &impl Fn(&str) -> Option<String>,
) -> Result<SpillOptions, String> {
    let target = requested(option, get).ok_or("spilling was not requested")?;
    let from_option = !option.trim().is_empty();
    spill_options_with(
        |var| {
            if var == MAX_REGS_VAR {
                Some(target.clone())
            } else {
                get(var)
            }
        },
        arch,
    )
    .map_err(|e| {
        if from_option && e.var == MAX_REGS_VAR {
            format!(
                "-warpsmith-spill={}: expected `keep`, `auto`, `off` or a register count in 16..=255",
                e.value
            )
        } else {
            e.to_string()
        }
    })
}

/// One line per kernel, like `warpsmith spill`'s summary.
pub fn summary(r: &SpillReport) -> String {
    let mut s = String::new();
    for k in &r.kernels {
        if !k.kept {
            s.push_str(&format!(
                "warpsmith: {}: left as it was: {}\n",
                k.name, k.verdict
            ));
            continue;
        }
        let ptxas = match (k.ptxas_registers, k.ptxas_local_bytes) {
            (Some(regs), Some(0)) => format!("ptxas: {regs} registers, no local memory"),
            (Some(regs), Some(b)) => {
                format!("ptxas: {regs} registers, still {b} bytes of local memory")
            }
            _ => "ptxas: not checked".to_string(),
        };
        s.push_str(&format!(
            "warpsmith: {}: .maxnreg {} (block {}), {} demoted, +{} B shared memory, occupancy {:.0}% -> {:.0}%, {ptxas}\n",
            k.name,
            k.max_regs,
            k.block_size,
            k.demoted.len(),
            k.smem_bytes,
            k.occupancy_before * 100.0,
            k.occupancy_after * 100.0,
        ));
        for n in &k.not_demoted {
            s.push_str(&format!("warpsmith: {}: not demoted: {n}\n", k.name));
        }
        for c in &k.choices {
            s.push_str(&format!("warpsmith: {}: chose: {c}\n", k.name));
        }
        for n in &k.notes {
            s.push_str(&format!("warpsmith: {}: partial: {n}\n", k.name));
        }
    }
    s
}

/// Parses `ptx`, spills, prints: the spilled PTX and the summary, or why it was skipped (`ptx`
/// itself when the pass kept no kernel's rewrite). `arch` is the target machine's CPU; when
/// empty, the PTX's `.target`.
pub fn spill_ptx(
    ptx: &str,
    arch: &str,
    option: &str,
    get: &impl Fn(&str) -> Option<String>,
) -> Result<(String, String), String> {
    let mut module = parse_module(ptx, "<llvm codegen>")
        .map_err(|e| format!("the PTX from LLVM does not parse: {e}"))?;
    // llc without -mcpu leaves the target machine's CPU empty; the PTX's `.target` then says
    // which architecture the functions were compiled for.
    let arch = match arch.trim() {
        "" => module
            .target
            .iter()
            .find(|t| t.starts_with("sm_"))
            .map(|t| t.to_string())
            .unwrap_or_default(),
        a => a.to_string(),
    };
    let opts = options(option, &arch, get)?;
    let report = spill_module(&mut module, &opts).map_err(|e| e.to_string())?;
    // Every kernel left as it was (the never-worse rule): LLVM's own text, byte for byte.
    if report.kernels.iter().all(|k| !k.kept) {
        return Ok((ptx.to_string(), summary(&report)));
    }
    Ok((print_module(&module), summary(&report)))
}

/// Builds a `&str` from a C pointer and length (empty when null); `None` when not UTF-8.
///
/// # Safety
/// `p` must point to `n` readable bytes when non-null.
unsafe fn str_arg<'a>(p: *const c_char, n: u64) -> Option<&'a str> {
    if p.is_null() || n == 0 {
        return Some("");
    }
    // SAFETY: the caller guarantees `p` points to `n` bytes.
    let bytes = unsafe { std::slice::from_raw_parts(p as *const u8, n as usize) };
    std::str::from_utf8(bytes).ok()
}

fn env_var(v: &str) -> Option<String> {
    std::env::var(v).ok()
}

/// Whether the hook should act: 1 when spilling is requested by the option (`option`, `option_len`
/// bytes, empty when not given) or by `WARPSMITH_SPILL_MAX_REGS`, 0 otherwise.
///
/// # Safety
/// `option` must point to `option_len` readable bytes when non-null.
#[no_mangle]
pub unsafe extern "C" fn warpsmith_codegen_spill_requested(
    option: *const c_char,
    option_len: u64,
) -> i32 {
    let run = || {
        // SAFETY: forwarded from the caller.
        let option = unsafe { str_arg(option, option_len) }.unwrap_or("");
        i32::from(requested(option, &env_var).is_some())
    };
    std::panic::catch_unwind(run).unwrap_or(0)
}

/// Spills the PTX `ptx` (`ptx_len` bytes) generated for `arch` (`sm_80`). Returns 0 with the
/// spilled PTX in `*out` and the per-kernel summary in `*msg`, or 1 with `*out` empty and the
/// reason in `*msg` (the caller then writes the original PTX). Both buffers must be released with
/// [`warpsmith_buffer_free`].
///
/// # Safety
/// The input pointers must point to their lengths of readable bytes when non-null; `out` and
/// `msg` must be valid for writes.
#[no_mangle]
pub unsafe extern "C" fn warpsmith_codegen_spill(
    ptx: *const c_char,
    ptx_len: u64,
    arch: *const c_char,
    arch_len: u64,
    option: *const c_char,
    option_len: u64,
    out: *mut WsBuffer,
    msg: *mut WsBuffer,
) -> i32 {
    if out.is_null() || msg.is_null() {
        return 1;
    }
    let run = || -> Result<(String, String), String> {
        // SAFETY: forwarded from the caller.
        let (ptx, arch, option) = unsafe {
            (
                str_arg(ptx, ptx_len).ok_or("the PTX from LLVM is not UTF-8")?,
                str_arg(arch, arch_len).ok_or("the target CPU is not UTF-8")?,
                str_arg(option, option_len).ok_or("-warpsmith-spill is not UTF-8")?,
            )
        };
        spill_ptx(ptx, arch, option, &env_var)
    };
    let (rc, o, m) = match std::panic::catch_unwind(run) {
        Ok(Ok((text, summary))) => (0, text, summary),
        Ok(Err(why)) => (1, String::new(), why),
        Err(_) => (
            1,
            String::new(),
            "internal error (panic) in the spilling pass".to_string(),
        ),
    };
    // SAFETY: checked non-null above; the caller provides writable structs.
    unsafe {
        *out = WsBuffer::from_string(o);
        *msg = WsBuffer::from_string(m);
    }
    rc
}

/// Releases a buffer returned by [`warpsmith_codegen_spill`] and empties it (null and already
/// empty buffers are accepted).
///
/// # Safety
/// `b` must be null or a buffer filled by this module and not yet released.
#[no_mangle]
pub unsafe extern "C" fn warpsmith_buffer_free(b: *mut WsBuffer) {
    // SAFETY: the caller passes null or a valid buffer.
    let Some(b) = (unsafe { b.as_mut() }) else {
        return;
    };
    if !b.ptr.is_null() {
        let slice = std::ptr::slice_from_raw_parts_mut(b.ptr, b.len as usize);
        // SAFETY: `ptr`/`len` come from `Box::into_raw` of a boxed slice in `from_string`.
        drop(unsafe { Box::from_raw(slice) });
    }
    *b = WsBuffer::EMPTY;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emu::equiv;
    use crate::emu::launch::{spec_for, Hints};

    fn vars(list: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let list: Vec<(String, String)> = list
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        move |k| list.iter().find(|(a, _)| a == k).map(|(_, b)| b.clone())
    }

    const CHAIN: &str = r#"
.version 8.0
.target sm_80
.address_size 64

.visible .entry chain(.param .u64 a, .param .u64 b)
.reqntid 64, 1, 1
{
    .reg .b32 %r<40>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [a];
    ld.param.u64 %rd2, [b];
    cvta.to.global.u64 %rd3, %rd1;
    cvta.to.global.u64 %rd4, %rd2;
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd5, %r1, 4;
    add.s64 %rd6, %rd3, %rd5;
    ld.global.u32 %r2, [%rd6];
    add.s32 %r3, %r2, 1;
    add.s32 %r4, %r2, 2;
    add.s32 %r5, %r2, 3;
    add.s32 %r6, %r2, 4;
    add.s32 %r7, %r2, 5;
    add.s32 %r8, %r2, 6;
    add.s32 %r9, %r2, 7;
    add.s32 %r10, %r2, 8;
    add.s32 %r11, %r2, 9;
    add.s32 %r12, %r2, 10;
    add.s32 %r13, %r2, 11;
    add.s32 %r14, %r2, 12;
    add.s32 %r15, %r2, 13;
    add.s32 %r16, %r2, 14;
    add.s32 %r17, %r2, 15;
    add.s32 %r18, %r2, 16;
    add.s32 %r19, %r2, 17;
    add.s32 %r20, %r2, 18;
    mul.lo.s32 %r21, %r3, %r4;
    mul.lo.s32 %r22, %r21, %r5;
    mul.lo.s32 %r23, %r22, %r6;
    mul.lo.s32 %r24, %r23, %r7;
    mul.lo.s32 %r25, %r24, %r8;
    mul.lo.s32 %r26, %r25, %r9;
    mul.lo.s32 %r27, %r26, %r10;
    mul.lo.s32 %r28, %r27, %r11;
    mul.lo.s32 %r29, %r28, %r12;
    mul.lo.s32 %r30, %r29, %r13;
    mul.lo.s32 %r31, %r30, %r14;
    mul.lo.s32 %r32, %r31, %r15;
    mul.lo.s32 %r33, %r32, %r16;
    mul.lo.s32 %r34, %r33, %r17;
    mul.lo.s32 %r35, %r34, %r18;
    mul.lo.s32 %r36, %r35, %r19;
    mul.lo.s32 %r37, %r36, %r20;
    add.s64 %rd7, %rd4, %rd5;
    st.global.u32 [%rd7], %r37;
    ret;
}
"#;

    #[test]
    fn request_comes_from_option_or_variable() {
        let none = vars(&[]);
        assert_eq!(requested("", &none), None);
        assert_eq!(requested("64", &none).as_deref(), Some("64"));
        assert_eq!(requested("auto", &none).as_deref(), Some("auto"));
        let set = vars(&[(MAX_REGS_VAR, " 48 ")]);
        assert_eq!(requested("", &set).as_deref(), Some("48"));
        // The option wins, and `off` turns the hook off even with the variable set.
        assert_eq!(requested("32", &set).as_deref(), Some("32"));
        assert_eq!(requested("off", &set), None);
        assert_eq!(requested("", &vars(&[(MAX_REGS_VAR, "")])), None);
    }

    #[test]
    fn option_replaces_the_variable_and_errors_name_their_source() {
        let env = vars(&[(MAX_REGS_VAR, "48"), ("WARPSMITH_SPILL_BLOCK_SIZE", "128")]);
        let o = options("32", "sm_80", &env).unwrap();
        assert_eq!(o.target, crate::spill::Target::MaxRegs(32));
        assert_eq!(o.block_size, Some(128));
        assert_eq!(o.arch, "sm_80");
        let e = options("lots", "sm_80", &env).unwrap_err();
        assert!(e.contains("-warpsmith-spill=lots"), "{e}");
        let e = options("", "sm_80", &vars(&[(MAX_REGS_VAR, "lots")])).unwrap_err();
        assert!(e.contains("WARPSMITH_SPILL_MAX_REGS"), "{e}");
        assert!(options("", "sm_80", &vars(&[])).is_err());
    }

    #[test]
    fn spills_parsed_ptx_and_reports_failures() {
        let env = vars(&[("WARPSMITH_SPILL_PTXAS_CHECK", "0")]);
        let (text, summary) = spill_ptx(CHAIN, "sm_80", "16", &env).unwrap();
        assert!(text.contains(".maxnreg 16"), "{text}");
        assert!(text.contains(".shared"), "{text}");
        assert!(
            summary.starts_with("warpsmith: chain: .maxnreg 16 (block 64)"),
            "{summary}"
        );
        // The rewritten PTX computes what the original does.
        let original = parse_module(CHAIN, "a.ptx").unwrap();
        let spilled = parse_module(&text, "b.ptx").unwrap();
        let spec = spec_for(
            original.function("chain").unwrap(),
            &Hints::new().block(&[64, 1, 1]).grid(&[2, 1, 1]).len(128),
        )
        .unwrap();
        let r = equiv::check(&original, &spilled, &spec, 3).unwrap();
        assert!(r.is_equal(), "{:?}\n{text}", r.verdict);

        // Never worse: with ptxas to measure, a cap the kernel already meets improves nothing, so
        // the hook hands back LLVM's text byte for byte.
        if crate::tools::find(crate::tools::Tool::Ptxas).is_ok() {
            let (same, summary) = spill_ptx(CHAIN, "sm_80", "255", &vars(&[])).unwrap();
            assert_eq!(same, CHAIN, "{summary}");
            assert!(summary.contains("left as it was"), "{summary}");
        } else {
            eprintln!("SKIPPED (never-worse part): ptxas not found");
        }
        let e = spill_ptx("garbage", "sm_80", "16", &env).unwrap_err();
        assert!(e.contains("does not parse"), "{e}");
        let env2 = vars(&[
            ("WARPSMITH_SPILL_PTXAS_CHECK", "0"),
            ("WARPSMITH_SPILL_KERNEL", "missing"),
        ]);
        let e = spill_ptx(CHAIN, "sm_80", "16", &env2).unwrap_err();
        assert!(e.contains("no kernel named `missing`"), "{e}");
    }

    #[test]
    fn ffi_round_trip_and_free() {
        let mut out = WsBuffer::EMPTY;
        let mut msg = WsBuffer::EMPTY;
        let bad = "not ptx";
        // SAFETY: valid pointers and lengths; buffers are writable.
        let rc = unsafe {
            warpsmith_codegen_spill(
                bad.as_ptr() as *const c_char,
                bad.len() as u64,
                "sm_80".as_ptr() as *const c_char,
                5,
                "16".as_ptr() as *const c_char,
                2,
                &mut out,
                &mut msg,
            )
        };
        assert_eq!(rc, 1);
        assert!(out.ptr.is_null());
        // SAFETY: filled by warpsmith_codegen_spill with `len` bytes.
        let m = unsafe { std::slice::from_raw_parts(msg.ptr, msg.len as usize) };
        assert!(std::str::from_utf8(m).unwrap().contains("does not parse"));
        // SAFETY: buffers from warpsmith_codegen_spill; null is accepted.
        unsafe {
            warpsmith_buffer_free(&mut out);
            warpsmith_buffer_free(&mut msg);
            warpsmith_buffer_free(std::ptr::null_mut());
        }
        assert!(msg.ptr.is_null() && msg.len == 0);
        // SAFETY: null outputs are refused, not written.
        let rc = unsafe {
            warpsmith_codegen_spill(
                std::ptr::null(),
                0,
                std::ptr::null(),
                0,
                std::ptr::null(),
                0,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            )
        };
        assert_eq!(rc, 1);
        // SAFETY: "off" is 3 readable bytes.
        assert_eq!(
            unsafe { warpsmith_codegen_spill_requested("off".as_ptr() as *const c_char, 3) },
            0
        );
        // SAFETY: "64" is 2 readable bytes.
        assert_eq!(
            unsafe { warpsmith_codegen_spill_requested("64".as_ptr() as *const c_char, 2) },
            1
        );
    }
}
