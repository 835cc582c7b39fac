// compact.cu - the same width-32 shuffle macro, but a ballot votes across the warp: on a
// 64-lane wave it returns 64 bits, so 32-lane ids no longer match it and the warp-size
// findings stay warnings.
#include "shfl.cuh"

__global__ void compact(const float* in, float* out, int* count)
{
    const int lane = threadIdx.x & 31;  // expect: PORT011
    const float v = in[blockIdx.x * blockDim.x + threadIdx.x];
    const unsigned keep = __ballot_sync(0xffffffffu, v > 0.0f);
    const int rank = __popc(keep & ((1u << lane) - 1));
    float m = v;
    for (int o = WARP_SIZE / 2; o > 0; o >>= 1)  // expect: PORT015
        m = fmaxf(m, SHFL_XOR(m, o));
    if (v > 0.0f) out[blockIdx.x * blockDim.x + rank] = m;
    if (lane == 0) atomicAdd(count, __popc(keep));
}

int main()
{
    float *in = nullptr, *out = nullptr;
    int* count = nullptr;
    if (cudaMalloc(&in, 1024 * sizeof(float)) != cudaSuccess) return 0;
    cudaMalloc(&out, 1024 * sizeof(float));
    cudaMalloc(&count, sizeof(int));
    compact<<<4, 256>>>(in, out, count);
    cudaDeviceSynchronize();
    return 0;
}
