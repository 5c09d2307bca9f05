// Row-wise normalisations, one warp per row: a numerically stable softmax (max and sum all-reduces
// with __shfl_xor_sync, ex2.approx) and LayerNorm (mean/variance, rsqrt).

static __device__ __forceinline__ float warp_max(float v) {
#pragma unroll
  for (int m = 16; m > 0; m >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, m));
  return v;
}
static __device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int m = 16; m > 0; m >>= 1) v += __shfl_xor_sync(0xffffffffu, v, m);
  return v;
}

// Softmax over each row of a rows x cols matrix (three passes over the row per warp).
extern "C" __global__ void softmax_warp_row(const float *__restrict__ x, float *__restrict__ y, int rows, int cols) {
  int row = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
  int lane = threadIdx.x & 31;
  if (row >= rows) return;
  const float *xr = x + (long)row * cols;
  float *yr = y + (long)row * cols;
  float m = -3.4e38f;
  for (int c = lane; c < cols; c += 32) m = fmaxf(m, xr[c]);
  m = warp_max(m);
  float s = 0.0f;
  for (int c = lane; c < cols; c += 32) s += __expf(xr[c] - m);
  s = warp_sum(s);
  float inv = 1.0f / s;
  for (int c = lane; c < cols; c += 32) yr[c] = __expf(xr[c] - m) * inv;
}

// LayerNorm of each row with learned gamma/beta; the row is cached in registers (cols <= 1024).
extern "C" __global__ void layernorm_warp_row(const float *__restrict__ x, const float *__restrict__ gamma, const float *__restrict__ beta,
                                              float *__restrict__ y, int rows, int cols, float eps) {
  int row = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
  int lane = threadIdx.x & 31;
  if (row >= rows) return;
  float v[32];
  float s = 0.0f;
#pragma unroll
  for (int k = 0; k < 32; ++k) {
    int c = lane + 32 * k;
    v[k] = c < cols ? x[(long)row * cols + c] : 0.0f;
    s += v[k];
  }
  float mean = warp_sum(s) / cols, q = 0.0f;
#pragma unroll
  for (int k = 0; k < 32; ++k) {
    int c = lane + 32 * k;
    float d = c < cols ? v[k] - mean : 0.0f;
    q += d * d;
  }
  float rstd = rsqrtf(warp_sum(q) / cols + eps);
#pragma unroll
  for (int k = 0; k < 32; ++k) {
    int c = lane + 32 * k;
    if (c < cols) y[(long)row * cols + c] = (v[k] - mean) * rstd * gamma[c] + beta[c];
  }
}
