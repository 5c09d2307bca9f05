# -*- Python -*-
# lit configuration for warpsmith (LLVM 22's lit: `lit -sv lit-tests`, or scripts/test.sh).
#
# Tools are found exactly as src/tools/mod.rs finds them (docs/tools.md): the WARPSMITH_<TOOL>
# environment variable, then the project-local place (.tools/bin for the NVIDIA tools,
# /usr/lib/llvm-22/bin for the LLVM ones), then PATH.
#
# Substitutions: %warpsmith (env WARPSMITH_BIN, default <repo>/target/debug/warpsmith), %ptxas,
# %nvdisasm, %cuobjdump, %clang, %opt, %llc, %FileCheck; plain FileCheck, not, count are on PATH.
# Features: ptxas, nvdisasm, cuobjdump, clang, opt, llc (tool found), gpu (`nvidia-smi -L` lists a GPU).

import os
import shutil
import subprocess

import lit.formats

config.name = "warpsmith"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".ptx", ".ll", ".test", ".cu"]
# Inputs/ folders hold files that tests read; they are not tests themselves.
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(os.path.abspath(__file__))
config.test_exec_root = config.test_source_root  # Output/ folders are git-ignored

repo = os.path.dirname(config.test_source_root)
LLVM_BIN = "/usr/lib/llvm-22/bin"

# name: (env var, project-local folders, PATH names); mirrors Tool in src/tools/mod.rs.
NVIDIA_LOCAL = [os.path.join(repo, ".tools", "bin")]
TOOLS = {
    "ptxas": ("WARPSMITH_PTXAS", NVIDIA_LOCAL, ["ptxas"]),
    "nvdisasm": ("WARPSMITH_NVDISASM", NVIDIA_LOCAL, ["nvdisasm"]),
    "cuobjdump": ("WARPSMITH_CUOBJDUMP", NVIDIA_LOCAL, ["cuobjdump"]),
    "clang": ("WARPSMITH_CLANG", [LLVM_BIN], ["clang-22", "clang"]),
    "llvm-config": ("WARPSMITH_LLVM_CONFIG", [LLVM_BIN], ["llvm-config-22", "llvm-config"]),
    "opt": ("WARPSMITH_OPT", [LLVM_BIN], ["opt-22", "opt"]),
    "llc": ("WARPSMITH_LLC", [LLVM_BIN], ["llc-22", "llc"]),
    "FileCheck": ("WARPSMITH_FILECHECK", [LLVM_BIN], ["FileCheck-22", "FileCheck"]),
}


def is_exe(path):
    return os.path.isfile(path) and os.access(path, os.X_OK)


def find_tool(name):
    """Returns the tool's path or None; a set but unusable env var is a configuration error."""
    env_var, local_dirs, path_names = TOOLS[name]
    value = os.environ.get(env_var, "")
    if value:
        found = value if os.sep in value else shutil.which(value)
        if found and is_exe(found):
            return os.path.abspath(found)
        lit_config.fatal("%s=%s does not name an executable %s" % (env_var, value, name))
    for d in local_dirs:
        candidate = os.path.join(d, name)
        if is_exe(candidate):
            return candidate
    for n in path_names:
        found = shutil.which(n)
        if found:
            return found
    return None


found = {name: find_tool(name) for name in TOOLS}
for name, path in sorted(found.items()):
    lit_config.note("%-11s %s" % (name, path or "(not found: run scripts/setup.sh)"))

# PATH for RUN lines: LLVM 22's FileCheck/not/count first, then the folders of the found tools.
path_dirs = []
if os.path.isdir(LLVM_BIN):
    path_dirs.append(LLVM_BIN)
for path in found.values():
    if path and os.path.dirname(path) not in path_dirs:
        path_dirs.append(os.path.dirname(path))
path_dirs.append(config.environment.get("PATH", os.environ.get("PATH", "")))
config.environment["PATH"] = os.pathsep.join(path_dirs)

# The warpsmith binary run by the tests finds the same tools as lit did.
for name, path in found.items():
    if path:
        config.environment[TOOLS[name][0]] = path
for var in ("RUST_LOG", "RUST_BACKTRACE", "HOME", "TMPDIR"):
    if var in os.environ:
        config.environment[var] = os.environ[var]

warpsmith = os.environ.get("WARPSMITH_BIN") or os.path.join(repo, "target", "debug", "warpsmith")
if not is_exe(warpsmith):
    lit_config.warning("warpsmith binary %s not found: run `cargo build` first" % warpsmith)

# Longer names first: lit applies substitutions in order (and before its own %p, %s, %t).
config.substitutions.append(("%warpsmith", warpsmith))
config.substitutions.append(("%FileCheck", found["FileCheck"] or "FileCheck"))
config.substitutions.append(("%cuobjdump", found["cuobjdump"] or "cuobjdump"))
config.substitutions.append(("%nvdisasm", found["nvdisasm"] or "nvdisasm"))
config.substitutions.append(("%ptxas", found["ptxas"] or "ptxas"))
config.substitutions.append(("%clang", found["clang"] or "clang"))
config.substitutions.append(("%opt", found["opt"] or "opt"))
config.substitutions.append(("%llc", found["llc"] or "llc"))

for name in ("ptxas", "nvdisasm", "cuobjdump", "clang", "opt", "llc"):
    if found[name]:
        config.available_features.add(name)


def has_gpu():
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    try:
        out = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return False
    return out.returncode == 0 and "GPU" in out.stdout


if has_gpu():
    config.available_features.add("gpu")
    lit_config.note("gpu         available (nvidia-smi -L)")

# The LLVM 22 pass plugin (issue 4): %plugin is target/debug/libwarpsmith.so (env WARPSMITH_PLUGIN);
# feature `plugin` when it exists and was built with the C++ shim (build.rs found LLVM 22).
plugin = os.environ.get("WARPSMITH_PLUGIN") or os.path.join(repo, "target", "debug", "libwarpsmith.so")
config.substitutions.insert(0, ("%plugin", plugin))
try:
    with open(plugin, "rb") as f:
        if b"print<affine-divergence>" in f.read():
            config.available_features.add("plugin")
            lit_config.note("plugin      %s" % plugin)
        else:
            lit_config.note("plugin      %s was built without LLVM 22 (no shim)" % plugin)
except OSError:
    lit_config.note("plugin      %s not found: run `cargo build`" % plugin)

# rustc whose LLVM is 22, the plugin's major version (env RUSTC, else `rustc` on PATH): %rustc and
# the feature `rustc-llvm22`, for loading the plugin into rustc's own LLVM (plugin/rustc.test).
rustc = os.environ.get("RUSTC") or shutil.which("rustc")
config.substitutions.insert(0, ("%rustc", rustc or "rustc"))
if rustc:
    for var in ("RUSTUP_HOME", "RUSTUP_TOOLCHAIN", "CARGO_HOME"):
        if var in os.environ:
            config.environment[var] = os.environ[var]
    try:
        out = subprocess.run([rustc, "-vV"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        out = ""
    llvm = [l.split(":", 1)[1].strip() for l in out.splitlines() if l.startswith("LLVM version:")]
    if llvm and llvm[0].startswith("22."):
        config.available_features.add("rustc-llvm22")
        lit_config.note("rustc       %s (LLVM %s)" % (rustc, llvm[0]))
    else:
        lit_config.note("rustc       %s: LLVM %s, not 22" % (rustc, llvm[0] if llvm else "unknown"))
