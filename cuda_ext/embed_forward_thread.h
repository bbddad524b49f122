// The per-thread work of the CUDA kernels, written once for two compilers.
//
// nvcc compiles these bodies into the __global__ kernels of embed_forward.cu. The host compiler
// compiles them too, with the CUDA qualifiers defined away, into thread_harness.cpp, which runs the
// body for every thread index of a launch (the last partial block included) on the CPU: so the
// kernel's own index arithmetic, vector and scalar paths and bad-id reporting are tested on a
// machine without a GPU (tests/unit/test_cuda_thread_harness.py).
//
// Three versions sit side by side (the ladder below, after llm.c's dev/cuda/encoder_forward.cu),
// each with a vector body (16-byte packs: 4 fp32 or 8 bf16/fp16 values, cached 16-byte loads, the
// add in fp32, 16-byte streaming stores) and a scalar body (d not divisible by the pack, rows not
// 16-byte aligned). Ids outside [0, V) are not read: the thread records (flat index + 1) in *bad
// (the first to arrive wins) and writes nothing for that row.
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
#define EMB_UNROLL4 _Pragma("unroll 4")
#else
#define EMB_UNROLL
#define EMB_UNROLL4
#endif

constexpr int EMB_BLOCK = 256;  // threads per block unless the caller gives another
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

// A stored value's bits in a 32-bit word and back (float, or the uint16 of bf16/fp16).
EMB_HD inline uint32_t emb_bits(float x) {
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}
EMB_HD inline uint32_t emb_bits(uint16_t x) { return x; }
template <typename S>
EMB_HD inline S emb_unbits(uint32_t u) {
    if constexpr (sizeof(S) == 4) {
        S f;
        memcpy(&f, &u, sizeof f);
        return f;
    } else {
        return static_cast<S>(u);
    }
}

// One stored value through the read-only cache (ids, scalar-path table values).
template <typename S>
EMB_HD inline S emb_ldg(const S* p) {
#if defined(__CUDA_ARCH__)
    return __ldg(p);
#else
    return *p;
#endif
}

EMB_HD inline void emb_store_stream1(float* o, float v) {
#if defined(__CUDA_ARCH__)
    __stcs(o, v);
#else
    *o = v;
#endif
}

EMB_HD inline void emb_flag_bad(int64_t* bad, int64_t flat) {
#if defined(__CUDA_ARCH__)
    atomicCAS(reinterpret_cast<unsigned long long*>(bad), 0ull, static_cast<unsigned long long>(flat + 1));
#else
    if (*bad == 0) *bad = flat + 1;
#endif
}

// ---- The ladder: versions side by side, after llm.c's dev/cuda/encoder_forward.cu ----------------
//
// A "unit" is what one step of a thread writes: a 16-byte pack of the output's table-dtype columns
// (4 fp32 or 8 bf16/fp16 values; the vector path) or one element (the scalar path: d not divisible
// by the pack, or rows not 16-byte aligned). Every version has both paths; they differ in which units
// a thread takes:
//   v1  one unit per thread (today's kernel until 2026-12-01; llm.c's kernel 3).
//   v2  EMB_V2_UNITS units per thread, block-strided (unit k of a thread is blockDim apart from its
//       k-1, so each step of a warp still reads and writes consecutive 16-byte packs), the loads of
//       all units issued before the first add: more bytes in flight per thread.
//   v3  one unit of one position row per thread, kept in registers across the batch: the thread
//       loops over b, so each position pack is read once instead of B times.
// Loads of table rows use the read-only cache (__ldg), stores are streaming (__stcs): the output is
// not read again by this kernel.

enum EmbVersion { EMB_V1 = 1, EMB_V2 = 2, EMB_V3 = 3 };
constexpr int EMB_VERSIONS = 3;
constexpr int EMB_V2_UNITS = 4;  // units per thread in v2

// Values per unit: P on the vector path, 1 on the scalar path.
template <typename Kind, bool Vec>
struct EmbUnit {
    using S = typename Kind::storage;
    static constexpr int P = EMB_PACK_BYTES / sizeof(S);  // values per pack: 4 fp32, 8 bf16/fp16
    static constexpr int W = Vec ? P : 1;

    // What one load brings: a 16-byte pack (four 32-bit words, so 4 registers whatever the dtype), or
    // one stored value. v2 keeps these in flight and widens them to floats only when it adds.
    struct Raw {
        uint32_t w[Vec ? 4 : 1];
    };
    EMB_HD static Raw fetch(const S* p) {
        Raw r;
        if constexpr (Vec) {
            const EmbPack16 a = emb_load16(p);
EMB_UNROLL
            for (int k = 0; k < 4; ++k) r.w[k] = a.w[k];
        } else {
            r.w[0] = static_cast<uint32_t>(emb_bits(emb_ldg(p)));
        }
        return r;
    }

    // Value j of a raw unit, as a float (little-endian: the low half of a word comes first).
    EMB_HD static float value(const Raw& r, int j) {
        if constexpr (!Vec) {
            return Kind::to_float(emb_unbits<S>(r.w[0]));
        } else if constexpr (sizeof(S) == 4) {
            return Kind::to_float(emb_unbits<S>(r.w[j]));
        } else {
            return Kind::to_float(static_cast<S>(j % 2 ? r.w[j / 2] >> 16 : r.w[j / 2] & 0xFFFFu));
        }
    }

    // The W stored values at p, as floats.
    EMB_HD static void load(const S* p, float (&r)[W]) {
        const Raw a = fetch(p);
EMB_UNROLL
        for (int k = 0; k < W; ++k) r[k] = value(a, k);
    }

    EMB_HD static void store(float* o, const float (&r)[W]) {
        if constexpr (Vec) {
EMB_UNROLL
            for (int k = 0; k < P / 4; ++k) emb_store_stream16(o + 4 * k, r[4 * k], r[4 * k + 1], r[4 * k + 2], r[4 * k + 3]);
        } else {
            emb_store_stream1(o, r[0]);
        }
    }
};

// The arguments every thread body receives (one struct, so the three bodies read alike).
template <typename Kind, typename Id>
struct EmbArgs {
    const typename Kind::storage* wte;
    const typename Kind::storage* wpe;
    const Id* ids;
    float* out;
    int64_t B, T, C, V;
    int64_t* bad;
};

// One unit u of the output (u counts units over B·T·C): token part + position part, or the bad id flagged.
template <typename Kind, typename Id, bool Vec>
EMB_HD inline void emb_unit(int64_t u, const EmbArgs<Kind, Id>& a) {
    using U = EmbUnit<Kind, Vec>;
    const int64_t idx = u * U::W;
    if (idx >= a.B * a.T * a.C) return;
    const int64_t bt = idx / a.C, c = idx % a.C, t = bt % a.T;
    const int64_t id = static_cast<int64_t>(emb_ldg(a.ids + bt));
    if (id < 0 || id >= a.V) {
        if (c == 0) emb_flag_bad(a.bad, bt);
        return;
    }
    float x[U::W], p[U::W];
    U::load(a.wte + id * a.C + c, x);
    U::load(a.wpe + t * a.C + c, p);
EMB_UNROLL
    for (int k = 0; k < U::W; ++k) x[k] += p[k];
    U::store(a.out + idx, x);
}

// v1: thread (block, thread) of blocks of `dim` threads writes unit block·dim + thread.
template <typename Kind, typename Id, bool Vec>
EMB_HD inline void emb_v1_thread(int64_t block, int64_t thread, int64_t dim, const EmbArgs<Kind, Id>& a) {
    emb_unit<Kind, Id, Vec>(block * dim + thread, a);
}

// v2: block `block` covers units [block·dim·K, (block+1)·dim·K); the thread writes the K units
// block·dim·K + k·dim + thread, loading all of them (as raw packs) before it adds and stores any.
template <typename Kind, typename Id, bool Vec>
EMB_HD inline void emb_v2_thread(int64_t block, int64_t thread, int64_t dim, const EmbArgs<Kind, Id>& a) {
    using U = EmbUnit<Kind, Vec>;
    constexpr int K = EMB_V2_UNITS;
    const int64_t n = a.B * a.T * a.C;
    typename U::Raw x[K], p[K];
    const int64_t first = (block * K * dim + thread) * U::W, step = dim * U::W;  // unit k: first + k·step
    unsigned ok = 0;  // bit k: unit k was loaded (inside the output, a valid id)
EMB_UNROLL
    for (int k = 0; k < K; ++k) {
        const int64_t idx = first + k * step;
        if (idx >= n) continue;
        const int64_t bt = idx / a.C, c = idx % a.C, t = bt % a.T;
        const int64_t id = static_cast<int64_t>(emb_ldg(a.ids + bt));
        if (id < 0 || id >= a.V) {
            if (c == 0) emb_flag_bad(a.bad, bt);
            continue;
        }
        x[k] = U::fetch(a.wte + id * a.C + c);
        p[k] = U::fetch(a.wpe + t * a.C + c);
        ok |= 1u << k;
    }
EMB_UNROLL
    for (int k = 0; k < K; ++k) {
        if (!(ok >> k & 1u)) continue;
        float r[U::W];
EMB_UNROLL
        for (int j = 0; j < U::W; ++j) r[j] = U::value(x[k], j) + U::value(p[k], j);
        U::store(a.out + first + k * step, r);
    }
}

// v3: thread block·dim + thread owns unit q of the position table (q counts units over T·C); it loads
// that position unit once and writes it, plus the token unit, into all B sequences.
template <typename Kind, typename Id, bool Vec>
EMB_HD inline void emb_v3_thread(int64_t block, int64_t thread, int64_t dim, const EmbArgs<Kind, Id>& a) {
    using U = EmbUnit<Kind, Vec>;
    const int64_t idx = (block * dim + thread) * U::W;  // index into the (T, C) position table
    if (idx >= a.T * a.C) return;
    const int64_t t = idx / a.C, c = idx % a.C;
    float p[U::W];
    U::load(a.wpe + idx, p);
EMB_UNROLL4  // the loads of four sequences in flight at once
    for (int64_t b = 0; b < a.B; ++b) {
        const int64_t bt = b * a.T + t;
        const int64_t id = static_cast<int64_t>(emb_ldg(a.ids + bt));
        if (id < 0 || id >= a.V) {
            if (c == 0) emb_flag_bad(a.bad, bt);
            continue;
        }
        float x[U::W];
        U::load(a.wte + id * a.C + c, x);
EMB_UNROLL
        for (int k = 0; k < U::W; ++k) x[k] += p[k];
        U::store(a.out + bt * a.C + c, x);
    }
}

inline bool emb_aligned16(const void* p) { return (reinterpret_cast<uintptr_t>(p) & 15u) == 0; }

// How a call is launched: the version, the vector path when d divides into packs and every row is
// 16-byte aligned, `block` threads per block, and enough blocks for every unit.
struct EmbLaunch {
    int version;
    bool vector;
    int64_t units;  // units of work: over B·T·C for v1 and v2, over T·C for v3
    int64_t block;  // threads per block
    int64_t grid;   // blocks
};

// version 0 or a block of 0 mean "not valid": the caller checks `grid >= 0` (see emb_plan_ok).
inline EmbLaunch emb_plan(int version, int64_t block, int storage_bytes, int64_t B, int64_t T, int64_t C,
                          const void* wte, const void* wpe, const void* out) {
    const int64_t P = EMB_PACK_BYTES / storage_bytes;
    const bool vector = C % P == 0 && emb_aligned16(wte) && emb_aligned16(wpe) && emb_aligned16(out);
    const int64_t w = vector ? P : 1;
    const int64_t units = (version == EMB_V3 ? T * C : B * T * C) / w;
    const int64_t per_block = block * (version == EMB_V2 ? EMB_V2_UNITS : 1);
    const bool ok = version >= EMB_V1 && version <= EMB_V3 && block >= 32 && block <= 1024 && block % 32 == 0;
    return {version, vector, units, block, ok ? (units + per_block - 1) / per_block : -1};
}

// One thread of a plan: the version's body on its path. The CUDA kernels and the host harness both call this.
template <typename Kind, typename Id, bool Vec>
EMB_HD inline void emb_thread(int version, int64_t block, int64_t thread, int64_t dim, const EmbArgs<Kind, Id>& a) {
    switch (version) {
        case EMB_V1: emb_v1_thread<Kind, Id, Vec>(block, thread, dim, a); break;
        case EMB_V2: emb_v2_thread<Kind, Id, Vec>(block, thread, dim, a); break;
        default: emb_v3_thread<Kind, Id, Vec>(block, thread, dim, a); break;
    }
}
