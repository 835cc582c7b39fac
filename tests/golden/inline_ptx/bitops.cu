// bitops.cu - kernels that apply the inline-PTX helpers element-wise.
#include <hip/hip_runtime.h>
#include <cstdio>
#include <hip/hip_fp16.h>

#include "bitops.h"
#include "ptx_intrinsics.cuh"

__global__ void bitops_kernel(const unsigned* __restrict__ a, const unsigned* __restrict__ b,
                              const unsigned* __restrict__ c, unsigned* __restrict__ out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned x = a[i], y = b[i], z = c[i];
    out[OP_BFE * n + i] = ptx::bfe(x, y & 31, 8);
    out[OP_BFI * n + i] = ptx::bfi(x, y, 4, 12);
    out[OP_PRMT * n + i] = ptx::prmt(x, y, 0x5140);
    out[OP_ROTL * n + i] = ptx::rotl(x, y & 31);
    out[OP_LOP3 * n + i] = ptx::lop3<ptx::LOP3_AND_XOR>(x, y, z);
    out[OP_MAJ * n + i] = ptx::lop3<ptx::LOP3_MAJORITY>(x, y, z);
    out[OP_POPC * n + i] = ptx::popc(x);
    out[OP_BREV * n + i] = ptx::brev(x);
    out[OP_BFIND * n + i] = ptx::bfind(x);
    out[OP_MULHI * n + i] = ptx::mul_hi(x, y);
    out[OP_MADLO * n + i] = ptx::mad_lo(x, y, z);
}

__global__ void convert_kernel(const float* __restrict__ in, unsigned short* h_asm,
                               unsigned short* h_intrinsic, float* copy, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float v = ptx::ld_nc(in + i);
    h_asm[i] = ptx::f32_to_f16_bits(v);
    h_intrinsic[i] = __half_as_ushort(__float2half_rn(v));
    copy[i] = v;
}

__global__ void last_block_sum_kernel(const unsigned* __restrict__ in, int n, unsigned* partials,
                                      unsigned* ticket, unsigned* total)
{
    __shared__ unsigned warp_sums[32];
    __shared__ bool is_last;
    const unsigned lane = ptx::lane_id();
    const unsigned warp = threadIdx.x / 32;

    unsigned v = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        v += in[i];
    v = ptx::warp_sum(v);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();

    if (threadIdx.x == 0) {
        unsigned s = 0;
        for (unsigned w = 0; w < blockDim.x / 32; ++w) s += warp_sums[w];
        partials[blockIdx.x] = s;
        // The partial must be visible device-wide before we take a ticket.
        ptx::fence_gpu();
        const unsigned t = atomicAdd(ticket, 1u);
        is_last = (t == gridDim.x - 1);
    }
    __syncthreads();

    if (is_last && threadIdx.x == 0) {
        unsigned s = 0;
        for (unsigned blk = 0; blk < gridDim.x; ++blk) {
            // volatile read: partials written by other blocks, not cached here.
            s += ((volatile unsigned*)partials)[blk];
        }
        *total = s;
        *ticket = 0;   // ready for the next launch
    }
}

static void check(const char* what)
{
    hipError_t e = hipGetLastError();
    if (e != hipSuccess) {
        fprintf(stderr, "%s: %s\n", what, hipGetErrorString(e));
        exit(1);
    }
}

void run_bitops(const unsigned* a, const unsigned* b, const unsigned* c, unsigned* out, int n,
                hipStream_t stream)
{
    bitops_kernel<<<(n + 255) / 256, 256, 0, stream>>>(a, b, c, out, n);
    check("bitops_kernel");
}

void run_convert(const float* in, unsigned short* h_asm, unsigned short* h_intrinsic, float* copy,
                 int n, hipStream_t stream)
{
    convert_kernel<<<(n + 255) / 256, 256, 0, stream>>>(in, h_asm, h_intrinsic, copy, n);
    check("convert_kernel");
}

void run_last_block_sum(const unsigned* in, int n, unsigned* partials, unsigned* ticket,
                        unsigned* total, hipStream_t stream)
{
    last_block_sum_kernel<<<64, 256, 0, stream>>>(in, n, partials, ticket, total);
    check("last_block_sum_kernel");
}
