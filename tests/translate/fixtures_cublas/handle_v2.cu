// The handle API (cublas_v2.h): cublasSscal is a macro for
// cublasSscal_v2(cublasHandle_t, int, const float*, float*, int), the shape hipblasSscal has.
#include <stdio.h>
#include <cublas_v2.h>

int scale(float* host, float* d_x, int n) {
    cublasHandle_t handle;
    if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) return 1;
    const float alpha = 2.0f;
    cublasSetVector(n, sizeof(float), host, 1, d_x, 1);
    cublasSscal(handle, n, &alpha, d_x, 1);
    float norm = 0.0f;
    cublasSnrm2(handle, n, d_x, 1, &norm);
    int at = 0;
    cublasIsamax(handle, n, d_x, 1, &at);
    cublasGetVector(n, sizeof(float), d_x, 1, host, 1);
    cublasDestroy(handle);
    printf("%f %d\n", norm, at);
    return 0;
}
