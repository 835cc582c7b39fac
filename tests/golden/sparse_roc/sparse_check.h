// sparse_check.h - status checks for the CUDA runtime and cuSPARSE.
#ifndef SPARSE_ROC_SPARSE_CHECK_H
#define SPARSE_ROC_SPARSE_CHECK_H

#include <hip/hip_runtime.h>
#include <hipsparse/hipsparse.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                       \
    do {                                                                       \
        hipError_t err_ = (call);                                             \
        if (err_ != hipSuccess) {                                             \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                 \
                    hipGetErrorString(err_));                                 \
            exit(EXIT_FAILURE);                                                \
        }                                                                      \
    } while (0)

// Every cuSPARSE call returns a cusparseStatus_t; anything but
// CUSPARSE_STATUS_SUCCESS is fatal here.
static inline void sparse_check(hipsparseStatus_t status, const char* what, int line)
{
    if (status != HIPSPARSE_STATUS_SUCCESS) {
        fprintf(stderr, "line %d: %s: %s\n", line, what, hipsparseGetErrorString(status));
        exit(EXIT_FAILURE);
    }
}
#define CUSPARSE_CHECK(call) sparse_check((call), #call, __LINE__)

#endif  // SPARSE_ROC_SPARSE_CHECK_H
