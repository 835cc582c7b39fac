#include "kernels.h"

__global__ void saxpy(int n, float a, const float* x, float* y)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

void launch_saxpy(int n, float a, const float* x, float* y)
{
    const int threads = 256;
    saxpy<<<(n + threads - 1) / threads, threads>>>(n, a, x, y);
}
