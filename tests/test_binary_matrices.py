"""Warp matrix operations (`nvcuda::wmma`) on the binary path: wmma.load/mma/store of m16n16k16 fragments translated
into gfx1100 WMMA, the NVPTX lowering keeping NVIDIA's instructions; the fragments' AMDGPU distribution checked
against reference values: each lane's loads and stores run on this CPU (the lane an argument), and between them
the product is formed as gfx1100's v_wmma_f32_16x16x16 reads and writes its registers (AMD's RDNA3 WMMA layout,
wave32: A's row l % 16 and B's column l % 16 in lane l, both half-waves alike; C/D's element j of lane l is
row 2j + l / 16, column l % 16)."""

from __future__ import annotations

import ctypes
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import numpy
import pytest

from cassc.binary import matrices
from cassc.binary.codegen import data_layout, nvptx_assembly
from cassc.binary.emit import AMDGPU, NVPTX, Emitter, Target
from cassc.binary.extract import read_binary
from cassc.binary.lift import lift_module
from cassc.binary.ptx import parse_ptx
from cassc.binary.translate import translate
from cassc.formats.code_object import code_object_target
from cassc.toolchain import find_toolchain

from conftest import write

NVCC = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
PTXAS = Path(NVCC).with_name("ptxas")
HOST = Target("host", "", "", "", 0, "ptr byref({type}) align {align}", 0, True)

WMMA = r"""
#include <mma.h>
#include <cuda_bf16.h>
using namespace nvcuda;
__global__ void f32_accumulate(const half *a, const half *b, float *c) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::load_matrix_sync(fc, c, 16, wmma::mem_row_major);
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::mma_sync(fc, fa, fb, fc);
  for (int i = 0; i < fc.num_elements; i++) fc.x[i] *= 2.0f;
  wmma::store_matrix_sync(c, fc, 16, wmma::mem_col_major);
}
__global__ void f16_accumulate(const half *a, const half *b, half *c) {
  __shared__ half tile[256];
  for (int i = threadIdx.x; i < 256; i += 32) tile[i] = b[i];
  __syncthreads();
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::col_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, half> fc;
  wmma::fill_fragment(fc, 0.0f);
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, tile, 16);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
}
__global__ void bf16_inputs(const __nv_bfloat16 *a, const __nv_bfloat16 *b, float *c) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::fill_fragment(fc, 0.0f);
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
}
__global__ void tf32(const float *a, const float *b, float *c) {
  wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 8, float> fc;
  wmma::fill_fragment(fc, 0.0f);
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
}
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not Path(NVCC).exists():
        pytest.skip("NVIDIA's nvcc is not installed")
    directory = tmp_path_factory.mktemp("wmma")
    write(directory / "wmma.cu", WMMA)
    subprocess.run([NVCC, "-arch=sm_80", "-c", "wmma.cu", "-o", "wmma.o"], cwd=directory, check=True)
    return directory / "wmma.o"


def test_wmma_translates_into_gfx1100_wmma_and_round_trips_through_ptxas(built: Path, tmp_path: Path) -> None:
    (module,) = read_binary(built)
    translation = translate(module, tmp_path, find_toolchain().lld)
    assert code_object_target(translation.code_object) == "gfx1100"
    assert {k.name for k in translation.kernels} == {"_Z14f32_accumulatePK6__halfS1_Pf",
                                                      "_Z14f16_accumulatePK6__halfS1_PS_",
                                                      "_Z11bf16_inputsPK13__nv_bfloat16S1_Pf"}
    (reason,) = translation.failures.values()  # tf32 has no gfx1100 WMMA: refused by name
    assert "the tensor-core instruction 'wmma.load.a.sync.aligned.row.m16n16k8" in reason and "PTX line" in reason
    code_object = tmp_path / "wmma.co"
    code_object.write_bytes(translation.code_object)
    listing = subprocess.run([str(find_toolchain().llvm_objdump), "-d", "--mcpu=gfx1100", str(code_object)],
                             capture_output=True, text=True, check=True).stdout
    assert "v_wmma_f32_16x16x16_f16" in listing and "v_wmma_f32_16x16x16_bf16" in listing
    original = module.best_ptx() or ""
    lifted = lift_module(parse_ptx(original), NVPTX, data_layout(NVPTX))
    lowered = nvptx_assembly(lifted.ir)

    def wmma(text: str) -> Counter[str]:
        return Counter(line.split()[0] for line in text.splitlines() if line.strip().startswith("wmma.")
                       and ".m16n16k16." in line)
    assert wmma(lowered) == wmma(original)  # NVIDIA's own instructions, fragments in NVIDIA's layout
    (tmp_path / "lowered.ptx").write_text(lowered)
    if PTXAS.exists():
        subprocess.run([str(PTXAS), "-arch=sm_90", "lowered.ptx", "-o", "lowered.cubin"], cwd=tmp_path, check=True)


class OneLane(Emitter):
    """The emission core with the lane an argument (%arg3), so that one lane's code runs on the CPU."""

    def lane_id(self) -> str:
        return "%arg3"


def lane_functions(fragment: str, layout: str, element: str):  # type: ignore[no-untyped-def]
    """Host functions load(memory, stride, registers out, lane) and store(memory, stride, registers in, lane)."""
    import llvmlite.binding as llvm

    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    register = matrices.register_type(fragment, element)
    count = matrices.FRAGMENT_REGISTERS[(fragment, element)]
    loader = OneLane(HOST)
    for index, value in enumerate(matrices.load(loader, fragment, layout, element, "%arg0", 0, "%arg1")):
        slot = loader.value(f"getelementptr inbounds {register}, ptr %arg2, i64 {index}")
        loader.emit(f"store {register} {value}, ptr {slot}")
    loader.emit("ret void")
    text = [loader.function_text("define void @load(ptr %arg0, i32 %arg1, ptr %arg2, i32 %arg3) {")]
    if fragment == "c":
        storer = OneLane(HOST)
        values = [storer.value(f"load {register}, ptr "
                               f"{storer.value(f'getelementptr inbounds {register}, ptr %arg2, i64 {i}')}")
                  for i in range(count)]
        matrices.store(storer, layout, element, "%arg0", 0, "%arg1", values)
        storer.emit("ret void")
        text.append(storer.function_text("define void @store(ptr %arg0, i32 %arg1, ptr %arg2, i32 %arg3) {"))
    module = llvm.parse_assembly("\n".join(text))
    module.verify()
    engine = llvm.create_mcjit_compiler(module, llvm.Target.from_default_triple().create_target_machine())
    engine.finalize_object()
    signature = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int32, ctypes.c_void_p, ctypes.c_int32)
    functions = {name: signature(engine.get_function_address(name)) for name in ("load", "store")
                 if fragment == "c" or name == "load"}
    return engine, functions


def per_lane_registers(fragment: str, layout: str, element: str, memory: numpy.ndarray, stride: int) -> list:
    engine, functions = lane_functions(fragment, layout, element)
    count = matrices.FRAGMENT_REGISTERS[(fragment, element)]
    registers = []
    for lane in range(32):
        out = numpy.zeros(count, dtype=numpy.float32 if element == "f32" else numpy.uint32)
        functions["load"](memory.ctypes.data, stride, out.ctypes.data, lane)
        registers.append(out)
    del engine
    return registers


def halves(registers: numpy.ndarray, element: str) -> numpy.ndarray:
    """A lane's packed registers as floats (low half first)."""
    bits = numpy.stack([registers & 0xFFFF, registers >> 16], axis=1).reshape(-1).astype(numpy.uint16)
    if element == "f16":
        return bits.view(numpy.float16).astype(numpy.float32)
    return (bits.astype(numpy.uint32) << 16).view(numpy.float32)


def in_memory(matrix: numpy.ndarray, layout: str, dtype: type) -> numpy.ndarray:
    return numpy.ascontiguousarray(matrix if layout == "row" else matrix.T).astype(dtype).reshape(-1)


@pytest.mark.parametrize("element, a_layout, b_layout, c_layout, d_layout", [
    ("f16", "row", "col", "row", "col"), ("f16", "col", "row", "col", "row"), ("bf16", "row", "col", "row", "row"),
    ("bf16", "col", "row", "col", "col")])
def test_fragments_hold_what_gfx1100s_wmma_reads_and_writes(element: str, a_layout: str, b_layout: str,
                                                           c_layout: str, d_layout: str) -> None:
    generator = numpy.random.default_rng(7)
    a, b = (generator.integers(-4, 5, (16, 16)).astype(numpy.float32) / 4 for _ in range(2))
    c = generator.integers(-8, 9, (16, 16)).astype(numpy.float32)
    if element == "f16":
        a_memory, b_memory = in_memory(a, a_layout, numpy.float16), in_memory(b, b_layout, numpy.float16)
    else:  # bf16: the high half of each f32 (exact for these values)
        a_memory, b_memory = ((in_memory(m, layout, numpy.float32).view(numpy.uint32) >> 16).astype(numpy.uint16)
                              for m, layout in ((a, a_layout), (b, b_layout)))
    a_lanes = [halves(r, element) for r in per_lane_registers("a", a_layout, element, a_memory, 16)]
    b_lanes = [halves(r, element) for r in per_lane_registers("b", b_layout, element, b_memory, 16)]
    c_lanes = per_lane_registers("c", c_layout, "f32", in_memory(c, c_layout, numpy.float32), 16)
    product = numpy.zeros((16, 16), dtype=numpy.float32)
    for lane in range(32):  # what v_wmma reads: the row of A and the column of B each lane's operand holds
        if element == "bf16":  # the instruction's operand: this lane's half and lane ^ 16's, lower k first
            low, high = (lane, lane ^ 16) if lane < 16 else (lane ^ 16, lane)
            row, column = (numpy.concatenate([a_lanes[low], a_lanes[high]]),
                           numpy.concatenate([b_lanes[low], b_lanes[high]]))
        else:
            row, column = a_lanes[lane], b_lanes[lane]
            assert numpy.array_equal(row, a_lanes[lane ^ 16])  # both half-waves hold A's row (WMMA's rule)
        assert numpy.array_equal(row, a[lane % 16]) and numpy.array_equal(column, b[:, lane % 16])
    for lane in range(32):
        for j in range(8):
            assert c_lanes[lane][j] == c[2 * j + lane // 16, lane % 16]
    expected = a @ b + c
    engine, functions = lane_functions("c", d_layout, "f32")
    stored = numpy.zeros(256, dtype=numpy.float32)
    for lane in range(32):  # what v_wmma writes: element j of lane l is D[2j + l / 16][l % 16]
        d = numpy.array([expected[2 * j + lane // 16, lane % 16] for j in range(8)], dtype=numpy.float32)
        functions["store"](stored.ctypes.data, 16, d.ctypes.data, lane)
    del engine
    product = stored.reshape(16, 16) if d_layout == "row" else stored.reshape(16, 16).T
    assert numpy.array_equal(product, expected)


def test_f16_accumulators_pack_two_elements_a_register() -> None:
    c = numpy.arange(256, dtype=numpy.float32).reshape(16, 16) / 8
    lanes = per_lane_registers("c", "row", "f16", in_memory(c, "row", numpy.float16), 16)
    for lane in range(32):
        assert list(halves(lanes[lane], "f16")) == [c[2 * j + lane // 16, lane % 16] for j in range(8)]


def test_shapes_and_types_without_gfx1100_wmma_are_refused_by_name(built: Path) -> None:
    (module,) = read_binary(built)
    failures = lift_module(parse_ptx(module.best_ptx() or ""), AMDGPU, data_layout(AMDGPU)).failures
    assert list(failures) == ["_Z4tf32PKfS0_Pf"]
