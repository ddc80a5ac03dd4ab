/* cassc: CUDA's <mma.h> (nvcuda::wmma) over the WMMA instructions of gfx11 (RDNA3), wave32.
 *
 * gfx11 has one shape, 16x16x16: v_wmma_f32_16x16x16_{f16,bf16}, v_wmma_f16_16x16x16_f16 and
 * v_wmma_i32_16x16x16_iu8. CUDA's m16n16k16 is one instruction; m32n8k16 and m8n32k16 are tiles of it,
 * the short side padded with zeros. Their register layout (RDNA3 ISA, "Wave Matrix Multiply Accumulate"):
 *   A (16x16, M x K): lane l holds row l % 16, its 16 K values in order; lanes 16-31 hold the same rows.
 *   B (16x16, K x N): lane l holds column l % 16, its 16 K values in order; lanes 16-31 the same.
 *   C, D: lane l, value v is element (row 2v + l / 16, column l % 16); 8 values a lane (32-bit each; a
 *   16-bit result sits in the low half of its register, the even element of the 16-wide operand).
 * A fragment's x[] is what its lane holds, tile by tile, so element-wise loops over x[] work as on CUDA.
 * Other shapes and types (tf32 m16n16k8, double m8n8k4, the experimental s4/u4/b1) have no gfx11
 * instruction: declaring such a fragment is an error at the user's line. The lane-indexed helpers of
 * __cassc_wmma are __host__ __device__, so the layout can be checked on a host against the ISA's. */
#pragma once
#if defined(__HIP__) /* CUDA's is empty outside nvcc's compiles too (host compilers including it) */
#include <type_traits>
#include <hip/hip_runtime.h>
#include <cassc/cuda_fp16.h>
#include <cassc/cuda_bf16.h>

#define __CASSC_WMMA_UNSUPPORTED                                                                         \
  "nvcuda::wmma on AMD GPUs has gfx11's WMMA shapes only: m16n16k16, m32n8k16 and m8n32k16 with __half, " \
  "__nv_bfloat16, signed char or unsigned char inputs (float/__half or int accumulators); this shape or "  \
  "element type (tf32, double, s4/u4/b1...) has no counterpart"

namespace nvcuda {
namespace wmma {
struct row_major;
struct col_major;
struct matrix_a;
struct matrix_b;
struct accumulator;
namespace precision {
struct tf32;
}
namespace experimental {
namespace precision {
struct u4;
struct s4;
struct b1;
}  // namespace precision
enum bmmaBitOp { bmmaBitOpXOR = 1, bmmaBitOpAND = 2 };
enum bmmaAccumulateOp { bmmaAccumulateOpPOPC = 1 };
}  // namespace experimental

enum layout_t { mem_row_major, mem_col_major };

/* CUDA's cvt.rna.tf32.f32: round to 10 mantissa bits, ties away from zero; the result is a float. */
static __host__ __device__ inline float __float_to_tf32(float in) {
  unsigned int bits = __builtin_bit_cast(unsigned int, in);
  if ((bits & 0x7f800000u) != 0x7f800000u) bits = (bits + 0x1000u) & 0xffffe000u;
  return __builtin_bit_cast(float, bits);
}

template <typename T>
struct helper_traits {
  typedef T element_type;
  typedef T storage_element_type;
  typedef T fill_argument_type;
};

/* Shapes and types without a gfx11 instruction: constructing one is the error, at the user's line. */
template <typename Use, int m, int n, int k, typename T, typename Layout = void>
class fragment {
 public:
  __host__ __device__ fragment() __attribute__((unavailable(__CASSC_WMMA_UNSUPPORTED)));
};
}  // namespace wmma
}  // namespace nvcuda

namespace __cassc_wmma {
using namespace nvcuda::wmma;
typedef _Float16 half16 __attribute__((ext_vector_type(16)));
typedef short short16 __attribute__((ext_vector_type(16)));
typedef float float8 __attribute__((ext_vector_type(8)));
typedef int int8 __attribute__((ext_vector_type(8)));
typedef int int4 __attribute__((ext_vector_type(4)));

constexpr int tiles(int extent) { return (extent + 15) / 16; }

/* The values of one lane: `Rows` x `Columns` of a matrix in 16x16 tiles. */
template <typename T, int Size>
struct storage {
  enum { num_elements = Size, num_storage_elements = Size };
  typedef T element_type;
  typedef T storage_element_type;
  T x[Size];
  __host__ __device__ T& operator[](int i) { return x[i]; }
  __host__ __device__ const T& operator[](int i) const { return x[i]; }
};

template <typename T>
struct is_input : std::false_type {};
template <> struct is_input<__half> : std::true_type {};
template <> struct is_input<__nv_bfloat16> : std::true_type {};
template <> struct is_input<signed char> : std::true_type {};
template <> struct is_input<unsigned char> : std::true_type {};

template <typename T>
__host__ __device__ inline T zero() { return T(0); }
template <> __host__ __device__ inline __half zero<__half>() { return __ushort_as_half(0); }
template <> __host__ __device__ inline __nv_bfloat16 zero<__nv_bfloat16>() { return __ushort_as_bfloat16(0); }

/* Element (row, column) of a matrix in memory with leading dimension ldm. */
template <typename T>
__host__ __device__ inline T at(const T* p, unsigned ldm, bool row_major, int row, int column) {
  return row_major ? p[(size_t)row * ldm + column] : p[row + (size_t)column * ldm];
}

/* matrix_a, M x K (K = 16): x[t * 16 + kk] = A[t * 16 + lane % 16][kk]. */
template <int M, typename T, int Size>
__host__ __device__ void load_a(storage<T, Size>& f, const T* p, unsigned ldm, bool row_major, int lane) {
  for (int t = 0; t < tiles(M); ++t)
    for (int kk = 0; kk < 16; ++kk) {
      int row = t * 16 + lane % 16;
      f.x[t * 16 + kk] = row < M ? at(p, ldm, row_major, row, kk) : zero<T>();
    }
}
/* matrix_b, K x N (K = 16): x[t * 16 + kk] = B[kk][t * 16 + lane % 16]. */
template <int N, typename T, int Size>
__host__ __device__ void load_b(storage<T, Size>& f, const T* p, unsigned ldm, bool row_major, int lane) {
  for (int t = 0; t < tiles(N); ++t)
    for (int kk = 0; kk < 16; ++kk) {
      int column = t * 16 + lane % 16;
      f.x[t * 16 + kk] = column < N ? at(p, ldm, row_major, kk, column) : zero<T>();
    }
}
/* accumulator, M x N: x[(tm * tiles(N) + tn) * 8 + v] = C[tm * 16 + 2v + lane / 16][tn * 16 + lane % 16]. */
template <int M, int N, typename T, int Size>
__host__ __device__ void load_c(storage<T, Size>& f, const T* p, unsigned ldm, bool row_major, int lane) {
  for (int tm = 0; tm < tiles(M); ++tm)
    for (int tn = 0; tn < tiles(N); ++tn)
      for (int v = 0; v < 8; ++v) {
        int row = tm * 16 + 2 * v + lane / 16, column = tn * 16 + lane % 16;
        f.x[(tm * tiles(N) + tn) * 8 + v] = row < M && column < N ? at(p, ldm, row_major, row, column) : zero<T>();
      }
}
template <int M, int N, typename T, int Size>
__host__ __device__ void store_c(T* p, const storage<T, Size>& f, unsigned ldm, bool row_major, int lane) {
  for (int tm = 0; tm < tiles(M); ++tm)
    for (int tn = 0; tn < tiles(N); ++tn)
      for (int v = 0; v < 8; ++v) {
        int row = tm * 16 + 2 * v + lane / 16, column = tn * 16 + lane % 16;
        if (row < M && column < N)
          (row_major ? p[(size_t)row * ldm + column] : p[row + (size_t)column * ldm]) = f.x[(tm * tiles(N) + tn) * 8 + v];
      }
}

/* One tile of an A or B fragment as the instruction's operand. */
template <int Size>
__host__ __device__ half16 operand(const storage<__half, Size>& f, int t) {
  half16 r;
  for (int i = 0; i < 16; ++i) r[i] = __builtin_bit_cast(_Float16, f.x[t * 16 + i]);
  return r;
}
template <int Size>
__host__ __device__ short16 operand(const storage<__nv_bfloat16, Size>& f, int t) {
  short16 r;
  for (int i = 0; i < 16; ++i) r[i] = __builtin_bit_cast(short, f.x[t * 16 + i]);
  return r;
}
/* 8-bit inputs: 16 bytes in 4 dwords, K value 4i + j in byte j of dword i. */
template <typename T, int Size>
__host__ __device__ int4 operand8(const storage<T, Size>& f, int t) {
  int4 r;
  for (int i = 0; i < 4; ++i) {
    unsigned int word = 0;
    for (int j = 0; j < 4; ++j) word |= (unsigned int)(unsigned char)f.x[t * 16 + 4 * i + j] << (8 * j);
    r[i] = (int)word;
  }
  return r;
}

/* The accumulator tile (tm, tn) as the instruction's C, and its D back. */
template <typename T, int Size>
__host__ __device__ float8 accumulator_f32(const storage<T, Size>& f, int tile) {
  float8 r;
  for (int v = 0; v < 8; ++v) r[v] = (float)f.x[tile * 8 + v];
  return r;
}
template <typename T, int Size>
__host__ __device__ half16 accumulator_f16(const storage<T, Size>& f, int tile) {
  half16 r = {};
  for (int v = 0; v < 8; ++v) r[2 * v] = (_Float16)(float)f.x[tile * 8 + v];
  return r;
}
template <typename T>
__host__ __device__ inline T saturated(float value, bool satf) {
  if (satf) {  // CUDA's satf: +-inf to the largest finite value of the type, NaN to 0
    const float largest = sizeof(T) == 2 ? 65504.0f : 3.40282347e38f;
    value = value != value ? 0.0f : value > largest ? largest : value < -largest ? -largest : value;
  }
  return T(value);
}

#if defined(__HIP_DEVICE_COMPILE__) && defined(__GFX11__) && __AMDGCN_WAVEFRONT_SIZE == 32
#define __CASSC_WMMA_NATIVE 1
#endif

template <typename T>
struct always_false : std::false_type {};

/* D = A x B + C, tile by tile. */
template <int M, int N, typename TD, int SD, typename TI, int SA, int SB, typename TC, int SC>
__device__ void mma(storage<TD, SD>& d, const storage<TI, SA>& a, const storage<TI, SB>& b,
                    const storage<TC, SC>& c, bool satf) {
#if defined(__CASSC_WMMA_NATIVE)
  for (int tm = 0; tm < tiles(M); ++tm)
    for (int tn = 0; tn < tiles(N); ++tn) {
      const int tile = tm * tiles(N) + tn;
      if constexpr (sizeof(TI) == 1) {
        int8 acc;
        for (int v = 0; v < 8; ++v) acc[v] = c.x[tile * 8 + v];
        constexpr bool sign = std::is_signed<TI>::value;
        acc = satf ? __builtin_amdgcn_wmma_i32_16x16x16_iu8_w32(sign, operand8(a, tm), sign, operand8(b, tn), acc, true)
                   : __builtin_amdgcn_wmma_i32_16x16x16_iu8_w32(sign, operand8(a, tm), sign, operand8(b, tn), acc, false);
        for (int v = 0; v < 8; ++v) d.x[tile * 8 + v] = acc[v];
      } else if constexpr (sizeof(TD) == 2 && sizeof(TC) == 2) {  // half accumulators: the f16 instruction
        half16 acc = __builtin_amdgcn_wmma_f16_16x16x16_f16_w32(operand(a, tm), operand(b, tn),
                                                                accumulator_f16(c, tile), false);
        for (int v = 0; v < 8; ++v) d.x[tile * 8 + v] = saturated<TD>((float)acc[2 * v], satf);
      } else {
        float8 acc = accumulator_f32(c, tile);
        if constexpr (std::is_same<TI, __half>::value)
          acc = __builtin_amdgcn_wmma_f32_16x16x16_f16_w32(operand(a, tm), operand(b, tn), acc);
        else
          acc = __builtin_amdgcn_wmma_f32_16x16x16_bf16_w32(operand(a, tm), operand(b, tn), acc);
        for (int v = 0; v < 8; ++v) d.x[tile * 8 + v] = saturated<TD>(acc[v], satf);
      }
    }
#elif defined(__HIP_DEVICE_COMPILE__)
  static_assert(always_false<TD>::value, "nvcuda::wmma::mma_sync needs gfx11's WMMA instructions (wave32); "
                                         "this GPU target has none");
#endif
}
}  // namespace __cassc_wmma

namespace nvcuda {
namespace wmma {
#define __CASSC_WMMA_INPUT(M, N, K, T)                                                                      \
  template <typename Layout>                                                                                \
  class fragment<matrix_a, M, N, K, T, Layout> : public __cassc_wmma::storage<T, __cassc_wmma::tiles(M) * 16> {}; \
  template <typename Layout>                                                                                \
  class fragment<matrix_b, M, N, K, T, Layout> : public __cassc_wmma::storage<T, __cassc_wmma::tiles(N) * 16> {};
#define __CASSC_WMMA_ACCUMULATOR(M, N, K, T)                                      \
  template <>                                                                     \
  class fragment<accumulator, M, N, K, T, void>                                   \
      : public __cassc_wmma::storage<T, __cassc_wmma::tiles(M) * __cassc_wmma::tiles(N) * 8> {};
#define __CASSC_WMMA_SHAPE(M, N, K)                                                              \
  __CASSC_WMMA_INPUT(M, N, K, __half)                                                            \
  __CASSC_WMMA_INPUT(M, N, K, __nv_bfloat16)                                                     \
  __CASSC_WMMA_INPUT(M, N, K, signed char)                                                       \
  __CASSC_WMMA_INPUT(M, N, K, unsigned char)                                                     \
  __CASSC_WMMA_ACCUMULATOR(M, N, K, __half)                                                      \
  __CASSC_WMMA_ACCUMULATOR(M, N, K, float)                                                       \
  __CASSC_WMMA_ACCUMULATOR(M, N, K, int)
__CASSC_WMMA_SHAPE(16, 16, 16)
__CASSC_WMMA_SHAPE(32, 8, 16)
__CASSC_WMMA_SHAPE(8, 32, 16)
#undef __CASSC_WMMA_SHAPE
#undef __CASSC_WMMA_ACCUMULATOR
#undef __CASSC_WMMA_INPUT

template <typename Use, int M, int N, int K, typename T, typename Layout, typename Value>
__device__ inline void fill_fragment(fragment<Use, M, N, K, T, Layout>& f, const Value& value) {
  for (int i = 0; i < f.num_elements; ++i) f.x[i] = T(value);
}

template <int M, int N, int K, typename T, typename Layout>
__device__ inline void load_matrix_sync(fragment<matrix_a, M, N, K, T, Layout>& f, const T* p, unsigned ldm) {
  __cassc_wmma::load_a<M>(f, p, ldm, std::is_same<Layout, row_major>::value, __lane_id());
}
template <int M, int N, int K, typename T, typename Layout>
__device__ inline void load_matrix_sync(fragment<matrix_b, M, N, K, T, Layout>& f, const T* p, unsigned ldm) {
  __cassc_wmma::load_b<N>(f, p, ldm, std::is_same<Layout, row_major>::value, __lane_id());
}
template <int M, int N, int K, typename T>
__device__ inline void load_matrix_sync(fragment<accumulator, M, N, K, T>& f, const T* p, unsigned ldm,
                                        layout_t layout) {
  __cassc_wmma::load_c<M, N>(f, p, ldm, layout == mem_row_major, __lane_id());
}
template <int M, int N, int K, typename T>
__device__ inline void store_matrix_sync(T* p, const fragment<accumulator, M, N, K, T>& f, unsigned ldm,
                                         layout_t layout) {
  __cassc_wmma::store_c<M, N>(p, f, ldm, layout == mem_row_major, __lane_id());
}

template <int M, int N, int K, typename TD, typename TI, typename LA, typename LB, typename TC>
__device__ inline void mma_sync(fragment<accumulator, M, N, K, TD>& d, const fragment<matrix_a, M, N, K, TI, LA>& a,
                                const fragment<matrix_b, M, N, K, TI, LB>& b,
                                const fragment<accumulator, M, N, K, TC>& c, bool satf = false) {
  static_assert(__cassc_wmma::is_input<TI>::value, __CASSC_WMMA_UNSUPPORTED);
  __cassc_wmma::mma<M, N>(d, a, b, c, satf);
}
}  // namespace wmma
}  // namespace nvcuda
#endif
