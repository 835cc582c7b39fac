// rng_hist.cu - per-thread curand states feed a shared-memory histogram;
// the host API (curandGenerateUniform) fills a second buffer for comparison.
#include <cstdio>
#include <hiprand/hiprand.h>
#include <hiprand/hiprand_kernel.h>

#define BINS 64

static const char* curand_name(hiprandStatus_t s) {
    return s == HIPRAND_STATUS_SUCCESS ? "CURAND_STATUS_SUCCESS" : "curand failure";
}

#define CURAND_OK(call)                                                     \
    do {                                                                    \
        hiprandStatus_t st_ = (call);                                        \
        if (st_ != HIPRAND_STATUS_SUCCESS) {                                 \
            std::printf("%s failed: %s\n", #call, curand_name(st_));        \
            return 1;                                                       \
        }                                                                   \
    } while (0)

__global__ void setup_states(hiprandState* states, unsigned long long seed, int n) {
    int id = blockIdx.x * blockDim.x + threadIdx.x;
    if (id < n) hiprand_init(seed, id, 0, &states[id]);
}

__global__ void sample_histogram(hiprandState* states, unsigned int* hist, int draws, int n) {
    __shared__ unsigned int local[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) local[b] = 0;
    __syncthreads();
    int id = blockIdx.x * blockDim.x + threadIdx.x;
    if (id < n) {
        hiprandState s = states[id];  // a copy in registers, written back below
        for (int k = 0; k < draws; ++k) {
            float u = hiprand_uniform(&s);          // (0, 1]
            float g = hiprand_normal(&s) * 0.f;     // drawn to advance the state like the CPU reference
            int bin = min(BINS - 1, (int)((u + g) * BINS));
            atomicAdd(&local[bin], 1u);
        }
        states[id] = s;
    }
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) atomicAdd(&hist[b], local[b]);
}

int main() {
    const int n = 1 << 14, draws = 32;
    int block = 0, min_grid = 0;
    hipOccupancyMaxPotentialBlockSize(&min_grid, &block, sample_histogram, 0, 0);
    int dev = 0, sms = 0;
    hipGetDevice(&dev);
    hipDeviceGetAttribute(&sms, hipDeviceAttributeMultiprocessorCount, dev);

    hiprandState* states;
    unsigned int* d_hist;
    hipMalloc(&states, n * sizeof(hiprandState));
    hipMalloc(&d_hist, BINS * sizeof(unsigned int));
    hipMemset(d_hist, 0, BINS * sizeof(unsigned int));
    int grid = (n + block - 1) / block;
    setup_states<<<grid, block>>>(states, 1234ULL, n);
    sample_histogram<<<grid, block>>>(states, d_hist, draws, n);

    hiprandGenerator_t gen;
    float* d_uniform;
    hipMalloc(&d_uniform, n * sizeof(float));
    CURAND_OK(hiprandCreateGenerator(&gen, HIPRAND_RNG_PSEUDO_DEFAULT));
    CURAND_OK(hiprandSetPseudoRandomGeneratorSeed(gen, 1234ULL));
    CURAND_OK(hiprandGenerateUniform(gen, d_uniform, n));

    unsigned int hist[BINS];
    hipMemcpy(hist, d_hist, sizeof(hist), hipMemcpyDeviceToHost);
    hipError_t err = hipDeviceSynchronize();
    std::printf("%d SMs, block %d, first bin %u, status %s\n", sms, block, hist[0], hipGetErrorString(err));
    CURAND_OK(hiprandDestroyGenerator(gen));
    hipFree(d_uniform);
    hipFree(d_hist);
    hipFree(states);
    return err == hipSuccess ? 0 : 1;
}
