// fpforms.cu — floating-point and division forms for the SASS decoder's corpus (issue 7).
//
// Each kernel is one element per thread (guarded by n, no data-dependent loops, so every launch
// is deterministic) and exercises the SASS forms ptxas 12.9 emits for: float division by a kernel
// parameter (MUFU.RCP / FCHK with a constant-bank operand) and by a register value (the IEEE
// slow-path subroutine), __fdividef (FSEL with a constant bank), correctly rounded reciprocal and
// square root, rsqrtf, double division and square root, f32<->f64 and f16<->f32 conversions,
// float compares producing floats (set.<cmp>.f32.f32, FSET.BF; against registers, parameters and
// immediates) and predicates with every comparison operator (ordered and unordered),
// fminf/fmaxf/fabsf/copysignf, saturation, the directed rounding modes (__fmul_rz, __fadd_rd/ru,
// __fmaf_rz, __fdiv_rz), integer division and remainder by a parameter (32- and 64-bit, signed and
// unsigned), and a constant divided by a register.

#define FP_DEV static __device__ __forceinline__

// CUDA's intrinsic spellings for what bench/kernels/prelude.h does not define (clang builtins).
FP_DEV float __frcp_rn(float x) { return __nvvm_rcp_rn_f(x); }
FP_DEV float __fsqrt_rn(float x) { return __nvvm_sqrt_rn_f(x); }
FP_DEV float __fmul_rz(float a, float b) { return __nvvm_mul_rz_f(a, b); }
FP_DEV float __fadd_rd(float a, float b) { return __nvvm_add_rm_f(a, b); }
FP_DEV float __fadd_ru(float a, float b) { return __nvvm_add_rp_f(a, b); }
FP_DEV float __fmaf_rz(float a, float b, float c) { return __nvvm_fma_rz_f(a, b, c); }
FP_DEV float __fdiv_rz(float a, float b) { return __nvvm_div_rz_f(a, b); }
FP_DEV double __drcp_rn(double x) { return __nvvm_rcp_rn_d(x); }
FP_DEV float __saturatef(float x) { return __nvvm_saturate_f(x); }
FP_DEV float copysignf(float a, float b) { return __builtin_copysignf(a, b); }
FP_DEV int __float2int_rz(float x) { return __nvvm_f2i_rz(x); }
FP_DEV int __float2int_rd(float x) { return __nvvm_f2i_rm(x); }
FP_DEV float __int2float_ru(int x) { return __nvvm_i2f_rp(x); }

// `set.<cmp>.f32.f32 d, a, b`: 1.0f when the comparison holds, else 0.0f (FSET.BF in SASS).
#define WS_FSET(cmp)                                                                             \
  FP_DEV float fset_##cmp(float a, float b) {                                                    \
    float d;                                                                                     \
    asm("set." #cmp ".f32.f32 %0, %1, %2;" : "=f"(d) : "f"(a), "f"(b));                        \
    return d;                                                                                    \
  }
WS_FSET(eq)
WS_FSET(ne)
WS_FSET(lt)
WS_FSET(le)
WS_FSET(gt)
WS_FSET(ge)
WS_FSET(equ)
WS_FSET(neu)
WS_FSET(ltu)
WS_FSET(leu)
WS_FSET(gtu)
WS_FSET(geu)
WS_FSET(num)
WS_FSET(nan)

static __device__ __forceinline__ int gid() { return blockIdx.x * blockDim.x + threadIdx.x; }

// x / mu, mu a parameter: the reciprocal of mu comes from the constant bank (whispering.cu).
__global__ void div_by_param(const float *__restrict__ x, float *__restrict__ y, float mu, int n) {
  int i = gid();
  if (i < n) y[i] = x[i] / mu + (x[i] + 1.0f) / mu;
}

// x / z, both in registers: the full IEEE division with its slow-path subroutine (uxx1.cu).
__global__ void div_by_reg(const float *__restrict__ x, const float *__restrict__ z, float *__restrict__ y,
                           int n) {
  int i = gid();
  if (i < n) y[i] = x[i] / z[i];
}

// __fdividef by a parameter and by a register, and a parameter divided by a register.
__global__ void fast_div(const float *__restrict__ x, const float *__restrict__ z, float *__restrict__ y,
                         float mu, int n) {
  int i = gid();
  if (i < n) y[i] = __fdividef(x[i], mu) + __fdividef(x[i], z[i]) + mu / z[i];
}

// Correctly rounded reciprocal and square root, the approximate rsqrtf, sqrtf of a register and
// of a parameter.
__global__ void rcp_sqrt(const float *__restrict__ x, float *__restrict__ y, float p, int n) {
  int i = gid();
  if (i < n) {
    float v = fabsf(x[i]) + 1.0f;
    y[4 * i + 0] = __frcp_rn(v) + __frcp_rn(p);
    y[4 * i + 1] = __fsqrt_rn(v) + sqrtf(p);
    y[4 * i + 2] = rsqrtf(v) + rsqrtf(p);
    y[4 * i + 3] = sqrtf(v);
  }
}

// Double division (by a register and by a parameter), reciprocal and square root.
__global__ void double_div(const double *__restrict__ a, const double *__restrict__ b, double *__restrict__ y,
                           double d, int n) {
  int i = gid();
  if (i < n) {
    y[3 * i + 0] = a[i] / b[i];
    y[3 * i + 1] = a[i] / d + __drcp_rn(b[i]);
    y[3 * i + 2] = sqrt(fabs(a[i]));
  }
}

// f32 <-> f64, f16 <-> f32, f16 <-> f64, float <-> int with rounding modes.
__global__ void conversions(const float *__restrict__ x, const __half *__restrict__ h, const double *__restrict__ dd,
                            double *__restrict__ yd, float *__restrict__ yf, __half *__restrict__ yh,
                            int *__restrict__ yi, int n) {
  int i = gid();
  if (i < n) {
    float f = x[i];
    double d = (double)f * dd[i];
    yd[i] = d + (double)__half2float(h[i]);
    yf[2 * i + 0] = (float)d + __half2float(h[i]);
    yf[2 * i + 1] = __int2float_ru(yi[i]) + (float)(double)h[i];
    yh[2 * i + 0] = __float2half(f);
    yh[2 * i + 1] = (__half)d;
    yi[i] = __float2int_rz(f) + __float2int_rd(f * 3.0f) + (int)d;
  }
}

// Float compares producing floats (set.<cmp>.f32.f32), every operator, against a register and a
// parameter; the natural `(a > b) ? 1.0f : 0.0f` form too.
__global__ void compare_to_float(const float *__restrict__ a, const float *__restrict__ b, float *__restrict__ y,
                                 float t, int n) {
  int i = gid();
  if (i < n) {
    float u = a[i], v = b[i];
    float s = fset_eq(u, v) + 2.0f * fset_ne(u, v) + 4.0f * fset_lt(u, v) + 8.0f * fset_le(u, v);
    s += 16.0f * fset_gt(u, v) + 32.0f * fset_ge(u, v) + 64.0f * fset_equ(u, v);
    s += 128.0f * fset_neu(u, v) + 256.0f * fset_ltu(u, v) + 512.0f * fset_leu(u, v);
    s += 1024.0f * fset_gtu(u, v) + 2048.0f * fset_geu(u, v) + 4096.0f * fset_num(u, v);
    s += 8192.0f * fset_nan(u, v) + fset_gt(u, t) * fset_lt(v, t);
    y[2 * i + 0] = s;
    y[2 * i + 1] = (u > v ? 1.0f : 0.0f) + (u <= t ? 1.0f : 0.0f);
  }
}

// Float compares producing predicates: every operator, ordered and unordered, packed in bits.
__global__ void compare_to_pred(const float *__restrict__ a, const float *__restrict__ b, int *__restrict__ y,
                                float t, int n) {
  int i = gid();
  if (i < n) {
    float u = a[i], v = b[i];
    int m = (u == v) | (u != v) << 1 | (u < v) << 2 | (u <= v) << 3 | (u > v) << 4 | (u >= v) << 5;
    m |= !(u < v) << 6 | !(u <= v) << 7 | !(u > v) << 8 | !(u >= v) << 9;
    m |= (u != u) << 10 | (u == u && v == v) << 11 | (u > t) << 12 | !(v <= t) << 13;
    y[i] = m;
  }
}

// fminf/fmaxf/fabsf/copysignf, saturation, clamps.
__global__ void minmax_abs(const float *__restrict__ a, const float *__restrict__ b, float *__restrict__ y, float t,
                           int n) {
  int i = gid();
  if (i < n) {
    float u = a[i], v = b[i];
    y[3 * i + 0] = fminf(u, v) + fmaxf(u, t) + fabsf(u - v);
    y[3 * i + 1] = copysignf(u, v) + copysignf(t, u) + __saturatef(u * v);
    y[3 * i + 2] = fminf(fmaxf(u, 0.0f), 1.0f) + -fabsf(v);
  }
}

// Directed rounding modes.
__global__ void rounding_modes(const float *__restrict__ a, const float *__restrict__ b, float *__restrict__ y,
                               float t, int n) {
  int i = gid();
  if (i < n) {
    float u = a[i], v = b[i];
    y[2 * i + 0] = __fmul_rz(u, v) + __fadd_rd(u, t) + __fadd_ru(v, t);
    y[2 * i + 1] = __fmaf_rz(u, v, t) + __fdiv_rz(u, v);
  }
}

// Integer division and remainder by a parameter: 32-bit signed/unsigned, 64-bit.
__global__ void int_div_param(const int *__restrict__ a, int *__restrict__ y, long long *__restrict__ yl, int d,
                              unsigned ud, long long ld, int n) {
  int i = gid();
  if (i < n) {
    int v = a[i];
    y[3 * i + 0] = v / d + v % d;
    y[3 * i + 1] = (int)((unsigned)v / ud + (unsigned)v % ud);
    y[3 * i + 2] = v / 7 + v % 13;
    yl[i] = (long long)v * 977 / ld + (long long)v % ld;
  }
}

// A constant divided by a register (the numerator in a uniform register on sm_8x: FFMA with a
// UR operand), and float compares against immediates producing floats (FSET with an immediate).
__global__ void const_div_and_imm_compare(const float *__restrict__ x, float *__restrict__ y, int n) {
  int i = gid();
  if (i < n) {
    float v = x[i];
    y[2 * i + 0] = 4.0f / v;
    y[2 * i + 1] = (v > 0.5f ? 1.0f : 0.0f) + fset_lt(v, -2.0f) + fset_ge(v, 3.0f);
  }
}
