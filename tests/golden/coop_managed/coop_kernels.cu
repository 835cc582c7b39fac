// coop_kernels.cu - a grid-synchronised kernel built on cooperative groups.
#include <hip/hip_runtime.h>
#include <hip/hip_cooperative_groups.h>

#include "common.cuh"

namespace cg = cooperative_groups;

// Incremented by every block of every kernel in this file; readable from the
// host after a device synchronisation, without any cudaMemcpy.
__managed__ int g_blocks_seen = 0;

// Sum of squares over a 32-thread tile with tile.shfl_down.
__device__ float tile_sum(cg::thread_block_tile<32> tile, float v)
{
    for (int offset = tile.size() / 2; offset > 0; offset /= 2)
        v += tile.shfl_down(v, offset);
    return v;   // valid in tile.thread_rank() == 0
}

__global__ void normalize_kernel(float* data, int n, float* partials, float* norm_out)
{
    cg::thread_block block = cg::this_thread_block();
    cg::grid_group grid = cg::this_grid();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    __shared__ float tile_sums[32];

    // Phase 1: every block writes the sum of squares of its grid-stride share.
    float local = 0.0f;
    for (unsigned long long i = grid.thread_rank(); i < (unsigned long long)n; i += grid.size())
        local += data[i] * data[i];
    local = tile_sum(tile, local);
    if (tile.thread_rank() == 0) tile_sums[tile.meta_group_rank()] = local;
    block.sync();
    if (block.thread_rank() == 0) {
        float s = 0.0f;
        for (unsigned t = 0; t < tile.meta_group_size(); ++t) s += tile_sums[t];
        partials[blockIdx.x] = s;
        atomicAdd(&g_blocks_seen, 1);
    }

    // Every block must have published its partial before anyone reads them.
    grid.sync();

    // Phase 2: every block reduces the partials itself (cheap, avoids a
    // second grid-wide barrier) and scales its share.
    float total = 0.0f;
    for (unsigned b = tile.thread_rank(); b < gridDim.x; b += tile.size()) total += partials[b];
    total = tile.shfl(tile_sum(tile, total), 0);
    const float inv = total > 0.0f ? rsqrtf(total) : 0.0f;
    for (unsigned long long i = grid.thread_rank(); i < (unsigned long long)n; i += grid.size())
        data[i] *= inv;
    if (grid.thread_rank() == 0) *norm_out = sqrtf(total);
}

bool normalize_cooperative(float* data, int n, float* norm_out)
{
    int device = 0;
    CHECK(hipGetDevice(&device));
    int coop = 0;
    CHECK(hipDeviceGetAttribute(&coop, hipDeviceAttributeCooperativeLaunch, device));
    if (!coop) {
        fprintf(stderr, "device %d does not support cooperative launches\n", device);
        return false;
    }

    // A cooperative grid may not exceed what can be resident at once.
    const int threads = 256;
    int per_sm = 0, sms = 0;
    CHECK(hipOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, normalize_kernel, threads, 0));
    CHECK(hipDeviceGetAttribute(&sms, hipDeviceAttributeMultiprocessorCount, device));
    int blocks = per_sm * sms;
    const int needed = (n + threads - 1) / threads;
    if (blocks > needed) blocks = needed;

    float* partials = nullptr;
    CHECK(hipMalloc(&partials, blocks * sizeof(float)));

    void* args[] = {&data, &n, &partials, &norm_out};
    CHECK(hipLaunchCooperativeKernel((void*)normalize_kernel, dim3(blocks), dim3(threads), args, 0,
                                      0));
    CHECK(hipDeviceSynchronize());
    CHECK(hipFree(partials));
    return true;
}

int blocks_seen()
{
    CHECK(hipDeviceSynchronize());   // managed memory: no host access while kernels run
    return g_blocks_seen;
}
