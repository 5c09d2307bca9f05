#include "vectypes.h"
// Bilinear image resize of an RGBA8 image (uchar4), 64-bit pitch arithmetic, clamped borders.
extern "C" __global__ void resize_bilinear(const uchar4 *src, size_t src_pitch, int sw, int sh,
                                           uchar4 *dst, size_t dst_pitch, int dw, int dh) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= dw || y >= dh) return;
  float fx = (x + 0.5f) * sw / dw - 0.5f, fy = (y + 0.5f) * sh / dh - 0.5f;
  int x0 = max(0, (int)floorf(fx)), y0 = max(0, (int)floorf(fy));
  int x1 = min(sw - 1, x0 + 1), y1 = min(sh - 1, y0 + 1);
  float ax = fx - floorf(fx), ay = fy - floorf(fy);
  const uchar4 *r0 = (const uchar4 *)((const char *)src + y0 * src_pitch);
  const uchar4 *r1 = (const uchar4 *)((const char *)src + y1 * src_pitch);
  uchar4 p00 = r0[x0], p01 = r0[x1], p10 = r1[x0], p11 = r1[x1];
#define LERP2(c) (((1 - ax) * p00.c + ax * p01.c) * (1 - ay) + ((1 - ax) * p10.c + ax * p11.c) * ay)
  uchar4 o;
  o.x = (unsigned char)fminf(255.f, LERP2(x) + 0.5f);
  o.y = (unsigned char)fminf(255.f, LERP2(y) + 0.5f);
  o.z = (unsigned char)fminf(255.f, LERP2(z) + 0.5f);
  o.w = (unsigned char)fminf(255.f, LERP2(w) + 0.5f);
  ((uchar4 *)((char *)dst + y * dst_pitch))[x] = o;
}
