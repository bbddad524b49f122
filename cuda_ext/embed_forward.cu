// CUDA kernel: fused gather + add, out[b, t, :] = wte[ids[b, t], :] + wpe[t, :] in fp32.
//
// After llm.c's encoder_forward (kernel 3): one thread per 16-byte pack of the input tables
// (4 fp32 or 8 bf16/fp16 values), (b, t, c) recovered from the flat index, the id read once, two
// 16-byte streaming loads, the add in fp32, 16-byte streaming stores. A scalar kernel covers d not
// divisible by the pack and rows that are not 16-byte aligned. Ids outside [0, V) are not read:
// the thread records (flat index + 1) in *bad and writes nothing.
//
// No torch header here: `nvcc -c embed_forward.cu` checks it on a machine without a GPU. Half and
// bfloat16 values are converted with intrinsics only (torch builds with __CUDA_NO_HALF_OPERATORS__).
#include "embed_forward.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

namespace {

struct F32 {
    using storage = float;
    __device__ static float to_float(float x) { return x; }
};
struct BF16 {
    using storage = unsigned short;
    __device__ static float to_float(unsigned short x) { return __bfloat162float(__ushort_as_bfloat16(x)); }
};
struct F16 {
    using storage = unsigned short;
    __device__ static float to_float(unsigned short x) { return __half2float(__ushort_as_half(x)); }
};

__device__ inline void flag_bad(int64_t* bad, int64_t flat) {
    atomicCAS(reinterpret_cast<unsigned long long*>(bad), 0ull, static_cast<unsigned long long>(flat + 1));
}

template <typename Kind, typename Id>
__global__ void emb_forward_vec(const typename Kind::storage* __restrict__ wte,
                                const typename Kind::storage* __restrict__ wpe, const Id* __restrict__ ids,
                                float* __restrict__ out, int64_t BT, int64_t T, int64_t C, int64_t V, int64_t* bad) {
    using S = typename Kind::storage;
    constexpr int P = 16 / sizeof(S);  // values per 16-byte pack: 4 fp32, 8 bf16/fp16
    const int64_t pack = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const int64_t idx = pack * P;
    if (idx >= BT * C) return;
    const int64_t bt = idx / C, c = idx % C, t = bt % T;
    const int64_t id = static_cast<int64_t>(ids[bt]);
    if (id < 0 || id >= V) {
        flag_bad(bad, bt);
        return;
    }
    union Pack {
        int4 v;
        S s[P];
    } a, p;
    a.v = __ldcs(reinterpret_cast<const int4*>(wte + id * C + c));
    p.v = __ldcs(reinterpret_cast<const int4*>(wpe + t * C + c));
    float r[P];
#pragma unroll
    for (int k = 0; k < P; ++k) r[k] = Kind::to_float(a.s[k]) + Kind::to_float(p.s[k]);
    float4* o = reinterpret_cast<float4*>(out + idx);
#pragma unroll
    for (int k = 0; k < P / 4; ++k) __stcs(o + k, make_float4(r[4 * k], r[4 * k + 1], r[4 * k + 2], r[4 * k + 3]));
}

template <typename Kind, typename Id>
__global__ void emb_forward_scalar(const typename Kind::storage* __restrict__ wte,
                                   const typename Kind::storage* __restrict__ wpe, const Id* __restrict__ ids,
                                   float* __restrict__ out, int64_t BT, int64_t T, int64_t C, int64_t V, int64_t* bad) {
    const int64_t idx = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (idx >= BT * C) return;
    const int64_t bt = idx / C, c = idx % C, t = bt % T;
    const int64_t id = static_cast<int64_t>(ids[bt]);
    if (id < 0 || id >= V) {
        if (c == 0) flag_bad(bad, bt);
        return;
    }
    out[idx] = Kind::to_float(wte[id * C + c]) + Kind::to_float(wpe[t * C + c]);
}

inline bool aligned16(const void* p) { return (reinterpret_cast<uintptr_t>(p) & 15u) == 0; }

template <typename Kind, typename Id>
int launch(const void* wte, const void* wpe, const Id* ids, float* out, int64_t B, int64_t T, int64_t C, int64_t V,
           int64_t* bad, cudaStream_t stream) {
    using S = typename Kind::storage;
    constexpr int P = 16 / sizeof(S);
    constexpr int block = 256;
    const int64_t n = B * T * C;
    if (n == 0) return EMB_OK;
    const S* w = static_cast<const S*>(wte);
    const S* p = static_cast<const S*>(wpe);
    if (C % P == 0 && aligned16(wte) && aligned16(wpe) && aligned16(out)) {
        const int64_t grid = (n / P + block - 1) / block;
        emb_forward_vec<Kind, Id><<<static_cast<unsigned>(grid), block, 0, stream>>>(w, p, ids, out, B * T, T, C, V, bad);
    } else {
        const int64_t grid = (n + block - 1) / block;
        emb_forward_scalar<Kind, Id><<<static_cast<unsigned>(grid), block, 0, stream>>>(w, p, ids, out, B * T, T, C, V, bad);
    }
    return cudaGetLastError() == cudaSuccess ? EMB_OK : EMB_CUDA_ERROR;
}

template <typename Id>
int dispatch(const void* wte, const void* wpe, int dtype, const Id* ids, float* out, int64_t B, int64_t T, int64_t C,
             int64_t V, int64_t* bad, cudaStream_t stream) {
    switch (dtype) {
        case EMB_F32: return launch<F32, Id>(wte, wpe, ids, out, B, T, C, V, bad, stream);
        case EMB_BF16: return launch<BF16, Id>(wte, wpe, ids, out, B, T, C, V, bad, stream);
        case EMB_F16: return launch<F16, Id>(wte, wpe, ids, out, B, T, C, V, bad, stream);
        default: return EMB_BAD_ARG;
    }
}

}  // namespace

extern "C" int emb_forward_cuda(const void* wte, const void* wpe, int dtype, const void* ids, int id_bytes, float* out,
                                int64_t B, int64_t T, int64_t C, int64_t V, int64_t* bad_flag, void* stream) {
    if (B < 0 || T < 0 || C <= 0 || V <= 0 || bad_flag == nullptr) return EMB_BAD_ARG;
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    if (id_bytes == 4)
        return dispatch(wte, wpe, dtype, static_cast<const int32_t*>(ids), out, B, T, C, V, bad_flag, s);
    if (id_bytes == 8)
        return dispatch(wte, wpe, dtype, static_cast<const int64_t*>(ids), out, B, T, C, V, bad_flag, s);
    return EMB_BAD_ARG;
}
