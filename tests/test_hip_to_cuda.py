"""`--cassc-target=nvidia`: the hip-to-cuda header set, generated from the hipify tables, and cassc's HIP
output compiled by NVIDIA's real nvcc (no GPU needed to compile; the runs are benchmarks/hecbench_verify.py's)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from cassc.hip_to_cuda import (IDENTIFIER_TABLES, NAMES_HEADER, find_nvcc, header_set, identifier_table_names,
                               inverted_names)
from cassc.errors import ToolchainError
from cassc.hipify.tables import HEADER_TABLE, INLINE_PTX_TABLE, MEMBER_CALL_TABLE, TABLE_DIR, read_table
from cassc.invocation import cassc_free_words
from conftest import EXAMPLES, write

NVCC = "/usr/local/cuda/bin/nvcc"
needs_nvcc = pytest.mark.skipif(not Path(NVCC).is_file(), reason="NVIDIA's nvcc is not installed")
# Rows whose HIP side is a name CUDA declares itself: a macro would rename CUDA's own declaration.
NOT_HIP_NAMES = {"textureReference"}


def test_every_identifier_table_is_inverted() -> None:
    assert sorted(IDENTIFIER_TABLES) == identifier_table_names()


def test_the_set_covers_every_hip_name_the_tables_produce() -> None:
    produced = {hip for table in IDENTIFIER_TABLES for cuda, hip, _ in read_table(TABLE_DIR / table) if cuda != hip}
    names = header_set()[NAMES_HEADER]
    defined = set(re.findall(r"^#define (\w+) ", names, re.MULTILINE))
    assert produced - defined == NOT_HIP_NAMES
    for _, function, _ in read_table(TABLE_DIR / MEMBER_CALL_TABLE):
        assert f"inline auto {function}(" in names
    headers = {hip for _, hip, _ in read_table(TABLE_DIR / HEADER_TABLE)}
    assert headers <= set(header_set())


def test_a_hip_name_goes_back_to_the_runtime_apis_cuda_name() -> None:
    names = inverted_names()
    assert names["hipMalloc"] == "cudaMalloc"  # not the driver API's cuMemAlloc
    assert names["hipHostMalloc"] == "cudaMallocHost"  # flags optional, as in HIP
    assert names["__cassc_shfl_down_sync"] == "__shfl_down_sync"
    assert names["hiprandStatePhilox4_32_10_t"] == "curandStatePhilox4_32_10_t"


def test_cassc_options_are_removed_and_inputs_found() -> None:
    words, inputs = cassc_free_words(["-O3", "--cassc-target=nvidia", "-o", "app", "-I", "inc", "a.cu",
                                      "--cassc-model", "m", "b.o"], {"NVCC_APPEND_FLAGS": "-lineinfo"})
    assert words == ["-O3", "-o", "app", "-I", "inc", "a.cu", "b.o", "-lineinfo"]
    assert [words[i] for i in inputs] == ["a.cu", "b.o"]


def test_nvcc_is_never_cassc_itself(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`eval "$(cassc env)"` puts the stand-in toolkit, whose bin/nvcc is cassc, in CUDA_HOME."""
    monkeypatch.setenv("CASSC_DATA_DIR", str(tmp_path / "data"))
    for folder in ("data/toolkit/bin", "cuda/bin"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "nvcc").write_text("#!/bin/sh\n")
        (tmp_path / folder / "nvcc").chmod(0o755)
    stand_in = {"CUDA_HOME": str(tmp_path / "data" / "toolkit")}
    try:
        found: str | None = find_nvcc(stand_in)
    except ToolchainError:  # no CUDA in /usr/local/cuda
        found = None
    assert found in (None, NVCC)
    assert find_nvcc({"CASSC_NVCC": str(tmp_path / "cuda" / "bin" / "nvcc"), **stand_in}) == str(
        tmp_path / "cuda" / "bin" / "nvcc")


@needs_nvcc
def test_translated_examples_compile_with_nvcc(cassc, tmp_path: Path) -> None:
    """Every example (warp intrinsics, atomics, streams, separate compilation) and a unit that uses what
    the inline PTX rules and compat.tsv produce: hipified, then compiled and linked by nvcc for sm_90."""
    for example in ("vector_add", "reduction", "warp_reduce", "histogram", "streams_events"):
        shutil.copytree(EXAMPLES / example, tmp_path / example)
        sources = sorted(p.name for p in (tmp_path / example).glob("*.cu"))
        cassc("--cassc-target=nvidia", "-arch=sm_90", "-O2", *sources, "-o", "app", cwd=tmp_path / example,
              env={"CASSC_NVCC": NVCC})
        assert (tmp_path / example / "app").is_file()
    rows = [line.split("\t")[0] for line in (TABLE_DIR / INLINE_PTX_TABLE).read_text().splitlines()[1:]
            if line and not line.startswith("#")]
    assert any(row.startswith("lop3") for row in rows)  # the unit below covers the rules' HIP builtins
    write(tmp_path / "ptx.cu", r"""
#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <cstdio>
__global__ void k(unsigned* out, unsigned long long* wide, float* f) {
  unsigned lane, x = out[0], y;
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  asm("bfe.u32 %0, %1, %2, %3;" : "=r"(y) : "r"(x), "r"(4), "r"(8));
  asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(y) : "r"(x), "r"(y), "r"(4), "r"(8));
  asm("lop3.b32 %0, %1, %2, %3, 0x96;" : "=r"(y) : "r"(x), "r"(y), "r"(lane));
  asm("shfl.sync.bfly.b32 %0, %1, %2, %3, %4;" : "=r"(y) : "r"(y), "r"(1), "r"(0x1f), "r"(0xffffffff));
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(wide[0]));
  if (y == 7) asm volatile("trap;");
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(y) : "l"(out + 2));
  asm volatile("st.release.sys.global.v2.u32 [%2], {%0, %1};" :: "r"(y), "r"(x), "l"(out + 4));
  asm volatile("atom.relaxed.gpu.global.max.s32 %0, [%1], %2;" : "=r"(y) : "l"(out + 6), "r"(y));
  asm volatile("atom.global.cas.b32 %0, [%1], %2, %3;" : "=r"(y) : "l"(out + 7), "r"(0), "r"(y));
  asm volatile("fence.acq_rel.gpu;" ::: "memory");
  asm("bfind.u32 %0, %1;" : "=r"(y) : "r"(y));
  asm("vabsdiff4.u32.u32.u32.add %0, %1, %2, %3;" : "=r"(y) : "r"(x), "r"(y), "r"(lane));
  asm("mov.b64 {%0, %1}, %2;" : "=r"(x), "=r"(y) : "l"(wide[1]));
  asm("ex2.approx.f16x2 %0, %1;" : "=r"(y) : "r"(y));
  out[lane] = y + atomicInc(out + 1, 10u) + __ballot_sync(0xffffffffu, y & 1) + __reduce_add_sync(~0u, y);
  __syncwarp();
  f[lane] = __shfl_xor_sync(0xffffffffu, f[lane], 1);
  auto tile = cooperative_groups::tiled_partition<8>(cooperative_groups::this_thread_block());
  out[32 + lane] = tile.meta_group_rank() * tile.meta_group_size();
}
int main() {
  unsigned* out;
  cudaMallocHost(&out, 128);
  cudaFreeHost(out);
  printf("%s\n", cudaGetErrorString(cudaGetLastError()));
}
""")
    compiled = cassc("--cassc-target=nvidia", "-arch=sm_90", "ptx.cu", "-o", "ptx", "--keep", "--keep-dir", "kept",
                     env={"CASSC_NVCC": NVCC})
    assert (tmp_path / "ptx").is_file(), compiled.stderr
    mirrored = next((tmp_path / "kept").rglob("ptx.cu")).read_text()
    assert "__cassc_lop3" in mirrored and "__lane_id()" in mirrored and "hipHostMalloc(&out" in mirrored
    assert "__cassc_ptx_load<__ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT>" in mirrored and "asm" not in mirrored
    assert "__cassc_members(tile).meta_group_rank()" in mirrored


@needs_nvcc
def test_errors_name_the_users_file_and_exit_status_is_nvccs(cassc, tmp_path: Path) -> None:
    write(tmp_path / "bad.cu", "__global__ void k() {\n  undeclared();\n}\n")
    result = cassc("--cassc-target=nvidia", "-arch=sm_90", "-c", "bad.cu", check=False, env={"CASSC_NVCC": NVCC})
    assert result.returncode != 0
    assert "bad.cu(2)" in result.stdout + result.stderr


@needs_nvcc
def test_a_cpp_file_gets_no_cuda_types_it_did_not_include(cassc, tmp_path: Path) -> None:
    # nvcc hands a .cpp file to the host compiler without cuda_runtime.h: it may define its own uchar4.
    write(tmp_path / "reference.cpp", "typedef struct { unsigned char x, y, z, w; } uchar4;\n"
                                      "int channels(uchar4 pixel) { return pixel.x + pixel.w; }\n")
    cassc("--cassc-target=nvidia", "-arch=sm_90", "-c", "reference.cpp", "-o", "reference.o", env={"CASSC_NVCC": NVCC})
    assert (tmp_path / "reference.o").is_file()


@needs_nvcc
def test_a_cpp_file_that_declares_a_cuda_library_function_itself_calls_it_by_its_cuda_name(cassc, tmp_path: Path) -> None:
    # autoconf's AC_CHECK_LIB([cufft], [cufftPlan1d]) compiles this with CXX=nvcc: hipify renames the
    # declaration (hipfftPlan1d), which NVIDIA's cuFFT does not define.
    write(tmp_path / "conftest.cpp", 'extern "C" char cufftPlan1d();\nint main() { return cufftPlan1d(); }\n')
    cassc("--cassc-target=nvidia", "-arch=sm_90", "-c", "conftest.cpp", "-o", "conftest.o", env={"CASSC_NVCC": NVCC})
    symbols = subprocess.run(["nm", "-u", str(tmp_path / "conftest.o")], capture_output=True, text=True).stdout
    assert "cufftPlan1d" in symbols.split() and "hipfftPlan1d" not in symbols


def test_interop_headers_are_included_only_with_the_library_they_need() -> None:
    gl_interop = header_set()["cassc/cuda_gl_interop.h"]
    assert "#if __has_include(<cuda_gl_interop.h>) && __has_include(<GL/gl.h>)" in gl_interop
