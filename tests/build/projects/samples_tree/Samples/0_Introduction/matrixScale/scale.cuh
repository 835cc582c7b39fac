#pragma once
void scaleOnDevice(float *d, int rows, int cols, float s);
