// main.cpp - CUDA driver API host program: device query, an explicit context,
// a module loaded from a file, kernel launches with cuLaunchKernel and a 2D
// texture over a CUDA array. Host-only C++: no CUDA compiler needed.
#include <cuda.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "drv_check.h"
#include "params.h"

#ifndef MODULE_PATH
#define MODULE_PATH "kernels.cubin"
#endif

static void print_device(CUdevice dev)
{
    char name[256];
    DRV_CHECK(cuDeviceGetName(name, sizeof(name), dev));
    size_t total_mem = 0;
    DRV_CHECK(cuDeviceTotalMem(&total_mem, dev));
    int sm_count = 0, major = 0, minor = 0, warp = 0, domain = 0, bus = 0;
    DRV_CHECK(cuDeviceGetAttribute(&sm_count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));
    DRV_CHECK(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
    DRV_CHECK(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev));
    DRV_CHECK(cuDeviceGetAttribute(&warp, CU_DEVICE_ATTRIBUTE_WARP_SIZE, dev));
    DRV_CHECK(cuDeviceGetAttribute(&domain, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, dev));
    DRV_CHECK(cuDeviceGetAttribute(&bus, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, dev));
    printf("%s: %d SMs, compute %d.%d, warp %d, %zu MiB, PCI %04x:%02x\n", name, sm_count, major,
           minor, warp, total_mem >> 20, domain, bus);
}

static bool device_usable(CUdevice dev)
{
    int mode = 0;
    DRV_CHECK(cuDeviceGetAttribute(&mode, CU_DEVICE_ATTRIBUTE_COMPUTE_MODE, dev));
    CUcomputemode compute_mode = static_cast<CUcomputemode>(mode);
    if (compute_mode == CU_COMPUTEMODE_PROHIBITED) {
        fprintf(stderr, "device is in prohibited compute mode\n");
        return false;
    }
    return true;
}

// y = a * x + y with the module's scale_add kernel.
static bool run_scale_add(CUfunction fn, int n)
{
    std::vector<float> h_x(n), h_y(n);
    for (int i = 0; i < n; ++i) {
        h_x[i] = 0.5f * i;
        h_y[i] = 1.0f;
    }
    size_t bytes = n * sizeof(float);
    CUdeviceptr d_x, d_y;
    DRV_CHECK(cuMemAlloc(&d_x, bytes));
    DRV_CHECK(cuMemAlloc(&d_y, bytes));
    DRV_CHECK(cuMemcpyHtoD(d_x, h_x.data(), bytes));
    DRV_CHECK(cuMemcpyHtoD(d_y, h_y.data(), bytes));

    float a = 2.0f;
    void* args[] = {&d_y, &d_x, &a, &n};
    unsigned int grid = (n + BLOCK_1D - 1) / BLOCK_1D;
    DRV_CHECK(cuLaunchKernel(fn, grid, 1, 1, BLOCK_1D, 1, 1, 0, nullptr, args, nullptr));
    DRV_CHECK(cuCtxSynchronize());
    DRV_CHECK(cuMemcpyDtoH(h_y.data(), d_y, bytes));

    int bad = 0;
    for (int i = 0; i < n; ++i) {
        if (std::fabs(h_y[i] - (a * h_x[i] + 1.0f)) > 1e-5f) {
            ++bad;
        }
    }
    DRV_CHECK(cuMemFree(d_x));
    DRV_CHECK(cuMemFree(d_y));
    printf("scale_add: %d of %d wrong\n", bad, n);
    return bad == 0;
}

// Upload an image to a CUDA array and sample it through a texture object.
static bool run_texture(CUfunction fn, int width, int height)
{
    std::vector<float> h_img(width * height), h_out(width * height);
    for (int i = 0; i < width * height; ++i) {
        h_img[i] = static_cast<float>(i % 251);
    }

    const CUarray_format format = CU_AD_FORMAT_FLOAT;
    CUDA_ARRAY_DESCRIPTOR desc;
    desc.Format = format;
    desc.NumChannels = 1;
    desc.Width = width;
    desc.Height = height;
    CUarray array;
    DRV_CHECK(cuArrayCreate(&array, &desc));

    CUDA_MEMCPY2D copy = {};
    copy.srcMemoryType = CU_MEMORYTYPE_HOST;
    copy.srcHost = h_img.data();
    copy.srcPitch = width * sizeof(float);
    copy.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    copy.dstArray = array;
    copy.WidthInBytes = width * sizeof(float);
    copy.Height = height;
    DRV_CHECK(cuMemcpy2D(&copy));

    CUDA_RESOURCE_DESC res = {};
    res.resType = CU_RESOURCE_TYPE_ARRAY;
    res.res.array.hArray = array;

    const CUaddress_mode address = CU_TR_ADDRESS_MODE_CLAMP;
    CUDA_TEXTURE_DESC tex_desc = {};
    tex_desc.addressMode[0] = address;
    tex_desc.addressMode[1] = address;
    tex_desc.filterMode = CU_TR_FILTER_MODE_POINT;
    tex_desc.flags = 0;

    CUtexObject tex;
    DRV_CHECK(cuTexObjectCreate(&tex, &res, &tex_desc, nullptr));

    CUdeviceptr d_out;
    DRV_CHECK(cuMemAlloc(&d_out, h_out.size() * sizeof(float)));
    int shift = 3;
    void* args[] = {&d_out, &tex, &width, &height, &shift};
    unsigned int gx = (width + TILE_X - 1) / TILE_X, gy = (height + TILE_Y - 1) / TILE_Y;
    DRV_CHECK(cuLaunchKernel(fn, gx, gy, 1, TILE_X, TILE_Y, 1, 0, nullptr, args, nullptr));
    DRV_CHECK(cuCtxSynchronize());
    DRV_CHECK(cuMemcpyDtoH(h_out.data(), d_out, h_out.size() * sizeof(float)));

    int bad = 0;
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            int sx = x + shift < width ? x + shift : width - 1;
            if (h_out[y * width + x] != h_img[y * width + sx]) {
                ++bad;
            }
        }
    }
    DRV_CHECK(cuTexObjectDestroy(tex));
    DRV_CHECK(cuArrayDestroy(array));
    DRV_CHECK(cuMemFree(d_out));
    printf("sample_shifted: %d of %d wrong\n", bad, width * height);
    return bad == 0;
}

int main(int argc, char** argv)
{
    const char* module_path = argc > 1 ? argv[1] : MODULE_PATH;
    DRV_CHECK(cuInit(0));
    int driver_version = 0, count = 0;
    DRV_CHECK(cuDriverGetVersion(&driver_version));
    DRV_CHECK(cuDeviceGetCount(&count));
    printf("driver %d, %d device(s)\n", driver_version, count);
    if (count == 0) {
        return EXIT_FAILURE;
    }

    CUdevice dev;
    DRV_CHECK(cuDeviceGet(&dev, 0));
    print_device(dev);
    if (!device_usable(dev)) {
        return EXIT_FAILURE;
    }

    // Let the driver pick spinning or yielding; ask for blocking sync with -b.
    unsigned int flags = CU_CTX_SCHED_AUTO;
    if (argc > 2 && argv[2][0] == 'b') {
        flags = CU_CTX_SCHED_BLOCKING_SYNC;
    }
    CUcontext ctx;
    DRV_CHECK(cuCtxCreate(&ctx, flags, dev));

    CUmodule module;
    if (!drv_ok(cuModuleLoad(&module, module_path), module_path)) {
        cuCtxDestroy(ctx);
        return EXIT_FAILURE;
    }
    CUfunction scale_add, sample_shifted;
    DRV_CHECK(cuModuleGetFunction(&scale_add, module, "scale_add"));
    DRV_CHECK(cuModuleGetFunction(&sample_shifted, module, "sample_shifted"));

    bool ok = run_scale_add(scale_add, 1 << 20);
    ok = run_texture(sample_shifted, 300, 200) && ok;

    DRV_CHECK(cuModuleUnload(module));
    DRV_CHECK(cuCtxDestroy(ctx));
    printf("%s\n", ok ? "PASSED" : "FAILED");
    return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
