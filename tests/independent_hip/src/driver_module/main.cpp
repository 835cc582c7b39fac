// main.cpp - loads kernels.cubin with the CUDA driver API and runs scale_add on the primary context.
#include <cstdio>
#include <vector>
#include <cuda.h>

#define DRV(call)                                                         \
    do {                                                                  \
        CUresult r_ = (call);                                             \
        if (r_ != CUDA_SUCCESS) {                                         \
            std::printf("%s failed with CUresult %d\n", #call, (int)r_);  \
            return 1;                                                     \
        }                                                                 \
    } while (0)

static const char* kModule = "kernels.cubin";

int main() {
    DRV(cuInit(0));
    int version = 0, count = 0;
    DRV(cuDriverGetVersion(&version));
    DRV(cuDeviceGetCount(&count));
    if (count == 0) return 0;

    CUdevice dev;
    DRV(cuDeviceGet(&dev, 0));
    char name[128];
    size_t total = 0;
    int sms = 0, max_threads = 0;
    DRV(cuDeviceGetName(name, sizeof(name), dev));
    DRV(cuDeviceTotalMem(&total, dev));
    DRV(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));
    DRV(cuDeviceGetAttribute(&max_threads, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, dev));
    std::printf("driver %d: %s, %zu MiB, %d SMs, %d threads/block\n", version, name, total >> 20, sms, max_threads);

    CUcontext ctx;
    DRV(cuDevicePrimaryCtxRetain(&ctx, dev));
    DRV(cuCtxSetCurrent(ctx));

    CUmodule mod;
    CUfunction scale_add, fill;
    DRV(cuModuleLoad(&mod, kModule));
    DRV(cuModuleGetFunction(&scale_add, mod, "scale_add"));
    DRV(cuModuleGetFunction(&fill, mod, "fill"));
    int regs = 0;
    DRV(cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, scale_add));

    const int n = 1 << 20;
    std::vector<float> host(n, 1.0f);
    CUdeviceptr d_x, d_y;
    DRV(cuMemAlloc(&d_x, n * sizeof(float)));
    DRV(cuMemAlloc(&d_y, n * sizeof(float)));
    DRV(cuMemcpyHtoD(d_x, host.data(), n * sizeof(float)));

    CUstream stream;
    DRV(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    float v = 2.0f, a = 3.0f;
    int count_n = n;
    void* fill_args[] = {&d_y, &v, &count_n};
    DRV(cuLaunchKernel(fill, 120, 1, 1, 256, 1, 1, 0, stream, fill_args, nullptr));
    void* args[] = {&d_y, &d_x, &a, &count_n};
    DRV(cuLaunchKernel(scale_add, (n + 255) / 256, 1, 1, 256, 1, 1, 0, stream, args, nullptr));
    DRV(cuStreamSynchronize(stream));
    DRV(cuMemcpyDtoH(host.data(), d_y, n * sizeof(float)));
    size_t free_b = 0, total_b = 0;
    DRV(cuMemGetInfo(&free_b, &total_b));
    std::printf("y[0] = %g (expect 5), %d registers, %zu MiB free\n", host[0], regs, free_b >> 20);

    DRV(cuStreamDestroy(stream));
    DRV(cuMemFree(d_x));
    DRV(cuMemFree(d_y));
    DRV(cuModuleUnload(mod));
    DRV(cuCtxSynchronize());
    DRV(cuDevicePrimaryCtxRelease(dev));
    return 0;
}
