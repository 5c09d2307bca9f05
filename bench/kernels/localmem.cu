// Local memory: per-thread arrays indexed with run-time values, which the compiler cannot keep in
// registers (ld.local/st.local through a __local_depot frame).

// A per-thread 64-entry table filled, then read at data-dependent positions.
extern "C" __global__ void local_dynamic_index(const int *__restrict__ idx, const float *__restrict__ in, float *__restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float table[64];
#pragma unroll
  for (int k = 0; k < 64; ++k) table[k] = in[(i + k) % n] * (float)k;
  float acc = 0.0f;
  for (int r = 0; r < 8; ++r) acc += table[idx[i * 8 + r] & 63];
  out[i] = acc;
}

// Per-thread insertion sort of 16 keys (dynamic indexing in both loops), then a median.
extern "C" __global__ void local_insertion_sort16(const int *__restrict__ in, int *__restrict__ out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  int v[16];
  for (int k = 0; k < 16; ++k) v[k] = in[t * 16 + k];
  for (int k = 1; k < 16; ++k) {
    int key = v[k], j = k - 1;
    while (j >= 0 && v[j] > key) {
      v[j + 1] = v[j];
      --j;
    }
    v[j + 1] = key;
  }
  out[t] = v[7] + v[8];
}

// Runtime-sized histogram per thread in a local array (bins chosen by data).
extern "C" __global__ void local_private_bins(const unsigned char *__restrict__ data, int per_thread, unsigned *__restrict__ out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned bins[32] = {};
  for (int k = 0; k < per_thread; ++k) bins[data[t * per_thread + k] & 31]++;
  unsigned best = 0;
  for (int b = 1; b < 32; ++b)
    if (bins[b] > bins[best]) best = b;
  out[t] = best;
}
