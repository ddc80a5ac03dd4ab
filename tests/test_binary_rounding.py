"""Directed rounding on the binary path: PTX's add/sub/mul/div/fma/sqrt/rcp .rz/.rm/.rp (f32, f64) and cvt's
.rz/.rm/.rp to a float (CUDA's __fadd_rz, __dmul_ru, __fsqrt_rd, __ll2float_rz, __double2float_ru...) round
the exact result as the PTX ISA says. The lifted IR, folded by LLVM for constant operands, is compared with the
exact result (fractions) rounded here; nvcc's PTX for the CUDA intrinsics translates into a validated gfx1100
code object and its NVPTX lowering assembles with ptxas (the round trip on an H200 is
benchmarks/breadth/rounding.cu)."""

from __future__ import annotations

import math
import random
import re
import shutil
import struct
import subprocess
import zlib
from fractions import Fraction
from pathlib import Path

import pytest

from cassc.binary.codegen import data_layout, nvptx_assembly, optimized_module
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
FORMATS = {"f16": (11, -14, 15), "f32": (24, -126, 127), "f64": (53, -1022, 1023)}  # precision, emin, emax


def rounded(x: Fraction, ptx_type: str, mode: str) -> float:
    """x rounded to `ptx_type` to nearest even ("rn"), toward zero, down or up, as IEEE 754 does."""
    precision, emin, emax = FORMATS[ptx_type]
    if x == 0:
        return 0.0
    sign, magnitude = (-1, -x) if x < 0 else (1, x)
    exponent = magnitude.numerator.bit_length() - magnitude.denominator.bit_length()
    if Fraction(2) ** exponent > magnitude:
        exponent -= 1
    place = Fraction(2) ** (max(exponent, emin) - precision + 1)
    steps = magnitude / place
    toward_zero = mode == "rz" or (mode == "rm" and sign > 0) or (mode == "rp" and sign < 0)
    if mode == "rn":
        count = round(steps)  # Python rounds a Fraction's halves to even
    else:
        count = math.floor(steps) if toward_zero else math.ceil(steps)
    largest = (2 - Fraction(2) ** (1 - precision)) * Fraction(2) ** emax
    result = count * place
    if result > largest:
        result = largest if toward_zero and mode != "rn" else Fraction(10) ** 400
    value = math.inf if result > largest else float(result)
    return math.copysign(value, sign)


def exact(value: float) -> Fraction:
    return Fraction(value)


def as_float(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0]


def literal(x: float, ptx_type: str) -> str:
    if ptx_type == "f32":
        return f"0f{struct.unpack('<I', struct.pack('<f', x))[0]:08X}"
    return f"0d{struct.unpack('<Q', struct.pack('<d', x))[0]:016X}"


def operands(ptx_type: str, seed: int) -> list[tuple[float, float]]:
    """Finite operand pairs: random significands over wide exponent ranges, and the hard cases (sums that
    cancel, products and quotients near the bottom of the range or past its top)."""
    chance = random.Random(seed)
    _, emin, emax = FORMATS[ptx_type]
    narrow = as_float if ptx_type == "f32" else float

    def some(low: int, high: int) -> float:
        return narrow(chance.choice((-1, 1)) * (1 + chance.random()) * 2.0 ** chance.randint(low, high))

    pairs = [(some(-20, 20), some(-20, 20)) for _ in range(24)]
    pairs += [(some(-60, 60), some(-60, 60)) for _ in range(8)]
    tiny, huge = 2.0 ** (emin + 2), 2.0 ** (emax - 1)
    pairs += [(narrow(1 / 3), narrow(-1 / 3)), (narrow(-0.1), narrow(0.1)), (narrow(1.0), narrow(2.0 ** -60)),
              (narrow(tiny * 1.37), narrow(0.3)), (narrow(-tiny * 1.9), narrow(tiny * 3.7)),
              (narrow(huge * 1.5), narrow(1.75)), (narrow(-huge * 1.5), narrow(huge * 1.25)),
              (narrow(2.0 ** (emin - 10) * 1.3), narrow(2.0 ** -40)), (narrow(3.0), narrow(7.0)),
              (0.0, narrow(3.0)), (-0.0, narrow(3.0)), (narrow(-2.5), narrow(2.5))]
    return pairs


def zero(operation: str, a: float, b: float, mode: str) -> float:
    """The signed zero IEEE 754 gives an exact zero result: a product's or quotient's sign; a sum's +0, or -0
    rounding down (and -0 + -0)."""
    if operation in ("mul", "div"):
        return math.copysign(0.0, math.copysign(1, a) * math.copysign(1, b))
    b = -b if operation == "sub" else b
    both_negative = math.copysign(1, a) < 0 and math.copysign(1, b) < 0
    return -0.0 if mode == "rm" or both_negative else 0.0


OPERATIONS = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
              "div": lambda a, b: a / b}


def folded_results(lines: list[str], registers: str) -> list[float]:
    ptx = (".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry t(.param .u64 out)\n{\n"
           f"{registers}\t.reg .b64 %rd<3>;\n\tld.param.u64 %rd1, [out];\n\tcvta.to.global.u64 %rd2, %rd1;\n"
           + "\n".join(lines) + "\n\tret;\n}\n")
    lifted = lift_module(parse_ptx(ptx), AMDGPU, data_layout(AMDGPU))
    assert lifted.failures == {}
    ir = str(optimized_module(lifted.ir, AMDGPU))
    values = []
    for kind, text in re.findall(r"store (half|float|double) (0xH[0-9A-F]{4}|0x[0-9A-F]+|[-+.\de]+|[-+]?inf), "
                                 r"ptr addrspace\(1\)", ir):
        if text.startswith("0xH"):
            values.append(struct.unpack("<e", struct.pack("<H", int(text[3:], 16)))[0])
        elif text.startswith("0x"):
            values.append(struct.unpack("<d", struct.pack("<Q", int(text[2:], 16)))[0])
        else:
            values.append(float(text))
    return values


def same(got: float, expected: float) -> bool:
    return got == expected and math.copysign(1, got) == math.copysign(1, expected)


@pytest.mark.parametrize("ptx_type", ["f32", "f64"])
@pytest.mark.parametrize("mode", ["rz", "rm", "rp"])
def test_directed_arithmetic_rounds_the_exact_result(ptx_type: str, mode: str) -> None:
    lines, expected, index = [], [], 0
    register = "%f" if ptx_type == "f32" else "%fd"
    for operation, compute in OPERATIONS.items():
        for a, b in operands(ptx_type, zlib.crc32(f"{operation}.{ptx_type}".encode())):
            index += 1
            lines += [f"\t{operation}.{mode}.{ptx_type} {register}{index}, {literal(a, ptx_type)}, "
                      f"{literal(b, ptx_type)};",
                      f"\tst.global.{ptx_type} [%rd2+{16 * index}], {register}{index};"]
            value = compute(exact(a), exact(b))
            expected.append(rounded(value, ptx_type, mode) if value != 0 else zero(operation, a, b, mode))
    chance = random.Random(11)
    tiny = as_float(2.0 ** -70 * 1.25) if ptx_type == "f32" else 2.0 ** -540 * (1 + 2.0 ** -52)
    triples = [(a, b, chance.choice(operands(ptx_type, 5))[0]) for a, b in operands(ptx_type, 3)]
    smallest = 2.0 ** (FORMATS[ptx_type][1] - FORMATS[ptx_type][0] + 1)
    half_way = 2.0 ** (math.log2(smallest) // 2)
    triples += [(tiny, tiny, 1.0), (tiny, -tiny, 1.0), (tiny, tiny, -0.0),  # the product's error underflows
                (3.0, 0.5, -1.5), (-0.0, 2.0, 0.0), (0.0, 2.0, 0.0),  # exact zeros
                (half_way, 0.75 * smallest / half_way, 0.0),  # below the smallest denormal (exact in both)
                (-half_way, 0.75 * smallest / half_way, 0.0)]
    if ptx_type == "f64":  # a normal product whose error is a denormal, not exact: what it lost decides
        triples.append((-0.0003702935045647875, 8.346712167379338e-304, 3.749222392240215e-308))
    for a, b, c in triples:
        index += 1
        lines += [f"\tfma.{mode}.{ptx_type} {register}{index}, {literal(a, ptx_type)}, {literal(b, ptx_type)}, "
                  f"{literal(c, ptx_type)};", f"\tst.global.{ptx_type} [%rd2+{16 * index}], {register}{index};"]
        value = exact(a) * exact(b) + exact(c)
        both_positive_zeros = a * b == 0 and math.copysign(1, a * b) > 0 and c == 0 and math.copysign(1, c) > 0
        expected.append(rounded(value, ptx_type, mode) if value != 0 else
                        (-0.0 if mode == "rm" and not both_positive_zeros else 0.0))
    for a, _ in [pair for pair in operands(ptx_type, 7) if pair[0] != 0]:
        for instruction, value in (("sqrt", None), ("rcp", exact(1) / exact(a))):
            index += 1
            operand = abs(a) if instruction == "sqrt" else a
            lines += [f"\t{instruction}.{mode}.{ptx_type} {register}{index}, {literal(operand, ptx_type)};",
                      f"\tst.global.{ptx_type} [%rd2+{16 * index}], {register}{index};"]
            if value is None:  # the root, bracketed exactly: the reference is the rounding of root(operand)
                nearest = math.sqrt(operand) if ptx_type == "f64" else as_float(math.sqrt(operand))
                value = exact_root(exact(operand), nearest, ptx_type, mode)
                expected.append(value)
            else:
                expected.append(rounded(value, ptx_type, mode))
    registers = f"\t.reg .{ptx_type} {register}<{index + 1}>;\n"
    got = folded_results(lines, registers)
    assert len(got) == len(expected)
    wrong = [(line, g, e) for line, g, e in zip(lines[::2], got, expected) if not same(g, e)]
    assert not wrong, wrong[:5]


def exact_root(x: Fraction, near: float, ptx_type: str, mode: str) -> float:
    """The square root of x rounded toward zero/down/up (a root is positive: down), from `near`, the root
    rounded to nearest, and its neighbours."""
    below = max(c for c in (near, *neighbours(near, ptx_type)) if exact(c) ** 2 <= x)
    above = min(c for c in (near, *neighbours(near, ptx_type)) if exact(c) ** 2 >= x)
    return above if mode == "rp" else below


def neighbours(x: float, ptx_type: str) -> tuple[float, float]:
    if ptx_type == "f64":
        return math.nextafter(x, -math.inf), math.nextafter(x, math.inf)
    bits = struct.unpack("<I", struct.pack("<f", x))[0]
    return tuple(struct.unpack("<f", struct.pack("<I", b))[0] for b in (bits - 1, bits + 1))  # type: ignore[return-value]


CONVERSION_INTEGERS = [1, -1, 16777217, -16777219, 2 ** 53 + 1, -(2 ** 53) - 3, 2 ** 62 + 2 ** 10 + 1, 2 ** 63 - 1,
                       -(2 ** 63), 123456789123, -987654321987]


@pytest.mark.parametrize("mode", ["rz", "rm", "rp"])
def test_directed_conversions_round_the_exact_value(mode: str) -> None:
    lines, expected, index = [], [], 0
    for integer in CONVERSION_INTEGERS:
        for source in ("s64", "u64"):
            if source == "u64" and integer < 0:
                continue
            for destination in ("f32", "f64"):
                index += 1
                register = "%f" if destination == "f32" else "%fd"
                lines += [f"\tmov.b64 %rl{index}, {integer if integer >= 0 or source == 's64' else 0};",
                          f"\tcvt.{mode}.{destination}.{source} {register}{index}, %rl{index};",
                          f"\tst.global.{destination} [%rd2+{16 * index}], {register}{index};"]
                expected.append(rounded(Fraction(integer), destination, mode))
    for value in (0.1, -0.1, 1 / 3, 1e300, -1e-300, 2.0 ** -140 * 1.3, 3.4028235e38 * 1.0000001):
        index += 1
        lines += [f"\tcvt.{mode}.f32.f64 %f{index}, {literal(value, 'f64')};",
                  f"\tst.global.f32 [%rd2+{16 * index}], %f{index};"]
        expected.append(rounded(exact(value), "f32", mode))
    for value in (0.1, -0.1, 1 / 3, 70000.0, -3e-6):
        index += 1
        lines += [f"\tcvt.{mode}.f16.f32 %h{index}, {literal(as_float(value), 'f32')};",
                  f"\tcvt.f32.f16 %f{index}, %h{index};",  # exact: stored as a float
                  f"\tst.global.f32 [%rd2+{16 * index}], %f{index};"]
        expected.append(rounded(exact(as_float(value)), "f16", mode))
    registers = (f"\t.reg .f32 %f<{index + 1}>;\n\t.reg .f64 %fd<{index + 1}>;\n\t.reg .b64 %rl<{index + 1}>;\n"
                 f"\t.reg .b16 %h<{index + 1}>;\n")
    got = folded_results(lines, registers)
    assert len(got) == len(expected)
    wrong = [(g, e) for g, e in zip(got, expected) if not same(g, e)]
    assert not wrong, wrong[:5]


INTRINSICS = r"""
#include <cuda_fp16.h>
__global__ void directed(const float *f, const double *d, const long long *l, unsigned long long *u, float *fo,
                         double *dd, __half *h) {
  int i = threadIdx.x;
  fo[i] = __fadd_rz(f[i], f[i + 1]) + __fsub_ru(f[i], f[i + 2]) + __fmul_rd(f[i], f[i + 1]) + __fdiv_ru(f[i], f[i + 3])
        + __fsqrt_rd(f[i]) + __frcp_rz(f[i]) + __ll2float_rz(l[i]) + __double2float_ru(d[i]) + __int2float_rd((int)l[i]);
  dd[i] = __dadd_ru(d[i], d[i + 1]) + __dsub_rz(d[i], d[i + 2]) + __dmul_rd(d[i], d[i + 1]) + __ddiv_rz(d[i], d[i + 2])
        + __dsqrt_ru(d[i]) + __drcp_rd(d[i]) + __ull2double_rd(u[i]) + __ll2double_rz(l[i]);
  h[i] = __float2half_rz(f[i]);
}
"""


@pytest.mark.skipif(not PTXAS.exists(), reason="NVIDIA's nvcc is not installed")
def test_cudas_directed_intrinsics_translate_for_both_targets(tmp_path: Path) -> None:
    write(tmp_path / "d.cu", INTRINSICS)
    subprocess.run([NVCC, "-arch=sm_80", "-c", "d.cu", "-o", "d.o"], cwd=tmp_path, check=True)
    (module,) = read_binary(tmp_path / "d.o")
    ptx = module.best_ptx() or ""
    for form in ("add.rz.f32", "sub.rp.f32", "mul.rm.f32", "div.rp.f32", "sqrt.rm.f32", "rcp.rz.f32",
                 "cvt.rz.f32.s64", "cvt.rp.f32.f64", "cvt.rm.f32.s32", "add.rp.f64", "sub.rz.f64", "mul.rm.f64",
                 "div.rz.f64", "sqrt.rp.f64", "rcp.rm.f64", "cvt.rm.f64.u64", "cvt.rz.f64.s64", "cvt.rz.f16.f32"):
        assert f"{form} " in ptx or f"{form}\t" in ptx, form
    for force_sass in (False, True):  # the SASS: DADD/DMUL/DFMA.RZ..., I2F/F2F.RM..., F2FP.PACK_AB.RZ
        translation = translate(module, tmp_path, find_toolchain().lld, force_sass=force_sass)
        assert translation.failures == {} and code_object_target(translation.code_object) == "gfx1100"
    lowered = lift_module(parse_ptx(ptx), NVPTX, data_layout(NVPTX))
    (tmp_path / "lowered.ptx").write_text(nvptx_assembly(lowered.ir, "sm_80"))
    subprocess.run([str(PTXAS), "-arch=sm_80", "lowered.ptx", "-o", "lowered.cubin"], cwd=tmp_path, check=True)
