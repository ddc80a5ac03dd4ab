// mathutil.cu: out-of-line definition of a __device__ function that is
// called from another translation unit (kernels.cu).
#include "mathutil.cuh"

__device__ float scale_and_shift(float x, float a, float b)
{
    return a * x + b;
}
