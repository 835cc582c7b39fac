// conv2d.cu - separable-free 2D convolution of a single-channel image.
//
// The filter lives in __constant__ memory (uploaded with cudaMemcpyToSymbol),
// the input is read through a texture object (cudaCreateTextureObject) that
// wraps a pitched allocation from cudaMallocPitch, and the image is processed
// in horizontal bands, one cudaStream_t per band.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

#define MAX_RADIUS 7
#define MAX_TAPS ((2 * MAX_RADIUS + 1) * (2 * MAX_RADIUS + 1))
#define NUM_BANDS 4
#define BLOCK_X 16
#define BLOCK_Y 16

#define CHECK(call)                                                        \
    do {                                                                   \
        cudaError_t err_ = (call);                                         \
        if (err_ != cudaSuccess) {                                         \
            fprintf(stderr, "CUDA error %s at %s:%d: %s\n", #call,         \
                    __FILE__, __LINE__, cudaGetErrorString(err_));         \
            exit(EXIT_FAILURE);                                            \
        }                                                                  \
    } while (0)

#ifdef __CUDACC__
#define HD __host__ __device__
#else
#define HD
#endif

HD inline int clamp_index(int i, int n) { return i < 0 ? 0 : (i >= n ? n - 1 : i); }

__constant__ float c_filter[MAX_TAPS];
__constant__ int c_radius;

// Each thread produces one output pixel.  tex2D with cudaAddressModeClamp
// handles the borders, so no halo logic is needed here.
__global__ void conv2d_tex(cudaTextureObject_t src, float* dst, size_t dst_pitch,
                           int width, int row_begin, int row_end)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = row_begin + blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= row_end) return;

    const int r = c_radius;
    float acc = 0.0f;
    int tap = 0;
    for (int dy = -r; dy <= r; ++dy) {
        for (int dx = -r; dx <= r; ++dx) {
            // +0.5f: unnormalised coordinates address texel centres
            float v = tex2D<float>(src, x + dx + 0.5f, y + dy + 0.5f);
            acc += v * c_filter[tap++];
        }
    }
    float* row = (float*)((char*)dst + y * dst_pitch);
    row[x] = acc;
}

// Reference path without textures: clamps indices by hand and reads the
// pitched buffer directly.
__global__ void conv2d_global(const float* __restrict__ src, size_t src_pitch,
                              float* dst, size_t dst_pitch,
                              int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;

    const int r = c_radius;
    float acc = 0.0f;
    int tap = 0;
    for (int dy = -r; dy <= r; ++dy) {
        int yy = clamp_index(y + dy, height);
        const float* row = (const float*)((const char*)src + yy * src_pitch);
        for (int dx = -r; dx <= r; ++dx) {
            int xx = clamp_index(x + dx, width);
            acc += row[xx] * c_filter[tap++];
        }
    }
    float* out = (float*)((char*)dst + y * dst_pitch);
    out[x] = acc;
}

static void make_gaussian(std::vector<float>& taps, int radius, float sigma)
{
    int n = 2 * radius + 1;
    taps.assign(n * n, 0.0f);
    float sum = 0.0f;
    for (int j = 0; j < n; ++j) {
        for (int i = 0; i < n; ++i) {
            float dx = float(i - radius), dy = float(j - radius);
            float w = expf(-(dx * dx + dy * dy) / (2.0f * sigma * sigma));
            taps[j * n + i] = w;
            sum += w;
        }
    }
    for (float& w : taps) w /= sum;
}

int main(int argc, char** argv)
{
    int width = argc > 1 ? atoi(argv[1]) : 1024;
    int height = argc > 2 ? atoi(argv[2]) : 768;
    int radius = 3;

    std::vector<float> taps;
    make_gaussian(taps, radius, 1.5f);
    CHECK(cudaMemcpyToSymbol(c_filter, taps.data(), taps.size() * sizeof(float)));
    CHECK(cudaMemcpyToSymbol(c_radius, &radius, sizeof(int), 0, cudaMemcpyHostToDevice));
    int radius_back = -1;
    CHECK(cudaMemcpyFromSymbol(&radius_back, c_radius, sizeof(int)));
    if (radius_back != radius) {
        fprintf(stderr, "cudaMemcpyFromSymbol returned %d\n", radius_back);
        return 1;
    }

    std::vector<float> h_img(size_t(width) * height);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x)
            h_img[size_t(y) * width + x] = float((x * 7 + y * 13) % 256) / 255.0f;

    float *d_src = nullptr, *d_dst = nullptr, *d_ref = nullptr;
    size_t src_pitch = 0, dst_pitch = 0, ref_pitch = 0;
    CHECK(cudaMallocPitch((void**)&d_src, &src_pitch, width * sizeof(float), height));
    CHECK(cudaMallocPitch((void**)&d_dst, &dst_pitch, width * sizeof(float), height));
    CHECK(cudaMallocPitch((void**)&d_ref, &ref_pitch, width * sizeof(float), height));
    CHECK(cudaMemcpy2D(d_src, src_pitch, h_img.data(), width * sizeof(float),
                       width * sizeof(float), height, cudaMemcpyHostToDevice));

    // Describe the pitched buffer as a 2D texture resource.
    cudaResourceDesc res;
    memset(&res, 0, sizeof(res));
    res.resType = cudaResourceTypePitch2D;
    res.res.pitch2D.devPtr = d_src;
    res.res.pitch2D.desc = cudaCreateChannelDesc<float>();
    res.res.pitch2D.width = width;
    res.res.pitch2D.height = height;
    res.res.pitch2D.pitchInBytes = src_pitch;

    cudaTextureDesc tex;
    memset(&tex, 0, sizeof(tex));
    tex.addressMode[0] = cudaAddressModeClamp;
    tex.addressMode[1] = cudaAddressModeClamp;
    tex.filterMode = cudaFilterModePoint;
    tex.readMode = cudaReadModeElementType;
    tex.normalizedCoords = 0;

    cudaChannelFormatDesc fmt = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
    if (fmt.x != res.res.pitch2D.desc.x) {
        fprintf(stderr, "unexpected channel format\n");
        return 1;
    }

    cudaTextureObject_t tex_obj = 0;
    CHECK(cudaCreateTextureObject(&tex_obj, &res, &tex, nullptr));

    // Same image in a cudaArray (opaque, 2D-cached layout) for comparison.
    cudaArray_t arr = nullptr;
    cudaChannelFormatDesc arr_fmt = cudaCreateChannelDesc<float>();
    CHECK(cudaMallocArray(&arr, &arr_fmt, width, height));
    CHECK(cudaMemcpy2DToArray(arr, 0, 0, h_img.data(), width * sizeof(float),
                              width * sizeof(float), height, cudaMemcpyHostToDevice));
    cudaResourceDesc arr_res;
    memset(&arr_res, 0, sizeof(arr_res));
    arr_res.resType = cudaResourceTypeArray;
    arr_res.res.array.array = arr;
    cudaTextureObject_t arr_tex = 0;
    CHECK(cudaCreateTextureObject(&arr_tex, &arr_res, &tex, nullptr));

    float* filter_ptr = nullptr;
    CHECK(cudaGetSymbolAddress((void**)&filter_ptr, c_filter));

    cudaStream_t streams[NUM_BANDS];
    for (int i = 0; i < NUM_BANDS; ++i)
        CHECK(cudaStreamCreateWithFlags(&streams[i], cudaStreamNonBlocking));

    // Re-upload the radius on the first stream so the bands are ordered after it.
    CHECK(cudaMemcpyToSymbolAsync(c_radius, &radius, sizeof(int), 0,
                                  cudaMemcpyHostToDevice, streams[0]));

    int band = (height + NUM_BANDS - 1) / NUM_BANDS;
    dim3 block(BLOCK_X, BLOCK_Y);
    for (int i = 0; i < NUM_BANDS; ++i) {
        int r0 = i * band;
        int r1 = min(height, r0 + band);
        if (r0 >= r1) break;
        dim3 grid((width + BLOCK_X - 1) / BLOCK_X, (r1 - r0 + BLOCK_Y - 1) / BLOCK_Y);
        conv2d_tex<<<grid, block, 0, streams[i]>>>(tex_obj, d_dst, dst_pitch, width, r0, r1);
        CHECK(cudaGetLastError());
    }

    dim3 full_grid((width + BLOCK_X - 1) / BLOCK_X, (height + BLOCK_Y - 1) / BLOCK_Y);
    conv2d_global<<<full_grid, block>>>(d_src, src_pitch, d_ref, ref_pitch, width, height);
    CHECK(cudaGetLastError());

    for (int i = 0; i < NUM_BANDS; ++i)
        CHECK(cudaStreamSynchronize(streams[i]));
    CHECK(cudaDeviceSynchronize());

    std::vector<float> h_out(h_img.size()), h_ref(h_img.size());
    CHECK(cudaMemcpy2DAsync(h_out.data(), width * sizeof(float), d_dst, dst_pitch,
                            width * sizeof(float), height, cudaMemcpyDeviceToHost, streams[0]));
    CHECK(cudaMemcpy2D(h_ref.data(), width * sizeof(float), d_ref, ref_pitch,
                       width * sizeof(float), height, cudaMemcpyDeviceToHost));
    CHECK(cudaStreamSynchronize(streams[0]));

    double max_err = 0.0;
    for (size_t i = 0; i < h_out.size(); ++i)
        max_err = fmax(max_err, fabs(double(h_out[i]) - double(h_ref[i])));
    printf("conv2d %dx%d radius %d: max |tex - global| = %g\n", width, height, radius, max_err);

    CHECK(cudaDestroyTextureObject(tex_obj));
    CHECK(cudaDestroyTextureObject(arr_tex));
    CHECK(cudaFreeArray(arr));
    for (int i = 0; i < NUM_BANDS; ++i)
        CHECK(cudaStreamDestroy(streams[i]));
    CHECK(cudaFree(d_src));
    CHECK(cudaFree(d_dst));
    CHECK(cudaFree(d_ref));
    return max_err < 1e-4 ? 0 : 1;
}
