// cuSPARSE calls whose rocSPARSE functions take other arguments (written from the cuSPARSE
// documentation's signatures: legacy csrmv/csrmm (CUDA 10), csrgeam2, the interleaved batch
// solvers and the generic sparse-to-dense conversion).
#include <cusparse.h>

void legacy_level2_3(cusparseHandle_t handle, cusparseMatDescr_t descrA, int m, int n, int k, int nnz,
                     const double* alpha, const double* csrVal, const int* csrRowPtr, const int* csrColInd,
                     const double* x, const double* beta, double* y, const double* B, int ldb, double* C, int ldc)
{
    // y = alpha * op(A) * x + beta * y
    cusparseDcsrmv(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, m, n, nnz, alpha, descrA,
                   csrVal, csrRowPtr, csrColInd, x, beta, y);
    // C = alpha * op(A) * B + beta * C
    cusparseDcsrmm(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, m, n, k, nnz, alpha, descrA,
                   csrVal, csrRowPtr, csrColInd, B, ldb, beta, C, ldc);
}

void add_matrices(cusparseHandle_t handle, int m, int n, const float* alpha, cusparseMatDescr_t descrA, int nnzA,
                  const float* valA, const int* rowA, const int* colA, const float* beta, cusparseMatDescr_t descrB,
                  int nnzB, const float* valB, const int* rowB, const int* colB, cusparseMatDescr_t descrC,
                  float* valC, int* rowC, int* colC, int* nnzC, void* workspace)
{
    // C = alpha * A + beta * B; workspace sized by cusparseScsrgeam2_bufferSizeExt
    cusparseXcsrgeam2Nnz(handle, m, n, descrA, nnzA, rowA, colA, descrB, nnzB, rowB, colB, descrC,
                         rowC, nnzC, workspace);
    cusparseScsrgeam2(handle, m, n, alpha, descrA, nnzA, valA, rowA, colA, beta, descrB, nnzB,
                      valB, rowB, colB, descrC, valC, rowC, colC, workspace);
}

void interleaved(cusparseHandle_t handle, int m, float* dl, float* d, float* du, float* x,
                 float* ds, float* dw, int batchCount)
{
    size_t size = 0;
    void* buffer = nullptr;
    // algo 1: LU with partial pivoting; the systems are interleaved (stride batchCount)
    cusparseSgtsvInterleavedBatch_bufferSizeExt(handle, 1, m, dl, d, du, x, batchCount, &size);
    cusparseSgtsvInterleavedBatch(handle, 1, m, dl, d, du, x, batchCount, buffer);
    // algo 0: QR
    cusparseSgpsvInterleavedBatch_bufferSizeExt(handle, 0, m, ds, dl, d, du, dw, x, batchCount, &size);
    cusparseSgpsvInterleavedBatch(handle, 0, m, ds, dl, d, du, dw, x, batchCount, buffer);
}

void to_dense(cusparseHandle_t handle, cusparseSpMatDescr_t matA, cusparseDnMatDescr_t matB)
{
    size_t bufferSize = 0;
    void* dBuffer = nullptr;
    cusparseSparseToDense_bufferSize(handle, matA, matB, CUSPARSE_SPARSETODENSE_ALG_DEFAULT, &bufferSize);
    cusparseSparseToDense(handle, matA, matB, CUSPARSE_SPARSETODENSE_ALG_DEFAULT, dBuffer);
}
