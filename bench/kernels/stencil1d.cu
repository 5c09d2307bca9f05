// 1-D stencils: a shared-memory tiled radius-3 stencil with halo loads, and its naive
// global-memory form (neighbouring lanes re-load each other's values: a shuffle-synthesis target).

#define RADIUS 3
#define BLOCK 256

// Tiled 1-D stencil: shared tile + halo, one __syncthreads, 7-point weighted sum.
extern "C" __global__ void stencil1d_tiled(const float *__restrict__ in, float *__restrict__ out, int n) {
  __shared__ float tile[BLOCK + 2 * RADIUS];
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  int l = threadIdx.x + RADIUS;
  tile[l] = g < n ? in[g] : 0.0f;
  if (threadIdx.x < RADIUS) {
    int left = g - RADIUS, right = g + BLOCK;
    tile[l - RADIUS] = left >= 0 ? in[left] : 0.0f;
    tile[l + BLOCK] = right < n ? in[right] : 0.0f;
  }
  __syncthreads();
  if (g >= n) return;
  const float w[2 * RADIUS + 1] = {0.05f, 0.1f, 0.2f, 0.3f, 0.2f, 0.1f, 0.05f};
  float acc = 0.0f;
#pragma unroll
  for (int k = -RADIUS; k <= RADIUS; ++k) acc += w[k + RADIUS] * tile[l + k];
  out[g] = acc;
}

// Naive 1-D stencil straight from global memory: each input is loaded by 7 neighbouring lanes.
extern "C" __global__ void stencil1d_naive(const float *__restrict__ in, float *__restrict__ out, int n) {
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g < RADIUS || g >= n - RADIUS) return;
  float acc = 0.0f;
#pragma unroll
  for (int k = -RADIUS; k <= RADIUS; ++k) acc += (k == 0 ? 0.4f : 0.1f) * in[g + k];
  out[g] = acc;
}
