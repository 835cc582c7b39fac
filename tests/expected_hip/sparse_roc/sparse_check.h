// sparse_check.h - status checks for the CUDA runtime and cuSPARSE.
#ifndef SPARSE_ROC_SPARSE_CHECK_H
#define SPARSE_ROC_SPARSE_CHECK_H

#include <hip/hip_runtime.h>
#include <rocsparse/rocsparse.h>
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
static inline void sparse_check(rocsparse_status status, const char* what, int line)
{
    if (status != rocsparse_status_success) {
        fprintf(stderr, "line %d: %s: %s\n", line, what, rocsparse_get_status_description(status));
        exit(EXIT_FAILURE);
    }
}
#define CUSPARSE_CHECK(call) sparse_check((call), #call, __LINE__)

#endif  // SPARSE_ROC_SPARSE_CHECK_H
