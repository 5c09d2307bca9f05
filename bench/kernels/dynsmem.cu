// Dynamic shared memory (extern __shared__, size given at launch): an in-block reversal and a
// buffer partitioned into two typed arrays.

extern __shared__ float dyn_smem[];

// Reverses each block's segment through dynamic shared memory (blockDim.x floats).
extern "C" __global__ void dynsmem_reverse(const float *__restrict__ in, float *__restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  dyn_smem[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  int j = blockIdx.x * blockDim.x + (blockDim.x - 1 - threadIdx.x);
  if (j < n) out[j] = dyn_smem[threadIdx.x];
}

// Dynamic shared buffer split into blockDim.x floats followed by blockDim.x ints (key/value pass).
extern "C" __global__ void dynsmem_two_arrays(const float *__restrict__ vals, const int *__restrict__ keys, float *__restrict__ out, int n) {
  float *sv = dyn_smem;
  int *sk = (int *)&dyn_smem[blockDim.x];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  sv[threadIdx.x] = i < n ? vals[i] : 0.0f;
  sk[threadIdx.x] = i < n ? keys[i] : -1;
  __syncthreads();
  float acc = 0.0f;
  int my = sk[threadIdx.x];
  for (unsigned k = 0; k < blockDim.x; ++k)
    if (sk[k] == my) acc += sv[k];
  if (i < n) out[i] = acc;
}
