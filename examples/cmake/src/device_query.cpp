// The driver API and the runtime API from plain C++ (CUDA::cuda_driver, CUDA::cudart).
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>

int main() {
  CUresult result = cuInit(0);
  int drivers = 0;
  if (result == CUDA_SUCCESS) result = cuDeviceGetCount(&drivers);
  int devices = 0;
  cudaError_t status = cudaGetDeviceCount(&devices);
  std::printf("driver API: %d device(s) (status %d); runtime API: %d device(s) (%s)\n", drivers,
              static_cast<int>(result), devices, cudaGetErrorString(status));
  return status == cudaSuccess ? 0 : 1;
}
