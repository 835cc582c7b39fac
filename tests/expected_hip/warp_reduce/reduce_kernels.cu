// reduce_kernels.cu - reductions, scans and stream compaction built from
// warp shuffles and ballots (see warp_utils.cuh for the primitives).
#include <hip/hip_runtime.h>
#include <cstdio>
#include <cfloat>

#include "reduce_kernels.h"
#include "warp_utils.cuh"

// ---------------------------------------------------------------------------
// Sum + max reduction: grid-stride accumulation, block reduction, then one
// atomic per block into the global result.
// ---------------------------------------------------------------------------
__global__ void reduce_sum_max_kernel(const float* __restrict__ in, int n,
                                      float* sum_out, float* max_out)
{
    float s = 0.0f;
    float m = -FLT_MAX;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += blockDim.x * gridDim.x) {
        float v = in[i];
        s += v;
        m = fmaxf(m, v);
    }

    s = blockReduceSum(s);
    m = blockReduceMax(m);
    if (threadIdx.x == 0) {
        atomicAdd(sum_out, s);
        atomicMaxFloat(max_out, m);
    }
}

// ---------------------------------------------------------------------------
// Inclusive scan in three passes:
//   1. scan each block, remember the block total,
//   2. scan the block totals with a single block,
//   3. add the scanned total of the previous blocks to every element.
// ---------------------------------------------------------------------------
__global__ void scan_blocks_kernel(const float* __restrict__ in, float* out,
                                   float* block_sums, int n)
{
    __shared__ float warpTotals[32];
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    const int i = blockIdx.x * blockDim.x + threadIdx.x;

    float v = (i < n) ? in[i] : 0.0f;
    v = warpInclusiveScan(v);

    // The last lane of each warp holds the warp total.
    if (lane == WARP_SIZE - 1) warpTotals[warp] = v;
    __syncthreads();

    // Warp 0 scans the warp totals in place.
    if (warp == 0) {
        const int nwarps = blockDim.x / WARP_SIZE;
        float t = (lane < nwarps) ? warpTotals[lane] : 0.0f;
        t = warpInclusiveScan(t);
        if (lane < nwarps) warpTotals[lane] = t;
    }
    __syncthreads();

    if (warp > 0) v += warpTotals[warp - 1];
    if (i < n) out[i] = v;
    if (threadIdx.x == blockDim.x - 1) block_sums[blockIdx.x] = v;
}

// Single-block scan over an arbitrary number of block totals, processed in
// chunks of blockDim.x with a running carry.
__global__ void scan_block_sums_kernel(float* block_sums, int nblocks)
{
    __shared__ float warpTotals[32];
    __shared__ float carry;
    const int lane = lane_id();
    const int warp = warp_id();
    const int nwarps = blockDim.x / WARP_SIZE;

    if (threadIdx.x == 0) carry = 0.0f;
    __syncthreads();

    for (int base = 0; base < nblocks; base += blockDim.x) {
        const int i = base + threadIdx.x;
        float v = (i < nblocks) ? block_sums[i] : 0.0f;
        v = warpInclusiveScan(v);
        if (lane == 31) warpTotals[warp] = v;
        __syncthreads();
        if (warp == 0) {
            float t = (lane < nwarps) ? warpTotals[lane] : 0.0f;
            t = warpInclusiveScan(t);
            if (lane < nwarps) warpTotals[lane] = t;
        }
        __syncthreads();
        if (warp > 0) v += warpTotals[warp - 1];
        v += carry;
        if (i < nblocks) block_sums[i] = v;
        __syncthreads();               // everyone has read carry
        if (threadIdx.x == blockDim.x - 1) carry = v;
        __syncthreads();
    }
}

__global__ void add_block_offsets_kernel(float* out, const float* block_sums, int n)
{
    if (blockIdx.x == 0) return;
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] += block_sums[blockIdx.x - 1];
}

// ---------------------------------------------------------------------------
// Stream compaction with __ballot_sync: every warp votes, counts the kept
// elements with __popc, reserves space with one atomicAdd and scatters.
// ---------------------------------------------------------------------------
__global__ void compact_kernel(const float* __restrict__ in, int n, float threshold,
                               float* out, int* count)
{
    const int lane = threadIdx.x & 31;
    const unsigned mask = 1u << lane;
    // Whole warps iterate together so that the ballot always sees 32 lanes.
    const int stride = blockDim.x * gridDim.x;
    const int start = blockIdx.x * blockDim.x + threadIdx.x;
    const int limit = ((n + WARP_SIZE - 1) / WARP_SIZE) * WARP_SIZE;

    for (int i = start; i < limit; i += stride) {
        const float v = (i < n) ? in[i] : 0.0f;
        const bool keep = (i < n) && (v > threshold);

        const unsigned ballot = __ballot_sync(FULL_MASK, keep);
        const int warp_count = __popc(ballot);
        const int rank = __popc(ballot & (mask - 1));   // kept lanes below me

        int base = 0;
        if (lane == 0 && warp_count > 0) base = atomicAdd(count, warp_count);
        base = __shfl_sync(FULL_MASK, base, 0);

        if (keep) out[base + rank] = v;
    }
}

// ---------------------------------------------------------------------------
// Warp-aggregated atomic counter: only the lanes that took the branch are
// active, __activemask tells us which, and the leader adds for all of them.
// ---------------------------------------------------------------------------
__global__ void count_above_kernel(const float* __restrict__ in, int n,
                                   float threshold, int* count)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += blockDim.x * gridDim.x) {
        if (in[i] > threshold) {
            unsigned active = __activemask();
            int leader = __ffs(active) - 1;
            if ((threadIdx.x & 31) == leader)
                atomicAdd(count, __popc(active));
        }
    }
}

// ---------------------------------------------------------------------------
// Host launchers
// ---------------------------------------------------------------------------
static int grid_for(int n, int threads, int max_blocks)
{
    int blocks = (n + threads - 1) / threads;
    return blocks < max_blocks ? blocks : max_blocks;
}

static void check_launch(const char* what)
{
    hipError_t err = hipGetLastError();
    if (err != hipSuccess) {
        fprintf(stderr, "kernel launch failed (%s): %s\n", what, hipGetErrorString(err));
    }
}

void launch_reduce(const float* d_in, int n, float* d_sum, float* d_max,
                   int threads, hipStream_t stream)
{
    const int blocks = grid_for(n, threads, 1024);
    reduce_sum_max_kernel<<<blocks, threads, 0, stream>>>(d_in, n, d_sum, d_max);
    check_launch("reduce_sum_max_kernel");
}

void launch_inclusive_scan(const float* d_in, float* d_out, float* d_block_sums,
                           int n, int threads, hipStream_t stream)
{
    const int blocks = (n + threads - 1) / threads;
    scan_blocks_kernel<<<blocks, threads, 0, stream>>>(d_in, d_out, d_block_sums, n);
    check_launch("scan_blocks_kernel");
    if (blocks > 1) {
        scan_block_sums_kernel<<<1, MAX_BLOCK_THREADS, 0, stream>>>(d_block_sums, blocks);
        check_launch("scan_block_sums_kernel");
        add_block_offsets_kernel<<<blocks, threads, 0, stream>>>(d_out, d_block_sums, n);
        check_launch("add_block_offsets_kernel");
    }
}

void launch_compact(const float* d_in, int n, float threshold,
                    float* d_out, int* d_count, int threads, hipStream_t stream)
{
    const int blocks = grid_for(n, threads, 512);
    compact_kernel<<<blocks, threads, 0, stream>>>(d_in, n, threshold, d_out, d_count);
    check_launch("compact_kernel");
}

void launch_count_above(const float* d_in, int n, float threshold,
                        int* d_count, int threads, hipStream_t stream)
{
    const int blocks = grid_for(n, threads, 512);
    count_above_kernel<<<blocks, threads, 0, stream>>>(d_in, n, threshold, d_count);
    check_launch("count_above_kernel");
}
