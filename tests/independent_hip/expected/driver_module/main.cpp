// main.cpp - loads kernels.cubin with the CUDA driver API and runs scale_add on the primary context.
#include <cstdio>
#include <vector>
#include <hip/hip_runtime_api.h>

#define DRV(call)                                                         \
    do {                                                                  \
        hipError_t r_ = (call);                                             \
        if (r_ != hipSuccess) {                                         \
            std::printf("%s failed with CUresult %d\n", #call, (int)r_);  \
            return 1;                                                     \
        }                                                                 \
    } while (0)

static const char* kModule = "kernels.cubin";

int main() {
    DRV(hipInit(0));
    int version = 0, count = 0;
    DRV(hipDriverGetVersion(&version));
    DRV(hipGetDeviceCount(&count));
    if (count == 0) return 0;

    hipDevice_t dev;
    DRV(hipDeviceGet(&dev, 0));
    char name[128];
    size_t total = 0;
    int sms = 0, max_threads = 0;
    DRV(hipDeviceGetName(name, sizeof(name), dev));
    DRV(hipDeviceTotalMem(&total, dev));
    DRV(hipDeviceGetAttribute(&sms, hipDeviceAttributeMultiprocessorCount, dev));
    DRV(hipDeviceGetAttribute(&max_threads, hipDeviceAttributeMaxThreadsPerBlock, dev));
    std::printf("driver %d: %s, %zu MiB, %d SMs, %d threads/block\n", version, name, total >> 20, sms, max_threads);

    hipCtx_t ctx;
    DRV(hipDevicePrimaryCtxRetain(&ctx, dev));
    DRV(hipCtxSetCurrent(ctx));

    hipModule_t mod;
    hipFunction_t scale_add, fill;
    DRV(hipModuleLoad(&mod, kModule));
    DRV(hipModuleGetFunction(&scale_add, mod, "scale_add"));
    DRV(hipModuleGetFunction(&fill, mod, "fill"));
    int regs = 0;
    DRV(hipFuncGetAttribute(&regs, HIP_FUNC_ATTRIBUTE_NUM_REGS, scale_add));

    const int n = 1 << 20;
    std::vector<float> host(n, 1.0f);
    hipDeviceptr_t d_x, d_y;
    DRV(hipMalloc(&d_x, n * sizeof(float)));
    DRV(hipMalloc(&d_y, n * sizeof(float)));
    DRV(hipMemcpyHtoD(d_x, host.data(), n * sizeof(float)));

    hipStream_t stream;
    DRV(hipStreamCreateWithFlags(&stream, hipStreamNonBlocking));
    float v = 2.0f, a = 3.0f;
    int count_n = n;
    void* fill_args[] = {&d_y, &v, &count_n};
    DRV(hipModuleLaunchKernel(fill, 120, 1, 1, 256, 1, 1, 0, stream, fill_args, nullptr));
    void* args[] = {&d_y, &d_x, &a, &count_n};
    DRV(hipModuleLaunchKernel(scale_add, (n + 255) / 256, 1, 1, 256, 1, 1, 0, stream, args, nullptr));
    DRV(hipStreamSynchronize(stream));
    DRV(hipMemcpyDtoH(host.data(), d_y, n * sizeof(float)));
    size_t free_b = 0, total_b = 0;
    DRV(hipMemGetInfo(&free_b, &total_b));
    std::printf("y[0] = %g (expect 5), %d registers, %zu MiB free\n", host[0], regs, free_b >> 20);

    DRV(hipStreamDestroy(stream));
    DRV(hipFree(d_x));
    DRV(hipFree(d_y));
    DRV(hipModuleUnload(mod));
    DRV(hipCtxSynchronize());
    DRV(hipDevicePrimaryCtxRelease(dev));
    return 0;
}
