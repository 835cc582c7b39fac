// matmul_kernels.cu - four SGEMM variants of increasing sophistication.
#include <hip/hip_runtime.h>
#include "matmul.cuh"

// ---------------------------------------------------------------------------
// 1. Naive: one thread per output element, every operand from global memory.
// ---------------------------------------------------------------------------
__global__ void matmul_naive(const float* A, const float* B, float* C, int M, int N, int K)
{
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
}

// ---------------------------------------------------------------------------
// 2. Classic shared-memory tiling with static __shared__ arrays. The launch
//    bound promises at most 256 threads per block and asks the compiler to
//    fit two resident blocks per SM.
// ---------------------------------------------------------------------------
__global__ void __launch_bounds__(256, 2)
matmul_tiled(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
             int M, int N, int K)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE + 1];   // +1 avoids bank conflicts on the column read

    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty;
    const int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;

    for (int t = 0; t < (K + TILE - 1) / TILE; ++t) {
        const int a_col = t * TILE + tx;
        const int b_row = t * TILE + ty;
        As[ty][tx] = (row < M && a_col < K) ? A[row * K + a_col] : 0.0f;
        Bs[ty][tx] = (b_row < K && col < N) ? B[b_row * N + col] : 0.0f;
        __syncthreads();

#pragma unroll
        for (int k = 0; k < TILE; ++k) acc += As[ty][k] * Bs[k][tx];
        __syncthreads();   // don't overwrite the tiles while others still read
    }
    if (row < M && col < N) C[row * N + col] = acc;
}

// ---------------------------------------------------------------------------
// 3. Same algorithm with the tile size chosen at run time: both tiles live
//    in one dynamically sized extern __shared__ buffer.
// ---------------------------------------------------------------------------
__global__ void matmul_dynamic(const float* __restrict__ A, const float* __restrict__ B,
                               float* __restrict__ C, int M, int N, int K, int tile)
{
    extern __shared__ float smem[];
    float* As = smem;                 // tile x tile
    float* Bs = smem + tile * tile;   // tile x tile

    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * tile + ty;
    const int col = blockIdx.x * tile + tx;
    float acc = 0.0f;

    for (int t = 0; t < K; t += tile) {
        As[ty * tile + tx] = (row < M && t + tx < K) ? A[row * K + t + tx] : 0.0f;
        Bs[ty * tile + tx] = (t + ty < K && col < N) ? B[(t + ty) * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < tile; ++k) acc += As[ty * tile + k] * Bs[k * tile + tx];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = acc;
}

// ---------------------------------------------------------------------------
// 4. Register blocking: a 64x64 block tile, each of the 256 threads computes
//    a 4x4 micro-tile, with the K dimension staged 16 at a time.
// ---------------------------------------------------------------------------
#define BM 64
#define BN 64
#define BK 16
#define TM 4
#define TN 4

__global__ void __launch_bounds__(BLOCK_THREADS, 2)
matmul_regblock(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                int M, int N, int K)
{
    __shared__ float As[BK][BM];   // stored transposed for contiguous reads
    __shared__ float Bs[BK][BN];

    const int tid = threadIdx.x;
    const int trow = (tid / (BN / TN)) * TM;   // first output row of this thread
    const int tcol = (tid % (BN / TN)) * TN;   // first output column
    const int block_row = blockIdx.y * BM;
    const int block_col = blockIdx.x * BN;

    float acc[TM][TN] = {};
    float a_frag[TM], b_frag[TN];

    for (int k0 = 0; k0 < K; k0 += BK) {
        // 256 threads load 64x16 elements of A and 16x64 of B: 4 each.
        for (int i = tid; i < BM * BK; i += BLOCK_THREADS) {
            const int r = i / BK, c = i % BK;
            const int gr = block_row + r, gc = k0 + c;
            As[c][r] = (gr < M && gc < K) ? A[gr * K + gc] : 0.0f;
        }
        for (int i = tid; i < BK * BN; i += BLOCK_THREADS) {
            const int r = i / BN, c = i % BN;
            const int gr = k0 + r, gc = block_col + c;
            Bs[r][c] = (gr < K && gc < N) ? B[gr * N + gc] : 0.0f;
        }
        __syncthreads();

#pragma unroll
        for (int k = 0; k < BK; ++k) {
#pragma unroll
            for (int i = 0; i < TM; ++i) a_frag[i] = As[k][trow + i];
#pragma unroll
            for (int j = 0; j < TN; ++j) b_frag[j] = Bs[k][tcol + j];
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += a_frag[i] * b_frag[j];
        }
        __syncthreads();
    }

    for (int i = 0; i < TM; ++i)
        for (int j = 0; j < TN; ++j) {
            const int r = block_row + trow + i, c = block_col + tcol + j;
            if (r < M && c < N) C[r * N + c] = acc[i][j];
        }
}

// ---------------------------------------------------------------------------
// Host side
// ---------------------------------------------------------------------------
const char* kernel_name(Kernel k)
{
    switch (k) {
    case Kernel::Naive: return "naive";
    case Kernel::Tiled: return "tiled (static smem)";
    case Kernel::DynamicTiled: return "tiled (dynamic smem)";
    case Kernel::RegisterBlocked: return "register-blocked 64x64";
    }
    return "?";
}

void configure_dynamic_smem(size_t bytes)
{
    // Above 48 KiB a kernel must opt in to the larger shared memory carve-out.
    CHECK_CUDA(hipFuncSetAttribute(reinterpret_cast<const void*>(matmul_dynamic), hipFuncAttributeMaxDynamicSharedMemorySize,
                                    (int)bytes));
    CHECK_CUDA(hipFuncSetAttribute(reinterpret_cast<const void*>(matmul_dynamic),
                                    hipFuncAttributePreferredSharedMemoryCarveout,
                                    cudaSharedmemCarveoutMaxShared));
}

void matmul(Kernel which, const float* A, const float* B, float* C, int M, int N, int K, int tile)
{
    switch (which) {
    case Kernel::Naive: {
        dim3 block(16, 16);
        dim3 grid((N + block.x - 1) / block.x, (M + block.y - 1) / block.y);
        matmul_naive<<<grid, block>>>(A, B, C, M, N, K);
        break;
    }
    case Kernel::Tiled: {
        dim3 block(TILE, TILE);
        dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
        matmul_tiled<<<grid, block>>>(A, B, C, M, N, K);
        break;
    }
    case Kernel::DynamicTiled: {
        dim3 block(tile, tile);
        dim3 grid((N + tile - 1) / tile, (M + tile - 1) / tile);
        const size_t smem = 2 * tile * tile * sizeof(float);
        matmul_dynamic<<<grid, block, smem>>>(A, B, C, M, N, K, tile);
        break;
    }
    case Kernel::RegisterBlocked: {
        dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
        matmul_regblock<<<grid, BLOCK_THREADS>>>(A, B, C, M, N, K);
        break;
    }
    }
    CHECK_CUDA(hipGetLastError());
}
