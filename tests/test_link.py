"""Linking: executables, -rdc with and without -dlink, static and shared libraries, -run."""

from __future__ import annotations

import subprocess
from pathlib import Path

from conftest import gpu_targets, write

DEVICE_FUNCTION = '#include "ops.cuh"\n__device__ float twice(float x) { return 2.0f * x; }\n'
HEADER = "#pragma once\n__device__ float twice(float x);\n"
KERNEL = """\
#include <cstdio>
#include "ops.cuh"
__global__ void apply(float* x) { x[threadIdx.x] = twice(x[threadIdx.x]); }
int main() {
  float* d = nullptr;
  cudaError_t status = cudaMalloc(&d, 32 * sizeof(float));
  if (status == cudaSuccess) { apply<<<1, 32>>>(d); cudaDeviceSynchronize(); }
  std::printf("main ran: %s\\n", cudaGetErrorName(status));
  return 0;
}
"""


def rdc_project(tmp_path: Path) -> None:
    write(tmp_path / "ops.cuh", HEADER)
    write(tmp_path / "ops.cu", DEVICE_FUNCTION)
    write(tmp_path / "main.cu", KERNEL)


def test_rdc_compile_and_link_resolves_device_functions_across_files(cassc, tmp_path: Path) -> None:
    rdc_project(tmp_path)
    cassc("-dc", "ops.cu", "main.cu")
    assert gpu_targets(tmp_path / "ops.o") == []  # -rdc objects carry bitcode until the device link
    cassc("-rdc=true", "ops.o", "main.o", "-o", "app")
    assert gpu_targets(tmp_path / "app") == ["gfx1100"]
    ran = subprocess.run(["./app"], cwd=tmp_path, capture_output=True, text=True)
    assert "main ran:" in ran.stdout  # no GPU here: HIP reports it, the program still runs


def test_dlink_object_lets_another_linker_finish(cassc, tmp_path: Path) -> None:
    """CMake's separable compilation: objects, then `-dlink` to one object, then the host linker."""
    rdc_project(tmp_path)
    cassc("-rdc=true", "-c", "ops.cu")
    cassc("-rdc=true", "-c", "main.cu")
    cassc("-dlink", "ops.o", "main.o", "-o", "device_link.o")
    assert gpu_targets(tmp_path / "device_link.o") == ["gfx1100"]
    from cassc.toolchain import find_toolchain

    toolchain = find_toolchain()
    subprocess.run([str(toolchain.clang), "ops.o", "main.o", "device_link.o", f"-L{toolchain.hip_lib_dir}",
                    "-lamdhip64", "-o", "app"], cwd=tmp_path, check=True)
    assert gpu_targets(tmp_path / "app") == ["gfx1100"]


def test_missing_device_function_is_a_link_error(cassc, tmp_path: Path) -> None:
    rdc_project(tmp_path)
    result = cassc("-rdc=true", "main.cu", "-o", "app", check=False)
    assert result.returncode != 0 and "twice" in result.stderr
    assert not (tmp_path / "app").exists()


def test_static_library_then_link(cassc, tmp_path: Path) -> None:
    rdc_project(tmp_path)
    cassc("-lib", "-rdc=true", "ops.cu", "-o", "libops.a")
    members = subprocess.run(["ar", "t", "libops.a"], cwd=tmp_path, capture_output=True, text=True).stdout
    assert members.split() == ["ops.o"]
    cassc("-rdc=true", "main.cu", "libops.a", "-o", "app")
    assert gpu_targets(tmp_path / "app") == ["gfx1100"]


def test_shared_library(cassc, tmp_path: Path) -> None:
    write(tmp_path / "lib.cu", "__global__ void k(int* p) { *p = 1; }\n"
                               "void launch(int* p) { k<<<1, 1>>>(p); }\n")
    cassc("-shared", "-Xcompiler", "-fPIC", "lib.cu", "-o", "libk.so")
    assert gpu_targets(tmp_path / "libk.so") == ["gfx1100"]
    header = (tmp_path / "libk.so").read_bytes()[:18]
    assert header[16] == 3  # ET_DYN


def test_mixed_sources_objects_and_default_output(cassc, tmp_path: Path) -> None:
    write(tmp_path / "k.cu", "__global__ void k(int* p) { *p = 1; }\nvoid launch(int* p) { k<<<1, 1>>>(p); }\n")
    write(tmp_path / "main.cpp", '#include <cstdio>\nvoid launch(int*);\nint main() { std::puts("hi"); }\n')
    cassc("-c", "main.cpp")
    cassc("k.cu", "main.o")
    assert gpu_targets(tmp_path / "a.out") == ["gfx1100"]


def test_host_debug_link(cassc, tmp_path: Path) -> None:
    """nvcc's -g is host debug information: it reaches the link of objects as well as the compile."""
    write(tmp_path / "k.cu", "__global__ void k(int* p) { *p = 1; }\nint main() { k<<<1, 1>>>(nullptr); }\n")
    cassc("-g", "-c", "k.cu")
    cassc("-g", "k.o", "-o", "app")
    assert gpu_targets(tmp_path / "app") == ["gfx1100"]


def test_run_builds_and_executes(cassc, tmp_path: Path) -> None:
    write(tmp_path / "hello.cu", '#include <cstdio>\nint main(int argc, char** argv) '
                                 '{ std::printf("args=%d\\n", argc); return 3; }\n')
    result = cassc("-run", "hello.cu", "-run-args", "x,y", check=False)
    assert result.returncode == 3 and "args=3" in result.stdout


def test_clean_targets_removes_what_the_command_would_build(cassc, tmp_path: Path) -> None:
    write(tmp_path / "k.cu", "int main() { return 0; }\n")
    cassc("-c", "k.cu", "-MD")
    assert (tmp_path / "k.o").exists() and (tmp_path / "k.d").exists()
    cassc("-c", "k.cu", "-MD", "-clean-targets")
    assert not (tmp_path / "k.o").exists() and not (tmp_path / "k.d").exists()
    assert (tmp_path / "k.cu").exists()


def test_ccbin_host_compiler_links(cassc, tmp_path: Path) -> None:
    write(tmp_path / "k.cu", "__global__ void k(int* p) { *p = 1; }\nint main() { k<<<1, 1>>>(nullptr); }\n")
    result = cassc("-v", "-ccbin", "gcc", "k.cu", "-o", "app")
    assert any(line.startswith("#$ /usr/bin/g++ ") for line in result.stderr.splitlines())
    assert gpu_targets(tmp_path / "app") == ["gfx1100"]
    missing = cassc("-ccbin", "/nonexistent/g++", "k.cu", "-o", "app2", check=False)
    assert missing.returncode == 1 and "-ccbin" in missing.stderr and not (tmp_path / "app2").exists()


STATIC_CONSTANT_HEADER = """\
#pragma once
__constant__ static char table[4];
template <int N> __global__ void lookup(char* out) { out[threadIdx.x] = table[threadIdx.x] * N; }
"""


def test_rdc_static_constant_in_a_header_used_by_host_and_kernels(cassc, tmp_path: Path) -> None:
    # Kernels above the host's cudaMemcpyToSymbol: clang 19 renames the variable for the runtime only
    # after it has emitted the kernels' references (EXTERNALIZED_STATIC_MARK in stages.py).
    write(tmp_path / "table.cuh", STATIC_CONSTANT_HEADER)
    for name in ("a", "b"):  # one static variable per file, both in one device link
        write(tmp_path / f"{name}.cu", '#include "table.cuh"\n'
              f'template __global__ void lookup<{len(name)}>(char*);\n'
              f'void fill_{name}() {{ char h[4] = {{1, 2, 3, 4}}; cudaMemcpyToSymbol(table, h, 4); }}\n')
    write(tmp_path / "main.cu", "void fill_a(); void fill_b();\nint main() { fill_a(); fill_b(); return 0; }\n")
    cassc("-rdc=true", "a.cu", "b.cu", "main.cu", "-o", "app")
    assert gpu_targets(tmp_path / "app") == ["gfx1100"]


def test_rdc_link_with_a_linker_script_library(cassc, tmp_path: Path) -> None:
    """A static library that is a linker script (the stand-in toolkit's libcufft_static.a names hipFFT's library;
    CUDA samples' simpleCUFFT_callback links it in an -rdc program) holds no device code for the device link."""
    write(tmp_path / "a.cu", "__global__ void k(int* x) { x[0] = 1; }\nint main() { k<<<1, 1>>>(nullptr); }\n")
    write(tmp_path / "libscript_static.a", "INPUT(-lm)\n")
    cassc("-rdc=true", "a.cu", "-L.", "-lscript_static", "-o", "app")
    assert (tmp_path / "app").is_file()
