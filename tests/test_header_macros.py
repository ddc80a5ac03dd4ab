"""CUDA headers' own guard and identity macros (header-macros.tsv), and launch chevrons spelled with blanks:
what widely copied helper headers and old sources rely on, after hipify and in the stand-in toolkit."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from cassc.hipify.tables import TABLE_DIR, header_macros, load_tables, read_table
from conftest import write
from cuda_header_guards import CUDA_INCLUDE, chained_guards, own_guard

MACROS = header_macros()
INSTALLED = sorted(h for h in MACROS if (CUDA_INCLUDE / h).is_file())


@pytest.mark.parametrize("header", INSTALLED)
def test_each_row_is_the_guards_cuda_13s_header_chain_defines(header: str) -> None:
    assert set(MACROS[header]) == chained_guards(header)


def test_every_renamed_cuda_header_with_a_guard_has_a_row() -> None:
    renamed = [cuda for cuda, _, _ in read_table(TABLE_DIR / "headers.tsv")]
    missing = [h for h in renamed if (CUDA_INCLUDE / h).is_file() and own_guard((CUDA_INCLUDE / h).resolve())
               and h not in MACROS]
    assert not missing


def test_library_rows_this_toolkit_lacks_keep_the_names_helper_headers_test() -> None:
    names = {"cublas_v2.h": "CUBLAS_API_H_", "cufft.h": "_CUFFT_H_", "curand.h": "CURAND_H_",
             "cusparse.h": "CUSPARSEAPI", "cusolverDn.h": "CUSOLVER_COMMON_H_"}
    for header, macro in names.items():
        assert macro in MACROS[header]
    assert "__CUDA_RUNTIME_H__" in MACROS["curand.h"] and "__CUDA_FP16_H__" in MACROS["cusparse.h"]


# What NVIDIA's samples' helper_cuda.h does: define its helpers only where CUDA's headers were included.
HELPER_HEADER = """\
#pragma once
#include <cstdio>
#ifdef __DRIVER_TYPES_H__
#define checkCudaErrors(call) do { if ((call) != cudaSuccess) { std::printf("error\\\\n"); } } while (0)
#endif
#ifdef __CUDA_RUNTIME_H__
inline int findCudaDevice() { int device = 0; checkCudaErrors(cudaSetDevice(device)); return device; }
#endif
#if defined(__CUDA_FP16_H__) && defined(__VECTOR_TYPES_H__)
#define HAVE_HALF 1
#endif
"""

PROGRAM = """\
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include "helper_cuda.h"
#ifndef HAVE_HALF
#error cuda_fp16.h's guard is missing
#endif
__global__ void scale(float* x) { x[threadIdx.x] *= 2.0f; }
int main() {
  findCudaDevice();
  float* x = nullptr;
  checkCudaErrors(cudaMalloc(&x, 64 * sizeof(float)));
  scale<< <1, 64 >> >(x);
  checkCudaErrors(cudaDeviceSynchronize());
  return __LINE__;
}
"""


def test_helper_headers_see_cuda_guards_and_spaced_chevrons_launch(cassc, tmp_path: Path) -> None:
    write(tmp_path / "helper_cuda.h", HELPER_HEADER)
    write(tmp_path / "main.cu", PROGRAM)
    cassc("-c", "main.cu", "-o", "main.o")
    cassc("-E", "main.cu", "-o", "main.ii")
    assert "return 14;" in (tmp_path / "main.ii").read_text()  # the added #defines keep the user's lines


def test_a_cuda_unit_sees_the_runtime_guards_nvccs_pre_include_leaves(cassc, tmp_path: Path) -> None:
    """nvcc pre-includes cuda_runtime.h into every CUDA unit, so a helper header included before any CUDA
    header (the CUDA samples' helper_cuda.h after <cooperative_groups.h>) still defines checkCudaErrors; a
    C++ unit, which nvcc hands to the host compiler as it is, does not see them."""
    write(tmp_path / "helper_cuda.h", HELPER_HEADER)
    program = "#include <assert.h>\n" + PROGRAM.replace("#include <cuda_runtime.h>\n", "")
    write(tmp_path / "main.cu", program)
    cassc("-c", "main.cu", "-o", "main.o")
    cassc("-E", "main.cu", "-o", "main.ii")
    assert f"return {program[:program.index('return __LINE__')].count(chr(10)) + 1};" in (tmp_path / "main.ii").read_text()
    write(tmp_path / "host.cpp", "#ifdef __DRIVER_TYPES_H__\n#error seen\n#endif\nint main() { return 0; }\n")
    cassc("-c", "host.cpp", "-o", "host.o")


def test_chevron_rule_leaves_operator_templates_and_nested_template_closers() -> None:
    from cassc.hipify.rewrite import rewrite_source
    source = ("template <class T> std::ostream& operator<< <T>(std::ostream&, const Box<T>&);\n"
              "std::vector<std::vector<std::vector<int>> > grid;\n"
              "k<< <blocks, threads >> >(n >> 1); k<<<1, 1>> >(); k<< <1,1>>>();\n")
    text = rewrite_source(source, load_tables()).text.splitlines()
    assert text[0].startswith("template <class T> std::ostream& operator<< <T>")
    assert text[1] == "std::vector<std::vector<std::vector<int>> > grid;"
    assert text[2] == "k<<<blocks, threads >>>(n >> 1); k<<<1, 1>>>(); k<<<1,1>>>();"


@pytest.mark.skipif(not Path("/usr/local/cuda/bin/nvcc").exists(), reason="NVIDIA's nvcc is not installed")
def test_nvcc_accepts_the_spaced_chevrons_this_rule_joins(tmp_path: Path) -> None:
    source = write(tmp_path / "launch.cu", "__global__ void k() {}\nint main() { k<< <1, 1>> >(); }\n")
    subprocess.run(["/usr/local/cuda/bin/nvcc", "-c", str(source), "-o", str(tmp_path / "launch.o")],
                   check=True, capture_output=True, text=True)


def test_stand_in_toolkit_headers_leave_the_guards(cassc, tmp_path: Path) -> None:
    exports = dict(line.removeprefix("export ").split("=", 1) for line in cassc("env").stdout.splitlines())
    toolkit = Path(exports["CUDA_PATH"])
    write(tmp_path / "helper_cuda.h", HELPER_HEADER)
    source = write(tmp_path / "host.cpp", "#include <cuda_runtime.h>\n#include \"helper_cuda.h\"\n"
                   "int main() { return findCudaDevice(); }\n")
    subprocess.run(["g++", f"-I{toolkit}/include", "-fsyntax-only", str(source)], check=True,
                   capture_output=True, text=True)


def test_a_cuda_header_brings_what_it_includes_in_turn(cassc, tmp_path: Path) -> None:
    """CUDA's cusparse.h includes cuda_fp16.h and cuComplex.h (cuBLAS's headers cuda_bf16.h too): programs that
    include only the former use the latter's types, in CUDA units and in host files the stand-in toolkit serves."""
    use = "__host__ __device__ __half half_of(float x) { return __float2half(x); }\n"
    write(tmp_path / "k.cu", "#include <cusparse.h>\n" + use + "__global__ void k(__half* p) { *p = half_of(1); }\n")
    cassc("-c", "k.cu", "-o", "k.o")
    exports = dict(line.removeprefix("export ").split("=", 1) for line in cassc("env").stdout.splitlines())
    source = write(tmp_path / "host.cpp", "#include <cusparse.h>\n"
                   "cuFloatComplex complex_of(float x) { return make_cuFloatComplex(x, x); }\n"
                   "__half half_of(float x) { return __float2half(x); }\nint main() {}\n")
    subprocess.run(["g++", f"-I{exports['CUDA_PATH']}/include", "-fsyntax-only", str(source)], check=True,
                   capture_output=True, text=True)
