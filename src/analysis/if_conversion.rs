//! Short guarded blocks folded into predicated straight-line code, as ptxas if-converts them,
//! for counting (issue 12's register model, [`super::regmodel`]).
//!
//! clang and NVRTC write a bounds check around a short body as a branch over it:
//!
//! ```text
//!     @%p3 bra $L__BB1_2;
//!     mad.lo.s32 %r19, %r5, %r14, %r2;   // the body: a few instructions
//!     ld.global.nc.f32 %f1, [%rd13];
//!     st.shared.f32 [%rd3], %f1;
//! $L__BB1_2:
//! ```
//!
//! ptxas predicates such a body (`@!P2 LDG.E.CONSTANT R8, [R8.64]`) and, the branch gone,
//! schedules across what were four blocks: `transpose_padded` (NVRTC, sm_80) issues its four
//! guarded loads together, and their addresses and results are live at once (22 registers,
//! where the model counting block by block gave 15; 23 now). The model's issue orders move
//! instructions only within a block ([`super::issue_order`]), so the body is converted here
//! first: the branch and its label go, and every instruction of the body takes the branch's
//! negated guard, which keeps it after the predicate's definition as in the SASS (an address
//! computed unguarded could be hoisted above it: NVRTC's `dynsmem_reverse` then counted 6 units
//! where ptxas keeps 5 live). A definition of a register that is not live at the label is
//! marked [`roles::SPECULATED`]: it ends the register's live range as the unconverted block's
//! definition did (a guarded definition otherwise does not, [`crate::machine::liveness`]).
//!
//! A body is converted only when the branch is the label's only way in besides falling
//! through, the body holds at most [`MAX_BODY`] instructions (line information between them,
//! `.loc`, is no instruction), none of them is guarded,
//! transfers control, synchronises threads, or is one that SASS expands into a sequence with
//! branches of its own ([`super::regmodel::expansion_need`]). Every instruction predicated
//! here carries [`PREDICATED`]: a loop whose body this makes one block is not one the model's
//! unrolling of small loops unrolls ([`super::loop_unroll`]; ptxas unrolls the loops PTX wrote
//! as one block). Measured on the register-model bench (1 Dec, session 47,
//! docs/benchmarks.md): 256 → 259 of 371 rows within ±10 %.

use crate::machine::cfg::Cfg;
use crate::machine::liveness::Liveness;
use crate::ptx::ir::{Body, Guard, Inst, Label, Modifier, Opcode, Reg, Stmt};
use crate::ptx::roles::{self, Control, Sync};

/// The most instructions a guarded body may hold to be converted: an empirical bound (on the
/// register-model bench, with loops left alone, a bound of 8 left one row fewer within ±10 %
/// than 12; 12, 16 and 32 gave the same rows).
pub const MAX_BODY: usize = 12;

/// The modifier word every instruction this module predicated carries, so that the model's
/// unrolling of small loops leaves alone a loop that was several blocks in the PTX
/// ([`super::loop_unroll`]). Never printed; PTX has no such modifier.
pub const PREDICATED: &str = "ws_predicated";

/// `body` with every convertible guarded body predicated and its branch and label removed;
/// `None` when there is none. `cfg` and `liveness` are `body`'s.
pub fn convert(body: &Body, cfg: &Cfg, liveness: &Liveness) -> Option<Body> {
    let regions = candidate_regions(body);
    if regions.is_empty() {
        return None;
    }
    let mut out = body.clone();
    for region in &regions {
        let live_at_join = cfg.block_of_label(region.join).map(|b| liveness.live_in(b));
        let ends_a_range = |defs: &[Reg]| {
            !defs.is_empty()
                && live_at_join.is_some_and(|live| defs.iter().all(|r| !live.contains(r.index())))
        };
        let negated = Guard {
            negated: !region.guard.negated,
            ..region.guard
        };
        for &i in &region.insts {
            let inst = &mut out.insts[i.index()];
            if ends_a_range(&roles::defs(inst)) {
                inst.mods.push(Modifier::Word(roles::SPECULATED.into()));
            }
            inst.mods.push(Modifier::Word(PREDICATED.into()));
            inst.guard = Some(negated);
        }
    }
    out.stmts.retain(|s| match s {
        Stmt::Inst(i) => !regions.iter().any(|r| r.branch == *i),
        Stmt::Label(l) => !regions.iter().any(|r| r.join == *l),
        _ => true,
    });
    Some(out)
}

/// Every convertible region of `body`, in order.
fn candidate_regions(body: &Body) -> Vec<Region> {
    let references = super::unnamed_labels::references(body);
    let mut regions = Vec::new();
    let mut at = 0;
    while at < body.stmts.len() {
        match region_at(body, &references, at) {
            Some(region) => {
                at = region.label_stmt + 1;
                regions.push(region);
            }
            None => at += 1,
        }
    }
    regions
}

/// A guarded branch over a convertible body.
struct Region {
    /// The branch.
    branch: Inst,
    /// The branch's guard.
    guard: Guard,
    /// The instructions of the body, in order.
    insts: Vec<Inst>,
    /// The label the branch jumps to, where the body ends.
    join: Label,
    /// The index in `stmts` of that label's definition.
    label_stmt: usize,
}

/// The region whose branch is statement `at` of `body`, if it is one the model converts.
fn region_at(body: &Body, references: &[u32], at: usize) -> Option<Region> {
    let Stmt::Inst(branch) = body.stmts[at] else {
        return None;
    };
    let inst = body.inst(branch);
    let guard = inst.guard?;
    let [join] = roles::branch_targets(inst)[..] else {
        return None;
    };
    if inst.opcode != Opcode::Bra || references.get(join.index()) != Some(&1) {
        return None;
    }
    let mut insts = Vec::new();
    for (k, s) in body.stmts.iter().enumerate().skip(at + 1) {
        match s {
            Stmt::Label(l) if *l == join => {
                let fits = !insts.is_empty() && insts.len() <= MAX_BODY;
                return fits.then_some(Region {
                    branch,
                    guard,
                    insts,
                    join,
                    label_stmt: k,
                });
            }
            Stmt::Inst(i) if insts.len() < MAX_BODY && predicable(body, *i) => insts.push(*i),
            // `.loc` and other debug directives are no code.
            Stmt::Debug { .. } => {}
            _ => return None,
        }
    }
    None
}

/// True when instruction `i` can be predicated in place: unguarded, no control transfer, no
/// synchronisation, no expansion into a branching sequence.
fn predicable(body: &Body, i: Inst) -> bool {
    let inst = body.inst(i);
    let effects = roles::effects(inst);
    inst.guard.is_none()
        && effects.control == Control::None
        && effects.sync == Sync::None
        && !effects.opaque
        && !effects.async_defs
        && super::regmodel::expansion_need(inst).is_none()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptx::parse_module;

    /// [`convert`] with `body`'s own CFG and liveness.
    fn convert_body(body: &Body) -> Option<Body> {
        let cfg = Cfg::compute(body);
        convert(body, &cfg, &Liveness::compute(body, &cfg))
    }

    fn body_of(text: &str) -> Body {
        let m = parse_module(text, "t.ptx").unwrap();
        let f = m.functions().next().unwrap().clone();
        f.body.unwrap()
    }

    /// A kernel over `p[n]` whose thread index is `%r2` and whose sum starts as `%f3 = 0`,
    /// then `rest` (its statements and the closing brace).
    fn kernel(rest: &str) -> String {
        let head = "
.version 8.7
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p, .param .u32 n)
{
    .reg .pred %p<3>;
    .reg .b32 %r<8>;
    .reg .f32 %f<4>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [p];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %tid.x;
    mov.f32 %f3, 0f00000000;
";
        format!("{head}{rest}")
    }

    const TWO_GUARDED_LOADS: &str = "
    setp.ge.s32 %p1, %r2, %r1;
    @%p1 bra $L__BB0_2;
    mul.wide.s32 %rd2, %r2, 4;
    add.s64 %rd3, %rd1, %rd2;
    ld.global.f32 %f1, [%rd3];
    mov.f32 %f3, %f1;
$L__BB0_2:
    add.s32 %r3, %r2, 32;
    setp.ge.s32 %p2, %r3, %r1;
    @%p2 bra $L__BB0_4;
    bar.sync 0;
$L__BB0_4:
    st.global.f32 [%rd1], %f3;
    ret;
}
";

    #[test]
    fn a_short_guarded_body_becomes_predicated_code() {
        let body = body_of(&kernel(TWO_GUARDED_LOADS));
        let out = convert_body(&body).expect("the first body converts");
        let labels = |b: &Body| {
            b.stmts
                .iter()
                .filter(|s| matches!(s, Stmt::Label(_)))
                .count()
        };
        assert_eq!(labels(&body), 2);
        assert_eq!(labels(&out), 1, "the barrier's body stays a branch");
        let converted: Vec<(String, Option<bool>, bool)> = out
            .inst_order()
            .map(|i| {
                let inst = out.inst(i);
                let guard = inst.guard.map(|g| g.negated);
                (
                    format!("{:?}", inst.opcode),
                    guard,
                    inst.has_word(roles::SPECULATED),
                )
            })
            .collect();
        let nth = |op: &str, n: usize| {
            converted
                .iter()
                .filter(|(o, ..)| o == op)
                .nth(n)
                .map(|(_, g, s)| (*g, *s))
                .unwrap()
        };
        // Every instruction of the body takes the negated guard; the temporaries dead at the
        // label are marked so that their definitions end their ranges, the merged %f3 is not.
        assert_eq!(nth("Mul", 0), (Some(true), true));
        assert_eq!(nth("Ld", 2), (Some(true), true), "the loaded temporary");
        assert_eq!(
            nth("Mov", 2),
            (Some(true), false),
            "%f3 merges at the label"
        );
        assert_eq!(converted.iter().filter(|(o, ..)| o == "Bra").count(), 1);
        // So the temporaries are not live at the kernel's entry; %f3's default is.
        let cfg = Cfg::compute(&out);
        let live = Liveness::compute(&out, &cfg);
        let entry = live.live_in(cfg.entry());
        let reg = |name: &str| (0..out.regs.len()).find(|&r| out.reg_name(Reg::new(r)) == name);
        for name in ["%rd2", "%rd3", "%f1", "%f3"] {
            let r = reg(name).unwrap();
            assert!(!entry.contains(r), "{name} is not live at the entry");
        }
        let before_load = live
            .live_before(&out, &cfg, out.inst_order().nth(7).unwrap())
            .unwrap();
        assert!(
            before_load.contains(reg("%f3").unwrap()),
            "the default survives a false guard"
        );
        assert!(
            !before_load.contains(reg("%f1").unwrap()),
            "the loaded value is not live yet"
        );
    }

    const GUARDED_SUM_LOOP: &str = "
$L__LOOP:
    setp.ge.s32 %p1, %r2, %r1;
    @%p1 bra $L__SKIP;
    mul.wide.s32 %rd2, %r2, 4;
    add.s64 %rd3, %rd1, %rd2;
    ld.global.f32 %f1, [%rd3];
    add.f32 %f3, %f3, %f1;
$L__SKIP:
    add.s32 %r2, %r2, 32;
    setp.lt.s32 %p2, %r2, 1024;
    @%p2 bra $L__LOOP;
    st.global.f32 [%rd1], %f3;
    ret;
}
";

    #[test]
    fn a_loop_predicated_into_one_block_is_not_unrolled_by_the_model() {
        use crate::analysis::loop_unroll::unroll_small_self_loops;
        let out = convert_body(&body_of(&kernel(GUARDED_SUM_LOOP)))
            .expect("the loop's guarded body converts");
        let unrolled = unroll_small_self_loops(&out, &Cfg::compute(&out));
        assert!(
            unrolled.is_none(),
            "ptxas unrolls loops PTX wrote as one block only"
        );
        // The same loop written as one block is unrolled.
        let straight = kernel(GUARDED_SUM_LOOP)
            .replace("    @%p1 bra $L__SKIP;\n", "")
            .replace("$L__SKIP:\n", "");
        let body = body_of(&straight);
        assert!(unroll_small_self_loops(&body, &Cfg::compute(&body)).is_some());
    }

    /// Line information (`clang -g`, Triton's `.loc`s) between a body's instructions is no
    /// code: the body converts as it does without it, so the model's figures do not depend on
    /// it.
    #[test]
    fn line_information_in_a_body_does_not_stop_the_conversion() {
        let with_loc = kernel(TWO_GUARDED_LOADS).replace(
            "    add.s64 %rd3, %rd1, %rd2;\n",
            "    .loc 1 12 3\n    add.s64 %rd3, %rd1, %rd2;\n    .loc 1 0 3\n",
        );
        let body = body_of(&with_loc);
        assert!(body.stmts.iter().any(|s| matches!(s, Stmt::Debug { .. })));
        let out = convert_body(&body).expect("the first body converts");
        let plain = convert_body(&body_of(&kernel(TWO_GUARDED_LOADS))).unwrap();
        let shape = |b: &Body| -> Vec<(String, Option<bool>)> {
            b.inst_order()
                .map(|i| {
                    let inst = b.inst(i);
                    (format!("{:?}", inst.opcode), inst.guard.map(|g| g.negated))
                })
                .collect()
        };
        assert_eq!(shape(&out), shape(&plain));
    }

    #[test]
    fn a_label_reached_from_elsewhere_is_not_converted() {
        let text = kernel(TWO_GUARDED_LOADS).replace("bar.sync 0;", "bra $L__BB0_2;");
        assert!(convert_body(&body_of(&text)).is_none());
    }
}
