// warp.cuh - the warp width as the CUDA code base names it.
#pragma once
#include <cuda_runtime.h>

#define WARP_SIZE 32  // expect: PORT010
#define LANE_MASK (WARP_SIZE - 1)
constexpr int kTileN = 8 * WARP_SIZE;

// Sum over the 32 lanes of a warp; lane 0 holds the result.
__device__ __forceinline__ float warp_sum(float v)
{
    for (int o = WARP_SIZE / 2; o > 0; o >>= 1)  // expect: PORT015
        v += __shfl_down_sync(0xffffffff, v, o);
    return v;
}
