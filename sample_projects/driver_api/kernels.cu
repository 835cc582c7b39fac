// kernels.cu - device code of the driver_api sample. It is not linked into the
// program: the Makefile compiles it to a module (kernels.cubin) that main.cpp
// loads at run time with cuModuleLoad and looks up by name.
#include "params.h"

// extern "C": the host looks the kernels up by their unmangled names.
extern "C" __global__ void scale_add(float* y, const float* x, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = a * x[i] + y[i];
    }
}

// Reads a 2D texture with point sampling and clamped coordinates, so reads
// just outside the image return the nearest edge texel.
extern "C" __global__ void sample_shifted(float* out, cudaTextureObject_t tex, int width, int height,
                                          int shift)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) {
        out[y * width + x] = tex2D<float>(tex, x + shift + 0.5f, y + 0.5f);
    }
}
