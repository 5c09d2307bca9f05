//! What a function declares in shared and local memory, read from its PTX: the static shared
//! bytes ptxas reports as `smem` (its own `.shared` variables and the module's that its body
//! names, each at its alignment), whether it reads an unsized `extern .shared` array (dynamic
//! shared memory), and its `.local` bytes. The spilling pass reads the shared figure where ptxas
//! is not run; `warpsmith stats` prints all three.

use super::{Function, Module, StateSpace, Variable};

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
    /// The memory `f` declares or names from `module`. A module-level variable reached only
    /// through another variable's initialiser is not counted.
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
        let used = f.referenced_symbols();
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
