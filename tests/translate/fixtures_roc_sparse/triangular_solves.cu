// cuSPARSE's triangular solves and incomplete factorization (legacy API of CUDA 11; written from the
// cuSPARSE documentation's signatures and its csrsv2/csrsm2/csrilu02 examples): one cusparseSolvePolicy_t
// where rocSPARSE takes an analysis and a solve policy, csrsm2's algo, and the csrsv2Info_t the
// analysis fills.
#include <cusparse.h>
#include <cuda_runtime.h>

// L * x = f (float), L lower triangular in CSR
void lower_solve(cusparseHandle_t handle, cusparseMatDescr_t descr, int m, int nnz, const float* val,
                 const int* rowPtr, const int* colInd, const float* f, float* x)
{
    csrsv2Info_t info;
    cusparseCreateCsrsv2Info(&info);
    const cusparseSolvePolicy_t policy = CUSPARSE_SOLVE_POLICY_USE_LEVEL;
    size_t bufferSize = 0;
    cusparseScsrsv2_bufferSizeExt(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, m, nnz, descr,
                                  const_cast<float*>(val), rowPtr, colInd, info, &bufferSize);
    void* buffer = nullptr;
    cudaMalloc(&buffer, bufferSize);
    cusparseScsrsv2_analysis(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, m, nnz, descr, val, rowPtr, colInd,
                             info, policy, buffer);
    const float one = 1.0f;
    cusparseScsrsv2_solve(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, m, nnz, &one, descr, val, rowPtr, colInd,
                          info, f, x, CUSPARSE_SOLVE_POLICY_NO_LEVEL, buffer);
    cudaFree(buffer);
    cusparseDestroyCsrsv2Info(info);
}

// L * X = alpha * B (double), nrhs right-hand sides, algo 1: the block version
void lower_solve_many(cusparseHandle_t handle, cusparseMatDescr_t descr, int m, int nrhs, int nnz,
                      const double* val, const int* rowPtr, const int* colInd, double* B, int ldb)
{
    csrsm2Info_t info;
    cusparseCreateCsrsm2Info(&info);
    const double alpha = 1.0;
    size_t bufferSize = 0;
    cusparseDcsrsm2_bufferSizeExt(handle, 1, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                  m, nrhs, nnz, &alpha, descr, val, rowPtr, colInd, B, ldb, info,
                                  CUSPARSE_SOLVE_POLICY_USE_LEVEL, &bufferSize);
    void* buffer = nullptr;
    cudaMalloc(&buffer, bufferSize);
    cusparseDcsrsm2_analysis(handle, 1, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
                             m, nrhs, nnz, &alpha, descr, val, rowPtr, colInd, B, ldb, info,
                             CUSPARSE_SOLVE_POLICY_USE_LEVEL, buffer);
    cusparseDcsrsm2_solve(handle, 1, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
                          m, nrhs, nnz, &alpha, descr, val, rowPtr, colInd, B, ldb, info,
                          CUSPARSE_SOLVE_POLICY_USE_LEVEL, buffer);
    cudaFree(buffer);
    cusparseDestroyCsrsm2Info(info);
}

// A ~ L * U in place (float), then the level-based block solve's analysis of a BSR matrix
void factorize(cusparseHandle_t handle, cusparseMatDescr_t descr, int m, int nnz, float* val,
               const int* rowPtr, const int* colInd, void* buffer,
               int mb, int nnzb, const float* bsrVal, const int* bsrRowPtr, const int* bsrColInd, int blockDim)
{
    csrilu02Info_t info;
    cusparseCreateCsrilu02Info(&info);
    cusparseScsrilu02_analysis(handle, m, nnz, descr, val, rowPtr, colInd, info,
                               CUSPARSE_SOLVE_POLICY_USE_LEVEL, buffer);
    cusparseScsrilu02(handle, m, nnz, descr, val, rowPtr, colInd, info, CUSPARSE_SOLVE_POLICY_USE_LEVEL, buffer);
    cusparseDestroyCsrilu02Info(info);

    bsrsv2Info_t binfo;
    cusparseCreateBsrsv2Info(&binfo);
    cusparseSbsrsv2_analysis(handle, CUSPARSE_DIRECTION_ROW, CUSPARSE_OPERATION_NON_TRANSPOSE, mb, nnzb, descr,
                             bsrVal, bsrRowPtr, bsrColInd, blockDim, binfo, CUSPARSE_SOLVE_POLICY_NO_LEVEL, buffer);
    cusparseDestroyBsrsv2Info(binfo);
}
