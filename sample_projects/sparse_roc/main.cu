// main.cu - y = alpha * A * x + beta * y for the 5-point Laplacian of an
// n x n grid: the matrix is assembled in COO on the host, compressed to CSR
// with cusparseXcoo2csr and multiplied with the generic cusparseSpMV.
#include <cuda_runtime.h>
#include <cusparse.h>
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

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cusparseHandle_t handle;
    CUSPARSE_CHECK(cusparseCreate(&handle));
    CUSPARSE_CHECK(cusparseSetStream(handle, stream));

    // A general matrix with zero-based indices.
    cusparseMatDescr_t descr;
    CUSPARSE_CHECK(cusparseCreateMatDescr(&descr));
    CUSPARSE_CHECK(cusparseSetMatType(descr, CUSPARSE_MATRIX_TYPE_GENERAL));
    CUSPARSE_CHECK(cusparseSetMatIndexBase(descr, CUSPARSE_INDEX_BASE_ZERO));

    int *d_coo_rows, *d_row_ptr, *d_cols;
    float *d_vals, *d_x, *d_y;
    CUDA_CHECK(cudaMalloc(&d_coo_rows, nnz * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d_row_ptr, (m + 1) * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d_cols, nnz * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d_vals, nnz * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_x, m * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_y, m * sizeof(float)));
    CUDA_CHECK(cudaMemcpyAsync(d_coo_rows, coo.rows.data(), nnz * sizeof(int), cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaMemcpyAsync(d_cols, coo.cols.data(), nnz * sizeof(int), cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaMemcpyAsync(d_vals, coo.vals.data(), nnz * sizeof(float), cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaMemcpyAsync(d_x, h_x.data(), m * sizeof(float), cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaMemcpyAsync(d_y, h_y.data(), m * sizeof(float), cudaMemcpyHostToDevice, stream));

    // COO row indices -> CSR row offsets (the entries are sorted by row).
    CUSPARSE_CHECK(cusparseXcoo2csr(handle, d_coo_rows, nnz, m, d_row_ptr, cusparseGetMatIndexBase(descr)));

    // Generic API descriptors: 32-bit indices, float values.
    const cudaDataType value_type = CUDA_R_32F;
    cusparseSpMatDescr_t mat_a;
    cusparseDnVecDescr_t vec_x, vec_y;
    CUSPARSE_CHECK(cusparseCreateCsr(&mat_a, m, m, nnz, d_row_ptr, d_cols, d_vals, CUSPARSE_INDEX_32I,
                                     CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, value_type));
    CUSPARSE_CHECK(cusparseCreateDnVec(&vec_x, m, d_x, value_type));
    CUSPARSE_CHECK(cusparseCreateDnVec(&vec_y, m, d_y, value_type));

    const float alpha = 2.0f, beta = 0.5f;
    const cusparseOperation_t op = CUSPARSE_OPERATION_NON_TRANSPOSE;
    const cusparseSpMVAlg_t alg = CUSPARSE_SPMV_ALG_DEFAULT;
    size_t buffer_bytes = 0;
    CUSPARSE_CHECK(cusparseSpMV_bufferSize(handle, op, &alpha, mat_a, vec_x, &beta, vec_y, value_type, alg,
                                           &buffer_bytes));
    void* d_buffer = nullptr;
    CUDA_CHECK(cudaMalloc(&d_buffer, buffer_bytes > 0 ? buffer_bytes : 1));
    CUSPARSE_CHECK(cusparseSpMV(handle, op, &alpha, mat_a, vec_x, &beta, vec_y, value_type, alg, d_buffer));

    std::vector<float> result(m);
    CUDA_CHECK(cudaMemcpyAsync(result.data(), d_y, m * sizeof(float), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));

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

    CUSPARSE_CHECK(cusparseDestroySpMat(mat_a));
    CUSPARSE_CHECK(cusparseDestroyDnVec(vec_x));
    CUSPARSE_CHECK(cusparseDestroyDnVec(vec_y));
    CUSPARSE_CHECK(cusparseDestroyMatDescr(descr));
    CUSPARSE_CHECK(cusparseDestroy(handle));
    CUDA_CHECK(cudaFree(d_buffer));
    CUDA_CHECK(cudaFree(d_y));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFree(d_vals));
    CUDA_CHECK(cudaFree(d_cols));
    CUDA_CHECK(cudaFree(d_row_ptr));
    CUDA_CHECK(cudaFree(d_coo_rows));
    CUDA_CHECK(cudaStreamDestroy(stream));
    return bad == 0 ? 0 : 1;
}
