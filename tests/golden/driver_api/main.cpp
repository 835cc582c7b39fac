// main.cpp - CUDA driver API host program: device query, an explicit context,
// a module loaded from a file, kernel launches with cuLaunchKernel and a 2D
// texture over a CUDA array. Host-only C++: no CUDA compiler needed.
#include <hip/hip_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "drv_check.h"
#include "params.h"

#ifndef MODULE_PATH
#define MODULE_PATH "kernels.cubin"
#endif

static void print_device(hipDevice_t dev)
{
    char name[256];
    DRV_CHECK(hipDeviceGetName(name, sizeof(name), dev));
    size_t total_mem = 0;
    DRV_CHECK(hipDeviceTotalMem(&total_mem, dev));
    int sm_count = 0, major = 0, minor = 0, warp = 0, domain = 0, bus = 0;
    DRV_CHECK(hipDeviceGetAttribute(&sm_count, hipDeviceAttributeMultiprocessorCount, dev));
    DRV_CHECK(hipDeviceGetAttribute(&major, hipDeviceAttributeComputeCapabilityMajor, dev));
    DRV_CHECK(hipDeviceGetAttribute(&minor, hipDeviceAttributeComputeCapabilityMinor, dev));
    DRV_CHECK(hipDeviceGetAttribute(&warp, hipDeviceAttributeWarpSize, dev));
    DRV_CHECK(hipDeviceGetAttribute(&domain, hipDeviceAttributePciDomainID, dev));
    DRV_CHECK(hipDeviceGetAttribute(&bus, hipDeviceAttributePciBusId, dev));
    printf("%s: %d SMs, compute %d.%d, warp %d, %zu MiB, PCI %04x:%02x\n", name, sm_count, major,
           minor, warp, total_mem >> 20, domain, bus);
}

static bool device_usable(hipDevice_t dev)
{
    int mode = 0;
    DRV_CHECK(hipDeviceGetAttribute(&mode, hipDeviceAttributeComputeMode, dev));
    hipComputeMode compute_mode = static_cast<hipComputeMode>(mode);
    if (compute_mode == hipComputeModeProhibited) {
        fprintf(stderr, "device is in prohibited compute mode\n");
        return false;
    }
    return true;
}

// y = a * x + y with the module's scale_add kernel.
static bool run_scale_add(hipFunction_t fn, int n)
{
    std::vector<float> h_x(n), h_y(n);
    for (int i = 0; i < n; ++i) {
        h_x[i] = 0.5f * i;
        h_y[i] = 1.0f;
    }
    size_t bytes = n * sizeof(float);
    hipDeviceptr_t d_x, d_y;
    DRV_CHECK(hipMalloc(&d_x, bytes));
    DRV_CHECK(hipMalloc(&d_y, bytes));
    DRV_CHECK(hipMemcpyHtoD(d_x, h_x.data(), bytes));
    DRV_CHECK(hipMemcpyHtoD(d_y, h_y.data(), bytes));

    float a = 2.0f;
    void* args[] = {&d_y, &d_x, &a, &n};
    unsigned int grid = (n + BLOCK_1D - 1) / BLOCK_1D;
    DRV_CHECK(hipModuleLaunchKernel(fn, grid, 1, 1, BLOCK_1D, 1, 1, 0, nullptr, args, nullptr));
    DRV_CHECK(hipCtxSynchronize());
    DRV_CHECK(hipMemcpyDtoH(h_y.data(), d_y, bytes));

    int bad = 0;
    for (int i = 0; i < n; ++i) {
        if (std::fabs(h_y[i] - (a * h_x[i] + 1.0f)) > 1e-5f) {
            ++bad;
        }
    }
    DRV_CHECK(hipFree(d_x));
    DRV_CHECK(hipFree(d_y));
    printf("scale_add: %d of %d wrong\n", bad, n);
    return bad == 0;
}

// Upload an image to a CUDA array and sample it through a texture object.
static bool run_texture(hipFunction_t fn, int width, int height)
{
    std::vector<float> h_img(width * height), h_out(width * height);
    for (int i = 0; i < width * height; ++i) {
        h_img[i] = static_cast<float>(i % 251);
    }

    const hipArray_Format format = HIP_AD_FORMAT_FLOAT;
    HIP_ARRAY_DESCRIPTOR desc;
    desc.Format = format;
    desc.NumChannels = 1;
    desc.Width = width;
    desc.Height = height;
    hipArray_t array;
    DRV_CHECK(hipArrayCreate(&array, &desc));

    hip_Memcpy2D copy = {};
    copy.srcMemoryType = hipMemoryTypeHost;
    copy.srcHost = h_img.data();
    copy.srcPitch = width * sizeof(float);
    copy.dstMemoryType = hipMemoryTypeArray;
    copy.dstArray = array;
    copy.WidthInBytes = width * sizeof(float);
    copy.Height = height;
    DRV_CHECK(hipMemcpyParam2D(&copy));

    HIP_RESOURCE_DESC res = {};
    res.resType = HIP_RESOURCE_TYPE_ARRAY;
    res.res.array.hArray = array;

    const HIPaddress_mode address = HIP_TR_ADDRESS_MODE_CLAMP;
    HIP_TEXTURE_DESC tex_desc = {};
    tex_desc.addressMode[0] = address;
    tex_desc.addressMode[1] = address;
    tex_desc.filterMode = HIP_TR_FILTER_MODE_POINT;
    tex_desc.flags = 0;

    hipTextureObject_t tex;
    DRV_CHECK(hipTexObjectCreate(&tex, &res, &tex_desc, nullptr));

    hipDeviceptr_t d_out;
    DRV_CHECK(hipMalloc(&d_out, h_out.size() * sizeof(float)));
    int shift = 3;
    void* args[] = {&d_out, &tex, &width, &height, &shift};
    unsigned int gx = (width + TILE_X - 1) / TILE_X, gy = (height + TILE_Y - 1) / TILE_Y;
    DRV_CHECK(hipModuleLaunchKernel(fn, gx, gy, 1, TILE_X, TILE_Y, 1, 0, nullptr, args, nullptr));
    DRV_CHECK(hipCtxSynchronize());
    DRV_CHECK(hipMemcpyDtoH(h_out.data(), d_out, h_out.size() * sizeof(float)));

    int bad = 0;
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            int sx = x + shift < width ? x + shift : width - 1;
            if (h_out[y * width + x] != h_img[y * width + sx]) {
                ++bad;
            }
        }
    }
    DRV_CHECK(hipTexObjectDestroy(tex));
    DRV_CHECK(hipArrayDestroy(array));
    DRV_CHECK(hipFree(d_out));
    printf("sample_shifted: %d of %d wrong\n", bad, width * height);
    return bad == 0;
}

int main(int argc, char** argv)
{
    const char* module_path = argc > 1 ? argv[1] : MODULE_PATH;
    DRV_CHECK(hipInit(0));
    int driver_version = 0, count = 0;
    DRV_CHECK(hipDriverGetVersion(&driver_version));
    DRV_CHECK(hipGetDeviceCount(&count));
    printf("driver %d, %d device(s)\n", driver_version, count);
    if (count == 0) {
        return EXIT_FAILURE;
    }

    hipDevice_t dev;
    DRV_CHECK(hipDeviceGet(&dev, 0));
    print_device(dev);
    if (!device_usable(dev)) {
        return EXIT_FAILURE;
    }

    // Let the driver pick spinning or yielding; ask for blocking sync with -b.
    unsigned int flags = hipDeviceScheduleAuto;
    if (argc > 2 && argv[2][0] == 'b') {
        flags = hipDeviceScheduleBlockingSync;
    }
    hipCtx_t ctx;
    DRV_CHECK(hipCtxCreate(&ctx, flags, dev));

    hipModule_t module;
    if (!drv_ok(hipModuleLoad(&module, module_path), module_path)) {
        hipCtxDestroy(ctx);
        return EXIT_FAILURE;
    }
    hipFunction_t scale_add, sample_shifted;
    DRV_CHECK(hipModuleGetFunction(&scale_add, module, "scale_add"));
    DRV_CHECK(hipModuleGetFunction(&sample_shifted, module, "sample_shifted"));

    bool ok = run_scale_add(scale_add, 1 << 20);
    ok = run_texture(sample_shifted, 300, 200) && ok;

    DRV_CHECK(hipModuleUnload(module));
    DRV_CHECK(hipCtxDestroy(ctx));
    printf("%s\n", ok ? "PASSED" : "FAILED");
    return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
