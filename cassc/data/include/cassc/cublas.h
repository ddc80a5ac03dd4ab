/* cassc: <cublas_v2.h> -> hipBLAS. cuBLAS's v2 API takes cuComplex and cudaDataType, which cassc maps to
   hipComplex and hipDataType: hipBLAS 6 declares its API with those only under HIPBLAS_V2 (hipBLAS 7
   always does, and ignores the macro). cuBLAS's half routines take __half, hipBLAS's only under
   HIPBLAS_USE_HIP_HALF (else uint16_t). */
#pragma once
#ifndef HIPBLAS_V2
#define HIPBLAS_V2
#endif
#ifndef HIPBLAS_USE_HIP_HALF
#define HIPBLAS_USE_HIP_HALF
#endif
#include <hipblas/hipblas.h>

/* What cuBLAS has and hipBLAS lacks, where CUDA documents it as a permission or a resource hint that a library
   may decline, so that declining it gives the same results (cublas.tsv's `__cassc_` rows name these):
   - cublasSetWorkspace: the buffer cuBLAS may use instead of its own pool; hipBLAS (rocBLAS) keeps its own.
   - emulation (CUDA 13): CUBLAS_FP32_EMULATED_BF16X9_MATH and CUBLAS_COMPUTE_32F_EMULATED_16BFX9 allow fp32
     to be emulated with bf16 products; hipBLAS computes in fp32 (the rows map them to the default math mode and
     CUBLAS_COMPUTE_32F). The strategy that says when to emulate is then accepted and reads back as set. */
typedef enum {
  __CASSC_CUBLAS_EMULATION_STRATEGY_DEFAULT = 0,
  __CASSC_CUBLAS_EMULATION_STRATEGY_PERFORMANT = 1,
  __CASSC_CUBLAS_EMULATION_STRATEGY_EAGER = 2
} __cassc_cublasEmulationStrategy_t;

static inline hipblasStatus_t __cassc_cublasSetWorkspace(hipblasHandle_t handle, void* workspace, size_t bytes) {
  (void)workspace, (void)bytes;
  return handle != NULL ? HIPBLAS_STATUS_SUCCESS : HIPBLAS_STATUS_NOT_INITIALIZED;
}
static inline hipblasStatus_t __cassc_cublasSetEmulationStrategy(hipblasHandle_t handle,
                                                                  __cassc_cublasEmulationStrategy_t strategy) {
  (void)strategy;
  return handle != NULL ? HIPBLAS_STATUS_SUCCESS : HIPBLAS_STATUS_NOT_INITIALIZED;
}
static inline hipblasStatus_t __cassc_cublasGetEmulationStrategy(hipblasHandle_t handle,
                                                                  __cassc_cublasEmulationStrategy_t* strategy) {
  if (handle == NULL) return HIPBLAS_STATUS_NOT_INITIALIZED;
  if (strategy == NULL) return HIPBLAS_STATUS_INVALID_VALUE;
  *strategy = __CASSC_CUBLAS_EMULATION_STRATEGY_DEFAULT;
  return HIPBLAS_STATUS_SUCCESS;
}

/* cuBLAS 12.5's grouped batched GEMM (groups of same-shaped problems, each group its own shape, operations and
   scalars): one hipBLAS batched GEMM per group, over the group's slice of the device pointer arrays. The scalar
   arrays are host memory, as cuBLAS documents them. */
#define __CASSC_GEMM_GROUPED_BATCHED(name, T, batched)                                                          \
  static inline hipblasStatus_t name(hipblasHandle_t handle, const hipblasOperation_t transa_array[],           \
                                     const hipblasOperation_t transb_array[], const int m_array[],              \
                                     const int n_array[], const int k_array[], const T alpha_array[],          \
                                     const T* const Aarray[], const int lda_array[], const T* const Barray[],  \
                                     const int ldb_array[], const T beta_array[], T* const Carray[],           \
                                     const int ldc_array[], int group_count, const int group_size[]) {         \
    if (group_count < 0) return HIPBLAS_STATUS_INVALID_VALUE;                                                   \
    for (int group = 0, first = 0; group < group_count; first += group_size[group++]) {                         \
      hipblasStatus_t status = batched(handle, transa_array[group], transb_array[group], m_array[group],         \
                                       n_array[group], k_array[group], &alpha_array[group], Aarray + first,     \
                                       lda_array[group], Barray + first, ldb_array[group], &beta_array[group], \
                                       Carray + first, ldc_array[group], group_size[group]);                   \
      if (status != HIPBLAS_STATUS_SUCCESS) return status;                                                      \
    }                                                                                                           \
    return HIPBLAS_STATUS_SUCCESS;                                                                              \
  }
__CASSC_GEMM_GROUPED_BATCHED(__cassc_cublasSgemmGroupedBatched, float, hipblasSgemmBatched)
__CASSC_GEMM_GROUPED_BATCHED(__cassc_cublasDgemmGroupedBatched, double, hipblasDgemmBatched)
#undef __CASSC_GEMM_GROUPED_BATCHED

/* cuBLAS's batched GEMM over data types takes its pointer arrays as `const void* const[]` (a `void**` converts),
   hipBLAS's as `const void*[]` (a `void**` does not): the CUDA form, over hipBLAS's. */
static inline hipblasStatus_t __cassc_cublasGemmBatchedEx(
    hipblasHandle_t handle, hipblasOperation_t transa, hipblasOperation_t transb, int m, int n, int k,
    const void* alpha, const void* const Aarray[], hipDataType Atype, int lda, const void* const Barray[],
    hipDataType Btype, int ldb, const void* beta, void* const Carray[], hipDataType Ctype, int ldc, int batchCount,
    hipblasComputeType_t computeType, hipblasGemmAlgo_t algo) {
  return hipblasGemmBatchedEx_v2(handle, transa, transb, m, n, k, alpha, (const void**)Aarray, Atype, lda,
                                 (const void**)Barray, Btype, ldb, beta, (void**)Carray, Ctype, ldc, batchCount,
                                 computeType, algo);
}
