/* cassc: <cuda_egl_interop.h>. HIP has no EGL interop (it interoperates with OpenGL only). CUDA's EGL types
 * are here, so code that only includes the header (helper headers do) builds, and each EGL function is
 * an error naming it at the caller's line. EGL's own headers come first, as CUDA's header includes them;
 * where they are missing, the include is the error, as it is for CUDA's. */
#pragma once
#if !__has_include(<EGL/egl.h>) || !__has_include(<EGL/eglext.h>)
#error "cassc: <cuda_egl_interop.h> includes EGL's headers, which are not installed (Debian/Ubuntu: libegl-dev)"
#else
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <hip/hip_runtime_api.h>

#define CUDA_EGL_MAX_PLANES 3
typedef enum cudaEglFrameType_enum { cudaEglFrameTypeArray = 0, cudaEglFrameTypePitch = 1 } cudaEglFrameType;
typedef enum cudaEglResourceLocationFlags_enum {
  cudaEglResourceLocationSysmem = 0x00,
  cudaEglResourceLocationVidmem = 0x01
} cudaEglResourceLocationFlags;
/* CUDA's colour formats are values of an int enumeration; without the interop there is nothing to name. */
#if defined(__cplusplus)
typedef enum cudaEglColorFormat_enum : int {} cudaEglColorFormat;
#else
typedef int cudaEglColorFormat;
#endif
typedef struct cudaEglPlaneDesc_st {
  unsigned int width;
  unsigned int height;
  unsigned int depth;
  unsigned int pitch;
  unsigned int numChannels;
  hipChannelFormatDesc channelDesc;
  unsigned int reserved[4];
} cudaEglPlaneDesc;
typedef struct cudaEglFrame_st {
  union {
    hipArray_t pArray[CUDA_EGL_MAX_PLANES];
    hipPitchedPtr pPitch[CUDA_EGL_MAX_PLANES];
  } frame;
  cudaEglPlaneDesc planeDesc[CUDA_EGL_MAX_PLANES];
  unsigned int planeCount;
  cudaEglFrameType frameType;
  cudaEglColorFormat eglColorFormat;
} cudaEglFrame;
typedef struct CUeglStreamConnection_st* cudaEglStreamConnection;

#define __CASSC_NO_EGL __attribute__((unavailable("CUDA's EGL interop has no HIP counterpart (HIP interoperates with OpenGL only)")))
hipError_t cudaGraphicsEGLRegisterImage(hipGraphicsResource_t* resource, EGLImageKHR image, unsigned int flags) __CASSC_NO_EGL;
hipError_t cudaEGLStreamConsumerConnect(cudaEglStreamConnection* connection, EGLStreamKHR stream) __CASSC_NO_EGL;
hipError_t cudaEGLStreamConsumerConnectWithFlags(cudaEglStreamConnection* connection, EGLStreamKHR stream,
                                                 unsigned int flags) __CASSC_NO_EGL;
hipError_t cudaEGLStreamConsumerDisconnect(cudaEglStreamConnection* connection) __CASSC_NO_EGL;
hipError_t cudaEGLStreamConsumerAcquireFrame(cudaEglStreamConnection* connection, hipGraphicsResource_t* resource,
                                             hipStream_t* stream, unsigned int timeout) __CASSC_NO_EGL;
hipError_t cudaEGLStreamConsumerReleaseFrame(cudaEglStreamConnection* connection, hipGraphicsResource_t resource,
                                             hipStream_t* stream) __CASSC_NO_EGL;
hipError_t cudaEGLStreamProducerConnect(cudaEglStreamConnection* connection, EGLStreamKHR stream, EGLint width,
                                        EGLint height) __CASSC_NO_EGL;
hipError_t cudaEGLStreamProducerDisconnect(cudaEglStreamConnection* connection) __CASSC_NO_EGL;
hipError_t cudaEGLStreamProducerPresentFrame(cudaEglStreamConnection* connection, cudaEglFrame frame,
                                             hipStream_t* stream) __CASSC_NO_EGL;
hipError_t cudaEGLStreamProducerReturnFrame(cudaEglStreamConnection* connection, cudaEglFrame* frame,
                                            hipStream_t* stream) __CASSC_NO_EGL;
hipError_t cudaGraphicsResourceGetMappedEglFrame(cudaEglFrame* frame, hipGraphicsResource_t resource, unsigned int index,
                                                 unsigned int level) __CASSC_NO_EGL;
hipError_t cudaEventCreateFromEGLSync(hipEvent_t* event, EGLSyncKHR sync, unsigned int flags) __CASSC_NO_EGL;
#undef __CASSC_NO_EGL
#endif
