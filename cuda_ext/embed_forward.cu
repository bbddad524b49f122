// CUDA kernels: fused gather + add, out[b, t, :] = wte[ids[b, t], :] + wpe[t, :] in fp32.
//
// Each kernel is one line: it computes its global thread index and calls the per-thread body in
// embed_forward_thread.h, which the host compiler also builds into a CPU harness that runs every
// thread of a launch (so the code below is tested without a GPU).
//
// No torch header here: `nvcc -c embed_forward.cu` checks it on a machine without a GPU. Half and
// bfloat16 values are converted with intrinsics only (torch builds with __CUDA_NO_HALF_OPERATORS__).
#include "embed_forward_thread.h"

namespace {

template <typename Kind, typename Id>
__global__ void emb_forward_vec(const typename Kind::storage* __restrict__ wte,
                                const typename Kind::storage* __restrict__ wpe, const Id* __restrict__ ids,
                                float* __restrict__ out, int64_t BT, int64_t T, int64_t C, int64_t V, int64_t* bad) {
    emb_vec_thread<Kind, Id>(static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x, wte, wpe, ids, out, BT, T,
                             C, V, bad);
}

template <typename Kind, typename Id>
__global__ void emb_forward_scalar(const typename Kind::storage* __restrict__ wte,
                                   const typename Kind::storage* __restrict__ wpe, const Id* __restrict__ ids,
                                   float* __restrict__ out, int64_t BT, int64_t T, int64_t C, int64_t V, int64_t* bad) {
    emb_scalar_thread<Kind, Id>(static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x, wte, wpe, ids, out, BT,
                                T, C, V, bad);
}

template <typename Kind, typename Id>
int launch(const void* wte, const void* wpe, const Id* ids, float* out, int64_t B, int64_t T, int64_t C, int64_t V,
           int64_t* bad, cudaStream_t stream) {
    using S = typename Kind::storage;
    const int64_t n = B * T * C;
    if (n == 0) return EMB_OK;
    const S* w = static_cast<const S*>(wte);
    const S* p = static_cast<const S*>(wpe);
    const EmbLaunch plan = emb_plan(sizeof(S), n, C, wte, wpe, out);
    const unsigned grid = static_cast<unsigned>(plan.grid);
    if (plan.vector) {
        emb_forward_vec<Kind, Id><<<grid, EMB_BLOCK, 0, stream>>>(w, p, ids, out, B * T, T, C, V, bad);
    } else {
        emb_forward_scalar<Kind, Id><<<grid, EMB_BLOCK, 0, stream>>>(w, p, ids, out, B * T, T, C, V, bad);
    }
    return cudaGetLastError() == cudaSuccess ? EMB_OK : EMB_CUDA_ERROR;
}

template <typename Id>
int dispatch(const void* wte, const void* wpe, int dtype, const Id* ids, float* out, int64_t B, int64_t T, int64_t C,
             int64_t V, int64_t* bad, cudaStream_t stream) {
    switch (dtype) {
        case EMB_F32: return launch<EmbF32, Id>(wte, wpe, ids, out, B, T, C, V, bad, stream);
        case EMB_BF16: return launch<EmbBF16, Id>(wte, wpe, ids, out, B, T, C, V, bad, stream);
        case EMB_F16: return launch<EmbF16, Id>(wte, wpe, ids, out, B, T, C, V, bad, stream);
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
