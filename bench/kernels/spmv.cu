// Sparse matrix-vector product in CSR: scalar (one thread per row: divergent trip counts, gathers)
// and vector (one warp per row, shuffle reduction).

// One thread per row.
extern "C" __global__ void spmv_csr_scalar(const int *__restrict__ rowptr, const int *__restrict__ cols, const float *__restrict__ vals,
                                           const float *__restrict__ x, float *__restrict__ y, int rows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float s = 0.0f;
  for (int j = rowptr[r]; j < rowptr[r + 1]; ++j) s += vals[j] * x[cols[j]];
  y[r] = s;
}

// One warp per row, lanes stride over the row's nonzeros, __shfl_down_sync reduction.
extern "C" __global__ void spmv_csr_vector(const int *__restrict__ rowptr, const int *__restrict__ cols, const float *__restrict__ vals,
                                           const float *__restrict__ x, float *__restrict__ y, int rows) {
  int r = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  int lane = threadIdx.x & 31;
  if (r >= rows) return;
  float s = 0.0f;
  for (int j = rowptr[r] + lane; j < rowptr[r + 1]; j += 32) s += vals[j] * x[cols[j]];
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) s += __shfl_down_sync(0xffffffffu, s, (unsigned)off);
  if (lane == 0) y[r] = s;
}
