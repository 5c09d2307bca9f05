//! The bench kernels compiled by NVIDIA's own front end, NVRTC (the compiler inside nvcc;
//! scripts/compile-kernels-nvrtc.py), as inputs the passes were not written against: NVVM's
//! typed registers, `mul.wide` + `add.s64` addressing on `cvta.to.global` pointers, its loop
//! unrolling and `ld.global.nc` choices. Every file must round-trip through the IR with identical
//! `ptxas -v` figures; on sm_80 every kernel goes through spill (`--occupancy auto`, and a forced
//! `.maxnreg 24` rewrite) and shuffle synthesis (every proved replacement), and each rewrite must
//! be accepted by ptxas and compute the same bytes as the original on the emulator; ptxas's
//! cubin of each kernel goes through `demote --occupancy auto`, each demoted kernel proved on the
//! SASS emulator. Skipped, with the reason, when libnvrtc is not installed (scripts/setup.sh
//! installs it).

mod common;

use warpsmith::emu::equiv;
use warpsmith::emu::launch::{spec_for, ElemType, InitSpec, LaunchSpec};
use warpsmith::ptx::{parse_module, print_module, FuncKind, Module};
use warpsmith::sass::demote::{demote, DemoteError, DemoteOptions, RegisterTarget};
use warpsmith::shuffle::{shuffle_module, ShuffleOptions};
use warpsmith::spill::{spill_module, SpillOptions, Target};
use warpsmith::tools::{self, Tool};

#[test]
fn nvrtc_kernels_round_trip() {
    let Some(dir) = common::nvrtc_kernels_dir("nvrtc_kernels_round_trip") else {
        return;
    };
    let use_ptxas = common::ptxas_available("nvrtc_kernels_round_trip");
    let files = common::files_with_ext(dir, "ptx");
    let sources = common::files_with_ext(&common::repo_root().join("bench/kernels"), "cu").len();
    assert_eq!(files.len(), sources * 2, "one PTX per source and arch");
    let outcomes = common::parallel_map(&files, |f| common::round_trip(f, use_ptxas));
    let mut failures = Vec::new();
    for (f, o) in files.iter().zip(&outcomes) {
        match o {
            common::Outcome::RoundTrip { ptxas: Ok(_) } => {}
            common::Outcome::RoundTrip { ptxas: Err(why) } if use_ptxas => {
                failures.push(format!("{}: not compared under ptxas: {why}", f.display()))
            }
            common::Outcome::RoundTrip { .. } => {}
            common::Outcome::Rejected(msg) | common::Outcome::Failed(msg) => {
                failures.push(format!("{}: {msg}", f.display()))
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A launch of two 64-thread blocks on buffers of 16 Ki random elements, 8 for every scalar
/// (the CSR kernels' row pointers and column indices count up instead).
fn launch(m: &Module, kernel: &str) -> Option<LaunchSpec> {
    let f = m.function(kernel)?;
    let mut h = common::generic_hints(f, &[2], &[64], "random");
    if kernel.starts_with("spmv_csr") {
        // Row pointers and column indices that index inside their buffers: one entry per row.
        for i in [0, 1] {
            h = h
                .ty(i, ElemType::S32)
                .init(i, InitSpec::Named("iota".into()));
        }
    }
    let mut spec = spec_for(f, &h).ok()?;
    spec.max_instructions = Some(20_000_000);
    Some(spec)
}

/// What checking one rewrite found.
enum Verdict {
    Equal,
    /// The emulator could not run the original on the generic launch (data-dependent indices).
    /// A rewrite that is not run is listed, never counted as equal.
    NotRun(String),
    Wrong(String),
}

/// ptxas accepts `m` and it computes `orig`'s bytes on `spec`.
fn check_rewrite(orig: &Module, m: &Module, spec: &LaunchSpec) -> Verdict {
    let text = print_module(m);
    match tools::ptxas_accepts_source(&text, "sm_80") {
        Ok(()) | Err(tools::ToolError::NotFound { .. }) => {}
        Err(e) => return Verdict::Wrong(format!("ptxas rejects the rewrite: {e}")),
    }
    let back = parse_module(&text, "rewritten.ptx").expect("printed PTX parses");
    match equiv::check(orig, &back, spec, 2) {
        Ok(eq) if eq.is_equal() => Verdict::Equal,
        Ok(eq) => Verdict::Wrong(format!("{:?}", eq.verdict)),
        Err(e) => Verdict::NotRun(e.to_string()),
    }
}

#[derive(Default)]
struct Tally {
    spill_kept: usize,
    spill_forced: usize,
    shuffles: usize,
    demoted: usize,
    equal: usize,
    not_run: Vec<String>,
    wrong: Vec<String>,
}

impl Tally {
    /// Adds another file's tally to this one.
    fn add(&mut self, t: Tally) {
        self.spill_kept += t.spill_kept;
        self.spill_forced += t.spill_forced;
        self.shuffles += t.shuffles;
        self.demoted += t.demoted;
        self.equal += t.equal;
        self.not_run.extend(t.not_run);
        self.wrong.extend(t.wrong);
    }

    fn record(&mut self, what: String, v: Verdict) {
        match v {
            Verdict::Equal => self.equal += 1,
            Verdict::NotRun(e) => self.not_run.push(format!("{what}: {e}")),
            Verdict::Wrong(e) => self.wrong.push(format!("{what}: {e}")),
        }
    }
}

/// Spill at `target` for kernel `k`; the rewrite, when one is kept.
fn spilled(orig: &Module, k: &str, target: Target, use_ptxas: bool) -> Option<Module> {
    let mut m = orig.clone();
    let opts = SpillOptions {
        target,
        kernel: Some(k.to_string()),
        arch: "sm_80".into(),
        block_size: Some(64),
        block_dim: None,
        smem_budget: None,
        use_ptxas,
        dynamic_smem: None,
        ptxas_args: Vec::new(),
        jobs: Some(2),
    };
    let r = spill_module(&mut m, &opts).unwrap_or_else(|e| panic!("{k}: spill: {e}"));
    (r.kernels[0].kept && !r.kernels[0].demoted.is_empty()).then_some(m)
}

/// Shuffle synthesis on kernel `k` (every proved replacement, default time budget); the rewrite
/// and its count, when it made any.
fn shuffled(orig: &Module, k: &str) -> Option<(Module, usize)> {
    let mut m = orig.clone();
    let opts = ShuffleOptions {
        kernel: Some(k.to_string()),
        profitable_only: false,
        ..ShuffleOptions::default()
    };
    let r = shuffle_module(&mut m, &opts).unwrap_or_else(|e| panic!("{k}: shuffle: {e}"));
    let n = r.kernels[0].shuffles;
    (n > 0).then_some((m, n))
}

/// Register demotion of ptxas's build of kernel `k` (`cubin`), proved on `spec` (two seeds) by
/// the demoter itself; whether it demoted. A proof that could not run is [`Verdict::NotRun`];
/// any other error, or a rewrite kept without its proof, is [`Verdict::Wrong`].
fn demoted(cubin: &[u8], k: &str, spec: &LaunchSpec) -> Result<bool, Verdict> {
    let opts = DemoteOptions {
        kernel: Some(k.to_string()),
        dynamic_smem: Some(spec.dynamic_smem as u32),
        verify: vec![spec.clone()],
        seeds: 2,
        registers: Some(RegisterTarget::Auto),
        ..DemoteOptions::default()
    };
    let out = demote(cubin, &opts).map_err(|e| match e {
        DemoteError::Verify { .. } => Verdict::NotRun(e.to_string()),
        e => Verdict::Wrong(e.to_string()),
    })?;
    let kernel = &out.kernels[0];
    if kernel.demoted && kernel.verified.len() != 1 {
        return Err(Verdict::Wrong(format!(
            "demoted without a proof: {}",
            kernel.reason
        )));
    }
    Ok(kernel.demoted)
}

fn check_file(path: &std::path::Path, use_ptxas: bool) -> Tally {
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let text = std::fs::read_to_string(path).expect("read");
    let orig = parse_module(&text, &name).expect("NVRTC's PTX parses");
    let cubin = use_ptxas.then(|| {
        tools::ptxas_assemble_source(&text, "sm_80", &[])
            .unwrap_or_else(|e| panic!("{name}: ptxas: {e}"))
            .cubin
    });
    let mut t = Tally::default();
    let kernels: Vec<String> = orig
        .functions()
        .filter(|f| f.kind == FuncKind::Entry && f.body.is_some())
        .map(|f| f.name.to_string())
        .collect();
    for k in kernels {
        let Some(spec) = launch(&orig, &k) else {
            t.not_run.push(format!("{name}:{k}: no generic launch"));
            continue;
        };
        if let Some(m) = spilled(&orig, &k, Target::Auto, use_ptxas) {
            t.spill_kept += 1;
            t.record(
                format!("{name}:{k} spill auto"),
                check_rewrite(&orig, &m, &spec),
            );
        }
        if let Some(m) = spilled(&orig, &k, Target::MaxRegs(24), false) {
            t.spill_forced += 1;
            t.record(
                format!("{name}:{k} spill 24"),
                check_rewrite(&orig, &m, &spec),
            );
        }
        if let Some((m, n)) = shuffled(&orig, &k) {
            t.shuffles += n;
            t.record(
                format!("{name}:{k} shuffle"),
                check_rewrite(&orig, &m, &spec),
            );
        }
        match cubin.as_deref().map(|c| demoted(c, &k, &spec)) {
            Some(Ok(true)) => t.demoted += 1,
            Some(Ok(false)) | None => {}
            Some(Err(v)) => t.record(format!("{name}:{k} demote"), v),
        }
    }
    t
}

#[test]
fn nvrtc_kernels_keep_their_bytes_through_spill_and_shuffle() {
    let Some(dir) = common::nvrtc_kernels_dir("nvrtc_kernels_keep_their_bytes") else {
        return;
    };
    let use_ptxas = tools::find(Tool::Ptxas).is_ok();
    if !use_ptxas {
        eprintln!("SKIPPED (ptxas checks of the NVRTC rewrites): ptxas not found");
    }
    let files: Vec<_> = common::files_with_ext(dir, "ptx")
        .into_iter()
        .filter(|p| p.to_string_lossy().ends_with(".sm_80.nvrtc.ptx"))
        .collect();
    let tallies = common::parallel_map(&files, |p| check_file(p, use_ptxas));
    let mut all = Tally::default();
    for t in tallies {
        all.add(t);
    }
    eprintln!(
        "NVRTC sm_80: {} files; spill auto kept {} rewrites, forced .maxnreg 24 made {}; {} \
         shuffles; {} kernels register-demoted and proved; {} rewrites compute the original's \
         bytes, {} not run{}",
        files.len(),
        all.spill_kept,
        all.spill_forced,
        all.shuffles,
        all.demoted,
        all.equal,
        all.not_run.len(),
        all.not_run
            .iter()
            .map(|n| format!("\n  {n}"))
            .collect::<String>()
    );
    assert!(all.wrong.is_empty(), "{}", all.wrong.join("\n"));
    assert!(all.equal >= 85, "only {} rewrites compared", all.equal);
}
