"""Compiling CUDA sources for gfx1100 with the real clang: outputs, macros, depfiles, device-only."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

from conftest import gpu_targets, write

KERNEL = """\
#include <cuda_runtime.h>
#include "scale.cuh"
__global__ void scale(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = SCALE * x[i];
}
void launch(float* x, int n) { scale<<<(n + 255) / 256, 256>>>(x, n); cudaDeviceSynchronize(); }
"""


def project(tmp_path: Path) -> Path:
    write(tmp_path / "scale.cuh", "#pragma once\n#define SCALE 2.0f\n")
    write(tmp_path / "kernel.cu", KERNEL)
    return tmp_path


def test_compile_writes_an_object_holding_gfx1100_code(cassc, tmp_path: Path) -> None:
    project(tmp_path)
    cassc("-O2", "-arch=sm_80", "-c", "kernel.cu")
    assert gpu_targets(tmp_path / "kernel.o") == ["gfx1100"]
    cassc("-c", "kernel.cu", "-odir", ".", "--cassc-offload-arch=gfx1101")
    assert gpu_targets(tmp_path / "kernel.o") == ["gfx1101"]


def test_nvcc_macros_and_cuda_arch_only_in_the_device_pass(cassc, tmp_path: Path) -> None:
    write(tmp_path / "macros.cu", """\
#if !defined(__NVCC__) || !defined(__CUDACC__) || __CUDACC_VER_MAJOR__ < 12
#error nvcc identification macros missing
#endif
#if defined(__HIP_DEVICE_COMPILE__) && __CUDA_ARCH__ != 860
#error device pass must see __CUDA_ARCH__ == 860
#endif
#if !defined(__HIP_DEVICE_COMPILE__) && defined(__CUDA_ARCH__)
#error host pass must not see __CUDA_ARCH__
#endif
#ifndef __CUDACC_RDC__
#error -rdc=true defines __CUDACC_RDC__
#endif
__global__ void k(int* p) { *p = __CUDA_ARCH_LIST__; }
""")
    cassc("-gencode", "arch=compute_86,code=sm_86", "-gencode", "arch=compute_90,code=sm_90", "-rdc=true",
          "-c", "macros.cu")
    preprocessed = cassc("-E", "-arch=sm_86", "-rdc=true", "macros.cu").stdout
    assert "*p = 860;" in preprocessed


def test_depfiles_name_the_users_original_headers(cassc, tmp_path: Path) -> None:
    project(tmp_path)
    cassc("-c", "kernel.cu", "-o", "kernel.o", "-MD", "-MT", "kernel.o", "-MF", "kernel.o.d")
    depfile = (tmp_path / "kernel.o.d").read_text()
    assert depfile.startswith("kernel.o : \\\n    kernel.cu \\\n")
    assert "\n    scale.cuh" in depfile
    assert "mirror" not in depfile and "/tmp/cassc-" not in depfile
    assert "cuda_compat.h" not in depfile
    cassc("-c", "kernel.cu", "-MMD", "-MP")
    nonsystem = (tmp_path / "kernel.d").read_text()
    assert "hip_runtime.h" not in nonsystem and "\nscale.cuh:\n" in nonsystem
    listed = cassc("-M", "kernel.cu").stdout
    assert listed.startswith("kernel.o : \\\n    kernel.cu \\\n") and "scale.cuh" in listed
    assert "hip_runtime.h" in listed
    assert "hip_runtime.h" not in cassc("-MM", "kernel.cu").stdout
    # a device-only output lists its headers too, and clang (21) is not left warning about an unused -MF
    ptx = cassc("-ptx", "kernel.cu", "-o", "kernel.ptx", "-MD", "-MF", "kernel.ptx.d")
    assert "\n    scale.cuh" in (tmp_path / "kernel.ptx.d").read_text() and "warning" not in ptx.stderr


def test_make_rebuilds_when_a_header_changes(cassc_command: str, tmp_path: Path) -> None:
    import subprocess
    import time

    project(tmp_path)
    write(tmp_path / "Makefile", f"""\
NVCC = {cassc_command}
kernel.o: kernel.cu
\t$(NVCC) -c $< -o $@ -MD -MF kernel.d
-include kernel.d
""")
    env = {"CASSC_CACHE": "0"}
    import os
    run = lambda: subprocess.run(["make"], cwd=tmp_path, capture_output=True, text=True, env={**os.environ, **env})
    assert "cassc" in run().stdout
    assert "up to date" in run().stdout
    time.sleep(1.1)
    (tmp_path / "scale.cuh").write_text("#pragma once\n#define SCALE 3.0f\n")
    assert "cassc" in run().stdout


def test_device_only_outputs(cassc, tmp_path: Path) -> None:
    from cassc.formats.code_object import code_object_target
    from cassc.formats.offload_bundle import read_bundle

    project(tmp_path)
    cassc("-cubin", "kernel.cu")
    assert code_object_target((tmp_path / "kernel.cubin").read_bytes()) == "gfx1100"
    cassc("-fatbin", "kernel.cu", "--cassc-offload-arch=gfx1100,gfx1030")
    entries, _ = read_bundle((tmp_path / "kernel.fatbin").read_bytes())
    assert sorted(code_object_target(e.payload) for e in entries if e.payload) == ["gfx1030", "gfx1100"]
    cassc("-ptx", "kernel.cu")
    assert "amdhsa" in (tmp_path / "kernel.ptx").read_text()


def test_host_sources_go_to_the_host_compiler(cassc, tmp_path: Path) -> None:
    write(tmp_path / "host.cpp", """\
#include <cuda_runtime.h>
#ifndef __NVCC__
#error nvcc defines __NVCC__ for C++ inputs
#endif
#ifdef __CUDACC__
#error but not __CUDACC__
#endif
int device_count() { int n = 0; cudaGetDeviceCount(&n); return n; }
""")
    write(tmp_path / "plain.c", "int add(int a, int b) { return a + b; }\n")
    cassc("-c", "host.cpp")
    cassc("-c", "plain.c")
    cassc("-std=c++17", "-c", "plain.c", "-o", "plain17.o")  # nvcc keeps its C++ dialect off .c files
    assert gpu_targets(tmp_path / "host.o") == []


def test_inputs_are_never_modified(cassc, tmp_path: Path) -> None:
    project(tmp_path)
    digests = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in tmp_path.iterdir()}
    cassc("-c", "kernel.cu", "-MD")
    cassc("-E", "kernel.cu", "-o", "kernel.ii")
    for name, value in digests.items():
        assert hashlib.sha256((tmp_path / name).read_bytes()).hexdigest() == value


def test_verbose_shows_commands_and_dropped_options(cassc, tmp_path: Path) -> None:
    project(tmp_path)
    result = cassc("-v", "-c", "kernel.cu", "-Xptxas", "-O3", "-t", "4", "-lineinfo")
    assert re.search(r"^#\$ \S*clang\+\+ .*--offload-arch=gfx1100", result.stderr, re.M)
    assert "cassc: ignoring -t 4" in result.stderr


def test_keep_leaves_the_hipified_sources(cassc, tmp_path: Path) -> None:
    project(tmp_path)
    (tmp_path / "tmp").mkdir()
    cassc("--keep", "--keep-dir", "tmp", "-c", "kernel.cu")
    kept = list((tmp_path / "tmp").rglob("kernel.cu"))
    assert len(kept) == 1 and kept[0].read_text().startswith('#line 1 "kernel.cu"')
    cassc("-cuda", "kernel.cu")
    assert "hipLaunchKernel" in (tmp_path / "kernel.cu.cpp.ii").read_text() or \
        "__hipPushCallConfiguration" in (tmp_path / "kernel.cu.cpp.ii").read_text()


@pytest.mark.parametrize("options", [
    ["-use_fast_math"], ["--ftz=true", "--prec-div=false", "--fmad=false"], ["-G"], ["-G", "-dopt", "on"],
    ["-lineinfo"], ["-default-stream", "per-thread"], ["-Xptxas", "-v"], ["-g", "-pg", "-std=c++17"],
    ["--expt-relaxed-constexpr", "--extended-lambda", "-ewp"], ["-noeh", "-w", "-Werror", "all-warnings"],
    ["-ftemplate-depth", "128", "-ftemplate-backtrace-limit", "5", "-Wno-deprecated-declarations"],
    ["-Xcompiler", "-fPIC,-Wall", "-include", "scale.cuh", "-isystem", "/usr/include"],
])
def test_code_generation_options_reach_clang(options: list[str], cassc, tmp_path: Path) -> None:
    """Each option's clang translation is accepted by the real clang and still yields gfx1100 code."""
    project(tmp_path)
    result = cassc(*options, "-c", "kernel.cu")
    assert gpu_targets(tmp_path / "kernel.o") == ["gfx1100"]
    if "-Xptxas" in options:
        assert "VGPRs" in result.stderr or "SGPRs" in result.stderr
