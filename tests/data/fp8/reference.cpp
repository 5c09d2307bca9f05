// NVIDIA's host reference for the 8-bit float conversions (cuda_fp8.hpp, host path): for each f32
// bit pattern read from standard input (hex), the e4m3 and e5m2 codes of `__nv_cvt_float_to_fp8`
// with __NV_SATFINITE; then, for every code, the f16 bits of `__nv_cvt_fp8_to_halfraw` in both
// formats. tests/emu_fp8.rs compiles it with clang++ and compares warpsmith's conversions.
#include <cuda_fp8.h>
#include <cstdio>
#include <cstring>

int main() {
    unsigned int bits;
    while (std::scanf("%x", &bits) == 1) {
        float f;
        std::memcpy(&f, &bits, sizeof f);
        unsigned e4m3 = __nv_cvt_float_to_fp8(f, __NV_SATFINITE, __NV_E4M3);
        unsigned e5m2 = __nv_cvt_float_to_fp8(f, __NV_SATFINITE, __NV_E5M2);
        std::printf("%08x %02x %02x\n", bits, e4m3, e5m2);
    }
    for (int c = 0; c < 256; c++) {
        __half_raw h4 = __nv_cvt_fp8_to_halfraw((__nv_fp8_storage_t)c, __NV_E4M3);
        __half_raw h5 = __nv_cvt_fp8_to_halfraw((__nv_fp8_storage_t)c, __NV_E5M2);
        std::printf("code %02x %04x %04x\n", c, (unsigned)h4.x, (unsigned)h5.x);
    }
    return 0;
}
