// kernels.cuh - declarations of the pipeline kernels (defined in kernels.cu).
#pragma once

#include <hip/hip_runtime.h>

// Number of polynomial coefficients kept in __constant__ memory.
#define NUM_COEFFS 8

// Upload the polynomial coefficients (highest power first) to constant memory.
void set_coefficients(const float* coeffs, int count);

// y[i] = alpha * poly(x[i]) + y[i] for one chunk, on the given stream.
template <typename T>
void launch_poly_axpy(const T* x, T* y, T alpha, int n, hipStream_t stream);

// In-place scaling used by the second stage of the pipeline.
void launch_scale(float* data, float factor, int n, hipStream_t stream);

// Busy kernel used to show overlap between streams in the timeline.
void launch_spin(float* data, int n, int iterations, hipStream_t stream);
