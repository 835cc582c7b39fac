// scales a 64 x 48 matrix by 3 and checks it on the host
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>
#include <helper_cuda.h>
#include "scale.cuh"

int main() {
  const int rows = 64, cols = 48;
  std::vector<float> h(rows * cols, 2.0f);
  float *d;
  checkCudaErrors(cudaMalloc(&d, h.size() * sizeof(float)));
  checkCudaErrors(cudaMemcpy(d, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));
  scaleOnDevice(d, rows, cols, 3.0f);
  checkCudaErrors(cudaMemcpy(h.data(), d, h.size() * sizeof(float), cudaMemcpyDeviceToHost));
  checkCudaErrors(cudaFree(d));
  for (float v : h) {
    if (v != 6.0f) {
      fprintf(stderr, "wrong value %f\n", v);
      return 1;
    }
  }
  printf("Test PASSED\n");
  return 0;
}
