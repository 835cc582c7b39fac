// rng_hist.cu - per-thread curand states feed a shared-memory histogram;
// the host API (curandGenerateUniform) fills a second buffer for comparison.
#include <cstdio>
#include <curand.h>
#include <curand_kernel.h>

#define BINS 64

static const char* curand_name(curandStatus_t s) {
    return s == CURAND_STATUS_SUCCESS ? "CURAND_STATUS_SUCCESS" : "curand failure";
}

#define CURAND_OK(call)                                                     \
    do {                                                                    \
        curandStatus_t st_ = (call);                                        \
        if (st_ != CURAND_STATUS_SUCCESS) {                                 \
            std::printf("%s failed: %s\n", #call, curand_name(st_));        \
            return 1;                                                       \
        }                                                                   \
    } while (0)

__global__ void setup_states(curandState* states, unsigned long long seed, int n) {
    int id = blockIdx.x * blockDim.x + threadIdx.x;
    if (id < n) curand_init(seed, id, 0, &states[id]);
}

__global__ void sample_histogram(curandState* states, unsigned int* hist, int draws, int n) {
    __shared__ unsigned int local[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) local[b] = 0;
    __syncthreads();
    int id = blockIdx.x * blockDim.x + threadIdx.x;
    if (id < n) {
        curandState s = states[id];  // a copy in registers, written back below
        for (int k = 0; k < draws; ++k) {
            float u = curand_uniform(&s);          // (0, 1]
            float g = curand_normal(&s) * 0.f;     // drawn to advance the state like the CPU reference
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
    cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, sample_histogram, 0, 0);
    int dev = 0, sms = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);

    curandState* states;
    unsigned int* d_hist;
    cudaMalloc(&states, n * sizeof(curandState));
    cudaMalloc(&d_hist, BINS * sizeof(unsigned int));
    cudaMemset(d_hist, 0, BINS * sizeof(unsigned int));
    int grid = (n + block - 1) / block;
    setup_states<<<grid, block>>>(states, 1234ULL, n);
    sample_histogram<<<grid, block>>>(states, d_hist, draws, n);

    curandGenerator_t gen;
    float* d_uniform;
    cudaMalloc(&d_uniform, n * sizeof(float));
    CURAND_OK(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_DEFAULT));
    CURAND_OK(curandSetPseudoRandomGeneratorSeed(gen, 1234ULL));
    CURAND_OK(curandGenerateUniform(gen, d_uniform, n));

    unsigned int hist[BINS];
    cudaMemcpy(hist, d_hist, sizeof(hist), cudaMemcpyDeviceToHost);
    cudaError_t err = cudaDeviceSynchronize();
    std::printf("%d SMs, block %d, first bin %u, status %s\n", sms, block, hist[0], cudaGetErrorString(err));
    CURAND_OK(curandDestroyGenerator(gen));
    cudaFree(d_uniform);
    cudaFree(d_hist);
    cudaFree(states);
    return err == cudaSuccess ? 0 : 1;
}
