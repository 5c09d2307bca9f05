// Double precision: DAXPY, a double dot product with 64-bit shuffles + atomicAdd(double), and a
// degree-16 Horner polynomial with fma.rn.f64.

// y = a*x + y in double.
extern "C" __global__ void daxpy(int n, double a, const double *__restrict__ x, double *__restrict__ y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

// Dot product: grid-stride partial sums, warp shuffle reduction of doubles, atom.add.f64.
extern "C" __global__ void ddot_atomic(const double *__restrict__ x, const double *__restrict__ y, double *result, int n) {
  double s = 0.0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) s = fma(x[i], y[i], s);
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) s += __shfl_down_sync(0xffffffffu, s, (unsigned)off);
  if ((threadIdx.x & 31) == 0) atomicAdd(result, s);
}

// Evaluates a degree-16 polynomial (coefficients in c[0..16]) at every x with Horner's rule, plus sqrt.
extern "C" __global__ void dpoly_horner(const double *__restrict__ x, const double *__restrict__ c, double *__restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double v = x[i], p = c[16];
#pragma unroll
  for (int k = 15; k >= 0; --k) p = fma(p, v, c[k]);
  out[i] = sqrt(fabs(p));
}
