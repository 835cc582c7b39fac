// a 64-bin histogram of bytes with shared-memory atomics
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>
#include <helper_cuda.h>
#include <helper_math_small.h>

#define BINS 64

__global__ void histogram64(const unsigned char *data, int n, unsigned *bins) {
  __shared__ unsigned local[BINS];
  for (int i = threadIdx.x; i < BINS; i += blockDim.x) local[i] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&local[data[i] % BINS], 1u);
  __syncthreads();
  for (int i = threadIdx.x; i < BINS; i += blockDim.x) atomicAdd(&bins[i], local[i]);
}

int main() {
  const int n = 1 << 20;
  std::vector<unsigned char> h(n);
  for (int i = 0; i < n; ++i) h[i] = static_cast<unsigned char>(i);
  unsigned char *d;
  unsigned *bins;
  checkCudaErrors(cudaMalloc(&d, n));
  checkCudaErrors(cudaMalloc(&bins, BINS * sizeof(unsigned)));
  checkCudaErrors(cudaMemset(bins, 0, BINS * sizeof(unsigned)));
  checkCudaErrors(cudaMemcpy(d, h.data(), n, cudaMemcpyHostToDevice));
  histogram64<<<divUp(n, 256 * 16), 256>>>(d, n, bins);
  getLastCudaError("histogram64 launch");
  unsigned out[BINS];
  checkCudaErrors(cudaMemcpy(out, bins, sizeof(out), cudaMemcpyDeviceToHost));
  checkCudaErrors(cudaFree(d));
  checkCudaErrors(cudaFree(bins));
  for (int b = 0; b < BINS; ++b) {
    if (out[b] != n / BINS) {
      fprintf(stderr, "bin %d holds %u\n", b, out[b]);
      return 1;
    }
  }
  printf("Test PASSED\n");
  return 0;
}
