// kernels.h - raw-pointer launchers for the fused kernels in kernels.cu (forward and backward).
//
// This header is included both by kernels.cu (nvcc) and by binding.cpp (the
// host compiler used by torch.utils.cpp_extension), so it must stay free of
// device code and of any torch include.
#pragma once

#include <cstdint>
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#include <hip/hip_bf16.h>

namespace fused {

// out[r, c] = gelu(x[r, c] + bias[c]) with the tanh approximation.
// T is float, double, __half or __nv_bfloat16.
template <typename T>
void launch_bias_gelu(const T* x, const T* bias, T* out, int64_t rows, int64_t cols,
                      hipStream_t stream);

// grad_x[r, c] = grad_out[r, c] * gelu'(x[r, c] + bias[c]) (derivative of the tanh form);
// grad_bias[c] = sum_r(grad_out[r, c] * gelu'(x[r, c] + bias[c]))   (float; skipped when nullptr)
template <typename T>
void launch_bias_gelu_backward(const T* grad_out, const T* x, const T* bias, T* grad_x, float* grad_bias,
                               int64_t rows, int64_t cols, hipStream_t stream);

// Vectorised half2 path; cols must be even and the pointers 4-byte aligned.
void launch_bias_gelu_half2(const __half* x, const __half* bias, __half* out, int64_t rows,
                            int64_t cols, hipStream_t stream);

// y[r, :] = x[r, :] / sqrt(mean(x[r, :]^2) + eps) * weight[:]
// Accumulates in float regardless of T. One block per row.
template <typename T>
void launch_rmsnorm_forward(const T* x, const T* weight, T* y, float* inv_rms, int64_t rows,
                            int64_t cols, float eps, hipStream_t stream);

// Backward of launch_rmsnorm_forward, from the inv_rms it saved:
//   grad_x[r, c] = inv_rms[r] * weight[c] * grad_y[r, c]
//                  - x[r, c] * inv_rms[r]^3 / cols * sum_k(grad_y[r, k] * weight[k] * x[r, k])
//   grad_weight[c] = sum_r(grad_y[r, c] * x[r, c] * inv_rms[r])   (float; skipped when nullptr)
template <typename T>
void launch_rmsnorm_backward(const T* grad_y, const T* x, const T* weight, const float* inv_rms, T* grad_x,
                             float* grad_weight, int64_t rows, int64_t cols, hipStream_t stream);

}  // namespace fused
