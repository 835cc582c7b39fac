// warp_utils.cuh - warp- and block-level building blocks used by the
// reduction, scan and compaction kernels in reduce_kernels.cu.
//
// Everything here assumes the classic 32-lane warp: lane and warp ids are
// derived with "& 31" and ">> 5", and the shuffle loops start at offset 16.
#pragma once

#include <hip/hip_runtime.h>
#include <cfloat>

#define WARP_SIZE 32
#define FULL_MASK 0xffffffffu
#define MAX_BLOCK_THREADS 1024

// Lane index inside the warp and warp index inside the block.
__device__ __forceinline__ int lane_id() { return threadIdx.x & 31; }
__device__ __forceinline__ int warp_id() { return threadIdx.x >> 5; }

// Tree reduction over the 32 lanes of a warp. After the loop lane 0 holds
// the sum of all lanes (the other lanes hold partial sums).
__device__ __forceinline__ float warpReduceSum(float v)
{
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(0xffffffff, v, offset);
    return v;
}

__device__ __forceinline__ int warpReduceSumInt(int v)
{
    for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2)
        v += __shfl_down_sync(FULL_MASK, v, offset);
    return v;
}

// Butterfly reduction: every lane ends up with the maximum, so no broadcast
// is needed afterwards.
__device__ __forceinline__ float warpAllReduceMax(float v)
{
    for (int mask = 16; mask >= 1; mask >>= 1)
        v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, mask));
    return v;
}

// Inclusive prefix sum across the warp (Hillis-Steele with __shfl_up_sync).
__device__ __forceinline__ float warpInclusiveScan(float v)
{
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int offset = 1; offset < WARP_SIZE; offset <<= 1) {
        float n = __shfl_up_sync(0xffffffff, v, offset);
        if (lane >= offset) v += n;
    }
    return v;
}

// Block-wide sum. Each warp reduces its values, lane 0 of every warp writes
// the partial to shared memory, and the first warp reduces the partials.
// The result is valid in thread 0 only.
__device__ __forceinline__ float blockReduceSum(float v)
{
    __shared__ float partial[32];   // one slot per warp (1024 / 32)
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;

    v = warpReduceSum(v);
    if (lane == 0) partial[warp] = v;
    __syncthreads();

    const int nwarps = (blockDim.x + WARP_SIZE - 1) / WARP_SIZE;
    v = (threadIdx.x < nwarps) ? partial[lane] : 0.0f;
    if (warp == 0) v = warpReduceSum(v);
    return v;
}

// Block-wide max, same structure as blockReduceSum but every thread of
// warp 0 gets the answer thanks to the xor butterfly.
__device__ __forceinline__ float blockReduceMax(float v)
{
    __shared__ float partialMax[WARP_SIZE];
    const int lane = lane_id();
    const int warp = warp_id();

    v = warpAllReduceMax(v);
    if (lane == 0) partialMax[warp] = v;
    __syncthreads();

    const int nwarps = blockDim.x / WARP_SIZE;
    v = (lane < nwarps) ? partialMax[lane] : -FLT_MAX;
    if (warp == 0) v = warpAllReduceMax(v);
    return v;
}

// Atomic max for non-negative and negative floats alike (CUDA has no native
// float atomicMax). Uses the usual compare-and-swap loop on the bit pattern.
__device__ __forceinline__ float atomicMaxFloat(float* addr, float value)
{
    int* as_int = reinterpret_cast<int*>(addr);
    int old = *as_int, assumed;
    do {
        assumed = old;
        if (__int_as_float(assumed) >= value) break;
        old = atomicCAS(as_int, assumed, __float_as_int(value));
    } while (assumed != old);
    return __int_as_float(old);
}
