// Matrix transpose: naive (uncoalesced writes) and a 32x33 padded shared tile (no bank conflicts),
// 32x8 thread blocks each moving a 32x32 tile.

#define TILE 32
#define ROWS 8

// Naive transpose: coalesced reads, strided writes.
extern "C" __global__ void transpose_naive(const float *__restrict__ in, float *__restrict__ out, int w, int h) {
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < w && y + j < h) out[x * h + y + j] = in[(y + j) * w + x];
}

// Transpose through a padded shared tile: both global reads and writes coalesced.
extern "C" __global__ void transpose_padded(const float *__restrict__ in, float *__restrict__ out, int w, int h) {
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < w && y + j < h) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * w + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < h && y + j < w) out[(y + j) * h + x] = tile[threadIdx.x][threadIdx.y + j];
}
