#include <cstdio>
#include <cuda_runtime.h>

extern __device__ float square(float x);  // defined in devlib.cu, linked from devlib.a

__global__ void squares(float *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = square(v[i]);
}

int main() {
  const int n = 64;
  float h[n], *d;
  for (int i = 0; i < n; i++) h[i] = (float)i;
  cudaMalloc(&d, n * sizeof(float));
  cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice);
  squares<<<1, n>>>(d, n);
  cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(d);
  printf("%s\n", h[9] == 81.0f ? "ok" : "wrong");
  return h[9] == 81.0f ? 0 : 1;
}
