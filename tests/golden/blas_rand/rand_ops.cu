// rand_ops.cu - cuRAND host and device APIs, plus a cuComplex kernel.
#include <hip/hip_complex.h>
#include <hiprand/hiprand_kernel.h>

#include "checks.h"
#include "ops.h"

void fill_uniform(float* d_out, size_t n, unsigned long long seed, hipStream_t stream)
{
    hiprandGenerator_t gen;
    CURAND_CHECK(hiprandCreateGenerator(&gen, HIPRAND_RNG_PSEUDO_DEFAULT));
    CURAND_CHECK(hiprandSetStream(gen, stream));
    CURAND_CHECK(hiprandSetPseudoRandomGeneratorSeed(gen, seed));
    CURAND_CHECK(hiprandGenerateUniform(gen, d_out, n));
    CURAND_CHECK(hiprandDestroyGenerator(gen));
}

// One curandState per thread; the subsequence number is the thread id so
// the streams are independent.
__global__ void pi_kernel(unsigned long long seed, int samples, unsigned long long* hits)
{
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    hiprandState state;
    hiprand_init(seed, tid, 0, &state);

    unsigned int inside = 0;
    for (int s = 0; s < samples; ++s) {
        float x = hiprand_uniform(&state);
        float y = hiprand_uniform(&state);
        if (x * x + y * y <= 1.0f) ++inside;
    }
    atomicAdd(hits, (unsigned long long)inside);
}

double estimate_pi(int blocks, int threads, int samples_per_thread, unsigned long long seed)
{
    unsigned long long* d_hits = nullptr;
    CUDA_CHECK(hipMalloc(&d_hits, sizeof(unsigned long long)));
    CUDA_CHECK(hipMemset(d_hits, 0, sizeof(unsigned long long)));

    pi_kernel<<<blocks, threads>>>(seed, samples_per_thread, d_hits);
    CUDA_CHECK(hipGetLastError());

    unsigned long long hits = 0;
    CUDA_CHECK(hipMemcpy(&hits, d_hits, sizeof(hits), hipMemcpyDeviceToHost));
    CUDA_CHECK(hipFree(d_hits));

    const double total = (double)blocks * threads * samples_per_thread;
    return 4.0 * (double)hits / total;
}

__global__ void complex_fma_kernel(const hipFloatComplex* a, const hipFloatComplex* b,
                                   const hipFloatComplex* c, hipFloatComplex* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = hipCaddf(hipCmulf(a[i], b[i]), c[i]);
}

void complex_fma(const hipFloatComplex* a, const hipFloatComplex* b, const hipFloatComplex* c,
                 hipFloatComplex* out, int n, hipStream_t stream)
{
    const int threads = 256;
    complex_fma_kernel<<<(n + threads - 1) / threads, threads, 0, stream>>>(a, b, c, out, n);
    CUDA_CHECK(hipGetLastError());
}
