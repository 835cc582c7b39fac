// texture_simd.cu - texture fetches (object and legacy reference) and SIMD
// byte arithmetic.
#include <hip/hip_runtime.h>
#include "common.cuh"

// ---- texture object ---------------------------------------------------------
__global__ void gather_tex_object_kernel(hipTextureObject_t table, const int* idx, float* out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1Dfetch<float>(table, idx[i]);
}

void gather_texture_object(const float* d_table, int table_size, const int* d_idx, float* d_out, int n)
{
    hipResourceDesc res = {};
    res.resType = hipResourceTypeLinear;
    res.res.linear.devPtr = const_cast<float*>(d_table);
    res.res.linear.desc = hipCreateChannelDesc<float>();
    res.res.linear.sizeInBytes = table_size * sizeof(float);

    hipTextureDesc tex = {};
    tex.readMode = hipReadModeElementType;
    tex.addressMode[0] = hipAddressModeClamp;
    tex.filterMode = hipFilterModePoint;

    hipTextureObject_t obj = 0;
    CHECK(hipCreateTextureObject(&obj, &res, &tex, nullptr));
    gather_tex_object_kernel<<<(n + 255) / 256, 256>>>(obj, d_idx, d_out, n);
    CHECK(hipGetLastError());
    CHECK(hipDeviceSynchronize());
    CHECK(hipDestroyTextureObject(obj));
}

// ---- legacy texture reference ------------------------------------------------
// Texture references were removed in CUDA 12; the old path is kept for the
// CUDA 11 builds this code still supports.
#if CUDART_VERSION < 12000
texture<float, 1, hipReadModeElementType> g_table_tex;

__global__ void gather_tex_ref_kernel(const int* idx, float* out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1Dfetch(g_table_tex, idx[i]);
}
#endif

bool gather_texture_reference(const float* d_table, int table_size, const int* d_idx, float* d_out, int n)
{
#if CUDART_VERSION < 12000
    size_t offset = 0;
    CHECK(cudaBindTexture(&offset, g_table_tex, d_table, table_size * sizeof(float)));
    gather_tex_ref_kernel<<<(n + 255) / 256, 256>>>(d_idx, d_out, n);
    CHECK(hipGetLastError());
    CHECK(hipDeviceSynchronize());
    CHECK(cudaUnbindTexture(g_table_tex));
    return true;
#else
    (void)d_table; (void)table_size; (void)d_idx; (void)d_out; (void)n;
    return false;   // "texture references are not available with this CUDA version"
#endif
}

// ---- SIMD video intrinsics -----------------------------------------------------
__global__ void packed_add_kernel(const unsigned* a, const unsigned* b, unsigned* out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        // __ldcg: cache in L2 only, the inputs are read exactly once.
        const unsigned x = __ldcg(a + i);
        const unsigned y = __ldcg(b + i);
        out[i] = __vadd4(x, y);   // four independent 8-bit adds, wrapping
    }
}

void packed_byte_add(const unsigned* d_a, const unsigned* d_b, unsigned* d_out, int n)
{
    packed_add_kernel<<<(n + 255) / 256, 256>>>(d_a, d_b, d_out, n);
    CHECK(hipGetLastError());
}
