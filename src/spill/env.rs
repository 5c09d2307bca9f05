//! Spilling options from the environment, for the front ends that have no command line of their
//! own: the `warpsmith ptxas` wrapper (`WARPSMITH_PASSES=spill`) and the LLVM plugin's
//! code-generation hook. One reader so that both understand exactly the same variables:
//!
//! | variable | meaning | default |
//! |---|---|---|
//! | `WARPSMITH_SPILL_MAX_REGS` | `keep` (only where ptxas alone uses local memory: move it to shared memory at the same occupancy), `auto` (next occupancy cliff) or `N` (a register cap) | `keep` |
//! | `WARPSMITH_SPILL_KERNEL` | only this kernel | every kernel |
//! | `WARPSMITH_SPILL_ARCH` | `sm_XX` for occupancy | the caller's (`-arch`, the module's `.target`) |
//! | `WARPSMITH_SPILL_BLOCK_SIZE` | threads per block for kernels without launch bounds | none (such kernels are refused) |
//! | `WARPSMITH_SPILL_BLOCK_DIM` | `X[,Y[,Z]]`: the block shape of every launch, for kernels whose `.reqntid` does not give it; lane-affine values then take two words per warp, and the rewrite is correct only for launches of that shape | unknown (`%tid` divergent) |
//! | `WARPSMITH_SPILL_SMEM_BUDGET` | most extra shared memory per block, bytes | keeps the target occupancy |
//! | `WARPSMITH_SPILL_DYNAMIC_SMEM` | dynamic shared memory the kernel is launched with, bytes | 0 for kernels without an `extern .shared` array; unknown (no shared memory added) for those with one |
//! | `WARPSMITH_SPILL_JOBS` | most ptxas runs the search keeps in flight at once (the result is the same for every value) | the machine's cores, at most 4 |
//! | `WARPSMITH_SPILL_PTXAS_CHECK` | `0` to skip the `ptxas -v` searches and the never-worse rule inside the pass (the drop-in still applies the rule to its whole rewrite) | `1` |

use super::{SpillOptions, Target};
use crate::analysis::divergence::parse_block_dim;

/// A variable with a value that cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("environment variable {var}={value:?}: {why}")]
pub struct EnvError {
    /// The variable.
    pub var: &'static str,
    /// Its value.
    pub value: String,
    /// What is wrong with it.
    pub why: &'static str,
}

/// Reads the spilling options through `get` (normally [`std::env::var`]); `arch` is the caller's
/// architecture, used when `WARPSMITH_SPILL_ARCH` is unset.
pub fn spill_options_with(
    get: impl Fn(&str) -> Option<String>,
    arch: &str,
) -> Result<SpillOptions, EnvError> {
    let num = |var: &'static str| u32_var(&get, var);
    let target = match get("WARPSMITH_SPILL_MAX_REGS") {
        None => Target::KeepOccupancy,
        Some(v) if v.trim().is_empty() || v.trim() == "keep" => Target::KeepOccupancy,
        Some(v) if v.trim() == "auto" => Target::Auto,
        Some(v) => match v.trim().parse::<u32>() {
            Ok(n) if (16..=255).contains(&n) => Target::MaxRegs(n),
            _ => {
                return Err(EnvError {
                    var: "WARPSMITH_SPILL_MAX_REGS",
                    value: v,
                    why: "expected `keep`, `auto` or a register count in 16..=255",
                })
            }
        },
    };
    let use_ptxas = match get("WARPSMITH_SPILL_PTXAS_CHECK").as_deref().map(str::trim) {
        None | Some("") | Some("1") => true,
        Some("0") => false,
        Some(v) => {
            return Err(EnvError {
                var: "WARPSMITH_SPILL_PTXAS_CHECK",
                value: v.to_string(),
                why: "expected 0 or 1",
            })
        }
    };
    let arch = match get("WARPSMITH_SPILL_ARCH") {
        Some(a) if !a.trim().is_empty() => a.trim().to_string(),
        _ => arch.to_string(),
    };
    Ok(SpillOptions {
        target,
        kernel: get("WARPSMITH_SPILL_KERNEL").filter(|k| !k.trim().is_empty()),
        arch,
        block_size: num("WARPSMITH_SPILL_BLOCK_SIZE")?,
        block_dim: match get("WARPSMITH_SPILL_BLOCK_DIM") {
            Some(v) if !v.trim().is_empty() => {
                Some(parse_block_dim(v.trim()).map_err(|_| EnvError {
                    var: "WARPSMITH_SPILL_BLOCK_DIM",
                    value: v,
                    why: "expected X[,Y[,Z]] (dimensions 1..1024, at most 1024 threads)",
                })?)
            }
            _ => None,
        },
        smem_budget: num("WARPSMITH_SPILL_SMEM_BUDGET")?,
        use_ptxas,
        dynamic_smem: num("WARPSMITH_SPILL_DYNAMIC_SMEM")?,
        ptxas_args: Vec::new(),
        jobs: match num("WARPSMITH_SPILL_JOBS")? {
            Some(0) => {
                return Err(EnvError {
                    var: "WARPSMITH_SPILL_JOBS",
                    value: "0".into(),
                    why: "expected at least 1",
                })
            }
            n => n.map(|n| n as usize),
        },
    })
}

/// A non-negative integer variable read through `get`: `None` when unset or empty.
pub fn u32_var(
    get: &impl Fn(&str) -> Option<String>,
    var: &'static str,
) -> Result<Option<u32>, EnvError> {
    match get(var) {
        None => Ok(None),
        Some(v) if v.trim().is_empty() => Ok(None),
        Some(v) => v.trim().parse::<u32>().map(Some).map_err(|_| EnvError {
            var,
            value: v,
            why: "expected a non-negative integer",
        }),
    }
}

/// [`spill_options_with`] on the process environment.
pub fn spill_options_from_env(arch: &str) -> Result<SpillOptions, EnvError> {
    spill_options_with(|v| std::env::var(v).ok(), arch)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(vars: &[(&str, &str)]) -> Result<SpillOptions, EnvError> {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        spill_options_with(
            |k| vars.iter().find(|(a, _)| a == k).map(|(_, b)| b.clone()),
            "sm_80",
        )
    }

    #[test]
    fn defaults_keep_the_occupancy_with_callers_arch() {
        let o = opts(&[]).unwrap();
        assert_eq!(o.target, Target::KeepOccupancy);
        assert_eq!(o.arch, "sm_80");
        assert!(o.use_ptxas);
        assert_eq!(o.dynamic_smem, None);
        assert_eq!(o.block_size, None);
        assert_eq!(o.jobs, None);
    }

    #[test]
    fn reads_every_variable() {
        let o = opts(&[
            ("WARPSMITH_SPILL_MAX_REGS", "64"),
            ("WARPSMITH_SPILL_KERNEL", "k"),
            ("WARPSMITH_SPILL_ARCH", "sm_90"),
            ("WARPSMITH_SPILL_BLOCK_SIZE", "128"),
            ("WARPSMITH_SPILL_SMEM_BUDGET", "4096"),
            ("WARPSMITH_SPILL_DYNAMIC_SMEM", "1024"),
            ("WARPSMITH_SPILL_PTXAS_CHECK", "0"),
            ("WARPSMITH_SPILL_JOBS", "3"),
        ])
        .unwrap();
        assert_eq!(o.target, Target::MaxRegs(64));
        assert_eq!(o.kernel.as_deref(), Some("k"));
        assert_eq!(o.arch, "sm_90");
        assert_eq!(o.block_size, Some(128));
        assert_eq!(o.smem_budget, Some(4096));
        assert_eq!(o.dynamic_smem, Some(1024));
        assert!(!o.use_ptxas);
        assert_eq!(o.jobs, Some(3));
    }

    #[test]
    fn the_register_target_is_keep_auto_or_a_count() {
        for (v, t) in [
            ("", Target::KeepOccupancy),
            ("keep", Target::KeepOccupancy),
            (" auto ", Target::Auto),
            ("255", Target::MaxRegs(255)),
        ] {
            assert_eq!(
                opts(&[("WARPSMITH_SPILL_MAX_REGS", v)]).unwrap().target,
                t,
                "{v:?}"
            );
        }
    }

    #[test]
    fn rejects_bad_values_naming_the_variable() {
        let e = opts(&[("WARPSMITH_SPILL_MAX_REGS", "lots")]).unwrap_err();
        assert_eq!(e.var, "WARPSMITH_SPILL_MAX_REGS");
        assert!(opts(&[("WARPSMITH_SPILL_MAX_REGS", "8")]).is_err());
        let e = opts(&[("WARPSMITH_SPILL_BLOCK_SIZE", "-1")]).unwrap_err();
        assert_eq!(e.var, "WARPSMITH_SPILL_BLOCK_SIZE");
        assert!(e.to_string().contains("WARPSMITH_SPILL_BLOCK_SIZE"));
        let e = opts(&[("WARPSMITH_SPILL_JOBS", "0")]).unwrap_err();
        assert_eq!(e.var, "WARPSMITH_SPILL_JOBS");
    }

    #[test]
    fn the_block_shape_is_read_and_checked() {
        assert_eq!(opts(&[]).unwrap().block_dim, None);
        let o = opts(&[("WARPSMITH_SPILL_BLOCK_DIM", "32,8")]).unwrap();
        assert_eq!(o.block_dim, Some([32, 8, 1]));
        let e = opts(&[("WARPSMITH_SPILL_BLOCK_DIM", "64,64")]).unwrap_err();
        assert_eq!(e.var, "WARPSMITH_SPILL_BLOCK_DIM");
    }
}
