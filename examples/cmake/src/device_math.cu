#include "device_math.cuh"

__device__ float scale_add(float a, float x, float y) { return a * x + y; }
