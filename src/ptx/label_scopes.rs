//! Labels scoped by `{ … }` blocks: a statement block opens a scope for the names declared in it,
//! and ptxas (12.9, 13.4) accepts a label defined again in another block, binding each use to the
//! block that encloses it. Hand-written inline assembly relies on it:
//! CUTLASS's `mbarrier` wait loops (`LAB_WAIT: … bra LAB_WAIT; DONE:`) are pasted as one braced
//! block per call, so an sm_90 kernel defines `LAB_WAIT` and `DONE` once per block, and ptxas
//! accepts it.
//!
//! The parser interns labels by name for the whole function, which is right for every kernel
//! whose labels are unique (the common case, and the fast one). When a name is defined a second
//! time it gives that definition its own label and calls [`scope_labels`] at the end of the body:
//! every label operand is bound again, by name, to the definition in the innermost enclosing
//! block that has one (before or after the use, as in PTX), and the later definitions of a name
//! are renamed `NAME$sK` so that the printed module and every later pass see unique names. Two
//! definitions of one name in the same block remain an error.

use super::fxhash::FxMap;
use super::ir::{Body, Label, Stmt};

/// What [`scope_labels`] found wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ScopeError {
    /// This definition repeats a name already defined in the same block.
    DefinedTwice(Label),
    /// A use of this label's name has no definition in an enclosing block (the name is defined
    /// only in blocks that do not enclose the use).
    NotInScope(Label),
}

/// The block of each statement: block 0 is the function body; `parents[b]` encloses block `b`.
struct Blocks {
    of_stmt: Vec<u32>,
    parents: Vec<u32>,
}

fn blocks(body: &Body) -> Blocks {
    let mut of_stmt = Vec::with_capacity(body.stmts.len());
    let mut parents = vec![0];
    let mut stack = vec![0u32];
    for s in &body.stmts {
        // The body block stays at the bottom of the stack (an unbalanced `}` cannot pop it).
        let current = *stack.last().unwrap_or(&0);
        match s {
            Stmt::ScopeOpen => {
                let b = parents.len() as u32;
                parents.push(current);
                stack.push(b);
                of_stmt.push(b);
            }
            Stmt::ScopeClose => {
                of_stmt.push(current);
                if stack.len() > 1 {
                    stack.pop();
                }
            }
            _ => of_stmt.push(current),
        }
    }
    Blocks { of_stmt, parents }
}

/// The label a statement defines, if any.
fn defined_label(s: &Stmt) -> Option<Label> {
    match s {
        Stmt::Label(l)
        | Stmt::BranchTargets { label: l, .. }
        | Stmt::CallTargets { label: l, .. }
        | Stmt::CallPrototype { label: l, .. } => Some(*l),
        _ => None,
    }
}

/// Binds every label use of `body` to the definition its block sees and renames repeated names
/// (see the module documentation). Returns what could not be bound.
pub(crate) fn scope_labels(body: &mut Body) -> Vec<ScopeError> {
    let blocks = blocks(body);
    let mut errors = Vec::new();
    // (block, name) → the label defined there.
    let mut defs: FxMap<(u32, &str), Label> = FxMap::default();
    for (i, s) in body.stmts.iter().enumerate() {
        if let Some(l) = defined_label(s) {
            let key = (blocks.of_stmt[i], &*body.labels[l.index()]);
            if defs.insert(key, l).is_some() {
                errors.push(ScopeError::DefinedTwice(l));
            }
        }
    }
    let defined: std::collections::HashSet<&str> = defs.keys().map(|(_, n)| *n).collect();
    let bind = |l: Label, mut block: u32, errors: &mut Vec<ScopeError>| -> Label {
        let name = &*body.labels[l.index()];
        loop {
            if let Some(d) = defs.get(&(block, name)) {
                return *d;
            }
            if block == 0 {
                // A name defined nowhere is the parser's "undefined label"; one defined only
                // in blocks that do not enclose this use is ours.
                if defined.contains(name) {
                    errors.push(ScopeError::NotInScope(l));
                }
                return l;
            }
            block = blocks.parents[block as usize];
        }
    };
    // Branch-target tables are statements: rebound after the walk over them.
    let mut targets: Vec<(usize, Vec<Label>)> = Vec::new();
    for (i, s) in body.stmts.iter().enumerate() {
        let block = blocks.of_stmt[i];
        match s {
            Stmt::Inst(id) => {
                for op in body.insts[id.index()].operands.iter_mut() {
                    op.for_each_label_mut(&mut |l| *l = bind(*l, block, &mut errors));
                }
            }
            Stmt::BranchTargets { targets: t, .. } => {
                let new = t.iter().map(|&l| bind(l, block, &mut errors)).collect();
                targets.push((i, new));
            }
            _ => {}
        }
    }
    for (i, new) in targets {
        if let Stmt::BranchTargets { targets: t, .. } = &mut body.stmts[i] {
            *t = new;
        }
    }
    rename_repeated(body);
    errors
}

/// Gives the second and later labels of one name the name `NAME$sK` (K from 1, skipping names
/// the function already has).
fn rename_repeated(body: &mut Body) {
    // Every name in use, the function's own and the ones given here.
    let mut taken: std::collections::HashSet<Box<str>> = body.labels.iter().cloned().collect();
    let mut seen: std::collections::HashSet<Box<str>> = std::collections::HashSet::new();
    let mut next: FxMap<Box<str>, u32> = FxMap::default();
    for i in 0..body.labels.len() {
        if seen.insert(body.labels[i].clone()) {
            continue;
        }
        let base = body.labels[i].clone();
        let k = next.entry(base.clone()).or_insert(0);
        let name = loop {
            *k += 1;
            let candidate: Box<str> = format!("{base}$s{k}").into();
            if !taken.contains(&candidate) {
                break candidate;
            }
        };
        taken.insert(name.clone());
        body.labels[i] = name;
    }
}

#[cfg(test)]
mod tests {
    use crate::ptx::{parse_module, print_module};

    /// CUTLASS's `mbarrier` wait (cutlass/arch/barrier.h), pasted twice, each copy in its own
    /// block, plus an outer label of the same name as an inner one.
    const TWO_WAITS: &str = "\
.version 8.0
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 p)
{
\t.reg .b32 %r<3>;
\tmov.u32 %r1, 0;
\t{
\t.reg .pred P1;
\tLAB_WAIT:
\tmbarrier.try_wait.parity.shared::cta.b64 P1, [%r1], %r2;
\t@P1 bra DONE;
\tbra LAB_WAIT;
\tDONE:
\t}
\t{
\t.reg .pred P1;
\tLAB_WAIT:
\tmbarrier.try_wait.parity.shared::cta.b64 P1, [%r1], %r2;
\t@P1 bra DONE;
\tbra LAB_WAIT;
\tDONE:
\t}
\tbra DONE;
DONE:
\tret;
}
";

    /// The label each `bra` of the printed module jumps to, and the labels defined, in order.
    fn jumps_and_labels(text: &str) -> (Vec<String>, Vec<String>) {
        let jumps = text
            .lines()
            .filter_map(|l| l.split_once("bra").map(|(_, t)| t))
            .map(|t| t.trim().trim_end_matches(';').trim().to_string())
            .collect();
        let labels = text
            .lines()
            .map(str::trim)
            .filter(|l| l.ends_with(':'))
            .map(|l| l.trim_end_matches(':').to_string())
            .collect();
        (jumps, labels)
    }

    #[test]
    fn a_label_binds_to_its_own_block() {
        let m = parse_module(TWO_WAITS, "k.ptx").expect("blocks may repeat a label");
        let text = print_module(&m);
        let (jumps, labels) = jumps_and_labels(&text);
        assert_eq!(
            labels,
            ["LAB_WAIT", "DONE", "LAB_WAIT$s1", "DONE$s1", "DONE$s2"]
        );
        // Forward and backward jumps stay in their block; the outer `bra DONE` finds the
        // function's own DONE, not a block's.
        assert_eq!(
            jumps,
            ["DONE", "LAB_WAIT", "DONE$s1", "LAB_WAIT$s1", "DONE$s2"]
        );
        // The printed module parses to the same module.
        assert_eq!(parse_module(&text, "k2.ptx").unwrap(), m);
    }

    #[test]
    fn a_repeated_label_in_one_block_is_an_error() {
        let bad = TWO_WAITS.replace("\t}\n\t{\n", "");
        let e = parse_module(&bad, "k.ptx").unwrap_err().to_string();
        assert!(e.contains("label `LAB_WAIT` defined twice"), "{e}");
    }

    #[test]
    fn a_label_of_another_block_is_not_in_scope() {
        let bad = TWO_WAITS.replace("\tbra DONE;\nDONE:\n", "\tbra LAB_WAIT;\n");
        let e = parse_module(&bad, "k.ptx").unwrap_err().to_string();
        assert!(e.contains("`LAB_WAIT` is defined only in blocks"), "{e}");
    }
}
