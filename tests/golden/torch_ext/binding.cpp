// binding.cpp - PyTorch bindings for the fused kernels in kernels.cu.
//
//   import fused_ops
//   y = fused_ops.bias_gelu(x, bias)          # x: [..., C], bias: [C]
//   y, inv_rms = fused_ops.rms_norm(x, w, 1e-6)
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/hip/HIPGuard.h>
#include <c10/hip/HIPException.h>

#include "kernels.h"

#define CHECK_CUDA(x) TORCH_CHECK((x).is_cuda(), #x " must be a CUDA tensor")
#define CHECK_CONTIGUOUS(x) TORCH_CHECK((x).is_contiguous(), #x " must be contiguous")
#define CHECK_INPUT(x) \
    CHECK_CUDA(x);     \
    CHECK_CONTIGUOUS(x)

namespace {

// Map ATen scalar types onto the CUDA types the kernels are written for.
template <typename T> struct CudaType { using type = T; };
template <> struct CudaType<at::Half> { using type = __half; };
template <> struct CudaType<at::BFloat16> { using type = __hip_bfloat16; };

template <typename scalar_t>
typename CudaType<scalar_t>::type* cuda_ptr(const torch::Tensor& t)
{
    return reinterpret_cast<typename CudaType<scalar_t>::type*>(t.data_ptr<scalar_t>());
}

torch::Tensor bias_gelu(torch::Tensor x, torch::Tensor bias)
{
    CHECK_INPUT(x);
    CHECK_INPUT(bias);
    TORCH_CHECK(bias.dim() == 1 && bias.size(0) == x.size(-1), "bias must have shape [x.size(-1)]");
    TORCH_CHECK(bias.scalar_type() == x.scalar_type(), "x and bias must have the same dtype");

    // Launch on x's device and on PyTorch's current stream for that device.
    const at::cuda::OptionalCUDAGuard device_guard(device_of(x));
    hipStream_t stream = at::cuda::getCurrentCUDAStream();

    auto out = torch::empty_like(x);
    const int64_t cols = x.size(-1);
    const int64_t rows = x.numel() / cols;

    if (x.scalar_type() == at::kBFloat16) {
        fused::launch_bias_gelu<__hip_bfloat16>(cuda_ptr<at::BFloat16>(x), cuda_ptr<at::BFloat16>(bias),
                                               cuda_ptr<at::BFloat16>(out), rows, cols, stream);
    } else if (x.scalar_type() == at::kHalf && cols % 2 == 0) {
        fused::launch_bias_gelu_half2(cuda_ptr<at::Half>(x), cuda_ptr<at::Half>(bias),
                                      cuda_ptr<at::Half>(out), rows, cols, stream);
    } else {
        AT_DISPATCH_FLOATING_TYPES_AND_HALF(x.scalar_type(), "bias_gelu", [&] {
            fused::launch_bias_gelu<typename CudaType<scalar_t>::type>(
                cuda_ptr<scalar_t>(x), cuda_ptr<scalar_t>(bias), cuda_ptr<scalar_t>(out), rows, cols,
                stream);
        });
    }
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return out;
}

std::vector<torch::Tensor> rms_norm(torch::Tensor x, torch::Tensor weight, double eps)
{
    CHECK_INPUT(x);
    CHECK_INPUT(weight);
    TORCH_CHECK(weight.numel() == x.size(-1), "weight must have x.size(-1) elements");

    const at::cuda::OptionalCUDAGuard device_guard(device_of(x));
    auto stream = at::cuda::getCurrentCUDAStream();

    const int64_t cols = x.size(-1);
    const int64_t rows = x.numel() / cols;
    auto y = torch::empty_like(x);
    auto inv_rms = torch::empty({rows}, x.options().dtype(torch::kFloat32));

    if (x.scalar_type() == at::kBFloat16) {
        fused::launch_rmsnorm_forward<__hip_bfloat16>(
            cuda_ptr<at::BFloat16>(x), cuda_ptr<at::BFloat16>(weight), cuda_ptr<at::BFloat16>(y),
            inv_rms.data_ptr<float>(), rows, cols, static_cast<float>(eps), stream.stream());
    } else {
        AT_DISPATCH_FLOATING_TYPES_AND_HALF(x.scalar_type(), "rms_norm_forward", [&] {
            fused::launch_rmsnorm_forward<typename CudaType<scalar_t>::type>(
                cuda_ptr<scalar_t>(x), cuda_ptr<scalar_t>(weight), cuda_ptr<scalar_t>(y),
                inv_rms.data_ptr<float>(), rows, cols, static_cast<float>(eps), stream.stream());
        });
    }
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return {y, inv_rms};
}

}  // namespace

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)
{
    m.doc() = "Fused bias+GELU and RMSNorm CUDA kernels";
    m.def("bias_gelu", &bias_gelu, "gelu(x + bias), tanh approximation (CUDA)", py::arg("x"),
          py::arg("bias"));
    m.def("rms_norm", &rms_norm, "RMSNorm forward, returns (y, inv_rms) (CUDA)", py::arg("x"),
          py::arg("weight"), py::arg("eps") = 1e-6);
}
