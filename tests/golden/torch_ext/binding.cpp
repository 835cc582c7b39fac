// binding.cpp - PyTorch bindings for the fused kernels in kernels.cu.
//
//   import fused_ops
//   y = fused_ops.bias_gelu(x, bias)          # x: [..., C], bias: [C]
//   y, inv_rms = fused_ops.rms_norm(x, w, 1e-6)
//   grad_x, grad_bias = fused_ops.bias_gelu_backward(grad_out, x, bias, True)
//   grad_x, grad_w = fused_ops.rms_norm_backward(grad_y, x, w, inv_rms, True)
// fused_train.py wraps each forward/backward pair in a torch.autograd.Function.
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

// Returns (grad_x, grad_bias); grad_bias is undefined (None) unless need_bias_grad.
std::vector<torch::Tensor> bias_gelu_backward(torch::Tensor grad_out, torch::Tensor x, torch::Tensor bias,
                                              bool need_bias_grad)
{
    CHECK_INPUT(grad_out);
    CHECK_INPUT(x);
    CHECK_INPUT(bias);
    TORCH_CHECK(grad_out.sizes() == x.sizes(), "grad_out must have x's shape");
    TORCH_CHECK(bias.dim() == 1 && bias.size(0) == x.size(-1), "bias must have shape [x.size(-1)]");
    TORCH_CHECK(bias.scalar_type() == x.scalar_type() && grad_out.scalar_type() == x.scalar_type(),
                "grad_out, x and bias must have the same dtype");

    const at::cuda::OptionalCUDAGuard device_guard(device_of(x));
    hipStream_t stream = at::cuda::getCurrentCUDAStream();

    auto grad_x = torch::empty_like(x);
    const int64_t cols = x.size(-1);
    const int64_t rows = x.numel() / cols;
    torch::Tensor grad_b32;
    if (need_bias_grad) grad_b32 = torch::empty({cols}, x.options().dtype(torch::kFloat32));
    float* gb = need_bias_grad ? grad_b32.data_ptr<float>() : nullptr;

    if (x.scalar_type() == at::kBFloat16) {
        fused::launch_bias_gelu_backward<__hip_bfloat16>(
            cuda_ptr<at::BFloat16>(grad_out), cuda_ptr<at::BFloat16>(x), cuda_ptr<at::BFloat16>(bias),
            cuda_ptr<at::BFloat16>(grad_x), gb, rows, cols, stream);
    } else {
        AT_DISPATCH_FLOATING_TYPES_AND_HALF(x.scalar_type(), "bias_gelu_backward", [&] {
            fused::launch_bias_gelu_backward<typename CudaType<scalar_t>::type>(
                cuda_ptr<scalar_t>(grad_out), cuda_ptr<scalar_t>(x), cuda_ptr<scalar_t>(bias),
                cuda_ptr<scalar_t>(grad_x), gb, rows, cols, stream);
        });
    }
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return {grad_x, need_bias_grad ? grad_b32.to(bias.scalar_type()) : torch::Tensor()};
}

// Returns (grad_x, grad_weight); grad_weight is undefined (None) unless need_weight_grad.
std::vector<torch::Tensor> rms_norm_backward(torch::Tensor grad_y, torch::Tensor x, torch::Tensor weight,
                                             torch::Tensor inv_rms, bool need_weight_grad)
{
    CHECK_INPUT(grad_y);
    CHECK_INPUT(x);
    CHECK_INPUT(weight);
    CHECK_INPUT(inv_rms);
    TORCH_CHECK(grad_y.sizes() == x.sizes(), "grad_y must have x's shape");
    TORCH_CHECK(weight.numel() == x.size(-1), "weight must have x.size(-1) elements");
    TORCH_CHECK(grad_y.scalar_type() == x.scalar_type() && weight.scalar_type() == x.scalar_type(),
                "grad_y, x and weight must have the same dtype");
    TORCH_CHECK(inv_rms.scalar_type() == torch::kFloat32 && inv_rms.numel() * x.size(-1) == x.numel(),
                "inv_rms must be the float32 [rows] tensor rms_norm returned");

    const at::cuda::OptionalCUDAGuard device_guard(device_of(x));
    auto stream = at::cuda::getCurrentCUDAStream();

    const int64_t cols = x.size(-1);
    const int64_t rows = x.numel() / cols;
    auto grad_x = torch::empty_like(x);
    torch::Tensor grad_w32;
    if (need_weight_grad) grad_w32 = torch::empty({cols}, x.options().dtype(torch::kFloat32));
    float* gw = need_weight_grad ? grad_w32.data_ptr<float>() : nullptr;

    if (x.scalar_type() == at::kBFloat16) {
        fused::launch_rmsnorm_backward<__hip_bfloat16>(
            cuda_ptr<at::BFloat16>(grad_y), cuda_ptr<at::BFloat16>(x), cuda_ptr<at::BFloat16>(weight),
            inv_rms.data_ptr<float>(), cuda_ptr<at::BFloat16>(grad_x), gw, rows, cols, stream.stream());
    } else {
        AT_DISPATCH_FLOATING_TYPES_AND_HALF(x.scalar_type(), "rms_norm_backward", [&] {
            fused::launch_rmsnorm_backward<typename CudaType<scalar_t>::type>(
                cuda_ptr<scalar_t>(grad_y), cuda_ptr<scalar_t>(x), cuda_ptr<scalar_t>(weight),
                inv_rms.data_ptr<float>(), cuda_ptr<scalar_t>(grad_x), gw, rows, cols, stream.stream());
        });
    }
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return {grad_x, need_weight_grad ? grad_w32.to(weight.scalar_type()).reshape(weight.sizes()) : torch::Tensor()};
}

}  // namespace

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)
{
    m.doc() = "Fused bias+GELU and RMSNorm CUDA kernels, forward and backward";
    m.def("bias_gelu", &bias_gelu, "gelu(x + bias), tanh approximation (CUDA)", py::arg("x"),
          py::arg("bias"));
    m.def("rms_norm", &rms_norm, "RMSNorm forward, returns (y, inv_rms) (CUDA)", py::arg("x"),
          py::arg("weight"), py::arg("eps") = 1e-6);
    m.def("bias_gelu_backward", &bias_gelu_backward,
          "backward of bias_gelu, returns (grad_x, grad_bias or None) (CUDA)", py::arg("grad_out"),
          py::arg("x"), py::arg("bias"), py::arg("need_bias_grad") = true);
    m.def("rms_norm_backward", &rms_norm_backward,
          "backward of rms_norm from its inv_rms, returns (grad_x, grad_weight or None) (CUDA)",
          py::arg("grad_y"), py::arg("x"), py::arg("weight"), py::arg("inv_rms"),
          py::arg("need_weight_grad") = true);
}
