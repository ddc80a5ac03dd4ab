"""CUDA's documented device functions, read from CUDA 13's own headers, and the programs that check
them: a compile audit (each function called once) and a semantics audit (each pure arithmetic
intrinsic, CUDA's `CUDA_MATH_INTRINSIC_*` doc groups, over a fixed set of arguments; the same source
compiled by nvcc and run on an NVIDIA GPU gives the reference, `device_intrinsics_nvcc.tsv`).

`python tests/device_audit.py source > audit.cu` writes the semantics program; on a machine with
nvcc and an NVIDIA GPU, `nvcc -arch=sm_90 audit.cu -o audit && ./audit` prints the reference lines.
"""

from __future__ import annotations

import itertools
import re
import struct
import sys
from dataclasses import dataclass
from pathlib import Path

CUDA_INCLUDE = Path("/usr/local/cuda/include")
# The headers of CUDA's device function API (cuda_runtime.h includes them all for device code).
HEADERS = ("crt/math_functions.h", "crt/device_functions.h", "crt/device_double_functions.h",
           "sm_20_intrinsics.h", "sm_30_intrinsics.h", "sm_32_intrinsics.h", "sm_61_intrinsics.h",
           "crt/sm_70_rt.h", "crt/sm_80_rt.h", "crt/sm_90_rt.h", "crt/sm_100_rt.h")
_DECLARATION = re.compile(
    r"(?:__DEVICE_FUNCTIONS_DECL__|__DEVICE_HOST_FUNCTIONS_STATIC_DECL__|__SM_\d+_(?:INTRINSICS|RT)_DECL__|__DEVICE_DOUBLE_FUNCTIONS_DECL__"
    r"|__MATH_FUNCTIONS_DECL__|extern\s+__device__)\s+(?:__device_builtin__\s+|__cudart_builtin__\s+)?"
    r"(?:__DEPRECATED__\((?:[^()]|\([^()]*\))*\)\s*)?([\w\s*]+?)\s*\b(\w+)\s*\(([^()]*)\)\s*(?:__THROW\s*)?"
    r"(?:__DEF_IF_HOST|;)")
_DOC = re.compile(r"/\*\*((?:(?!\*/).)*)\*/\s*$", re.DOTALL)
# A compiler-conditional attribute between a declaration's macro and its type (`__trap`'s noreturn):
# `#if defined(__GNUC__) ... __attribute__((__noreturn__)) #elif ... __declspec(noreturn) #endif`.
_CONDITIONAL_ATTRIBUTE = re.compile(r"^[ \t]*#[ \t]*if[^\n]*\n(?:[ \t]*(?:__attribute__\(\([^\n]*\)\)|__declspec\([^\n]*\)"
                                    r"|#[ \t]*elif[^\n]*)[ \t]*\n)+[ \t]*#[ \t]*endif[^\n]*\n", re.MULTILINE)


@dataclass(frozen=True)
class Function:
    name: str
    header: str
    result: str
    parameters: tuple[str, ...]  # types, defaults and names removed
    doc: str  # the doc comment before the first declaration

    @property
    def pure_intrinsic(self) -> bool:
        """An arithmetic intrinsic of CUDA's math API (a value of its arguments, nothing else)."""
        return "CUDA_MATH_INTRINSIC_" in self.doc

    @property
    def approximate(self) -> bool:
        """CUDA documents its result as an approximation (fast-math intrinsics): not bit-compared."""
        return "approximat" in self.doc.lower() or "fast" in self.doc.lower()


def _internal(name: str, header: str, parameters: str) -> bool:
    if header == "crt/math_functions.h":  # its `_`/`__` names are glibc's and MSVC's internals
        return name.startswith("_")
    # `__nv*`, `___*`, `__cuda*` are the toolkit's own; the double functions taking cudaRoundMode
    # are device_double_functions.h's internal forms behind the documented `__d*_r*` names
    return (name.startswith("_") and not name.startswith("__")) or name.startswith(("__nv", "___", "__cuda")) \
        or "cudaRoundMode" in parameters


def _parameter_types(parameters: str) -> tuple[str, ...]:
    types = []
    for parameter in (p.split("=")[0].strip() for p in parameters.split(",")):
        if parameter and parameter != "void":
            types.append(re.sub(r"(?<=[\s*&])\w+$", "", parameter).replace("const ", "").strip())
    return tuple(types)


def documented_functions(header: str) -> dict[str, Function]:
    """Public device function -> its first declaration in `header` (overloads beyond the first not listed)."""
    raw = _CONDITIONAL_ATTRIBUTE.sub("", (CUDA_INCLUDE / header).read_text())
    functions: dict[str, Function] = {}
    for match in _DECLARATION.finditer(raw):
        result, name, parameters = match.groups()
        before = raw[:match.start()]
        if name in functions or _internal(name, header, parameters) or before.rfind("/*") > before.rfind("*/"):
            continue  # repeated overload, internal name, or text inside a comment
        doc = _DOC.search(before[-4000:])
        functions[name] = Function(name, header, " ".join(result.split()), _parameter_types(parameters),
                                   doc.group(1) if doc else "")
    return functions


def all_documented_functions() -> dict[str, Function]:
    """Every header's functions, each name once (the first header that declares it)."""
    functions: dict[str, Function] = {}
    for header in HEADERS:
        for name, function in documented_functions(header).items():
            functions.setdefault(name, function)
    return functions


# ------------------------------------------------------------------------------------------------
# The semantics audit: each pure intrinsic over every combination of a few arguments.

_INTEGERS = {"int": 32, "unsigned int": 32, "unsigned": 32, "long long int": 64, "long long": 64,
             "unsigned long long int": 64, "unsigned long long": 64, "short": 16, "unsigned short": 16}
_WORDS32 = (0x00000000, 0x00000001, 0xFFFFFFFF, 0x7FFF7FFF, 0x80008000, 0x12345678, 0xDEADBEEF, 0x7F80FF01,
            0x01FF807F, 0x80017FFF)
_WORDS64 = (0, 1, 0xFFFFFFFFFFFFFFFF, 0x7FFFFFFFFFFFFFFF, 0x8000000000000000, 0x123456789ABCDEF0, 0x00000000FFFFFFFF)
# hexadecimal literals: compilers differ in rounding some decimal ones (nvcc reads 16777217.0f as 16777218)
_FLOATS = ("0.0f", "-0.0f", "1.0f", "-1.0f", "3.0f", "0x1.555556p-2f", "0x1.000002p+0f", "0x1.93e594p+99f",
           "-0x1.c363ccp+127f", "0x1p-126f", "0x1p-140f", "-2.5f", "0x1.99999ap-4f", "0x1.000002p+24f",
           "__int_as_float(0x7f800000)")
_DOUBLES = ("0.0", "-0.0", "1.0", "-1.0", "3.0", "0x1.5555555555555p-2", "0x1.0000000000001p+0",
            "0x1.7e43c8800759cp+996", "-0x1.e42d130773b76p+1023", "0x1p-1022", "0x1p-1070", "-2.5",
            "0x1.999999999999ap-4", "0x1.0000000000001p+53", "__longlong_as_double(0x7ff0000000000000)")
# more arguments make the cases a product; fewer values for them keep the program small
_VALUES_PER_ARITY = {1: 15, 2: 10, 3: 5}


def _values(type_: str, count: int) -> list[str]:
    if type_ == "float":
        return list(_FLOATS[:count])
    if type_ == "double":
        return list(_DOUBLES[:count])
    bits = _INTEGERS[type_]
    words = _WORDS32 if bits <= 32 else _WORDS64
    mask = (1 << bits) - 1
    return [f"({type_}){word & mask:#x}ull" for word in words[:count]]  # two's complement for signed types


def semantic_cases(function: Function) -> list[tuple[str, ...]]:
    count = _VALUES_PER_ARITY.get(len(function.parameters), 0)
    return list(itertools.product(*(_values(t, count) for t in function.parameters)))


def checkable(function: Function) -> bool:
    scalar = set(_INTEGERS) | {"float", "double"}
    return (function.pure_intrinsic and not function.approximate and bool(function.parameters)
            and function.result in scalar and all(t in scalar for t in function.parameters))


CASES_PER_KERNEL = 400


def semantics_program(functions: list[Function]) -> tuple[str, list[tuple[str, int]]]:
    """A CUDA source whose kernels store each case's result bits (NaN canonical) into `out`, in order,
    and whose host code (nvcc side) prints `name<TAB>cases<TAB>digest` per function; and the
    (function, number of cases) list in output order."""
    calls: list[str] = []
    order: list[tuple[str, int]] = []
    for function in functions:
        cases = semantic_cases(function)
        order.append((function.name, len(cases)))
        calls += [f"__cassc_audit_bits({function.name}({', '.join(f'__cassc_opaque({a})' for a in case)}))"
                  for case in cases]
    kernels = []
    for index, start in enumerate(range(0, len(calls), CASES_PER_KERNEL)):
        body = "\n".join(f"  ((volatile unsigned long long*)out)[{start + i}] = {call};" for i, call in enumerate(calls[start:start + CASES_PER_KERNEL]))
        kernels.append(f"__global__ void audit{index}(unsigned long long* out) {{\n{body}\n}}")
    launches = "\n".join(f"  audit{i}<<<1, 1>>>(device);" for i in range(len(kernels)))
    names = ", ".join(f'"{name}"' for name, _ in order)
    counts = ", ".join(str(count) for _, count in order)
    source = f"""#include <cuda_runtime.h>
#include <stdio.h>
__device__ unsigned long long __cassc_audit_bits(float v) {{ return v != v ? 0x7fc00000ull : __float_as_uint(v); }}
__device__ unsigned long long __cassc_audit_bits(double v) {{
  return v != v ? 0x7ff8000000000000ull : (unsigned long long)__double_as_longlong(v);
}}
__device__ unsigned long long __cassc_audit_bits(int v) {{ return (unsigned int)v; }}
__device__ unsigned long long __cassc_audit_bits(unsigned int v) {{ return v; }}
__device__ unsigned long long __cassc_audit_bits(long long v) {{ return (unsigned long long)v; }}
__device__ unsigned long long __cassc_audit_bits(unsigned long long v) {{ return v; }}
#if defined(__CUDA_ARCH__) && !defined(__HIP__)
/* nvcc: arguments the compiler cannot see, so the GPU computes every result */
__device__ float __cassc_opaque(float v) {{ asm volatile("" : "+f"(v)); return v; }}
__device__ double __cassc_opaque(double v) {{ asm volatile("" : "+d"(v)); return v; }}
__device__ int __cassc_opaque(int v) {{ asm volatile("" : "+r"(v)); return v; }}
__device__ unsigned int __cassc_opaque(unsigned int v) {{ asm volatile("" : "+r"(v)); return v; }}
__device__ long long __cassc_opaque(long long v) {{ asm volatile("" : "+l"(v)); return v; }}
__device__ unsigned long long __cassc_opaque(unsigned long long v) {{ asm volatile("" : "+l"(v)); return v; }}
#else
#define __cassc_opaque(v) (v)
#endif
{chr(10).join(kernels)}
#if !defined(__HIP__)
int main() {{
  const char* names[] = {{{names}}};
  const int counts[] = {{{counts}}};
  const int total = {len(calls)};
  unsigned long long* device;
  static unsigned long long host[{len(calls)}];
  cudaMalloc(&device, sizeof host);
{launches}
  if (cudaMemcpy(host, device, sizeof host, cudaMemcpyDeviceToHost) != cudaSuccess) return 1;
  int at = 0;
  for (int f = 0; f < (int)(sizeof counts / sizeof counts[0]); ++f) {{
    unsigned long long digest = 1469598103934665603ull;
    for (int i = 0; i < counts[f]; ++i, ++at) {{
      for (int byte = 0; byte < 8; ++byte) digest = (digest ^ ((host[at] >> (8 * byte)) & 0xff)) * 1099511628211ull;
      fprintf(stderr, "%s\\t%d\\t%016llx\\n", names[f], i, host[at]);
    }}
    printf("%s\\t%d\\t%016llx\\n", names[f], counts[f], digest);
  }}
  return at == total ? 0 : 1;
}}
#endif
"""
    return source, order


def digest(values: list[int]) -> str:
    """FNV-1a over each value's 8 little-endian bytes, as the program's host code computes it."""
    state = 1469598103934665603
    for value in values:
        for byte in struct.pack("<Q", value & (2**64 - 1)):
            state = ((state ^ byte) * 1099511628211) % 2**64
    return f"{state:016x}"


def semantic_functions() -> list[Function]:
    return [f for f in all_documented_functions().values() if checkable(f)]


if __name__ == "__main__" and sys.argv[1:] == ["source"]:
    print(semantics_program(semantic_functions())[0])
