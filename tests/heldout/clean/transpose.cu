// Portable CUDA: tiled matrix transpose through a shared-memory tile.
// TILE is a tile edge (32x32 elements), not a warp width; the +1 column
// avoids shared-memory bank conflicts.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define TILE 32
#define ROWS_PER_PASS 8

__global__ void transpose(float* out, const float* in, int width, int height)
{
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS_PER_PASS)
        if (x < width && y + j < height)
            tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS_PER_PASS)
        if (x < height && y + j < width)
            out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

// Same transpose with literal sizes, as older code often has it.
__global__ void transpose_literal(float* out, const float* in, int n)
{
    __shared__ float buf[32][33];
    int x = blockIdx.x * 32 + threadIdx.x;
    int y = blockIdx.y * 32 + threadIdx.y;
    if (x < n && y < n) buf[threadIdx.y][threadIdx.x] = in[y * n + x];
    __syncthreads();
    x = blockIdx.y * 32 + threadIdx.x;
    y = blockIdx.x * 32 + threadIdx.y;
    if (x < n && y < n) out[y * n + x] = buf[threadIdx.x][threadIdx.y];
}

int main()
{
    const int w = 1000, h = 700;
    std::vector<float> a(w * h), b(w * h);
    for (int i = 0; i < w * h; ++i) a[i] = float(i);
    float *din, *dout;
    cudaMalloc(&din, w * h * sizeof(float));
    cudaMalloc(&dout, w * h * sizeof(float));
    cudaMemcpy(din, a.data(), w * h * sizeof(float), cudaMemcpyHostToDevice);
    dim3 block(TILE, ROWS_PER_PASS);
    dim3 grid((w + TILE - 1) / TILE, (h + TILE - 1) / TILE);
    transpose<<<grid, block>>>(dout, din, w, h);
    transpose_literal<<<dim3(h / 32, h / 32), dim3(32, 32)>>>(dout, din, h);
    transpose<<<grid, block>>>(dout, din, w, h);
    cudaMemcpy(b.data(), dout, w * h * sizeof(float), cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int r = 0; r < h; ++r)
        for (int c = 0; c < w; ++c)
            bad += b[c * h + r] != a[r * w + c];
    printf("transpose %dx%d: %d mismatches\n", w, h, bad);
    cudaFree(din);
    cudaFree(dout);
    return bad != 0;
}
