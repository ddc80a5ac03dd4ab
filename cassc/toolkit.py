"""The stand-in CUDA toolkit: the tree that CMake, Makefiles and `eval "$(cassc env)"` take for a CUDA
install, built from `shims/` and the rename tables into cassc's data directory.

    bin/nvcc                         runs this cassc
    include/<CUDA header>            one per headers.tsv row: cassc_cuda.h (HIP runtime + CUDA names as
                                     macros, generated from the same tables hipify uses), then the HIP header
    lib64/libcudart.so.12            ELF libraries in which every CUDA entry point whose HIP twin
    lib64/libcuda.so.1                 libamdhip64 exports is a jump to it (runtime.tsv, driver.tsv)
    lib64/libcudart.so               linker scripts: the HIP runtime, plus the library above as needed
    lib64/stubs/libcuda.so, libcuda.so
    lib64/libcudart_static.a         a linker script: libcassc_cudart_jumps.a, the jumps as an archive (and
    lib64/libcassc_cudart_jumps.a      libomp as needed); libcudadevrt.a is empty (device code is linked
    lib64/libcudadevrt.a               by cassc's device link)
    lib64/lib<cuda library>.so       for each library of shims/toolkit/libraries.tsv: a link to the HIP library
    lib64/lib<cuda library>_static.a   link-libraries.tsv names, where it is installed; else a linker script
                                       that stops the link with "needs <ROCm package>" (CMake still configures)
    lib64/libcassc_cudart.a          the runtime of nvcc-built objects (the binary path): the shim
                                       (registration and launch ABI on HIP's module API) and an entry for
                                       every other CUDA runtime function (shims/runtime/cudart-api.tsv:
                                       a jump to its HIP twin, or CUDA's documented result)
    lib64/cassc-run/libcudart.so.N   the same runtime as NVIDIA's shared libcudart (soname and symbol
                                       version), finding `cassc translate`'s output by fatbin content
    lib64/cassc-run/libcuda.so.1     the driver NVIDIA's static runtime inside nvcc-built binaries reaches
                                       (shims/driver): cuGetProcAddress, its private export tables, fatbins
                                       loaded as the same translations, over HIP
    nvvm/libdevice/                  empty: CMake's toolkit probe requires it
    version.json, cmake/cassc-toolchain.cmake

Each install of cassc has its own link, `<data>/installs/<install id>/toolkit`, to `<data>/toolkits/<key>`:
a tree is built whole under a temporary name, renamed into place, and the link is switched with one
rename, so concurrent compiles never see a half-built toolkit. The key hashes everything the tree is
made from (the install included: its bin/nvcc runs that install's cassc) and which ROCm library packages
are installed; a changed cassc, Python, AMD toolchain, table, shim or set of installed ROCm libraries gets a
fresh tree while build directories configured against an older one keep working.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import sys
import tempfile
from pathlib import Path

from cassc import __version__, locations
from cassc.cache import digest
from cassc.errors import ToolchainError
from cassc.hipify.tables import COMPAT_INCLUDE_DIR, TABLE_DIR, header_macros, load_tables, read_rows, read_table
from cassc.nvcc_identity import CudaVersion, toolkit_root
from cassc.toolchain import Toolchain, package_hint, run

SHIMS_DIR = locations.resource_dir("shims")
CUDART_SONAME = "libcudart.so.12"
CUDA_DRIVER_SONAME = "libcuda.so.1"
CUDART_STATIC_ARCHIVE = "libcassc_cudart_jumps.a"
SHIM_RUNTIME = "libcassc_cudart.a"
# The binary path's runtime as NVIDIA's shared libcudart, for nvcc-built `-cudart shared` programs
# (LD_LIBRARY_PATH=<toolkit>/lib64/cassc-run): one per CUDA major those programs may have been built by.
SHARED_RUNTIME_DIR = "cassc-run"
NVIDIA_CUDART_MAJORS = (12, 13)
# Every CUDA runtime API function and what the shim runtime does for it (see the table's header).
CUDART_API_TABLE = SHIMS_DIR / "runtime" / "cudart-api.tsv"
# Every library a CUDA toolkit's lib64/ has that FindCUDAToolkit makes a CUDA:: target of, and its ROCm package.
TOOLKIT_LIBRARY_TABLE = SHIMS_DIR / "toolkit" / "libraries.tsv"
# CUDA libraries whose HIP library lacks a part of their API that programs still link by name (cuBLAS's
# legacy cublasInit...: configure scripts test for it): cassc's source of that part, in shims/toolkit/.
LEGACY_API_SHIMS = {"cublas": "cublas_legacy.cpp", "curand": "curand_legacy.cpp"}
NOT_SUPPORTED = 801  # cudaErrorNotSupported
PER_THREAD_SUFFIX = re.compile(r"_pt(sz|ds)$")
# HIP headers that declare only device functions and need a HIP compile; CUDA's counterparts declare
# only __device__ functions too, so a host compile loses nothing without them.
DEVICE_ONLY_HIP_HEADERS = frozenset({"hip/device_functions.h", "hip/math_functions.h"})
# The tables whose renames hold on the host; compat.tsv renames device intrinsics to cuda_compat.h's adapters.
HOST_NAME_TABLES = ("runtime.tsv", "driver.tsv", "types.tsv", "libraries.tsv", "cublas.tsv", "cublasLt.tsv",
                    "cufft.tsv", "cusolver.tsv")


def ensure_toolkit(toolchain: Toolchain) -> Path:
    """The toolkit tree for this cassc and toolchain, built on first use. Cheap when it is there:
    build systems call cassc once per file."""
    link = toolkit_root()
    built = locations.data_dir() / "toolkits" / _toolkit_key(toolchain)
    relative_target = os.path.relpath(built, link.parent)
    if _link_target(link) == relative_target:
        return link
    if not (built / "version.json").exists():
        _build_toolkit(built, toolchain)
    _point_link(link, relative_target)
    return link


def _link_target(link: Path) -> str | None:
    try:
        return os.readlink(link)
    except OSError:
        return None


def _toolkit_key(toolchain: Toolchain) -> str:
    from cassc.binary import driver_api  # generates the sources of cassc-run/libcuda.so.1

    sources = (sorted(SHIMS_DIR.rglob("*")) + sorted(TABLE_DIR.glob("*.tsv")) + sorted(COMPAT_INCLUDE_DIR.rglob("*"))
               + [Path(__file__), Path(driver_api.__file__)])
    parts: list[str | bytes] = ["toolkit", __version__, sys.executable, str(locations.PACKAGE_DIR),
                                str(CudaVersion.current()), toolchain.identity(), str(toolchain.hip_lib_dir)]
    # The ROCm packages installed now: a library or header package installed (or removed) later gets a tree
    # whose lib64/include use it instead of the "needs <package>" stand-in.
    libraries = {cuda: installed_cuda_library(toolchain, cuda, older) for cuda, _, _, older in read_rows(TOOLKIT_LIBRARY_TABLE)}
    parts += [f"{cuda}={path}" for cuda, path in libraries.items()]
    parts += [f"{cuda}: needs {package}" for cuda, package in missing_header_packages(toolchain).items()]
    for path in sources:
        if path.is_file():
            parts += [os.path.relpath(path, locations.PACKAGE_DIR), path.read_bytes()]
    return digest(*parts)[:20]


def _point_link(link: Path, relative_target: str) -> None:
    link.parent.mkdir(parents=True, exist_ok=True)
    staging = link.with_name(f".{link.name}.{os.getpid()}")
    staging.unlink(missing_ok=True)
    staging.symlink_to(relative_target)
    os.replace(staging, link)


def _build_toolkit(target: Path, toolchain: Toolchain) -> None:
    if not SHIMS_DIR.is_dir():
        raise ToolchainError(f"cassc's package lacks its shims ({SHIMS_DIR}): reinstall cassc from its wheel "
                             "or its checkout")
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    staging.chmod(0o755)  # mkdtemp's 0700 would hide the toolkit from other users of a shared data dir
    try:
        _write_bin(staging)
        _write_include(staging, toolchain)
        _write_lib64(staging, target, toolchain)
        (staging / "nvvm" / "libdevice").mkdir(parents=True)
        (staging / "cmake").mkdir()
        shutil.copyfile(SHIMS_DIR / "cmake" / "cassc-toolchain.cmake", staging / "cmake" / "cassc-toolchain.cmake")
        (staging / "version.json").write_text(version_json(CudaVersion.current()))
        try:
            staging.rename(target)
        except OSError:
            if not (target / "version.json").exists():  # lost a race to another cassc: theirs is as good
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def version_json(version: CudaVersion) -> str:
    """The toolkit's version.json, which FindCUDAToolkit reads (CUDA >= 11.1 installs have it)."""
    components = {"cuda": "CUDA SDK", "cuda_cudart": "CUDA Runtime (cudart)", "cuda_nvcc": "CUDA NVCC"}
    return json.dumps({name: {"name": title, "version": str(version)} for name, title in components.items()},
                      indent=3) + "\n"


def _write_bin(root: Path) -> None:
    """bin/nvcc runs the cassc that built the tree: its Python, its package first on the path; neither the
    caller's PYTHON* variables (-E) nor the caller's directory (-P, which `python -m` would search first)
    choose another."""
    nvcc = root / "bin" / "nvcc"
    nvcc.parent.mkdir()
    program = (f"import sys; sys.path.insert(0, {str(locations.PACKAGE_DIR.parent)!r}); "
               "from cassc.cli import main; sys.exit(main())")
    nvcc.write_text(f"#!/bin/sh\nexec {shlex.quote(sys.executable)} -E -P -c {shlex.quote(program)} \"$@\"\n")
    nvcc.chmod(0o755)


# ------------------------------------------------------------------------------------------------
# include/


def _write_include(root: Path, toolchain: Toolchain) -> None:
    include = root / "include"
    shutil.copytree(SHIMS_DIR / "include", include)
    shutil.copytree(COMPAT_INCLUDE_DIR, include, dirs_exist_ok=True)  # what headers.tsv maps to `cassc/...`
    # The shims include <hip/...>, <hiprand/...>, and HIP's headers <hsa/...>: in a ROCm install, outside
    # /usr/include, a host compiler given only -I$CUDA_PATH/include finds them here.
    rocm_include = toolchain.hip_include_dir.parent
    if rocm_include != Path("/usr/include"):
        for entry in sorted(rocm_include.iterdir()):
            if entry.is_dir() and not (include / entry.name).exists():
                (include / entry.name).symlink_to(entry)
    version = CudaVersion.current()
    renames = [(cuda, hip) for table in HOST_NAME_TABLES for cuda, hip, _ in read_table(TABLE_DIR / table)]
    hip_tags = hip_tag_typedefs(toolchain.hip_include_dir)
    (include / "cassc_cuda_names.h").write_text(names_header(version, renames, hip_tags))
    tables = load_tables()
    missing = missing_header_packages(toolchain)
    for cuda_header, hip_header, _ in read_table(TABLE_DIR / "headers.tsv"):
        (include / cuda_header).parent.mkdir(parents=True, exist_ok=True)  # cub/block/...
        package = tables.package_for(cuda_header)
        if package and cuda_header in missing:
            text = f'#error "cassc: <{cuda_header}> needs {package.name}: {package_hint(toolchain, package)}"\n'
        else:
            text = cuda_header_text(cuda_header, hip_header, tables.companion_headers(cuda_header))
        (include / cuda_header).write_text(text)


def missing_header_packages(toolchain: Toolchain) -> dict[str, str]:
    """CUDA header -> the ROCm package it needs that is not installed (its probe header is in no library
    include directory of the toolchain)."""
    tables = load_tables()
    return {cuda: package.name for cuda, _, _ in read_table(TABLE_DIR / "headers.tsv")
            if (package := tables.package_for(cuda))
            and not any((d / package.probe_header).is_file() for d in toolchain.library_include_dirs)}


def installed_cuda_library(toolchain: Toolchain, cuda: str, older: list[str]) -> Path | None:
    """The shared HIP library that stands for CUDA library `cuda` (link-libraries.tsv's, else an older
    name of it), where a link with this toolchain finds it."""
    renames = {c: hip for c, hip, _ in read_table(TABLE_DIR / "link-libraries.tsv")}
    return next((path for hip in [renames.get(cuda), *older] if hip
                 for path in [toolchain.find_library(hip)] if path and path.suffix == ".so"), None)


# HIP declares many types as typedefs of a tag of another name (`typedef struct _hipGraphicsResource
# hipGraphicsResource;`), often CUDA's own (`typedef struct cudaArray {...} hipArray;`).
HIP_TAG_TYPEDEF = re.compile(r"typedef\s+(?:const\s+)?(?:struct|union|enum)\s+(\w+)\s*"
                             r"(?:\{(?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*\})?\s*(\w+)\s*;")


def hip_tag_typedefs(hip_include: Path) -> dict[str, str]:
    """HIP's typedef names of tag types whose tag has another name: typedef name -> tag (the AMD platform's
    declarations: nvidia_detail's are CUDA's types under HIP's names)."""
    tags: dict[str, str] = {}
    for header in sorted(h for h in hip_include.rglob("*.h") if "nvidia_detail" not in h.parts):
        text = re.sub(r"/\*.*?\*/|//[^\n]*", "", header.read_text(errors="replace"), flags=re.DOTALL)
        for tag, name in HIP_TAG_TYPEDEF.findall(text):
            if tag != name:
                tags.setdefault(name, tag)
    return tags


def is_cuda_tag(name: str) -> bool:
    """Whether CUDA declares `name` as a struct/union/enum tag, by its naming: the runtime's tags are
    `cuda...` names without `_t` (`struct cudaArray`, `enum cudaLimit`; `cudaStream_t` is a typedef), the
    driver's end in `_st` or `_enum` (`CUarray` is a typedef of `struct CUarray_st *`). Checked against
    CUDA's headers by tests/test_toolkit.py."""
    return name.startswith("cuda") and not name.endswith("_t") or name.endswith(("_st", "_enum"))


def names_header(version: CudaVersion, renames: list[tuple[str, str]], hip_tags: dict[str, str]) -> str:
    """CUDA's names as HIP's. A CUDA tag whose HIP twin is a typedef of a tag names that tag, or stays
    itself where it is that tag: host code a host compiler builds writes `struct cudaGraphicsResource *`,
    and C++ rejects a typedef name after `struct` (hipify drops the keyword in the sources it rewrites)."""
    number = version.major * 1000 + version.minor * 10
    lines = ["/* Generated by cassc from its rename tables: CUDA's version, and CUDA's names for HIP's. */",
             "#pragma once",
             f"#define CUDA_VERSION {number}",
             f"#define CUDART_VERSION {number}"]
    for cuda, hip in renames:
        target = hip_tags.get(hip, hip) if is_cuda_tag(cuda) else hip
        if target != cuda:
            lines.append(f"#define {cuda} {target}")
    return "\n".join(lines) + "\n"


def cuda_header_text(cuda_header: str, hip_header: str, companions: tuple[str, ...] = ()) -> str:
    """The stand-in for CUDA's header: HIP's, with the headers of what CUDA's includes in turn (companions)."""
    include = "\n".join(f"#if defined(__HIP__)\n#include <{h}>\n#endif" if h in DEVICE_ONLY_HIP_HEADERS
                        else f"#include <{h}>" for h in (hip_header, *companions))
    # The guard and identity macros CUDA's header leaves defined, which helper headers test (header-macros.tsv).
    defines = "".join(f"#ifndef {macro}\n#define {macro}\n#endif\n" for macro in header_macros().get(cuda_header, ()))
    return (f"/* Generated by cassc (headers.tsv): CUDA's <{cuda_header}> is HIP's <{hip_header}>. */\n"
            f"#pragma once\n#include \"cassc_cuda.h\"\n{include}\n{defines}")


# ------------------------------------------------------------------------------------------------
# lib64/


def _write_lib64(staging: Path, final_root: Path, toolchain: Toolchain) -> None:
    """Build the libraries in `staging`; linker scripts name them where the tree will finally be."""
    lib64 = staging / "lib64"
    (lib64 / "stubs").mkdir(parents=True)
    work = staging / "build"
    work.mkdir()
    hip_runtime = toolchain.hip_lib_dir / "libamdhip64.so"
    exported = exported_functions(hip_runtime)
    runtime = [(c, h) for c, h, _ in read_table(TABLE_DIR / "runtime.tsv") if h in exported]
    driver = [(c, h) for c, h, _ in read_table(TABLE_DIR / "driver.tsv") if h in exported]
    cudart_object = _assemble(jump_table(runtime), work / "cudart.o", toolchain)
    _shared_library(cudart_object, lib64 / CUDART_SONAME, toolchain)
    _shared_library(_assemble(jump_table(driver), work / "cuda.o", toolchain), lib64 / CUDA_DRIVER_SONAME, toolchain)
    run([str(toolchain.archiver), "qc", str(lib64 / CUDART_STATIC_ARCHIVE), str(cudart_object)])
    run([str(toolchain.archiver), "qc", str(lib64 / "libcudadevrt.a")])
    openmp = (toolchain.openmp_runtime,) if toolchain.openmp_runtime else ()
    (lib64 / "libcudart.so").write_text(linker_script(hip_runtime, (final_root / "lib64" / CUDART_SONAME, *openmp)))
    (lib64 / "libcudart_static.a").write_text(linker_script(final_root / "lib64" / CUDART_STATIC_ARCHIVE, openmp))
    (lib64 / "stubs" / "libcuda.so").write_text(linker_script(hip_runtime, (final_root / "lib64" / CUDA_DRIVER_SONAME,)))
    _shim_runtime(runtime, driver, work, lib64, toolchain, exported)
    _binary_driver(work, lib64 / SHARED_RUNTIME_DIR, toolchain, exported)
    # Makefiles link the driver API with -L$CUDA_PATH/lib64 -lcuda: the NVIDIA driver's library, which no
    # AMD machine has.
    (lib64 / "libcuda.so").write_text(linker_script(hip_runtime, (final_root / "lib64" / CUDA_DRIVER_SONAME,)))
    _write_cuda_libraries(lib64, final_root / "lib64", work, toolchain)
    shutil.rmtree(work)


def _write_cuda_libraries(lib64: Path, final_lib64: Path, work: Path, toolchain: Toolchain) -> None:
    """lib<library>.so and lib<library>_static.a for every CUDA library of TOOLKIT_LIBRARY_TABLE: the HIP
    library link-libraries.tsv names where it is installed, else a link that stops with what is missing.
    A library with a part of its CUDA API that its HIP library lacks (LEGACY_API_SHIMS) is a linker script
    naming cassc's archive of that part and the HIP library."""
    for cuda, package, _, older in read_rows(TOOLKIT_LIBRARY_TABLE):
        if package == "empty":
            run([str(toolchain.archiver), "qc", str(lib64 / f"lib{cuda}.a")])
            continue
        installed = installed_cuda_library(toolchain, cuda, older)
        if package != "none" and installed is not None and cuda in LEGACY_API_SHIMS:
            archive = legacy_api_archive(cuda)
            shim = work / f"{cuda}_legacy.o"
            run([str(toolchain.clang), "-x", "c++", "-std=c++17", "-O2", "-fPIC", "-D__HIP_PLATFORM_AMD__",
                 f"-I{toolchain.hip_include_dir.parent}", "-c", str(SHIMS_DIR / "toolkit" / LEGACY_API_SHIMS[cuda]),
                 "-o", str(shim)])
            run([str(toolchain.archiver), "qc", str(lib64 / archive), str(shim)])
            script = f"/* cassc: {cuda} on {installed.name} */\nGROUP ( {final_lib64 / archive} {installed} )\n"
            for name in (f"lib{cuda}.so", f"lib{cuda}_static.a"):
                (lib64 / name).write_text(script)
        elif package != "none" and installed is not None:
            (lib64 / f"lib{cuda}.so").symlink_to(installed)
            (lib64 / f"lib{cuda}_static.a").write_text(linker_script(installed, ()))
        else:
            for name in (f"lib{cuda}.so", f"lib{cuda}_static.a"):
                (lib64 / name).write_text(missing_library_script(cuda, package))


def legacy_api_archive(cuda_library: str) -> str:
    """lib64's archive of the part of `cuda_library`'s API that cassc provides (LEGACY_API_SHIMS)."""
    return f"libcassc_{cuda_library}_legacy.a"


def missing_library_script(library: str, package: str) -> str:
    """A linker script that stops any link that names it (GNU ld and lld) with one line."""
    if package == "none":
        message = f"cassc: -l{library} needs NVIDIA's {library}, which has no ROCm counterpart"
    else:
        message = (f"cassc: -l{library} needs {package} (for lib{library}): install ROCm >= 6 with {package}, "
                   "or point ROCM_PATH at a ROCm install that has it")
    return f'/* cassc: {library} is not available here */\nASSERT(0, "{message}")\n'


def _shim_runtime(runtime: list[tuple[str, str]], driver: list[tuple[str, str]], work: Path, lib64: Path,
                  toolchain: Toolchain, exported: set[str]) -> None:
    """libcassc_cudart.a, the runtime the binary path links in; and the same runtime as NVIDIA's shared
    libcudart (`cassc-run/libcudart.so.<major>`, its soname and symbol version), which finds `cassc
    translate`'s output for the fatbins an nvcc-built `-cudart shared` program registers."""
    driver_entries = work / "driver_entries.inc"
    driver_entries.write_text(driver_entry_table(driver))
    compile_shim = [str(toolchain.clang), "-x", "c++", "-std=c++17", "-O2", "-fPIC", "-D__HIP_PLATFORM_AMD__",
                    f"-DCASSC_DRIVER_ENTRIES=\"{driver_entries}\"", f"-I{toolchain.hip_include_dir.parent}", "-c",
                    str(SHIMS_DIR / "runtime" / "cassc_cudart.cpp")]
    shim = work / "cassc_cudart.o"
    run([*compile_shim, "-o", str(shim)])
    defined = defined_functions(shim)
    jumps, stubs = runtime_entries(read_rows(CUDART_API_TABLE), dict(runtime), exported, defined)
    entries = _assemble(jump_table(jumps) + stub_table(stubs), work / "shim-entries.o", toolchain)
    run([str(toolchain.archiver), "qc", str(lib64 / SHIM_RUNTIME), str(shim), str(entries)])
    looking_up = work / "cassc_cudart_lookup.o"
    run([*compile_shim, "-DCASSC_TRANSLATION_LOOKUP", "-o", str(looking_up)])
    (lib64 / SHARED_RUNTIME_DIR).mkdir()
    rpath = [f"-Wl,-rpath,{toolchain.hip_lib_dir}"] if toolchain.kind == "rocm" else []
    for major in NVIDIA_CUDART_MAJORS:
        soname = f"libcudart.so.{major}"
        version_script = work / f"{soname}.map"
        version_script.write_text(f"{soname} {{ global: *; }};\n")  # NVIDIA's symbol version: what binaries ask for
        run([str(toolchain.clang), "-shared", f"-Wl,-soname,{soname}", f"-Wl,--version-script,{version_script}",
             "-Wl,--no-undefined", str(looking_up), str(entries), "-o", str(lib64 / SHARED_RUNTIME_DIR / soname),
             f"-L{toolchain.hip_lib_dir}", "-lamdhip64", *rpath])


def _binary_driver(work: Path, output_dir: Path, toolchain: Toolchain, exported: set[str]) -> None:
    """`cassc-run/libcuda.so.1`: the driver NVIDIA's runtime linked into an nvcc-built binary (-cudart static)
    reaches, over HIP (shims/driver/cassc_cuda.cpp; its table and entries from binary/driver_api.py)."""
    from cassc.binary.driver_api import driver_entries, proc_table_source, read_api

    api = read_api()
    renames = {c: h for c, h, _ in read_table(TABLE_DIR / "driver.tsv")}
    table = work / "driver_table.inc"
    table.write_text(proc_table_source(api, {c: h for c, h in renames.items() if c.startswith("CU_DEVICE_ATTRIBUTE_")}))
    source = SHIMS_DIR / "driver" / "cassc_cuda.cpp"
    compiled = work / "cassc_cuda.o"
    run([str(toolchain.clang), "-x", "c++", "-std=c++17", "-O2", "-fPIC", "-D__HIP_PLATFORM_AMD__",
         f"-DCASSC_DRIVER_TABLE=\"{table}\"", f"-I{toolchain.hip_include_dir.parent}", "-c", str(source),
         "-o", str(compiled)])
    jumps, stubs = driver_entries(api, defined_functions(compiled), renames, exported)
    entries = _assemble(jump_table(jumps) + stub_table(stubs), work / "driver-entries.o", toolchain)
    rpath = [f"-Wl,-rpath,{toolchain.hip_lib_dir}"] if toolchain.kind == "rocm" else []
    run([str(toolchain.clang), "-shared", f"-Wl,-soname,{CUDA_DRIVER_SONAME}", "-Wl,-Bsymbolic", "-Wl,--no-undefined",
         str(compiled), str(entries), "-o", str(output_dir / CUDA_DRIVER_SONAME), f"-L{toolchain.hip_lib_dir}",
         "-lamdhip64", "-lstdc++", *rpath])


def runtime_entries(api: list[tuple[str, str, int, list[str]]], twins: dict[str, str], exported: set[str],
                    defined: set[str]) -> tuple[list[tuple[str, str]], list[tuple[str, int]]]:
    """The binary path's runtime entries besides the shim's own: (jumps, stubs returning a CUDA error code)
    for every function of CUDA's runtime API (cudart-api.tsv) and every other runtime.tsv twin HIP exports.
    `twins`: runtime.tsv's renames whose HIP name libamdhip64 exports; `defined`: what the shim defines."""
    resolved: dict[str, tuple[str, str | int]] = {}  # name -> ("jump", target) or ("stub", CUDA error code)

    def resolve(name: str, how: str, extra: list[str], number: int) -> tuple[str, str | int]:
        if name in defined:
            return "jump", name
        if how == "shim":
            raise ToolchainError(f"{CUDART_API_TABLE}:{number}: {name} is the shim's, but "
                                 "cassc_cudart.cpp does not define it (a cassc bug)")
        if how == "runtime.tsv":
            return ("jump", twins[name]) if name in twins else ("stub", NOT_SUPPORTED)
        if how == "jump":
            return ("jump", extra[0]) if extra[0] in exported else ("stub", NOT_SUPPORTED)
        if how == "success":
            return "stub", 0
        if how == "error":
            return "stub", int(extra[0])
        if how == "per-thread":
            base = PER_THREAD_SUFFIX.sub("", name)
            if base in twins and f"{twins[base]}_spt" in exported:
                return "jump", f"{twins[base]}_spt"
            return resolved[base] if base in resolved else resolve(base, *rows[base])
        raise ToolchainError(f"{CUDART_API_TABLE}:{number}: unknown entry kind {how!r}")

    rows = {name: (how, extra, number) for name, how, number, extra in api}
    for name, (how, extra, number) in rows.items():
        resolved[name] = resolve(name, how, extra, number)
    jumps = [(c, h) for c, h in twins.items() if c not in defined and c not in resolved]
    jumps += [(name, str(target)) for name, (kind, target) in resolved.items()
              if kind == "jump" and name not in defined]
    stubs = [(name, int(code)) for name, (kind, code) in resolved.items() if kind == "stub"]
    return jumps, stubs


def defined_functions(obj: Path) -> set[str]:
    from cassc.formats.elf import STB_GLOBAL, map_elf_file

    elf = map_elf_file(obj)
    table = elf.section(".symtab")
    return {s.name for s in elf.symbols(table) if s.defined and s.bind == STB_GLOBAL} if table else set()


def exported_functions(library: Path) -> set[str]:
    from cassc.formats.elf import STT_FUNC, map_elf_file

    elf = map_elf_file(library)
    table = elf.section(".dynsym")
    return {s.name for s in elf.symbols(table) if s.defined and s.type == STT_FUNC} if table else set()


def jump_table(renames: list[tuple[str, str]]) -> str:
    """x86-64 assembly: each CUDA name is a function that jumps to its HIP twin. A jump passes every
    argument register and the return slot through untouched, so no signature is needed; it is right
    wherever HIP's function has CUDA's ABI (code compiled with these headers calls HIP directly)."""
    lines = ["  .text"]
    for cuda, hip in renames:
        lines += [f"  .globl {cuda}", f"  .type {cuda},@function", "  .p2align 4", f"{cuda}:",
                  f"  jmp {hip}@PLT", f"  .size {cuda},.-{cuda}"]
    lines.append('  .section .note.GNU-stack,"",@progbits')
    return "\n".join(lines) + "\n"


def driver_entry_table(driver: list[tuple[str, str]]) -> str:
    """C++ for the shim (its CASSC_DRIVER_ENTRIES): `driver_entry_points`, {name, HIP twin} for every driver
    API entry point whose twin libamdhip64 exports (driver.tsv). Each twin is declared by its symbol name
    (HIP's header overloads some in C++). cudaGetDriverEntryPoint answers from it, as CUDA's answers with
    the driver's cuGetProcAddress."""
    twins = sorted({hip for _, hip in driver})
    number = {hip: index for index, hip in enumerate(twins)}
    lines = ["// Generated by cassc (toolkit.py) from driver.tsv.", 'extern "C" {']
    lines += [f'void cassc_driver_twin_{number[hip]}() __asm__("{hip}");' for hip in twins]
    lines += ["}", "static const cassc_driver_entry driver_entry_points[] = {"]
    lines += [f'    {{"{cuda}", cassc_driver_twin_{number[hip]}}},' for cuda, hip in driver]
    lines.append("};")
    return "\n".join(lines) + "\n"


def stub_table(stubs: list[tuple[str, int]]) -> str:
    """x86-64 assembly: each name is a function returning its CUDA error code (every runtime API function
    but three returns cudaError_t, an int; those three have HIP twins)."""
    lines = ["  .text"]
    for name, code in stubs:
        lines += [f"  .globl {name}", f"  .type {name},@function", "  .p2align 4", f"{name}:",
                  f"  movl ${code}, %eax", "  ret", f"  .size {name},.-{name}"]
    lines.append('  .section .note.GNU-stack,"",@progbits')
    return "\n".join(lines) + "\n"


def linker_script(always: Path, as_needed: tuple[Path, ...]) -> str:
    """A GNU ld linker script, as glibc's libc.so: `always` linked, the others only if something calls
    them. `-lcudart` / `-lcuda`: the HIP runtime (code built with the shim headers calls it directly),
    then the library of CUDA-named jumps. `-lcudart_static`: the archive of jumps. libcudart also names
    clang's OpenMP runtime: a link by g++ (CMake's CUDA link) of host code that cassc compiled with
    -fopenmp needs libomp, and every CUDA link names cudart."""
    optional = f" AS_NEEDED ( {' '.join(map(str, as_needed))} )" if as_needed else ""
    return f"/* cassc: the CUDA runtime on HIP (GNU ld linker script) */\nGROUP ( {always}{optional} )\n"


def _assemble(assembly: str, output: Path, toolchain: Toolchain) -> Path:
    source = output.with_suffix(".s")
    source.write_text(assembly)
    run([str(toolchain.clang), "-c", "-x", "assembler", str(source), "-o", str(output)])
    return output


def _shared_library(obj: Path, output: Path, toolchain: Toolchain) -> None:
    rpath = [f"-Wl,-rpath,{toolchain.hip_lib_dir}"] if toolchain.kind == "rocm" else []
    run([str(toolchain.clang), "-shared", f"-Wl,-soname,{output.name}", "-Wl,--no-undefined", str(obj),
         "-o", str(output), f"-L{toolchain.hip_lib_dir}", "-lamdhip64", *rpath])
