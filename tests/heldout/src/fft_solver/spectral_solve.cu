// spectral_solve.cu - two small numerical jobs sharing one stream:
//   (a) low-pass filter a batch of real signals with cuFFT (R2C -> mask -> C2R)
//   (b) solve a dense system A x = b with cuSOLVER's LU (getrf/getrs) and
//       check the residual ||A x - b|| with cuBLAS (gemv + nrm2).
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#include <cufft.h>
#include <cublas_v2.h>
#include <cusolverDn.h>
#include <cuComplex.h>

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "CUDA: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); exit(1); } } while (0)
#define CUFFT_CHECK(x) do { cufftResult r_ = (x); if (r_ != CUFFT_SUCCESS) { \
    fprintf(stderr, "cuFFT error %d at %s:%d\n", (int)r_, __FILE__, __LINE__); exit(1); } } while (0)
#define CUBLAS_CHECK(x) do { cublasStatus_t s_ = (x); if (s_ != CUBLAS_STATUS_SUCCESS) { \
    fprintf(stderr, "cuBLAS error %d at line %d\n", (int)s_, __LINE__); exit(1); } } while (0)
#define CUSOLVER_CHECK(x) do { cusolverStatus_t s_ = (x); if (s_ != CUSOLVER_STATUS_SUCCESS) { \
    fprintf(stderr, "cuSOLVER error %d at line %d\n", (int)s_, __LINE__); exit(1); } } while (0)

// Zero every frequency above `cutoff` and apply the 1/N normalisation that
// cufftExecC2R leaves to the caller.
__global__ void lowpass(cufftComplex* spec, int bins, int batch, int cutoff, float inv_n)
{
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    int b = blockIdx.y;
    if (k >= bins || b >= batch) return;
    cuComplex c = spec[b * bins + k];
    float keep = k <= cutoff ? inv_n : 0.0f;
    spec[b * bins + k] = make_cuComplex(cuCrealf(c) * keep, cuCimagf(c) * keep);
}

__global__ void spectrum_energy(const cufftComplex* spec, int count, float* energy)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) atomicAdd(energy, cuCabsf(spec[i]) * cuCabsf(spec[i]));
}

// Circular auto-correlation through a complex-to-complex round trip:
// spectrum * conj(spectrum), then the inverse transform.
__global__ void power_spectrum(cufftComplex* spec, int count)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) spec[i] = cuCmulf(spec[i], cuConjf(spec[i]));
}

static void autocorr_demo(cudaStream_t stream)
{
    const int n = 1024;
    std::vector<cufftComplex> h(n);
    for (int i = 0; i < n; ++i) h[i] = make_cuFloatComplex(cosf(0.1f * i), 0.0f);
    cufftComplex* d = nullptr;
    CUDA_CHECK(cudaMalloc(&d, sizeof(cufftComplex) * n));
    CUDA_CHECK(cudaMemcpyAsync(d, h.data(), sizeof(cufftComplex) * n, cudaMemcpyHostToDevice, stream));
    cufftHandle plan;
    CUFFT_CHECK(cufftPlan1d(&plan, n, CUFFT_C2C, 1));
    CUFFT_CHECK(cufftSetStream(plan, stream));
    CUFFT_CHECK(cufftExecC2C(plan, d, d, CUFFT_FORWARD));
    power_spectrum<<<(n + 255) / 256, 256, 0, stream>>>(d, n);
    CUFFT_CHECK(cufftExecC2C(plan, d, d, CUFFT_INVERSE));
    CUDA_CHECK(cudaMemcpyAsync(h.data(), d, sizeof(cufftComplex) * n, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    printf("autocorr[0] = %.3f\n", cuCrealf(h[0]) / n);
    CUFFT_CHECK(cufftDestroy(plan));
    CUDA_CHECK(cudaFree(d));
}

static void fft_demo(cudaStream_t stream)
{
    const int n = 4096, batch = 8, bins = n / 2 + 1;
    std::vector<float> h(n * batch);
    for (int b = 0; b < batch; ++b)
        for (int i = 0; i < n; ++i)
            h[b * n + i] = sinf(0.01f * i * (b + 1)) + 0.3f * sinf(1.7f * i);

    cufftReal* d_sig = nullptr;
    cufftComplex* d_spec = nullptr;
    float* d_energy = nullptr;
    CUDA_CHECK(cudaMalloc(&d_sig, sizeof(cufftReal) * n * batch));
    CUDA_CHECK(cudaMalloc(&d_spec, sizeof(cufftComplex) * bins * batch));
    CUDA_CHECK(cudaMalloc(&d_energy, sizeof(float)));
    CUDA_CHECK(cudaMemsetAsync(d_energy, 0, sizeof(float), stream));
    CUDA_CHECK(cudaMemcpyAsync(d_sig, h.data(), sizeof(float) * n * batch,
                               cudaMemcpyHostToDevice, stream));

    // One batched plan per direction; a single 1D plan for the sanity check.
    cufftHandle fwd, inv, single;
    int dims[1] = {n};
    CUFFT_CHECK(cufftPlanMany(&fwd, 1, dims, nullptr, 1, n, nullptr, 1, bins, CUFFT_R2C, batch));
    CUFFT_CHECK(cufftPlanMany(&inv, 1, dims, nullptr, 1, bins, nullptr, 1, n, CUFFT_C2R, batch));
    CUFFT_CHECK(cufftPlan1d(&single, n, CUFFT_R2C, 1));
    CUFFT_CHECK(cufftSetStream(fwd, stream));
    CUFFT_CHECK(cufftSetStream(inv, stream));
    CUFFT_CHECK(cufftSetStream(single, stream));

    CUFFT_CHECK(cufftExecR2C(single, d_sig, d_spec));
    spectrum_energy<<<(bins + 255) / 256, 256, 0, stream>>>(d_spec, bins, d_energy);

    CUFFT_CHECK(cufftExecR2C(fwd, d_sig, d_spec));
    dim3 grid((bins + 255) / 256, batch);
    lowpass<<<grid, 256, 0, stream>>>(d_spec, bins, batch, 100, 1.0f / n);
    CUDA_CHECK(cudaGetLastError());
    CUFFT_CHECK(cufftExecC2R(inv, d_spec, d_sig));

    float energy = 0.0f;
    CUDA_CHECK(cudaMemcpyAsync(h.data(), d_sig, sizeof(float) * n * batch,
                               cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaMemcpyAsync(&energy, d_energy, sizeof(float), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    printf("fft: energy of signal 0 = %.3f, filtered[0][10] = %.5f\n", energy, h[10]);

    CUFFT_CHECK(cufftDestroy(fwd));
    CUFFT_CHECK(cufftDestroy(inv));
    CUFFT_CHECK(cufftDestroy(single));
    CUDA_CHECK(cudaFree(d_sig));
    CUDA_CHECK(cudaFree(d_spec));
    CUDA_CHECK(cudaFree(d_energy));
}

static void solve_demo(cudaStream_t stream)
{
    const int n = 256;
    std::vector<float> A(n * n), b(n);
    for (int j = 0; j < n; ++j) {             // column-major, diagonally dominant
        for (int i = 0; i < n; ++i)
            A[j * n + i] = (i == j) ? float(n) : 1.0f / float(1 + abs(i - j));
        b[j] = float(j % 7) - 3.0f;
    }

    cusolverDnHandle_t solver;
    cublasHandle_t blas;
    CUSOLVER_CHECK(cusolverDnCreate(&solver));
    CUBLAS_CHECK(cublasCreate(&blas));
    CUSOLVER_CHECK(cusolverDnSetStream(solver, stream));
    CUBLAS_CHECK(cublasSetStream(blas, stream));
    CUBLAS_CHECK(cublasSetPointerMode(blas, CUBLAS_POINTER_MODE_HOST));

    float *d_A, *d_LU, *d_b, *d_x, *d_work;
    int *d_piv, *d_info;
    CUDA_CHECK(cudaMalloc(&d_A, sizeof(float) * n * n));
    CUDA_CHECK(cudaMalloc(&d_LU, sizeof(float) * n * n));
    CUDA_CHECK(cudaMalloc(&d_b, sizeof(float) * n));
    CUDA_CHECK(cudaMalloc(&d_x, sizeof(float) * n));
    CUDA_CHECK(cudaMalloc(&d_piv, sizeof(int) * n));
    CUDA_CHECK(cudaMalloc(&d_info, sizeof(int)));
    CUDA_CHECK(cudaMemcpyAsync(d_A, A.data(), sizeof(float) * n * n, cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaMemcpyAsync(d_LU, d_A, sizeof(float) * n * n, cudaMemcpyDeviceToDevice, stream));
    CUDA_CHECK(cudaMemcpyAsync(d_b, b.data(), sizeof(float) * n, cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaMemcpyAsync(d_x, d_b, sizeof(float) * n, cudaMemcpyDeviceToDevice, stream));

    int lwork = 0;
    CUSOLVER_CHECK(cusolverDnSgetrf_bufferSize(solver, n, n, d_LU, n, &lwork));
    CUDA_CHECK(cudaMalloc(&d_work, sizeof(float) * lwork));
    CUSOLVER_CHECK(cusolverDnSgetrf(solver, n, n, d_LU, n, d_work, d_piv, d_info));
    CUSOLVER_CHECK(cusolverDnSgetrs(solver, CUBLAS_OP_N, n, 1, d_LU, n, d_piv, d_x, n, d_info));

    // The matrix is symmetric positive definite too: Cholesky-factor a copy.
    float* d_chol = nullptr;
    int lwork_chol = 0;
    CUDA_CHECK(cudaMalloc(&d_chol, sizeof(float) * n * n));
    CUDA_CHECK(cudaMemcpyAsync(d_chol, d_A, sizeof(float) * n * n, cudaMemcpyDeviceToDevice, stream));
    CUSOLVER_CHECK(cusolverDnSpotrf_bufferSize(solver, CUBLAS_FILL_MODE_LOWER, n, d_chol, n, &lwork_chol));
    if (lwork_chol > lwork) {
        CUDA_CHECK(cudaFree(d_work));
        CUDA_CHECK(cudaMalloc(&d_work, sizeof(float) * lwork_chol));
    }
    CUSOLVER_CHECK(cusolverDnSpotrf(solver, CUBLAS_FILL_MODE_LOWER, n, d_chol, n, d_work, lwork_chol, d_info));

    int info = 0;
    CUDA_CHECK(cudaMemcpyAsync(&info, d_info, sizeof(int), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    if (info != 0) {
        fprintf(stderr, "getrf/getrs info = %d\n", info);
        exit(1);
    }

    // r = A x - b, computed in place in d_b
    const float one = 1.0f, minus_one = -1.0f;
    CUBLAS_CHECK(cublasSgemv(blas, CUBLAS_OP_N, n, n, &one, d_A, n, d_x, 1, &minus_one, d_b, 1));
    float resid = 0.0f, xnorm = 0.0f;
    CUBLAS_CHECK(cublasSnrm2(blas, n, d_b, 1, &resid));
    CUBLAS_CHECK(cublasSnrm2(blas, n, d_x, 1, &xnorm));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    printf("solve: n=%d, ||Ax-b|| = %.3e, ||x|| = %.3e\n", n, resid, xnorm);

    CUDA_CHECK(cudaFree(d_A));
    CUDA_CHECK(cudaFree(d_LU));
    CUDA_CHECK(cudaFree(d_b));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFree(d_piv));
    CUDA_CHECK(cudaFree(d_info));
    CUDA_CHECK(cudaFree(d_work));
    CUDA_CHECK(cudaFree(d_chol));
    CUBLAS_CHECK(cublasDestroy(blas));
    CUSOLVER_CHECK(cusolverDnDestroy(solver));
}

int main()
{
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));
    fft_demo(stream);
    autocorr_demo(stream);
    solve_demo(stream);
    CUDA_CHECK(cudaStreamDestroy(stream));
    return 0;
}
