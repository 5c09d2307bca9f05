// Reductions: warp shuffles (__shfl_down_sync, __shfl_xor_sync) combined through shared memory,
// and the classic shared-memory tree with __syncthreads at every level.

static __device__ __forceinline__ float warp_sum_down(float v) {
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, (unsigned)off);
  return v;
}

static __device__ __forceinline__ float warp_sum_xor(float v) {
#pragma unroll
  for (int m = 16; m > 0; m >>= 1) v += __shfl_xor_sync(0xffffffffu, v, m);
  return v;
}

// Grid-stride sum: per-warp __shfl_down_sync reduction, warp sums in shared, one atomicAdd per block.
extern "C" __global__ void reduce_sum_shfl_down(const float *__restrict__ in, float *out, int n) {
  __shared__ float warp_sums[32];
  float v = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) v += in[i];
  v = warp_sum_down(v);
  unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < (blockDim.x + 31) / 32 ? warp_sums[lane] : 0.0f;
    v = warp_sum_down(v);
    if (lane == 0) atomicAdd(out, v);
  }
}

// Row-wise max and sum with butterfly (__shfl_xor_sync) all-reduce: every lane gets the result.
extern "C" __global__ void reduce_rows_shfl_xor(const float *__restrict__ m, float *__restrict__ out, int rows, int cols) {
  int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  int lane = threadIdx.x & 31;
  if (row >= rows) return;
  float s = 0.0f, mx = -3.4e38f;
  for (int c = lane; c < cols; c += 32) {
    float x = m[(long)row * cols + c];
    s += x;
    mx = fmaxf(mx, x);
  }
  s = warp_sum_xor(s);
#pragma unroll
  for (int k = 16; k > 0; k >>= 1) mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, k));
  if (lane == 0) {
    out[2 * row] = s;
    out[2 * row + 1] = mx;
  }
}

// Shared-memory tree reduction (power-of-two block of 256), __syncthreads at each halving.
extern "C" __global__ void __launch_bounds__(256) reduce_sum_smem_tree(const int *__restrict__ in, int *out, int n) {
  __shared__ int s[256];
  unsigned t = threadIdx.x;
  unsigned i = blockIdx.x * 512 + t;
  int v = 0;
  if (i < (unsigned)n) v = in[i];
  if (i + 256 < (unsigned)n) v += in[i + 256];
  s[t] = v;
  __syncthreads();
  for (unsigned stride = 128; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}
