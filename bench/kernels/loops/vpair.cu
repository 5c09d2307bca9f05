// vpair: sums of vertically adjacent pairs down a column window, in a sequential loop over rows:
//   out(x, y) = sum_{k < rows} (in(x, y+k) + in(x, y+k+1)).
// The second load of iteration k is the first load of iteration k+1 in the same lane: reuse across
// iterations with delta 0 (scalar replacement, which the compiler cannot do without knowing that
// the loop writes no memory it reads).
extern "C" __global__ void vpair(const float *in, float *out, int nx, int ny, int rows) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y;
  if (x >= nx || y + rows >= ny) return;
  float s = 0.0f;
  for (int k = 0; k < rows; ++k) s += in[(y + k) * nx + x] + in[(y + k + 1) * nx + x];
  out[y * nx + x] = s;
}
