//! Holdout test of the SASS decoder (issue 14, docs/sass.md "Beyond the corpus"): cubins that
//! were never used to learn the operand tables are checked against nvdisasm (`sass check`:
//! words, decode→encode, opcode, registers and roles in all four files, branch targets). The
//! instructions the decoder refuses (unknown forms) and any disagreement on an instruction of
//! known form (a wrong decode) must be exactly those recorded per architecture in
//! `tests/data/sass-holdout/<set>.txt` — the goal is none of either —, so that a new gap or a
//! closed one shows:
//! - programs of the PTX generator (`src/sass/isa/tables/gen_ptx.py`) from holdout seeds (the
//!   tables are learned from seeds below 1000), built for sm_80/86/89/90/90a at the -O level and
//!   register limit each seed selects;
//! - the Triton PTX fixtures of `tests/data/triton` (sm_80 PTX for sm_80/86/89, the sm_90a PTX
//!   for sm_90a), and the cubins of the whole Triton suite when `WARPSMITH_TRITON_DIR` names
//!   them (per kernel; the test command's `triton` step);
//! - global loads and stores with an L2 cache-policy operand (`tests/data/sass_cache_hints.ptx`)
//!   for sm_80/86/89/90;
//! - the feature probes (`tests/data/sass-features`, learning inputs of seven keys: see
//!   `feature_probe_forms_stay_known`);
//! - the ZLUDA PTX corpus (`../shared/corpus/zluda-ptx`) for sm_80 and sm_90 (sm_86/89 too with
//!   `WARPSMITH_HOLDOUT_FULL=1`), where ptxas accepts the file. To keep the run short, a ZLUDA
//!   cubin is checked when it has an
//!   instruction signature (opcode key and modifier bits [72:105]) that no earlier cubin of the
//!   same architecture had — so every distinct form is checked at least once; set
//!   `WARPSMITH_HOLDOUT_FULL=1` to check every cubin.
//!
//! Each test prints `SKIPPED: <reason>` and returns when ptxas, nvdisasm, python3 or the corpus
//! is missing.

mod common;

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use common::parallel_map;
use warpsmith::sass::check::{check_cubin, Report};
use warpsmith::sass::elf::Cubin;
use warpsmith::tools::{self, Tool};

/// The holdout seeds of the generator (the learning seeds are below 1000).
const HOLDOUT_SEEDS: &str = "1000-1007";

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// ptxas and nvdisasm, or `None` after printing the skip line.
fn tools_for(test: &str) -> Option<PathBuf> {
    for t in [Tool::Ptxas, Tool::Nvdisasm] {
        if let Err(e) = tools::find(t) {
            eprintln!("SKIPPED: {t} not found ({test}): {e}");
            return None;
        }
    }
    tools::find(Tool::Ptxas).ok()
}

/// A fresh folder for this test's cubins.
fn scratch(test: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("sass-holdout-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display()));
    d
}

/// Runs ptxas; `Err` holds its message.
fn ptxas(ptxas: &Path, arch: &str, ptx: &Path, out: &Path) -> Result<(), String> {
    let o = Command::new(ptxas)
        .arg(format!("-arch={arch}"))
        .arg(ptx)
        .arg("-o")
        .arg(out)
        .output()
        .map_err(|e| e.to_string())?;
    if o.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&o.stderr).into_owned())
    }
}

/// Checks `(label arch, cubin)` pairs and returns the failures. Every instruction must be
/// known and agree with nvdisasm, except the forms the tables do not know yet, which the
/// decoder refuses (unknown, raw bits kept, conservative summary): those are recorded per
/// architecture in `tests/data/sass-holdout/<set>.txt` (re-bless with `WARPSMITH_BLESS=1`), so
/// the record can only change visibly. Disagreements on instructions of known form (wrong
/// decodes) are recorded one by one as well; the goal is none (docs/sass.md lists the known
/// ones), and any new one fails.
fn check_all(set: &str, cubins: &[(String, PathBuf)]) -> Vec<String> {
    let (lines, mut failures) = summarise(set, cubins);
    let record: String = lines.values().map(String::as_str).collect();
    let golden = record_path(set);
    if std::env::var_os("WARPSMITH_BLESS").is_some() {
        bless(&golden, &record, &mut failures);
    }
    let expected = std::fs::read_to_string(&golden).unwrap_or_default();
    if record != expected {
        failures.push(format!(
            "{set}: the forms the decoder refuses changed (0 unknown is the goal); check and \
             re-bless with WARPSMITH_BLESS=1.\nnow:\n{record}recorded in {}:\n{expected}",
            golden.display()
        ));
    }
    failures
}

/// Like [`check_all`] for a set whose members vary between runs (the Triton suite: the test
/// command builds a subset, a full build all of it): each label's record entry (its first line
/// is `<label>: …`) must equal the recorded one, labels absent from this run are left alone,
/// and a label the record lacks fails. Blessing adds or replaces the labels of this run.
fn check_each(set: &str, cubins: &[(String, PathBuf)]) -> Vec<String> {
    let (lines, mut failures) = summarise(set, cubins);
    let golden = record_path(set);
    let mut recorded = BTreeMap::<String, String>::new();
    let text = std::fs::read_to_string(&golden).unwrap_or_default();
    let mut label = String::new();
    for l in text.lines() {
        // A wrong-decode line (indented) belongs to the label above it.
        if !l.starts_with(' ') {
            label = l.split(':').next().unwrap_or("").to_string();
        }
        let entry = recorded.entry(label.clone()).or_default();
        entry.push_str(l);
        entry.push('\n');
    }
    if std::env::var_os("WARPSMITH_BLESS").is_some() {
        recorded.extend(lines.clone());
        let all: String = recorded.values().map(String::as_str).collect();
        bless(&golden, &all, &mut failures);
    }
    for (label, now) in &lines {
        let before = recorded
            .get(label)
            .map(String::as_str)
            .unwrap_or("(nothing)\n");
        if now != before {
            failures.push(format!(
                "{set} {label}: the forms the decoder refuses changed (0 unknown is the goal); \
                 check and re-bless with WARPSMITH_BLESS=1.\nnow:\n{now}recorded in {}:\n{before}",
                golden.display()
            ));
        }
    }
    failures
}

fn record_path(set: &str) -> PathBuf {
    repo_root()
        .join("tests/data/sass-holdout")
        .join(format!("{set}.txt"))
}

fn bless(golden: &Path, record: &str, failures: &mut Vec<String>) {
    let _ = std::fs::create_dir_all(golden.parent().unwrap_or(Path::new(".")));
    if let Err(e) = std::fs::write(golden, record) {
        failures.push(format!("{}: {e}", golden.display()));
    }
}

/// Runs `sass check` on every cubin and returns the record entry of each label (one line of
/// counts, then one line per wrong decode) and the failures that no record can excuse
/// (unreadable cubins, raw words or decode→encode that disagree).
fn summarise(set: &str, cubins: &[(String, PathBuf)]) -> (BTreeMap<String, String>, Vec<String>) {
    let reports = parallel_map(cubins, |(arch, p)| {
        let bytes = std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()))?;
        check_cubin(&bytes)
            .map(|r| (arch.clone(), p.clone(), r))
            .map_err(|e| format!("{}: {e}", p.display()))
    });
    let mut by_arch = BTreeMap::<String, (usize, Report)>::new();
    let mut failures = Vec::new();
    for r in reports {
        match r {
            Ok((arch, p, mut r)) => {
                let name = p
                    .file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .to_string();
                for m in r.mismatches.iter_mut() {
                    m.function = format!("{name}:{}", m.function);
                }
                let e = by_arch.entry(arch).or_default();
                e.0 += 1;
                e.1.merge(&r);
            }
            Err(e) => failures.push(e),
        }
    }
    let mut lines = BTreeMap::new();
    for (arch, (n, r)) in &by_arch {
        let c = &r.counts;
        let unknown = c.instructions - c.known;
        // An unknown opcode that nvdisasm names is reported as a mismatch, and so is the branch
        // target of an unknown form (the editor refuses code with either); they are refusals,
        // not guesses. Everything else that disagrees is a wrong decode.
        let mut refused = BTreeMap::<String, usize>::new();
        let mut wrong = Vec::new();
        for m in &r.mismatches {
            if m.what.starts_with("opcode UNKNOWN") || m.what.starts_with("unknown form") {
                let mn = m.text.split_whitespace().find(|t| !t.starts_with('@'));
                *refused.entry(mn.unwrap_or("?").to_string()).or_default() += 1;
            } else {
                wrong.push(m);
            }
        }
        eprintln!(
            "holdout {set} {arch}: {n} cubins, {} instructions, {unknown} unknown, {} \
             conservative {:?}, {} mismatches ({} wrong decodes)",
            c.instructions,
            c.regs_conservative,
            r.conservative_by_mnemonic,
            r.mismatches.len(),
            wrong.len()
        );
        // Wrong decodes are listed one by one in the record, so that each is seen and none
        // can be added unnoticed.
        let mut wrong_lines = String::new();
        for m in &wrong {
            eprintln!(
                "  WRONG {set} {arch} {} {:#x} `{}`: {}",
                m.function, m.offset, m.text, m.what
            );
            let mn = m.text.split_whitespace().find(|t| !t.starts_with('@'));
            let what = m.what.split(':').next().unwrap_or("");
            wrong_lines.push_str(&format!("  wrong decode: {} ({what})\n", mn.unwrap_or("?")));
        }
        if c.words_agree != c.instructions || c.encode_agree != c.instructions {
            failures.push(format!(
                "{set} {arch}: raw words {} and decode->encode {} of {} instructions",
                c.words_agree, c.encode_agree, c.instructions
            ));
        }
        lines.insert(
            arch.clone(),
            format!(
                "{arch}: {unknown} unknown, {} conservative {:?}; unknown opcodes {:?}; {} wrong \
                 decodes\n{wrong_lines}",
                c.regs_conservative,
                r.conservative_by_mnemonic,
                refused,
                wrong.len()
            ),
        );
    }
    (lines, failures)
}

/// Generator programs of the holdout seeds.
#[test]
fn holdout_generated_programs() {
    let test = "holdout_generated_programs";
    let Some(ptxas) = tools_for(test) else {
        return;
    };
    let python = match Command::new("python3").arg("--version").output() {
        Ok(o) if o.status.success() => "python3",
        _ => {
            eprintln!("SKIPPED: python3 not found ({test})");
            return;
        }
    };
    let dir = scratch(test);
    let o = Command::new(python)
        .arg(repo_root().join("src/sass/isa/tables/gen_ptx.py"))
        .arg("--build")
        .arg(&dir)
        .arg("--seeds")
        .arg(HOLDOUT_SEEDS)
        .arg("--ptxas")
        .arg(&ptxas)
        .output()
        .expect("python3 runs");
    assert!(
        o.status.success(),
        "gen_ptx.py --build failed:\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let mut cubins: Vec<(String, PathBuf)> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "cubin"))
        .map(|p| {
            // g<seed>.O<n>.<arch>.cubin
            let stem = p.file_stem().unwrap().to_string_lossy().to_string();
            (stem.rsplit('.').next().unwrap().to_string(), p)
        })
        .collect();
    cubins.sort();
    // 8 seeds, each for sm_80, sm_86, sm_89, sm_90 and sm_90a.
    assert_eq!(cubins.len(), 40, "expected 40 generated cubins");
    let failures = check_all("generated", &cubins);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Assembles every (architecture, PTX, cubin) job in parallel, panicking with ptxas's message
/// on the first failure; the (architecture, cubin) pairs for [`check_all`].
fn assemble_all(
    ptxas_path: &Path,
    jobs: Vec<(String, PathBuf, PathBuf)>,
) -> Vec<(String, PathBuf)> {
    let built = parallel_map(&jobs, |(a, ptx, out)| ptxas(ptxas_path, a, ptx, out));
    for ((a, p, _), r) in jobs.iter().zip(&built) {
        if let Err(e) = r {
            panic!("ptxas -arch={a} {}: {e}", p.display());
        }
    }
    jobs.into_iter().map(|(a, _, o)| (a, o)).collect()
}

/// Triton's tensor-core kernels (tests/data/triton).
#[test]
fn holdout_triton() {
    let test = "holdout_triton";
    let Some(ptxas_path) = tools_for(test) else {
        return;
    };
    let dir = scratch(test);
    let mut jobs = Vec::new();
    for (src, archs) in [
        ("sm_80", &["sm_80", "sm_86", "sm_89"][..]),
        ("sm_90", &["sm_90a"][..]),
    ] {
        let d = repo_root().join("tests/data/triton").join(src);
        let mut ptx: Vec<PathBuf> = std::fs::read_dir(&d)
            .unwrap_or_else(|e| panic!("{}: {e}", d.display()))
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
            .collect();
        ptx.sort();
        for p in ptx {
            for a in archs {
                let stem = p.file_stem().unwrap().to_string_lossy().to_string();
                jobs.push((
                    a.to_string(),
                    p.clone(),
                    dir.join(format!("{stem}.{a}.cubin")),
                ));
            }
        }
    }
    assert!(jobs.len() >= 5, "expected the Triton fixtures");
    let cubins = assemble_all(&ptxas_path, jobs);
    let failures = check_all("triton", &cubins);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Global accesses with an L2 cache-policy operand (`tests/data/sass_cache_hints.ptx`: every
/// width, with and without an L1 eviction priority), as Triton's `eviction_policy=` makes them:
/// on sm_8x ptxas sets a bit no learning input had (docs/sass.md, "Cache-policy accesses").
#[test]
fn holdout_cache_hints() {
    let test = "holdout_cache_hints";
    let Some(ptxas_path) = tools_for(test) else {
        return;
    };
    let dir = scratch(test);
    let ptx = repo_root().join("tests/data/sass_cache_hints.ptx");
    let jobs = ["sm_80", "sm_86", "sm_89", "sm_90"]
        .iter()
        .map(|a| {
            let out = dir.join(format!("cache_hints.{a}.cubin"));
            (a.to_string(), ptx.clone(), out)
        })
        .collect();
    let cubins = assemble_all(&ptxas_path, jobs);
    let failures = check_all("cache-hints", &cubins);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The feature probes the tables' seven newest keys were learned from (docs/sass.md, "Seven keys
/// learned from the feature probes"; `bench/features/probe.py --n 4`): 16-bit atomics ptxas
/// emulates with a CAS loop (sm_80/86/89), programmatic dependent launch, cluster barriers and
/// `st.async` (sm_90). Not a holdout — they are learning inputs —, but the forms a full
/// relearning without them would lose again, so the record (`features.txt`) names none.
#[test]
fn feature_probe_forms_stay_known() {
    let test = "feature_probe_forms_stay_known";
    let Some(ptxas_path) = tools_for(test) else {
        return;
    };
    let dir = scratch(test);
    let data = repo_root().join("tests/data/sass-features");
    let mut jobs = Vec::new();
    for (probe, archs) in [
        ("atom_f16", &["sm_80", "sm_86", "sm_89"][..]),
        ("cas_b16", &["sm_80", "sm_86", "sm_89"][..]),
        ("pdl", &["sm_90"][..]),
        ("cluster_dsmem", &["sm_90"][..]),
        ("st_async", &["sm_90"][..]),
        ("setmaxnreg", &["sm_90a"][..]),
        ("setmaxnreg_dec", &["sm_90a"][..]),
    ] {
        for a in archs {
            let out = dir.join(format!("{probe}.{a}.cubin"));
            jobs.push((a.to_string(), data.join(format!("{probe}.ptx")), out));
        }
    }
    let cubins = assemble_all(&ptxas_path, jobs);
    let failures = check_all("features", &cubins);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The Triton suite (tests/triton/suite.py), as Triton 3.6 and its own ptxas built it: the
/// folder `WARPSMITH_TRITON_DIR` holds `sm_80/` and `sm_90/` (`tests/triton/compile_suite.py
/// --out` folders; the `triton` step of scripts/test.sh passes the CI subset). Checked per
/// kernel (`sm_80 attn_d64`, `sm_90a …`: Triton builds sm_90 as sm_90a) against
/// `tests/data/sass-holdout/triton-suite.txt`, or the record `WARPSMITH_TRITON_RECORD` names
/// (`triton-3.3`: another Triton's kernels under the same names); kernels the folder lacks are
/// not checked.
#[test]
fn holdout_triton_suite_from_environment() {
    let test = "holdout_triton_suite_from_environment";
    let Some(dir) = std::env::var_os("WARPSMITH_TRITON_DIR").map(PathBuf::from) else {
        eprintln!("SKIPPED: WARPSMITH_TRITON_DIR is not set ({test}; scripts/test.sh sets it)");
        return;
    };
    if tools_for(test).is_none() {
        return;
    }
    let mut cubins = Vec::new();
    for (sub, arch) in [("sm_80", "sm_80"), ("sm_90", "sm_90a")] {
        let d = dir.join(sub);
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for p in entries.flatten().map(|e| e.path()) {
            if p.extension().is_some_and(|x| x == "cubin") {
                let stem = p
                    .file_stem()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .to_string();
                cubins.push((format!("{arch} {stem}"), p));
            }
        }
    }
    cubins.sort();
    assert!(
        !cubins.is_empty(),
        "WARPSMITH_TRITON_DIR={}: no sm_80/*.cubin or sm_90/*.cubin",
        dir.display()
    );
    let record = std::env::var("WARPSMITH_TRITON_RECORD").unwrap_or("triton-suite".into());
    assert!(
        !record.is_empty()
            && record
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-._".contains(c)),
        "WARPSMITH_TRITON_RECORD={record:?}: a record name under tests/data/sass-holdout"
    );
    let failures = check_each(&record, &cubins);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Instruction signatures of a cubin: opcode key and modifier bits [72:105].
fn signatures(path: &Path) -> HashSet<u128> {
    let mut out = HashSet::new();
    let Ok(bytes) = std::fs::read(path) else {
        return out;
    };
    let Ok(cubin) = Cubin::parse(&bytes) else {
        return out;
    };
    let mask: u128 = 0xfff | (((1u128 << 33) - 1) << 72);
    for f in cubin.functions() {
        for w in cubin.sections[f.text].data.chunks_exact(16) {
            let word = u128::from_le_bytes(w.try_into().unwrap_or([0; 16]));
            out.insert(word & mask);
        }
    }
    out
}

/// The ZLUDA PTX corpus.
#[test]
fn holdout_zluda_corpus() {
    let test = "holdout_zluda_corpus";
    let Some(ptxas_path) = tools_for(test) else {
        return;
    };
    let Some(shared) = common::shared_dir() else {
        eprintln!("SKIPPED: ../shared/corpus is not beside the checkout ({test})");
        return;
    };
    let corpus = shared.join("corpus/zluda-ptx");
    let files = common::files_with_ext(&corpus, "ptx");
    let full = std::env::var("WARPSMITH_HOLDOUT_FULL").is_ok_and(|v| v == "1");
    // sm_86 and sm_89 share sm_80's encoding (one table, sm_8x.tbl); the generated programs and
    // the Triton fixtures cover them, so the ZLUDA corpus is built for them only in the full run.
    let zluda_archs: &[&str] = if full {
        &["sm_80", "sm_86", "sm_89", "sm_90"]
    } else {
        &["sm_80", "sm_90"]
    };
    assert!(files.len() >= 240, "expected the 251-file ZLUDA corpus");
    let dir = scratch(test);
    let mut jobs = Vec::new();
    for f in &files {
        let rel = f.strip_prefix(&corpus).unwrap_or(f).to_string_lossy();
        let name: String = rel
            .trim_end_matches(".ptx")
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        for a in zluda_archs {
            jobs.push((
                a.to_string(),
                f.clone(),
                dir.join(format!("{name}.{a}.cubin")),
            ));
        }
    }
    // Files ptxas rejects (the corpus holds inputs meant to fail) are not cubins to check.
    let built = parallel_map(&jobs, |(a, ptx, out)| {
        ptxas(&ptxas_path, a, ptx, out).is_ok()
    });
    let mut ok: Vec<(String, PathBuf)> = jobs
        .into_iter()
        .zip(built)
        .filter(|(_, b)| *b)
        .map(|((a, _, o), _)| (a, o))
        .collect();
    ok.sort();
    let built_n = ok.len();
    assert!(
        built_n >= 200 * zluda_archs.len(),
        "ptxas built only {built_n} ZLUDA cubins"
    );
    let chosen: Vec<(String, PathBuf)> = if full {
        ok
    } else {
        let sigs = parallel_map(&ok, |(_, p)| signatures(p));
        let mut seen = HashSet::<(String, u128)>::new();
        ok.into_iter()
            .zip(sigs)
            .filter(|((a, _), s)| {
                let mut new = false;
                for x in s {
                    new |= seen.insert((a.clone(), *x));
                }
                new
            })
            .map(|(c, _)| c)
            .collect()
    };
    eprintln!(
        "holdout zluda: {built_n} cubins built, {} checked{}",
        chosen.len(),
        if full {
            ""
        } else {
            " (one per new instruction signature)"
        }
    );
    let failures = check_all("zluda", &chosen);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
