//! Choosing the variant (RegDem §4: the predictor's pick among the variants). The fastest
//! prediction wins; predictions within [`TIE`] of the fastest count as a tie, settled for the
//! least invasive variant (ptxas alone, then `.maxnreg` alone, then the pragma, then warpsmith's
//! rewrites), then for the faster prediction. A variant that rewrites the
//! kernel is chosen only with a launch spec and only after `equiv` proves it computes the same
//! bytes as the original on the PTX emulator; otherwise the next one is tried. When nothing has a
//! prediction, ptxas alone is kept.

use crate::emu::equiv::{check, Verdict};

use super::evaluate::Evaluated;
use super::TuneOptions;
use crate::ptx::Module;

/// Relative difference under which two predictions tie.
pub const TIE: f64 = 0.01;

/// Marks and returns the chosen variant's index (0, ptxas alone, when none qualifies).
pub fn choose(
    original: &Module,
    vs: &mut [Evaluated],
    opts: &TuneOptions,
    notes: &mut Vec<String>,
) -> usize {
    if opts.launch.is_none() && vs.iter().any(|v| v.report.kind.rewrites()) {
        notes.push(
            "without --launch, rewriting variants (spill, shuffle) cannot be proved equal to the \
             original and are never chosen"
                .into(),
        );
    }
    loop {
        let Some(i) = best(vs, opts.launch.is_some()) else {
            notes.push("no variant has a prediction: ptxas alone is kept".into());
            vs[0].report.chosen = true;
            return 0;
        };
        if vs[i].report.kind.rewrites() {
            let Some(spec) = opts.launch.as_ref() else {
                unreachable_choice(vs, i);
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

/// Guards the loop: a rewriting variant is never eligible without a spec.
fn unreachable_choice(vs: &mut [Evaluated], i: usize) {
    vs[i].report.error = Some("rewrites need a launch spec to be proved equal".into());
}

/// The index of the best eligible variant.
fn best(vs: &[Evaluated], have_spec: bool) -> Option<usize> {
    let eligible = |v: &Evaluated| {
        v.report.error.is_none()
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
