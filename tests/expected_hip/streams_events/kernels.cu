// kernels.cu - kernels for the multi-stream pipeline.
#include <hip/hip_runtime.h>
#include "kernels.cuh"
#include "cuda_helpers.h"

// Polynomial coefficients, read by every thread through the constant cache.
__constant__ float c_coeffs[NUM_COEFFS];

void set_coefficients(const float* coeffs, int count)
{
    if (count > NUM_COEFFS) {
        fprintf(stderr, "set_coefficients: %d coefficients, at most %d fit\n", count, NUM_COEFFS);
        exit(EXIT_FAILURE);
    }
    // cudaMemcpyToSymbol copies host memory into the __constant__ bank.
    CUDA_CHECK(hipMemcpyToSymbol(HIP_SYMBOL(c_coeffs), coeffs, count * sizeof(float)));
    if (count < NUM_COEFFS) {
        float zeros[NUM_COEFFS] = {0};
        CUDA_CHECK(hipMemcpyToSymbol(HIP_SYMBOL(c_coeffs), zeros, (NUM_COEFFS - count) * sizeof(float),
                                      count * sizeof(float), hipMemcpyHostToDevice));
    }
}

// Horner evaluation with the coefficients from constant memory.
template <typename T>
DEVICE_INLINE T horner(T x)
{
    T acc = T(0);
#pragma unroll
    for (int k = 0; k < NUM_COEFFS; ++k)
        acc = acc * x + T(c_coeffs[k]);
    return acc;
}

template <typename T>
__global__ void poly_axpy_kernel(const T* __restrict__ x, T* __restrict__ y, T alpha, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = alpha * horner(x[i]) + y[i];
}

template <typename T>
void launch_poly_axpy(const T* x, T* y, T alpha, int n, hipStream_t stream)
{
    const int block = 256;
    const int grid = div_up(n, block);
    poly_axpy_kernel<T><<<grid, block, 0, stream>>>(x, y, alpha, n);
    CUDA_CHECK(hipGetLastError());
}

// Explicit instantiations used by main.cu.
template void launch_poly_axpy<float>(const float*, float*, float, int, hipStream_t);
template void launch_poly_axpy<double>(const double*, double*, double, int, hipStream_t);

__global__ void scale_kernel(float* data, float factor, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        data[i] *= factor;
}

void launch_scale(float* data, float factor, int n, hipStream_t stream)
{
    dim3 block(256);
    dim3 grid(min(div_up(n, 256), 4096));
    scale_kernel<<<grid, block, 0, stream>>>(data, factor, n);
    CUDA_CHECK(hipGetLastError());
}

// Does pointless but deterministic work so that kernels take long enough
// for the streams to overlap visibly in nsys.
__global__ void spin_kernel(float* data, int n, int iterations)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = data[i];
    for (int k = 0; k < iterations; ++k)
        v = v * 0.999f + 0.001f;
    data[i] = v;
}

void launch_spin(float* data, int n, int iterations, hipStream_t stream)
{
    spin_kernel<<<div_up(n, 128), 128, 0, stream>>>(data, n, iterations);
    CUDA_CHECK(hipGetLastError());
}
