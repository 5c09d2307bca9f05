// Single-precision GEMM (C = alpha*A*B + beta*C, row-major): naive, 16x16 shared-memory tiled, and
// a 64x64 block tile with 4x4 outputs per thread (register blocking: many live accumulators).

// Naive GEMM: one output per thread, inner product straight from global memory.
extern "C" __global__ void sgemm_naive(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C,
                                       int M, int N, int K, float alpha, float beta) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= M || col >= N) return;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
  C[row * N + col] = alpha * acc + beta * C[row * N + col];
}

#define TS 16
// Shared-memory tiled GEMM: TSxTS tiles of A and B, two __syncthreads per k-step.
extern "C" __global__ void __launch_bounds__(TS * TS) sgemm_tiled16(const float *__restrict__ A, const float *__restrict__ B,
                                                                    float *__restrict__ C, int M, int N, int K,
                                                                    float alpha, float beta) {
  __shared__ float As[TS][TS];
  __shared__ float Bs[TS][TS];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TS + ty, col = blockIdx.x * TS + tx;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += TS) {
    As[ty][tx] = (row < M && k0 + tx < K) ? A[row * K + k0 + tx] : 0.0f;
    Bs[ty][tx] = (col < N && k0 + ty < K) ? B[(k0 + ty) * N + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TS; ++k) acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = alpha * acc + beta * C[row * N + col];
}

#define BM 64
#define BN 64
#define BK 8
#define TM 4
#define TN 4
// Register-blocked GEMM: 256 threads compute a 64x64 tile, each a 4x4 micro-tile (16 accumulators).
// Requires M, N multiples of 64 and K a multiple of 8.
extern "C" __global__ void __launch_bounds__(256) sgemm_regtile_4x4(const float *__restrict__ A, const float *__restrict__ B,
                                                                    float *__restrict__ C, int M, int N, int K) {
  __shared__ float As[BK][BM];
  __shared__ float Bs[BK][BN];
  int t = threadIdx.x;
  int tr = t / (BN / TN), tc = t % (BN / TN);
  const float *Ab = A + blockIdx.y * BM * K;
  const float *Bb = B + blockIdx.x * BN;
  float acc[TM][TN] = {};
  for (int k0 = 0; k0 < K; k0 += BK) {
    // 512 elements of each tile, 2 per thread; A is stored transposed in shared memory.
    for (int e = t; e < BM * BK; e += 256) {
      int r = e / BK, c = e % BK;
      As[c][r] = Ab[r * K + k0 + c];
      int br = e / BN, bc = e % BN;
      Bs[br][bc] = Bb[(k0 + br) * N + bc];
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float a[TM], b[TN];
#pragma unroll
      for (int i = 0; i < TM; ++i) a[i] = As[k][tr * TM + i];
#pragma unroll
      for (int j = 0; j < TN; ++j) b[j] = Bs[k][tc * TN + j];
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
      C[(blockIdx.y * BM + tr * TM + i) * N + blockIdx.x * BN + tc * TN + j] = acc[i][j];
}
