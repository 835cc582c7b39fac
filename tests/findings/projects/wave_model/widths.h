// A width constant whose header says nothing about warps; the kernels that include it use it
// as one (logical.cu: threadIdx.x % GROUP beside shuffles), so scanning this header alone
// reports the definition too.
#pragma once
const int GROUP = 32;  // expect: PORT010
const int ROWS = 32;   // rows of a tile: no lane role anywhere
