// Helpers shared by the kernels of this project.  Written from CUDA semantics: warpSize is
// the built-in warp width (32 on NVIDIA GPUs; 64 on gfx942, HIP Programming Guide), and a
// loop from warpSize / 2 reduces a whole warp, whatever its width.
#pragma once
#include <cuda_runtime.h>

static const int WS = 32; // warp size  expect: PORT010

// the native wave: offsets follow warpSize
__device__ __forceinline__ float wave_sum(float v)
{
    for (int i = warpSize / 2; i > 0; i /= 2) v += __shfl_down_sync(0xffffffff, v, i);
    return v;
}

// 32-lane logical warps: the width comes from WS
__device__ __forceinline__ float group_sum(float v)
{
    for (int o = WS / 2; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffff, v, o, WS);  // expect: PORT015
    return v;
}
