"""PTX forms HeCBench's sample met untranslated: funnel shifts (`shf`, CUDA's `__funnelshift_*`: merge-cuda),
16-bit and packed float atomics (`atom.add.noftz.f16/.f16x2`: f16atomic-cuda) and vectors with a memory order (lzss-cuda). Each shift form evaluated by LLVM's
constant folder from the lifted IR against the PTX ISA's definition computed here; the atomics translated into a
validated gfx1100 code object and an NVPTX lowering ptxas assembles."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from cassc.binary.codegen import data_layout, nvptx_assembly, optimized_module, target_machine
from cassc.binary.emit import AMDGPU, NVPTX
from cassc.binary.extract import read_binary
from cassc.binary.lift import lift_module
from cassc.binary.ptx import parse_ptx
from cassc.binary.translate import translate
from cassc.formats.code_object import code_object_target
from cassc.toolchain import find_toolchain

from conftest import write

NVCC = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
PTXAS = Path(NVCC).with_name("ptxas")


def funnel_shift(left: bool, wrap: bool, a: int, b: int, c: int) -> int:
    """The PTX ISA's shf: the 64-bit b:a shifted by c (mod 32 with .wrap, at most 32 with .clamp)."""
    n = c & 31 if wrap else min(c, 32)
    wide = (b << 32) | a
    return ((wide << n) >> 32) & 0xFFFFFFFF if left else (wide >> n) & 0xFFFFFFFF


CASES = [(0x12345678, 0x9ABCDEF0, c) for c in (0, 1, 4, 31, 32, 33, 40)]


@pytest.mark.parametrize("direction", ["l", "r"])
@pytest.mark.parametrize("mode", ["wrap", "clamp"])
def test_funnel_shifts_compute_the_ptx_isas_definition(direction: str, mode: str) -> None:
    lines = []
    for index, (a, b, c) in enumerate(CASES):
        lines += [f"mov.u32 %r1, {a};", f"mov.u32 %r2, {b};", f"mov.u32 %r3, {c};",
                  f"shf.{direction}.{mode}.b32 %r4, %r1, %r2, %r3;", f"st.global.u32 [%rd1+{4 * index}], %r4;"]
    ptx = (".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n"
           "  .reg .b32 %r<5>;\n  .reg .b64 %rd<2>;\n  ld.param.u64 %rd1, [p];\n  " + "\n  ".join(lines) + "\n  ret;\n}\n")
    lifted = lift_module(parse_ptx(ptx), AMDGPU, data_layout(AMDGPU))
    assert lifted.failures == {}
    folded = str(optimized_module(lifted.ir, AMDGPU))
    stored = [int(v) & 0xFFFFFFFF for v in re.findall(r"store i32 (-?\d+), ptr addrspace\(1\)", folded)]
    assert stored == [funnel_shift(direction == "l", mode == "wrap", a, b, c) for a, b, c in CASES]


HALF_ATOMICS = r"""
#include <cuda_fp16.h>
__global__ void halves(__half2 *p, __half *q, const __half2 *v) {
  atomicAdd(p, v[threadIdx.x]);
  atomicAdd(q, __low2half(v[threadIdx.x]));
}
"""


@pytest.mark.skipif(not PTXAS.exists(), reason="NVIDIA's nvcc is not installed")
def test_half_and_packed_half_atomics_translate_for_both_targets(tmp_path: Path) -> None:
    write(tmp_path / "h.cu", HALF_ATOMICS)
    subprocess.run([NVCC, "-arch=sm_80", "-c", "h.cu", "-o", "h.o"], cwd=tmp_path, check=True)
    (module,) = read_binary(tmp_path / "h.o")
    assert {"atom.add.noftz.f16x2", "atom.add.noftz.f16"} <= set(
        re.findall(r"\b(atom\.add\.noftz\.f16(?:x2)?)\b", module.best_ptx() or ""))
    translation = translate(module, tmp_path, find_toolchain().lld)
    assert translation.failures == {} and code_object_target(translation.code_object) == "gfx1100"
    lowered = lift_module(parse_ptx(module.best_ptx() or ""), NVPTX, data_layout(NVPTX))
    (tmp_path / "lowered.ptx").write_text(nvptx_assembly(lowered.ir, "sm_80"))
    subprocess.run([str(PTXAS), "-arch=sm_80", "lowered.ptx", "-o", "lowered.cubin"], cwd=tmp_path, check=True)


ORDERED_VECTORS = """
.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [p];
  .reg .b64 %rl<3>;
  ld.relaxed.gpu.global.v2.u32 {%r1, %r2}, [%rd1];
  add.s32 %r3, %r1, 1;
  st.relaxed.gpu.global.v2.u32 [%rd1+8], {%r3, %r2};
  ld.relaxed.gpu.global.v2.u64 {%rl1, %rl2}, [%rd1+16];
  st.relaxed.gpu.global.v2.u64 [%rd1+32], {%rl2, %rl1};
  ret;
}
"""


def gfx1100_assembly(ir: str) -> str:
    return target_machine(AMDGPU).emit_assembly(optimized_module(ir, AMDGPU))


def test_a_vector_with_a_memory_order_is_one_atomic_access_of_its_whole_width() -> None:
    """CUB's decoupled look-back writes {status, value} as st.relaxed.v2.u32 and reads it likewise (lzss-cuda):
    one 64-bit atomic each, so no reader sees half of a write."""
    for target in (AMDGPU, NVPTX):
        ir = lift_module(parse_ptx(ORDERED_VECTORS), target, data_layout(target)).ir
        assert re.search(r"load atomic i64, ptr addrspace\(1\) %\S+.* monotonic, align 8", ir), ir
        assert re.search(r"store atomic i64 %\S+, ptr addrspace\(1\) %\S+.* monotonic, align 8", ir)
        assert "load volatile <2 x i64>" in ir and "store volatile <2 x i64>" in ir  # v2.u64: one b128 access
    assert "global_store_b128" in gfx1100_assembly(lift_module(parse_ptx(ORDERED_VECTORS), AMDGPU,
                                                               data_layout(AMDGPU)).ir)
