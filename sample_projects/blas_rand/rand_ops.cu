// rand_ops.cu - cuRAND host and device APIs, plus a cuComplex kernel.
#include <curand_kernel.h>

#include "checks.h"
#include "ops.h"

void fill_uniform(float* d_out, size_t n, unsigned long long seed, cudaStream_t stream)
{
    curandGenerator_t gen;
    CURAND_CHECK(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_DEFAULT));
    CURAND_CHECK(curandSetStream(gen, stream));
    CURAND_CHECK(curandSetPseudoRandomGeneratorSeed(gen, seed));
    CURAND_CHECK(curandGenerateUniform(gen, d_out, n));
    CURAND_CHECK(curandDestroyGenerator(gen));
}

// One curandState per thread; the subsequence number is the thread id so
// the streams are independent.
__global__ void pi_kernel(unsigned long long seed, int samples, unsigned long long* hits)
{
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    curandState state;
    curand_init(seed, tid, 0, &state);

    unsigned int inside = 0;
    for (int s = 0; s < samples; ++s) {
        float x = curand_uniform(&state);
        float y = curand_uniform(&state);
        if (x * x + y * y <= 1.0f) ++inside;
    }
    atomicAdd(hits, (unsigned long long)inside);
}

double estimate_pi(int blocks, int threads, int samples_per_thread, unsigned long long seed)
{
    unsigned long long* d_hits = nullptr;
    CUDA_CHECK(cudaMalloc(&d_hits, sizeof(unsigned long long)));
    CUDA_CHECK(cudaMemset(d_hits, 0, sizeof(unsigned long long)));

    pi_kernel<<<blocks, threads>>>(seed, samples_per_thread, d_hits);
    CUDA_CHECK(cudaGetLastError());

    unsigned long long hits = 0;
    CUDA_CHECK(cudaMemcpy(&hits, d_hits, sizeof(hits), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_hits));

    const double total = (double)blocks * threads * samples_per_thread;
    return 4.0 * (double)hits / total;
}

__global__ void complex_fma_kernel(const cuFloatComplex* a, const cuFloatComplex* b,
                                   const cuFloatComplex* c, cuFloatComplex* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = cuCaddf(cuCmulf(a[i], b[i]), c[i]);
}

void complex_fma(const cuFloatComplex* a, const cuFloatComplex* b, const cuFloatComplex* c,
                 cuFloatComplex* out, int n, cudaStream_t stream)
{
    const int threads = 256;
    complex_fma_kernel<<<(n + threads - 1) / threads, threads, 0, stream>>>(a, b, c, out, n);
    CUDA_CHECK(cudaGetLastError());
}
