// main.cpp - host driver for the blas_rand sample: cuBLAS GEMM/AXPY/DOT,
// cuRAND host and device generators, a cuSPARSE CSR SpMV and a cuComplex
// kernel, each compared against a CPU reference.
//
// Usage: blas_rand [-m M] [-n N] [-k K] [--seed S]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <hip/hip_runtime.h>
#include <hipblas/hipblas.h>
#include <hip/hip_complex.h>

#include "checks.h"
#include "ops.h"

namespace {

struct Args {
    int m = 256, n = 192, k = 128;
    unsigned long long seed = 2024ULL;
};

Args parse_args(int argc, char** argv)
{
    Args a;
    for (int i = 1; i < argc; ++i) {
        std::string opt = argv[i];
        if (i + 1 >= argc) {
            fprintf(stderr, "option %s needs a value\n", opt.c_str());
            std::exit(2);
        }
        if (opt == "-m") a.m = std::atoi(argv[++i]);
        else if (opt == "-n") a.n = std::atoi(argv[++i]);
        else if (opt == "-k") a.k = std::atoi(argv[++i]);
        else if (opt == "--seed") a.seed = std::strtoull(argv[++i], nullptr, 10);
        else {
            fprintf(stderr, "unknown option %s\nusage: %s [-m M] [-n N] [-k K] [--seed S]\n",
                    opt.c_str(), argv[0]);
            std::exit(2);
        }
    }
    if (a.m <= 0 || a.n <= 0 || a.k <= 0) {
        fprintf(stderr, "matrix sizes must be positive\n");
        std::exit(2);
    }
    return a;
}

bool report(const char* what, double max_err, double tol)
{
    const bool ok = max_err <= tol;
    printf("%-22s max error %.3e  %s\n", what, max_err, ok ? "ok" : "FAILED");
    return ok;
}

template <typename T>
std::vector<T> to_host(const T* d, size_t n)
{
    std::vector<T> h(n);
    CUDA_CHECK(hipMemcpy(h.data(), d, n * sizeof(T), hipMemcpyDeviceToHost));
    return h;
}

}  // namespace

int main(int argc, char** argv)
{
    const Args args = parse_args(argc, argv);
    const int m = args.m, n = args.n, k = args.k;
    bool ok = true;

    hipStream_t stream;
    CUDA_CHECK(hipStreamCreate(&stream));
    hipblasHandle_t blas;
    CUBLAS_CHECK(hipblasCreate(&blas));
    CUBLAS_CHECK(hipblasSetStream(blas, stream));

    // ---- GEMM on cuRAND-generated inputs ----------------------------------
    float *dA, *dB, *dC;
    CUDA_CHECK(hipMalloc(&dA, sizeof(float) * m * k));
    CUDA_CHECK(hipMalloc(&dB, sizeof(float) * k * n));
    CUDA_CHECK(hipMalloc(&dC, sizeof(float) * m * n));
    fill_uniform(dA, (size_t)m * k, args.seed, stream);
    fill_uniform(dB, (size_t)k * n, args.seed + 1, stream);
    CUDA_CHECK(hipMemsetAsync(dC, 0, sizeof(float) * m * n, stream));

    gemm(blas, m, n, k, 1.0f, dA, dB, 0.0f, dC);
    CUDA_CHECK(hipStreamSynchronize(stream));

    auto hA = to_host(dA, (size_t)m * k);
    auto hB = to_host(dB, (size_t)k * n);
    auto hC = to_host(dC, (size_t)m * n);
    double gemm_err = 0.0;
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < m; ++i) {
            double acc = 0.0;
            for (int p = 0; p < k; ++p) acc += (double)hA[i + p * m] * hB[p + j * k];
            gemm_err = std::fmax(gemm_err, std::fabs(acc - hC[i + j * m]));
        }
    ok &= report("cublasSgemm", gemm_err, 1e-3 * k);

    bool in_range = true;
    for (float v : hA) in_range &= (v > 0.0f && v <= 1.0f);
    printf("%-22s %s\n", "curandGenerateUniform", in_range ? "values in (0, 1]: ok" : "out of range: FAILED");
    ok &= in_range;

    // ---- AXPY + DOT --------------------------------------------------------
    const int len = m * k;
    float* dY;
    CUDA_CHECK(hipMalloc(&dY, sizeof(float) * len));
    fill_uniform(dY, len, args.seed + 2, stream);
    CUDA_CHECK(hipStreamSynchronize(stream));
    auto hY = to_host(dY, len);
    const float alpha = 0.75f;
    const float dot = axpy_dot(blas, len, alpha, dA, dY);
    double ref_dot = 0.0;
    for (int i = 0; i < len; ++i) ref_dot += (double)hA[i] * (alpha * hA[i] + hY[i]);
    ok &= report("cublasSaxpy+cublasSdot", std::fabs(dot - ref_dot) / ref_dot, 1e-4);

    // ---- CSR SpMV: 1-D Laplacian (tridiagonal 2, -1) ----------------------
    const int rows = 1000;
    std::vector<int> row_ptr(rows + 1), col_idx;
    std::vector<float> vals;
    for (int r = 0; r < rows; ++r) {
        row_ptr[r] = (int)col_idx.size();
        if (r > 0) { col_idx.push_back(r - 1); vals.push_back(-1.0f); }
        col_idx.push_back(r); vals.push_back(2.0f);
        if (r + 1 < rows) { col_idx.push_back(r + 1); vals.push_back(-1.0f); }
    }
    row_ptr[rows] = (int)col_idx.size();
    const int nnz = (int)vals.size();
    std::vector<float> x(rows);
    for (int i = 0; i < rows; ++i) x[i] = (float)(i * i % 17);

    int *d_row_ptr, *d_col_idx;
    float *d_vals, *d_x, *d_y;
    CUDA_CHECK(hipMalloc(&d_row_ptr, sizeof(int) * (rows + 1)));
    CUDA_CHECK(hipMalloc(&d_col_idx, sizeof(int) * nnz));
    CUDA_CHECK(hipMalloc(&d_vals, sizeof(float) * nnz));
    CUDA_CHECK(hipMalloc(&d_x, sizeof(float) * rows));
    CUDA_CHECK(hipMalloc(&d_y, sizeof(float) * rows));
    CUDA_CHECK(hipMemcpy(d_row_ptr, row_ptr.data(), sizeof(int) * (rows + 1), hipMemcpyHostToDevice));
    CUDA_CHECK(hipMemcpy(d_col_idx, col_idx.data(), sizeof(int) * nnz, hipMemcpyHostToDevice));
    CUDA_CHECK(hipMemcpy(d_vals, vals.data(), sizeof(float) * nnz, hipMemcpyHostToDevice));
    CUDA_CHECK(hipMemcpy(d_x, x.data(), sizeof(float) * rows, hipMemcpyHostToDevice));
    csr_spmv(stream, rows, rows, nnz, d_row_ptr, d_col_idx, d_vals, d_x, d_y);
    auto y = to_host(d_y, rows);
    double spmv_err = 0.0;
    for (int r = 0; r < rows; ++r) {
        double acc = 0.0;
        for (int p = row_ptr[r]; p < row_ptr[r + 1]; ++p) acc += vals[p] * x[col_idx[p]];
        spmv_err = std::fmax(spmv_err, std::fabs(acc - y[r]));
    }
    ok &= report("cusparseSpMV (CSR)", spmv_err, 1e-4);

    // ---- Monte Carlo pi with curand_kernel --------------------------------
    const double pi = estimate_pi(64, 256, 4096, args.seed);
    ok &= report("curand_uniform pi", std::fabs(pi - M_PI), 5e-3);

    // ---- cuComplex --------------------------------------------------------
    const int nc = 4096;
    std::vector<hipFloatComplex> ha(nc), hb(nc), hc(nc);
    for (int i = 0; i < nc; ++i) {
        ha[i] = make_hipFloatComplex(std::cos(0.001f * i), std::sin(0.001f * i));
        hb[i] = make_hipFloatComplex(0.5f, -0.25f * (i % 7));
        hc[i] = make_hipFloatComplex(1.0f, 1.0f);
    }
    hipFloatComplex *d_a, *d_b, *d_c, *d_out;
    const size_t cbytes = sizeof(hipFloatComplex) * nc;
    CUDA_CHECK(hipMalloc(&d_a, cbytes));
    CUDA_CHECK(hipMalloc(&d_b, cbytes));
    CUDA_CHECK(hipMalloc(&d_c, cbytes));
    CUDA_CHECK(hipMalloc(&d_out, cbytes));
    CUDA_CHECK(hipMemcpyAsync(d_a, ha.data(), cbytes, hipMemcpyHostToDevice, stream));
    CUDA_CHECK(hipMemcpyAsync(d_b, hb.data(), cbytes, hipMemcpyHostToDevice, stream));
    CUDA_CHECK(hipMemcpyAsync(d_c, hc.data(), cbytes, hipMemcpyHostToDevice, stream));
    complex_fma(d_a, d_b, d_c, d_out, nc, stream);
    CUDA_CHECK(hipStreamSynchronize(stream));
    auto hout = to_host(d_out, nc);
    double cerr = 0.0;
    for (int i = 0; i < nc; ++i) {
        hipFloatComplex want = hipCaddf(hipCmulf(ha[i], hb[i]), hc[i]);
        cerr = std::fmax(cerr, hipCabsf(hipCsubf(want, hout[i])));
    }
    ok &= report("cuCmulf/cuCaddf kernel", cerr, 1e-5);

    // ---- cleanup ----------------------------------------------------------
    for (void* p : {(void*)dA, (void*)dB, (void*)dC, (void*)dY, (void*)d_row_ptr, (void*)d_col_idx,
                    (void*)d_vals, (void*)d_x, (void*)d_y, (void*)d_a, (void*)d_b, (void*)d_c,
                    (void*)d_out})
        CUDA_CHECK(hipFree(p));
    CUBLAS_CHECK(hipblasDestroy(blas));
    CUDA_CHECK(hipStreamDestroy(stream));

    printf(ok ? "all checks passed\n" : "some checks FAILED\n");
    return ok ? 0 : 1;
}
