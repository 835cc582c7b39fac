// nbody.cu - all-pairs n-body step on a stream, timed with events.
// The upload uses cudaMemcpyAsync from pinned memory (cudaMallocHost).
#include <cstdio>
#include <cstdlib>
#include <hip/hip_runtime.h>
#include "nbody.cuh"

#define CUDA_TRY(call)                                                        \
    do {                                                                      \
        hipError_t err_ = (call);                                            \
        if (err_ != hipSuccess) {                                            \
            std::fprintf(stderr, "CUDA error %s at %s:%d\n",                  \
                         hipGetErrorString(err_), __FILE__, __LINE__);       \
            std::exit(1);                                                     \
        }                                                                     \
    } while (0)

__constant__ SimParams c_params;

__global__ void integrate(const float4* __restrict__ pos, float4* __restrict__ out, float3* vel) {
    extern __shared__ float4 tile[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float4 me = i < c_params.n ? pos[i] : make_float4(0.f, 0.f, 0.f, 0.f);
    float3 acc = make_float3(0.f, 0.f, 0.f);
    for (int base = 0; base < c_params.n; base += blockDim.x) {
        int j = base + threadIdx.x;
        tile[threadIdx.x] = j < c_params.n ? pos[j] : make_float4(0.f, 0.f, 0.f, 0.f);
        __syncthreads();
        for (int k = 0; k < blockDim.x; ++k) acc = body_accel(me, tile[k], acc, c_params.softening2);
        __syncthreads();
    }
    if (i < c_params.n) {
        float3 v = vel[i];
        v.x += acc.x * c_params.dt; v.y += acc.y * c_params.dt; v.z += acc.z * c_params.dt;
        vel[i] = v;
        out[i] = make_float4(me.x + v.x * c_params.dt, me.y + v.y * c_params.dt, me.z + v.z * c_params.dt, me.w);
    }
}

int main() {
    const int n = 4096, threads = 256;
    SimParams p = {0.01f, 1e-3f, n};
    CUDA_TRY(hipMemcpyToSymbol(HIP_SYMBOL(c_params), &p, sizeof(SimParams)));
    SimParams check;
    CUDA_TRY(hipMemcpyFromSymbol(&check, HIP_SYMBOL(c_params), sizeof(SimParams)));

    float4* h_pos = nullptr;
    CUDA_TRY(hipHostMalloc(&h_pos, n * sizeof(float4)));
    for (int i = 0; i < n; ++i) h_pos[i] = make_float4(i % 17, i % 13, i % 11, 1.0f);

    float4 *d_pos, *d_out;
    float3* d_vel;
    CUDA_TRY(hipMalloc(&d_pos, n * sizeof(float4)));
    CUDA_TRY(hipMalloc(&d_out, n * sizeof(float4)));
    CUDA_TRY(hipMalloc(&d_vel, n * sizeof(float3)));
    CUDA_TRY(hipMemset(d_vel, 0, n * sizeof(float3)));

    hipStream_t stream;
    CUDA_TRY(hipStreamCreateWithFlags(&stream, hipStreamNonBlocking));
    hipEvent_t start, stop;
    CUDA_TRY(hipEventCreate(&start));
    CUDA_TRY(hipEventCreate(&stop));

    CUDA_TRY(hipEventRecord(start, stream));
    CUDA_TRY(hipMemcpyAsync(d_pos, h_pos, n * sizeof(float4), hipMemcpyHostToDevice, stream));
    integrate<<<(n + threads - 1) / threads, threads, threads * sizeof(float4), stream>>>(d_pos, d_out, d_vel);
    CUDA_TRY(hipGetLastError());
    CUDA_TRY(hipMemcpyAsync(h_pos, d_out, n * sizeof(float4), hipMemcpyDeviceToHost, stream));
    CUDA_TRY(hipEventRecord(stop, stream));
    CUDA_TRY(hipEventSynchronize(stop));
    float ms = 0.f;
    CUDA_TRY(hipEventElapsedTime(&ms, start, stop));
    CUDA_TRY(hipStreamSynchronize(stream));
    std::printf("step: %.3f ms (cudaMemcpyAsync both ways), dt %g, body 0 at %g\n", ms, check.dt, h_pos[0].x);

    CUDA_TRY(hipEventDestroy(start));
    CUDA_TRY(hipEventDestroy(stop));
    CUDA_TRY(hipStreamDestroy(stream));
    CUDA_TRY(hipFree(d_pos));
    CUDA_TRY(hipFree(d_out));
    CUDA_TRY(hipFree(d_vel));
    CUDA_TRY(hipHostFree(h_pos));
    CUDA_TRY(hipDeviceReset());
    return 0;
}
