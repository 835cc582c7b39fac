// main.cu - device math that relies on the special values and constants of
// CUDA's math_constants.h (CUDART_INF_F, CUDART_NAN_F, CUDART_PI_F, ...), in
// float and double, checked on the host.
#include <hip/hip_runtime.h>
#include <hip/hip_math_constants.h>
#include <cmath>
#include <cstdio>
#include <vector>

#define CUDA_CHECK(call)                                                       \
    do {                                                                       \
        hipError_t err_ = (call);                                             \
        if (err_ != hipSuccess) {                                             \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                 \
                    hipGetErrorString(err_));                                 \
            return 1;                                                          \
        }                                                                      \
    } while (0)

// log that maps 0 to -inf and negative inputs to NaN explicitly, and wraps
// the phase of a complex number into [-pi, pi).
__device__ float safe_log(float x)
{
    if (x == 0.0f) return -HIP_INF_F;
    if (x < 0.0f) return HIP_NAN_F;
    return logf(x);
}

__device__ float wrap_phase(float a)
{
    float t = fmodf(a + HIP_PI_F, 2.0f * HIP_PI_F);
    if (t < 0.0f) t += 2.0f * HIP_PI_F;
    return t - HIP_PI_F;
}

__global__ void float_kernel(const float* in, float* log_out, float* phase_out, float* clamp_out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        log_out[i] = safe_log(in[i]);
        phase_out[i] = wrap_phase(in[i] * HIP_PIO2_F);
        // Saturate overflowing products to the largest finite float.
        float p = in[i] * 1e38f;
        clamp_out[i] = isinf(p) ? copysignf(HIP_MAX_NORMAL_F, p) : p;
    }
}

__global__ void double_kernel(const double* in, double* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double x = in[i];
        out[i] = x == 0.0 ? HIP_INF : (x < 0.0 ? HIP_NAN : HIP_PI / x);
    }
}

int main()
{
    const int n = 1024;
    std::vector<float> h_in(n);
    std::vector<double> h_din(n);
    for (int i = 0; i < n; ++i) {
        h_in[i] = (i - n / 2) * 0.25f;
        h_din[i] = (i - n / 2) * 0.125;
    }

    float *d_in, *d_log, *d_phase, *d_clamp;
    double *d_din, *d_dout;
    CUDA_CHECK(hipMalloc(&d_in, n * sizeof(float)));
    CUDA_CHECK(hipMalloc(&d_log, n * sizeof(float)));
    CUDA_CHECK(hipMalloc(&d_phase, n * sizeof(float)));
    CUDA_CHECK(hipMalloc(&d_clamp, n * sizeof(float)));
    CUDA_CHECK(hipMalloc(&d_din, n * sizeof(double)));
    CUDA_CHECK(hipMalloc(&d_dout, n * sizeof(double)));
    CUDA_CHECK(hipMemcpy(d_in, h_in.data(), n * sizeof(float), hipMemcpyHostToDevice));
    CUDA_CHECK(hipMemcpy(d_din, h_din.data(), n * sizeof(double), hipMemcpyHostToDevice));

    int block = 256, grid = (n + block - 1) / block;
    float_kernel<<<grid, block>>>(d_in, d_log, d_phase, d_clamp, n);
    double_kernel<<<grid, block>>>(d_din, d_dout, n);
    CUDA_CHECK(hipGetLastError());

    std::vector<float> h_log(n), h_phase(n), h_clamp(n);
    std::vector<double> h_dout(n);
    CUDA_CHECK(hipMemcpy(h_log.data(), d_log, n * sizeof(float), hipMemcpyDeviceToHost));
    CUDA_CHECK(hipMemcpy(h_phase.data(), d_phase, n * sizeof(float), hipMemcpyDeviceToHost));
    CUDA_CHECK(hipMemcpy(h_clamp.data(), d_clamp, n * sizeof(float), hipMemcpyDeviceToHost));
    CUDA_CHECK(hipMemcpy(h_dout.data(), d_dout, n * sizeof(double), hipMemcpyDeviceToHost));

    int bad = 0;
    for (int i = 0; i < n; ++i) {
        float x = h_in[i];
        if (x == 0.0f && !(std::isinf(h_log[i]) && h_log[i] < 0.0f)) ++bad;
        if (x < 0.0f && !std::isnan(h_log[i])) ++bad;
        if (x > 0.0f && std::fabs(h_log[i] - std::log(x)) > 1e-5f) ++bad;
        if (h_phase[i] < -3.1416f || h_phase[i] >= 3.1416f) ++bad;
        if (!std::isfinite(h_clamp[i])) ++bad;
        double d = h_din[i];
        if (d == 0.0 ? !std::isinf(h_dout[i]) : (d < 0.0 ? !std::isnan(h_dout[i]) : std::fabs(h_dout[i] - M_PI / d) > 1e-12))
            ++bad;
    }
    printf("%d of %d checks failed\n", bad, n);

    CUDA_CHECK(hipFree(d_in));
    CUDA_CHECK(hipFree(d_log));
    CUDA_CHECK(hipFree(d_phase));
    CUDA_CHECK(hipFree(d_clamp));
    CUDA_CHECK(hipFree(d_din));
    CUDA_CHECK(hipFree(d_dout));
    return bad == 0 ? 0 : 1;
}
