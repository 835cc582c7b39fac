// Kernels that keep 32-lane logical warps throughout: consistent on MI300X once every warp
// primitive is 32 lanes wide (porter's fixes make them so); their 32s are reported, not as errors.
#include "common.cuh"
#include "widths.h"

__global__ void tile_sums(const float* in, float* out)
{
    const int lane = threadIdx.x % WS;  // expect: PORT015
    const int warp = threadIdx.x / WS;  // expect: PORT015
    const float v = group_sum(in[threadIdx.x]);
    if (lane == WS - 1) out[warp] = v;  // expect: PORT015
}

__global__ void scan32(int* data)
{
    const int lane = threadIdx.x & 0x1f;  // expect: PORT011
    int v = data[threadIdx.x];
    for (int d = 1; d < 32; d *= 2) {  // width 32 below: consistent, no PORT014
        const int up = __shfl_up_sync(0xffffffff, v, d, 32);
        if (lane >= d) v += up;
    }
    if (lane == 31) data[threadIdx.x] = v;  // expect: PORT011
    const unsigned below = (1u << (lane)) - 1;  // expect: PORT025
    data[threadIdx.x] += __popc(below) * 0;
}

__global__ void groups(const float* in, float* out)
{
    const int member = threadIdx.x % GROUP;  // expect: PORT015
    const float v = __shfl_sync(0xffffffff, in[threadIdx.x], 0);
    out[threadIdx.x] = member == 0 ? v * ROWS : v;
}

// the same warp-synchronous scan with 32-lane lanes throughout: consistent, no PORT012
__device__ int warp_scan32(int v, volatile int* s)
{
    int i = 2 * threadIdx.x - (threadIdx.x & 31);  // expect: PORT011
    s[i] = 0;
    i += 32;
    int t = s[i] = v;
    s[i] = t += s[i - 1];
    s[i] = t += s[i - 2];
    s[i] = t += s[i - 4];
    s[i] = t += s[i - 8];
    s[i] = t += s[i - 16];
    return s[i - 1];
}
