// The CUDA kernels' per-thread bodies, run on the CPU: the same launch plan as embed_forward.cu
// (version, block size, vector or scalar path), then the version's body for every thread index of
// every block, the last partial block included. Built by the tests with the host compiler
// (g++ -shared) and called through ctypes; never part of the app.
#include "embed_forward_thread.h"

namespace {

template <typename Kind, typename Id>
int simulate(int version, int block, const void* wte, const void* wpe, const Id* ids, float* out, int64_t B,
             int64_t T, int64_t C, int64_t V, int64_t* bad, int* vector_path, int64_t* threads_run) {
    using S = typename Kind::storage;
    const EmbLaunch plan = emb_plan(version, block, sizeof(S), B, T, C, wte, wpe, out);
    if (plan.grid < 0) return EMB_BAD_ARG;
    *vector_path = plan.vector ? 1 : 0;
    const bool empty = B * T * C == 0;
    *threads_run = empty ? 0 : plan.grid * plan.block;
    if (empty) return EMB_OK;
    const EmbArgs<Kind, Id> a{static_cast<const S*>(wte), static_cast<const S*>(wpe), ids, out, B, T, C, V, bad};
    for (int64_t b = 0; b < plan.grid; ++b)                // blockIdx.x
        for (int64_t t = 0; t < plan.block; ++t) {         // threadIdx.x
            if (plan.vector)
                emb_thread<Kind, Id, true>(version, b, t, plan.block, a);
            else
                emb_thread<Kind, Id, false>(version, b, t, plan.block, a);
        }
    return EMB_OK;
}

template <typename Id>
int dispatch(int version, int block, const void* wte, const void* wpe, int dtype, const Id* ids, float* out, int64_t B,
             int64_t T, int64_t C, int64_t V, int64_t* bad, int* vec, int64_t* run) {
    switch (dtype) {
        case EMB_F32: return simulate<EmbF32, Id>(version, block, wte, wpe, ids, out, B, T, C, V, bad, vec, run);
        case EMB_BF16: return simulate<EmbBF16, Id>(version, block, wte, wpe, ids, out, B, T, C, V, bad, vec, run);
        case EMB_F16: return simulate<EmbF16, Id>(version, block, wte, wpe, ids, out, B, T, C, V, bad, vec, run);
        default: return EMB_BAD_ARG;
    }
}

}  // namespace

extern "C" int emb_forward_simulated(int version, int block, const void* wte, const void* wpe, int dtype,
                                     const void* ids, int id_bytes, float* out, int64_t B, int64_t T, int64_t C,
                                     int64_t V, int64_t* bad_flag, int* vector_path, int64_t* threads_run) {
    if (B < 0 || T < 0 || C <= 0 || V <= 0 || bad_flag == nullptr) return EMB_BAD_ARG;
    if (id_bytes == 4)
        return dispatch(version, block, wte, wpe, dtype, static_cast<const int32_t*>(ids), out, B, T, C, V, bad_flag,
                        vector_path, threads_run);
    if (id_bytes == 8)
        return dispatch(version, block, wte, wpe, dtype, static_cast<const int64_t*>(ids), out, B, T, C, V, bad_flag,
                        vector_path, threads_run);
    return EMB_BAD_ARG;
}

// What the kernels' headers say, for the tests to read instead of copying numbers.
extern "C" int emb_versions() { return EMB_VERSIONS; }
extern "C" int emb_v2_units() { return EMB_V2_UNITS; }
