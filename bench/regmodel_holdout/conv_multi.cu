// 3x3 convolution over 4 input channels producing 4 output channels per thread (NCHW, weights in
// constant memory, zero padding).
__constant__ float wts[4 * 4 * 9];

extern "C" __global__ void conv3x3_c4_k4(const float *in, float *out, int h, int w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float acc[4] = {0.f, 0.f, 0.f, 0.f};
  for (int c = 0; c < 4; ++c) {
    float v[9];
#pragma unroll
    for (int dy = -1; dy <= 1; ++dy)
#pragma unroll
      for (int dx = -1; dx <= 1; ++dx) {
        int yy = y + dy, xx = x + dx;
        bool ok = yy >= 0 && yy < h && xx >= 0 && xx < w;
        v[(dy + 1) * 3 + dx + 1] = ok ? in[(c * h + yy) * w + xx] : 0.f;
      }
#pragma unroll
    for (int k = 0; k < 4; ++k)
#pragma unroll
      for (int j = 0; j < 9; ++j) acc[k] = fmaf(v[j], wts[(k * 4 + c) * 9 + j], acc[k]);
  }
#pragma unroll
  for (int k = 0; k < 4; ++k) out[(k * h + y) * w + x] = acc[k];
}
