/* cassc: inline PTX's registers and the target-free instructions inline-ptx.tsv's rules produce, for both
 * targets: included by device_intrinsics.h (AMD) and by the hip-to-cuda header set (NVIDIA, whose
 * hip_to_cuda.h defines the rest: addresses, the memory model, half-precision functions).
 */
#pragma once
/* A PTX register is bits: a value crosses between a C++ variable
 * and an instruction's type as its bits where their sizes agree (a float bound to a .b32 operand, a __half to
 * a .b16 one) and is converted where they do not (a .u8 load into an int zero-extends, an .s8 one
 * sign-extends, as PTX's wider destination registers do). */
template <class T, class V, bool same_size = sizeof(T) == sizeof(V)> struct __cassc_ptx_register {
  __host__ __device__ static T value(V value) { return (T)value; }
};
template <class T, class V> struct __cassc_ptx_register<T, V, true> {
  __host__ __device__ static T value(V value) { return __builtin_bit_cast(T, value); }
};
template <class T, class V> __host__ __device__ static inline T __cassc_ptx_value(V value) {
  return __cassc_ptx_register<T, V>::value(value);
}
template <class D, class V> __host__ __device__ static inline void __cassc_ptx_assign(D& target, V value) {
  target = __cassc_ptx_value<D>(value);
}
template <unsigned int bytes> struct __cassc_ptx_bits;
template <> struct __cassc_ptx_bits<4> { using type = unsigned int; };
template <> struct __cassc_ptx_bits<8> { using type = unsigned long long; };
/* mov.b64 {lo, hi} / mov.b32 {lo, hi}: a register's halves, low half first. */
template <class Half, class L, class H>
__host__ __device__ static inline typename __cassc_ptx_bits<2 * sizeof(Half)>::type __cassc_ptx_join(L low, H high) {
  typedef typename __cassc_ptx_bits<2 * sizeof(Half)>::type Whole;
  return (Whole)((Whole)__cassc_ptx_value<Half>(high) << (8 * sizeof(Half)) | __cassc_ptx_value<Half>(low));
}
template <class Half, class L, class H, class V> __host__ __device__ static inline void __cassc_ptx_split(L& low, H& high, V value) {
  typedef typename __cassc_ptx_bits<2 * sizeof(Half)>::type Whole;
  Whole bits = __cassc_ptx_value<Whole>(value);
  __cassc_ptx_assign(low, (Half)bits);
  __cassc_ptx_assign(high, (Half)(bits >> (8 * sizeof(Half))));
}
/* atom's operations, as the template argument of __cassc_ptx_atomic. */
enum { __CASSC_PTX_ADD, __CASSC_PTX_AND, __CASSC_PTX_OR, __CASSC_PTX_XOR, __CASSC_PTX_MIN, __CASSC_PTX_MAX,
       __CASSC_PTX_EXCH };
/* bfind: the bit number of the most significant bit that is set (signed: that differs from the sign), or of
 * its distance from the top with .shiftamt; 0xffffffff where there is none. */
template <bool shift_amount, class T> __host__ __device__ static inline unsigned int __cassc_bfind(T value) {
  typedef typename __cassc_ptx_bits<sizeof(T)>::type Bits;
  Bits bits = value < 0 ? ~(Bits)value : (Bits)value;
  if (bits == 0) return 0xffffffffu;
  unsigned int top = 8 * sizeof(T) - 1 - (sizeof(T) == 4 ? __builtin_clz((unsigned int)bits) : __builtin_clzll(bits));
  return shift_amount ? 8 * sizeof(T) - 1 - top : top;
}
/* Scalar video shifts on unsigned words: .clamp caps the amount at 32, .wrap takes it modulo 32. */
template <bool left, bool clamp> __host__ __device__ static inline unsigned int __cassc_video_shift(unsigned int value, unsigned int amount) {
  amount = clamp ? (amount > 32u ? 32u : amount) : amount & 31u;
  return amount == 32u ? 0u : left ? value << amount : value >> amount;
}
__host__ __device__ static inline unsigned int __cassc_video_add(unsigned int a, unsigned int c) { return a + c; }
__host__ __device__ static inline unsigned int __cassc_video_min(unsigned int a, unsigned int c) { return a < c ? a : c; }
__host__ __device__ static inline unsigned int __cassc_video_max(unsigned int a, unsigned int c) { return a > c ? a : c; }
