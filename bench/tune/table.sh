#!/usr/bin/env bash
# Runs `warpsmith tune` on every kernel that has a launch spec (bench/tune/specs/*.spec.json;
# the CUDA file each comes from is in bench/tune/specs/sources.txt, heavy.cu where not listed)
# and prints the table of variants, predicted times and choices that docs/tune.md shows.
#
#   bench/tune/table.sh [ARCH] [OUTDIR]      ARCH: sm_80 (default) or sm_90
#
# Needs clang 22 and ptxas (scripts/setup.sh), nvdisasm for the SASS emulator. Uses
# $WARPSMITH_BIN (default target/release/warpsmith: the emulator is slow in a debug build).
# OUTDIR (default bench/tune/out/ARCH, git-ignored) gets one folder per kernel from
# `--emit-variants`: every variant's PTX and cubin, report.json and launch.json — the input of
# bench/gpu/time_variants.py on a GPU machine.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
arch="${1:-sm_80}"
out="${2:-$root/bench/tune/out/$arch}"
bin="${WARPSMITH_BIN:-$root/target/release/warpsmith}"
clang="${WARPSMITH_CLANG:-/usr/lib/llvm-22/bin/clang}"
mkdir -p "$out"
# Each kernel's CUDA file: bench/tune/specs/sources.txt, else bench/kernels/heavy.cu. Every file
# is compiled once, to $out/<file>.ptx.
sources="$root/bench/tune/specs/sources.txt"
compile() {
  "$clang" -x cuda --cuda-device-only -nocudainc -nocudalib --cuda-gpu-arch="$arch" \
    --cuda-feature=+ptx80 -O3 -S -include "$root/bench/kernels/prelude.h" "$root/$1" \
    -o "$out/$(basename "$1" .cu).ptx"
}
compile bench/kernels/heavy.cu
for src in $(grep -v '^#' "$sources" | awk '{print $2}' | sort -u); do compile "$src"; done
# JOBS kernels at a time (default: the machine's cores); PREDICTOR: tune's --predictor (cycle).
tune_one() {
  local spec="$1" k
  k="$(basename "$spec" .spec.json)"
  src="$(awk -v k="$k" '$1 == k {print $2}' "$sources")"
  ptx="$out/$(basename "${src:-heavy.cu}" .cu).ptx"
  echo "== $k" >&2
  RUST_LOG="${RUST_LOG:-warpsmith::tune=info}" "$bin" tune "$ptx" --arch "$arch" --launch "$spec" \
    --predictor "${PREDICTOR:-cycle}" -o "$out/$k.tuned.cubin" \
    --emit-variants "$out/$k" >"$out/$k.log" 2>&1 || echo "FAILED: $k (see $out/$k.log)" >&2
}
export -f tune_one
export bin arch out sources
printf '%s\n' "$root"/bench/tune/specs/*.spec.json |
  xargs -P "${JOBS:-$(nproc)}" -I{} bash -c 'tune_one "$1"' _ {}
python3 - "$out" <<'PY'
import json, os, sys
out = sys.argv[1]
print("| kernel | model | variant | regs | local B | smem B | occupancy | predicted µs | |")
print("|---|---|---|---|---|---|---|---|---|")
for k in sorted(os.listdir(out)):
    r = os.path.join(out, k, "report.json")
    if not os.path.isfile(r):
        continue
    rep = json.load(open(r))
    for v in rep["variants"]:
        if v.get("error"):
            cells = ["", "", "", "", "unusable: " + v["error"][:90]]
        else:
            cells = [str(v["registers"]), str(v["local_bytes"]), str(v["shared_bytes"]),
                     "%.1f %%" % (100 * v["occupancy"]),
                     "%.2f" % v["predicted_us"] if v["predicted_us"] is not None else "-"]
        mark = "**chosen**" if v["chosen"] else ""
        print("| %s | %s | %s | %s | %s |" % (rep["kernel"], rep["model"], v["name"], " | ".join(cells), mark))
PY
