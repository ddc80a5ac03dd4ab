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
    # that was a cache hit (it printed the cached compile's diagnostics, as -v says)
    assert "cassc: cache hit for k.cu" in cassc("-v", "-c", "k.cu", "-Xptxas", "-v", "-Xcompiler", "-Wall",
                                                "-o", "third.o").stderr


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


MIRRORED = """\
#include <cuda_runtime.h>
int main() {
  float *p;
\tint flags = 0; cudaMallocHost(&p, 16, flags, 2, 3);
  return 0;
}
"""


def test_snippets_show_the_users_line_not_the_hipified_one(cassc, tmp_path: Path) -> None:
    """clang quotes the line it compiled (the mirror's `hipHostMalloc`); nvcc users read their own line, with
    the caret under what they wrote, and the message names their function."""
    write(tmp_path / "host.cu", MIRRORED)
    stderr = cassc("-c", "host.cu", check=False).stderr
    # the notes about candidates name HIP's functions in HIP's header, as nvcc's name CUDA's in CUDA's
    users = [line for line in stderr.splitlines() if line.startswith(("host.cu", "    4 |"))]
    assert users and not any("hipHostMalloc" in line for line in users), stderr
    user_line = MIRRORED.splitlines()[3].expandtabs(8)
    assert f"    4 | {user_line}\n" in stderr, stderr
    error = re.search(r"^host\.cu:4:(\d+): error: no matching function for call to 'cudaMallocHost'\n"
                      r"    4 \| .*\n      \| ( *)\^", stderr, re.MULTILINE)
    assert error, stderr
    assert len(error.group(2)) == user_line.index("cudaMallocHost"), stderr  # the caret under the user's call
    assert int(error.group(1)) == MIRRORED.splitlines()[3].index("cudaMallocHost") + 1  # a tab counts one column


def test_restored_lines_map_columns_and_marks() -> None:
    from cassc.diagnostics import restore_source_lines

    text = ("a.cu:1:34: error: use of undeclared identifier 'hipHostMalloc'\n"
            "    1 | int f() { int unused_var; return hipHostMalloc(1, 2); }\n"
            "      |                                  ^\n"
            "a.cu:1:47: error: too many arguments\n"
            "    1 | int f() { int unused_var; return hipHostMalloc(1, 2); }\n"
            "      |                                  ~~~~~~~~~~~~~^~~~~\n"
            "b.h:2:3: warning: unchanged\n"
            "    2 | int y;\n"
            "      |   ^\n")
    original = {"a.cu": "int f() { int unused_var; return cudaMallocHost(1, 2); }", "b.h": "int y;"}
    assert restore_source_lines(text, lambda name, line: original.get(name)) == (
        "a.cu:1:34: error: use of undeclared identifier 'cudaMallocHost'\n"
        "    1 | int f() { int unused_var; return cudaMallocHost(1, 2); }\n"
        "      |                                  ^~~~~~~~~~~~~~\n"
        "a.cu:1:48: error: too many arguments\n"
        "    1 | int f() { int unused_var; return cudaMallocHost(1, 2); }\n"
        "      |                                  ~~~~~~~~~~~~~~^~~~~\n"
        "b.h:2:3: warning: unchanged\n"
        "    2 | int y;\n"
        "      |   ^\n")


def test_a_library_constant_without_a_hip_counterpart_is_named_in_one_line() -> None:
    """CUDA libraries' uppercase names (a cuBLASLt attribute hipBLASLt lacks) get the same one line as
    their functions, not clang's guesses at HIP names."""
    clang = ("main.cu:9:44: error: use of undeclared identifier 'CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_AMAX_POINTER'\n"
             "    9 |   hipblasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_AMAX_POINTER, &p, 8);\n"
             "      |                                      ^\n"
             "main.cu:9:44: note: did you mean 'HIPBLASLT_MATMUL_DESC_AMAX_D_POINTER'?\n")
    assert present(clang).splitlines()[0] == (
        "main.cu:9:44: error: 'CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_AMAX_POINTER' is a CUDA API with no HIP "
        "counterpart: cassc cannot build it for AMD GPUs")
    assert "did you mean" not in present(clang)


def test_a_tile_wider_than_the_wavefront_is_one_error_at_the_users_line() -> None:
    """HIP's cooperative groups refuse thread_block_tile<64> with a static assertion inside their header and more
    errors about the half-built class (clang 19, HIP 5.2, as a compile of `cg::tiled_partition<64>(block)` printed)."""
    header = "/usr/include/hip/amd_detail/amd_hip_cooperative_groups.h"
    clang = f"""\
In file included from t.cu:1:
{header}:527:17: error: static assertion failed due to requirement 'integral_constant<bool, false>::value': \
Tile size is either not a power of 2 or greater than the wavefront size
  527 |   static_assert(is_valid_tile_size<size>::value,
      |                 ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
{header}:563:39: note: in instantiation of template class 'cooperative_groups::thread_block_tile_base<64>' requested here
t.cu:5:36: note: in instantiation of template class 'cooperative_groups::thread_block_tile<64, \
cooperative_groups::thread_block>' requested here
    5 |   cg::thread_block_tile<64> tile = cg::tiled_partition<64>(block);
      |                                    ^
{header}:578:18: error: no member named 'sync' in 'cooperative_groups::thread_block_tile_base<64>'
  578 |     this->sync();
      |           ^
"""
    shown = present(clang)
    assert "t.cu:5:36: error: a cooperative_groups tile of 64 threads: AMD GPUs have no tiles wider than a wavefront" \
        in shown
    assert "static assertion" not in shown and "no member named 'sync'" not in shown
