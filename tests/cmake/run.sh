#!/usr/bin/env bash
# The CMake package end to end (scripts/test.sh step `cmake`): installs warpsmith with
# scripts/install.sh (the debug build) into a temporary prefix, configures this sample project
# with clang-22 as CMake's CUDA compiler and CMAKE_PREFIX_PATH=prefix, builds it and runs its
# CTest tests; then configures and builds it again against the checkout itself
# (CMAKE_PREFIX_PATH=<checkout>) and runs the resource checks. Tests that need a GPU report SKIP
# (with the reason) on machines without one.
#
# Needs: cmake, clang-22, the CUDA layout .tools/cuda (scripts/setup.sh), cargo.
# Environment: WARPSMITH_CMAKE_WORK=DIR keeps the prefix and build folders in DIR (default: a
# temporary folder, removed at the end); WARPSMITH_CMAKE_CLANGXX=PATH another clang++ 22 (default:
# /usr/lib/llvm-22/bin/clang++, then clang++-22 on PATH).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cuda="$root/.tools/cuda"
clang="${WARPSMITH_CMAKE_CLANGXX:-}"
if [[ -z "$clang" ]]; then
  for c in /usr/lib/llvm-22/bin/clang++ "$(command -v clang++-22 || true)"; do
    if [[ -n "$c" && -x "$c" ]]; then clang="$c"; break; fi
  done
fi
[[ -n "$clang" ]] || { echo "run.sh: clang++ 22 not found (scripts/setup.sh installs it)" >&2; exit 1; }
[[ -x "$cuda/bin/nvcc" ]] || { echo "run.sh: $cuda is missing: run scripts/setup.sh" >&2; exit 1; }

if [[ -n "${WARPSMITH_CMAKE_WORK:-}" ]]; then
  work="$WARPSMITH_CMAKE_WORK"
  rm -rf "$work"
  mkdir -p "$work"
else
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
fi

# clang 22's default (new) offload driver links through clang-linker-wrapper, which Debian ships
# in clang-tools-22; the classic driver needs only the toolkit's fatbinary.
cmake_args=(-DCMAKE_CUDA_COMPILER="$clang" -DCMAKE_CXX_COMPILER="$clang" -DCUDAToolkit_ROOT="$cuda"
  "-DCMAKE_CUDA_FLAGS=--no-offload-new-driver -Wno-unknown-cuda-version")

# sm_80 always; on a machine with a GPU also its own architecture, so that the run tests execute
# the rewritten cubin (a GPU that cannot run any embedded cubin JIT-compiles the embedded PTX,
# which with the drop-in is clang's original: docs/build-systems.md).
archs=80
if command -v nvidia-smi >/dev/null 2>&1; then
  cc="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n1 | tr -d ' .')" || cc=""
  if [[ "$cc" =~ ^[0-9]+$ && "$cc" != 80 ]]; then archs="80;$cc"; fi
fi
cmake_args+=("-DCMAKE_CUDA_ARCHITECTURES=$archs")
echo "== CUDA architectures: $archs"

echo "== install into $work/prefix"
bash "$root/scripts/install.sh" "$work/prefix" --debug
cmp "$root/python/warpsmith_triton.py" "$work/prefix/share/warpsmith/python/warpsmith_triton.py"

echo "== from the installation (CMAKE_PREFIX_PATH=$work/prefix)"
cmake -S "$root/tests/cmake" -B "$work/build-installed" -DCMAKE_PREFIX_PATH="$work/prefix" "${cmake_args[@]}"
cmake --build "$work/build-installed"
(cd "$work/build-installed" && ctest --output-on-failure)
grep -h '^SKIP:' "$work/build-installed/Testing/Temporary/LastTest.log" | sort | uniq -c || true

echo "== from the checkout (CMAKE_PREFIX_PATH=$root)"
cmake -S "$root/tests/cmake" -B "$work/build-checkout" -DCMAKE_PREFIX_PATH="$root" "${cmake_args[@]}"
cmake --build "$work/build-checkout"
(cd "$work/build-checkout" && ctest --output-on-failure -R '^resources_')

echo "== warpsmith_cuda_target: errors and scope (tests/cmake/errors)"
# case|what the configure must print (error cases must also fail)
cases=(
  "unknown_pass|unknown pass \`frobnicate\`"
  "bad_regs|SPILL_MAX_REGS must be keep, auto or a number from 16 to 255, not \`300\`"
  "bad_env|ENV takes WARPSMITH_NAME=value settings, not \`FOO=1\`"
  "passes_in_env|give the passes with PASSES"
  "unknown_argument|unknown arguments: PASES"
  "no_target|no target named \`missing\`"
  "not_clang|the CUDA compiler is NVIDIA"
  "scope|scope: ok"
  "version|version: ok"
)
bad=0
for c in "${cases[@]}"; do
  name="${c%%|*}" want="${c#*|}"
  rc=0
  out="$(cmake -S "$root/tests/cmake/errors" -B "$work/errors" -DCMAKE_PREFIX_PATH="$root" "${cmake_args[@]}" \
    -DCASE="$name" 2>&1)" || rc=$?
  # CMake wraps long messages: compare with whitespace folded.
  flat="$(tr -s ' \n' '  ' <<<"$out")"
  if [[ "$flat" != *"$want"* ]] || { [[ "$name" =~ ^(scope|version)$ ]] && ((rc != 0)); } ||
    { ! [[ "$name" =~ ^(scope|version)$ ]] && ((rc == 0)); }; then
    echo "FAIL: case $name (exit $rc), expected: $want"
    echo "$out" | tail -n 20
    bad=1
  else
    echo "ok: $name"
  fi
done
exit "$bad"
