"""A program's own definitions of device functions HIP already defines (user_overloads.py), and calls
that HIP's extra overloads would make ambiguous (cuda_compat.h): built for gfx1100 and for NVIDIA."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cassc.hipify.user_overloads import defined_user_overloads, rename_user_overloads
from conftest import write

NVCC = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"


def test_definitions_are_told_from_calls_declarations_and_literals() -> None:
    text = """\
__device__ __forceinline__ double atomicMax(double *address, double val) { return val; }
static __device__ float* atomicMin (float* address, float val) noexcept { return address; }
__device__ void k(int* p) {
  if (atomicAdd(p, 1)) { return; }
  while (atomicCAS(p, 0, 1) != 0) { }
  int x = s.atomicSub(p, 1) + atomicOr(p, 1);
}
__device__ int atomicXor(int* p, int v);
// __device__ int atomicAnd(int* p, int v) { }
const char* text = "__device__ int __ffs(int v) { }";
"""
    assert defined_user_overloads(text) == {"atomicMax", "atomicMin"}


def test_every_use_in_the_unit_is_renamed_outside_literals_and_comments() -> None:
    text = 'x = atomicMax(p, v); // atomicMax\nputs("atomicMax"); my_atomicMax(p); o.atomicMax(p);\n'
    renamed, count = rename_user_overloads(text, frozenset({"atomicMax"}))
    assert count == 2
    assert renamed == ('x = __cassc_user_atomicMax(p, v); // atomicMax\n'
                       'puts("atomicMax"); my_atomicMax(p); o.__cassc_user_atomicMax(p);\n')


USER_FLOAT_MAX = """\
#pragma once
// The classic float max over the integer instruction (right for non-negative values), as CUDA code
// writes it: CUDA has no float atomicMax, HIP does (a compare-and-swap loop).
__device__ __forceinline__ float atomicMax(float* address, float value) {
  return __int_as_float(atomicMax(reinterpret_cast<int*>(address), __float_as_int(value)));
}
"""

USER_FLOAT_MAX_CALLER = """\
#include <cstdint>
#include "float_max.cuh"
__global__ void k(float* best, int* count, uint64_t bits, unsigned long word, int* position) {
  atomicMax(best, threadIdx.x * 0.5f);
  atomicMax(count, static_cast<int>(threadIdx.x));
  position[threadIdx.x] = __ffsll(bits) + __ffs(word);
}
"""


def test_the_programs_own_overload_wins_and_the_toolkits_serve_the_rest(cassc, tmp_path: Path) -> None:
    write(tmp_path / "float_max.cuh", USER_FLOAT_MAX)
    write(tmp_path / "k.cu", USER_FLOAT_MAX_CALLER)
    cassc("-ptx", "k.cu", "-o", "k.s")
    assembly = (tmp_path / "k.s").read_text()
    # Both calls are the integer instruction: the float one through the program's function, not HIP's loop.
    assert assembly.count("global_atomic_max_i32") == 2 and "cmpswap" not in assembly


@pytest.mark.skipif(not Path(NVCC).is_file(), reason="NVIDIA's nvcc is not installed")
def test_the_renamed_overloads_build_on_the_nvidia_route(cassc, tmp_path: Path) -> None:
    write(tmp_path / "float_max.cuh", USER_FLOAT_MAX)
    write(tmp_path / "k.cu", USER_FLOAT_MAX_CALLER)
    cassc("--cassc-target=nvidia", "-arch=sm_80", "-c", "k.cu", "-o", "k.o")


def test_cudas_16_bit_float_types_shuffle_as_their_bits(cassc, tmp_path: Path) -> None:
    write(tmp_path / "k.cu", """\
#include <cuda_fp16.h>
#include <cuda_bf16.h>
template <typename T> __device__ T butterfly(T x, int mask) { return __shfl_xor_sync(0xffffffff, x, mask); }
__global__ void k(float* out) {
  __half h = butterfly(__float2half(threadIdx.x * 1.5f), 1);
  __nv_bfloat16 b = __shfl_down_sync(0xffffffff, __float2bfloat16(threadIdx.x * 2.0f), 2);
  __half2 pair = __shfl_sync(0xffffffff, __floats2half2_rn(threadIdx.x, -1.0f), 3);
  short s = __shfl_up_sync(0xffffffff, static_cast<short>(threadIdx.x), 1);
  out[threadIdx.x] = __half2float(h) + __bfloat162float(b) + __low2float(pair) + s;
}
""")
    cassc("-ptx", "k.cu", "-o", "k.s")
    cassc("-std=c++11", "-ptx", "k.cu", "-o", "k11.s")  # the adapters need no C++14
