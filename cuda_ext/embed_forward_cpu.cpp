// CPU kernel: one pass over the output, each row the sum of a token row and a position row.
#include "embed_forward.h"

#include "embed_convert.h"

namespace {

template <typename Id>
int64_t first_bad(const Id* ids, int64_t n, int64_t V) {
    for (int64_t i = 0; i < n; ++i)
        if (ids[i] < 0 || static_cast<int64_t>(ids[i]) >= V) return i;
    return -1;
}

inline float f32_to_f32(float x) { return x; }
inline float bf16_to_f32(uint16_t h) { return emb_bf16_to_f32(h); }
inline float f16_to_f32(uint16_t h) { return emb_f16_to_f32(h); }

// One row per (b, t): o = Cvt(token row) + Cvt(position row), in fp32. S is the stored element type.
template <typename Id, typename S, float (*Cvt)(S)>
void rows(const void* wte_, const void* wpe_, const Id* __restrict ids, float* __restrict out, int64_t B, int64_t T,
          int64_t C) {
    const S* __restrict wte = static_cast<const S*>(wte_);
    const S* __restrict wpe = static_cast<const S*>(wpe_);
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < B * T; ++r) {
        const S* __restrict a = wte + static_cast<int64_t>(ids[r]) * C;
        const S* __restrict p = wpe + (r % T) * C;
        float* __restrict o = out + r * C;
#pragma omp simd
        for (int64_t c = 0; c < C; ++c) o[c] = Cvt(a[c]) + Cvt(p[c]);
    }
}

template <typename Id>
int run(const void* wte, const void* wpe, int dtype, const Id* ids, float* out, int64_t B, int64_t T, int64_t C,
        int64_t V, int64_t* bad_index) {
    int64_t bad = first_bad(ids, B * T, V);
    if (bad >= 0) {
        if (bad_index) *bad_index = bad;
        return EMB_BAD_ID;
    }
    switch (dtype) {
        case EMB_F32: rows<Id, float, f32_to_f32>(wte, wpe, ids, out, B, T, C); return EMB_OK;
        case EMB_BF16: rows<Id, uint16_t, bf16_to_f32>(wte, wpe, ids, out, B, T, C); return EMB_OK;
        case EMB_F16: rows<Id, uint16_t, f16_to_f32>(wte, wpe, ids, out, B, T, C); return EMB_OK;
        default: return EMB_BAD_ARG;
    }
}

}  // namespace

extern "C" int emb_forward_cpu(const void* wte, const void* wpe, int dtype, const void* ids, int id_bytes, float* out,
                               int64_t B, int64_t T, int64_t C, int64_t V, int64_t* bad_index) {
    if (B < 0 || T < 0 || C <= 0 || V <= 0) return EMB_BAD_ARG;
    if (id_bytes == 4) return run(wte, wpe, dtype, static_cast<const int32_t*>(ids), out, B, T, C, V, bad_index);
    if (id_bytes == 8) return run(wte, wpe, dtype, static_cast<const int64_t*>(ids), out, B, T, C, V, bad_index);
    return EMB_BAD_ARG;
}
