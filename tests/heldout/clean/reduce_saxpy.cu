// Portable CUDA: grid-stride SAXPY and a shared-memory block reduction whose
// scratch array is sized from blockDim at launch.  No warp-width assumption.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

__global__ void saxpy(int n, float a, const float* x, float* y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        y[i] = a * x[i] + y[i];
}

// blockDim.x must be a power of two; dynamic shared memory holds blockDim.x floats.
__global__ void block_sum(const float* in, float* partial, int n)
{
    extern __shared__ float scratch[];
    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        v += in[i];
    scratch[threadIdx.x] = v;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) scratch[threadIdx.x] += scratch[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = scratch[0];
}

// 32-bit integer hashing: 0xffffffff here is a data mask and 16 a shift
// count, not a lane mask or a warp half.
__device__ unsigned int mix32(unsigned int h)
{
    h ^= h >> 16;
    h *= 0x7feb352dU;
    h ^= h >> 15;
    h *= 0x846ca68bU;
    h ^= h >> 16;
    return h & 0xffffffffU;
}

__global__ void popcount_hash(const unsigned int* keys, unsigned int* bits, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        unsigned int h = mix32(keys[i]);
        int lead = __clz(h);
        for (int offset = 16; offset > 0; offset >>= 1)
            h ^= h >> offset;
        bits[i] = __popc(h) + (lead % 32);
    }
}

int main()
{
    const int n = 1 << 20, threads = 256, blocks = 120;
    std::vector<float> hx(n, 1.0f), hy(n, 2.0f), hp(blocks);
    float *x, *y, *p;
    cudaMalloc(&x, n * sizeof(float));
    cudaMalloc(&y, n * sizeof(float));
    cudaMalloc(&p, blocks * sizeof(float));
    cudaMemcpy(x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(y, hy.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    saxpy<<<blocks, threads>>>(n, 3.0f, x, y);
    block_sum<<<blocks, threads, threads * sizeof(float)>>>(y, p, n);
    cudaMemcpy(hp.data(), p, blocks * sizeof(float), cudaMemcpyDeviceToHost);
    unsigned int *keys, *bits;
    cudaMalloc(&keys, n * sizeof(unsigned int));
    cudaMalloc(&bits, n * sizeof(unsigned int));
    cudaMemset(keys, 0x5a, n * sizeof(unsigned int));
    popcount_hash<<<blocks, threads>>>(keys, bits, n);
    cudaFree(keys);
    cudaFree(bits);
    double total = 0.0;
    for (float v : hp) total += v;
    printf("sum = %.1f (expect %.1f)\n", total, 5.0 * n);
    cudaFree(x);
    cudaFree(y);
    cudaFree(p);
    return total == 5.0 * n ? 0 : 1;
}
