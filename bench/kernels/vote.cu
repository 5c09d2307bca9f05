// Warp votes: stream compaction with __ballot_sync + __popc, an early-exit search with
// __any_sync, and a predicate check with __all_sync.

// Stream compaction: keep x > threshold, warp-aggregated atomic (one atomicAdd per warp).
extern "C" __global__ void ballot_compact(const float *__restrict__ in, float *__restrict__ out, unsigned *count, int n, float threshold) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float x = i < n ? in[i] : 0.0f;
  int keep = i < n && x > threshold;
  unsigned mask = __ballot_sync(0xffffffffu, keep);
  unsigned lane = threadIdx.x & 31;
  unsigned base = 0;
  if (lane == 0 && mask) base = atomicAdd(count, (unsigned)__popc(mask));
  base = __shfl_sync(0xffffffffu, (int)base, 0);
  if (keep) out[base + __popc(mask & ((1u << lane) - 1u))] = x;
}

// Each warp scans a key list until some lane finds the needle (__any_sync exits the whole warp).
extern "C" __global__ void any_sync_search(const int *__restrict__ keys, int n, int needle, int *found_at) {
  int lane = threadIdx.x & 31;
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  int nwarps = (gridDim.x * blockDim.x) >> 5;
  for (int base = warp * 32; base < n; base += nwarps * 32) {
    int i = base + lane;
    int hit = i < n && keys[i] == needle;
    if (__any_sync(0xffffffffu, hit)) {
      unsigned m = __ballot_sync(0xffffffffu, hit);
      if (lane == 0) atomicMin(found_at, base + __ffs((int)m) - 1);
      return;
    }
  }
}

// Per-warp sortedness check with __all_sync; writes one flag per warp.
extern "C" __global__ void all_sync_sorted(const int *__restrict__ a, int *__restrict__ flags, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int ok = i + 1 >= n || a[i] <= a[i + 1];
  int all = __all_sync(0xffffffffu, ok);
  if ((threadIdx.x & 31) == 0) flags[i >> 5] = all;
}
