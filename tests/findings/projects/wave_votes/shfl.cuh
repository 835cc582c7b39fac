// shfl.cuh - every shuffle of this code base goes through SHFL_XOR, with width 32:
// the kernels work on 32-lane logical warps whatever the hardware wave.
#pragma once
#include <cuda_runtime.h>

#define WARP_SIZE 32  // expect: PORT010(info)
#define SHFL_XOR(v, m) __shfl_xor_sync(0xffffffffu, v, m, WARP_SIZE)  // expect: PORT017, PORT015(info)
