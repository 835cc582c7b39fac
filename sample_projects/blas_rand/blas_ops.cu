// blas_ops.cu - thin wrappers over cuBLAS and cuSPARSE.
#include "checks.h"
#include "ops.h"

void gemm(cublasHandle_t handle, int m, int n, int k, float alpha, const float* A,
          const float* B, float beta, float* C)
{
    // cuBLAS is column-major: leading dimensions are the row counts.
    CUBLAS_CHECK(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, A, m, B, k,
                             &beta, C, m));
}

float axpy_dot(cublasHandle_t handle, int n, float alpha, const float* x, float* y)
{
    CUBLAS_CHECK(cublasSaxpy(handle, n, &alpha, x, 1, y, 1));
    float result = 0.0f;
    // With the default CUBLAS_POINTER_MODE_HOST the result lands in host
    // memory and cublasSdot blocks until it is available.
    CUBLAS_CHECK(cublasSdot(handle, n, x, 1, y, 1, &result));
    return result;
}

void csr_spmv(cudaStream_t stream, int rows, int cols, int nnz, const int* row_ptr,
              const int* col_idx, const float* values, const float* x, float* y)
{
    cusparseHandle_t handle;
    CUSPARSE_CHECK(cusparseCreate(&handle));
    CUSPARSE_CHECK(cusparseSetStream(handle, stream));

    cusparseSpMatDescr_t matA;
    cusparseDnVecDescr_t vecX, vecY;
    CUSPARSE_CHECK(cusparseCreateCsr(&matA, rows, cols, nnz, (void*)row_ptr, (void*)col_idx,
                                     (void*)values, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                     CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
    CUSPARSE_CHECK(cusparseCreateDnVec(&vecX, cols, (void*)x, CUDA_R_32F));
    CUSPARSE_CHECK(cusparseCreateDnVec(&vecY, rows, y, CUDA_R_32F));

    const float alpha = 1.0f, beta = 0.0f;
    size_t buffer_size = 0;
    CUSPARSE_CHECK(cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, matA,
                                           vecX, &beta, vecY, CUDA_R_32F,
                                           CUSPARSE_SPMV_ALG_DEFAULT, &buffer_size));
    void* buffer = nullptr;
    if (buffer_size > 0) CUDA_CHECK(cudaMalloc(&buffer, buffer_size));

    CUSPARSE_CHECK(cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, matA, vecX,
                                &beta, vecY, CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, buffer));

    CUDA_CHECK(cudaStreamSynchronize(stream));   // the buffer must outlive the SpMV
    CUDA_CHECK(cudaFree(buffer));
    CUSPARSE_CHECK(cusparseDestroySpMat(matA));
    CUSPARSE_CHECK(cusparseDestroyDnVec(vecX));
    CUSPARSE_CHECK(cusparseDestroyDnVec(vecY));
    CUSPARSE_CHECK(cusparseDestroy(handle));
}
