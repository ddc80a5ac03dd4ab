// cassc's CUDA runtime shim for nvcc-built objects (the binary path), implemented on HIP.
//
// nvcc's host code registers its fat binary and kernels (__cudaRegisterFatBinary, __cudaRegisterFunction,
// __cudaRegisterVar) and launches through __cudaPushCallConfiguration / __cudaPopCallConfiguration /
// __cudaGetKernel / __cudaLaunchKernel. cassc translated the device code into gfx1100 code objects; the
// object it spliced in beside them calls __cassc_register_image with each code object and the CUDA
// parameter layout of its kernels. Here a registered host stub is mapped to its translated kernel by the
// device name nvcc registered, and a launch packs the argument pointers into the recorded layout.
// The rest of the runtime API (cudaMalloc, cudaMemcpy, streams, events...) is the stand-in toolkit's
// libcudart, whose entry points jump to their HIP twins.
#include <hip/hip_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

extern "C" {
struct cassc_kernel_layout {
  const char *name;  // mangled device name
  unsigned param_count;
  const unsigned *offsets;
  const unsigned *sizes;
  unsigned param_size;  // bytes of the CUDA parameter buffer = the kernarg segment
};
struct cassc_image {
  const void *code_object;  // an offload bundle holding the gfx code object
  const char *origin;       // the nvcc-built object it was translated from
  unsigned kernel_count;
  const cassc_kernel_layout *kernels;
};
}

// CUDA 13's cudaDeviceProp, as nvcc-built code lays it out (driver_types.h): HIP's hipDeviceProp_t differs,
// so cudaGetDeviceProperties cannot be a jump to hipGetDeviceProperties. Field order and types are CUDA's
// ABI; tests/test_binary_translate.py checks every offset against NVIDIA's header.
struct cassc_cuda_device_prop {
  char name[256];
  unsigned char uuid[16];
  char luid[8];
  unsigned int luidDeviceNodeMask;
  size_t totalGlobalMem, sharedMemPerBlock;
  int regsPerBlock, warpSize;
  size_t memPitch;
  int maxThreadsPerBlock, maxThreadsDim[3], maxGridSize[3];
  size_t totalConstMem;
  int major, minor;
  size_t textureAlignment, texturePitchAlignment;
  int multiProcessorCount, integrated, canMapHostMemory, maxTexture1D, maxTexture1DMipmap, maxTexture2D[2],
      maxTexture2DMipmap[2], maxTexture2DLinear[3], maxTexture2DGather[2], maxTexture3D[3], maxTexture3DAlt[3],
      maxTextureCubemap, maxTexture1DLayered[2], maxTexture2DLayered[3], maxTextureCubemapLayered[2], maxSurface1D,
      maxSurface2D[2], maxSurface3D[3], maxSurface1DLayered[2], maxSurface2DLayered[3], maxSurfaceCubemap,
      maxSurfaceCubemapLayered[2];
  size_t surfaceAlignment;
  int concurrentKernels, ECCEnabled, pciBusID, pciDeviceID, pciDomainID, tccDriver, asyncEngineCount,
      unifiedAddressing, memoryBusWidth, l2CacheSize, persistingL2CacheMaxSize, maxThreadsPerMultiProcessor,
      streamPrioritiesSupported, globalL1CacheSupported, localL1CacheSupported;
  size_t sharedMemPerMultiprocessor;
  int regsPerMultiprocessor, managedMemory, isMultiGpuBoard, multiGpuBoardGroupID, hostNativeAtomicSupported,
      pageableMemoryAccess, concurrentManagedAccess, computePreemptionSupported,
      canUseHostPointerForRegisteredMem, cooperativeLaunch;
  size_t sharedMemPerBlockOptin;
  int pageableMemoryAccessUsesHostPageTables, directManagedMemAccessFromHost, maxBlocksPerMultiProcessor,
      accessPolicyMaxWindowSize;
  size_t reservedSharedMemPerBlock;
  int hostRegisterSupported, sparseCudaArraySupported, hostRegisterReadOnlySupported,
      timelineSemaphoreInteropSupported, memoryPoolsSupported, gpuDirectRDMASupported;
  unsigned int gpuDirectRDMAFlushWritesOptions;
  int gpuDirectRDMAWritesOrdering;
  unsigned int memoryPoolSupportedHandleTypes;
  int deferredMappingCudaArraySupported, ipcEventSupported, clusterLaunch, unifiedFunctionPointers,
      deviceNumaConfig, deviceNumaId, mpsEnabled, hostNumaId;
  unsigned int gpuPciDeviceID, gpuPciSubsystemID;
  int hostNumaMultinodeIpcSupported, reserved[56];
};

namespace {

struct Kernel {
  const cassc_kernel_layout *layout = nullptr;
  const cassc_image *image = nullptr;
  hipFunction_t function = nullptr;
};

struct Variable {
  std::string name;
  size_t size = 0;
  void *device = nullptr;
};

struct LaunchConfiguration {
  dim3 grid, block;
  size_t shared;
  hipStream_t stream;
};

struct State {
  std::mutex lock;
  std::vector<const cassc_image *> images;
  std::map<const cassc_image *, hipModule_t> modules;
  std::map<std::string, std::pair<const cassc_image *, const cassc_kernel_layout *>> by_name;
  std::map<const void *, std::string> host_stubs;  // host stub -> device name
  std::map<std::string, Kernel> kernels;
  std::map<const void *, Variable> variables;  // host shadow -> device variable
};

State &state() {
  static State *instance = new State;  // never destroyed: atexit handlers may still launch
  return *instance;
}

thread_local std::vector<LaunchConfiguration> configurations;

[[noreturn]] void fatal(const char *what, const std::string &detail) {
  std::fprintf(stderr, "cassc runtime: %s: %s\n", what, detail.c_str());
  std::abort();
}

hipStream_t hip_stream(void *stream) {
  // CUDA's special handles: cudaStreamLegacy (1) is the null stream, cudaStreamPerThread (2) HIP's.
  if (stream == reinterpret_cast<void *>(1)) return nullptr;
  if (stream == reinterpret_cast<void *>(2)) return hipStreamPerThread;
  return static_cast<hipStream_t>(stream);
}

hipModule_t module_of(State &s, const cassc_image *image) {
  auto found = s.modules.find(image);
  if (found != s.modules.end()) return found->second;
  hipModule_t module = nullptr;
  hipError_t status = hipModuleLoadData(&module, image->code_object);
  if (status != hipSuccess)
    fatal("cannot load the translated device code of", std::string(image->origin) + ": " + hipGetErrorString(status));
  s.modules[image] = module;
  return module;
}

Kernel *kernel_for(const void *host_stub) {
  State &s = state();
  std::lock_guard<std::mutex> guard(s.lock);
  auto stub = s.host_stubs.find(host_stub);
  if (stub == s.host_stubs.end()) return nullptr;
  Kernel &kernel = s.kernels[stub->second];
  if (kernel.function) return &kernel;
  auto named = s.by_name.find(stub->second);
  if (named == s.by_name.end())
    fatal("kernel was not translated for this GPU (see cassc's messages at build time)", stub->second);
  kernel.image = named->second.first;
  kernel.layout = named->second.second;
  hipError_t status = hipModuleGetFunction(&kernel.function, module_of(s, kernel.image), kernel.layout->name);
  if (status != hipSuccess) fatal("translated kernel missing from its code object", stub->second);
  return &kernel;
}

Variable *variable_for(const void *host_shadow) {
  State &s = state();
  std::lock_guard<std::mutex> guard(s.lock);
  auto found = s.variables.find(host_shadow);
  if (found == s.variables.end()) return nullptr;
  Variable &variable = found->second;
  if (variable.device) return &variable;
  for (const cassc_image *image : s.images) {
    hipDeviceptr_t pointer = nullptr;
    size_t bytes = 0;
    if (hipModuleGetGlobal(&pointer, &bytes, module_of(s, image), variable.name.c_str()) == hipSuccess) {
      variable.device = pointer;
      return &variable;
    }
  }
  fatal("device variable not found in the translated code", variable.name);
}

hipError_t launch(const void *host_stub, dim3 grid, dim3 block, void **args, size_t shared, void *stream) {
  Kernel *kernel = kernel_for(host_stub);
  if (!kernel) return hipErrorInvalidDeviceFunction;
  const cassc_kernel_layout *layout = kernel->layout;
  // Padded: the code object's kernarg segment is the CUDA buffer rounded up (to 4 bytes).
  std::vector<char> buffer((layout->param_size + 15) / 16 * 16 + 16, 0);
  for (unsigned i = 0; i < layout->param_count; ++i)
    std::memcpy(buffer.data() + layout->offsets[i], args[i], layout->sizes[i]);
  size_t size = (layout->param_size + 3) / 4 * 4;
  void *extra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, buffer.data(), HIP_LAUNCH_PARAM_BUFFER_SIZE, &size,
                   HIP_LAUNCH_PARAM_END};
  return hipModuleLaunchKernel(kernel->function, grid.x, grid.y, grid.z, block.x, block.y, block.z,
                               static_cast<unsigned>(shared), hip_stream(stream), nullptr, extra);
}

}  // namespace

extern "C" {

void __cassc_register_image(const cassc_image *image) {
  State &s = state();
  std::lock_guard<std::mutex> guard(s.lock);
  s.images.push_back(image);
  for (unsigned i = 0; i < image->kernel_count; ++i) s.by_name[image->kernels[i].name] = {image, &image->kernels[i]};
}

void **__cudaRegisterFatBinary(void *wrapper) {
  // The translated code registers itself (__cassc_register_image); the handle only has to be unique.
  return static_cast<void **>(wrapper);
}

// -rdc objects register through __cudaRegisterLinkedBinary_<module id> (nvcc's device link defines it;
// cassc's splice object does, calling this): register the wrapper, then let the object register its kernels.
void __cassc_register_linked(void (*callback)(void **), void *wrapper) { callback(__cudaRegisterFatBinary(wrapper)); }

void __cudaRegisterFatBinaryEnd(void **) {}
void __cudaUnregisterFatBinary(void **) {}
char __cudaInitModule(void **) { return 1; }

void __cudaRegisterFunction(void **, const char *host_stub, char *, const char *device_name, int, uint3 *, uint3 *,
                            dim3 *, dim3 *, int *) {
  State &s = state();
  std::lock_guard<std::mutex> guard(s.lock);
  s.host_stubs[host_stub] = device_name;
}

void __cudaRegisterVar(void **, char *host_shadow, char *, const char *device_name, int, size_t size, int, int) {
  State &s = state();
  std::lock_guard<std::mutex> guard(s.lock);
  s.variables[host_shadow] = Variable{device_name, size, nullptr};
}

void __cudaRegisterManagedVar(void **, void **, char *, const char *device_name, int, size_t, int, int) {
  fatal("__managed__ variables in nvcc-built objects are not supported yet", device_name);
}

unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared, void *stream) {
  configurations.push_back({grid, block, shared, static_cast<hipStream_t>(stream)});
  return 0;
}

int __cudaPopCallConfiguration(dim3 *grid, dim3 *block, size_t *shared, void *stream) {
  if (configurations.empty()) return hipErrorMissingConfiguration;
  LaunchConfiguration top = configurations.back();
  configurations.pop_back();
  *grid = top.grid;
  *block = top.block;
  *shared = top.shared;
  *static_cast<hipStream_t *>(stream) = top.stream;
  return hipSuccess;
}

// CUDA 13's launch: the "kernel handle" is the host stub itself, resolved on launch.
int __cudaGetKernel(void **handle, const void *host_stub) {
  *handle = const_cast<void *>(host_stub);
  return hipSuccess;
}

int __cudaLaunchKernel(void *handle, dim3 grid, dim3 block, void **args, size_t shared, void *stream) {
  return launch(handle, grid, block, args, shared, stream);
}

int __cudaLaunchKernel_ptsz(void *handle, dim3 grid, dim3 block, void **args, size_t shared, void *stream) {
  return launch(handle, grid, block, args, shared, stream ? stream : hipStreamPerThread);
}

int cudaLaunchKernel(const void *host_stub, dim3 grid, dim3 block, void **args, size_t shared, void *stream) {
  return launch(host_stub, grid, block, args, shared, stream);
}

// The symbol API takes host shadows, which HIP does not know: resolve them to the translated variables.
int cudaGetSymbolAddress(void **pointer, const void *symbol) {
  Variable *variable = variable_for(symbol);
  if (!variable) return hipErrorInvalidSymbol;
  *pointer = variable->device;
  return hipSuccess;
}

int cudaGetSymbolSize(size_t *size, const void *symbol) {
  Variable *variable = variable_for(symbol);
  if (!variable) return hipErrorInvalidSymbol;
  *size = variable->size;
  return hipSuccess;
}

int cudaMemcpyToSymbolAsync(const void *symbol, const void *source, size_t count, size_t offset, int kind,
                            void *stream) {
  Variable *variable = variable_for(symbol);
  if (!variable) return hipErrorInvalidSymbol;
  return hipMemcpyAsync(static_cast<char *>(variable->device) + offset, source, count,
                        static_cast<hipMemcpyKind>(kind), hip_stream(stream));
}

int cudaMemcpyFromSymbolAsync(void *destination, const void *symbol, size_t count, size_t offset, int kind,
                              void *stream) {
  Variable *variable = variable_for(symbol);
  if (!variable) return hipErrorInvalidSymbol;
  return hipMemcpyAsync(destination, static_cast<char *>(variable->device) + offset, count,
                        static_cast<hipMemcpyKind>(kind), hip_stream(stream));
}

int cudaMemcpyToSymbol(const void *symbol, const void *source, size_t count, size_t offset, int kind) {
  int status = cudaMemcpyToSymbolAsync(symbol, source, count, offset, kind, nullptr);
  return status == hipSuccess ? hipStreamSynchronize(nullptr) : status;
}

int cudaMemcpyFromSymbol(void *destination, const void *symbol, size_t count, size_t offset, int kind) {
  int status = cudaMemcpyFromSymbolAsync(destination, symbol, count, offset, kind, nullptr);
  return status == hipSuccess ? hipStreamSynchronize(nullptr) : status;
}

int cudaGetDeviceProperties(cassc_cuda_device_prop *prop, int device) {
  hipDeviceProp_t hip;
  hipError_t status = hipGetDeviceProperties(&hip, device);
  if (status != hipSuccess) return status;
  std::memset(prop, 0, sizeof *prop);
  std::memcpy(prop->name, hip.name, sizeof prop->name);
  prop->totalGlobalMem = hip.totalGlobalMem;
  prop->sharedMemPerBlock = hip.sharedMemPerBlock;
  prop->sharedMemPerBlockOptin = hip.sharedMemPerBlock;
  prop->regsPerBlock = hip.regsPerBlock;
  prop->warpSize = hip.warpSize;
  prop->memPitch = hip.memPitch;
  prop->maxThreadsPerBlock = hip.maxThreadsPerBlock;
  for (int i = 0; i < 3; ++i) {
    prop->maxThreadsDim[i] = hip.maxThreadsDim[i];
    prop->maxGridSize[i] = hip.maxGridSize[i];
    prop->maxTexture3D[i] = hip.maxTexture3D[i];
  }
  prop->maxTexture1D = hip.maxTexture1D;
  prop->maxTexture2D[0] = hip.maxTexture2D[0];
  prop->maxTexture2D[1] = hip.maxTexture2D[1];
  prop->totalConstMem = hip.totalConstMem;
  prop->major = hip.major;
  prop->minor = hip.minor;
  prop->textureAlignment = hip.textureAlignment;
  prop->texturePitchAlignment = hip.texturePitchAlignment;
  prop->multiProcessorCount = hip.multiProcessorCount;
  prop->integrated = hip.integrated;
  prop->canMapHostMemory = hip.canMapHostMemory;
  prop->concurrentKernels = hip.concurrentKernels;
  prop->ECCEnabled = hip.ECCEnabled;
  prop->pciBusID = hip.pciBusID;
  prop->pciDeviceID = hip.pciDeviceID;
  prop->pciDomainID = hip.pciDomainID;
  prop->tccDriver = hip.tccDriver;
  prop->unifiedAddressing = 1;
  prop->memoryBusWidth = hip.memoryBusWidth;
  prop->l2CacheSize = hip.l2CacheSize;
  prop->maxThreadsPerMultiProcessor = hip.maxThreadsPerMultiProcessor;
  prop->sharedMemPerMultiprocessor = hip.maxSharedMemoryPerMultiProcessor;
  prop->managedMemory = hip.managedMemory;
  prop->isMultiGpuBoard = hip.isMultiGpuBoard;
  prop->pageableMemoryAccess = hip.pageableMemoryAccess;
  prop->concurrentManagedAccess = hip.concurrentManagedAccess;
  prop->cooperativeLaunch = hip.cooperativeLaunch;
  prop->pageableMemoryAccessUsesHostPageTables = hip.pageableMemoryAccessUsesHostPageTables;
  prop->directManagedMemAccessFromHost = hip.directManagedMemAccessFromHost;
  prop->maxBlocksPerMultiProcessor = hip.maxThreadsPerMultiProcessor / (hip.warpSize ? hip.warpSize : 32);
  return hipSuccess;
}

// nvcc 12's name for the same call.
int cudaGetDeviceProperties_v2(cassc_cuda_device_prop *prop, int device) { return cudaGetDeviceProperties(prop, device); }

// cudaDeviceAttr and hipDeviceAttribute_t number the attributes differently: translate CUDA's numbers
// (driver_types.h) for the attributes programs ask for; others are reported as not supported.
int cudaDeviceGetAttribute(int *value, int cuda_attribute, int device) {
  static const std::map<int, hipDeviceAttribute_t> attributes = {
      {1, hipDeviceAttributeMaxThreadsPerBlock}, {2, hipDeviceAttributeMaxBlockDimX},
      {3, hipDeviceAttributeMaxBlockDimY}, {4, hipDeviceAttributeMaxBlockDimZ},
      {5, hipDeviceAttributeMaxGridDimX}, {6, hipDeviceAttributeMaxGridDimY},
      {7, hipDeviceAttributeMaxGridDimZ}, {8, hipDeviceAttributeMaxSharedMemoryPerBlock},
      {9, hipDeviceAttributeTotalConstantMemory}, {10, hipDeviceAttributeWarpSize},
      {12, hipDeviceAttributeMaxRegistersPerBlock}, {13, hipDeviceAttributeClockRate},
      {16, hipDeviceAttributeMultiprocessorCount}, {18, hipDeviceAttributeIntegrated},
      {31, hipDeviceAttributeConcurrentKernels}, {33, hipDeviceAttributePciBusId},
      {34, hipDeviceAttributePciDeviceId}, {36, hipDeviceAttributeMemoryClockRate},
      {37, hipDeviceAttributeMemoryBusWidth}, {38, hipDeviceAttributeL2CacheSize},
      {39, hipDeviceAttributeMaxThreadsPerMultiProcessor}, {75, hipDeviceAttributeComputeCapabilityMajor},
      {76, hipDeviceAttributeComputeCapabilityMinor}, {81, hipDeviceAttributeMaxSharedMemoryPerMultiprocessor},
      {82, hipDeviceAttributeMaxRegistersPerMultiprocessor}, {83, hipDeviceAttributeManagedMemory},
      {89, hipDeviceAttributeConcurrentManagedAccess}, {95, hipDeviceAttributeCooperativeLaunch},
      {97, hipDeviceAttributeSharedMemPerBlockOptin},
  };
  auto found = attributes.find(cuda_attribute);
  if (found == attributes.end()) return hipErrorNotSupported;
  return hipDeviceGetAttribute(value, found->second, device);
}

// Cache and shared-memory preferences are hints on AMD GPUs; the calls succeed as on CUDA.
int cudaFuncSetCacheConfig(const void *, int) { return hipSuccess; }
int cudaFuncSetAttribute(const void *, int, int) { return hipSuccess; }
int cudaFuncSetSharedMemConfig(const void *, int) { return hipSuccess; }

int cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, const void *host_stub, int block_size,
                                                  size_t shared) {
  Kernel *kernel = kernel_for(host_stub);
  if (!kernel) return hipErrorInvalidDeviceFunction;
  return hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(blocks, kernel->function, block_size, shared);
}

}  // extern "C"
