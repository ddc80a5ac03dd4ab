"""The rule that removes CUDA code's own compound operators on vector types, which HIP already has."""

from __future__ import annotations

import subprocess
from pathlib import Path

from cassc.hipify.vector_operators import drop_builtin_vector_operators
from conftest import write

HELPER_MATH = """\
inline __host__ __device__ void operator+=(float4 &a, float4 b)
{
    a.x += b.x; a.y += b.y;
    a.z += b.z; a.w += b.w;
}
HOST_DEVICE_INLINE float2& operator*=(float2 &a, const float2 &b) { a.x = a.x * b.x; a.y = a.y * b.y; return a; }
inline __host__ __device__ void operator-=(float2 &a, float b) { a.x -= b; a.y -= b; }
inline __host__ __device__ void operator/=(float2 &a, float2 b) { a.x /= b.y; a.y /= b.x; }
"""


def test_only_element_wise_definitions_of_hips_operators_go_and_lines_stay() -> None:
    text, removed = drop_builtin_vector_operators(HELPER_MATH)
    assert removed == 2
    assert text.count("\n") == HELPER_MATH.count("\n")
    assert "operator+=" not in text and "operator*=" not in text
    assert "operator-=(float2 &a, float b)" in text  # scalar form: no ambiguity in HIP, kept
    assert "a.x /= b.y" in text  # not element-wise: kept, the compile will say what is wrong


def test_helper_math_style_code_builds_and_computes_the_same(cassc, tmp_path: Path) -> None:
    write(tmp_path / "main.cu", """\
#include <cstdio>
inline __host__ __device__ void operator+=(float4 &a, const float4 &b) {
  a.x += b.x; a.y += b.y; a.z += b.z; a.w += b.w;
}
inline __host__ __device__ float4 operator+(float4 a, float4 b) {
  return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}
__global__ void k(float4* v) { v[0] += v[1]; }
int main() {
  float4 a = make_float4(1, 2, 3, 4), b = make_float4(10, 20, 30, 40);
  a += b;
  float4 c = a + b;
  printf("%g %g %g %g\\n", c.x, c.y, c.z, c.w);
}
""")
    result = cassc("main.cu", "-o", "app")
    assert "ambiguous" not in result.stderr
    run = subprocess.run([str(tmp_path / "app")], capture_output=True, text=True)
    assert run.stdout == "21 42 63 84\n"
