//! Every PTX file of the ZLUDA corpus (../shared/corpus/zluda-ptx) either round-trips through the IR
//! or is rejected with a clear message; the rejected ones are listed in
//! `tests/data/corpus-rejected.txt` (re-bless with `WARPSMITH_BLESS=1 cargo test --test
//! corpus_roundtrip`). Where ptxas accepts a file, it must accept our printed version with identical
//! `ptxas -v` figures.

mod common;

use common::*;

#[test]
fn zluda_corpus_round_trips() {
    let Some(shared) = shared_dir() else {
        eprintln!(
            "SKIPPED (zluda_corpus_round_trips): ../shared/corpus is not beside the checkout"
        );
        return;
    };
    let corpus = shared.join("corpus/zluda-ptx");
    let files = files_with_ext(&corpus, "ptx");
    assert!(
        files.len() >= 240,
        "expected the 251-file corpus, found {}",
        files.len()
    );
    let use_ptxas = ptxas_available("zluda_corpus_round_trips");
    let outcomes = parallel_map(&files, |f| round_trip(f, use_ptxas));

    let mut rejected = String::new();
    let mut failures = Vec::new();
    let (mut round_trips, mut ptxas_checked) = (0, 0);
    for (f, o) in files.iter().zip(&outcomes) {
        let rel = f.strip_prefix(&corpus).unwrap_or(f).display().to_string();
        match o {
            Outcome::RoundTrip { ptxas } => {
                round_trips += 1;
                if ptxas.is_ok() {
                    ptxas_checked += 1;
                }
            }
            Outcome::Rejected(msg) => {
                let msg = msg.replace(&format!("{}/", corpus.display()), "");
                rejected.push_str(&format!("{rel}\t{msg}\n"));
            }
            Outcome::Failed(msg) => failures.push(format!("{rel}: {msg}")),
        }
    }
    eprintln!("corpus: {} files, {round_trips} round-trip, {ptxas_checked} with identical ptxas -v figures, {} rejected", files.len(), files.len() - round_trips - failures.len());
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    let golden = repo_root().join("tests/data/corpus-rejected.txt");
    if std::env::var_os("WARPSMITH_BLESS").is_some() {
        std::fs::write(&golden, &rejected).unwrap();
    }
    let expected = std::fs::read_to_string(&golden).unwrap_or_default();
    assert_eq!(
        rejected, expected,
        "the set of rejected corpus files changed; check and re-bless with WARPSMITH_BLESS=1"
    );
    if use_ptxas {
        assert!(
            ptxas_checked >= 150,
            "only {ptxas_checked} files were compared under ptxas"
        );
    }
}
