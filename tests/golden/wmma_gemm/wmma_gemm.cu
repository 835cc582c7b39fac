// wmma_gemm.cu - half-precision GEMM on tensor cores with nvcuda::wmma.
//
// Each block has 4 warps arranged 2 x 2; each warp owns one 16 x 16 tile of
// the block's 32 x 32 output tile and walks the K dimension 16 at a time.
// Devices older than Volta (sm_70) have no tensor cores: a plain FMA loop
// with the same tiling is compiled for them instead.
#include <hip/hip_runtime.h>
#include <cstdio>
#include <mma.h>

#include "gemm.h"

using namespace nvcuda;

__global__ void wmma_gemm_kernel(const __half* __restrict__ A, const __half* __restrict__ B,
                                 float* __restrict__ C, int M, int N, int K, float alpha,
                                 float beta)
{
    const int warp = threadIdx.x / 32;
    const int tile_row = blockIdx.y * BLOCK_TILE + (warp / 2) * WMMA_M;
    const int tile_col = blockIdx.x * BLOCK_TILE + (warp % 2) * WMMA_N;
    if (tile_row >= M || tile_col >= N) return;

#if __CUDA_ARCH__ >= 700
    wmma::fragment<wmma::matrix_a, WMMA_M, WMMA_N, WMMA_K, __half, wmma::row_major> a_frag;
    wmma::fragment<wmma::matrix_b, WMMA_M, WMMA_N, WMMA_K, __half, wmma::row_major> b_frag;
    wmma::fragment<wmma::accumulator, WMMA_M, WMMA_N, WMMA_K, float> acc;
    wmma::fragment<wmma::accumulator, WMMA_M, WMMA_N, WMMA_K, float> c_frag;

    wmma::fill_fragment(acc, 0.0f);
    for (int k = 0; k < K; k += WMMA_K) {
        // Leading dimensions are the row lengths of the row-major operands.
        wmma::load_matrix_sync(a_frag, A + (size_t)tile_row * K + k, K);
        wmma::load_matrix_sync(b_frag, B + (size_t)k * N + tile_col, N);
        wmma::mma_sync(acc, a_frag, b_frag, acc);
    }

    float* c_tile = C + (size_t)tile_row * N + tile_col;
    if (beta != 0.0f) {
        wmma::load_matrix_sync(c_frag, c_tile, N, wmma::mem_row_major);
        for (int i = 0; i < c_frag.num_elements; ++i) c_frag.x[i] = alpha * acc.x[i] + beta * c_frag.x[i];
    } else {
        for (int i = 0; i < c_frag.num_elements; ++i) c_frag.x[i] = alpha * acc.x[i];
    }
    wmma::store_matrix_sync(c_tile, c_frag, N, wmma::mem_row_major);
#else
    // Fallback: the 32 lanes of the warp share the 256 outputs of the tile.
    const int lane = threadIdx.x % 32;
    for (int e = lane; e < WMMA_M * WMMA_N; e += 32) {
        const int r = tile_row + e / WMMA_N;
        const int c = tile_col + e % WMMA_N;
        float sum = 0.0f;
        for (int k = 0; k < K; ++k)
            sum += __half2float(A[(size_t)r * K + k]) * __half2float(B[(size_t)k * N + c]);
        float* dst = C + (size_t)r * N + c;
        *dst = alpha * sum + (beta != 0.0f ? beta * *dst : 0.0f);
    }
#endif
}

void wmma_gemm(const __half* A, const __half* B, float* C, int M, int N, int K, float alpha,
               float beta, hipStream_t stream)
{
    if (M % 16 || N % 16 || K % 16) {
        fprintf(stderr, "wmma_gemm: M, N, K must be multiples of 16 (got %d, %d, %d)\n", M, N, K);
        return;
    }
    dim3 block(32 * WARPS_PER_BLOCK);
    dim3 grid((N + BLOCK_TILE - 1) / BLOCK_TILE, (M + BLOCK_TILE - 1) / BLOCK_TILE);
    wmma_gemm_kernel<<<grid, block, 0, stream>>>(A, B, C, M, N, K, alpha, beta);
    hipError_t err = hipGetLastError();
    if (err != hipSuccess) fprintf(stderr, "wmma_gemm_kernel: %s\n", hipGetErrorString(err));
}
