#include "vectypes.h"
// One warp per matrix row: float4 loads along the row, a shuffle reduction, grid-stride rows.
extern "C" __global__ void warp_matvec(const float4 *a, const float4 *xv, float *y, int rows,
                                       int cols4) {
  int lane = threadIdx.x & 31;
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  int warps = (gridDim.x * blockDim.x) >> 5;
  for (int r = warp; r < rows; r += warps) {
    const float4 *row = a + (size_t)r * cols4;
    float s = 0.f;
    for (int c = lane; c < cols4; c += 32) {
      float4 p = row[c], q = xv[c];
      s += p.x * q.x + p.y * q.y + p.z * q.z + p.w * q.w;
    }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (lane == 0) y[r] = s;
  }
}
