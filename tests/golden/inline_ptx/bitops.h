// bitops.h - host interface of the inline-PTX sample.
#pragma once

#include <hip/hip_runtime.h>

enum BitOp {
    OP_BFE,     // bfe(a, b & 31, 8)
    OP_BFI,     // bfi(a, b, 4, 12)
    OP_PRMT,    // prmt(a, b, 0x5140)
    OP_ROTL,    // rotl(a, b & 31)
    OP_LOP3,    // (a & b) ^ c
    OP_MAJ,     // majority(a, b, c)
    OP_POPC,    // popc(a)
    OP_BREV,    // brev(a)
    OP_BFIND,   // bfind(a)
    OP_MULHI,   // mul.hi(a, b)
    OP_MADLO,   // a * b + c (low 32 bits)
    NUM_BIT_OPS
};

// out must hold NUM_BIT_OPS * n values laid out op-major.
void run_bitops(const unsigned* a, const unsigned* b, const unsigned* c, unsigned* out, int n,
                hipStream_t stream);

// fp16 conversion through cvt.rn.f16.f32 and through __float2half_rn, plus
// a copy through ld.global.nc.
void run_convert(const float* in, unsigned short* h_asm, unsigned short* h_intrinsic,
                 float* copy, int n, hipStream_t stream);

// Single-pass sum: every block adds its partial, the last block to finish
// (detected with a fence + atomic ticket) writes the total.
void run_last_block_sum(const unsigned* in, int n, unsigned* partials, unsigned* ticket,
                        unsigned* total, hipStream_t stream);

// ---- timing.cu ----
struct WarpSample {
    unsigned sm;
    unsigned hw_warp;
    unsigned long long start;
    unsigned long long stop;
};

// Each warp runs `iters` dependent multiply-adds and records its start/stop
// clock64 values; returns the average cycles per iteration over all warps.
double measure_fma_latency(int blocks, int threads, int iters, WarpSample* h_samples);
// Measured length of a nanosleep in clock cycles (0 before sm_70).
double measure_sleep_cycles(unsigned ns);
