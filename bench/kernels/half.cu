// Half precision (_Float16 on NVPTX): a scalar __half AXPY and a half2-vectorised GEMV that
// accumulates pairs with fma.rn.f16x2, widening to float for the final reduction.

// y = a*x + y in __half, math in half.
extern "C" __global__ void haxpy(int n, __half a, const __half *__restrict__ x, __half *__restrict__ y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = __hfma(a, x[i], y[i]);
}

// y = A*x, A row-major rows x cols (cols even), one warp per row, half2 accumulation per lane.
extern "C" __global__ void hgemv_half2(const __half2 *__restrict__ A, const __half2 *__restrict__ x, float *__restrict__ y,
                                       int rows, int cols) {
  int row = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
  int lane = threadIdx.x & 31;
  if (row >= rows) return;
  int pairs = cols / 2;
  __half2 acc = __halves2half2((__half)0.0f, (__half)0.0f);
  for (int c = lane; c < pairs; c += 32) acc = __hfma2(A[(long)row * pairs + c], x[c], acc);
  float s = __half2float(acc.x) + __half2float(acc.y);
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) s += __shfl_down_sync(0xffffffffu, s, (unsigned)off);
  if (lane == 0) y[row] = s;
}

// Converts float to half and back with a scale: exercises cvt.rn.f16.f32 / cvt.f32.f16.
extern "C" __global__ void half_roundtrip(const float *__restrict__ in, __half *__restrict__ h, float *__restrict__ out, float scale, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __half v = __float2half(in[i] * scale);
  h[i] = v;
  out[i] = __half2float(__hmul(v, v));
}
