// The CUDA vector types and the few math functions these kernels use that bench/kernels/prelude.h
// lacks (that prelude is force-included; this adds to it).
#pragma once
struct __attribute__((aligned(4))) uchar4 { unsigned char x, y, z, w; };
struct float3 { float x, y, z; };
struct __attribute__((aligned(16))) float4 { float x, y, z, w; };
static __device__ __forceinline__ float floorf(float x) { return __builtin_floorf(x); }
