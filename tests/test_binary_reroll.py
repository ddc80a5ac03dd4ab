"""Re-rolling NVVM's runtime-unrolled loops (cassc.binary.reroll) on PTX nvcc wrote here: the loops that
remain compute what the originals compute, for trip counts on both sides of the unroll factor."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from cassc.binary import codegen
from cassc.binary.codegen import amdgpu_assembly, data_layout
from cassc.binary.lift import AMDGPU, lift_module
from cassc.binary.ptx import Instruction, Pragma, function_text, parse_ptx
from cassc.binary.reroll import reroll_runtime_unrolled_loops

NVCC = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
pytestmark = pytest.mark.skipif(not Path(NVCC).exists(), reason="NVIDIA's nvcc is not installed")

# A hash loop (no closed form, so NVVM keeps and unrolls it) counted up by one (the epilogue shape), by a
# run-time step (the prologue shape, whose trip count is a division) and by a power of two (a shift); a grid-stride loop as HeCBench writes
# them; and a descending loop with 64-bit divisions, as tensor-index code has.
SOURCE = r"""
__global__ void by_one(int n, unsigned *out) {
  unsigned h = 7;
  for (int i = 0; i < n; ++i) h = h * 31 + i;
  *out = h;
}
__global__ void by_step(int start, int n, int step, unsigned *out) {
  unsigned h = 7;
  for (int i = start; i < n; i += step) h = h * 31 + i;
  *out = h;
}
__global__ void by_four(int start, int n, unsigned *out) {
  unsigned h = 7;
  for (int i = start; i < n; i += 4) h = h * 31 + i;
  *out = h;
}
__global__ void grid_stride(int n, const float *x, float *y) {
  int index = blockIdx.x * blockDim.x + threadIdx.x;
  int stride = blockDim.x * gridDim.x;
  for (int i = index; i < n; i += stride) y[i] += x[i];
}
__global__ void offsets(const long *sizes, const long *strides, int dims, long *out) {
  long index = blockIdx.x * blockDim.x + threadIdx.x, offset = 0;
  for (int d = dims - 1; d > 0; --d) {
    offset += index % sizes[d] * strides[d];
    index /= sizes[d];
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = offset + index * strides[0];
}
"""


@pytest.fixture(scope="module")
def ptx(tmp_path_factory: pytest.TempPathFactory) -> str:
    directory = tmp_path_factory.mktemp("reroll")
    (directory / "loops.cu").write_text(SOURCE)
    subprocess.run([NVCC, "-arch=sm_90", "-O3", "-ptx", "loops.cu", "-o", "loops.ptx"], cwd=directory, check=True)
    return (directory / "loops.ptx").read_text()


def kernel(ptx: str, name: str) -> str:
    return ptx[:ptx.index(".visible")] + function_text(ptx, name)


def with_constants(text: str, values: dict[int, int]) -> str:
    """The kernel with its `index`-th parameter load replaced by a constant."""
    for index, value in values.items():
        text, count = re.subn(rf"ld\.param\.u32\s+(%r\d+), \[\w+_param_{index}\];", rf"mov.u32 \1, {value};", text)
        assert count == 1
    return text


def folded_store(text: str) -> int:
    """What the kernel stores, evaluated by LLVM: with the parameters constant, its own unroller (on here,
    unlike cassc's pipeline) unrolls the loop fully and folds it."""
    llvm = codegen._llvm()
    module = llvm.parse_assembly(lift_module(parse_ptx(text), AMDGPU, data_layout(AMDGPU)).ir)
    builder = llvm.create_pass_builder(codegen.target_machine(AMDGPU), llvm.create_pipeline_tuning_options(3))
    builder.getModulePassManager().run(module, builder)
    (stored,) = re.findall(r"store i32 (-?\d+)", str(module))
    return int(stored) & 0xFFFFFFFF


def hash_loop(start: int, end: int, step: int) -> int:
    h = 7
    for i in range(start, end, step):
        h = (h * 31 + i) & 0xFFFFFFFF
    return h


def rerolled(text: str) -> bool:
    (function,) = [f for f in parse_ptx(text).functions if f.body is not None]
    assert Pragma("nounroll") in function.body  # NVVM unrolled it: a remainder loop is there
    return reroll_runtime_unrolled_loops(function.body) != function.body


@pytest.mark.parametrize("trips", [1, 2, 3, 4, 5, 8, 11])
def test_a_rerolled_loop_counted_by_one_computes_the_original(ptx: str, trips: int) -> None:
    text = with_constants(kernel(ptx, "_Z6by_oneiPj"), {0: trips})
    assert rerolled(text)
    assert folded_store(text) == hash_loop(0, trips, 1)


@pytest.mark.parametrize("trips", [1, 3, 4, 7, 13])
def test_a_rerolled_loop_with_a_run_time_step_computes_the_original(ptx: str, trips: int) -> None:
    text = with_constants(kernel(ptx, "_Z7by_stepiiiPj"), {0: 3, 1: 3 + 2 * trips, 2: 2})
    assert rerolled(text)
    assert folded_store(text) == hash_loop(3, 3 + 2 * trips, 2)


@pytest.mark.parametrize("trips", [1, 3, 4, 9])
def test_a_rerolled_loop_with_a_power_of_two_step_computes_the_original(ptx: str, trips: int) -> None:
    text = with_constants(kernel(ptx, "_Z7by_fouriiPj"), {0: 5, 1: 5 + 4 * trips - 1})
    assert rerolled(text)
    assert folded_store(text) == hash_loop(5, 5 + 4 * trips - 1, 4)


def test_a_grid_stride_loop_keeps_one_copy_of_its_body(ptx: str) -> None:
    text = kernel(ptx, "_Z11grid_strideiPKfPf")
    if not rerolled(text):
        pytest.skip("this nvcc did not unroll the grid-stride loop")
    assembly = amdgpu_assembly(lift_module(parse_ptx(text), AMDGPU, data_layout(AMDGPU)).ir)
    assert len(re.findall(r"^\s*global_store_b32", assembly, re.MULTILINE)) == 1


def test_a_descending_loop_keeps_one_64_bit_division(ptx: str) -> None:
    text = kernel(ptx, "_Z7offsetsPKlS0_iPl")
    assert rerolled(text)
    assembly = amdgpu_assembly(lift_module(parse_ptx(text), AMDGPU, data_layout(AMDGPU)).ir)
    # Each 64-bit division gfx1100 expands inline starts from one reciprocal of the divisor.
    assert len(re.findall(r"^\s*v_rcp_f32", assembly, re.MULTILINE)) <= 2


def test_a_counter_used_after_the_loop_is_left_unrolled(ptx: str) -> None:
    text = kernel(ptx, "_Z6by_oneiPj")
    (function,) = [f for f in parse_ptx(text).functions if f.body is not None]
    counter = next(i.operands[0] for i in function.body if isinstance(i, Instruction) and i.opcode == "and")
    # The counter stored as well: it is more than the remainder loop's count, so nothing may change.
    text = text.replace("ret;", f"st.global.u32 [%rd2+4], {counter};\n\tret;")
    (function,) = [f for f in parse_ptx(text).functions if f.body is not None]
    assert reroll_runtime_unrolled_loops(function.body) == function.body
