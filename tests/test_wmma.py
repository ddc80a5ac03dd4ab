"""nvcuda::wmma (<mma.h>) over gfx11's WMMA instructions (cassc/data/include/cassc/mma.h).

No AMD GPU is here, so the lane layout is checked on the host: the header's lane-indexed loads, operand
packing and stores run for 32 simulated lanes, and the instruction in between is the RDNA3 ISA's
definition over those registers (written here, apart from the header). The result must be the matrix
product the program asked for, for every shape, type and layout; and the kernels must compile to the
v_wmma instructions."""

from __future__ import annotations

import subprocess
from pathlib import Path

from conftest import write

# The ISA's v_wmma_*_16x16x16 (wave32) over the registers of 32 lanes:
#   A: lane l holds row l % 16, K values in order, and lanes l and l + 16 hold the same;
#   B: lane l holds column l % 16 the same way; C, D: lane l, value v is element (2v + l / 16, l % 16),
#   a 16-bit C or D in the even element of its 16-wide operand. 8-bit A/B: K value 4i + j in byte j of dword i.
LAYOUT_PROGRAM = r"""
#include <mma.h>
#include <cstdio>
#include <cstdlib>
using namespace nvcuda;
namespace cw = __cassc_wmma;

static int failures = 0;

template <typename T> float input_value(T v) { return (float)v; }
float input_value(__half v) { return __half2float(v); }
float input_value(__nv_bfloat16 v) { return __bfloat162float(v); }

/* operand element k of lane l, as the instruction reads its registers */
float element(const cw::half16& r, int k) { return (float)r[k]; }
float element(const cw::short16& r, int k) { return __bfloat162float(__ushort_as_bfloat16((unsigned short)r[k])); }
template <bool Signed> float element8(const cw::int4& r, int k) {
  unsigned int byte = ((unsigned int)r[k / 4] >> (8 * (k % 4))) & 0xffu;
  return Signed ? (float)(signed char)byte : (float)byte;
}

template <int M, int N, typename TI, typename LA, typename LB, typename TC, bool Half>
void check(const char* what, bool row_c) {
  const int K = 16, lda = 21, ldb = 23, ldc = 37;
  const bool row_a = std::is_same<LA, wmma::row_major>::value, row_b = std::is_same<LB, wmma::row_major>::value;
  TI A[40 * 40], B[40 * 40];
  TC C[40 * 40], D[40 * 40];
  float expected[32][32];
  for (int i = 0; i < 40 * 40; ++i) {
    A[i] = TI((float)((i * 7 + 3) % 9 - (std::is_unsigned<TI>::value ? 0 : 4)));
    B[i] = TI((float)((i * 5 + 1) % 7 - (std::is_unsigned<TI>::value ? 0 : 3)));
    C[i] = TC((float)((i * 3) % 11 - 5));
    D[i] = TC(-999.0f);
  }
  auto a_at = [&](int m, int k) { return input_value(row_a ? A[m * lda + k] : A[m + k * lda]); };
  auto b_at = [&](int k, int n) { return input_value(row_b ? B[k * ldb + n] : B[k + n * ldb]); };
  auto c_index = [&](int m, int n) { return row_c ? m * ldc + n : m + n * ldc; };
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      float sum = (float)C[c_index(m, n)];
      for (int k = 0; k < K; ++k) sum += a_at(m, k) * b_at(k, n);
      expected[m][n] = sum;
    }

  static wmma::fragment<wmma::matrix_a, M, N, 16, TI, LA> a[32];
  static wmma::fragment<wmma::matrix_b, M, N, 16, TI, LB> b[32];
  static wmma::fragment<wmma::accumulator, M, N, 16, TC> c[32];
  for (int l = 0; l < 32; ++l) {
    cw::load_a<M>(a[l], A, lda, row_a, l);
    cw::load_b<N>(b[l], B, ldb, row_b, l);
    cw::load_c<M, N>(c[l], C, ldc, row_c, l);
  }
  for (int tm = 0; tm < cw::tiles(M); ++tm)
    for (int tn = 0; tn < cw::tiles(N); ++tn) {
      const int tile = tm * cw::tiles(N) + tn;
      float Am[16][16], Bm[16][16], Cm[16][16];
      for (int l = 0; l < 32; ++l)
        for (int k = 0; k < 16; ++k) {
          float av, bv;
          if constexpr (sizeof(TI) == 1) {
            av = element8<std::is_signed<TI>::value>(cw::operand8(a[l], tm), k);
            bv = element8<std::is_signed<TI>::value>(cw::operand8(b[l], tn), k);
          } else {
            av = element(cw::operand(a[l], tm), k);
            bv = element(cw::operand(b[l], tn), k);
          }
          if (l >= 16 && (av != Am[l % 16][k] || bv != Bm[k][l % 16])) {
            std::printf("%s: lanes %d and %d differ in A or B\n", what, l % 16, l);
            ++failures;
          }
          Am[l % 16][k] = av;
          Bm[k][l % 16] = bv;
        }
      for (int l = 0; l < 32; ++l)
        for (int v = 0; v < 8; ++v)
          Cm[2 * v + l / 16][l % 16] = Half ? (float)cw::accumulator_f16(c[l], tile)[2 * v]
                                            : sizeof(TI) == 1 ? (float)c[l].x[tile * 8 + v]
                                                              : cw::accumulator_f32(c[l], tile)[v];
      for (int l = 0; l < 32; ++l)
        for (int v = 0; v < 8; ++v) {
          const int m = 2 * v + l / 16, n = l % 16;
          float sum = Cm[m][n];
          for (int k = 0; k < 16; ++k) sum += Am[m][k] * Bm[k][n];
          c[l].x[tile * 8 + v] = TC(sum);  /* D in place of C: value v of lane l */
        }
    }
  for (int l = 0; l < 32; ++l) cw::store_c<M, N>(D, c[l], ldc, row_c, l);
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n)
      if ((float)D[c_index(m, n)] != expected[m][n]) {
        std::printf("%s: D[%d][%d] = %g, expected %g\n", what, m, n, (float)D[c_index(m, n)], expected[m][n]);
        ++failures;
        return;
      }
  int untouched = 0;
  for (int i = 0; i < 40 * 40; ++i) untouched += (float)D[i] == -999.0f;
  if (untouched != 40 * 40 - M * N) {
    std::printf("%s: %d elements outside the %dx%d result written\n", what, 40 * 40 - M * N - untouched, M, N);
    ++failures;
  }
}

template <int M, int N>
void shape(const char* name) {
  char what[128];
  for (int row_c = 0; row_c < 2; ++row_c) {
#define CHECK(TI, LA, LB, TC, HALF)                                                               \
    std::snprintf(what, sizeof what, "%s %s %s %s %s %s", name, #TI, #LA, #LB, #TC, row_c ? "mem_row" : "mem_col"); \
    check<M, N, TI, wmma::LA, wmma::LB, TC, HALF>(what, row_c);
    CHECK(__half, row_major, col_major, float, false)
    CHECK(__half, col_major, row_major, float, false)
    CHECK(__half, row_major, row_major, __half, true)
    CHECK(__nv_bfloat16, row_major, col_major, float, false)
    CHECK(__nv_bfloat16, col_major, col_major, float, false)
    CHECK(signed char, row_major, col_major, int, false)
    CHECK(unsigned char, col_major, row_major, int, false)
  }
}

int main() {
  shape<16, 16>("m16n16k16");
  shape<32, 8>("m32n8k16");
  shape<8, 32>("m8n32k16");
  std::printf("%d failures\n", failures);
  return failures != 0;
}
"""

KERNELS = r"""
#include <mma.h>
using namespace nvcuda;

template <int M, int N, typename TI, typename TC>
__global__ void gemm(const TI* a, const TI* b, TC* c) {
  wmma::fragment<wmma::matrix_a, M, N, 16, TI, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, M, N, 16, TI, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, M, N, 16, TC> acc;
  wmma::fill_fragment(acc, 0);
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::mma_sync(acc, fa, fb, acc);
  for (int i = 0; i < acc.num_elements; i++) acc.x[i] = acc.x[i] * TC(2);
  wmma::store_matrix_sync(c, acc, N, wmma::mem_row_major);
}
template __global__ void gemm<16, 16, __half, float>(const __half*, const __half*, float*);
template __global__ void gemm<16, 16, __half, __half>(const __half*, const __half*, __half*);
template __global__ void gemm<16, 16, __nv_bfloat16, float>(const __nv_bfloat16*, const __nv_bfloat16*, float*);
template __global__ void gemm<16, 16, signed char, int>(const signed char*, const signed char*, int*);
template __global__ void gemm<32, 8, unsigned char, int>(const unsigned char*, const unsigned char*, int*);
template __global__ void gemm<8, 32, __half, float>(const __half*, const __half*, float*);
"""


def test_wmma_lane_layout_computes_the_matrix_product(cassc, tmp_path: Path) -> None:
    write(tmp_path / "layout.cu", LAYOUT_PROGRAM)
    cassc("-o", "layout", "layout.cu")
    ran = subprocess.run([str(tmp_path / "layout")], capture_output=True, text=True)
    assert ran.returncode == 0 and "0 failures" in ran.stdout, ran.stdout[-3000:]


def test_wmma_kernels_use_gfx11_wmma_instructions(cassc, tmp_path: Path) -> None:
    write(tmp_path / "k.cu", KERNELS)
    cassc("-c", "k.cu", "-o", "k.o", "--keep", "--keep-dir", "kept")
    assembly = "".join(p.read_text() for p in (tmp_path / "kept").rglob("*-gfx1100.s"))
    for instruction in ("v_wmma_f32_16x16x16_f16", "v_wmma_f16_16x16x16_f16", "v_wmma_f32_16x16x16_bf16",
                        "v_wmma_i32_16x16x16_iu8"):
        assert instruction in assembly


def test_wmma_shape_without_an_instruction_names_the_users_line(cassc, tmp_path: Path) -> None:
    write(tmp_path / "tf32.cu", "#include <mma.h>\nusing namespace nvcuda;\n__global__ void k(float* p) {\n"
          "  wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> a;\n"
          "  wmma::load_matrix_sync(a, p, 8);\n}\n")
    result = cassc("-c", "tf32.cu", check=False)
    assert result.returncode != 0
    assert "tf32.cu:4:" in result.stderr
    assert "gfx11's WMMA shapes only" in result.stderr
