//! Tuning one kernel of a module (RegDem §4 predicts per kernel): the variants are built and
//! assembled on the module without the other entry kernels (ptxas then compiles one kernel per
//! probe, not all of them), and the chosen variant gets the other kernels back, unchanged, after
//! its own items (entries never reference one another, so their order does not matter).

use crate::ptx::{FuncKind, Item, Module};

fn other_entry(item: &Item, kernel: &str) -> bool {
    matches!(item, Item::Function(f) if f.kind == FuncKind::Entry && *f.name != *kernel)
}

/// `module` without the entry kernels other than `kernel` (device functions, variables and
/// everything else stay).
pub fn strip(module: &Module, kernel: &str) -> Module {
    let mut m = module.clone();
    m.items.retain(|i| !other_entry(i, kernel));
    m
}

/// `tuned` (a variant of [`strip`]'s result) with the other entry kernels of `original`
/// appended.
pub fn splice(original: &Module, tuned: &Module, kernel: &str) -> Module {
    let mut m = tuned.clone();
    m.items.extend(
        original
            .items
            .iter()
            .filter(|i| other_entry(i, kernel))
            .cloned(),
    );
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptx::{parse_module, print_module};

    #[test]
    fn strip_then_splice_keeps_every_kernel() {
        let text = ".version 8.0\n.target sm_80\n.address_size 64\n\
            .func f()\n{\n\tret;\n}\n\
            .visible .entry a()\n{\n\tret;\n}\n\
            .visible .entry b()\n{\n\tret;\n}\n";
        let m = parse_module(text, "t.ptx").unwrap();
        let s = strip(&m, "b");
        let names: Vec<&str> = s.functions().map(|f| &*f.name).collect();
        assert_eq!(names, ["f", "b"]);
        let back = print_module(&splice(&m, &s, "b"));
        assert!(back.contains(".entry a") && back.contains(".entry b") && back.contains(".func f"));
    }
}
