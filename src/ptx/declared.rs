//! What a function declares in shared and local memory, read from its PTX: the static shared
//! bytes ptxas reports as `smem` (its own `.shared` variables and the module's that it or a
//! function it calls names, each at its alignment), whether it reads an unsized
//! `extern .shared` array (dynamic shared memory), and its `.local` bytes. The spilling pass
//! reads the shared figure where ptxas is not run; `warpsmith stats` prints all three.

use super::{FuncKind, Function, Module, StateSpace, Variable};

/// `f` and every function with a body that it calls, directly or through other calls, each once
/// (`f` first). ptxas gives a kernel the module's shared variables that any of them names.
pub fn reachable<'m>(module: &'m Module, f: &'m Function) -> Vec<&'m Function> {
    let mut seen: Vec<&Function> = vec![f];
    let mut k = 0;
    while let Some(&g) = seen.get(k) {
        k += 1;
        for name in g.referenced_symbols() {
            let callee = module
                .functions()
                .find(|h| &*h.name == name && h.kind == FuncKind::Func && h.body.is_some());
            if let Some(callee) = callee {
                if !seen.iter().any(|s| std::ptr::eq(*s, callee)) {
                    seen.push(callee);
                }
            }
        }
    }
    seen
}

/// A function's declared memory.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DeclaredMemory {
    /// Static shared memory, bytes: the variables laid out in declaration order, each at its
    /// alignment (`.align`, else its element size).
    pub shared: u64,
    /// An unsized shared array is declared or named (the launch gives its size).
    pub dynamic_shared: bool,
    /// `.local` variables, bytes, laid out the same way.
    pub local: u64,
}

impl DeclaredMemory {
    /// The memory `f` declares, or names from `module` itself or through the functions it calls
    /// ([`reachable`]). A module-level variable reached only through another variable's
    /// initialiser is not counted.
    pub fn of(module: &Module, f: &Function) -> DeclaredMemory {
        let mut m = DeclaredMemory::default();
        let mut count = |v: &Variable| {
            if is_shared(v.space) {
                if v.dims.iter().any(Option::is_none) {
                    m.dynamic_shared = true;
                } else {
                    m.shared = place(m.shared, v);
                }
            } else if v.space == StateSpace::Local {
                m.local = place(m.local, v);
            }
        };
        if let Some(b) = &f.body {
            b.vars().for_each(&mut count);
        }
        let used: std::collections::BTreeSet<&str> = reachable(module, f)
            .into_iter()
            .flat_map(Function::referenced_symbols)
            .collect();
        for v in module.vars() {
            if v.name.as_deref().is_some_and(|n| used.contains(n)) {
                count(v);
            }
        }
        m
    }
}

/// Whether `space` is shared memory of the block (or of the cluster).
fn is_shared(space: StateSpace) -> bool {
    matches!(
        space,
        StateSpace::Shared | StateSpace::SharedCta | StateSpace::SharedCluster
    )
}

/// The end of `v` placed after `end` bytes, at its alignment.
fn place(end: u64, v: &Variable) -> u64 {
    let elem = u64::from(v.ty.bytes()) * u64::from(v.vec.unwrap_or(1));
    let align = v.align.map_or(elem, u64::from).max(1);
    end.div_ceil(align) * align + v.size_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptx::parse_module;

    fn declared(src: &str, kernel: &str) -> DeclaredMemory {
        let m = parse_module(src, "t.ptx").unwrap();
        DeclaredMemory::of(&m, m.function(kernel).unwrap())
    }

    const HEAD: &str = ".version 8.0\n.target sm_80\n.address_size 64\n";

    #[test]
    fn arrays_are_placed_at_their_alignment() {
        let src = format!(
            "{HEAD}.shared .align 1 .b8 flag[3];\n.shared .align 16 .b8 tile[64];\n\
             .visible .entry k() {{\n.reg .b64 %rd<3>;\n\
             mov.u64 %rd1, flag;\nmov.u64 %rd2, tile;\nret;\n}}\n"
        );
        // flag at 0..3, tile at 16..80.
        assert_eq!(
            declared(&src, "k"),
            DeclaredMemory {
                shared: 80,
                dynamic_shared: false,
                local: 0
            }
        );
    }

    /// ptxas 12.9 gives `k` the 4096 bytes its callee stores to (`4096 bytes smem`).
    #[test]
    fn arrays_a_callee_names_count_for_the_kernel() {
        let src = format!(
            "{HEAD}.shared .align 4 .b8 tile[4096];\n\
             .func helper(.param .b32 a) {{\n.reg .b32 %r<2>;\nld.param.b32 %r1, [a];\n\
             st.shared.u32 [tile], %r1;\nret;\n}}\n\
             .visible .entry k() {{\n.reg .b32 %r<2>;\nmov.u32 %r1, %tid.x;\n\
             {{\n.param .b32 pa;\nst.param.b32 [pa], %r1;\ncall.uni helper, (pa);\n}}\nret;\n}}\n"
        );
        assert_eq!(declared(&src, "k").shared, 4096);
        assert_eq!(declared(&src, "helper").shared, 4096);
    }

    #[test]
    fn unnamed_module_arrays_and_extern_arrays() {
        let src = format!(
            "{HEAD}.shared .align 4 .f32 other[256];\n.extern .shared .align 16 .b8 dyn[];\n\
             .visible .entry k() {{\n.local .align 8 .b8 frame[12];\n.shared .align 4 .u32 s[5];\n\
             .reg .b64 %rd<2>;\nmov.u64 %rd1, dyn;\nret;\n}}\n"
        );
        // `other` is not named by k; `dyn` has no size.
        assert_eq!(
            declared(&src, "k"),
            DeclaredMemory {
                shared: 20,
                dynamic_shared: true,
                local: 12
            }
        );
    }
}
