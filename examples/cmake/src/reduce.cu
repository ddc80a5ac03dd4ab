#include <cuda_runtime.h>

#include "reduce.h"

__global__ void sum_kernel(const int* values, int n, unsigned long long* sum) {
  __shared__ unsigned long long partial[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  partial[threadIdx.x] = i < n ? values[i] : 0;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(sum, partial[0]);
}

int sum_on_device(const int* values, int n, long long* sum) {
  int* d_values = nullptr;
  unsigned long long* d_sum = nullptr;
  cudaError_t status = cudaMalloc(&d_values, n * sizeof(int));
  if (status == cudaSuccess) status = cudaMalloc(&d_sum, sizeof(*d_sum));
  if (status == cudaSuccess) status = cudaMemcpy(d_values, values, n * sizeof(int), cudaMemcpyHostToDevice);
  if (status == cudaSuccess) status = cudaMemset(d_sum, 0, sizeof(*d_sum));
  if (status == cudaSuccess) {
    sum_kernel<<<(n + 255) / 256, 256>>>(d_values, n, d_sum);
    status = cudaGetLastError();
  }
  unsigned long long result = 0;
  if (status == cudaSuccess) status = cudaMemcpy(&result, d_sum, sizeof(result), cudaMemcpyDeviceToHost);
  *sum = static_cast<long long>(result);
  cudaFree(d_values);
  cudaFree(d_sum);
  return status;
}
