#!/usr/bin/env bash
# The one command that checks everything, on a fresh Debian 12 machine or an existing checkout:
#
#   setup      scripts/setup.sh (apt packages, ptxas/nvdisasm/cuobjdump, Triton, Rust toolchain,
#              the CUDA layout .tools/cuda)
#   fmt        cargo fmt --check
#   clippy     cargo clippy --all-targets -- -D warnings
#   build      cargo build                      (the binary the lit tests run)
#   test       cargo test
#   kernels    scripts/compile-kernels.sh target/kernels --check-ptxas   (bench kernels → PTX → ptxas)
#   lit        lit -sv lit-tests                (LLVM 22's lit)
#   triton     bench/triton/never_worse.py --ci --passes spill,shuffle,demote (Triton 3.6 suite,
#              sm_80 + sm_90: warpsmith ptxas (and the demote stage) vs
#              ptxas alone; fails when a kernel gets worse or its launch illegal — issue 12);
#              and python/warpsmith_triton.py's per-kernel dynamic size (test_dynamic_smem_hook.py;
#              never_worse.py --hook: the same rule with each kernel's size given, and no build
#              below `demote` alone); every cubin the drop-in changed runs against ptxas's own on
#              the SASS emulator (bench/triton/equiv_builds.py, every output byte)
#   triton-3.9 the same with Triton 3.9 (its CUDA 13.4 ptxas-blackwell from sm_90 on)
#   triton-3.3 the CI subset with Triton 3.3.1 (PyTorch 2.7's; CUDA 12.4's ptxas): never-worse
#              with `auto` and with the hook, `equiv` of every changed build, the PTX emulator's
#              reference, the SASS decoder's record and the SASS emulator on its cubins
#   liger, liger-3.9  the same checks on Liger-Kernel's Triton kernels (tests/triton/liger_suite.py:
#              20 kernels nobody wrote for us, on their own launches), with Triton 3.6 and 3.9
#   flaggems, flaggems-3.9  the same on FlagGems' (tests/triton/flaggems_suite.py: 17 operator
#              kernels), and their emulated results against the operators
#              (tests/triton/flaggems_reference.py), with Triton 3.6 and 3.9
#   cmake      tests/cmake/run.sh               (install, find_package, sample CUDA project, CTest)
#   rust-nvptx cargo test --offline in examples/rust-nvptx (a Rust NVPTX kernel, warpsmith in build.rs)
#
# Every step runs even when an earlier one failed (except: nothing runs without setup, and lit
# needs the build), then a summary is printed. Exit status: 0 only when every step passed.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

names=() results=() times=()
failed=0

# step NAME COMMAND...: runs the command, records PASS/FAIL and the time taken.
step() {
  local name="$1"
  shift
  printf '\n==== [%s] %s\n' "$name" "$*"
  local start=$SECONDS rc=0
  "$@" || rc=$?
  names+=("$name")
  times+=("$((SECONDS - start))s")
  if ((rc == 0)); then
    results+=("PASS")
  else
    results+=("FAIL (exit $rc)")
    failed=1
  fi
  return "$rc"
}

skip() {
  names+=("$1")
  results+=("SKIPPED ($2)")
  times+=("-")
  failed=1
}

summary() {
  printf '\n==== summary\n'
  local i
  for i in "${!names[@]}"; do
    printf '  %-10s %-34s %s\n' "${names[$i]}" "${results[$i]}" "${times[$i]}"
  done
  if ((failed)); then
    printf 'RESULT: FAILED\n'
  else
    printf 'RESULT: all steps passed\n'
  fi
}

find_lit() {
  if [[ -n "${WARPSMITH_LIT:-}" ]]; then echo "$WARPSMITH_LIT"; return; fi
  local c
  for c in /usr/lib/llvm-22/bin/lit "$(command -v lit-22 || true)" "$(command -v lit || true)"; do
    if [[ -n "$c" && -x "$c" ]]; then echo "$c"; return; fi
  done
  return 1
}

# /dev/null must be the character device. Before fsutil learned to write devices in place, a
# `warpsmith ... -o /dev/null` run as root renamed a regular file over it; every later reader
# (cargo's rustc probe reads its stdin from /dev/null) then saw what build scripts had written there,
# and cargo failed with "failed to run `rustc` to learn about target-specific information" (the
# CI failures of 26 Nov 2026). Repair it when we may (root), warn when we may not.
if [[ ! -c /dev/null ]]; then
  printf '[test] /dev/null is not a character device: restoring it\n' >&2
  if ! { rm -f /dev/null && mknod -m 666 /dev/null c 1 3; }; then
    printf '[test] cannot restore /dev/null (needs root): cargo cannot run reliably here\n' >&2
  fi
fi
# A rustc probe that failed while /dev/null was broken stays cached in target/.rustc_info.json
# and fails every later cargo command: drop such a record so cargo probes again.
rm_failed_probe() {
  local f
  for f in target/.rustc_info.json target/rust-nvptx/.rustc_info.json; do
    if [[ -f "$f" ]] && grep -q '"success":false' "$f"; then rm -f "$f"; fi
  done
}

if ! step setup bash scripts/setup.sh; then
  summary
  exit 1
fi
if ! command -v cargo >/dev/null 2>&1 && [[ -x "$HOME/.cargo/bin/cargo" ]]; then
  export PATH="$HOME/.cargo/bin:$PATH"
fi

rm_failed_probe

step fmt cargo fmt --all -- --check
step clippy cargo clippy --all-targets -- -D warnings
build_ok=0
step build cargo build && build_ok=1
step test cargo test
step kernels bash scripts/compile-kernels.sh target/kernels --check-ptxas
if ((build_ok)); then
  if lit="$(find_lit)"; then
    step lit env WARPSMITH_BIN="$root/target/debug/warpsmith" "$lit" -sv lit-tests
  else
    skip lit "lit not found: run scripts/setup.sh"
  fi
else
  skip lit "the build failed"
fi

# ---- triton: the Triton suite through `warpsmith ptxas` (issue 12; tests/triton, bench/triton) --
# Triton (from setup.sh) compiles the suite without a GPU twice per architecture: with its own
# ptxas, and with TRITON_PTXAS_PATH / TRITON_PTXAS_BLACKWELL_PATH at `ptxas` / `ptxas-blackwell`
# links to target/debug/warpsmith (WARPSMITH_PASSES=spill,shuffle,demote: once with
# WARPSMITH_SPILL_MAX_REGS=auto, so that the occupancy-raising rewrite runs and is proved, once
# with the hook and the default, `keep`, as a user gets it). Twice: `triton` with Triton
# 3.6.0 (.tools/triton, its CUDA 12.8 ptxas), `triton-3.9` with Triton 3.9.0 (.tools/triton-3.9:
# CUDA 12.9 ptxas for sm_80, CUDA 13.4 ptxas-blackwell and PTX ISA 9.4 for sm_90). --ci: the CI
# subset of tests/triton/suite.py, 15 builds, about 1-3 minutes each on 2 cores (the whole suite
# takes over 10; docs/benchmarks.md). A one-kernel probe first tells "Triton cannot compile here"
# (SKIPPED, with the reason) from a failing check.
#
# The checker's own rules first (legality, verdicts, cuobjdump parsing), then the suite; then the
# emulator runs every kernel Triton made (its own ptxas side) against a CPU reference and against
# the spilling pass's rewrite at 64 registers (tests/emu_triton.rs, `equiv`), and the SASS decoder
# checks the same cubins against nvdisasm and its holdout record (tests/sass_holdout.rs,
# tests/data/sass-holdout/triton-suite.txt; both versions' cubins decode alike), and the SASS
# emulator runs each kernel as the given ptxas assembles it against the PTX emulator
# (tests/sass_emu_triton.rs; for Triton 3.9 its CUDA 13.4 ptxas-blackwell, which its sm_90 PTX
# ISA 9.4 needs).
# ptxas_builds OUT: links OUT/equiv/sm_80 and sm_90 to the ptxas-alone builds never_worse.py left
# in OUT/<arch>/ptxas (compile_suite.py --out folders: PTX, cubin, metadata, launch specs).
ptxas_builds() { # OUT
  rm -rf "$1/equiv" && mkdir -p "$1/equiv" &&
    ln -s ../sm_80/ptxas "$1/equiv/sm_80" &&
    ln -s ../sm_90/ptxas "$1/equiv/sm_90"
}
# sass_checks OUT PTXAS [RECORD [DIR_ONLY]]: the SASS decoder's holdout record (default
# triton-suite) and the SASS emulator against the PTX emulator on those builds (DIR_ONLY=1: on
# those alone, not on the test's fixtures, whose PTX ISA an old ptxas cannot read).
sass_checks() { # OUT PTXAS [RECORD [DIR_ONLY]]
  WARPSMITH_TRITON_RECORD="${3:-triton-suite}" WARPSMITH_TRITON_DIR="$1/equiv" \
    cargo test --test sass_holdout \
    holdout_triton_suite_from_environment &&
    WARPSMITH_PTXAS="$2" WARPSMITH_TRITON_DIR="$1/equiv" WARPSMITH_TRITON_DIR_ONLY="${4:-0}" \
      cargo test --test sass_emu_triton
}
# never_worse_ci PYTHONPATH OUT [OPTIONS...]: the drop-in (spill, shuffle, demote) against ptxas
# alone on the suite's CI subset.
never_worse_ci() {
  local path="$1" out="$2"
  shift 2
  PYTHONPATH="$path" python3 bench/triton/never_worse.py --ci --jobs 2 \
    --passes spill,shuffle,demote --warpsmith "$root/target/debug/warpsmith" --out "$out" "$@"
}
# suite_emulation OUT [NEVER_WORSE_OUTS...]: OUT's ptxas-alone builds linked for the checks, the
# PTX emulator's CPU reference and spill `equiv` on each kernel (writing the launch specs), then
# `equiv` of every build the drop-in changed in each never_worse.py folder given.
suite_emulation() { # OUT [MORE_OUTS...]
  local out="$1" more
  shift
  ptxas_builds "$out" &&
    WARPSMITH_WRITE_TRITON_SPECS=1 WARPSMITH_TRITON_DIR="$out/equiv" \
      cargo test --test emu_triton triton_suite_from_environment || return 1
  for more in "$@"; do
    equiv_builds "$more" --specs "$out/equiv" || return 1
  done
}
triton_check() { # PYTHONPATH OUT PTXAS
  local path="$1" out="$2" ptxas="$3"
  python3 bench/triton/test_never_worse.py &&
    never_worse_ci "$path" "$out" --spill-max-regs auto &&
    hook_checks "$path" "$out/hook" &&
    never_worse_ci "$path" "$out/hook/never-worse" --hook &&
    suite_emulation "$out" "$out" "$out/hook/never-worse" &&
    mutation_checks "$out" &&
    sass_checks "$out" "$ptxas"
}
# mutation_checks OUT: the drop-in against ptxas alone on mutated copies of three sm_80 kernels of
# the suite (bench/triton/mutation_check.py: kernels nobody tuned for; same exit status, never
# worse, every changed build equivalent on the SASS emulator; its own test first shows each of
# those can fail). A fixed seed: the same mutations on every run; about 45 s.
mutation_checks() { # OUT
  python3 bench/triton/test_mutation_check.py --warpsmith "$root/target/debug/warpsmith" &&
    python3 bench/triton/mutation_check.py --dir "$1/equiv/sm_80" --specs "$1/equiv/sm_80" \
    --arch sm_80 --iters 16 --seed 1 --cases layer_norm_4096,softmax_8192,matmul_fp16_64x64x32 \
    --warpsmith "$root/target/debug/warpsmith" --keep "$1/mutations"
}
# equiv_builds OUT [--specs DIR]: every cubin the drop-in changed in a never_worse.py run against
# ptxas's own build, on the SASS emulator with the kernel's launch (bench/triton/equiv_builds.py).
equiv_builds() { # OUT [--specs DIR]
  local out="$1"
  shift
  python3 bench/triton/equiv_builds.py --out "$out" "$@" \
    --warpsmith "$root/target/debug/warpsmith"
}
# python/warpsmith_triton.py (each kernel's dynamic size, given to the drop-in at assembly time):
# its build equals the one with WARPSMITH_SPILL_DYNAMIC_SMEM, on a case the size changes (sm_80)
# and through `ptxas-blackwell` for Triton 3.9 (sm_90, where the marker must change nothing);
# and the drop-in's grow report reaches Triton's metadata (`demote` into a grown dynamic area).
hook_checks() { # PYTHONPATH OUT [GROW]
  local check=(python3 tests/triton/test_dynamic_smem_hook.py --warpsmith "$root/target/debug/warpsmith")
  PYTHONPATH="$1" "${check[@]}" --out "$2/sm_80" --case layer_norm_4096 --expect-change &&
    PYTHONPATH="$1" "${check[@]}" --out "$2/sm_90" --arch sm_90 --case softmax_8192 || return 1
  # The grow case moves its tiles by TMA (Triton 3.4 and later); GROW=0 leaves it out.
  if [[ "${3:-1}" == 1 ]]; then
    PYTHONPATH="$1" "${check[@]}" --out "$2/grow" --arch sm_90 --case matmul_tma_fp16_128x256x64 --grow
  fi
}
# triton_step STEP_NAME FOLDER_UNDER_.tools PTXAS_FOR_THE_SASS_EMULATOR [liger|flaggems]: the
# step, or SKIPPED with the reason when the build failed, Triton (or the foreign library: Liger-
# Kernel, FlagGems) is not installed, or a one-kernel probe shows that Triton cannot compile here.
triton_step() {
  local name="$1" dir="$root/.tools/$2" out="$root/target/$1" ptxas="$3" corpus="${4:-suite}"
  local path="$dir" check=triton_check probe_case=layer_norm_4096 probe
  case "$corpus" in
    liger) path="$dir:$root/.tools/liger" check=liger_check probe_case=liger_softmax_fwd ;;
    flaggems) path="$dir:$root/.tools/flaggems" check=flaggems_check probe_case=fg_embedding ;;
    before-3.4) check=triton_old_check corpus=suite ;;
  esac
  if ((!build_ok)); then
    skip "$name" "the build failed"
  elif [[ ! -f "$dir/.installed" ]]; then
    skip "$name" "Triton is not installed in .tools/$2 (setup.sh; WARPSMITH_SKIP_TRITON=1?)"
  elif [[ "$corpus" != suite && ! -f "$root/.tools/$corpus/.installed" ]]; then
    skip "$name" "$corpus is not in .tools/$corpus (setup.sh; WARPSMITH_SKIP_TRITON=1?)"
  elif ! probe=$(PYTHONPATH="$path" python3 tests/triton/compile_suite.py --corpus "$corpus" \
    --arch sm_80 --only "$probe_case" --out "$out/probe" 2>&1); then
    skip "$name" "Triton probe (one kernel, no GPU) failed: $(tail -n1 <<<"$probe")"
  else
    step "$name" "$check" "$path" "$out" "$ptxas"
  fi
}
triton_step triton triton "$root/.tools/bin/ptxas"
triton_step triton-3.9 triton-3.9 "$root/.tools/triton-3.9/triton/backends/nvidia/bin/ptxas-blackwell"

# ---- triton-3.3: the suite with Triton 3.3.1, which PyTorch 2.7 ships ---------------------------
# Triton before 3.4 has no `knobs` and no stages hook (python/warpsmith_triton.py wraps the CUDA
# backend's add_stages there), needs a stand-in driver to import autotuned kernels without a GPU
# (tests/triton/suite.py), compiles no tensor-descriptor case, and brings CUDA 12.4's ptxas for
# both architectures: an assembler no other step runs, whose cubins the SASS decoder is checked on
# (record tests/data/sass-holdout/triton-3.3.txt). The CI subset: never-worse with `auto`, the
# hook's checks (no grow case: it needs TMA), never-worse with the hook and the default, `equiv`
# of every changed build on the SASS emulator, the PTX emulator's CPU reference and spill
# `equiv`, the SASS holdout and SASS emulator. About 2 minutes.
triton_old_check() { # PYTHONPATH OUT PTXAS
  local path="$1" out="$2" ptxas="$3"
  never_worse_ci "$path" "$out" --spill-max-regs auto &&
    hook_checks "$path" "$out/hook" 0 &&
    never_worse_ci "$path" "$out/hook/never-worse" --hook &&
    suite_emulation "$out" "$out" "$out/hook/never-worse" &&
    sass_checks "$out" "$ptxas" triton-3.3 1
}
triton_step triton-3.3 triton-3.3 "$root/.tools/triton-3.3/triton/backends/nvidia/bin/ptxas" \
  before-3.4

# ---- liger: Liger-Kernel's Triton kernels through the same checks (issue 12, foreign code) ------
# tests/triton/liger_suite.py: LinkedIn's kernels for LLM training (RMS/layer/group norm, SwiGLU,
# GeGLU, cross entropy, RoPE, softmax, KL/JSD, neighbourhood attention with tl.dot, GRPO's
# log-softmax; bf16, fp16 and fp32; on sm_90 also the fused SwiGLU MLP, whose tiles move by TMA),
# from setup.sh's .tools/liger, with the launch Liger's own wrappers give. The drop-in's
# never-worse check on all 19 for sm_80 and 20 for sm_90; then the emulator
# runs each on its launch, a spilling rewrite at 32 registers must be `equiv` to it and the
# divergence claims must hold (tests/emu_triton.rs `foreign_kernels_from_environment`), the SASS
# decoder and the SASS emulator check the cubins as for the suite. About 4 minutes (3.6) and 1.5
# minutes (3.9) on the 2-core CI machine.
# foreign_check CORPUS PYTHONPATH OUT PTXAS: what the liger and flaggems steps share.
foreign_check() {
  local corpus="$1" path="$2" out="$3" ptxas="$4"
  PYTHONPATH="$path" python3 bench/triton/never_worse.py --corpus "$corpus" \
    --jobs 2 --passes spill,shuffle,demote --spill-max-regs auto \
    --warpsmith "$root/target/debug/warpsmith" --out "$out" &&
    equiv_builds "$out" &&
    ptxas_builds "$out" &&
    WARPSMITH_FOREIGN_DIR="$out/equiv" cargo test --test emu_triton \
      foreign_kernels_from_environment &&
    sass_checks "$out" "$ptxas"
}
liger_check() { # PYTHONPATH OUT PTXAS
  foreign_check liger "$@"
}
triton_step liger triton "$root/.tools/bin/ptxas" liger
triton_step liger-3.9 triton-3.9 \
  "$root/.tools/triton-3.9/triton/backends/nvidia/bin/ptxas-blackwell" liger

# ---- flaggems: FlagGems' Triton kernels through the same checks (issue 12, foreign code) -------
# tests/triton/flaggems_suite.py: BAAI's Triton implementations of PyTorch operators (a scan,
# dropout through Philox, argmax, embedding and index_select through int64 indices, scatter_add
# through atomics, nonzero, Welford var_mean, a grouped-order matmul, an im2col convolution on a
# 3-D grid, a 256-point Hadamard transform, causal flash attention with dropout, cummax's
# (value, index) scan, top-k's two stages, isin's binary search; on sm_90 a block-scaled fp8
# GEMM), from setup.sh's .tools/flaggems, launched as FlagGems' wrappers launch
# them. The checks of the liger step, then tests/triton/flaggems_reference.py: what both
# emulators compute from ptxas's builds against the operators themselves. With Triton 3.6 and
# 3.9 (whose ptxas 12.9 spills the matmul on sm_80: 224 B of local memory). About 2 minutes each.
flaggems_check() { # PYTHONPATH OUT PTXAS
  foreign_check flaggems "$@" &&
    PYTHONPATH="$1" python3 tests/triton/flaggems_reference.py --dir "$2/equiv" \
      --warpsmith "$root/target/debug/warpsmith"
}
triton_step flaggems triton "$root/.tools/bin/ptxas" flaggems
triton_step flaggems-3.9 triton-3.9 \
  "$root/.tools/triton-3.9/triton/backends/nvidia/bin/ptxas-blackwell" flaggems

# The CMake package: scripts/install.sh, find_package(warpsmith) and warpsmith_cuda_target() on
# the sample project tests/cmake (clang-22 as CMake's CUDA compiler, the .tools/cuda layout).
if ! ((build_ok)); then
  skip cmake "the build failed"
elif ! command -v cmake >/dev/null 2>&1; then
  skip cmake "cmake not found: run scripts/setup.sh"
elif [[ ! -x /usr/lib/llvm-22/bin/clang++ ]] && ! command -v clang++-22 >/dev/null 2>&1; then
  skip cmake "clang++-22 not found: run scripts/setup.sh"
elif [[ ! -x "$root/.tools/cuda/bin/nvcc" ]]; then
  skip cmake "the CUDA layout .tools/cuda is missing: run scripts/setup.sh"
else
  step cmake bash tests/cmake/run.sh
fi

# examples/rust-nvptx: its own crate, offline (Cargo.lock pins the versions cargo fetched for the
# checkout). Its own target folder: it builds warpsmith without the `llvm` feature, and that
# cdylib would replace the plugin target/debug/libwarpsmith.so (cargo names cdylibs without a hash).
rust_nvptx() {
  local m=examples/rust-nvptx/Cargo.toml
  cargo fmt --manifest-path "$m" -- --check &&
    CARGO_TARGET_DIR="$root/target/rust-nvptx" cargo test --offline --manifest-path "$m"
}
step rust-nvptx rust_nvptx

summary
exit "$failed"
