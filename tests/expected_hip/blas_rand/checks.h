// checks.h - error-checking macros for the CUDA runtime and the cuBLAS,
// cuRAND and cuSPARSE libraries used by the blas_rand sample.
#pragma once

#include <cstdio>
#include <cstdlib>

#include <hip/hip_runtime.h>
#include <hipblas/hipblas.h>
#include <hiprand/hiprand.h>
#include <hipsparse/hipsparse.h>

#define CUDA_CHECK(call)                                                      \
    do {                                                                      \
        hipError_t e_ = (call);                                              \
        if (e_ != hipSuccess) {                                              \
            fprintf(stderr, "%s:%d: CUDA error: %s\n", __FILE__, __LINE__,    \
                    hipGetErrorString(e_));                                  \
            std::exit(EXIT_FAILURE);                                          \
        }                                                                     \
    } while (0)

// cuBLAS has no cudaGetErrorString equivalent in older releases, so keep a
// small table of the statuses we are likely to see.
inline const char* cublas_status_name(hipblasStatus_t s)
{
    switch (s) {
    case HIPBLAS_STATUS_SUCCESS:          return "CUBLAS_STATUS_SUCCESS";
    case HIPBLAS_STATUS_NOT_INITIALIZED:  return "CUBLAS_STATUS_NOT_INITIALIZED";
    case HIPBLAS_STATUS_ALLOC_FAILED:     return "CUBLAS_STATUS_ALLOC_FAILED";
    case HIPBLAS_STATUS_INVALID_VALUE:    return "CUBLAS_STATUS_INVALID_VALUE";
    case HIPBLAS_STATUS_ARCH_MISMATCH:    return "CUBLAS_STATUS_ARCH_MISMATCH";
    case HIPBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case HIPBLAS_STATUS_INTERNAL_ERROR:   return "CUBLAS_STATUS_INTERNAL_ERROR";
    case HIPBLAS_STATUS_NOT_SUPPORTED:    return "CUBLAS_STATUS_NOT_SUPPORTED";
    default:                             return "unknown cublasStatus_t";
    }
}

#define CUBLAS_CHECK(call)                                                    \
    do {                                                                      \
        hipblasStatus_t s_ = (call);                                           \
        if (s_ != HIPBLAS_STATUS_SUCCESS) {                                    \
            fprintf(stderr, "%s:%d: cuBLAS call %s returned %s\n", __FILE__,  \
                    __LINE__, #call, cublas_status_name(s_));                 \
            std::exit(EXIT_FAILURE);                                          \
        }                                                                     \
    } while (0)

#define CURAND_CHECK(call)                                                    \
    do {                                                                      \
        hiprandStatus_t s_ = (call);                                           \
        if (s_ != HIPRAND_STATUS_SUCCESS) {                                    \
            fprintf(stderr, "%s:%d: cuRAND error %d\n", __FILE__, __LINE__,   \
                    (int)s_);                                                 \
            std::exit(EXIT_FAILURE);                                          \
        }                                                                     \
    } while (0)

#define CUSPARSE_CHECK(call)                                                  \
    do {                                                                      \
        hipsparseStatus_t s_ = (call);                                         \
        if (s_ != HIPSPARSE_STATUS_SUCCESS) {                                  \
            fprintf(stderr, "%s:%d: cuSPARSE error: %s\n", __FILE__,          \
                    __LINE__, hipsparseGetErrorString(s_));                    \
            std::exit(EXIT_FAILURE);                                          \
        }                                                                     \
    } while (0)
