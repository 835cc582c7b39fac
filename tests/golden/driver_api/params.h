// params.h - sizes shared by the host program and the module's kernels.
#ifndef DRIVER_API_PARAMS_H
#define DRIVER_API_PARAMS_H

#define BLOCK_1D 256
#define TILE_X 16
#define TILE_Y 16

#endif  // DRIVER_API_PARAMS_H
