// main.cu - y = alpha * A * x + beta * y for the 5-point Laplacian of an
// n x n grid: the matrix is assembled in COO on the host, compressed to CSR
// with cusparseXcoo2csr and multiplied with the generic cusparseSpMV.
#include <hip/hip_runtime.h>
#include <hipsparse/hipsparse.h>
#include <cmath>
#include <vector>

#include "sparse_check.h"

struct Coo {
    std::vector<int> rows, cols;
    std::vector<float> vals;
};

static Coo laplacian(int n)
{
    Coo a;
    for (int i = 0; i < n * n; ++i) {
        int r = i / n, c = i % n;
        const int nbr[4] = {r > 0 ? i - n : -1, c > 0 ? i - 1 : -1, c < n - 1 ? i + 1 : -1,
                            r < n - 1 ? i + n : -1};
        for (int k = 0; k < 2; ++k) {
            if (nbr[k] >= 0) { a.rows.push_back(i); a.cols.push_back(nbr[k]); a.vals.push_back(-1.0f); }
        }
        a.rows.push_back(i); a.cols.push_back(i); a.vals.push_back(4.0f);
        for (int k = 2; k < 4; ++k) {
            if (nbr[k] >= 0) { a.rows.push_back(i); a.cols.push_back(nbr[k]); a.vals.push_back(-1.0f); }
        }
    }
    return a;
}

int main()
{
    const int n = 64, m = n * n;
    Coo coo = laplacian(n);
    const int nnz = static_cast<int>(coo.vals.size());
    std::vector<float> h_x(m), h_y(m, 1.0f);
    for (int i = 0; i < m; ++i) {
        h_x[i] = std::sin(0.01f * i);
    }

    hipStream_t stream;
    CUDA_CHECK(hipStreamCreateWithFlags(&stream, hipStreamNonBlocking));
    hipsparseHandle_t handle;
    CUSPARSE_CHECK(hipsparseCreate(&handle));
    CUSPARSE_CHECK(hipsparseSetStream(handle, stream));

    // A general matrix with zero-based indices.
    hipsparseMatDescr_t descr;
    CUSPARSE_CHECK(hipsparseCreateMatDescr(&descr));
    CUSPARSE_CHECK(hipsparseSetMatType(descr, HIPSPARSE_MATRIX_TYPE_GENERAL));
    CUSPARSE_CHECK(hipsparseSetMatIndexBase(descr, HIPSPARSE_INDEX_BASE_ZERO));

    int *d_coo_rows, *d_row_ptr, *d_cols;
    float *d_vals, *d_x, *d_y;
    CUDA_CHECK(hipMalloc(&d_coo_rows, nnz * sizeof(int)));
    CUDA_CHECK(hipMalloc(&d_row_ptr, (m + 1) * sizeof(int)));
    CUDA_CHECK(hipMalloc(&d_cols, nnz * sizeof(int)));
    CUDA_CHECK(hipMalloc(&d_vals, nnz * sizeof(float)));
    CUDA_CHECK(hipMalloc(&d_x, m * sizeof(float)));
    CUDA_CHECK(hipMalloc(&d_y, m * sizeof(float)));
    CUDA_CHECK(hipMemcpyAsync(d_coo_rows, coo.rows.data(), nnz * sizeof(int), hipMemcpyHostToDevice, stream));
    CUDA_CHECK(hipMemcpyAsync(d_cols, coo.cols.data(), nnz * sizeof(int), hipMemcpyHostToDevice, stream));
    CUDA_CHECK(hipMemcpyAsync(d_vals, coo.vals.data(), nnz * sizeof(float), hipMemcpyHostToDevice, stream));
    CUDA_CHECK(hipMemcpyAsync(d_x, h_x.data(), m * sizeof(float), hipMemcpyHostToDevice, stream));
    CUDA_CHECK(hipMemcpyAsync(d_y, h_y.data(), m * sizeof(float), hipMemcpyHostToDevice, stream));

    // COO row indices -> CSR row offsets (the entries are sorted by row).
    CUSPARSE_CHECK(hipsparseXcoo2csr(handle, d_coo_rows, nnz, m, d_row_ptr, hipsparseGetMatIndexBase(descr)));

    // Generic API descriptors: 32-bit indices, float values.
    const hipDataType value_type = HIP_R_32F;
    hipsparseSpMatDescr_t mat_a;
    hipsparseDnVecDescr_t vec_x, vec_y;
    CUSPARSE_CHECK(hipsparseCreateCsr(&mat_a, m, m, nnz, d_row_ptr, d_cols, d_vals, HIPSPARSE_INDEX_32I,
                                     HIPSPARSE_INDEX_32I, HIPSPARSE_INDEX_BASE_ZERO, value_type));
    CUSPARSE_CHECK(hipsparseCreateDnVec(&vec_x, m, d_x, value_type));
    CUSPARSE_CHECK(hipsparseCreateDnVec(&vec_y, m, d_y, value_type));

    const float alpha = 2.0f, beta = 0.5f;
    const hipsparseOperation_t op = HIPSPARSE_OPERATION_NON_TRANSPOSE;
    const hipsparseSpMVAlg_t alg = HIPSPARSE_SPMV_ALG_DEFAULT;
    size_t buffer_bytes = 0;
    CUSPARSE_CHECK(hipsparseSpMV_bufferSize(handle, op, &alpha, mat_a, vec_x, &beta, vec_y, value_type, alg,
                                           &buffer_bytes));
    void* d_buffer = nullptr;
    CUDA_CHECK(hipMalloc(&d_buffer, buffer_bytes > 0 ? buffer_bytes : 1));
    CUSPARSE_CHECK(hipsparseSpMV(handle, op, &alpha, mat_a, vec_x, &beta, vec_y, value_type, alg, d_buffer));

    std::vector<float> result(m);
    CUDA_CHECK(hipMemcpyAsync(result.data(), d_y, m * sizeof(float), hipMemcpyDeviceToHost, stream));
    CUDA_CHECK(hipStreamSynchronize(stream));

    int bad = 0;
    std::vector<float> ref(m, 0.0f);
    for (int k = 0; k < nnz; ++k) {
        ref[coo.rows[k]] += coo.vals[k] * h_x[coo.cols[k]];
    }
    for (int i = 0; i < m; ++i) {
        if (std::fabs(alpha * ref[i] + beta * h_y[i] - result[i]) > 1e-4f) {
            ++bad;
        }
    }
    printf("SpMV on %d x %d, %d non-zeros: %d of %d wrong\n", m, m, nnz, bad, m);

    CUSPARSE_CHECK(hipsparseDestroySpMat(mat_a));
    CUSPARSE_CHECK(hipsparseDestroyDnVec(vec_x));
    CUSPARSE_CHECK(hipsparseDestroyDnVec(vec_y));
    CUSPARSE_CHECK(hipsparseDestroyMatDescr(descr));
    CUSPARSE_CHECK(hipsparseDestroy(handle));
    CUDA_CHECK(hipFree(d_buffer));
    CUDA_CHECK(hipFree(d_y));
    CUDA_CHECK(hipFree(d_x));
    CUDA_CHECK(hipFree(d_vals));
    CUDA_CHECK(hipFree(d_cols));
    CUDA_CHECK(hipFree(d_row_ptr));
    CUDA_CHECK(hipFree(d_coo_rows));
    CUDA_CHECK(hipStreamDestroy(stream));
    return bad == 0 ? 0 : 1;
}
