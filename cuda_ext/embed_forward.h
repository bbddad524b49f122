// The fused embedding forward: out[b, t, :] = wte[ids[b, t], :] + wpe[t, :]   (fp32 out, fp32 accumulate)
//
// No torch header: the CUDA file compiles with plain `nvcc -c`, and both kernels can be called
// from any host code. Tables are row-major and contiguous; ids are int32 or int64.
#pragma once
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum EmbDType { EMB_F32 = 0, EMB_BF16 = 1, EMB_F16 = 2 };

// Return codes shared by both kernels.
enum EmbStatus { EMB_OK = 0, EMB_BAD_ID = 1, EMB_BAD_ARG = 2, EMB_CUDA_ERROR = 3 };

// CPU kernel (OpenMP over the B*T rows). On EMB_BAD_ID, *bad_index is the flat index (b*T + t) of
// the first id found outside [0, V); nothing useful is left in out.
int emb_forward_cpu(const void* wte, const void* wpe, int dtype, const void* ids, int id_bytes, float* out,
                    int64_t B, int64_t T, int64_t C, int64_t V, int64_t* bad_index);

// CUDA kernel launcher: one launch of kernel `version` (1, 2 or 3; see embed_forward_thread.h) with
// `block` threads per block (a multiple of 32, 32 to 1024; otherwise EMB_BAD_ARG). All pointers are
// device pointers; `stream` is a cudaStream_t (0: default). `bad_flag` is a device int64 set to
// (flat index + 1) of an out-of-range id (0 when all are valid); the caller reads it back after the launch.
int emb_forward_cuda(const void* wte, const void* wpe, int dtype, const void* ids, int id_bytes, float* out,
                     int64_t B, int64_t T, int64_t C, int64_t V, int64_t* bad_flag, void* stream, int version,
                     int block);

#ifdef __cplusplus
}
#endif
