// spectral_solve.cu - two small numerical jobs sharing one stream:
//   (a) low-pass filter a batch of real signals with cuFFT (R2C -> mask -> C2R)
//   (b) solve a dense system A x = b with cuSOLVER's LU (getrf/getrs) and
//       check the residual ||A x - b|| with cuBLAS (gemv + nrm2).
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <hip/hip_runtime.h>
#include <hipfft/hipfft.h>
#include <hipblas/hipblas.h>
#include <hipsolver/hipsolver.h>
#include <hip/hip_complex.h>

#define CUDA_CHECK(x) do { hipError_t e_ = (x); if (e_ != hipSuccess) { \
    fprintf(stderr, "CUDA: %s (%s:%d)\n", hipGetErrorString(e_), __FILE__, __LINE__); exit(1); } } while (0)
#define CUFFT_CHECK(x) do { hipfftResult r_ = (x); if (r_ != HIPFFT_SUCCESS) { \
    fprintf(stderr, "cuFFT error %d at %s:%d\n", (int)r_, __FILE__, __LINE__); exit(1); } } while (0)
#define CUBLAS_CHECK(x) do { hipblasStatus_t s_ = (x); if (s_ != HIPBLAS_STATUS_SUCCESS) { \
    fprintf(stderr, "cuBLAS error %d at line %d\n", (int)s_, __LINE__); exit(1); } } while (0)
#define CUSOLVER_CHECK(x) do { hipsolverStatus_t s_ = (x); if (s_ != HIPSOLVER_STATUS_SUCCESS) { \
    fprintf(stderr, "cuSOLVER error %d at line %d\n", (int)s_, __LINE__); exit(1); } } while (0)

// Zero every frequency above `cutoff` and apply the 1/N normalisation that
// cufftExecC2R leaves to the caller.
__global__ void lowpass(hipfftComplex* spec, int bins, int batch, int cutoff, float inv_n)
{
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    int b = blockIdx.y;
    if (k >= bins || b >= batch) return;
    hipComplex c = spec[b * bins + k];
    float keep = k <= cutoff ? inv_n : 0.0f;
    spec[b * bins + k] = make_hipComplex(hipCrealf(c) * keep, hipCimagf(c) * keep);
}

__global__ void spectrum_energy(const hipfftComplex* spec, int count, float* energy)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) atomicAdd(energy, hipCabsf(spec[i]) * hipCabsf(spec[i]));
}

// Circular auto-correlation through a complex-to-complex round trip:
// spectrum * conj(spectrum), then the inverse transform.
__global__ void power_spectrum(hipfftComplex* spec, int count)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) spec[i] = hipCmulf(spec[i], hipConjf(spec[i]));
}

static void autocorr_demo(hipStream_t stream)
{
    const int n = 1024;
    std::vector<hipfftComplex> h(n);
    for (int i = 0; i < n; ++i) h[i] = make_hipFloatComplex(cosf(0.1f * i), 0.0f);
    hipfftComplex* d = nullptr;
    CUDA_CHECK(hipMalloc(&d, sizeof(hipfftComplex) * n));
    CUDA_CHECK(hipMemcpyAsync(d, h.data(), sizeof(hipfftComplex) * n, hipMemcpyHostToDevice, stream));
    hipfftHandle plan;
    CUFFT_CHECK(hipfftPlan1d(&plan, n, HIPFFT_C2C, 1));
    CUFFT_CHECK(hipfftSetStream(plan, stream));
    CUFFT_CHECK(hipfftExecC2C(plan, d, d, HIPFFT_FORWARD));
    power_spectrum<<<(n + 255) / 256, 256, 0, stream>>>(d, n);
    CUFFT_CHECK(hipfftExecC2C(plan, d, d, HIPFFT_BACKWARD));
    CUDA_CHECK(hipMemcpyAsync(h.data(), d, sizeof(hipfftComplex) * n, hipMemcpyDeviceToHost, stream));
    CUDA_CHECK(hipStreamSynchronize(stream));
    printf("autocorr[0] = %.3f\n", hipCrealf(h[0]) / n);
    CUFFT_CHECK(hipfftDestroy(plan));
    CUDA_CHECK(hipFree(d));
}

static void fft_demo(hipStream_t stream)
{
    const int n = 4096, batch = 8, bins = n / 2 + 1;
    std::vector<float> h(n * batch);
    for (int b = 0; b < batch; ++b)
        for (int i = 0; i < n; ++i)
            h[b * n + i] = sinf(0.01f * i * (b + 1)) + 0.3f * sinf(1.7f * i);

    hipfftReal* d_sig = nullptr;
    hipfftComplex* d_spec = nullptr;
    float* d_energy = nullptr;
    CUDA_CHECK(hipMalloc(&d_sig, sizeof(hipfftReal) * n * batch));
    CUDA_CHECK(hipMalloc(&d_spec, sizeof(hipfftComplex) * bins * batch));
    CUDA_CHECK(hipMalloc(&d_energy, sizeof(float)));
    CUDA_CHECK(hipMemsetAsync(d_energy, 0, sizeof(float), stream));
    CUDA_CHECK(hipMemcpyAsync(d_sig, h.data(), sizeof(float) * n * batch,
                               hipMemcpyHostToDevice, stream));

    // One batched plan per direction; a single 1D plan for the sanity check.
    hipfftHandle fwd, inv, single;
    int dims[1] = {n};
    CUFFT_CHECK(hipfftPlanMany(&fwd, 1, dims, nullptr, 1, n, nullptr, 1, bins, HIPFFT_R2C, batch));
    CUFFT_CHECK(hipfftPlanMany(&inv, 1, dims, nullptr, 1, bins, nullptr, 1, n, HIPFFT_C2R, batch));
    CUFFT_CHECK(hipfftPlan1d(&single, n, HIPFFT_R2C, 1));
    CUFFT_CHECK(hipfftSetStream(fwd, stream));
    CUFFT_CHECK(hipfftSetStream(inv, stream));
    CUFFT_CHECK(hipfftSetStream(single, stream));

    CUFFT_CHECK(hipfftExecR2C(single, d_sig, d_spec));
    spectrum_energy<<<(bins + 255) / 256, 256, 0, stream>>>(d_spec, bins, d_energy);

    CUFFT_CHECK(hipfftExecR2C(fwd, d_sig, d_spec));
    dim3 grid((bins + 255) / 256, batch);
    lowpass<<<grid, 256, 0, stream>>>(d_spec, bins, batch, 100, 1.0f / n);
    CUDA_CHECK(hipGetLastError());
    CUFFT_CHECK(hipfftExecC2R(inv, d_spec, d_sig));

    float energy = 0.0f;
    CUDA_CHECK(hipMemcpyAsync(h.data(), d_sig, sizeof(float) * n * batch,
                               hipMemcpyDeviceToHost, stream));
    CUDA_CHECK(hipMemcpyAsync(&energy, d_energy, sizeof(float), hipMemcpyDeviceToHost, stream));
    CUDA_CHECK(hipStreamSynchronize(stream));
    printf("fft: energy of signal 0 = %.3f, filtered[0][10] = %.5f\n", energy, h[10]);

    CUFFT_CHECK(hipfftDestroy(fwd));
    CUFFT_CHECK(hipfftDestroy(inv));
    CUFFT_CHECK(hipfftDestroy(single));
    CUDA_CHECK(hipFree(d_sig));
    CUDA_CHECK(hipFree(d_spec));
    CUDA_CHECK(hipFree(d_energy));
}

static void solve_demo(hipStream_t stream)
{
    const int n = 256;
    std::vector<float> A(n * n), b(n);
    for (int j = 0; j < n; ++j) {             // column-major, diagonally dominant
        for (int i = 0; i < n; ++i)
            A[j * n + i] = (i == j) ? float(n) : 1.0f / float(1 + abs(i - j));
        b[j] = float(j % 7) - 3.0f;
    }

    hipsolverDnHandle_t solver;
    hipblasHandle_t blas;
    CUSOLVER_CHECK(hipsolverDnCreate(&solver));
    CUBLAS_CHECK(hipblasCreate(&blas));
    CUSOLVER_CHECK(hipsolverDnSetStream(solver, stream));
    CUBLAS_CHECK(hipblasSetStream(blas, stream));
    CUBLAS_CHECK(hipblasSetPointerMode(blas, HIPBLAS_POINTER_MODE_HOST));

    float *d_A, *d_LU, *d_b, *d_x, *d_work;
    int *d_piv, *d_info;
    CUDA_CHECK(hipMalloc(&d_A, sizeof(float) * n * n));
    CUDA_CHECK(hipMalloc(&d_LU, sizeof(float) * n * n));
    CUDA_CHECK(hipMalloc(&d_b, sizeof(float) * n));
    CUDA_CHECK(hipMalloc(&d_x, sizeof(float) * n));
    CUDA_CHECK(hipMalloc(&d_piv, sizeof(int) * n));
    CUDA_CHECK(hipMalloc(&d_info, sizeof(int)));
    CUDA_CHECK(hipMemcpyAsync(d_A, A.data(), sizeof(float) * n * n, hipMemcpyHostToDevice, stream));
    CUDA_CHECK(hipMemcpyAsync(d_LU, d_A, sizeof(float) * n * n, hipMemcpyDeviceToDevice, stream));
    CUDA_CHECK(hipMemcpyAsync(d_b, b.data(), sizeof(float) * n, hipMemcpyHostToDevice, stream));
    CUDA_CHECK(hipMemcpyAsync(d_x, d_b, sizeof(float) * n, hipMemcpyDeviceToDevice, stream));

    int lwork = 0;
    CUSOLVER_CHECK(hipsolverDnSgetrf_bufferSize(solver, n, n, d_LU, n, &lwork));
    CUDA_CHECK(hipMalloc(&d_work, sizeof(float) * lwork));
    CUSOLVER_CHECK(hipsolverDnSgetrf(solver, n, n, d_LU, n, d_work, d_piv, d_info));
    CUSOLVER_CHECK(hipsolverDnSgetrs(solver, HIPBLAS_OP_N, n, 1, d_LU, n, d_piv, d_x, n, d_info));

    // The matrix is symmetric positive definite too: Cholesky-factor a copy.
    float* d_chol = nullptr;
    int lwork_chol = 0;
    CUDA_CHECK(hipMalloc(&d_chol, sizeof(float) * n * n));
    CUDA_CHECK(hipMemcpyAsync(d_chol, d_A, sizeof(float) * n * n, hipMemcpyDeviceToDevice, stream));
    CUSOLVER_CHECK(hipsolverDnSpotrf_bufferSize(solver, HIPBLAS_FILL_MODE_LOWER, n, d_chol, n, &lwork_chol));
    if (lwork_chol > lwork) {
        CUDA_CHECK(hipFree(d_work));
        CUDA_CHECK(hipMalloc(&d_work, sizeof(float) * lwork_chol));
    }
    CUSOLVER_CHECK(hipsolverDnSpotrf(solver, HIPBLAS_FILL_MODE_LOWER, n, d_chol, n, d_work, lwork_chol, d_info));

    int info = 0;
    CUDA_CHECK(hipMemcpyAsync(&info, d_info, sizeof(int), hipMemcpyDeviceToHost, stream));
    CUDA_CHECK(hipStreamSynchronize(stream));
    if (info != 0) {
        fprintf(stderr, "getrf/getrs info = %d\n", info);
        exit(1);
    }

    // r = A x - b, computed in place in d_b
    const float one = 1.0f, minus_one = -1.0f;
    CUBLAS_CHECK(hipblasSgemv(blas, HIPBLAS_OP_N, n, n, &one, d_A, n, d_x, 1, &minus_one, d_b, 1));
    float resid = 0.0f, xnorm = 0.0f;
    CUBLAS_CHECK(hipblasSnrm2(blas, n, d_b, 1, &resid));
    CUBLAS_CHECK(hipblasSnrm2(blas, n, d_x, 1, &xnorm));
    CUDA_CHECK(hipStreamSynchronize(stream));
    printf("solve: n=%d, ||Ax-b|| = %.3e, ||x|| = %.3e\n", n, resid, xnorm);

    CUDA_CHECK(hipFree(d_A));
    CUDA_CHECK(hipFree(d_LU));
    CUDA_CHECK(hipFree(d_b));
    CUDA_CHECK(hipFree(d_x));
    CUDA_CHECK(hipFree(d_piv));
    CUDA_CHECK(hipFree(d_info));
    CUDA_CHECK(hipFree(d_work));
    CUDA_CHECK(hipFree(d_chol));
    CUBLAS_CHECK(hipblasDestroy(blas));
    CUSOLVER_CHECK(hipsolverDnDestroy(solver));
}

int main()
{
    hipStream_t stream;
    CUDA_CHECK(hipStreamCreate(&stream));
    fft_demo(stream);
    autocorr_demo(stream);
    solve_demo(stream);
    CUDA_CHECK(hipStreamDestroy(stream));
    return 0;
}
