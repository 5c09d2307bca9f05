// Register-heavy kernels for the shared-memory spilling benchmarks (bench/spill_baseline.rs): each
// needs far more registers than the occupancy cliffs below its natural use allow, so ptxas must
// spill when capped with .maxnreg. Most have launch bounds (NVIDIA's enable_smem_spilling pragma
// sizes its area from them); two use dynamic shared memory, where the pragma is not allowed.

#define TILE 64
#define TM 8
#define TN 8

// Register-tiled SGEMM: 256 threads compute a 128x128 tile, 8x8 outputs per thread, K-slices of 8
// staged in shared memory.
extern "C" __global__ void __launch_bounds__(256) heavy_sgemm_8x8(const float *__restrict__ A, const float *__restrict__ B,
                                                                  float *__restrict__ C, int M, int N, int K) {
  __shared__ float As[8][128];
  __shared__ float Bs[8][128];
  int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  int row0 = blockIdx.y * 128 + ty * TM, col0 = blockIdx.x * 128 + tx * TN;
  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;
  for (int k0 = 0; k0 < K; k0 += 8) {
    for (int t = threadIdx.x; t < 8 * 128; t += 256) {
      int kk = t / 128, mm = t % 128;
      int ar = blockIdx.y * 128 + mm, bc = blockIdx.x * 128 + mm;
      As[kk][mm] = (ar < M && k0 + kk < K) ? A[ar * K + k0 + kk] : 0.0f;
      Bs[kk][mm] = (bc < N && k0 + kk < K) ? B[(k0 + kk) * N + bc] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < 8; ++kk) {
      float a[TM], b[TN];
#pragma unroll
      for (int i = 0; i < TM; ++i) a[i] = As[kk][ty * TM + i];
#pragma unroll
      for (int j = 0; j < TN; ++j) b[j] = Bs[kk][tx * TN + j];
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j)
      if (row0 + i < M && col0 + j < N) C[(row0 + i) * N + col0 + j] = acc[i][j];
}

// The same register tiling with the shared-memory tiles in dynamic shared memory (as Triton and
// most libraries allocate them): enable_smem_spilling refuses such kernels.
extern "C" __global__ void __launch_bounds__(256) heavy_sgemm_8x8_dynsmem(const float *__restrict__ A, const float *__restrict__ B,
                                                                          float *__restrict__ C, int M, int N, int K) {
  extern __shared__ float smem[];
  float *As = smem, *Bs = smem + 8 * 128;
  int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  int row0 = blockIdx.y * 128 + ty * TM, col0 = blockIdx.x * 128 + tx * TN;
  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;
  for (int k0 = 0; k0 < K; k0 += 8) {
    for (int t = threadIdx.x; t < 8 * 128; t += 256) {
      int kk = t / 128, mm = t % 128;
      int ar = blockIdx.y * 128 + mm, bc = blockIdx.x * 128 + mm;
      As[kk * 128 + mm] = (ar < M && k0 + kk < K) ? A[ar * K + k0 + kk] : 0.0f;
      Bs[kk * 128 + mm] = (bc < N && k0 + kk < K) ? B[(k0 + kk) * N + bc] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < 8; ++kk) {
      float a[TM], b[TN];
#pragma unroll
      for (int i = 0; i < TM; ++i) a[i] = As[kk * 128 + ty * TM + i];
#pragma unroll
      for (int j = 0; j < TN; ++j) b[j] = Bs[kk * 128 + tx * TN + j];
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j)
      if (row0 + i < M && col0 + j < N) C[(row0 + i) * N + col0 + j] = acc[i][j];
}

// Double-precision register tiling: 4x4 doubles per thread (64-bit values, two registers each).
extern "C" __global__ void __launch_bounds__(256) heavy_dgemm_4x4(const double *__restrict__ A, const double *__restrict__ B,
                                                                  double *__restrict__ C, int M, int N, int K) {
  int r0 = (blockIdx.y * 16 + threadIdx.x / 16) * 4, c0 = (blockIdx.x * 16 + threadIdx.x % 16) * 4;
  double acc[4][4] = {};
  for (int k = 0; k < K; ++k) {
    double a[4], b[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) a[i] = (r0 + i < M) ? A[(r0 + i) * K + k] : 0.0;
#pragma unroll
    for (int j = 0; j < 4; ++j) b[j] = (c0 + j < N) ? B[k * N + c0 + j] : 0.0;
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int j = 0; j < 4; ++j) acc[i][j] = fma(a[i], b[j], acc[i][j]);
  }
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j)
      if (r0 + i < M && c0 + j < N) C[(r0 + i) * N + c0 + j] = acc[i][j];
}

// 96 independent accumulators updated in an unrolled loop; every one is live across the loop.
extern "C" __global__ void __launch_bounds__(256) heavy_accumulators96(const float *__restrict__ in, float *__restrict__ out, int n, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc[96];
#pragma unroll
  for (int k = 0; k < 96; ++k) acc[k] = in[(i + k * 31) % n];
  for (int it = 0; it < iters; ++it) {
    float x = in[(i + it * 7) % n];
#pragma unroll
    for (int k = 0; k < 96; ++k) acc[k] = fmaf(acc[k], x, (float)(k & 7) * 0.125f);
  }
  float s = 0.0f;
#pragma unroll
  for (int k = 0; k < 96; ++k) s += acc[k] * (float)(k + 1);
  out[i] = s;
}

// N-body with 12 bodies per thread: 12 positions and 12 accelerations (x, y, z) stay live.
extern "C" __global__ void __launch_bounds__(128) heavy_nbody12(const float *__restrict__ pos, float *__restrict__ acc_out, int n) {
  const int NBT = 12;
  int base = (blockIdx.x * blockDim.x + threadIdx.x) * NBT;
  if (base + NBT > n) return;
  float px[NBT], py[NBT], pz[NBT], ax[NBT], ay[NBT], az[NBT];
#pragma unroll
  for (int b = 0; b < NBT; ++b) {
    px[b] = pos[4 * (base + b)];
    py[b] = pos[4 * (base + b) + 1];
    pz[b] = pos[4 * (base + b) + 2];
    ax[b] = ay[b] = az[b] = 0.0f;
  }
  for (int j = 0; j < n; ++j) {
    float qx = pos[4 * j], qy = pos[4 * j + 1], qz = pos[4 * j + 2], m = pos[4 * j + 3];
#pragma unroll
    for (int b = 0; b < NBT; ++b) {
      float dx = qx - px[b], dy = qy - py[b], dz = qz - pz[b];
      float r2 = fmaf(dx, dx, fmaf(dy, dy, fmaf(dz, dz, 1e-6f)));
      float inv = rsqrtf(r2);
      float f = m * inv * inv * inv;
      ax[b] = fmaf(f, dx, ax[b]);
      ay[b] = fmaf(f, dy, ay[b]);
      az[b] = fmaf(f, dz, az[b]);
    }
  }
#pragma unroll
  for (int b = 0; b < NBT; ++b) {
    acc_out[3 * (base + b)] = ax[b];
    acc_out[3 * (base + b) + 1] = ay[b];
    acc_out[3 * (base + b) + 2] = az[b];
  }
}

// 3-D 25-point star stencil (radius 4 on each axis) marching along z with a register queue of 9
// planes and 25 coefficients: the classic 2.5-D blocking that keeps many values live.
extern "C" __global__ void __launch_bounds__(256) heavy_stencil25(const float *__restrict__ in, float *__restrict__ out, const float *__restrict__ coef,
                                                                  int nx, int ny, int nz) {
  int x = blockIdx.x * 32 + threadIdx.x % 32, y = blockIdx.y * 8 + threadIdx.x / 32;
  if (x < 4 || y < 4 || x >= nx - 4 || y >= ny - 4) return;
  float c[13];
#pragma unroll
  for (int k = 0; k < 13; ++k) c[k] = coef[k];
  long plane = (long)nx * ny;
  float q[9];
#pragma unroll
  for (int k = 0; k < 8; ++k) q[k + 1] = in[k * plane + (long)y * nx + x];
  for (int z = 4; z < nz - 4; ++z) {
#pragma unroll
    for (int k = 0; k < 8; ++k) q[k] = q[k + 1];
    q[8] = in[(z + 4) * plane + (long)y * nx + x];
    long idx = z * plane + (long)y * nx + x;
    float v = c[0] * q[4];
#pragma unroll
    for (int r = 1; r <= 4; ++r) {
      v = fmaf(c[r], q[4 - r] + q[4 + r], v);
      v = fmaf(c[4 + r], in[idx - r] + in[idx + r], v);
      v = fmaf(c[8 + r], in[idx - r * nx] + in[idx + r * nx], v);
    }
    out[idx] = v;
  }
}

// 1-D stencil of radius 16 with a dynamic shared-memory halo tile, 33 coefficients and 4 outputs
// per thread in registers (as a library would write it for arbitrary tile sizes).
extern "C" __global__ void __launch_bounds__(256) heavy_stencil33_dynsmem(const float *__restrict__ in, float *__restrict__ out,
                                                                          const float *__restrict__ coef, int n) {
  extern __shared__ float tile[];
  int g0 = blockIdx.x * 1024 + threadIdx.x * 4;
  float c[33];
#pragma unroll
  for (int k = 0; k < 33; ++k) c[k] = coef[k];
  for (int t = threadIdx.x; t < 1024 + 32; t += 256) {
    int src = blockIdx.x * 1024 + t - 16;
    tile[t] = (src >= 0 && src < n) ? in[src] : 0.0f;
  }
  __syncthreads();
  float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
  for (int k = 0; k < 33 + 3; ++k) {
    float v = tile[threadIdx.x * 4 + k];
#pragma unroll
    for (int o = 0; o < 4; ++o)
      if (k - o >= 0 && k - o < 33) acc[o] = fmaf(c[k - o], v, acc[o]);
  }
#pragma unroll
  for (int o = 0; o < 4; ++o)
    if (g0 + o < n) out[g0 + o] = acc[o];
}

// Radix-8 FFT butterflies: 8 complex inputs, 7 complex twiddles and the 8-point DFT in registers.
extern "C" __global__ void __launch_bounds__(256) heavy_fft_radix8(const float *__restrict__ re_in, const float *__restrict__ im_in,
                                                                   float *__restrict__ re_out, float *__restrict__ im_out, int n8, int stride) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n8) return;
  float xr[8], xi[8];
#pragma unroll
  for (int k = 0; k < 8; ++k) {
    xr[k] = re_in[t + k * stride];
    xi[k] = im_in[t + k * stride];
  }
  // Twiddle the inputs by w^(t*k).
#pragma unroll
  for (int k = 1; k < 8; ++k) {
    float ang = -6.28318530718f * (float)(t * k) / (float)(8 * stride);
    float s = __sinf(ang), c = __cosf(ang);
    float r = xr[k] * c - xi[k] * s, i = xr[k] * s + xi[k] * c;
    xr[k] = r;
    xi[k] = i;
  }
  float yr[8], yi[8];
#pragma unroll
  for (int k = 0; k < 8; ++k) {
    float sr = 0.0f, si = 0.0f;
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      float ang = -6.28318530718f * (float)((j * k) & 7) / 8.0f;
      float c = __cosf(ang), s = __sinf(ang);
      sr += xr[j] * c - xi[j] * s;
      si += xr[j] * s + xi[j] * c;
    }
    yr[k] = sr;
    yi[k] = si;
  }
#pragma unroll
  for (int k = 0; k < 8; ++k) {
    re_out[t * 8 + k] = yr[k];
    im_out[t * 8 + k] = yi[k];
  }
}

// Batched 8x8 LU factorisation without pivoting, one matrix per thread, all 64 entries in registers.
extern "C" __global__ void __launch_bounds__(128) heavy_lu8x8(const float *__restrict__ in, float *__restrict__ out, int batch) {
  int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= batch) return;
  float a[8][8];
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) a[i][j] = in[(long)b * 64 + i * 8 + j] + (i == j ? 8.0f : 0.0f);
#pragma unroll
  for (int k = 0; k < 8; ++k) {
    float inv = 1.0f / a[k][k];
#pragma unroll
    for (int i = k + 1; i < 8; ++i) {
      float l = a[i][k] * inv;
      a[i][k] = l;
#pragma unroll
      for (int j = k + 1; j < 8; ++j) a[i][j] = fmaf(-l, a[k][j], a[i][j]);
    }
  }
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) out[(long)b * 64 + i * 8 + j] = a[i][j];
}
