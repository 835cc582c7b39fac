// A benchmark-suite shaped program: a size from the command line, device buffers, a kernel
// launched from another file, a check against the host's answer.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#include "kernels.h"

int main(int argc, char* argv[])
{
    const int n = argc > 1 ? atoi(argv[1]) : 1024;
    std::vector<float> x(n, 1.0f), y(n, 2.0f);
    float *d_x, *d_y;
    cudaMalloc((void**)&d_x, n * sizeof(float));
    cudaMalloc((void**)&d_y, n * sizeof(float));
    cudaMemcpy(d_x, x.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_y, y.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    launch_saxpy(n, 3.0f, d_x, d_y);
    cudaMemcpy(y.data(), d_y, n * sizeof(float), cudaMemcpyDeviceToHost);
    int errors = 0;
    for (int i = 0; i < n; i++) errors += y[i] != 5.0f;
    printf("%s\n", errors ? "FAIL" : "PASS");
    cudaFree(d_x);
    cudaFree(d_y);
    return errors != 0;
}
