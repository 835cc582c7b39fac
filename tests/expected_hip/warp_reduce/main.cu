// main.cu - driver for the warp-level reduction demo.
//
// Usage: warp_reduce [-n elements] [-t threads_per_block] [-s seed]
//                    [-i iterations] [--threshold x] [-v]
//
// Fills a buffer with pseudo-random values, runs the reduction, scan,
// compaction and counting kernels, and checks every result against a
// straightforward CPU implementation.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <hip/hip_runtime.h>

#include "reduce_kernels.h"

#define CUDA_CHECK(call)                                                       \
    do {                                                                       \
        hipError_t err_ = (call);                                             \
        if (err_ != hipSuccess) {                                             \
            fprintf(stderr, "CUDA error %s at %s:%d: %s\n", #call, __FILE__,   \
                    __LINE__, hipGetErrorString(err_));                       \
            exit(EXIT_FAILURE);                                                \
        }                                                                      \
    } while (0)

struct Options {
    int n = 1 << 20;
    int threads = 256;
    unsigned seed = 1234;
    int iterations = 10;
    float threshold = 0.25f;
    bool verbose = false;
};

static void usage(const char* prog)
{
    printf("usage: %s [-n elements] [-t threads] [-s seed] [-i iterations]"
           " [--threshold x] [-v]\n", prog);
}

static bool parse_args(int argc, char** argv, Options& opt)
{
    for (int i = 1; i < argc; ++i) {
        const char* a = argv[i];
        auto next = [&](void) -> const char* {
            if (i + 1 >= argc) { fprintf(stderr, "missing value for %s\n", a); exit(2); }
            return argv[++i];
        };
        if (!strcmp(a, "-n")) opt.n = atoi(next());
        else if (!strcmp(a, "-t")) opt.threads = atoi(next());
        else if (!strcmp(a, "-s")) opt.seed = (unsigned)strtoul(next(), nullptr, 10);
        else if (!strcmp(a, "-i")) opt.iterations = atoi(next());
        else if (!strcmp(a, "--threshold")) opt.threshold = (float)atof(next());
        else if (!strcmp(a, "-v")) opt.verbose = true;
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(argv[0]); exit(0); }
        else { fprintf(stderr, "unknown option %s\n", a); return false; }
    }
    // The block primitives keep one shared slot per warp, so the block size
    // must be a multiple of 32 and at most 1024.
    if (opt.n <= 0 || opt.threads < 32 || opt.threads > 1024 || opt.threads % 32 != 0) {
        fprintf(stderr, "need n > 0 and threads a multiple of 32 in [32, 1024]\n");
        return false;
    }
    return true;
}

// Values are multiples of 1/16 in [-0.5, 0.5], so float sums stay exact and
// the GPU and CPU results can be compared tightly despite reordering.
static void fill_input(std::vector<float>& h, unsigned seed)
{
    srand(seed);
    for (auto& v : h) v = (float)(rand() % 17) / 16.0f - 0.5f;
}

static bool check_close(const char* what, double got, double want, double tol)
{
    const double err = fabs(got - want);
    const bool ok = err <= tol * std::max(1.0, fabs(want));
    printf("  %-10s gpu=%-14.6f cpu=%-14.6f %s\n", what, got, want, ok ? "OK" : "MISMATCH");
    return ok;
}

int main(int argc, char** argv)
{
    Options opt;
    if (!parse_args(argc, argv, opt)) { usage(argv[0]); return 2; }

    int device = 0;
    CUDA_CHECK(hipSetDevice(device));
    hipDeviceProp_t prop;
    CUDA_CHECK(hipGetDeviceProperties(&prop, device));
    printf("device %d: %s, warpSize=%d, %d SMs\n", device, prop.name, prop.warpSize,
           prop.multiProcessorCount);
    if (prop.warpSize != 32)
        printf("warning: kernels assume 32-lane warps\n");

    const int n = opt.n;
    const size_t bytes = (size_t)n * sizeof(float);
    std::vector<float> h_in(n);
    fill_input(h_in, opt.seed);

    float *d_in = nullptr, *d_scan = nullptr, *d_block_sums = nullptr, *d_compact = nullptr;
    float *d_sum = nullptr, *d_max = nullptr;
    int *d_count = nullptr, *d_count2 = nullptr;
    const int nblocks = (n + opt.threads - 1) / opt.threads;

    CUDA_CHECK(hipMalloc(&d_in, bytes));
    CUDA_CHECK(hipMalloc(&d_scan, bytes));
    CUDA_CHECK(hipMalloc(&d_compact, bytes));
    CUDA_CHECK(hipMalloc(&d_block_sums, nblocks * sizeof(float)));
    CUDA_CHECK(hipMalloc(&d_sum, sizeof(float)));
    CUDA_CHECK(hipMalloc(&d_max, sizeof(float)));
    CUDA_CHECK(hipMalloc(&d_count, sizeof(int)));
    CUDA_CHECK(hipMalloc(&d_count2, sizeof(int)));
    CUDA_CHECK(hipMemcpy(d_in, h_in.data(), bytes, hipMemcpyHostToDevice));

    hipStream_t stream;
    CUDA_CHECK(hipStreamCreate(&stream));
    hipEvent_t start, stop;
    CUDA_CHECK(hipEventCreate(&start));
    CUDA_CHECK(hipEventCreate(&stop));

    // Reset the accumulators before every run: the kernels use atomics.
    const float neg_inf = -FLT_MAX;
    auto reset = [&]() {
        CUDA_CHECK(hipMemsetAsync(d_sum, 0, sizeof(float), stream));
        CUDA_CHECK(hipMemcpyAsync(d_max, &neg_inf, sizeof(float), hipMemcpyHostToDevice, stream));
        CUDA_CHECK(hipMemsetAsync(d_count, 0, sizeof(int), stream));
        CUDA_CHECK(hipMemsetAsync(d_count2, 0, sizeof(int), stream));
    };

    float total_ms = 0.0f;
    for (int it = 0; it < opt.iterations; ++it) {
        reset();
        CUDA_CHECK(hipEventRecord(start, stream));
        launch_reduce(d_in, n, d_sum, d_max, opt.threads, stream);
        launch_inclusive_scan(d_in, d_scan, d_block_sums, n, opt.threads, stream);
        launch_compact(d_in, n, opt.threshold, d_compact, d_count, opt.threads, stream);
        launch_count_above(d_in, n, opt.threshold, d_count2, opt.threads, stream);
        CUDA_CHECK(hipEventRecord(stop, stream));
        CUDA_CHECK(hipEventSynchronize(stop));
        float ms = 0.0f;
        CUDA_CHECK(hipEventElapsedTime(&ms, start, stop));
        if (it > 0) total_ms += ms;   // first iteration is warm-up
        if (opt.verbose) printf("iteration %d: %.3f ms\n", it, ms);
    }
    if (opt.iterations > 1)
        printf("average over %d iterations: %.3f ms (%.2f GB/s read)\n",
               opt.iterations - 1, total_ms / (opt.iterations - 1),
               4.0 * bytes / (total_ms / (opt.iterations - 1)) / 1e6);

    // cudaMemcpy below is synchronous, so no explicit stream sync is needed.
    float h_sum = 0.0f, h_max = 0.0f;
    int h_count = 0, h_count2 = 0;
    std::vector<float> h_scan(n), h_compact(n);
    CUDA_CHECK(hipMemcpy(&h_sum, d_sum, sizeof(float), hipMemcpyDeviceToHost));
    CUDA_CHECK(hipMemcpy(&h_max, d_max, sizeof(float), hipMemcpyDeviceToHost));
    CUDA_CHECK(hipMemcpy(&h_count, d_count, sizeof(int), hipMemcpyDeviceToHost));
    CUDA_CHECK(hipMemcpy(&h_count2, d_count2, sizeof(int), hipMemcpyDeviceToHost));
    CUDA_CHECK(hipMemcpy(h_scan.data(), d_scan, bytes, hipMemcpyDeviceToHost));
    CUDA_CHECK(hipMemcpy(h_compact.data(), d_compact, bytes, hipMemcpyDeviceToHost));

    // ---- CPU reference ----
    double ref_sum = 0.0;
    float ref_max = -FLT_MAX;
    std::vector<float> ref_scan(n), ref_kept;
    for (int i = 0; i < n; ++i) {
        ref_sum += h_in[i];
        ref_max = std::max(ref_max, h_in[i]);
        ref_scan[i] = (float)ref_sum;
        if (h_in[i] > opt.threshold) ref_kept.push_back(h_in[i]);
    }

    printf("results for n=%d, %d threads/block:\n", n, opt.threads);
    bool ok = true;
    ok &= check_close("sum", h_sum, ref_sum, 1e-5);
    ok &= check_close("max", h_max, ref_max, 0.0);

    int scan_bad = 0;
    for (int i = 0; i < n; ++i)
        if (fabsf(h_scan[i] - ref_scan[i]) > 1e-3f * std::max(1.0f, fabsf(ref_scan[i]))) {
            if (scan_bad++ < 5)
                printf("  scan[%d] = %f, expected %f\n", i, h_scan[i], ref_scan[i]);
        }
    printf("  %-10s %d mismatches %s\n", "scan", scan_bad, scan_bad ? "MISMATCH" : "OK");
    ok &= scan_bad == 0;

    // Compaction keeps warp-local order only, so compare as multisets.
    bool compact_ok = h_count == (int)ref_kept.size();
    if (compact_ok) {
        std::vector<float> got(h_compact.begin(), h_compact.begin() + h_count);
        std::sort(got.begin(), got.end());
        std::sort(ref_kept.begin(), ref_kept.end());
        compact_ok = got == ref_kept;
    }
    printf("  %-10s kept %d of %d (expected %zu) %s\n", "compact", h_count, n,
           ref_kept.size(), compact_ok ? "OK" : "MISMATCH");
    ok &= compact_ok;

    const bool count_ok = h_count2 == (int)ref_kept.size();
    printf("  %-10s %d %s\n", "count", h_count2, count_ok ? "OK" : "MISMATCH");
    ok &= count_ok;

    CUDA_CHECK(hipEventDestroy(start));
    CUDA_CHECK(hipEventDestroy(stop));
    CUDA_CHECK(hipStreamDestroy(stream));
    hipFree(d_in);
    hipFree(d_scan);
    hipFree(d_compact);
    hipFree(d_block_sums);
    hipFree(d_sum);
    hipFree(d_max);
    hipFree(d_count);
    hipFree(d_count2);

    printf(ok ? "PASSED\n" : "FAILED\n");
    return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
