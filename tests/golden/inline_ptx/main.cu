// main.cu - checks the inline-PTX helpers against host implementations and
// prints a couple of clock64-based measurements.
//
// Usage: inline_ptx [-n count] [--seed s] [--iters k]
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include <hip/hip_runtime.h>

#include "bitops.h"

#define CK(call)                                                              \
    do {                                                                      \
        hipError_t e = (call);                                               \
        if (e != hipSuccess) {                                               \
            fprintf(stderr, "%s failed: %s\n", #call, hipGetErrorString(e)); \
            return 1;                                                         \
        }                                                                     \
    } while (0)

// ---- host reference implementations ---------------------------------------
static unsigned ref_bfe(unsigned x, unsigned pos, unsigned len)
{
    return len >= 32 ? (x >> pos) : (x >> pos) & ((1u << len) - 1u);
}
static unsigned ref_bfi(unsigned src, unsigned dst, unsigned pos, unsigned len)
{
    const unsigned mask = ((1u << len) - 1u) << pos;
    return (dst & ~mask) | ((src << pos) & mask);
}
static unsigned ref_prmt(unsigned a, unsigned b, unsigned sel)
{
    const uint64_t pool = ((uint64_t)b << 32) | a;
    unsigned r = 0;
    for (int k = 0; k < 4; ++k) {
        const unsigned s = (sel >> (4 * k)) & 7u;
        r |= (unsigned)((pool >> (8 * s)) & 0xffu) << (8 * k);
    }
    return r;
}
static unsigned ref_rotl(unsigned x, unsigned n) { return n ? (x << n) | (x >> (32 - n)) : x; }
static unsigned ref_popc(unsigned x)
{
    unsigned c = 0;
    for (; x; x &= x - 1) ++c;
    return c;
}
static unsigned ref_brev(unsigned x)
{
    unsigned r = 0;
    for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i);
    return r;
}
static unsigned ref_bfind(unsigned x)
{
    for (int i = 31; i >= 0; --i)
        if (x >> i & 1u) return (unsigned)i;
    return 0xffffffffu;
}

static unsigned reference(int op, unsigned a, unsigned b, unsigned c)
{
    switch (op) {
    case OP_BFE: return ref_bfe(a, b & 31, 8);
    case OP_BFI: return ref_bfi(a, b, 4, 12);
    case OP_PRMT: return ref_prmt(a, b, 0x5140);
    case OP_ROTL: return ref_rotl(a, b & 31);
    case OP_LOP3: return (a & b) ^ c;
    case OP_MAJ: return (a & b) | (a & c) | (b & c);
    case OP_POPC: return ref_popc(a);
    case OP_BREV: return ref_brev(a);
    case OP_BFIND: return ref_bfind(a);
    case OP_MULHI: return (unsigned)(((uint64_t)a * b) >> 32);
    case OP_MADLO: return a * b + c;
    }
    return 0;
}

static const char* op_names[NUM_BIT_OPS] = {"bfe.u32", "bfi.b32", "prmt.b32", "shf.l.wrap.b32",
                                            "lop3.b32 (and-xor)", "lop3.b32 (majority)",
                                            "popc.b32", "brev.b32", "bfind.u32", "mul.hi.u32",
                                            "mad.lo.u32"};

int main(int argc, char** argv)
{
    int n = 1 << 16;
    unsigned seed = 99;
    int iters = 4096;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "-n") && i + 1 < argc) n = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--iters") && i + 1 < argc) iters = atoi(argv[++i]);
        else { fprintf(stderr, "usage: %s [-n count] [--seed s] [--iters k]\n", argv[0]); return 2; }
    }
    if (n <= 0 || iters <= 0) { fprintf(stderr, "n and iters must be positive\n"); return 2; }

    hipDeviceProp_t prop;
    CK(hipGetDeviceProperties(&prop, 0));
    printf("%s (sm_%d%d)\n", prop.name, prop.major, prop.minor);

    std::mt19937 rng(seed);
    std::vector<unsigned> a(n), b(n), c(n);
    for (int i = 0; i < n; ++i) { a[i] = rng(); b[i] = rng(); c[i] = rng(); }
    a[0] = 0;              // bfind of zero
    a[1] = 0x80000000u;    // highest bit only

    unsigned *da, *db, *dc, *dout;
    const size_t bytes = n * sizeof(unsigned);
    CK(hipMalloc(&da, bytes));
    CK(hipMalloc(&db, bytes));
    CK(hipMalloc(&dc, bytes));
    CK(hipMalloc(&dout, bytes * NUM_BIT_OPS));
    CK(hipMemcpy(da, a.data(), bytes, hipMemcpyHostToDevice));
    CK(hipMemcpy(db, b.data(), bytes, hipMemcpyHostToDevice));
    CK(hipMemcpy(dc, c.data(), bytes, hipMemcpyHostToDevice));

    run_bitops(da, db, dc, dout, n, 0);
    std::vector<unsigned> out((size_t)n * NUM_BIT_OPS);
    CK(hipMemcpy(out.data(), dout, out.size() * sizeof(unsigned), hipMemcpyDeviceToHost));

    int failures = 0;
    for (int op = 0; op < NUM_BIT_OPS; ++op) {
        int bad = 0;
        for (int i = 0; i < n; ++i) {
            const unsigned want = reference(op, a[i], b[i], c[i]);
            const unsigned got = out[(size_t)op * n + i];
            if (got != want && bad++ == 0)
                printf("  %s: element %d: got 0x%08x want 0x%08x\n", op_names[op], i, got, want);
        }
        printf("%-22s %s\n", op_names[op], bad ? "MISMATCH" : "ok");
        failures += bad != 0;
    }

    // fp16 conversion and read-only loads
    std::vector<float> f(n);
    std::uniform_real_distribution<float> dist(-70000.0f, 70000.0f);
    for (auto& v : f) v = dist(rng) * (rng() % 2 ? 1.0f : 1e-6f);
    float *df, *dcopy;
    unsigned short *dh_asm, *dh_int;
    CK(hipMalloc(&df, n * sizeof(float)));
    CK(hipMalloc(&dcopy, n * sizeof(float)));
    CK(hipMalloc(&dh_asm, n * sizeof(unsigned short)));
    CK(hipMalloc(&dh_int, n * sizeof(unsigned short)));
    CK(hipMemcpy(df, f.data(), n * sizeof(float), hipMemcpyHostToDevice));
    run_convert(df, dh_asm, dh_int, dcopy, n, 0);
    std::vector<unsigned short> h_asm(n), h_int(n);
    std::vector<float> copy(n);
    CK(hipMemcpy(h_asm.data(), dh_asm, n * sizeof(unsigned short), hipMemcpyDeviceToHost));
    CK(hipMemcpy(h_int.data(), dh_int, n * sizeof(unsigned short), hipMemcpyDeviceToHost));
    CK(hipMemcpy(copy.data(), dcopy, n * sizeof(float), hipMemcpyDeviceToHost));
    const bool cvt_ok = h_asm == h_int;
    const bool nc_ok = memcmp(copy.data(), f.data(), n * sizeof(float)) == 0;
    printf("%-22s %s\n", "cvt.rn.f16.f32", cvt_ok ? "ok" : "MISMATCH vs __float2half_rn");
    printf("%-22s %s\n", "ld.global.nc.f32", nc_ok ? "ok" : "MISMATCH");
    failures += !cvt_ok + !nc_ok;

    // single-pass sum with a fence and a ticket counter
    unsigned *dpartials, *dticket, *dtotal;
    CK(hipMalloc(&dpartials, 64 * sizeof(unsigned)));
    CK(hipMalloc(&dticket, sizeof(unsigned)));
    CK(hipMalloc(&dtotal, sizeof(unsigned)));
    CK(hipMemset(dticket, 0, sizeof(unsigned)));
    unsigned want_sum = 0, got_sum = 0;
    for (unsigned v : c) want_sum += v;
    for (int rep = 0; rep < 3; ++rep) {   // the kernel resets its ticket itself
        run_last_block_sum(dc, n, dpartials, dticket, dtotal, 0);
        CK(hipMemcpy(&got_sum, dtotal, sizeof(unsigned), hipMemcpyDeviceToHost));
        if (got_sum != want_sum) break;
    }
    printf("%-22s %s\n", "fence + ticket sum", got_sum == want_sum ? "ok" : "MISMATCH");
    failures += got_sum != want_sum;

    // clock64 measurements
    const int blocks = 4, threads = 128;
    std::vector<WarpSample> samples(blocks * threads / 32);
    const double cyc = measure_fma_latency(blocks, threads, iters, samples.data());
    printf("dependent FMA latency  %.2f cycles (warp 0 ran on SM %u, hw warp slot %u)\n", cyc,
           samples[0].sm, samples[0].hw_warp);
    printf("nanosleep(1000)        %.0f cycles\n", measure_sleep_cycles(1000));

    hipFree(da); hipFree(db); hipFree(dc); hipFree(dout);
    hipFree(df); hipFree(dcopy); hipFree(dh_asm); hipFree(dh_int);
    hipFree(dpartials); hipFree(dticket); hipFree(dtotal);

    printf("%s\n", failures ? "FAILED" : "all inline PTX checks passed");
    return failures ? 1 : 0;
}
