// main.cu - exercises the Thrust and CUB wrappers and checks each result
// against a host computation.
//
// Usage: thrust_cub [n] [--bins B]
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include <hip/hip_runtime.h>

#include "ops.h"

#define CHECK(call)                                                              \
    do {                                                                         \
        hipError_t e = (call);                                                  \
        if (e != hipSuccess) {                                                  \
            fprintf(stderr, "CUDA failure '%s' at line %d: %s\n", #call, __LINE__, \
                    hipGetErrorString(e));                                      \
            return EXIT_FAILURE;                                                 \
        }                                                                        \
    } while (0)

static int failures = 0;

static void expect(bool ok, const char* what)
{
    printf("[%s] %s\n", ok ? " OK " : "FAIL", what);
    if (!ok) ++failures;
}

int main(int argc, char** argv)
{
    int n = 1 << 20;
    int bins = 64;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--bins") && i + 1 < argc) bins = atoi(argv[++i]);
        else if (atoi(argv[i]) > 0) n = atoi(argv[i]);
        else { fprintf(stderr, "usage: %s [n] [--bins B]\n", argv[0]); return 2; }
    }
    if (bins <= 0) { fprintf(stderr, "--bins must be positive\n"); return 2; }

    std::mt19937 gen(7);
    std::uniform_real_distribution<float> uni(-1.0f, 1.0f);
    std::uniform_int_distribution<int> key_dist(0, bins - 1);
    std::vector<float> x(n), y(n);
    std::vector<int> keys(n), ints(n);
    for (int i = 0; i < n; ++i) {
        x[i] = uni(gen);
        y[i] = uni(gen);
        keys[i] = key_dist(gen);
        ints[i] = (int)(gen() % 1000) - 500;
    }

    hipStream_t stream;
    CHECK(hipStreamCreateWithFlags(&stream, hipStreamNonBlocking));

    // ---- Thrust: transform + reduce ----
    {
        const float a = 2.5f;
        const float got = thrust_saxpy_sum(x.data(), y.data(), a, n);
        double want = 0.0;
        for (int i = 0; i < n; ++i) want += a * x[i] + y[i];
        expect(std::fabs(got - want) < 1e-2 * std::max(1.0, std::fabs(want)),
               "thrust::transform + thrust::reduce (saxpy sum)");
    }

    // ---- Thrust: sort_by_key on a stream ----
    {
        int* d_keys = nullptr;
        float* d_vals = nullptr;
        CHECK(hipMalloc(&d_keys, n * sizeof(int)));
        CHECK(hipMalloc(&d_vals, n * sizeof(float)));
        CHECK(hipMemcpyAsync(d_keys, keys.data(), n * sizeof(int), hipMemcpyHostToDevice, stream));
        CHECK(hipMemcpyAsync(d_vals, x.data(), n * sizeof(float), hipMemcpyHostToDevice, stream));
        const double norm = thrust_sort_and_norm(d_keys, d_vals, n, stream);

        std::vector<int> sorted(n);
        CHECK(hipMemcpyAsync(sorted.data(), d_keys, n * sizeof(int), hipMemcpyDeviceToHost, stream));
        CHECK(hipStreamSynchronize(stream));
        double want = 0.0;
        for (float v : x) want += v > 0.0f ? (double)v * v : 0.0;
        expect(std::is_sorted(sorted.begin(), sorted.end()), "thrust::sort_by_key keys sorted");
        expect(std::fabs(norm - want) < 1e-6 * want, "thrust::transform_reduce on par.on(stream)");
        CHECK(hipFree(d_keys));
        CHECK(hipFree(d_vals));
    }

    // ---- Thrust: histogram ----
    {
        std::vector<int> counts(bins), want(bins, 0);
        thrust_histogram(keys.data(), n, bins, counts.data());
        for (int k : keys) ++want[k];
        expect(counts == want, "thrust::reduce_by_key histogram");
    }

    // ---- CUB ----
    float* d_x = nullptr;
    int *d_ints = nullptr, *d_scan = nullptr;
    CHECK(hipMalloc(&d_x, n * sizeof(float)));
    CHECK(hipMalloc(&d_ints, n * sizeof(int)));
    CHECK(hipMalloc(&d_scan, n * sizeof(int)));
    CHECK(hipMemcpy(d_x, x.data(), n * sizeof(float), hipMemcpyHostToDevice));
    CHECK(hipMemcpy(d_ints, ints.data(), n * sizeof(int), hipMemcpyHostToDevice));

    const double host_sum = std::accumulate(x.begin(), x.end(), 0.0);
    double abs_sum = 0.0;
    for (float v : x) abs_sum += std::fabs(v);
    const float dev_sum = cub_sum(d_x, n, stream);
    // float accumulation in a different order: allow a few ulps of sum(|x|)
    expect(std::fabs(dev_sum - host_sum) < 1e-6 * abs_sum + 1e-3, "cub::DeviceReduce::Sum");

    cub_exclusive_scan(d_ints, d_scan, n, stream);
    std::vector<int> scan(n);
    CHECK(hipMemcpyAsync(scan.data(), d_scan, n * sizeof(int), hipMemcpyDeviceToHost, stream));
    CHECK(hipStreamSynchronize(stream));
    bool scan_ok = true;
    for (int i = 0, run = 0; i < n; run += ints[i], ++i) scan_ok &= scan[i] == run;
    expect(scan_ok, "cub::DeviceScan::ExclusiveSum");

    const int tile = 256 * 4;
    const int max_blocks = (n + tile - 1) / tile;
    float* d_block = nullptr;
    CHECK(hipMalloc(&d_block, max_blocks * sizeof(float)));
    int blocks = 0;
    cub_block_sums(d_x, d_block, n, &blocks, stream);
    std::vector<float> block(blocks);
    CHECK(hipMemcpyAsync(block.data(), d_block, blocks * sizeof(float), hipMemcpyDeviceToHost, stream));
    CHECK(hipStreamSynchronize(stream));
    bool block_ok = true;
    for (int b = 0; b < blocks; ++b) {
        double s = 0.0;
        for (int i = b * tile; i < std::min(n, (b + 1) * tile); ++i) s += x[i];
        block_ok &= std::fabs(block[b] - s) < 1e-3;
    }
    expect(block_ok, "cub::BlockReduce per-block sums");

    const int max_warps = (n + 255) / 256 * 8;
    int* d_warp = nullptr;
    CHECK(hipMalloc(&d_warp, max_warps * sizeof(int)));
    int warps = 0;
    cub_warp_max(d_ints, d_warp, n, &warps, stream);
    std::vector<int> wmax(warps);
    CHECK(hipMemcpyAsync(wmax.data(), d_warp, warps * sizeof(int), hipMemcpyDeviceToHost, stream));
    CHECK(hipStreamSynchronize(stream));
    bool warp_ok = true;
    for (int w = 0; w < warps; ++w) {
        int m = INT_MIN;
        for (int i = w * 32; i < std::min(n, (w + 1) * 32); ++i) m = std::max(m, ints[i]);
        warp_ok &= wmax[w] == m;
    }
    expect(warp_ok, "cub::WarpReduce per-warp max");

    CHECK(hipFree(d_x));
    CHECK(hipFree(d_ints));
    CHECK(hipFree(d_scan));
    CHECK(hipFree(d_block));
    CHECK(hipFree(d_warp));
    CHECK(hipStreamDestroy(stream));

    printf("%d failure(s)\n", failures);
    return failures ? EXIT_FAILURE : EXIT_SUCCESS;
}
