// Legacy cuBLAS (cublas.h alone): cuBLAS documentation, "Using the cuBLAS Legacy API".
// cublasSscal(int n, float alpha, float* x, int incx) and cublasSnrm2(int n, const float* x, int incx)
// take no handle and return void / the result; cublasSetVector and cublasGetVector (cublas_api.h)
// are the same in both APIs.
#include <stdio.h>
#include <cublas.h>

int scale(float* host, int n) {
    float* d_x = 0;
    cublasStatus status = cublasAlloc(n, sizeof(float), (void**)&d_x);
    if (status != CUBLAS_STATUS_SUCCESS) return 1;
    cublasSetVector(n, sizeof(float), host, 1, d_x, 1);
    cublasSscal(n, 2.0f, d_x, 1);
    float norm = cublasSnrm2(n, d_x, 1);
    int at = cublasIsamax(n, d_x, 1);
    cublasGetVector(n, sizeof(float), d_x, 1, host, 1);
    printf("%f %d\n", norm, at);
    return 0;
}
