//! The register model's expansion needs (`regmodel::expansion_need`) against ptxas: for every
//! instruction ptxas expands (IEEE division, square root and reciprocal, integer division and
//! remainder) and a plain move as the control, a kernel that loads one value, applies the
//! instruction to it and a parameter, and keeps 0, 4 or 8 loaded values and a 64-bit address live
//! across it. The model must land within ±10 % (issue 12's target) or 2 registers, whichever is
//! larger, of `ptxas -v` on sm_80 and sm_90 (measured 27 Nov with ptxas 12.9: at most 2 off, except
//! `div.rn.f64` with 8 values live on sm_80, 33 against 30: ptxas moves loads past it). Skipped (and
//! said so) without ptxas.

mod common;

use warpsmith::analysis::{occupancy, regmodel};
use warpsmith::ptx::parse_module;
use warpsmith::tools;

/// (instruction, operand type): `%x` the loaded value, `%p` the parameter, `%y` the result.
const INSTRUCTIONS: &[(&str, &str)] = &[
    ("mov.f32 %y, %x;", "f32"),
    ("div.rn.f32 %y, %x, %p;", "f32"),
    ("div.rn.ftz.f32 %y, %x, %p;", "f32"),
    ("div.full.f32 %y, %x, %p;", "f32"),
    ("rcp.rn.f32 %y, %x;", "f32"),
    ("sqrt.rn.f32 %y, %x;", "f32"),
    ("sqrt.approx.f32 %y, %x;", "f32"),
    ("div.rn.f64 %y, %x, %p;", "f64"),
    ("rcp.rn.f64 %y, %x;", "f64"),
    ("sqrt.rn.f64 %y, %x;", "f64"),
    ("div.s32 %y, %x, %p;", "s32"),
    ("rem.s32 %y, %x, %p;", "s32"),
    ("div.u32 %y, %x, %p;", "u32"),
    ("rem.u32 %y, %x, %p;", "u32"),
    ("div.s64 %y, %x, %p;", "s64"),
    ("rem.u64 %y, %x, %p;", "u64"),
];

/// The kernel: `live` loaded floats stay live across `inst`, summed and stored after it.
fn kernel(arch: &str, inst: &str, ty: &str, live: usize) -> String {
    let width = if ty.ends_with("64") { 8 } else { 4 };
    let loads: String = (0..live)
        .map(|j| format!("ld.global.f32 %l{j}, [%a+{}];\n", 1024 + 4 * j))
        .collect();
    let sums: String = (0..live)
        .map(|j| format!("add.f32 %acc, %acc, %l{j};\n"))
        .collect();
    format!(
        ".version 8.0\n.target {arch}\n.address_size 64\n\
         .visible .entry k(.param .u64 pa, .param .{ty} pp)\n{{\n\
         .reg .{ty} %x, %y, %p;\n.reg .f32 %l<{n}>, %acc;\n.reg .u32 %t;\n.reg .u64 %a, %o;\n\
         ld.param.u64 %a, [pa];\nld.param.{ty} %p, [pp];\ncvta.to.global.u64 %a, %a;\n\
         mov.u32 %t, %tid.x;\nmul.wide.u32 %o, %t, {width};\nadd.s64 %a, %a, %o;\n\
         ld.global.{ty} %x, [%a];\n{loads}{inst}\nst.global.{ty} [%a], %y;\n\
         mov.f32 %acc, 0f00000000;\n{sums}st.global.f32 [%a+4096], %acc;\nret;\n}}\n",
        n = live.max(1),
    )
}

#[test]
fn expansion_needs_match_ptxas() {
    if !common::ptxas_available("expansion_needs_match_ptxas") {
        return;
    }
    let mut failures = Vec::new();
    for arch in ["sm_80", "sm_90"] {
        let limits = occupancy::arch(arch).expect("known architecture");
        for &(inst, ty) in INSTRUCTIONS {
            for live in [0, 4, 8] {
                let text = kernel(arch, inst, ty, live);
                let module = parse_module(&text, "k.ptx").expect("the test kernel parses");
                let f = module.functions().next().expect("one kernel");
                let model = regmodel::model(&module, f, limits).expect("the model runs");
                let figures = tools::ptxas_verbose_source(&text, arch, &[]).expect("ptxas runs");
                let ptxas = figures[0].registers;
                let line = format!(
                    "{arch} {inst:<28} live {live}: ptxas {ptxas}, model {} (expansion {})",
                    model.estimate, model.expansion
                );
                eprintln!("{line}");
                let allowed = (ptxas / 10).max(2);
                if model.estimate.abs_diff(ptxas) > allowed {
                    failures.push(line);
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "model more than 10 % or 2 registers from ptxas:\n{}",
        failures.join("\n")
    );
}
