// mathutil.cuh: device math helpers shared across translation units.
#ifndef MATHUTIL_CUH
#define MATHUTIL_CUH

#include <cuda_runtime.h>

// Defined in mathutil.cu; callable from kernels in other files only when
// every file is compiled with relocatable device code (-rdc=true / -dc).
__device__ float scale_and_shift(float x, float a, float b);

// Inline helper usable on both host and device (used by kernels.cu on the
// GPU and by main.cu for the host reference).
__host__ __device__ inline float mix_f(float x, float y, float t)
{
    return x + (y - x) * t;
}

#endif // MATHUTIL_CUH
