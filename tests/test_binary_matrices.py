"""Warp matrix operations (`nvcuda::wmma`) on the binary path: wmma.load/mma/store of m16n16k16 fragments translated
into gfx1100 WMMA, the NVPTX lowering keeping NVIDIA's instructions; the fragments' AMDGPU distribution checked
against reference values: each lane's loads and stores run on this CPU (the lane an argument), and between them
the product is formed as gfx1100's v_wmma_f32_16x16x16 reads and writes its registers (AMD's RDNA3 WMMA layout,
wave32: A's row l % 16 and B's column l % 16 in lane l, both half-waves alike; C/D's element j of lane l is
row 2j + l / 16, column l % 16)."""

from __future__ import annotations

import ctypes
import re
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
__global__ void exchanged(const unsigned *a, const unsigned *b, float *c) {
  unsigned l = threadIdx.x;
  float d0, d1, d2, d3;
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
               "{%10,%11,%12,%13};" : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)
               : "r"(a[4 * l]), "r"(a[4 * l + 1]), "r"(a[4 * l + 2]), "r"(a[4 * l + 3]), "r"(b[2 * l]),
                 "r"(b[2 * l + 1]), "f"(c[4 * l]), "f"(c[4 * l + 1]), "f"(c[4 * l + 2]), "f"(c[4 * l + 3]));
  c[4 * l] = d0; c[4 * l + 1] = d1; c[4 * l + 2] = d2; c[4 * l + 3] = d3;
}
__global__ void rows(const half *g, unsigned *o) {
  __shared__ half s[16 * 16];
  for (int i = threadIdx.x; i < 256; i += 32) s[i] = g[i];
  __syncthreads();
  unsigned r0, r1, r2, r3;
  unsigned address = (unsigned)__cvta_generic_to_shared(&s[(threadIdx.x % 16) * 16 + (threadIdx.x / 16) * 8]);
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(address));
  o[4 * threadIdx.x] = r0; o[4 * threadIdx.x + 1] = r1; o[4 * threadIdx.x + 2] = r2; o[4 * threadIdx.x + 3] = r3;
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];" : "=r"(r0), "=r"(r1) : "r"(address));
  o[128 + 2 * threadIdx.x] = r0; o[129 + 2 * threadIdx.x] = r1;
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
                                                      "_Z11bf16_inputsPK13__nv_bfloat16S1_Pf",
                                                      "_Z9exchangedPKjS0_Pf", "_Z4rowsPK6__halfPj"}
    (reason,) = translation.failures.values()  # tf32 has no gfx1100 WMMA: refused by name
    assert "the tensor-core instruction 'wmma.load.a.sync.aligned.row.m16n16k8" in reason and "PTX line" in reason
    code_object = tmp_path / "wmma.co"
    code_object.write_bytes(translation.code_object)
    listing = subprocess.run([str(find_toolchain().llvm_objdump), "-d", "--mcpu=gfx1100", str(code_object)],
                             capture_output=True, text=True, check=True).stdout
    assert "v_wmma_f32_16x16x16_f16" in listing and "v_wmma_f32_16x16x16_bf16" in listing
    assert "ds_bpermute_b32" in listing  # mma.sync's and ldmatrix's exchanges between lanes
    original = module.best_ptx() or ""
    lifted = lift_module(parse_ptx(original), NVPTX, data_layout(NVPTX))
    lowered = nvptx_assembly(lifted.ir)

    def wmma(text: str) -> Counter[str]:
        return Counter(line.split()[0] for line in text.splitlines() if line.strip().startswith(
            ("wmma.", "mma.", "ldmatrix.")) and ".m16n16k8." not in line)
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


# -- mma.sync and ldmatrix: NVIDIA's fragments through the exchanges around WMMA, run lane by lane in lockstep ----
MASKS = {"i1": 1, "i16": 0xFFFF, "i32": 0xFFFFFFFF, "i64": 0xFFFFFFFFFFFFFFFF, "half": 0xFFFF, "float": 0xFFFFFFFF}
WIDTHS = {"i1": 1, "i16": 16, "i32": 32, "i64": 64, "half": 16, "float": 32}


def element_type(llvm: str) -> tuple[str, int]:
    """(element type, count; 0 for a scalar) of an LLVM type."""
    vector = re.fullmatch(r"<(\d+) x (\w+)>", llvm)
    return (vector.group(2), int(vector.group(1))) if vector else (llvm, 0)


class Wave:
    """The 32 lanes of a wave running straight-line AMDGPU IR in lockstep: every value as its bits, an array over
    the lanes (and elements); ds_bpermute reads another lane's value; v_wmma is the matrix product as gfx1100's
    WMMA reads and writes its registers; loads read `lds` (address space 3)."""

    def __init__(self, values: dict[str, numpy.ndarray], lds: bytes = b"") -> None:
        self.values = dict(values)
        self.lds = lds
        self.lane = numpy.arange(32, dtype=numpy.uint64)

    def operand(self, text: str, llvm: str) -> numpy.ndarray:
        text = text.strip()
        if text.startswith("%"):
            return self.values[text]
        element, count = element_type(llvm)
        bits = 0
        if text not in ("poison", "undef", "zeroinitializer"):
            bits = (int(numpy.float32(float(text)).view(numpy.uint32)) if element == "float" else
                    int(numpy.float16(float(text)).view(numpy.uint16)) if element == "half" else
                    (1 if text == "true" else 0 if text == "false" else int(text)) & MASKS[element])
        return numpy.full((32, count) if count else 32, bits, dtype=numpy.uint64)

    @staticmethod
    def floats(bits: numpy.ndarray, element: str) -> numpy.ndarray:
        if element == "half":
            return bits.astype(numpy.uint16).view(numpy.float16).astype(numpy.float32)
        if element == "i16":  # bf16 operands travel as i16
            return (bits.astype(numpy.uint32) << 16).view(numpy.float32)
        return bits.astype(numpy.uint32).view(numpy.float32)

    def wmma(self, a: numpy.ndarray, b: numpy.ndarray, c: numpy.ndarray, element: str) -> numpy.ndarray:
        assert numpy.array_equal(a[:16], a[16:]) and numpy.array_equal(b[:16], b[16:])  # both half-waves alike
        matrix_a, matrix_b = self.floats(a[:16], element), self.floats(b[:16], element).T
        accumulator = numpy.zeros((16, 16), dtype=numpy.float32)
        floats_c = self.floats(c, "float")
        for lane in range(32):
            for j in range(8):
                accumulator[2 * j + lane // 16, lane % 16] = floats_c[lane, j]
        product = matrix_a.astype(numpy.float64) @ matrix_b.astype(numpy.float64) + accumulator
        out = numpy.zeros((32, 8), dtype=numpy.float32)
        for lane in range(32):
            for j in range(8):
                out[lane, j] = product[2 * j + lane // 16, lane % 16]
        return out.view(numpy.uint32).astype(numpy.uint64)

    def run(self, lines: list[str]) -> None:
        for line in lines:
            name, expression = (part.strip() for part in line.split("=", 1))
            self.values[name] = self.evaluate(expression)

    def evaluate(self, text: str) -> numpy.ndarray:  # noqa: C901 (one case per IR operation)
        op, rest = text.split(" ", 1)
        if op == "call":
            callee = re.search(r"@([\w.]+)\((.*)\)$", rest)
            arguments = [a.strip().rsplit(" ", 1) for a in re.split(r",(?![^<]*>)", callee.group(2))]
            values = [self.operand(v, t) for t, v in arguments]
            if callee.group(1) == "llvm.amdgcn.mbcnt.lo":
                return self.lane.copy()
            if callee.group(1) == "llvm.amdgcn.ds.bpermute":
                return values[1][((values[0] >> 2) & 31).astype(int), ...]
            assert callee.group(1).startswith("llvm.amdgcn.wmma.f32.16x16x16.")
            return self.wmma(values[0], values[1], values[2], element_type(arguments[0][0])[0])
        if op in ("add", "shl", "lshr", "and", "or", "xor", "mul"):
            llvm, a, b = re.fullmatch(r"(\S+) ([^,]+), (.+)", rest).groups()
            x, y = self.operand(a, llvm), self.operand(b, llvm)
            result = {"add": lambda: x + y, "shl": lambda: x << y, "lshr": lambda: x >> y, "and": lambda: x & y,
                      "or": lambda: x | y, "xor": lambda: x ^ y, "mul": lambda: x * y}[op]()
            return result & numpy.uint64(MASKS[llvm])
        if op == "icmp":
            predicate, llvm, a, b = re.fullmatch(r"(\w+) (\S+) ([^,]+), (.+)", rest).groups()
            x, y = self.operand(a, llvm), self.operand(b, llvm)
            return {"eq": x == y, "ne": x != y, "ult": x < y, "ugt": x > y, "slt": x < y, "sgt": x > y, "sle": x <= y,
                    "sge": x >= y}[predicate].astype(numpy.uint64)  # signed: only small non-negative values here
        if op == "select":
            condition, llvm, a, _, b = re.fullmatch(r"i1 ([^,]+), (\S+) ([^,]+), (\S+) (.+)", rest).groups()
            return numpy.where(self.operand(condition, "i1").astype(bool), self.operand(a, llvm), self.operand(b, llvm))
        if op in ("bitcast", "zext", "trunc", "fpext", "fptrunc", "inttoptr", "ptrtoint"):
            have, value, want = re.fullmatch(r"(.+?) (\S+) to (.+)", rest).groups()
            bits = self.operand(value, have)
            if op in ("zext", "inttoptr", "ptrtoint"):
                return bits.copy()
            if op == "trunc":
                return bits & numpy.uint64(MASKS[want])
            if op == "fpext":
                return self.floats(bits, "half").view(numpy.uint32).astype(numpy.uint64)
            if op == "fptrunc":
                return self.floats(bits, "float").astype(numpy.float16).view(numpy.uint16).astype(numpy.uint64)
            (have_element, have_count), (want_element, want_count) = element_type(have), element_type(want)
            raw = bits.reshape(32, -1).astype(f"<u{WIDTHS[have_element] // 8}").tobytes()
            out = numpy.frombuffer(raw, dtype=f"<u{WIDTHS[want_element] // 8}").astype(numpy.uint64)
            return out.reshape(32, want_count) if want_count else out
        if op == "insertelement":
            llvm, vector, element, value, index = re.fullmatch(r"(<[^>]+>) ([^,]+), (\S+) ([^,]+), i32 (\d+)",
                                                               rest).groups()
            result = self.operand(vector, llvm).copy()
            result[:, int(index)] = self.operand(value, element)
            return result
        if op == "extractelement":
            llvm, vector, index = re.fullmatch(r"(<[^>]+>) ([^,]+), i32 (\d+)", rest).groups()
            return self.operand(vector, llvm)[:, int(index)].copy()
        if op == "load":
            llvm, pointer = re.fullmatch(r"(\w+), ptr addrspace\(3\) (\S+), align \d+", rest).groups()
            size = WIDTHS[llvm] // 8
            return numpy.array([int.from_bytes(self.lds[a:a + size], "little") for a in self.values[pointer].astype(int)],
                               dtype=numpy.uint64)
        raise AssertionError(f"not interpreted: {text}")


def pack(low: numpy.ndarray, high: numpy.ndarray) -> numpy.ndarray:
    return low.astype(numpy.uint64) | (high.astype(numpy.uint64) << 16)


def bits16(values: numpy.ndarray, element: str) -> numpy.ndarray:
    if element == "f16":
        return values.astype(numpy.float16).view(numpy.uint16)
    return (values.astype(numpy.float32).view(numpy.uint32) >> 16).astype(numpy.uint16)


@pytest.mark.parametrize("shape, element, accumulator", [("m16n8k16", "f16", "f32"), ("m16n8k8", "f16", "f32"),
                                                         ("m16n8k16", "bf16", "f32"), ("m16n8k16", "f16", "f16")])
def test_mma_sync_computes_d_from_nvidias_fragments(shape: str, element: str, accumulator: str) -> None:
    """Fragments laid out as the PTX ISA's mma.m16n8k16/m16n8k8 figures say, D compared with A x B + C."""
    depth = matrices.MMA_SHAPES[shape]
    generator = numpy.random.default_rng(11)
    a = generator.integers(-4, 5, (16, depth)).astype(numpy.float32) / 2
    b = generator.integers(-4, 5, (depth, 8)).astype(numpy.float32) / 2
    c = generator.integers(-16, 17, (16, 8)).astype(numpy.float32)
    lane = numpy.arange(32)
    g, t = lane // 4, lane % 4
    a16, b16 = bits16(a, element), bits16(b, element)
    a_registers = [pack(a16[g, 2 * t], a16[g, 2 * t + 1]), pack(a16[g + 8, 2 * t], a16[g + 8, 2 * t + 1])]
    if depth == 16:
        a_registers += [pack(a16[g, 2 * t + 8], a16[g, 2 * t + 9]), pack(a16[g + 8, 2 * t + 8], a16[g + 8, 2 * t + 9])]
    b_registers = [pack(b16[2 * t, g], b16[2 * t + 1, g])] + (
        [pack(b16[2 * t + 8, g], b16[2 * t + 9, g])] if depth == 16 else [])
    elements = [c[g, 2 * t], c[g, 2 * t + 1], c[g + 8, 2 * t], c[g + 8, 2 * t + 1]]
    if accumulator == "f32":
        c_registers = [e.astype(numpy.float32).view(numpy.uint32).astype(numpy.uint64) for e in elements]
    else:
        halves = [bits16(e, "f16") for e in elements]
        c_registers = [pack(halves[0], halves[1]), pack(halves[2], halves[3])]
    values = {f"%a{i}": r for i, r in enumerate(a_registers)} | {f"%b{i}": r for i, r in enumerate(b_registers)} | \
        {f"%c{i}": r for i, r in enumerate(c_registers)}
    emitter = Emitter(AMDGPU)
    d = matrices.mma_sync(emitter, shape, element, accumulator, accumulator, [f"%a{i}" for i in range(len(a_registers))],
                          [f"%b{i}" for i in range(len(b_registers))], [f"%c{i}" for i in range(len(c_registers))])
    wave = Wave(values)
    wave.run([line for line in emitter.lines if "=" in line])
    expected = a @ b + c
    wanted = [expected[g, 2 * t], expected[g, 2 * t + 1], expected[g + 8, 2 * t], expected[g + 8, 2 * t + 1]]
    if accumulator == "f32":
        got = [wave.values[v].astype(numpy.uint32).view(numpy.float32) for v in d]
    else:
        got = [Wave.floats(wave.values[d[i // 2]] >> numpy.uint64(16 * (i % 2)) & numpy.uint64(0xFFFF), "half")
               for i in range(4)]
    for got_one, wanted_one in zip(got, wanted):
        assert numpy.array_equal(got_one, wanted_one.astype(numpy.float32))


@pytest.mark.parametrize("count, transpose", [(1, False), (2, True), (4, False), (4, True)])
def test_ldmatrix_gives_each_lane_the_ptx_isas_elements(count: int, transpose: bool) -> None:
    """Matrix i's rows at the addresses lanes 8i..8i+7 give (here scattered through the shared memory)."""
    generator = numpy.random.default_rng(3)
    lds = generator.integers(0, 1 << 16, 4096, dtype=numpy.uint16)
    rows = generator.permutation(256)[:32] * 16  # 16-byte rows, anywhere
    emitter = Emitter(AMDGPU)
    registers = matrices.ldmatrix(emitter, count, transpose, "%address", 3)
    wave = Wave({"%address": rows.astype(numpy.uint64)}, lds.tobytes())
    wave.run([line for line in emitter.lines if "=" in line])
    lane = numpy.arange(32)
    for matrix in range(count):
        def element(row: numpy.ndarray, column: numpy.ndarray) -> numpy.ndarray:
            return lds[rows[8 * matrix + row] // 2 + column].astype(numpy.uint64)
        if transpose:
            wanted = pack(element(2 * (lane % 4), lane // 4), element(2 * (lane % 4) + 1, lane // 4))
        else:
            wanted = pack(element(lane // 4, 2 * (lane % 4)), element(lane // 4, 2 * (lane % 4) + 1))
        assert numpy.array_equal(wave.values[registers[matrix]], wanted)


def test_movmatrix_transposes_the_warps_8x8_matrix() -> None:
    """movmatrix.m8n8.trans.b16 (SASS's MOVM.16.MT88): each lane's pair of row l / 4 after is the transpose's."""
    matrix = numpy.random.default_rng(5).integers(0, 1 << 16, (8, 8)).astype(numpy.uint64)
    lane = numpy.arange(32)
    emitter = Emitter(AMDGPU)
    result = matrices.movmatrix(emitter, "%value")
    wave = Wave({"%value": pack(matrix[lane // 4, 2 * (lane % 4)], matrix[lane // 4, 2 * (lane % 4) + 1])})
    wave.run([line for line in emitter.lines if "=" in line])
    transposed = matrix.T
    wanted = pack(transposed[lane // 4, 2 * (lane % 4)], transposed[lane // 4, 2 * (lane % 4) + 1])
    assert numpy.array_equal(wave.values[result], wanted)
