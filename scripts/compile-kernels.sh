#!/usr/bin/env bash
# Compiles every CUDA kernel in bench/kernels/*.cu and its subfolders (bench/kernels/*/*.cu, e.g.
# the PTXASW Table 2 stencils in bench/kernels/stencils/) to PTX with clang 22 (no CUDA installation
# needed: bench/kernels/prelude.h supplies the CUDA definitions), for sm_80 and sm_90 at -O0 and -O3:
#
#   OUTDIR/<name>.<arch>.<O0|O3>.ptx      (<name>: the file name without .cu; names must be unique)
#
# Usage: scripts/compile-kernels.sh OUTDIR [--check-ptxas]
#   --check-ptxas  also assemble every produced PTX with ptxas -arch=<arch> (must be accepted).
#
# Environment: WARPSMITH_CLANG, WARPSMITH_PTXAS override the tools (otherwise clang from
# /usr/lib/llvm-22/bin or clang-22 on PATH; ptxas from .tools/bin or PATH, see docs/tools.md);
# JOBS sets the parallelism (default 2).
# Exit status: 0 when every compile (and check) succeeded; 1 otherwise, after printing every error.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
usage() { echo "usage: $0 OUTDIR [--check-ptxas]" >&2; exit 2; }

outdir="" check=0
for a in "$@"; do
  case "$a" in
    --check-ptxas) check=1 ;;
    -h|--help) usage ;;
    -*) echo "unknown option: $a" >&2; usage ;;
    *) [[ -z "$outdir" ]] || usage; outdir="$a" ;;
  esac
done
[[ -n "$outdir" ]] || usage

find_clang() {
  if [[ -n "${WARPSMITH_CLANG:-}" ]]; then
    [[ -x "$WARPSMITH_CLANG" ]] || { echo "error: WARPSMITH_CLANG=$WARPSMITH_CLANG is not an executable" >&2; exit 1; }
    echo "$WARPSMITH_CLANG"; return
  fi
  for c in /usr/lib/llvm-22/bin/clang "$(command -v clang-22 || true)"; do
    if [[ -n "$c" && -x "$c" ]]; then echo "$c"; return; fi
  done
  echo "error: clang 22 not found (set WARPSMITH_CLANG or run scripts/setup.sh)" >&2
  exit 1
}
find_ptxas() {
  if [[ -n "${WARPSMITH_PTXAS:-}" ]]; then
    [[ -x "$WARPSMITH_PTXAS" ]] || { echo "error: WARPSMITH_PTXAS=$WARPSMITH_PTXAS is not an executable" >&2; exit 1; }
    echo "$WARPSMITH_PTXAS"; return
  fi
  for c in "$root/.tools/bin/ptxas" "$(command -v ptxas || true)"; do
    if [[ -n "$c" && -x "$c" ]]; then echo "$c"; return; fi
  done
  echo "error: ptxas not found (set WARPSMITH_PTXAS or run scripts/setup.sh)" >&2
  exit 1
}

CLANG="$(find_clang)"
PTXAS=""
if ((check)); then PTXAS="$(find_ptxas)"; fi
mkdir -p "$outdir"
OUTDIR="$(cd "$outdir" && pwd)"
export CLANG PTXAS OUTDIR ROOT="$root"

# One job: compile one (file, arch, level); print the tool's own error and return 1 on failure.
compile_one() {
  local src="$1" arch="$2" level="$3"
  local name out tmp err
  name="$(basename "$src" .cu)"
  out="$OUTDIR/$name.$arch.$level.ptx"
  tmp="$out.tmp.$$"
  err="$(mktemp)"
  # PTX ISA 8.0 is enough for sm_80 and sm_90 and is accepted by ptxas 12.x.
  local cmd=("$CLANG" -x cuda --cuda-device-only -nocudainc -nocudalib --cuda-gpu-arch="$arch"
    --cuda-feature=+ptx80 "-$level" -S -include "$ROOT/bench/kernels/prelude.h" "$src" -o "$tmp")
  if ! "${cmd[@]}" 2>"$err"; then
    echo "FAIL clang  $name.$arch.$level: ${cmd[*]}" >&2
    cat "$err" >&2
    rm -f "$tmp" "$err"
    return 1
  fi
  mv "$tmp" "$out"
  if [[ -n "$PTXAS" ]]; then
    if ! "$PTXAS" -arch="$arch" "$out" -o /dev/null 2>"$err"; then
      echo "FAIL ptxas  $name.$arch.$level: $PTXAS -arch=$arch $out" >&2
      cat "$err" >&2
      rm -f "$err"
      return 1
    fi
  fi
  rm -f "$err"
  echo "ok   $name.$arch.$level"
}
export -f compile_one

shopt -s nullglob
sources=("$root"/bench/kernels/*.cu "$root"/bench/kernels/*/*.cu)
if ((${#sources[@]} == 0)); then echo "error: no bench/kernels/*.cu" >&2; exit 1; fi
# Outputs are named by file name only: two sources with the same name would overwrite each other.
dups="$(for s in "${sources[@]}"; do basename "$s"; done | sort | uniq -d)"
if [[ -n "$dups" ]]; then echo "error: kernel file names must be unique under bench/kernels: $dups" >&2; exit 1; fi

total=$((${#sources[@]} * 4))
echo "compiling ${#sources[@]} files x {sm_80,sm_90} x {O0,O3} = $total PTX files into $OUTDIR (clang: $CLANG${PTXAS:+, ptxas: $PTXAS})"
status=0
for src in "${sources[@]}"; do
  for arch in sm_80 sm_90; do
    for level in O0 O3; do printf '%s\0%s\0%s\0' "$src" "$arch" "$level"; done
  done
done | xargs -0 -n 3 -P "${JOBS:-2}" bash -c 'compile_one "$@"' _ || status=$?

if ((status != 0)); then
  echo "compile-kernels: FAILED (see the errors above)" >&2
  exit 1
fi
echo "compile-kernels: all $total PTX files produced${PTXAS:+ and accepted by ptxas}"
