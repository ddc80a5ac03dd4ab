/* cassc: the driver API's error functions (cuGetErrorName/cuGetErrorString): HIP 6's hipDrvGetError*, which HIP 5 lacks.
 * HIP has one error type for CUDA's runtime and driver errors, so the runtime's answers are the driver's. */
#pragma once
#include <hip/hip_runtime_api.h>
#if HIP_VERSION_MAJOR < 6
static inline hipError_t hipDrvGetErrorName(hipError_t error, const char** name) {
  *name = hipGetErrorName(error);
  return hipSuccess;
}
static inline hipError_t hipDrvGetErrorString(hipError_t error, const char** text) {
  *text = hipGetErrorString(error);
  return hipSuccess;
}
#endif
