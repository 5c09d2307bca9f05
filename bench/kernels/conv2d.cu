// 2-D convolution with the filter in __constant__ memory (ld.const, cmem bank 3) and a 5x5
// window; plus a separable row pass that reads its taps through a kernel parameter array.

#define KR 2
__constant__ float conv_filter[(2 * KR + 1) * (2 * KR + 1)];

// Direct 5x5 convolution, clamped borders.
extern "C" __global__ void conv2d_5x5_const(const float *__restrict__ img, float *__restrict__ out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float acc = 0.0f;
#pragma unroll
  for (int dy = -KR; dy <= KR; ++dy)
#pragma unroll
    for (int dx = -KR; dx <= KR; ++dx) {
      int sx = min(max(x + dx, 0), w - 1), sy = min(max(y + dy, 0), h - 1);
      acc += conv_filter[(dy + KR) * (2 * KR + 1) + dx + KR] * img[sy * w + sx];
    }
  out[y * w + x] = acc;
}

struct Taps {
  float t[2 * KR + 1];
};

// Horizontal pass of a separable filter; the taps arrive by value in the parameter space.
extern "C" __global__ void conv_row_param_taps(const float *__restrict__ img, float *__restrict__ out, int w, int h, Taps taps) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y;
  if (x >= w || y >= h) return;
  float acc = 0.0f;
#pragma unroll
  for (int d = -KR; d <= KR; ++d) acc += taps.t[d + KR] * img[y * w + min(max(x + d, 0), w - 1)];
  out[y * w + x] = acc;
}
