// Large register footprints: 128 live accumulators updated in a fully unrolled loop, and an
// N-body tile with 8 bodies per thread; both push ptxas towards (or past) 128 registers.

// 128 independent accumulators, all live across the loop (a register-pressure / spilling target).
extern "C" __global__ void many_accumulators128(const float *__restrict__ in, float *__restrict__ out, int n, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc[128];
#pragma unroll
  for (int k = 0; k < 128; ++k) acc[k] = in[(i + k * 37) % n];
  for (int it = 0; it < iters; ++it) {
    float x = in[(i + it) % n];
#pragma unroll
    for (int k = 0; k < 128; ++k) acc[k] = fmaf(acc[k], x, acc[(k + 1) & 127] * 0.5f);
  }
  float s = 0.0f;
#pragma unroll
  for (int k = 0; k < 128; ++k) s += acc[k] * (float)(k + 1);
  out[i] = s;
}

#define NB 8
// N-body accelerations: each thread owns NB bodies, the j-loop streams all positions (float4 = x,y,z,m).
extern "C" __global__ void nbody_8_per_thread(const float *__restrict__ pos, float *__restrict__ acc_out, int n) {
  int base = (blockIdx.x * blockDim.x + threadIdx.x) * NB;
  if (base + NB > n) return;
  float px[NB], py[NB], pz[NB], ax[NB] = {}, ay[NB] = {}, az[NB] = {};
#pragma unroll
  for (int b = 0; b < NB; ++b) {
    px[b] = pos[4 * (base + b)];
    py[b] = pos[4 * (base + b) + 1];
    pz[b] = pos[4 * (base + b) + 2];
  }
  for (int j = 0; j < n; ++j) {
    float qx = pos[4 * j], qy = pos[4 * j + 1], qz = pos[4 * j + 2], m = pos[4 * j + 3];
#pragma unroll
    for (int b = 0; b < NB; ++b) {
      float dx = qx - px[b], dy = qy - py[b], dz = qz - pz[b];
      float r2 = dx * dx + dy * dy + dz * dz + 1e-6f;
      float inv = rsqrtf(r2);
      float f = m * inv * inv * inv;
      ax[b] += f * dx;
      ay[b] += f * dy;
      az[b] += f * dz;
    }
  }
#pragma unroll
  for (int b = 0; b < NB; ++b) {
    acc_out[3 * (base + b)] = ax[b];
    acc_out[3 * (base + b) + 1] = ay[b];
    acc_out[3 * (base + b) + 2] = az[b];
  }
}
