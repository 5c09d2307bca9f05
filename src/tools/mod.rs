//! Discovery and invocation of the external tools warpsmith works with.
//!
//! warpsmith never bundles NVIDIA's or LLVM's programs; it finds them. [`find`] looks for a
//! [`Tool`] in this order (the same order `lit-tests/lit.cfg.py` uses, documented in
//! `docs/tools.md`):
//!
//! 1. the tool's environment variable ([`Tool::env_var`], e.g. `WARPSMITH_PTXAS`): an explicit
//!    choice, so a value that names no executable is an error rather than a fall-through;
//! 2. the project-local place: for the NVIDIA tools (`ptxas`, `nvdisasm`, `cuobjdump`) the
//!    `.tools/bin` folder that `scripts/setup.sh` fills — in the source checkout this crate was
//!    built from (`CARGO_MANIFEST_DIR`) and in any folder above the running executable; for the
//!    LLVM tools `/usr/lib/llvm-22/bin` (Debian's LLVM 22 packages);
//! 3. the `PATH`, by the tool's usual names (versioned names such as `clang-22` first).
//!
//! A missing tool is reported as [`ToolError::NotFound`], whose message names the tool, its
//! environment variable and the setup command `scripts/setup.sh`.
//!
//! The [`ptxas`] submodule runs `ptxas -v` and parses the per-function resource figures it prints
//! (registers, spills, stack, shared and constant memory) into [`KernelResources`]; [`cuda`]
//! compiles the project's CUDA kernels to PTX with clang 22 as `scripts/compile-kernels.sh` does.

pub mod cuda;
mod limited;
pub mod ptxas;
mod temp;

pub use ptxas::{
    parse_ptxas_verbose, ptxas_accepts, ptxas_accepts_source, ptxas_assemble_source, ptxas_runs,
    ptxas_verbose, ptxas_verbose_source, Assembled, KernelResources,
};

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Output};

/// The command that installs every external tool on a fresh Debian 12 machine.
pub const SETUP_COMMAND: &str = "scripts/setup.sh";

/// Where Debian's LLVM 22 packages put the LLVM programs (the project-local place for LLVM tools).
pub const LLVM_BIN_DIR: &str = "/usr/lib/llvm-22/bin";

/// An external program warpsmith can use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Tool {
    /// NVIDIA's PTX assembler (PTX → cubin; `-v` prints register and memory figures).
    Ptxas,
    /// NVIDIA's SASS disassembler for cubins.
    Nvdisasm,
    /// NVIDIA's object dumper (SASS and PTX out of fat binaries and cubins).
    Cuobjdump,
    /// clang 22 (CUDA device compilation to PTX).
    Clang,
    /// `llvm-config` of LLVM 22 (include and library paths for the plugin build).
    LlvmConfig,
    /// LLVM 22's `opt` (runs IR passes, loads the warpsmith pass plugin).
    Opt,
    /// LLVM 22's `llc` (IR → PTX with the NVPTX back end).
    Llc,
    /// LLVM 22's `FileCheck` (pattern checks in the lit tests).
    FileCheck,
    /// LLVM 22's `lit` (the test runner for `lit-tests/`).
    Lit,
}

impl Tool {
    /// Every tool, in declaration order.
    pub const ALL: [Tool; 9] = [
        Tool::Ptxas,
        Tool::Nvdisasm,
        Tool::Cuobjdump,
        Tool::Clang,
        Tool::LlvmConfig,
        Tool::Opt,
        Tool::Llc,
        Tool::FileCheck,
        Tool::Lit,
    ];

    /// The environment variable that overrides the search (a path, or a bare name looked up on
    /// `PATH`).
    pub fn env_var(self) -> &'static str {
        match self {
            Tool::Ptxas => "WARPSMITH_PTXAS",
            Tool::Nvdisasm => "WARPSMITH_NVDISASM",
            Tool::Cuobjdump => "WARPSMITH_CUOBJDUMP",
            Tool::Clang => "WARPSMITH_CLANG",
            Tool::LlvmConfig => "WARPSMITH_LLVM_CONFIG",
            Tool::Opt => "WARPSMITH_OPT",
            Tool::Llc => "WARPSMITH_LLC",
            Tool::FileCheck => "WARPSMITH_FILECHECK",
            Tool::Lit => "WARPSMITH_LIT",
        }
    }

    /// The tool's usual name (also its file name in the project-local folder).
    pub fn name(self) -> &'static str {
        match self {
            Tool::Ptxas => "ptxas",
            Tool::Nvdisasm => "nvdisasm",
            Tool::Cuobjdump => "cuobjdump",
            Tool::Clang => "clang",
            Tool::LlvmConfig => "llvm-config",
            Tool::Opt => "opt",
            Tool::Llc => "llc",
            Tool::FileCheck => "FileCheck",
            Tool::Lit => "lit",
        }
    }

    /// Whether the tool comes from LLVM 22 (project-local place `/usr/lib/llvm-22/bin`) rather
    /// than from NVIDIA (project-local place `.tools/bin`).
    pub fn is_llvm(self) -> bool {
        !matches!(self, Tool::Ptxas | Tool::Nvdisasm | Tool::Cuobjdump)
    }

    /// How long a run of the tool may take when [`TIME_LIMIT_VAR`] is unset. The disassemblers
    /// read cubins that warpsmith did not necessarily make, and a damaged one can keep nvdisasm
    /// busy without end (seen with a cubin of a few flipped bytes): two minutes, where a real
    /// cubin takes them well under a second. The compilers (`ptxas`, clang, `opt`, `llc`) and
    /// the test tools may legitimately run long on large input and have no limit.
    pub fn default_time_limit(self) -> Option<std::time::Duration> {
        match self {
            Tool::Nvdisasm | Tool::Cuobjdump => Some(std::time::Duration::from_secs(120)),
            _ => None,
        }
    }

    /// The names tried on `PATH`, best first (versioned LLVM names before the plain ones).
    pub fn path_names(self) -> &'static [&'static str] {
        match self {
            Tool::Ptxas => &["ptxas"],
            Tool::Nvdisasm => &["nvdisasm"],
            Tool::Cuobjdump => &["cuobjdump"],
            Tool::Clang => &["clang-22", "clang"],
            Tool::LlvmConfig => &["llvm-config-22", "llvm-config"],
            Tool::Opt => &["opt-22", "opt"],
            Tool::Llc => &["llc-22", "llc"],
            Tool::FileCheck => &["FileCheck-22", "FileCheck"],
            Tool::Lit => &["lit-22", "lit"],
        }
    }
}

impl fmt::Display for Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How a tool was found (see the module documentation for the order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// From the tool's environment variable.
    Env,
    /// From the project-local folder (`.tools/bin` or `/usr/lib/llvm-22/bin`).
    ProjectLocal,
    /// From the `PATH`.
    Path,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Origin::Env => "environment variable",
            Origin::ProjectLocal => "project-local folder",
            Origin::Path => "PATH",
        })
    }
}

/// A tool that was found: where, and by which rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    /// The tool.
    pub tool: Tool,
    /// Path of its executable.
    pub path: PathBuf,
    /// Which rule found it.
    pub origin: Origin,
}

/// Errors of tool discovery and of running a tool.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// The tool is nowhere to be found.
    #[error(
        "{tool} not found: set {env_var} to its path, or run `{setup}` to install it \
         (searched: {searched})",
        setup = SETUP_COMMAND
    )]
    NotFound {
        /// The tool.
        tool: Tool,
        /// Its environment variable.
        env_var: &'static str,
        /// The places that were searched, for the message.
        searched: String,
    },
    /// The tool's environment variable is set but names no executable.
    #[error("{env_var}={value} does not name an executable {tool} (unset it to search the usual places, or run `{setup}`)", setup = SETUP_COMMAND)]
    BadEnv {
        /// The tool.
        tool: Tool,
        /// Its environment variable.
        env_var: &'static str,
        /// The variable's value.
        value: String,
    },
    /// The tool's environment variable names the program that is looking for the tool (e.g.
    /// `WARPSMITH_PTXAS` naming the `warpsmith ptxas` wrapper itself: it would call itself).
    #[error("{env_var}={value} is {excluded} itself: point it at the real {tool}")]
    EnvIsExcluded {
        /// The tool.
        tool: Tool,
        /// Its environment variable.
        env_var: &'static str,
        /// The variable's value.
        value: String,
        /// What the excluded program is, for the message.
        excluded: String,
    },
    /// The tool could not be started.
    #[error("cannot run {tool} ({path}): {source}")]
    Spawn {
        /// The tool.
        tool: Tool,
        /// The executable that was started.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// The tool ran past its time limit ([`time_limit`]) and was stopped.
    #[error(
        "{tool} did not finish within {seconds} s and was stopped (set {var} to a number of \
         seconds to change the limit, 0 for none)",
        var = TIME_LIMIT_VAR
    )]
    TimedOut {
        /// The tool.
        tool: Tool,
        /// The limit it ran under.
        seconds: u64,
    },
    /// The tool ran and exited with a failure status.
    #[error("{tool} failed ({status}): {stderr}")]
    Failed {
        /// The tool.
        tool: Tool,
        /// Its exit status.
        status: ExitStatus,
        /// What it printed on standard error (standard output when standard error was empty).
        stderr: String,
    },
    /// The tool's output did not have the expected form.
    #[error("cannot understand {tool} output, line {line}: {message}: `{text}`")]
    Parse {
        /// The tool.
        tool: Tool,
        /// 1-based line number in the tool's output.
        line: usize,
        /// What was wrong.
        message: String,
        /// The offending line.
        text: String,
    },
    /// A file operation around a tool run (temporary files, input files) failed.
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
}

/// Finds `tool`: its environment variable, then the project-local folder, then `PATH`.
pub fn find(tool: Tool) -> Result<PathBuf, ToolError> {
    locate(tool).map(|l| l.path)
}

/// Like [`find`], but also says which rule found the tool.
pub fn locate(tool: Tool) -> Result<Located, ToolError> {
    let plan = SearchPlan::from_environment(tool);
    let found = plan.search(tool)?;
    log::debug!(
        "{tool}: {} (from the {})",
        found.path.display(),
        found.origin
    );
    Ok(found)
}

/// The project-local `.tools/bin` folders that exist, nearest first: the one of the source
/// checkout this crate was built from, then any found walking up from the running executable.
pub fn project_tool_dirs() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    let mut push = |d: PathBuf| {
        if d.is_dir() && !dirs.contains(&d) {
            dirs.push(d);
        }
    };
    push(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(".tools")
            .join("bin"),
    );
    if let Ok(exe) = std::env::current_exe() {
        let exe = exe.canonicalize().unwrap_or(exe);
        for dir in exe.ancestors().skip(1) {
            push(dir.join(".tools").join("bin"));
        }
    }
    dirs
}

/// Runs `tool` with `args` and returns its output; a failure status becomes
/// [`ToolError::Failed`] with the tool's standard error.
pub fn run<I, S>(tool: Tool, args: I) -> Result<Output, ToolError>
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let path = find(tool)?;
    run_at(tool, &path, args)
}

/// Runs the executable `path` (an instance of `tool`) with `args`, under the tool's time limit
/// ([`time_limit`]); see [`run`].
pub fn run_at<I, S>(tool: Tool, path: &Path, args: I) -> Result<Output, ToolError>
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let mut cmd = Command::new(path);
    cmd.args(args);
    log::debug!("running {cmd:?}");
    let spawn_error = |source| ToolError::Spawn {
        tool,
        path: path.to_path_buf(),
        source,
    };
    let out = match time_limit(tool) {
        None => cmd.output().map_err(spawn_error)?,
        Some(limit) => match limited::output(&mut cmd, limit).map_err(spawn_error)? {
            Some(out) => out,
            None => {
                return Err(ToolError::TimedOut {
                    tool,
                    seconds: limit.as_secs(),
                })
            }
        },
    };
    if !out.status.success() {
        let mut text = String::from_utf8_lossy(&out.stderr).trim().to_string();
        if text.is_empty() {
            text = String::from_utf8_lossy(&out.stdout).trim().to_string();
        }
        return Err(ToolError::Failed {
            tool,
            status: out.status,
            stderr: text,
        });
    }
    Ok(out)
}

/// The environment variable that sets every tool's time limit, in seconds (`0`: none).
pub const TIME_LIMIT_VAR: &str = "WARPSMITH_TOOL_TIMEOUT";

/// How long [`run_at`] lets `tool` run before stopping it: [`TIME_LIMIT_VAR`] when set to a
/// number of seconds (`0` for no limit), else [`Tool::default_time_limit`]. A value that is not a
/// number is reported once and the default used.
pub fn time_limit(tool: Tool) -> Option<std::time::Duration> {
    let value = std::env::var(TIME_LIMIT_VAR).ok();
    time_limit_from(tool, value.as_deref())
}

fn time_limit_from(tool: Tool, value: Option<&str>) -> Option<std::time::Duration> {
    use std::time::Duration;
    match value.map(str::trim).filter(|v| !v.is_empty()) {
        None => tool.default_time_limit(),
        Some(v) => match v.parse::<u64>() {
            Ok(0) => None,
            Ok(secs) => Some(Duration::from_secs(secs)),
            Err(_) => {
                static WARNED: std::sync::Once = std::sync::Once::new();
                WARNED.call_once(|| {
                    log::warn!(
                        "{TIME_LIMIT_VAR}={v} is not a number of seconds; using the defaults"
                    )
                });
                tool.default_time_limit()
            }
        },
    }
}

/// The inputs of one search, separated from the process environment so that tests can build it.
#[derive(Debug, Clone, Default)]
pub struct SearchPlan {
    /// Value of the tool's environment variable (`None` or empty: unset).
    pub env_value: Option<OsString>,
    /// Project-local folders, in order.
    pub local_dirs: Vec<PathBuf>,
    /// Value of `PATH`.
    pub path_var: Option<OsString>,
    /// A program never to return, even through a symbolic link (the `warpsmith ptxas` wrapper
    /// looking for the real ptxas), with what it is called in messages.
    pub exclude: Option<(PathBuf, String)>,
}

impl SearchPlan {
    /// The search of the process's environment: the tool's variable, the project-local folders
    /// (`.tools/bin`, or LLVM 22's folder for LLVM tools), `PATH`.
    pub fn from_environment(tool: Tool) -> SearchPlan {
        let local_dirs = if tool.is_llvm() {
            vec![PathBuf::from(LLVM_BIN_DIR)]
        } else {
            project_tool_dirs()
        };
        SearchPlan {
            env_value: std::env::var_os(tool.env_var()),
            local_dirs,
            path_var: std::env::var_os("PATH"),
            exclude: None,
        }
    }

    /// True when `p` is the excluded program (compared after resolving links).
    fn is_excluded(&self, p: &Path) -> bool {
        let Some((ex, _)) = &self.exclude else {
            return false;
        };
        match (p.canonicalize(), ex.canonicalize()) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        }
    }

    /// Finds `tool`: the environment variable (a path, or a name looked up on `PATH`), else the
    /// project-local folders, else `PATH`; never the excluded program.
    pub fn search(&self, tool: Tool) -> Result<Located, ToolError> {
        let env_var = tool.env_var();
        // 1. The environment variable: an explicit choice that must work.
        if let Some(value) = self.env_value.as_ref().filter(|v| !v.is_empty()) {
            let as_path = Path::new(value);
            let resolved = if as_path.components().count() > 1 || as_path.is_absolute() {
                Some(as_path.to_path_buf()).filter(|p| is_executable(p))
            } else {
                // A bare name ("clang-21"): look it up on PATH.
                self.on_path(value)
                    .or_else(|| Some(as_path.to_path_buf()).filter(|p| is_executable(p)))
            };
            if let (Some(p), Some((_, what))) = (&resolved, &self.exclude) {
                if self.is_excluded(p) {
                    return Err(ToolError::EnvIsExcluded {
                        tool,
                        env_var,
                        value: value.to_string_lossy().into_owned(),
                        excluded: what.clone(),
                    });
                }
            }
            return match resolved {
                Some(path) => Ok(Located {
                    tool,
                    path,
                    origin: Origin::Env,
                }),
                None => Err(ToolError::BadEnv {
                    tool,
                    env_var,
                    value: value.to_string_lossy().into_owned(),
                }),
            };
        }
        // 2. The project-local folders.
        for dir in &self.local_dirs {
            let candidate = dir.join(tool.name());
            if is_executable(&candidate) && !self.is_excluded(&candidate) {
                return Ok(Located {
                    tool,
                    path: candidate,
                    origin: Origin::ProjectLocal,
                });
            }
        }
        // 3. PATH, by name (versioned names first, whichever folder they are in).
        for name in tool.path_names() {
            if let Some(path) = self.on_path(OsStr::new(name)) {
                return Ok(Located {
                    tool,
                    path,
                    origin: Origin::Path,
                });
            }
        }
        let mut searched = vec![format!("{env_var} (unset)")];
        searched.extend(
            self.local_dirs
                .iter()
                .map(|d| d.join(tool.name()).display().to_string()),
        );
        if self.local_dirs.is_empty() && !tool.is_llvm() {
            searched.push(".tools/bin (absent)".to_string());
        }
        searched.push(format!("PATH ({})", tool.path_names().join(", ")));
        if let Some((_, what)) = &self.exclude {
            searched.push(format!("skipping {what} itself"));
        }
        Err(ToolError::NotFound {
            tool,
            env_var,
            searched: searched.join("; "),
        })
    }

    fn on_path(&self, name: &OsStr) -> Option<PathBuf> {
        let path_var = self.path_var.as_ref()?;
        std::env::split_paths(path_var)
            .filter(|d| !d.as_os_str().is_empty())
            .map(|d| d.join(name))
            .find(|p| is_executable(p) && !self.is_excluded(p))
    }
}

/// Whether `path` is a regular file (after following links) that may be executed.
pub fn is_executable(path: &Path) -> bool {
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_file() => {
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                meta.permissions().mode() & 0o111 != 0
            }
            #[cfg(not(unix))]
            {
                true
            }
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_limits_default_per_tool_and_follow_the_variable() {
        use std::time::Duration;
        assert_eq!(
            time_limit_from(Tool::Nvdisasm, None),
            Some(Duration::from_secs(120))
        );
        assert_eq!(time_limit_from(Tool::Ptxas, None), None);
        assert_eq!(
            time_limit_from(Tool::Ptxas, Some("30")),
            Some(Duration::from_secs(30))
        );
        assert_eq!(time_limit_from(Tool::Cuobjdump, Some("0")), None);
        assert_eq!(
            time_limit_from(Tool::Nvdisasm, Some("soon")),
            Some(Duration::from_secs(120))
        );
        assert_eq!(time_limit_from(Tool::Clang, Some(" ")), None);
    }
    use std::fs;

    /// A scratch folder with fake executables.
    fn scratch(tag: &str) -> temp::TempDir {
        temp::TempDir::new(&format!("tools-{tag}")).expect("temporary folder")
    }

    fn fake_exe(dir: &Path, name: &str) -> PathBuf {
        let p = dir.join(name);
        fs::write(&p, "#!/bin/sh\nexit 0\n").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&p, fs::Permissions::from_mode(0o755)).unwrap();
        }
        p
    }

    #[test]
    fn env_vars_and_names() {
        assert_eq!(Tool::Ptxas.env_var(), "WARPSMITH_PTXAS");
        assert_eq!(Tool::LlvmConfig.env_var(), "WARPSMITH_LLVM_CONFIG");
        assert_eq!(Tool::FileCheck.env_var(), "WARPSMITH_FILECHECK");
        assert_eq!(Tool::Clang.path_names(), &["clang-22", "clang"]);
        assert!(!Tool::Nvdisasm.is_llvm());
        assert!(Tool::Lit.is_llvm());
        let vars: std::collections::HashSet<_> = Tool::ALL.iter().map(|t| t.env_var()).collect();
        assert_eq!(vars.len(), Tool::ALL.len());
    }

    #[test]
    fn order_env_then_local_then_path() {
        let envd = scratch("env");
        let local = scratch("local");
        let pathd = scratch("path");
        let e = fake_exe(envd.path(), "my-ptxas");
        let l = fake_exe(local.path(), "ptxas");
        let p = fake_exe(pathd.path(), "ptxas");
        let mut plan = SearchPlan {
            env_value: Some(e.clone().into_os_string()),
            local_dirs: vec![local.path().to_path_buf()],
            path_var: Some(pathd.path().as_os_str().to_owned()),
            exclude: None,
        };
        let found = plan.search(Tool::Ptxas).unwrap();
        assert_eq!((found.path, found.origin), (e, Origin::Env));
        plan.env_value = Some(OsString::new()); // empty = unset
        let found = plan.search(Tool::Ptxas).unwrap();
        assert_eq!(
            (found.path, found.origin),
            (l.clone(), Origin::ProjectLocal)
        );
        fs::remove_file(&l).unwrap();
        let found = plan.search(Tool::Ptxas).unwrap();
        assert_eq!((found.path, found.origin), (p, Origin::Path));
    }

    #[test]
    fn versioned_name_preferred_on_path() {
        let a = scratch("a");
        let b = scratch("b");
        fake_exe(a.path(), "clang");
        let versioned = fake_exe(b.path(), "clang-22");
        let path_var = std::env::join_paths([a.path(), b.path()]).unwrap();
        let plan = SearchPlan {
            env_value: None,
            local_dirs: vec![],
            path_var: Some(path_var),
            exclude: None,
        };
        assert_eq!(plan.search(Tool::Clang).unwrap().path, versioned);
    }

    #[test]
    fn env_bare_name_is_looked_up_on_path() {
        let d = scratch("bare");
        let exe = fake_exe(d.path(), "clang-21");
        let plan = SearchPlan {
            env_value: Some("clang-21".into()),
            local_dirs: vec![],
            path_var: Some(d.path().as_os_str().to_owned()),
            exclude: None,
        };
        assert_eq!(plan.search(Tool::Clang).unwrap().path, exe);
    }

    #[test]
    fn bad_env_is_an_error_not_a_fallthrough() {
        let d = scratch("badenv");
        fake_exe(d.path(), "ptxas");
        let plan = SearchPlan {
            env_value: Some("/nonexistent/ptxas".into()),
            local_dirs: vec![d.path().to_path_buf()],
            path_var: None,
            exclude: None,
        };
        let err = plan.search(Tool::Ptxas).unwrap_err();
        assert!(matches!(err, ToolError::BadEnv { .. }), "{err}");
        assert!(err
            .to_string()
            .contains("WARPSMITH_PTXAS=/nonexistent/ptxas"));
    }

    #[test]
    fn non_executable_files_are_skipped() {
        let d = scratch("noexec");
        fs::write(d.path().join("nvdisasm"), "not a program").unwrap();
        let plan = SearchPlan {
            env_value: None,
            local_dirs: vec![d.path().to_path_buf()],
            path_var: None,
            exclude: None,
        };
        #[cfg(unix)]
        assert!(plan.search(Tool::Nvdisasm).is_err());
    }

    #[test]
    fn not_found_message_names_tool_env_and_setup() {
        let plan = SearchPlan::default();
        let err = plan.search(Tool::Cuobjdump).unwrap_err();
        let msg = err.to_string();
        assert!(matches!(
            err,
            ToolError::NotFound {
                tool: Tool::Cuobjdump,
                ..
            }
        ));
        assert!(msg.starts_with("cuobjdump not found"), "{msg}");
        assert!(msg.contains("WARPSMITH_CUOBJDUMP"), "{msg}");
        assert!(msg.contains("scripts/setup.sh"), "{msg}");
    }

    #[test]
    fn real_environment_finds_or_explains() {
        for tool in Tool::ALL {
            match locate(tool) {
                Ok(found) => {
                    assert!(is_executable(&found.path), "{found:?}");
                    eprintln!("{tool}: {} ({})", found.path.display(), found.origin);
                }
                Err(e) => {
                    assert!(e.to_string().contains(tool.env_var()), "{e}");
                    eprintln!("{tool}: {e}");
                }
            }
        }
    }

    #[test]
    fn run_reports_failure_status_and_stderr() {
        // The script runs through /bin/sh, so no freshly written file is executed (ETXTBSY races).
        let d = scratch("run");
        let script = d.path().join("failing.sh");
        fs::write(&script, "echo 'bad input' >&2\nexit 3\n").unwrap();
        let sh = Path::new("/bin/sh");
        match run_at(Tool::Ptxas, sh, [&script]) {
            Err(ToolError::Failed { status, stderr, .. }) => {
                assert_eq!(status.code(), Some(3));
                assert_eq!(stderr, "bad input");
            }
            other => panic!("expected Failed, got {other:?}"),
        }
        let missing = run_at(Tool::Ptxas, &d.path().join("nope"), ["x"]).unwrap_err();
        assert!(matches!(missing, ToolError::Spawn { .. }));
    }
}
