/* cassc: <cuda_fp8.h> for HIP, which (5.2) has no 8-bit floats. CUDA's names and meaning, host and
 * device: E4M3 (bias 7, no infinity, largest finite 448, NaN 0x7F) and E5M2 (bias 15, IEEE-like,
 * largest finite 57344). Conversions from wider types round to nearest even; out-of-range values
 * become the largest finite value with __NV_SATFINITE, else NaN (E4M3) or infinity (E5M2), as CUDA's
 * conversions do. Every fp8 value is exact in half, bfloat16 and float. */
#pragma once
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#include <cassc/cuda_bf16.h>

#define __CASSC_FP8_FN static __host__ __device__ inline

typedef unsigned char __nv_fp8_storage_t;
typedef unsigned short __nv_fp8x2_storage_t;
typedef unsigned int __nv_fp8x4_storage_t;
typedef enum __nv_saturation_t { __NV_NOSAT, __NV_SATFINITE } __nv_saturation_t;
typedef enum __nv_fp8_interpretation_t { __NV_E4M3, __NV_E5M2 } __nv_fp8_interpretation_t;

/* ilogb through frexp: both lower to LLVM intrinsics, where ilogb would be a libcall the device
 * libraries do not have. */
__CASSC_FP8_FN int __cassc_fp8_ilogb(double x) {
  int exponent;
  __builtin_frexp(x, &exponent);
  return exponent - 1;
}

__CASSC_FP8_FN __nv_fp8_storage_t __nv_cvt_double_to_fp8(double x, __nv_saturation_t saturate,
                                                         __nv_fp8_interpretation_t kind) {
  const bool e4m3 = kind == __NV_E4M3;
  const int mantissa_bits = e4m3 ? 3 : 2, bias = e4m3 ? 7 : 15;
  const double largest = e4m3 ? 448.0 : 57344.0;
  const unsigned char sign = __builtin_signbit(x) ? 0x80 : 0x00;
  if (x != x) return 0x7F;  // CUDA's NaN for both kinds
  double magnitude = __builtin_fabs(x);
  const unsigned char overflow = saturate == __NV_SATFINITE ? (e4m3 ? 0x7E : 0x7B) : (e4m3 ? 0x7F : 0x7C);
  if (magnitude > largest) {
    // Values that round down to the largest finite one still do; E5M2 infinity saturates too.
    const double halfway = largest + __builtin_ldexp(1.0, __cassc_fp8_ilogb(largest) - mantissa_bits - 1);
    if (magnitude >= halfway || __builtin_isinf(magnitude)) return sign | overflow;
    return sign | (e4m3 ? 0x7E : 0x7B);
  }
  const int smallest_exponent = 1 - bias;  // of the normal numbers; below it the spacing stays fixed
  int exponent = magnitude == 0.0 ? smallest_exponent : __cassc_fp8_ilogb(magnitude);
  if (exponent < smallest_exponent) exponent = smallest_exponent;
  const double quantum = __builtin_ldexp(1.0, exponent - mantissa_bits);
  const double rounded = __builtin_rint(magnitude / quantum) * quantum;  // ties to even
  if (rounded > largest) return sign | overflow;
  if (rounded < __builtin_ldexp(1.0, smallest_exponent)) {  // subnormal (or zero)
    return sign | static_cast<unsigned char>(rounded / __builtin_ldexp(1.0, smallest_exponent - mantissa_bits));
  }
  const int biased = __cassc_fp8_ilogb(rounded) + bias;
  const unsigned mantissa = static_cast<unsigned>(
      (rounded / __builtin_ldexp(1.0, __cassc_fp8_ilogb(rounded)) - 1.0) * (1 << mantissa_bits));
  return sign | static_cast<unsigned char>((biased << mantissa_bits) | mantissa);
}

__CASSC_FP8_FN __nv_fp8_storage_t __nv_cvt_float_to_fp8(float x, __nv_saturation_t saturate,
                                                        __nv_fp8_interpretation_t kind) {
  return __nv_cvt_double_to_fp8(x, saturate, kind);  // float -> double is exact: one rounding only
}

__CASSC_FP8_FN float __cassc_fp8_to_float(__nv_fp8_storage_t bits, __nv_fp8_interpretation_t kind) {
  const bool e4m3 = kind == __NV_E4M3;
  const int mantissa_bits = e4m3 ? 3 : 2, bias = e4m3 ? 7 : 15;
  const float sign = bits & 0x80 ? -1.0f : 1.0f;
  const unsigned exponent = (bits & 0x7F) >> mantissa_bits, mantissa = bits & ((1u << mantissa_bits) - 1);
  if (e4m3 && (bits & 0x7F) == 0x7F) return __builtin_nanf("");
  if (!e4m3 && exponent == 0x1F) return mantissa ? __builtin_nanf("") : sign * __builtin_inff();
  if (exponent == 0) return sign * __builtin_ldexpf(static_cast<float>(mantissa), 1 - bias - mantissa_bits);
  return sign * __builtin_ldexpf(static_cast<float>(mantissa | (1u << mantissa_bits)),
                                 static_cast<int>(exponent) - bias - mantissa_bits);
}

__CASSC_FP8_FN __nv_fp8x2_storage_t __nv_cvt_float2_to_fp8x2(float2 x, __nv_saturation_t saturate,
                                                             __nv_fp8_interpretation_t kind) {
  return static_cast<__nv_fp8x2_storage_t>(__nv_cvt_float_to_fp8(x.x, saturate, kind) |
                                           (__nv_cvt_float_to_fp8(x.y, saturate, kind) << 8));
}
__CASSC_FP8_FN __nv_fp8_storage_t __nv_cvt_halfraw_to_fp8(__half_raw x, __nv_saturation_t saturate,
                                                          __nv_fp8_interpretation_t kind) {
  return __nv_cvt_float_to_fp8(__half2float(__half(x)), saturate, kind);
}
__CASSC_FP8_FN __nv_fp8_storage_t __nv_cvt_bfloat16raw_to_fp8(__nv_bfloat16_raw x, __nv_saturation_t saturate,
                                                              __nv_fp8_interpretation_t kind) {
  return __nv_cvt_float_to_fp8(__bfloat162float(__nv_bfloat16(x)), saturate, kind);
}
__CASSC_FP8_FN __half_raw __nv_cvt_fp8_to_halfraw(__nv_fp8_storage_t x, __nv_fp8_interpretation_t kind) {
  return static_cast<__half_raw>(__float2half(__cassc_fp8_to_float(x, kind)));
}
__CASSC_FP8_FN __half2_raw __nv_cvt_fp8x2_to_halfraw2(__nv_fp8x2_storage_t x, __nv_fp8_interpretation_t kind) {
  return static_cast<__half2_raw>(__halves2half2(__float2half(__cassc_fp8_to_float(x & 0xFF, kind)),
                                                 __float2half(__cassc_fp8_to_float(x >> 8, kind))));
}

/* The scalar, pair and quad classes of one interpretation. */
#define __CASSC_FP8_TYPES(suffix, kind)                                                                  \
  struct __nv_fp8_##suffix {                                                                           \
    __nv_fp8_storage_t __x;                                                                            \
    __nv_fp8_##suffix() = default;                                                                     \
    __host__ __device__ explicit __nv_fp8_##suffix(double f) : __x(__nv_cvt_double_to_fp8(f, __NV_SATFINITE, kind)) {} \
    __host__ __device__ explicit __nv_fp8_##suffix(float f) : __x(__nv_cvt_float_to_fp8(f, __NV_SATFINITE, kind)) {} \
    __host__ __device__ explicit __nv_fp8_##suffix(__half f) : __nv_fp8_##suffix(__half2float(f)) {}  \
    __host__ __device__ explicit __nv_fp8_##suffix(__nv_bfloat16 f) : __nv_fp8_##suffix(__bfloat162float(f)) {} \
    __host__ __device__ explicit __nv_fp8_##suffix(int i) : __nv_fp8_##suffix(static_cast<float>(i)) {} \
    __host__ __device__ explicit __nv_fp8_##suffix(unsigned i) : __nv_fp8_##suffix(static_cast<float>(i)) {} \
    __host__ __device__ explicit __nv_fp8_##suffix(long long i) : __nv_fp8_##suffix(static_cast<double>(i)) {} \
    __host__ __device__ explicit operator float() const { return __cassc_fp8_to_float(__x, kind); }   \
    __host__ __device__ explicit operator double() const { return __cassc_fp8_to_float(__x, kind); }  \
    __host__ __device__ explicit operator __half() const { return __float2half(float(*this)); }       \
    __host__ __device__ explicit operator __nv_bfloat16() const { return __float2bfloat16(float(*this)); } \
    __host__ __device__ explicit operator bool() const { return (__x & 0x7F) != 0; }                  \
  };                                                                                                   \
  struct __nv_fp8x2_##suffix {                                                                         \
    __nv_fp8x2_storage_t __x;                                                                          \
    __nv_fp8x2_##suffix() = default;                                                                   \
    __host__ __device__ explicit __nv_fp8x2_##suffix(float2 f) : __x(__nv_cvt_float2_to_fp8x2(f, __NV_SATFINITE, kind)) {} \
    __host__ __device__ explicit __nv_fp8x2_##suffix(__half2 f)                                        \
        : __nv_fp8x2_##suffix(make_float2(__low2float(f), __high2float(f))) {}                          \
    __host__ __device__ explicit __nv_fp8x2_##suffix(__nv_bfloat162 f)                                 \
        : __nv_fp8x2_##suffix(make_float2(__bfloat162float(f.x), __bfloat162float(f.y))) {}              \
    __host__ __device__ explicit operator float2() const {                                            \
      return make_float2(__cassc_fp8_to_float(__x & 0xFF, kind), __cassc_fp8_to_float(__x >> 8, kind)); \
    }                                                                                                  \
    __host__ __device__ explicit operator __half2() const {                                           \
      const float2 f = float2(*this);                                                                  \
      return __floats2half2_rn(f.x, f.y);                                                              \
    }                                                                                                  \
  };                                                                                                   \
  struct __nv_fp8x4_##suffix {                                                                         \
    __nv_fp8x4_storage_t __x;                                                                          \
    __nv_fp8x4_##suffix() = default;                                                                   \
    __host__ __device__ explicit __nv_fp8x4_##suffix(float4 f)                                         \
        : __x(__nv_cvt_float2_to_fp8x2(make_float2(f.x, f.y), __NV_SATFINITE, kind) |                   \
              (static_cast<unsigned>(__nv_cvt_float2_to_fp8x2(make_float2(f.z, f.w), __NV_SATFINITE, kind)) << 16)) {} \
    __host__ __device__ explicit __nv_fp8x4_##suffix(__half2 low, __half2 high)                        \
        : __nv_fp8x4_##suffix(make_float4(__low2float(low), __high2float(low), __low2float(high), __high2float(high))) {} \
    __host__ __device__ explicit __nv_fp8x4_##suffix(__nv_bfloat162 low, __nv_bfloat162 high)          \
        : __nv_fp8x4_##suffix(make_float4(__bfloat162float(low.x), __bfloat162float(low.y),             \
                                          __bfloat162float(high.x), __bfloat162float(high.y))) {}        \
    __host__ __device__ explicit operator float4() const {                                            \
      return make_float4(__cassc_fp8_to_float(__x & 0xFF, kind), __cassc_fp8_to_float((__x >> 8) & 0xFF, kind), \
                         __cassc_fp8_to_float((__x >> 16) & 0xFF, kind), __cassc_fp8_to_float(__x >> 24, kind)); \
    }                                                                                                  \
  };
__CASSC_FP8_TYPES(e4m3, __NV_E4M3)
__CASSC_FP8_TYPES(e5m2, __NV_E5M2)
#undef __CASSC_FP8_TYPES
#undef __CASSC_FP8_FN
