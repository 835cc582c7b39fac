// timing.cu - clock64-based micro-benchmarks.
#include <hip/hip_runtime.h>
#include <cstdio>
#include <vector>

#include "bitops.h"
#include "ptx_intrinsics.cuh"

#define TIMING_CHECK(x)                                                       \
    do {                                                                      \
        hipError_t e_ = (x);                                                 \
        if (e_ != hipSuccess) {                                              \
            fprintf(stderr, "timing.cu:%d %s\n", __LINE__, hipGetErrorString(e_)); \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

__global__ void fma_latency_kernel(float* sink, int iters, WarpSample* samples)
{
    float x = threadIdx.x * 1e-3f;
    const float y = 1.0001f, z = 1e-7f;

    // Keep the compiler from moving the clock reads across the loop.
    asm volatile("" ::: "memory");
    const unsigned long long t0 = clock64();
    for (int k = 0; k < iters; ++k) x = fmaf(x, y, z);   // dependent chain
    asm volatile("" ::: "memory");
    const unsigned long long t1 = ptx::clock64_ptx();

    sink[blockIdx.x * blockDim.x + threadIdx.x] = x;   // defeat dead-code elimination
    if (ptx::lane_id() == 0) {
        const int w = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
        samples[w].sm = ptx::sm_id();
        samples[w].hw_warp = ptx::hw_warp_id();
        samples[w].start = t0;
        samples[w].stop = t1;
    }
}

__global__ void sleep_kernel(unsigned ns, unsigned long long* cycles)
{
    const unsigned long long t0 = clock64();
    ptx::sleep_ns(ns);
    const unsigned long long t1 = clock64();
    *cycles = t1 - t0;
}

double measure_fma_latency(int blocks, int threads, int iters, WarpSample* h_samples)
{
    const int nthreads = blocks * threads;
    const int nwarps = nthreads / 32;
    float* d_sink;
    WarpSample* d_samples;
    TIMING_CHECK(hipMalloc(&d_sink, nthreads * sizeof(float)));
    TIMING_CHECK(hipMalloc(&d_samples, nwarps * sizeof(WarpSample)));

    fma_latency_kernel<<<blocks, threads>>>(d_sink, iters, d_samples);
    TIMING_CHECK(hipGetLastError());
    TIMING_CHECK(hipMemcpy(h_samples, d_samples, nwarps * sizeof(WarpSample), hipMemcpyDeviceToHost));
    TIMING_CHECK(hipFree(d_sink));
    TIMING_CHECK(hipFree(d_samples));

    double total = 0.0;
    for (int w = 0; w < nwarps; ++w) total += (double)(h_samples[w].stop - h_samples[w].start);
    return total / nwarps / iters;
}

double measure_sleep_cycles(unsigned ns)
{
    unsigned long long* d_cycles;
    unsigned long long cycles = 0;
    TIMING_CHECK(hipMalloc(&d_cycles, sizeof(cycles)));
    sleep_kernel<<<1, 1>>>(ns, d_cycles);
    TIMING_CHECK(hipGetLastError());
    TIMING_CHECK(hipMemcpy(&cycles, d_cycles, sizeof(cycles), hipMemcpyDeviceToHost));
    TIMING_CHECK(hipFree(d_cycles));
    return (double)cycles;
}
