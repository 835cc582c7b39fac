// histogram.cu - 256-bin histogram of a float signal with per-block
// privatised bins in shared memory, plus a min/max pre-pass.
//
// Launch sizes come from the occupancy API (cudaOccupancyMaxPotentialBlockSize)
// instead of being hard-coded.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <hip/hip_runtime.h>
#include "hist_kernels.cuh"

static void check(hipError_t e, const char* what, int line)
{
    if (e != hipSuccess) {
        // e.g. "cudaErrorInvalidValue (invalid argument)"
        fprintf(stderr, "%s failed at line %d: %s (%s)\n", what, line,
                hipGetErrorName(e), hipGetErrorString(e));
        exit(1);
    }
}
#define CK(x) check((x), #x, __LINE__)

__global__ void minmax_kernel(const float* __restrict__ in, size_t n, float* range)
{
    __shared__ float s_min, s_max;
    if (threadIdx.x == 0) { s_min = INFINITY; s_max = -INFINITY; }
    __syncthreads();

    float lmin = INFINITY, lmax = -INFINITY;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        float v = in[i];
        lmin = fminf(lmin, v);
        lmax = fmaxf(lmax, v);
    }
    atomic_min_float(&s_min, lmin);
    atomic_max_float(&s_max, lmax);
    __syncthreads();
    if (threadIdx.x == 0) {
        atomic_min_float(&range[0], s_min);
        atomic_max_float(&range[1], s_max);
    }
}

__global__ void histogram_kernel(const float* __restrict__ in, size_t n,
                                 const float* range, unsigned int* bins)
{
    __shared__ unsigned int s_bins[HIST_BINS];
    for (int b = threadIdx.x; b < HIST_BINS; b += blockDim.x) s_bins[b] = 0;
    __syncthreads();

    const float lo = range[0];
    const float width = (range[1] - lo) / HIST_BINS;
    const float inv_width = width > 0.0f ? 1.0f / width : 0.0f;

    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        atomicAdd(&s_bins[bin_of(in[i], lo, inv_width)], 1u);
    }
    __syncthreads();

    for (int b = threadIdx.x; b < HIST_BINS; b += blockDim.x) {
        unsigned int c = s_bins[b];
        if (c) atomicAdd(&bins[b], c);
    }
}

// Total count as a 64-bit sum, to check nothing was dropped.
__global__ void total_kernel(const unsigned int* bins, unsigned long long* total)
{
    unsigned int c = bins[threadIdx.x];
    atomicAdd(total, (unsigned long long)c);
}

int main(int argc, char** argv)
{
    size_t n = argc > 1 ? strtoull(argv[1], nullptr, 10) : (1u << 24);

    int device = 0;
    CK(hipGetDevice(&device));
    hipDeviceProp_t prop;
    CK(hipGetDeviceProperties(&prop, device));
    printf("device %d: %s, %d SMs\n", device, prop.name, prop.multiProcessorCount);
    int sm_count = 0;
    CK(hipDeviceGetAttribute(&sm_count, hipDeviceAttributeMultiprocessorCount, device));
    const int cudaCoresPerSM = 64;  // informational only
    printf("~%d cores\n", sm_count * cudaCoresPerSM);

    hipFuncAttributes attr;
    CK(hipFuncGetAttributes(&attr, reinterpret_cast<const void*>(histogram_kernel)));
    printf("histogram_kernel: %d regs, %zu B static smem\n", attr.numRegs, attr.sharedSizeBytes);
    CK(hipFuncSetCacheConfig(reinterpret_cast<const void*>(histogram_kernel), hipFuncCachePreferShared));

    // Let the runtime choose a block size that maximises occupancy.
    int min_grid = 0, block = 0;
    CK(hipOccupancyMaxPotentialBlockSize(&min_grid, &block, histogram_kernel, 0, 0));
    int blocks_per_sm = 0;
    CK(hipOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, histogram_kernel, block, 0));
    int grid = blocks_per_sm * prop.multiProcessorCount;
    printf("block %d, %d blocks/SM -> grid %d (min grid %d)\n", block, blocks_per_sm, grid, min_grid);

    std::vector<float> h_in(n);
    srand(1234);
    for (size_t i = 0; i < n; ++i) {
        float u1 = (rand() + 1.0f) / (RAND_MAX + 2.0f);
        float u2 = (rand() + 1.0f) / (RAND_MAX + 2.0f);
        h_in[i] = sqrtf(-2.0f * logf(u1)) * cosf(6.2831853f * u2);
    }

    float* d_in = nullptr;
    float* d_range = nullptr;
    unsigned int* d_bins = nullptr;
    unsigned long long* d_total = nullptr;
    CK(hipMalloc(&d_in, n * sizeof(float)));
    CK(hipMalloc(&d_range, 2 * sizeof(float)));
    CK(hipMalloc(&d_bins, HIST_BINS * sizeof(unsigned int)));
    CK(hipMalloc(&d_total, sizeof(unsigned long long)));

    hipStream_t stream;
    CK(hipStreamCreate(&stream));
    CK(hipMemcpyAsync(d_in, h_in.data(), n * sizeof(float), hipMemcpyHostToDevice, stream));

    const float init_range[2] = {INFINITY, -INFINITY};
    CK(hipMemcpyAsync(d_range, init_range, sizeof(init_range), hipMemcpyHostToDevice, stream));
    CK(hipMemsetAsync(d_bins, 0, HIST_BINS * sizeof(unsigned int), stream));
    CK(hipMemsetAsync(d_total, 0, sizeof(unsigned long long), stream));

    minmax_kernel<<<grid, block, 0, stream>>>(d_in, n, d_range);
    CK(hipGetLastError());
    histogram_kernel<<<grid, block, 0, stream>>>(d_in, n, d_range, d_bins);
    CK(hipGetLastError());
    total_kernel<<<1, HIST_BINS, 0, stream>>>(d_bins, d_total);
    CK(hipPeekAtLastError());
    CK(hipDeviceSynchronize());

    float h_range[2];
    unsigned int h_bins[HIST_BINS];
    unsigned long long h_total = 0;
    CK(hipMemcpy(h_range, d_range, sizeof(h_range), hipMemcpyDeviceToHost));
    CK(hipMemcpy(h_bins, d_bins, sizeof(h_bins), hipMemcpyDeviceToHost));
    hipMemcpyKind kind = prop.unifiedAddressing ? hipMemcpyDefault : hipMemcpyDeviceToHost;
    CK(hipMemcpy(&h_total, d_total, sizeof(h_total), kind));

    printf("range [%f, %f], total %llu of %zu\n", h_range[0], h_range[1], h_total, n);
    unsigned int peak = 0;
    int peak_bin = 0;
    for (int b = 0; b < HIST_BINS; ++b) {
        if (h_bins[b] > peak) { peak = h_bins[b]; peak_bin = b; }
    }
    for (int b = 0; b < HIST_BINS; b += 16) {
        int stars = int(60.0 * h_bins[b] / (peak ? peak : 1));
        printf("%3d | %.*s\n", b, stars, "************************************************************");
    }
    printf("peak bin %d (%u)\n", peak_bin, peak);

    hipError_t last = hipGetLastError();
    if (last != hipSuccess) printf("late error: %s\n", hipGetErrorName(last));

    CK(hipStreamDestroy(stream));
    CK(hipFree(d_in));
    CK(hipFree(d_range));
    CK(hipFree(d_bins));
    CK(hipFree(d_total));
    CK(hipDeviceReset());
    return h_total == n ? 0 : 1;
}
