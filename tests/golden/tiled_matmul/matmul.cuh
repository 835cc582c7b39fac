// matmul.cuh - shared declarations for the tiled matrix multiply sample.
// Matrices are row-major: A is M x K, B is K x N, C is M x N.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <hip/hip_runtime.h>

#define TILE 16            // static-shared kernel tile edge (16 x 16 = 256 threads)
#define BLOCK_THREADS 256  // threads per block for every kernel here

#define CHECK_CUDA(x)                                                        \
    do {                                                                     \
        hipError_t err__ = (x);                                             \
        if (err__ != hipSuccess) {                                          \
            fprintf(stderr, "%s (%s:%d): %s\n", #x, __FILE__, __LINE__,      \
                    hipGetErrorString(err__));                              \
            exit(1);                                                         \
        }                                                                    \
    } while (0)

enum class Kernel { Naive, Tiled, DynamicTiled, RegisterBlocked };

// Host entry point: launches the chosen kernel on the default stream.
// `tile` is only used by Kernel::DynamicTiled (8, 16 or 32).
void matmul(Kernel which, const float* A, const float* B, float* C, int M, int N, int K,
            int tile = TILE);

// Must be called once before launching DynamicTiled with large tiles: raises
// the dynamic shared memory limit of that kernel.
void configure_dynamic_smem(size_t bytes);

const char* kernel_name(Kernel k);
