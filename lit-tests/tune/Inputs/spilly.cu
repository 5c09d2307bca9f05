// Forty values live across a loop: at .maxnreg 32 ptxas spills them to local memory.
extern "C" __global__ void __launch_bounds__(64) spilly(const float* in, float* out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float a[40];
#pragma unroll
  for (int i = 0; i < 40; ++i) a[i] = in[t * 40 + i];
  for (int k = 0; k < n; ++k) {
#pragma unroll
    for (int i = 0; i < 40; ++i) a[i] = a[i] * a[(i + 7) % 40] + 0.5f;
  }
#pragma unroll
  for (int i = 0; i < 40; ++i) out[t * 40 + i] = a[i];
}
