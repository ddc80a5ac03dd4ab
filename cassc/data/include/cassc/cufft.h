/* cassc: <cufft.h> -> hipFFT, plus cuFFT's result codes hipFFT lacks, under CUDA's numbers, which no hipFFT result
 * has (hipFFT never returns them): helper headers (NVIDIA's samples' helper_cuda.h) name every result in a switch. */
#pragma once
#include <hipfft/hipfft.h>
#define CUFFT_LICENSE_ERROR ((hipfftResult)0x0F)
#define CUFFT_MISSING_DEPENDENCY ((hipfftResult)0x11)
#define CUFFT_NVRTC_FAILURE ((hipfftResult)0x12)
#define CUFFT_NVJITLINK_FAILURE ((hipfftResult)0x13)
#define CUFFT_NVSHMEM_FAILURE ((hipfftResult)0x14)
