// The CUDA kernels' per-thread bodies, run on the CPU: the same launch plan as embed_forward.cu,
// then the body for every thread index of every block, the last partial block included. Built by
// the tests with the host compiler (g++ -shared) and called through ctypes; never part of the app.
#include "embed_forward_thread.h"

namespace {

template <typename Kind, typename Id>
int simulate(const void* wte, const void* wpe, const Id* ids, float* out, int64_t B, int64_t T, int64_t C, int64_t V,
             int64_t* bad, int* vector_path, int64_t* threads_run) {
    using S = typename Kind::storage;
    const int64_t n = B * T * C;
    const S* w = static_cast<const S*>(wte);
    const S* p = static_cast<const S*>(wpe);
    const EmbLaunch plan = emb_plan(sizeof(S), n, C, wte, wpe, out);
    *vector_path = plan.vector ? 1 : 0;
    *threads_run = n == 0 ? 0 : plan.grid * EMB_BLOCK;
    if (n == 0) return EMB_OK;
    for (int64_t block = 0; block < plan.grid; ++block)
        for (int64_t thread = 0; thread < EMB_BLOCK; ++thread) {
            const int64_t i = block * EMB_BLOCK + thread;  // blockIdx.x * blockDim.x + threadIdx.x
            if (plan.vector)
                emb_vec_thread<Kind, Id>(i, w, p, ids, out, B * T, T, C, V, bad);
            else
                emb_scalar_thread<Kind, Id>(i, w, p, ids, out, B * T, T, C, V, bad);
        }
    return EMB_OK;
}

template <typename Id>
int dispatch(const void* wte, const void* wpe, int dtype, const Id* ids, float* out, int64_t B, int64_t T, int64_t C,
             int64_t V, int64_t* bad, int* vector_path, int64_t* threads_run) {
    switch (dtype) {
        case EMB_F32: return simulate<EmbF32, Id>(wte, wpe, ids, out, B, T, C, V, bad, vector_path, threads_run);
        case EMB_BF16: return simulate<EmbBF16, Id>(wte, wpe, ids, out, B, T, C, V, bad, vector_path, threads_run);
        case EMB_F16: return simulate<EmbF16, Id>(wte, wpe, ids, out, B, T, C, V, bad, vector_path, threads_run);
        default: return EMB_BAD_ARG;
    }
}

}  // namespace

extern "C" int emb_forward_simulated(const void* wte, const void* wpe, int dtype, const void* ids, int id_bytes,
                                     float* out, int64_t B, int64_t T, int64_t C, int64_t V, int64_t* bad_flag,
                                     int* vector_path, int64_t* threads_run) {
    if (B < 0 || T < 0 || C <= 0 || V <= 0 || bad_flag == nullptr) return EMB_BAD_ARG;
    if (id_bytes == 4)
        return dispatch(wte, wpe, dtype, static_cast<const int32_t*>(ids), out, B, T, C, V, bad_flag, vector_path,
                        threads_run);
    if (id_bytes == 8)
        return dispatch(wte, wpe, dtype, static_cast<const int64_t*>(ids), out, B, T, C, V, bad_flag, vector_path,
                        threads_run);
    return EMB_BAD_ARG;
}
