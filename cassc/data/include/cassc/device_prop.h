/* cassc: CUDA's `cudaDeviceProp` (types.tsv renames it to __cassc_cudaDeviceProp). Every field of
 * CUDA 12's and CUDA 13's struct (CUDA 13 removed clockRate, deviceOverlap, computeMode...; old
 * programs still read them) that HIP's hipDeviceProp_t lacks is added here, filled by
 * hipGetDeviceProperties with its nearest meaning from hipDeviceGetAttribute (0 where HIP has no
 * answer). HIP 6 has most of them; HIP 5.2 about half. Included by cuda_compat.h and by the
 * stand-in toolkit's headers (host code compiled by g++).
 */
#pragma once
#include <hip/hip_runtime_api.h>

#if defined(__cplusplus)
struct __cassc_cudaDeviceProp : hipDeviceProp_t {
#if HIP_VERSION_MAJOR < 6
  hipUUID uuid = {};
  char luid[8] = {};
  unsigned int luidDeviceNodeMask = 0;
  int deviceOverlap = 0;
  int maxTexture1DMipmap = 0, maxTexture2DMipmap[2] = {}, maxTexture2DLinear[3] = {}, maxTexture2DGather[2] = {};
  int maxTexture3DAlt[3] = {}, maxTextureCubemap = 0, maxTexture1DLayered[2] = {}, maxTexture2DLayered[3] = {};
  int maxTextureCubemapLayered[2] = {}, maxSurface1D = 0, maxSurface2D[2] = {}, maxSurface3D[3] = {};
  int maxSurface1DLayered[2] = {}, maxSurface2DLayered[3] = {}, maxSurfaceCubemap = 0, maxSurfaceCubemapLayered[2] = {};
  size_t surfaceAlignment = 0;
  int asyncEngineCount = 0, unifiedAddressing = 0, persistingL2CacheMaxSize = 0, streamPrioritiesSupported = 0;
  int globalL1CacheSupported = 0, localL1CacheSupported = 0;
  size_t sharedMemPerMultiprocessor = 0;
  int regsPerMultiprocessor = 0, multiGpuBoardGroupID = 0, hostNativeAtomicSupported = 0;
  int singleToDoublePrecisionPerfRatio = 0, computePreemptionSupported = 0, canUseHostPointerForRegisteredMem = 0;
  size_t sharedMemPerBlockOptin = 0;
  int maxBlocksPerMultiProcessor = 0, accessPolicyMaxWindowSize = 0;
  size_t reservedSharedMemPerBlock = 0;
  int hostRegisterSupported = 0, hostRegisterReadOnlySupported = 0, timelineSemaphoreInteropSupported = 0;
  int memoryPoolsSupported = 0, gpuDirectRDMASupported = 0;
  unsigned int gpuDirectRDMAFlushWritesOptions = 0;
  int gpuDirectRDMAWritesOrdering = 0;
  unsigned int memoryPoolSupportedHandleTypes = 0;
  int ipcEventSupported = 0, clusterLaunch = 0, unifiedFunctionPointers = 0;
  int reserved[63] = {};
#endif
  /* CUDA 12.x/13 fields no HIP version has: AMD GPUs have no sparse or deferred-mapping CUDA arrays,
   * no MPS, and report no NUMA placement through HIP. */
  int sparseCudaArraySupported = 0, deferredMappingCudaArraySupported = 0;
  int deviceNumaConfig = 0, deviceNumaId = -1, mpsEnabled = 0, hostNumaId = -1;
  unsigned int gpuPciDeviceID = 0, gpuPciSubsystemID = 0;
  int hostNumaMultinodeIpcSupported = 0;
};

static inline int __cassc_device_attribute(hipDeviceAttribute_t attribute, int device) {
  int value = 0;
  return hipDeviceGetAttribute(&value, attribute, device) == hipSuccess ? value : 0;
}

/* CUDA's cudaGetDeviceProperties on the struct above: HIP's fields, then the added ones. An overload,
 * so a call with a plain hipDeviceProp_t still reaches HIP's own function. */
static inline hipError_t hipGetDeviceProperties(__cassc_cudaDeviceProp* prop, int device) {
  hipError_t status = hipGetDeviceProperties(static_cast<hipDeviceProp_t*>(prop), device);
  if (status != hipSuccess) return status;
  prop->gpuPciDeviceID = static_cast<unsigned int>(prop->pciDeviceID);
#if HIP_VERSION_MAJOR < 6
  auto attribute = [device](hipDeviceAttribute_t a) { return __cassc_device_attribute(a, device); };
  hipDeviceGetUuid(&prop->uuid, device);
  prop->asyncEngineCount = attribute(hipDeviceAttributeAsyncEngineCount);
  /* CUDA: "deviceOverlap is 1 if the device can concurrently copy memory between host and device
   * while executing a kernel", which is what one or more copy engines give. */
  prop->deviceOverlap = prop->asyncEngineCount > 0 || attribute(hipDeviceAttributeDeviceOverlap);
  prop->maxTexture1DMipmap = attribute(hipDeviceAttributeMaxTexture1DMipmap);
  prop->maxTexture2DMipmap[0] = prop->maxTexture2DLinear[0] = prop->maxTexture2DGather[0] = prop->maxTexture2D[0];
  prop->maxTexture2DMipmap[1] = prop->maxTexture2DLinear[1] = prop->maxTexture2DGather[1] = prop->maxTexture2D[1];
  prop->maxTexture2DLinear[2] = static_cast<int>(prop->memPitch > 0x7fffffff ? 0x7fffffff : prop->memPitch);
  for (int i = 0; i < 3; ++i) prop->maxTexture3DAlt[i] = prop->maxTexture3D[i];
  prop->maxTextureCubemap = attribute(hipDeviceAttributeMaxTextureCubemap);
  prop->maxSurface1D = attribute(hipDeviceAttributeMaxSurface1D);
  prop->maxSurfaceCubemap = attribute(hipDeviceAttributeMaxSurfaceCubemap);
  prop->surfaceAlignment = static_cast<size_t>(attribute(hipDeviceAttributeSurfaceAlignment));
  prop->unifiedAddressing = attribute(hipDeviceAttributeUnifiedAddressing);
  prop->persistingL2CacheMaxSize = attribute(hipDeviceAttributePersistingL2CacheMaxSize);
  prop->streamPrioritiesSupported = attribute(hipDeviceAttributeStreamPrioritiesSupported);
  prop->globalL1CacheSupported = attribute(hipDeviceAttributeGlobalL1CacheSupported);
  prop->localL1CacheSupported = attribute(hipDeviceAttributeLocalL1CacheSupported);
  prop->sharedMemPerMultiprocessor = prop->maxSharedMemoryPerMultiProcessor;
  prop->regsPerMultiprocessor = attribute(hipDeviceAttributeMaxRegistersPerMultiprocessor);
  prop->multiGpuBoardGroupID = attribute(hipDeviceAttributeMultiGpuBoardGroupID);
  prop->hostNativeAtomicSupported = attribute(hipDeviceAttributeHostNativeAtomicSupported);
  prop->singleToDoublePrecisionPerfRatio = attribute(hipDeviceAttributeSingleToDoublePrecisionPerfRatio);
  prop->computePreemptionSupported = attribute(hipDeviceAttributeComputePreemptionSupported);
  prop->canUseHostPointerForRegisteredMem = attribute(hipDeviceAttributeCanUseHostPointerForRegisteredMem);
  prop->sharedMemPerBlockOptin = prop->sharedMemPerBlock;
  prop->maxBlocksPerMultiProcessor = attribute(hipDeviceAttributeMaxBlocksPerMultiProcessor);
  prop->accessPolicyMaxWindowSize = attribute(hipDeviceAttributeAccessPolicyMaxWindowSize);
  prop->reservedSharedMemPerBlock = static_cast<size_t>(attribute(hipDeviceAttributeReservedSharedMemPerBlock));
  prop->hostRegisterSupported = 1; /* hipHostRegister is always available */
  prop->memoryPoolsSupported = attribute(hipDeviceAttributeMemoryPoolsSupported);
#endif
  return hipSuccess;
}
#else
/* C: HIP's struct itself (its tag is its typedef name, so `struct cudaDeviceProp` works too). */
#define __cassc_cudaDeviceProp hipDeviceProp_t
#endif
