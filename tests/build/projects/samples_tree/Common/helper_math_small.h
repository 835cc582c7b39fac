// small host/device helpers shared by the samples
#pragma once

__host__ __device__ inline int divUp(int a, int b) { return (a + b - 1) / b; }
