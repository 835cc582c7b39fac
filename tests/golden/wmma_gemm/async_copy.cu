// async_copy.cu - three ways to stage global memory into shared memory
// asynchronously (sm_80+ does the copy in hardware, bypassing registers):
//   1. the cuda_pipeline.h primitives (__pipeline_memcpy_async & co.),
//   2. hand-written cp.async inline PTX,
//   3. cuda::memcpy_async with a block-scoped cuda::barrier.
// Every kernel double-buffers: tile t+1 is in flight while tile t is used.
#include <hip/hip_runtime.h>
#include <cstdio>
#include <hip/hip_cooperative_groups.h>
#include <cuda/barrier>
#include <cuda_pipeline.h>

#include "gemm.h"

namespace cg = cooperative_groups;

__device__ __forceinline__ float combine(const float* tile, int t, float alpha)
{
    return alpha * tile[t] + tile[(t + 1) % ASYNC_TILE];
}

// ---- 1. pipeline primitives ------------------------------------------------
__global__ void pipeline_kernel(const float* __restrict__ in, float* __restrict__ out, int ntiles,
                                float alpha)
{
    __shared__ float buf[2][ASYNC_TILE];
    const int t = threadIdx.x;
    int tile = blockIdx.x;
    if (tile >= ntiles) return;

    __pipeline_memcpy_async(&buf[0][t], &in[(size_t)tile * ASYNC_TILE + t], sizeof(float));
    __pipeline_commit();

    for (int stage = 0; tile < ntiles; tile += gridDim.x, stage ^= 1) {
        const int next = tile + gridDim.x;
        if (next < ntiles) {
            __pipeline_memcpy_async(&buf[stage ^ 1][t], &in[(size_t)next * ASYNC_TILE + t],
                                    sizeof(float));
            __pipeline_commit();
            __pipeline_wait_prior(1);   // everything but the newest batch is done
        } else {
            __pipeline_wait_prior(0);
        }
        __syncthreads();
        out[(size_t)tile * ASYNC_TILE + t] = combine(buf[stage], t, alpha);
        __syncthreads();   // buffer is refilled in the next iteration
    }
}

// ---- 2. raw cp.async PTX, 16 bytes per copy --------------------------------
__device__ __forceinline__ void cp_async16(void* smem_dst, const void* gmem_src)
{
#if __CUDA_ARCH__ >= 800
    const unsigned saddr = static_cast<unsigned>(__cvta_generic_to_shared(smem_dst));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(saddr), "l"(gmem_src)
                 : "memory");
#else
    *reinterpret_cast<float4*>(smem_dst) = *reinterpret_cast<const float4*>(gmem_src);
#endif
}

__device__ __forceinline__ void cp_async_commit()
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

template <int N>
__device__ __forceinline__ void cp_async_wait()
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}

// 64 threads each move one float4, so one tile (256 floats) per round.
__global__ void cp_async_kernel(const float* __restrict__ in, float* __restrict__ out, int ntiles,
                                float alpha)
{
    __shared__ __align__(16) float buf[2][ASYNC_TILE];
    const int v = threadIdx.x;   // vector index inside the tile
    int tile = blockIdx.x;
    if (tile >= ntiles) return;

    cp_async16(&buf[0][4 * v], &in[(size_t)tile * ASYNC_TILE + 4 * v]);
    cp_async_commit();

    for (int stage = 0; tile < ntiles; tile += gridDim.x, stage ^= 1) {
        const int next = tile + gridDim.x;
        if (next < ntiles) {
            cp_async16(&buf[stage ^ 1][4 * v], &in[(size_t)next * ASYNC_TILE + 4 * v]);
            cp_async_commit();
            cp_async_wait<1>();
        } else {
            cp_async_wait<0>();
        }
        __syncthreads();
        float4 r;
        r.x = combine(buf[stage], 4 * v + 0, alpha);
        r.y = combine(buf[stage], 4 * v + 1, alpha);
        r.z = combine(buf[stage], 4 * v + 2, alpha);
        r.w = combine(buf[stage], 4 * v + 3, alpha);
        reinterpret_cast<float4*>(out + (size_t)tile * ASYNC_TILE)[v] = r;
        __syncthreads();
    }
}

// ---- 3. cuda::memcpy_async + cuda::barrier ---------------------------------
__global__ void memcpy_async_kernel(const float* __restrict__ in, float* __restrict__ out, int ntiles,
                                    float alpha)
{
    using barrier_t = cuda::barrier<cuda::thread_scope_block>;
    __shared__ float buf[2][ASYNC_TILE];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ barrier_t bar[2];

    auto block = cg::this_thread_block();
    if (block.thread_rank() == 0) {
        init(&bar[0], block.size());
        init(&bar[1], block.size());
    }
    block.sync();

    int tile = blockIdx.x;
    if (tile >= ntiles) return;   // uniform across the block
    cuda::memcpy_async(block, buf[0], in + (size_t)tile * ASYNC_TILE, sizeof(float) * ASYNC_TILE, bar[0]);

    for (int stage = 0; tile < ntiles; tile += gridDim.x, stage ^= 1) {
        const int next = tile + gridDim.x;
        if (next < ntiles)
            cuda::memcpy_async(block, buf[stage ^ 1], in + (size_t)next * ASYNC_TILE,
                               sizeof(float) * ASYNC_TILE, bar[stage ^ 1]);
        bar[stage].arrive_and_wait();   // tile `tile` has landed
        const int t = block.thread_rank();
        out[(size_t)tile * ASYNC_TILE + t] = combine(buf[stage], t, alpha);
        block.sync();
    }
}

const char* copy_path_name(CopyPath p)
{
    switch (p) {
    case CopyPath::Pipeline: return "__pipeline_memcpy_async";
    case CopyPath::PtxCpAsync: return "cp.async (inline PTX)";
    case CopyPath::CudaMemcpyAsync: return "cuda::memcpy_async";
    }
    return "?";
}

void async_transform(CopyPath path, const float* in, float* out, int n, float alpha,
                     hipStream_t stream)
{
    if (n % ASYNC_TILE) {
        fprintf(stderr, "async_transform: n must be a multiple of %d\n", ASYNC_TILE);
        return;
    }
    const int ntiles = n / ASYNC_TILE;
    const int blocks = ntiles < 264 ? ntiles : 264;   // a few tiles per block
    switch (path) {
    case CopyPath::Pipeline:
        pipeline_kernel<<<blocks, ASYNC_TILE, 0, stream>>>(in, out, ntiles, alpha);
        break;
    case CopyPath::PtxCpAsync:
        cp_async_kernel<<<blocks, ASYNC_TILE / 4, 0, stream>>>(in, out, ntiles, alpha);
        break;
    case CopyPath::CudaMemcpyAsync:
        memcpy_async_kernel<<<blocks, ASYNC_TILE, 0, stream>>>(in, out, ntiles, alpha);
        break;
    }
    hipError_t err = hipGetLastError();
    if (err != hipSuccess) fprintf(stderr, "%s: %s\n", copy_path_name(path), hipGetErrorString(err));
}
