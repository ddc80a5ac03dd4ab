"""`__shared__ alignas(N)`: nvcc takes the alignment after CUDA's memory-space specifier, clang before it only."""

from __future__ import annotations

from pathlib import Path

from cassc.hipify.attribute_order import move_alignas_first
from conftest import write

SOURCE = """\
__global__ void k(const float4* in, float* out) {
  __shared__ alignas(alignof(float4)) float tile[4][64];  // __shared__ alignas(8) stays in a comment
  reinterpret_cast<float4*>(tile[0])[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = tile[threadIdx.x % 4][threadIdx.x];
}
__device__ alignas(16) float table[16];
"""


def test_alignas_moves_before_the_specifier_on_its_line() -> None:
    text, moved = move_alignas_first(SOURCE)
    assert moved == 2
    assert "  alignas(alignof(float4)) __shared__ float tile[4][64];  // __shared__ alignas(8) stays" in text
    assert "alignas(16) __device__ float table[16];" in text and text.count("\n") == SOURCE.count("\n")


def test_an_aligned_shared_array_compiles(cassc, tmp_path: Path) -> None:
    write(tmp_path / "k.cu", SOURCE)
    cassc("-c", "k.cu", "-o", "k.o")
    assert (tmp_path / "k.o").is_file()
