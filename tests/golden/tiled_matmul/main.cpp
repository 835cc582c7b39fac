// main.cpp - times the SGEMM kernels of matmul_kernels.cu with CUDA events
// and checks each result against a CPU reference.
//
//   tiled_matmul [M N K] [--tile 8|16|32] [--reps R] [--no-check]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "matmul.cuh"

static void cpu_matmul(const std::vector<float>& A, const std::vector<float>& B,
                       std::vector<float>& C, int M, int N, int K)
{
    // i-k-j order keeps the inner loop contiguous in B and C.
    std::fill(C.begin(), C.end(), 0.0f);
    for (int i = 0; i < M; ++i)
        for (int k = 0; k < K; ++k) {
            const float a = A[(size_t)i * K + k];
            for (int j = 0; j < N; ++j) C[(size_t)i * N + j] += a * B[(size_t)k * N + j];
        }
}

static double max_rel_error(const std::vector<float>& got, const std::vector<float>& want)
{
    double worst = 0.0;
    for (size_t i = 0; i < got.size(); ++i) {
        const double denom = std::fmax(1.0, std::fabs(want[i]));
        worst = std::fmax(worst, std::fabs(got[i] - want[i]) / denom);
    }
    return worst;
}

int main(int argc, char** argv)
{
    int M = 1024, N = 1024, K = 1024, tile = 32, reps = 10;
    bool check = true;
    int positional = 0;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--tile") && i + 1 < argc) tile = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--no-check")) check = false;
        else if (positional < 3 && atoi(argv[i]) > 0) {
            int v = atoi(argv[i]);
            (positional == 0 ? M : positional == 1 ? N : K) = v;
            ++positional;
        } else {
            fprintf(stderr, "usage: %s [M N K] [--tile 8|16|32] [--reps R] [--no-check]\n", argv[0]);
            return 2;
        }
    }
    if (tile != 8 && tile != 16 && tile != 32) {
        fprintf(stderr, "--tile must be 8, 16 or 32\n");
        return 2;
    }

    hipDeviceProp_t prop;
    CHECK_CUDA(hipGetDeviceProperties(&prop, 0));
    printf("%s, sm_%d%d, %zu KiB shared/block (opt-in %zu KiB)\n", prop.name, prop.major,
           prop.minor, prop.sharedMemPerBlock / 1024, prop.sharedMemPerBlockOptin / 1024);
    printf("C[%d x %d] = A[%d x %d] * B[%d x %d]\n", M, N, M, K, K, N);

    std::mt19937 rng(42);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> hA((size_t)M * K), hB((size_t)K * N), hC((size_t)M * N), ref;
    for (auto& v : hA) v = dist(rng);
    for (auto& v : hB) v = dist(rng);

    if (check) {
        ref.resize((size_t)M * N);
        auto t0 = std::chrono::steady_clock::now();
        cpu_matmul(hA, hB, ref, M, N, K);
        auto t1 = std::chrono::steady_clock::now();
        printf("CPU reference: %.1f ms\n", std::chrono::duration<double, std::milli>(t1 - t0).count());
    }

    float *dA, *dB, *dC;
    CHECK_CUDA(hipMalloc(&dA, hA.size() * sizeof(float)));
    CHECK_CUDA(hipMalloc(&dB, hB.size() * sizeof(float)));
    CHECK_CUDA(hipMalloc(&dC, hC.size() * sizeof(float)));
    CHECK_CUDA(hipMemcpy(dA, hA.data(), hA.size() * sizeof(float), hipMemcpyHostToDevice));
    CHECK_CUDA(hipMemcpy(dB, hB.data(), hB.size() * sizeof(float), hipMemcpyHostToDevice));

    configure_dynamic_smem(2 * tile * tile * sizeof(float));

    hipEvent_t start, stop;
    CHECK_CUDA(hipEventCreate(&start));
    CHECK_CUDA(hipEventCreate(&stop));

    bool all_ok = true;
    const Kernel kernels[] = {Kernel::Naive, Kernel::Tiled, Kernel::DynamicTiled,
                              Kernel::RegisterBlocked};
    for (Kernel k : kernels) {
        CHECK_CUDA(hipMemset(dC, 0, hC.size() * sizeof(float)));
        matmul(k, dA, dB, dC, M, N, K, tile);   // warm-up and correctness run
        CHECK_CUDA(hipMemcpy(hC.data(), dC, hC.size() * sizeof(float), hipMemcpyDeviceToHost));

        CHECK_CUDA(hipEventRecord(start));
        for (int r = 0; r < reps; ++r) matmul(k, dA, dB, dC, M, N, K, tile);
        CHECK_CUDA(hipEventRecord(stop));
        CHECK_CUDA(hipEventSynchronize(stop));
        float ms = 0.0f;
        CHECK_CUDA(hipEventElapsedTime(&ms, start, stop));
        ms /= reps;
        const double gflops = 2.0 * M * N * K / (ms * 1e6);

        printf("%-24s %8.3f ms  %8.1f GFLOP/s", kernel_name(k), ms, gflops);
        if (check) {
            const double err = max_rel_error(hC, ref);
            const bool ok = err < 1e-3;
            all_ok &= ok;
            printf("  max rel err %.2e %s", err, ok ? "ok" : "WRONG");
        }
        printf("\n");
    }

    CHECK_CUDA(hipEventDestroy(start));
    CHECK_CUDA(hipEventDestroy(stop));
    CHECK_CUDA(hipFree(dA));
    CHECK_CUDA(hipFree(dB));
    CHECK_CUDA(hipFree(dC));
    return all_ok ? 0 : 1;
}
