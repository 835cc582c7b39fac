// main.cu - drives the reductions of kernels.cu.
#include <cstdio>
#include <cuda_runtime.h>

void launch_sums(const float* in, float* out, float* rows, int n, int threads);

int main()
{
    const int n = 1 << 16;
    float *in = nullptr, *out = nullptr, *rows = nullptr;
    if (cudaMalloc(&in, n * sizeof(float)) != cudaSuccess) { std::printf("no GPU\n"); return 0; }
    cudaMalloc(&out, sizeof(float));
    cudaMalloc(&rows, n * sizeof(float));
    cudaMemset(in, 0, n * sizeof(float));
    launch_sums(in, out, rows, n, 256);
    cudaDeviceSynchronize();
    cudaFree(in);
    cudaFree(out);
    cudaFree(rows);
    return 0;
}
