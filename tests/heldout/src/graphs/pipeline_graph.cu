// pipeline_graph.cu - a small iterative pipeline (scale -> add -> relax) that
// is captured once into a CUDA graph and replayed, compared against plain
// stream launches.  Uses stream-ordered allocation (cudaMallocAsync) from a
// memory pool, and spreads work over every visible device when peer access
// is available.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_OK(expr)                                                        \
    do {                                                                     \
        cudaError_t status_ = (expr);                                        \
        if (status_ != cudaSuccess) {                                        \
            fprintf(stderr, "%s:%d: %s -> %s\n", __FILE__, __LINE__, #expr,  \
                    cudaGetErrorString(status_));                            \
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

static void enqueue_step(cudaStream_t s, float* x, float* y, float* tmp, int n)
{
    int blocks = (n + kThreads - 1) / kThreads;
    scale<<<blocks, kThreads, 0, s>>>(x, 0.99f, n);
    axpy<<<blocks, kThreads, 0, s>>>(x, y, 0.01f, n);
    relax<<<blocks, kThreads, 0, s>>>(y, tmp, n);
    CUDA_OK(cudaMemcpyAsync(y + 1, tmp + 1, (n - 2) * sizeof(float),
                            cudaMemcpyDeviceToDevice, s));
}

// Enables peer access from every device to every other one that supports it.
static int enable_peers(int count)
{
    int pairs = 0;
    for (int a = 0; a < count; ++a) {
        CUDA_OK(cudaSetDevice(a));
        for (int b = 0; b < count; ++b) {
            if (a == b) continue;
            int ok = 0;
            CUDA_OK(cudaDeviceCanAccessPeer(&ok, a, b));
            if (!ok) continue;
            cudaError_t e = cudaDeviceEnablePeerAccess(b, 0);
            if (e == cudaErrorPeerAccessAlreadyEnabled) {
                cudaGetLastError();  // clear the sticky "already enabled" error
            } else {
                CUDA_OK(e);
            }
            ++pairs;
        }
    }
    CUDA_OK(cudaSetDevice(0));
    return pairs;
}

static void CUDART_CB on_done(void* user)
{
    // Runs on a runtime thread: no CUDA calls allowed in here.
    *static_cast<int*>(user) = 1;
}

int main()
{
    const int n = 1 << 20;
    int devices = 0;
    CUDA_OK(cudaGetDeviceCount(&devices));
    if (devices == 0) {
        printf("no CUDA device\n");
        return 0;
    }
    printf("%d device(s), %d peer link(s)\n", devices, devices > 1 ? enable_peers(devices) : 0);
    CUDA_OK(cudaSetDevice(0));

    // Keep freed blocks in the default pool instead of returning them to the OS.
    cudaMemPool_t pool;
    CUDA_OK(cudaDeviceGetDefaultMemPool(&pool, 0));
    unsigned long long threshold = ~0ull;
    CUDA_OK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));

    int prio_low = 0, prio_high = 0;
    CUDA_OK(cudaDeviceGetStreamPriorityRange(&prio_low, &prio_high));
    cudaStream_t stream;
    CUDA_OK(cudaStreamCreateWithPriority(&stream, cudaStreamNonBlocking, prio_high));

    float *x = nullptr, *y = nullptr, *tmp = nullptr;
    CUDA_OK(cudaMallocAsync(&x, n * sizeof(float), stream));
    CUDA_OK(cudaMallocAsync(&y, n * sizeof(float), stream));
    CUDA_OK(cudaMallocFromPoolAsync(&tmp, n * sizeof(float), pool, stream));

    std::vector<float> h(n, 1.0f);
    float* pinned = nullptr;
    CUDA_OK(cudaHostAlloc((void**)&pinned, n * sizeof(float), cudaHostAllocDefault));
    for (int i = 0; i < n; ++i) pinned[i] = 1.0f;
    CUDA_OK(cudaMemcpyAsync(x, pinned, n * sizeof(float), cudaMemcpyHostToDevice, stream));
    CUDA_OK(cudaMemsetAsync(y, 0, n * sizeof(float), stream));
    CUDA_OK(cudaMemsetAsync(tmp, 0, n * sizeof(float), stream));

    cudaEvent_t t0, t1;
    CUDA_OK(cudaEventCreate(&t0));
    CUDA_OK(cudaEventCreateWithFlags(&t1, cudaEventBlockingSync));

    // 1) plain launches
    CUDA_OK(cudaEventRecord(t0, stream));
    for (int it = 0; it < kIters; ++it) enqueue_step(stream, x, y, tmp, n);
    CUDA_OK(cudaEventRecord(t1, stream));
    CUDA_OK(cudaEventSynchronize(t1));
    float ms_stream = 0.0f;
    CUDA_OK(cudaEventElapsedTime(&ms_stream, t0, t1));

    // 2) capture the same work once and replay it as a graph
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_OK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    for (int it = 0; it < kIters; ++it) enqueue_step(stream, x, y, tmp, n);
    CUDA_OK(cudaStreamEndCapture(stream, &graph));

    size_t num_nodes = 0;
    CUDA_OK(cudaGraphGetNodes(graph, nullptr, &num_nodes));
    CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));

    CUDA_OK(cudaEventRecord(t0, stream));
    CUDA_OK(cudaGraphLaunch(exec, stream));
    CUDA_OK(cudaEventRecord(t1, stream));
    static int graph_done = 0;
    CUDA_OK(cudaLaunchHostFunc(stream, on_done, &graph_done));
    cudaError_t q = cudaEventQuery(t1);
    if (q != cudaSuccess && q != cudaErrorNotReady) CUDA_OK(q);
    CUDA_OK(cudaStreamSynchronize(stream));
    float ms_graph = 0.0f;
    CUDA_OK(cudaEventElapsedTime(&ms_graph, t0, t1));

    cudaStreamCaptureStatus cap = cudaStreamCaptureStatusNone;
    CUDA_OK(cudaStreamIsCapturing(stream, &cap));
    if (cap != cudaStreamCaptureStatusNone) {
        fprintf(stderr, "stream still capturing\n");
        return 1;
    }

    CUDA_OK(cudaMemcpyAsync(h.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost, stream));
    CUDA_OK(cudaStreamSynchronize(stream));
    double sum = 0.0;
    for (int i = 0; i < n; ++i) sum += h[i];

    printf("%zu graph nodes; stream %.3f ms, graph %.3f ms, checksum %.6e\n",
           num_nodes, ms_stream, ms_graph, sum);

    // Teardown, stream-ordered where possible.
    CUDA_OK(cudaGraphExecDestroy(exec));
    CUDA_OK(cudaGraphDestroy(graph));
    CUDA_OK(cudaFreeAsync(x, stream));
    CUDA_OK(cudaFreeAsync(y, stream));
    CUDA_OK(cudaFreeAsync(tmp, stream));
    CUDA_OK(cudaStreamSynchronize(stream));
    CUDA_OK(cudaMemPoolTrimTo(pool, 0));
    cudaEvent_t done;
    CUDA_OK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    scale<<<1, 1, 0, cudaStreamPerThread>>>(pinned, 1.0f, 1);
    CUDA_OK(cudaEventRecord(done, cudaStreamPerThread));
    CUDA_OK(cudaEventSynchronize(done));
    CUDA_OK(cudaEventDestroy(done));
    CUDA_OK(cudaFreeHost(pinned));
    CUDA_OK(cudaEventDestroy(t0));
    CUDA_OK(cudaEventDestroy(t1));
    CUDA_OK(cudaStreamDestroy(stream));
    return 0;
}
