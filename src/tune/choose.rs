//! Choosing the variant (RegDem §4: the predictor's pick among the variants). The fastest
//! prediction wins; predictions within [`TIE`] of the fastest count as a tie, settled for the
//! least invasive variant (ptxas alone, then `.maxnreg` alone, then the pragma, then warpsmith's
//! rewrites), then for the faster prediction. A variant that rewrites the
//! kernel is chosen only with a launch spec and only after `equiv` proves it computes the same
//! bytes as the original on the PTX emulator (a demote variant: on the SASS emulator, when it was
//! built); otherwise the next one is tried. A cubin-only variant (demote) is chosen only when the
//! output is a cubin. Without a launch spec only variants at ptxas alone's occupancy compete
//! ([`refuse_occupancy_changes`]). When nothing has a prediction, ptxas alone is kept.

use crate::emu::equiv::{check, Verdict};

use super::evaluate::Evaluated;
use super::TuneOptions;
use crate::ptx::Module;

/// Relative difference under which two predictions tie.
pub const TIE: f64 = 0.01;

/// How the report's note on the variants left out without a launch begins (the drop-in passes
/// that note on: [`super::tune_all`]).
pub const OCCUPANCY_NOTE: &str =
    "without --launch only variants at ptxas alone's occupancy compete";

/// Marks and returns the chosen variant's index (0, ptxas alone, when none qualifies).
pub fn choose(
    original: &Module,
    vs: &mut [Evaluated],
    opts: &TuneOptions,
    notes: &mut Vec<String>,
) -> usize {
    if opts.launch.is_none() && vs.iter().any(|v| v.report.kind.rewrites()) {
        notes.push(
            "without --launch, rewriting variants (spill, shuffle, demote) cannot be proved \
             equal to the original and are never chosen"
                .into(),
        );
    }
    if opts.launch.is_none() {
        refuse_occupancy_changes(vs, notes);
    }
    if !opts.cubin_out {
        let mut excluded = false;
        for v in vs.iter_mut().filter(|v| v.report.kind.cubin_only()) {
            if v.report.error.is_none() && v.report.predicted_us.is_some() {
                excluded = true;
                v.report.error = Some("exists only as a cubin: write the output as .cubin".into());
            }
        }
        if excluded {
            notes.push(
                "the output is PTX: demote variants (cubin-only) are predicted but not chosen; \
                 `-o OUT.cubin` lets them compete"
                    .into(),
            );
        }
    }
    loop {
        let Some(i) = best(vs, opts.launch.is_some()) else {
            notes.push("no variant has a prediction: ptxas alone is kept".into());
            vs[0].report.chosen = true;
            return 0;
        };
        if vs[i].report.kind.cubin_only() && vs[i].report.equivalent != Some(true) {
            refuse_unprovable(vs, i);
            continue;
        }
        if vs[i].report.kind.rewrites() && !vs[i].report.kind.cubin_only() {
            let Some(spec) = opts.launch.as_ref() else {
                refuse_unprovable(vs, i);
                continue;
            };
            let proof = check(original, &vs[i].module, spec, opts.seeds.max(1));
            let why = match proof {
                Ok(r) => match r.verdict {
                    Verdict::Equal => None,
                    Verdict::Differ(d) => Some(format!(
                        "not equal to the original: {} element {}: {} vs {}",
                        d.buffer, d.index, d.a, d.b
                    )),
                    Verdict::SecondFailed { error, .. } => Some(format!("equiv: {error}")),
                },
                Err(e) => Some(format!("equiv could not run: {e}")),
            };
            vs[i].report.equivalent = Some(why.is_none());
            if let Some(why) = why {
                vs[i].report.error = Some(why);
                continue;
            }
        }
        vs[i].report.chosen = true;
        return i;
    }
}

/// Without a launch spec only variants at ptxas alone's occupancy compete (`vs[0]` is ptxas
/// alone). The static model then ranks the variants, and what it predicts for a change of
/// occupancy did not carry to the hardware: on an H200 (4 Dec 2026; docs/tune.md, "In the
/// drop-in") it predicted 1.2–2.0× for raising occupancy on 29 kernels where the measured
/// change was 0.64–1.23×, and its pick made one kernel 14 % slower. With a launch the cycle
/// model, which runs the kernel, decides.
fn refuse_occupancy_changes(vs: &mut [Evaluated], notes: &mut Vec<String>) {
    let Some(base) = vs.first().and_then(|v| v.report.occupancy) else {
        return;
    };
    let mut refused = Vec::new();
    for v in vs.iter_mut().skip(1) {
        let Some(occ) = v.report.occupancy else {
            continue;
        };
        // Rewrites are not chosen without a launch anyway (their figures stay in the report).
        if v.report.error.is_none() && !v.report.kind.rewrites() && (occ - base).abs() > 1e-9 {
            v.report.left_out = Some(format!(
                "without --launch a change of occupancy ({:.1}% -> {:.1}%) is not chosen",
                base * 100.0,
                occ * 100.0
            ));
            refused.push(v.report.name.clone());
        }
    }
    if !refused.is_empty() {
        notes.push(format!(
            "{OCCUPANCY_NOTE} ({} left out): on an H200 the static model's occupancy predictions \
             did not carry (docs/tune.md, In the drop-in)",
            refused.join(", ")
        ));
    }
}

/// A rewrite cannot be proved equal without a spec ([`best`] already leaves such variants out;
/// this keeps the loop finite should that ever change).
fn refuse_unprovable(vs: &mut [Evaluated], i: usize) {
    vs[i].report.error = Some("rewrites need a launch spec to be proved equal".into());
}

/// The index of the best eligible variant.
fn best(vs: &[Evaluated], have_spec: bool) -> Option<usize> {
    let eligible = |v: &Evaluated| {
        v.report.error.is_none()
            && v.report.left_out.is_none()
            && v.report.predicted_us.is_some()
            && (have_spec || !v.report.kind.rewrites())
    };
    let fastest = vs
        .iter()
        .filter(|v| eligible(v))
        .filter_map(|v| v.report.predicted_us)
        .fold(f64::INFINITY, f64::min);
    if !fastest.is_finite() {
        return None;
    }
    let limit = fastest * (1.0 + TIE) + 1e-12;
    vs.iter()
        .enumerate()
        .filter(|(_, v)| eligible(v) && v.report.predicted_us.is_some_and(|t| t <= limit))
        .min_by(|(_, a), (_, b)| {
            let key = |v: &Evaluated| (v.report.kind, v.report.max_regs.is_some());
            key(a).cmp(&key(b)).then(
                a.report
                    .predicted_us
                    .partial_cmp(&b.report.predicted_us)
                    .unwrap_or(std::cmp::Ordering::Equal),
            )
        })
        .map(|(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tune::Kind;

    fn v(name: &str, kind: Kind, max_regs: Option<u32>, us: f64, error: Option<&str>) -> Evaluated {
        let mut e = crate::tune::evaluate::test_variant(name, kind, max_regs);
        e.report.predicted_us = Some(us);
        e.report.error = error.map(str::to_string);
        e
    }

    fn pick(vs: &mut [Evaluated]) -> (String, Vec<String>) {
        let original = vs[0].module.clone();
        let mut notes = Vec::new();
        let i = choose(&original, vs, &TuneOptions::default(), &mut notes);
        assert_eq!(vs.iter().filter(|v| v.report.chosen).count(), 1);
        (vs[i].report.name.clone(), notes)
    }

    #[test]
    fn demote_competes_only_for_a_cubin_output_and_only_when_proved() {
        let spec = crate::emu::launch::LaunchSpec::from_json(
            r#"{"kernel": "k", "grid": [1], "block": [32], "args": []}"#,
        )
        .unwrap();
        let make = || {
            let mut d = v("demote-40", Kind::Demote, Some(40), 5.0, None);
            d.report.equivalent = Some(true);
            vec![v("ptxas", Kind::Ptxas, None, 10.0, None), d]
        };
        let run = |vs: &mut Vec<Evaluated>, cubin_out: bool| {
            let opts = TuneOptions {
                launch: Some(spec.clone()),
                cubin_out,
                ..TuneOptions::default()
            };
            let original = vs[0].module.clone();
            let mut notes = Vec::new();
            let i = choose(&original, vs, &opts, &mut notes);
            (vs[i].report.name.clone(), notes)
        };
        let mut vs = make();
        let (name, notes) = run(&mut vs, false);
        assert_eq!(name, "ptxas");
        assert!(notes.iter().any(|n| n.contains("cubin-only")), "{notes:?}");
        assert!(vs[1]
            .report
            .error
            .as_deref()
            .unwrap()
            .contains("only as a cubin"));
        let mut vs = make();
        assert_eq!(run(&mut vs, true).0, "demote-40");
        let mut vs = make();
        vs[1].report.equivalent = None;
        assert_eq!(run(&mut vs, true).0, "ptxas");
        assert!(vs[1].report.error.is_some());
    }

    #[test]
    fn without_a_launch_only_the_original_occupancy_competes() {
        let make = || {
            let mut vs = vec![
                v("ptxas", Kind::Ptxas, None, 10.0, None),
                v("pragma-32", Kind::Pragma, Some(32), 5.0, None),
                v("pragma-40", Kind::Pragma, Some(40), 9.0, None),
            ];
            vs[0].report.occupancy = Some(0.625);
            vs[1].report.occupancy = Some(1.0);
            vs[2].report.occupancy = Some(0.625);
            vs
        };
        let mut vs = make();
        let (name, notes) = pick(&mut vs);
        assert_eq!(name, "pragma-40");
        assert!(vs[1]
            .report
            .left_out
            .as_deref()
            .unwrap()
            .contains("62.5% -> 100.0%"));
        assert!(
            notes.iter().any(|n| n.contains("pragma-32 left out")),
            "{notes:?}"
        );
        // With a launch the faster prediction at the higher occupancy wins.
        let spec = crate::emu::launch::LaunchSpec::from_json(
            r#"{"kernel": "k", "grid": [1], "block": [32], "args": []}"#,
        )
        .unwrap();
        let opts = TuneOptions {
            launch: Some(spec),
            ..TuneOptions::default()
        };
        let mut vs = make();
        let original = vs[0].module.clone();
        let i = choose(&original, &mut vs, &opts, &mut Vec::new());
        assert_eq!(vs[i].report.name, "pragma-32");
    }

    #[test]
    fn ties_go_to_the_least_invasive_variant() {
        let mut vs = vec![
            v("ptxas", Kind::Ptxas, None, 10.0, None),
            v("ptxas-maxnreg-64", Kind::Ptxas, Some(64), 9.95, None),
            v("pragma-64", Kind::Pragma, Some(64), 9.93, None),
        ];
        assert_eq!(pick(&mut vs).0, "ptxas");
        vs[1].report.predicted_us = Some(9.0);
        vs[1].report.chosen = false;
        vs[0].report.chosen = false;
        assert_eq!(pick(&mut vs).0, "ptxas-maxnreg-64");
    }

    #[test]
    fn unusable_variants_and_unproved_rewrites_are_never_chosen() {
        let mut vs = vec![
            v("ptxas", Kind::Ptxas, None, 10.0, None),
            v(
                "ptxas-maxnreg-32",
                Kind::Ptxas,
                Some(32),
                1.0,
                Some("launch-illegal: …"),
            ),
            v("spill-32", Kind::Spill, Some(32), 2.0, None),
            v("shuffle", Kind::Shuffle, None, 3.0, None),
            v("pragma-32", Kind::Pragma, Some(32), 8.0, None),
        ];
        let (name, notes) = pick(&mut vs);
        assert_eq!(name, "pragma-32");
        assert!(
            notes.iter().any(|n| n.contains("never chosen")),
            "{notes:?}"
        );
    }
}
