"""Checking a whole nvcc-built binary's translation on an NVIDIA GPU (no AMD GPU exists here).

The program runs unchanged on NVIDIA's driver, through cassc's check `libcuda.so.1`
(`shims/nvidia-check/libcuda_check.cpp`): every fatbin container the program's CUDA runtime hands the driver
is looked up by its SHA-256, as `cassc translate` names it and cassc's libcudart finds it, and replaced by the
translator's NVPTX lowering of the same IR it compiles for gfx1100 (ptxas, fatbinary). The program prints what
its original prints only if the lifted IR computes what the original computes; the interception is the one a
libcuda over HIP needs (the same entry points, the same lookup). nvcc's default static cudart and `-cudart
shared` programs alike reach the driver through libcuda.so.1, so both are checked the same way.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from cassc.binary.extract import find_cuda_tool, registered_fatbins
from cassc.binary.translate import is_separate
from cassc.errors import CasscError, InputError
from cassc.locations import resource_dir

CHECK_DRIVER_SOURCE = Path("nvidia-check") / "libcuda_check.cpp"  # in resource_dir("shims")
DRIVER_SONAME = "libcuda.so.1"
# The driver entry points CUDA's header declares, after its version macros (cuCtxCreate -> cuCtxCreate_v2...):
# the names NVIDIA's libcuda exports, each forwarded to it unless the check driver wraps it.
TRACE_SLOTS = 256  # libcuda_check.cpp's
_DECLARED = re.compile(r"^\s*(?:extern\s+)?CUresult\s+(cu\w+)\s*\(", re.MULTILINE)


@dataclass
class CheckedFatbin:
    digest: str
    origin: str
    kernels: int
    written: Path | None = None
    failure: str | None = None


def nvptx_containers(path: Path, output_dir: Path, work_dir: Path, sm: int = 90) -> list[CheckedFatbin]:
    """For each fatbin container of `path` that has kernels: the translator's IR of it lowered to NVPTX,
    assembled for sm_`sm` and wrapped as a container, written to `output_dir/<digest>.fatbin`. A container that
    cannot be lowered is reported (the check driver then loads the original, and the program's output says
    nothing of the translation)."""
    from cassc.binary.codegen import data_layout, nvptx_assembly
    from cassc.binary.lift import NVPTX, lift_module
    from cassc.binary.ptx import parse_ptx
    from cassc.binary.sass_translate import lift_modules_sass
    from cassc.toolchain import run

    output_dir.mkdir(parents=True, exist_ok=True)
    results = []
    for fatbin in registered_fatbins(path):
        module = fatbin.module
        if not module.kernels:
            continue
        result = CheckedFatbin(fatbin.digest, module.origin, len(module.kernels))
        results.append(result)
        if is_separate(module) or not module.ptx_images() and any(i.section == "__nv_relfatbin"
                                                                    for i in module.images):
            result.failure = f"{module.origin}: relocatable device code (-rdc) is not checked on NVIDIA yet"
            continue
        try:
            if module.best_ptx():
                lifted = lift_module(parse_ptx(module.best_ptx() or ""), NVPTX, data_layout(NVPTX))
                if lifted.failures:
                    raise CasscError("; ".join(lifted.failures.values()))
                ir = lifted.ir
            else:
                ir, _, _, failures, _ = lift_modules_sass([module], NVPTX)
                if failures:
                    raise CasscError("; ".join(failures.values()))
            stem = work_dir / fatbin.digest[:16]
            Path(f"{stem}.ptx").write_text(nvptx_assembly(ir))
            run([str(find_cuda_tool("ptxas")), f"-arch=sm_{sm}", f"{stem}.ptx", "-o", f"{stem}.cubin"])
            run([str(find_cuda_tool("fatbinary")), "-64", f"--create={stem}.fatbin",
                 f"--image3=kind=elf,sm={sm},file={stem}.cubin"])
        except CasscError as error:
            result.failure = f"{module.origin}: {str(error).splitlines()[0]}"
            continue
        result.written = output_dir / f"{fatbin.digest}.fatbin"
        staging = output_dir / f".{fatbin.digest}.{os.getpid()}"  # another run may be reading the directory
        staging.write_bytes(Path(f"{stem}.fatbin").read_bytes())
        os.replace(staging, result.written)
    return results


def nvidia_driver(own: Path) -> Path:
    """NVIDIA's libcuda.so.1, where the dynamic loader would find it (LD_LIBRARY_PATH, then the system
    directories), `own` (the check driver's directory) left out."""
    from cassc.binary.linked import SYSTEM_LIBRARY_DIRS

    directories = [d for d in os.environ.get("LD_LIBRARY_PATH", "").split(":") if d] + SYSTEM_LIBRARY_DIRS \
        + ["/usr/lib/wsl/lib"]
    for directory in directories:
        candidate = Path(directory) / DRIVER_SONAME
        if candidate.is_file() and candidate.resolve().parent != own.resolve():
            return candidate
    raise InputError(f"NVIDIA's driver ({DRIVER_SONAME}) is not installed here: --check-on-nvidia runs the "
                     "program on an NVIDIA GPU")


def forwarded_names(cuda_header: Path, work_dir: Path) -> list[str]:
    """Every driver function `cuda.h` declares, by the name NVIDIA's libcuda exports (the header's macros
    applied, so cuMemAlloc is cuMemAlloc_v2)."""
    from cassc.toolchain import run

    expanded = run(["g++", "-E", "-P", "-x", "c++", str(cuda_header)], cwd=work_dir).stdout
    return sorted(set(_DECLARED.findall(expanded)))


def forwarding_source(names: list[str], wrapped: set[str]) -> str:
    """A trampoline per driver function the check driver does not define itself, jumping through a slot
    filled from NVIDIA's libcuda when the library is loaded (a program that calls the driver API directly
    gets NVIDIA's function; a name the installed driver lacks returns CUDA_ERROR_NOT_FOUND)."""
    forwarded = [n for n in names if n not in wrapped]
    # The trace trampolines (libcuda_check.cpp's CASSC_CHECK_TRACE): argument registers kept around the logging
    # call, whose answer is the entry to jump to; the stack stays 16-byte aligned at the call.
    saved = [f"%xmm{i}" for i in range(8)]
    trampoline_declarations = ['extern "C" void *cassc_check_traced_call(int slot);'] + [
        f'extern "C" void cassc_trace_{n}();\n'
        f'asm(".pushsection .text\\n.type cassc_trace_{n},@function\\ncassc_trace_{n}:\\n'
        'push %rdi\\npush %rsi\\npush %rdx\\npush %rcx\\npush %r8\\npush %r9\\nsub $136,%rsp\\n'
        + "".join(f"movdqu {r},{16 * i}(%rsp)\\n" for i, r in enumerate(saved))
        + f'mov ${n},%edi\\ncall cassc_check_traced_call\\n'
        + "".join(f"movdqu {16 * i}(%rsp),{r}\\n" for i, r in enumerate(saved))
        + 'add $136,%rsp\\npop %r9\\npop %r8\\npop %rcx\\npop %rdx\\npop %rsi\\npop %rdi\\njmp *%rax\\n'
          '.popsection\\n");' for n in range(TRACE_SLOTS)]
    lines = ['#include <dlfcn.h>', 'extern "C" void *cassc_check_real(const char *name);',
             'static int not_found() { return 500; }',
             f'extern "C" {{ __attribute__((visibility("hidden"))) void *cassc_forward_slots[{len(forwarded)}]; }}',
             f'static const char *const names[{len(forwarded)}] = {{',
             *(f'  "{n}",' for n in forwarded), '};',
             '__attribute__((constructor)) static void fill() {',
             f'  for (int i = 0; i < {len(forwarded)}; ++i) {{',
             '    void *found = cassc_check_real(names[i]);',
             '    cassc_forward_slots[i] = found ? found : reinterpret_cast<void *>(not_found);', '  }', '}']
    lines += [f'extern "C" void *const cassc_trace_trampolines[{TRACE_SLOTS}] = {{',
              *(f'  reinterpret_cast<void *>(cassc_trace_{n}),' for n in range(TRACE_SLOTS)), '};']
    for index, name in enumerate(forwarded):
        lines.append(f'asm(".pushsection .text\\n.globl {name}\\n.type {name},@function\\n{name}:\\n'
                     f'  jmp *cassc_forward_slots+{8 * index}(%rip)\\n.popsection\\n");')
    return "\n".join(trampoline_declarations + lines) + "\n"


WRAPPED = {"cuGetProcAddress", "cuGetProcAddress_v2", "cuGetExportTable", "cuModuleLoadData", "cuModuleLoadDataEx",
           "cuModuleLoadFatBinary", "cuLibraryLoadData"}


def build_check_driver(output_dir: Path, work_dir: Path, cuda_header: Path = Path("/usr/local/cuda/include/cuda.h"),
                       ) -> Path:
    """cassc's check libcuda.so.1, in `output_dir`: the wrapped entry points and a forward for every other."""
    from cassc.toolchain import run

    output_dir.mkdir(parents=True, exist_ok=True)
    forwards = work_dir / "forwards.cpp"
    forwards.write_text(forwarding_source(forwarded_names(cuda_header, work_dir), WRAPPED))
    library = output_dir / DRIVER_SONAME
    built = work_dir / DRIVER_SONAME
    run(["g++", "-std=c++17", "-O2", "-shared", "-fPIC", f"-Wl,-soname,{DRIVER_SONAME}", "-Wl,--no-undefined",
         str(resource_dir("shims") / CHECK_DRIVER_SOURCE), str(forwards), "-o", str(built), "-ldl"])
    staging = output_dir / f".{DRIVER_SONAME}.{os.getpid()}"  # a program may be loading the one there
    shutil.copyfile(built, staging)
    os.replace(staging, library)
    return library


CASSC_DRIVER_SOURCE = Path("driver") / "cassc_cuda.cpp"  # in resource_dir("shims")


def build_driver_over_nvidia(output_dir: Path, work_dir: Path) -> Path:
    """cassc's own libcuda.so.1 (shims/driver) built in front of NVIDIA's driver, in `output_dir`: its
    cuGetProcAddress, export tables and integrity hash answer NVIDIA's runtime, its loaders hand the driver each
    container's NVPTX replacement, and every other entry point is a forward to NVIDIA's. A program prints its
    original's output through it only if cassc's answers to the runtime are right (and its translation is)."""
    from cassc.binary.driver_api import driver_symbols, forward_source, proc_table_source, read_api
    from cassc.toolchain import run
    from cassc.toolkit import defined_functions

    output_dir.mkdir(parents=True, exist_ok=True)
    api = read_api()
    table = work_dir / "driver_table.inc"
    table.write_text(proc_table_source(api, {}))
    compiled = work_dir / "cassc_cuda.o"
    run(["g++", "-std=c++17", "-O2", "-fPIC", "-DCASSC_DRIVER_OVER_NVIDIA", f"-DCASSC_DRIVER_TABLE=\"{table}\"", "-c",
         str(resource_dir("shims") / CASSC_DRIVER_SOURCE), "-o", str(compiled)])
    defined = defined_functions(compiled)
    forwards = work_dir / "driver_forwards.cpp"
    forwards.write_text(forward_source([s for s in driver_symbols(api) if s not in defined]))
    built = work_dir / DRIVER_SONAME
    run(["g++", "-shared", f"-Wl,-soname,{DRIVER_SONAME}", "-Wl,-Bsymbolic", "-Wl,--no-undefined", str(compiled),
         str(forwards), "-o", str(built), "-ldl", "-lpthread"])
    staging = output_dir / f".{DRIVER_SONAME}.{os.getpid()}"  # a program may be loading the one there
    shutil.copyfile(built, staging)
    os.replace(staging, output_dir / DRIVER_SONAME)
    return output_dir / DRIVER_SONAME

