#pragma once
// Complex helpers for the FIR filter (host and device).
#include <hip/hip_runtime.h>
#include <hip/hip_complex.h>

__host__ __device__ inline hipFloatComplex cscale(hipFloatComplex z, float s) {
    return make_hipFloatComplex(hipCrealf(z) * s, hipCimagf(z) * s);
}

__device__ inline hipFloatComplex unit_phasor(float phase) {
    float s, c;
    __sincosf(phase, &s, &c);
    return make_hipFloatComplex(c, s);
}

__host__ __device__ inline float power(hipFloatComplex z) {
    return hipCrealf(hipCmulf(z, hipConjf(z)));
}
