#include <cstdio>
#include <cuda_runtime.h>

extern "C" float *make_ones(int n);
void launch_twice(float *x, int n);

int main()
{
  const int n = 256;
  float *h = make_ones(n);
  float *d = nullptr;
  cudaMalloc(&d, n * sizeof(float));
  cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice);
  launch_twice(d, n);
  cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost);
  printf("%g\n", h[n - 1]);
  cudaFree(d);
  free(h);
  return 0;
}
