// drv_check.h - error checking for CUDA driver API calls.
#ifndef DRIVER_API_DRV_CHECK_H
#define DRIVER_API_DRV_CHECK_H

#include <cuda.h>
#include <cstdio>
#include <cstdlib>

// Abort with the call, file and line when a driver call does not return
// CUDA_SUCCESS, e.g. DRV_CHECK(cuInit(0));
#define DRV_CHECK(call)                                                        \
    do {                                                                       \
        CUresult res_ = (call);                                                \
        if (res_ != CUDA_SUCCESS) {                                            \
            const char* msg_ = nullptr;                                        \
            cuGetErrorString(res_, &msg_);                                     \
            fprintf(stderr, "%s:%d: %s failed: %s (%d)\n", __FILE__, __LINE__, \
                    #call, msg_ ? msg_ : "unknown error", (int)res_);          \
            exit(EXIT_FAILURE);                                                \
        }                                                                      \
    } while (0)

// The same check for code that wants to handle the error itself.
static inline bool drv_ok(CUresult res, const char* what)
{
    if (res == CUDA_SUCCESS) {
        return true;
    }
    const char* msg = nullptr;
    cuGetErrorString(res, &msg);
    fprintf(stderr, "%s: %s\n", what, msg ? msg : "unknown error");
    return false;
}

#endif  // DRIVER_API_DRV_CHECK_H
