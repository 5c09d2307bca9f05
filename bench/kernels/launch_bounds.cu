// __launch_bounds__: the same 96-accumulator body under three occupancy contracts (.maxntid /
// .minnctapersm), which change the register budget ptxas may use (none: ~105 registers, no spills;
// bounded: local-memory spills — the baseline shared-memory spilling must beat).

static __device__ __forceinline__ float body(const float *__restrict__ in, int i, int n) {
  float acc[96];
#pragma unroll
  for (int k = 0; k < 96; ++k) acc[k] = in[i] * (float)(k + 1);
  for (int it = 1; it < n / 4096; ++it) {
    float x = in[i + it * 4096];
#pragma unroll
    for (int k = 0; k < 96; ++k) acc[k] = fmaf(acc[k], x, acc[(k + 7) % 96]);
  }
  float s = 0.0f;
#pragma unroll
  for (int k = 0; k < 96; ++k) s += acc[k] * acc[95 - k];
  return s;
}

// No bounds: ptxas may use up to 255 registers.
extern "C" __global__ void lb_none(const float *__restrict__ in, float *__restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = body(in, i, n);
}

// At most 256 threads per block, at least 4 blocks per SM (≤ 64 registers).
extern "C" __global__ void __launch_bounds__(256, 4) lb_256x4(const float *__restrict__ in, float *__restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = body(in, i, n);
}

// At most 1024 threads per block (.maxntid 1024 only; ptxas 12.9 then caps itself at 32 registers and spills).
extern "C" __global__ void __launch_bounds__(1024) lb_1024(const float *__restrict__ in, float *__restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = body(in, i, n);
}
