"""The binary path's link: which nvcc-built inputs it takes, refuses and translates, as a linker would."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import write

NVCC = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
pytestmark = pytest.mark.skipif(not Path(NVCC).exists(), reason="NVIDIA's nvcc is not installed")

VENDOR = r"""
__global__ void twice(float *p) { p[threadIdx.x] *= 2.f; }
extern "C" int vendor_run() { float *p; cudaMalloc(&p, 128); twice<<<1, 32>>>(p); return cudaDeviceSynchronize(); }
"""
MAIN = 'extern "C" int vendor_run();\nint main() { return vendor_run(); }\n'


def nvcc(*args: str, cwd: Path) -> None:
    subprocess.run([NVCC, "-arch=sm_80", *args], cwd=cwd, check=True)


def test_an_nvcc_built_shared_library_stops_the_link_with_one_line(cassc, tmp_path: Path) -> None:
    write(tmp_path / "vendor.cu", VENDOR)
    write(tmp_path / "main.cpp", MAIN)
    nvcc("-shared", "-Xcompiler", "-fPIC", "vendor.cu", "-o", "libvendor.so", cwd=tmp_path)
    for args in (["main.cpp", "-L.", "-lvendor"], ["main.cpp", "libvendor.so"]):
        result = cassc(*args, "-o", "app", check=False)
        assert result.returncode == 1 and not (tmp_path / "app").exists()
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and "libvendor.so is a shared library built by nvcc" in lines[0], result.stderr
        assert "link the objects it was built from" in lines[0]


def test_an_nvcc_built_executable_is_named_as_one(cassc, tmp_path: Path) -> None:
    write(tmp_path / "tool.cu", VENDOR + "int main() { return vendor_run(); }\n")
    nvcc("tool.cu", "-o", "tool", cwd=tmp_path)
    result = cassc("tool", "-o", "again", check=False)
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [result.stderr.strip()]
    assert "tool is an executable built by nvcc" in result.stderr
    assert "Don't know what to do" in cassc("main.notes", "-o", "x", check=False).stderr
