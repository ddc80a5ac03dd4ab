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
/* CUDA's bit casts are __host__ __device__; HIP 5.2's are __device__ only. */
__CASSC_FP16_HOST unsigned short __half_as_ushort(__half h) { return static_cast<__half_raw>(h).x; }
__CASSC_FP16_HOST short __half_as_short(__half h) { return static_cast<short>(static_cast<__half_raw>(h).x); }
__CASSC_FP16_HOST __half __ushort_as_half(unsigned short bits) { __half_raw r; r.x = bits; return r; }
__CASSC_FP16_HOST __half __short_as_half(short bits) { __half_raw r; r.x = static_cast<unsigned short>(bits); return r; }
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
/* CUDA's rounding-mode conversions, which compat.tsv renames to these. HIP (5.2 and 6.4 alike) ignores
 * the suffix: float and integer -> half all round to nearest (HIP 5.2's device side too), half -> integer
 * all truncate (a C++ cast, undefined for NaN and out of range). CUDA's cvt instructions round as named
 * and saturate (NaN -> 0). One __host__ __device__ definition, so host and device give the same bits.
 * hrcp/h2rcp: HIP's is the hardware's approximate f16 reciprocal; CUDA's rounds the f32 reciprocal. */
enum __cassc_half_rounding { __cassc_half_rn, __cassc_half_rz, __cassc_half_rd, __cassc_half_ru };
static __host__ __device__ inline unsigned short __cassc_half_step(unsigned short bits, bool up) {
  /* the next half toward +inf (up) or -inf; -0 and +0 both step to the smallest subnormal */
  const bool negative = bits & 0x8000u;
  if ((bits & 0x7fffu) == 0) return up ? 0x0001u : 0x8001u;
  return static_cast<unsigned short>(negative == up ? bits - 1u : bits + 1u);
}
static __host__ __device__ inline __half __cassc_float2half_mode(float x, __cassc_half_rounding mode) {
  __half_raw nearest;
  nearest.data = static_cast<_Float16>(x);
  const float back = static_cast<float>(nearest.data);
  if (mode == __cassc_half_rn || back == x || x != x) return nearest;
  const bool up = mode == __cassc_half_ru || (mode == __cassc_half_rz && x < 0.0f);
  if (up ? back > x : back < x) return nearest;
  nearest.x = __cassc_half_step(nearest.x, up);
  return nearest;
}
#define __CASSC_FLOAT2HALF(mode) \
  static __host__ __device__ inline __half __cassc_float2half_##mode(float x) { return __cassc_float2half_mode(x, __cassc_half_##mode); }
__CASSC_FLOAT2HALF(rz)
__CASSC_FLOAT2HALF(rd)
__CASSC_FLOAT2HALF(ru)
#undef __CASSC_FLOAT2HALF
/* Integers: exact in float below 2^24; anything larger is beyond half's range either way. */
#define __CASSC_INTEGER_HALF(type, name, low, high)                                                       \
  static __host__ __device__ inline __half __cassc_##name##2half_rn(type x) { return __cassc_float2half_mode(static_cast<float>(x), __cassc_half_rn); } \
  static __host__ __device__ inline __half __cassc_##name##2half_rz(type x) { return __cassc_float2half_mode(static_cast<float>(x), __cassc_half_rz); } \
  static __host__ __device__ inline __half __cassc_##name##2half_rd(type x) { return __cassc_float2half_mode(static_cast<float>(x), __cassc_half_rd); } \
  static __host__ __device__ inline __half __cassc_##name##2half_ru(type x) { return __cassc_float2half_mode(static_cast<float>(x), __cassc_half_ru); } \
  static __host__ __device__ inline type __cassc_half2##name##_mode(__half h, __cassc_half_rounding mode) {    \
    const float f = __half2float(h);                                                                     \
    if (f != f) return 0;                                                                                \
    const float r = mode == __cassc_half_rn ? __builtin_rintf(f) : mode == __cassc_half_rz ? __builtin_truncf(f)   \
                    : mode == __cassc_half_rd ? __builtin_floorf(f) : __builtin_ceilf(f);                     \
    return r <= static_cast<float>(low) ? (low) : r >= static_cast<float>(high) ? (high) : static_cast<type>(r); \
  }                                                                                                      \
  static __host__ __device__ inline type __cassc_half2##name##_rn(__half h) { return __cassc_half2##name##_mode(h, __cassc_half_rn); } \
  static __host__ __device__ inline type __cassc_half2##name##_rz(__half h) { return __cassc_half2##name##_mode(h, __cassc_half_rz); } \
  static __host__ __device__ inline type __cassc_half2##name##_rd(__half h) { return __cassc_half2##name##_mode(h, __cassc_half_rd); } \
  static __host__ __device__ inline type __cassc_half2##name##_ru(__half h) { return __cassc_half2##name##_mode(h, __cassc_half_ru); }
__CASSC_INTEGER_HALF(short, short, -32768, 32767)
__CASSC_INTEGER_HALF(unsigned short, ushort, 0, 65535)
__CASSC_INTEGER_HALF(int, int, (-2147483647 - 1), 2147483647)
__CASSC_INTEGER_HALF(unsigned int, uint, 0u, 4294967295u)
__CASSC_INTEGER_HALF(long long, ll, (-9223372036854775807LL - 1), 9223372036854775807LL)
__CASSC_INTEGER_HALF(unsigned long long, ull, 0ull, 18446744073709551615ull)
#undef __CASSC_INTEGER_HALF
static __host__ __device__ inline __half __cassc_hrcp(__half x) { return __float2half(1.0f / __half2float(x)); }
static __host__ __device__ inline __half2 __cassc_h2rcp(__half2 x) {
  return __halves2half2(__cassc_hrcp(__low2half(x)), __cassc_hrcp(__high2half(x)));
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
/* compat.tsv's __cassc_hadd is a __hadd call's own type's __hadd wherever the arguments are not integers,
 * found by argument-dependent lookup (device_arithmetic.h); HIP declares __half's functions in an unnamed
 * namespace, which that lookup does not search, so __half names its own here. */
static __host__ __device__ inline __half __cassc_hadd(__half a, __half b) { return __hadd(a, b); }
#undef __CASSC_FP16_HOST
#endif /* __HIP__ */
