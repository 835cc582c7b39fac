#pragma once
// Complex helpers for the FIR filter (host and device).
#include <cuComplex.h>

__host__ __device__ inline cuFloatComplex cscale(cuFloatComplex z, float s) {
    return make_cuFloatComplex(cuCrealf(z) * s, cuCimagf(z) * s);
}

__device__ inline cuFloatComplex unit_phasor(float phase) {
    float s, c;
    __sincosf(phase, &s, &c);
    return make_cuFloatComplex(c, s);
}

__host__ __device__ inline float power(cuFloatComplex z) {
    return cuCrealf(cuCmulf(z, cuConjf(z)));
}
