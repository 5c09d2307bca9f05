// 64-bit integer math: splitmix64 hashing (64-bit multiply, shifts, xor), modular exponentiation
// with 128-bit products (mul.hi.u64), and 64-bit division / remainder (emulated by ptxas).

static __device__ __forceinline__ unsigned long long splitmix64(unsigned long long z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Hashes each 64-bit key 8 times (a long dependent chain of 64-bit multiplies).
extern "C" __global__ void hash_splitmix64(const unsigned long long *__restrict__ keys, unsigned long long *__restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned long long h = keys[i];
#pragma unroll
  for (int r = 0; r < 8; ++r) h = splitmix64(h + r);
  out[i] = h;
}

static __device__ __forceinline__ unsigned long long mulmod(unsigned long long a, unsigned long long b, unsigned long long m) {
  return (unsigned long long)(((unsigned __int128)a * b) % m);
}

// Modular exponentiation base^exp mod m (128-bit products, 128-bit remainder).
extern "C" __global__ void powmod64(const unsigned long long *__restrict__ base, const unsigned long long *__restrict__ exp,
                                    unsigned long long *__restrict__ out, unsigned long long m, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned long long b = base[i] % m, e = exp[i], r = 1;
  while (e) {
    if (e & 1) r = mulmod(r, b, m);
    b = mulmod(b, b, m);
    e >>= 1;
  }
  out[i] = r;
}

// Signed 64-bit division, remainder and mul.hi (divergent divisors).
extern "C" __global__ void divmod64(const long long *__restrict__ a, const long long *__restrict__ d, long long *__restrict__ q,
                                    long long *__restrict__ r, unsigned long long *__restrict__ hi, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  long long x = a[i], y = d[i] | 1;
  q[i] = x / y;
  r[i] = x % y;
  hi[i] = __umul64hi((unsigned long long)x, (unsigned long long)y);
}
