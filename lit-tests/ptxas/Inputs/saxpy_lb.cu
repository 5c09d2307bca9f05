// A small kernel with launch bounds for the clang --ptxas-path test of the ptxas wrapper.
extern "C" __global__ void __launch_bounds__(128) saxpy_lb(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
