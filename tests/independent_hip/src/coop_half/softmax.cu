// softmax.cu - row softmax of half-precision logits, one block per row,
// reductions over cooperative-groups tiles; the output is in managed memory.
#include <cstdio>
#include <cuda_fp16.h>
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

constexpr int kThreads = 256;

__host__ __device__ inline float safe_max(float a, float b) {
#ifdef __CUDA_ARCH__
    return fmaxf(a, b);  // device: the intrinsic
#else
    return a > b ? a : b;
#endif
}

template <typename Op>
__device__ float block_reduce(cg::thread_block block, float v, float* scratch, Op op) {
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    for (int off = tile.size() / 2; off > 0; off /= 2) v = op(v, tile.shfl_down(v, off));
    if (tile.thread_rank() == 0) scratch[block.thread_rank() / 32] = v;
    block.sync();
    if (block.thread_rank() == 0) {
        for (int w = 1; w < kThreads / 32; ++w) v = op(v, scratch[w]);
        scratch[0] = v;
    }
    block.sync();
    return scratch[0];
}

__global__ void __launch_bounds__(kThreads) softmax_rows(const __half* __restrict__ logits, float* out, int cols) {
    extern __shared__ float row[];
    __shared__ float scratch[kThreads / 32];
    cg::thread_block block = cg::this_thread_block();
    const __half* in = logits + (size_t)blockIdx.x * cols;
    float m = -1e30f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        float x = __half2float(__ldg(&in[c]));
        row[c] = x;
        m = safe_max(m, x);
    }
    m = block_reduce(block, m, scratch, [](float a, float b) { return safe_max(a, b); });
    float sum = 0.f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        float e = __expf(row[c] - m);
        row[c] = e;
        sum += e;
    }
    sum = block_reduce(block, sum, scratch, [](float a, float b) { return a + b; });
    for (int c = threadIdx.x; c < cols; c += blockDim.x) out[(size_t)blockIdx.x * cols + c] = row[c] / sum;
}

__global__ void fill_half(__half* p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = __hmul(__float2half(0.001f * (i % 1000)), __float2half(2.0f));
}

int main() {
    const int rows = 512, cols = 12288;
    const size_t smem = cols * sizeof(float);  // 48 KiB: above the default limit, needs the attribute
    __half* logits;
    float* probs;
    cudaMalloc(&logits, (size_t)rows * cols * sizeof(__half));
    cudaMallocManaged(&probs, (size_t)rows * cols * sizeof(float), cudaMemAttachGlobal);
    fill_half<<<(rows * cols + 255) / 256, 256>>>(logits, rows * cols);
    if (cudaFuncSetAttribute(softmax_rows, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem) != cudaSuccess) {
        std::printf("cudaFuncSetAttribute failed: %s\n", cudaGetErrorString(cudaGetLastError()));
        return 1;
    }
    int per_sm = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, softmax_rows, kThreads, smem);
    softmax_rows<<<rows, kThreads, smem>>>(logits, probs, cols);
    cudaDeviceSynchronize();
    std::printf("%d blocks/SM, p[0][0] = %g\n", per_sm, probs[0]);
    cudaFree(probs);
    cudaFree(logits);
    return 0;
}
