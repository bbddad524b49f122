// Bit-exact conversions of stored half-precision values to float, usable on the host and (through
// embed_forward_thread.h) on the device. No torch header, no CUDA header.
#pragma once
#include <stdint.h>
#include <string.h>

#if defined(__CUDACC__)
#define EMB_HD __host__ __device__
#else
#define EMB_HD
#endif

EMB_HD inline float emb_bits_to_float(uint32_t bits) {
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

// bfloat16 is the top half of a float32.
EMB_HD inline float emb_bf16_to_f32(uint16_t h) { return emb_bits_to_float(static_cast<uint32_t>(h) << 16); }

// IEEE half to float: normals, subnormals (renormalised), zeros, infinities and NaNs.
EMB_HD inline float emb_f16_to_f32(uint16_t h) {
    uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1Fu, mant = h & 0x3FFu, bits;
    if (exp == 0) {
        if (mant == 0) {
            bits = sign;  // +-0
        } else {  // subnormal: renormalise
            exp = 127 - 15 + 1;
            while ((mant & 0x400u) == 0) {
                mant <<= 1;
                --exp;
            }
            bits = sign | (exp << 23) | ((mant & 0x3FFu) << 13);
        }
    } else if (exp == 0x1F) {
        bits = sign | 0x7F800000u | (mant << 13);  // inf / nan
    } else {
        bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
    }
    return emb_bits_to_float(bits);
}
