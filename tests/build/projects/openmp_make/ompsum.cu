#include <cstdio>
#include <omp.h>
#include <cuda_runtime.h>

__global__ void scale(float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}

int main(int argc, char **argv) {
  long sum = 0;
#pragma omp parallel for reduction(+ : sum) num_threads(2)
  for (int i = 1; i <= 100; i++) sum += i;
  printf("sum %ld\n", sum);
  if (argc > 1) {  // the device part runs only when asked (no GPU needed for the host check)
    float *d;
    cudaMalloc(&d, 64 * sizeof(float));
    scale<<<1, 64>>>(d, 2.0f, 64);
    cudaDeviceSynchronize();
    cudaFree(d);
  }
  return sum == 5050 ? 0 : 1;
}
