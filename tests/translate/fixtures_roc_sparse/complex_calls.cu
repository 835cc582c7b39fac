// Complex (C/Z) cuSPARSE calls, written from the cuSPARSE documentation's signatures (legacy csrmv
// and csrmm from CUDA 10; gemvi, csrgeam2 and the interleaved batch solvers from CUDA 12).  cuSPARSE
// takes cuComplex* / cuDoubleComplex*; rocSPARSE 5.3 its own rocsparse_float_complex* /
// rocsparse_double_complex*.  The scalars alpha and beta are host variables passed by address.
#include <cusparse.h>
#include <cuComplex.h>

// y = alpha * A * x + beta * y (legacy csrmv: rocSPARSE also takes a mat_info); C = alpha * A * B + beta * C
void spmv_spmm(cusparseHandle_t handle, cusparseMatDescr_t descrA, int m, int n, int k, int nnz,
               const cuDoubleComplex* csrVal, const int* csrRowPtr, const int* csrColInd,
               const cuDoubleComplex* x, cuDoubleComplex* y, const cuDoubleComplex* B, int ldb,
               cuDoubleComplex* C, int ldc)
{
    cuDoubleComplex alpha = make_cuDoubleComplex(1.0, 0.0);
    cuDoubleComplex beta = make_cuDoubleComplex(0.0, 0.0);
    cusparseZcsrmv(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, m, n, nnz, &alpha, descrA,
                   csrVal, csrRowPtr, csrColInd, x, &beta, y);
    cusparseZcsrmm(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, m, n, k, nnz, &alpha, descrA,
                   csrVal, csrRowPtr, csrColInd, B, ldb, &beta, C, ldc);
}

// y = alpha * op(A) * x + beta * y with A dense and x sparse (the parameter lists match but for the types)
void dense_times_sparse(cusparseHandle_t handle, int m, int n, int nnz, const cuComplex* A, int lda,
                        const cuComplex* xVal, const int* xInd, cuComplex* y, void* buffer)
{
    cuComplex alpha = make_cuComplex(2.0f, 0.0f);
    cuComplex beta = make_cuComplex(1.0f, 0.0f);
    cusparseCgemvi(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, m, n, &alpha, A, lda, nnz, xVal, xInd, &beta, y,
                   CUSPARSE_INDEX_BASE_ZERO, buffer);
}

// C = alpha * A + beta * B (rocSPARSE's csrgeam takes no workspace)
void add_matrices(cusparseHandle_t handle, int m, int n, cusparseMatDescr_t descrA, int nnzA,
                  const cuDoubleComplex* valA, const int* rowA, const int* colA, cusparseMatDescr_t descrB,
                  int nnzB, const cuDoubleComplex* valB, const int* rowB, const int* colB,
                  cusparseMatDescr_t descrC, cuDoubleComplex* valC, int* rowC, int* colC, void* workspace)
{
    const cuDoubleComplex alpha = make_cuDoubleComplex(1.0, 0.0);
    const cuDoubleComplex beta = make_cuDoubleComplex(-1.0, 0.0);
    cusparseZcsrgeam2(handle, m, n, &alpha, descrA, nnzA, valA, rowA, colA, &beta, descrB, nnzB,
                      valB, rowB, colB, descrC, valC, rowC, colC, workspace);
}

// batchCount tridiagonal / pentadiagonal systems in the interleaved layout (algo 0: cuThomas / QR)
void interleaved(cusparseHandle_t handle, int m, cuComplex* dl, cuComplex* d, cuComplex* du, cuComplex* x,
                 cuDoubleComplex* ds, cuDoubleComplex* zdl, cuDoubleComplex* zd, cuDoubleComplex* zdu,
                 cuDoubleComplex* dw, cuDoubleComplex* zx, int batchCount, void* buffer)
{
    size_t size = 0;
    cusparseCgtsvInterleavedBatch_bufferSizeExt(handle, 0, m, dl, d, du, x, batchCount, &size);
    cusparseCgtsvInterleavedBatch(handle, 0, m, dl, d, du, x, batchCount, buffer);
    cusparseZgpsvInterleavedBatch_bufferSizeExt(handle, 0, m, ds, zdl, zd, zdu, dw, zx, batchCount, &size);
    cusparseZgpsvInterleavedBatch(handle, 0, m, ds, zdl, zd, zdu, dw, zx, batchCount, buffer);
}
