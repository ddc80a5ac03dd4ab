/* cassc: <cublasLt.h> -> hipBLASLt. hipBLASLt mirrors cuBLASLt's handle API; what it lacks is adapted here,
   and the cublasLt.tsv rows name these adapters:

   - cuBLASLt's in-place API (cublasLtMatmulDescInit, cublasLtMatrixLayoutInit, cublasLtMatmulPreferenceInit,
     cublasLtMatrixTransformDescInit) builds a descriptor inside user storage of type cublasLt*Opaque_t.
     hipBLASLt's descriptors live only on its heap (its *Opaque_t types are nominal), so the storage types
     here hold the handle that hipBLASLt's Create made, and destroy it when the storage goes: the user never
     destroys an Init-ed descriptor, under CUDA as here. Storage cannot be copied (CUDA's may be: a copied
     handle would be destroyed twice).
   - every function that takes descriptors accepts a handle or the address of such storage.
   - CUBLASLT_MATMUL_DESC_FAST_ACCUM: CUDA's permission to accumulate fp8 products at lower precision
     ("might be faster ... at the cost of lower accuracy"). hipBLASLt has no such mode and always
     accumulates at full precision, which the permission allows: setting it succeeds, and reading it
     back reports 0, the mode hipBLASLt runs.
   - CUBLASLT_MATMUL_DESC_COMPUTE_TYPE and _SCALE_TYPE: hipBLASLt fixes both when it creates the descriptor
     and has no attribute for them. Descriptors made through cassc's Create/Init (C++) remember them: reading
     answers them, and setting the value the descriptor already has succeeds (what programs do to state the
     scale type explicitly); another value is HIPBLAS_STATUS_NOT_SUPPORTED. */
#pragma once
#include <hipblaslt/hipblaslt.h>

/* Outside hipBLASLt's attribute values (its enumerators stay below 128, the range the enum can hold). */
static const hipblasLtMatmulDescAttributes_t __cassc_CUBLASLT_MATMUL_DESC_FAST_ACCUM =
    (hipblasLtMatmulDescAttributes_t)127;
static const hipblasLtMatmulDescAttributes_t __cassc_CUBLASLT_MATMUL_DESC_COMPUTE_TYPE =
    (hipblasLtMatmulDescAttributes_t)126;
static const hipblasLtMatmulDescAttributes_t __cassc_CUBLASLT_MATMUL_DESC_SCALE_TYPE =
    (hipblasLtMatmulDescAttributes_t)125;

#if defined(__cplusplus)
#include <map>
#include <mutex>

/* The compute and scale type of each live descriptor cassc's Create/Init made (one table per program: an
   inline function's static is one object across translation units). */
struct __cassc_lt_types {
  int32_t compute, scale;
};
inline std::map<hipblasLtMatmulDesc_t, __cassc_lt_types>& __cassc_lt_created(std::unique_lock<std::mutex>& hold) {
  static std::mutex lock;
  static std::map<hipblasLtMatmulDesc_t, __cassc_lt_types> created;
  hold = std::unique_lock<std::mutex>(lock);
  return created;
}
inline hipblasStatus_t __cassc_cublasLtMatmulDescCreate(hipblasLtMatmulDesc_t* matmulDesc,
                                                        hipblasComputeType_t computeType, hipDataType scaleType) {
  hipblasStatus_t status = hipblasLtMatmulDescCreate(matmulDesc, computeType, scaleType);
  if (status == HIPBLAS_STATUS_SUCCESS) {
    std::unique_lock<std::mutex> hold;
    __cassc_lt_created(hold)[*matmulDesc] = {(int32_t)computeType, (int32_t)scaleType};
  }
  return status;
}
inline hipblasStatus_t __cassc_cublasLtMatmulDescDestroy(hipblasLtMatmulDesc_t matmulDesc) {
  {
    std::unique_lock<std::mutex> hold;
    __cassc_lt_created(hold).erase(matmulDesc);
  }
  return hipblasLtMatmulDescDestroy(matmulDesc);
}
/* The remembered type `attr` names, or false where the descriptor was not made by cassc. */
inline bool __cassc_lt_type(hipblasLtMatmulDesc_t matmulDesc, hipblasLtMatmulDescAttributes_t attr, int32_t* type) {
  std::unique_lock<std::mutex> hold;
  auto& created = __cassc_lt_created(hold);
  auto found = created.find(matmulDesc);
  if (found == created.end()) return false;
  *type = attr == __cassc_CUBLASLT_MATMUL_DESC_COMPUTE_TYPE ? found->second.compute : found->second.scale;
  return true;
}

inline hipblasStatus_t __cassc_lt_destroy(hipblasLtMatmulDesc_t d) { return __cassc_cublasLtMatmulDescDestroy(d); }
inline hipblasStatus_t __cassc_lt_destroy(hipblasLtMatrixLayout_t d) { return hipblasLtMatrixLayoutDestroy(d); }
inline hipblasStatus_t __cassc_lt_destroy(hipblasLtMatmulPreference_t d) { return hipblasLtMatmulPreferenceDestroy(d); }
inline hipblasStatus_t __cassc_lt_destroy(hipblasLtMatrixTransformDesc_t d) { return hipblasLtMatrixTransformDescDestroy(d); }

template <class Handle> struct __cassc_lt_storage {
  Handle handle = nullptr;
  __cassc_lt_storage() = default;
  __cassc_lt_storage(const __cassc_lt_storage&) = delete;
  __cassc_lt_storage& operator=(const __cassc_lt_storage&) = delete;
  ~__cassc_lt_storage() { release(); }
  void release() {
    if (handle) __cassc_lt_destroy(handle);
    handle = nullptr;
  }
};

/* A descriptor argument: a handle, or storage an Init function filled. The storage constructor is a
   template so that NULL, 0 and nullptr stay handles. */
template <class Handle> struct __cassc_lt_arg {
  Handle handle;
  __cassc_lt_arg(Handle h) : handle(h) {}
  template <class Same> __cassc_lt_arg(__cassc_lt_storage<Same>* storage) : handle(storage->handle) {}
};

typedef __cassc_lt_storage<hipblasLtMatmulDesc_t> __cassc_cublasLtMatmulDescOpaque_t;
typedef __cassc_lt_storage<hipblasLtMatrixLayout_t> __cassc_cublasLtMatrixLayoutOpaque_t;
typedef __cassc_lt_storage<hipblasLtMatmulPreference_t> __cassc_cublasLtMatmulPreferenceOpaque_t;
typedef __cassc_lt_storage<hipblasLtMatrixTransformDesc_t> __cassc_cublasLtMatrixTransformDescOpaque_t;
typedef __cassc_lt_arg<hipblasLtMatmulDesc_t> __cassc_lt_matmul_desc;
typedef __cassc_lt_arg<hipblasLtMatrixLayout_t> __cassc_lt_layout;
typedef __cassc_lt_arg<hipblasLtMatmulPreference_t> __cassc_lt_preference;
typedef __cassc_lt_arg<hipblasLtMatrixTransformDesc_t> __cassc_lt_transform_desc;
#define __CASSC_LT_HANDLE(argument) (argument).handle

inline hipblasStatus_t __cassc_cublasLtMatmulDescInit(__cassc_cublasLtMatmulDescOpaque_t* storage,
                                                      hipblasComputeType_t computeType, hipDataType scaleType) {
  storage->release();
  return __cassc_cublasLtMatmulDescCreate(&storage->handle, computeType, scaleType);
}
inline hipblasStatus_t __cassc_cublasLtMatrixLayoutInit(__cassc_cublasLtMatrixLayoutOpaque_t* storage, hipDataType type,
                                                        uint64_t rows, uint64_t cols, int64_t ld) {
  storage->release();
  return hipblasLtMatrixLayoutCreate(&storage->handle, type, rows, cols, ld);
}
inline hipblasStatus_t __cassc_cublasLtMatmulPreferenceInit(__cassc_cublasLtMatmulPreferenceOpaque_t* storage) {
  storage->release();
  return hipblasLtMatmulPreferenceCreate(&storage->handle);
}
inline hipblasStatus_t __cassc_cublasLtMatrixTransformDescInit(__cassc_cublasLtMatrixTransformDescOpaque_t* storage,
                                                               hipDataType scaleType) {
  storage->release();
  return hipblasLtMatrixTransformDescCreate(&storage->handle, scaleType);
}
#else
/* C has no storage adapters (the Init functions stay undeclared there): arguments are handles, and descriptors
   are hipBLASLt's own (their compute and scale types are not remembered). */
static inline hipblasStatus_t __cassc_cublasLtMatmulDescCreate(hipblasLtMatmulDesc_t* matmulDesc,
                                                               hipblasComputeType_t computeType,
                                                               hipDataType scaleType) {
  return hipblasLtMatmulDescCreate(matmulDesc, computeType, scaleType);
}
static inline hipblasStatus_t __cassc_cublasLtMatmulDescDestroy(hipblasLtMatmulDesc_t matmulDesc) {
  return hipblasLtMatmulDescDestroy(matmulDesc);
}
typedef hipblasLtMatmulDesc_t __cassc_lt_matmul_desc;
typedef hipblasLtMatrixLayout_t __cassc_lt_layout;
typedef hipblasLtMatmulPreference_t __cassc_lt_preference;
typedef hipblasLtMatrixTransformDesc_t __cassc_lt_transform_desc;
#define __CASSC_LT_HANDLE(argument) (argument)
#endif

static inline hipblasStatus_t __cassc_cublasLtMatmulDescSetAttribute(__cassc_lt_matmul_desc matmulDesc,
                                                                     hipblasLtMatmulDescAttributes_t attr,
                                                                     const void* buf, size_t sizeInBytes) {
  if (attr == __cassc_CUBLASLT_MATMUL_DESC_FAST_ACCUM)
    return buf != NULL && sizeInBytes == sizeof(int8_t) ? HIPBLAS_STATUS_SUCCESS : HIPBLAS_STATUS_INVALID_VALUE;
  if (attr == __cassc_CUBLASLT_MATMUL_DESC_COMPUTE_TYPE || attr == __cassc_CUBLASLT_MATMUL_DESC_SCALE_TYPE) {
    if (buf == NULL || sizeInBytes != sizeof(int32_t)) return HIPBLAS_STATUS_INVALID_VALUE;
#if defined(__cplusplus)
    int32_t type;
    if (__cassc_lt_type(__CASSC_LT_HANDLE(matmulDesc), attr, &type) && type == *(const int32_t*)buf)
      return HIPBLAS_STATUS_SUCCESS;
#endif
    return HIPBLAS_STATUS_NOT_SUPPORTED;
  }
  return hipblasLtMatmulDescSetAttribute(__CASSC_LT_HANDLE(matmulDesc), attr, buf, sizeInBytes);
}
static inline hipblasStatus_t __cassc_cublasLtMatmulDescGetAttribute(__cassc_lt_matmul_desc matmulDesc,
                                                                     hipblasLtMatmulDescAttributes_t attr, void* buf,
                                                                     size_t sizeInBytes, size_t* sizeWritten) {
  if (attr == __cassc_CUBLASLT_MATMUL_DESC_FAST_ACCUM) {
    if (sizeWritten != NULL) *sizeWritten = sizeof(int8_t);
    if (sizeInBytes == 0 && sizeWritten != NULL) return HIPBLAS_STATUS_SUCCESS;  /* a size query */
    if (buf == NULL || sizeInBytes != sizeof(int8_t)) return HIPBLAS_STATUS_INVALID_VALUE;
    *(int8_t*)buf = 0;
    return HIPBLAS_STATUS_SUCCESS;
  }
  if (attr == __cassc_CUBLASLT_MATMUL_DESC_COMPUTE_TYPE || attr == __cassc_CUBLASLT_MATMUL_DESC_SCALE_TYPE) {
    if (sizeWritten != NULL) *sizeWritten = sizeof(int32_t);
    if (sizeInBytes == 0 && sizeWritten != NULL) return HIPBLAS_STATUS_SUCCESS;  /* a size query */
    if (buf == NULL || sizeInBytes != sizeof(int32_t)) return HIPBLAS_STATUS_INVALID_VALUE;
#if defined(__cplusplus)
    if (__cassc_lt_type(__CASSC_LT_HANDLE(matmulDesc), attr, (int32_t*)buf)) return HIPBLAS_STATUS_SUCCESS;
#endif
    return HIPBLAS_STATUS_NOT_SUPPORTED;
  }
  return hipblasLtMatmulDescGetAttribute(__CASSC_LT_HANDLE(matmulDesc), attr, buf, sizeInBytes, sizeWritten);
}
static inline hipblasStatus_t __cassc_cublasLtMatrixLayoutSetAttribute(__cassc_lt_layout matLayout,
                                                                       hipblasLtMatrixLayoutAttribute_t attr,
                                                                       const void* buf, size_t sizeInBytes) {
  return hipblasLtMatrixLayoutSetAttribute(__CASSC_LT_HANDLE(matLayout), attr, buf, sizeInBytes);
}
static inline hipblasStatus_t __cassc_cublasLtMatrixLayoutGetAttribute(__cassc_lt_layout matLayout,
                                                                       hipblasLtMatrixLayoutAttribute_t attr, void* buf,
                                                                       size_t sizeInBytes, size_t* sizeWritten) {
  return hipblasLtMatrixLayoutGetAttribute(__CASSC_LT_HANDLE(matLayout), attr, buf, sizeInBytes, sizeWritten);
}
static inline hipblasStatus_t __cassc_cublasLtMatmulPreferenceSetAttribute(__cassc_lt_preference pref,
                                                                           hipblasLtMatmulPreferenceAttributes_t attr,
                                                                           const void* buf, size_t sizeInBytes) {
  return hipblasLtMatmulPreferenceSetAttribute(__CASSC_LT_HANDLE(pref), attr, buf, sizeInBytes);
}
static inline hipblasStatus_t __cassc_cublasLtMatmulPreferenceGetAttribute(__cassc_lt_preference pref,
                                                                           hipblasLtMatmulPreferenceAttributes_t attr,
                                                                           void* buf, size_t sizeInBytes,
                                                                           size_t* sizeWritten) {
  return hipblasLtMatmulPreferenceGetAttribute(__CASSC_LT_HANDLE(pref), attr, buf, sizeInBytes, sizeWritten);
}
static inline hipblasStatus_t __cassc_cublasLtMatrixTransformDescSetAttribute(
    __cassc_lt_transform_desc transformDesc, hipblasLtMatrixTransformDescAttributes_t attr, const void* buf,
    size_t sizeInBytes) {
  return hipblasLtMatrixTransformDescSetAttribute(__CASSC_LT_HANDLE(transformDesc), attr, buf, sizeInBytes);
}
static inline hipblasStatus_t __cassc_cublasLtMatrixTransformDescGetAttribute(
    __cassc_lt_transform_desc transformDesc, hipblasLtMatrixTransformDescAttributes_t attr, void* buf,
    size_t sizeInBytes, size_t* sizeWritten) {
  return hipblasLtMatrixTransformDescGetAttribute(__CASSC_LT_HANDLE(transformDesc), attr, buf, sizeInBytes,
                                                  sizeWritten);
}
static inline hipblasStatus_t __cassc_cublasLtMatmulAlgoGetHeuristic(
    hipblasLtHandle_t handle, __cassc_lt_matmul_desc matmulDesc, __cassc_lt_layout Adesc, __cassc_lt_layout Bdesc,
    __cassc_lt_layout Cdesc, __cassc_lt_layout Ddesc, __cassc_lt_preference pref, int requestedAlgoCount,
    hipblasLtMatmulHeuristicResult_t heuristicResultsArray[], int* returnAlgoCount) {
  return hipblasLtMatmulAlgoGetHeuristic(handle, __CASSC_LT_HANDLE(matmulDesc), __CASSC_LT_HANDLE(Adesc),
                                         __CASSC_LT_HANDLE(Bdesc), __CASSC_LT_HANDLE(Cdesc), __CASSC_LT_HANDLE(Ddesc),
                                         __CASSC_LT_HANDLE(pref), requestedAlgoCount, heuristicResultsArray,
                                         returnAlgoCount);
}
static inline hipblasStatus_t __cassc_cublasLtMatmul(hipblasLtHandle_t handle, __cassc_lt_matmul_desc matmulDesc,
                                                     const void* alpha, const void* A, __cassc_lt_layout Adesc,
                                                     const void* B, __cassc_lt_layout Bdesc, const void* beta,
                                                     const void* C, __cassc_lt_layout Cdesc, void* D,
                                                     __cassc_lt_layout Ddesc, const hipblasLtMatmulAlgo_t* algo,
                                                     void* workspace, size_t workspaceSizeInBytes,
                                                     hipStream_t stream) {
  return hipblasLtMatmul(handle, __CASSC_LT_HANDLE(matmulDesc), alpha, A, __CASSC_LT_HANDLE(Adesc), B,
                         __CASSC_LT_HANDLE(Bdesc), beta, C, __CASSC_LT_HANDLE(Cdesc), D, __CASSC_LT_HANDLE(Ddesc),
                         algo, workspace, workspaceSizeInBytes, stream);
}
static inline hipblasStatus_t __cassc_cublasLtMatrixTransform(hipblasLtHandle_t lightHandle,
                                                              __cassc_lt_transform_desc transformDesc,
                                                              const void* alpha, const void* A, __cassc_lt_layout Adesc,
                                                              const void* beta, const void* B, __cassc_lt_layout Bdesc,
                                                              void* C, __cassc_lt_layout Cdesc, hipStream_t stream) {
  return hipblasLtMatrixTransform(lightHandle, __CASSC_LT_HANDLE(transformDesc), alpha, A, __CASSC_LT_HANDLE(Adesc),
                                  beta, B, __CASSC_LT_HANDLE(Bdesc), C, __CASSC_LT_HANDLE(Cdesc), stream);
}
#undef __CASSC_LT_HANDLE
