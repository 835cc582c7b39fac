// fill.cu - a small kernel that fills the network's input and weights.
#include <hip/hip_runtime.h>

#include "checks.h"

__global__ void fill_uniform_kernel(float* data, int count, unsigned int seed)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) {
        unsigned int h = (i + 1) * 2654435761u ^ seed;
        h ^= h >> 13;
        h *= 0x5bd1e995u;
        h ^= h >> 15;
        data[i] = (h & 0xffffff) / 8388608.0f - 1.0f;
    }
}

void fill_uniform(float* d_data, int count, unsigned int seed, hipStream_t stream)
{
    int block = 256;
    int grid = (count + block - 1) / block;
    fill_uniform_kernel<<<grid, block, 0, stream>>>(d_data, count, seed);
    CUDA_CHECK(hipGetLastError());
}
