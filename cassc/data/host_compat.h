/* cassc: pre-included into C and C++ inputs, which nvcc hands to the host compiler with __NVCC__
 * defined. HIP's platform header must see the AMD platform before __NVCC__ exists (it takes
 * __NVCC__ to mean NVIDIA). */
#pragma once
#include <hip/hip_common.h>
#define __NVCC__ 1
#include <cassc/member_calls.h> /* CUDA member calls, as hipify rewrote them: the object's own member */
