"""`__managed__` variables on the binary path. On gfx1100 each is a pointer the device code reads it through plus
its initial value (`emit.variable_definition`), bound by the shim's __cudaRegisterManagedVar to hipMallocManaged
memory that nvcc's host shadow points to as well; NVPTX keeps `.attribute(.managed)`. Both routes (PTX, SASS)
translate nvcc's object into a validated code object, both NVPTX lowerings assemble with ptxas, and cassc links
the program against the shim runtime. (Running it needs an AMD GPU; the round trip on NVIDIA is
benchmarks/breadth/managed.cu.)"""

from __future__ import annotations

import re
import shutil
import subprocess
import struct
from pathlib import Path

import pytest

from cassc.binary.codegen import data_layout, nvptx_assembly
from cassc.binary.emit import AMDGPU, NVPTX
from cassc.binary.extract import read_binary
from cassc.binary.lift import lift_module
from cassc.binary.ptx import parse_ptx
from cassc.binary.sass_translate import lift_modules_sass
from cassc.binary.translate import translate
from cassc.formats.code_object import code_object_target
from cassc.toolchain import find_toolchain

from conftest import write

NVCC = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
PTXAS = Path(NVCC).with_name("ptxas")
needs_nvcc = pytest.mark.skipif(not PTXAS.exists(), reason="NVIDIA's nvcc is not installed")

MANAGED = r"""
#include <cstdio>
__managed__ int counter;
__managed__ float table[4] = {1.5f, 2.5f, 3.5f, 4.5f};
__global__ void bump(int n) {
  atomicAdd(&counter, n);
  if (threadIdx.x < 4) table[threadIdx.x] *= 2.0f;
}
int main() {
  counter = 5;
  bump<<<1, 32>>>(3);
  cudaDeviceSynchronize();
  std::printf("%d %g\n", counter, table[1]);
  return 0;
}
"""
VARIABLES = ("counter", "table")


def built(tmp_path: Path, *flags: str) -> Path:
    write(tmp_path / "managed.cu", MANAGED)
    subprocess.run([NVCC, *flags, "-c", "managed.cu", "-o", "managed.o"], cwd=tmp_path, check=True)
    return tmp_path / "managed.o"


@needs_nvcc
def test_managed_variables_translate_on_both_routes(tmp_path: Path) -> None:
    (module,) = read_binary(built(tmp_path, "-arch=sm_80"))
    for force_sass in (False, True):
        translation = translate(module, tmp_path, find_toolchain().lld, force_sass=force_sass)
        assert translation.failures == {} and code_object_target(translation.code_object) == "gfx1100"
        assert set(VARIABLES) <= set(translation.variables)
        (tmp_path / "code.o").write_bytes(translation.code_object)
        readelf = find_toolchain().llvm_objdump.with_name("llvm-readelf")
        symbols = subprocess.run([str(readelf), "-sW", str(tmp_path / "code.o")], capture_output=True, text=True,
                                 check=True).stdout
        for name in VARIABLES:  # the pointer the runtime fills and the initial value it copies
            assert re.search(rf"\s8 OBJECT\s+GLOBAL\s+PROTECTED\s+\d+ {name}$", symbols, re.MULTILINE), symbols
            assert re.search(rf" {name}\.managed$", symbols, re.MULTILINE), symbols
    ir = lift_module(parse_ptx(module.best_ptx() or ""), AMDGPU, data_layout(AMDGPU)).ir
    table = "".join(f"\\{b:02X}" for b in struct.pack("<4f", 1.5, 2.5, 3.5, 4.5))
    assert f'@table.managed = protected addrspace(1) global [16 x i8] c"{table}"' in ir
    # the device reaches each variable through its pointer, never at the pointer's own address
    assert {"counter", "table"} <= set(re.findall(r"load ptr addrspace\(1\), ptr addrspace\(1\) @(\w+)", ir))
    assert "atomicrmw add ptr addrspace(1) @counter" not in ir


@needs_nvcc
def test_nvptx_lowerings_keep_the_managed_attribute(tmp_path: Path) -> None:
    (module,) = read_binary(built(tmp_path, "-arch=sm_90"))
    ptx_route = lift_module(parse_ptx(module.best_ptx() or ""), NVPTX, data_layout(NVPTX))
    sass_ir, arch, _, failures, _ = lift_modules_sass([module], NVPTX)
    assert ptx_route.failures == {} and failures == {}
    for name, ir in (("ptx", ptx_route.ir), ("sass", sass_ir)):
        lowered = nvptx_assembly(ir, f"sm_{arch}")
        for variable in VARIABLES:
            assert re.search(rf"\.global \.attribute\(\.managed\) .*\b{variable}\[", lowered), (name, variable)
        (tmp_path / f"{name}.ptx").write_text(lowered)
        subprocess.run([str(PTXAS), f"-arch=sm_{arch}", f"{name}.ptx", "-o", f"{name}.cubin"], cwd=tmp_path,
                       check=True)


@needs_nvcc
def test_a_program_with_managed_variables_links_against_the_shim(cassc, tmp_path: Path) -> None:
    built(tmp_path, "-arch=sm_80")
    cassc("managed.o", "-o", "app")
    symbols = subprocess.run(["nm", "app"], cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    assert re.search(r" T __cudaRegisterManagedVar$", symbols, re.MULTILINE)
    assert re.search(r" T __cudaInitModule$", symbols, re.MULTILINE)
