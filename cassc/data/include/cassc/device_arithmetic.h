/* cassc: CUDA's documented arithmetic intrinsics that HIP lacks (crt/device_functions.h,
 * device_double_functions.h, sm_20/sm_61/sm_100 intrinsics), with CUDA's results bit for bit
 * (tests/test_api_audit.py compares them with nvcc's on an H100/H200, tests/data/device_intrinsics_nvcc.tsv).
 * Pre-included through cuda_compat.h. Plain integer and IEEE arithmetic only: gfx11 has no
 * per-instruction rounding mode and its SIMD instructions are not PTX's video instructions.
 */
#pragma once
#include <type_traits>

#define __CASSC_ARITH __device__ static inline

/* ---- SIMD video intrinsics: per-halfword (W = 16) or per-byte (W = 8) lanes of a 32-bit word,
 * lane i in bits [i*W, (i+1)*W). Each lane's result is computed exactly in int and wrapped, clamped
 * or compared as the function's name says. */
template <int W>
__CASSC_ARITH int __cassc_lane_s(unsigned int word, int shift) {
  return static_cast<int>(word << (32 - W - shift)) >> (32 - W);
}
template <int W>
__CASSC_ARITH int __cassc_lane_u(unsigned int word, int shift) {
  return static_cast<int>((word >> shift) & ((1u << W) - 1u));
}
template <int W>
__CASSC_ARITH int __cassc_sat_s(int value) {
  const int high = (1 << (W - 1)) - 1, low = -(1 << (W - 1));
  return value > high ? high : (value < low ? low : value);
}
template <int W>
__CASSC_ARITH int __cassc_sat_u(int value) {
  const int high = (1 << W) - 1;
  return value > high ? high : (value < 0 ? 0 : value);
}
/* op(a_lane, b_lane) for each lane, signed or unsigned lanes, result lanes wrapped to W bits. */
template <int W, bool Signed, typename Op>
__CASSC_ARITH unsigned int __cassc_simd(unsigned int a, unsigned int b, Op op) {
  unsigned int result = 0;
  for (int shift = 0; shift < 32; shift += W) {
    int x = Signed ? __cassc_lane_s<W>(a, shift) : __cassc_lane_u<W>(a, shift);
    int y = Signed ? __cassc_lane_s<W>(b, shift) : __cassc_lane_u<W>(b, shift);
    result |= (static_cast<unsigned int>(op(x, y)) & ((1u << W) - 1u)) << shift;
  }
  return result;
}
/* Sum over lanes of op(a_lane, b_lane): the sum-of-absolute-differences intrinsics. */
template <int W, bool Signed, typename Op>
__CASSC_ARITH unsigned int __cassc_simd_sum(unsigned int a, unsigned int b, Op op) {
  unsigned int sum = 0;
  for (int shift = 0; shift < 32; shift += W) {
    int x = Signed ? __cassc_lane_s<W>(a, shift) : __cassc_lane_u<W>(a, shift);
    int y = Signed ? __cassc_lane_s<W>(b, shift) : __cassc_lane_u<W>(b, shift);
    sum += static_cast<unsigned int>(op(x, y));
  }
  return sum;
}
__CASSC_ARITH int __cassc_abs_int(int x) { return x < 0 ? -x : x; }
/* Signed rounded average: the sum halved, halves rounded away from zero. */
__CASSC_ARITH int __cassc_avg_s(int x, int y) { return (x + y + (x + y >= 0 ? 1 : 0)) >> 1; }

#define __CASSC_SIMD_UNARY(name, W, S, expr) \
  __CASSC_ARITH unsigned int name(unsigned int a) { return __cassc_simd<W, S>(a, 0u, [](int x, int) { return expr; }); }
#define __CASSC_SIMD_BINARY(name, W, S, expr) \
  __CASSC_ARITH unsigned int name(unsigned int a, unsigned int b) { \
    return __cassc_simd<W, S>(a, b, [](int x, int y) { return expr; }); \
  }
#define __CASSC_SIMD_SUM(name, W, S) \
  __CASSC_ARITH unsigned int name(unsigned int a, unsigned int b) { \
    return __cassc_simd_sum<W, S>(a, b, [](int x, int y) { return __cassc_abs_int(x - y); }); \
  }
#define __CASSC_SIMD_FAMILY(N, W)                                                        \
  __CASSC_SIMD_UNARY(__vabs##N, W, true, __cassc_abs_int(x))                              \
  __CASSC_SIMD_UNARY(__vabsss##N, W, true, __cassc_sat_s<W>(__cassc_abs_int(x)))          \
  __CASSC_SIMD_UNARY(__vneg##N, W, true, -x)                                              \
  __CASSC_SIMD_UNARY(__vnegss##N, W, true, __cassc_sat_s<W>(-x))                          \
  __CASSC_SIMD_BINARY(__vadd##N, W, false, x + y)                                         \
  __CASSC_SIMD_BINARY(__vaddss##N, W, true, __cassc_sat_s<W>(x + y))                      \
  __CASSC_SIMD_BINARY(__vaddus##N, W, false, __cassc_sat_u<W>(x + y))                     \
  __CASSC_SIMD_BINARY(__vsub##N, W, false, x - y)                                         \
  __CASSC_SIMD_BINARY(__vsubss##N, W, true, __cassc_sat_s<W>(x - y))                      \
  __CASSC_SIMD_BINARY(__vsubus##N, W, false, __cassc_sat_u<W>(x - y))                     \
  __CASSC_SIMD_BINARY(__vavgs##N, W, true, __cassc_avg_s(x, y))                           \
  __CASSC_SIMD_BINARY(__vavgu##N, W, false, (x + y + 1) >> 1)                             \
  __CASSC_SIMD_BINARY(__vhaddu##N, W, false, (x + y) >> 1)                                \
  __CASSC_SIMD_BINARY(__vabsdiffs##N, W, true, __cassc_abs_int(x - y))                    \
  __CASSC_SIMD_BINARY(__vabsdiffu##N, W, false, __cassc_abs_int(x - y))                   \
  __CASSC_SIMD_BINARY(__vmaxs##N, W, true, x > y ? x : y)                                 \
  __CASSC_SIMD_BINARY(__vmaxu##N, W, false, x > y ? x : y)                                \
  __CASSC_SIMD_BINARY(__vmins##N, W, true, x < y ? x : y)                                 \
  __CASSC_SIMD_BINARY(__vminu##N, W, false, x < y ? x : y)                                \
  __CASSC_SIMD_BINARY(__vcmpeq##N, W, false, x == y ? -1 : 0)                             \
  __CASSC_SIMD_BINARY(__vcmpne##N, W, false, x != y ? -1 : 0)                             \
  __CASSC_SIMD_BINARY(__vcmpges##N, W, true, x >= y ? -1 : 0)                             \
  __CASSC_SIMD_BINARY(__vcmpgeu##N, W, false, x >= y ? -1 : 0)                            \
  __CASSC_SIMD_BINARY(__vcmpgts##N, W, true, x > y ? -1 : 0)                              \
  __CASSC_SIMD_BINARY(__vcmpgtu##N, W, false, x > y ? -1 : 0)                             \
  __CASSC_SIMD_BINARY(__vcmples##N, W, true, x <= y ? -1 : 0)                             \
  __CASSC_SIMD_BINARY(__vcmpleu##N, W, false, x <= y ? -1 : 0)                            \
  __CASSC_SIMD_BINARY(__vcmplts##N, W, true, x < y ? -1 : 0)                              \
  __CASSC_SIMD_BINARY(__vcmpltu##N, W, false, x < y ? -1 : 0)                             \
  __CASSC_SIMD_BINARY(__vseteq##N, W, false, x == y)                                      \
  __CASSC_SIMD_BINARY(__vsetne##N, W, false, x != y)                                      \
  __CASSC_SIMD_BINARY(__vsetges##N, W, true, x >= y)                                      \
  __CASSC_SIMD_BINARY(__vsetgeu##N, W, false, x >= y)                                     \
  __CASSC_SIMD_BINARY(__vsetgts##N, W, true, x > y)                                       \
  __CASSC_SIMD_BINARY(__vsetgtu##N, W, false, x > y)                                      \
  __CASSC_SIMD_BINARY(__vsetles##N, W, true, x <= y)                                      \
  __CASSC_SIMD_BINARY(__vsetleu##N, W, false, x <= y)                                     \
  __CASSC_SIMD_BINARY(__vsetlts##N, W, true, x < y)                                       \
  __CASSC_SIMD_BINARY(__vsetltu##N, W, false, x < y)                                      \
  __CASSC_SIMD_SUM(__vsads##N, W, true)                                                   \
  __CASSC_SIMD_SUM(__vsadu##N, W, false)
__CASSC_SIMD_FAMILY(2, 16)
__CASSC_SIMD_FAMILY(4, 8)

/* ---- Directed rounding (_rz toward zero, _ru up, _rd down). The round-to-nearest result r and the
 * sign of (exact - r), found exactly (error-free transformations on fma), decide whether r moves one
 * ulp: up when the exact value lies above r and the mode rounds up, and so on. */
enum __cassc_rounding { __cassc_rz, __cassc_ru, __cassc_rd };

__CASSC_ARITH float __cassc_next_float(float x, int direction) { /* one ulp toward +inf (1) or -inf (-1) */
  if (x != x || (direction > 0 && x == __builtin_inff()) || (direction < 0 && x == -__builtin_inff())) return x;
  if (x == 0.0f) return direction > 0 ? __builtin_bit_cast(float, 1u) : -__builtin_bit_cast(float, 1u);
  unsigned int bits = __builtin_bit_cast(unsigned int, x);
  return __builtin_bit_cast(float, (x > 0.0f) == (direction > 0) ? bits + 1u : bits - 1u);
}
__CASSC_ARITH double __cassc_next_double(double x, int direction) {
  if (x != x || (direction > 0 && x == __builtin_inf()) || (direction < 0 && x == -__builtin_inf())) return x;
  if (x == 0.0) return direction > 0 ? __builtin_bit_cast(double, 1ull) : -__builtin_bit_cast(double, 1ull);
  unsigned long long bits = __builtin_bit_cast(unsigned long long, x);
  return __builtin_bit_cast(double, (x > 0.0) == (direction > 0) ? bits + 1ull : bits - 1ull);
}
/* r rounded to nearest; `above` > 0 when the exact value lies above r, < 0 below, 0 when r is exact. */
template <typename T>
__CASSC_ARITH int __cassc_step(T r, int above, __cassc_rounding mode) {
  if (above == 0) return 0;
  if (mode == __cassc_ru) return above > 0 ? 1 : 0;
  if (mode == __cassc_rd) return above < 0 ? -1 : 0;
  return (r > 0 && above < 0) ? -1 : ((r < 0 && above > 0) ? 1 : 0); /* toward zero */
}
template <typename T>
__CASSC_ARITH int __cassc_sign(T x) { return x > 0 ? 1 : (x < 0 ? -1 : 0); }

/* float results from an exact-enough double: d is the double nearest the exact value, `above` the
 * sign of (exact - d). Converting d to float rounds to nearest once more; both signs together say
 * where the exact value lies relative to the float (an overflow to inf is below the exact value). */
__CASSC_ARITH float __cassc_float_from(double d, int above, __cassc_rounding mode) {
  float r = static_cast<float>(d);
  if (r != r) return r;
  int side = static_cast<double>(r) != d ? __cassc_sign(d - static_cast<double>(r)) : above;
  int step = __cassc_step(r, side, mode);
  return step ? __cassc_next_float(r, step) : r;
}
/* Knuth's TwoSum: the rounding error of s = a + b, exactly. */
__CASSC_ARITH double __cassc_two_sum_error(double a, double b, double s) {
  double bb = s - a;
  return (a - (s - bb)) + (b - bb);
}
/* IEEE 754: an exact zero sum of operands of opposite signs is -0 when rounding down, +0 otherwise. */
template <typename T>
__CASSC_ARITH T __cassc_zero_sum(T a, T b, __cassc_rounding mode) {
  return mode == __cassc_rd && !(a == 0 && b == 0 && !__builtin_signbit(a) && !__builtin_signbit(b)) ? T(-0.0) : a + b;
}
__CASSC_ARITH float __cassc_fadd(float a, float b, __cassc_rounding mode) {
  double s = static_cast<double>(a) + b;
  if (s == 0.0) return static_cast<float>(__cassc_zero_sum<double>(a, b, mode));
  return __cassc_float_from(s, __cassc_sign(__cassc_two_sum_error(a, b, s)), mode);
}
__CASSC_ARITH float __cassc_fmul(float a, float b, __cassc_rounding mode) {
  return __cassc_float_from(static_cast<double>(a) * b, 0, mode); /* 24 x 24 bits: exact in double */
}
__CASSC_ARITH float __cassc_fmaf(float a, float b, float c, __cassc_rounding mode) {
  double p = static_cast<double>(a) * b, s = p + c;
  if (s == 0.0) return static_cast<float>(__cassc_zero_sum(p, static_cast<double>(c), mode));
  return __cassc_float_from(s, __cassc_sign(__cassc_two_sum_error(p, c, s)), mode);
}
__CASSC_ARITH float __cassc_fdiv(float a, float b, __cassc_rounding mode) {
  double q = static_cast<double>(a) / b;
  if (q != q || q == __builtin_inf() || q == -__builtin_inf() || q == 0.0) return __cassc_float_from(q, 0, mode);
  double remainder = __builtin_fma(-q, static_cast<double>(b), static_cast<double>(a)); /* exact */
  return __cassc_float_from(q, __cassc_sign(remainder) * __cassc_sign(b), mode);
}
__CASSC_ARITH float __cassc_fsqrt(float a, __cassc_rounding mode) {
  if (a < 0.0f) return __builtin_nanf("");
  if (!(a < __builtin_inff())) return a; /* inf, NaN */
  double s = __builtin_sqrt(static_cast<double>(a));
  if (s != s || s == 0.0 || s == __builtin_inf()) return __cassc_float_from(s, 0, mode);
  return __cassc_float_from(s, __cassc_sign(__builtin_fma(-s, s, static_cast<double>(a))), mode);
}

/* double results: r rounded to nearest, `above` the sign of (exact - r); a finite operation that
 * overflowed to inf lies below (above) it. */
__CASSC_ARITH double __cassc_double_from(double r, int above, __cassc_rounding mode) {
  int step = __cassc_step(r, above, mode);
  return step ? __cassc_next_double(r, step) : r;
}
__CASSC_ARITH int __cassc_overflow_side(double r) { return r == __builtin_inf() ? -1 : (r == -__builtin_inf() ? 1 : 0); }
__CASSC_ARITH bool __cassc_finite(double x) { return x == x && x != __builtin_inf() && x != -__builtin_inf(); }
/* Below this magnitude the exact error of a product, quotient or square root could underflow: the
 * error terms are then computed on operands scaled by 2^SCALE, which keeps their sign exact. */
#define __CASSC_TINY 0x1p-900
#define __CASSC_SCALE 0x1p110
__CASSC_ARITH double __cassc_dadd(double a, double b, __cassc_rounding mode) {
  double s = a + b;
  if (s == 0.0) return __cassc_zero_sum(a, b, mode);
  if (!__cassc_finite(s)) return __cassc_finite(a) && __cassc_finite(b) ? __cassc_double_from(s, __cassc_overflow_side(s), mode) : s;
  return __cassc_double_from(s, __cassc_sign(__cassc_two_sum_error(a, b, s)), mode);
}
__CASSC_ARITH double __cassc_dmul(double a, double b, __cassc_rounding mode) {
  double p = a * b;
  if (!__cassc_finite(p)) return __cassc_finite(a) && __cassc_finite(b) ? __cassc_double_from(p, __cassc_overflow_side(p), mode) : p;
  if (__builtin_fabs(p) >= __CASSC_TINY) return __cassc_double_from(p, __cassc_sign(__builtin_fma(a, b, -p)), mode);
  if (p == 0.0) return a == 0.0 || b == 0.0 ? p : __cassc_double_from(p, __cassc_sign(a) * __cassc_sign(b), mode);
  double small = __builtin_fabs(a) < __builtin_fabs(b) ? a : b, large = small == a ? b : a;
  return __cassc_double_from(p, __cassc_sign(__builtin_fma(small * __CASSC_SCALE, large, -p * __CASSC_SCALE)), mode);
}
/* Boldo and Muller's ErrFma: a*b + c = r + e1 + e2 exactly, |e2| <= ulp(e1)/2. A tiny result is
 * recomputed on operands scaled by 2^SCALE (the smaller factor, and c), whose difference from the
 * scaled r keeps the sign of (exact - r). */
__CASSC_ARITH int __cassc_fma_side(double a, double b, double c, double r) {
  double u1 = a * b, u2 = __builtin_fma(a, b, -u1);
  double alpha1 = c + u2, z = __cassc_two_sum_error(c, u2, alpha1);
  double beta1 = u1 + alpha1, beta2 = __cassc_two_sum_error(u1, alpha1, beta1);
  double rounded = __builtin_fma(a, b, c);
  double g = (beta1 - rounded) + beta2;
  double e1 = g + z, e2 = z - (e1 - g);
  double d = rounded - r;
  return d != 0.0 ? __cassc_sign(d) : (e1 != 0.0 ? __cassc_sign(e1) : __cassc_sign(e2));
}
__CASSC_ARITH double __cassc_dfma(double a, double b, double c, __cassc_rounding mode) {
  double r = __builtin_fma(a, b, c);
  if (!__cassc_finite(r)) {
    return __cassc_finite(a) && __cassc_finite(b) && __cassc_finite(c) ? __cassc_double_from(r, __cassc_overflow_side(r), mode) : r;
  }
  if (__builtin_fabs(r) >= __CASSC_TINY) return __cassc_double_from(r, __cassc_fma_side(a, b, c, r), mode);
  if (__builtin_fabs(a) > __builtin_fabs(b)) {
    double swap = a;
    a = b;
    b = swap;
  }
  int side = __cassc_fma_side(a * __CASSC_SCALE, b, c * __CASSC_SCALE, r * __CASSC_SCALE);
  if (r == 0.0 && side == 0) return __cassc_zero_sum(a * b, c, mode);
  return __cassc_double_from(r, side, mode);
}
__CASSC_ARITH double __cassc_ddiv(double a, double b, __cassc_rounding mode) {
  double q = a / b;
  if (!__cassc_finite(q)) {
    return __cassc_finite(a) && __cassc_finite(b) && b != 0.0 ? __cassc_double_from(q, __cassc_overflow_side(q), mode) : q;
  }
  if (a == 0.0) return q;
  double scale = __builtin_fabs(q) < __CASSC_TINY || __builtin_fabs(a) < __CASSC_TINY ? __CASSC_SCALE : 1.0;
  return __cassc_double_from(q, __cassc_sign(__builtin_fma(-q * scale, b, a * scale)) * __cassc_sign(b), mode);
}
__CASSC_ARITH double __cassc_dsqrt(double a, __cassc_rounding mode) {
  if (a < 0.0) return __builtin_nan("");
  if (!(a < __builtin_inf())) return a;
  double s = __builtin_sqrt(a);
  if (!__cassc_finite(s) || s == 0.0) return s;
  double scale = a < __CASSC_TINY ? __CASSC_SCALE : 1.0; /* s * scale squared is a * scale^2 */
  return __cassc_double_from(s, __cassc_sign(__builtin_fma(-s * scale, s * scale, a * scale * scale)), mode);
}

#define __CASSC_DIRECTED(suffix, mode)                                                              \
  __CASSC_ARITH float __fadd_##suffix(float a, float b) { return __cassc_fadd(a, b, mode); }          \
  __CASSC_ARITH float __fsub_##suffix(float a, float b) { return __cassc_fadd(a, -b, mode); }         \
  __CASSC_ARITH float __fmul_##suffix(float a, float b) { return __cassc_fmul(a, b, mode); }          \
  __CASSC_ARITH float __fmaf_##suffix(float a, float b, float c) { return __cassc_fmaf(a, b, c, mode); } \
  __CASSC_ARITH float __fmaf_ieee_##suffix(float a, float b, float c) { return __cassc_fmaf(a, b, c, mode); } \
  __CASSC_ARITH float __fdiv_##suffix(float a, float b) { return __cassc_fdiv(a, b, mode); }          \
  __CASSC_ARITH float __frcp_##suffix(float a) { return __cassc_fdiv(1.0f, a, mode); }                 \
  __CASSC_ARITH float __fsqrt_##suffix(float a) { return __cassc_fsqrt(a, mode); }                     \
  __CASSC_ARITH double __dadd_##suffix(double a, double b) { return __cassc_dadd(a, b, mode); }       \
  __CASSC_ARITH double __dsub_##suffix(double a, double b) { return __cassc_dadd(a, -b, mode); }      \
  __CASSC_ARITH double __dmul_##suffix(double a, double b) { return __cassc_dmul(a, b, mode); }       \
  __CASSC_ARITH double __fma_##suffix(double a, double b, double c) { return __cassc_dfma(a, b, c, mode); } \
  __CASSC_ARITH double __ddiv_##suffix(double a, double b) { return __cassc_ddiv(a, b, mode); }       \
  __CASSC_ARITH double __drcp_##suffix(double a) { return __cassc_ddiv(1.0, a, mode); }                \
  __CASSC_ARITH double __dsqrt_##suffix(double a) { return __cassc_dsqrt(a, mode); }
__CASSC_DIRECTED(rz, __cassc_rz)
__CASSC_DIRECTED(ru, __cassc_ru)
__CASSC_DIRECTED(rd, __cassc_rd)
__CASSC_ARITH float __fmaf_ieee_rn(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
__CASSC_ARITH double fdivide(double a, double b) { return a / b; }
__CASSC_ARITH float __tanhf(float x) { return tanhf(x); } /* CUDA's fast form; the accurate one is within its bound */

/* sm_100's paired float operations: each element as its scalar intrinsic. */
#define __CASSC_PAIRED(suffix, mode)                                                                          \
  __CASSC_ARITH float2 __fadd2_##suffix(float2 a, float2 b) { return float2(__cassc_fadd(a.x, b.x, mode), __cassc_fadd(a.y, b.y, mode)); } \
  __CASSC_ARITH float2 __fmul2_##suffix(float2 a, float2 b) { return float2(__cassc_fmul(a.x, b.x, mode), __cassc_fmul(a.y, b.y, mode)); } \
  __CASSC_ARITH float2 __ffma2_##suffix(float2 a, float2 b, float2 c) {                                        \
    return float2(__cassc_fmaf(a.x, b.x, c.x, mode), __cassc_fmaf(a.y, b.y, c.y, mode));                      \
  }
__CASSC_PAIRED(rz, __cassc_rz)
__CASSC_PAIRED(ru, __cassc_ru)
__CASSC_PAIRED(rd, __cassc_rd)
__CASSC_ARITH float2 __fadd2_rn(float2 a, float2 b) { return float2(a.x + b.x, a.y + b.y); }
__CASSC_ARITH float2 __fmul2_rn(float2 a, float2 b) { return float2(a.x * b.x, a.y * b.y); }
__CASSC_ARITH float2 __ffma2_rn(float2 a, float2 b, float2 c) {
  return float2(__builtin_fmaf(a.x, b.x, c.x), __builtin_fmaf(a.y, b.y, c.y));
}

/* sm_61's two-way dot products: the two 16-bit halves of a times two bytes of b (bytes 0-1 for _lo,
 * 2-3 for _hi), plus c. */
template <bool Signed, int FirstByte>
__CASSC_ARITH int __cassc_dp2a(unsigned int a, unsigned int b, int c) {
  for (int i = 0; i < 2; ++i) {
    int half = Signed ? __cassc_lane_s<16>(a, 16 * i) : __cassc_lane_u<16>(a, 16 * i);
    int byte = Signed ? __cassc_lane_s<8>(b, 8 * (FirstByte + i)) : __cassc_lane_u<8>(b, 8 * (FirstByte + i));
    c += half * byte;
  }
  return c;
}
__CASSC_ARITH int __dp2a_lo(int a, int b, int c) { return __cassc_dp2a<true, 0>(a, b, c); }
__CASSC_ARITH unsigned int __dp2a_lo(unsigned int a, unsigned int b, unsigned int c) { return __cassc_dp2a<false, 0>(a, b, c); }
__CASSC_ARITH int __dp2a_hi(int a, int b, int c) { return __cassc_dp2a<true, 2>(a, b, c); }
__CASSC_ARITH unsigned int __dp2a_hi(unsigned int a, unsigned int b, unsigned int c) { return __cassc_dp2a<false, 2>(a, b, c); }
/* the vector forms: halves and bytes packed as in memory (x lowest) */
template <typename Vector>
__CASSC_ARITH unsigned int __cassc_pack(Vector v) {
  const int bits = 32 / (sizeof(v) / sizeof(v.x));
  unsigned int mask = bits == 16 ? 0xffffu : 0xffu, word = static_cast<unsigned int>(v.x) & mask;
  word |= (static_cast<unsigned int>(v.y) & mask) << bits;
  if constexpr (sizeof(v) / sizeof(v.x) == 4) {
    word |= (static_cast<unsigned int>(v.z) & mask) << 16;
    word |= (static_cast<unsigned int>(v.w) & mask) << 24;
  }
  return word;
}
__CASSC_ARITH int __dp2a_lo(short2 a, char4 b, int c) { return __dp2a_lo(static_cast<int>(__cassc_pack(a)), static_cast<int>(__cassc_pack(b)), c); }
__CASSC_ARITH unsigned int __dp2a_lo(ushort2 a, uchar4 b, unsigned int c) { return __dp2a_lo(__cassc_pack(a), __cassc_pack(b), c); }
__CASSC_ARITH int __dp2a_hi(short2 a, char4 b, int c) { return __dp2a_hi(static_cast<int>(__cassc_pack(a)), static_cast<int>(__cassc_pack(b)), c); }
__CASSC_ARITH unsigned int __dp2a_hi(ushort2 a, uchar4 b, unsigned int c) { return __dp2a_hi(__cassc_pack(a), __cassc_pack(b), c); }

#if HIP_VERSION_MAJOR < 6 /* HIP 6 has __fns */
/* PTX fns: the position of the |offset|-th set bit of mask counting from base (itself included)
 * toward the most (offset > 0) or least (offset < 0) significant bit; offset 0 asks whether base
 * itself is set. 0xffffffff when there is none. */
__CASSC_ARITH unsigned int __fns(unsigned int mask, unsigned int base, int offset) {
  if (offset == 0) return base < 32 && (mask >> base) & 1u ? base : 0xffffffffu;
  int step = offset > 0 ? 1 : -1, remaining = offset > 0 ? offset : -offset;
  for (int position = static_cast<int>(base); position >= 0 && position < 32; position += step) {
    if ((mask >> position) & 1u && --remaining == 0) return static_cast<unsigned int>(position);
  }
  return 0xffffffffu;
}
#endif

/* ---- CUDA intrinsics HIP 5.2 defines with another meaning (compat.tsv renames them here; the
 * semantics audit found each): directed conversions rounded to nearest, unsigned read as signed,
 * out-of-range conversions left undefined where CUDA saturates, halving adds that overflow. */
/* float or double -> integer: rounded as the suffix says, then clamped to the type (NaN gives 0). */
template <typename Integer, typename Real>
__CASSC_ARITH Integer __cassc_to_integer(Real x, int mode /* 0 nearest, 1 zero, 2 up, 3 down */) {
  constexpr bool is_signed = static_cast<Integer>(-1) < 0;
  constexpr int bits = 8 * sizeof(Integer);
  constexpr Integer max = static_cast<Integer>(~0ull >> (64 - bits + (is_signed ? 1 : 0)));
  const Real limit = static_cast<Real>(1ull << (bits - 2)) * (is_signed ? 2 : 4); /* 2^31, 2^32, 2^63, 2^64 */
  if (x != x) return 0;
  Real r = mode == 0 ? __builtin_rint(x) : mode == 1 ? __builtin_trunc(x) : mode == 2 ? __builtin_ceil(x) : __builtin_floor(x);
  if (r >= limit) return max;
  if (is_signed ? r < -limit : r < 0) return is_signed ? static_cast<Integer>(-max - 1) : 0;
  return static_cast<Integer>(r);
}
#define __CASSC_TO_INTEGER(from, to, Real, Integer)                                                       \
  __CASSC_ARITH Integer __cassc_##from##2##to##_rn(Real x) { return __cassc_to_integer<Integer>(x, 0); } \
  __CASSC_ARITH Integer __cassc_##from##2##to##_rz(Real x) { return __cassc_to_integer<Integer>(x, 1); } \
  __CASSC_ARITH Integer __cassc_##from##2##to##_ru(Real x) { return __cassc_to_integer<Integer>(x, 2); } \
  __CASSC_ARITH Integer __cassc_##from##2##to##_rd(Real x) { return __cassc_to_integer<Integer>(x, 3); }
__CASSC_TO_INTEGER(float, int, float, int)
__CASSC_TO_INTEGER(float, uint, float, unsigned int)
__CASSC_TO_INTEGER(float, ll, float, long long int)
__CASSC_TO_INTEGER(float, ull, float, unsigned long long int)
__CASSC_TO_INTEGER(double, int, double, int)
__CASSC_TO_INTEGER(double, uint, double, unsigned int)
__CASSC_TO_INTEGER(double, ll, double, long long int)
__CASSC_TO_INTEGER(double, ull, double, unsigned long long int)

/* integer -> float or double, rounded as the suffix says: the integer as an exact sum of two doubles
 * (high and low 32 bits), whose rounded sum and TwoSum error give the direction. */
template <typename Integer>
__CASSC_ARITH double __cassc_integer_sum(Integer v, double* error) {
  double high = static_cast<double>(static_cast<Integer>(v >> 16 >> 16)) * 4294967296.0;  /* v >> 32, defined for 32-bit types too */
  double low = static_cast<double>(static_cast<unsigned int>(v & 0xffffffffu));
  double sum = high + low;
  *error = __cassc_two_sum_error(high, low, sum);
  return sum;
}
#define __CASSC_FROM_INTEGER(from, Integer)                                                                          \
  __CASSC_ARITH float __cassc_##from##2float_rn(Integer v) { return static_cast<float>(v); }                          \
  __CASSC_ARITH double __cassc_##from##2double_rn(Integer v) { return static_cast<double>(v); }                       \
  __CASSC_ARITH float __cassc_##from##2float_mode(Integer v, __cassc_rounding mode) {                                \
    double error, sum = __cassc_integer_sum(v, &error);                                                               \
    return __cassc_float_from(sum, __cassc_sign(error), mode);                                                        \
  }                                                                                                                   \
  __CASSC_ARITH double __cassc_##from##2double_mode(Integer v, __cassc_rounding mode) {                              \
    double error, sum = __cassc_integer_sum(v, &error);                                                               \
    return __cassc_double_from(sum, __cassc_sign(error), mode);                                                       \
  }                                                                                                                   \
  __CASSC_ARITH float __cassc_##from##2float_rz(Integer v) { return __cassc_##from##2float_mode(v, __cassc_rz); }     \
  __CASSC_ARITH float __cassc_##from##2float_ru(Integer v) { return __cassc_##from##2float_mode(v, __cassc_ru); }     \
  __CASSC_ARITH float __cassc_##from##2float_rd(Integer v) { return __cassc_##from##2float_mode(v, __cassc_rd); }     \
  __CASSC_ARITH double __cassc_##from##2double_rz(Integer v) { return __cassc_##from##2double_mode(v, __cassc_rz); }  \
  __CASSC_ARITH double __cassc_##from##2double_ru(Integer v) { return __cassc_##from##2double_mode(v, __cassc_ru); }  \
  __CASSC_ARITH double __cassc_##from##2double_rd(Integer v) { return __cassc_##from##2double_mode(v, __cassc_rd); }
__CASSC_FROM_INTEGER(int, int)
__CASSC_FROM_INTEGER(uint, unsigned int)
__CASSC_FROM_INTEGER(ll, long long int)
__CASSC_FROM_INTEGER(ull, unsigned long long int)
__CASSC_ARITH float __cassc_double2float_rn(double x) { return static_cast<float>(x); }
__CASSC_ARITH float __cassc_double2float_rz(double x) { return __cassc_float_from(x, 0, __cassc_rz); }
__CASSC_ARITH float __cassc_double2float_ru(double x) { return __cassc_float_from(x, 0, __cassc_ru); }
__CASSC_ARITH float __cassc_double2float_rd(double x) { return __cassc_float_from(x, 0, __cassc_rd); }

/* CUDA's clamp to [0, 1] gives +0 for -0 and for NaN. */
__CASSC_ARITH float __cassc_saturatef(float x) { return x > 0.0f ? (x < 1.0f ? x : 1.0f) : 0.0f; }
/* |x - y| + z in unsigned arithmetic: the difference of two ints may exceed INT_MAX. */
__CASSC_ARITH unsigned int __cassc_sad(int x, int y, unsigned int z) {
  return (x > y ? static_cast<unsigned int>(x) - static_cast<unsigned int>(y)
                : static_cast<unsigned int>(y) - static_cast<unsigned int>(x)) + z;
}
/* Halving adds without the sum's overflow: (x + y) >> 1, rounded up for the r forms. CUDA's integer __hadd
 * shares its name with cuda_fp16.h's and cuda_bf16.h's half additions, and compat.tsv renames every __hadd
 * call, so the rename is type-aware here: the halving add for arithmetic arguments (converted to int, as
 * C++ picks CUDA's int __hadd(int, int) for them over the half one), and for any other type that type's
 * own __hadd, found by argument-dependent lookup where the call is (bf16, a user's type; __half, whose
 * functions HIP hides from that lookup, names its own in cassc/cuda_fp16.h). */
template <typename T>
constexpr bool __cassc_integer_argument = std::is_arithmetic<T>::value || std::is_enum<T>::value;
template <typename T, typename U,
          typename std::enable_if<__cassc_integer_argument<T> && __cassc_integer_argument<U>, int>::type = 0>
__CASSC_ARITH int __cassc_hadd(T x, U y) {
  return static_cast<int>((static_cast<long long>(static_cast<int>(x)) + static_cast<int>(y)) >> 1);
}
template <typename T, typename U,
          typename std::enable_if<!(__cassc_integer_argument<T> && __cassc_integer_argument<U>), int>::type = 0>
static __host__ __device__ inline auto __cassc_hadd(T x, U y) -> decltype(__hadd(x, y)) { return __hadd(x, y); }
__CASSC_ARITH int __cassc_rhadd(int x, int y) { return static_cast<int>((static_cast<long long>(x) + y + 1) >> 1); }
__CASSC_ARITH unsigned int __cassc_uhadd(unsigned int x, unsigned int y) {
  return static_cast<unsigned int>((static_cast<unsigned long long>(x) + y) >> 1);
}
__CASSC_ARITH unsigned int __cassc_urhadd(unsigned int x, unsigned int y) {
  return static_cast<unsigned int>((static_cast<unsigned long long>(x) + y + 1) >> 1);
}

/* ---- DPX functions (CUDA 12, crt/device_functions.h): three-way max/min, add-then-max/min, max/min that
 * also report the comparison, each optionally clamped at zero ("_relu"), on 32-bit integers or on two
 * 16-bit halves. Adds wrap in their width (add.s32, add.s16x2), comparisons are signed or unsigned as
 * named; `__vibmax`'s predicate is a >= b and `__vibmin`'s a <= b (hi: the upper halves). Host and
 * device, as CUDA's. */
#define __CASSC_DPX __host__ __device__ static inline
template <bool Signed>
__CASSC_DPX int __cassc_dpx_half(unsigned int word, int shift) {
  return Signed ? static_cast<int>(static_cast<short>(word >> shift)) : static_cast<int>((word >> shift) & 0xffffu);
}
/* op(a, b, c) per half, each half wrapped back to 16 bits: add wraps there, as add.s16x2. */
template <bool Signed, typename Op>
__CASSC_DPX unsigned int __cassc_dpx_halves(unsigned int a, unsigned int b, unsigned int c, Op op) {
  unsigned int result = 0;
  for (int shift = 0; shift < 32; shift += 16) {
    const int x = __cassc_dpx_half<Signed>(a, shift), y = __cassc_dpx_half<Signed>(b, shift);
    const int z = __cassc_dpx_half<Signed>(c, shift);
    result |= (static_cast<unsigned int>(op(x, y, z)) & 0xffffu) << shift;
  }
  return result;
}
template <bool Signed>
__CASSC_DPX int __cassc_dpx_wrap16(int value) {
  return __cassc_dpx_half<Signed>(static_cast<unsigned int>(value), 0);
}
template <typename T> __CASSC_DPX T __cassc_dpx_max(T a, T b) { return a > b ? a : b; }
template <typename T> __CASSC_DPX T __cassc_dpx_min(T a, T b) { return a < b ? a : b; }
__CASSC_DPX int __cassc_dpx_add(int a, int b) { return static_cast<int>(static_cast<unsigned int>(a) + static_cast<unsigned int>(b)); }

__CASSC_DPX int __vimax_s32_relu(const int a, const int b) { return __cassc_dpx_max(__cassc_dpx_max(a, b), 0); }
__CASSC_DPX int __vimin_s32_relu(const int a, const int b) { return __cassc_dpx_max(__cassc_dpx_min(a, b), 0); }
__CASSC_DPX unsigned int __vimax_s16x2_relu(const unsigned int a, const unsigned int b) {
  return __cassc_dpx_halves<true>(a, b, 0u, [](int x, int y, int) { return __cassc_dpx_max(__cassc_dpx_max(x, y), 0); });
}
__CASSC_DPX unsigned int __vimin_s16x2_relu(const unsigned int a, const unsigned int b) {
  return __cassc_dpx_halves<true>(a, b, 0u, [](int x, int y, int) { return __cassc_dpx_max(__cassc_dpx_min(x, y), 0); });
}
#define __CASSC_DPX_THREE(name, T, expr)                                                         \
  __CASSC_DPX T name(const T a, const T b, const T c) { return expr; }
#define __CASSC_DPX_THREE_HALVES(name, Signed, expr)                                              \
  __CASSC_DPX unsigned int name(const unsigned int a, const unsigned int b, const unsigned int c) { \
    return __cassc_dpx_halves<Signed>(a, b, c, [](int x, int y, int z) { return expr; });         \
  }
__CASSC_DPX_THREE(__vimax3_s32, int, __cassc_dpx_max(__cassc_dpx_max(a, b), c))
__CASSC_DPX_THREE(__vimax3_u32, unsigned int, __cassc_dpx_max(__cassc_dpx_max(a, b), c))
__CASSC_DPX_THREE(__vimin3_s32, int, __cassc_dpx_min(__cassc_dpx_min(a, b), c))
__CASSC_DPX_THREE(__vimin3_u32, unsigned int, __cassc_dpx_min(__cassc_dpx_min(a, b), c))
__CASSC_DPX_THREE(__vimax3_s32_relu, int, __cassc_dpx_max(__cassc_dpx_max(__cassc_dpx_max(a, b), c), 0))
__CASSC_DPX_THREE(__vimin3_s32_relu, int, __cassc_dpx_max(__cassc_dpx_min(__cassc_dpx_min(a, b), c), 0))
__CASSC_DPX_THREE(__viaddmax_s32, int, __cassc_dpx_max(__cassc_dpx_add(a, b), c))
__CASSC_DPX_THREE(__viaddmax_u32, unsigned int, __cassc_dpx_max(a + b, c))
__CASSC_DPX_THREE(__viaddmin_s32, int, __cassc_dpx_min(__cassc_dpx_add(a, b), c))
__CASSC_DPX_THREE(__viaddmin_u32, unsigned int, __cassc_dpx_min(a + b, c))
__CASSC_DPX_THREE(__viaddmax_s32_relu, int, __cassc_dpx_max(__cassc_dpx_max(__cassc_dpx_add(a, b), c), 0))
__CASSC_DPX_THREE(__viaddmin_s32_relu, int, __cassc_dpx_max(__cassc_dpx_min(__cassc_dpx_add(a, b), c), 0))
__CASSC_DPX_THREE_HALVES(__vimax3_s16x2, true, __cassc_dpx_max(__cassc_dpx_max(x, y), z))
__CASSC_DPX_THREE_HALVES(__vimax3_u16x2, false, __cassc_dpx_max(__cassc_dpx_max(x, y), z))
__CASSC_DPX_THREE_HALVES(__vimin3_s16x2, true, __cassc_dpx_min(__cassc_dpx_min(x, y), z))
__CASSC_DPX_THREE_HALVES(__vimin3_u16x2, false, __cassc_dpx_min(__cassc_dpx_min(x, y), z))
__CASSC_DPX_THREE_HALVES(__vimax3_s16x2_relu, true, __cassc_dpx_max(__cassc_dpx_max(__cassc_dpx_max(x, y), z), 0))
__CASSC_DPX_THREE_HALVES(__vimin3_s16x2_relu, true, __cassc_dpx_max(__cassc_dpx_min(__cassc_dpx_min(x, y), z), 0))
__CASSC_DPX_THREE_HALVES(__viaddmax_s16x2, true, __cassc_dpx_max(__cassc_dpx_wrap16<true>(x + y), z))
__CASSC_DPX_THREE_HALVES(__viaddmax_u16x2, false, __cassc_dpx_max(__cassc_dpx_wrap16<false>(x + y), z))
__CASSC_DPX_THREE_HALVES(__viaddmin_s16x2, true, __cassc_dpx_min(__cassc_dpx_wrap16<true>(x + y), z))
__CASSC_DPX_THREE_HALVES(__viaddmin_u16x2, false, __cassc_dpx_min(__cassc_dpx_wrap16<false>(x + y), z))
__CASSC_DPX_THREE_HALVES(__viaddmax_s16x2_relu, true, __cassc_dpx_max(__cassc_dpx_max(__cassc_dpx_wrap16<true>(x + y), z), 0))
__CASSC_DPX_THREE_HALVES(__viaddmin_s16x2_relu, true, __cassc_dpx_max(__cassc_dpx_min(__cassc_dpx_wrap16<true>(x + y), z), 0))
#undef __CASSC_DPX_THREE
#undef __CASSC_DPX_THREE_HALVES

__CASSC_DPX int __vibmax_s32(const int a, const int b, bool* const pred) { *pred = a >= b; return *pred ? a : b; }
__CASSC_DPX unsigned int __vibmax_u32(const unsigned int a, const unsigned int b, bool* const pred) { *pred = a >= b; return *pred ? a : b; }
__CASSC_DPX int __vibmin_s32(const int a, const int b, bool* const pred) { *pred = a <= b; return *pred ? a : b; }
__CASSC_DPX unsigned int __vibmin_u32(const unsigned int a, const unsigned int b, bool* const pred) { *pred = a <= b; return *pred ? a : b; }
template <bool Signed, bool Max>
__CASSC_DPX unsigned int __cassc_vib_halves(unsigned int a, unsigned int b, bool* pred_hi, bool* pred_lo) {
  const int a_lo = __cassc_dpx_half<Signed>(a, 0), b_lo = __cassc_dpx_half<Signed>(b, 0);
  const int a_hi = __cassc_dpx_half<Signed>(a, 16), b_hi = __cassc_dpx_half<Signed>(b, 16);
  *pred_lo = Max ? a_lo >= b_lo : a_lo <= b_lo;
  *pred_hi = Max ? a_hi >= b_hi : a_hi <= b_hi;
  return ((*pred_lo ? a : b) & 0xffffu) | ((*pred_hi ? a : b) & 0xffff0000u);
}
__CASSC_DPX unsigned int __vibmax_s16x2(const unsigned int a, const unsigned int b, bool* const pred_hi, bool* const pred_lo) {
  return __cassc_vib_halves<true, true>(a, b, pred_hi, pred_lo);
}
__CASSC_DPX unsigned int __vibmax_u16x2(const unsigned int a, const unsigned int b, bool* const pred_hi, bool* const pred_lo) {
  return __cassc_vib_halves<false, true>(a, b, pred_hi, pred_lo);
}
__CASSC_DPX unsigned int __vibmin_s16x2(const unsigned int a, const unsigned int b, bool* const pred_hi, bool* const pred_lo) {
  return __cassc_vib_halves<true, false>(a, b, pred_hi, pred_lo);
}
__CASSC_DPX unsigned int __vibmin_u16x2(const unsigned int a, const unsigned int b, bool* const pred_hi, bool* const pred_lo) {
  return __cassc_vib_halves<false, false>(a, b, pred_hi, pred_lo);
}
#undef __CASSC_DPX
