// reduce_kernels.h - host-side entry points for the warp-level kernels.
// All launchers are asynchronous with respect to the host; call
// cudaDeviceSynchronize (or synchronize the stream) before reading results.
#pragma once

#include <hip/hip_runtime.h>

// Sum and max of n floats. d_sum and d_max must be zero / -FLT_MAX initialised
// by the caller because the kernels accumulate with atomics.
void launch_reduce(const float* d_in, int n, float* d_sum, float* d_max,
                   int threads, hipStream_t stream);

// Inclusive prefix sum of n floats into d_out. d_block_sums needs room for
// one float per block (ceil(n / threads)).
void launch_inclusive_scan(const float* d_in, float* d_out, float* d_block_sums,
                           int n, int threads, hipStream_t stream);

// Stream compaction: copy the elements greater than threshold to d_out,
// preserving order inside each warp. *d_count receives the number kept.
void launch_compact(const float* d_in, int n, float threshold,
                    float* d_out, int* d_count, int threads, hipStream_t stream);

// Count values above threshold with warp-aggregated atomics.
void launch_count_above(const float* d_in, int n, float threshold,
                        int* d_count, int threads, hipStream_t stream);
