// prelude.h — the few CUDA definitions the bench kernels need, so that they compile with clang
// (`-x cuda --cuda-device-only -nocudainc -nocudalib`) without a CUDA installation.
//
// Included with `-include bench/kernels/prelude.h` by scripts/compile-kernels.sh. Everything here
// is a thin wrapper over clang's own NVPTX builtins (`__nvvm_*`) with the spelling of the CUDA
// runtime API, so the kernels read like ordinary CUDA code.
#ifndef WARPSMITH_BENCH_PRELUDE_H
#define WARPSMITH_BENCH_PRELUDE_H

#ifndef __CUDA__
#error "prelude.h is for CUDA device compilation (clang -x cuda --cuda-device-only)"
#endif

// ---- execution-space and memory-space qualifiers --------------------------------------------
#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __restrict__ __restrict

// threadIdx, blockIdx, blockDim, gridDim and warpSize (clang's own header, no CUDA needed).
#include <__clang_cuda_builtin_vars.h>

#define WS_DEV static __device__ __forceinline__

typedef __SIZE_TYPE__ size_t;
typedef _Float16 __half;
typedef _Float16 __half2 __attribute__((ext_vector_type(2)));

// ---- synchronisation -----------------------------------------------------------------------
WS_DEV void __syncwarp(unsigned mask = 0xffffffffu) { __nvvm_bar_warp_sync(mask); }
WS_DEV int __syncthreads_count(int p) { return __nvvm_bar0_popc(p); }
WS_DEV int __syncthreads_and(int p) { return __nvvm_bar0_and(p); }
WS_DEV int __syncthreads_or(int p) { return __nvvm_bar0_or(p); }
WS_DEV void __threadfence() { __nvvm_membar_gl(); }
WS_DEV void __threadfence_block() { __nvvm_membar_cta(); }
// `__syncthreads()` is itself a clang builtin (bar.sync 0).

// ---- warp shuffles (width = 32 only: c = 0x1f for idx/down/xor, 0 for up) -------------------
WS_DEV int __shfl_sync(unsigned m, int v, int lane) { return __nvvm_shfl_sync_idx_i32(m, v, lane, 0x1f); }
WS_DEV float __shfl_sync(unsigned m, float v, int lane) { return __nvvm_shfl_sync_idx_f32(m, v, lane, 0x1f); }
WS_DEV int __shfl_up_sync(unsigned m, int v, unsigned d) { return __nvvm_shfl_sync_up_i32(m, v, d, 0); }
WS_DEV float __shfl_up_sync(unsigned m, float v, unsigned d) { return __nvvm_shfl_sync_up_f32(m, v, d, 0); }
WS_DEV int __shfl_down_sync(unsigned m, int v, unsigned d) { return __nvvm_shfl_sync_down_i32(m, v, d, 0x1f); }
WS_DEV float __shfl_down_sync(unsigned m, float v, unsigned d) { return __nvvm_shfl_sync_down_f32(m, v, d, 0x1f); }
WS_DEV int __shfl_xor_sync(unsigned m, int v, int x) { return __nvvm_shfl_sync_bfly_i32(m, v, x, 0x1f); }
WS_DEV float __shfl_xor_sync(unsigned m, float v, int x) { return __nvvm_shfl_sync_bfly_f32(m, v, x, 0x1f); }
WS_DEV unsigned __shfl_xor_sync(unsigned m, unsigned v, int x) {
  return (unsigned)__nvvm_shfl_sync_bfly_i32(m, (int)v, x, 0x1f);
}
WS_DEV unsigned __shfl_down_sync(unsigned m, unsigned v, unsigned d) {
  return (unsigned)__nvvm_shfl_sync_down_i32(m, (int)v, d, 0x1f);
}
WS_DEV long long __shfl_down_sync(unsigned m, long long v, unsigned d) {
  int lo = (int)(v & 0xffffffffll), hi = (int)(v >> 32);
  lo = __nvvm_shfl_sync_down_i32(m, lo, d, 0x1f);
  hi = __nvvm_shfl_sync_down_i32(m, hi, d, 0x1f);
  return ((long long)hi << 32) | (unsigned)lo;
}
WS_DEV double __shfl_down_sync(unsigned m, double v, unsigned d) {
  long long bits = __builtin_bit_cast(long long, v);
  return __builtin_bit_cast(double, __shfl_down_sync(m, bits, d));
}

// ---- warp votes ------------------------------------------------------------------------------
WS_DEV unsigned __ballot_sync(unsigned m, int p) { return __nvvm_vote_ballot_sync(m, p); }
WS_DEV int __any_sync(unsigned m, int p) { return __nvvm_vote_any_sync(m, p); }
WS_DEV int __all_sync(unsigned m, int p) { return __nvvm_vote_all_sync(m, p); }
WS_DEV unsigned __activemask() { return __nvvm_activemask(); }
WS_DEV unsigned __match_any_sync(unsigned m, unsigned v) { return __nvvm_match_any_sync_i32(m, v); }

// ---- atomics (generic addresses; the NVPTX back end narrows them to .global/.shared) ---------
WS_DEV int atomicAdd(int *p, int v) { return __nvvm_atom_add_gen_i(p, v); }
WS_DEV unsigned atomicAdd(unsigned *p, unsigned v) { return (unsigned)__nvvm_atom_add_gen_i((int *)p, (int)v); }
WS_DEV unsigned long long atomicAdd(unsigned long long *p, unsigned long long v) {
  return (unsigned long long)__nvvm_atom_add_gen_ll((long long *)p, (long long)v);
}
WS_DEV float atomicAdd(float *p, float v) { return __nvvm_atom_add_gen_f(p, v); }
WS_DEV double atomicAdd(double *p, double v) { return __nvvm_atom_add_gen_d(p, v); }
WS_DEV int atomicMax(int *p, int v) { return __nvvm_atom_max_gen_i(p, v); }
WS_DEV int atomicMin(int *p, int v) { return __nvvm_atom_min_gen_i(p, v); }
WS_DEV unsigned atomicInc(unsigned *p, unsigned v) { return __nvvm_atom_inc_gen_ui(p, v); }
WS_DEV int atomicExch(int *p, int v) { return __nvvm_atom_xchg_gen_i(p, v); }
WS_DEV int atomicOr(int *p, int v) { return __nvvm_atom_or_gen_i(p, v); }
WS_DEV int atomicCAS(int *p, int cmp, int v) { return __nvvm_atom_cas_gen_i(p, cmp, v); }
WS_DEV unsigned atomicCAS(unsigned *p, unsigned cmp, unsigned v) {
  return (unsigned)__nvvm_atom_cas_gen_i((int *)p, (int)cmp, (int)v);
}
WS_DEV unsigned long long atomicCAS(unsigned long long *p, unsigned long long cmp, unsigned long long v) {
  return (unsigned long long)__nvvm_atom_cas_gen_ll((long long *)p, (long long)cmp, (long long)v);
}

// ---- bit tricks and math -----------------------------------------------------------------------
WS_DEV int __popc(unsigned x) { return __builtin_popcount(x); }
WS_DEV int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
WS_DEV int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
WS_DEV int __ffs(int x) { return __builtin_ffs(x); }
WS_DEV unsigned __brev(unsigned x) { return __builtin_bitreverse32(x); }
WS_DEV unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
WS_DEV unsigned __lane_id() { return __nvvm_read_ptx_sreg_laneid(); }
WS_DEV float __int_as_float(int x) { return __builtin_bit_cast(float, x); }
WS_DEV int __float_as_int(float x) { return __builtin_bit_cast(int, x); }
WS_DEV float sqrtf(float x) { return __builtin_sqrtf(x); }
WS_DEV double sqrt(double x) { return __builtin_sqrt(x); }
WS_DEV float fabsf(float x) { return __builtin_fabsf(x); }
WS_DEV double fabs(double x) { return __builtin_fabs(x); }
WS_DEV float fmaf(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
WS_DEV double fma(double a, double b, double c) { return __builtin_fma(a, b, c); }
WS_DEV float fminf(float a, float b) { return __builtin_fminf(a, b); }
WS_DEV float fmaxf(float a, float b) { return __builtin_fmaxf(a, b); }
WS_DEV float rsqrtf(float x) { return __nvvm_rsqrt_approx_f(x); }
WS_DEV float __expf(float x) { return __nvvm_ex2_approx_f(x * 1.4426950408889634f); }
WS_DEV float __logf(float x) { return __nvvm_lg2_approx_f(x) * 0.6931471805599453f; }
WS_DEV float __sinf(float x) { return __nvvm_sin_approx_f(x); }
WS_DEV float __cosf(float x) { return __nvvm_cos_approx_f(x); }
WS_DEV float __fdividef(float a, float b) { return __nvvm_div_approx_f(a, b); }
WS_DEV int min(int a, int b) { return a < b ? a : b; }
WS_DEV int max(int a, int b) { return a > b ? a : b; }
WS_DEV unsigned umin(unsigned a, unsigned b) { return a < b ? a : b; }

// ---- half precision (_Float16 is native on NVPTX: add.f16, fma.rn.f16x2, …) -----------------
WS_DEV __half __float2half(float x) { return (__half)x; }
WS_DEV float __half2float(__half x) { return (float)x; }
WS_DEV __half __hadd(__half a, __half b) { return a + b; }
WS_DEV __half __hmul(__half a, __half b) { return a * b; }
WS_DEV __half __hfma(__half a, __half b, __half c) { return a * b + c; }
WS_DEV __half2 __hfma2(__half2 a, __half2 b, __half2 c) { return a * b + c; }
WS_DEV __half2 __halves2half2(__half a, __half b) { return (__half2){a, b}; }

#undef WS_DEV
#endif // WARPSMITH_BENCH_PRELUDE_H
