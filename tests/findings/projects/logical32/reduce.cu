// reduce.cu - block max over 32-lane logical warps (lane and warp ids mod 32, as on CUDA).
#include "shfl.cuh"

__device__ float warp_max(float v)
{
    for (int m = WARP_SIZE / 2; m > 0; m >>= 1)  // expect: PORT015(info)
        v = fmaxf(v, SHFL_XOR(v, m));
    return v;
}

__global__ void block_max(const float* in, float* out)
{
    __shared__ float partial[32];  // expect: PORT013(info)
    const int lane = threadIdx.x & 31;  // expect: PORT011(info)
    const int warp = threadIdx.x >> 5;  // expect: PORT011(info)
    float v = warp_max(in[blockIdx.x * blockDim.x + threadIdx.x]);
    if (lane == 0) partial[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = warp_max(lane < blockDim.x / WARP_SIZE ? partial[lane] : -1e30f);  // expect: PORT015(info)
        if (lane == 0) out[blockIdx.x] = v;
    }
}

void launch_max(const float* in, float* out, int n)
{
    dim3 block(WARP_SIZE, 8);  // expect: PORT016(info)
    block_max<<<n / 256, 256>>>(in, out);
    block_max<<<n / 256, block>>>(in, out);
}
