// common.cuh - shared declarations for the coop_managed sample.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <hip/hip_runtime.h>

#define CHECK(call)                                                               \
    do {                                                                          \
        const hipError_t e__ = (call);                                           \
        if (e__ != hipSuccess) {                                                 \
            fprintf(stderr, "[%s:%d] %s: %s\n", __FILE__, __LINE__, #call,        \
                    hipGetErrorString(e__));                                     \
            std::exit(1);                                                         \
        }                                                                         \
    } while (0)

// Migrate a managed range to `device` (or to the host with cudaCpuDeviceId).
// CUDA 13 takes a cudaMemLocation instead of a plain device ordinal.
inline void prefetch_to(const void* ptr, size_t bytes, int device, hipStream_t stream)
{
#if CUDART_VERSION >= 13000
    hipMemLocation loc;
    loc.type = device == hipCpuDeviceId ? hipMemLocationTypeHost : hipMemLocationTypeDevice;
    loc.id = device == hipCpuDeviceId ? 0 : device;
    CHECK(hipMemPrefetchAsync(ptr, bytes, loc, 0, stream));
#else
    CHECK(hipMemPrefetchAsync(ptr, bytes, device, stream));
#endif
}

// ---- coop_kernels.cu ----
// Normalises `data` in place to unit L2 norm with one cooperative launch
// (grid-wide sync between the reduction and the scaling). Returns false if
// the device cannot run cooperative kernels. `data` must be managed memory.
bool normalize_cooperative(float* data, int n, float* norm_out);
// Number of kernel blocks that have run so far (a __managed__ counter).
int blocks_seen();

// ---- texture_simd.cu ----
// out[i] = table[idx[i]] through a texture object (and, when built with
// CUDA < 12, through a legacy texture reference as well).
void gather_texture_object(const float* d_table, int table_size, const int* d_idx, float* d_out, int n);
bool gather_texture_reference(const float* d_table, int table_size, const int* d_idx, float* d_out, int n);
// Per-byte wrapping add of four packed 8-bit lanes (__vadd4), read with __ldcg.
void packed_byte_add(const unsigned* d_a, const unsigned* d_b, unsigned* d_out, int n);

// ---- dynpar.cu ----
// The parent kernel launches one child grid per segment from the device.
void segmented_square(float* d_data, int segments, int segment_len);
