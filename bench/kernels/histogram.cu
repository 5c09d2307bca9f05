// Histograms of bytes: atomics straight to global memory, and per-block privatised bins in shared
// memory merged with one global atomic per bin.

#define BINS 256

// Global-atomic histogram (grid-stride; 4 bytes per 32-bit load).
extern "C" __global__ void histogram_global_atomic(const unsigned *__restrict__ data, int nwords, unsigned *bins) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < nwords; i += blockDim.x * gridDim.x) {
    unsigned w = data[i];
#pragma unroll
    for (int b = 0; b < 4; ++b) atomicAdd(&bins[(w >> (8 * b)) & 0xffu], 1u);
  }
}

// Shared-memory privatised histogram: atom.shared in the loop, merge at the end.
extern "C" __global__ void histogram_shared_atomic(const unsigned *__restrict__ data, int nwords, unsigned *bins) {
  __shared__ unsigned local_bins[BINS];
  for (int b = threadIdx.x; b < BINS; b += blockDim.x) local_bins[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < nwords; i += blockDim.x * gridDim.x) {
    unsigned w = data[i];
#pragma unroll
    for (int b = 0; b < 4; ++b) atomicAdd(&local_bins[(w >> (8 * b)) & 0xffu], 1u);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < BINS; b += blockDim.x)
    if (local_bins[b]) atomicAdd(&bins[b], local_bins[b]);
}
