"""Kernel parameters aligned past 16 bytes (`alignas(N)` structs, as HeCBench's lattice-Boltzmann kernels take):
CUDA's cubins align them in constant-bank terms up to sm_90 (bank-0 parameter base + offset), where PTX's
`.param` layout aligns them in the buffer's own terms. The layout `emit.parameter_origin` computes from the PTX
equals nvcc's cubin for each architecture, and the gfx1100 kernarg segment (PTX and SASS routes) places every
parameter where the cubin does, so the shim's parameter buffer is the kernel's; the NVPTX lowering ptxas
assembles."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from cassc.binary.codegen import data_layout, nvptx_assembly
from cassc.binary.emit import NVPTX
from cassc.binary.extract import read_binary
from cassc.binary.lift import lift_module, ptx_parameter_layout
from cassc.binary.ptx import parse_ptx
from cassc.binary.translate import translate
from cassc.toolchain import find_toolchain

from conftest import write

NVCC = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
PTXAS = Path(NVCC).with_name("ptxas")

ALIGNED = r"""
struct alignas(32) A32 { double x[4]; };
struct alignas(64) A64 { double x[8]; };
struct alignas(256) A256 { double x[32]; };
__global__ void after_pointers(const double *p, const double *q, double *o, A64 a, A64 b, int t, A64 c) {
  o[threadIdx.x] = a.x[threadIdx.x % 8] + b.x[1] + c.x[2] + p[0] + q[0] + t;
}
__global__ void after_a_char(char c, A32 a, int t, A256 b, double *o) { o[0] = a.x[3] + b.x[31] + c + t; }
__global__ void plain(int n, float *o) { o[n] = 1.0f; }
"""


def kernarg_offsets(code_object: Path) -> dict[str, list[int]]:
    """Each kernel's argument offsets in the code object's metadata, cassc's padding arguments left out."""
    readelf = find_toolchain().llvm_objdump.with_name("llvm-readelf")
    notes = subprocess.run([str(readelf), "--notes", str(code_object)], capture_output=True, text=True,
                           check=True).stdout
    kernels = {}
    for kernel in notes.split("  - .args:")[1:]:
        name = re.search(r"\n    \.name:\s+(\S+)", kernel)
        assert name is not None
        kernels[name.group(1)] = [int(offset) for argument, offset in
                                  re.findall(r"\.name:\s+(\S+)\n\s+\.offset:\s+(\d+)", kernel)
                                  if argument.startswith("arg")]
    return kernels


@pytest.mark.skipif(not PTXAS.exists(), reason="NVIDIA's nvcc is not installed")
@pytest.mark.parametrize("arch", [75, 80, 90, 100])
def test_kernarg_segment_places_parameters_where_the_cubin_does(tmp_path: Path, arch: int) -> None:
    write(tmp_path / "k.cu", ALIGNED)
    subprocess.run([NVCC, f"-arch=sm_{arch}", "-c", "k.cu", "-o", "k.o"], cwd=tmp_path, check=True)
    (module,) = read_binary(tmp_path / "k.o")
    cubin = {k.name: tuple(p.offset for p in k.params) for k in module.kernels}
    ptx = parse_ptx(module.best_ptx() or "")
    for name, offsets in cubin.items():
        function = ptx.function(name)
        assert function is not None and ptx_parameter_layout(function, arch)[0] == offsets
    # the rule matters here: PTX's own layout differs from the cubin's up to sm_90
    after_pointers = next(name for name in cubin if "after_pointers" in name)
    assert (cubin[after_pointers][3] != 64) == (arch < 100)
    routes = [False, True] if arch < 100 else [False]
    for force_sass in routes:
        translation = translate(module, tmp_path, find_toolchain().lld, force_sass=force_sass)
        assert translation.failures == {}
        (tmp_path / "k.co").write_bytes(translation.code_object)
        placed = kernarg_offsets(tmp_path / "k.co")
        for kernel in translation.kernels:
            assert kernel.param_offsets == cubin[kernel.name]
            assert tuple(placed[kernel.name]) == cubin[kernel.name], (force_sass, kernel.name)
    lowered = lift_module(ptx, NVPTX, data_layout(NVPTX))
    assert lowered.failures == {}
    (tmp_path / "lowered.ptx").write_text(nvptx_assembly(lowered.ir, "sm_90"))
    subprocess.run([str(PTXAS), "-arch=sm_90", "lowered.ptx", "-o", "lowered.cubin"], cwd=tmp_path, check=True)
