// Bitonic sort of 1024 keys per block in shared memory (512 threads, compare-exchange network
// with a barrier per stage), and a warp-level bitonic sort of 32 keys with __shfl_xor_sync.

// Sorts each consecutive 1024-key segment ascending; launch with 512 threads.
extern "C" __global__ void __launch_bounds__(512) bitonic_sort_1024(unsigned *__restrict__ keys) {
  __shared__ unsigned s[1024];
  unsigned *seg = keys + blockIdx.x * 1024;
  unsigned t = threadIdx.x;
  s[t] = seg[t];
  s[t + 512] = seg[t + 512];
  __syncthreads();
  for (unsigned size = 2; size <= 1024; size <<= 1) {
    for (unsigned stride = size >> 1; stride > 0; stride >>= 1) {
      unsigned pos = 2 * t - (t & (stride - 1));
      bool up = ((pos & size) == 0);
      unsigned a = s[pos], b = s[pos + stride];
      if ((a > b) == up) {
        s[pos] = b;
        s[pos + stride] = a;
      }
      __syncthreads();
    }
  }
  seg[t] = s[t];
  seg[t + 512] = s[t + 512];
}

// Sorts 32 keys per warp entirely in registers with butterfly shuffles.
extern "C" __global__ void bitonic_warp_sort32(int *__restrict__ keys) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned lane = threadIdx.x & 31;
  int v = keys[i];
#pragma unroll
  for (unsigned size = 2; size <= 32; size <<= 1)
#pragma unroll
    for (unsigned stride = size >> 1; stride > 0; stride >>= 1) {
      int other = __shfl_xor_sync(0xffffffffu, v, (int)stride);
      bool up = (lane & size) == 0;
      bool lower = (lane & stride) == 0;
      v = (lower == up) ? min(v, other) : max(v, other);
    }
  keys[i] = v;
}
