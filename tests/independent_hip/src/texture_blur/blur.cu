/* blur.cu - 3x3 box blur of a float image through a texture object with
   bilinear filtering and clamped addressing; the image lives in a cudaArray. */
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

__global__ void box_blur(cudaTextureObject_t tex, float* out, size_t pitch, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float s = 0.f;
    for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) s += tex2D<float>(tex, x + dx + 0.5f, y + dy + 0.5f);
    float* row = (float*)((char*)out + y * pitch);
    row[x] = s / 9.f;
}

int main() {
    const int w = 1024, h = 768;
    std::vector<float> img(w * h);
    for (int i = 0; i < w * h; ++i) img[i] = (i % 7) * 0.25f;

    cudaChannelFormatDesc fmt = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
    cudaArray_t arr;
    cudaMallocArray(&arr, &fmt, w, h);
    cudaMemcpy2DToArray(arr, 0, 0, img.data(), w * sizeof(float), w * sizeof(float), h, cudaMemcpyHostToDevice);

    cudaResourceDesc res = {};
    res.resType = cudaResourceTypeArray;
    res.res.array.array = arr;
    cudaTextureDesc td = {};
    td.addressMode[0] = cudaAddressModeClamp;
    td.addressMode[1] = cudaAddressModeClamp;
    td.filterMode = cudaFilterModeLinear;
    td.readMode = cudaReadModeElementType;
    td.normalizedCoords = 0;
    cudaTextureObject_t tex = 0;
    cudaCreateTextureObject(&tex, &res, &td, nullptr);

    float* out;
    size_t pitch = 0;
    cudaMallocPitch((void**)&out, &pitch, w * sizeof(float), h);
    dim3 block(16, 16), grid((w + 15) / 16, (h + 15) / 16);
    box_blur<<<grid, block>>>(tex, out, pitch, w, h);
    cudaMemcpy2D(img.data(), w * sizeof(float), out, pitch, w * sizeof(float), h, cudaMemcpyDeviceToHost);
    std::printf("blurred[0] = %g, pitch %zu\n", img[0], pitch);

    cudaDestroyTextureObject(tex);
    cudaFreeArray(arr);
    cudaFree(out);
    return 0;
}
