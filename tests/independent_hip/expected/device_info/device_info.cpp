// device_info.cpp - host-only report of every visible GPU (compiled by the host compiler).
// Note: cudaGetDeviceProperties is slow on some drivers; attributes are read one by one too.
#include <cstdio>
#include <cstring>
#include <hip/hip_runtime_api.h>

static int report(hipError_t e, const char* what) {
    if (e == hipSuccess) return 0;
    std::printf("%s: %s (%s)\n", what, hipGetErrorName(e), hipGetErrorString(e));
    return 1;
}

int main() {
    int count = 0;
    hipError_t e = hipGetDeviceCount(&count);
    if (e == hipErrorNoDevice || count == 0) {
        std::printf("no CUDA device\n");
        return 0;
    }
    if (report(e, "cudaGetDeviceCount")) return 1;
    int driver = 0, runtime = 0;
    hipDriverGetVersion(&driver);
    hipRuntimeGetVersion(&runtime);
    std::printf("driver %d, runtime %d, %d device(s)\n", driver, runtime, count);

    for (int dev = 0; dev < count; ++dev) {
        hipDeviceProp_t prop;
        std::memset(&prop, 0, sizeof(prop));
        if (report(hipGetDeviceProperties(&prop, dev), "cudaGetDeviceProperties")) return 1;
        int warp = 0, smem = 0, major = 0, minor = 0, clock_khz = 0;
        hipDeviceGetAttribute(&warp, hipDeviceAttributeWarpSize, dev);
        hipDeviceGetAttribute(&smem, hipDeviceAttributeMaxSharedMemoryPerBlock, dev);
        hipDeviceGetAttribute(&major, hipDeviceAttributeComputeCapabilityMajor, dev);
        hipDeviceGetAttribute(&minor, hipDeviceAttributeComputeCapabilityMinor, dev);
        hipDeviceGetAttribute(&clock_khz, hipDeviceAttributeClockRate, dev);
        char bus[32];
        hipDeviceGetPCIBusId(bus, sizeof(bus), dev);
        std::printf("%d: %s at %s, %d SMs, warp %d, %d B shared/block, cc %d.%d, %d kHz, %zu MiB\n", dev, prop.name,
                    bus, prop.multiProcessorCount, warp, smem, major, minor, clock_khz, prop.totalGlobalMem >> 20);

        if (report(hipSetDevice(dev), "cudaSetDevice")) return 1;
        size_t free_b = 0, total_b = 0;
        hipMemGetInfo(&free_b, &total_b);
        std::printf("   free %zu of %zu MiB\n", free_b >> 20, total_b >> 20);
        for (int peer = 0; peer < count; ++peer) {
            int can = 0;
            if (peer == dev) continue;
            hipDeviceCanAccessPeer(&can, dev, peer);
            if (can) {
                hipError_t pe = hipDeviceEnablePeerAccess(peer, 0);
                if (pe == hipErrorPeerAccessAlreadyEnabled) hipGetLastError();  // clear it: not an error here
                std::printf("   peer %d reachable\n", peer);
            }
        }
    }

    // mapped (zero-copy) host memory on device 0
    hipSetDevice(0);
    hipSetDeviceFlags(hipDeviceScheduleBlockingSync | hipDeviceMapHost);
    float* host = nullptr;
    float* dev_view = nullptr;
    if (report(hipHostMalloc((void**)&host, 1024 * sizeof(float), hipHostMallocMapped), "cudaHostAlloc")) return 1;
    hipHostGetDevicePointer((void**)&dev_view, host, 0);
    std::printf("mapped host buffer %p is %p on the device\n", (void*)host, (void*)dev_view);
    hipHostFree(host);
    return report(hipDeviceSynchronize(), "cudaDeviceSynchronize");
}
