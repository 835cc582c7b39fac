#pragma once
#include <cuda_runtime.h>

// scales n floats on the device, on stream s
void launch_scale(float* x, float a, int n, cudaStream_t s);
