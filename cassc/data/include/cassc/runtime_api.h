/* cassc: CUDA runtime and driver API that HIP lacks, for CUDA units (cuda_compat.h) and host units (the stand-in
 * toolkit's headers) alike.
 *
 * The driver API's error functions (cuGetErrorName/cuGetErrorString): HIP 6's hipDrvGetError*, which HIP 5 lacks.
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
/* cudaLimit values HIP lacks, as CUDA numbers them: hipDeviceGetLimit/hipDeviceSetLimit answer
 * hipErrorUnsupportedLimit for them, as CUDA does where a device lacks the feature (HIP 6 has the stack size). */
#define cudaLimitDevRuntimeSyncDepth ((enum hipLimit_t)0x03)
#define cudaLimitDevRuntimePendingLaunchCount ((enum hipLimit_t)0x04)
#define cudaLimitMaxL2FetchGranularity ((enum hipLimit_t)0x05)
#define cudaLimitPersistingL2CacheSize ((enum hipLimit_t)0x06)
#if HIP_VERSION_MAJOR >= 6
#define cudaLimitStackSize hipLimitStackSize
#else
#define cudaLimitStackSize ((enum hipLimit_t)0x00)
/* HIP 5 sets no limit (hipDeviceSetLimit came with HIP 6): each is one the device does not support. */
static inline hipError_t hipDeviceSetLimit(enum hipLimit_t limit, size_t value) {
  (void)limit, (void)value;
  return hipErrorUnsupportedLimit;
}
#endif
/* HIP 5.2 declares hipLaunchHostFunc (cudaLaunchHostFunc) but its libamdhip64 does not export it: the host
 * function runs as a stream callback instead (HIP 5 cannot capture one into a graph: hipStreamAddCallback
 * reports it during a capture). */
#if HIP_VERSION_MAJOR < 6
#include <stdlib.h>
struct __cassc_host_function {
  hipHostFn_t function;
  void* data;
};
static inline void __cassc_call_host_function(hipStream_t stream, hipError_t status, void* call) {
  struct __cassc_host_function host = *(struct __cassc_host_function*)call;
  (void)stream, (void)status;
  free(call);
  host.function(host.data);
}
static inline hipError_t __cassc_hipLaunchHostFunc(hipStream_t stream, hipHostFn_t function, void* data) {
  struct __cassc_host_function* call = (struct __cassc_host_function*)malloc(sizeof(struct __cassc_host_function));
  if (call == NULL) return hipErrorOutOfMemory;
  call->function = function;
  call->data = data;
  hipError_t status = hipStreamAddCallback(stream, __cassc_call_host_function, call, 0);
  if (status != hipSuccess) free(call);
  return status;
}
#define hipLaunchHostFunc __cassc_hipLaunchHostFunc
#endif
