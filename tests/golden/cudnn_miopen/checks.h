// checks.h - error checking for the CUDA runtime and cuDNN calls of the
// cudnn_miopen sample.
#ifndef CUDNN_MIOPEN_CHECKS_H
#define CUDNN_MIOPEN_CHECKS_H

#include <hip/hip_runtime.h>
#include <miopen/miopen.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                       \
    do {                                                                       \
        hipError_t err_ = (call);                                             \
        if (err_ != hipSuccess) {                                             \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,      \
                    hipGetErrorString(err_));                                 \
            exit(EXIT_FAILURE);                                                \
        }                                                                      \
    } while (0)

// e.g. CUDNN_CHECK(cudnnCreate(&handle)); prints cudnnGetErrorString's text.
#define CUDNN_CHECK(call)                                                      \
    do {                                                                       \
        miopenStatus_t st_ = (call);                                            \
        if (st_ != miopenStatusSuccess) {                                     \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,      \
                    miopenGetErrorString(st_));                                 \
            exit(EXIT_FAILURE);                                                \
        }                                                                      \
    } while (0)

// fill.cu: deterministic pseudo-random values in [-1, 1) on the device.
void fill_uniform(float* d_data, int count, unsigned int seed, hipStream_t stream);

#endif  // CUDNN_MIOPEN_CHECKS_H
