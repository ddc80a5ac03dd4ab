"""`x = {};` on CUDA's 16-bit float types (HIP's classes make it ambiguous) as the zero value's assignment."""

from __future__ import annotations

from cassc.hipify.brace_assignments import assign_zero_values


def test_only_declared_16_bit_float_variables_are_rewritten_and_lines_stay() -> None:
    text = """\
__global__ void k(__nv_bfloat162 bf) {
  half2 res2;
  float f; f = {};
  while (1) {
    res2 = {};  // res2 = {};
    s.res2 = {};
  }
  bf = { };
  half2 arr[4] = {};
}"""
    rewritten, count = assign_zero_values(text)
    assert count == 2
    assert "    res2 = __typeof__(res2){};  // res2 = {};" in rewritten and "  bf = __typeof__(bf){};" in rewritten
    assert "f = {};" in rewritten and "s.res2 = {};" in rewritten and "half2 arr[4] = {};" in rewritten
    assert rewritten.count("\n") == text.count("\n")
