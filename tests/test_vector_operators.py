"""The rule that removes CUDA code's own compound operators on vector types, which HIP already has."""

from __future__ import annotations

import subprocess
from pathlib import Path

from cassc.hipify.vector_operators import guard_builtin_vector_operators
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
inline __host__ __device__ int3 operator/(int3 a, int3 b) { return make_int3(a.x / b.x, a.y / b.y, a.z / b.z); }
inline __host__ __device__ float2 operator/(float2 a, float b) { return make_float2(a.x / b, a.y / b); }
inline __host__ __device__ float2 operator-(float2 a, float2 b) { return make_float2(a.x - b.x, a.y + b.y); }
"""


def test_only_element_wise_definitions_of_hips_operators_are_guarded_and_lines_stay() -> None:
    text, guarded = guard_builtin_vector_operators(HELPER_MATH)
    assert guarded == 3  # two compound operators and the vector / vector division
    assert text.count("#if !defined(HIP_INCLUDE_HIP_AMD_DETAIL_HIP_VECTOR_TYPES_H)") == 3
    lines = text.splitlines()
    start = lines.index("#line 6")
    assert lines[start + 1].startswith("HOST_DEVICE_INLINE float2& operator*=")
    assert lines[start + 2:start + 4] == ["#endif", "#line 6"]  # the rest of line 6 keeps its number
    assert "inline __host__ __device__ void operator-=(float2 &a, float b) { a.x -= b; a.y -= b; }" in lines
    assert "inline __host__ __device__ void operator/=(float2 &a, float2 b) { a.x /= b.y; a.y /= b.x; }" in lines
    assert lines[lines.index("#line 9") + 1].startswith("inline __host__ __device__ int3 operator/(int3 a, int3 b)")
    assert "inline __host__ __device__ float2 operator/(float2 a, float b) { return make_float2(a.x / b, a.y / b); }" in lines
    assert any(line.startswith("inline __host__ __device__ float2 operator-(float2 a, float2 b)") for line in lines)


def test_helper_math_style_code_builds_and_computes_the_same(cassc, tmp_path: Path) -> None:
    write(tmp_path / "main.cu", """\
#include <cstdio>
inline __host__ __device__ void operator+=(float4 &a, const float4 &b) {
  a.x += b.x; a.y += b.y; a.z += b.z; a.w += b.w;
}
inline __host__ __device__ float4 operator+(float4 a, float4 b) {
  return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}
inline __host__ __device__ float2 operator*(float2 a, float2 b) { return make_float2(a.x * b.x, a.y * b.y); }
inline __host__ __device__ float2 operator/(float2 a, float2 b)
{
    return make_float2(a.x / b.x, a.y / b.y);
}
__global__ void k(float4* v) { v[0] += v[1]; }
int main() {
  float4 a = make_float4(1, 2, 3, 4), b = make_float4(10, 20, 30, 40);
  a += b;
  float4 c = a + b;
  float2 d = make_float2(6, 8) * make_float2(2, 3) / make_float2(4, 2);  // HIP 6: non-template friends
  printf("%g %g %g %g %g %g\\n", c.x, c.y, c.z, c.w, d.x, d.y);
}
""")
    result = cassc("main.cu", "-o", "app")
    assert "ambiguous" not in result.stderr
    run = subprocess.run([str(tmp_path / "app")], capture_output=True, text=True)
    assert run.stdout == "21 42 63 84 3 12\n"


def test_a_host_compile_keeps_the_users_operators(cassc, tmp_path: Path) -> None:
    """A host file with CUDA's types gets HIP's operators; one with its own `float4` keeps the user's."""
    write(tmp_path / "ops.h", """\
#pragma once
#include <cuda_runtime.h>
inline __host__ __device__ void operator+=(float2 &a, float2 b) { a.x += b.x; a.y += b.y; }
""")
    write(tmp_path / "host.cpp", """\
#include <cstdio>
#include "ops.h"
int main() { float2 a = make_float2(1, 2), b = make_float2(3, 4); a += b; float x = a.x, y = a.y; printf("%g %g\\n", x, y); }
""")
    write(tmp_path / "own.cpp", """\
#include <cstdio>
typedef struct { float x, y; } float2;
inline void operator+=(float2 &a, float2 b) { a.x += b.x; a.y += b.y; }
int own() { float2 a{1, 2}, b{3, 4}; a += b; return (int)(a.x + a.y); }
""")
    cassc("host.cpp", "own.cpp", "-o", "app")
    assert subprocess.run([str(tmp_path / "app")], capture_output=True, text=True).stdout == "4 6\n"
