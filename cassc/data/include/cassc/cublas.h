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
