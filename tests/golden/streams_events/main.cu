// main.cu - overlapping host<->device copies and kernels with streams.
//
// The input is split into chunks; each chunk is copied to the device, run
// through two kernels and copied back on one of several streams, so the
// copy engines and the SMs work at the same time. The same work is then done
// on a single stream and the timings (measured with events) are compared.
//
// Usage: streams_events [-n elements] [-s streams] [-c chunks] [-k spin] [-q]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <hip/hip_runtime.h>

#include "cuda_helpers.h"
#include "kernels.cuh"

struct Config {
    int n = 1 << 24;
    int streams = 4;
    int chunks = 16;
    int spin = 64;
    bool quiet = false;
};

static Config parse(int argc, char** argv)
{
    Config c;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "-n") && i + 1 < argc) c.n = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-s") && i + 1 < argc) c.streams = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-c") && i + 1 < argc) c.chunks = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-k") && i + 1 < argc) c.spin = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-q")) c.quiet = true;
        else {
            fprintf(stderr, "usage: %s [-n elements] [-s streams] [-c chunks] [-k spin] [-q]\n", argv[0]);
            exit(2);
        }
    }
    if (c.n <= 0 || c.streams <= 0 || c.chunks <= 0 || c.n % c.chunks != 0) {
        fprintf(stderr, "error: n must be a positive multiple of the chunk count\n");
        exit(2);
    }
    return c;
}

static const float kCoeffs[NUM_COEFFS] = {0.0f, 0.0f, 0.0f, 0.0f, 0.5f, -1.0f, 2.0f, 1.0f};
static const float kAlpha = 0.5f;
static const float kScale = 2.0f;

static float poly_ref(float x)
{
    float acc = 0.0f;
    for (int k = 0; k < NUM_COEFFS; ++k) acc = acc * x + kCoeffs[k];
    return acc;
}

// Host callback run by the stream once its last copy has finished.
static void on_stream_done(void* user)
{
    int* done = static_cast<int*>(user);
    ++*done;
}

// Runs the chunked pipeline on `nstreams` streams and returns the elapsed
// time in milliseconds, measured between two events on the legacy stream.
static float run_pipeline(const Config& cfg, int nstreams, const float* h_x, const float* h_y0,
                          float* h_out, float* d_x, float* d_y, int* callbacks)
{
    std::vector<hipStream_t> streams(nstreams);
    int lo_prio = 0, hi_prio = 0;
    CUDA_CHECK(hipDeviceGetStreamPriorityRange(&lo_prio, &hi_prio));
    for (int s = 0; s < nstreams; ++s) {
        // Give the first stream the highest priority, just to show the API.
        CUDA_CHECK(hipStreamCreateWithPriority(&streams[s], hipStreamNonBlocking,
                                                s == 0 ? hi_prio : lo_prio));
    }

    // Per-chunk completion events, created without timing for lower overhead.
    std::vector<hipEvent_t> chunk_done(cfg.chunks);
    for (auto& e : chunk_done) CUDA_CHECK(hipEventCreateWithFlags(&e, hipEventDisableTiming));

    ScopedEvent start, stop;
    const int chunk = cfg.n / cfg.chunks;
    const size_t chunk_bytes = (size_t)chunk * sizeof(float);

    CUDA_CHECK(hipEventRecord(start, 0));
    for (int c = 0; c < cfg.chunks; ++c) {
        hipStream_t s = streams[c % nstreams];
        const size_t off = (size_t)c * chunk;
        // Async copies only overlap when the host buffers are pinned.
        CUDA_CHECK(hipMemcpyAsync(d_x + off, h_x + off, chunk_bytes, hipMemcpyHostToDevice, s));
        CUDA_CHECK(hipMemcpyAsync(d_y + off, h_y0 + off, chunk_bytes, hipMemcpyHostToDevice, s));
        launch_poly_axpy<float>(d_x + off, d_y + off, kAlpha, chunk, s);
        launch_spin(d_x + off, chunk, cfg.spin, s);
        CUDA_CHECK(hipEventRecord(chunk_done[c], s));
    }

    // Second stage: every stream scales one chunk but must wait until the
    // neighbouring chunk (possibly produced on another stream) is complete.
    for (int c = 0; c < cfg.chunks; ++c) {
        hipStream_t s = streams[c % nstreams];
        const int next = (c + 1) % cfg.chunks;
        CUDA_CHECK(hipStreamWaitEvent(s, chunk_done[next], 0));
        const size_t off = (size_t)c * chunk;
        launch_scale(d_y + off, kScale, chunk, s);
        CUDA_CHECK(hipMemcpyAsync(h_out + off, d_y + off, chunk_bytes, hipMemcpyDeviceToHost, s));
    }
    for (int s = 0; s < nstreams; ++s)
        CUDA_CHECK(hipLaunchHostFunc(streams[s], on_stream_done, callbacks));

    // The legacy default stream synchronises with blocking streams only, so
    // make it wait on every non-blocking stream explicitly before "stop".
    for (int s = 0; s < nstreams; ++s) {
        hipEvent_t tail;
        CUDA_CHECK(hipEventCreateWithFlags(&tail, hipEventDisableTiming));
        CUDA_CHECK(hipEventRecord(tail, streams[s]));
        CUDA_CHECK(hipStreamWaitEvent(0, tail, 0));
        CUDA_CHECK(hipEventDestroy(tail));
    }
    CUDA_CHECK(hipEventRecord(stop, 0));

    // Poll instead of blocking, the way an application with other work would.
    long polls = 0;
    while (hipEventQuery(stop) == hipErrorNotReady) ++polls;
    CUDA_CHECK(hipGetLastError());

    float ms = 0.0f;
    CUDA_CHECK(hipEventElapsedTime(&ms, start, stop));
    if (!cfg.quiet) printf("  %d stream(s): %8.3f ms (%ld polls)\n", nstreams, ms, polls);

    for (auto e : chunk_done) CUDA_CHECK(hipEventDestroy(e));
    for (auto s : streams) {
        if (hipStreamQuery(s) != hipSuccess) fprintf(stderr, "stream still busy after stop event\n");
        CUDA_CHECK(hipStreamDestroy(s));
    }
    return ms;
}

static int verify(const Config& cfg, const float* h_x, const float* h_y0, const float* h_out)
{
    int bad = 0;
    for (int i = 0; i < cfg.n; ++i) {
        const float want = kScale * (kAlpha * poly_ref(h_x[i]) + h_y0[i]);
        if (fabsf(h_out[i] - want) > 1e-4f * fmaxf(1.0f, fabsf(want))) {
            if (bad < 5) fprintf(stderr, "  out[%d] = %f, expected %f\n", i, h_out[i], want);
            ++bad;
        }
    }
    return bad;
}

int main(int argc, char** argv)
{
    Config cfg = parse(argc, argv);

    int count = 0;
    CUDA_CHECK(hipGetDeviceCount(&count));
    if (count == 0) {
        fprintf(stderr, "no CUDA device found\n");
        return EXIT_FAILURE;
    }
    CUDA_CHECK(hipSetDevice(0));
    if (!cfg.quiet) print_device_info(0);

    hipDeviceProp_t prop;
    CUDA_CHECK(hipGetDeviceProperties(&prop, 0));
    if (prop.asyncEngineCount == 0)
        printf("note: device has no async copy engine; copies will not overlap\n");

    set_coefficients(kCoeffs, NUM_COEFFS);

    const size_t bytes = (size_t)cfg.n * sizeof(float);
    float *h_x = nullptr, *h_y0 = nullptr, *h_out = nullptr;
    // Page-locked host memory: cudaMallocHost and cudaHostAlloc are equivalent here.
    CUDA_CHECK(hipHostMalloc(&h_x, bytes));
    CUDA_CHECK(hipHostMalloc(&h_y0, bytes));
    CUDA_CHECK(hipHostMalloc(&h_out, bytes, hipHostMallocDefault));
    for (int i = 0; i < cfg.n; ++i) {
        h_x[i] = (float)((i * 7919) % 2001) / 1000.0f - 1.0f;   // in [-1, 1]
        h_y0[i] = (float)(i % 13) * 0.25f;
    }

    float *d_x = nullptr, *d_y = nullptr;
    CUDA_CHECK(hipMalloc(&d_x, bytes));
    CUDA_CHECK(hipMalloc(&d_y, bytes));

    int callbacks = 0;
    printf("pipeline over %d elements in %d chunks:\n", cfg.n, cfg.chunks);
    run_pipeline(cfg, cfg.streams, h_x, h_y0, h_out, d_x, d_y, &callbacks);  // warm-up
    memset(h_out, 0, bytes);
    const float t_multi = run_pipeline(cfg, cfg.streams, h_x, h_y0, h_out, d_x, d_y, &callbacks);
    int bad = verify(cfg, h_x, h_y0, h_out);
    memset(h_out, 0, bytes);
    const float t_single = run_pipeline(cfg, 1, h_x, h_y0, h_out, d_x, d_y, &callbacks);
    bad += verify(cfg, h_x, h_y0, h_out);

    printf("speed-up from %d streams: %.2fx\n", cfg.streams, t_single / t_multi);
    if (callbacks != 2 * cfg.streams + 1)
        fprintf(stderr, "expected %d host callbacks, saw %d\n", 2 * cfg.streams + 1, callbacks);

    // Double-precision instantiation on a small buffer, checked on the host.
    {
        const int m = 1000;
        std::vector<double> hx(m), hy(m, 1.0);
        for (int i = 0; i < m; ++i) hx[i] = i / (double)m;
        double *dx = nullptr, *dy = nullptr;
        CUDA_CHECK(hipMalloc(&dx, m * sizeof(double)));
        CUDA_CHECK(hipMalloc(&dy, m * sizeof(double)));
        CUDA_CHECK(hipMemcpy(dx, hx.data(), m * sizeof(double), hipMemcpyHostToDevice));
        CUDA_CHECK(hipMemcpy(dy, hy.data(), m * sizeof(double), hipMemcpyHostToDevice));
        launch_poly_axpy<double>(dx, dy, 2.0, m, 0);
        CUDA_CHECK(hipMemcpy(hy.data(), dy, m * sizeof(double), hipMemcpyDeviceToHost));
        for (int i = 0; i < m; ++i) {
            const double want = 2.0 * poly_ref((float)hx[i]) + 1.0;
            if (fabs(hy[i] - want) > 1e-5) { ++bad; break; }
        }
        hipFree(dx);
        hipFree(dy);
    }

    CUDA_CHECK(hipFree(d_x));
    CUDA_CHECK(hipFree(d_y));
    CUDA_CHECK(hipHostFree(h_x));
    CUDA_CHECK(hipHostFree(h_y0));
    CUDA_CHECK(hipHostFree(h_out));
    CUDA_CHECK(hipDeviceReset());

    if (bad) {
        printf("FAILED: %d mismatches\n", bad);
        return EXIT_FAILURE;
    }
    printf("PASSED\n");
    return EXIT_SUCCESS;
}
