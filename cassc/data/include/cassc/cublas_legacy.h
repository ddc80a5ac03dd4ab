/* cassc: <cublas.h>, cuBLAS's legacy API (still in CUDA 13), over hipBLAS.
 *
 * One library-wide hipBLAS handle, made by cublasInit (lib64/libcassc_cublas_legacy.a, which the stand-in's
 * libcublas names with hipBLAS: configure scripts link cublasInit by name). Legacy routines take their
 * scalars by value and transposes as characters, return their result, and leave their status for
 * cublasGetError. hipify renames cublasSgemm... to hipBLAS's v2 names, so the legacy forms here are C++
 * overloads of those; every legacy form has fewer parameters than its v2 form (no handle), so a call is
 * never ambiguous. Provided: S/D axpy, scal, copy, swap, dot, nrm2, asum, amax, amin, gemv, gemm; C/Z gemm. */
#pragma once
#include <cassc/cublas.h>

extern "C" {
hipblasStatus_t cublasInit(void);
hipblasStatus_t cublasShutdown(void);
hipblasStatus_t cublasGetError(void);
hipblasHandle_t __cassc_cublas_legacy_handle(void);
void __cassc_cublas_legacy_status(hipblasStatus_t status);
}

static inline hipblasStatus_t cublasAlloc(int n, int elemSize, void** pointer) {
  return hipMalloc(pointer, static_cast<size_t>(n) * static_cast<size_t>(elemSize)) == hipSuccess
             ? HIPBLAS_STATUS_SUCCESS : HIPBLAS_STATUS_ALLOC_FAILED;
}
static inline hipblasStatus_t cublasFree(void* pointer) {
  return hipFree(pointer) == hipSuccess ? HIPBLAS_STATUS_SUCCESS : HIPBLAS_STATUS_INTERNAL_ERROR;
}
static inline hipblasStatus_t cublasSetKernelStream(hipStream_t stream) {
  return hipblasSetStream(__cassc_cublas_legacy_handle(), stream);
}
static inline hipblasOperation_t __cassc_cublas_operation(char trans) {
  return trans == 'T' || trans == 't' ? HIPBLAS_OP_T : trans == 'C' || trans == 'c' ? HIPBLAS_OP_C : HIPBLAS_OP_N;
}

#define __CASSC_LEGACY_REAL(P, p, T)                                                                           \
  static inline void hipblas##P##axpy(int n, T alpha, const T* x, int incx, T* y, int incy) {                 \
    __cassc_cublas_legacy_status(hipblas##P##axpy(__cassc_cublas_legacy_handle(), n, &alpha, x, incx, y, incy)); \
  }                                                                                                           \
  static inline void hipblas##P##scal(int n, T alpha, T* x, int incx) {                                       \
    __cassc_cublas_legacy_status(hipblas##P##scal(__cassc_cublas_legacy_handle(), n, &alpha, x, incx));      \
  }                                                                                                           \
  static inline void hipblas##P##copy(int n, const T* x, int incx, T* y, int incy) {                          \
    __cassc_cublas_legacy_status(hipblas##P##copy(__cassc_cublas_legacy_handle(), n, x, incx, y, incy));     \
  }                                                                                                           \
  static inline void hipblas##P##swap(int n, T* x, int incx, T* y, int incy) {                                \
    __cassc_cublas_legacy_status(hipblas##P##swap(__cassc_cublas_legacy_handle(), n, x, incx, y, incy));     \
  }                                                                                                           \
  static inline T hipblas##P##dot(int n, const T* x, int incx, const T* y, int incy) {                        \
    T result = 0;                                                                                             \
    __cassc_cublas_legacy_status(hipblas##P##dot(__cassc_cublas_legacy_handle(), n, x, incx, y, incy, &result)); \
    return result;                                                                                            \
  }                                                                                                           \
  static inline T hipblas##P##nrm2(int n, const T* x, int incx) {                                             \
    T result = 0;                                                                                             \
    __cassc_cublas_legacy_status(hipblas##P##nrm2(__cassc_cublas_legacy_handle(), n, x, incx, &result));     \
    return result;                                                                                            \
  }                                                                                                           \
  static inline T hipblas##P##asum(int n, const T* x, int incx) {                                             \
    T result = 0;                                                                                             \
    __cassc_cublas_legacy_status(hipblas##P##asum(__cassc_cublas_legacy_handle(), n, x, incx, &result));     \
    return result;                                                                                            \
  }                                                                                                           \
  static inline int hipblasI##p##amax(int n, const T* x, int incx) {                                          \
    int result = 0;                                                                                           \
    __cassc_cublas_legacy_status(hipblasI##p##amax(__cassc_cublas_legacy_handle(), n, x, incx, &result));    \
    return result;                                                                                            \
  }                                                                                                           \
  static inline int hipblasI##p##amin(int n, const T* x, int incx) {                                          \
    int result = 0;                                                                                           \
    __cassc_cublas_legacy_status(hipblasI##p##amin(__cassc_cublas_legacy_handle(), n, x, incx, &result));    \
    return result;                                                                                            \
  }                                                                                                           \
  static inline void hipblas##P##gemv(char trans, int m, int n, T alpha, const T* a, int lda, const T* x,     \
                                      int incx, T beta, T* y, int incy) {                                     \
    __cassc_cublas_legacy_status(hipblas##P##gemv(__cassc_cublas_legacy_handle(), __cassc_cublas_operation(trans), \
                                                  m, n, &alpha, a, lda, x, incx, &beta, y, incy));           \
  }
#define __CASSC_LEGACY_GEMM(P, T)                                                                              \
  static inline void hipblas##P##gemm(char transa, char transb, int m, int n, int k, T alpha, const T* a,      \
                                      int lda, const T* b, int ldb, T beta, T* c, int ldc) {                   \
    __cassc_cublas_legacy_status(hipblas##P##gemm(__cassc_cublas_legacy_handle(), __cassc_cublas_operation(transa), \
                                                  __cassc_cublas_operation(transb), m, n, k, &alpha, a, lda, b, \
                                                  ldb, &beta, c, ldc));                                        \
  }
__CASSC_LEGACY_REAL(S, s, float)
__CASSC_LEGACY_REAL(D, d, double)
__CASSC_LEGACY_GEMM(S, float)
__CASSC_LEGACY_GEMM(D, double)
__CASSC_LEGACY_GEMM(C, hipComplex)
__CASSC_LEGACY_GEMM(Z, hipDoubleComplex)
#undef __CASSC_LEGACY_REAL
#undef __CASSC_LEGACY_GEMM
