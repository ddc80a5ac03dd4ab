"""The CUDA API audit, from CUDA's own declarations rather than one program at a time.

Device: every documented function of CUDA 13's device headers (device_audit.HEADERS: math_functions.h,
device_functions.h, device_double_functions.h, sm_*_intrinsics.h, sm_*_rt.h) is called in a kernel
compiled by cassc for gfx1100; what does not compile must be an `unsupported` row of api_audit.tsv, and
what cassc itself provides (`provided` rows) must compile. Every exact arithmetic intrinsic must compute
what nvcc's code computes on an NVIDIA GPU (device_intrinsics_nvcc.tsv), read from the gfx1100 device
code with constant arguments, which LLVM folds.
Host: the C++ overloads of cuda_runtime.h, cudaDeviceProp's fields, elaborated CUDA type names."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from conftest import write
from device_audit import (CUDA_INCLUDE, HEADERS, Function, all_documented_functions, digest,
                          semantic_functions, semantics_program)

pytestmark = pytest.mark.skipif(not (CUDA_INCLUDE / "crt").is_dir(), reason="CUDA's headers are not installed")
AUDIT = Path(__file__).parent / "api_audit.tsv"
NVCC_RESULTS = Path(__file__).parent / "device_intrinsics_nvcc.tsv"
CALLS_PER_UNIT = 15
_UNDECLARED = re.compile(r"error: (?:use of undeclared identifier|no matching function for call to|reference to __host__ function) '(\w+)'")
_SCALAR_WORDS = {"unsigned", "signed", "short", "int", "long", "char", "float", "double", "bool"}


def audit_rows() -> dict[str, str]:
    rows = [line.split("\t") for line in AUDIT.read_text().splitlines() if line and not line.startswith("#")]
    return {name: status for name, status, _ in rows}


def call(function: Function) -> str:
    arguments = []
    for type_ in function.parameters:
        if "*" in type_:
            arguments.append(f"({type_})nullptr")
        elif set(type_.split()) <= _SCALAR_WORDS:
            arguments.append(f"({type_})1")
        else:  # vector types (char4, float2...)
            arguments.append(f"{type_}{{}}")
    return f"  {function.name}({', '.join(arguments)});"


@pytest.mark.parametrize("header", HEADERS)
def test_documented_device_functions_are_mapped_provided_or_reported(header: str, cassc, tmp_path: Path) -> None:
    functions = {name: f for name, f in all_documented_functions().items() if f.header == header}
    assert functions, f"no function read from {header}"
    names = list(functions)
    stderr = ""
    for start in range(0, len(names), CALLS_PER_UNIT):  # clang stops after 20 errors in one unit
        lines = [call(functions[name]) for name in names[start:start + CALLS_PER_UNIT]]
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


_KERNEL = re.compile(r"define [^@]*@_Z\d+audit(\d+)Py\(ptr addrspace\(1\)[^%]*(%\w+)\)")
_GEP = re.compile(r"(%\w+) = getelementptr (?:inbounds )?(?:nuw )?(i8|i64), ptr addrspace\(1\) (%\w+), i64 (\d+)")
_CAST = re.compile(r"(%\w+) = addrspacecast ptr addrspace\(1\) (%\w+) to ptr")
_STORE = re.compile(r"store volatile i64 (\S+), ptr(?: addrspace\(1\))? (%\w+)")


def folded_results(ir: str) -> dict[int, int | None]:
    """Case index -> the constant its volatile store writes (None: not folded to a constant)."""
    results: dict[int, int | None] = {}
    for match in _KERNEL.finditer(ir):
        body = ir[match.end():ir.index("\n}\n", match.end())]
        offsets = {match.group(2): 0}
        for name, kind, base, number in _GEP.findall(body):
            offsets[name] = offsets[base] + int(number) * (8 if kind == "i64" else 1)
        for name, source in _CAST.findall(body):
            offsets[name] = offsets[source]
        for value, target in _STORE.findall(body):  # each kernel stores at the cases' own indices
            results[offsets[target] // 8] = int(value) % 2**64 if re.fullmatch(r"-?\d+", value) else None
    return results


def device_ir(cassc, source: str, tmp_path: Path) -> str:
    """The optimized gfx1100 LLVM IR of a unit: what --keep keeps of it, as nvcc keeps its PTX."""
    cassc("--keep", "--keep-dir", str(tmp_path / "keep"), "-c", source)
    return next((tmp_path / "keep").rglob("*-gfx1100.ll")).read_text()


def test_documented_intrinsics_compute_what_nvcc_computes(cassc, tmp_path: Path) -> None:
    reference = {name: (int(count), value) for name, count, value in
                 (line.split("\t") for line in NVCC_RESULTS.read_text().splitlines() if line and not line.startswith("#"))}
    functions = semantic_functions()
    source, order = semantics_program(functions)
    assert {name for name, _ in order} == set(reference), "device_intrinsics_nvcc.tsv is from another case list"
    write(tmp_path / "semantics.cu", source)
    results = folded_results(device_ir(cassc, "semantics.cu", tmp_path))
    rows = audit_rows()
    differing, unfolded, at = [], set(), 0
    for name, count in order:
        values = [results.get(at + i) for i in range(count)]
        at += count
        if None in values:
            unfolded.add(name)
        elif (count, digest(values)) != reference[name]:  # type: ignore[arg-type]
            differing.append(name)
    assert not differing, f"computing something else than nvcc's code: {differing}"
    # what LLVM cannot fold (calls into the device libraries it does not evaluate) cannot be read here
    expected = {name for name, _ in order if rows.get(name) == "unverified"}
    assert unfolded == expected, f"not folded but not listed: {unfolded - expected}; listed but folded: {expected - unfolded}"


# ------------------------------------------------------------------------------------------------
# The C++ overloads CUDA's cuda_runtime.h declares (templates taking typed pointers, kernels, symbols;
# extra-argument forms): each called once in host code compiled by cassc.

RUNTIME_HEADER = Path("/usr/local/cuda/include/cuda_runtime.h")
_OVERLOAD = re.compile(r"(template\s*<[^>]*>\s*)?(?:static\s+)?(?:__inline__|inline)\s+__host__\s+(?:CUDART_DEVICE\s+)?"
                       r"[\w\s*]+?\b(cuda\w+)\s*\(((?:[^()]|\([^()]*\))*)\)\s*\{")
_OVERLOAD_PRELUDE = """#include <cuda_runtime.h>
__global__ void kernel(int) {}
__device__ float symbol;
float* typed;
"""


def runtime_overloads() -> list[tuple[str, str]]:
    """(CUDA name, a call of the overload with arguments of its parameter types), each overload once."""
    text = re.sub(r"/\*.*?\*/|//[^\n]*", "", RUNTIME_HEADER.read_text(), flags=re.DOTALL)
    calls = []
    for template, name, parameters in _OVERLOAD.findall(text):
        arguments = [_overload_argument(p.split("=")[0].strip()) for p in _split_parameters(parameters)]
        calls.append((name, f"{name}({', '.join(a for a in arguments if a is not None)});"))
    return calls


def _split_parameters(parameters: str) -> list[str]:
    parts, depth, current = [], 0, ""
    for char in parameters:
        depth += (char == "(") - (char == ")")
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    return [p.strip() for p in parts + [current] if p.strip() and p.strip() != "void"]


def _overload_argument(parameter: str) -> str | None:
    """An expression of the parameter's type: the kernel for a function (template or pointer), a
    `__device__` variable for a symbol, a typed pointer for `T*`/`T**`."""
    words = parameter.replace("*", " * ").replace("&", " & ").split()
    name, kind = words[-1], " ".join(words[:-1])
    if "(*" in parameter or name in ("func", "entry") or (name == "kernel" and kind == "T"):
        return "kernel"
    if "..." in parameter:
        return "1"
    if kind in ("const T &", "T &"):
        return "symbol"
    if kind in ("T * *", "U * *"):
        return "&typed"
    if kind in ("T *", "U *"):
        return "typed"
    if kind in ("T * const *", "U * const *"):
        return "(float* const*)nullptr"
    if kind == "UnaryFunction":
        return "[](int) -> size_t { return 0; }"
    if kind.endswith("*"):
        return f"({kind})nullptr"
    if kind == "dim3":
        return "dim3(1)"
    if kind.startswith("struct "):
        return f"{kind.removeprefix('struct ')}{{}}"
    return f"({kind.removeprefix('const ')})0"


def test_cuda_runtime_overloads_are_mapped_provided_or_reported(cassc, tmp_path: Path) -> None:
    calls = runtime_overloads()
    assert len(calls) > 40
    failing: dict[str, str] = {}
    for start in range(0, len(calls), CALLS_PER_UNIT):
        chunk = calls[start:start + CALLS_PER_UNIT]
        first_line = _OVERLOAD_PRELUDE.count("\n") + 2
        body = "\n".join(f"  {call}" for _, call in chunk)
        write(tmp_path / f"host{start}.cu", f"{_OVERLOAD_PRELUDE}void calls() {{\n{body}\n}}\n")
        stderr = cassc("-c", f"host{start}.cu", check=False).stderr
        for line in re.findall(rf"host{start}\.cu:(\d+):\d+: error: ", stderr):
            failing.setdefault(chunk[int(line) - first_line][0], f"host{start}.cu:{line}")
    rows = audit_rows()
    names = {name for name, _ in calls}
    expected = {name for name in names if rows.get(name) == "unsupported"}
    assert set(failing) == expected, f"not compiling but not listed: {set(failing) - expected} ({failing}); " \
                                     f"listed but compiling: {expected - set(failing)}"


def test_removed_runtime_functions_are_mapped_or_listed() -> None:
    """Every runtime function CUDA 13 removed (its generated_cudart_removed_meta.h) that old programs call
    is renamed by a table (HIP kept it, e.g. cudaThreadSynchronize) or an audit row says what it is."""
    from cassc.hipify.tables import load_tables
    removed = set(re.findall(r"\b(cuda[A-Z]\w*?)(?:_v\d+)?_params", (CUDA_INCLUDE / "generated_cudart_removed_meta.h").read_text()))
    removed = {name for name in removed if not name.endswith(("_ptsz", "_ptds"))}  # per-thread stream twins
    assert len(removed) > 30
    identifiers, rows = load_tables().identifiers, audit_rows()
    missing = sorted(name for name in removed if name not in identifiers and name not in rows)
    assert not missing, f"removed CUDA runtime functions neither renamed nor listed in api_audit.tsv: {missing}"


# ------------------------------------------------------------------------------------------------
# cudaDeviceProp: every field of CUDA 13's struct (driver_types.h) and of CUDA 12's, whose layout the
# binary path's runtime writes (shims/runtime/cassc_cudart.cpp's cassc_cuda12_device_prop: the fields CUDA
# 13 removed, clockRate, deviceOverlap, computeMode...) reads in a .cu (cassc) and in host code that g++
# compiles against the stand-in toolkit.

def _struct_fields(body: str) -> list[str]:
    body = re.sub(r"/\*.*?\*/|//[^\n]*", "", body, flags=re.DOTALL)
    fields = []
    for declaration in body.split(";"):
        match = re.fullmatch(r"\s*[\w\s]+?\s+(\w+\s*(?:\[[^\]]*\])*(?:\s*,\s*\w+\s*(?:\[[^\]]*\])*)*)\s*", declaration)
        if match:
            fields += [re.sub(r"\[.*", "", name).strip() for name in match.group(1).split(",")]
    return fields


def device_prop_fields() -> list[str]:
    cuda13 = re.search(r"struct __device_builtin__ cudaDeviceProp\s*\{(.*?)\n\};",
                       (CUDA_INCLUDE / "driver_types.h").read_text(), re.DOTALL)
    shim = (Path(__file__).parent.parent / "shims" / "runtime" / "cassc_cudart.cpp").read_text()
    cuda12 = re.search(r"struct cassc_cuda12_device_prop \{(.*?)\n\};", shim, re.DOTALL)
    assert cuda13 and cuda12
    return list(dict.fromkeys(_struct_fields(cuda13.group(1)) + _struct_fields(cuda12.group(1))))


def test_every_cuda_device_prop_field_reads(cassc, tmp_path: Path) -> None:
    fields = device_prop_fields()
    assert {"deviceOverlap", "clockRate", "memoryClockRate", "computeMode", "maxTexture2DLayered", "uuid"} <= set(fields)
    reads = "\n".join(f"  use(&prop.{field});" for field in fields)
    source = ("#include <cuda_runtime.h>\nvoid use(const void*);\n"
              f"int legacy(int device) {{\n  cudaDeviceProp prop;\n  cudaGetDeviceProperties(&prop, device);\n{reads}\n"
              "  struct cudaDeviceProp copy = prop;\n  return copy.deviceOverlap;\n}\n")
    write(tmp_path / "props.cu", source)
    cassc("-c", "props.cu")
    exports = dict(line.removeprefix("export ").split("=", 1) for line in cassc("env").stdout.splitlines())
    write(tmp_path / "props.cpp", source)
    subprocess.run(["g++", "-c", f"-I{exports['CUDA_PATH']}/include", "props.cpp"], cwd=tmp_path, check=True)


# ------------------------------------------------------------------------------------------------
# Elaborated type names: every CUDA struct or enum tag (`struct cudaGraphicsResource *`) that the tables rename
# names its HIP type in host code, where HIP's name is often a typedef of another tag.

def test_elaborated_cuda_type_names_compile(cassc, tmp_path: Path) -> None:
    from cassc.hipify.tables import load_tables
    identifiers = load_tables().identifiers
    text = "".join(path.read_text(errors="replace") for path in
                   (CUDA_INCLUDE / name for name in ("driver_types.h", "vector_types.h", "surface_types.h",
                                                     "texture_types.h", "cuda_runtime_api.h")))
    tags = sorted({(keyword, name) for keyword, name in
                   re.findall(r"\b(struct|enum)\s+(?:__device_builtin__\s+)?(cuda[A-Z]\w*)\s*\{", text) if name in identifiers})
    assert ("struct", "cudaGraphicsResource") in tags or ("struct", "cudaPitchedPtr") in tags
    declarations = "\n".join(f"{keyword} {name} *pointer{i};" for i, (keyword, name) in enumerate(tags))
    write(tmp_path / "tags.cu", f"#include <cuda_runtime.h>\n{declarations}\nstruct cudaGraphicsResource *resource;\n"
                                "size_t pitch(struct cudaPitchedPtr p) { return p.pitch; }\n")
    cassc("-c", "tags.cu")


# ------------------------------------------------------------------------------------------------
# OpenGL interop, including the calls CUDA deprecated that HIP never had.

def test_gl_interop_including_deprecated_calls_compiles(cassc, tmp_path: Path) -> None:
    write(tmp_path / "gl.cu", """#include <cuda_runtime.h>
#include <cuda_gl_interop.h>
cudaError_t share(GLuint buffer, void** pointer) {
  cudaGLSetGLDevice(0);
  cudaGLRegisterBufferObject(buffer);
  cudaGLSetBufferObjectMapFlags(buffer, cudaGLMapFlagsWriteDiscard);
  cudaGLMapBufferObject(pointer, buffer);
  cudaGLUnmapBufferObject(buffer);
  cudaGLUnregisterBufferObject(buffer);
  struct cudaGraphicsResource* resource;
  size_t size;
  cudaGraphicsGLRegisterBuffer(&resource, buffer, cudaGraphicsMapFlagsNone);
  cudaGraphicsMapResources(1, &resource, 0);
  cudaGraphicsResourceGetMappedPointer(pointer, &size, resource);
  return cudaGraphicsUnmapResources(1, &resource, 0);
}
""")
    cassc("-c", "gl.cu")


# ------------------------------------------------------------------------------------------------
# Cooperative groups: every public name of CUDA 13's headers (cg_audit.py) is HIP's, cassc's, or listed.

def test_cooperative_groups_public_names_are_mapped_provided_or_listed() -> None:
    from cassc.hipify.tables import COMPAT_INCLUDE_DIR
    from cassc.toolchain import find_toolchain
    from cg_audit import public_names
    names = public_names(CUDA_INCLUDE)
    assert {"thread_block_tile", "memcpy_async", "inclusive_scan", "block_tile_memory", "labeled_partition"} <= names
    hip = find_toolchain().hip_include_dir / "amd_detail" / "amd_hip_cooperative_groups.h"
    declared = hip.read_text() + "".join(p.read_text() for p in (COMPAT_INCLUDE_DIR / "cassc").glob("cooperative_groups*.h"))
    rows = audit_rows()
    missing = sorted(n for n in names if not re.search(rf"\b{n}\b", declared) and rows.get(n) != "unsupported")
    assert not missing, f"CUDA cooperative groups names neither HIP's nor cassc's nor listed: {missing}"


def test_cooperative_groups_copies_scans_and_tile_memory_compile(cassc, tmp_path: Path) -> None:
    write(tmp_path / "cg.cu", """#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cooperative_groups/scan.h>
namespace cg = cooperative_groups;
__global__ void stage(const int* in, int* out) {
  __shared__ cg::block_tile_memory<256> scratch;
  __shared__ int staged[256];
  cg::thread_block block = cg::this_thread_block(scratch);
  cg::memcpy_async(block, staged, in, sizeof(int) * 256);
  cg::memcpy_async(block, staged, 256, in, 128);
  cg::wait_prior<1>(block);
  cg::wait(block);
  cg::thread_block_tile<32, cg::thread_block> tile = cg::tiled_partition<32>(block);
  cg::thread_block_tile<8, cg::thread_block_tile<32, cg::thread_block>> quarter = cg::tiled_partition<8>(tile);
  cg::thread_block_tile<8> plain = quarter;
  int v = staged[block.thread_rank()] + plain.thread_rank();
  out[block.thread_rank()] = cg::inclusive_scan(tile, v) + cg::exclusive_scan(tile, v, cg::bit_or<int>());
}
""")
    cassc("-c", "cg.cu")
