// A device function compiled as relocatable device code into a static library (nvcc -dc, nvcc -lib):
// kernels of other files call it, and the final link resolves the call (nvcc's device link).
__device__ float square(float x) { return x * x; }
