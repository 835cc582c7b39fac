// Kernels that follow the hardware wave (warpSize, through wave_sum) and assume 32 lanes in
// the same breath: wrong on a 64-lane MI300X wave whatever the port keeps, so porter reports
// each 32-lane place as an error.
#include "common.cuh"

__global__ void row_sums(const float* in, float* out, int n)
{
    const int lane = threadIdx.x & 31;  // expect: PORT011(error)
    const int row = (blockIdx.x * blockDim.x + threadIdx.x) / warpSize;
    float v = row < n ? in[row * warpSize + (threadIdx.x % warpSize)] : 0.0f;
    v = wave_sum(v);
    if (lane == 0 && row < n) out[row] = v;
}

__global__ void last_lane(const int* in, int* out)
{
    const int lane = threadIdx.x % warpSize;
    int v = in[threadIdx.x];
    for (int d = 1; d < warpSize; d *= 2) {
        const int up = __shfl_up_sync(0xffffffff, v, d);
        if (lane >= d) v += up;
    }
    if (lane == 31) out[threadIdx.x / warpSize] = v;  // expect: PORT011(error)
}

__global__ void partials(const float* in, float* out)
{
    __shared__ float part[32];  // expect: PORT019(error)
    const int lane = threadIdx.x % warpSize;
    part[lane] = in[threadIdx.x];
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = part[0] + part[1];
}

__global__ void vote_count(const int* in, int* count)
{
    const int lane = threadIdx.x % warpSize;
    const unsigned hits = __ballot_sync(0xffffffff, in[threadIdx.x] > 0);  // expect: PORT023(error)
    const int below = __popc(hits & ((1u << lane) - 1));  // expect: PORT024(error), PORT025(error)
    if (lane == 0) atomicAdd(count, __popc(hits) + below * 0);  // expect: PORT024(error)
}

__global__ void groups(const int* key, int* out)
{
    const int lane = threadIdx.x % warpSize;
    unsigned peers;  // expect: PORT023(error)
    peers = __ballot_sync(0xffffffff, key[threadIdx.x] > 0);
    const int leader = __ffs(peers) - 1;  // expect: PORT024(error)
    if (lane == leader) out[key[threadIdx.x]] = __popc(peers);  // expect: PORT024(error)
}

// a warp-synchronous scan in shared memory: its steps stop at 16 (32 lanes), its lanes follow warpSize
__device__ int warp_scan(int v, volatile int* s)
{
    int i = 2 * threadIdx.x - (threadIdx.x & (warpSize - 1));
    s[i] = 0;
    i += warpSize;
    int t = s[i] = v;
    s[i] = t += s[i - 1];
    s[i] = t += s[i - 2];
    s[i] = t += s[i - 4];
    s[i] = t += s[i - 8];
    s[i] = t += s[i - 16];  // expect: PORT012(error)
    return s[i - 1];
}
