/* cassc: <cuda_fp16.h> -> HIP's fp16, plus what CUDA 12 has and HIP 5.2 lacks: __half arithmetic in
 * host code. HIP declares the operators __device__ only; clang overloads on __host__/__device__, so
 * these host versions sit beside HIP's device ones and each side picks its own. Host arithmetic is
 * done in float and rounded to nearest even, as CUDA's host path does. */
#pragma once
#include <hip/hip_version.h>
#include <hip/hip_fp16.h>
#include <cassc/packed_atomics.h>

/* A host compiler (g++ on a .cpp including <cuda_fp16.h>) gets HIP's host-only __half as it is. */
#if defined(__HIP__)

#define __CASSC_FP16_HOST static __host__ inline
#if HIP_VERSION_MAJOR < 6 /* HIP 6 declares __half's operators, these functions and __hmax/__hmin __host__ __device__ */
#define __CASSC_HALF_BINARY(op, name)                                                          \
  __host__ inline __half operator op(const __half& a, const __half& b) {                        \
    return __float2half(__half2float(a) op __half2float(b));                                  \
  }                                                                                           \
  __host__ inline __half& operator op##=(__half & a, const __half& b) { return a = a op b; }  \
  __host__ inline __half2 operator op(const __half2& a, const __half2& b) {                     \
    return __halves2half2(__low2half(a) op __low2half(b), __high2half(a) op __high2half(b));   \
  }                                                                                           \
  __host__ inline __half2& operator op##=(__half2 & a, const __half2& b) { return a = a op b; } \
  __CASSC_FP16_HOST __half name(__half a, __half b) { return a op b; }                         \
  __CASSC_FP16_HOST __half2 name##2(__half2 a, __half2 b) { return a op b; }
__CASSC_HALF_BINARY(+, __hadd)
__CASSC_HALF_BINARY(-, __hsub)
__CASSC_HALF_BINARY(*, __hmul)
__CASSC_HALF_BINARY(/, __hdiv)
#undef __CASSC_HALF_BINARY

#define __CASSC_HALF_COMPARE(op, name)                                                                 \
  __host__ inline bool operator op(const __half& a, const __half& b) { return __half2float(a) op __half2float(b); } \
  __CASSC_FP16_HOST bool name(__half a, __half b) { return a op b; }
__CASSC_HALF_COMPARE(==, __heq)
__CASSC_HALF_COMPARE(!=, __hne)
__CASSC_HALF_COMPARE(<, __hlt)
__CASSC_HALF_COMPARE(<=, __hle)
__CASSC_HALF_COMPARE(>, __hgt)
__CASSC_HALF_COMPARE(>=, __hge)
#undef __CASSC_HALF_COMPARE

__host__ inline __half operator-(const __half& a) { return __float2half(-__half2float(a)); }
__CASSC_FP16_HOST __half __hneg(__half a) { return -a; }
/* HIP 5.2 has no __hmax/__hmin at all. CUDA returns the other operand when one is NaN. */
static __host__ __device__ inline __half __hmax(__half a, __half b) {
  float x = __half2float(a), y = __half2float(b);
  return x != x ? b : (y != y ? a : (x > y ? a : b));
}
static __host__ __device__ inline __half __hmin(__half a, __half b) {
  float x = __half2float(a), y = __half2float(b);
  return x != x ? b : (y != y ? a : (x < y ? a : b));
}
#endif /* HIP_VERSION_MAJOR < 6 */
__CASSC_FP16_HOST __half __hfma(__half a, __half b, __half c) {
  return __float2half(__builtin_fmaf(__half2float(a), __half2float(b), __half2float(c)));
}
static __host__ __device__ inline __half2 __hmax2(__half2 a, __half2 b) {
  return __halves2half2(__hmax(__low2half(a), __low2half(b)), __hmax(__high2half(a), __high2half(b)));
}
static __host__ __device__ inline __half2 __hmin2(__half2 a, __half2 b) {
  return __halves2half2(__hmin(__low2half(a), __low2half(b)), __hmin(__high2half(a), __high2half(b)));
}
/* CUDA's half atomics (sm_60+) and tanh (CUDA 12.8): HIP 5.2 has neither. */
static __device__ inline __half atomicAdd(__half* address, __half value) {
  return __cassc_atomic_update(address, [value](__half old) { return __hadd(old, value); });
}
static __device__ inline __half2 atomicAdd(__half2* address, __half2 value) {
  return __cassc_atomic_update(address, [value](__half2 old) { return __hadd2(old, value); });
}
static __device__ inline __half htanh(__half a) { return __float2half(tanhf(__half2float(a))); }
static __device__ inline __half htanh_approx(__half a) { return htanh(a); }
static __device__ inline __half2 h2tanh(__half2 a) { return __halves2half2(htanh(__low2half(a)), htanh(__high2half(a))); }
static __device__ inline __half2 h2tanh_approx(__half2 a) { return h2tanh(a); }
#undef __CASSC_FP16_HOST
#endif /* __HIP__ */
