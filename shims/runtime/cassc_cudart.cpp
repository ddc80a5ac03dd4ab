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

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "translation_lookup.h"

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
  unsigned cuda_version;  // of the nvcc that built it (13000 for 13.0; 0: unknown), as CUDA_VERSION counts
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

// A __managed__ variable nvcc's code registered: its host shadow is a pointer (`static T *name`), which
// nvcc's host code dereferences after __cudaInitModule.
struct ManagedVariable {
  std::string name;
  size_t size = 0;
  void **host_pointer = nullptr;
  bool bound = false;
};

// CUDA 11's textureReference (texture_types.h; the API was removed in CUDA 12): the fields a host program sets
// before it binds. HIP's struct of the same name is laid out differently.
struct CudaTextureReference {
  int normalized;
  int filterMode;
  int addressMode[3];
  hipChannelFormatDesc channelDesc;
  int sRGB;
  unsigned maxAnisotropy;
  int mipmapFilterMode;
  float mipmapLevelBias, minMipmapLevelClamp, maxMipmapLevelClamp;
  int disableTrilinearOptimization;
  int reserved[14];
};

// A texture or surface reference nvcc's code registered (`texture<float, 1> t;` at file scope): the
// translated code reads the object bound to it from the device variable of the reference's name
// (binary/images.py's reference_handle), which a bind writes and an unbind clears.
struct ImageReference {
  bool surface = false;
  int read_mode = 0;  // cudaReadModeElementType or cudaReadModeNormalizedFloat (the template's, not a field)
  unsigned long long object = 0;  // the bound hipTextureObject_t / hipSurfaceObject_t, 0: none
  size_t offset = 0;  // bytes the base address was moved down to the texture alignment
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
  std::map<const void *, ImageReference> references;  // texture/surface reference (its host variable)
  std::vector<ManagedVariable> managed;
  bool managed_pending = false;  // some registered __managed__ variable has no memory yet
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

// The translated kernel a registered host stub names (nullptr: not a kernel nvcc's code registered).
const std::pair<const cassc_image *, const cassc_kernel_layout *> *translated_locked(State &s, const void *host_stub) {
  auto stub = s.host_stubs.find(host_stub);
  if (stub == s.host_stubs.end()) return nullptr;
  auto named = s.by_name.find(stub->second);
  if (named == s.by_name.end())
    fatal("kernel was not translated for this GPU (see cassc's messages at build time)", stub->second);
  return &named->second;
}

// What the CUDA parameter layout answers needs no GPU: the layout alone, without loading the code object.
const cassc_kernel_layout *layout_for(const void *host_stub) {
  State &s = state();
  std::lock_guard<std::mutex> guard(s.lock);
  auto translated = translated_locked(s, host_stub);
  return translated ? translated->second : nullptr;
}

// Gives each registered __managed__ variable its memory, once the translated code holding it is registered:
// hipMallocManaged memory holding the variable's initial value (`name.managed` in the code object), its
// address written into the pointer the device code reads it through (`name`) and into nvcc's host shadow, as
// HIP's runtime does for HIP clang's __managed__ variables (__hipRegisterManagedVar). `required`: a variable
// found in no registered code is an error (the host is about to read it).
void bind_managed_locked(State &s, bool required) {
  if (!s.managed_pending) return;
  s.managed_pending = false;
  for (ManagedVariable &variable : s.managed) {
    if (variable.bound) continue;
    for (const cassc_image *image : s.images) {
      hipModule_t module = module_of(s, image);
      hipDeviceptr_t slot = nullptr, initial = nullptr;
      size_t bytes = 0;
      if (hipModuleGetGlobal(&slot, &bytes, module, variable.name.c_str()) != hipSuccess ||
          hipModuleGetGlobal(&initial, &bytes, module, (variable.name + ".managed").c_str()) != hipSuccess)
        continue;
      void *memory = nullptr;
      if (hipMallocManaged(&memory, variable.size, hipMemAttachGlobal) != hipSuccess ||
          hipMemcpy(memory, initial, variable.size, hipMemcpyDefault) != hipSuccess ||
          hipMemcpy(slot, &memory, sizeof memory, hipMemcpyHostToDevice) != hipSuccess)
        fatal("cannot allocate managed memory for __managed__ variable", variable.name);
      *variable.host_pointer = memory;
      variable.bound = true;
      break;
    }
    if (!variable.bound) {
      if (required) fatal("__managed__ variable not found in the translated code", variable.name);
      s.managed_pending = true;
    }
  }
}

Kernel *kernel_for(const void *host_stub) {
  State &s = state();
  std::lock_guard<std::mutex> guard(s.lock);
  bind_managed_locked(s, false);
  auto translated = translated_locked(s, host_stub);
  if (!translated) return nullptr;
  Kernel &kernel = s.kernels[translated->second->name];
  if (kernel.function) return &kernel;
  kernel.image = translated->first;
  kernel.layout = translated->second;
  hipError_t status = hipModuleGetFunction(&kernel.function, module_of(s, kernel.image), kernel.layout->name);
  if (status != hipSuccess) fatal("translated kernel missing from its code object", kernel.layout->name);
  return &kernel;
}

Variable *variable_for(const void *host_shadow) {
  State &s = state();
  std::lock_guard<std::mutex> guard(s.lock);
  auto found = s.variables.find(host_shadow);
  if (found == s.variables.end()) {
    // A __managed__ variable as a symbol (cudaMemcpyToSymbol(counter, ...)): nvcc's host code names it by its
    // memory, which the variable's registration bound (bind_managed_locked).
    bind_managed_locked(s, false);
    for (const ManagedVariable &managed : s.managed)
      if (managed.bound && *managed.host_pointer == host_shadow)
        return &s.variables.emplace(host_shadow, Variable{managed.name, managed.size, *managed.host_pointer})
                    .first->second;
    return nullptr;
  }
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

// The launch's CUDA parameter buffer, in the kernel's recorded layout.
struct ParameterBuffer : cassc::ParameterBuffer {
  ParameterBuffer(const cassc_kernel_layout *layout, void **args)
      : cassc::ParameterBuffer(layout->param_size, layout->param_count, layout->offsets, layout->sizes, args) {}
};

hipError_t launch(const void *host_stub, dim3 grid, dim3 block, void **args, size_t shared, void *stream) {
  Kernel *kernel = kernel_for(host_stub);
  if (!kernel) return hipErrorInvalidDeviceFunction;
  ParameterBuffer buffer(kernel->layout, args);
  void *extra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, buffer.bytes.data(), HIP_LAUNCH_PARAM_BUFFER_SIZE, &buffer.size,
                   HIP_LAUNCH_PARAM_END};
  return hipModuleLaunchKernel(kernel->function, grid.x, grid.y, grid.z, block.x, block.y, block.z,
                               static_cast<unsigned>(shared), hip_stream(stream), nullptr, extra);
}

// An attribute of the current device or of a kernel; 0 where HIP cannot say.
int device_attribute(hipDeviceAttribute_t attribute) {
  int device = 0, value = 0;
  if (hipGetDevice(&device) != hipSuccess || hipDeviceGetAttribute(&value, attribute, device) != hipSuccess) return 0;
  return value;
}

int function_attribute(hipFunction_t function, hipFunction_attribute attribute) {
  int value = 0;
  return hipFuncGetAttribute(&value, attribute, function) == hipSuccess ? value : 0;
}

// CUDA's per-thread default stream variants (_ptsz): the null stream is the calling thread's.
void *per_thread(void *stream) { return stream ? stream : reinterpret_cast<void *>(2); }

// CUDA 13's cudaMemLocation, as HIP 5.2's device ordinal (hipCpuDeviceId for the host).
struct cuda_mem_location {
  int type;  // cudaMemLocationType: 1 device, 2 host, 3 host NUMA node, 4 the current thread's host NUMA node
  int id;
};
int hip_device_of(cuda_mem_location location) { return location.type == 1 ? location.id : hipCpuDeviceId; }

// Graph memory nodes (HIP 5.2 has none): the allocation is made when the node is added and lives as long as
// the program; the node itself is an empty node, ordering what depends on it as CUDA's would.
struct MemoryNodes {
  std::mutex lock;
  std::map<hipGraphNode_t, std::vector<char>> alloc_params;  // node -> the cudaMemAllocNodeParams it returned
  std::map<hipGraphNode_t, void *> freed;
};
MemoryNodes &memory_nodes() {
  static MemoryNodes *instance = new MemoryNodes;
  return *instance;
}

}  // namespace

extern "C" {

void __cassc_register_image(const cassc_image *image) {
  State &s = state();
  std::lock_guard<std::mutex> guard(s.lock);
  s.images.push_back(image);
  for (unsigned i = 0; i < image->kernel_count; ++i) s.by_name[image->kernels[i].name] = {image, &image->kernels[i]};
}

}  // extern "C"

#ifdef CASSC_TRANSLATION_LOOKUP
// The runtime as a shared libcudart for nvcc-built binaries (`-cudart shared`): nothing was spliced into them,
// so each fatbin nvcc's code registers is looked up among `cassc translate`'s output (translation_lookup.h).
namespace {

void register_translation(const void *wrapper) {
  const unsigned char *container = cassc::fatbin_container(wrapper);
  if (!container) return;
  const std::string digest = cassc::fatbin_digest(container);
  const std::string directory = cassc::translation_dir();
  std::vector<cassc::TranslatedKernel> translated;
  if (!cassc::translated_kernels(directory, digest, &translated)) {
    std::fprintf(stderr, "cassc runtime: no translation of fatbin %s in %s (run `cassc translate` on the binary)\n",
                 digest.c_str(), directory.c_str());
    return;
  }
  // One image per bundle file; the layouts live as long as the program.
  std::map<std::string, std::vector<cassc_kernel_layout>> by_bundle;
  for (const cassc::TranslatedKernel &kernel : translated)
    by_bundle[kernel.bundle].push_back(cassc_kernel_layout{
        strdup(kernel.name.c_str()), static_cast<unsigned>(kernel.offsets.size()),
        (new std::vector<unsigned>(kernel.offsets))->data(), (new std::vector<unsigned>(kernel.sizes))->data(),
        kernel.param_size});
  for (auto &[bundle, layouts] : by_bundle) {
    bool ok = false;
    std::string *code = new std::string(cassc::read_whole_file(directory + "/" + bundle, &ok));
    if (!ok) fatal("cannot read the translated device code", directory + "/" + bundle);
    auto *kernels = new std::vector<cassc_kernel_layout>(layouts);
    __cassc_register_image(new cassc_image{code->data(), strdup((directory + "/" + bundle).c_str()),
                                           static_cast<unsigned>(kernels->size()), kernels->data(), 0});
  }
  if (std::getenv("CASSC_RUNTIME_VERBOSE"))
    std::fprintf(stderr, "cassc runtime: fatbin %s: %zu kernel(s) from %s\n", digest.c_str(), translated.size(),
                 directory.c_str());
}

}  // namespace
#endif

extern "C" {

void **__cudaRegisterFatBinary(void *wrapper) {
#ifdef CASSC_TRANSLATION_LOOKUP
  register_translation(wrapper);
#endif
  // Translated code spliced into the program registers itself (__cassc_register_image); the handle only has to
  // be unique.
  return static_cast<void **>(wrapper);
}

// -rdc objects register through __cudaRegisterLinkedBinary_<module id> (nvcc's device link defines it;
// cassc's splice object does, calling this): register the wrapper, then let the object register its kernels.
void __cassc_register_linked(void (*callback)(void **), void *wrapper) { callback(__cudaRegisterFatBinary(wrapper)); }

void __cudaRegisterFatBinaryEnd(void **) {}
void __cudaUnregisterFatBinary(void **) {}
// nvcc's host code calls this (through __nv_init_managed_rt) before it first reads a __managed__ variable.
char __cudaInitModule(void **) {
  State &s = state();
  std::lock_guard<std::mutex> guard(s.lock);
  bind_managed_locked(s, true);
  return 1;
}

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

// Host variables of the runtime's module API (__cudaRegisterHostVar): nothing to register.
void __cudaRegisterHostVar(void **, const char *, char *, size_t) {}

void __cudaRegisterTexture(void **, const void *host_variable, const void **, const char *device_name, int,
                           int read_mode, int) {
  State &s = state();
  std::lock_guard<std::mutex> guard(s.lock);
  s.variables[host_variable] = Variable{device_name, sizeof(unsigned long long), nullptr};
  s.references[host_variable] = ImageReference{false, read_mode, 0, 0};
}

void __cudaRegisterSurface(void **, const void *host_variable, const void **, const char *device_name, int, int) {
  State &s = state();
  std::lock_guard<std::mutex> guard(s.lock);
  s.variables[host_variable] = Variable{device_name, sizeof(unsigned long long), nullptr};
  s.references[host_variable] = ImageReference{true, 0, 0, 0};
}

void __cudaRegisterManagedVar(void **, void **host_pointer, char *, const char *device_name, int, size_t size, int,
                              int) {
  State &s = state();
  std::lock_guard<std::mutex> guard(s.lock);
  s.managed.push_back(ManagedVariable{device_name, size, host_pointer, false});
  s.managed_pending = true;
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
  return launch(handle, grid, block, args, shared, per_thread(stream));
}

int cudaLaunchKernel(const void *host_stub, dim3 grid, dim3 block, void **args, size_t shared, void *stream) {
  return launch(host_stub, grid, block, args, shared, stream);
}

int cudaLaunchKernel_ptsz(const void *host_stub, dim3 grid, dim3 block, void **args, size_t shared, void *stream) {
  return launch(host_stub, grid, block, args, shared, per_thread(stream));
}

// A cooperative launch: the translated kernel's grid.sync() counts arrivals in a workspace of its code object
// (the lifter's %envreg mapping), which needs every block resident at once. HIP 5.2 has no cooperative launch
// of a module's kernel, so the guarantee is CUDA's own check: a grid larger than the device holds at once is
// refused with cudaErrorCooperativeLaunchTooLarge; one that fits is resident.
static int cooperative_launch(const void *host_stub, dim3 grid, dim3 block, void **args, size_t shared,
                              void *stream) {
  Kernel *kernel = kernel_for(host_stub);
  if (!kernel) return hipErrorInvalidDeviceFunction;
  int per_multiprocessor = 0;
  if (hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(&per_multiprocessor, kernel->function,
                                                         static_cast<int>(block.x * block.y * block.z),
                                                         shared) != hipSuccess)
    return hipErrorInvalidValue;
  const long long resident =
      static_cast<long long>(per_multiprocessor) * device_attribute(hipDeviceAttributeMultiprocessorCount);
  if (static_cast<long long>(grid.x) * grid.y * grid.z > resident) return 720;  // cudaErrorCooperativeLaunchTooLarge
  return launch(host_stub, grid, block, args, shared, stream);
}

int cudaLaunchCooperativeKernel(const void *host_stub, dim3 grid, dim3 block, void **args, size_t shared,
                                void *stream) {
  return cooperative_launch(host_stub, grid, block, args, shared, stream);
}

int cudaLaunchCooperativeKernel_ptsz(const void *host_stub, dim3 grid, dim3 block, void **args, size_t shared,
                                     void *stream) {
  return cooperative_launch(host_stub, grid, block, args, shared, per_thread(stream));
}

// cudaLaunchKernelEx (a template in cuda_runtime.h) calls this. Its attributes are scheduling hints, access
// policies and clusters, none of which changes what a kernel computes on an AMD GPU.
struct cuda_launch_config {
  dim3 grid, block;
  size_t shared;
  void *stream;
  void *attributes;
  unsigned attribute_count;
};

int cudaLaunchKernelExC(const cuda_launch_config *config, const void *host_stub, void **args) {
  return launch(host_stub, config->grid, config->block, args, config->shared, config->stream);
}

int cudaLaunchKernelExC_ptsz(const cuda_launch_config *config, const void *host_stub, void **args) {
  return launch(host_stub, config->grid, config->block, args, config->shared, per_thread(config->stream));
}

// cudaGetKernel's handle and cudaGetFuncBySymbol's function: the host stub (what the shim launches by) and the
// translated kernel's HIP function (what the driver API's jumps to HIP take).
int cudaGetKernel(void **kernel, const void *host_stub) {
  if (!layout_for(host_stub)) return hipErrorInvalidDeviceFunction;
  *kernel = const_cast<void *>(host_stub);
  return hipSuccess;
}

int cudaGetFuncBySymbol(hipFunction_t *function, const void *host_stub) {
  Kernel *kernel = kernel_for(host_stub);
  if (!kernel) return hipErrorInvalidDeviceFunction;
  *function = kernel->function;
  return hipSuccess;
}

int cudaFuncGetName(const char **name, const void *host_stub) {
  const cassc_kernel_layout *layout = layout_for(host_stub);
  if (!layout) return hipErrorInvalidDeviceFunction;
  *name = layout->name;
  return hipSuccess;
}

int cudaFuncGetParamInfo(const void *host_stub, size_t index, size_t *offset, size_t *size) {
  const cassc_kernel_layout *layout = layout_for(host_stub);
  if (!layout) return hipErrorInvalidDeviceFunction;
  if (index >= layout->param_count) return hipErrorInvalidValue;
  *offset = layout->offsets[index];
  *size = layout->sizes[index];
  return hipSuccess;
}

// CUDA 13's cudaFuncAttributes (driver_types.h), filled from the translated kernel's code object.
struct cassc_cuda_func_attributes {
  size_t sharedSizeBytes, constSizeBytes, localSizeBytes;
  int maxThreadsPerBlock, numRegs, ptxVersion, binaryVersion, cacheModeCA, maxDynamicSharedSizeBytes,
      preferredShmemCarveout, clusterDimMustBeSet, requiredClusterWidth, requiredClusterHeight, requiredClusterDepth,
      clusterSchedulingPolicyPreference, nonPortableClusterSizeAllowed, reserved[16];
};

int cudaFuncGetAttributes(cassc_cuda_func_attributes *attributes, const void *host_stub) {
  Kernel *kernel = kernel_for(host_stub);
  if (!kernel) return hipErrorInvalidDeviceFunction;
  std::memset(attributes, 0, sizeof *attributes);
  auto get = [&](hipFunction_attribute attribute) { return function_attribute(kernel->function, attribute); };
  attributes->sharedSizeBytes = static_cast<size_t>(get(HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES));
  attributes->constSizeBytes = static_cast<size_t>(get(HIP_FUNC_ATTRIBUTE_CONST_SIZE_BYTES));
  attributes->localSizeBytes = static_cast<size_t>(get(HIP_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES));
  attributes->maxThreadsPerBlock = get(HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  attributes->numRegs = get(HIP_FUNC_ATTRIBUTE_NUM_REGS);
  attributes->ptxVersion = get(HIP_FUNC_ATTRIBUTE_PTX_VERSION);
  attributes->binaryVersion = get(HIP_FUNC_ATTRIBUTE_BINARY_VERSION);
  attributes->maxDynamicSharedSizeBytes =
      device_attribute(hipDeviceAttributeSharedMemPerBlockOptin) - static_cast<int>(attributes->sharedSizeBytes);
  attributes->preferredShmemCarveout = -1;
  return hipSuccess;
}

int cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *blocks, const void *host_stub, int block_size,
                                                           size_t shared, unsigned flags) {
  Kernel *kernel = kernel_for(host_stub);
  if (!kernel) return hipErrorInvalidDeviceFunction;
  return hipModuleOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(blocks, kernel->function, block_size, shared,
                                                                     flags);
}

// The dynamic shared memory `blocks` blocks of `block_size` threads can each have on one multiprocessor.
int cudaOccupancyAvailableDynamicSMemPerBlock(size_t *available, const void *host_stub, int blocks, int block_size) {
  Kernel *kernel = kernel_for(host_stub);
  if (!kernel) return hipErrorInvalidDeviceFunction;
  if (blocks <= 0 || block_size <= 0) return hipErrorInvalidValue;
  int per_multiprocessor = device_attribute(hipDeviceAttributeMaxSharedMemoryPerMultiprocessor);
  int per_block = device_attribute(hipDeviceAttributeSharedMemPerBlockOptin);
  int fixed = function_attribute(kernel->function, HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
  int resident = 0;
  if (hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(&resident, kernel->function, block_size, 0) != hipSuccess ||
      resident < blocks) {
    *available = 0;
    return hipSuccess;
  }
  int share = per_multiprocessor / blocks - fixed;
  *available = static_cast<size_t>(std::max(0, std::min(share, per_block - fixed)));
  return hipSuccess;
}

// CUDA 13's cudaKernelNodeParams. A kernel node of a translated kernel is the kernel launch captured into a
// child graph: HIP's kernel nodes take only kernels HIP registered itself.
struct cuda_kernel_node_params {
  void *func;
  dim3 grid, block;
  unsigned shared;
  void **kernel_params;
  void **extra;
};

}  // extern "C"

namespace {

// A translated kernel's graph node: what it was given, and its parameter buffer, which the captured launch
// refers to (kept for the program's lifetime, as the graph may be).
struct KernelNode {
  cuda_kernel_node_params params;
  ParameterBuffer *buffer;
  std::vector<void *> arguments;  // pointers into the buffer: the kernelParams GetParams returns
};

struct KernelNodes {
  std::mutex lock;
  std::map<hipGraphNode_t, KernelNode> nodes;
};

KernelNodes &kernel_nodes() {
  static KernelNodes *instance = new KernelNodes;
  return *instance;
}

// The launch of `params` captured into a graph of its own; records the node data in `recorded`.
hipError_t captured_launch(const cuda_kernel_node_params *params, hipGraph_t *launch_graph, KernelNode *recorded) {
  Kernel *kernel = kernel_for(params->func);
  if (!kernel) return hipErrorInvalidDeviceFunction;
  if (!params->kernel_params) return hipErrorInvalidValue;  // the "extra" form is the driver API's
  ParameterBuffer *buffer = new ParameterBuffer(kernel->layout, params->kernel_params);
  *recorded = KernelNode{*params, buffer, {}};
  for (unsigned i = 0; i < kernel->layout->param_count; ++i)
    recorded->arguments.push_back(buffer->bytes.data() + kernel->layout->offsets[i]);
  hipStream_t stream = nullptr;
  hipError_t status = hipStreamCreateWithFlags(&stream, hipStreamNonBlocking);
  if (status != hipSuccess) return status;
  status = hipStreamBeginCapture(stream, hipStreamCaptureModeRelaxed);
  if (status == hipSuccess) {
    void *extra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, buffer->bytes.data(), HIP_LAUNCH_PARAM_BUFFER_SIZE,
                     &buffer->size, HIP_LAUNCH_PARAM_END};
    hipError_t launched = hipModuleLaunchKernel(kernel->function, params->grid.x, params->grid.y, params->grid.z,
                                                params->block.x, params->block.y, params->block.z, params->shared,
                                                stream, nullptr, extra);
    status = hipStreamEndCapture(stream, launch_graph);
    if (launched != hipSuccess) status = launched;
  }
  (void)hipStreamDestroy(stream);
  return status;
}

void remember(hipGraphNode_t node, KernelNode recorded) {
  KernelNodes &nodes = kernel_nodes();
  std::lock_guard<std::mutex> guard(nodes.lock);
  nodes.nodes[node] = std::move(recorded);
}

}  // namespace

extern "C" {

int cudaGraphAddKernelNode(hipGraphNode_t *node, hipGraph_t graph, const hipGraphNode_t *dependencies,
                           size_t dependency_count, const cuda_kernel_node_params *params) {
  hipGraph_t launch_graph = nullptr;
  KernelNode recorded{};
  hipError_t status = captured_launch(params, &launch_graph, &recorded);
  if (status == hipSuccess)
    status = hipGraphAddChildGraphNode(node, graph, dependencies, dependency_count, launch_graph);
  if (status == hipSuccess) remember(*node, std::move(recorded));
  if (launch_graph) (void)hipGraphDestroy(launch_graph);
  return status;
}

// CUDA's kernel-node calls on a translated kernel's node (HIP 5.2's hipKernelNodeParams also orders its fields
// differently from CUDA's, so no jump would do): the recorded parameters; a change captures the new launch.
int cudaGraphKernelNodeGetParams(hipGraphNode_t node, cuda_kernel_node_params *params) {
  KernelNodes &nodes = kernel_nodes();
  std::lock_guard<std::mutex> guard(nodes.lock);
  auto found = nodes.nodes.find(node);
  if (found == nodes.nodes.end()) return hipErrorInvalidValue;
  *params = found->second.params;
  params->kernel_params = found->second.arguments.data();
  params->extra = nullptr;
  return hipSuccess;
}

int cudaGraphKernelNodeSetParams(hipGraphNode_t node, const cuda_kernel_node_params *params) {
  hipGraph_t child = nullptr, launch_graph = nullptr;
  hipError_t status = hipGraphChildGraphNodeGetGraph(node, &child);
  if (status != hipSuccess) return hipErrorInvalidValue;  // not a node of a translated kernel
  KernelNode recorded{};
  status = captured_launch(params, &launch_graph, &recorded);
  if (status == hipSuccess) {  // the node owns its child graph: replace what it holds
    size_t count = 0;
    status = hipGraphGetNodes(child, nullptr, &count);
    std::vector<hipGraphNode_t> old(count);
    if (status == hipSuccess && count) status = hipGraphGetNodes(child, old.data(), &count);
    for (size_t i = 0; status == hipSuccess && i < count; ++i) status = hipGraphDestroyNode(old[i]);
    hipGraphNode_t launch = nullptr;
    if (status == hipSuccess) status = hipGraphAddChildGraphNode(&launch, child, nullptr, 0, launch_graph);
  }
  if (status == hipSuccess) remember(node, std::move(recorded));
  if (launch_graph) (void)hipGraphDestroy(launch_graph);
  return status;
}

int cudaGraphExecKernelNodeSetParams(hipGraphExec_t exec, hipGraphNode_t node, const cuda_kernel_node_params *params) {
  hipGraph_t launch_graph = nullptr;
  KernelNode recorded{};
  hipError_t status = captured_launch(params, &launch_graph, &recorded);
  if (status == hipSuccess) status = hipGraphExecChildGraphNodeSetParams(exec, node, launch_graph);
  if (launch_graph) (void)hipGraphDestroy(launch_graph);
  return status;
}

int cudaGraphKernelNodeGetAttribute(hipGraphNode_t, int, void *value) {
  std::memset(value, 0, 64);  // cudaLaunchAttributeValue: every attribute's default is zero
  return hipSuccess;
}

// CUDA 13's cudaMemAllocNodeParams: the pool properties (88 bytes), access descriptors, size, then the result.
struct cuda_mem_alloc_node_params {
  char pool_properties[88];
  const void *access;
  size_t access_count;
  size_t bytes;
  void *pointer;
};

int cudaGraphAddMemAllocNode(hipGraphNode_t *node, hipGraph_t graph, const hipGraphNode_t *dependencies,
                             size_t dependency_count, cuda_mem_alloc_node_params *params) {
  hipError_t status = hipMalloc(&params->pointer, params->bytes);
  if (status != hipSuccess) return status;
  status = hipGraphAddEmptyNode(node, graph, dependencies, dependency_count);
  if (status != hipSuccess) return status;
  MemoryNodes &nodes = memory_nodes();
  std::lock_guard<std::mutex> guard(nodes.lock);
  const char *raw = reinterpret_cast<const char *>(params);
  nodes.alloc_params[*node] = std::vector<char>(raw, raw + sizeof *params);
  return hipSuccess;
}

int cudaGraphMemAllocNodeGetParams(hipGraphNode_t node, cuda_mem_alloc_node_params *params) {
  MemoryNodes &nodes = memory_nodes();
  std::lock_guard<std::mutex> guard(nodes.lock);
  auto found = nodes.alloc_params.find(node);
  if (found == nodes.alloc_params.end()) return hipErrorInvalidValue;
  std::memcpy(params, found->second.data(), sizeof *params);
  return hipSuccess;
}

int cudaGraphAddMemFreeNode(hipGraphNode_t *node, hipGraph_t graph, const hipGraphNode_t *dependencies,
                            size_t dependency_count, void *pointer) {
  hipError_t status = hipGraphAddEmptyNode(node, graph, dependencies, dependency_count);
  if (status != hipSuccess) return status;
  MemoryNodes &nodes = memory_nodes();
  std::lock_guard<std::mutex> guard(nodes.lock);
  nodes.freed[*node] = pointer;
  return hipSuccess;
}

int cudaGraphMemFreeNodeGetParams(hipGraphNode_t node, void **pointer) {
  MemoryNodes &nodes = memory_nodes();
  std::lock_guard<std::mutex> guard(nodes.lock);
  auto found = nodes.freed.find(node);
  if (found == nodes.freed.end()) return hipErrorInvalidValue;
  *pointer = found->second;
  return hipSuccess;
}

// Graph memory is ordinary device memory here: no pool of its own to report.
int cudaDeviceGetGraphMemAttribute(int, int, void *value) {
  *static_cast<unsigned long long *>(value) = 0;
  return hipSuccess;
}

struct cuda_graph_instantiate_params {
  unsigned long long flags;
  void *upload_stream;
  hipGraphNode_t error_node;
  int result;  // cudaGraphInstantiateResult: 0 success, 1 error
};

int cudaGraphInstantiateWithParams(hipGraphExec_t *exec, hipGraph_t graph, cuda_graph_instantiate_params *params) {
  // CUDA's flags: 1 auto-free on launch, 2 upload, 4 device launch, 8 use node priority: none applies here.
  hipError_t status = hipGraphInstantiateWithFlags(exec, graph, 0);
  params->error_node = nullptr;
  params->result = status == hipSuccess ? 0 : 1;
  return status;
}

int cudaGraphInstantiateWithParams_ptsz(hipGraphExec_t *exec, hipGraph_t graph,
                                        cuda_graph_instantiate_params *params) {
  return cudaGraphInstantiateWithParams(exec, graph, params);
}

int cudaGraphExecGetFlags(hipGraphExec_t, unsigned long long *flags) {
  *flags = 0;
  return hipSuccess;
}

// Limits: the stack, printf buffer and heap are sized by the code object and HIP on AMD GPUs, and the L2
// limits are hints, so setting them succeeds; the device runtime's limits (dynamic parallelism) do not exist.
int cudaDeviceSetLimit(int limit, size_t) {
  return limit <= 2 || limit == 5 || limit == 6 ? hipSuccess : 215 /* cudaErrorUnsupportedLimit */;
}

// HIP 5.2 has no hipLaunchHostFunc: a stream callback calling the host function does the same.
struct HostCall {
  void (*function)(void *);
  void *data;
};

void run_host_call(hipStream_t, hipError_t, void *pending) {
  HostCall *call = static_cast<HostCall *>(pending);
  call->function(call->data);
  delete call;
}

int cudaLaunchHostFunc(void *stream, void (*function)(void *), void *data) {
  HostCall *call = new HostCall{function, data};
  hipError_t status = hipStreamAddCallback(hip_stream(stream), run_host_call, call, 0);
  if (status != hipSuccess) delete call;
  return status;
}

int cudaLaunchHostFunc_ptsz(void *stream, void (*function)(void *), void *data) {
  return cudaLaunchHostFunc(per_thread(stream), function, data);
}

int cudaEventRecordWithFlags(hipEvent_t event, void *stream, unsigned) {
  // The one flag, cudaEventRecordExternal, matters only inside a graph capture.
  return hipEventRecord(event, hip_stream(stream));
}

int cudaEventRecordWithFlags_ptsz(hipEvent_t event, void *stream, unsigned flags) {
  return cudaEventRecordWithFlags(event, per_thread(stream), flags);
}

int cudaEventRecord_ptsz(hipEvent_t event, void *stream) {
  return hipEventRecord(event, hip_stream(per_thread(stream)));
}

// Stream attributes (access policy window, synchronization policy, priority...) are hints: each reads as its
// default.
int cudaStreamGetAttribute(void *, int, void *value) {
  std::memset(value, 0, 64);
  return hipSuccess;
}

int cudaStreamGetAttribute_ptsz(void *stream, int attribute, void *value) {
  return cudaStreamGetAttribute(stream, attribute, value);
}

int cudaStreamGetId(void *stream, unsigned long long *id) {
  *id = reinterpret_cast<unsigned long long>(hip_stream(stream));  // unique while the stream lives
  return hipSuccess;
}

int cudaStreamGetId_ptsz(void *stream, unsigned long long *id) { return cudaStreamGetId(per_thread(stream), id); }

int cudaStreamGetDevice(void *, int *device) { return hipGetDevice(device); }

int cudaStreamGetDevice_ptsz(void *stream, int *device) { return cudaStreamGetDevice(stream, device); }

int cudaInitDevice(int device, unsigned, unsigned) {
  int count = 0;
  hipError_t status = hipGetDeviceCount(&count);
  if (status != hipSuccess) return status;
  return device >= 0 && device < count ? hipSuccess : hipErrorInvalidDevice;
}

// The driver API's entry points: toolkit.py generates CASSC_DRIVER_ENTRIES from driver.tsv, a
// {name, address of the HIP twin} row for every driver function whose twin libamdhip64 exports.
struct cassc_driver_entry {
  const char *name;
  void (*function)();
};
#ifdef CASSC_DRIVER_ENTRIES
#include CASSC_DRIVER_ENTRIES
#else
static const cassc_driver_entry driver_entry_points[] = {{"", nullptr}};
#endif

// cuGetProcAddress's names are the base names (cuMemAlloc for cuMemAlloc_v2): try the versions after it.
static void *driver_entry_point(const char *symbol) {
  const std::string base = symbol;
  for (const std::string &name : {base, base + "_v2", base + "_v3"})
    for (const cassc_driver_entry &entry : driver_entry_points)
      if (entry.function && name == entry.name) return reinterpret_cast<void *>(entry.function);
  return nullptr;
}

int cudaGetDriverEntryPoint(const char *symbol, void **function, unsigned long long, int *status) {
  if (!symbol || !function) return hipErrorInvalidValue;
  *function = driver_entry_point(symbol);
  if (status) *status = *function ? 0 : 1;  // cudaDriverEntryPointSuccess / cudaDriverEntryPointSymbolNotFound
  return hipSuccess;
}

int cudaGetDriverEntryPointByVersion(const char *symbol, void **function, unsigned, unsigned long long flags,
                                     int *status) {
  return cudaGetDriverEntryPoint(symbol, function, flags, status);
}

// CUDA 12 and 13 changed these calls' parameters; HIP 5.2 keeps the CUDA 11 forms, so a jump would pass
// the wrong arguments. Edge data (CUDA 13's graph edges with ports and types) exists only as the default
// (all zero) here: nothing else can be added, and what is read back is the default.
struct cuda_graph_edge_data {
  unsigned char bytes[8];  // from_port, to_port, type, reserved[5]
};

bool default_edges(const cuda_graph_edge_data *edges, size_t count) {
  for (size_t i = 0; edges && i < count; ++i)
    for (unsigned char byte : edges[i].bytes)
      if (byte) return false;
  return true;
}

void clear_edges(cuda_graph_edge_data *edges, size_t count) {
  if (edges) std::memset(edges, 0, count * sizeof *edges);
}

int cudaMallocHost(void **pointer, size_t size) { return hipHostMalloc(pointer, size, 0); }

int cudaGraphInstantiate(hipGraphExec_t *exec, hipGraph_t graph, unsigned long long flags) {
  // CUDA's flags: 1 auto-free on launch (HIP's too); upload, device launch and priorities do not apply here.
  return hipGraphInstantiateWithFlags(exec, graph, flags & 1);
}

struct cuda_graph_exec_update_result_info {
  int result;  // cudaGraphExecUpdateResult: HIP's numbers
  hipGraphNode_t error_node, error_from_node;
};

int cudaGraphExecUpdate(hipGraphExec_t exec, hipGraph_t graph, cuda_graph_exec_update_result_info *info) {
  hipGraphNode_t error_node = nullptr;
  hipGraphExecUpdateResult result = hipGraphExecUpdateSuccess;
  hipError_t status = hipGraphExecUpdate(exec, graph, &error_node, &result);
  if (info) *info = {static_cast<int>(result), error_node, nullptr};
  return status;
}

int cudaGraphAddDependencies(hipGraph_t graph, const hipGraphNode_t *from, const hipGraphNode_t *to,
                             const cuda_graph_edge_data *edges, size_t count) {
  if (!default_edges(edges, count)) return hipErrorNotSupported;
  return hipGraphAddDependencies(graph, from, to, count);
}

int cudaGraphRemoveDependencies(hipGraph_t graph, const hipGraphNode_t *from, const hipGraphNode_t *to,
                                const cuda_graph_edge_data *edges, size_t count) {
  if (!default_edges(edges, count)) return hipErrorNotSupported;
  return hipGraphRemoveDependencies(graph, from, to, count);
}

int cudaGraphGetEdges(hipGraph_t graph, hipGraphNode_t *from, hipGraphNode_t *to, cuda_graph_edge_data *edges,
                      size_t *count) {
  size_t capacity = *count;
  hipError_t status = hipGraphGetEdges(graph, from, to, count);
  if (from) clear_edges(edges, std::min(capacity, *count));
  return status;
}

int cudaGraphNodeGetDependencies(hipGraphNode_t node, hipGraphNode_t *dependencies, cuda_graph_edge_data *edges,
                                 size_t *count) {
  size_t capacity = *count;
  hipError_t status = hipGraphNodeGetDependencies(node, dependencies, count);
  if (dependencies) clear_edges(edges, std::min(capacity, *count));
  return status;
}

int cudaGraphNodeGetDependentNodes(hipGraphNode_t node, hipGraphNode_t *dependents, cuda_graph_edge_data *edges,
                                   size_t *count) {
  size_t capacity = *count;
  hipError_t status = hipGraphNodeGetDependentNodes(node, dependents, count);
  if (dependents) clear_edges(edges, std::min(capacity, *count));
  return status;
}

int cudaStreamGetCaptureInfo(void *stream, hipStreamCaptureStatus *status, unsigned long long *id, hipGraph_t *graph,
                             const hipGraphNode_t **dependencies, const cuda_graph_edge_data **edges,
                             size_t *count) {
  if (edges) *edges = nullptr;  // all edges are default
  return hipStreamGetCaptureInfo_v2(hip_stream(stream), status, id, graph, dependencies, count);
}

int cudaStreamUpdateCaptureDependencies(void *stream, hipGraphNode_t *dependencies, const cuda_graph_edge_data *edges,
                                        size_t count, unsigned flags) {
  if (!default_edges(edges, count)) return hipErrorNotSupported;
  return hipStreamUpdateCaptureDependencies(hip_stream(stream), dependencies, count, flags);
}

// CUDA's cudaMemsetParams orders its fields differently from HIP 5.2's hipMemsetParams.
struct cuda_memset_params {
  void *dst;
  size_t pitch;
  unsigned value, element_size;
  size_t width, height;
};

hipMemsetParams hip_memset_params(const cuda_memset_params *cuda) {
  hipMemsetParams hip{};
  hip.dst = cuda->dst;
  hip.pitch = cuda->pitch;
  hip.value = cuda->value;
  hip.elementSize = cuda->element_size;
  hip.width = cuda->width;
  hip.height = cuda->height;
  return hip;
}

int cudaGraphAddMemsetNode(hipGraphNode_t *node, hipGraph_t graph, const hipGraphNode_t *dependencies,
                           size_t count, const cuda_memset_params *params) {
  hipMemsetParams hip = hip_memset_params(params);
  return hipGraphAddMemsetNode(node, graph, dependencies, count, &hip);
}

int cudaGraphMemsetNodeSetParams(hipGraphNode_t node, const cuda_memset_params *params) {
  hipMemsetParams hip = hip_memset_params(params);
  return hipGraphMemsetNodeSetParams(node, &hip);
}

int cudaGraphExecMemsetNodeSetParams(hipGraphExec_t exec, hipGraphNode_t node, const cuda_memset_params *params) {
  hipMemsetParams hip = hip_memset_params(params);
  return hipGraphExecMemsetNodeSetParams(exec, node, &hip);
}

int cudaGraphMemsetNodeGetParams(hipGraphNode_t node, cuda_memset_params *params) {
  hipMemsetParams hip{};
  hipError_t status = hipGraphMemsetNodeGetParams(node, &hip);
  if (status == hipSuccess) *params = {hip.dst, hip.pitch, hip.value, hip.elementSize, hip.width, hip.height};
  return status;
}

// CUDA's cudaPointerAttributes has HIP 5.2's first fields, then reserved space where HIP keeps isManaged and
// its allocation flags, and numbers memory types differently (CUDA: 0 unregistered, 1 host, 2 device, 3 managed).
struct cuda_pointer_attributes {
  int type;
  int device;
  void *device_pointer;
  void *host_pointer;
  long reserved[8];
};

int cudaPointerGetAttributes(cuda_pointer_attributes *attributes, const void *pointer) {
  hipPointerAttribute_t hip;
  hipError_t status = hipPointerGetAttributes(&hip, pointer);
  if (status == hipErrorInvalidValue && pointer) {  // memory HIP does not know: CUDA reports it unregistered
    (void)hipGetLastError();
    *attributes = {0, -2, nullptr, const_cast<void *>(pointer), {}};
    return hipSuccess;
  }
  if (status != hipSuccess) return status;
#if HIP_VERSION_MAJOR >= 6  // HIP 6 renamed the member memoryType to type
  const hipMemoryType memory_type = hip.type;
#else
  const hipMemoryType memory_type = hip.memoryType;
#endif
  int type = hip.isManaged ? 3 : memory_type == hipMemoryTypeHost ? 1 : 2;
  *attributes = {type, hip.device, hip.devicePointer, hip.hostPointer, {}};
  return hipSuccess;
}

// CUDA 13 locates prefetches and advice with a cudaMemLocation; HIP 5.2 takes a device ordinal.
int cudaMemPrefetchAsync(const void *pointer, size_t count, cuda_mem_location location, unsigned, void *stream) {
  return hipMemPrefetchAsync(pointer, count, hip_device_of(location), hip_stream(stream));
}

int cudaMemPrefetchAsync_ptsz(const void *pointer, size_t count, cuda_mem_location location, unsigned flags,
                              void *stream) {
  return cudaMemPrefetchAsync(pointer, count, location, flags, per_thread(stream));
}

int cudaMemAdvise(const void *pointer, size_t count, int advice, cuda_mem_location location) {
  return hipMemAdvise(pointer, count, static_cast<hipMemoryAdvise>(advice), hip_device_of(location));
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

int cudaMemcpyToSymbolAsync_ptsz(const void *symbol, const void *source, size_t count, size_t offset, int kind,
                                 void *stream) {
  return cudaMemcpyToSymbolAsync(symbol, source, count, offset, kind, per_thread(stream));
}

int cudaMemcpyFromSymbolAsync_ptsz(void *destination, const void *symbol, size_t count, size_t offset, int kind,
                                   void *stream) {
  return cudaMemcpyFromSymbolAsync(destination, symbol, count, offset, kind, per_thread(stream));
}

int cudaMemcpyToSymbol_ptds(const void *symbol, const void *source, size_t count, size_t offset, int kind) {
  int status = cudaMemcpyToSymbolAsync(symbol, source, count, offset, kind, per_thread(nullptr));
  return status == hipSuccess ? hipStreamSynchronize(hipStreamPerThread) : status;
}

int cudaMemcpyFromSymbol_ptds(void *destination, const void *symbol, size_t count, size_t offset, int kind) {
  int status = cudaMemcpyFromSymbolAsync(destination, symbol, count, offset, kind, per_thread(nullptr));
  return status == hipSuccess ? hipStreamSynchronize(hipStreamPerThread) : status;
}

}  // extern "C"

namespace {

// What every cudaDeviceProp layout (CUDA 10 to 13) holds under the same names.
template <typename Prop> void fill_device_prop(Prop *prop, const hipDeviceProp_t &hip) {
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
}

// The CUDA version the program's device code was built by: the oldest among the translated images (one
// program is built by one nvcc); 0 when nothing was registered.
unsigned registered_cuda_version() {
  State &s = state();
  std::lock_guard<std::mutex> guard(s.lock);
  unsigned oldest = 0;
  for (const cassc_image *image : s.images)
    if (image->cuda_version && (!oldest || image->cuda_version < oldest)) oldest = image->cuda_version;
  return oldest;
}

// CUDA 12's layout (cudaGetDeviceProperties_v2, what CUDA 12's headers call), also CUDA 10's and 11's
// up to their end: CUDA 13 removed clockRate, deviceOverlap, kernelExecTimeoutEnabled, computeMode,
// maxTexture1DLinear, memoryClockRate, singleToDoublePrecisionPerfRatio and cooperativeMultiDeviceLaunch.
struct cassc_cuda12_device_prop {
  char name[256];
  unsigned char uuid[16];
  char luid[8];
  unsigned int luidDeviceNodeMask;
  size_t totalGlobalMem, sharedMemPerBlock;
  int regsPerBlock, warpSize;
  size_t memPitch;
  int maxThreadsPerBlock, maxThreadsDim[3], maxGridSize[3], clockRate;
  size_t totalConstMem;
  int major, minor;
  size_t textureAlignment, texturePitchAlignment;
  int deviceOverlap, multiProcessorCount, kernelExecTimeoutEnabled, integrated, canMapHostMemory, computeMode,
      maxTexture1D, maxTexture1DMipmap, maxTexture1DLinear, maxTexture2D[2], maxTexture2DMipmap[2],
      maxTexture2DLinear[3], maxTexture2DGather[2], maxTexture3D[3], maxTexture3DAlt[3], maxTextureCubemap,
      maxTexture1DLayered[2], maxTexture2DLayered[3], maxTextureCubemapLayered[2], maxSurface1D, maxSurface2D[2],
      maxSurface3D[3], maxSurface1DLayered[2], maxSurface2DLayered[3], maxSurfaceCubemap, maxSurfaceCubemapLayered[2];
  size_t surfaceAlignment;
  int concurrentKernels, ECCEnabled, pciBusID, pciDeviceID, pciDomainID, tccDriver, asyncEngineCount,
      unifiedAddressing, memoryClockRate, memoryBusWidth, l2CacheSize, persistingL2CacheMaxSize,
      maxThreadsPerMultiProcessor, streamPrioritiesSupported, globalL1CacheSupported, localL1CacheSupported;
  size_t sharedMemPerMultiprocessor;
  int regsPerMultiprocessor, managedMemory, isMultiGpuBoard, multiGpuBoardGroupID, hostNativeAtomicSupported,
      singleToDoublePrecisionPerfRatio, pageableMemoryAccess, concurrentManagedAccess, computePreemptionSupported,
      canUseHostPointerForRegisteredMem, cooperativeLaunch, cooperativeMultiDeviceLaunch;
  size_t sharedMemPerBlockOptin;
  int pageableMemoryAccessUsesHostPageTables, directManagedMemAccessFromHost;  // CUDA 10's last fields
  int maxBlocksPerMultiProcessor, accessPolicyMaxWindowSize;
  size_t reservedSharedMemPerBlock;  // CUDA 11's last field
  int hostRegisterSupported, sparseCudaArraySupported, hostRegisterReadOnlySupported,
      timelineSemaphoreInteropSupported, memoryPoolsSupported, gpuDirectRDMASupported;
  unsigned int gpuDirectRDMAFlushWritesOptions;
  int gpuDirectRDMAWritesOrdering;
  unsigned int memoryPoolSupportedHandleTypes;
  int deferredMappingCudaArraySupported, ipcEventSupported, clusterLaunch, unifiedFunctionPointers, reserved[63];
};

// The bytes of CUDA 12's struct that a program built by `cuda_version` has (its struct ends earlier).
size_t cuda12_prop_size(unsigned cuda_version) {
  if (cuda_version && cuda_version < 11000)
    return (offsetof(cassc_cuda12_device_prop, directManagedMemAccessFromHost) + sizeof(int) + 7) / 8 * 8;
  if (cuda_version && cuda_version < 12000)
    return offsetof(cassc_cuda12_device_prop, reservedSharedMemPerBlock) + sizeof(size_t);
  return sizeof(cassc_cuda12_device_prop);
}

int cuda12_device_properties(void *prop, int device, size_t size) {
  hipDeviceProp_t hip;
  hipError_t status = hipGetDeviceProperties(&hip, device);
  if (status != hipSuccess) return status;
  cassc_cuda12_device_prop filled;
  std::memset(&filled, 0, sizeof filled);
  fill_device_prop(&filled, hip);
  filled.clockRate = hip.clockRate;
  filled.memoryClockRate = hip.memoryClockRate;
  filled.computeMode = hip.computeMode;
  filled.kernelExecTimeoutEnabled = hip.kernelExecTimeoutEnabled;
  filled.cooperativeMultiDeviceLaunch = hip.cooperativeMultiDeviceLaunch;
  filled.deviceOverlap = 1;
  std::memcpy(prop, &filled, size);
  return hipSuccess;
}

}  // namespace

extern "C" {

// The plain name is CUDA 13's call, and CUDA 10's and 11's (CUDA 12's headers call _v2): the layout
// follows the CUDA version cassc read in the program's device code.
int cudaGetDeviceProperties(void *prop, int device) {
  unsigned built_by = registered_cuda_version();
  if (built_by && built_by < 12000) return cuda12_device_properties(prop, device, cuda12_prop_size(built_by));
  hipDeviceProp_t hip;
  hipError_t status = hipGetDeviceProperties(&hip, device);
  if (status != hipSuccess) return status;
  cassc_cuda_device_prop *cuda13 = static_cast<cassc_cuda_device_prop *>(prop);
  std::memset(cuda13, 0, sizeof *cuda13);
  fill_device_prop(cuda13, hip);
  return hipSuccess;
}

// CUDA 12's headers name their call so: CUDA 12's layout.
int cudaGetDeviceProperties_v2(void *prop, int device) {
  return cuda12_device_properties(prop, device, sizeof(cassc_cuda12_device_prop));
}

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

// The texture and surface reference API (CUDA 11; removed in CUDA 12): a bind makes the texture (surface)
// object the reference's fields describe, as cudaCreateTextureObject would, and writes its handle into the
// reference's device variable; an unbind destroys it and writes 0.
constexpr int kInvalidTexture = 18;  // cudaErrorInvalidTexture

int set_reference_object(const void *host_variable, unsigned long long object, size_t offset) {
  Variable *variable = variable_for(host_variable);
  State &s = state();
  std::lock_guard<std::mutex> guard(s.lock);
  auto found = s.references.find(host_variable);
  if (!variable || found == s.references.end()) return kInvalidTexture;
  ImageReference &reference = found->second;
  hipError_t status = hipMemcpy(variable->device, &object, sizeof object, hipMemcpyHostToDevice);
  if (status != hipSuccess) return status;
  if (reference.object) {  // the object bound before: nothing reads it any more
    void *previous = reinterpret_cast<void *>(reference.object);
    (void)(reference.surface ? hipDestroySurfaceObject(static_cast<hipSurfaceObject_t>(previous))
                             : hipDestroyTextureObject(static_cast<hipTextureObject_t>(previous)));
  }
  reference.object = object;
  reference.offset = offset;
  return hipSuccess;
}

// The read mode of a registered texture reference (`surface`: 0 for a registered surface reference); -1: none.
int read_mode_of(const void *host_variable, bool surface = false) {
  State &s = state();
  std::lock_guard<std::mutex> guard(s.lock);
  auto found = s.references.find(host_variable);
  return found == s.references.end() || found->second.surface != surface ? -1 : found->second.read_mode;
}

int bind_texture(const CudaTextureReference *reference, hipResourceDesc &resource, size_t offset) {
  int read_mode = read_mode_of(reference);
  if (read_mode < 0) return kInvalidTexture;
  hipTextureDesc texture{};
  for (int i = 0; i < 3; ++i) texture.addressMode[i] = static_cast<hipTextureAddressMode>(reference->addressMode[i]);
  texture.filterMode = static_cast<hipTextureFilterMode>(reference->filterMode);
  texture.readMode = static_cast<hipTextureReadMode>(read_mode);
  texture.sRGB = reference->sRGB;
  texture.normalizedCoords = reference->normalized;
  texture.maxAnisotropy = reference->maxAnisotropy;
  texture.mipmapFilterMode = static_cast<hipTextureFilterMode>(reference->mipmapFilterMode);
  texture.mipmapLevelBias = reference->mipmapLevelBias;
  texture.minMipmapLevelClamp = reference->minMipmapLevelClamp;
  texture.maxMipmapLevelClamp = reference->maxMipmapLevelClamp;
  hipTextureObject_t object = nullptr;
  hipError_t status = hipCreateTextureObject(&object, &resource, &texture, nullptr);
  if (status != hipSuccess) return status;
  return set_reference_object(reference, reinterpret_cast<unsigned long long>(object), offset);
}

// Linear memory: the base address is moved down to the device's texture alignment and the difference
// returned in *offset, as CUDA does (memory from cudaMalloc is aligned: 0); without `offset` an unaligned
// address is an error.
int aligned_base(const void *pointer, size_t *offset, char **base, size_t *moved) {
  int alignment = 0, device = 0;
  if (hipGetDevice(&device) != hipSuccess ||
      hipDeviceGetAttribute(&alignment, hipDeviceAttributeTextureAlignment, device) != hipSuccess || alignment <= 0)
    alignment = 1;
  *moved = reinterpret_cast<uintptr_t>(pointer) % static_cast<uintptr_t>(alignment);
  if (*moved && !offset) return hipErrorInvalidValue;
  if (offset) *offset = *moved;
  *base = static_cast<char *>(const_cast<void *>(pointer)) - *moved;
  return hipSuccess;
}

int cudaBindTexture(size_t *offset, const CudaTextureReference *reference, const void *pointer,
                    const hipChannelFormatDesc *desc, size_t size) {
  if (!reference || !desc) return hipErrorInvalidValue;
  char *base = nullptr;
  size_t moved = 0;
  if (int status = aligned_base(pointer, offset, &base, &moved)) return status;
  hipResourceDesc resource{};
  resource.resType = hipResourceTypeLinear;
  resource.res.linear.devPtr = base;
  resource.res.linear.desc = *desc;
  // At most what the allocation holds from the pointer on: the C++ form's default size is UINT_MAX, "all of it".
  hipDeviceptr_t allocation = nullptr;
  size_t allocated = 0;
  if (hipMemGetAddressRange(&allocation, &allocated, base) == hipSuccess && allocated)
    size = std::min(size + moved, allocated - static_cast<size_t>(base - static_cast<char *>(allocation))) - moved;
  resource.res.linear.sizeInBytes = size + moved;
  return bind_texture(reference, resource, moved);
}

int cudaBindTexture2D(size_t *offset, const CudaTextureReference *reference, const void *pointer,
                      const hipChannelFormatDesc *desc, size_t width, size_t height, size_t pitch) {
  if (!reference || !desc) return hipErrorInvalidValue;
  char *base = nullptr;
  size_t moved = 0;
  if (int status = aligned_base(pointer, offset, &base, &moved)) return status;
  size_t texel = (desc->x + desc->y + desc->z + desc->w) / 8;
  hipResourceDesc resource{};
  resource.resType = hipResourceTypePitch2D;
  resource.res.pitch2D.devPtr = base;
  resource.res.pitch2D.desc = *desc;
  resource.res.pitch2D.width = width + (texel ? moved / texel : 0);
  resource.res.pitch2D.height = height;
  resource.res.pitch2D.pitchInBytes = pitch;
  return bind_texture(reference, resource, moved);
}

int cudaBindTextureToArray(const CudaTextureReference *reference, hipArray_const_t array,
                           const hipChannelFormatDesc *) {
  if (!reference || !array) return hipErrorInvalidValue;
  hipResourceDesc resource{};
  resource.resType = hipResourceTypeArray;
  resource.res.array.array = const_cast<hipArray_t>(array);
  return bind_texture(reference, resource, 0);
}

int cudaBindTextureToMipmappedArray(const CudaTextureReference *reference, hipMipmappedArray_const_t array,
                                    const hipChannelFormatDesc *) {
  if (!reference || !array) return hipErrorInvalidValue;
  hipResourceDesc resource{};
  resource.resType = hipResourceTypeMipmappedArray;
  resource.res.mipmap.mipmap = const_cast<hipMipmappedArray_t>(array);
  return bind_texture(reference, resource, 0);
}

int cudaUnbindTexture(const CudaTextureReference *reference) {
  return read_mode_of(reference) < 0 ? kInvalidTexture : set_reference_object(reference, 0, 0);
}

int cudaGetTextureAlignmentOffset(size_t *offset, const CudaTextureReference *reference) {
  State &s = state();
  std::lock_guard<std::mutex> guard(s.lock);
  auto found = s.references.find(reference);
  if (!offset || found == s.references.end()) return kInvalidTexture;
  if (!found->second.object) return 24;  // cudaErrorTextureNotBound
  *offset = found->second.offset;
  return hipSuccess;
}

// The reference of a symbol is its host variable (nvcc's code registers the variable itself).
int cudaGetTextureReference(const CudaTextureReference **reference, const void *symbol) {
  if (!reference || read_mode_of(symbol) < 0) return kInvalidTexture;
  *reference = static_cast<const CudaTextureReference *>(symbol);
  return hipSuccess;
}

int cudaBindSurfaceToArray(const void *reference, hipArray_const_t array, const hipChannelFormatDesc *) {
  if (!reference || !array) return hipErrorInvalidValue;
  if (read_mode_of(reference, true) < 0) return 37;  // cudaErrorInvalidSurface
  hipResourceDesc resource{};
  resource.resType = hipResourceTypeArray;
  resource.res.array.array = const_cast<hipArray_t>(array);
  hipSurfaceObject_t object = nullptr;
  hipError_t status = hipCreateSurfaceObject(&object, &resource);
  if (status != hipSuccess) return status;
  return set_reference_object(reference, reinterpret_cast<unsigned long long>(object), 0);
}

int cudaGetSurfaceReference(const void **reference, const void *symbol) {
  if (!reference || read_mode_of(symbol, true) < 0) return 37;  // cudaErrorInvalidSurface
  *reference = symbol;
  return hipSuccess;
}

}  // extern "C"
