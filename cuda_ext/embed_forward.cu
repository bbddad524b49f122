// CUDA kernels: fused gather + add, out[b, t, :] = wte[ids[b, t], :] + wpe[t, :] in fp32.
//
// Each kernel is one line: it passes its block and thread index to the per-thread body in
// embed_forward_thread.h, which the host compiler also builds into a CPU harness that runs every
// thread of a launch (so the code below is tested without a GPU). Versions 1-3 (the ladder, see the
// header) are the same kernel template with a different body; `version` and `block` come from the
// caller (the binding's defaults, or bench-gpu's sweep), and every call is one launch.
//
// No torch header here: `nvcc -c embed_forward.cu` checks it on a machine without a GPU. Half and
// bfloat16 values are converted with intrinsics only (torch builds with __CUDA_NO_HALF_OPERATORS__).
#include "embed_forward_thread.h"

namespace {

template <typename Kind, typename Id, int Version, bool Vec>
__global__ void __launch_bounds__(1024) emb_forward_kernel(EmbArgs<Kind, Id> a) {
    emb_thread<Kind, Id, Vec>(Version, blockIdx.x, threadIdx.x, blockDim.x, a);
}

template <typename Kind, typename Id, int Version>
void start(const EmbLaunch& plan, const EmbArgs<Kind, Id>& a, cudaStream_t stream) {
    const unsigned grid = static_cast<unsigned>(plan.grid), block = static_cast<unsigned>(plan.block);
    if (plan.vector)
        emb_forward_kernel<Kind, Id, Version, true><<<grid, block, 0, stream>>>(a);
    else
        emb_forward_kernel<Kind, Id, Version, false><<<grid, block, 0, stream>>>(a);
}

template <typename Kind, typename Id>
int launch(int version, int block, const void* wte, const void* wpe, const Id* ids, float* out, int64_t B, int64_t T,
           int64_t C, int64_t V, int64_t* bad, cudaStream_t stream) {
    using S = typename Kind::storage;
    const EmbLaunch plan = emb_plan(version, block, sizeof(S), B, T, C, wte, wpe, out);
    if (plan.grid < 0 || plan.grid > 0x7fffffffLL) return EMB_BAD_ARG;
    if (B * T * C == 0) return EMB_OK;
    const EmbArgs<Kind, Id> a{static_cast<const S*>(wte), static_cast<const S*>(wpe), ids, out, B, T, C, V, bad};
    switch (version) {
        case EMB_V1: start<Kind, Id, EMB_V1>(plan, a, stream); break;
        case EMB_V2: start<Kind, Id, EMB_V2>(plan, a, stream); break;
        default: start<Kind, Id, EMB_V3>(plan, a, stream); break;
    }
    return cudaGetLastError() == cudaSuccess ? EMB_OK : EMB_CUDA_ERROR;
}

template <typename Id>
int dispatch(int version, int block, const void* wte, const void* wpe, int dtype, const Id* ids, float* out, int64_t B,
             int64_t T, int64_t C, int64_t V, int64_t* bad, cudaStream_t stream) {
    switch (dtype) {
        case EMB_F32: return launch<EmbF32, Id>(version, block, wte, wpe, ids, out, B, T, C, V, bad, stream);
        case EMB_BF16: return launch<EmbBF16, Id>(version, block, wte, wpe, ids, out, B, T, C, V, bad, stream);
        case EMB_F16: return launch<EmbF16, Id>(version, block, wte, wpe, ids, out, B, T, C, V, bad, stream);
        default: return EMB_BAD_ARG;
    }
}

}  // namespace

extern "C" int emb_forward_cuda(const void* wte, const void* wpe, int dtype, const void* ids, int id_bytes, float* out,
                                int64_t B, int64_t T, int64_t C, int64_t V, int64_t* bad_flag, void* stream,
                                int version, int block) {
    if (B < 0 || T < 0 || C <= 0 || V <= 0 || bad_flag == nullptr) return EMB_BAD_ARG;
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    if (id_bytes == 4)
        return dispatch(version, block, wte, wpe, dtype, static_cast<const int32_t*>(ids), out, B, T, C, V, bad_flag, s);
    if (id_bytes == 8)
        return dispatch(version, block, wte, wpe, dtype, static_cast<const int64_t*>(ids), out, B, T, C, V, bad_flag, s);
    return EMB_BAD_ARG;
}
