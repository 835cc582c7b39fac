// cuSPARSE calls whose rocSPARSE function takes the row and column index arrays in the other order.
// Signatures: cusparse.h (CUDA 12.5) for csr2csr_compress; the legacy csc2dense/dense2csc (removed in
// CUDA 11) as hipSPARSE mirrors them.  Every array has its own name, so the argument list says which
// array each slot gets.  (The complex csr2csr_compress takes tol as a complex value, which the port
// does not convert, PORT179: not here, where the port has to compile.)
#include <cusparse.h>
#include <cuComplex.h>

// csr2csr_compress(handle, m, n, descrA, csrValA, csrColIndA, csrRowPtrA, nnzA, nnzPerRow,
//                  csrValC, csrColIndC, csrRowPtrC, tol): the column indices before the row pointers
void compress(cusparseHandle_t handle, cusparseMatDescr_t descrA, int m, int n, int nnzA,
              const double* valA, const int* colIndA, const int* rowPtrA, const int* nnzPerRow,
              double* valC, int* colIndC, int* rowPtrC) {
    cusparseDcsr2csr_compress(handle, m, n, descrA, valA, colIndA, rowPtrA, nnzA, nnzPerRow,
                              valC, colIndC, rowPtrC, 1e-12);
}

// csc2dense(handle, m, n, descrA, cscVal, cscRowInd, cscColPtr, A, lda): the row indices before the
// column pointers; dense2csc(handle, m, n, descrA, A, lda, nnzPerCol, cscVal, cscRowInd, cscColPtr)
void dense(cusparseHandle_t handle, cusparseMatDescr_t descrA, int m, int n, int lda,
           const float* cscVal, const int* cscRowInd, const int* cscColPtr, float* A,
           const cuComplex* cVal, cuComplex* cA, const int* nnzPerCol, float* outVal,
           int* outRowInd, int* outColPtr, const cuDoubleComplex* zA, cuDoubleComplex* zVal) {
    cusparseScsc2dense(handle, m, n, descrA, cscVal, cscRowInd, cscColPtr, A, lda);
    cusparseCcsc2dense(handle, m, n, descrA, cVal, cscRowInd, cscColPtr, cA, lda);
    cusparseSdense2csc(handle, m, n, descrA, A, lda, nnzPerCol, outVal, outRowInd, outColPtr);
    cusparseZdense2csc(handle, m, n, descrA, zA, lda, nnzPerCol, zVal, outRowInd, outColPtr);
}
