// Prefix sums: an inclusive warp scan with __shfl_up_sync and a block-wide exclusive scan built
// from warp scans plus a shared-memory pass over the warp totals.

static __device__ __forceinline__ int warp_inclusive_scan(int v, int lane) {
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    int up = __shfl_up_sync(0xffffffffu, v, (unsigned)d);
    if (lane >= d) v += up;
  }
  return v;
}

// Inclusive scan of each 32-element segment (one per warp).
extern "C" __global__ void warp_scan_inclusive(const int *__restrict__ in, int *__restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  int v = i < n ? in[i] : 0;
  v = warp_inclusive_scan(v, lane);
  if (i < n) out[i] = v;
}

// Exclusive scan of each block (up to 1024 threads), block totals written to sums[blockIdx.x].
extern "C" __global__ void block_scan_exclusive(const int *__restrict__ in, int *__restrict__ out, int *__restrict__ sums, int n) {
  __shared__ int warp_tot[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  int x = i < n ? in[i] : 0;
  int incl = warp_inclusive_scan(x, lane);
  if (lane == 31) warp_tot[warp] = incl;
  __syncthreads();
  if (warp == 0) {
    int nw = (blockDim.x + 31) >> 5;
    int t = lane < nw ? warp_tot[lane] : 0;
    warp_tot[lane] = warp_inclusive_scan(t, lane) - t;
  }
  __syncthreads();
  int excl = incl - x + warp_tot[warp];
  if (i < n) out[i] = excl;
  if (threadIdx.x == blockDim.x - 1) sums[blockIdx.x] = excl + x;
}
