// CUDA kernels compiled by clang-22 to NVPTX LLVM IR (-O3 and -O0/optnone), then
// print<affine-divergence>. CUDA has no reqntid: the block shape comes from the options.
// REQUIRES: plugin, clang, opt
// RUN: %clang -x cuda --cuda-device-only -nocudainc -nocudalib --cuda-gpu-arch=sm_80 --cuda-feature=+ptx80 -include %S/../../bench/kernels/prelude.h -O3 -emit-llvm -S %s -o %t.ll
// RUN: %opt -load-pass-plugin=%plugin -passes='print<affine-divergence>' -affine-divergence-assume-1d %t.ll -disable-output 2>&1 | FileCheck %s
// RUN: %opt -load-pass-plugin=%plugin -passes='print<affine-divergence>' %t.ll -disable-output 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: %opt -load-pass-plugin=%plugin -passes='print<affine-divergence>' -affine-divergence-block-dim=16,16 %t.ll -disable-output 2>&1 | FileCheck %s --check-prefix=TILE
// RUN: %clang -x cuda --cuda-device-only -nocudainc -nocudalib --cuda-gpu-arch=sm_80 --cuda-feature=+ptx80 -include %S/../../bench/kernels/prelude.h -O0 -emit-llvm -S %s -o %t0.ll
// RUN: %opt -load-pass-plugin=%plugin -passes='print<affine-divergence>' -affine-divergence-assume-1d %t0.ll -disable-output 2>&1 | FileCheck %s --check-prefix=O0

// CHECK-LABEL: Affine divergence for function '_Z9warp_sumsPKiPii' (kernel, block shape 1-D (assumed)):
// CHECK-NOT: note:
// CHECK: uniform scope=block: ptr {{.*}}%0
// CHECK: affine coef=1 scope=warp: %[[TID:[0-9]+]] = {{.*}}@llvm.nvvm.read.ptx.sreg.tid.x()
// The warp's partial sums: shfl.down results are divergent, the broadcast from lane 0 is not.
// CHECK: divergent: %{{[0-9]+}} = {{.*}}@llvm.nvvm.shfl.sync.down.i32
// CHECK: constant-affine coef=1 base=0: %{{[0-9]+}} = and i32 %[[TID]], 31
// CHECK: uniform scope=warp: %{{[0-9]+}} = {{.*}}@llvm.nvvm.shfl.sync.idx.i32(i32 -1, i32 %{{[0-9]+}}, i32 0, i32 31)
// CHECK: divergent branch: br i1
// CHECK: uniform scope=warp: %{{[0-9]+}} = lshr exact i32 %[[TID]], 5
// CHECK-LABEL: Affine divergence for function '_Z6scaledPfi'
// Kernel arguments, the grid and the per-block loop bound are block-uniform.
// CHECK: uniform scope=block: %{{[0-9]+}} = {{.*}}@llvm.nvvm.read.ptx.sreg.ctaid.x()
// CHECK: affine coef=1 scope=warp: %{{[0-9]+}} = {{.*}}@llvm.nvvm.read.ptx.sreg.tid.x()

// UNKNOWN: Affine divergence for function '_Z9warp_sumsPKiPii' (kernel, block shape unknown):
// UNKNOWN-NEXT: note: %tid is treated as divergent: the block shape is unknown
// UNKNOWN-SAME: (-affine-divergence-block-dim=X,Y,Z or -affine-divergence-assume-1d in the LLVM plugin)
// UNKNOWN: divergent: %{{[0-9]+}} = {{.*}}@llvm.nvvm.read.ptx.sreg.tid.x()
// UNKNOWN: constant-affine coef=1 base=0: %{{[0-9]+}} = {{.*}}@llvm.nvvm.read.ptx.sreg.laneid()

// TILE: (kernel, block shape 16x16x1):
// TILE-NEXT: note: %tid.x is divergent: in a 16x16x1 block ntid.x = 16 is not a multiple of 32

// O0 (optnone functions, values through allocas): the pass still runs.
// O0-LABEL: Affine divergence for function '_Z9warp_sumsPKiPii' (kernel, block shape 1-D (assumed)):
// O0: uniform scope=block: %{{[0-9]+}} = alloca ptr
// O0: affine coef=1 scope=warp: %{{[0-9]+}} = call {{.*}}@llvm.nvvm.read.ptx.sreg.tid.x()

__global__ void warp_sums(const int *in, int *out, int n) {
  int lane = threadIdx.x & 31;
  int warp = threadIdx.x >> 5;
  int v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int d = 16; d > 0; d /= 2) v += __shfl_down_sync(0xffffffff, v, d);
  int total = __shfl_sync(0xffffffff, v, 0);
  if (lane == 0) out[warp] = total + __nvvm_read_ptx_sreg_laneid();
}

__global__ void scaled(float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < n; k++) a[i] *= 2.0f;
}
