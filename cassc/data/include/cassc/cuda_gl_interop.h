/* cassc: <cuda_gl_interop.h>. HIP 5 declares the OpenGL interop API in hip_runtime_api.h; HIP 6 moved
   it to its own header, which declares the GL types it needs itself.
   CUDA's deprecated calls that HIP never had are written here under their CUDA names, on the graphics
   resource API HIP has: cudaGLSetGLDevice (CUDA 5 made it unnecessary: it only selects the device) and
   the buffer-object calls (cudaGLRegisterBufferObject...: one registered resource per GL buffer). */
#pragma once
#include <hip/hip_runtime_api.h>
#if __has_include(<hip/hip_gl_interop.h>)
#include <hip/hip_gl_interop.h>
#endif

#if defined(__cplusplus)
#include <map>

/* driver_types.h's map flags, which HIP does not declare: hints on how kernels use a mapped resource
 * (HIP maps every resource read-write), so setting them only checks the resource. */
enum cudaGraphicsMapFlags {
  cudaGraphicsMapFlagsNone = 0,
  cudaGraphicsMapFlagsReadOnly = 1,
  cudaGraphicsMapFlagsWriteDiscard = 2
};
static inline hipError_t cudaGraphicsResourceSetMapFlags(hipGraphicsResource_t resource, unsigned int) {
  return resource ? hipSuccess : hipErrorInvalidResourceHandle;
}
enum cudaGLMapFlags { cudaGLMapFlagsNone = 0, cudaGLMapFlagsReadOnly = 1, cudaGLMapFlagsWriteDiscard = 2 };

static inline hipError_t cudaGLSetGLDevice(int device) { return hipSetDevice(device); }

/* GL buffer name -> the graphics resource registered for it (one per process, as CUDA's own table). */
inline std::map<GLuint, hipGraphicsResource_t>& __cassc_gl_buffers() {
  static std::map<GLuint, hipGraphicsResource_t> buffers;
  return buffers;
}
static inline hipGraphicsResource_t __cassc_gl_buffer(GLuint buffer) {
  auto found = __cassc_gl_buffers().find(buffer);
  return found == __cassc_gl_buffers().end() ? nullptr : found->second;
}
static inline hipError_t cudaGLRegisterBufferObject(GLuint buffer) {
  hipGraphicsResource_t resource = nullptr;
  hipError_t status = hipGraphicsGLRegisterBuffer(&resource, buffer, hipGraphicsRegisterFlagsNone);
  if (status == hipSuccess) __cassc_gl_buffers()[buffer] = resource;
  return status;
}
static inline hipError_t cudaGLUnregisterBufferObject(GLuint buffer) {
  hipGraphicsResource_t resource = __cassc_gl_buffer(buffer);
  if (!resource) return hipErrorInvalidResourceHandle;
  __cassc_gl_buffers().erase(buffer);
  return hipGraphicsUnregisterResource(resource);
}
static inline hipError_t cudaGLMapBufferObjectAsync(void** pointer, GLuint buffer, hipStream_t stream) {
  hipGraphicsResource_t resource = __cassc_gl_buffer(buffer);
  if (!resource) return hipErrorInvalidResourceHandle;
  hipError_t status = hipGraphicsMapResources(1, &resource, stream);
  size_t size = 0;
  return status == hipSuccess ? hipGraphicsResourceGetMappedPointer(pointer, &size, resource) : status;
}
static inline hipError_t cudaGLMapBufferObject(void** pointer, GLuint buffer) {
  return cudaGLMapBufferObjectAsync(pointer, buffer, nullptr);
}
static inline hipError_t cudaGLUnmapBufferObjectAsync(GLuint buffer, hipStream_t stream) {
  hipGraphicsResource_t resource = __cassc_gl_buffer(buffer);
  return resource ? hipGraphicsUnmapResources(1, &resource, stream) : hipErrorInvalidResourceHandle;
}
static inline hipError_t cudaGLUnmapBufferObject(GLuint buffer) { return cudaGLUnmapBufferObjectAsync(buffer, nullptr); }
/* A hint in CUDA (how kernels will use the buffer); HIP maps every buffer read-write. */
static inline hipError_t cudaGLSetBufferObjectMapFlags(GLuint buffer, unsigned int) {
  return __cassc_gl_buffer(buffer) ? hipSuccess : hipErrorInvalidResourceHandle;
}
#endif
