// The per-thread work of the CUDA kernels, written once for two compilers.
//
// nvcc compiles these bodies into the __global__ kernels of embed_forward.cu. The host compiler
// compiles them too, with the CUDA qualifiers defined away, into thread_harness.cpp, which runs the
// body for every thread index of a launch (the last partial block included) on the CPU: so the
// kernel's own index arithmetic, vector and scalar paths and bad-id reporting are tested on a
// machine without a GPU (tests/unit/test_cuda_thread_harness.py).
//
// After llm.c's encoder_forward (kernel 3): one thread per 16-byte pack of the input tables (4 fp32
// or 8 bf16/fp16 values), (b, t, c) recovered from the flat index, the id read once, two 16-byte
// cached loads, the add in fp32, 16-byte streaming stores (the output is not read again). The scalar body covers d not divisible
// by the pack and rows that are not 16-byte aligned. Ids outside [0, V) are not read: the thread
// records (flat index + 1) in *bad (the first to arrive wins) and writes nothing.
#pragma once
#include <stdint.h>
#include <string.h>

#include "embed_convert.h"
#include "embed_forward.h"

#if defined(__CUDACC__)
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#endif

#if defined(__CUDACC__)
#define EMB_UNROLL _Pragma("unroll")
#else
#define EMB_UNROLL
#endif

constexpr int EMB_BLOCK = 256;  // threads per block
constexpr int EMB_PACK_BYTES = 16;

struct EmbF32 {
    using storage = float;
    EMB_HD static float to_float(float x) { return x; }
};
struct EmbBF16 {
    using storage = uint16_t;
    EMB_HD static float to_float(uint16_t x) {
#if defined(__CUDA_ARCH__)
        return __bfloat162float(__ushort_as_bfloat16(x));
#else
        return emb_bf16_to_f32(x);
#endif
    }
};
struct EmbF16 {
    using storage = uint16_t;
    EMB_HD static float to_float(uint16_t x) {
#if defined(__CUDA_ARCH__)
        return __half2float(__ushort_as_half(x));
#else
        return emb_f16_to_f32(x);
#endif
    }
};

struct EmbPack16 {
    uint32_t w[4];
};

// Table rows are read through the read-only cache with the default policy, not llm.c's evict-first
// __ldcs: ANDREA's token table (26 MB for 120M) fits a 60 MB L2 and ids repeat, and every position
// row is read again by each of the B sequences. Measured on an H200 (2026-11-30): __ldcs lost to
// torch.compile at B = 64 because it evicted those rows.
EMB_HD inline EmbPack16 emb_load16(const void* p) {
    EmbPack16 r;
#if defined(__CUDA_ARCH__)
    const int4 v = __ldg(reinterpret_cast<const int4*>(p));
    r.w[0] = static_cast<uint32_t>(v.x);
    r.w[1] = static_cast<uint32_t>(v.y);
    r.w[2] = static_cast<uint32_t>(v.z);
    r.w[3] = static_cast<uint32_t>(v.w);
#else
    memcpy(&r, p, sizeof r);
#endif
    return r;
}

EMB_HD inline void emb_store_stream16(float* o, float a, float b, float c, float d) {
#if defined(__CUDA_ARCH__)
    __stcs(reinterpret_cast<float4*>(o), make_float4(a, b, c, d));
#else
    const float v[4] = {a, b, c, d};
    memcpy(o, v, sizeof v);
#endif
}

EMB_HD inline void emb_flag_bad(int64_t* bad, int64_t flat) {
#if defined(__CUDA_ARCH__)
    atomicCAS(reinterpret_cast<unsigned long long*>(bad), 0ull, static_cast<unsigned long long>(flat + 1));
#else
    if (*bad == 0) *bad = flat + 1;
#endif
}

// One thread of the vector kernel: the 16-byte pack number `pack` of the output.
template <typename Kind, typename Id>
EMB_HD inline void emb_vec_thread(int64_t pack, const typename Kind::storage* wte, const typename Kind::storage* wpe,
                                  const Id* ids, float* out, int64_t BT, int64_t T, int64_t C, int64_t V, int64_t* bad) {
    using S = typename Kind::storage;
    constexpr int P = EMB_PACK_BYTES / sizeof(S);  // values per pack: 4 fp32, 8 bf16/fp16
    const int64_t idx = pack * P;
    if (idx >= BT * C) return;
    const int64_t bt = idx / C, c = idx % C, t = bt % T;
    const int64_t id = static_cast<int64_t>(ids[bt]);
    if (id < 0 || id >= V) {
        emb_flag_bad(bad, bt);
        return;
    }
    const EmbPack16 a = emb_load16(wte + id * C + c);
    const EmbPack16 p = emb_load16(wpe + t * C + c);
    S sa[P], sp[P];
    memcpy(sa, &a, sizeof a);
    memcpy(sp, &p, sizeof p);
    float r[P];
EMB_UNROLL
    for (int k = 0; k < P; ++k) r[k] = Kind::to_float(sa[k]) + Kind::to_float(sp[k]);
EMB_UNROLL
    for (int k = 0; k < P / 4; ++k) emb_store_stream16(out + idx + 4 * k, r[4 * k], r[4 * k + 1], r[4 * k + 2], r[4 * k + 3]);
}

// One thread of the scalar kernel: output element `idx`.
template <typename Kind, typename Id>
EMB_HD inline void emb_scalar_thread(int64_t idx, const typename Kind::storage* wte, const typename Kind::storage* wpe,
                                     const Id* ids, float* out, int64_t BT, int64_t T, int64_t C, int64_t V,
                                     int64_t* bad) {
    if (idx >= BT * C) return;
    const int64_t bt = idx / C, c = idx % C, t = bt % T;
    const int64_t id = static_cast<int64_t>(ids[bt]);
    if (id < 0 || id >= V) {
        if (c == 0) emb_flag_bad(bad, bt);
        return;
    }
    out[idx] = Kind::to_float(wte[id * C + c]) + Kind::to_float(wpe[t * C + c]);
}

inline bool emb_aligned16(const void* p) { return (reinterpret_cast<uintptr_t>(p) & 15u) == 0; }

// How a call is launched: the vector kernel when d divides into packs and every row is 16-byte aligned.
struct EmbLaunch {
    bool vector;
    int64_t threads;  // threads that have work: packs or elements
    int64_t grid;     // blocks of EMB_BLOCK threads
};

inline EmbLaunch emb_plan(int storage_bytes, int64_t n, int64_t C, const void* wte, const void* wpe, const void* out) {
    const int64_t P = EMB_PACK_BYTES / storage_bytes;
    const bool vector = C % P == 0 && emb_aligned16(wte) && emb_aligned16(wpe) && emb_aligned16(out);
    const int64_t threads = vector ? n / P : n;
    return {vector, threads, (threads + EMB_BLOCK - 1) / EMB_BLOCK};
}
