// every element of a rows x cols matrix times s
#include <cuda_runtime.h>
#include <helper_cuda.h>
#include <helper_math_small.h>
#include "scale.cuh"

__global__ void scaleKernel(float *d, int rows, int cols, float s) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < cols && y < rows) d[y * cols + x] *= s;
}

void scaleOnDevice(float *d, int rows, int cols, float s) {
  dim3 block(16, 16);
  dim3 grid(divUp(cols, 16), divUp(rows, 16));
  scaleKernel<<<grid, block>>>(d, rows, cols, s);
  getLastCudaError("scaleKernel launch");
}
