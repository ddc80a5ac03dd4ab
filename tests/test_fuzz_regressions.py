"""Inputs the fuzzer (benchmarks/fuzz.py) found that ended in a traceback instead of cassc's own error, each
reduced to the smallest input of its kind. Every one must now end in a CasscError whose message names
where the input went wrong."""

from __future__ import annotations

import pytest

from cassc.binary.emit import AMDGPU, NVPTX
from cassc.binary.lift import lift_module
from cassc.binary.ptx import PtxSyntaxError, parse_ptx
from cassc.errors import UsageError
from cassc.invocation import parse_invocation

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
