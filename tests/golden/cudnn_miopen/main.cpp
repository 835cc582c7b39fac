// main.cpp - a small cuDNN forward pass: 3x3 convolution (with a workspace),
// ReLU activation and a per-pixel softmax over the channels, checked against
// a CPU reference. Host-only C++; the fill kernel is in fill.cu.
#include <cmath>
#include <cstdio>
#include <vector>

#include "checks.h"

struct Shape {
    int n, c, h, w;
    int count() const { return n * c * h * w; }
};

// The layout and data type of every tensor and filter in this sample.
static const miopenTensorLayout_t kFormat = miopenTensorNCHW;
static const miopenDataType_t kType = miopenFloat;

static miopenTensorDescriptor_t make_tensor(const Shape& s)
{
    miopenTensorDescriptor_t desc;
    CUDNN_CHECK(miopenCreateTensorDescriptor(&desc));
    CUDNN_CHECK(cudnnSetTensor4dDescriptor(desc, kFormat, kType, s.n, s.c, s.h, s.w));
    return desc;
}

// conv (cross-correlation, zero padding) -> ReLU -> softmax over channels.
static void reference(const std::vector<float>& x, const Shape& xs, const std::vector<float>& w,
                      int k, int r, int pad, std::vector<float>& out)
{
    out.assign(xs.n * k * xs.h * xs.w, 0.0f);
    for (int n = 0; n < xs.n; ++n)
        for (int o = 0; o < k; ++o)
            for (int y = 0; y < xs.h; ++y)
                for (int xx = 0; xx < xs.w; ++xx) {
                    float acc = 0.0f;
                    for (int c = 0; c < xs.c; ++c)
                        for (int i = 0; i < r; ++i)
                            for (int j = 0; j < r; ++j) {
                                int iy = y + i - pad, ix = xx + j - pad;
                                if (iy < 0 || iy >= xs.h || ix < 0 || ix >= xs.w) continue;
                                acc += x[((n * xs.c + c) * xs.h + iy) * xs.w + ix] *
                                       w[((o * xs.c + c) * r + i) * r + j];
                            }
                    out[((n * k + o) * xs.h + y) * xs.w + xx] = acc > 0.0f ? acc : 0.0f;
                }
    for (int n = 0; n < xs.n; ++n)
        for (int p = 0; p < xs.h * xs.w; ++p) {
            float mx = -INFINITY, sum = 0.0f;
            for (int o = 0; o < k; ++o) mx = std::fmax(mx, out[(n * k + o) * xs.h * xs.w + p]);
            for (int o = 0; o < k; ++o) sum += std::exp(out[(n * k + o) * xs.h * xs.w + p] - mx);
            for (int o = 0; o < k; ++o) {
                float& v = out[(n * k + o) * xs.h * xs.w + p];
                v = std::exp(v - mx) / sum;
            }
        }
}

int main()
{
    const Shape xs = {2, 3, 16, 16};
    const int K = 8, R = 3, pad = 1;

    hipStream_t stream;
    CUDA_CHECK(hipStreamCreate(&stream));
    miopenHandle_t handle;
    CUDNN_CHECK(miopenCreate(&handle));
    CUDNN_CHECK(miopenSetStream(handle, stream));

    miopenTensorDescriptor_t x_desc = make_tensor(xs);
    miopenTensorDescriptor_t w_desc;
    CUDNN_CHECK(cudnnCreateFilterDescriptor(&w_desc));
    CUDNN_CHECK(cudnnSetFilter4dDescriptor(w_desc, kType, kFormat, K, xs.c, R, R));

    miopenConvolutionDescriptor_t conv_desc;
    CUDNN_CHECK(miopenCreateConvolutionDescriptor(&conv_desc));
    const miopenConvolutionMode_t conv_mode = miopenConvolution;
    CUDNN_CHECK(cudnnSetConvolution2dDescriptor(conv_desc, pad, pad, 1, 1, 1, 1, conv_mode, kType));
    Shape ys;
    CUDNN_CHECK(miopenGetConvolutionForwardOutputDim(conv_desc, x_desc, w_desc, &ys.n, &ys.c, &ys.h, &ys.w));
    miopenTensorDescriptor_t y_desc = make_tensor(ys);

    float *d_x, *d_w, *d_y, *d_p;
    CUDA_CHECK(hipMalloc(&d_x, xs.count() * sizeof(float)));
    CUDA_CHECK(hipMalloc(&d_w, K * xs.c * R * R * sizeof(float)));
    CUDA_CHECK(hipMalloc(&d_y, ys.count() * sizeof(float)));
    CUDA_CHECK(hipMalloc(&d_p, ys.count() * sizeof(float)));
    fill_uniform(d_x, xs.count(), 1234u, stream);
    fill_uniform(d_w, K * xs.c * R * R, 99u, stream);

    // Convolution with an explicit algorithm and the workspace it asks for.
    const miopenConvFwdAlgorithm_t algo = miopenConvolutionFwdAlgoImplicitGEMM;
    size_t ws_bytes = 0;
    CUDNN_CHECK(miopenConvolutionForwardGetWorkSpaceSize(handle, x_desc, w_desc, conv_desc, y_desc, algo, &ws_bytes));
    void* d_ws = nullptr;
    if (ws_bytes > 0) {
        CUDA_CHECK(hipMalloc(&d_ws, ws_bytes));
    }
    const float one = 1.0f, zero = 0.0f;
    CUDNN_CHECK(miopenConvolutionForward(handle, &one, x_desc, d_x, w_desc, d_w, conv_desc, algo, d_ws, ws_bytes,
                                        &zero, y_desc, d_y));

    // ReLU in place.
    miopenActivationDescriptor_t act_desc;
    CUDNN_CHECK(miopenCreateActivationDescriptor(&act_desc));
    const miopenActivationMode_t act_mode = miopenActivationRELU;
    const miopenNanPropagation_t nan_opt = MIOPEN_NOT_PROPAGATE_NAN;
    CUDNN_CHECK(cudnnSetActivationDescriptor(act_desc, act_mode, nan_opt, 0.0));
    CUDNN_CHECK(miopenActivationForward(handle, act_desc, &one, y_desc, d_y, &zero, y_desc, d_y));

    // Softmax over the channels of each pixel.
    const miopenSoftmaxAlgorithm_t sm_algo = MIOPEN_SOFTMAX_ACCURATE;
    const miopenSoftmaxMode_t sm_mode = MIOPEN_SOFTMAX_MODE_CHANNEL;
    CUDNN_CHECK(miopenSoftmaxForward_V2(handle, &one, y_desc, d_y, &zero, y_desc, d_p, sm_algo, sm_mode));

    std::vector<float> h_x(xs.count()), h_w(K * xs.c * R * R), h_p(ys.count()), ref;
    CUDA_CHECK(hipMemcpyAsync(h_x.data(), d_x, h_x.size() * sizeof(float), hipMemcpyDeviceToHost, stream));
    CUDA_CHECK(hipMemcpyAsync(h_w.data(), d_w, h_w.size() * sizeof(float), hipMemcpyDeviceToHost, stream));
    CUDA_CHECK(hipMemcpyAsync(h_p.data(), d_p, h_p.size() * sizeof(float), hipMemcpyDeviceToHost, stream));
    CUDA_CHECK(hipStreamSynchronize(stream));
    reference(h_x, xs, h_w, K, R, pad, ref);
    int bad = 0;
    for (size_t i = 0; i < ref.size(); ++i) {
        if (std::fabs(ref[i] - h_p[i]) > 1e-4f) {
            ++bad;
        }
    }
    printf("output %dx%dx%dx%d, workspace %zu bytes, %d of %zu wrong\n", ys.n, ys.c, ys.h, ys.w, ws_bytes,
           bad, ref.size());

    CUDNN_CHECK(miopenDestroyActivationDescriptor(act_desc));
    CUDNN_CHECK(miopenDestroyConvolutionDescriptor(conv_desc));
    CUDNN_CHECK(cudnnDestroyFilterDescriptor(w_desc));
    CUDNN_CHECK(miopenDestroyTensorDescriptor(y_desc));
    CUDNN_CHECK(miopenDestroyTensorDescriptor(x_desc));
    CUDNN_CHECK(miopenDestroy(handle));
    CUDA_CHECK(hipFree(d_ws));
    CUDA_CHECK(hipFree(d_p));
    CUDA_CHECK(hipFree(d_y));
    CUDA_CHECK(hipFree(d_w));
    CUDA_CHECK(hipFree(d_x));
    CUDA_CHECK(hipStreamDestroy(stream));
    return bad == 0 ? 0 : 1;
}
