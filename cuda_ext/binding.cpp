// torch binding of the two kernels. Built by cuda_ext/loader.py with torch.utils.cpp_extension.load;
// WITH_CUDA is defined only for the CUDA build.
#include <torch/extension.h>

#include <stdexcept>
#include <string>

#include "embed_forward.h"

#ifdef WITH_CUDA
#include <c10/cuda/CUDAStream.h>
#endif

namespace {

// Errors are plain std::runtime_error built with std::to_string (pybind11 raises them as RuntimeError).
// Not TORCH_CHECK: its message goes through std::ostream's number formatting, which crashed this
// extension on the first GPU it met (torch 2.11 + CUDA 13 image, 2026-11-30).
[[noreturn]] void fail(const std::string& message) { throw std::runtime_error(message); }

std::string n(int64_t v) { return std::to_string(v); }

std::string sizes(const at::Tensor& t) {
    std::string s = "(";
    for (int64_t i = 0; i < t.dim(); ++i) s += (i ? ", " : "") + n(t.size(i));
    return s + ")";
}

int dtype_code(const at::Tensor& t) {
    switch (t.scalar_type()) {
        case at::kFloat: return EMB_F32;
        case at::kBFloat16: return EMB_BF16;
        case at::kHalf: return EMB_F16;
        default: fail(std::string("tables must be float32, bfloat16 or float16; got ") + c10::toString(t.scalar_type()));
    }
}

void check_args(const at::Tensor& ids, const at::Tensor& wte, const at::Tensor& wpe) {
    if (ids.dim() != 2) fail("ids must have shape (B, T); got " + sizes(ids));
    if (ids.scalar_type() != at::kInt && ids.scalar_type() != at::kLong)
        fail(std::string("ids must be int32 or int64; got ") + c10::toString(ids.scalar_type()));
    if (wte.dim() != 2 || wpe.dim() != 2) fail("wte (V, d) and wpe (T, d) must be 2-D");
    if (wte.size(1) != wpe.size(1)) fail("wte has d = " + n(wte.size(1)) + " but wpe has d = " + n(wpe.size(1)));
    if (wte.scalar_type() != wpe.scalar_type()) fail("wte and wpe must have the same dtype");
    if (ids.size(1) > wpe.size(0))
        fail("T = " + n(ids.size(1)) + " is larger than the position table (" + n(wpe.size(0)) + " rows)");
}

[[noreturn]] void bad_id(const at::Tensor& ids, int64_t flat, int64_t V) {
    const int64_t T = ids.size(1);
    const int64_t value = ids.reshape({-1})[flat].item<int64_t>();
    fail("token id " + n(value) + " at (batch " + n(flat / T) + ", position " + n(flat % T) +
         ") is out of range: the table has ids 0 to " + n(V - 1));
}

// What both kernels need: checked, contiguous inputs, their sizes, and the fp32 output.
struct Call {
    at::Tensor ids, wte, wpe, out;
    int64_t B, T, C, V;
    int code, id_bytes;
};

// `out`, when given, is written in place (a buffer the caller reuses): fp32, contiguous, (B, T, d).
Call prepare(const at::Tensor& ids, const at::Tensor& wte, const at::Tensor& wpe, const c10::optional<at::Tensor>& out) {
    check_args(ids, wte, wpe);
    Call c{ids.contiguous(), wte.contiguous(), wpe.contiguous(), at::Tensor(), ids.size(0), ids.size(1), wte.size(1),
           wte.size(0), dtype_code(wte), static_cast<int>(ids.element_size())};
    if (out.has_value()) {
        const at::Tensor& o = *out;
        if (!(o.scalar_type() == at::kFloat && o.is_contiguous() && o.dim() == 3 && o.size(0) == c.B &&
              o.size(1) == c.T && o.size(2) == c.C && o.device() == wte.device()))
            fail("out must be a contiguous float32 tensor of shape (" + n(c.B) + ", " + n(c.T) + ", " + n(c.C) +
                 ") on the tables' device; got " + sizes(o));
        c.out = o;
    } else {
        c.out = at::empty({c.B, c.T, c.C}, wte.options().dtype(at::kFloat));
    }
    return c;
}

at::Tensor forward_cpu(at::Tensor ids, at::Tensor wte, at::Tensor wpe, c10::optional<at::Tensor> out) {
    if (!(ids.is_cpu() && wte.is_cpu() && wpe.is_cpu())) fail("forward_cpu needs CPU tensors");
    Call c = prepare(ids, wte, wpe, out);
    int64_t bad = -1;
    const int rc = emb_forward_cpu(c.wte.data_ptr(), c.wpe.data_ptr(), c.code, c.ids.data_ptr(), c.id_bytes,
                                   c.out.data_ptr<float>(), c.B, c.T, c.C, c.V, &bad);
    if (rc == EMB_BAD_ID) bad_id(c.ids, bad, c.V);
    if (rc != EMB_OK) fail("the CPU kernel refused its arguments (code " + n(rc) + ")");
    return c.out;
}

#ifdef WITH_CUDA
// `version` (1, 2, 3) and `block` (threads per block) pick the kernel of the ladder; cuda_ext/ladder.py
// holds the choice andrea_viz.forward makes per table dtype.
at::Tensor forward_cuda(at::Tensor ids, at::Tensor wte, at::Tensor wpe, bool check_ids, c10::optional<at::Tensor> out,
                        int64_t version, int64_t block) {
    if (!(ids.is_cuda() && wte.is_cuda() && wpe.is_cuda())) fail("forward_cuda needs CUDA tensors");
    Call c = prepare(ids, wte, wpe, out);
    auto bad = at::zeros({1}, c.ids.options().dtype(at::kLong));
    auto stream = c10::cuda::getCurrentCUDAStream();
    const int rc = emb_forward_cuda(c.wte.data_ptr(), c.wpe.data_ptr(), c.code, c.ids.data_ptr(), c.id_bytes,
                                    c.out.data_ptr<float>(), c.B, c.T, c.C, c.V, bad.data_ptr<int64_t>(),
                                    stream.stream(), static_cast<int>(version), static_cast<int>(block));
    if (rc == EMB_BAD_ARG)
        fail("the CUDA kernel refused version " + n(version) + " with " + n(block) +
             " threads per block: versions are 1 to 3, blocks a multiple of 32 from 32 to 1024");
    if (rc != EMB_OK) fail("the CUDA kernel failed to launch (code " + n(rc) + ")");
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
    m.def("forward_cpu", &forward_cpu, "CPU kernel (OpenMP)", py::arg("ids"), py::arg("wte"), py::arg("wpe"),
          py::arg("out") = py::none());
#ifdef WITH_CUDA
    m.def("forward_cuda", &forward_cuda, "CUDA kernel", py::arg("ids"), py::arg("wte"), py::arg("wpe"),
          py::arg("check_ids") = true, py::arg("out") = py::none(), py::arg("version") = 1, py::arg("block") = 256);
#endif
}
