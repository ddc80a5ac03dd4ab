/* cassc: <cuda_bf16.h> for HIP.
 *
 * HIP 6 has most of CUDA's API (below). HIP 5.2 has only `hip_bfloat16` (hip/hip_bfloat16.h), a
 * different API with no paired type, so cassc keeps CUDA's names and meaning: bfloat16 is the top half of an IEEE float; conversions from float
 * round to nearest even (NaN stays NaN); arithmetic is done in float and rounded back, which is what
 * CUDA does on GPUs without native bf16 arithmetic. Host and device alike.
 */
#pragma once
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#include <math.h>
#include <cassc/packed_atomics.h>

#define __CASSC_BF16_FN static __host__ __device__ inline

/* double -> float rounded to odd (the truncation, its last bit set where anything was cut): rounding that
 * to bf16 is the one rounding of the double CUDA does; double -> float -> bf16 to nearest twice is not. */
__CASSC_BF16_FN float __cassc_double_to_odd_float(double a) {
  const float f = static_cast<float>(a);
  if (static_cast<double>(f) == a || a != a) return f;
  unsigned int u;
  __builtin_memcpy(&u, &f, sizeof u);
  if (__builtin_fabs(static_cast<double>(f)) > __builtin_fabs(a)) --u;
  u |= 1u;
  float odd;
  __builtin_memcpy(&odd, &u, sizeof odd);
  return odd;
}
/* CUDA's cvt.rni/rzi.s32: NaN is 0, out of range saturates. */
__CASSC_BF16_FN int __cassc_bfloat162int(float rounded) {
  return rounded != rounded ? 0 : rounded <= -2147483648.0f ? (-2147483647 - 1)
         : rounded >= 2147483648.0f ? 2147483647 : static_cast<int>(rounded);
}
#if HIP_VERSION_MAJOR >= 6 && defined(__HIP__)
/* HIP 6 has CUDA's bfloat16 API itself under HIP's type names (hip/hip_bf16.h, which other ROCm headers
 * such as hipBLASLt's include too): CUDA's type names are those types. A host compiler (g++ on a .cpp
 * including the stand-in toolkit's <cuda_bf16.h>) cannot compile HIP's header: it gets cassc's own. */
#include <hip/hip_bf16.h>
typedef __hip_bfloat16_raw __nv_bfloat16_raw;
typedef __hip_bfloat162_raw __nv_bfloat162_raw;
typedef __hip_bfloat16 __nv_bfloat16;
typedef __hip_bfloat162 __nv_bfloat162;
typedef __nv_bfloat16 nv_bfloat16;
typedef __nv_bfloat162 nv_bfloat162;
/* CUDA's conversions that HIP 6.4 lacks (HIP's __float2bfloat16 rounds to nearest even). */
__CASSC_BF16_FN __nv_bfloat16 __float2bfloat16_rn(float a) { return __float2bfloat16(a); }
__CASSC_BF16_FN __nv_bfloat16 __int2bfloat16_rn(int a) { return __float2bfloat16(static_cast<float>(a)); }
__CASSC_BF16_FN __nv_bfloat16 __uint2bfloat16_rn(unsigned a) { return __float2bfloat16(static_cast<float>(a)); }
__CASSC_BF16_FN int __bfloat162int_rn(__nv_bfloat16 a) { return __cassc_bfloat162int(__builtin_rintf(__bfloat162float(a))); }
__CASSC_BF16_FN int __bfloat162int_rz(__nv_bfloat16 a) { return __cassc_bfloat162int(__builtin_truncf(__bfloat162float(a))); }
__CASSC_BF16_FN __half __bfloat162half(__nv_bfloat16 a) { return __float2half(__bfloat162float(a)); }
__CASSC_BF16_FN __nv_bfloat162 __floats2bfloat162_rn(float a, float b) {
  return __nv_bfloat162(__float2bfloat16(a), __float2bfloat16(b));
}
__CASSC_BF16_FN __nv_bfloat162 make_bfloat162(__nv_bfloat16 x, __nv_bfloat16 y) { return __nv_bfloat162(x, y); }
__CASSC_BF16_FN __nv_bfloat162 __float2bfloat162_rn(float a) { return __floats2bfloat162_rn(a, a); }
#else

struct __nv_bfloat16_raw {
  unsigned short x;
};
struct __nv_bfloat162_raw {
  unsigned short x, y;
};

struct __nv_bfloat16;
__CASSC_BF16_FN float __bfloat162float(__nv_bfloat16 a);
__CASSC_BF16_FN __nv_bfloat16 __float2bfloat16(float a);

struct alignas(2) __nv_bfloat16 {
  unsigned short __x;
  __nv_bfloat16() = default;
  __host__ __device__ constexpr __nv_bfloat16(const __nv_bfloat16_raw& raw) : __x(raw.x) {}
  __host__ __device__ __nv_bfloat16(float value);
  __host__ __device__ __nv_bfloat16(double value);
  __host__ __device__ __nv_bfloat16(int value) : __nv_bfloat16(static_cast<float>(value)) {}
  __host__ __device__ __nv_bfloat16(unsigned int value) : __nv_bfloat16(static_cast<float>(value)) {}
  __host__ __device__ __nv_bfloat16(long long value) : __nv_bfloat16(static_cast<float>(value)) {}
  __host__ __device__ __nv_bfloat16(unsigned long long value) : __nv_bfloat16(static_cast<float>(value)) {}
  __host__ __device__ operator float() const;
  __host__ __device__ operator __nv_bfloat16_raw() const { return __nv_bfloat16_raw{__x}; }
  __host__ __device__ __nv_bfloat16& operator=(float value) { return *this = __nv_bfloat16(value); }
};
typedef __nv_bfloat16 nv_bfloat16;

struct alignas(4) __nv_bfloat162 {
  __nv_bfloat16 x, y;
  __nv_bfloat162() = default;
  __host__ __device__ constexpr __nv_bfloat162(const __nv_bfloat16& a, const __nv_bfloat16& b) : x(a), y(b) {}
  __host__ __device__ __nv_bfloat162(const __nv_bfloat162_raw& raw)
      : x(__nv_bfloat16_raw{raw.x}), y(__nv_bfloat16_raw{raw.y}) {}
  __host__ __device__ operator __nv_bfloat162_raw() const { return __nv_bfloat162_raw{x.__x, y.__x}; }
};
typedef __nv_bfloat162 nv_bfloat162;

__CASSC_BF16_FN unsigned int __cassc_float_bits(float f) {
  unsigned int u;
  __builtin_memcpy(&u, &f, sizeof u);
  return u;
}
__CASSC_BF16_FN float __cassc_bits_float(unsigned int u) {
  float f;
  __builtin_memcpy(&f, &u, sizeof f);
  return f;
}

__CASSC_BF16_FN __nv_bfloat16 __ushort_as_bfloat16(unsigned short bits) { return __nv_bfloat16_raw{bits}; }
__CASSC_BF16_FN unsigned short __bfloat16_as_ushort(__nv_bfloat16 a) { return a.__x; }
__CASSC_BF16_FN __nv_bfloat16 __short_as_bfloat16(short bits) {
  return __ushort_as_bfloat16(static_cast<unsigned short>(bits));
}
__CASSC_BF16_FN short __bfloat16_as_short(__nv_bfloat16 a) { return static_cast<short>(a.__x); }

__CASSC_BF16_FN float __bfloat162float(__nv_bfloat16 a) {
  return __cassc_bits_float(static_cast<unsigned int>(a.__x) << 16);
}
__CASSC_BF16_FN __nv_bfloat16 __float2bfloat16_rn(float a) {
  unsigned int u = __cassc_float_bits(a);
  if ((u & 0x7fffffffu) > 0x7f800000u) return __ushort_as_bfloat16(static_cast<unsigned short>((u >> 16) | 0x40u));
  u += 0x7fffu + ((u >> 16) & 1u);
  return __ushort_as_bfloat16(static_cast<unsigned short>(u >> 16));
}
__CASSC_BF16_FN __nv_bfloat16 __float2bfloat16(float a) { return __float2bfloat16_rn(a); }
__CASSC_BF16_FN __nv_bfloat16 __int2bfloat16_rn(int a) { return __float2bfloat16_rn(static_cast<float>(a)); }
__CASSC_BF16_FN __nv_bfloat16 __uint2bfloat16_rn(unsigned a) { return __float2bfloat16_rn(static_cast<float>(a)); }
__CASSC_BF16_FN int __bfloat162int_rn(__nv_bfloat16 a) { return __cassc_bfloat162int(__builtin_rintf(__bfloat162float(a))); }
__CASSC_BF16_FN int __bfloat162int_rz(__nv_bfloat16 a) { return __cassc_bfloat162int(__builtin_truncf(__bfloat162float(a))); }
__CASSC_BF16_FN __half __bfloat162half(__nv_bfloat16 a) { return __float2half(__bfloat162float(a)); }

__host__ __device__ inline __nv_bfloat16::__nv_bfloat16(float value) : __x(__float2bfloat16_rn(value).__x) {}
__host__ __device__ inline __nv_bfloat16::__nv_bfloat16(double value)
    : __x(__float2bfloat16_rn(__cassc_double_to_odd_float(value)).__x) {}
__host__ __device__ inline __nv_bfloat16::operator float() const { return __bfloat162float(*this); }

__CASSC_BF16_FN __nv_bfloat162 __floats2bfloat162_rn(float a, float b) {
  return __nv_bfloat162(__float2bfloat16_rn(a), __float2bfloat16_rn(b));
}
__CASSC_BF16_FN __nv_bfloat162 make_bfloat162(__nv_bfloat16 x, __nv_bfloat16 y) { return __nv_bfloat162(x, y); }
__CASSC_BF16_FN __nv_bfloat162 __float2bfloat162_rn(float a) { return __floats2bfloat162_rn(a, a); }
__CASSC_BF16_FN __nv_bfloat162 __float22bfloat162_rn(float2 a) { return __floats2bfloat162_rn(a.x, a.y); }
__CASSC_BF16_FN float2 __bfloat1622float2(__nv_bfloat162 a) {
  return make_float2(__bfloat162float(a.x), __bfloat162float(a.y));
}
__CASSC_BF16_FN __nv_bfloat162 __bfloat162bfloat162(__nv_bfloat16 a) { return __nv_bfloat162(a, a); }
__CASSC_BF16_FN __nv_bfloat162 __halves2bfloat162(__nv_bfloat16 a, __nv_bfloat16 b) { return __nv_bfloat162(a, b); }
__CASSC_BF16_FN __nv_bfloat16 __low2bfloat16(__nv_bfloat162 a) { return a.x; }
__CASSC_BF16_FN __nv_bfloat16 __high2bfloat16(__nv_bfloat162 a) { return a.y; }
__CASSC_BF16_FN float __low2float(__nv_bfloat162 a) { return __bfloat162float(a.x); }
__CASSC_BF16_FN float __high2float(__nv_bfloat162 a) { return __bfloat162float(a.y); }
__CASSC_BF16_FN __nv_bfloat162 __lows2bfloat162(__nv_bfloat162 a, __nv_bfloat162 b) { return __nv_bfloat162(a.x, b.x); }
__CASSC_BF16_FN __nv_bfloat162 __highs2bfloat162(__nv_bfloat162 a, __nv_bfloat162 b) { return __nv_bfloat162(a.y, b.y); }

#define __CASSC_BF16_BINARY(name, expr)                                                     \
  __CASSC_BF16_FN __nv_bfloat16 name(__nv_bfloat16 a, __nv_bfloat16 b) {                  \
    float x = __bfloat162float(a), y = __bfloat162float(b);                               \
    return __float2bfloat16_rn(expr);                                                     \
  }                                                                                       \
  __CASSC_BF16_FN __nv_bfloat162 name##2(__nv_bfloat162 a, __nv_bfloat162 b) {            \
    return __nv_bfloat162(name(a.x, b.x), name(a.y, b.y));                                \
  }
__CASSC_BF16_BINARY(__hadd, x + y)
__CASSC_BF16_BINARY(__hsub, x - y)
__CASSC_BF16_BINARY(__hmul, x * y)
__CASSC_BF16_BINARY(__hdiv, x / y)
__CASSC_BF16_BINARY(__hmax, x > y ? x : y)
__CASSC_BF16_BINARY(__hmin, x < y ? x : y)
#undef __CASSC_BF16_BINARY

__CASSC_BF16_FN __nv_bfloat16 __hfma(__nv_bfloat16 a, __nv_bfloat16 b, __nv_bfloat16 c) {
  return __float2bfloat16_rn(__builtin_fmaf(__bfloat162float(a), __bfloat162float(b), __bfloat162float(c)));
}
__CASSC_BF16_FN __nv_bfloat162 __hfma2(__nv_bfloat162 a, __nv_bfloat162 b, __nv_bfloat162 c) {
  return __nv_bfloat162(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y));
}
__CASSC_BF16_FN __nv_bfloat16 __hneg(__nv_bfloat16 a) { return __ushort_as_bfloat16(a.__x ^ 0x8000u); }
__CASSC_BF16_FN __nv_bfloat162 __hneg2(__nv_bfloat162 a) { return __nv_bfloat162(__hneg(a.x), __hneg(a.y)); }
__CASSC_BF16_FN __nv_bfloat16 __habs(__nv_bfloat16 a) { return __ushort_as_bfloat16(a.__x & 0x7fffu); }
__CASSC_BF16_FN __nv_bfloat162 __habs2(__nv_bfloat162 a) { return __nv_bfloat162(__habs(a.x), __habs(a.y)); }
__CASSC_BF16_FN bool __heq(__nv_bfloat16 a, __nv_bfloat16 b) { return __bfloat162float(a) == __bfloat162float(b); }
__CASSC_BF16_FN bool __hne(__nv_bfloat16 a, __nv_bfloat16 b) { return __bfloat162float(a) != __bfloat162float(b); }
__CASSC_BF16_FN bool __hlt(__nv_bfloat16 a, __nv_bfloat16 b) { return __bfloat162float(a) < __bfloat162float(b); }
__CASSC_BF16_FN bool __hle(__nv_bfloat16 a, __nv_bfloat16 b) { return __bfloat162float(a) <= __bfloat162float(b); }
__CASSC_BF16_FN bool __hgt(__nv_bfloat16 a, __nv_bfloat16 b) { return __bfloat162float(a) > __bfloat162float(b); }
__CASSC_BF16_FN bool __hge(__nv_bfloat16 a, __nv_bfloat16 b) { return __bfloat162float(a) >= __bfloat162float(b); }
__CASSC_BF16_FN bool __hisnan(__nv_bfloat16 a) { return (a.__x & 0x7fffu) > 0x7f80u; }
__CASSC_BF16_FN int __hisinf(__nv_bfloat16 a) { return a.__x == 0x7f80u ? 1 : a.__x == 0xff80u ? -1 : 0; }

/* CUDA's bfloat16 math functions (cuda_bf16.h, "Bfloat16 Math Functions"): computed in float and rounded
 * once to nearest, as CUDA does on every GPU (there is no bf16 transcendental instruction). */
#define __CASSC_BF16_UNARY(name, name2, expr)                                               \
  __CASSC_BF16_FN __nv_bfloat16 name(__nv_bfloat16 a) {                                   \
    float x = __bfloat162float(a);                                                        \
    return __float2bfloat16_rn(expr);                                                     \
  }                                                                                       \
  __CASSC_BF16_FN __nv_bfloat162 name2(__nv_bfloat162 a) { return __nv_bfloat162(name(a.x), name(a.y)); }
__CASSC_BF16_UNARY(hceil, h2ceil, ceilf(x))
__CASSC_BF16_UNARY(hfloor, h2floor, floorf(x))
__CASSC_BF16_UNARY(htrunc, h2trunc, truncf(x))
__CASSC_BF16_UNARY(hrint, h2rint, rintf(x))
__CASSC_BF16_UNARY(hsqrt, h2sqrt, sqrtf(x))
__CASSC_BF16_UNARY(hrsqrt, h2rsqrt, 1.0f / sqrtf(x))
__CASSC_BF16_UNARY(hexp, h2exp, expf(x))
__CASSC_BF16_UNARY(hexp2, h2exp2, exp2f(x))
__CASSC_BF16_UNARY(hexp10, h2exp10, exp2f(x * 3.32192809488736f))
__CASSC_BF16_UNARY(hlog, h2log, logf(x))
__CASSC_BF16_UNARY(hlog2, h2log2, log2f(x))
__CASSC_BF16_UNARY(hlog10, h2log10, log10f(x))
__CASSC_BF16_UNARY(hsin, h2sin, sinf(x))
__CASSC_BF16_UNARY(hcos, h2cos, cosf(x))
#undef __CASSC_BF16_UNARY

#define __CASSC_BF16_OPERATOR(op)                                                           \
  __CASSC_BF16_FN __nv_bfloat16 operator op(const __nv_bfloat16& a, const __nv_bfloat16& b) { \
    return __float2bfloat16_rn(__bfloat162float(a) op __bfloat162float(b));               \
  }                                                                                       \
  __CASSC_BF16_FN __nv_bfloat16& operator op##=(__nv_bfloat16 & a, const __nv_bfloat16& b) { \
    return a = a op b;                                                                    \
  }                                                                                       \
  __CASSC_BF16_FN __nv_bfloat162 operator op(const __nv_bfloat162& a, const __nv_bfloat162& b) { \
    return __nv_bfloat162(a.x op b.x, a.y op b.y);                                        \
  }                                                                                       \
  __CASSC_BF16_FN __nv_bfloat162& operator op##=(__nv_bfloat162 & a, const __nv_bfloat162& b) { \
    return a = a op b;                                                                    \
  }
__CASSC_BF16_OPERATOR(+)
__CASSC_BF16_OPERATOR(-)
__CASSC_BF16_OPERATOR(*)
__CASSC_BF16_OPERATOR(/)
#undef __CASSC_BF16_OPERATOR
__CASSC_BF16_FN __nv_bfloat16 operator-(const __nv_bfloat16& a) { return __hneg(a); }
__CASSC_BF16_FN __nv_bfloat162 operator-(const __nv_bfloat162& a) { return __hneg2(a); }
__CASSC_BF16_FN bool operator==(const __nv_bfloat16& a, const __nv_bfloat16& b) { return __heq(a, b); }
__CASSC_BF16_FN bool operator!=(const __nv_bfloat16& a, const __nv_bfloat16& b) { return __hne(a, b); }
__CASSC_BF16_FN bool operator<(const __nv_bfloat16& a, const __nv_bfloat16& b) { return __hlt(a, b); }
__CASSC_BF16_FN bool operator<=(const __nv_bfloat16& a, const __nv_bfloat16& b) { return __hle(a, b); }
__CASSC_BF16_FN bool operator>(const __nv_bfloat16& a, const __nv_bfloat16& b) { return __hgt(a, b); }
__CASSC_BF16_FN bool operator>=(const __nv_bfloat16& a, const __nv_bfloat16& b) { return __hge(a, b); }

#endif /* HIP_VERSION_MAJOR >= 6 && __HIP__ */

/* compat.tsv's names for CUDA's hrcp/h2rcp (for __half, cuda_fp16.h's): the float reciprocal, rounded once. */
__CASSC_BF16_FN __nv_bfloat16 __cassc_hrcp(__nv_bfloat16 a) { return __float2bfloat16_rn(1.0f / __bfloat162float(a)); }
__CASSC_BF16_FN __nv_bfloat162 __cassc_h2rcp(__nv_bfloat162 a) {
  return __halves2bfloat162(__cassc_hrcp(__low2bfloat16(a)), __cassc_hrcp(__high2bfloat16(a)));
}
/* Directed rounding as CUDA's cvt.rz/rm/rp.bf16.f32: truncate the float's low half, then step one bf16 ulp
 * away from zero where the result must grow in magnitude and anything was cut; NaN is CUDA's 0x7fff. */
__CASSC_BF16_FN __nv_bfloat16 __cassc_float2bfloat16_directed(float a, bool toward_positive, bool toward_zero) {
  unsigned int u;
  __builtin_memcpy(&u, &a, sizeof u);
  if ((u & 0x7fffffffu) > 0x7f800000u) return __ushort_as_bfloat16(0x7fffu);
  unsigned short bits = static_cast<unsigned short>(u >> 16);
  const bool negative = u >> 31;
  if (!toward_zero && (u & 0xffffu) != 0 && negative != toward_positive) ++bits;
  return __ushort_as_bfloat16(bits);
}
__CASSC_BF16_FN __nv_bfloat16 __float2bfloat16_rz(float a) { return __cassc_float2bfloat16_directed(a, false, true); }
__CASSC_BF16_FN __nv_bfloat16 __float2bfloat16_rd(float a) { return __cassc_float2bfloat16_directed(a, false, false); }
__CASSC_BF16_FN __nv_bfloat16 __float2bfloat16_ru(float a) { return __cassc_float2bfloat16_directed(a, true, false); }
/* compat.tsv's name for CUDA's __double2bfloat16 (HIP 6.4's rounds to float first, then to bf16). */
__CASSC_BF16_FN __nv_bfloat16 __cassc_double2bfloat16(double a) { return __float2bfloat16_rn(__cassc_double_to_odd_float(a)); }

#if defined(__HIP__)
static __device__ inline __nv_bfloat16 atomicAdd(__nv_bfloat16* address, __nv_bfloat16 value) {
  return __cassc_atomic_update(address, [value](__nv_bfloat16 old) { return old + value; });
}
static __device__ inline __nv_bfloat162 atomicAdd(__nv_bfloat162* address, __nv_bfloat162 value) {
  return __cassc_atomic_update(address, [value](__nv_bfloat162 old) { return old + value; });
}
#endif

#define CUDART_INF_BF16 __ushort_as_bfloat16((unsigned short)0x7F80U)
#define CUDART_NAN_BF16 __ushort_as_bfloat16((unsigned short)0x7FFFU)
#define CUDART_MIN_DENORM_BF16 __ushort_as_bfloat16((unsigned short)0x0001U)
#define CUDART_MAX_NORMAL_BF16 __ushort_as_bfloat16((unsigned short)0x7F7FU)
#define CUDART_NEG_ZERO_BF16 __ushort_as_bfloat16((unsigned short)0x8000U)
#define CUDART_ZERO_BF16 __ushort_as_bfloat16((unsigned short)0x0000U)
#define CUDART_ONE_BF16 __ushort_as_bfloat16((unsigned short)0x3F80U)

#undef __CASSC_BF16_FN
