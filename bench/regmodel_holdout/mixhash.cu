// A SHA-256-style compression of one 64-byte block per thread: 16-word schedule expanded in
// registers, 64 rounds unrolled.
__constant__ unsigned kround[64];
__device__ __forceinline__ unsigned rotr(unsigned x, int n) { return (x >> n) | (x << (32 - n)); }

extern "C" __global__ void mix_compress(const unsigned *blocks, unsigned *digest, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  unsigned w[64];
#pragma unroll
  for (int i = 0; i < 16; ++i) w[i] = blocks[t * 16 + i];
#pragma unroll
  for (int i = 16; i < 64; ++i) {
    unsigned s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
    unsigned s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  unsigned a = 0x6a09e667, b = 0xbb67ae85, c = 0x3c6ef372, d = 0xa54ff53a, e = 0x510e527f,
           f = 0x9b05688c, g = 0x1f83d9ab, h = 0x5be0cd19;
#pragma unroll
  for (int i = 0; i < 64; ++i) {
    unsigned t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + kround[i] + w[i];
    unsigned t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  unsigned *o = digest + t * 8;
  o[0] = a; o[1] = b; o[2] = c; o[3] = d; o[4] = e; o[5] = f; o[6] = g; o[7] = h;
}
