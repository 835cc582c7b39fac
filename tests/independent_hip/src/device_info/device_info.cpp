// device_info.cpp - host-only report of every visible GPU (compiled by the host compiler).
// Note: cudaGetDeviceProperties is slow on some drivers; attributes are read one by one too.
#include <cstdio>
#include <cstring>
#include <cuda_runtime_api.h>

static int report(cudaError_t e, const char* what) {
    if (e == cudaSuccess) return 0;
    std::printf("%s: %s (%s)\n", what, cudaGetErrorName(e), cudaGetErrorString(e));
    return 1;
}

int main() {
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e == cudaErrorNoDevice || count == 0) {
        std::printf("no CUDA device\n");
        return 0;
    }
    if (report(e, "cudaGetDeviceCount")) return 1;
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    std::printf("driver %d, runtime %d, %d device(s)\n", driver, runtime, count);

    for (int dev = 0; dev < count; ++dev) {
        cudaDeviceProp prop;
        std::memset(&prop, 0, sizeof(prop));
        if (report(cudaGetDeviceProperties(&prop, dev), "cudaGetDeviceProperties")) return 1;
        int warp = 0, smem = 0, major = 0, minor = 0, clock_khz = 0;
        cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, dev);
        cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlock, dev);
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
        cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev);
        char bus[32];
        cudaDeviceGetPCIBusId(bus, sizeof(bus), dev);
        std::printf("%d: %s at %s, %d SMs, warp %d, %d B shared/block, cc %d.%d, %d kHz, %zu MiB\n", dev, prop.name,
                    bus, prop.multiProcessorCount, warp, smem, major, minor, clock_khz, prop.totalGlobalMem >> 20);

        if (report(cudaSetDevice(dev), "cudaSetDevice")) return 1;
        size_t free_b = 0, total_b = 0;
        cudaMemGetInfo(&free_b, &total_b);
        std::printf("   free %zu of %zu MiB\n", free_b >> 20, total_b >> 20);
        for (int peer = 0; peer < count; ++peer) {
            int can = 0;
            if (peer == dev) continue;
            cudaDeviceCanAccessPeer(&can, dev, peer);
            if (can) {
                cudaError_t pe = cudaDeviceEnablePeerAccess(peer, 0);
                if (pe == cudaErrorPeerAccessAlreadyEnabled) cudaGetLastError();  // clear it: not an error here
                std::printf("   peer %d reachable\n", peer);
            }
        }
    }

    // mapped (zero-copy) host memory on device 0
    cudaSetDevice(0);
    cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync | cudaDeviceMapHost);
    float* host = nullptr;
    float* dev_view = nullptr;
    if (report(cudaHostAlloc((void**)&host, 1024 * sizeof(float), cudaHostAllocMapped), "cudaHostAlloc")) return 1;
    cudaHostGetDevicePointer((void**)&dev_view, host, 0);
    std::printf("mapped host buffer %p is %p on the device\n", (void*)host, (void*)dev_view);
    cudaFreeHost(host);
    return report(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}
