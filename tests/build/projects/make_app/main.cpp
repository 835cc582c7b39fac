// host code only: nvcc compiles a .cpp file as plain C++ for the host
#include <cstdio>
#include <cuda_runtime.h>
#include "kernels.cuh"

int main() {
    const int n = 1024;
    float* d = nullptr;
    cudaStream_t s;
    if (cudaMalloc(&d, n * sizeof(float)) != cudaSuccess) return 1;
    cudaStreamCreate(&s);
    cudaMemsetAsync(d, 0, n * sizeof(float), s);
    launch_scale(d, 2.0f, n, s);
    cudaError_t err = cudaStreamSynchronize(s);
    cudaStreamDestroy(s);
    cudaFree(d);
    std::printf("%s\n", cudaGetErrorString(err));
    return err == cudaSuccess ? 0 : 1;
}
