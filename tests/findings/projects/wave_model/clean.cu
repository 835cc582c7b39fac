// Wave-agnostic code: every width from warpSize, every mask 64 bits where it is kept.
// Nothing here assumes 32 lanes: no warp-size finding.
#include "common.cuh"

__global__ void dot(const float* a, const float* b, float* out, int n)
{
    float acc = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) acc += a[i] * b[i];
    acc = wave_sum(acc);
    if (threadIdx.x % warpSize == 0) atomicAdd(out, acc);
}

__global__ void compact(const int* in, int* out, int* count)
{
    const int lane = threadIdx.x % warpSize;
    const bool keep = in[threadIdx.x] > 0;
    const unsigned long long bits = __ballot_sync(0xffffffff, keep);
    int base = 0;
    if (lane == 0) base = atomicAdd(count, __popcll(bits));
    base = __shfl_sync(0xffffffff, base, 0);
    if (keep) out[base + __popcll(bits & ((1ull << lane) - 1))] = in[threadIdx.x];
}
