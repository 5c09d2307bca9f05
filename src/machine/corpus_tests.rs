//! Whole-pipeline tests of the machine analyses on real PTX: every file of the ZLUDA test corpus
//! (`../shared/corpus/zluda-ptx` beside the checkout; reported as skipped when absent) is parsed, analysed and web-split, and the
//! results are checked against invariants that hold for any body:
//!
//! - every instruction in the layout has a block; successor and predecessor lists mirror each other;
//! - the immediate dominator strictly dominates, the entry dominates every reachable block;
//! - live-out is the union of the successors' live-in;
//! - loop headers dominate their loops;
//! - [`split_webs`] preserves dataflow: each use is reached by the same definition sites (same
//!   instruction and slot) before and after, the printed module parses again, and a second split
//!   finds nothing.

use super::testutil::chains;
use super::*;
use crate::ptx::{parse_module, print_module, Body};

/// The ZLUDA corpus in the workplace's `shared/` folder beside the checkout.
const CORPUS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../shared/corpus/zluda-ptx/ptx/src/test"
);

fn corpus_files() -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    let Ok(dirs) = std::fs::read_dir(CORPUS) else {
        return files;
    };
    for dir in dirs.flatten() {
        let Ok(entries) = std::fs::read_dir(dir.path()) else {
            continue;
        };
        for e in entries.flatten() {
            if e.path().extension().is_some_and(|x| x == "ptx") {
                files.push(e.path());
            }
        }
    }
    files.sort();
    files
}

pub(crate) fn check_invariants(body: &Body, what: &str) {
    let mut fa = FunctionAnalyses::new();
    let a = fa.all(body);
    let cfg = a.cfg;
    for i in body.inst_order() {
        assert!(cfg.block_of(i).is_some(), "{what}: {i} has no block");
    }
    for b in cfg.blocks() {
        for &s in cfg.succs(b) {
            assert!(cfg.preds(s).contains(&b), "{what}: edge {b}->{s}");
        }
        if cfg.is_reachable(b) {
            assert!(a.domtree.dominates(cfg.entry(), b));
            if let Some(i) = a.domtree.idom(b) {
                assert!(a.domtree.strictly_dominates(i, b), "{what}: idom({b})");
            }
        }
        let mut out = BitSet::new(body.regs.len());
        for &s in cfg.succs(b) {
            out.union_with(a.liveness.live_in(s));
        }
        assert_eq!(&out, a.liveness.live_out(b), "{what}: live-out of {b}");
        assert!(a.pressure.block_max(b).units >= a.pressure.measure(a.liveness.live_in(b)).units);
    }
    for l in a.loops.loops() {
        for &b in a.loops.blocks(l) {
            assert!(a.domtree.dominates(a.loops.header(l), b), "{what}: {l}");
        }
    }
}

#[test]
fn corpus_analyses_and_splitting() {
    let files = corpus_files();
    if files.is_empty() {
        eprintln!("SKIPPED (corpus_analyses_and_splitting): corpus not found at {CORPUS}");
        return;
    }
    let (mut functions, mut split_regs, mut split_functions) = (0, 0, 0);
    for path in &files {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let Ok(mut module) = parse_module(&text, &name) else {
            continue;
        };
        let mut changed = false;
        for f in module.functions_mut() {
            let Some(body) = &mut f.body else { continue };
            functions += 1;
            let what = format!("{name}:{}", f.name);
            check_invariants(body, &what);
            let _ = FunctionSummary::compute(f);
            let Some(body) = &mut f.body else { continue };
            let before = chains(body);
            let n = split_webs(body);
            if n > 0 {
                changed = true;
                split_regs += n;
                split_functions += 1;
                assert_eq!(
                    chains(body),
                    before,
                    "{what}: splitting changed the dataflow"
                );
                check_invariants(body, &what);
                assert_eq!(split_webs(body), 0, "{what}: second split");
            }
        }
        if changed {
            let printed = print_module(&module);
            if let Err(e) = parse_module(&printed, &name) {
                panic!("{name}: the split module does not parse again: {e}\n{printed}");
            }
        }
    }
    eprintln!("{} files, {functions} functions, {split_regs} registers split in {split_functions} functions", files.len());
    assert!(functions > 100);
}
