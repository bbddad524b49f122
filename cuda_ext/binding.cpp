// torch binding of the two kernels. Built by cuda_ext/loader.py with torch.utils.cpp_extension.load;
// WITH_CUDA is defined only for the CUDA build.
#include <torch/extension.h>

#include "embed_forward.h"

#ifdef WITH_CUDA
#include <c10/cuda/CUDAStream.h>
#endif

namespace {

int dtype_code(const at::Tensor& t) {
    switch (t.scalar_type()) {
        case at::kFloat: return EMB_F32;
        case at::kBFloat16: return EMB_BF16;
        case at::kHalf: return EMB_F16;
        default: TORCH_CHECK(false, "tables must be float32, bfloat16 or float16; got ", t.scalar_type());
    }
    return -1;
}

void check_args(const at::Tensor& ids, const at::Tensor& wte, const at::Tensor& wpe) {
    TORCH_CHECK(ids.dim() == 2, "ids must have shape (B, T); got ", ids.sizes());
    TORCH_CHECK(ids.scalar_type() == at::kInt || ids.scalar_type() == at::kLong,
                "ids must be int32 or int64; got ", ids.scalar_type());
    TORCH_CHECK(wte.dim() == 2 && wpe.dim() == 2, "wte (V, d) and wpe (T, d) must be 2-D");
    TORCH_CHECK(wte.size(1) == wpe.size(1), "wte has d = ", wte.size(1), " but wpe has d = ", wpe.size(1));
    TORCH_CHECK(wte.scalar_type() == wpe.scalar_type(), "wte and wpe must have the same dtype");
    TORCH_CHECK(ids.size(1) <= wpe.size(0), "T = ", ids.size(1), " is larger than the position table (", wpe.size(0),
                " rows)");
}

[[noreturn]] void bad_id(const at::Tensor& ids, int64_t flat, int64_t V) {
    const int64_t T = ids.size(1);
    const int64_t value = ids.reshape({-1})[flat].item<int64_t>();
    TORCH_CHECK(false, "token id ", value, " at (batch ", flat / T, ", position ", flat % T,
                ") is out of range: the table has ids 0 to ", V - 1);
}

// What both kernels need: checked, contiguous inputs, their sizes, and the fp32 output.
struct Call {
    at::Tensor ids, wte, wpe, out;
    int64_t B, T, C, V;
    int code, id_bytes;
};

Call prepare(const at::Tensor& ids, const at::Tensor& wte, const at::Tensor& wpe) {
    check_args(ids, wte, wpe);
    Call c{ids.contiguous(), wte.contiguous(), wpe.contiguous(), at::Tensor(), ids.size(0), ids.size(1), wte.size(1),
           wte.size(0), dtype_code(wte), static_cast<int>(ids.element_size())};
    c.out = at::empty({c.B, c.T, c.C}, wte.options().dtype(at::kFloat));
    return c;
}

at::Tensor forward_cpu(at::Tensor ids, at::Tensor wte, at::Tensor wpe) {
    TORCH_CHECK(ids.is_cpu() && wte.is_cpu() && wpe.is_cpu(), "forward_cpu needs CPU tensors");
    Call c = prepare(ids, wte, wpe);
    int64_t bad = -1;
    const int rc = emb_forward_cpu(c.wte.data_ptr(), c.wpe.data_ptr(), c.code, c.ids.data_ptr(), c.id_bytes,
                                   c.out.data_ptr<float>(), c.B, c.T, c.C, c.V, &bad);
    if (rc == EMB_BAD_ID) bad_id(c.ids, bad, c.V);
    TORCH_CHECK(rc == EMB_OK, "the CPU kernel refused its arguments (code ", rc, ")");
    return c.out;
}

#ifdef WITH_CUDA
at::Tensor forward_cuda(at::Tensor ids, at::Tensor wte, at::Tensor wpe, bool check_ids) {
    TORCH_CHECK(ids.is_cuda() && wte.is_cuda() && wpe.is_cuda(), "forward_cuda needs CUDA tensors");
    Call c = prepare(ids, wte, wpe);
    auto bad = at::zeros({1}, c.ids.options().dtype(at::kLong));
    auto stream = c10::cuda::getCurrentCUDAStream();
    const int rc = emb_forward_cuda(c.wte.data_ptr(), c.wpe.data_ptr(), c.code, c.ids.data_ptr(), c.id_bytes,
                                    c.out.data_ptr<float>(), c.B, c.T, c.C, c.V, bad.data_ptr<int64_t>(),
                                    stream.stream());
    TORCH_CHECK(rc == EMB_OK, "the CUDA kernel failed to launch (code ", rc, ")");
    if (check_ids) {
        const int64_t flag = bad.item<int64_t>();  // synchronises
        if (flag != 0) bad_id(c.ids.cpu(), flag - 1, c.V);
    }
    return c.out;
}
#endif

}  // namespace

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.doc() = "ANDREA fused embedding forward: out[b, t] = wte[ids[b, t]] + wpe[t] (fp32 out)";
    m.def("forward_cpu", &forward_cpu, "CPU kernel (OpenMP)", py::arg("ids"), py::arg("wte"), py::arg("wpe"));
#ifdef WITH_CUDA
    m.def("forward_cuda", &forward_cuda, "CUDA kernel", py::arg("ids"), py::arg("wte"), py::arg("wpe"),
          py::arg("check_ids") = true);
    m.attr("has_cuda") = true;
#else
    m.attr("has_cuda") = false;
#endif
}
