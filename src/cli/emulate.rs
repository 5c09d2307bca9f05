//! `warpsmith emulate`: runs a kernel of a PTX file (PTX emulator) or of a cubin (SASS emulator)
//! with a JSON launch spec and writes every buffer argument (and module `.global` variable) after
//! the run; for cubins also the run's statistics.

use std::path::Path;
use std::process::ExitCode;

use warpsmith::emu::{self, LaunchSpec, RunOptions};
use warpsmith::fsutil::write_atomic;

/// Prints a line to standard output; a closed pipe is not an error worth a panic.
macro_rules! say {
    ($($t:tt)*) => {{
        use std::io::Write;
        let _ = writeln!(std::io::stdout().lock(), $($t)*);
    }};
}

use super::{load_ptx, CliError};

/// Reads and parses a launch spec file.
pub fn load_spec(path: &Path) -> Result<LaunchSpec, CliError> {
    let text = crate::read_input(path)?;
    LaunchSpec::from_json(&text).map_err(|e| CliError::Emu(format!("{}: {e}", path.display())))
}

/// True when `path` holds a cubin (ELF magic).
pub fn is_cubin(path: &Path) -> bool {
    use std::io::Read;
    let mut magic = [0u8; 4];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut magic))
        .is_ok()
        && &magic == b"\x7fELF"
}

fn write_buffers(dir: &Path, buffers: &[emu::launch::OutBuffer]) -> Result<(), CliError> {
    std::fs::create_dir_all(dir).map_err(|e| CliError::Write {
        path: dir.to_path_buf(),
        source: e,
    })?;
    for b in buffers {
        let file = match b.arg {
            Some(_) => format!("{}.bin", b.name),
            None => format!("var_{}.bin", b.name),
        };
        let p = dir.join(file);
        write_atomic(&p, &b.data).map_err(|e| CliError::Write { path: p, source: e })?;
    }
    Ok(())
}

/// Runs a cubin kernel on the SASS emulator.
fn run_cubin(
    input: &Path,
    launch: &Path,
    out: Option<&Path>,
    stats: Option<&Path>,
    timing: bool,
) -> Result<ExitCode, CliError> {
    use warpsmith::sass::emu::{self as semu, SassProgram};
    let bytes =
        std::fs::read(input).map_err(|e| CliError::Emu(format!("{}: {e}", input.display())))?;
    let prog = SassProgram::from_cubin(&bytes)
        .map_err(|e| CliError::Emu(format!("{}: {e}", input.display())))?;
    let spec = load_spec(launch)?;
    let opts = RunOptions {
        file: input.display().to_string(),
        ..RunOptions::default()
    };
    let result = semu::run(&prog, &spec, &opts).map_err(|e| CliError::Emu(e.to_string()))?;
    if let Some(dir) = out {
        write_buffers(dir, &result.buffers)?;
    }
    let secs = result.elapsed.as_secs_f64();
    let s = &result.stats;
    let rate = if secs > 0.0 {
        s.lane_insts as f64 / secs / 1e6
    } else {
        0.0
    };
    say!(
        "kernel {} (sm_{}): grid {:?} block {:?}: {} warp-instructions, {} lane-instructions, {:.3} ms ({:.1} M lane-instr/s)",
        spec.kernel,
        prog.sm,
        spec.grid,
        spec.block,
        s.warp_insts,
        s.lane_insts,
        secs * 1e3,
        rate
    );
    let classes: Vec<String> = s
        .classes()
        .iter()
        .map(|(k, n)| format!("{k} {n}"))
        .collect();
    say!("  warp-instructions by class: {}", classes.join(", "));
    for (name, m) in [
        ("global", &s.global),
        ("shared", &s.shared),
        ("local", &s.local),
        ("generic", &s.generic),
    ] {
        if m.requests > 0 {
            say!(
                "  {name}: {} requests, {} accesses, {} bytes, {} {}{}",
                m.requests,
                m.accesses,
                m.bytes,
                m.transactions,
                if name == "shared" {
                    "wavefronts"
                } else {
                    "sectors"
                },
                if name == "shared" {
                    format!(", {} bank conflicts", m.bank_conflicts)
                } else {
                    String::new()
                }
            );
        }
    }
    for b in &result.buffers {
        say!(
            "  {}: {} bytes{}",
            b.name,
            b.data.len(),
            if out.is_some() { " written" } else { "" }
        );
    }
    let timed = if timing {
        Some(timed_run(&bytes, &prog, &spec, s)?)
    } else {
        None
    };
    if let Some(p) = stats {
        let mut j = serde_json::json!({
            "kernel": spec.kernel,
            "sm": prog.sm,
        });
        if let (Some(o), serde_json::Value::Object(m)) = (j.as_object_mut(), s.to_json()) {
            o.extend(m);
        }
        if let (Some(o), Some(t)) = (j.as_object_mut(), timed) {
            o.insert("timing".into(), t);
        }
        let mut text = serde_json::to_string_pretty(&j).unwrap_or_default();
        text.push('\n');
        super::emit(Some(p), &text)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The launch on the timing mode (the busiest SM's CTAs at the cubin's occupancy, the tune
/// model's figures for its architecture): prints the prediction, returns it for `--stats`.
fn timed_run(
    bytes: &[u8],
    prog: &warpsmith::sass::emu::SassProgram,
    spec: &LaunchSpec,
    stats: &warpsmith::sass::emu::SassStats,
) -> Result<serde_json::Value, CliError> {
    use warpsmith::tune::cubin_time::cubin_launch;
    use warpsmith::tune::cycle::{predict_cycles, timing_params};
    use warpsmith::tune::profile::{footprint, from_sass};
    let fail = |what: String| CliError::Emu(format!("--timing: {what}"));
    let cubin =
        warpsmith::sass::elf::Cubin::parse(bytes).map_err(|e| fail(format!("cubin: {e}")))?;
    let (m, shape) = cubin_launch(&cubin, &spec.kernel, spec).map_err(fail)?;
    let mix = from_sass(stats, footprint(spec));
    let params = timing_params(m, &mix, shape.blocks);
    let (p, t) = predict_cycles(m, prog, spec, &mix, &shape, &params).map_err(fail)?;
    say!(
        "  timing mode ({} figures): busiest SM runs {} CTAs, {} resident: {} cycles = {:.2} us \
         predicted (a model, not a measurement)",
        m.part,
        t.ctas,
        shape.resident_blocks,
        t.cycles,
        p.us
    );
    say!("    {}", t.summary());
    Ok(serde_json::json!({
        "machine": m.part,
        "resident_ctas": shape.resident_blocks,
        "predicted_us": p.us,
        "run": t,
    }))
}

/// Runs the command: `DIR/arg<N>.bin` per buffer argument, `DIR/<name>.bin` per module variable.
pub fn run(
    input: &Path,
    launch: &Path,
    out: Option<&Path>,
    stats: Option<&Path>,
    timing: bool,
) -> Result<ExitCode, CliError> {
    if is_cubin(input) {
        return run_cubin(input, launch, out, stats, timing);
    }
    if stats.is_some() || timing {
        return Err(CliError::Emu(
            "--stats and --timing are available for cubins (the SASS emulator)".into(),
        ));
    }
    let module = load_ptx(input)?;
    let spec = load_spec(launch)?;
    let opts = RunOptions {
        file: input.display().to_string(),
        ..RunOptions::default()
    };
    let result = emu::run(&module, &spec, &opts).map_err(|e| CliError::Emu(e.to_string()))?;
    if let Some(dir) = out {
        write_buffers(dir, &result.buffers)?;
    }
    let secs = result.elapsed.as_secs_f64();
    let rate = if secs > 0.0 {
        result.stats.lane_insts as f64 / secs / 1e6
    } else {
        0.0
    };
    say!(
        "kernel {}: grid {:?} block {:?}: {} warp-instructions, {} lane-instructions, {:.3} ms ({:.1} M lane-instr/s)",
        spec.kernel,
        spec.grid,
        spec.block,
        result.stats.warp_insts,
        result.stats.lane_insts,
        secs * 1e3,
        rate
    );
    for b in &result.buffers {
        say!(
            "  {}: {} bytes{}",
            b.name,
            b.data.len(),
            if out.is_some() { " written" } else { "" }
        );
    }
    Ok(ExitCode::SUCCESS)
}
