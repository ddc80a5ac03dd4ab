// cuBLAS's legacy API (<cublas.h>) over hipBLAS: the library-wide state the legacy routines share. The
// routines themselves are inline in data/include/cassc/cublas_legacy.h; these are the functions with C
// linkage that a program (or configure's AC_CHECK_LIB(cublas, cublasInit)) links by name. Built into the
// stand-in toolkit's lib64/libcassc_cublas_legacy.a where hipBLAS is installed; lib64/libcublas.so names
// it together with hipBLAS.
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
