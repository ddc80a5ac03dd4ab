#!/usr/bin/env python3
"""Build rate on corpora cassc was never tuned to: Parboil, SHOC, the CUDA by Example book code, Rodinia,
PolyBench/GPU and a fixed part of NVIDIA's CUDA samples.

Each corpus is built as its own users build it, unmodified, in a scratch copy (the checkout is never
written to), twice:

  nvcc   the CUDA original with the real nvcc 13 (/usr/local/cuda), which decides what is in reach;
  cassc  the same build after `eval "$(cassc env)"`: the stand-in toolkit's `nvcc` (cassc, gfx1100)
         comes first on PATH and CUDA_PATH/CUDA_HOME name the stand-in toolkit.

  parboil  (github.com/yuhc/gpu-parboil) the `parboil compile BENCH VERSION` driver is Python 2, which
           is not here, so this runs the one command it runs for every `src/cuda*` version:
           `make -f common/mk/Makefile default SRCDIR=src/V BUILDDIR=build/V_default BIN=... PARBOIL_ROOT=...
           PLATFORM=default BUILD=V` in the benchmark's directory, with CUDAHOME=$CUDA_PATH.
  shoc     (github.com/vetter/shoc) `./configure --with-cuda --without-opencl --without-mpi --disable-dataunzip
           CUDA_CPPFLAGS=-gencode=arch=compute_80,code=sm_80 LIBS=-lcudart LDFLAGS=-L$CUDA_PATH/lib64` (the
           -gencode configure tells a user to set; the runtime library as SHOC's users name it for nvcc >= 10.2,
           whose dryrun link line its config/find_cuda_libs.sh no longer parses: vetter/shoc#67) then
           `make -k`; a program is built when its executable exists. MPI variants are out of reach.
           configure enables CUDA only where it links cuBLAS's legacy `cublasInit` and cuFFT's `cufftPlan1d`:
           the nvcc reference needs NVIDIA's cuBLAS and cuFFT (--cuda-libraries: a directory with include/
           and lib/, e.g. the nvidia-cublas and nvidia-cufft wheels' nvidia/cu13 unpacked, found through
           CPATH/LIBRARY_PATH as a user's own install would be), cassc needs hipBLAS and hipFFT: on Debian 12's
           HIP 5.2 neither exists, so SHOC's cassc build runs in the ROCm 6.4 root (.ci/in-rocm-root).
  book     (github.com/CodedK/CUDA-by-Example-source-code-for-the-book-s-examples-) every `.cu` as the
           book builds it, `nvcc -o PROGRAM PROGRAM.cu` in its chapter directory, with
           `-lGL -lGLU -lglut` for the programs that include the book's OpenGL helpers.
  rodinia  (github.com/yuhc/gpu-rodinia) each `cuda/` program as the top-level Makefile's CUDA target builds it,
           `make` in its directory, with `CUDA_DIR=$CUDA_PATH` (common/make.config's toolkit variable; its
           default is /usr/local/cuda); built when make succeeds (the target's `cp` names executables some
           Makefiles no longer make). The cuda/ directories that target leaves out are built the same way. The sm_20/sm_13 its Makefiles
           ask for: as for Parboil, the nvcc reference runs again with sm_80 to learn whether the code builds.
  polybench (github.com/sgrauerg/polybenchGpu) each `CUDA/<program>/` directory built as its compileCodes.sh
           does, `make` there: CUDA/common.mk runs `nvcc -O3 ${CUFILES} -o ${EXECUTABLE}`, the nvcc PATH finds;
           built when make succeeds and the executable exists.
  cuda-samples (github.com/NVIDIA/cuda-samples) every sample of Samples/2_Concepts_and_Techniques and
           Samples/6_Performance whose CMakeLists.txt needs no graphics (names no OpenGL, GLUT, GLEW, EGL or
           Vulkan), built as its README builds one: `cmake -S SAMPLE -B SAMPLE/build` then `cmake --build`,
           the CUDA compiler from CUDACXX (cassc env sets it); built when the build succeeds. Its
           CMakeLists ask for nine GPU architectures (sm_75..sm_120): the nvcc reference compiles for sm_90 only
           (NVCC_ONE_ARCH drops the others), which decides whether the code builds at a ninth of the time.

"In reach" = the nvcc build succeeds, or fails only on an API CUDA removed that HIP still has (a cassc
win). Results are kept in --state keyed by a digest of the program's sources (and of cassc's own files
for cassc), so a stopped run resumes. Builds run one at a time (`make -j1`).

    .venv/bin/python benchmarks/corpora_build.py parboil /work/corpora/parboil
    .venv/bin/python benchmarks/corpora_build.py shoc /work/corpora/shoc --variants nvcc --cuda-libraries DIR
    .venv/bin/python benchmarks/corpora_build.py rodinia /work/corpora/rodinia
    CASSC_ROOT_READ_ONLY=/work/corpora/shoc .ci/in-rocm-root env PYTHONPATH=$PWD /var/lib/cassc-ci/venv/bin/python \
        benchmarks/corpora_build.py shoc /work/corpora/shoc --variants cassc --cassc /var/lib/cassc-ci/venv/bin/cassc \
        --state STATE   (STATE inside this checkout, which the root sees at the same path)
    .venv/bin/python benchmarks/corpora_build.py report      # writes benchmarks/results/corpora-build.md

The translated programs on a lent NVIDIA GPU against their originals (prepare_device, device, verify_report):

    .venv/bin/python benchmarks/corpora_build.py prepare-device /work/corpora/rodinia --device-corpus rodinia \
        --carry DIR --legacy-cuda /work/corpora/cuda-11.8 --rodinia-data GIT_DIR     (and parboil, shoc
        with --cuda-libraries DIR, book, semantics: benchmarks/semantics); tar -cJf DIR/trees.tar.xz -C DIR trees
    (run: python3 DIR/corpora_build.py device --carry DIR --out $OUT)
    .venv/bin/python benchmarks/corpora_build.py verify-report OUT/results.json --carry DIR --gpu H100; ... report
"""

from __future__ import annotations

import argparse
import concurrent.futures
import datetime as dt
import json
import os
import re
import shutil
import subprocess
import sys
import shlex
import tempfile
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus_inputs import RunSpec  # noqa: E402
from hecbench_build import (Build, cassc_fingerprint, classify, directory_digest,  # noqa: E402
                            environment_of_cassc_env, first_error)

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_RESULTS = REPO_ROOT / "benchmarks" / "results" / "corpora-build.md"
DEFAULT_STATE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "cassc-benchmarks" / "corpora"
NVCC = "/usr/local/cuda/bin/nvcc"
CORPORA = {
    "parboil": "github.com/yuhc/gpu-parboil",
    "shoc": "github.com/vetter/shoc",
    "book": "github.com/CodedK/CUDA-by-Example-source-code-for-the-book-s-examples-",
    "rodinia": "github.com/yuhc/gpu-rodinia",
    "polybench": "github.com/sgrauerg/polybenchGpu",
    "cuda-samples": "github.com/NVIDIA/cuda-samples",
}
SHOC_ARCH = "-gencode=arch=compute_80,code=sm_80"
SEMANTICS_PROGRAMS = REPO_ROOT / "benchmarks" / "semantics"
CARRIED_LIBRARY_LIMIT = 8 << 20
DEVICE_EXPLANATIONS = REPO_ROOT / "benchmarks" / "results" / "corpora-device-explanations.json"
BOOK_GL_HELPERS = re.compile(r'#\s*include\s*"[^"]*(gl_helper|cpu_bitmap|cpu_anim|gpu_anim)\.h"')
# nvcc errors on API that CUDA removed while HIP keeps it (texture references, legacy thread calls...):
# such a program is in reach, and building it is a cassc win.
REMOVED_FROM_CUDA = re.compile(
    r"\b(texture|cudaBindTexture\w*|cudaUnbindTexture|tex1Dfetch|tex[123]D|cudaThread\w+|"
    r"cudaMemcpy(To|From)Array\w*|surface|cudaBindSurface\w*|__shfl|__any|__all|__ballot)\b.*"
    r"(undefined|not declared|no template|deprecated|undeclared|is not a template)"
    r"|(undefined|not declared|undeclared|no template|is not a template)[^\n]*\b(texture|cudaBindTexture\w*|"
    r"cudaUnbindTexture|tex1Dfetch|tex[123]D|cudaThread\w+|surface|__shfl|__any|__all|__ballot)\b"
    r"|class \"cudaDeviceProp\" has no member"  # legacy fields CUDA 13 dropped (clockRate...)
    r"|.struct cudaDeviceProp. has no member named"  # the same, from g++ on a .cpp nvcc hands on
    r"|.cudaThread\w+. was not declared")
# An identifier nvcc finds undefined that is no removed API is an error of the program's own (a helper its
# source never declares): such a program is out of reach, whatever else nvcc reports.
UNDEFINED_IDENTIFIER = re.compile(r'error: identifier "(\w+)" is undefined')


def fails_on_removed_api_only(log: str) -> bool:
    return bool(REMOVED_FROM_CUDA.search(log)) and all(
        REMOVED_FROM_CUDA.search(f'identifier "{name}" is undefined') for name in UNDEFINED_IDENTIFIER.findall(log))


def run_logged(command: list[str] | str, cwd: Path, env: dict[str, str], timeout: float) -> tuple[bool, str, float]:
    started = time.perf_counter()
    try:
        # One stream, in order: a make log's errors stay under the directory make names for them.
        completed = subprocess.run(command, cwd=cwd, env=env, shell=isinstance(command, str), stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True, errors="replace", timeout=timeout)
        return completed.returncode == 0, completed.stdout, time.perf_counter() - started
    except subprocess.TimeoutExpired:
        return False, f"timed out after {timeout:.0f} s", time.perf_counter() - started


def environment(variant: str, cassc: str, scratch: Path, cuda_libraries: Path | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NVCC_", "CASSC_", "MAKEFLAGS", "MFLAGS"))}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")]))
    env["CASSC_CACHE_DIR"] = str(scratch / "cassc-cache")
    if variant == "cassc":
        return environment_of_cassc_env(cassc, env)
    env.update(CUDA_PATH="/usr/local/cuda", CUDA_HOME="/usr/local/cuda",
               PATH=f"/usr/local/cuda/bin{os.pathsep}{env['PATH']}")
    if cuda_libraries is not None:
        libraries = unversioned_links(cuda_libraries / "lib", scratch / "cuda-libraries")
        # CMAKE_LIBRARY_PATH: where CMake's FindCUDAToolkit looks for CUDA::cublas... and, in stubs/, the
        # driver's link stub (CUDA::cuda_driver), which a toolkit without the driver lacks.
        for name, value in (("CPATH", cuda_libraries / "include"), ("LIBRARY_PATH", libraries),
                            ("LD_LIBRARY_PATH", libraries),
                            ("CMAKE_LIBRARY_PATH", f"{libraries}{os.pathsep}{cuda_libraries / 'lib' / 'stubs'}")):
            env[name] = os.pathsep.join(filter(None, [str(value), env.get(name)]))
    return env


def unversioned_links(directory: Path, links: Path) -> Path:
    """`links` with lib<name>.so.<N> and lib<name>.so for each lib<name>.so.<N> in `directory` (wheels ship
    only the former, which `-l<name>` does not find; the linker finds their own needs by that name)."""
    links.mkdir(parents=True, exist_ok=True)
    for library in directory.glob("lib*.so.*"):
        for name in (library.name, f"{library.name.split('.so.')[0]}.so"):
            (links / name).symlink_to(library.resolve())
    return links


# ------------------------------------------------------------------------------------------------
# the corpora: each names its programs (with the directory its sources are in) and builds one

def parboil_programs(root: Path) -> dict[str, Path]:
    return {f"{d.parent.parent.name}/{d.name}": d for d in sorted(root.glob("benchmarks/*/src/cuda*"))
            if (d / "Makefile").is_file()}


# Parboil's Makefiles name GPU architectures nvcc 13 no longer knows (compute_12, compute_20): nvcc stops
# before compiling anything. The nvcc reference then runs again through this wrapper, which asks for the
# oldest one it knows, to learn whether the code itself builds (cassc takes any architecture).
DROPPED_ARCH = "Unsupported gpu architecture"
DROPPED_ARCH_ERRORS = re.compile(r"Unsupported gpu architecture|Value '(compute|sm)_[1-7]\d' is not defined for option")
NVCC_NEWER_ARCH = """#!/bin/bash
args=()
for a in "$@"; do
  case "$a" in
    -arch=compute_[1-7]?|-arch=sm_[1-7]?) args+=(-arch=sm_80) ;;
    --gpu-architecture=compute_[1-7]?|--gpu-code=compute_[1-7]?) args+=("${a%=*}=compute_80") ;;
    --gpu-architecture=sm_[1-7]?|--gpu-code=sm_[1-7]?) args+=("${a%=*}=sm_80") ;;
    compute_[1-7]?|sm_[1-7]?) args+=(sm_80) ;;
    *) args+=("$a") ;;
  esac
done
exec /usr/local/cuda/bin/nvcc "${args[@]}"
"""


def build_parboil(root: Path, program: str, env: dict[str, str], timeout: float) -> Build:
    build = build_parboil_with(root, program, env, timeout, [])
    if build.ok or not DROPPED_ARCH_ERRORS.search(build.log_tail) or env["CUDA_PATH"] != "/usr/local/cuda":
        return build
    wrapper = root / "nvcc-newer-arch"
    wrapper.write_text(NVCC_NEWER_ARCH)
    wrapper.chmod(0o755)
    again = build_parboil_with(root, program, env, timeout, [f"CUDACC={wrapper}", f"CUDALINK={wrapper}"])
    return Build(program, "", again.ok, build.seconds + again.seconds,
                 f"{DROPPED_ARCH} (with -arch=sm_80: {'ok' if again.ok else again.first_error})",
                 build.log_tail[-1500:] + again.log_tail[-4500:])


def build_parboil_with(root: Path, program: str, env: dict[str, str], timeout: float, extra: list[str]) -> Build:
    benchmark, version = program.split("/")
    directory = root / "benchmarks" / benchmark
    builddir = f"build/{version}_default"
    shutil.rmtree(directory / builddir, ignore_errors=True)
    command = ["make", "-j1", "-f", str(root / "common" / "mk" / "Makefile"), "default", f"SRCDIR=src/{version}",
               f"BUILDDIR={builddir}", f"BIN={builddir}/{benchmark}.x", f"PARBOIL_ROOT={root}",
               "PLATFORM=default", f"BUILD={version}", f"CUDAHOME={env['CUDA_PATH']}", *extra]
    ok, log, seconds = run_logged(command, directory, env, timeout)
    ok = ok and (directory / builddir / f"{benchmark}.x").is_file()
    return Build(program, "", ok, seconds, "" if ok else first_error(log), log[-6000:])


def shoc_programs(root: Path) -> dict[str, Path]:
    programs = {}
    for makefile in sorted((root / "src" / "cuda").rglob("Makefile.am")):
        if {"epmpi", "tpmpi"} & set(makefile.parts):
            continue
        for line in makefile.read_text().replace("\\\n", " ").splitlines():
            match = re.match(r"\s*\w+_PROGRAMS\s*=\s*(.+)", line)
            if match:
                for name in match.group(1).split():
                    programs[f"{makefile.parent.relative_to(root / 'src' / 'cuda')}/{name}"] = makefile.parent
    return programs


def build_shoc(root: Path, programs: list[str], env: dict[str, str], timeout: float,
               configure_env: dict[str, str] | None = None, make_variables: tuple[str, ...] = ()) -> dict[str, Build]:
    """One configure (with `configure_env` where given) and one `make -k` (with `make_variables`) for the whole
    suite; each program's error is the first error in the make output of its directory."""
    # --disable-dataunzip: unpacking the data sets is for runs and needs unzip, which not every machine has.
    # LIBS/LDFLAGS: SHOC reads the CUDA libraries from nvcc's dryrun link line (config/find_cuda_libs.sh keeps
    # what follows `-o "a.out"`); since CUDA 10.2 nvcc puts `-o` last, so the script finds none, and SHOC's
    # users name the runtime at configure time (github.com/vetter/shoc/issues/67).
    configure = ["./configure", "--with-cuda", "--without-opencl", "--without-mpi", "--disable-dataunzip",
                 f"CUDA_CPPFLAGS={SHOC_ARCH}", "LIBS=-lcudart", f"LDFLAGS=-L{env['CUDA_PATH']}/lib64"]
    # A git checkout gives the autotools inputs (configure.ac, Makefile.am) and their outputs whatever times the
    # checkout wrote them at; where an input came out newer, make regenerates and re-runs configure under its own
    # environment. Outputs newer than inputs, as in a release tarball.
    generated = [root / "aclocal.m4", root / "configure", *root.rglob("Makefile.in"), *root.rglob("config.h.in")]
    for path in (p for p in generated if p.is_file()):
        os.utime(path)
    ok, log, seconds = run_logged(configure, root, configure_env or env, timeout)
    failed_checks = [line for line in log.splitlines() if line.startswith("checking ") and line.endswith("... no")]
    if not ok or "no usable CUDA installation found" in log:
        error = f"configure: {first_error(log) if not ok else 'no usable CUDA: ' + '; '.join(failed_checks[-2:])}"
        return {p: Build(p, "", False, 0.0, error, log[-6000:]) for p in programs}
    ok, log, seconds = run_logged(["make", "-k", "-j1", *make_variables], root, env, timeout * 4)
    chunks: dict[str, list[str]] = {}
    current: list[str] = []
    for line in log.splitlines():
        entering = re.search(r"Entering directory '([^']+)'", line)
        if entering:
            current = chunks.setdefault(entering.group(1), [])
        current.append(line)
    results = {}
    for program in programs:
        directory = root / "src" / "cuda" / Path(program).parent
        built = (directory / Path(program).name).is_file()
        text = "\n".join(chunks.get(str(directory), []))
        results[program] = Build(program, "", built, seconds / max(1, len(programs)),
                                 "" if built else first_error(text) or "not built", text[-6000:])
    return results


def book_programs(root: Path) -> dict[str, Path]:
    return {str(p.relative_to(root).with_suffix("")): p.parent for p in sorted(root.glob("*/*.cu"))}


def build_book(root: Path, program: str, env: dict[str, str], timeout: float) -> Build:
    source = root / f"{program}.cu"
    libraries = ["-lGL", "-lGLU", "-lglut"] if BOOK_GL_HELPERS.search(source.read_text(errors="replace")) else []
    output = source.with_suffix("")
    output.unlink(missing_ok=True)
    ok, log, seconds = run_logged(["nvcc", "-o", output.name, source.name, *libraries], source.parent, env, timeout)
    ok = ok and output.is_file()
    return Build(program, "", ok, seconds, "" if ok else first_error(log), log[-6000:])


def rodinia_programs(root: Path) -> dict[str, Path]:
    """The directories of the top-level Makefile's CUDA target (`cd cuda/X; make; cp ...`), and the other
    cuda/ directories with a Makefile of their own, which that target leaves out."""
    target = root.joinpath("Makefile").read_text().split("\nCUDA:", 1)[1].split("\nOMP:", 1)[0]
    listed = re.findall(r"cd\s+cuda/(\S+);\s*make;", target)
    programs = {directory: root / "cuda" / directory for directory in listed}
    for makefile in sorted((root / "cuda").glob("*/Makefile")):
        name = makefile.parent.name
        if name not in programs and not any(d.startswith(f"{name}/") for d in listed):
            programs[name] = makefile.parent
    return programs


def build_rodinia(root: Path, program: str, env: dict[str, str], timeout: float) -> Build:
    """`make` in the program's directory with CUDA_DIR naming the toolkit (common/make.config's variable; the
    Makefiles that call `nvcc` by name find PATH's). nvcc 13 refuses the sm_20 the Makefiles ask for:
    then the nvcc reference runs again through a toolkit whose nvcc asks for sm_80 (NVCC_NEWER_ARCH)."""
    build = build_rodinia_with(root, program, env, timeout, env["CUDA_PATH"])
    if build.ok or not DROPPED_ARCH_ERRORS.search(build.log_tail) or env["CUDA_PATH"] != "/usr/local/cuda":
        return build
    toolkit = root / "nvcc-newer-arch"
    if not toolkit.is_dir():
        (toolkit / "bin").mkdir(parents=True)
        (toolkit / "bin" / "nvcc").write_text(NVCC_NEWER_ARCH)
        (toolkit / "bin" / "nvcc").chmod(0o755)
        for name in ("include", "lib64", "lib"):
            (toolkit / name).symlink_to(Path("/usr/local/cuda") / name)
    newer = {**env, "PATH": f"{toolkit / 'bin'}{os.pathsep}{env['PATH']}"}
    again = build_rodinia_with(root, program, newer, timeout, str(toolkit))
    return Build(program, "", again.ok, build.seconds + again.seconds,
                 f"{DROPPED_ARCH} (with -arch=sm_80: {'ok' if again.ok else again.first_error})",
                 build.log_tail[-1500:] + again.log_tail[-4500:])


def build_rodinia_with(root: Path, program: str, env: dict[str, str], timeout: float, cuda_dir: str) -> Build:
    directory = root / "cuda" / program
    subprocess.run(["make", "clean"], cwd=directory, env=env, capture_output=True)
    ok, log, seconds = run_logged(["make", "-j1", f"CUDA_DIR={cuda_dir}"], directory, env, timeout)
    return Build(program, "", ok, seconds, "" if ok else first_error(log) or "not built", log[-6000:])


def polybench_programs(root: Path) -> dict[str, Path]:
    return {makefile.parent.name: makefile.parent for makefile in sorted((root / "CUDA").glob("*/Makefile"))}


def build_polybench(root: Path, program: str, env: dict[str, str], timeout: float) -> Build:
    directory = root / "CUDA" / program
    executable = re.search(r"^EXECUTABLE\s*:?=\s*(\S+)", (directory / "Makefile").read_text(), re.MULTILINE)
    subprocess.run(["make", "clean"], cwd=directory, env=env, capture_output=True)
    ok, log, seconds = run_logged(["make", "-j1"], directory, env, timeout)
    ok = ok and executable is not None and (directory / executable.group(1)).is_file()
    return Build(program, "", ok, seconds, "" if ok else first_error(log) or "not built", log[-6000:])


# Samples that need a display, another graphics API or NVIDIA's NvSci (Tegra) are out of reach on any machine
# without them: their CMakeLists.txt names the package.
GRAPHICS = re.compile(r"OpenGL|GLUT|GLEW|EGL|Vulkan|X11|NVSCI|DirectX|D3D1", re.IGNORECASE)
NVCC_ONE_ARCH = """#!/bin/bash
args=()
for a in "$@"; do
  case "$a" in
    --generate-code=arch=compute_90,*|-gencode=arch=compute_90,*) args+=("$a") ;;
    --generate-code=*|-gencode=*) ;;
    *) args+=("$a") ;;
  esac
done
exec /usr/local/cuda/bin/nvcc "${args[@]}"
"""


# What puts a CUDA sample out of reach on any AMD toolchain, read from its CMakeLists.txt: its device code is
# compiled at run time (NVRTC, nvJitLink, libNVVM) or by a custom command into PTX/cubin/fatbin that the driver
# API loads (nothing translates that code), or it needs an NVIDIA library with no ROCm counterpart.
CUDA_SAMPLE_OUT_OF_REACH = (
    (re.compile(r"nvrtc|nvJitLink|nvvm", re.IGNORECASE), "device code compiled at run time (NVRTC/nvJitLink/NVVM)"),
    (re.compile(r"\s-(ptx|fatbin|cubin)\b"), "device code built for the driver API to load (PTX/cubin/fatbin)"),
    (re.compile(r"\bnpp\w*|nvjpeg|FreeImage|cudla|cufile", re.IGNORECASE),
     "NVIDIA library with no ROCm counterpart (NPP, nvJPEG, FreeImage...)"),
    (re.compile(r"find_package\(MPI\)"), "MPI (not installed here)"),
)


# A sample's README lists what it needs ("Dependencies needed to build/run"): CDP, CUDA dynamic parallelism
# (kernels launched from device code, with the device runtime), has no HIP counterpart.
CUDA_SAMPLE_DEPENDENCY_OUT_OF_REACH = {"CDP": "CUDA dynamic parallelism (kernels launched by kernels): HIP has none"}


def cuda_sample_out_of_reach(directory: Path) -> str:
    text = (directory / "CMakeLists.txt").read_text(errors="replace")
    readme = directory / "README.md"
    needs = re.findall(r"^\[(\w+)\]\(", readme.read_text(errors="replace").split("Dependencies needed", 1)[-1]
                       .split("\n## ", 1)[0], re.MULTILINE) if readme.is_file() else []
    return next((reason for pattern, reason in CUDA_SAMPLE_OUT_OF_REACH if pattern.search(text)),
                next((CUDA_SAMPLE_DEPENDENCY_OUT_OF_REACH[n] for n in needs if n in CUDA_SAMPLE_DEPENDENCY_OUT_OF_REACH), ""))


def cuda_samples_programs(root: Path) -> dict[str, Path]:
    """Every sample of Samples/0_Introduction..7_libNVVM (8_Platform_Specific is Tegra's: the top-level
    CMakeLists.txt adds it only with BUILD_TEGRA) whose CMakeLists.txt needs no graphics."""
    return {f"{makefile.parent.parent.name}/{makefile.parent.name}": makefile.parent
            for makefile in sorted((root / "Samples").glob("[0-7]_*/*/CMakeLists.txt"))
            if not GRAPHICS.search(makefile.read_text(errors="replace"))}


def cuda_samples_in_reach(root: Path) -> dict[str, Path]:
    return {name: directory for name, directory in cuda_samples_programs(root).items()
            if not cuda_sample_out_of_reach(directory)}


def build_cuda_sample(root: Path, program: str, env: dict[str, str], timeout: float) -> Build:
    directory = root / "Samples" / program
    build = directory / "build"
    shutil.rmtree(build, ignore_errors=True)
    if env["CUDA_PATH"] == "/usr/local/cuda":
        wrapper = root / "nvcc-one-arch"
        wrapper.write_text(NVCC_ONE_ARCH)
        wrapper.chmod(0o755)
        env = {**env, "CUDACXX": str(wrapper)}
    ok, log, seconds = run_logged(["cmake", "-S", str(directory), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release"],
                                  directory, env, timeout)
    if ok:
        ok, more, built_seconds = run_logged(["cmake", "--build", str(build), "-j1"], directory, env, timeout)
        log, seconds = log + more, seconds + built_seconds
    return Build(program, "", ok, seconds, "" if ok else first_error(log) or "not built", log[-6000:])


PROGRAMS = {"parboil": parboil_programs, "shoc": shoc_programs, "book": book_programs, "rodinia": rodinia_programs,
            "polybench": polybench_programs, "cuda-samples": cuda_samples_in_reach}


# ------------------------------------------------------------------------------------------------

def load(state: Path, corpus: str, variant: str) -> dict[str, dict]:
    path = state / f"{corpus}-{variant}.json"
    return json.loads(path.read_text()) if path.is_file() else {}


def save(state: Path, corpus: str, variant: str, entries: dict[str, dict]) -> None:
    state.mkdir(parents=True, exist_ok=True)
    temporary = state / f".{corpus}-{variant}.json.tmp"
    temporary.write_text(json.dumps(entries, indent=1))
    temporary.replace(state / f"{corpus}-{variant}.json")


def build_corpus(args: argparse.Namespace) -> None:
    root = args.checkout.resolve()
    programs = PROGRAMS[args.corpus](root)
    if args.only:
        programs = {p: d for p, d in programs.items() if re.search(args.only, p)}
    fingerprint = cassc_fingerprint()
    for variant in args.variants.split(","):
        cached = load(args.state, args.corpus, variant)
        digests = {p: directory_digest(d) + (fingerprint if variant == "cassc" else "") for p, d in programs.items()}
        todo = [p for p in programs if cached.get(p, {}).get("digest") != digests[p]]
        # --only measures some programs again: the others' records stay; a program the corpus no longer has goes.
        every = PROGRAMS[args.corpus](root)
        cached = {p: e for p, e in cached.items() if p in every}
        if not todo:
            continue
        with tempfile.TemporaryDirectory(prefix=f"corpora-{args.corpus}-") as scratch:
            tree = Path(scratch) / "tree"
            shutil.copytree(root, tree, symlinks=True, ignore=shutil.ignore_patterns(".git"))
            env = environment(variant, args.cassc, Path(scratch), args.cuda_libraries)
            if args.corpus == "shoc":
                built = build_shoc(tree, todo, env, args.timeout)
            else:
                builder = {"parboil": build_parboil, "book": build_book, "rodinia": build_rodinia,
                           "polybench": build_polybench, "cuda-samples": build_cuda_sample}[args.corpus]
                built = {}
                for index, program in enumerate(todo, 1):
                    built[program] = builder(tree, program, env, args.timeout)
                    build = built[program]
                    print(f"[{args.corpus} {variant} {index}/{len(todo)}] {program}: "
                          f"{'ok' if build.ok else 'FAIL ' + build.first_error[:120]}", file=sys.stderr, flush=True)
                    cached[program] = {"digest": digests[program], "build": asdict(build) | {"variant": variant}}
                    save(args.state, args.corpus, variant, cached)
            for program, build in built.items():
                cached[program] = {"digest": digests[program], "build": asdict(build) | {"variant": variant}}
            save(args.state, args.corpus, variant, cached)


# Failure classes finer than hecbench_build.classify's, from a cassc build's first error.
FAILURE_CLASSES = (
    (re.compile(r"no member named '\w+' in 'hipDeviceProp_t'"), "legacy cudaDeviceProp field HIP 5.2 lacks"),
    (re.compile(r"undeclared identifier 'cuda(GL|EGL|Graphics|VDPAU)\w*'"), "graphics interop API HIP 5.2 lacks"),
    (re.compile(r"no matching function for call to 'hip\w+'"),
     "CUDA runtime C++ overload (typed pointer argument) HIP lacks"),
    (re.compile(r"undefined reference to (symbol )?.hip\w+"),
     "link without the HIP runtime"),
    (re.compile(r"cannot be narrowed"), "narrowing in an initializer list: clang's error, g++'s warning"),
    (re.compile(r"needs (hipBLAS|hipFFT|hipSOLVER|hipSPARSE|hipRAND)|'(hipblas|hipfft|hipsolver)/\w+\.h' file not found"),
     "ROCm library Debian 12 lacks (hipBLAS, hipFFT, hipSOLVER): built in the ROCm 6.4 root"),
    (re.compile(r"cooperative_groups tile of \d+ threads|greater than the wavefront size"),
     "cooperative-groups tile wider than a wavefront"),
    (re.compile(r"invalid input constraint '\w' in asm|invalid output constraint|unknown register name|"
                r"<inline asm>:\d+:\d+: invalid instruction"),
     "inline PTX no rule rewrites"),
    (re.compile(r"is a CUDA API with no HIP counterpart|(?:was not|is not) declared in this scope|"
                r"No such file or directory|file not found"), "CUDA API or header with no HIP counterpart"),
)


def failure_class(build: Build) -> str:
    for pattern, name in FAILURE_CLASSES:
        if pattern.search(build.first_error):
            return name
    return classify(build)


def report(args: argparse.Namespace) -> None:
    out = ["# cassc on corpora it was not tuned to", "",
           f"- date: {dt.date.today().isoformat()}",
           "- command: `python benchmarks/corpora_build.py CORPUS CHECKOUT` for each corpus, then "
           "`python benchmarks/corpora_build.py report`",
           "- in reach: nvcc 13 (/usr/local/cuda) builds it here, or fails only on API CUDA removed and HIP keeps "
           "(counted as a cassc win); cassc builds for gfx1100 after `eval \"$(cassc env)\"`",
           "- \"removed API\" is read from nvcc's first error (texture references, `cudaThread*`, legacy "
           "`cudaDeviceProp` fields...): nvcc stops at the first file it cannot compile, so such a program is in "
           "reach on that evidence",
           "- Parboil: the `parboil` driver needs Python 2 (not here); each build is the make command it runs. Its "
           "data sets are not in the repository: for the GPU runs benchmarks/corpus_inputs.py generates them",
           "- SHOC: configure enables CUDA only where it links cuBLAS's legacy `cublasInit` and cuFFT's `cufftPlan1d`. "
           "The nvcc reference uses NVIDIA's cuBLAS 13.0 and cuFFT 12.0 from their PyPI wheels (`--cuda-libraries`); "
           "cassc's build runs in the Debian sid root with ROCm 6.4 (`.ci/in-rocm-root`: hipBLAS, hipFFT), as Debian "
           "12's HIP 5.2 has neither (there, configure finds no usable CUDA: the stand-in's `-lcublas` says "
           "\"needs hipBLAS\"). `--disable-dataunzip` (the data sets are for runs; the root has no unzip)",
           "- Rodinia: each `cuda/` program built by `make CUDA_DIR=$CUDA_PATH` in its directory (built: make "
           "succeeds); its data sets are not in the repository: for the GPU runs benchmarks/corpus_inputs.py takes "
           "them from a public copy of its data directory (and generates the annexed ones)",
           "- PolyBench/GPU: each `CUDA/<program>` built by `make` there, as its `compileCodes.sh` does; an nvcc failure "
           "that also names an undefined identifier of the program's own is out of reach",
           "- CUDA samples: its own section (`report-cuda-samples`), reach read from each sample's CMakeLists.txt",
           "- builds one at a time on a 2-core machine shared with other jobs", ""]
    summary, sections = [], []
    for corpus, origin in CORPORA.items():
        nvcc, cassc = load(args.state, corpus, "nvcc"), load(args.state, corpus, "cassc")
        if not cassc or corpus == "cuda-samples":
            continue
        rows = []
        for program in sorted(cassc):
            reference = Build(**nvcc[program]["build"]) if program in nvcc else None
            build = Build(**cassc[program]["build"])
            removed_only = reference is not None and not reference.ok and fails_on_removed_api_only(reference.log_tail)
            in_reach = reference is not None and (reference.ok or removed_only)
            rows.append((program, reference, build, in_reach, removed_only))
        in_reach = [r for r in rows if r[3]]
        built = [r for r in in_reach if r[2].ok]
        wins = [r for r in in_reach if r[4] and r[2].ok]
        wins = [r for r in in_reach if r[1] is not None and (not r[1].ok or r[1].first_error.startswith(DROPPED_ARCH))
                and r[2].ok]
        old_arch = [r for r in wins if r[1].first_error.startswith(DROPPED_ARCH)]
        summary.append(f"- **{corpus}** ({origin}): built {len(built)} of {len(in_reach)} in-reach "
                       f"({100 * len(built) / max(1, len(in_reach)):.0f}%; {len(rows)} programs, "
                       f"{len(rows) - len(in_reach)} out of reach; cassc builds {len(wins)} that nvcc 13 does not: API CUDA "
                       f"removed and HIP keeps, or for {len(old_arch)} of them first a GPU architecture nvcc 13 dropped)")
        sections += [f"## {corpus}", "", "| program | nvcc 13 | cassc gfx1100 | class | first error (cassc, else nvcc) |",
                     "|---|---|---|---|---|"]
        for program, reference, build, reach, removed_only in rows:
            nvcc_state = "-" if reference is None else ("ok" if reference.ok else ("removed API" if removed_only else "fails"))
            if reference is not None and reference.first_error.startswith(DROPPED_ARCH):
                nvcc_state = f"dropped arch; {nvcc_state} with sm_80"
            shown = build if not build.ok else (reference if reference is not None and not reference.ok
                                                and not reference.first_error.startswith(DROPPED_ARCH) else None)
            error = "" if shown is None else shown.first_error.replace("|", "/").replace("`", "")[:220]
            klass = "" if build.ok else (failure_class(build) if reach else "out of reach")
            sections.append(f"| {program} | {nvcc_state} | {'ok' if build.ok else 'FAIL'} | {klass} | `{error}` |")
        sections.append("")
    verified = args.state / "device-verify.md"
    tail = verified.read_text().splitlines() if verified.is_file() else []
    args.results.write_text("\n".join(out + summary + [""] + sections + tail) + "\n")
    print("\n".join(summary))


def cuda_samples_report(args: argparse.Namespace) -> None:
    """The cuda-samples section of --results, written in place (the other corpora's rows and the notes by hand
    stay): every candidate sample, out of reach by its CMakeLists.txt or built with cassc on Debian 12's HIP 5.2
    (--state) and, where measured, in the ROCm 6.4 root (--rocm-state)."""
    root = args.checkout.resolve()
    candidates = cuda_samples_programs(root)
    host: dict[str, dict] = {}
    for state in [*args.earlier_state, args.state]:  # later runs' records replace earlier ones
        host |= load(state, "cuda-samples", "cassc")
    rocm = load(args.rocm_state, "cuda-samples", "cassc") if args.rocm_state else {}
    reach = {name: cuda_sample_out_of_reach(directory) for name, directory in candidates.items()}
    in_reach = [name for name, reason in reach.items() if not reason]

    def cell(record: dict | None) -> str:
        return "-" if record is None else ("ok" if record["build"]["ok"] else "FAIL")

    measured = [n for n in in_reach if n in host]
    built = [n for n in measured if host[n]["build"]["ok"]]
    either = [n for n in in_reach if (n in host and host[n]["build"]["ok"]) or (n in rocm and rocm[n]["build"]["ok"])]
    rocm_measured = [n for n in in_reach if n in rocm]
    commit = (root / "COMMIT").read_text().split()[0] if (root / "COMMIT").is_file() else "?"
    summary = (f"- **cuda-samples** ({CORPORA['cuda-samples']} at {commit[:10]}): built {len(built)} of {len(in_reach)} "
               f"in-reach on Debian 12's HIP 5.2 ({100 * len(built) / max(1, len(in_reach)):.0f}%; "
               f"{len(candidates)} samples without graphics, {len(candidates) - len(in_reach)} out of reach"
               + (f"; {len(measured)} measured" if len(measured) < len(in_reach) else "")
               + (f"; with the ROCm 6.4 root for {len(rocm_measured)} of them: {len(either)} of {len(in_reach)}"
                  if rocm_measured else "") + ")")
    failures: dict[str, list[str]] = {}
    for name in in_reach:
        record = rocm.get(name) if name in rocm and not rocm[name]["build"]["ok"] else host.get(name)
        if name in host and not host[name]["build"]["ok"] and not (name in rocm and rocm[name]["build"]["ok"]):
            failures.setdefault(failure_class(Build(**record["build"])), []).append(name)
    section = [
        "## cuda-samples", "",
        f"- date: {dt.date.today().isoformat()}; NVIDIA/cuda-samples at {commit} (the mirror's snapshot, unpacked "
        "to /work/corpora/cuda-samples-c94ff366; 7 doc/data blobs the snapshot lacks are not needed to build)",
        "- command: `python benchmarks/corpora_build.py cuda-samples CHECKOUT --variants cassc --state STATE` on the "
        "host (Debian 12: clang 19, HIP 5.2), the same inside the ROCm 6.4 root (`CASSC_ROOT_READ_ONLY=CHECKOUT "
        ".ci/in-rocm-root ... --cassc /var/lib/cassc-ci/venv/bin/cassc --state ROCM_STATE`), then "
        "`python benchmarks/corpora_build.py report-cuda-samples CHECKOUT --state STATE --rocm-state ROCM_STATE`",
        "- each sample built as its README builds one: `cmake -S SAMPLE -B SAMPLE/build -DCMAKE_BUILD_TYPE=Release` and "
        "`cmake --build SAMPLE/build -j1` after `eval \"$(cassc env)\"` (CUDACXX is cassc); built when both succeed",
        "- candidates: every sample of Samples/0..7 whose CMakeLists.txt names no graphics or display package "
        "(OpenGL, GLUT, GLEW, EGL, Vulkan, X11, NvSci, DirectX); 8_Platform_Specific is Tegra's. Out of reach, read "
        "from the CMakeLists.txt: device code compiled at run time (NVRTC, nvJitLink, libNVVM) or built as "
        "PTX/cubin/fatbin for the driver API to load, an NVIDIA library with no ROCm counterpart (NPP, nvJPEG, "
        "FreeImage), MPI (not installed), CUDA dynamic parallelism (the README's dependency list names CDP). "
        "No nvcc reference decides reach here (the nvcc 13 reference builds of "
        "the other corpora cost as much CPU as cassc's): cuBLAS/cuFFT/cuSOLVER samples are in reach, and need "
        "the ROCm 6.4 root (Debian 12 has no hipBLAS/hipFFT/hipSOLVER)",
        *[f"- {note}" for note in args.note],
        "", summary, "",
        "Failure classes left (in reach, not built on either toolchain):", "",
        *[f"- {klass}: {len(names)} ({', '.join(sorted(names))})" for klass, names in
          sorted(failures.items(), key=lambda item: -len(item[1]))],
        "", "| sample | HIP 5.2 | ROCm 6.4 | class | first error (HIP 5.2, else ROCm 6.4) |", "|---|---|---|---|---|"]
    for name in sorted(candidates):
        if reach[name]:
            section.append(f"| {name} | - | - | out of reach: {reach[name]} | `` |")
            continue
        shown = next((r for r in (host.get(name), rocm.get(name)) if r is not None and not r["build"]["ok"]), None)
        klass = failure_class(Build(**shown["build"])) if shown else ""
        error = shown["build"]["first_error"].replace("|", "/").replace("`", "")[:220] if shown else ""
        section.append(f"| {name} | {cell(host.get(name))} | {cell(rocm.get(name))} | {klass} | `{error}` |")
    section.append("")
    lines = args.results.read_text().splitlines()
    if "## cuda-samples" in lines:  # replace the earlier section and summary line
        start = lines.index("## cuda-samples")
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
        lines[start:end] = []
        lines = [line for line in lines if not line.startswith("- **cuda-samples**")]
    last_summary = max(i for i, line in enumerate(lines) if line.startswith("- **") and "in-reach" in line)
    lines.insert(last_summary + 1, summary)
    gpu = next((i for i, line in enumerate(lines) if line.startswith("## Translated programs on the GPU")), len(lines))
    lines[gpu:gpu] = section
    args.results.write_text("\n".join(lines) + "\n")
    print(summary)


# ------------------------------------------------------------------------------------------------
# the translated programs on the lent NVIDIA GPU, as hecbench_verify.py checks HeCBench's

# Every GPU architecture option a build names replaced by the lent GPU's, then the compiler: nvcc for the
# original, cassc for the translation (Makefiles ask for sm_13 or sm_20, or for none).
DEVICE_NVCC = """#!/bin/bash
args=(); skip=0
for a in "$@"; do
  if [ $skip = 1 ]; then skip=0; continue; fi
  case "$a" in
    -arch|--gpu-architecture|-code|--gpu-code|-gencode|--generate-code) skip=1 ;;
    -arch=*|--gpu-architecture=*|-code=*|--gpu-code=*|-gencode=*|--generate-code=*) ;;
    *) args+=("$a") ;;
  esac
done
exec {compiler} -arch={arch} "${{args[@]}}"
"""


@dataclass(frozen=True)
class Toolkit:
    """An NVIDIA toolkit an original is built with: nvcc 13 here, or an older one where the program uses API
    CUDA 13 removed (texture references went in CUDA 12, `cudaThread*` and `cudaDeviceProp::clockRate` in 13)."""
    root: Path

    @property
    def nvcc(self) -> Path:
        return self.root / "bin" / "nvcc"

    @property
    def release(self) -> str:
        printed = subprocess.run([str(self.nvcc), "--version"], capture_output=True, text=True).stdout
        match = re.search(r"release (\d+\.\d+)", printed)
        return f"nvcc {match.group(1) if match else '?'}"


def device_toolkit(directory: Path, compiler: str, toolkit: Toolkit, driver_stub: Path | None,
                   libraries: Path | None) -> Path:
    """A toolkit directory whose bin/nvcc is `compiler` for the lent GPU's architecture, with `toolkit`'s
    headers and libraries (and the driver library's link stub, which a program linking -lcuda needs here).
    `libraries` (include/, lib/: NVIDIA's cuBLAS and cuFFT wheels) come before the toolkit's own: the GPU
    machine has the driver only, and an older toolkit's cuBLAS is too large to carry there."""
    import hecbench_verify as verify
    shutil.rmtree(directory, ignore_errors=True)
    (directory / "bin").mkdir(parents=True)
    (directory / "lib64").mkdir()
    nvcc = directory / "bin" / "nvcc"
    nvcc.write_text(DEVICE_NVCC.format(compiler=compiler, arch=verify.ARCH))
    nvcc.chmod(0o755)
    (directory / "include").mkdir()
    for kind, own in (("include", "include"), ("lib64", "lib")):
        if libraries is not None:
            for item in (libraries / own).iterdir():
                names = [item.name] + ([f"{item.name.split('.so.')[0]}.so"] if ".so." in item.name else [])
                for name in names:  # -l<name> finds the unversioned name only; wheels ship the versioned one
                    (directory / kind / name).unlink(missing_ok=True)
                    (directory / kind / name).symlink_to(item.resolve())
        for item in (toolkit.root / kind).resolve().iterdir():
            if not (directory / kind / item.name).exists() and not (directory / kind / item.name).is_symlink():
                (directory / kind / item.name).symlink_to(item)
    if driver_stub is not None and not (directory / "lib64" / "libcuda.so").exists():
        (directory / "lib64" / "libcuda.so").symlink_to(driver_stub)
    return directory


def device_programs(corpus: str, root: Path, state: Path) -> dict[str, tuple[str, str, RunSpec]]:
    """name -> (the build's program name, the executable relative to the run directory, how it runs), for the
    programs with an input whose gfx1100 build (where the state records one) succeeded."""
    import corpus_inputs as inputs
    failed = {p for p, e in load(state, corpus, "cassc").items() if not e["build"]["ok"]}
    programs: dict[str, tuple[str, str, RunSpec]] = {}
    if corpus == "semantics":  # this repository's own programs for semantic classes (half precision, graph memory)
        return {s.stem: (s.stem, s.stem, inputs.RunSpec(".", "")) for s in sorted(root.glob("*.cu"))}
    if corpus == "rodinia":
        for directory, executables in inputs.RODINIA.items():
            for executable, spec in executables.items():
                name = directory if len(executables) == 1 else f"{directory}/{executable}"
                programs[name] = (directory, executable, spec)
    elif corpus == "parboil":
        for program in parboil_programs(root):
            programs[program] = (program, f"{program.split('/')[0]}.x",
                                 inputs.parboil_run(program))
    elif corpus == "book":
        for program in book_programs(root):
            if not BOOK_GL_HELPERS.search((root / f"{program}.cu").read_text(errors="replace")):
                programs[program] = (program, Path(program).name, inputs.RunSpec(str(Path(program).parent), ""))
    elif corpus == "shoc":
        for program in shoc_programs(root):
            programs[program] = (program, Path(program).name,
                                 inputs.RunSpec(f"src/cuda/{Path(program).parent}", "-s 1"))
    return {name: entry for name, entry in programs.items() if entry[0] not in failed}


def built_executable(corpus: str, program: str, executable: str, spec: RunSpec) -> Path:
    """Where a build leaves the program, relative to its tree."""
    if corpus == "parboil":
        benchmark, version = program.split("/")
        return Path("benchmarks") / benchmark / "build" / f"{version}_default" / f"{benchmark}.x"
    return Path(spec.directory) / executable


class SuiteBuilds:
    """SHOC's builds, one configure and one make for the whole suite: the first program asked for under a
    toolkit builds the suite in a tree of its own, the others are read from it."""

    def __init__(self, root: Path, scratch: Path, programs: list[str]) -> None:
        self.root, self.scratch, self.programs = root, scratch, programs
        self.builds: dict[str, tuple[Path, dict[str, Build]]] = {}
        self.tree = root

    def __call__(self, _tree: Path, program: str, env: dict[str, str], timeout: float) -> Build:
        key = env["CUDA_PATH"]
        if key not in self.builds:
            tree = self.scratch / f"suite-{len(self.builds)}"
            shutil.copytree(self.root, tree, symlinks=True, ignore=shutil.ignore_patterns(".git"))
            self.builds[key] = (tree, build_shoc(tree, self.programs, env, timeout))
        self.tree, builds = self.builds[key]
        return builds[program]


def prepare_device(args: argparse.Namespace) -> None:
    """The carry folder for the GPU machine, built here, one corpus per call (manifest.json accumulates):
    each program as its users build it, twice, through a toolkit whose nvcc asks for the lent GPU
    (device_toolkit): the original with NVIDIA's nvcc, the translation with `cassc --cassc-target=nvidia`
    (hipified as for gfx1100, then compiled by that same nvcc). The original is built with nvcc 13, else
    with the first --legacy-cuda toolkit that builds it (API CUDA 13 removed); its translation with the
    same nvcc. The run trees (corpus_inputs.py's inputs, the executables as NAME.original and
    NAME.translated) go to DIR/trees/CORPUS, the NVIDIA runtime libraries they load to DIR/lib."""
    import corpus_inputs as inputs
    import hecbench_verify as verify
    carry: Path = args.carry.resolve()
    corpus: str = args.device_corpus
    root = args.checkout.resolve()
    toolkits = [Toolkit(Path("/usr/local/cuda")), *(Toolkit(Path(p)) for p in args.legacy_cuda)]
    stubs = [t.root / "lib64" / "stubs" / "libcuda.so" for t in toolkits]
    driver_stub = next((s.resolve() for s in stubs if s.exists()), None)
    trees = carry / "trees" / corpus
    if not args.only:  # --only adds to what an earlier call prepared
        shutil.rmtree(trees, ignore_errors=True)
    trees.mkdir(parents=True, exist_ok=True)
    (carry / "lib").mkdir(exist_ok=True)
    for script in ("hecbench_verify.py", "hecbench_build.py", "corpus_inputs.py", "corpora_build.py"):
        shutil.copy2(REPO_ROOT / "benchmarks" / script, carry / script)
    if corpus == "rodinia":
        inputs.write_rodinia(trees, args.rodinia_data)
    elif corpus == "parboil":
        inputs.write_parboil(trees)
    # One manifest per corpus: corpora may be prepared at the same time into one carry folder.
    manifest_path = carry / "manifests" / f"{corpus}.json"
    manifest_path.parent.mkdir(exist_ok=True)
    manifest: dict[str, dict] = json.loads(manifest_path.read_text()) if args.only and manifest_path.is_file() else {}
    programs = device_programs(corpus, root, args.state)
    if args.only:
        programs = {n: e for n, e in programs.items() if re.search(args.only, n)}
    with tempfile.TemporaryDirectory(prefix=f"corpora-device-{corpus}-") as scratch:
        tree = Path(scratch) / "tree"
        shutil.copytree(root, tree, symlinks=True, ignore=shutil.ignore_patterns(".git"))
        base = {k: v for k, v in os.environ.items() if not k.startswith(("NVCC_", "CASSC_", "MAKEFLAGS", "MFLAGS"))}
        base["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")]))
        base["CASSC_CACHE_DIR"] = str(Path(scratch) / "cassc-cache")
        cassc = f"{sys.executable} -m cassc --cassc-target=nvidia"

        def environment_for(variant: str, toolkit: Toolkit) -> dict[str, str]:
            compiler = str(toolkit.nvcc) if variant == "original" else cassc
            wrapper = device_toolkit(Path(scratch) / f"{variant}-{toolkits.index(toolkit)}", compiler, toolkit,
                                     driver_stub, args.cuda_libraries)
            env = {**base, "CUDA_PATH": str(wrapper), "CUDA_HOME": str(wrapper),
                   "PATH": f"{wrapper / 'bin'}{os.pathsep}{base['PATH']}"}
            if driver_stub is not None:  # where a machine with NVIDIA's driver has libcuda.so: the linker's own path
                driver = Path(scratch) / "driver"
                if not driver.is_dir():
                    driver.mkdir()
                    (driver / "libcuda.so").symlink_to(driver_stub)
                env["LIBRARY_PATH"] = os.pathsep.join(filter(None, [str(driver), base.get("LIBRARY_PATH")]))
            if variant == "translated":
                env["CASSC_NVCC"] = str(toolkit.nvcc)
            return env

        builder = {"parboil": build_parboil, "book": build_book, "semantics": build_book, "rodinia": build_rodinia,
                   "shoc": SuiteBuilds(root, Path(scratch), [p for p, _, _ in programs.values()])}[corpus]
        nvcc_record = load(args.state, corpus, "nvcc")
        for name, (program, executable, spec) in programs.items():
            result = verify.Result(f"{corpus}/{name}")
            built: dict[str, Build] = {}
            for toolkit in toolkits:
                # The corpus build's record says nvcc 13 stops on removed API: the original needs an older toolkit.
                record = nvcc_record.get(program, {}).get("build", {})
                if toolkit is toolkits[0] and len(toolkits) > 1 and not record.get("ok", True) \
                        and REMOVED_FROM_CUDA.search(record.get("log_tail", "")):
                    continue
                built = {}
                for variant in ("original", "translated"):
                    built[variant] = builder(tree, program, environment_for(variant, toolkit), verify.BUILD_TIMEOUT_S)
                    made = (builder.tree if isinstance(builder, SuiteBuilds) else tree) / \
                        built_executable(corpus, program, executable, spec)
                    if not built[variant].ok or not made.is_file():
                        break
                    target = trees / spec.directory / f"{executable}.{variant}"
                    target.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(made, target)
                    copy_runtime_libraries(made, toolkits, carry / "lib", [args.cuda_libraries / "lib"]
                                           if args.cuda_libraries else [])
                    made.unlink()
                if built["original"].ok:
                    break
            for variant, build in built.items():
                result.built[variant] = build.ok
                if not build.ok:
                    result.build_error[variant] = build.first_error
            (trees / spec.directory).mkdir(parents=True, exist_ok=True)
            # What a Rodinia program reads from its own directory (nn's filelist_4): the files that are not sources.
            for file in (root / spec.directory).glob("*") if corpus == "rodinia" else ():
                if file.is_file() and file.stat().st_size < 1_000_000 and file.suffix not in (".c", ".cu", ".h", ".o"):
                    shutil.copy2(file, trees / spec.directory / file.name)
            manifest[result.name] = {"result": asdict(result), "toolkit": toolkit.release, "corpus": corpus,
                                     "directory": f"{corpus}/{spec.directory}", "executable": executable,
                                     "args": spec.args, "shows": list(spec.shows)}
            print(result.name, toolkit.release, result.built, result.build_error, file=sys.stderr, flush=True)
            manifest_path.write_text(json.dumps(manifest, indent=1))
    print(f"{len(manifest)} {corpus} programs in {carry}")


def read_manifests(carry: Path) -> dict[str, dict]:
    return {name: entry for path in sorted((carry / "manifests").glob("*.json"))
            for name, entry in json.loads(path.read_text()).items()}


def copy_runtime_libraries(executable: Path, toolkits: list[Toolkit], destination: Path, extra: list[Path]) -> None:
    """The NVIDIA libraries `executable` loads from a toolkit (the GPU machine has the driver and CUDA 13's own
    libraries in /usr/local/cuda/lib64; an older runtime is carried, cuBLAS and cuFFT are too large)."""
    listed = subprocess.run(["ldd", str(executable)], capture_output=True, text=True).stdout
    directories = [(t.root / "lib64").resolve() for t in toolkits] + [d.resolve() for d in extra]
    for match in re.finditer(r"^\s*(\S+) => (\S+)", listed, re.MULTILINE):
        name, found = match.groups()
        candidates = [d / name for d in directories if (d / name).exists()]
        if candidates and (found == "not" or Path(found).resolve().parent in directories) \
                and not (destination / name).exists() and not name.startswith("libcuda.so"):
            if candidates[0].stat().st_size > CARRIED_LIBRARY_LIMIT:
                print(f"{executable.name}: {name} not carried (too large); the GPU machine's CUDA must have it",
                      file=sys.stderr)
                continue
            shutil.copy2(candidates[0].resolve(), destination / name)


def device(args: argparse.Namespace) -> None:
    """On the GPU machine: a run tree per variant (the carried trees, each executable under its own name), then
    each program's pair run alternately as hecbench_verify.py runs HeCBench's (up to three runs each, the
    originals in different seconds), --jobs programs at a time, none started after --deadline-s;
    OUT/results.json in its Result form."""
    import hecbench_verify as verify
    started = time.monotonic()
    carry = args.carry.resolve()
    work = args.work.resolve()
    manifest = read_manifests(carry)
    trees = carry / "trees"
    if not trees.is_dir():  # carried as trees.tar.xz (`tar -cJf trees.tar.xz trees`): unpacked, over the carry limit
        shutil.rmtree(work / "trees", ignore_errors=True)
        work.mkdir(parents=True, exist_ok=True)
        subprocess.run(["tar", "-xJf", str(carry / "trees.tar.xz"), "-C", str(work)], check=True)
        trees = work / "trees"
    for variant, other in (("original", "translated"), ("translated", "original")):
        shutil.rmtree(work / variant, ignore_errors=True)
        shutil.copytree(trees, work / variant, symlinks=True)
        for executable in (work / variant).rglob(f"*.{variant}"):
            executable.rename(executable.with_suffix(""))
        for executable in (work / variant).rglob(f"*.{other}"):
            executable.unlink()
    env = {**os.environ, "LD_LIBRARY_PATH": os.pathsep.join(filter(None, [str(carry / "lib"), "/usr/local/cuda/lib64",
                                                                          os.environ.get("LD_LIBRARY_PATH")]))}
    results = {name: verify.result_from_json(entry["result"]) for name, entry in manifest.items()}
    lock = threading.Lock()
    args.out.mkdir(parents=True, exist_ok=True)

    def run(name: str) -> None:
        entry, result = manifest[name], results[name]
        if not all(result.built.get(v) for v in ("original", "translated")) \
                or time.monotonic() - started > args.deadline_s:
            return
        shows = " ".join(shlex.quote(s) for s in entry["shows"])
        result.command = f"./{entry['executable']} {entry['args']}"
        command = result.command + (f"; status=$?; python3 {carry / 'corpus_inputs.py'} show {shows}; exit $status"
                                    if shows else "")
        result.runs = verify.alternate_runs(
            lambda variant: verify.run_once(command, work / variant / entry["directory"], env, args.run_limit_s),
            lambda: time.monotonic() - started <= args.deadline_s, least=verify.RUNS)
        with lock:
            print(f"{time.monotonic() - started:6.1f} s {name}",
                  {v: [r.exit_status for r in rs] for v, rs in result.runs.items()}, flush=True)
            verify.write_results([args.out / "results.json"], results)

    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        list(pool.map(run, manifest))
    verify.write_results([args.out / "results.json"], results)


def verify_report(args: argparse.Namespace) -> None:
    import hecbench_verify as verify
    results = [verify.result_from_json(r) for r in json.loads(args.checkout.read_text())]
    manifest = read_manifests(args.carry) if args.carry else {}
    comparisons = [verify.compare(r, None) for r in results]
    explanations = json.loads(DEVICE_EXPLANATIONS.read_text()) if DEVICE_EXPLANATIONS.is_file() else {}
    lines = ["", f"## Translated programs on the GPU ({args.gpu}) against their nvcc originals", "",
             f"- date: {dt.date.today().isoformat()}",
             "- `python benchmarks/corpora_build.py prepare-device CHECKOUT --device-corpus CORPUS --carry DIR "
             "--legacy-cuda /work/corpora/cuda-11.8 [--rodinia-data GIT_DIR]` here for each corpus, `device --carry DIR "
             "--out OUT` on the lent GPU (programs run concurrently), `verify-report "
             "OUT/results.json --carry DIR`",
             f"- each program built as its users build it, twice, every GPU architecture option replaced by "
             f"-arch={verify.ARCH}: the original with NVIDIA's nvcc 13, or where nvcc 13 cannot build it (API CUDA "
             "removed), with the newest toolkit here that can (CUDA 11.8: Debian 12's nvidia-cuda-toolkit, unpacked; "
             "NVIDIA's PyPI wheels before CUDA 13 carry no nvcc); the translation with `cassc --cassc-target=nvidia` "
             "(hipified as for gfx1100) and that same nvcc",
             "- inputs: benchmarks/corpus_inputs.py (Rodinia's data from a public copy of its data directory, "
             "Parboil's data sets generated in their readers' formats with a fixed seed); the files a program writes "
             "as its result are printed after it and compared as output",
             "- up to 3 runs each, alternately, each original run in a new wall-clock second; compared as "
             "hecbench_verify.py compares (timing lines and lines that vary among the originals' own runs left out, "
             "numbers within 1e-3)", ""]
    for corpus in dict.fromkeys(c.name.split("/")[0] for c in comparisons):
        mine = [c for c in comparisons if c.name.split("/")[0] == corpus]
        comparable = [c for c in mine if c.status in ("matched", "mismatch")]
        matched = [c for c in comparable if c.status == "matched"]
        lines.append(f"- **{corpus}**: matched {len(matched)} of {len(comparable)} comparable "
                     f"({100 * len(matched) / max(1, len(comparable)):.0f}%; {len(mine)} programs with an input)")
    lines += ["", "| program | original built by | status | first difference | time ratio | explanation |",
              "|---|---|---|---|---|---|"]
    lines += [f"| {c.name} | {manifest.get(c.name, {}).get('toolkit', '')} | {c.status} | "
              f"`{c.first_difference[:160].replace('|', '/').replace('`', '')}` | "
              f"{'' if c.ratio is None else f'{c.ratio:.2f}'} | {explanations.get(c.name, '')} |" for c in comparisons]
    args.state.mkdir(parents=True, exist_ok=True)
    (args.state / "device-verify.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", choices=[*CORPORA, "report", "report-cuda-samples", "prepare-device", "device",
                                           "verify-report"],
                        help="a corpus to build; report; prepare-device CHECKOUT --device-corpus CORPUS --carry DIR; "
                             "device --carry DIR --out OUT (on the GPU machine); verify-report RESULTS.json")
    parser.add_argument("checkout", type=Path, nargs="?")
    parser.add_argument("--cassc", default=str(REPO_ROOT / ".venv" / "bin" / "cassc"))
    parser.add_argument("--variants", default="nvcc,cassc")
    parser.add_argument("--only", help="regex on program names")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per build")
    parser.add_argument("--state", type=Path, default=DEFAULT_STATE)
    parser.add_argument("--results", type=Path, default=DEFAULT_RESULTS)
    parser.add_argument("--rocm-state", type=Path, help="report-cuda-samples: the state of the ROCm 6.4 root's run")
    parser.add_argument("--note", action="append", default=[], help="report-cuda-samples: a line for its notes")
    parser.add_argument("--earlier-state", type=Path, action="append", default=[],
                        help="report-cuda-samples: states of earlier host runs, whose records --state's replace")
    parser.add_argument("--cuda-libraries", type=Path,
                        help="NVIDIA's library headers and libraries (include/, lib/) for the nvcc reference")
    parser.add_argument("--gpu", default="H100", help="the GPU the device step ran on, for the report")
    parser.add_argument("--carry", type=Path)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--device-corpus", choices=[*CORPORA, "semantics"], default="book",
                        help="prepare-device: the corpus CHECKOUT holds (semantics: benchmarks/semantics/)")
    parser.add_argument("--legacy-cuda", type=Path, action="append", default=[],
                        help="prepare-device: an older NVIDIA toolkit (bin/nvcc, include/, lib64/) for originals "
                             "nvcc 13 cannot build; tried in the order given")
    parser.add_argument("--rodinia-data", type=Path, help="prepare-device: a git directory of "
                        "github.com/Munksgaard/rodinia (corpus_inputs.py)")
    parser.add_argument("--work", type=Path, default=Path("/tmp/corpora-device"), help="device: the run trees")
    parser.add_argument("--jobs", type=int, default=8, help="device: programs run at a time")
    parser.add_argument("--deadline-s", type=float, default=240.0, help="device: no program starts after this")
    parser.add_argument("--run-limit-s", type=float, default=20.0, help="device: seconds per run")
    args = parser.parse_args()
    if args.corpus == "report":
        report(args)
    elif args.corpus == "report-cuda-samples":
        cuda_samples_report(args)
    elif args.corpus == "prepare-device":
        prepare_device(args)
    elif args.corpus == "device":
        device(args)
    elif args.corpus == "verify-report":
        verify_report(args)
    else:
        build_corpus(args)


if __name__ == "__main__":
    main()
