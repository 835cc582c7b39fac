// Launches whose geometry counts 32-thread warps, for kernels that count lanes both ways.
#include "common.cuh"

// one warp per row, rows counted with warpSize: 8 rows per block of 256 on NVIDIA, 4 on MI300X
__global__ void rows(const float* in, float* out, int n)
{
    const int row = (blockIdx.x * blockDim.x + threadIdx.x) / warpSize;
    const float v = wave_sum(row < n ? in[row] : 0.0f);
    if (threadIdx.x % warpSize == 0 && row < n) out[row] = v;
}

template <int N>
__device__ float reduce(float v)
{
    for (int o = N / 2; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o, N);
    return v;
}

template <int BLOCK>
__global__ void block_scan(int* d)
{
    __shared__ int totals[16];
    const int waves = BLOCK / warpSize;
    if (threadIdx.x < waves) totals[threadIdx.x] = d[threadIdx.x];
}

__global__ void small(float* f)
{
    f[threadIdx.x] = reduce<32>(f[threadIdx.x]);  // expect: PORT015
}

template <int N>
void run_rows(const float* in, float* out, int n)
{
    dim3 blocks(N);
    rows<<<n, blocks>>>(in, out, n);
}

void launch(const float* in, float* out, int n, int* d, float* f)
{
    rows<<<(n + 7) / 8, 256>>>(in, out, n);  // expect: PORT016(error)
    rows<<<n, 8 * 32>>>(in, out, n);  // expect: PORT016(error)
    block_scan<32><<<1, 32>>>(d);  // expect: PORT015(error), PORT016(error)
    block_scan<256><<<1, 256>>>(d);
    small<<<1, 64>>>(f);
    run_rows<32>(in, out, n);  // expect: PORT015(error)
    run_rows<128>(in, out, n);
}
