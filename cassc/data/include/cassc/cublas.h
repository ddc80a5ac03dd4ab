/* cassc: <cublas_v2.h> -> hipBLAS. cuBLAS's v2 API takes cuComplex and cudaDataType, which cassc maps to
   hipComplex and hipDataType: hipBLAS 6 declares its API with those only under HIPBLAS_V2 (hipBLAS 7
   always does, and ignores the macro). */
#pragma once
#ifndef HIPBLAS_V2
#define HIPBLAS_V2
#endif
#include <hipblas/hipblas.h>
