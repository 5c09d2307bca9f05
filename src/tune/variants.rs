//! The variants `warpsmith tune` compares (RegDem §4: the predictor chooses among register
//! allocation variants, RegDem's and the compiler's): ptxas alone; ptxas with `.maxnreg N` at each
//! occupancy cliff ([`crate::spill::cliff_caps`], the caps the spill pass tries); NVIDIA's
//! `.pragma "enable_smem_spilling"` at each cliff; warpsmith's shared-memory spilling at each
//! cliff ([`crate::spill`]); shuffle synthesis ([`crate::shuffle`]). Each is PTX text, so any
//! ptxas reproduces it — except the demote variants ([`super::demoted`]: ptxas's build alone or
//! at a cliff with its local-memory frame moved into shared memory in the cubin), which exist
//! only as cubins.

use serde::Serialize;

use crate::never_worse::DynamicSmem;
use crate::ptx::{FuncDirective, Module, Stmt};
use crate::shuffle::{shuffle_module, ShuffleOptions};
use crate::spill::{spill_module, SpillOptions, Target};

/// What made a variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// ptxas alone, or with `.maxnreg N`.
    Ptxas,
    /// ptxas with `.maxnreg N` and `.pragma "enable_smem_spilling"`.
    Pragma,
    /// warpsmith's shared-memory spilling at `.maxnreg N`.
    Spill,
    /// warpsmith's shuffle synthesis.
    Shuffle,
    /// ptxas's build (alone or at `.maxnreg N`) with its local-memory frame demoted to shared
    /// memory in the cubin (`warpsmith demote --local-to-shared`).
    Demote,
}

impl Kind {
    /// Whether the variant rewrites the kernel's instructions (and so must be proved equal to the
    /// original on the emulator before it may be chosen).
    pub fn rewrites(self) -> bool {
        matches!(self, Kind::Spill | Kind::Shuffle | Kind::Demote)
    }

    /// Whether the variant exists only as a cubin (its PTX does not reproduce it).
    pub fn cubin_only(self) -> bool {
        self == Kind::Demote
    }
}

/// One variant before it is measured.
#[derive(Clone, Debug)]
pub struct Candidate {
    /// `ptxas`, `ptxas-maxnreg-64`, `pragma-64`, `spill-64`, `shuffle`, `shuffle-64`, `demote`,
    /// `demote-64`, `regdem-64`.
    pub name: String,
    /// What made it.
    pub kind: Kind,
    /// The `.maxnreg` it carries, if any.
    pub max_regs: Option<u32>,
    /// The module, or why it could not be built.
    pub module: Result<Module, String>,
}

/// What the variants are built for.
#[derive(Clone, Debug)]
pub struct Context {
    /// The kernel.
    pub kernel: String,
    /// `sm_XX`.
    pub arch: String,
    /// Threads per block.
    pub threads: u32,
    /// The launch's dynamic shared memory.
    pub dynamic: DynamicSmem,
    /// ptxas options every variant is assembled with.
    pub ptxas_args: Vec<String>,
    /// The launches' block shape, for the spill variants (`TuneOptions::block_dim`).
    pub block_dim: Option<[u32; 3]>,
}

/// `m` with `.maxnreg n` on `kernel` (replacing any), and with `pragma` also the
/// `enable_smem_spilling` pragma at the top of its body (raising `.version` to 8.7, which the
/// pragma needs).
pub fn with_cap(m: &Module, kernel: &str, n: u32, pragma: bool) -> Module {
    let mut m = m.clone();
    if pragma && m.version < (8, 7) {
        m.version = (8, 7);
    }
    for f in m.functions_mut().filter(|f| &*f.name == kernel) {
        f.directives
            .retain(|d| !matches!(d, FuncDirective::MaxNreg(_)));
        f.directives.push(FuncDirective::MaxNreg(n));
        if pragma {
            if let Some(b) = f.body.as_mut() {
                b.stmts
                    .insert(0, Stmt::Pragma(vec!["enable_smem_spilling".into()]));
            }
        }
    }
    m
}

/// Every variant for `caps` (the occupancy cliffs to try, nearest first) below or at the
/// kernel's own `regs`; without the rewriting ones (spill, shuffle, demote) when
/// `skip_rewrites`. A demote candidate follows each ptxas build it is made from (`demote` of
/// ptxas alone, `demote-N` of `ptxas-maxnreg-N`); it carries that build's module. `regdem-N`
/// demotes registers of ptxas alone's build to N in the cubin.
pub fn build(
    original: &Module,
    ctx: &Context,
    caps: &[u32],
    regs: u32,
    skip_rewrites: bool,
) -> Vec<Candidate> {
    let mut out = vec![Candidate {
        name: ptxas_name(None),
        kind: Kind::Ptxas,
        max_regs: None,
        module: Ok(original.clone()),
    }];
    for &n in caps.iter().filter(|&&n| n < regs) {
        out.push(Candidate {
            name: ptxas_name(Some(n)),
            kind: Kind::Ptxas,
            max_regs: Some(n),
            module: Ok(with_cap(original, &ctx.kernel, n, false)),
        });
    }
    for &n in caps {
        out.push(Candidate {
            name: format!("pragma-{n}"),
            kind: Kind::Pragma,
            max_regs: Some(n),
            module: Ok(with_cap(original, &ctx.kernel, n, true)),
        });
    }
    if skip_rewrites {
        return out;
    }
    for &n in caps {
        let t0 = std::time::Instant::now();
        let module = spilled(original, ctx, n);
        log::info!("tune: spill at {n} built in {:.1?}", t0.elapsed());
        out.push(Candidate {
            name: format!("spill-{n}"),
            kind: Kind::Spill,
            max_regs: Some(n),
            module,
        });
    }
    let shuffle = shuffled(original, ctx);
    let capped = shuffle_caps(&shuffle, &ctx.kernel, caps, regs);
    out.push(Candidate {
        name: shuffle_name(None),
        kind: Kind::Shuffle,
        max_regs: None,
        module: shuffle,
    });
    out.extend(capped);
    let demotes: Vec<Candidate> = out
        .iter()
        .filter(|c| c.kind == Kind::Ptxas)
        .map(|c| Candidate {
            name: demote_name(c.max_regs),
            kind: Kind::Demote,
            max_regs: c.max_regs,
            module: c.module.clone(),
        })
        .collect();
    out.extend(demotes);
    for &n in caps.iter().filter(|&&n| n < regs) {
        out.push(Candidate {
            name: regdem_name(n),
            kind: Kind::Demote,
            max_regs: Some(n),
            module: Ok(original.clone()),
        });
    }
    out
}

/// The shuffled kernel at each cap below the kernel's `regs` (`shuffle-N`): shuffles trade loads
/// for `shfl.sync` and change what stays live, so the caps are tried on the shuffled kernel too.
/// None when shuffle synthesis replaced no load.
fn shuffle_caps(
    shuffle: &Result<Module, String>,
    kernel: &str,
    caps: &[u32],
    regs: u32,
) -> Vec<Candidate> {
    let Ok(s) = shuffle else {
        return Vec::new();
    };
    caps.iter()
        .filter(|&&n| n < regs)
        .map(|&n| Candidate {
            name: shuffle_name(Some(n)),
            kind: Kind::Shuffle,
            max_regs: Some(n),
            module: Ok(with_cap(s, kernel, n, false)),
        })
        .collect()
}

/// The name of the shuffle variant at `.maxnreg cap` (without a cap when `None`).
pub fn shuffle_name(cap: Option<u32>) -> String {
    cap.map_or_else(|| "shuffle".to_string(), |n| format!("shuffle-{n}"))
}

/// The name of the variant that demotes registers of ptxas's build alone to `n` registers.
pub fn regdem_name(n: u32) -> String {
    format!("regdem-{n}")
}

/// What a demote variant named `name` (with `.maxnreg` `cap`) is made from: the ptxas build it
/// rewrites, and the register count it demotes registers to (`None`: the frame only).
pub fn demote_source(name: &str, cap: Option<u32>) -> (String, Option<u32>) {
    match name.strip_prefix("regdem-").and_then(|n| n.parse().ok()) {
        Some(n) => (ptxas_name(None), Some(n)),
        None => (ptxas_name(cap), None),
    }
}

/// The name of the demote variant of ptxas's build at `cap` (alone when `None`).
pub fn demote_name(cap: Option<u32>) -> String {
    cap.map_or_else(|| "demote".to_string(), |n| format!("demote-{n}"))
}

/// The name of the ptxas build a demote variant at `cap` is made from.
pub fn ptxas_name(cap: Option<u32>) -> String {
    cap.map_or_else(|| "ptxas".to_string(), |n| format!("ptxas-maxnreg-{n}"))
}

/// warpsmith's spilling at `.maxnreg n`, kept only where the never-worse rule keeps it.
fn spilled(original: &Module, ctx: &Context, n: u32) -> Result<Module, String> {
    let mut m = original.clone();
    let opts = SpillOptions {
        target: Target::MaxRegs(n),
        kernel: Some(ctx.kernel.clone()),
        arch: ctx.arch.clone(),
        block_size: Some(ctx.threads),
        block_dim: ctx.block_dim,
        smem_budget: None,
        use_ptxas: true,
        dynamic_smem: match ctx.dynamic {
            DynamicSmem::Known(d) => Some(d),
            DynamicSmem::Unknown => None,
        },
        ptxas_args: ctx.ptxas_args.clone(),
        jobs: None,
    };
    let report = spill_module(&mut m, &opts).map_err(|e| format!("spill refused: {e}"))?;
    match report.kernels.iter().find(|k| k.name == ctx.kernel) {
        Some(k) if k.kept => Ok(m),
        Some(k) => Err(format!("spill left the kernel as it was: {}", k.verdict)),
        None => Err("spill did not reach the kernel".into()),
    }
}

/// Shuffle synthesis on the kernel (the drop-in's default budgets), when it replaces a load.
fn shuffled(original: &Module, ctx: &Context) -> Result<Module, String> {
    let mut m = original.clone();
    let opts = ShuffleOptions {
        kernel: Some(ctx.kernel.clone()),
        ..ShuffleOptions::default()
    };
    let report = shuffle_module(&mut m, &opts).map_err(|e| format!("shuffle failed: {e}"))?;
    let n: usize = report.kernels.iter().map(|k| k.shuffles).sum();
    if n == 0 {
        return Err("shuffle found no load to replace".into());
    }
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptx::{parse_module, print_module};

    const K: &str = ".version 8.0\n.target sm_80\n.address_size 64\n\
        .visible .entry k(.param .u64 p)\n.maxnreg 200\n{\n\tret;\n}\n";

    #[test]
    fn the_shuffled_kernel_gets_each_cap_below_the_kernels_registers() {
        let shuffled = Ok(parse_module(K, "k.ptx").unwrap());
        let capped = shuffle_caps(&shuffled, "k", &[64, 40, 32], 48);
        let names: Vec<&str> = capped.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            ["shuffle-40", "shuffle-32"],
            "64 is not below 48 registers"
        );
        for (c, n) in capped.iter().zip([40, 32]) {
            assert_eq!((c.kind, c.max_regs), (Kind::Shuffle, Some(n)));
            let text = print_module(c.module.as_ref().unwrap());
            assert!(text.contains(&format!(".maxnreg {n}")), "{text}");
            assert!(!text.contains("enable_smem_spilling"), "{text}");
        }
        let none: Result<Module, String> = Err("shuffle found no load to replace".into());
        assert!(shuffle_caps(&none, "k", &[40, 32], 48).is_empty());
    }

    #[test]
    fn cap_replaces_maxnreg_and_pragma_raises_the_version() {
        let m = parse_module(K, "k.ptx").unwrap();
        let plain = print_module(&with_cap(&m, "k", 64, false));
        assert!(plain.contains(".maxnreg 64") && !plain.contains(".maxnreg 200"));
        assert!(plain.contains(".version 8.0") && !plain.contains("enable_smem_spilling"));
        let pragma = print_module(&with_cap(&m, "k", 32, true));
        assert!(pragma.contains(".version 8.7"), "{pragma}");
        assert!(pragma.contains("enable_smem_spilling"), "{pragma}");
    }
}
