/* cassc: <cublas.h>, cuBLAS's legacy API (still in CUDA 13), over hipBLAS.
 *
 * One library-wide hipBLAS handle, made by cublasInit, and the routines, in lib64/libcassc_cublas_legacy.a
 * (shims/toolkit/cublas_legacy.cpp), which the stand-in's libcublas names with hipBLAS: configure scripts and
 * host objects built against NVIDIA's <cublas.h> link them by name. Legacy routines take their scalars by value
 * and transposes as characters, return their result, and leave their status for cublasGetError. Provided: S/D
 * axpy, scal, copy, swap, dot, nrm2, asum, amax, amin, gemv, gemm; C/Z gemm. */
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
// The routines are the archive's, under cuBLAS's names with C linkage (what host objects nvcc compiled against
// NVIDIA's <cublas.h> call), declared here under names of cassc's with those symbols (the stand-in toolkit's
// cassc_cuda_names.h renames cublasSaxpy... to hipBLAS's names as macros). hipify gives source code hipBLAS's v2
// names, so the forms here are overloads of those that forward to the archive's. Each has fewer parameters than
// its v2 form (no handle): never ambiguous.
#define __CASSC_LEGACY(R, name, params) R __cassc_legacy_##name params __asm__("cublas" #name);
#define __CASSC_LEGACY_REAL(P, p, T)                                                                           \
  __CASSC_LEGACY(void, P##axpy, (int, T, const T*, int, T*, int))                                              \
  __CASSC_LEGACY(void, P##scal, (int, T, T*, int))                                                             \
  __CASSC_LEGACY(void, P##copy, (int, const T*, int, T*, int))                                                 \
  __CASSC_LEGACY(void, P##swap, (int, T*, int, T*, int))                                                       \
  __CASSC_LEGACY(T, P##dot, (int, const T*, int, const T*, int))                                               \
  __CASSC_LEGACY(T, P##nrm2, (int, const T*, int))                                                             \
  __CASSC_LEGACY(T, P##asum, (int, const T*, int))                                                             \
  __CASSC_LEGACY(int, I##p##amax, (int, const T*, int))                                                        \
  __CASSC_LEGACY(int, I##p##amin, (int, const T*, int))                                                        \
  __CASSC_LEGACY(void, P##gemv, (char, int, int, T, const T*, int, const T*, int, T, T*, int))
#define __CASSC_LEGACY_GEMM(P, T) \
  __CASSC_LEGACY(void, P##gemm, (char, char, int, int, int, T, const T*, int, const T*, int, T, T*, int))
extern "C" {
__CASSC_LEGACY_REAL(S, s, float)
__CASSC_LEGACY_REAL(D, d, double)
__CASSC_LEGACY_GEMM(S, float)
__CASSC_LEGACY_GEMM(D, double)
__CASSC_LEGACY_GEMM(C, hipComplex)
__CASSC_LEGACY_GEMM(Z, hipDoubleComplex)
}
#undef __CASSC_LEGACY
#undef __CASSC_LEGACY_REAL
#undef __CASSC_LEGACY_GEMM

#define __CASSC_FORWARD(R, name, legacy, params, args) \
  static inline R name params { return __cassc_legacy_##legacy args; }
#define __CASSC_LEGACY_REAL(P, p, T)                                                                             \
  __CASSC_FORWARD(void, hipblas##P##axpy, P##axpy, (int n, T alpha, const T* x, int incx, T* y, int incy), \
                  (n, alpha, x, incx, y, incy))                                                                  \
  __CASSC_FORWARD(void, hipblas##P##scal, P##scal, (int n, T alpha, T* x, int incx), (n, alpha, x, incx)) \
  __CASSC_FORWARD(void, hipblas##P##copy, P##copy, (int n, const T* x, int incx, T* y, int incy),         \
                  (n, x, incx, y, incy))                                                                         \
  __CASSC_FORWARD(void, hipblas##P##swap, P##swap, (int n, T* x, int incx, T* y, int incy),               \
                  (n, x, incx, y, incy))                                                                         \
  __CASSC_FORWARD(T, hipblas##P##dot, P##dot, (int n, const T* x, int incx, const T* y, int incy),        \
                  (n, x, incx, y, incy))                                                                         \
  __CASSC_FORWARD(T, hipblas##P##nrm2, P##nrm2, (int n, const T* x, int incx), (n, x, incx))              \
  __CASSC_FORWARD(T, hipblas##P##asum, P##asum, (int n, const T* x, int incx), (n, x, incx))              \
  __CASSC_FORWARD(int, hipblasI##p##amax, I##p##amax, (int n, const T* x, int incx), (n, x, incx))          \
  __CASSC_FORWARD(int, hipblasI##p##amin, I##p##amin, (int n, const T* x, int incx), (n, x, incx))          \
  __CASSC_FORWARD(void, hipblas##P##gemv, P##gemv, (char trans, int m, int n, T alpha, const T* a,        \
                  int lda, const T* x, int incx, T beta, T* y, int incy),                                        \
                  (trans, m, n, alpha, a, lda, x, incx, beta, y, incy))
#define __CASSC_LEGACY_GEMM(P, T)                                                                                \
  __CASSC_FORWARD(void, hipblas##P##gemm, P##gemm, (char transa, char transb, int m, int n, int k,       \
                  T alpha, const T* a, int lda, const T* b, int ldb, T beta, T* c, int ldc),                     \
                  (transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc))
__CASSC_LEGACY_REAL(S, s, float)
__CASSC_LEGACY_REAL(D, d, double)
__CASSC_LEGACY_GEMM(S, float)
__CASSC_LEGACY_GEMM(D, double)
__CASSC_LEGACY_GEMM(C, hipComplex)
__CASSC_LEGACY_GEMM(Z, hipDoubleComplex)
#undef __CASSC_LEGACY_REAL
#undef __CASSC_LEGACY_GEMM
#undef __CASSC_FORWARD
