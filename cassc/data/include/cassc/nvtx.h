/* cassc: NVIDIA's Tools Extension (NVTX 3: nvToolsExt.h, nvToolsExtSync.h, and the CUDA naming calls of
 * nvToolsExtCuda.h/nvToolsExtCudaRt.h), header-only as NVTX 3 is.
 *
 * NVTX's calls do nothing unless a profiler injects itself (NVTX_INJECTION64_PATH); a program run without one
 * gets the results below from NVIDIA's headers too: pushes and pops report NVTX_NO_PUSH_POP_TRACKING, range
 * starts id 0, creations null handles. That is what every call here returns on AMD GPUs: cassc's NVTX is
 * NVIDIA's without a tool attached. Types, constants and struct layouts are NVTX 3's, so code that fills
 * nvtxEventAttributes_t or tests NVTX_VERSION compiles unchanged. */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <wchar.h>

#ifndef NVTX_VERSION
#define NVTX_VERSION 3
#endif
#define NVTX_SUCCESS 0
#define NVTX_FAIL 1
#define NVTX_ERR_INIT_LOAD_PROPERTY 2
#define NVTX_ERR_INIT_ACCESS_LIBRARY 3
#define NVTX_ERR_INIT_LOAD_LIBRARY 4
#define NVTX_ERR_INIT_MISSING_LIBRARY_ENTRY_POINT 5
#define NVTX_ERR_INIT_FAILED_LIBRARY_ENTRY_POINT 6
#define NVTX_ERR_NO_INJECTION_LIBRARY_AVAILABLE 7
#define NVTX_NO_PUSH_POP_TRACKING ((int)-2)

#define CASSC_NVTX_FUNCTION static inline
#if defined(__cplusplus)
extern "C" {
#endif

typedef uint64_t nvtxRangeId_t;
typedef struct nvtxDomainRegistration_st* nvtxDomainHandle_t;
typedef struct nvtxStringRegistration_st* nvtxStringHandle_t;
typedef struct nvtxResourceHandle* nvtxResourceHandle_t;
typedef struct nvtxSyncUser* nvtxSyncUser_t;
typedef struct nvtxDomainRegistration_st nvtxDomainRegistration;
typedef struct nvtxStringRegistration_st nvtxStringRegistration;

typedef enum nvtxColorType_t { NVTX_COLOR_UNKNOWN = 0, NVTX_COLOR_ARGB = 1 } nvtxColorType_t;

typedef enum nvtxMessageType_t {
  NVTX_MESSAGE_UNKNOWN = 0,
  NVTX_MESSAGE_TYPE_ASCII = 1,
  NVTX_MESSAGE_TYPE_UNICODE = 2,
  NVTX_MESSAGE_TYPE_REGISTERED = 3
} nvtxMessageType_t;

typedef union nvtxMessageValue_t {
  const char* ascii;
  const wchar_t* unicode;
  nvtxStringHandle_t registered;
} nvtxMessageValue_t;

typedef enum nvtxPayloadType_t {
  NVTX_PAYLOAD_UNKNOWN = 0,
  NVTX_PAYLOAD_TYPE_UNSIGNED_INT64 = 1,
  NVTX_PAYLOAD_TYPE_INT64 = 2,
  NVTX_PAYLOAD_TYPE_DOUBLE = 3,
  NVTX_PAYLOAD_TYPE_UNSIGNED_INT32 = 4,
  NVTX_PAYLOAD_TYPE_INT32 = 5,
  NVTX_PAYLOAD_TYPE_FLOAT = 6
} nvtxPayloadType_t;

typedef struct nvtxEventAttributes_v2 {
  uint16_t version;
  uint16_t size;
  uint32_t category;
  int32_t colorType;
  uint32_t color;
  int32_t payloadType;
  int32_t reserved0;
  union payload_t {
    uint64_t ullValue;
    int64_t llValue;
    double dValue;
    uint32_t uiValue;
    int32_t iValue;
    float fValue;
  } payload;
  int32_t messageType;
  nvtxMessageValue_t message;
} nvtxEventAttributes_v2;
typedef struct nvtxEventAttributes_v2 nvtxEventAttributes_t;
#define NVTX_EVENT_ATTRIB_STRUCT_SIZE ((uint16_t)(sizeof(nvtxEventAttributes_t)))

typedef enum nvtxResourceGenericType_t {
  NVTX_RESOURCE_TYPE_UNKNOWN = 0,
  NVTX_RESOURCE_TYPE_GENERIC_POINTER = 65537,
  NVTX_RESOURCE_TYPE_GENERIC_HANDLE = 65538,
  NVTX_RESOURCE_TYPE_GENERIC_THREAD_NATIVE = 65539,
  NVTX_RESOURCE_TYPE_GENERIC_THREAD_POSIX = 65540
} nvtxResourceGenericType_t;

typedef struct nvtxResourceAttributes_v0 {
  uint16_t version;
  uint16_t size;
  int32_t identifierType;
  union identifier_t {
    const void* pValue;
    uint64_t ullValue;
  } identifier;
  int32_t messageType;
  nvtxMessageValue_t message;
} nvtxResourceAttributes_v0;
typedef struct nvtxResourceAttributes_v0 nvtxResourceAttributes_t;
#define NVTX_RESOURCE_ATTRIB_STRUCT_SIZE ((uint16_t)(sizeof(nvtxResourceAttributes_v0)))

typedef struct nvtxSyncUserAttributes_v0 {
  uint16_t version;
  uint16_t size;
  int32_t messageType;
  nvtxMessageValue_t message;
} nvtxSyncUserAttributes_v0;
typedef struct nvtxSyncUserAttributes_v0 nvtxSyncUserAttributes_t;
#define NVTX_SYNCUSER_ATTRIB_STRUCT_SIZE ((uint16_t)(sizeof(nvtxSyncUserAttributes_v0)))

/* nvToolsExt.h */
CASSC_NVTX_FUNCTION void nvtxInitialize(const void* reserved) { (void)reserved; }
CASSC_NVTX_FUNCTION void nvtxDomainMarkEx(nvtxDomainHandle_t domain, const nvtxEventAttributes_t* eventAttrib) {
  (void)domain, (void)eventAttrib;
}
CASSC_NVTX_FUNCTION void nvtxMarkEx(const nvtxEventAttributes_t* eventAttrib) { (void)eventAttrib; }
CASSC_NVTX_FUNCTION void nvtxMarkA(const char* message) { (void)message; }
CASSC_NVTX_FUNCTION void nvtxMarkW(const wchar_t* message) { (void)message; }
CASSC_NVTX_FUNCTION nvtxRangeId_t nvtxDomainRangeStartEx(nvtxDomainHandle_t domain,
                                                         const nvtxEventAttributes_t* eventAttrib) {
  (void)domain, (void)eventAttrib;
  return 0;
}
CASSC_NVTX_FUNCTION nvtxRangeId_t nvtxRangeStartEx(const nvtxEventAttributes_t* eventAttrib) {
  (void)eventAttrib;
  return 0;
}
CASSC_NVTX_FUNCTION nvtxRangeId_t nvtxRangeStartA(const char* message) { (void)message; return 0; }
CASSC_NVTX_FUNCTION nvtxRangeId_t nvtxRangeStartW(const wchar_t* message) { (void)message; return 0; }
CASSC_NVTX_FUNCTION void nvtxDomainRangeEnd(nvtxDomainHandle_t domain, nvtxRangeId_t id) { (void)domain, (void)id; }
CASSC_NVTX_FUNCTION void nvtxRangeEnd(nvtxRangeId_t id) { (void)id; }
CASSC_NVTX_FUNCTION int nvtxDomainRangePushEx(nvtxDomainHandle_t domain, const nvtxEventAttributes_t* eventAttrib) {
  (void)domain, (void)eventAttrib;
  return NVTX_NO_PUSH_POP_TRACKING;
}
CASSC_NVTX_FUNCTION int nvtxRangePushEx(const nvtxEventAttributes_t* eventAttrib) {
  (void)eventAttrib;
  return NVTX_NO_PUSH_POP_TRACKING;
}
CASSC_NVTX_FUNCTION int nvtxRangePushA(const char* message) { (void)message; return NVTX_NO_PUSH_POP_TRACKING; }
CASSC_NVTX_FUNCTION int nvtxRangePushW(const wchar_t* message) { (void)message; return NVTX_NO_PUSH_POP_TRACKING; }
CASSC_NVTX_FUNCTION int nvtxDomainRangePop(nvtxDomainHandle_t domain) {
  (void)domain;
  return NVTX_NO_PUSH_POP_TRACKING;
}
CASSC_NVTX_FUNCTION int nvtxRangePop(void) { return NVTX_NO_PUSH_POP_TRACKING; }
CASSC_NVTX_FUNCTION nvtxResourceHandle_t nvtxDomainResourceCreate(nvtxDomainHandle_t domain,
                                                                  nvtxResourceAttributes_t* attribs) {
  (void)domain, (void)attribs;
  return NULL;
}
CASSC_NVTX_FUNCTION void nvtxDomainResourceDestroy(nvtxResourceHandle_t resource) { (void)resource; }
CASSC_NVTX_FUNCTION void nvtxDomainNameCategoryA(nvtxDomainHandle_t domain, uint32_t category, const char* name) {
  (void)domain, (void)category, (void)name;
}
CASSC_NVTX_FUNCTION void nvtxDomainNameCategoryW(nvtxDomainHandle_t domain, uint32_t category, const wchar_t* name) {
  (void)domain, (void)category, (void)name;
}
CASSC_NVTX_FUNCTION void nvtxNameCategoryA(uint32_t category, const char* name) { (void)category, (void)name; }
CASSC_NVTX_FUNCTION void nvtxNameCategoryW(uint32_t category, const wchar_t* name) { (void)category, (void)name; }
CASSC_NVTX_FUNCTION void nvtxNameOsThreadA(uint32_t threadId, const char* name) { (void)threadId, (void)name; }
CASSC_NVTX_FUNCTION void nvtxNameOsThreadW(uint32_t threadId, const wchar_t* name) { (void)threadId, (void)name; }
CASSC_NVTX_FUNCTION nvtxStringHandle_t nvtxDomainRegisterStringA(nvtxDomainHandle_t domain, const char* string) {
  (void)domain, (void)string;
  return NULL;
}
CASSC_NVTX_FUNCTION nvtxStringHandle_t nvtxDomainRegisterStringW(nvtxDomainHandle_t domain, const wchar_t* string) {
  (void)domain, (void)string;
  return NULL;
}
CASSC_NVTX_FUNCTION nvtxDomainHandle_t nvtxDomainCreateA(const char* name) { (void)name; return NULL; }
CASSC_NVTX_FUNCTION nvtxDomainHandle_t nvtxDomainCreateW(const wchar_t* name) { (void)name; return NULL; }
CASSC_NVTX_FUNCTION void nvtxDomainDestroy(nvtxDomainHandle_t domain) { (void)domain; }

/* nvToolsExtSync.h */
CASSC_NVTX_FUNCTION nvtxSyncUser_t nvtxDomainSyncUserCreate(nvtxDomainHandle_t domain,
                                                            const nvtxSyncUserAttributes_t* attribs) {
  (void)domain, (void)attribs;
  return NULL;
}
CASSC_NVTX_FUNCTION void nvtxDomainSyncUserDestroy(nvtxSyncUser_t handle) { (void)handle; }
CASSC_NVTX_FUNCTION void nvtxDomainSyncUserAcquireStart(nvtxSyncUser_t handle) { (void)handle; }
CASSC_NVTX_FUNCTION void nvtxDomainSyncUserAcquireFailed(nvtxSyncUser_t handle) { (void)handle; }
CASSC_NVTX_FUNCTION void nvtxDomainSyncUserAcquireSuccess(nvtxSyncUser_t handle) { (void)handle; }
CASSC_NVTX_FUNCTION void nvtxDomainSyncUserReleasing(nvtxSyncUser_t handle) { (void)handle; }

/* nvToolsExtCuda.h and nvToolsExtCudaRt.h: the handles are HIP's (hipify renamed the program's CUDA types);
   pointers and integers are all they are passed as, so the runtime header is not needed here. */
CASSC_NVTX_FUNCTION void nvtxNameCuDeviceA(int device, const char* name) { (void)device, (void)name; }
CASSC_NVTX_FUNCTION void nvtxNameCuDeviceW(int device, const wchar_t* name) { (void)device, (void)name; }
CASSC_NVTX_FUNCTION void nvtxNameCuContextA(const void* context, const char* name) { (void)context, (void)name; }
CASSC_NVTX_FUNCTION void nvtxNameCuContextW(const void* context, const wchar_t* name) { (void)context, (void)name; }
CASSC_NVTX_FUNCTION void nvtxNameCuStreamA(const void* stream, const char* name) { (void)stream, (void)name; }
CASSC_NVTX_FUNCTION void nvtxNameCuStreamW(const void* stream, const wchar_t* name) { (void)stream, (void)name; }
CASSC_NVTX_FUNCTION void nvtxNameCuEventA(const void* event, const char* name) { (void)event, (void)name; }
CASSC_NVTX_FUNCTION void nvtxNameCuEventW(const void* event, const wchar_t* name) { (void)event, (void)name; }
CASSC_NVTX_FUNCTION void nvtxNameCudaDeviceA(int device, const char* name) { (void)device, (void)name; }
CASSC_NVTX_FUNCTION void nvtxNameCudaDeviceW(int device, const wchar_t* name) { (void)device, (void)name; }
CASSC_NVTX_FUNCTION void nvtxNameCudaStreamA(const void* stream, const char* name) { (void)stream, (void)name; }
CASSC_NVTX_FUNCTION void nvtxNameCudaStreamW(const void* stream, const wchar_t* name) { (void)stream, (void)name; }
CASSC_NVTX_FUNCTION void nvtxNameCudaEventA(const void* event, const char* name) { (void)event, (void)name; }
CASSC_NVTX_FUNCTION void nvtxNameCudaEventW(const void* event, const wchar_t* name) { (void)event, (void)name; }

#if defined(__cplusplus)
}
#endif
#undef CASSC_NVTX_FUNCTION

/* Each call taking a string, by its name without the A/W suffix: the wide form where UNICODE is defined. */
#ifdef UNICODE
#define nvtxMark                 nvtxMarkW
#define nvtxRangeStart           nvtxRangeStartW
#define nvtxRangePush            nvtxRangePushW
#define nvtxNameCategory         nvtxNameCategoryW
#define nvtxNameOsThread         nvtxNameOsThreadW
#define nvtxDomainCreate         nvtxDomainCreateW
#define nvtxDomainRegisterString nvtxDomainRegisterStringW
#define nvtxDomainNameCategory   nvtxDomainNameCategoryW
#define nvtxNameCuDevice         nvtxNameCuDeviceW
#define nvtxNameCuContext        nvtxNameCuContextW
#define nvtxNameCuStream         nvtxNameCuStreamW
#define nvtxNameCuEvent          nvtxNameCuEventW
#define nvtxNameCudaDevice       nvtxNameCudaDeviceW
#define nvtxNameCudaStream       nvtxNameCudaStreamW
#define nvtxNameCudaEvent        nvtxNameCudaEventW
#else
#define nvtxMark                 nvtxMarkA
#define nvtxRangeStart           nvtxRangeStartA
#define nvtxRangePush            nvtxRangePushA
#define nvtxNameCategory         nvtxNameCategoryA
#define nvtxNameOsThread         nvtxNameOsThreadA
#define nvtxDomainCreate         nvtxDomainCreateA
#define nvtxDomainRegisterString nvtxDomainRegisterStringA
#define nvtxDomainNameCategory   nvtxDomainNameCategoryA
#define nvtxNameCuDevice         nvtxNameCuDeviceA
#define nvtxNameCuContext        nvtxNameCuContextA
#define nvtxNameCuStream         nvtxNameCuStreamA
#define nvtxNameCuEvent          nvtxNameCuEventA
#define nvtxNameCudaDevice       nvtxNameCudaDeviceA
#define nvtxNameCudaStream       nvtxNameCudaStreamA
#define nvtxNameCudaEvent        nvtxNameCudaEventA
#endif
