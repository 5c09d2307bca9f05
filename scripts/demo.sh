#!/usr/bin/env bash
# The warpsmith demo: a realistic CUDA kernel (a shared-memory tiled heat-diffusion step that also
# reduces the residual with warp shuffles) is compiled to PTX by clang 22, without any CUDA
# installation, then
#   1. `warpsmith stats` reports, per kernel, what warpsmith's PTX IR sees (instructions, blocks,
#      loops, register pressure, launch bounds, shared/local memory);
#   2. `ptxas -v` reports what NVIDIA's assembler makes of the same PTX on sm_80 and sm_90
#      (registers, spills, stack, shared memory);
#   3. `warpsmith divergence` classifies its registers (uniform, affine, divergent);
#   4. a register-heavy kernel of bench/kernels/heavy.cu is capped at the next occupancy cliff:
#      `warpsmith occupancy` shows the cliffs, `warpsmith spill --occupancy auto` demotes registers
#      to shared memory, `ptxas -v` compares NVIDIA's local-memory spilling with the result, and
#      `warpsmith equiv` runs both versions on the emulator and compares every output byte;
#   5. shuffle synthesis on the Jacobi stencil of bench/kernels/stencils: `warpsmith shuffle`
#      replaces global loads that a neighbouring lane already made with guarded `shfl.sync`
#      (symbolic emulation on Z3), `warpsmith equiv` checks it on a full and an incomplete-warp
#      launch, and the same rewrite runs inside `warpsmith ptxas` (WARPSMITH_PASSES=shuffle), the
#      drop-in assembler for clang's --ptxas-path.
# Usage: bash scripts/demo.sh            (runs scripts/setup.sh first; nothing is written outside a
#                                        temporary folder, which is removed at the end)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

bash scripts/setup.sh
if ! command -v cargo >/dev/null 2>&1 && [[ -x "$HOME/.cargo/bin/cargo" ]]; then
  export PATH="$HOME/.cargo/bin:$PATH"
fi

clang="${WARPSMITH_CLANG:-}"
if [[ -z "$clang" ]]; then
  for c in /usr/lib/llvm-22/bin/clang "$(command -v clang-22 || true)"; do
    if [[ -n "$c" && -x "$c" ]]; then clang="$c"; break; fi
  done
fi
ptxas="${WARPSMITH_PTXAS:-$root/.tools/bin/ptxas}"
[[ -x "$clang" ]] || { echo "demo: clang 22 not found (run scripts/setup.sh)" >&2; exit 1; }
[[ -x "$ptxas" ]] || { echo "demo: ptxas not found (run scripts/setup.sh)" >&2; exit 1; }

work="$(mktemp -d "${TMPDIR:-/tmp}/warpsmith-demo.XXXXXX")"
trap 'rm -rf "$work"' EXIT

cat >"$work/heat.cu" <<'CUDA'
// One explicit heat-diffusion step on an nx*ny grid with 32x8 thread blocks. Each block stages a
// (32+2)x(8+2) tile with halo in shared memory, writes the new temperature, and reduces
// |new - old| over the block (warp shuffles, then shared memory) into one atomicMax per block.
#define BX 32
#define BY 8

extern "C" __global__ void __launch_bounds__(BX * BY)
heat_step(const float *__restrict__ t, float *__restrict__ t_new, unsigned *__restrict__ max_delta_bits,
          int nx, int ny, float alpha) {
  __shared__ float tile[BY + 2][BX + 2];
  __shared__ float warp_max[BX * BY / 32];
  int tx = threadIdx.x, ty = threadIdx.y;
  int x = blockIdx.x * BX + tx, y = blockIdx.y * BY + ty;
  bool inside = x < nx && y < ny;
  tile[ty + 1][tx + 1] = inside ? t[y * nx + x] : 0.0f;
  if (tx == 0) tile[ty + 1][0] = (x > 0 && y < ny) ? t[y * nx + x - 1] : 0.0f;
  if (tx == BX - 1) tile[ty + 1][BX + 1] = (x + 1 < nx && y < ny) ? t[y * nx + x + 1] : 0.0f;
  if (ty == 0) tile[0][tx + 1] = (y > 0 && x < nx) ? t[(y - 1) * nx + x] : 0.0f;
  if (ty == BY - 1) tile[BY + 1][tx + 1] = (y + 1 < ny && x < nx) ? t[(y + 1) * nx + x] : 0.0f;
  __syncthreads();

  float delta = 0.0f;
  if (inside && x > 0 && y > 0 && x < nx - 1 && y < ny - 1) {
    float c = tile[ty + 1][tx + 1];
    float lap = tile[ty + 1][tx] + tile[ty + 1][tx + 2] + tile[ty][tx + 1] + tile[ty + 2][tx + 1] - 4.0f * c;
    float v = c + alpha * lap;
    t_new[y * nx + x] = v;
    delta = fabsf(v - c);
  }
  // Block-wide max of delta: butterfly shuffles inside each warp, then the 8 warp results.
  for (int m = 16; m > 0; m >>= 1) delta = fmaxf(delta, __shfl_xor_sync(0xffffffffu, delta, m));
  int lin = ty * BX + tx;
  if ((lin & 31) == 0) warp_max[lin >> 5] = delta;
  __syncthreads();
  if (lin < 32) {
    delta = lin < BX * BY / 32 ? warp_max[lin] : 0.0f;
    for (int m = 4; m > 0; m >>= 1) delta = fmaxf(delta, __shfl_xor_sync(0xffffffffu, delta, m));
    // Non-negative floats order like their bit patterns, so an integer atomicMax works.
    if (lin == 0) atomicMax((int *)max_delta_bits, __float_as_int(delta));
  }
}
CUDA

echo "== compiling the embedded kernel with $clang (no CUDA installation needed)"
for arch in sm_80 sm_90; do
  "$clang" -x cuda --cuda-device-only -nocudainc -nocudalib --cuda-gpu-arch="$arch" \
    --cuda-feature=+ptx80 -O3 -S -include "$root/bench/kernels/prelude.h" \
    "$work/heat.cu" -o "$work/heat.$arch.ptx"
  echo "   heat.$arch.ptx: $(grep -c "" "$work/heat.$arch.ptx") lines of PTX"
done

echo
echo "== warpsmith stats heat.sm_80.ptx"
cargo run --release -q -- stats "$work/heat.sm_80.ptx"

echo
echo "== ptxas -v ($("$ptxas" --version | grep -o "release [^,]*, V[0-9.]*" || echo unknown version))"
printf '   %-6s %-12s %9s %13s %12s %11s %10s\n' arch kernel registers "spill st/ld" "stack bytes" "smem bytes" barriers
for arch in sm_80 sm_90; do
  "$ptxas" -arch="$arch" -v "$work/heat.$arch.ptx" -o "$work/heat.$arch.cubin" 2>&1 |
    awk -v arch="$arch" '
      /Function properties for/ { name = $NF }
      /bytes stack frame/ { gsub(",", ""); stack[name] = $1; st[name] = $5; ld[name] = $9 }
      /Used [0-9]+ registers/ {
        regs = $0; sub(/.*Used /, "", regs); sub(/ registers.*/, "", regs)
        smem = 0; if (match($0, /[0-9]+ bytes smem/)) { smem = substr($0, RSTART, RLENGTH); sub(/ .*/, "", smem) }
        bar = 0; if (match($0, /used [0-9]+ barriers/)) { bar = substr($0, RSTART + 5, RLENGTH - 5); sub(/ .*/, "", bar) }
        printf "   %-6s %-12s %9s %13s %12s %11s %10s\n", arch, name, regs, st[name] "/" ld[name], stack[name], smem, bar
      }'
done
echo
echo "== warpsmith divergence heat.sm_80.ptx --block-dim 32,8,1 (registers per class)"
cargo run --release -q -- divergence "$work/heat.sm_80.ptx" --block-dim 32,8,1 --json |
  grep -o '"class": "[a-z-]*"' | sort | uniq -c

echo
echo "== shared-memory spilling: heavy_accumulators96 (bench/kernels/heavy.cu), sm_80"
"$clang" -x cuda --cuda-device-only -nocudainc -nocudalib --cuda-gpu-arch=sm_80 --cuda-feature=+ptx80 -O3 -S \
  -include "$root/bench/kernels/prelude.h" "$root/bench/kernels/heavy.cu" -o "$work/heavy.ptx"
regs=$("$ptxas" -arch=sm_80 -v "$work/heavy.ptx" -o /dev/null 2>&1 |
  awk '/Compiling entry function .heavy_accumulators96./ { on = 1 } on && /Used [0-9]+ registers/ { sub(/.*Used /, ""); sub(/ registers.*/, ""); print; exit }')
echo "   natural register use: $regs"
cargo run --release -q -- occupancy --arch sm_80 --regs "$regs" --threads 256 --cliffs
cargo run --release -q -- spill "$work/heavy.ptx" -o "$work/heavy.spilled.ptx" --kernel heavy_accumulators96 \
  --occupancy auto --arch sm_80 --report "$work/report.json"
cap=$(grep -o '"max_regs": [0-9]*' "$work/report.json" | grep -o '[0-9]*$')
# NVIDIA's own answer at the same cap: .maxnreg on the kernel, ptxas spills to local memory.
awk -v cap="$cap" '/^\.visible \.entry heavy_accumulators96\(/ { on = 1 }
  { print } on && /^\.maxntid/ { print ".maxnreg " cap; on = 0 }' "$work/heavy.ptx" >"$work/heavy.capped.ptx"
for variant in capped spilled; do
  echo "   ptxas -v, $variant at .maxnreg $cap:"
  "$ptxas" -arch=sm_80 -v "$work/heavy.$variant.ptx" -o /dev/null 2>&1 |
    awk '/Compiling entry function .heavy_accumulators96./ { on = 1 } on && /bytes stack frame|Used [0-9]+ registers/ { print "     " $0 } on && /Used/ { exit }'
done
cat >"$work/spec.json" <<'JSON'
{"kernel": "heavy_accumulators96", "grid": [2,1,1], "block": [256,1,1],
 "args": [{"buffer": {"type": "f32", "len": 512, "init": "random", "seed": 1}},
          {"buffer": {"type": "f32", "len": 512, "init": "zero"}},
          {"scalar": {"type": "s32", "value": 512}}, {"scalar": {"type": "s32", "value": 3}}]}
JSON
echo "   warpsmith equiv (emulator, 3 input sets):"
cargo run --release -q -- equiv "$work/heavy.ptx" "$work/heavy.spilled.ptx" --launch "$work/spec.json" --seeds 3

echo
echo "== shuffle synthesis: jacobi (bench/kernels/stencils/jacobi.cu), sm_80"
"$clang" -x cuda --cuda-device-only -nocudainc -nocudalib --cuda-gpu-arch=sm_80 --cuda-feature=+ptx80 -O3 -S \
  -include "$root/bench/kernels/prelude.h" "$root/bench/kernels/stencils/jacobi.cu" -o "$work/jacobi.ptx"
cargo run --release -q -- shuffle "$work/jacobi.ptx" -o "$work/jacobi.shfl.ptx" --report "$work/shuffle.json"
echo "   shfl.sync in the output: $(grep -c 'shfl.sync' "$work/jacobi.shfl.ptx")"
for shape in "32,4" "20,3"; do
  cat >"$work/jacobi.json" <<JSON
{"kernel": "jacobi", "grid": [4,4,1], "block": [${shape},1],
 "args": [{"buffer": {"type": "f32", "len": 770, "init": "random", "seed": 1}},
          {"buffer": {"type": "f32", "len": 770, "init": "zero"}},
          {"scalar": {"type": "f32", "value": 0.5}}, {"scalar": {"type": "f32", "value": 0.25}},
          {"scalar": {"type": "f32", "value": 0.125}}, {"scalar": {"type": "s32", "value": 70}},
          {"scalar": {"type": "s32", "value": 11}}]}
JSON
  echo "   warpsmith equiv, block ${shape/,/x} (emulator, 3 input sets):"
  cargo run --release -q -- equiv "$work/jacobi.ptx" "$work/jacobi.shfl.ptx" --launch "$work/jacobi.json" --seeds 3
done
echo "   the same through the ptxas drop-in (WARPSMITH_PASSES=shuffle warpsmith ptxas -arch sm_80 -v …):"
WARPSMITH_PASSES=shuffle cargo run --release -q -- ptxas -arch sm_80 -v "$work/jacobi.ptx" -o "$work/jacobi.cubin" 2>&1 |
  sed 's/^/     /'

echo
echo "demo finished."
