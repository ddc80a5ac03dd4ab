// cuBLAS's legacy API (<cublas.h>) over hipBLAS, with C linkage under cuBLAS's names: the library-wide state
// the legacy routines share, and the routines, which a program links by name: configure's
// AC_CHECK_LIB(cublas, cublasInit), and host objects compiled against NVIDIA's <cublas.h> (the binary path:
// SHOC's GEMM and NeuralNet). data/include/cassc/cublas_legacy.h forwards the source path's forms here. Built
// into the stand-in toolkit's lib64/libcassc_cublas_legacy.a where hipBLAS is installed; lib64/libcublas.so
// names it together with hipBLAS. The routines take their scalars by value and transposes as characters,
// return their result, and leave their status for cublasGetError. Statuses are hipBLAS's: success is 0 in both.
#define HIPBLAS_V2  // hipComplex in hipBLAS 6's API, as cassc/cublas.h
#include <hipblas/hipblas.h>

namespace {
hipblasHandle_t legacy_handle = nullptr;
thread_local hipblasStatus_t last_error = HIPBLAS_STATUS_SUCCESS;
}  // namespace

extern "C" {
hipblasStatus_t cublasInit(void) {
  return legacy_handle != nullptr ? HIPBLAS_STATUS_SUCCESS : hipblasCreate(&legacy_handle);
}

hipblasStatus_t cublasShutdown(void) {
  if (legacy_handle == nullptr) return HIPBLAS_STATUS_NOT_INITIALIZED;
  const hipblasStatus_t status = hipblasDestroy(legacy_handle);
  legacy_handle = nullptr;
  return status;
}

// The first error since the last call, as CUDA's legacy cuBLAS reports it; reading it clears it.
hipblasStatus_t cublasGetError(void) {
  const hipblasStatus_t status = last_error;
  last_error = HIPBLAS_STATUS_SUCCESS;
  return status;
}

hipblasHandle_t __cassc_cublas_legacy_handle(void) { return legacy_handle; }

void __cassc_cublas_legacy_status(hipblasStatus_t status) {
  if (status != HIPBLAS_STATUS_SUCCESS && last_error == HIPBLAS_STATUS_SUCCESS) last_error = status;
}
}

namespace {
hipblasOperation_t operation(char trans) {
  return trans == 'T' || trans == 't' ? HIPBLAS_OP_T : trans == 'C' || trans == 'c' ? HIPBLAS_OP_C : HIPBLAS_OP_N;
}
}  // namespace

#define CASSC_LEGACY_REAL(P, p, T)                                                                            \
  void cublas##P##axpy(int n, T alpha, const T* x, int incx, T* y, int incy) {                                \
    __cassc_cublas_legacy_status(hipblas##P##axpy(legacy_handle, n, &alpha, x, incx, y, incy));               \
  }                                                                                                           \
  void cublas##P##scal(int n, T alpha, T* x, int incx) {                                                      \
    __cassc_cublas_legacy_status(hipblas##P##scal(legacy_handle, n, &alpha, x, incx));                        \
  }                                                                                                           \
  void cublas##P##copy(int n, const T* x, int incx, T* y, int incy) {                                         \
    __cassc_cublas_legacy_status(hipblas##P##copy(legacy_handle, n, x, incx, y, incy));                       \
  }                                                                                                           \
  void cublas##P##swap(int n, T* x, int incx, T* y, int incy) {                                               \
    __cassc_cublas_legacy_status(hipblas##P##swap(legacy_handle, n, x, incx, y, incy));                       \
  }                                                                                                           \
  T cublas##P##dot(int n, const T* x, int incx, const T* y, int incy) {                                       \
    T result = 0;                                                                                             \
    __cassc_cublas_legacy_status(hipblas##P##dot(legacy_handle, n, x, incx, y, incy, &result));               \
    return result;                                                                                            \
  }                                                                                                           \
  T cublas##P##nrm2(int n, const T* x, int incx) {                                                            \
    T result = 0;                                                                                             \
    __cassc_cublas_legacy_status(hipblas##P##nrm2(legacy_handle, n, x, incx, &result));                      \
    return result;                                                                                            \
  }                                                                                                           \
  T cublas##P##asum(int n, const T* x, int incx) {                                                            \
    T result = 0;                                                                                             \
    __cassc_cublas_legacy_status(hipblas##P##asum(legacy_handle, n, x, incx, &result));                       \
    return result;                                                                                            \
  }                                                                                                           \
  int cublasI##p##amax(int n, const T* x, int incx) {                                                         \
    int result = 0;                                                                                           \
    __cassc_cublas_legacy_status(hipblasI##p##amax(legacy_handle, n, x, incx, &result));                      \
    return result;                                                                                            \
  }                                                                                                           \
  int cublasI##p##amin(int n, const T* x, int incx) {                                                         \
    int result = 0;                                                                                           \
    __cassc_cublas_legacy_status(hipblasI##p##amin(legacy_handle, n, x, incx, &result));                      \
    return result;                                                                                            \
  }                                                                                                           \
  void cublas##P##gemv(char trans, int m, int n, T alpha, const T* a, int lda, const T* x, int incx, T beta,  \
                       T* y, int incy) {                                                                      \
    __cassc_cublas_legacy_status(hipblas##P##gemv(legacy_handle, operation(trans), m, n, &alpha, a, lda, x,   \
                                                  incx, &beta, y, incy));                                     \
  }
#define CASSC_LEGACY_GEMM(P, T)                                                                               \
  void cublas##P##gemm(char transa, char transb, int m, int n, int k, T alpha, const T* a, int lda,            \
                       const T* b, int ldb, T beta, T* c, int ldc) {                                          \
    __cassc_cublas_legacy_status(hipblas##P##gemm(legacy_handle, operation(transa), operation(transb), m, n, k, \
                                                  &alpha, a, lda, b, ldb, &beta, c, ldc));                    \
  }

extern "C" {
CASSC_LEGACY_REAL(S, s, float)
CASSC_LEGACY_REAL(D, d, double)
// cuComplex and cuDoubleComplex are float2/double2 by value, as hipComplex/hipDoubleComplex
CASSC_LEGACY_GEMM(S, float)
CASSC_LEGACY_GEMM(D, double)
CASSC_LEGACY_GEMM(C, hipComplex)
CASSC_LEGACY_GEMM(Z, hipDoubleComplex)
}
