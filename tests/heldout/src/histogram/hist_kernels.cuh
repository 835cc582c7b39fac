// hist_kernels.cuh - device helpers for the histogram sample.
// No cuda_runtime.h here on purpose: nvcc pre-includes it for .cu files.
#pragma once
#include <cstdint>

#define HIST_BINS 256

// Float max via an atomicCAS loop: CUDA has no native atomicMax for float.
__device__ inline float atomic_max_float(float* addr, float value)
{
    int* as_int = reinterpret_cast<int*>(addr);
    int old = *as_int;
    int assumed;
    do {
        assumed = old;
        if (__int_as_float(assumed) >= value) break;
        old = atomicCAS(as_int, assumed, __float_as_int(value));
    } while (assumed != old);
    return __int_as_float(old);
}

__device__ inline float atomic_min_float(float* addr, float value)
{
    unsigned int* as_uint = reinterpret_cast<unsigned int*>(addr);
    unsigned int old = *as_uint, assumed;
    do {
        assumed = old;
        if (__uint_as_float(assumed) <= value) break;
        old = atomicCAS(as_uint, assumed, __float_as_uint(value));
    } while (assumed != old);
    return __uint_as_float(old);
}

__device__ __forceinline__ int bin_of(float v, float lo, float inv_width)
{
    int b = __float2int_rd((v - lo) * inv_width);
    return b < 0 ? 0 : (b >= HIST_BINS ? HIST_BINS - 1 : b);
}
