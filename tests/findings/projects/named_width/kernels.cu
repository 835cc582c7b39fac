// kernels.cu - block reductions written for 32-lane warps, through the names of warp.cuh.
#include <cooperative_groups.h>
#include "warp.cuh"

namespace cg = cooperative_groups;

__global__ void block_sum(const float* in, float* out, int n)
{
    __shared__ float partial[1024 / WARP_SIZE];  // expect: PORT013
    const int lane = threadIdx.x & LANE_MASK;  // expect: PORT015
    const int warp = threadIdx.x / WARP_SIZE;  // expect: PORT015
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = warp_sum(i < n ? in[i] : 0.0f);
    if (lane == 0) partial[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < blockDim.x / WARP_SIZE ? partial[lane] : 0.0f;  // expect: PORT015
        v = warp_sum(v);
        if (lane == 0) atomicAdd(out, v);
    }
}

// One warp per row of the block: threadIdx.x is the lane, threadIdx.y the warp.
__global__ void row_sum(const float* in, float* out)
{
    const int row = blockIdx.x * blockDim.y + threadIdx.y;
    float v = warp_sum(in[row * WARP_SIZE + threadIdx.x]);  // expect: PORT015
    if (threadIdx.x == 0) out[row] = v;
}

__global__ void tile_sum(const float* in, float* out)
{
    auto tile = cg::tiled_partition<32>(cg::this_thread_block());
    float v = in[blockIdx.x * kTileN + threadIdx.x % kTileN];  // expect: PORT015
    for (int o = tile.size() / 2; o > 0; o /= 2) v += tile.shfl_down(v, o);
    if (tile.thread_rank() == 0) atomicAdd(out, v);
}

void launch_sums(const float* in, float* out, float* rows, int n, int threads)
{
    block_sum<<<(n + threads - 1) / threads, threads>>>(in, out, n);
    const int warps = threads / WARP_SIZE;  // expect: PORT015
    dim3 block(WARP_SIZE, warps);  // expect: PORT016
    row_sum<<<n / threads, block>>>(in, rows);
    tile_sum<<<n / kTileN, kTileN>>>(in, out);  // expect: PORT015
}
