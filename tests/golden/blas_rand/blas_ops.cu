// blas_ops.cu - thin wrappers over cuBLAS and cuSPARSE.
#include <hip/hip_runtime.h>
#include "checks.h"
#include "ops.h"

void gemm(hipblasHandle_t handle, int m, int n, int k, float alpha, const float* A,
          const float* B, float beta, float* C)
{
    // cuBLAS is column-major: leading dimensions are the row counts.
    CUBLAS_CHECK(hipblasSgemm(handle, HIPBLAS_OP_N, HIPBLAS_OP_N, m, n, k, &alpha, A, m, B, k,
                             &beta, C, m));
}

float axpy_dot(hipblasHandle_t handle, int n, float alpha, const float* x, float* y)
{
    CUBLAS_CHECK(hipblasSaxpy(handle, n, &alpha, x, 1, y, 1));
    float result = 0.0f;
    // With the default CUBLAS_POINTER_MODE_HOST the result lands in host
    // memory and cublasSdot blocks until it is available.
    CUBLAS_CHECK(hipblasSdot(handle, n, x, 1, y, 1, &result));
    return result;
}

void csr_spmv(hipStream_t stream, int rows, int cols, int nnz, const int* row_ptr,
              const int* col_idx, const float* values, const float* x, float* y)
{
    hipsparseHandle_t handle;
    CUSPARSE_CHECK(hipsparseCreate(&handle));
    CUSPARSE_CHECK(hipsparseSetStream(handle, stream));

    hipsparseSpMatDescr_t matA;
    hipsparseDnVecDescr_t vecX, vecY;
    CUSPARSE_CHECK(hipsparseCreateCsr(&matA, rows, cols, nnz, (void*)row_ptr, (void*)col_idx,
                                     (void*)values, HIPSPARSE_INDEX_32I, HIPSPARSE_INDEX_32I,
                                     HIPSPARSE_INDEX_BASE_ZERO, HIP_R_32F));
    CUSPARSE_CHECK(hipsparseCreateDnVec(&vecX, cols, (void*)x, HIP_R_32F));
    CUSPARSE_CHECK(hipsparseCreateDnVec(&vecY, rows, y, HIP_R_32F));

    const float alpha = 1.0f, beta = 0.0f;
    size_t buffer_size = 0;
    CUSPARSE_CHECK(hipsparseSpMV_bufferSize(handle, HIPSPARSE_OPERATION_NON_TRANSPOSE, &alpha, matA,
                                           vecX, &beta, vecY, HIP_R_32F,
                                           HIPSPARSE_SPMV_ALG_DEFAULT, &buffer_size));
    void* buffer = nullptr;
    if (buffer_size > 0) CUDA_CHECK(hipMalloc(&buffer, buffer_size));

    CUSPARSE_CHECK(hipsparseSpMV(handle, HIPSPARSE_OPERATION_NON_TRANSPOSE, &alpha, matA, vecX,
                                &beta, vecY, HIP_R_32F, HIPSPARSE_SPMV_ALG_DEFAULT, buffer));

    CUDA_CHECK(hipStreamSynchronize(stream));   // the buffer must outlive the SpMV
    CUDA_CHECK(hipFree(buffer));
    CUSPARSE_CHECK(hipsparseDestroySpMat(matA));
    CUSPARSE_CHECK(hipsparseDestroyDnVec(vecX));
    CUSPARSE_CHECK(hipsparseDestroyDnVec(vecY));
    CUSPARSE_CHECK(hipsparseDestroy(handle));
}
