/* CUDA in a .c file: the Makefile compiles it with `-x cu` */
__global__ void twice(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= 2.0f;
}

void launch_twice(float *x, int n)
{
    twice<<<(n + 63) / 64, 64>>>(x, n);
}
