// Divergent control flow: loops whose trip count depends on the thread id or on the data
// (Collatz, Mandelbrot escape time), so lanes of a warp leave their loops at different times.

// Thread t runs (t % 32) + 1 iterations: trip count affine in the lane id.
extern "C" __global__ void divergent_trip_count(const float *__restrict__ in, float *__restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc = 0.0f;
  int trips = (threadIdx.x & 31) + 1;
  for (int k = 0; k < trips; ++k) acc = acc * 0.5f + in[(i + k) % n];
  out[i] = acc;
}

// Collatz stopping time of each input (data-dependent while loop with a branch inside).
extern "C" __global__ void collatz_steps(const unsigned *__restrict__ start, unsigned *__restrict__ steps, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned long long x = start[i] | 1u;
  unsigned s = 0;
  while (x != 1 && s < 10000) {
    x = (x & 1) ? 3 * x + 1 : x >> 1;
    ++s;
  }
  steps[i] = s;
}

// Mandelbrot escape iterations on a w*h grid (2-D launch).
extern "C" __global__ void mandelbrot(unsigned *__restrict__ iters, int w, int h, float x0, float y0, float dx, float dy, unsigned max_it) {
  int px = blockIdx.x * blockDim.x + threadIdx.x;
  int py = blockIdx.y * blockDim.y + threadIdx.y;
  if (px >= w || py >= h) return;
  float cr = x0 + px * dx, ci = y0 + py * dy, zr = 0.0f, zi = 0.0f;
  unsigned it = 0;
  while (it < max_it && zr * zr + zi * zi <= 4.0f) {
    float t = zr * zr - zi * zi + cr;
    zi = 2.0f * zr * zi + ci;
    zr = t;
    ++it;
  }
  iters[py * w + px] = it;
}
