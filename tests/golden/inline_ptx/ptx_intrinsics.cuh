// ptx_intrinsics.cuh - thin inline-PTX wrappers.
//
// Most of these have CUDA intrinsic equivalents (__popc, __brev, __umulhi,
// __byte_perm, __funnelshift_l, __ldg ...); the asm versions exist because
// this code base predates some of them and because they pin down exactly
// which instruction is emitted.
#pragma once

#include <cstdint>
#include <hip/hip_runtime.h>

namespace ptx {

// ---- special registers ----------------------------------------------------
__device__ __forceinline__ unsigned lane_id()
{
    unsigned lane;
    asm("mov.u32 %0, %%laneid;" : "=r"(lane));
    return lane;
}

// %warpid is the hardware warp slot on the SM; it may change during the
// lifetime of a thread and is only useful for profiling.
__device__ __forceinline__ unsigned hw_warp_id()
{
    unsigned w;
    asm volatile("mov.u32 %0, %%warpid;" : "=r"(w));
    return w;
}

__device__ __forceinline__ unsigned sm_id()
{
    unsigned s;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
    return s;
}

__device__ __forceinline__ unsigned long long clock64_ptx()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t));
    return t;
}

// ---- bit manipulation -----------------------------------------------------
// Extract `len` bits of `x` starting at bit `pos` (zero-extended).
__device__ __forceinline__ unsigned bfe(unsigned x, unsigned pos, unsigned len)
{
    unsigned r;
    asm("bfe.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(pos), "r"(len));
    return r;
}

// Insert the low `len` bits of `src` into `dst` at bit `pos`.
__device__ __forceinline__ unsigned bfi(unsigned src, unsigned dst, unsigned pos, unsigned len)
{
    unsigned r;
    asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(r) : "r"(src), "r"(dst), "r"(pos), "r"(len));
    return r;
}

// Byte permute: picks 4 bytes out of {b, a} according to the selector.
__device__ __forceinline__ unsigned prmt(unsigned a, unsigned b, unsigned selector)
{
    unsigned r;
    asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(selector));
    return r;
}

// Rotate left via the funnel shifter (both halves are the same word).
__device__ __forceinline__ unsigned rotl(unsigned x, unsigned n)
{
    unsigned r;
    asm("shf.l.wrap.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(x), "r"(n));
    return r;
}

// Arbitrary three-input logic function; LUT is the truth table evaluated on
// a = 0xF0, b = 0xCC, c = 0xAA.
template <unsigned LUT>
__device__ __forceinline__ unsigned lop3(unsigned a, unsigned b, unsigned c)
{
    unsigned r;
    asm("lop3.b32 %0, %1, %2, %3, %4;" : "=r"(r) : "r"(a), "r"(b), "r"(c), "n"(LUT));
    return r;
}
constexpr unsigned LOP3_AND_XOR = (0xF0 & 0xCC) ^ 0xAA;      // (a & b) ^ c
constexpr unsigned LOP3_MAJORITY = (0xF0 & 0xCC) | (0xF0 & 0xAA) | (0xCC & 0xAA);

__device__ __forceinline__ unsigned popc(unsigned x)
{
    unsigned r;
    asm("popc.b32 %0, %1;" : "=r"(r) : "r"(x));
    return r;
}

__device__ __forceinline__ unsigned brev(unsigned x)
{
    unsigned r;
    asm("brev.b32 %0, %1;" : "=r"(r) : "r"(x));
    return r;
}

// Index of the most significant set bit, 0xffffffff when x == 0.
__device__ __forceinline__ unsigned bfind(unsigned x)
{
    unsigned r;
    asm("bfind.u32 %0, %1;" : "=r"(r) : "r"(x));
    return r;
}

// ---- integer arithmetic ---------------------------------------------------
__device__ __forceinline__ unsigned mul_hi(unsigned a, unsigned b)
{
    unsigned r;
    asm("mul.hi.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
}

__device__ __forceinline__ unsigned mad_lo(unsigned a, unsigned b, unsigned c)
{
    unsigned r;
    asm("mad.lo.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
    return r;
}

// ---- memory and conversion ------------------------------------------------
// Load through the read-only (non-coherent) data cache.
__device__ __forceinline__ float ld_nc(const float* p)
{
    float v;
    asm volatile("ld.global.nc.f32 %0, [%1];" : "=f"(v) : "l"(p));
    return v;
}

// float -> fp16 bits, round to nearest even.
__device__ __forceinline__ unsigned short f32_to_f16_bits(float f)
{
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
}

// Make prior global writes visible to the whole device before later ones.
__device__ __forceinline__ void fence_gpu()
{
#if __CUDA_ARCH__ >= 700
    asm volatile("fence.acq_rel.gpu;" ::: "memory");
#else
    asm volatile("membar.gl;" ::: "memory");
#endif
}

// Back off for roughly `ns` nanoseconds (no-op before Volta).
__device__ __forceinline__ void sleep_ns(unsigned ns)
{
#if __CUDA_ARCH__ >= 700
    asm volatile("nanosleep.u32 %0;" ::"r"(ns));
#else
    (void)ns;
#endif
}

// Warp-wide sum of unsigned values: one instruction on sm_80+, shuffles before.
__device__ __forceinline__ unsigned warp_sum(unsigned v)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    unsigned r;
    asm volatile("redux.sync.add.u32 %0, %1, %2;" : "=r"(r) : "r"(v), "r"(0xffffffffu));
    return r;
#else
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    return v;
#endif
}

}  // namespace ptx
