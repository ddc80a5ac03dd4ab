/* cassc's stand-in CUDA toolkit: included first by every CUDA-named header in this directory.
 *
 * The CUDA API is HIP's: the HIP runtime header, then CUDA's names as macros for the HIP ones
 * (cassc_cuda_names.h, generated from cassc's rename tables, the same renames cassc applies to .cu
 * files). Host compilers (g++, clang++) compile it: HIP's headers need only to know the platform. */
#pragma once
#if !defined(__HIP_PLATFORM_AMD__) && !defined(__HIP_PLATFORM_HCC__)
#define __HIP_PLATFORM_AMD__ 1
#endif
#include <hip/hip_runtime.h>
#include "cassc_cuda_names.h"
#include "cassc/device_prop.h" /* cudaDeviceProp with the fields HIP lacks */
#include "cassc/library_types.h" /* CUDA 13's library_types.h enumerations HIP lacks */
#include "cassc/runtime_api.h" /* runtime and driver calls HIP 5 lacks, cudaLimit values HIP lacks */
