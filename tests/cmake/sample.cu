// The CMake sample's kernel (tests/cmake): 64 integer accumulators per thread stay live across a
// loop, so clang's PTX needs far more than 64 registers. The project builds it three times: as is,
// through warpsmith's drop-in assembler and through the pass plugin, both with a 64-register
// target; check-resources.cmake then reads the built binaries' cubins. The program checks the
// kernel's results against the same computation on the host; without a CUDA device it exits 77
// (CTest's SKIP_RETURN_CODE).
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

constexpr int kAcc = 64;
constexpr int kBlock = 128;

__host__ __device__ inline unsigned mix(const unsigned *src, int i, int n, int iters) {
  unsigned acc[kAcc];
#pragma unroll
  for (int k = 0; k < kAcc; ++k) acc[k] = src[(i + k * 31) % n];
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int k = 0; k < kAcc; ++k) acc[k] = acc[k] * 2654435761u + (acc[(k + 7) % kAcc] ^ (unsigned)it);
  }
  unsigned s = 0;
#pragma unroll
  for (int k = 0; k < kAcc; ++k) s = (s ^ acc[k]) * 16777619u;
  return s;
}

extern "C" __global__ void __launch_bounds__(kBlock)
    accumulate(const unsigned *__restrict__ in, unsigned *__restrict__ out, int n, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = mix(in, i, n, iters);
}

int main() {
  int devices = 0;
  cudaError_t e = cudaGetDeviceCount(&devices);
  if (e != cudaSuccess || devices == 0) {
    std::printf("SKIP: no CUDA device (%s)\n", e != cudaSuccess ? cudaGetErrorString(e) : "none");
    return 77;
  }
  const int n = 1 << 14, iters = 5;
  unsigned *host_in = (unsigned *)std::malloc(n * sizeof(unsigned));
  unsigned *host_out = (unsigned *)std::malloc(n * sizeof(unsigned));
  for (int i = 0; i < n; ++i) host_in[i] = 0x9e3779b9u * (unsigned)(i + 1);
  unsigned *in = nullptr, *out = nullptr;
  if (cudaMalloc(&in, n * sizeof(unsigned)) != cudaSuccess || cudaMalloc(&out, n * sizeof(unsigned)) != cudaSuccess) {
    std::printf("FAIL: cudaMalloc\n");
    return 1;
  }
  cudaMemcpy(in, host_in, n * sizeof(unsigned), cudaMemcpyHostToDevice);
  accumulate<<<(n + kBlock - 1) / kBlock, kBlock>>>(in, out, n, iters);
  e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    std::printf("FAIL: kernel: %s\n", cudaGetErrorString(e));
    return 1;
  }
  cudaMemcpy(host_out, out, n * sizeof(unsigned), cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int i = 0; i < n; ++i)
    if (host_out[i] != mix(host_in, i, n, iters) && bad++ < 5)
      std::printf("FAIL: out[%d] = %u, expected %u\n", i, host_out[i], mix(host_in, i, n, iters));
  cudaFree(in);
  cudaFree(out);
  if (bad) return 1;
  std::printf("PASS: %d results equal to the host's\n", n);
  return 0;
}
