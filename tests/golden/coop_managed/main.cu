// main.cu - driver for the coop_managed sample: cooperative grid sync on
// managed memory, texture gathers, SIMD byte adds and dynamic parallelism.
//
// Usage: coop_managed [-n elements] [--segments S] [--segment-len L]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <hip/hip_runtime.h>

#include "common.cuh"

static int g_failures = 0;
static void verdict(const char* name, bool ok)
{
    printf("%-34s %s\n", name, ok ? "PASS" : "FAIL");
    g_failures += !ok;
}

int main(int argc, char** argv)
{
    int n = 1 << 22, segments = 64, seg_len = 4096;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "-n") && i + 1 < argc) n = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--segments") && i + 1 < argc) segments = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--segment-len") && i + 1 < argc) seg_len = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: %s [-n elements] [--segments S] [--segment-len L]\n", argv[0]);
            return 2;
        }
    }
    if (n <= 0 || segments <= 0 || seg_len <= 0) { fprintf(stderr, "sizes must be positive\n"); return 2; }

    int device = 0;
    CHECK(hipSetDevice(device));
    hipDeviceProp_t prop;
    CHECK(hipGetDeviceProperties(&prop, device));
    printf("%s: managed memory %s, concurrent managed access %s, cooperative launch %s\n", prop.name,
           prop.managedMemory ? "yes" : "no", prop.concurrentManagedAccess ? "yes" : "no",
           prop.cooperativeLaunch ? "yes" : "no");

    // ---- cooperative normalisation on managed memory ------------------------
    float* data = nullptr;
    float* norm = nullptr;
    CHECK(hipMallocManaged(&data, n * sizeof(float)));
    CHECK(hipMallocManaged(&norm, sizeof(float)));
    double ref_sq = 0.0;
    for (int i = 0; i < n; ++i) {   // first touch on the host
        data[i] = (float)((i % 101) - 50) / 50.0f;
        ref_sq += (double)data[i] * data[i];
    }
    std::vector<float> original(data, data + n);

    hipStream_t stream;
    CHECK(hipStreamCreate(&stream));
    if (prop.concurrentManagedAccess) {
        // Move the pages before the kernel instead of faulting them in.
        prefetch_to(data, n * sizeof(float), device, stream);
        CHECK(hipStreamSynchronize(stream));
    }

    if (normalize_cooperative(data, n, norm)) {
        if (prop.concurrentManagedAccess) {
            prefetch_to(data, n * sizeof(float), hipCpuDeviceId, stream);
            CHECK(hipStreamSynchronize(stream));
        }
        const double ref_norm = std::sqrt(ref_sq);
        bool ok = std::fabs(*norm - ref_norm) < 1e-3 * ref_norm;
        for (int i = 0; i < n && ok; i += 997)
            ok = std::fabs(data[i] - original[i] / ref_norm) < 1e-5;
        verdict("grid.sync() normalisation", ok);
        printf("  blocks counted by __managed__ counter: %d\n", blocks_seen());
    } else {
        printf("skipping cooperative test\n");
    }

    // ---- texture gathers ------------------------------------------------------
    const int table_size = 1024, m = 1 << 16;
    std::vector<float> table(table_size);
    std::vector<int> idx(m);
    for (int i = 0; i < table_size; ++i) table[i] = std::sin(0.01f * i);
    for (int i = 0; i < m; ++i) idx[i] = (i * 37) % table_size;
    float *d_table, *d_out;
    int* d_idx;
    CHECK(hipMalloc(&d_table, table_size * sizeof(float)));
    CHECK(hipMalloc(&d_idx, m * sizeof(int)));
    CHECK(hipMalloc(&d_out, m * sizeof(float)));
    CHECK(hipMemcpy(d_table, table.data(), table_size * sizeof(float), hipMemcpyHostToDevice));
    CHECK(hipMemcpy(d_idx, idx.data(), m * sizeof(int), hipMemcpyHostToDevice));

    std::vector<float> out(m);
    gather_texture_object(d_table, table_size, d_idx, d_out, m);
    CHECK(hipMemcpy(out.data(), d_out, m * sizeof(float), hipMemcpyDeviceToHost));
    bool tex_ok = true;
    for (int i = 0; i < m; ++i) tex_ok &= out[i] == table[idx[i]];
    verdict("tex1Dfetch (cudaCreateTextureObject)", tex_ok);

    if (gather_texture_reference(d_table, table_size, d_idx, d_out, m)) {
        CHECK(hipMemcpy(out.data(), d_out, m * sizeof(float), hipMemcpyDeviceToHost));
        bool ok = true;
        for (int i = 0; i < m; ++i) ok &= out[i] == table[idx[i]];
        verdict("tex1Dfetch (texture reference)", ok);
    } else {
        printf("%-34s skipped (needs CUDA < 12)\n", "tex1Dfetch (texture reference)");
    }

    // ---- __vadd4 ----------------------------------------------------------------
    std::vector<unsigned> a(m), b(m), sum(m);
    for (int i = 0; i < m; ++i) { a[i] = 0x01020304u * (unsigned)i; b[i] = 0xfffefdfcu ^ (unsigned)(i * 2654435761u); }
    unsigned *da, *db, *ds;
    CHECK(hipMalloc(&da, m * sizeof(unsigned)));
    CHECK(hipMalloc(&db, m * sizeof(unsigned)));
    CHECK(hipMalloc(&ds, m * sizeof(unsigned)));
    CHECK(hipMemcpy(da, a.data(), m * sizeof(unsigned), hipMemcpyHostToDevice));
    CHECK(hipMemcpy(db, b.data(), m * sizeof(unsigned), hipMemcpyHostToDevice));
    packed_byte_add(da, db, ds, m);
    CHECK(hipMemcpy(sum.data(), ds, m * sizeof(unsigned), hipMemcpyDeviceToHost));
    bool simd_ok = true;
    for (int i = 0; i < m; ++i) {
        unsigned want = 0;
        for (int byte = 0; byte < 4; ++byte) {
            const unsigned s = ((a[i] >> (8 * byte)) + (b[i] >> (8 * byte))) & 0xffu;
            want |= s << (8 * byte);
        }
        simd_ok &= sum[i] == want;
    }
    verdict("__vadd4 with __ldcg loads", simd_ok);

    // ---- dynamic parallelism ----------------------------------------------------
    const size_t total = (size_t)segments * seg_len;
    std::vector<float> seg(total);
    for (size_t i = 0; i < total; ++i) seg[i] = (float)(i % 1000) * 0.01f;
    float* d_seg;
    CHECK(hipMalloc(&d_seg, total * sizeof(float)));
    CHECK(hipMemcpy(d_seg, seg.data(), total * sizeof(float), hipMemcpyHostToDevice));
    segmented_square(d_seg, segments, seg_len);
    std::vector<float> squared(total);
    CHECK(hipMemcpy(squared.data(), d_seg, total * sizeof(float), hipMemcpyDeviceToHost));
    bool dp_ok = true;
    for (size_t i = 0; i < total; ++i) dp_ok &= std::fabs(squared[i] - seg[i] * seg[i]) < 1e-4f;
    verdict("device-side launches", dp_ok);

    CHECK(hipFree(data));
    CHECK(hipFree(norm));
    CHECK(hipFree(d_table)); CHECK(hipFree(d_idx)); CHECK(hipFree(d_out));
    CHECK(hipFree(da)); CHECK(hipFree(db)); CHECK(hipFree(ds));
    CHECK(hipFree(d_seg));
    CHECK(hipStreamDestroy(stream));

    printf("%d failure(s)\n", g_failures);
    return g_failures ? 1 : 0;
}
