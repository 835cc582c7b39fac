// C = A + B, element by element
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>
#include <helper_cuda.h>
#include <helper_math_small.h>

__global__ void vectorAdd(const float *a, const float *b, float *c, int n) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

int main() {
  const int n = 50000;
  std::vector<float> a(n, 1.0f), b(n, 2.0f), c(n);
  float *da, *db, *dc;
  checkCudaErrors(cudaMalloc(&da, n * sizeof(float)));
  checkCudaErrors(cudaMalloc(&db, n * sizeof(float)));
  checkCudaErrors(cudaMalloc(&dc, n * sizeof(float)));
  checkCudaErrors(cudaMemcpy(da, a.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  checkCudaErrors(cudaMemcpy(db, b.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  int threads = 256;
  vectorAdd<<<divUp(n, threads), threads>>>(da, db, dc, n);
  getLastCudaError("vectorAdd launch");
  checkCudaErrors(cudaMemcpy(c.data(), dc, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) {
    if (c[i] != 3.0f) {
      fprintf(stderr, "mismatch at %d\n", i);
      return 1;
    }
  }
  checkCudaErrors(cudaFree(da));
  checkCudaErrors(cudaFree(db));
  checkCudaErrors(cudaFree(dc));
  printf("Test PASSED\n");
  return 0;
}
