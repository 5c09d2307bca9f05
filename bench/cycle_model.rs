//! Re-predicts `warpsmith tune`'s variants with the cycle-level model only (the SASS emulator's
//! timing mode), for judging a change of its figures against stored GPU measurements without
//! re-running tune: for each kernel folder of a `bench/tune/table.sh ARCH DIR` run, ptxas alone's
//! cubin runs once on the functional emulator (the launch's global traffic), then every usable
//! variant's cubin runs on the timing mode; the folder gets `report.cycle-model.json` (tune's
//! report with `cycle_us` replaced), which `bench/gpu/rescore.py --report report.cycle-model.json
//! --field cycle_us` scores against a results file.
//!
//!     cargo bench --bench cycle_model -- DIR [ARCH] [NAME=VALUE ...]
//!
//! NAME=VALUE overrides a timing figure (`lat_l2=300`, `l2_bytes=16`, … the fields of
//! `warpsmith::sass::emu::timing::TimingParams`), for trying one before changing
//! src/tune/params.rs. docs/tune.md, "The cycle-level model".

use std::path::Path;

use warpsmith::analysis::occupancy::{arch as arch_limits, occupancy};
use warpsmith::emu::launch::{LaunchSpec, RunOptions};
use warpsmith::never_worse::{launch_resources, DynamicSmem};
use warpsmith::sass::emu::timing::TimingParams;
use warpsmith::sass::emu::{run, SassProgram};
use warpsmith::tune::cycle::{predict_cycles, timing_params};
use warpsmith::tune::model::Shape;
use warpsmith::tune::params::machine;
use warpsmith::tune::profile::{footprint, from_sass};

fn set(p: &mut TimingParams, name: &str, v: f64) -> Result<(), String> {
    let f = match name {
        "fp32_interval" => &mut p.fp32_interval,
        "int_interval" => &mut p.int_interval,
        "fp64_interval" => &mut p.fp64_interval,
        "sfu_interval" => &mut p.sfu_interval,
        "lat_sfu" => &mut p.lat_sfu,
        "lat_fp64" => &mut p.lat_fp64,
        "lat_other" => &mut p.lat_other,
        "lat_smem" => &mut p.lat_smem,
        "lat_l1" => &mut p.lat_l1,
        "lat_l2" => &mut p.lat_l2,
        "lat_dram" => &mut p.lat_dram,
        "smem_wavefronts" => &mut p.smem_wavefronts,
        "l1_sectors" => &mut p.l1_sectors,
        "l2_bytes" => &mut p.l2_bytes,
        "l2_store_bytes" => &mut p.l2_store_bytes,
        "lsu_queue" => &mut p.lsu_queue,
        "dram_bytes" => &mut p.dram_bytes,
        "dram_fraction" => &mut p.dram_fraction,
        "local_store_l2" => &mut p.local_store_l2,
        "cta_launch" => {
            p.cta_launch = v as u64;
            return Ok(());
        }
        "barrier" => {
            p.barrier = v as u64;
            return Ok(());
        }
        _ => return Err(format!("no timing figure `{name}`")),
    };
    *f = v;
    Ok(())
}

fn kernel_dir(dir: &Path, arch: &str, overrides: &[(String, f64)]) -> Result<String, String> {
    let m = machine(arch).ok_or("no machine figures")?;
    let limits = arch_limits(arch).map_err(|e| e.to_string())?;
    let read = |n: &str| std::fs::read(dir.join(n)).map_err(|e| format!("{n}: {e}"));
    let spec_text = String::from_utf8(read("launch.json")?).map_err(|e| e.to_string())?;
    let spec = LaunchSpec::from_json(&spec_text).map_err(|e| e.to_string())?;
    let mut report: serde_json::Value =
        serde_json::from_slice(&read("report.json")?).map_err(|e| e.to_string())?;
    let base = SassProgram::from_cubin(&read("ptxas.cubin")?).map_err(|e| e.to_string())?;
    let r = run(&base, &spec, &RunOptions::default()).map_err(|e| e.to_string())?;
    let mix = from_sass(&r.stats, footprint(&spec));
    let blocks: u64 = spec.grid.iter().map(|&g| u64::from(g)).product();
    let threads: u32 = spec.block.iter().product();
    let share = blocks.div_ceil(u64::from(m.sms)) as f64 / blocks as f64;
    let mut params = timing_params(m, &mix, blocks);
    for (n, v) in overrides {
        set(&mut params, n, *v)?;
    }
    let mut lines = Vec::new();
    let variants = report["variants"].as_array_mut().ok_or("no variants")?;
    for v in variants.iter_mut() {
        let name = v["name"].as_str().unwrap_or_default().to_string();
        if v.get("error").is_some_and(|e| !e.is_null()) {
            continue;
        }
        let Ok(bytes) = read(&format!("{name}.cubin")) else {
            continue;
        };
        let prog = SassProgram::from_cubin(&bytes).map_err(|e| e.to_string())?;
        let regs = v["registers"].as_u64().unwrap_or(255) as u32;
        let smem = v["shared_bytes"].as_u64().unwrap_or(0) as u32;
        let occ = occupancy(
            limits,
            &launch_resources(
                regs,
                threads,
                smem,
                DynamicSmem::Known(spec.dynamic_smem as u32),
            ),
        )
        .map_err(|e| e.to_string())?;
        let shape = Shape {
            blocks,
            warps_per_block: threads.div_ceil(32),
            resident_blocks: occ.blocks_per_sm,
            local_bytes_per_thread: v["local_bytes"].as_u64().unwrap_or(0) as u32,
            smem_per_block: smem + spec.dynamic_smem as u32,
        };
        let (p, t) = predict_cycles(m, &prog, &spec, &mix, &shape, &params)?;
        lines.push(format!(
            "  {name:<22} {:>8.2} us  {:>7} cycles  {:>8} insts ({:>8.0} expected)  {}",
            p.us,
            t.cycles,
            t.warp_insts,
            share * mix.warp_insts,
            t.summary()
        ));
        v["cycle_us"] = serde_json::json!(p.us);
    }
    let text = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("report.cycle-model.json"), text).map_err(|e| e.to_string())?;
    Ok(lines.join("\n"))
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let Some(dir) = args.first() else {
        eprintln!("usage: cycle_model DIR [ARCH] [NAME=VALUE ...]");
        std::process::exit(2);
    };
    let arch = args
        .get(1)
        .filter(|a| a.starts_with("sm_"))
        .cloned()
        .unwrap_or_else(|| "sm_90".into());
    let overrides: Vec<(String, f64)> = args
        .iter()
        .filter_map(|a| a.split_once('='))
        .filter_map(|(n, v)| Some((n.to_string(), v.parse().ok()?)))
        .collect();
    let mut dirs: Vec<_> = std::fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    dirs.sort();
    for d in dirs.iter().filter(|d| d.join("report.json").is_file()) {
        let name = d.file_name().map(|n| n.to_string_lossy().to_string());
        match kernel_dir(d, &arch, &overrides) {
            Ok(text) => println!("{}\n{text}", name.unwrap_or_default()),
            Err(e) => println!("{}: {e}", name.unwrap_or_default()),
        }
    }
}
