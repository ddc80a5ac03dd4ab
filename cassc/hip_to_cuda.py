"""`--cassc-target=nvidia`: cassc's HIP output compiled by NVIDIA's nvcc, to run it on an NVIDIA GPU.

This is how a translation is checked where no AMD GPU exists: the same hipified sources that clang
compiles for gfx1100 are compiled by nvcc through the hip-to-cuda header set, and the program is run and
compared with the CUDA original (benchmarks/hecbench_verify.py). HIP's own `nvidia_detail` headers do
not compile with CUDA 13, so the set is cassc's own, generated from the hipify tables themselves:

    cassc_hip_names.h      every rename of the identifier tables, inverted: `#define hipMalloc cudaMalloc`;
                           member-calls.tsv's receiver wrappers as the objects themselves
    hip_to_cuda.h          the hand-written part (cassc/data/hip_to_cuda.h): CUDA's runtime, the names,
                           and the HIP builtins that inline-ptx.tsv's rules produce; pre-included
    <HIP header>           one per HIP header headers.tsv names (hip/hip_runtime.h, hiprand/..., cassc/...):
                           the set's header, then the CUDA headers that map to it

It lives in `<data dir>/hip-to-cuda/<key>`, keyed by the tables and this module, built whole under a
temporary name and renamed into place. The nvcc command is the user's own, with each CUDA and C++
source replaced by its hipified mirror and the set's directory and mirror include dirs put first.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from cassc import __version__, locations
from cassc.cache import digest
from cassc.errors import ToolchainError
from cassc.hipify.tables import (HEADER_MACRO_TABLE, HEADER_TABLE, INLINE_PTX_TABLE, LINK_LIBRARY_TABLE,
                                 MEMBER_CALL_TABLE, PACKAGE_TABLE, TABLE_DIR, USER_OVERLOAD_TABLE, load_tables,
                                 read_table)
from cassc.hipify.tree import hipify_unit
from cassc.invocation import InputKind, Invocation, cassc_free_words
from cassc.toolchain import run

HAND_WRITTEN_HEADER = Path(__file__).parent / "data" / "hip_to_cuda.h"
# inline PTX's target-free helpers, the same file on both targets (hip_to_cuda.h includes it from the set)
PTX_REGISTERS_HEADER = "cassc/ptx_registers.h"
PRE_INCLUDE = "hip_to_cuda.h"  # the hand-written header's name in the set
NAMES_HEADER = "cassc_hip_names.h"
# Identifier tables, in the order that picks the CUDA name when several map to one HIP name: the runtime
# API over the driver API (cuMemAlloc and cudaMalloc are both hipMalloc; code calling hipMalloc was
# written against the runtime's signature far more often).
IDENTIFIER_TABLES = ("compat.tsv", "runtime.tsv", "types.tsv", "libraries.tsv", "cublas.tsv", "cublasLt.tsv",
                     "cufft.tsv", "cusolver.tsv", "namespaces.tsv", "driver.tsv")
NON_IDENTIFIER_TABLES = (HEADER_TABLE, LINK_LIBRARY_TABLE, PACKAGE_TABLE, INLINE_PTX_TABLE, MEMBER_CALL_TABLE,
                         HEADER_MACRO_TABLE, USER_OVERLOAD_TABLE)
# Where two CUDA names of one table map to one HIP name and the first in byte order is the narrower:
# hipHostMalloc's flags are optional, as only cudaMallocHost's (C++ overload) are; cublasStatus is only
# a macro of the legacy cublas.h, which a cublas_v2.h program does not include.
PREFERRED_CUDA_NAMES = {"hipHostMalloc": "cudaMallocHost", "hipblasStatus_t": "cublasStatus_t"}
# A HIP name becomes a macro only when it is HIP's own: a few rows map to a name CUDA itself declares
# (CUtexref_st -> textureReference), and a macro would rename CUDA's declaration too.
HIP_OWN_NAME = re.compile(r"(?:__cassc_|__CASSC_|ihip|make_hip|hip|HIP)\w*")
# CUDA 13 headers that headers.tsv still maps but that CUDA 13 only warns about or no longer has:
# included directly they print a deprecation warning on every unit (or fail); cuda_runtime.h, which
# every generated header includes first, brings what they declared. cublas_api.h stops unless the
# header that includes it (cublas_v2.h, mapped to the same HIP header) defined CUBLASAPI first.
INTERNAL_CUDA_HEADERS = frozenset({
    "common_functions.h", "device_double_functions.h", "device_functions.h", "host_defines.h",
    "math_functions.h", "cuda_texture_types.h", "texture_fetch_functions.h", "cublas_api.h",
})
# CUDA headers that include another library's header: included only where that library is installed
# (a machine without OpenGL headers has cuda_gl_interop.h, which then does not compile).
CUDA_HEADER_PREREQUISITES = {"cuda_gl_interop.h": "GL/gl.h"}
SOURCE_INPUTS = (InputKind.CUDA, InputKind.CXX)


def inverted_names(table_dir: Path = TABLE_DIR) -> dict[str, str]:
    """HIP name -> the CUDA name it came from, for every identifier the tables produce that is HIP's own."""
    names: dict[str, str] = {}
    for table in IDENTIFIER_TABLES:
        for cuda, hip, _ in read_table(table_dir / table):
            if cuda != hip and HIP_OWN_NAME.fullmatch(hip):
                names.setdefault(hip, cuda)
    return names | {hip: cuda for hip, cuda in PREFERRED_CUDA_NAMES.items() if hip in names}


def identifier_table_names(table_dir: Path = TABLE_DIR) -> list[str]:
    """Every identifier table: the ones above plus any added later (which then must be listed above)."""
    return sorted(p.name for p in table_dir.glob("*.tsv") if p.name not in NON_IDENTIFIER_TABLES)


def header_set(table_dir: Path = TABLE_DIR) -> dict[str, str]:
    """The generated files of the set: relative path -> text."""
    names = inverted_names(table_dir)
    lines = ["/* Generated by cassc/hip_to_cuda.py from cassc/hipify/tables: HIP names -> CUDA names. */",
             "#pragma once"]
    lines += [f"#define {hip} {cuda}" for hip, cuda in sorted(names.items())]
    # member_calls.py wrapped the receiver of `x.member(args)`: on CUDA the wrapper is the object itself.
    lines += ["#if defined(__CUDACC__) && defined(__cplusplus)"]
    lines += [f"template <typename T> __host__ __device__ inline auto {wrapper}(T&& object) -> T&& "
              "{ return static_cast<T&&>(object); }"
              for wrapper in dict.fromkeys(wrapper for _, wrapper, _ in read_table(table_dir / MEMBER_CALL_TABLE))]
    lines += ["#endif"]
    files = {NAMES_HEADER: "\n".join(lines) + "\n", PRE_INCLUDE: HAND_WRITTEN_HEADER.read_text(),
             PTX_REGISTERS_HEADER: (HAND_WRITTEN_HEADER.parent / "include" / PTX_REGISTERS_HEADER).read_text()}
    cuda_headers: dict[str, list[str]] = {}
    for cuda, hip, _ in read_table(table_dir / HEADER_TABLE):
        cuda_headers.setdefault(hip, [])
        if cuda not in INTERNAL_CUDA_HEADERS:
            cuda_headers[hip].append(cuda)
    for hip, all_cudas in sorted(cuda_headers.items()):
        twin = twin_header(hip, all_cudas)
        cudas = [twin, *[c for c in all_cudas if c != twin]] if twin else all_cudas
        # CUDA libraries (cuRAND, cuSPARSE) may be absent: the original then fails to build the same way.
        body = [f"#if {' && '.join(f'__has_include(<{h}>)' for h in (c, *prerequisites(c)))}\n#include <{c}>\n#endif"
                for c in cudas]
        relative_set_root = "../" * hip.count("/")
        files[hip] = "\n".join(["/* Generated by cassc/hip_to_cuda.py from headers.tsv. */", "#pragma once",
                                f'#include "{relative_set_root}{PRE_INCLUDE}"', *body]) + "\n"
    return files


def prerequisites(cuda_header: str) -> tuple[str, ...]:
    required = CUDA_HEADER_PREREQUISITES.get(cuda_header)
    return (required,) if required else ()


def twin_header(hip_header: str, cuda_headers: list[str]) -> str | None:
    """The CUDA header named as the HIP one (hip_runtime.h: cuda_runtime.h, hiprand_kernel.h:
    curand_kernel.h), included first: it includes most others that map to the same HIP header, some
    of which (e.g. curand_discrete.h) do not compile on their own."""
    stem = Path(hip_header).name
    names = {stem.replace("hip", "cuda", 1), stem.replace("hip", "cu", 1)}
    return next((c for c in cuda_headers if c in names), None)


def _set_key(table_dir: Path) -> str:
    parts: list[str | bytes] = ["hip-to-cuda", __version__, Path(__file__).read_bytes(),
                                HAND_WRITTEN_HEADER.read_bytes(),
                                (HAND_WRITTEN_HEADER.parent / "include" / PTX_REGISTERS_HEADER).read_bytes()]
    for path in sorted(table_dir.glob("*.tsv")):
        parts += [path.name, path.read_bytes()]
    return digest(*parts)[:20]


def ensure_header_set(table_dir: Path = TABLE_DIR) -> Path:
    """The header set's include directory, written on first use (cheap when it is there)."""
    root = locations.data_dir() / "hip-to-cuda" / _set_key(table_dir)
    if (root / NAMES_HEADER).is_file():
        return root
    root.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".building-", dir=root.parent))
    for relative, text in header_set(table_dir).items():
        (staging / relative).parent.mkdir(parents=True, exist_ok=True)
        (staging / relative).write_text(text)
    try:
        staging.rename(root)
    except OSError:  # another cassc built it meanwhile
        shutil.rmtree(staging, ignore_errors=True)
    return root


def find_nvcc(env: Mapping[str, str]) -> str:
    """NVIDIA's nvcc: $CASSC_NVCC, else $CUDA_HOME/bin/nvcc, else /usr/local/cuda/bin/nvcc. Never PATH's
    `nvcc` nor the stand-in toolkit's (`eval "$(cassc env)"` sets CUDA_HOME to it): both are cassc."""
    candidates = [env.get("CASSC_NVCC", ""), f"{env['CUDA_HOME']}/bin/nvcc" if env.get("CUDA_HOME") else "",
                  "/usr/local/cuda/bin/nvcc"]
    own_data = locations.data_dir().resolve()
    for candidate in candidates:
        if candidate and os.access(candidate, os.X_OK) and not Path(candidate).resolve().is_relative_to(own_data):
            return candidate
    raise ToolchainError("--cassc-target=nvidia needs NVIDIA's nvcc: set CASSC_NVCC or CUDA_HOME, or install "
                         "CUDA in /usr/local/cuda")


def nvcc_command(nvcc: str, words: Sequence[str], replacements: Mapping[int, str], include_dirs: Sequence[str],
                 set_root: Path, cuda_sources: bool) -> list[str]:
    """The user's nvcc words with the sources at `replacements`' positions swapped for their mirrors,
    after the set and the mirror include dirs. With no source to translate (a link), the words alone.
    nvcc includes cuda_runtime.h in CUDA sources only, so the set's pre-include goes with `cuda_sources`:
    a C++ file nvcc hands to the host compiler may declare its own uchar4. Such a file gets the names alone
    (macros, no declarations): hipify renamed CUDA names it declares or calls without a CUDA header (`extern "C"
    char cufftPlan1d();`, as autoconf's library checks write), and NVIDIA's libraries define only those."""
    replaced = [replacements.get(index, word) for index, word in enumerate(words)]
    if not replacements:
        return [nvcc, *replaced]
    pre_include = ["-include", str(set_root / (PRE_INCLUDE if cuda_sources else NAMES_HEADER))]
    return [nvcc, f"-I{set_root}", *[f"-I{d}" for d in include_dirs], *pre_include, *replaced]


def execute_for_nvidia(inv: Invocation, argv: Sequence[str], env: Mapping[str, str]) -> int:
    """Hipify the command's CUDA and C++ sources, then run NVIDIA's nvcc on the user's own command line."""
    words, input_positions = cassc_free_words(argv, env)
    set_root = ensure_header_set()
    nvcc = find_nvcc(env)
    keep_root = Path(inv.keep_dir or ".") if inv.keep else None
    if keep_root:
        keep_root.mkdir(parents=True, exist_ok=True)
    work_dir = Path(tempfile.mkdtemp(prefix="cassc-nvidia-", dir=keep_root))
    try:
        replacements: dict[int, str] = {}
        include_dirs: list[str] = []
        cuda_sources = False
        sources = {str(i.path): i for i in inv.inputs if i.kind in SOURCE_INPUTS}
        for position in input_positions:
            source = sources.get(words[position])
            if source is None:
                continue
            unit = hipify_unit(source.path, mirror_root=work_dir / "mirror", tables=load_tables(),
                               include_dirs=inv.include_dirs, system_include_dirs=inv.system_include_dirs,
                               pre_includes=())
            replacements[position] = str(unit.main)
            cuda_sources = cuda_sources or source.kind == InputKind.CUDA
            include_dirs += [d for d in unit.include_dirs + unit.system_include_dirs
                             if d.startswith(str(work_dir)) and d not in include_dirs]
        command = nvcc_command(nvcc, words, replacements, include_dirs, set_root, cuda_sources)
        if inv.verbose or inv.dryrun:
            print("#$ " + " ".join(command), file=sys.stderr)
        if inv.dryrun:
            return 0
        # nvcc would read NVCC_PREPEND_FLAGS/NVCC_APPEND_FLAGS again: they are already in `words`.
        return run(command, env={"NVCC_PREPEND_FLAGS": "", "NVCC_APPEND_FLAGS": ""}, check=False,
                   capture=False).returncode
    finally:
        if not inv.keep:
            shutil.rmtree(work_dir, ignore_errors=True)

