// ops.h - the device-side operations of the blas_rand sample.
#pragma once

#include <hip/hip_runtime.h>
#include <hipblas/hipblas.h>
#include <hip/hip_complex.h>

// ---- blas_ops.cu -----------------------------------------------------------
// C = alpha * A * B + beta * C, column-major, A is m x k, B is k x n.
void gemm(hipblasHandle_t handle, int m, int n, int k, float alpha, const float* A,
          const float* B, float beta, float* C);
// y = alpha * x + y, then returns dot(x, y).
float axpy_dot(hipblasHandle_t handle, int n, float alpha, const float* x, float* y);
// y = A * x for a CSR matrix (generic cuSPARSE SpMV).
void csr_spmv(hipStream_t stream, int rows, int cols, int nnz, const int* row_ptr,
              const int* col_idx, const float* values, const float* x, float* y);

// ---- rand_ops.cu -----------------------------------------------------------
// Fill d_out with n uniform floats in (0, 1] using the host generator API.
void fill_uniform(float* d_out, size_t n, unsigned long long seed, hipStream_t stream);
// Monte Carlo estimate of pi with per-thread device generators.
double estimate_pi(int blocks, int threads, int samples_per_thread, unsigned long long seed);
// out[i] = a[i] * b[i] + c[i] on complex vectors.
void complex_fma(const hipFloatComplex* a, const hipFloatComplex* b, const hipFloatComplex* c,
                 hipFloatComplex* out, int n, hipStream_t stream);
