#pragma once
#include <cuda_runtime.h>

// y[i] = a * x[i] + y[i], one thread per element
__global__ void saxpy(int n, float a, const float* x, float* y);
void launch_saxpy(int n, float a, const float* x, float* y);
