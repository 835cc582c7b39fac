// fir.cu - complex FIR filter with a mixer, the peak power by atomicMax on the
// float's bits, and a bit-statistics kernel (__popc, __clz, __brev, __ffs).
#include "fir_math.h"
#include <cstdio>
#include <cstring>
#include <vector>

constexpr int kTaps = 32;

__global__ void fir_mix(const cuFloatComplex* in, const float* taps, cuFloatComplex* out, int* peak_bits,
                        float freq, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    cuFloatComplex acc = make_cuFloatComplex(0.f, 0.f);
    for (int t = 0; t < kTaps && t <= i; ++t) acc = cuCaddf(acc, cscale(in[i - t], taps[t]));
    acc = cuCmulf(acc, unit_phasor(freq * i));
    out[i] = acc;
    float p = __saturatef(__fdividef(power(acc), 1000.f));
    atomicMax(peak_bits, __float_as_int(p));  // non-negative floats order like their bits
}

__global__ void bit_stats(const unsigned int* words, int* counts, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned int w = words[i];
    atomicAdd(&counts[0], __popc(w));
    atomicAdd(&counts[1], __clz(w));
    atomicAdd(&counts[2], __ffs(w));
    atomicExch(&counts[3], (int)__brev(w));
    __threadfence();
    atomicCAS(&counts[4], 0, __umul24(i, 3));
}

int main() {
    const int n = 1 << 16;
    std::vector<cuFloatComplex> h_in(n);
    for (int i = 0; i < n; ++i) h_in[i] = make_cuFloatComplex(i % 5, -(i % 3));
    std::vector<float> h_taps(kTaps, 1.0f / kTaps);

    cuFloatComplex *d_in, *d_out;
    float* d_taps;
    int* d_peak;
    cudaMalloc(&d_in, n * sizeof(cuFloatComplex));
    cudaMalloc(&d_out, n * sizeof(cuFloatComplex));
    cudaMalloc(&d_taps, kTaps * sizeof(float));
    cudaMalloc(&d_peak, sizeof(int));
    cudaMemset(d_peak, 0, sizeof(int));
    cudaMemcpy(d_in, h_in.data(), n * sizeof(cuFloatComplex), cudaMemcpyHostToDevice);
    cudaMemcpy(d_taps, h_taps.data(), kTaps * sizeof(float), cudaMemcpyHostToDevice);
    fir_mix<<<n / 256, 256>>>(d_in, d_taps, d_out, d_peak, 0.01f, n);

    unsigned int* d_words;
    int* d_counts;
    cudaMalloc(&d_words, n * sizeof(unsigned int));
    cudaMalloc(&d_counts, 5 * sizeof(int));
    cudaMemcpy(d_words, d_in, n * sizeof(unsigned int), cudaMemcpyDeviceToDevice);
    cudaMemset(d_counts, 0, 5 * sizeof(int));
    bit_stats<<<n / 256, 256>>>(d_words, d_counts, n);

    int peak_bits = 0, counts[5];
    cudaMemcpy(&peak_bits, d_peak, sizeof(int), cudaMemcpyDeviceToHost);
    cudaMemcpy(counts, d_counts, sizeof(counts), cudaMemcpyDeviceToHost);
    float peak;
    std::memcpy(&peak, &peak_bits, sizeof(float));
    std::printf("peak %g, popc %d, |h[1]|^2 = %g\n", peak, counts[0], power(h_in[1]));
    cudaFree(d_counts);
    cudaFree(d_words);
    cudaFree(d_peak);
    cudaFree(d_taps);
    cudaFree(d_out);
    cudaFree(d_in);
    return 0;
}
