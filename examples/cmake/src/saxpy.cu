#include <cuda_runtime.h>

#include "device_math.cuh"
#include "saxpy.h"

__global__ void saxpy_kernel(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = scale_add(a, x[i], y[i]);
}

int saxpy_on_device(float a, const float* x, float* y, int n) {
  float *dx = nullptr, *dy = nullptr;
  size_t bytes = n * sizeof(float);
  cudaError_t status = cudaMalloc(&dx, bytes);
  if (status == cudaSuccess) status = cudaMalloc(&dy, bytes);
  if (status == cudaSuccess) status = cudaMemcpy(dx, x, bytes, cudaMemcpyHostToDevice);
  if (status == cudaSuccess) status = cudaMemcpy(dy, y, bytes, cudaMemcpyHostToDevice);
  if (status == cudaSuccess) {
    saxpy_kernel<<<(n + 255) / 256, 256>>>(a, dx, dy, n);
    status = cudaGetLastError();
  }
  if (status == cudaSuccess) status = cudaMemcpy(y, dy, bytes, cudaMemcpyDeviceToHost);
  cudaFree(dx);
  cudaFree(dy);
  return status;
}
