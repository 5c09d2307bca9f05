// __syncthreads patterns: a double-buffered shared-memory pipeline (one barrier per stage), a
// block-wide vote with __syncthreads_count / __syncthreads_or, and a barrier inside a uniform loop.

#define DB 256
// Double-buffered moving average over chunks: load chunk k+1 while computing chunk k.
extern "C" __global__ void __launch_bounds__(DB) double_buffer_avg(const float *__restrict__ in, float *__restrict__ out, int chunks) {
  __shared__ float buf[2][DB + 1];
  const float *src = in + (long)blockIdx.x * chunks * DB;
  float *dst = out + (long)blockIdx.x * chunks * DB;
  int t = threadIdx.x;
  buf[0][t] = src[t];
  if (t == 0) buf[0][DB] = chunks > 1 ? src[DB] : 0.0f;
  __syncthreads();
  for (int k = 0; k < chunks; ++k) {
    int cur = k & 1, nxt = cur ^ 1;
    if (k + 1 < chunks) {
      buf[nxt][t] = src[(k + 1) * DB + t];
      if (t == 0) buf[nxt][DB] = k + 2 < chunks ? src[(k + 2) * DB] : 0.0f;
    }
    dst[k * DB + t] = 0.5f * (buf[cur][t] + buf[cur][t + 1]);
    __syncthreads();
  }
}

// Counts, per block, how many elements exceed a threshold and whether any is negative (bar.red).
extern "C" __global__ void syncthreads_count_or(const float *__restrict__ in, int *__restrict__ counts, int *__restrict__ any_neg, float thr, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float x = i < n ? in[i] : 0.0f;
  int c = __syncthreads_count(x > thr);
  int neg = __syncthreads_or(x < 0.0f);
  if (threadIdx.x == 0) {
    counts[blockIdx.x] = c;
    any_neg[blockIdx.x] = neg;
  }
}

// Iterative smoothing in shared memory: barriers inside a loop with a block-uniform trip count.
extern "C" __global__ void smem_iterative_smooth(float *__restrict__ data, int iters) {
  __shared__ float s[2][258];
  int t = threadIdx.x + 1;
  float *blk = data + blockIdx.x * 256;
  s[0][t] = blk[t - 1];
  if (threadIdx.x == 0) {
    s[0][0] = s[1][0] = 0.0f;
    s[0][257] = s[1][257] = 0.0f;
  }
  __syncthreads();
  int cur = 0;
  for (int it = 0; it < iters; ++it) {
    s[cur ^ 1][t] = 0.25f * s[cur][t - 1] + 0.5f * s[cur][t] + 0.25f * s[cur][t + 1];
    cur ^= 1;
    __syncthreads();
  }
  blk[t - 1] = s[cur][t];
}
