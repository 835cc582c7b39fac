// fir.cu - complex FIR filter with a mixer, the peak power by atomicMax on the
// float's bits, and a bit-statistics kernel (__popc, __clz, __brev, __ffs).
#include "fir_math.h"
#include <cstdio>
#include <cstring>
#include <vector>

constexpr int kTaps = 32;

__global__ void fir_mix(const hipFloatComplex* in, const float* taps, hipFloatComplex* out, int* peak_bits,
                        float freq, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    hipFloatComplex acc = make_hipFloatComplex(0.f, 0.f);
    for (int t = 0; t < kTaps && t <= i; ++t) acc = hipCaddf(acc, cscale(in[i - t], taps[t]));
    acc = hipCmulf(acc, unit_phasor(freq * i));
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
    std::vector<hipFloatComplex> h_in(n);
    for (int i = 0; i < n; ++i) h_in[i] = make_hipFloatComplex(i % 5, -(i % 3));
    std::vector<float> h_taps(kTaps, 1.0f / kTaps);

    hipFloatComplex *d_in, *d_out;
    float* d_taps;
    int* d_peak;
    hipMalloc(&d_in, n * sizeof(hipFloatComplex));
    hipMalloc(&d_out, n * sizeof(hipFloatComplex));
    hipMalloc(&d_taps, kTaps * sizeof(float));
    hipMalloc(&d_peak, sizeof(int));
    hipMemset(d_peak, 0, sizeof(int));
    hipMemcpy(d_in, h_in.data(), n * sizeof(hipFloatComplex), hipMemcpyHostToDevice);
    hipMemcpy(d_taps, h_taps.data(), kTaps * sizeof(float), hipMemcpyHostToDevice);
    fir_mix<<<n / 256, 256>>>(d_in, d_taps, d_out, d_peak, 0.01f, n);

    unsigned int* d_words;
    int* d_counts;
    hipMalloc(&d_words, n * sizeof(unsigned int));
    hipMalloc(&d_counts, 5 * sizeof(int));
    hipMemcpy(d_words, d_in, n * sizeof(unsigned int), hipMemcpyDeviceToDevice);
    hipMemset(d_counts, 0, 5 * sizeof(int));
    bit_stats<<<n / 256, 256>>>(d_words, d_counts, n);

    int peak_bits = 0, counts[5];
    hipMemcpy(&peak_bits, d_peak, sizeof(int), hipMemcpyDeviceToHost);
    hipMemcpy(counts, d_counts, sizeof(counts), hipMemcpyDeviceToHost);
    float peak;
    std::memcpy(&peak, &peak_bits, sizeof(float));
    std::printf("peak %g, popc %d, |h[1]|^2 = %g\n", peak, counts[0], power(h_in[1]));
    hipFree(d_counts);
    hipFree(d_words);
    hipFree(d_peak);
    hipFree(d_taps);
    hipFree(d_out);
    hipFree(d_in);
    return 0;
}
