// cub_ops.cu - CUB device-wide primitives and block/warp collectives.
#include <climits>
#include <cstdio>
#include <hipcub/hipcub.hpp>

#include "ops.h"

#define CUB_CHECK(call)                                                        \
    do {                                                                       \
        hipError_t err = (call);                                              \
        if (err != hipSuccess) {                                              \
            fprintf(stderr, "cub_ops.cu:%d: %s\n", __LINE__, hipGetErrorString(err)); \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

constexpr int kBlockThreads = 256;
constexpr int kItemsPerThread = 4;

float cub_sum(const float* d_in, int n, hipStream_t stream)
{
    float* d_out = nullptr;
    CUB_CHECK(hipMalloc(&d_out, sizeof(float)));

    // Phase 1: a null temp pointer only asks how much scratch space is needed.
    void* d_temp = nullptr;
    size_t temp_bytes = 0;
    CUB_CHECK(hipcub::DeviceReduce::Sum(d_temp, temp_bytes, d_in, d_out, n, stream));
    CUB_CHECK(hipMalloc(&d_temp, temp_bytes));
    // Phase 2: the actual reduction.
    CUB_CHECK(hipcub::DeviceReduce::Sum(d_temp, temp_bytes, d_in, d_out, n, stream));

    float result = 0.0f;
    CUB_CHECK(hipMemcpyAsync(&result, d_out, sizeof(float), hipMemcpyDeviceToHost, stream));
    CUB_CHECK(hipStreamSynchronize(stream));
    CUB_CHECK(hipFree(d_temp));
    CUB_CHECK(hipFree(d_out));
    return result;
}

void cub_exclusive_scan(const int* d_in, int* d_out, int n, hipStream_t stream)
{
    void* d_temp = nullptr;
    size_t temp_bytes = 0;
    CUB_CHECK(hipcub::DeviceScan::ExclusiveSum(d_temp, temp_bytes, d_in, d_out, n, stream));
    CUB_CHECK(hipMallocAsync(&d_temp, temp_bytes, stream));
    CUB_CHECK(hipcub::DeviceScan::ExclusiveSum(d_temp, temp_bytes, d_in, d_out, n, stream));
    CUB_CHECK(hipFreeAsync(d_temp, stream));
}

// Each block loads kBlockThreads * kItemsPerThread values (blocked
// arrangement), and BlockReduce combines them.
__global__ void block_sum_kernel(const float* __restrict__ in, float* __restrict__ out, int n)
{
    using BlockLoad = hipcub::BlockLoad<float, kBlockThreads, kItemsPerThread, hipcub::BLOCK_LOAD_TRANSPOSE>;
    using BlockReduce = hipcub::BlockReduce<float, kBlockThreads>;
    __shared__ union {
        typename BlockLoad::TempStorage load;
        typename BlockReduce::TempStorage reduce;
    } temp;

    const int tile = kBlockThreads * kItemsPerThread;
    const int offset = blockIdx.x * tile;
    const int valid = min(tile, n - offset);

    float items[kItemsPerThread];
    BlockLoad(temp.load).Load(in + offset, items, valid, 0.0f);
    __syncthreads();   // the union is reused by the reduction

    float total = BlockReduce(temp.reduce).Sum(items);
    if (threadIdx.x == 0) out[blockIdx.x] = total;
}

struct MaxOp {
    __device__ int operator()(int a, int b) const { return a > b ? a : b; }
};

// One WarpReduce per warp of the block, each with its own TempStorage slot.
__global__ void warp_max_kernel(const int* __restrict__ in, int* __restrict__ out, int n)
{
    constexpr int kWarps = kBlockThreads / 32;
    using WarpReduce = hipcub::WarpReduce<int>;
    __shared__ typename WarpReduce::TempStorage temp[kWarps];

    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int warp = threadIdx.x / 32;
    const int v = (i < n) ? in[i] : INT_MIN;

    int m = WarpReduce(temp[warp]).Reduce(v, MaxOp());
    if (threadIdx.x % 32 == 0) out[blockIdx.x * kWarps + warp] = m;
}

void cub_block_sums(const float* d_in, float* d_block_out, int n, int* blocks_out, hipStream_t stream)
{
    const int tile = kBlockThreads * kItemsPerThread;
    const int blocks = (n + tile - 1) / tile;
    block_sum_kernel<<<blocks, kBlockThreads, 0, stream>>>(d_in, d_block_out, n);
    CUB_CHECK(hipGetLastError());
    *blocks_out = blocks;
}

void cub_warp_max(const int* d_in, int* d_warp_out, int n, int* warps_out, hipStream_t stream)
{
    const int blocks = (n + kBlockThreads - 1) / kBlockThreads;
    warp_max_kernel<<<blocks, kBlockThreads, 0, stream>>>(d_in, d_warp_out, n);
    CUB_CHECK(hipGetLastError());
    *warps_out = blocks * (kBlockThreads / 32);
}
