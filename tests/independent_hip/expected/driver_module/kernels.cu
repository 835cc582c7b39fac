// kernels.cu - built into a module and launched through the driver API (see main.cpp).
// Build: nvcc -cubin -arch=sm_80 kernels.cu -o kernels.cubin
#include <hip/hip_runtime.h>

extern "C" __global__ void scale_add(float* y, const float* x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

extern "C" __global__ void fill(float* y, float v, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] = v;
}
