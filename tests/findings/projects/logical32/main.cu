// main.cu - drives the block max of reduce.cu.
#include <cstdio>
#include <cuda_runtime.h>

void launch_max(const float* in, float* out, int n);

int main()
{
    const int n = 1 << 16;
    float *in = nullptr, *out = nullptr;
    if (cudaMalloc(&in, n * sizeof(float)) != cudaSuccess) { std::printf("no GPU\n"); return 0; }
    cudaMalloc(&out, (n / 256) * sizeof(float));
    cudaMemset(in, 0, n * sizeof(float));
    launch_max(in, out, n);
    cudaDeviceSynchronize();
    cudaFree(in);
    cudaFree(out);
    return 0;
}
