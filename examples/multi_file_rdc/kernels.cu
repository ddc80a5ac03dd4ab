// kernels.cu: a kernel that calls a __device__ function defined in
// mathutil.cu (needs separable compilation) and an inline helper from
// mathutil.cuh.
#include "kernels.cuh"
#include "mathutil.cuh"

__global__ void transformKernel(const float *in, float *out, float a, float b,
                                float t, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = in[i];
        float y = scale_and_shift(x, a, b);
        out[i] = mix_f(x, y, t);
    }
}
