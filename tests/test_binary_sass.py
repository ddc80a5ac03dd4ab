"""The SASS route of the binary path: nvdisasm listings parsed per arch, each family's meaning evaluated by
LLVM's constant folder against values computed here, and SASS-only objects and libraries linked into
gfx1100 programs."""

from __future__ import annotations

import math
import random
import re
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from cassc.binary.codegen import data_layout, nvptx_assembly, optimized_module
from cassc.binary.emit import AMDGPU, NVPTX, Unsupported
from cassc.binary.extract import read_binary
from cassc.binary.sass import (Constant, Immediate, Relocated, SassKernel, SassSyntaxError, parse_instruction, parse_listing,
                               parse_operand, read_kernels, read_program)
from cassc.binary.sass_lift import (double_reciprocals, double_square_roots, float_divisions, float_reciprocals,
                                     float_square_roots, lift_sass_kernels)
from cassc.binary.sass_translate import lift_modules_sass
from cassc.binary.translate import translate, translate_group
from cassc.formats.code_object import code_object_target
from cassc.formats.cubin import CubinKernel, KernelParam
from cassc.toolchain import find_toolchain

from conftest import gpu_targets, write

NVCC = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
PTXAS = Path(NVCC).with_name("ptxas")
needs_nvcc = pytest.mark.skipif(not Path(NVCC).exists(), reason="NVIDIA's nvcc is not installed")

SIMPLE = r"""
__constant__ float bias[4] = {0.5f, 1.f, 2.f, 4.f};
__global__ void vadd(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i] + bias[i & 3];
}
__global__ void saxpy(int n, float a, const float *x, float *y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) y[i] = a * x[i] + y[i];
}
__global__ void reduce(const float *in, float *out, int n) {
  __shared__ float s[256];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  s[t] = i < n ? in[i] : 0.f;
  __syncthreads();
  for (int o = blockDim.x / 2; o > 0; o >>= 1) { if (t < o) s[t] += s[t + o]; __syncthreads(); }
  if (t == 0) atomicAdd(out, s[0]);
}
__global__ void integers(const long long *a, long long *b, unsigned *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  long long v = a[i];
  b[i] = v * 3 + (v >> 7) - (long long)(unsigned)i + (v < 1000 ? 1 : 2);
  c[i] = __popc((unsigned)v) + __brev((unsigned)v) + (unsigned)__float2int_rz((float)v * 0.5f);
}
__global__ void warps(const int *in, int *out) {
  int v = in[threadIdx.x];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
  unsigned b = __ballot_sync(0xffffffff, in[threadIdx.x] > 3);
  if ((threadIdx.x & 31) == 0) { out[threadIdx.x / 32] = v; atomicOr((unsigned *)out + 8, b); }
}
"""
HOST = r"""
extern "C" int run_vadd() {
  float *a, *b, *c;
  cudaMalloc(&a, 1024); cudaMalloc(&b, 1024); cudaMalloc(&c, 1024);
  vadd<<<1, 256>>>(a, b, c, 256);
  return cudaDeviceSynchronize();
}
"""
MAIN = '#include <cstdio>\nextern "C" int run_vadd();\nint main() { std::printf("%d\\n", run_vadd()); }\n'

ARCHS = (75, 80, 86, 89, 90)


@pytest.fixture(scope="module")
def cubins(tmp_path_factory: pytest.TempPathFactory) -> dict[int, bytes]:
    directory = tmp_path_factory.mktemp("sass")
    write(directory / "simple.cu", SIMPLE)
    built = {}
    for arch in ARCHS:
        subprocess.run([NVCC, "-cubin", f"-arch=sm_{arch}", "simple.cu", "-o", f"simple.{arch}.cubin"],
                       cwd=directory, check=True)
        built[arch] = (directory / f"simple.{arch}.cubin").read_bytes()
    return built


@needs_nvcc
@pytest.mark.parametrize("arch", ARCHS)
def test_nvdisasm_listings_parse_into_typed_instructions(cubins: dict[int, bytes], arch: int) -> None:
    kernels = read_kernels(cubins[arch], arch)
    assert {k.name for k in kernels} == {"_Z4vaddPKfS0_Pfi", "_Z5saxpyifPKfPf", "_Z6reducePKfPfi",
                                         "_Z8integersPKxPxPji", "_Z5warpsPKiPi"}
    for kernel in kernels:
        assert kernel.instructions and kernel.instructions[0].address == 0
        assert kernel.metadata.param_base == (0x210 if arch == 90 else 0x160)
        opcodes = {i.opcode for i in kernel.instructions}
        assert "EXIT" in opcodes
        targets = {o.label for i in kernel.instructions for o in i.operands if type(o).__name__ == "Target"}
        assert targets <= {label for i in kernel.instructions for label in i.labels}
    assert kernels[0].constant_symbols["bias"][0] == 3


@needs_nvcc
@pytest.mark.parametrize("arch", ARCHS)
def test_simple_sass_only_kernels_lift_for_both_targets(cubins: dict[int, bytes], arch: int) -> None:
    kernels = read_kernels(cubins[arch], arch)
    ir, names, failures = lift_sass_kernels(kernels, AMDGPU, data_layout(AMDGPU))
    assert failures == {} and len(names) == 5
    optimized_module(ir, AMDGPU)
    ir, names, failures = lift_sass_kernels(kernels, NVPTX, data_layout(NVPTX))
    assert failures == {}
    if PTXAS.exists():
        ptx = nvptx_assembly(ir)
        subprocess.run([str(PTXAS), "-arch=sm_90", "-", "-o", "/dev/null"], input=ptx, text=True, check=True)


def kernel_of(lines: list[str], arch: int = 80) -> SassKernel:
    """A kernel `t` of these SASS lines (`NAME:` lines are labels)."""
    instructions = []
    labels: list[str] = []
    for line in lines:
        if line.endswith(":"):
            labels.append(line[:-1])
            continue
        instructions.append(parse_instruction(f"        /*{16 * len(instructions):04x}*/  {line} ;", tuple(labels)))
        labels = []
    return SassKernel("t", arch, instructions, CubinKernel("t", (), 0, 0x160, 0, 0))


def evaluate(lines: list[str], outputs: list[str], arch: int = 80, after: tuple[str, ...] = ()) -> list[int]:
    """The 32-bit values `outputs` hold after `lines` run, as LLVM's constant folder computes them from
    the lifted IR (inputs are immediates, so everything folds). `after`: code after the EXIT (subroutines)."""
    body = [*lines, "MOV R250, 0x10000", "MOV R251, RZ",
            *(f"STG.E [R250.64+{4 * i:#x}], {r}" for i, r in enumerate(outputs)), "EXIT", *after]
    kernel = kernel_of(body, arch)
    ir, _, failures = lift_sass_kernels([kernel], AMDGPU, data_layout(AMDGPU))
    assert not failures, failures
    # subroutines kept out of line (noinline, as ptxas kept them) are inlined here, so that everything folds
    folded = str(optimized_module(ir.replace("attributes #2 = { noinline }", "attributes #2 = { alwaysinline }"),
                                  AMDGPU))
    stores = {int(address): int(value) for value, address in
              re.findall(r"store i32 (-?\d+), ptr addrspace\(1\) inttoptr \(i64 (\d+)", folded)}
    assert len(stores) == len(outputs), folded
    return [stores[0x10000 + 4 * i] & 0xFFFFFFFF for i in range(len(outputs))]


def bits(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


def mov(register: str, value: int) -> str:
    return f"MOV {register}, {value & 0xFFFFFFFF:#x}"


A, B = 0x89ABCDEF, 0x12345678  # a negative and a positive 32-bit value
A64, B64 = 0xFEDCBA9876543210, 0x0123456789ABCDEF
INPUTS = [mov("R6", 0x3F803F80), mov("R10", A), mov("R11", B), mov("R12", A64 & 0xFFFFFFFF), mov("R13", A64 >> 32),
          mov("R14", B64 & 0xFFFFFFFF), mov("R15", B64 >> 32), mov("R16", bits(1.5)), mov("R17", bits(-2.25))]


def signed(x: int, width: int = 32) -> int:
    x &= (1 << width) - 1
    return x - (1 << width) if x >> (width - 1) else x


def low(x: int) -> int:
    return x & 0xFFFFFFFF


def high(x: int) -> int:
    return (x >> 32) & 0xFFFFFFFF


CASES = [  # (instructions, the registers read back, their expected values)
    (["IMAD R0, R10, R11, R10"], ["R0"], [low(A * B + A)]),
    (["IMAD.WIDE R0, R10, R11, R12"], ["R0", "R1"],
     [low(signed(A) * B + A64), high(signed(A) * B + A64)]),
    (["IMAD.WIDE.U32 R0, R10, 0x4, R14"], ["R0", "R1"], [low(A * 4 + B64), high(A * 4 + B64)]),
    (["IMAD.HI.U32 R0, R10, R11, RZ"], ["R0"], [high(A * B)]),
    # .HI adds a 64-bit pair (ptxas' integer division: the reciprocal in the high register, zero in the low)
    (["MOV R20, RZ", "MOV R21, R11", "IMAD.HI.U32 R0, R10, R11, R20", "IMAD.HI R1, R10, R11, R20"], ["R0", "R1"],
     [high(A * B + (B << 32)), high(signed(A) * B + (B << 32))]),
    (["IMAD.MOV.U32 R0, RZ, RZ, -0x3", "IMAD.SHL.U32 R1, R11, 0x8, RZ"], ["R0", "R1"], [low(-3), low(B * 8)]),
    # 64-bit add and subtract through the carry predicate
    (["IADD3 R0, P0, R12, R14, RZ", "IADD3.X R1, R13, R15, RZ, P0, !PT"], ["R0", "R1"],
     [low(A64 + B64), high(A64 + B64)]),
    (["IADD3 R0, P0, R14, -R12, RZ", "IADD3.X R1, R15, ~R13, RZ, P0, !PT"], ["R0", "R1"],
     [low(B64 - A64), high(B64 - A64)]),
    (["IADD3 R0, -R10, 0x10, R11"], ["R0"], [low(-A + 0x10 + B)]),
    (["IADD3 R0, P0, R12, -R14, RZ", "IMAD.X R1, R13, 0x1, ~R15, P0"], ["R0", "R1"],
     [low(A64 - B64), high(A64 - B64)]),
    (["LEA R0, P0, R10, R14, 0x2", "LEA.HI.X R1, R10, R15, R13, 0x2, P0"], ["R0", "R1"],
     [low((((A64 & ~0xFFFFFFFF) | A) << 2) + B64) & 0xFFFFFFFF,
      high(((((A64 >> 32) << 32 | A) << 2) & 0xFFFFFFFFFFFFFFFF) + B64)]),
    (["LEA.HI.X.SX32 R1, R10, R15, 0x1, P1", "ISETP.NE.AND P1, PT, RZ, RZ, PT"], ["R1"],
     [low((signed(A) >> 31) * 2 + (A >> 31) + (B64 >> 32))]),
    (["LOP3.LUT R0, R10, R11, RZ, 0xc0, !PT", "LOP3.LUT R1, R10, R11, R12, 0x96, !PT"], ["R0", "R1"],
     [A & B, A ^ B ^ (A64 & 0xFFFFFFFF)]),
    (["SHF.R.U32.HI R0, RZ, 0x3, R10", "SHF.R.S32.HI R1, RZ, 0x3, R10", "SHF.L.U32 R2, R10, 0x4, RZ",
      "SHF.L.U64.HI R3, R12, 0x4, R13", "SHF.R.U64 R4, R12, 0x4, R13"], ["R0", "R1", "R2", "R3", "R4"],
     [A >> 3, low(signed(A) >> 3), low(A << 4), high(A64 << 4), low(A64 >> 4)]),
    (["ISETP.GE.U32.AND P0, PT, R12, R14, PT", "ISETP.GE.AND.EX P0, PT, R13, R15, PT, P0",
      "SEL R0, 0x1, RZ, P0", "ISETP.LT.AND P1, P2, R10, R11, PT", "SEL R1, 0x1, RZ, P1", "SEL R2, 0x1, RZ, P2"],
     ["R0", "R1", "R2"], [int(signed(A64, 64) >= signed(B64, 64)), 1, 0]),
    (["ISETP.GT.U32.AND P0, PT, R10, R11, PT", "SEL R0, R10, R11, P0", "IMNMX R1, R10, R11, PT",
      "IMNMX.U32 R2, R10, R11, !PT", "IABS R3, R10"], ["R0", "R1", "R2", "R3"],
     [A, A, max(A, B), low(abs(signed(A)))]),
    (["POPC R0, R10", "BREV R1, R10", "FLO.U32 R2, R11", "FLO.U32.SH R3, R11"], ["R0", "R1", "R2", "R3"],
     [bin(A).count("1"), int(f"{A:032b}"[::-1], 2), B.bit_length() - 1, 32 - B.bit_length()]),
    (["PRMT R0, R10, 0x5140, R11", "PRMT R1, R10, 0x8880, RZ"], ["R0", "R1"],
     [0x56CD78EF, 0xFFFFFFEF]),
    (["FADD R0, R16, R17", "FMUL R1, R16, -R17", "FFMA R2, R16, R17, 0.5", "FMNMX R3, R16, R17, PT",
      "FMNMX R4, |R16|, |R17|, !PT", "FADD.SAT R5, R16, 1"], ["R0", "R1", "R2", "R3", "R4", "R5"],
     [bits(-0.75), bits(3.375), bits(-2.875), bits(-2.25), bits(2.25), bits(1.0)]),
    (["FMUL.D2 R0, R16, R17", "FMUL.M4 R1, R16, R16", "FMUL.D8 R2, R17, 3"], ["R0", "R1", "R2"],
     [bits(1.5 * -2.25 / 2), bits(1.5 * 1.5 * 4), bits(-2.25 * 3 / 8)]),
    (["FSETP.GT.AND P0, PT, R16, R17, PT", "FSEL R0, R16, R17, P0", "FSETP.NAN.AND P1, PT, R16, R16, PT",
      "SEL R1, 0x1, RZ, P1", "FSET.BF.LT.AND R2, R17, R16, PT", "FSET.GT.AND R3, R17, R16, PT"],
     ["R0", "R1", "R2", "R3"], [bits(1.5), 0, bits(1.0), 0]),
    (["F2I.TRUNC.NTZ R0, R17", "F2I.FLOOR.NTZ R1, R16", "I2F R2, R10", "I2F.U32 R3, R10", "FRND.CEIL R4, R17"],
     ["R0", "R1", "R2", "R3", "R4"], [low(-2), 1, bits(float(signed(A))), bits(float(A)), bits(-2.0)]),
    # half-precision sources: the low 16 bits read as a half (R20 = 1.5, R21 = 2.5 and -0.5 above it)
    (["MOV R20, 0x3e00", "MOV R21, 0xb8004100", "FRND.F16.FLOOR R0, R20", "FRND.F16 R1, R21", "F2I.F16.NTZ R2, R20",
      "F2I.F16.TRUNC.NTZ R3, R21", "F2F.F32.F16 R4, R20"], ["R0", "R1", "R2", "R3", "R4"],
     [0x3C00, 0x4000, 2, 2, bits(1.5)]),
    (["F2F.F64.F32 R0, R16", "DADD R2, R0, R0", "DMUL R4, R2, R0", "DFMA R6, R4, R0, -1",
      "F2F.F32.F64 R8, R6"], ["R0", "R1", "R8"],
     [0, struct.unpack("<II", struct.pack("<d", 1.5))[1], bits(1.5 * 3.0 * 1.5 - 1)]),
    (["HFMA2.MMA R0, -RZ, RZ, 0, 2.3842e-07", "HFMA2.MMA R1, -RZ, RZ, 1.875, 0"], ["R0", "R1"],
     [4, 0x3F800000]),
    (["MOV R1, 0x3c004000", "HADD2 R0, R1, R1", "HADD2.F32 R2, -RZ, R1.H1_H1", "HMUL2 R3, R1, 0.5, 0.5",
      "HFMA2 R4, R1.H0_H0, 2, 2, -R1", "HFMA2.BF16_V2 R5, R6, 1, 1, R6"], ["R0", "R2", "R3", "R4", "R5"],
     [0x40004400, bits(1.0), 0x38003C00, 0x42004000, 0x40004000]),
    (["F2FP.PACK_AB R0, R16, R17", "F2FP.BF16.PACK_AB R1, R17, R16"], ["R0", "R1"], [0x3E00C080, 0xC0103FC0]),
    # packed-half comparisons (each half, or both and-ed with .H_AND) and minimum / maximum, immediates as pairs
    (["MOV R20, 0x3c004000", "MOV R21, 0xbc00", "HSETP2.GEU.AND P0, P1, R20, 1.5, 1.5, PT", "SEL R0, 0x1, RZ, P0",
      "SEL R1, 0x1, RZ, P1",
      "HSETP2.GEU.AND P2, PT, |R21|.reuse.H0_H0, 8.523464202880859375e-06, 8.523464202880859375e-06, PT",
      "SEL R2, 0x1, RZ, P2", "HSETP2.GT.H_AND P3, P4, R20, 1.5, 1.5, PT", "SEL R3, 0x1, RZ, P3", "SEL R4, 0x1, RZ, P4"],
     ["R0", "R1", "R2", "R3", "R4"], [1, 0, 1, 0, 1]),
    (["MOV R7, 0xffffffff", "I2F.F16 R0, 0x1", "I2F.F16 R1, R10", "I2F.F16.U32 R2, 0x3"], ["R0", "R2"],
     [0x3C00, 0x4200]),
    (["MOV R20, 0x3c004000", "MOV R21, 0xbc00", "MOV R22, 0x3f804000", "MOV R23, 0x40003f80",
      "HMNMX2 R0, R20, 1.5, 1.5, PT", "HMNMX2 R1, |R21|.H0_H0, R20.H0_H0, !PT", "HMNMX2.BF16_V2 R2, R22, R23, !PT"],
     ["R0", "R1", "R2"], [0x3C003E00, 0x40004000, 0x40004000]),
    (["ISETP.NE.AND P0, PT, RZ, RZ, PT", "ISETP.EQ.AND P3, PT, RZ, RZ, PT", "P2R R0, PR, R11, 0xf",
      "R2P PR, R10, 0x3", "SEL R1, 0x1, RZ, P0", "SEL R2, 0x1, RZ, P1", "SEL R3, 0x1, RZ, P3"],
     ["R0", "R1", "R2", "R3"], [(B & ~0xF) | 0x8, 1, 1, 1]),
    (["I2F.U64.RP R0, R14", "I2F.U64 R1, R14", "I2F.S64.RM R2, R12", "I2F.U32.RP R3, R10"], ["R0", "R1", "R2", "R3"],
     [0x5B91A2B4, 0x5B91A2B4, 0xDB91A2B4, 0x4F09ABCE]),
    (["MOV R20, 0x40100000", "MUFU.RCP64H R0, R20", "MUFU.RSQ64H R1, R20"], ["R0", "R1"], [0x3FD00000, 0x3FE00000]),
    (["VIADD R0, R10, -R11", "VIADDMNMX R1, R10, R11, 0x10, PT", "VIADDMNMX.U32 R2, R10, R11, 0x10, !PT",
      "I2FP.F32.S32 R3, R10", "MOV R20, 0x3c004000", "HSET2.BF.GT.AND R4, R20, 1.5, 1.5, PT"],
     ["R0", "R1", "R2", "R3", "R4"],
     [low(A - B), low(min(signed(A + B), 16)), low(max(low(A + B), 16)), bits(float(signed(A))), 0x00003C00]),
    (["MOV R20, 0x8090a0b", "MOV R21, 0x10fff0f", "VABSDIFF4.U8 R0, R20, R21, RZ", "VABSDIFF4.U8.ACC R1, R20, R21, 0x5",
      "VABSDIFF4.S8 R2, R20, R21, RZ", "VABSDIFF R3, R20, R21, 0x3", "VIMNMX3 R4, R20, 0x7, R21, !PT",
      "VIMNMX3.U32 R5, R20, R21, 0x9, PT"], ["R0", "R1", "R2", "R3", "R4", "R5"],
     [0x0706F504, 262 + 5, 0x07060B04, 0x08090A0B - 0x010FFF0F + 3, 0x08090A0B, 9]),
    # sm_90's SIMD forms: per 16-bit lane (.16x2, signed .S16x2 or unsigned .U16x2), .RELU clamping at 0
    (["MOV R20, 0x8090a0b", "MOV R21, 0x10fff0f", "VIMNMX.S16x2 R0, R20, R21, PT", "VIMNMX.U16x2 R1, R20, R21, PT",
      "VIADD.16x2 R2, R20, R21", "VIMNMX.S16x2.RELU R3, R20, R21, PT", "VIADDMNMX.U16x2 R4, R20, R21, 0x10001, !PT",
      "VIMNMX3.S16x2 R5, R20, R21, 0x70007, !PT"], ["R0", "R1", "R2", "R3", "R4", "R5"],
     [0x010FFF0F, 0x010F0A0B, 0x0918091A, 0x010F0000, 0x0918091A, 0x08090A0B]),
    # three 32-bit values: a carry of 0 to 2, counted by the two carry-out predicates
    (["IADD3 R0, P0, P1, R11, -0x1, -0x1", "SEL R1, 0x1, RZ, P0", "SEL R2, 0x1, RZ, P1",
      "IADD3 R3, P2, P3, R11, 0x1, RZ", "SEL R4, 0x1, RZ, P2", "SEL R5, 0x1, RZ, P3"],
     ["R0", "R1", "R2", "R3", "R4", "R5"], [low(B - 2), 1, 1, B + 1, 0, 0]),
    (["F2F.F64.F32 R0, R16", "F2F.F64.F32 R2, R17", "DSETP.MAX.AND P0, P1, R0, R2, PT", "SEL R4, 0x1, RZ, P0",
      "SEL R5, 0x1, RZ, P1", "FSETP.MIN.AND P2, P3, R16, -QNAN, PT", "SEL R6, 0x1, RZ, P2"], ["R4", "R5", "R6"],
     [1, 0, 1]),
    # the generic shared window: c[0x0][0x18] (sm_80) as a generic base; QSPC.S tells its addresses
    (["MOV R2, RZ", "MOV R3, c[0x0][0x1c]", "MOV R4, 0x2a", "ST.E [R2.64+0x8], R4", "LDS R0, [0x8]",
      "QSPC.E.S P0, RZ, [R2]", "SEL R1, 0x1, RZ, P0", "QSPC.E.S P1, RZ, [R10]", "SEL R5, 0x1, RZ, P1"],
     ["R0", "R1", "R5"], [42, 1, 0]),
    # a double's reciprocal seed of an immediate divisor: nvdisasm prints the double (1000), not its high word
    (["MUFU.RCP64H R0, 1000", "MOV R2, 0x408f4000", "MUFU.RCP64H R1, R2"], ["R0", "R1"], [0x3F50624D, 0x3F50624D]),
    # LOP3's predicate input is or'ed onto its nonzero test (a 64-bit test: the high word's onto the low's)
    (["ISETP.EQ.AND P1, PT, RZ, RZ, PT", "LOP3.LUT P0, RZ, R10, RZ, RZ, 0xc0, !PT",
      "LOP3.LUT P2, RZ, R11, 0xff, RZ, 0xc0, P0", "LOP3.LUT P3, RZ, R10, RZ, RZ, 0xc0, P1",
      "LOP3.LUT P4, RZ, R10, RZ, RZ, 0xc0, P0", "SEL R0, 0x1, RZ, P2", "SEL R1, 0x1, RZ, P3", "SEL R2, 0x1, RZ, P4"],
     ["R0", "R1", "R2"], [1, 1, 0]),
    # a byte selector: R2P's predicates from the second byte of R10 (0xCD), not its first (0xEF)
    (["R2P PR, R10.B1, 0x7f", "P2R R0, PR, RZ, 0x7f"], ["R0"], [0xCD & 0x7F]),
    # the generic local window: c[0x0][0x20] (a frame offset made generic, as sinf's slow path does)
    (["MOV R1, 0x10", "MOV R2, c[0x0][0x20]", "MOV R3, c[0x0][0x24]", "IADD3 R2, R2, R1, RZ", "MOV R4, 0x2a",
      "ST.E [R2.64+0x4], R4", "LDL R0, [R1+0x4]"], ["R0"], [42]),
    (["MOV R0, 0x7", "ULDC UR4, c[0x0][0x0]", "PLOP3.LUT P0, P1, PT, PT, PT, 0x80, 0x8",
      "SEL R1, 0x1, RZ, P0", "SEL R2, 0x1, RZ, P1"], ["R0", "R1", "R2"], [7, 1, 0]),
]


@pytest.mark.parametrize("lines, outputs, expected", CASES, ids=[c[0][0].split()[0] for c in CASES])
def test_each_family_computes_what_nvidia_documents(lines: list[str], outputs: list[str],
                                                    expected: list[int]) -> None:
    assert evaluate([*INPUTS, *lines], outputs) == expected


def test_predicated_instructions_and_branches_run_only_under_their_guard() -> None:
    lines = ["MOV R0, 0x1", "MOV R1, RZ", "MOV R2, 0x2", "MOV R3, RZ", "ISETP.NE.AND P0, PT, R0, RZ, PT",
             "@P0 MOV R1, 0x5", "@!P0 MOV R2, 0x6", "@P0 BRA `(.L_x_0)", "MOV R3, 0x9", ".L_x_0:"]
    assert evaluate(lines, ["R1", "R2", "R3"]) == [5, 2, 0]


def test_sm90_generic_shared_addresses_are_the_window_above_swinhi() -> None:
    lines = ["S2R R3, SR_SWINHI", "MOV R2, 0x410", "MOV R4, 0x2a", "ST.E [R2.64], R4", "LDS R0, [0x410]",
             "QSPC.E.S P0, RZ, [R2]", "SEL R1, 0x1, RZ, P0"]
    assert evaluate(lines, ["R0", "R1"], arch=90) == [42, 1]


@needs_nvcc
@pytest.mark.parametrize("arch", (80, 90))
def test_static_shared_memory_is_the_kernels_own_without_sm90s_reserved_window(tmp_path: Path, arch: int) -> None:
    """sm_90 cubins count a reserved KiB in every kernel's shared size: the round trip of a kernel with only
    dynamic shared memory must declare none static (with 48 KiB dynamic, 1 KiB more fails the launch)."""
    write(tmp_path / "s.cu", "__global__ void d(int *o) { extern __shared__ int h[]; h[threadIdx.x] = o[0];\n"
          "  __syncthreads(); o[threadIdx.x] = h[threadIdx.x ^ 1]; }\n"
          "__global__ void s(int *o) { __shared__ int h[64]; h[threadIdx.x] = o[0]; __syncthreads();\n"
          "  o[threadIdx.x] = h[threadIdx.x ^ 1]; }\n")
    subprocess.run([NVCC, "-cubin", f"-arch=sm_{arch}", "s.cu", "-o", "s.cubin"], cwd=tmp_path, check=True)
    ir, _, failures = lift_sass_kernels(read_kernels((tmp_path / "s.cubin").read_bytes(), arch), NVPTX,
                                        data_layout(NVPTX))
    assert failures == {}
    arrays = re.findall(r"addrspace\(3\) global \[(\d+) x i8\]", ir)
    assert sorted(arrays) == ["0", "256"], arrays


DEVICE_RUNTIME_CALLS = r"""
#include <cstdio>
#include <cassert>
__global__ void p(int *o, float f) { if (o[threadIdx.x] > 3) printf("v %d %f\n", o[threadIdx.x], f); }
__global__ void a(int *o) { assert(o[threadIdx.x] < 100); o[threadIdx.x] = 1; }
__global__ void m(int **o) { o[threadIdx.x] = (int *)malloc(64); free(o[threadIdx.x + 1]); }
"""


@needs_nvcc
@pytest.mark.parametrize("arch", (80, 90))
def test_device_printf_assert_and_heap_calls_through_bank4_are_the_cores(tmp_path: Path, arch: int) -> None:
    """CALL.ABS.NOINC Rn with Rn loaded from bank 4: vprintf, __assertfail, malloc and free. On AMDGPU the
    core's hostcall printf (the format traced to its string: 9 bytes with the NUL, two arguments), assert
    (to the standard error, then a trap) and heap; on NVPTX the same calls, which ptxas links."""
    write(tmp_path / "r.cu", DEVICE_RUNTIME_CALLS)
    subprocess.run([NVCC, "-cubin", f"-arch=sm_{arch}", "r.cu", "-o", "r.cubin"], cwd=tmp_path, check=True)
    kernels = read_kernels((tmp_path / "r.cubin").read_bytes(), arch)
    ir, _, failures = lift_sass_kernels(kernels, AMDGPU, data_layout(AMDGPU))
    assert failures == {}
    folded = str(optimized_module(ir, AMDGPU))
    printf = folded[re.search(r"define [^\n]*@_Z1pPif\(", folded).start():]  # type: ignore[union-attr]
    printf = printf[:printf.index("\n}\n")]
    assert re.search(r"@__ockl_printf_append_string_n\(i64 %\w+, ptr [^,]+, i64 9, i32 0\)", printf)
    assert printf.count("@__ockl_printf_append_args(") == 2
    assert "@__ockl_fprintf_stderr_begin" in folded and "@llvm.trap" in folded
    assert "@__ockl_dm_alloc" in folded and "@__ockl_dm_dealloc" in folded
    ir, _, failures = lift_sass_kernels(kernels, NVPTX, data_layout(NVPTX))
    assert failures == {}
    assert all(f"@{name}(" in ir for name in ("vprintf", "__assertfail", "malloc", "free"))
    if PTXAS.exists():
        subprocess.run([str(PTXAS), "-arch=sm_90", "-", "-o", "/dev/null"], input=nvptx_assembly(ir), text=True,
                       check=True)


@needs_nvcc
@pytest.mark.parametrize("arch", (80, 90))
def test_device_runtime_calls_of_relocatable_code_name_their_callee(tmp_path: Path, arch: int) -> None:
    """-rdc code calls the device runtime by name (`CALL.ABS.NOINC `(__assertfail)`) and moves printf's format
    as a relocated word (`UMOV UR4, 32@lo($str)`): the same calls as through bank 4."""
    write(tmp_path / "r.cu", DEVICE_RUNTIME_CALLS)
    subprocess.run([NVCC, "-gencode", f"arch=compute_{arch},code=sm_{arch}", "-dc", "r.cu", "-o", "r.o"],
                   cwd=tmp_path, check=True)
    modules = read_binary(tmp_path / "r.o")
    translation = translate_group(modules, tmp_path, find_toolchain().lld)
    assert translation.failures == {} and len(translation.kernels) == 3
    ir, _, _, failures, _ = lift_modules_sass(modules, AMDGPU)
    assert failures == {}
    folded = str(optimized_module(ir, AMDGPU))
    assert re.search(r"@__ockl_printf_append_string_n\(i64 %\w+, ptr [^,]+, i64 9, i32 0\)", folded)
    assert "@__ockl_fprintf_stderr_begin" in folded and "@__ockl_dm_alloc" in folded


@needs_nvcc
@pytest.mark.parametrize("arch", ARCHS)
def test_grid_sync_reads_the_grid_workspace_from_bank0s_environment_registers(tmp_path: Path, arch: int) -> None:
    """grid.sync() reads the cooperative launch's workspace, %envreg1:%envreg2, from bank 0 (0x8c/0x90, on
    sm_90 0x44/0x48): the core's workspace on AMDGPU, the same registers on NVPTX."""
    write(tmp_path / "g.cu", "#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"
          "__global__ void g(int *o) { cg::grid_group grid = cg::this_grid(); o[grid.thread_rank()] = 1;\n"
          "  grid.sync(); o[grid.thread_rank()] += o[(grid.thread_rank() + 1) % grid.size()]; }\n")
    subprocess.run([NVCC, "-cubin", f"-arch=sm_{arch}", "g.cu", "-o", "g.cubin"], cwd=tmp_path, check=True)
    kernels = read_kernels((tmp_path / "g.cubin").read_bytes(), arch)
    ir, _, failures = lift_sass_kernels(kernels, AMDGPU, data_layout(AMDGPU))
    assert failures == {} and "@__cassc_grid_workspace" in ir
    ir, _, failures = lift_sass_kernels(kernels, NVPTX, data_layout(NVPTX))
    assert failures == {}
    ptx = nvptx_assembly(ir)
    assert "%envreg1" in ptx and "%envreg2" in ptx


@needs_nvcc
def test_sm90_bank4_addresses_come_from_rela_records(tmp_path: Path) -> None:
    write(tmp_path / "s.cu", "__global__ void k(float *x) { x[threadIdx.x] = sinf(x[threadIdx.x]); }\n")
    subprocess.run([NVCC, "-cubin", "-arch=sm_90", "s.cu", "-o", "s.cubin"], cwd=tmp_path, check=True)
    (kernel,) = read_kernels((tmp_path / "s.cubin").read_bytes(), 90)
    assert list(kernel.device_addresses.values()) == [("__cudart_i2opi_f", 0)]
    ir, names, failures = lift_sass_kernels([kernel], AMDGPU, data_layout(AMDGPU))
    assert failures == {} and "@__cudart_i2opi_f" in ir


def with_return_address(lines: list[str]) -> list[str]:
    """`RETURN` in `lines` replaced by the address of the instruction after the CALL (as ptxas writes it)."""
    code = [line for line in lines if not line.endswith(":")]
    after = 16 * (next(i for i, line in enumerate(code) if line.startswith("CALL")) + 1)
    return [line.replace("RETURN", f"{after:#x}") for line in lines]


# ptxas' a / b (div.rn.f32): a refined reciprocal on the fast path, FCHK choosing the slow path's subroutine
F32_SLOW_PATH = "$__internal_0_$__cuda_sm3x_div_rn_noftz_f32_slowpath"
F32_DIVISION = ["MUFU.RCP R9, R13", "FCHK P0, R4, R13", "FFMA R0, -R13, R9, 1", "FFMA R0, R9, R0, R9",
                "FFMA R11, R4, R0, RZ", "FFMA R7, -R13, R11, R4", "FFMA R11, R0, R7, R11", "@!P0 BRA `(.L_x_1)",
                "MOV R2, RETURN", f"CALL.REL.NOINC `({F32_SLOW_PATH})", ".L_x_1:"]
# and f64 div.rn: the same dataflow in DFMAs, FSETPs choosing the slow path (the remainder overwrites the divisor)
F64_SLOW_PATH = "$__internal_1_$__cuda_sm20_div_rn_f64_full"
F64_DIVISION = ["MUFU.RCP64H R5, R11", "IMAD.MOV.U32 R4, RZ, RZ, 0x1", "DFMA R8, R4, -R10, 1", "DFMA R8, R8, R8, R8",
                "DFMA R8, R4, R8, R4", "DFMA R4, R8, -R10, 1", "DFMA R4, R8, R4, R8", "DMUL R8, R6, R4",
                "FSETP.GEU.AND P1, PT, |R7|, 6.5827683646048100446e-37, PT", "DFMA R10, R8, -R10, R6",
                "DFMA R4, R4, R10, R8", "FFMA R0, RZ, R13, R5", "FSETP.GT.AND P0, PT, |R0|, 1.469367938527859385e-39, PT",
                "@P0 BRA P1, `(.L_x_8)", "MOV R0, RETURN", f"CALL.REL.NOINC `({F64_SLOW_PATH})",
                "IMAD.MOV.U32 R4, RZ, RZ, R10", "IMAD.MOV.U32 R5, RZ, RZ, R11", ".L_x_8:"]


def f32(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0]


def double_words(x: float) -> tuple[int, int]:
    return struct.unpack("<II", struct.pack("<d", x))


@pytest.mark.parametrize("a, b, expected", [(1.0, 3.0, bits(f32(1 / 3))), (1e-40, 3.0, bits(f32(f32(1e-40) / 3))),
                                            (3e38, 0.25, 0x7F800000), (-7.0, 1e-39, 0xFF800000)])
def test_a_float_division_is_one_correctly_rounded_division(a: float, b: float, expected: int) -> None:
    # the slow path here answers 0: only a division that never needs it gives the quotient
    slow = (f"{F32_SLOW_PATH}:", "MOV R11, RZ", "RET.REL.NODEC R2")
    lines = with_return_address([mov("R4", bits(a)), mov("R13", bits(b)), *F32_DIVISION])
    assert evaluate(lines, ["R11"], after=slow) == [expected]
    (division,) = float_divisions(kernel_of([*lines, "EXIT", *slow]).instructions).values()
    assert division.precision == "f32" and division.dividend == parse_operand("R4")


@pytest.mark.parametrize("a, b", [(1.0, 3.0), (1e-310, 3.0), (-5.5, 1e-300), (2.0, -0.0)])
def test_a_double_division_is_one_correctly_rounded_division(a: float, b: float) -> None:
    slow = (f"{F64_SLOW_PATH}:", "MOV R10, RZ", "MOV R11, RZ", "RET.REL.NODEC R0")
    inputs = [mov(f"R{r + half}", double_words(value)[half]) for r, value in ((6, a), (10, b)) for half in (0, 1)]
    lines = with_return_address([*inputs, *F64_DIVISION])
    expected = a / b if b else math.copysign(math.inf, a) * math.copysign(1, b)
    assert evaluate(lines, ["R4", "R5"], after=slow) == list(double_words(expected))
    (division,) = float_divisions(kernel_of([*lines, "EXIT", *slow]).instructions).values()
    assert division.precision == "f64" and division.dividend == parse_operand("R6")


@pytest.mark.skipif(not PTXAS.exists(), reason="NVIDIA's ptxas is not installed")
def test_lane_masks_lower_to_nvptx_that_ptxas_assembles() -> None:
    lines = ["S2R R0, SR_LTMASK", "S2R R1, SR_GEMASK", "S2R R2, SR_LANEID", "MOV R4, RZ", "MOV R5, RZ",
             "STG.E [R4.64], R0", "STG.E [R4.64+0x4], R1", "STG.E [R4.64+0x8], R2", "EXIT"]
    ir, _, failures = lift_sass_kernels([kernel_of(lines)], NVPTX, data_layout(NVPTX))
    ptx = nvptx_assembly(ir)
    assert failures == {} and "%lanemask_lt" in ptx and "%lanemask_ge" in ptx
    subprocess.run([str(PTXAS), "-arch=sm_90", "-", "-o", "/dev/null"], input=ptx, text=True, check=True)


# ptxas' sqrtf (sqrt.rn.f32): MUFU.RSQ, then the slow path's subroutine or the fast path's refinement
F32_SQRT_SLOW_PATH = "$__internal_3_$__cuda_sm20_sqrt_rn_f32_slowpath"
F32_SQRT = ["IADD3 R4, R0, -0xd000000, RZ", "MUFU.RSQ R5, R0", "ISETP.GT.U32.AND P0, PT, R4, 0x727fffff, PT",
            "@!P0 BRA `(.L_x_24)", "MOV R9, RETURN", f"CALL.REL.NOINC `({F32_SQRT_SLOW_PATH})", "MOV R5, R0",
            "BRA `(.L_x_25)", ".L_x_24:", "FMUL.FTZ R7, R0, R5", "FMUL.FTZ R5, R5, 0.5", "FFMA R0, -R7, R7, R0",
            "FFMA R5, R0, R5, R7", ".L_x_25:"]


@pytest.mark.parametrize("x", [2.0, 1e-40, 3e38, 0.0])
def test_a_float_square_root_is_one_correctly_rounded_root(x: float) -> None:
    slow = (f"{F32_SQRT_SLOW_PATH}:", "MOV R0, RZ", "RET.REL.NODEC R9")  # answers 0
    lines = with_return_address([mov("R0", bits(x)), *F32_SQRT])
    assert evaluate(lines, ["R5"], after=slow) == [bits(f32(math.sqrt(f32(x))))]
    assert len(float_square_roots(kernel_of([*lines, "EXIT", *slow]).instructions)) == 1


# ptxas' 1.0f / x (rcp.rn.f32): the slow path's subroutine or, past it, MUFU.RCP refined by one step
F32_RCP_SLOW_PATH = "$__internal_2_$__cuda_sm20_rcp_rn_f32_slowpath"
F32_RCP = ["IADD3 R0, R4, 0x1800000, RZ", "LOP3.LUT R0, R0, 0x7f800000, RZ, 0xc0, !PT",
           "ISETP.GT.U32.AND P0, PT, R0, 0x1ffffff, PT", "@P0 BRA `(.L_x_16)", "MOV R0, RETURN",
           f"CALL.REL.NOINC `({F32_RCP_SLOW_PATH})", "IMAD.MOV.U32 R5, RZ, RZ, R6", "BRA `(.L_x_17)", ".L_x_16:",
           "MUFU.RCP R5, R4", "FFMA R0, R4, R5, -1", "FADD.FTZ R0, -R0, -RZ", "FFMA R5, R5, R0, R5", ".L_x_17:"]


@pytest.mark.parametrize("x, expected", [(3.0, bits(f32(1 / 3))), (1e-39, 0x7F800000), (3e38, bits(f32(1 / f32(3e38)))),
                                         (-0.0, 0xFF800000)])
def test_a_float_reciprocal_is_one_correctly_rounded_division(x: float, expected: int) -> None:
    slow = (f"{F32_RCP_SLOW_PATH}:", "MOV R6, RZ", "RET.REL.NODEC R0")  # answers 0
    lines = with_return_address([mov("R4", bits(x)), *F32_RCP])
    assert evaluate(lines, ["R5"], after=slow) == [expected]
    assert len(float_reciprocals(kernel_of([*lines, "EXIT", *slow]).instructions)) == 1


# ptxas' 1.0 / x in f64 (rcp.rn.f64): MUFU.RCP64H refined by DFMAs, then a branch past the slow path's subroutine
F64_RCP_SLOW_PATH = "$__internal_0_$__cuda_sm20_dblrcp_rn_slowpath_v3"
F64_RCP = ["MUFU.RCP64H R3, R37", "IADD3 R2, R37, 0x300402, RZ",
           "FSETP.GEU.AND P0, PT, |R2|, 5.8789094863358348022e-39, PT", "DFMA R8, R2, -R36, 1", "DFMA R8, R8, R8, R8",
           "DFMA R8, R2, R8, R2", "DFMA R10, R8, -R36, 1", "DFMA R2, R8, R10, R8", "@P0 BRA `(.L_x_4)",
           "LOP3.LUT R0, R37, 0x7fffffff, RZ, 0xc0, !PT", "IMAD.MOV.U32 R8, RZ, RZ, R36", "IMAD.MOV.U32 R9, RZ, RZ, R37",
           "IADD3 R14, R0, -0x100000, RZ", "MOV R0, RETURN", f"CALL.REL.NOINC `({F64_RCP_SLOW_PATH})",
           "IMAD.MOV.U32 R2, RZ, RZ, R10", "IMAD.MOV.U32 R3, RZ, RZ, R11", ".L_x_4:"]


@pytest.mark.parametrize("x", [3.0, 1e-310, 1e308, -0.0])
def test_a_double_reciprocal_is_one_correctly_rounded_division(x: float) -> None:
    slow = (f"{F64_RCP_SLOW_PATH}:", "MOV R10, RZ", "MOV R11, RZ", "RET.REL.NODEC R0")  # answers 0
    lines = with_return_address([mov("R36", double_words(x)[0]), mov("R37", double_words(x)[1]), *F64_RCP])
    expected = 1 / x if x else -math.inf
    assert evaluate(lines, ["R2", "R3"], after=slow) == list(double_words(expected))
    assert len(double_reciprocals(kernel_of([*lines, "EXIT", *slow]).instructions)) == 1


# ptxas' f64 sqrt (sqrt.rn.f64): MUFU.RSQ64H refined by DFMAs, then a branch past the slow path's subroutine
F64_SQRT_SLOW_PATH = "$__internal_0_$__cuda_sm20_dsqrt_rn_f64_mediumpath_v1"
F64_SQRT = ["MOV R10, RZ", "MOV R11, 0x3fd80000", "MUFU.RSQ64H R7, R5", "IADD3 R6, R5, -0x3500000, RZ",
            "ISETP.GE.U32.AND P0, PT, R6, 0x7ca00000, PT", "DMUL R8, R6, R6", "DFMA R8, R4, -R8, 1",
            "DFMA R10, R8, R10, 0.5", "DMUL R8, R6, R8", "DFMA R8, R10, R8, R6", "DMUL R10, R4, R8",
            "IADD3 R17, R9, -0x100000, RZ", "DFMA R12, R10, -R10, R4", "MOV R16, R8", "DFMA R14, R12, R16, R10",
            "@!P0 BRA `(.L_x_1)", "MOV R0, RETURN", f"CALL.REL.NOINC `({F64_SQRT_SLOW_PATH})", ".L_x_1:"]


@pytest.mark.parametrize("x", [2.0, 1e-300, 1e308, 0.0])
def test_a_double_square_root_is_one_correctly_rounded_root(x: float) -> None:
    slow = (f"{F64_SQRT_SLOW_PATH}:", "MOV R14, RZ", "MOV R15, RZ", "RET.REL.NODEC R0")  # answers 0
    lines = with_return_address([mov("R4", double_words(x)[0]), mov("R5", double_words(x)[1]), *F64_SQRT])
    assert evaluate(lines, ["R14", "R15"], after=slow) == list(double_words(math.sqrt(x)))
    assert len(double_square_roots(kernel_of([*lines, "EXIT", *slow]).instructions)) == 1


def test_a_register_only_subroutine_is_one_function_and_others_are_copied_to_each_call() -> None:
    lines = ["MOV R0, 0x3", "MOV R20, 0x30", "CALL.REL.NOINC `($__internal_0_$twice)", "MOV R1, R0", "MOV R0, 0x5",
             "ISETP.NE.AND P0, PT, R0, RZ, PT", "MOV R20, 0x80", "@P0 CALL.REL.NOINC `($__internal_0_$twice)",
             "MOV R2, R0"]
    subroutine = ("$__internal_0_$twice:", "ISETP.EQ.AND P1, PT, R0, RZ, PT", "@P1 BRA `(.L_x_9)",
                  "IADD3 R0, R0, R0, RZ", ".L_x_9:", "RET.REL.NODEC R20 `(t)")
    assert evaluate(lines, ["R1", "R2"], after=subroutine) == [6, 10]
    ir = lift_sass_kernels([kernel_of([*lines, "EXIT", *subroutine])], AMDGPU, data_layout(AMDGPU))[0]
    # registers only (CUDA's integer division, its float slow paths): one function, called twice, not inlined
    assert "switch" not in ir and ir.count("define internal") == 1 and ir.count("call {") == 2
    assert ir.count("add i32") == 1 and "attributes #2 = { noinline }" in ir
    reading = ("$__internal_0_$twice:", "MOV R21, c[0x0][0x0]", "ISETP.EQ.AND P1, PT, R0, RZ, PT",
               "@P1 BRA `(.L_x_9)", "IADD3 R0, R0, R0, RZ", ".L_x_9:", "RET.REL.NODEC R20 `(t)")
    assert evaluate(lines, ["R1", "R2"], after=reading) == [6, 10]
    ir = lift_sass_kernels([kernel_of([*lines, "EXIT", *reading])], AMDGPU, data_layout(AMDGPU))[0]
    assert "define internal" not in ir and ir.count("add i32") >= 2  # it reads the kernel's constants: a copy per call


def test_predicated_arithmetic_selects_and_predicated_memory_branches() -> None:
    lines = ["MOV R0, 0x1", "MOV R1, 0x2", "ISETP.NE.AND P0, PT, R0, RZ, PT", "@P0 IADD3 R1, R1, 0x5, RZ",
             "@!P0 IADD3 R0, R0, 0x7, RZ", "@P0 LOP3.LUT P1, R2, R0, R1, RZ, 0xc0, !PT", "SEL R3, 0x1, RZ, P1"]
    assert evaluate(lines, ["R0", "R1", "R2", "R3"]) == [1, 7, 1, 1]
    arithmetic = lift_sass_kernels([kernel_of(["@P0 IADD3 R1, R1, 0x5, RZ", "EXIT"])], AMDGPU, data_layout(AMDGPU))[0]
    assert "br i1" not in arithmetic and "select i1" in arithmetic
    store = lift_sass_kernels([kernel_of(["@P0 STG.E [R2.64], R1", "EXIT"])], AMDGPU, data_layout(AMDGPU))[0]
    assert "br i1" in store


@pytest.mark.parametrize("target, expected", [(".L_a", 1), (".L_b", 2), (".L_c", 3)])
def test_an_indirect_branch_goes_to_the_address_its_register_holds(target: str, expected: int) -> None:
    """BRX Rn offset: to next + offset + Rn (ptxas' jump tables hold the targets' addresses)."""
    lines = ["MOV R6, ADDRESS", 'BRX R6 -0x20 (*"BRANCH_TARGETS .L_a,.L_b,.L_c"*)', ".L_a:", "MOV R0, 0x1",
             "BRA `(.L_d)", ".L_b:", "MOV R0, 0x2", "BRA `(.L_d)", ".L_c:", "MOV R0, 0x3", ".L_d:"]
    code = [line for line in lines if not line.endswith(":")]
    address = 16 * code.index(lines[lines.index(f"{target}:") + 1])
    assert evaluate([line.replace("ADDRESS", hex(address)) for line in lines], ["R0"]) == [expected]


def test_a_divergence_branch_tests_the_active_lanes() -> None:
    """BRA.DIV mask: taken where a lane of the mask is not active (ptxas' way to a warp operation's fallback)."""
    for modifier, relation in (("DIV", "icmp ne"), ("CONV", "icmp eq")):
        ir = lift_sass_kernels([kernel_of([f"BRA.{modifier} ~URZ, `(.L_x)", "MOV R0, 0x1", ".L_x:", "EXIT"])], NVPTX,
                               data_layout(NVPTX))[0]
        assert "@llvm.nvvm.activemask()" in ir and f"{relation} i32" in ir and "and i32" in ir


def test_warp_operations_on_nvptx_name_the_active_lanes_as_members() -> None:
    """SASS votes and shuffles run in divergent code (a loop only some lanes take: vol2col's VOTEU.ALL);
    NVPTX's .sync forms with a full member mask there are undefined: the members are the active lanes, and
    WARPSYNC names its own mask."""
    lines = ["ISETP.NE.AND P0, PT, R0, RZ, PT", "@P0 BRA `(.L_x)", "VOTEU.ALL UP1, P2", "VOTE.ANY R3, PT, P2",
             "SHFL.BFLY PT, R4, R5, 0x1, 0x1f", "WARPSYNC R6", ".L_x:", "EXIT"]
    ir = lift_sass_kernels([kernel_of(lines)], NVPTX, data_layout(NVPTX))[0]
    assert "sync(i32 -1" not in ir and ir.count("@llvm.nvvm.activemask()") >= 3
    assert re.search(r"call i32 @llvm.nvvm.vote.ballot.sync\(i32 %v\d+, i1", ir)
    assert re.search(r"call \{?i32, i1\}? @llvm.nvvm.shfl.sync.bfly.i32p\(i32 %v\d+", ir)
    assert re.search(r"call void @llvm.nvvm.bar.warp.sync\(i32 %v\d+\)", ir)


def test_an_indexed_parameter_read_picks_the_parameter_holding_the_whole_offset() -> None:
    """c[0x0][R3+0x158]: a struct parameter's array indexed at run time, the immediate below the parameter
    window (ptxas folded part of the index into it): the parameter is chosen from the whole offset."""
    params = (KernelParam(0, 0, 8), KernelParam(1, 8, 16))
    kernel = SassKernel("t", 80, [parse_instruction(f"        /*{16 * i:04x}*/  {line} ;") for i, line in enumerate(
        ["LDC.64 R18, c[0x0][R3+0x158]", "STG.E.64 [R4.64], R18", "EXIT"])], CubinKernel("t", params, 24, 0x160, 0, 0))
    ir, names, failures = lift_sass_kernels([kernel], AMDGPU, data_layout(AMDGPU))
    assert failures == {} and "add i32" in ir and "icmp ult i32" in ir and "select i1" in ir
    assert re.search(r"add i32 %v\d+, -8", ir)  # 0x158 - 0x160


def test_words_of_two_half_parameters_and_byte_constants_are_read_piecewise() -> None:
    """`c[0x0] [0x178].H0_H0` (nvdisasm's spacing) over two __half parameters and the end of the buffer, and
    LDC.U8 from a `__constant__` byte table."""
    assert parse_operand("c[0x0] [0x178].H0_H0") == Constant(0, 0x178, suffixes=("H0_H0",))
    params = (KernelParam(0, 0, 8), KernelParam(1, 8, 2), KernelParam(2, 10, 2))
    kernel = SassKernel("t", 80, [parse_instruction(f"        /*{16 * i:04x}*/  {line} ;") for i, line in enumerate(
        ["HADD2.F32 R10, -RZ, c[0x0] [0x168].H0_H0", "HADD2.F32 R11, -RZ, c[0x0] [0x16a].H0_H0",
         "LDC.U8 R4, c[0x3][R4]", "EXIT"])], CubinKernel("t", params, 12, 0x160, 0, 0),
        constant_banks={3: bytes(range(16))}, constant_symbols={"table": (3, 0, 16)})
    ir, names, failures = lift_sass_kernels([kernel], AMDGPU, data_layout(AMDGPU))
    assert failures == {} and ir.count("load i16") == 3 and "load i8, ptr addrspace(4)" in ir


def test_warp_collective_regions_and_warp_counting_atomics_lift() -> None:
    lines = ["MOV R14, 0xffffffff", "WARPSYNC.COLLECTIVE R14, `(.L_x_1)", "SHFL.IDX P1, R18, R15, R2, R18",
             "ENDCOLLECTIVE", ".L_x_1:", "ATOMS.POPC.INC.32 RZ, [UR4]", "EXIT"]
    ir, names, failures = lift_sass_kernels([kernel_of(lines)], AMDGPU, data_layout(AMDGPU))
    assert failures == {} and "atomicrmw add ptr addrspace(3)" in ir and ", i32 1 " in ir
    with_old = lift_sass_kernels([kernel_of(["ATOMS.POPC.INC.32 R2, [UR4]", "EXIT"])], AMDGPU, data_layout(AMDGPU))[2]
    assert "a warp-counting atomic whose old value is read" in with_old["t"]


def test_relocatable_operands_parse_to_symbols() -> None:
    operand = parse_operand
    assert operand("32@lo(da)") == Relocated("da", False)
    assert operand("32@hi((da + 0x10))") == Relocated("da", True, 16)
    assert operand("32@lo((_Z1kPfi + .L_x_0@srel))") == Relocated("_Z1kPfi", False, 0, ".L_x_0")
    assert operand("c[`((c1 + 0x4))]") == Constant(3, 4, symbol="c1")
    assert operand("-c[`(ce)]") == Constant(3, 0, negated=True, symbol="ce")
    ret = parse_instruction("        /*01f0*/                   RET.ABS.NODEC R20 0x0 ;")
    assert ret.operands[1] == Immediate("0x0")
    with pytest.raises(SassSyntaxError):
        operand("32@lo((da * 2))")


RDC_A = r"""
__constant__ float ca[4] = {1, 2, 3, 4};
__device__ int da = 5;
extern __device__ float fb(float x, int i);
extern __device__ int db;
extern __constant__ float cb[4];
__global__ void k(float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = fb(out[i], i) + ca[i & 3] + da + db + cb[i & 3];
}
extern "C" int run_vadd() {
  float *d, h[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  cudaMalloc(&d, sizeof h);
  cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
  k<<<1, 8>>>(d, 8);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  return (int)h[5];
}
"""
RDC_B = r"""
__constant__ float cb[4] = {10, 20, 30, 40};
__device__ int db = 7;
__device__ float fb(float x, int i) { float t[8]; for (int j = 0; j < 8; j++) t[j] = x * j; return t[i & 7] + cb[(i >> 2) & 3] + db; }
"""


@needs_nvcc
@pytest.mark.parametrize("arch", [80, 90])
def test_rdc_sass_cubins_link_calls_constants_and_variables_across_objects(tmp_path: Path, arch: int) -> None:
    """Relocatable cubins (-rdc, SASS only): the kernel's CALL.ABS of another object's function is that
    function's code, inlined; `__constant__` symbols of both banks 3 are one bank; `32@lo(db)` is db's address."""
    write(tmp_path / "a.cu", RDC_A)
    write(tmp_path / "b.cu", RDC_B)
    subprocess.run([NVCC, "-gencode", f"arch=compute_{arch},code=sm_{arch}", "-dc", "a.cu", "b.cu"], cwd=tmp_path,
                   check=True)
    modules = [m for name in ("a.o", "b.o") for m in read_binary(tmp_path / name)]
    cubins = [next(i.entry.payload for i in m.images if i.entry.kind == "elf") for m in modules]
    (kernel,) = read_program(cubins, arch)
    assert kernel.name == "_Z1kPfi" and kernel.relocatable and "_Z2fbfi" in kernel.functions
    assert kernel.constant_symbols["ca"] == (3, 0, 16) and kernel.constant_symbols["cb"] == (3, 16, 16)
    assert kernel.device_variables == {"da": b"\x05\0\0\0", "db": b"\x07\0\0\0"}
    assert not any(isinstance(o, Constant) and o.symbol for i in kernel.instructions for o in i.operands)
    ir, names, failures = lift_sass_kernels([kernel], AMDGPU, data_layout(AMDGPU))
    assert names == ["_Z1kPfi"] and failures == {}
    assert "@__cassc_address.db" in ir and "@cb" in ir
    alone = translate_group(modules[:1], tmp_path, find_toolchain().lld)  # a's cubin lacks the function
    assert "a call to _Z2fbfi" in alone.failures["_Z1kPfi"] and "link the -rdc object" in alone.failures["_Z1kPfi"]
    translation = translate_group(modules, tmp_path, find_toolchain().lld)
    assert translation.route == "sass" and translation.failures == {} and code_object_target(
        translation.code_object) == "gfx1100"
    assert translation.variables == ["ca", "cb", "da", "db"]


@needs_nvcc
def test_rdc_sass_objects_link_into_a_gfx1100_program(cassc, tmp_path: Path) -> None:
    write(tmp_path / "a.cu", RDC_A)
    write(tmp_path / "b.cu", RDC_B)
    write(tmp_path / "main.cpp", MAIN)
    subprocess.run([NVCC, "-gencode", "arch=compute_80,code=sm_80", "-dc", "a.cu", "b.cu"], cwd=tmp_path, check=True)
    result = cassc("main.cpp", "a.o", "b.o", "-o", "app")
    assert "cassc: translated a.o + b.o: 1 kernel(s) from SASS sm_80 to gfx1100" in result.stderr
    assert gpu_targets(tmp_path / "app") == ["gfx1100"]


def test_an_untranslated_opcode_names_itself_its_address_and_the_kernel() -> None:
    instructions = [parse_instruction("        /*0000*/  MOV R0, 0x1 ;"),
                    parse_instruction("        /*0010*/  TMML.LOD RZ, R0, R2, 0x0, 0x5e, 2D, 0x3 ;")]
    kernel = SassKernel("_Z3texv", 80, instructions, CubinKernel("_Z3texv", (), 0, 0x160, 0, 0))
    _, names, failures = lift_sass_kernels([kernel], AMDGPU, data_layout(AMDGPU))
    assert names == [] and "SASS instruction TMML is not translated" in failures["_Z3texv"]
    assert "0x0010" in failures["_Z3texv"] and "kernel _Z3texv (SASS sm_80)" in failures["_Z3texv"]


def test_fuzzed_sass_text_ends_in_a_clear_error_or_a_translation() -> None:
    base = ["IMAD R0, R10, R11, R10", "LDG.E R2, [R4.64+0x10]", "ISETP.GE.AND P0, PT, R0, c[0x0][0x170], PT",
            "@!P0 STS [R7.X4], R0", "FFMA R2, -R3, |R4|, 0.5", "SHFL.DOWN PT, R3, R2, R3, 0x1f"]
    alphabet = "RUPZT0123456789[]().,+-|~!@`x_ ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    rng = random.Random(17)
    for _ in range(400):
        line = list(rng.choice(base))
        for _ in range(rng.randint(1, 4)):
            position = rng.randrange(len(line) + 1)
            if rng.random() < 0.5 and line:
                del line[min(position, len(line) - 1)]
            else:
                line.insert(position, rng.choice(alphabet))
        text = f"        /*0000*/  {''.join(line)} ;"
        try:
            instruction = parse_instruction(text)
            kernel = SassKernel("f", 80, [instruction], CubinKernel("f", (), 0, 0x160, 0, 0))
            lift_sass_kernels([kernel], AMDGPU, data_layout(AMDGPU))
        except (SassSyntaxError, Unsupported):
            pass


@needs_nvcc
def test_a_listing_without_kernels_parses_to_nothing() -> None:
    assert parse_listing("\t.target sm_80\n") == {}


@needs_nvcc
@pytest.mark.parametrize("arch", [80, 90])
def test_sass_only_objects_translate_to_validated_gfx1100_code(tmp_path: Path, arch: int) -> None:
    write(tmp_path / "k.cu", SIMPLE)
    subprocess.run([NVCC, "-gencode", f"arch=compute_{arch},code=sm_{arch}", "-c", "k.cu", "-o", "k.o"],
                   cwd=tmp_path, check=True)
    (module,) = read_binary(tmp_path / "k.o")
    assert not module.ptx_images()
    translation = translate(module, tmp_path, find_toolchain().lld)
    assert translation.route == "sass" and translation.ptx_arch == arch and translation.failures == {}
    assert code_object_target(translation.code_object) == "gfx1100"
    assert {k.name: k.param_size for k in translation.kernels}["_Z5saxpyifPKfPf"] == 24
    assert translation.variables == ["bias"]


WALK = r"""
// a random walk counting visits near cell centres: two streams read per step through 64-bit indices, a division
// (with its slow path) in the loop
__global__ void walk(float* __restrict__ px, float* __restrict__ py, const float* __restrict__ rx,
                     const float* __restrict__ ry, size_t* __restrict__ visits, size_t n, unsigned steps, int g,
                     float r) {
  size_t i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i >= n) return;
  float x = px[i], y = py[i];
  size_t row = i * g * g;
  for (size_t s = 0; s < steps; s++) {
    x += rx[s * n + i] / 1000.0f - 0.05f;
    y += ry[s * n + i] / 1000.0f - 0.05f;
    float dx = x - truncf(x), dy = y - truncf(y);
    if (x < g && y < g && x >= 0 && y >= 0 && dx * dx + dy * dy <= r * r)
      visits[row + (int)floorf(y) * g + (int)floorf(x)]++;
  }
  px[i] = x;
  py[i] = y;
}
"""


@needs_nvcc
def test_a_loop_of_64_bit_pointer_adds_compiles_for_gfx1100(cassc, tmp_path: Path) -> None:
    """The adds' carries as comparisons: with llvm.uadd.with.overflow, LLVM 22's AMDGPU backend aborted on this
    loop (its machine verifier: a carry used before its definition), killing the whole compiler."""
    write(tmp_path / "k.cu", WALK)
    write(tmp_path / "main.cpp", "int main() { return 0; }\n")
    subprocess.run([NVCC, "-gencode", "arch=compute_80,code=sm_80", "-c", "k.cu", "-o", "k.o"], cwd=tmp_path,
                   check=True)
    result = cassc("main.cpp", "k.o", "-o", "app")
    assert "1 kernel(s) from SASS sm_80 to gfx1100" in result.stderr
    assert gpu_targets(tmp_path / "app") == ["gfx1100"]


@needs_nvcc
def test_sass_only_static_library_relinks_into_a_gfx1100_program(cassc, tmp_path: Path) -> None:
    write(tmp_path / "k.cu", SIMPLE + HOST)
    write(tmp_path / "main.cpp", MAIN)
    subprocess.run([NVCC, "-gencode", "arch=compute_80,code=sm_80", "-c", "k.cu", "-o", "k.o"], cwd=tmp_path,
                   check=True)
    subprocess.run(["ar", "rcs", "libk.a", "k.o"], cwd=tmp_path, check=True)
    result = cassc("main.cpp", "-L.", "-lk", "-o", "app")
    assert "cassc: translated libk.a(k.o): 5 kernel(s) from SASS sm_80 to gfx1100" in result.stderr
    assert gpu_targets(tmp_path / "app") == ["gfx1100"]
    undefined = subprocess.run(["nm", "-u", "app"], cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    assert [line for line in undefined.splitlines() if "cuda" in line.lower()] == []


@needs_nvcc
def test_the_sass_route_can_be_forced_where_ptx_exists(cassc, tmp_path: Path) -> None:
    write(tmp_path / "k.cu", SIMPLE + HOST)
    write(tmp_path / "main.cpp", MAIN)
    subprocess.run([NVCC, "-arch=sm_86", "-c", "k.cu", "-o", "k.o"], cwd=tmp_path, check=True)
    assert "from PTX compute_86" in cassc("main.cpp", "k.o", "-o", "app").stderr
    assert "from SASS sm_86" in cassc("main.cpp", "k.o", "-o", "app", "--cassc-sass").stderr
    assert "from SASS sm_86" in cassc("main.cpp", "k.o", "-o", "app", env={"CASSC_SASS": "1"}).stderr


@needs_nvcc
def test_inspect_says_which_route_takes_each_kernel(cassc, tmp_path: Path) -> None:
    write(tmp_path / "k.cu", SIMPLE)
    subprocess.run([NVCC, "-gencode", "arch=compute_80,code=sm_80", "-c", "k.cu", "-o", "sass.o"], cwd=tmp_path,
                   check=True)
    subprocess.run([NVCC, "-arch=sm_86", "-c", "k.cu", "-o", "ptx.o"], cwd=tmp_path, check=True)
    import json

    (sass_only,) = [m for m in json.loads(cassc("inspect", "--json", "--sass", "sass.o").stdout) if "origin" in m]
    assert sass_only["routes"]["_Z4vaddPKfS0_Pfi"] == {"route": "SASS sm_80", "sass_lifter": "lifts"}
    (with_ptx,) = [m for m in json.loads(cassc("inspect", "--json", "--sass", "ptx.o").stdout) if "origin" in m]
    assert with_ptx["routes"]["_Z4vaddPKfS0_Pfi"] == {"route": "PTX compute_86", "sass_lifter": "lifts"}
    assert "SASS sm_80" in cassc("inspect", "--sass", "sass.o").stdout


@needs_nvcc
@pytest.mark.parametrize("accepted", [True, False])
def test_the_model_answers_for_a_sass_kernel_the_lifter_cannot_translate(tmp_path: Path, accepted: bool) -> None:
    from test_binary_translate import EMPTY_KERNEL, AssemblyAnswer

    from cassc.binary.fallback import Fallback
    from cassc.binary.translate import translate_group

    # a performance-monitor trigger (PMTRIG), which the lifter leaves to the model
    write(tmp_path / "p.cu", '__global__ void k(int v) { if (v > 2) asm volatile("pmevent 1;"); }\n')
    subprocess.run([NVCC, "-gencode", "arch=compute_86,code=sm_86", "-c", "p.cu", "-o", "p.o"], cwd=tmp_path,
                   check=True)
    (module,) = read_binary(tmp_path / "p.o")
    backend = AssemblyAnswer(EMPTY_KERNEL if accepted else "v_bogus_instruction v0\n")
    toolchain = find_toolchain()
    translation = translate_group([module], tmp_path, toolchain.lld, "gfx1100", separate=False,
                                  fallback=Fallback(lambda: backend, 256, toolchain.clang))
    (prompt,) = backend.prompts
    # the CASS assembly models' own format: the kernel's SASS in a ```cudaasm block (the answer's ```hipasm
    # block is what AssemblyAnswer gives)
    assert prompt.startswith("Convert the following CUDA device assembly code to HIP device assembly:\n```cudaasm\n")
    assert "PMTRIG" in prompt and "Function : _Z1ki" in prompt and prompt.endswith("\n```")
    assert translation.route == "sass"
    if accepted:
        (kernel,) = translation.kernels
        assert kernel.from_model == "fixed assembly" and kernel.kernarg_size == 4 and not translation.failures
    else:
        assert translation.kernels == [] and "the model's answer was not used: " in translation.failures["_Z1ki"]


UNROLLED = r"""
__global__ void strided(int n, const float *x, float *y) {
  int index = blockIdx.x * blockDim.x + threadIdx.x, stride = blockDim.x * gridDim.x;
  for (int i = index; i < n; i += stride) y[i] += x[i];
}
__global__ void rows(const float *a, float *out, int n) {
  float s = 0.f;
  for (int j = 0; j < n; j++) s += a[threadIdx.x * n + j];
  out[threadIdx.x] = s;
}
"""


def runtime_unrolled_sum(trips: int, read_after: bool = False) -> list[str]:
    """NVVM's prologue shape (a remainder loop, then the guard, then 4 copies) summing 1..trips into R9;
    `read_after`: the remainder count is also kept (in R7), so it must stay as it is."""
    return [mov("R2", trips - 1), "MOV R9, RZ", "MOV R3, 0x1", "MOV R7, RZ", mov("R5", trips),
            "IADD3 R4, R2, 0x1, RZ", "ISETP.GE.U32.AND P1, PT, R2, 0x3, PT",
            "LOP3.LUT P0, R4, R4, 0x3, RZ, 0xc0, !PT", *(["MOV R7, R4"] if read_after else []),
            "@!P0 BRA `(.L_x_1)", "IMAD.MOV.U32 R2, RZ, RZ, R4",
            ".L_x_2:", "IADD3 R9, R9, R3, RZ", "IADD3 R3, R3, 0x1, RZ", "IADD3 R2, R2, -0x1, RZ",
            "ISETP.NE.AND P0, PT, R2, RZ, PT", "@P0 BRA `(.L_x_2)",
            ".L_x_1:", "@!P1 BRA `(.L_x_3)",
            ".L_x_4:", *["IADD3 R9, R9, R3, RZ", "IADD3 R3, R3, 0x1, RZ"] * 4,
            "ISETP.LE.U32.AND P2, PT, R3, R5, PT", "@P2 BRA `(.L_x_4)", ".L_x_3:"]


@pytest.mark.parametrize("trips", [1, 3, 4, 5, 11])
def test_a_runtime_unrolled_loop_runs_its_remainder_loop_alone(trips: int) -> None:
    from cassc.binary.sass_reroll import reroll_runtime_unrolled_loops

    lines = runtime_unrolled_sum(trips)
    assert evaluate(lines, ["R9"]) == [trips * (trips + 1) // 2]
    rolled = reroll_runtime_unrolled_loops(kernel_of(lines).instructions)
    texts = [(i.opcode, i.guard, i.operands) for i in rolled]
    assert [t for t in texts if t[0] == "LOP3"][0][2][3] == Immediate("0xffffffff")  # c = tc
    assert next(i for i in rolled if i.opcode == "BRA" and i.operands[-1].label == ".L_x_3").guard is None
    kept = runtime_unrolled_sum(trips, read_after=True)  # the count read elsewhere: left as it is
    assert reroll_runtime_unrolled_loops(kernel_of(kept).instructions) == kernel_of(kept).instructions
    assert evaluate(kept, ["R9", "R7"]) == [trips * (trips + 1) // 2, trips % 4]


@needs_nvcc
@pytest.mark.parametrize("arch", ARCHS)
def test_nvcc_runtime_unrolled_loops_are_rolled_back_on_every_arch(tmp_path: Path, arch: int) -> None:
    from cassc.binary.sass_reroll import reroll_runtime_unrolled_loops

    write(tmp_path / "unrolled.cu", UNROLLED)
    subprocess.run([NVCC, "-cubin", f"-arch=sm_{arch}", "unrolled.cu", "-o", "u.cubin"], cwd=tmp_path, check=True)
    kernels = read_kernels((tmp_path / "u.cubin").read_bytes(), arch)
    for kernel in kernels:  # each loop's remainder count becomes the whole trip count
        rolled = reroll_runtime_unrolled_loops(kernel.instructions)
        assert any(Immediate("0xffffffff") in i.operands for i in rolled), kernel.name
    ir, names, failures = lift_sass_kernels(kernels, AMDGPU, data_layout(AMDGPU))
    assert not failures
    optimized = str(optimized_module(ir, AMDGPU))
    assert optimized.count("load float, ptr addrspace(1)") <= 2 * len(kernels)  # one copy of each body: no 4x


def test_a_double_atomic_add_adds_a_double_pair() -> None:
    lines = ["MOV R4, 0x1000", "MOV R5, RZ", "MOV R2, RZ", "MOV R3, 0x3ff80000",
             "RED.E.ADD.F64.RN.STRONG.GPU [R4.64], R2", "ATOMG.E.ADD.F64.RN.STRONG.GPU PT, R6, [R4.64], R2", "EXIT"]
    ir = lift_sass_kernels([kernel_of(lines)], AMDGPU, data_layout(AMDGPU))[0]
    assert ir.count("atomicrmw fadd ptr addrspace(1)") == 2 and ir.count(", double ") >= 2 and ", float " not in ir
