// Real calls: __device__ __noinline__ functions (call.uni with .param passing, a callee-saved
// frame), a recursive function (needs a stack), and a function pointer table (indirect call).

extern "C" __device__ __noinline__ float dot3(const float *a, const float *b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

extern "C" __device__ __noinline__ void cross3(const float *a, const float *b, float *out) {
  out[0] = a[1] * b[2] - a[2] * b[1];
  out[1] = a[2] * b[0] - a[0] * b[2];
  out[2] = a[0] * b[1] - a[1] * b[0];
}

// Triple product a . (b x c) per thread through two non-inlined calls.
extern "C" __global__ void call_noinline_triple(const float *__restrict__ v, float *__restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float a[3], b[3], c[3], bc[3];
  for (int k = 0; k < 3; ++k) {
    a[k] = v[9 * i + k];
    b[k] = v[9 * i + 3 + k];
    c[k] = v[9 * i + 6 + k];
  }
  cross3(b, c, bc);
  out[i] = dot3(a, bc);
}

extern "C" __device__ __noinline__ unsigned ackermann_small(unsigned m, unsigned n) {
  if (m == 0) return n + 1;
  if (n == 0) return ackermann_small(m - 1, 1);
  return ackermann_small(m - 1, ackermann_small(m, n - 1));
}

// Recursive device function (ptxas must keep a call stack in local memory).
extern "C" __global__ void call_recursive(const unsigned *__restrict__ in, unsigned *__restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = ackermann_small(in[i] & 1, in[i] & 7);
}

extern "C" __device__ __noinline__ float op_add(float a, float b) { return a + b; }
extern "C" __device__ __noinline__ float op_mul(float a, float b) { return a * b; }
extern "C" __device__ __noinline__ float op_max(float a, float b) { return fmaxf(a, b); }

typedef float (*binop)(float, float);

// Indirect calls through a per-thread chosen function pointer (call with a prototype).
extern "C" __global__ void call_indirect(const float *__restrict__ a, const float *__restrict__ b, const int *__restrict__ op,
                                         float *__restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  binop f = op[i] == 0 ? op_add : op[i] == 1 ? op_mul : op_max;
  out[i] = f(a[i], b[i]);
}
