"""Diagnostics as nvcc users read them: each warning once, -Xptxas -v as ptxas blocks, both replayed
on a cache hit (issue 19 item 2)."""

from __future__ import annotations

import re
from pathlib import Path

from cassc.diagnostics import present
from conftest import write

SOURCE = """\
__host__ __device__ int twice(int x) { int unused; return 2 * x; }
__global__ void stage(float *a) {
  __shared__ float tile[64];
  tile[threadIdx.x] = a[threadIdx.x];
  __syncthreads();
  a[threadIdx.x] = tile[63 - threadIdx.x] * twice(1);
}
__global__ void fill(float *a) { a[threadIdx.x] = 1.0f; }
"""


def test_warnings_once_and_ptxas_blocks_replayed_on_a_cache_hit(cassc, tmp_path: Path) -> None:
    write(tmp_path / "k.cu", SOURCE)
    first = cassc("-c", "k.cu", "-Xptxas", "-v", "-Xcompiler", "-Wall").stderr
    assert first.count("unused variable 'unused'") == 1, first  # clang warns in the host and device pass
    assert "remark" not in first and "could not determine" not in first and "generated" not in first
    used = re.findall(r"^ptxas info    : Used (\d+) registers, (\d+) SGPRs, (\d+) bytes smem, occupancy \d+ waves/SIMD$",
                      first, re.MULTILINE)
    assert len(used) == 2 and ("256" in {u[2] for u in used}), first
    assert re.search(r"^ptxas info    : Compiling entry function '_Z5stagePf' for 'gfx1100'$", first, re.MULTILINE)
    second = cassc("-c", "k.cu", "-Xptxas", "-v", "-Xcompiler", "-Wall", "-o", "again.o").stderr
    assert second == first


def test_resource_usage_is_the_same_report() -> None:
    remarks = "".join(f"k.cu:1:17: remark: {key}: {value} [-Rpass-analysis=kernel-resource-usage]\n"
                      "    1 | __global__ void k() {}\n      |                 ^\n"
                      "k.cu:1:17: note: could not determine the original source location for k.cu:1:0\n"
                      for key, value in [("Function Name", "_Z1kv"), ("VGPRs", "7"), ("SGPRs", "4"),
                                         ("LDS Size [bytes/block]", "0"), ("Occupancy [waves/SIMD]", "16"),
                                         ("ScratchSize [bytes/lane]", "16"), ("VGPRs Spill", "2")])
    assert present(remarks) == (
        "ptxas info    : Compiling entry function '_Z1kv' for 'gfx1100'\n"
        "ptxas info    : Function properties for _Z1kv\n"
        "    16 bytes stack frame, 2 VGPR spills, 0 SGPR spills\n"
        "ptxas info    : Used 7 registers, 4 SGPRs, 0 bytes smem, occupancy 16 waves/SIMD\n")
