/* cassc: <cusparse.h> -> hipSPARSE, plus the cuSPARSE host API that hipSPARSE 5.x lacks. */
#pragma once
/* hipSPARSE takes CUDART_VERSION to mean "NVIDIA platform"; cassc defines it for CUDA code. */
#pragma push_macro("CUDART_VERSION")
#undef CUDART_VERSION
#include <hipsparse/hipsparse.h>
#pragma pop_macro("CUDART_VERSION")

static inline const char* cusparseGetErrorName(hipsparseStatus_t status) {
  switch (status) {
    case HIPSPARSE_STATUS_SUCCESS: return "CUSPARSE_STATUS_SUCCESS";
    case HIPSPARSE_STATUS_NOT_INITIALIZED: return "CUSPARSE_STATUS_NOT_INITIALIZED";
    case HIPSPARSE_STATUS_ALLOC_FAILED: return "CUSPARSE_STATUS_ALLOC_FAILED";
    case HIPSPARSE_STATUS_INVALID_VALUE: return "CUSPARSE_STATUS_INVALID_VALUE";
    case HIPSPARSE_STATUS_ARCH_MISMATCH: return "CUSPARSE_STATUS_ARCH_MISMATCH";
    case HIPSPARSE_STATUS_MAPPING_ERROR: return "CUSPARSE_STATUS_MAPPING_ERROR";
    case HIPSPARSE_STATUS_EXECUTION_FAILED: return "CUSPARSE_STATUS_EXECUTION_FAILED";
    case HIPSPARSE_STATUS_INTERNAL_ERROR: return "CUSPARSE_STATUS_INTERNAL_ERROR";
    case HIPSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED: return "CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED";
    case HIPSPARSE_STATUS_ZERO_PIVOT: return "CUSPARSE_STATUS_ZERO_PIVOT";
    case HIPSPARSE_STATUS_NOT_SUPPORTED: return "CUSPARSE_STATUS_NOT_SUPPORTED";
    case HIPSPARSE_STATUS_INSUFFICIENT_RESOURCES: return "CUSPARSE_STATUS_INSUFFICIENT_RESOURCES";
    default: return "CUSPARSE_STATUS_UNKNOWN";
  }
}

/* cuSPARSE's wording for each status, as cusparseGetErrorString returns it. */
static inline const char* cusparseGetErrorString(hipsparseStatus_t status) {
  switch (status) {
    case HIPSPARSE_STATUS_SUCCESS: return "success";
    case HIPSPARSE_STATUS_NOT_INITIALIZED: return "initialization error";
    case HIPSPARSE_STATUS_ALLOC_FAILED: return "out of memory";
    case HIPSPARSE_STATUS_INVALID_VALUE: return "invalid value";
    case HIPSPARSE_STATUS_ARCH_MISMATCH: return "architecture mismatch";
    case HIPSPARSE_STATUS_MAPPING_ERROR: return "mapping error";
    case HIPSPARSE_STATUS_EXECUTION_FAILED: return "execution failed";
    case HIPSPARSE_STATUS_INTERNAL_ERROR: return "internal error";
    case HIPSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED: return "matrix type not supported";
    case HIPSPARSE_STATUS_ZERO_PIVOT: return "zero pivot";
    case HIPSPARSE_STATUS_NOT_SUPPORTED: return "operation not supported";
    case HIPSPARSE_STATUS_INSUFFICIENT_RESOURCES: return "insufficient resources";
    default: return "unknown error";
  }
}
