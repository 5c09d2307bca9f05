#include "vectypes.h"
// Particle update in structure-of-arrays form with reflecting walls and a per-particle lifetime.
extern "C" __global__ void particles_step(float *px, float *py, float *pz, float *vx, float *vy,
                                          float *vz, float *life, const float *mass, float dt,
                                          float3 lo, float3 hi, float3 g, long n) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i >= n) return;
  float l = life[i] - dt;
  if (l <= 0.f) { life[i] = 0.f; return; }
  float im = 1.0f / mass[i];
  float x = px[i], y = py[i], z = pz[i], u = vx[i], v = vy[i], w = vz[i];
  u += g.x * dt * im; v += g.y * dt * im; w += g.z * dt * im;
  x += u * dt; y += v * dt; z += w * dt;
  if (x < lo.x) { x = 2 * lo.x - x; u = -u; } else if (x > hi.x) { x = 2 * hi.x - x; u = -u; }
  if (y < lo.y) { y = 2 * lo.y - y; v = -v; } else if (y > hi.y) { y = 2 * hi.y - y; v = -v; }
  if (z < lo.z) { z = 2 * lo.z - z; w = -w; } else if (z > hi.z) { z = 2 * hi.z - z; w = -w; }
  px[i] = x; py[i] = y; pz[i] = z; vx[i] = u; vy[i] = v; vz[i] = w; life[i] = l;
}
