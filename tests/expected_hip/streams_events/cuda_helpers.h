// cuda_helpers.h - small utilities shared by the host and device code of the
// streams_events sample. Safe to include from plain C++ translation units:
// the parts that need the CUDA runtime or the CUDA compiler are guarded.
#ifndef STREAMS_EVENTS_CUDA_HELPERS_H
#define STREAMS_EVENTS_CUDA_HELPERS_H

#include <cstdio>
#include <cstdlib>

// Function qualifiers that collapse to nothing in a host-only compiler.
#ifdef __HIPCC__
#define HOST_DEVICE __host__ __device__
#define DEVICE_INLINE __device__ __forceinline__
#else
#define HOST_DEVICE
#define DEVICE_INLINE inline
#endif

// Integer ceiling division, usable for grid sizes on the host and for
// indexing on the device.
HOST_DEVICE inline int div_up(int a, int b) { return (a + b - 1) / b; }

#ifdef HIP_INCLUDE_HIP_HIP_RUNTIME_H
// Only available when cuda_runtime.h was included first.

// Abort with file/line information when a runtime call fails, e.g.
//   CUDA_CHECK(cudaMalloc(&ptr, bytes));
#define CUDA_CHECK(call)                                                        \
    do {                                                                        \
        hipError_t status_ = (call);                                           \
        if (status_ != hipSuccess) {                                           \
            fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__,  \
                    #call, hipGetErrorString(status_),                         \
                    hipGetErrorName(status_));                                 \
            exit(EXIT_FAILURE);                                                 \
        }                                                                       \
    } while (0)

// Check for launch errors right after a <<<...>>> launch; in debug builds
// also synchronise so that asynchronous faults are reported at the launch.
#ifdef NDEBUG
#define CUDA_CHECK_LAUNCH() CUDA_CHECK(hipGetLastError())
#else
#define CUDA_CHECK_LAUNCH()                                                     \
    do {                                                                        \
        CUDA_CHECK(hipGetLastError());                                         \
        CUDA_CHECK(hipDeviceSynchronize());                                    \
    } while (0)
#endif

// Print the device properties that matter for this sample.
inline void print_device_info(int device)
{
    hipDeviceProp_t prop;
    CUDA_CHECK(hipGetDeviceProperties(&prop, device));
    int clock_khz = 0;
    CUDA_CHECK(hipDeviceGetAttribute(&clock_khz, hipDeviceAttributeClockRate, device));

    printf("Device %d: \"%s\" (compute capability %d.%d)\n", device, prop.name,
           prop.major, prop.minor);
    printf("  global memory        : %.1f GiB\n", prop.totalGlobalMem / (1024.0 * 1024.0 * 1024.0));
    printf("  multiprocessors      : %d (max %d threads each)\n", prop.multiProcessorCount,
           prop.maxThreadsPerMultiProcessor);
    printf("  shared mem per block : %zu bytes (opt-in %zu)\n", prop.sharedMemPerBlock,
           prop.sharedMemPerBlockOptin);
    printf("  constant memory      : %zu bytes\n", prop.totalConstMem);
    printf("  warp size            : %d\n", prop.warpSize);
    printf("  L2 cache             : %d KiB\n", prop.l2CacheSize / 1024);
    printf("  memory bus width     : %d bits\n", prop.memoryBusWidth);
    printf("  clock rate           : %.0f MHz\n", clock_khz / 1000.0);
    printf("  copy engines         : %d, concurrent kernels: %s\n", prop.asyncEngineCount,
           prop.concurrentKernels ? "yes" : "no");
}

// RAII wrapper so that early returns do not leak events.
struct ScopedEvent {
    hipEvent_t ev;
    explicit ScopedEvent(unsigned flags = hipEventDefault) { CUDA_CHECK(hipEventCreateWithFlags(&ev, flags)); }
    ~ScopedEvent() { hipEventDestroy(ev); }
    ScopedEvent(const ScopedEvent&) = delete;
    ScopedEvent& operator=(const ScopedEvent&) = delete;
    operator hipEvent_t() const { return ev; }
};
#endif  // __CUDA_RUNTIME_H__

#endif  // STREAMS_EVENTS_CUDA_HELPERS_H
