"""Inputs the fuzzer (benchmarks/fuzz.py) found that ended in a traceback instead of cassc's own error, each
reduced to the smallest input of its kind. Every one must now end in a CasscError (or, for a binary format,
the format's own error, which every caller reports as an input error) whose message names where the input
went wrong."""

from __future__ import annotations

import re
import struct
import subprocess
from pathlib import Path

import pytest

from cassc.binary.emit import AMDGPU, NVPTX
from cassc.binary.lift import lift_module
from cassc.binary.ptx import PtxSyntaxError, parse_ptx
from cassc.errors import UsageError
from cassc.formats.code_object import CodeObjectError, kernel_descriptors
from cassc.formats.elf import ElfFile
from cassc.invocation import parse_invocation
from cassc.toolchain import find_toolchain

HEADER = ".version 8.0\n.target sm_80\n.address_size 64\n"


def kernel(body: str, registers: str = ".reg .b32 %r<4>;\n.reg .f32 %f<4>;\n.reg .pred %p<2>;") -> str:
    return HEADER + f".visible .entry k(\n.param .u64 k_param_0\n)\n{{\n{registers}\n{body}\nret;\n}}\n"


def lift_failures(text: str) -> list[str]:
    """Every target's reasons for leaving kernel `k` out (the lifter's errors are per function)."""
    module = parse_ptx(text)
    return [lift_module(module, target, "").failures.get("k", "") for target in (AMDGPU, NVPTX)]


@pytest.mark.parametrize("body, reason", [
    ("add.f32 %f1, %f2, 0fZZ;", "'0fZZ' is not a .f32 operand"),  # not a float literal
    ("shl.b32 %r1, %r2;", "cannot read the operands of 'shl'"),  # an operand missing
    ("shfl.sync.b32 %r1, %r2, 1, 31, -1;", "cannot read the operands of 'shfl'"),  # no up/down/bfly/idx
    ("cvta.to.u64 %r1, %r2;", "cannot read the operands of 'cvta'"),  # no state space
    ("setp.f32 %p1, %f1, %f2;", "cannot read the operands of 'setp'"),  # no comparison
])
def test_malformed_instructions_name_the_instruction_and_line(body: str, reason: str) -> None:
    for failure in lift_failures(kernel(body)):
        assert reason in failure and "PTX line 11" in failure, failure


def test_a_branch_without_target_is_refused_not_rerolled() -> None:
    body = "$L_loop:\n.pragma \"nounroll\";\nadd.s32 %r1, %r1, 1;\nbra;"
    assert all("cannot read the operands of 'bra'" in f for f in lift_failures(kernel(body)))


@pytest.mark.parametrize("text, message", [
    (HEADER + ".visible .entry k(\n.param .u64 a", "PTX line 4: '.visible' is cut off"),
    (HEADER + ".param .u32 x;", "PTX line 4: '.param' does not start a declaration at module scope"),
    (HEADER + ".visible .en!ry k() { ret; }", "does not start a declaration at module scope"),
    (kernel("", registers=".reg .b %r<2>;"), "PTX line 8: cannot read the register type"),
    (HEADER + ".global .align x .u32 g;", "PTX line 4: cannot read '.global'"),
])
def test_malformed_modules_are_syntax_errors_with_a_line(text: str, message: str) -> None:
    with pytest.raises(PtxSyntaxError, match=message.replace("(", r"\(").replace(".", r"\.")):
        lift_failures(text)


def test_an_unclosed_quote_in_a_host_option_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="option 'linker-options' has an unclosed quote"):
        parse_invocation(["-Xlinker", "-rpath',x", "a.o"], env={})


def gfx1100_code_object(tmp_path: Path) -> bytes:
    """A linked gfx1100 code object with one kernel, built by the real clang."""
    source = tmp_path / "k.hip"
    source.write_text("__attribute__((global)) void k(int *p, int n) {\n"
                      "  __attribute__((shared)) int s[64];\n  s[n & 63] = n;\n  p[n] = s[(n + 1) & 63];\n}\n")
    output = tmp_path / "k.co"
    subprocess.run([str(find_toolchain().clang), "-x", "hip", "--offload-arch=gfx1100", "--cuda-device-only",
                    "--no-gpu-bundle-output", "-nogpulib", "-nogpuinc", "-O2", "-o", str(output), str(source)],
                   check=True)
    return output.read_bytes()


def test_a_kernel_descriptor_outside_its_section_is_a_code_object_error(tmp_path: Path) -> None:
    data = gfx1100_code_object(tmp_path)
    assert kernel_descriptors(data)["_Z1kPii"].lds_size == 256
    elf = ElfFile(data)
    symtab = elf.section(".symtab")
    assert symtab is not None
    index = next(i for i, s in enumerate(elf.symbols(symtab)) if s.name == "_Z1kPii.kd")
    st_value = symtab.offset + index * 24 + 8  # Elf64_Sym: name u32, info u8, other u8, shndx u16, value u64
    damaged = data[:st_value] + struct.pack("<Q", 0x7FFF_0000) + data[st_value + 8:]
    with pytest.raises(CodeObjectError, match="kernel descriptor _Z1kPii.kd at 0x7fff0000 lies outside its section"):
        kernel_descriptors(damaged)


def test_a_register_range_is_not_spelled_out() -> None:
    """`.reg .pred %p<N>` with N in the quadrillions hung the parser (it listed every name): a register of a
    range gets its slot when it is used, and one past the range is not a register."""
    registers = ".reg .pred %p<4444444444444444>;\n.reg .b32 %r<3>;"
    module = parse_ptx(kernel("setp.eq.s32 %p7, %r1, 0;\n@%p7 mov.u32 %r2, 1;", registers=registers))
    for target in (AMDGPU, NVPTX):
        lifted = lift_module(module, target, "")
        assert not lifted.failures, lifted.failures
        assert sorted(re.findall(r"%r\.(\w+) = alloca", lifted.ir)) == ["p7", "r1", "r2"]
    for body, register in (("mov.u32 %r3, 1;", "%r3"), ("mov.u32 %r01, 1;", "%r01")):
        assert all(f"writes {register}, which is not a declared register" in f
                   for f in lift_failures(kernel(body, registers=registers)))
