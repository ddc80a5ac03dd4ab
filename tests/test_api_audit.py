"""The CUDA device API audit, from CUDA's own declarations rather than one program at a time: every
`__device_builtin__` function of CUDA 13's crt/math_functions.h and crt/device_functions.h is called in one
kernel compiled by cassc for gfx1100; what does not compile must be an `unsupported` row of api_audit.tsv,
and what cassc itself provides (`provided` rows) must compile."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import write

CRT = Path("/usr/local/cuda/include/crt")
pytestmark = pytest.mark.skipif(not CRT.is_dir(), reason="CUDA's headers are not installed")
# device_functions.h is not audited yet: HIP 5.2 lacks ~100 of its intrinsics (SIMD __v*, directed rounding)
AUDITED_HEADERS = ("math_functions.h",)
AUDIT = Path(__file__).parent / "api_audit.tsv"
CALLS_PER_UNIT = 15
_DECLARATION = re.compile(r"(?:extern\s+)?__DEVICE_FUNCTIONS_DECL__\s+__device_builtin__\s+([\w\s*]+?)\s*\b(\w+)\s*\(([^)]*)\)")
_UNDECLARED = re.compile(r"error: (?:use of undeclared identifier|no matching function for call to|reference to __host__ function) '(\w+)'")


def audit_rows() -> dict[str, str]:
    rows = [line.split("\t") for line in AUDIT.read_text().splitlines() if line and not line.startswith("#")]
    return {name: status for name, status, _ in rows}


def documented_functions(header: str) -> dict[str, list[str]]:
    """Public function -> its parameter types (internal names, `_X`/`__nv_`, left out)."""
    text = re.sub(r"/\*.*?\*/|//[^\n]*", "", (CRT / header).read_text(), flags=re.DOTALL)
    functions: dict[str, list[str]] = {}
    for _, name, parameters in _DECLARATION.findall(text):
        # math_functions.h's `_`/`__` names are glibc's and MSVC's internals; device_functions.h's `__`
        # names are the documented intrinsics (its `__nv_` and `___` ones internal again)
        internal = name.startswith("_") if header == "math_functions.h" else (
            not name.startswith("__") and name.startswith("_")) or name.startswith(("__nv", "___"))
        if name in functions or internal:
            continue
        types = []
        for parameter in (p.strip() for p in parameters.split(",")):
            if parameter and parameter != "void":
                types.append(re.sub(r"(?<=[\s*])\w+$", "", parameter).replace("const ", "").strip())
        functions[name] = types
    return functions


def call(name: str, types: list[str]) -> str:
    arguments = ", ".join(f"({t})nullptr" if "*" in t else f"({t})1" for t in types)
    return f"  {name}({arguments});"


@pytest.mark.parametrize("header", AUDITED_HEADERS)
def test_documented_device_functions_are_mapped_provided_or_reported(header: str, cassc, tmp_path: Path) -> None:
    functions = documented_functions(header)
    assert len(functions) > 50
    names = list(functions)
    stderr = ""
    for start in range(0, len(names), CALLS_PER_UNIT):  # clang stops after 20 errors in one unit
        lines = [call(name, functions[name]) for name in names[start:start + CALLS_PER_UNIT]]
        write(tmp_path / f"audit{start}.cu", "\n".join(
            ["#include <cuda_runtime.h>", "__global__ void audit() {", *lines, "}"]) + "\n")
        stderr += cassc("-c", f"audit{start}.cu", check=False).stderr
    failing = set(_UNDECLARED.findall(stderr))
    other = [line for line in stderr.splitlines() if "error:" in line and not _UNDECLARED.search(line)]
    assert not other, "\n".join(other)
    rows = audit_rows()
    expected = {name for name in functions if rows.get(name) == "unsupported"}
    assert failing == expected, f"not compiling but not listed: {failing - expected}; listed but compiling: {expected - failing}"
    for name in failing:  # the message names the function and where the user called it
        assert re.search(rf"audit\d+\.cu:\d+:\d+: error: [^\n]*'{name}'", stderr)
