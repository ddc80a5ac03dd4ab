/* cassc: <cub/...> for HIP: hipCUB, plus CUB's error-checking macros (cub/util_debug.cuh), which programs
 * copy from CUB's examples and hipCUB does not define. As CUB's: CubDebug(e) gives e back, printing it
 * with the file and line to stderr where the unit defined CUB_STDERR; CubDebugExit(e) exits on an error. */
#pragma once
#include <hipcub/hipcub.hpp>
#include <stdio.h>
#include <stdlib.h>

static inline hipError_t __cassc_cub_debug(hipError_t error, const char* file, int line) {
#ifdef CUB_STDERR
  if (error != hipSuccess) fprintf(stderr, "CUDA error %d [%s, %d]: %s\n", (int)error, file, line, hipGetErrorString(error));
#else
  (void)file;
  (void)line;
#endif
  return error;
}
#ifndef CubDebug
#define CubDebug(e) __cassc_cub_debug((hipError_t)(e), __FILE__, __LINE__)
#endif
#ifndef CubDebugExit
#define CubDebugExit(e) \
  if (CubDebug(e)) {    \
    exit(1);            \
  }
#endif
#ifndef _CubLog
#define _CubLog(format, ...) printf(format, __VA_ARGS__)
#endif
