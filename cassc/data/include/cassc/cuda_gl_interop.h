/* cassc: <cuda_gl_interop.h>. HIP 5 declares the OpenGL interop API in hip_runtime_api.h; HIP 6 moved
   it to its own header, which declares the GL types it needs itself. */
#pragma once
#include <hip/hip_runtime_api.h>
#if __has_include(<hip/hip_gl_interop.h>)
#include <hip/hip_gl_interop.h>
#endif
