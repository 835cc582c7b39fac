// pipeline_graph.cu - a small iterative pipeline (scale -> add -> relax) that
// is captured once into a CUDA graph and replayed, compared against plain
// stream launches.  Uses stream-ordered allocation (cudaMallocAsync) from a
// memory pool, and spreads work over every visible device when peer access
// is available.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <hip/hip_runtime.h>

#define CUDA_OK(expr)                                                        \
    do {                                                                     \
        hipError_t status_ = (expr);                                        \
        if (status_ != hipSuccess) {                                        \
            fprintf(stderr, "%s:%d: %s -> %s\n", __FILE__, __LINE__, #expr,  \
                    hipGetErrorString(status_));                            \
            std::exit(2);                                                    \
        }                                                                    \
    } while (0)

constexpr int kIters = 20;
constexpr int kThreads = 256;

__global__ void scale(float* x, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}

__global__ void axpy(const float* x, float* y, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] += a * x[i];
}

__global__ void relax(const float* in, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= 0 || i >= n - 1) return;
    out[i] = 0.25f * in[i - 1] + 0.5f * in[i] + 0.25f * in[i + 1];
}

static void enqueue_step(hipStream_t s, float* x, float* y, float* tmp, int n)
{
    int blocks = (n + kThreads - 1) / kThreads;
    scale<<<blocks, kThreads, 0, s>>>(x, 0.99f, n);
    axpy<<<blocks, kThreads, 0, s>>>(x, y, 0.01f, n);
    relax<<<blocks, kThreads, 0, s>>>(y, tmp, n);
    CUDA_OK(hipMemcpyAsync(y + 1, tmp + 1, (n - 2) * sizeof(float),
                            hipMemcpyDeviceToDevice, s));
}

// Enables peer access from every device to every other one that supports it.
static int enable_peers(int count)
{
    int pairs = 0;
    for (int a = 0; a < count; ++a) {
        CUDA_OK(hipSetDevice(a));
        for (int b = 0; b < count; ++b) {
            if (a == b) continue;
            int ok = 0;
            CUDA_OK(hipDeviceCanAccessPeer(&ok, a, b));
            if (!ok) continue;
            hipError_t e = hipDeviceEnablePeerAccess(b, 0);
            if (e == hipErrorPeerAccessAlreadyEnabled) {
                hipGetLastError();  // clear the sticky "already enabled" error
            } else {
                CUDA_OK(e);
            }
            ++pairs;
        }
    }
    CUDA_OK(hipSetDevice(0));
    return pairs;
}

static void on_done(void* user)
{
    // Runs on a runtime thread: no CUDA calls allowed in here.
    *static_cast<int*>(user) = 1;
}

int main()
{
    const int n = 1 << 20;
    int devices = 0;
    CUDA_OK(hipGetDeviceCount(&devices));
    if (devices == 0) {
        printf("no CUDA device\n");
        return 0;
    }
    printf("%d device(s), %d peer link(s)\n", devices, devices > 1 ? enable_peers(devices) : 0);
    CUDA_OK(hipSetDevice(0));

    // Keep freed blocks in the default pool instead of returning them to the OS.
    hipMemPool_t pool;
    CUDA_OK(hipDeviceGetDefaultMemPool(&pool, 0));
    unsigned long long threshold = ~0ull;
    CUDA_OK(hipMemPoolSetAttribute(pool, hipMemPoolAttrReleaseThreshold, &threshold));

    int prio_low = 0, prio_high = 0;
    CUDA_OK(hipDeviceGetStreamPriorityRange(&prio_low, &prio_high));
    hipStream_t stream;
    CUDA_OK(hipStreamCreateWithPriority(&stream, hipStreamNonBlocking, prio_high));

    float *x = nullptr, *y = nullptr, *tmp = nullptr;
    CUDA_OK(hipMallocAsync(&x, n * sizeof(float), stream));
    CUDA_OK(hipMallocAsync(&y, n * sizeof(float), stream));
    CUDA_OK(hipMallocFromPoolAsync(&tmp, n * sizeof(float), pool, stream));

    std::vector<float> h(n, 1.0f);
    float* pinned = nullptr;
    CUDA_OK(hipHostMalloc((void**)&pinned, n * sizeof(float), hipHostMallocDefault));
    for (int i = 0; i < n; ++i) pinned[i] = 1.0f;
    CUDA_OK(hipMemcpyAsync(x, pinned, n * sizeof(float), hipMemcpyHostToDevice, stream));
    CUDA_OK(hipMemsetAsync(y, 0, n * sizeof(float), stream));
    CUDA_OK(hipMemsetAsync(tmp, 0, n * sizeof(float), stream));

    hipEvent_t t0, t1;
    CUDA_OK(hipEventCreate(&t0));
    CUDA_OK(hipEventCreateWithFlags(&t1, hipEventBlockingSync));

    // 1) plain launches
    CUDA_OK(hipEventRecord(t0, stream));
    for (int it = 0; it < kIters; ++it) enqueue_step(stream, x, y, tmp, n);
    CUDA_OK(hipEventRecord(t1, stream));
    CUDA_OK(hipEventSynchronize(t1));
    float ms_stream = 0.0f;
    CUDA_OK(hipEventElapsedTime(&ms_stream, t0, t1));

    // 2) capture the same work once and replay it as a graph
    hipGraph_t graph;
    hipGraphExec_t exec;
    CUDA_OK(hipStreamBeginCapture(stream, hipStreamCaptureModeGlobal));
    for (int it = 0; it < kIters; ++it) enqueue_step(stream, x, y, tmp, n);
    CUDA_OK(hipStreamEndCapture(stream, &graph));

    size_t num_nodes = 0;
    CUDA_OK(hipGraphGetNodes(graph, nullptr, &num_nodes));
    CUDA_OK(hipGraphInstantiateWithFlags(&exec, graph, 0));

    CUDA_OK(hipEventRecord(t0, stream));
    CUDA_OK(hipGraphLaunch(exec, stream));
    CUDA_OK(hipEventRecord(t1, stream));
    static int graph_done = 0;
    CUDA_OK(hipLaunchHostFunc(stream, on_done, &graph_done));
    hipError_t q = hipEventQuery(t1);
    if (q != hipSuccess && q != hipErrorNotReady) CUDA_OK(q);
    CUDA_OK(hipStreamSynchronize(stream));
    float ms_graph = 0.0f;
    CUDA_OK(hipEventElapsedTime(&ms_graph, t0, t1));

    hipStreamCaptureStatus cap = hipStreamCaptureStatusNone;
    CUDA_OK(hipStreamIsCapturing(stream, &cap));
    if (cap != hipStreamCaptureStatusNone) {
        fprintf(stderr, "stream still capturing\n");
        return 1;
    }

    CUDA_OK(hipMemcpyAsync(h.data(), y, n * sizeof(float), hipMemcpyDeviceToHost, stream));
    CUDA_OK(hipStreamSynchronize(stream));
    double sum = 0.0;
    for (int i = 0; i < n; ++i) sum += h[i];

    printf("%zu graph nodes; stream %.3f ms, graph %.3f ms, checksum %.6e\n",
           num_nodes, ms_stream, ms_graph, sum);

    // Teardown, stream-ordered where possible.
    CUDA_OK(hipGraphExecDestroy(exec));
    CUDA_OK(hipGraphDestroy(graph));
    CUDA_OK(hipFreeAsync(x, stream));
    CUDA_OK(hipFreeAsync(y, stream));
    CUDA_OK(hipFreeAsync(tmp, stream));
    CUDA_OK(hipStreamSynchronize(stream));
    CUDA_OK(hipMemPoolTrimTo(pool, 0));
    hipEvent_t done;
    CUDA_OK(hipEventCreateWithFlags(&done, hipEventDisableTiming));
    scale<<<1, 1, 0, hipStreamPerThread>>>(pinned, 1.0f, 1);
    CUDA_OK(hipEventRecord(done, hipStreamPerThread));
    CUDA_OK(hipEventSynchronize(done));
    CUDA_OK(hipEventDestroy(done));
    CUDA_OK(hipHostFree(pinned));
    CUDA_OK(hipEventDestroy(t0));
    CUDA_OK(hipEventDestroy(t1));
    CUDA_OK(hipStreamDestroy(stream));
    return 0;
}
