// Switch statements: a dense 12-way switch on a run-time opcode (lowered to a brx.idx jump table
// by the NVPTX back end), inside a tiny bytecode interpreter loop.

// Per-thread stack-machine interpreter; program is shared by all threads, operand from data.
extern "C" __global__ void switch_interpreter(const unsigned char *__restrict__ prog, int len, const float *__restrict__ data,
                                              float *__restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float a = data[i], b = 1.0f;
  for (int pc = 0; pc < len; ++pc) {
    switch (prog[pc]) {
    case 0: a = a + b; break;
    case 1: a = a - b; break;
    case 2: a = a * b; break;
    case 3: a = __fdividef(a, b + 1.0f); break;
    case 4: b = a; break;
    case 5: a = sqrtf(fabsf(a)); break;
    case 6: a = -a; break;
    case 7: b = b * 2.0f; break;
    case 8: a = fminf(a, b); break;
    case 9: a = fmaxf(a, b); break;
    case 10: { float t = a; a = b; b = t; } break;
    case 11: a = fmaf(a, b, data[(i + pc) % n]); break;
    default: break;
    }
  }
  out[i] = a + b;
}

// Divergent switch on the lane's data: each lane takes a different case.
extern "C" __global__ void switch_per_lane(const int *__restrict__ sel, const float *__restrict__ x, float *__restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i], r;
  switch (sel[i] & 7) {
  case 0: r = v; break;
  case 1: r = v * v; break;
  case 2: r = v * v * v; break;
  case 3: r = __sinf(v); break;
  case 4: r = __cosf(v); break;
  case 5: r = __expf(v); break;
  case 6: r = __logf(fabsf(v) + 1.0f); break;
  default: r = rsqrtf(fabsf(v) + 1.0f); break;
  }
  out[i] = r;
}
