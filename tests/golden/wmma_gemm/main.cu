// main.cu - checks the tensor-core GEMM and the async-copy kernels against
// CPU references and reports their speed.
//
// Usage: wmma_gemm [M N K] [--reps R]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>

#include "gemm.h"

#define CUDA_OK(call)                                                             \
    do {                                                                          \
        hipError_t status = (call);                                              \
        if (status != hipSuccess) {                                              \
            fprintf(stderr, "%s:%d %s -> %s\n", __FILE__, __LINE__, #call,        \
                    hipGetErrorString(status));                                  \
            exit(EXIT_FAILURE);                                                   \
        }                                                                         \
    } while (0)

int main(int argc, char** argv)
{
    int dims[3] = {512, 512, 512};
    int reps = 20, nd = 0;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (nd < 3 && atoi(argv[i]) > 0) dims[nd++] = atoi(argv[i]);
        else { fprintf(stderr, "usage: %s [M N K] [--reps R]\n", argv[0]); return 2; }
    }
    const int M = dims[0], N = dims[1], K = dims[2];
    if (M % 16 || N % 16 || K % 16) {
        fprintf(stderr, "M, N and K must be multiples of 16\n");
        return 2;
    }

    hipDeviceProp_t prop;
    CUDA_OK(hipGetDeviceProperties(&prop, 0));
    const int cc = prop.major * 10 + prop.minor;
    printf("%s, compute capability %d.%d%s\n", prop.name, prop.major, prop.minor,
           cc < 70 ? " (no tensor cores: FMA fallback)" : "");
    if (cc < 80) printf("note: async copies run synchronously before sm_80\n");

    // ---- GEMM -------------------------------------------------------------
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<__half> hA((size_t)M * K), hB((size_t)K * N);
    std::vector<float> fA(hA.size()), fB(hB.size()), hC((size_t)M * N, 1.0f);
    for (size_t i = 0; i < hA.size(); ++i) { hA[i] = __float2half(dist(rng)); fA[i] = __half2float(hA[i]); }
    for (size_t i = 0; i < hB.size(); ++i) { hB[i] = __float2half(dist(rng)); fB[i] = __half2float(hB[i]); }

    __half *dA, *dB;
    float* dC;
    CUDA_OK(hipMalloc(&dA, hA.size() * sizeof(__half)));
    CUDA_OK(hipMalloc(&dB, hB.size() * sizeof(__half)));
    CUDA_OK(hipMalloc(&dC, hC.size() * sizeof(float)));
    CUDA_OK(hipMemcpy(dA, hA.data(), hA.size() * sizeof(__half), hipMemcpyHostToDevice));
    CUDA_OK(hipMemcpy(dB, hB.data(), hB.size() * sizeof(__half), hipMemcpyHostToDevice));
    CUDA_OK(hipMemcpy(dC, hC.data(), hC.size() * sizeof(float), hipMemcpyHostToDevice));

    const float alpha = 1.5f, beta = 0.5f;
    wmma_gemm(dA, dB, dC, M, N, K, alpha, beta, 0);
    std::vector<float> got(hC.size());
    CUDA_OK(hipMemcpy(got.data(), dC, got.size() * sizeof(float), hipMemcpyDeviceToHost));

    double worst = 0.0;
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            double acc = 0.0;
            for (int k = 0; k < K; ++k) acc += (double)fA[(size_t)i * K + k] * fB[(size_t)k * N + j];
            const double want = alpha * acc + beta * 1.0;
            worst = std::fmax(worst, std::fabs(want - got[(size_t)i * N + j]));
        }
    const bool gemm_ok = worst < 1e-2 * std::sqrt((double)K);
    printf("wmma GEMM %dx%dx%d: max abs error %.3e %s\n", M, N, K, worst, gemm_ok ? "ok" : "FAILED");

    hipEvent_t t0, t1;
    CUDA_OK(hipEventCreate(&t0));
    CUDA_OK(hipEventCreate(&t1));
    CUDA_OK(hipEventRecord(t0));
    for (int r = 0; r < reps; ++r) wmma_gemm(dA, dB, dC, M, N, K, 1.0f, 0.0f, 0);
    CUDA_OK(hipEventRecord(t1));
    CUDA_OK(hipEventSynchronize(t1));
    float ms = 0.0f;
    CUDA_OK(hipEventElapsedTime(&ms, t0, t1));
    printf("  %.3f ms per GEMM, %.1f TFLOP/s\n", ms / reps, 2.0 * M * N * K / (ms / reps * 1e9));

    // ---- async copies -----------------------------------------------------
    const int n = ASYNC_TILE * 4096;
    std::vector<float> in(n), out(n), want(n);
    for (auto& v : in) v = dist(rng);
    const float a = 0.25f;
    for (int i = 0; i < n; ++i) {
        const int base = i / ASYNC_TILE * ASYNC_TILE;
        want[i] = a * in[i] + in[base + (i - base + 1) % ASYNC_TILE];
    }
    float *din, *dout;
    CUDA_OK(hipMalloc(&din, n * sizeof(float)));
    CUDA_OK(hipMalloc(&dout, n * sizeof(float)));
    CUDA_OK(hipMemcpy(din, in.data(), n * sizeof(float), hipMemcpyHostToDevice));

    bool async_ok = true;
    for (CopyPath p : {CopyPath::Pipeline, CopyPath::PtxCpAsync, CopyPath::CudaMemcpyAsync}) {
        CUDA_OK(hipMemset(dout, 0, n * sizeof(float)));
        async_transform(p, din, dout, n, a, 0);
        CUDA_OK(hipMemcpy(out.data(), dout, n * sizeof(float), hipMemcpyDeviceToHost));
        int bad = 0;
        for (int i = 0; i < n; ++i) bad += std::fabs(out[i] - want[i]) > 1e-6f;
        printf("%-26s %s\n", copy_path_name(p), bad ? "FAILED" : "ok");
        async_ok &= bad == 0;
    }

    CUDA_OK(hipFree(dA)); CUDA_OK(hipFree(dB)); CUDA_OK(hipFree(dC));
    CUDA_OK(hipFree(din)); CUDA_OK(hipFree(dout));
    CUDA_OK(hipEventDestroy(t0)); CUDA_OK(hipEventDestroy(t1));
    return gemm_ok && async_ok ? 0 : 1;
}
