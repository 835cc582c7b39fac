// dynpar.cu - dynamic parallelism: a parent grid launches child grids from
// the device. Needs relocatable device code (-rdc=true) and cudadevrt.
#include <hip/hip_runtime.h>
#include "common.cuh"

__global__ void square_child(float* seg, int len)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < len) seg[i] = seg[i] * seg[i];
}

// One parent thread per segment; each launches a child grid sized for its
// segment into its own device-side stream so that the children may overlap.
__global__ void square_parent(float* data, int segments, int len)
{
    const int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= segments) return;
    hipStream_t child_stream;
    hipStreamCreateWithFlags(&child_stream, hipStreamNonBlocking);
    square_child<<<(len + 127) / 128, 128, 0, child_stream>>>(data + (size_t)s * len, len);
    if (hipGetLastError() != hipSuccess) printf("child launch for segment %d failed\n", s);
    hipStreamDestroy(child_stream);
    // The parent grid is only complete once every child has finished, so
    // the host-side synchronisation below covers the children too.
}

void segmented_square(float* d_data, int segments, int segment_len)
{
    square_parent<<<(segments + 31) / 32, 32>>>(d_data, segments, segment_len);
    CHECK(hipGetLastError());
    CHECK(hipDeviceSynchronize());
}
