// kernels.cuh: kernels defined in kernels.cu and launched from main.cu.
#ifndef KERNELS_CUH
#define KERNELS_CUH

#include <cuda_runtime.h>

__global__ void transformKernel(const float *in, float *out, float a, float b,
                                float t, int n);

#endif // KERNELS_CUH
