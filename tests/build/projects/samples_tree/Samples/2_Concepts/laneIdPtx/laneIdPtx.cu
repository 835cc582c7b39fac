// each thread writes its lane id, read with inline PTX (NVIDIA-only assembly)
#include <cstdio>
#include <cuda_runtime.h>
#include <helper_cuda.h>

__device__ unsigned laneId() {
  unsigned id;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(id));
  return id;
}

__global__ void lanes(unsigned *out) { out[threadIdx.x] = laneId(); }

int main() {
  unsigned *d, h[64];
  checkCudaErrors(cudaMalloc(&d, sizeof(h)));
  lanes<<<1, 64>>>(d);
  getLastCudaError("lanes launch");
  checkCudaErrors(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
  checkCudaErrors(cudaFree(d));
  printf("lane of thread 33: %u\n", h[33]);
  return 0;
}
