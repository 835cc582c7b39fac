// gemm.h - host interface of the tensor-core GEMM and async-copy sample.
#pragma once

#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>

// Tile shape of one warp-level matrix multiply-accumulate.
#define WMMA_M 16
#define WMMA_N 16
#define WMMA_K 16
// A block of 4 warps computes a 32 x 32 tile of C.
#define BLOCK_TILE 32
#define WARPS_PER_BLOCK 4

// C = alpha * A * B + beta * C. A (M x K) and B (K x N) are row-major half,
// C (M x N) is row-major float. M, N and K must be multiples of 16.
void wmma_gemm(const __half* A, const __half* B, float* C, int M, int N, int K, float alpha,
               float beta, hipStream_t stream);

// ---- async_copy.cu ----
// All three variants compute, tile by tile of ASYNC_TILE floats,
//   out[i] = alpha * in[i] + in[next(i)]   with next(i) the next element of
// the same tile (wrapping), staging every tile in shared memory first.
#define ASYNC_TILE 256
enum class CopyPath { Pipeline, PtxCpAsync, CudaMemcpyAsync };
void async_transform(CopyPath path, const float* in, float* out, int n, float alpha,
                     hipStream_t stream);
const char* copy_path_name(CopyPath p);
