// atomicCAS retry loops: float max (no native atom.max.f32), 64-bit double add emulated with
// atom.cas.b64, and a lock-free push onto a global linked list.

static __device__ __forceinline__ float atomic_max_float(float *addr, float v) {
  int *p = (int *)addr;
  int old = *p, assumed;
  do {
    assumed = old;
    if (__int_as_float(assumed) >= v) break;
    old = atomicCAS(p, assumed, __float_as_int(v));
  } while (old != assumed);
  return __int_as_float(old);
}

// Global max of an array via a 32-bit CAS loop.
extern "C" __global__ void cas_max_float(const float *__restrict__ in, float *result, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomic_max_float(result, in[i]);
}

// Sum of doubles with a 64-bit CAS loop (how atomicAdd(double) was written before sm_60).
extern "C" __global__ void cas_add_double(const double *__restrict__ in, double *result, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned long long *p = (unsigned long long *)result;
  unsigned long long old = *p, assumed;
  do {
    assumed = old;
    double sum = __builtin_bit_cast(double, assumed) + in[i];
    old = atomicCAS(p, assumed, __builtin_bit_cast(unsigned long long, sum));
  } while (assumed != old);
}

// Lock-free push: each thread links node i in front of the current head (indices, -1 = null).
extern "C" __global__ void cas_list_push(int *head, int *next, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int old = *(volatile int *)head;
  while (true) {
    next[i] = old;
    __threadfence();
    int seen = atomicCAS(head, old, i);
    if (seen == old) break;
    old = seen;
  }
}
