// zmarch: a 3-D 7-point stencil marching along z in a sequential loop (2.5-D blocking without
// shared memory), storing one output point per iteration. Within each iteration the x-neighbours
// in(x-1), in(x), in(x+1) are shuffle candidates whose addresses depend on the loop's induction
// variable z; the store in the loop rules out reuse across iterations.
extern "C" __global__ void zmarch(const float *in, float *out, int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x + 1;
  int y = blockIdx.y + 1;
  if (x >= nx - 1 || y >= ny - 1) return;
  int plane = nx * ny;
  for (int z = 1; z < nz - 1; ++z) {
    int c = (z * ny + y) * nx + x;
    out[c] = in[c - 1] + in[c] + in[c + 1] + in[c - nx] + in[c + nx] + in[c - plane] + in[c + plane];
  }
}
