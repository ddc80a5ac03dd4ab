"""Driver-API programs: kernels built with `cassc -cubin` / `-fatbin` are files HIP's module loader takes
(a gfx1100 code object; an offload bundle with a gfx1100 entry), and a host program that loads them with
cuModuleLoad / cuModuleLoadData and launches with cuLaunchKernel links against the stand-in toolkit's
libcuda as a Makefile links it. No AMD GPU here: the program runs as far as cuInit's "no device"."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from cassc.formats.code_object import code_object_target, kernel_descriptors
from cassc.formats.offload_bundle import device_triple, read_bundle
from conftest import write

KERNEL = 'extern "C" __global__ void scale(float* x, float a, int n) {\n' \
         "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) x[i] *= a;\n}\n"

HOST = """\
#include <cuda.h>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

int main(int argc, char** argv) {
  CUresult status = cuInit(0);
  if (status != CUDA_SUCCESS) { std::printf("cuInit %d\\n", (int)status); return 3; }
  CUdevice device; CUcontext context; CUmodule module; CUfunction function; CUdeviceptr x;
  cuDeviceGet(&device, 0);
  cuCtxCreate(&context, 0, device);
  std::ifstream file(argv[1], std::ios::binary);
  std::string image((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (argc > 2) cuModuleLoad(&module, argv[1]); else cuModuleLoadData(&module, image.data());
  cuModuleGetFunction(&function, module, "scale");
  int n = 256; float a = 2.0f;
  cuMemAlloc(&x, n * sizeof(float));
  void* args[] = {&x, &a, &n};
  status = cuLaunchKernel(function, 1, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr);
  cuModuleUnload(module);
  return status == CUDA_SUCCESS ? 0 : 1;
}
"""


@pytest.fixture
def toolkit(cassc) -> Path:
    exports = dict(line.removeprefix("export ").split("=", 1) for line in cassc("env").stdout.splitlines())
    return Path(exports["CUDA_PATH"])


def test_cubin_is_a_gfx1100_code_object_with_the_kernel(cassc, tmp_path: Path) -> None:
    write(tmp_path / "k.cu", KERNEL)
    cassc("-cubin", "-arch=sm_80", "k.cu", "-o", "k.cubin")
    image = (tmp_path / "k.cubin").read_bytes()
    assert code_object_target(image) == "gfx1100"
    assert "scale" in kernel_descriptors(image)


def test_fatbin_is_an_offload_bundle_hip_loads(cassc, tmp_path: Path) -> None:
    write(tmp_path / "k.cu", KERNEL)
    cassc("-fatbin", "-arch=sm_80", "k.cu", "-o", "k.fatbin")
    entries, _ = read_bundle((tmp_path / "k.fatbin").read_bytes())
    device = [e for e in entries if e.triple == device_triple("gfx1100")]
    assert len(device) == 1 and "scale" in kernel_descriptors(device[0].payload)


@pytest.mark.parametrize("compiler", ["g++", "cassc"])
def test_host_program_loading_a_module_links_against_the_stand_in_libcuda(compiler: str, cassc, toolkit: Path,
                                                                       tmp_path: Path) -> None:
    write(tmp_path / "k.cu", KERNEL)
    cassc("-cubin", "-arch=sm_80", "k.cu", "-o", "k.cubin")
    write(tmp_path / "host.cpp", HOST)
    if compiler == "g++":
        subprocess.run(["g++", f"-I{toolkit}/include", "host.cpp", f"-L{toolkit}/lib64", "-lcuda", "-o", "host"],
                       cwd=tmp_path, check=True)
    else:
        cassc("host.cpp", "-lcuda", "-o", "host")
    ran = subprocess.run(["./host", "k.cubin"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert ran.returncode == 3 and ran.stdout.startswith("cuInit "), ran.stdout + ran.stderr
