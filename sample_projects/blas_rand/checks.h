// checks.h - error-checking macros for the CUDA runtime and the cuBLAS,
// cuRAND and cuSPARSE libraries used by the blas_rand sample.
#pragma once

#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <curand.h>
#include <cusparse.h>

#define CUDA_CHECK(call)                                                      \
    do {                                                                      \
        cudaError_t e_ = (call);                                              \
        if (e_ != cudaSuccess) {                                              \
            fprintf(stderr, "%s:%d: CUDA error: %s\n", __FILE__, __LINE__,    \
                    cudaGetErrorString(e_));                                  \
            std::exit(EXIT_FAILURE);                                          \
        }                                                                     \
    } while (0)

// cuBLAS has no cudaGetErrorString equivalent in older releases, so keep a
// small table of the statuses we are likely to see.
inline const char* cublas_status_name(cublasStatus_t s)
{
    switch (s) {
    case CUBLAS_STATUS_SUCCESS:          return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED:  return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED:     return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE:    return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH:    return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR:   return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED:    return "CUBLAS_STATUS_NOT_SUPPORTED";
    default:                             return "unknown cublasStatus_t";
    }
}

#define CUBLAS_CHECK(call)                                                    \
    do {                                                                      \
        cublasStatus_t s_ = (call);                                           \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                    \
            fprintf(stderr, "%s:%d: cuBLAS call %s returned %s\n", __FILE__,  \
                    __LINE__, #call, cublas_status_name(s_));                 \
            std::exit(EXIT_FAILURE);                                          \
        }                                                                     \
    } while (0)

#define CURAND_CHECK(call)                                                    \
    do {                                                                      \
        curandStatus_t s_ = (call);                                           \
        if (s_ != CURAND_STATUS_SUCCESS) {                                    \
            fprintf(stderr, "%s:%d: cuRAND error %d\n", __FILE__, __LINE__,   \
                    (int)s_);                                                 \
            std::exit(EXIT_FAILURE);                                          \
        }                                                                     \
    } while (0)

#define CUSPARSE_CHECK(call)                                                  \
    do {                                                                      \
        cusparseStatus_t s_ = (call);                                         \
        if (s_ != CUSPARSE_STATUS_SUCCESS) {                                  \
            fprintf(stderr, "%s:%d: cuSPARSE error: %s\n", __FILE__,          \
                    __LINE__, cusparseGetErrorString(s_));                    \
            std::exit(EXIT_FAILURE);                                          \
        }                                                                     \
    } while (0)
