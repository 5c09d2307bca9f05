// matvec (PTXASW Table 2; KernelGen suite, C): y = A·x with one parallel loop (one thread per row
// of A) and a sequential loop over the columns inside. A(i,j) = a[i + nx*j] (lanes read
// consecutive rows: no two lanes on the same element), x(j) is the same on every lane: no
// neighbouring-lane reuse (the paper reports 0 shuffles).
extern "C" __global__ void matvec(const float *__restrict__ a, const float *__restrict__ x, float *__restrict__ y,
                                  int nx, int ny) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= nx) return;
  float s = 0.0f;
  for (int j = 0; j < ny; j++) s += a[i + nx * j] * x[j];
  y[i] = s;
}
