// Compiled by the C++ compiler, not nvcc: CUDA's headers and libraries must work for plain C++.
#include <cuda_runtime.h>
#include <curand.h>
#include <cusparse.h>

#include <cstdio>

#include "host_info.h"

int count_devices() {
  int count = 0;
  cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    std::printf("no CUDA device: %s (%s)\n", cudaGetErrorName(status), cudaGetErrorString(status));
    return 0;
  }
  std::printf("%d CUDA device(s), CUDA runtime API %d\n", count, CUDART_VERSION);
  return count;
}

bool libraries_available() {
  curandGenerator_t generator;
  if (curandCreateGenerator(&generator, CURAND_RNG_PSEUDO_DEFAULT) != CURAND_STATUS_SUCCESS) return false;
  curandDestroyGenerator(generator);
  cusparseHandle_t handle;
  if (cusparseCreate(&handle) != CUSPARSE_STATUS_SUCCESS) return false;
  cusparseDestroy(handle);
  return true;
}
