// error checking shared by every sample (the role of NVIDIA's Common/helper_cuda.h)
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

template <typename T>
void check(T result, const char *what, const char *file, int line) {
  if (result) {
    fprintf(stderr, "CUDA error at %s:%d code=%d (%s) \"%s\"\n", file, line, static_cast<int>(result),
            cudaGetErrorString(result), what);
    exit(EXIT_FAILURE);
  }
}

#define checkCudaErrors(val) check((val), #val, __FILE__, __LINE__)

inline void getLastCudaError(const char *msg) {
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) {
    fprintf(stderr, "%s: %s\n", msg, cudaGetErrorString(err));
    exit(EXIT_FAILURE);
  }
}
