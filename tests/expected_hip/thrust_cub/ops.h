// ops.h - Thrust and CUB based operations used by main.cu.
#pragma once

#include <cstddef>
#include <hip/hip_runtime.h>

// ---- thrust_ops.cu ----
// Sort the (key, value) pairs by key on `stream`; returns the sum of squares
// of the values computed with transform_reduce.
double thrust_sort_and_norm(int* d_keys, float* d_values, int n, hipStream_t stream);
// Sum of a * x[i] + y[i] computed with thrust::transform followed by reduce.
float thrust_saxpy_sum(const float* h_x, const float* h_y, float a, int n);
// Histogram of keys in [0, bins) with sort + reduce_by_key.
void thrust_histogram(const int* h_keys, int n, int bins, int* h_counts);

// ---- cub_ops.cu ----
// Device-wide sum with the two-phase temporary-storage idiom.
float cub_sum(const float* d_in, int n, hipStream_t stream);
// Exclusive prefix sum of ints.
void cub_exclusive_scan(const int* d_in, int* d_out, int n, hipStream_t stream);
// One partial sum per block (BlockReduce) and one per warp (WarpReduce).
void cub_block_sums(const float* d_in, float* d_block_out, int n, int* blocks_out, hipStream_t stream);
void cub_warp_max(const int* d_in, int* d_warp_out, int n, int* warps_out, hipStream_t stream);
