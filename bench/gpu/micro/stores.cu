// Store microbenchmarks for the cycle model (docs/tune.md, "Stores and the LSU queue"): every
// kernel writes the same 64 floats per thread, 264 blocks of 256 threads (two per H100 SM), in
// the patterns the bench kernels use. Which of them reach L2 as fewer sectors than the L1 saw
// (the L1 combining partial writes to one sector), and what each costs per SM.
//
// Built by bench/gpu/micro_stores.py (clang -> PTX, ptxas -> cubin) on a machine without a GPU.

struct __attribute__((aligned(16))) f4 {
  float x, y, z, w;
};

#define ROWS 8

// 64 values a thread, ready in registers before the first store (a loop of runtime length, as
// a GEMM's accumulators are).
#define VALUES(v, a, T)                                                                       \
  float v[ROWS * COLS];                                                                        \
  _Pragma("unroll") for (int k = 0; k < ROWS * COLS; ++k) v[k] = (float)(threadIdx.x + k);    \
  for (int t = 0; t < (T); ++t)                                                                \
    _Pragma("unroll") for (int k = 0; k < ROWS * COLS; ++k) v[k] = fmaf(v[k], a, 1.0f);
#define COLS 8

// A shared table where every thread's slot holds its own index: a pointer chase through it
// always returns to the thread's slot.
#define CHASE_TABLE(vn)                                                                        \
  __shared__ int next[256];                                                                    \
  next[threadIdx.x] = threadIdx.x;                                                             \
  __syncthreads();                                                                             \
  volatile int *vn = next

__device__ __forceinline__ int row0() { return blockIdx.y * 128 + (threadIdx.x / 16) * ROWS; }
__device__ __forceinline__ int col0() { return blockIdx.x * 128 + (threadIdx.x % 16) * COLS; }

// heavy_sgemm_8x8's epilogue: a thread's 8 values of a row go to one 32-byte sector, lanes 32
// bytes apart, the 8 stores of a row back to back.
extern "C" __global__ void __launch_bounds__(256) st_rows(float *C, int N, float a, int T) {
  VALUES(v, a, T);
  int r = row0(), c = col0();
#pragma unroll
  for (int i = 0; i < ROWS; ++i)
#pragma unroll
    for (int j = 0; j < COLS; ++j) C[(r + i) * N + c + j] = v[i * COLS + j];
}

// The same addresses, each value read back from shared memory just before its store
// (`ld.volatile.shared`, as spill-80's reloads of spilled accumulators pace its stores).
extern "C" __global__ void __launch_bounds__(256) st_rows_paced(float *C, int N, float a, int T) {
  __shared__ float s[COLS * 256];
  VALUES(v, a, T);
#pragma unroll
  for (int j = 0; j < COLS; ++j) s[j * 256 + threadIdx.x] = v[j];
  volatile float *vs = s;
  int r = row0(), c = col0();
#pragma unroll
  for (int i = 0; i < ROWS; ++i)
#pragma unroll
    for (int j = 0; j < COLS; ++j) C[(r + i) * N + c + j] = vs[j * 256 + threadIdx.x] + v[i * COLS + j];
}

// The same addresses column by column: consecutive stores of a lane go to 8 different sectors.
extern "C" __global__ void __launch_bounds__(256) st_cols(float *C, int N, float a, int T) {
  VALUES(v, a, T);
  int r = row0(), c = col0();
#pragma unroll
  for (int j = 0; j < COLS; ++j)
#pragma unroll
    for (int i = 0; i < ROWS; ++i) C[(r + i) * N + c + j] = v[i * COLS + j];
}

// The same addresses as two 16-byte stores per row (a whole sector in two instructions).
extern "C" __global__ void __launch_bounds__(256) st_rows_vec(float *C, int N, float a, int T) {
  VALUES(v, a, T);
  int r = row0(), c = col0();
#pragma unroll
  for (int i = 0; i < ROWS; ++i) {
    f4 *p = (f4 *)&C[(r + i) * N + c];
    p[0] = f4{v[i * COLS + 0], v[i * COLS + 1], v[i * COLS + 2], v[i * COLS + 3]};
    p[1] = f4{v[i * COLS + 4], v[i * COLS + 5], v[i * COLS + 6], v[i * COLS + 7]};
  }
}

// Coalesced: each warp-store writes 128 contiguous bytes (whole sectors, one line).
extern "C" __global__ void __launch_bounds__(256) st_coalesced(float *C, int N, float a, int T) {
  VALUES(v, a, T);
  long block = (long)blockIdx.y * gridDim.x + blockIdx.x;
#pragma unroll
  for (int k = 0; k < ROWS * COLS; ++k) C[(block * ROWS * COLS + k) * 256 + threadIdx.x] = v[k];
}

// st_rows with each store's address waiting on P steps of a pointer chase through shared
// memory (each step one dependent `ld.volatile.shared`; the chase always returns to the thread's
// own slot, so the addresses are st_rows'): how far apart two stores to one sector must be for
// the L1 to combine them.
extern "C" __global__ void __launch_bounds__(256) st_rows_chase(float *C, int N, float a, int T, int P) {
  CHASE_TABLE(vn);
  VALUES(v, a, T);
  int r = row0(), c = col0();
  int p = threadIdx.x;
#pragma unroll
  for (int i = 0; i < ROWS; ++i)
#pragma unroll
    for (int j = 0; j < COLS; ++j) {
      for (int m = 0; m < P; ++m) p = vn[p];
      C[(r + i) * N + c + j + (p - (int)threadIdx.x)] = v[i * COLS + j];
    }
}

// st_rows with L independent `ld.volatile.shared` before each store whose values the stores do
// not use (summed, and stored only if the sum is -1, which it never is): shared-memory work in the LSU's queue between
// the stores, without making the stores wait for it.
extern "C" __global__ void __launch_bounds__(256) st_rows_lds(float *C, int N, float a, int T, int L) {
  __shared__ float s[COLS * 256];
  VALUES(v, a, T);
#pragma unroll
  for (int j = 0; j < COLS; ++j) s[j * 256 + threadIdx.x] = v[j];
  volatile float *vs = s;
  float acc = 0.0f;
  int r = row0(), c = col0();
#pragma unroll
  for (int i = 0; i < ROWS; ++i)
#pragma unroll
    for (int j = 0; j < COLS; ++j) {
      for (int m = 0; m < L; ++m) acc += vs[((j + m) % COLS) * 256 + threadIdx.x];
      C[(r + i) * N + c + j] = v[i * COLS + j];
    }
  if (acc == -1.0f) C[r * N + c] = acc;  // keeps the loads; in bounds, and never true here
}

// Session 14: what in st_rows_paced lets the L1 combine. Each kernel below is st_rows with every
// store's *data* made to wait on something just before the store, unrolled (compile-time
// lengths, no runtime loop between the stores, unlike st_rows_chase / st_rows_lds), the
// addresses st_rows' (one base register, immediate offsets).

// The data waits on F dependent FMAs (the ALU, not the LSU).
template <int F>
__device__ __forceinline__ void st_rows_fchain_body(float *C, int N, float a, int T) {
  VALUES(v, a, T);
  int r = row0(), c = col0();
  float d = a;
#pragma unroll
  for (int i = 0; i < ROWS; ++i)
#pragma unroll
    for (int j = 0; j < COLS; ++j) {
#pragma unroll
      for (int m = 0; m < F; ++m) d = fmaf(d, a, 1.0f);
      C[(r + i) * N + c + j] = v[i * COLS + j] + d;
    }
}
extern "C" __global__ void __launch_bounds__(256) st_rows_fchain2(float *C, int N, float a, int T) {
  st_rows_fchain_body<2>(C, N, a, T);
}
extern "C" __global__ void __launch_bounds__(256) st_rows_fchain8(float *C, int N, float a, int T) {
  st_rows_fchain_body<8>(C, N, a, T);
}
extern "C" __global__ void __launch_bounds__(256) st_rows_fchain32(float *C, int N, float a, int T) {
  st_rows_fchain_body<32>(C, N, a, T);
}

// The data waits on D dependent shared loads (a pointer chase that returns to the thread's own
// slot; D = 1 is st_rows_paced with an integer load).
template <int D>
__device__ __forceinline__ void st_rows_dchase_body(float *C, int N, float a, int T) {
  CHASE_TABLE(vn);
  VALUES(v, a, T);
  int r = row0(), c = col0();
  int p = threadIdx.x;
#pragma unroll
  for (int i = 0; i < ROWS; ++i)
#pragma unroll
    for (int j = 0; j < COLS; ++j) {
#pragma unroll
      for (int m = 0; m < D; ++m) p = vn[p];
      C[(r + i) * N + c + j] = v[i * COLS + j] + (float)(p - (int)threadIdx.x);
    }
}
extern "C" __global__ void __launch_bounds__(256) st_rows_dchase1(float *C, int N, float a, int T) {
  st_rows_dchase_body<1>(C, N, a, T);
}
extern "C" __global__ void __launch_bounds__(256) st_rows_dchase4(float *C, int N, float a, int T) {
  st_rows_dchase_body<4>(C, N, a, T);
}

// The data waits on a global load (`ld.volatile.global` of a zero word past the written region).
extern "C" __global__ void __launch_bounds__(256) st_rows_gld(float *C, int N, float a, int T) {
  VALUES(v, a, T);
  volatile float *zero = C + (long)gridDim.y * 128 * N + threadIdx.x;
  int r = row0(), c = col0();
#pragma unroll
  for (int i = 0; i < ROWS; ++i)
#pragma unroll
    for (int j = 0; j < COLS; ++j) C[(r + i) * N + c + j] = v[i * COLS + j] + zero[0];
}

// st_rows_paced with the address waiting too (on the same shared load): as st_rows_chase P=1,
// but unrolled.
extern "C" __global__ void __launch_bounds__(256) st_rows_paced_addr(float *C, int N, float a, int T) {
  CHASE_TABLE(vn);
  VALUES(v, a, T);
  int r = row0(), c = col0();
#pragma unroll
  for (int i = 0; i < ROWS; ++i)
#pragma unroll
    for (int j = 0; j < COLS; ++j) {
      int p = vn[threadIdx.x];
      C[(r + i) * N + c + j + (p - (int)threadIdx.x)] = v[i * COLS + j] + (float)p;
    }
}

// st_rows with the 8 stores of a row in a fixed order (offsets in 4-byte words): the L1
// combined exactly as many stores as went to a lower address than an earlier store to the same
// sector (st_rows 3 % of its stores, st_rows_paced 27 %: ptxas's order), so these test that.
template <int O0, int O1, int O2, int O3, int O4, int O5, int O6, int O7>
__device__ __forceinline__ void st_rows_order_body(float *C, int N, float a, int T) {
  VALUES(v, a, T);
  int r = row0(), c = col0();
  const int order[COLS] = {O0, O1, O2, O3, O4, O5, O6, O7};
#pragma unroll
  for (int i = 0; i < ROWS; ++i)
#pragma unroll
    for (int j = 0; j < COLS; ++j) {
      // a plain st.global (volatile would make it STG.STRONG.SYS); ptxas keeps this order
      asm volatile("st.global.f32 [%0], %1;" ::"l"(&C[(r + i) * N + c + order[j]]), "f"(v[i * COLS + order[j]])
                   : "memory");
    }
}
// ascending: no store goes back
extern "C" __global__ void __launch_bounds__(256) st_rows_asc(float *C, int N, float a, int T) {
  st_rows_order_body<0, 1, 2, 3, 4, 5, 6, 7>(C, N, a, T);
}
// descending: 7 of 8 go back
extern "C" __global__ void __launch_bounds__(256) st_rows_desc(float *C, int N, float a, int T) {
  st_rows_order_body<7, 6, 5, 4, 3, 2, 1, 0>(C, N, a, T);
}
// pairs swapped: 4 of 8 go back
extern "C" __global__ void __launch_bounds__(256) st_rows_swap(float *C, int N, float a, int T) {
  st_rows_order_body<1, 0, 3, 2, 5, 4, 7, 6>(C, N, a, T);
}
// the top word first, then ascending: 7 of 8 go back, each just once
extern "C" __global__ void __launch_bounds__(256) st_rows_top(float *C, int N, float a, int T) {
  st_rows_order_body<7, 0, 1, 2, 3, 4, 5, 6>(C, N, a, T);
}
// halves: the upper half ascending, then the lower half ascending: 4 of 8 go back
extern "C" __global__ void __launch_bounds__(256) st_rows_halves(float *C, int N, float a, int T) {
  st_rows_order_body<4, 5, 6, 7, 0, 1, 2, 3>(C, N, a, T);
}
