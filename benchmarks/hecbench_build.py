#!/usr/bin/env python3
"""HeCBench build rate: `make CC=cassc` on every `*-cuda` benchmark, unmodified.

Given a HeCBench checkout (github.com/zjin-lcf/HeCBench at commit f27000a51; public code that is never
committed here), this builds each `*-cuda` benchmark with its own Makefile three ways:

  cassc   `eval "$(cassc env)"; make CC=<cassc>`: the drop-in use this project exists for (the
          Makefile's own ARCH=sm_60; a Makefile that calls `nvcc` by name gets cassc's stand-in);
  nvcc    `make ARCH=sm_80`: the CUDA original with the real nvcc here (nvcc 13 no longer knows
          sm_60), which decides whether a benchmark is in reach;
  hip     the hand-written `*-hip` twin, `make CC=<hipcc_stand_in.py>`: same clang, device libraries
          and gfx target as cassc, so the two rates compare like with like.
  cmake   HeCBench's own CMake build, as its CMAKE_BUILD.md says, with cassc as the CUDA compiler:
          `eval "$(cassc env)"; cmake --preset cuda-sm90 -DCMAKE_CUDA_COMPILER=cassc`, then one
          `cmake --build` of every benchmark target (`ninja -k 0`). Its targets use separable
          compilation (`-rdc=true` and a device link), unlike the Makefiles.

"In reach" = the nvcc build succeeds and the sources need none of MPI, Boost, GSL or GDAL. Each build
runs in a scratch copy of `src/` (one per variant; the checkout is never written to), `make -j1` per
benchmark with `--jobs` benchmarks at a time and a per-benchmark time limit. Failures are classified
from the build log (see `classify`) and reported with their first real error line.

Every result is kept in `--state`, keyed by a digest of the benchmark's directory (and, for cassc, of
cassc's own files), so an interrupted run resumes and reference builds are reused; cassc builds start
from an empty cache. The report also measures hipify speed over every `*-cuda` source (lines/second).

    .venv/bin/python benchmarks/hecbench_build.py /path/to/HeCBench            # everything
    .venv/bin/python benchmarks/hecbench_build.py HECBENCH --sample 100        # a seeded sample
    .venv/bin/python benchmarks/hecbench_build.py HECBENCH --only 'adam|atomic' --variants cassc

One column per toolchain: each toolchain's cassc results live in their own --state (which records the
toolchain that built them, from `cassc doctor --json`); `--column STATE` adds another toolchain's state to
the report, whose first lines then say `built N of M in-reach benchmarks (HIP X.Y, clang-NN)` per toolchain.
A column's results may come from an earlier cassc than this run's; `--note` should say which.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import datetime as dt
import hashlib
import json
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_RESULTS = REPO_ROOT / "benchmarks" / "results" / "hecbench-build.md"
DEFAULT_STATE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "cassc-benchmarks" / "hecbench"
HECBENCH_COMMIT = "f27000a51"
VARIANTS = ("cassc", "nvcc", "hip", "cmake")
CMAKE_PRESET = "cuda-sm90"
# Where ninja names a failed step: an object of target `<name>-cuda`, or its executable.
CMAKE_FAILED_STEP = re.compile(r"^FAILED: .*?(?:CMakeFiles/(?P<object>\S+?)-cuda\.dir/|bin/cuda/(?P<program>\S+))")
CMAKE_PROGRESS = re.compile(r"^\[\d+/\d+\] |^ninja: ")
CMAKE_BENCHMARK_DIRECTORY = re.compile(r"\bsrc/([^/\s]+)/CMakeLists\.txt")
NOT_A_CMAKE_TARGET = "not a target of HeCBench's CMake build"
CMAKE_CONFIGURE_ERROR = "CMake configure:"  # a benchmark's CMakeLists that stops configure, set aside
CMAKE_NOT_BUILDABLE = (NOT_A_CMAKE_TARGET, CMAKE_CONFIGURE_ERROR)
SOURCE_SUFFIXES = (".cu", ".cuh", ".h", ".hpp", ".cpp", ".cc", ".cxx", ".c", ".inc", ".py")
# Dependencies this machine cannot provide: a benchmark whose sources use them is out of reach.
OUT_OF_REACH_PATTERNS = {
    "MPI": re.compile(r"#\s*include\s*[<\"]mpi\.h[>\"]|\bmpicc\b|\bmpicxx\b"),
    "Boost": re.compile(r"#\s*include\s*<boost/"),
    "GSL": re.compile(r"#\s*include\s*<gsl/"),
    "GDAL": re.compile(r"#\s*include\s*[<\"]gdal"),
    "PyTorch": re.compile(r"^\s*import torch\b|#\s*include\s*<torch/", re.MULTILINE),
    # Built by the NVIDIA HPC compiler (OpenMP offload, stdpar), which `make CC=cassc` does not stand for.
    "nvc++ (not nvcc)": re.compile(r"^\s*CC\s*[:?]?=\s*nvc\+\+", re.MULTILINE),
}
FIRST_ERROR = re.compile(
    r"((?:cassc|nvcc) fatal\s*:.*|.*\bfatal error\b.*|.*\berror:.*|.*undefined reference.*|.*\bld(\.lld)?: .*|"
    r"Traceback .*|.*No rule to make target.*)")
NEEDS_LIBRARY = re.compile(r"cassc fatal\s*:.*\bneeds (\S+) \(for ")
TOOLCHAIN_FILE = "toolchain.json"  # in --state: the toolchain its cassc results were built with
TOOLCHAIN_VARIABLES = ("CASSC_ROCM_PATH", "CASSC_DATA_DIR")


@dataclass
class Build:
    benchmark: str
    variant: str
    ok: bool
    seconds: float
    first_error: str
    log_tail: str


@dataclass
class Outcome:
    benchmark: str
    in_reach: bool
    out_of_reach_reason: str
    cassc_ok: bool
    hip_ok: bool | None
    cmake_ok: bool | None
    failure_class: str
    first_error: str
    first_error_cmake: str


def benchmark_names(src: Path) -> list[str]:
    return sorted(p.name[:-len("-cuda")] for p in src.glob("*-cuda") if (p / "Makefile").is_file())


# Larger files of other kinds are data sets, not build inputs. Leaving them out of the digest lets a
# copy of the sources without them (`--pack-sources`, for building on the lent GPU machine) share it.
LARGEST_OTHER_INPUT = 100_000
BUILD_FILES = ("Makefile", "CMakeLists.txt")
SIBLING_DIRECTORY = re.compile(r"\.\./([\w+-][\w.+-]*)/")


def is_build_input(path: Path) -> bool:
    return path.is_file() and (path.suffix in SOURCE_SUFFIXES or path.name in BUILD_FILES
                               or path.stat().st_size < LARGEST_OTHER_INPUT)


def directory_digest(directory: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(directory.rglob("*")):
        if is_build_input(path):
            digest.update(str(path.relative_to(directory)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:20]


def pack_sources(hecbench: Path, tarball: Path) -> None:
    """The build inputs of every `*-cuda` benchmark, the `src/` directories their files name as
    `../<dir>/`, and the top-level CMake project, as one xz tarball (about 10 MB)."""
    src = hecbench / "src"
    directories = {src / f"{name}-cuda" for name in benchmark_names(src)}
    for directory in list(directories):
        for path in directory.rglob("*"):
            if path.is_file() and (path.suffix in SOURCE_SUFFIXES or path.name in BUILD_FILES):
                for sibling in SIBLING_DIRECTORY.findall(path.read_text(errors="replace")):
                    if (src / sibling).is_dir():
                        directories.add(src / sibling)
    files = [hecbench / "CMakeLists.txt", hecbench / "CMakePresets.json", src / "CMakeLists.txt",
             *(p for p in (hecbench / "cmake").rglob("*") if p.is_file()),
             *(p for d in sorted(directories) for p in sorted(d.rglob("*")) if is_build_input(p))]
    listing = tarball.with_suffix(".list")
    listing.write_text("".join(f"{path.relative_to(hecbench)}\n" for path in files))
    partial = tarball.with_name(tarball.name + ".partial")  # a stopped run leaves no tarball to trust
    subprocess.run(["tar", "-C", str(hecbench), "-cJf", str(partial), "-T", str(listing)], check=True)
    partial.replace(tarball)
    listing.unlink()
    print(f"{tarball}: {len(files)} files, {tarball.stat().st_size / 2**20:.1f} MiB", file=sys.stderr)


def out_of_reach_reason(directory: Path) -> str:
    for path in directory.rglob("*"):
        if path.is_file() and (path.suffix in SOURCE_SUFFIXES or path.name == "Makefile"):
            text = path.read_text(errors="replace")
            for name, pattern in OUT_OF_REACH_PATTERNS.items():
                if pattern.search(text):
                    return f"needs {name}"
    return ""


def first_error(log: str) -> str:
    for line in log.splitlines():
        if FIRST_ERROR.match(line) and "warning:" not in line:
            return line.strip()[:300]
    lines = [line for line in log.splitlines() if line.strip()]
    return lines[-1].strip()[:300] if lines else ""


def classify(build: Build) -> str:
    """The failure class of a cassc build, from its log."""
    log = build.log_tail
    if build.first_error.startswith("timed out"):
        return "time limit"
    if NEEDS_LIBRARY.search(log):
        return "needs an unavailable library"
    if re.search(r"undefined reference|ld(\.lld)?: error|cannot find -l|linker command failed", log):
        return "link error"
    if re.search(r"\berror:", log):
        return "clang error"
    if "cassc fatal" in log or "Traceback" in log:
        return "cassc translation error"
    return "other"


def run_make(benchmark: str, variant: str, tree: Path, make_args: list[str], env: dict[str, str],
             timeout: float) -> Build:
    suffix = "hip" if variant == "hip" else "cuda"
    directory = tree / f"{benchmark}-{suffix}"
    started = time.perf_counter()
    if not (directory / "Makefile").is_file():
        return Build(benchmark, variant, False, 0.0, "no Makefile", "")
    try:
        completed = subprocess.run(["make", "-j1", *make_args], cwd=directory, env=env, capture_output=True,
                                   text=True, errors="replace", timeout=timeout)
        log = completed.stdout + completed.stderr
        ok = completed.returncode == 0
        error = "" if ok else first_error(log)
    except subprocess.TimeoutExpired as expired:
        log = (expired.stdout or b"").decode(errors="replace") if isinstance(expired.stdout, bytes) else (expired.stdout or "")
        ok, error = False, f"timed out after {timeout:.0f} s"
    return Build(benchmark, variant, ok, time.perf_counter() - started, error, log[-6000:])


def make_arguments(variant: str, cassc: str, python: str) -> list[str]:
    if variant == "cassc":
        return [f"CC={cassc}"]
    if variant == "nvcc":
        return ["ARCH=sm_80"]
    return [f"CC={python} {REPO_ROOT / 'benchmarks' / 'hipcc_stand_in.py'}"]


def load_state(state: Path, variant: str) -> dict[str, dict]:
    path = state / f"{variant}.json"
    return json.loads(path.read_text()) if path.is_file() else {}


def save_state(state: Path, variant: str, entries: dict[str, dict]) -> None:
    state.mkdir(parents=True, exist_ok=True)
    temporary = state / f".{variant}.json.tmp"
    temporary.write_text(json.dumps(entries, indent=1))
    temporary.replace(state / f"{variant}.json")


def record_toolchain(cassc: str, state: Path) -> None:
    """The toolchain the cassc builds in `state` used, as `cassc doctor --json` names it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CASSC_") or k in TOOLCHAIN_VARIABLES}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")]))
    printed = subprocess.run([cassc, "doctor", "--json"], env=env, capture_output=True, text=True).stdout
    state.mkdir(parents=True, exist_ok=True)
    (state / TOOLCHAIN_FILE).write_text(json.dumps(json.loads(printed)["toolchain"], indent=1))


def toolchain_label(state: Path, cassc: str) -> str:
    """`HIP X.Y, clang-NN` of the toolchain that built `state`'s cassc results (recorded with them; for
    older states, the one cassc finds here)."""
    if not (state / TOOLCHAIN_FILE).is_file():
        record_toolchain(cassc, state)
    toolchain = json.loads((state / TOOLCHAIN_FILE).read_text())
    return f"HIP {'.'.join(toolchain['hip_version'].split('.')[:2])}, clang-{toolchain['clang_version']}"


def build_variant(variant: str, names: list[str], src: Path, scratch: Path, args: argparse.Namespace,
                  state: Path, digests: dict[str, str]) -> dict[str, Build]:
    cached = load_state(state, variant)
    results: dict[str, Build] = {}
    todo = []
    for name in names:
        entry = cached.get(name)
        if entry and entry.get("digest") == digests[name]:
            results[name] = Build(**entry["build"])
        else:
            todo.append(name)
    if not todo or args.no_build:
        return results
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NVCC_", "CASSC_", "MAKEFLAGS", "MFLAGS"))}
    env["CASSC_CACHE_DIR"] = str(scratch / "cassc-cache")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")]))
    if variant == "cmake":
        built = build_with_cmake(todo, src.parent, scratch, args, environment_of_cassc_env(args.cassc, env))
        for name, build in built.items():
            cached[name] = {"digest": digests[name], "build": asdict(build)}
        save_state(state, variant, cached)
        return {**results, **built}
    tree = scratch / variant
    if not tree.exists():
        shutil.copytree(src, tree, symlinks=True)
    make_args = make_arguments(variant, args.cassc, sys.executable)
    if variant == "cassc":  # Makefiles that name nvcc itself find the stand-in toolkit's, as a user's would
        env = environment_of_cassc_env(args.cassc, env)
    done = 0
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = {pool.submit(run_make, name, variant, tree, make_args, env, args.timeout): name for name in todo}
        for future in concurrent.futures.as_completed(futures):
            build = future.result()
            results[build.benchmark] = build
            done += 1
            status = "ok" if build.ok else f"FAIL {build.first_error[:110]}"
            print(f"[{variant} {done}/{len(todo)}] {build.benchmark}: {status}", file=sys.stderr, flush=True)
            cached[build.benchmark] = {"digest": digests[build.benchmark], "build": asdict(build)}
            save_state(state, variant, cached)
    return results


def environment_of_cassc_env(cassc: str, env: dict[str, str]) -> dict[str, str]:
    """The environment a shell has after `eval "$(cassc env)"`."""
    printed = subprocess.run([cassc, "env"], env=env, capture_output=True, text=True, check=True).stdout
    result = dict(env)
    for line in printed.splitlines():
        key, _, value = line.removeprefix("export ").partition("=")
        result[key] = shlex.split(value)[0] if value else ""
    return result


def broken_benchmark_directories(log: str, known: set[str]) -> dict[str, str]:
    """The benchmark directories CMake's errors name (where the error is, or in its call stack), each
    with its error's first paragraph."""
    broken: dict[str, str] = {}
    for block in log.split("CMake Error at ")[1:]:
        directory = CMAKE_BENCHMARK_DIRECTORY.search(block.split("\n\n\n")[0])
        if directory and directory.group(1) not in known and directory.group(1) not in broken:
            broken[directory.group(1)] = " ".join(block.split("\n\n")[0].split())[:200]
    return broken


def failed_steps_by_benchmark(log: str) -> dict[str, str]:
    """Ninja's output of a `-k 0` build, cut into each failed step's output, keyed by benchmark."""
    chunks: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in log.splitlines():
        failed = CMAKE_FAILED_STEP.match(line)
        if failed:
            current = chunks.setdefault(failed.group("object") or failed.group("program"), [])
        elif CMAKE_PROGRESS.match(line):
            current = None
        if current is not None:
            current.append(line)
    return {name: "\n".join(lines) for name, lines in chunks.items()}


def build_with_cmake(names: list[str], hecbench: Path, scratch: Path, args: argparse.Namespace,
                     env: dict[str, str]) -> dict[str, Build]:
    """HeCBench's own CMake project, configured once and built with `ninja -k 0`; a benchmark is built
    when its executable exists. A benchmark directory whose CMakeLists.txt stops the configure step
    (e.g. one that unpacks a DVC data set that is not here, or needs a Fortran compiler) would stop
    every benchmark, so it is removed from the scratch copy and counted as not built."""
    tree, build_dir = scratch / "cmake-src", scratch / "cmake-build"
    if not tree.exists():
        shutil.copytree(hecbench, tree, symlinks=True, ignore=shutil.ignore_patterns(".git", "build"))
    configure = [args.cmake, "-S", str(tree), "--preset", CMAKE_PRESET, "-B", str(build_dir),
                 f"-DCMAKE_CUDA_COMPILER={args.cassc}", "-DCMAKE_BUILD_TYPE=Release"]
    removed: dict[str, str] = {}
    for _ in range(5):
        completed = subprocess.run(configure, env=env, capture_output=True, text=True, errors="replace")
        log = completed.stdout + completed.stderr
        broken = broken_benchmark_directories(log, set(removed))
        if completed.returncode == 0 or not broken:
            break
        for directory, message in broken.items():
            removed[directory] = message
            shutil.rmtree(tree / "src" / directory, ignore_errors=True)
    if completed.returncode != 0:
        error = f"CMake configure failed: {first_error(log)}"
        return {name: Build(name, "cmake", False, 0.0, error, log[-6000:]) for name in names}
    registered = set(re.findall(r"Registered benchmark: (\S+)-cuda", log))
    targets = [f"{name}-cuda" for name in names if name in registered]
    print(f"[cmake] configured; building {len(targets)} targets", file=sys.stderr, flush=True)
    started = time.perf_counter()
    built = subprocess.run([args.cmake, "--build", str(build_dir), "--parallel", str(args.jobs), "--target",
                            *targets, "--", "-k", "0"], env=env, capture_output=True, text=True, errors="replace")
    seconds = time.perf_counter() - started
    failed = failed_steps_by_benchmark(built.stdout + built.stderr)
    results = {}
    for name in names:
        if f"{name}-cuda" in removed:
            results[name] = Build(name, "cmake", False, 0.0, f"{CMAKE_CONFIGURE_ERROR} {removed[name + '-cuda']}", "")
        elif name not in registered:
            results[name] = Build(name, "cmake", False, 0.0, NOT_A_CMAKE_TARGET, "")
        elif (build_dir / "bin" / "cuda" / name).is_file():
            results[name] = Build(name, "cmake", True, seconds / max(1, len(targets)), "", "")
        else:
            log = failed.get(name, "")
            results[name] = Build(name, "cmake", False, 0.0, first_error(log) or "no executable", log[-6000:])
    return results


def cassc_fingerprint() -> str:
    """A digest of cassc's own files: results of another cassc are not reused."""
    digest = hashlib.sha256()
    for root in (REPO_ROOT / "cassc", REPO_ROOT / "shims"):
        for path in sorted(root.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                digest.update(str(path.relative_to(REPO_ROOT)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


def hipify_speed(src: Path) -> tuple[int, float]:
    """Lines per second of cassc's hipify (renames and the deterministic source rules, as `tree.py` runs
    them; no compiling) over every `*-cuda` source, in this process."""
    sys.path.insert(0, str(REPO_ROOT))
    from cassc.hipify.inline_ptx import rewrite_inline_ptx
    from cassc.hipify.rewrite import rewrite_source
    from cassc.hipify.tables import load_tables
    from cassc.hipify.vector_operators import guard_builtin_vector_operators

    tables = load_tables()
    texts = [p.read_text(errors="replace") for d in src.glob("*-cuda") for p in d.rglob("*")
             if p.is_file() and p.suffix in SOURCE_SUFFIXES and p.stat().st_size < 2_000_000]
    lines = sum(t.count("\n") + 1 for t in texts)
    started = time.perf_counter()
    for text in texts:
        guard_builtin_vector_operators(rewrite_inline_ptx(rewrite_source(text, tables).text)[0])
    return lines, time.perf_counter() - started


def outcomes(names: list[str], builds: dict[str, dict[str, Build]], src: Path) -> list[Outcome]:
    result = []
    for name in names:
        nvcc = builds["nvcc"].get(name)
        reason = out_of_reach_reason(src / f"{name}-cuda")
        if not reason and nvcc is not None and not nvcc.ok:
            reason = "the CUDA original does not build with nvcc here"
        cassc = builds["cassc"][name]
        hip = builds["hip"].get(name)
        cmake = builds["cmake"].get(name)
        result.append(Outcome(
            benchmark=name, in_reach=not reason, out_of_reach_reason=reason, cassc_ok=cassc.ok,
            hip_ok=None if hip is None or hip.first_error == "no Makefile" else hip.ok,
            cmake_ok=None if cmake is None else cmake.ok,
            failure_class="" if cassc.ok else classify(cassc), first_error=cassc.first_error,
            first_error_cmake="" if cmake is None else cmake.first_error.replace("|", "/").replace("`", "")[:160]))
    return result


def cmake_summary(in_reach: list[Outcome], built: list[Outcome]) -> list[str]:
    measured = [r for r in in_reach if r.cmake_ok is not None]
    if not measured:
        return []
    cmake_built = [r for r in measured if r.cmake_ok]
    lines = [f"- HeCBench's own CMake build (`eval \"$(cassc env)\"; cmake --preset {CMAKE_PRESET} "
             f"-DCMAKE_CUDA_COMPILER=cassc`, separable compilation): built {len(cmake_built)} of {len(measured)} "
             f"in-reach benchmarks (the `make CC=cassc` route: {len([r for r in built if r.cmake_ok is not None])})"]
    # Benchmarks HeCBench's CMake build cannot build with any compiler: no target, or a CMakeLists that
    # stops configure (a source file it names is missing from HeCBench). The comparison that measures
    # cassc is over the rest.
    defined = [r for r in measured if not r.first_error_cmake.startswith(CMAKE_NOT_BUILDABLE)]
    lines.append(f"  - on the {len(defined)} of those that HeCBench's CMake build defines and configures: CMake "
                 f"built {sum(bool(r.cmake_ok) for r in defined)}, `make` {sum(bool(r.cassc_ok) for r in defined)}")
    only_make = [r for r in measured if r.cassc_ok and not r.cmake_ok]
    if only_make:
        lines.append("  - built by `make` but not by CMake: " + "; ".join(
            f"{r.benchmark} (`{r.first_error_cmake}`)" for r in only_make))
    return lines


def by_toolchain(in_reach: list[Outcome], columns: list[tuple[str, dict[str, Build]]]) -> list[str]:
    """Each toolchain's failure classes, and every benchmark that fails on any toolchain, side by side."""
    out = ["## By toolchain", ""]
    for label, found in columns:
        classes: dict[str, int] = {}
        for build in found.values():
            if not build.ok:
                classes[classify(build)] = classes.get(classify(build), 0) + 1
        out.append(f"- {label}: built {sum(b.ok for b in found.values())} of {len(in_reach)} "
                   f"({100 * sum(b.ok for b in found.values()) / max(1, len(in_reach)):.1f}%); failures: "
                   + (", ".join(f"{c} {n}" for c, n in sorted(classes.items(), key=lambda kv: -kv[1])) or "none"))
    out += ["", "| benchmark | " + " | ".join(label for label, _ in columns) + " |",
            "|---|" + "---|" * len(columns)]
    for row in in_reach:
        cells = [found.get(row.benchmark) for _, found in columns]
        if all(cell is not None and cell.ok for cell in cells):
            continue
        shown = ["not built" if c is None else "built" if c.ok else
                 f"`{c.first_error.replace('|', '/').replace('`', '')[:160]}`" for c in cells]
        out.append(f"| {row.benchmark} | " + " | ".join(shown) + " |")
    return [*out, ""]


def markdown_report(rows: list[Outcome], builds: dict[str, dict[str, Build]], args: argparse.Namespace,
                    wall: float, speed: tuple[int, float]) -> str:
    in_reach = [r for r in rows if r.in_reach]
    built = [r for r in in_reach if r.cassc_ok]
    twins = [r for r in in_reach if r.hip_ok is not None]
    twins_built = [r for r in twins if r.hip_ok]
    cassc_on_twins = [r for r in twins if r.cassc_ok]
    lines_total, hipify_seconds = speed
    sample_note = f" in a seeded sample of {args.twins_sample}" if args.twins_sample else ""
    columns = [(args.label, {r.benchmark: builds["cassc"][r.benchmark] for r in in_reach})]
    columns += [(label, {r.benchmark: found[r.benchmark] for r in in_reach if r.benchmark in found})
                for label, found in args.columns]
    out = [f"built {sum(b.ok for b in found.values())} of {len(in_reach)} in-reach benchmarks ({label})"
           + ("" if len(found) == len(in_reach) else f"; {len(in_reach) - len(found)} not built in this column")
           for label, found in columns]
    out.append("")
    if args.unreported:
        out += [f"Partial run: {args.unreported} benchmarks have no cassc result in --state (a stopped run); the "
                f"{len(rows)} that have one are reported.", ""]
    out += [f"- {note}" for note in args.note]
    out += [f"- date: {dt.date.today().isoformat()}; HeCBench commit {HECBENCH_COMMIT}",
            f"- command: `{' '.join(shlex.quote(a) for a in sys.argv)}`",
            f"- benchmarks considered: {len(rows)}; in reach: {len(in_reach)} "
            f"(out of reach: {len(rows) - len(in_reach)}, below)",
            f"- cassc ({args.cassc}): built {len(built)} of {len(in_reach)} "
            f"({100 * len(built) / max(1, len(in_reach)):.1f}%)",
            f"- hand-written HIP twins, same toolchain: built {len(twins_built)} of {len(twins)} in-reach benchmarks "
            f"that have a twin{sample_note} (cassc on those same benchmarks: {len(cassc_on_twins)} of {len(twins)})",
            *cmake_summary(in_reach, built),
            f"- hipify speed: {lines_total} lines in {hipify_seconds:.2f} s = "
            f"{lines_total / max(hipify_seconds, 1e-9):,.0f} lines/s (one process; renames and source rules, no compiling)",
            f"- wall time of this invocation: {wall / 60:.1f} min with {args.jobs} parallel builds "
            f"(results reused from --state where the benchmark and cassc are unchanged; the nvcc references were "
            f"built on the lent GPU machine's nvcc 13.0 with this script's `--variants nvcc`)", ""]
    if args.columns:
        out += by_toolchain(in_reach, columns)
    failures: dict[str, list[Outcome]] = {}
    for row in in_reach:
        if not row.cassc_ok:
            failures.setdefault(row.failure_class, []).append(row)
    out.append(f"## cassc failures among in-reach benchmarks, by class ({args.label})")
    out.append("")
    for failure_class, members in sorted(failures.items(), key=lambda kv: -len(kv[1])):
        out += [f"### {failure_class} ({len(members)})", "", "| benchmark | HIP twin builds | first error |",
                "|---|---|---|"]
        for row in members:
            twin = {None: "-", True: "yes", False: "no"}[row.hip_ok]
            out.append(f"| {row.benchmark} | {twin} | `{row.first_error.replace('|', '/').replace('`', '')}` |")
        out.append("")
    out += ["## Out of reach", "", "| reason | count |", "|---|---|"]
    reasons: dict[str, int] = {}
    for row in rows:
        if not row.in_reach:
            reasons[row.out_of_reach_reason] = reasons.get(row.out_of_reach_reason, 0) + 1
    out += [f"| {reason} | {count} |" for reason, count in sorted(reasons.items(), key=lambda kv: -kv[1])]
    out.append("")
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("hecbench", type=Path, help="HeCBench checkout (commit f27000a51)")
    parser.add_argument("--cassc", default=str(REPO_ROOT / ".venv" / "bin" / "cassc"))
    parser.add_argument("--cmake", default="cmake", help="the cmake of the `cmake` variant (HeCBench needs >= 3.21)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per benchmark build")
    parser.add_argument("--only", help="regex on benchmark names")
    parser.add_argument("--sample", type=int, help="a random sample of this many benchmarks (seeded)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--twins-sample", type=int, help="build the HIP twins of a seeded sample of this many only")
    parser.add_argument("--state", type=Path, default=DEFAULT_STATE)
    parser.add_argument("--results", type=Path, default=DEFAULT_RESULTS)
    parser.add_argument("--json", action="store_true", help="print the raw results as JSON on stdout")
    parser.add_argument("--pack-sources", type=Path, metavar="TARBALL",
                        help="write the build inputs of the checkout to TARBALL (for the lent GPU machine) and stop")
    parser.add_argument("--note", action="append", default=[],
                        help="a line for the report, e.g. where the builds in --state ran (repeatable)")
    parser.add_argument("--column", action="append", default=[], type=Path, metavar="STATE",
                        help="another toolchain's --state: its cassc results become a column (repeatable)")
    parser.add_argument("--no-build", action="store_true",
                        help="report only the benchmarks whose results are already in --state (a partial run)")
    args = parser.parse_args()

    if args.pack_sources:
        pack_sources(args.hecbench, args.pack_sources)
        return
    src = args.hecbench / "src"
    names = benchmark_names(src)
    if args.only:
        names = [n for n in names if re.search(args.only, n)]
    if args.sample:
        names = sorted(random.Random(args.seed).sample(names, min(args.sample, len(names))))
    variants = [v for v in VARIANTS if v in args.variants.split(",")]
    started = time.perf_counter()
    builds: dict[str, dict[str, Build]] = {v: {} for v in VARIANTS}
    with tempfile.TemporaryDirectory(prefix="hecbench-build-") as scratch:
        for variant in variants:
            suffixes = ("-cuda", "-hip") if variant == "hip" else ("-cuda",)
            digests = {name: "".join(directory_digest(src / f"{name}{suffix}") for suffix in suffixes)
                       for name in names}
            if variant in ("cassc", "cmake"):  # a cassc result stands only for the cassc that produced it
                digests = {name: d + cassc_fingerprint() for name, d in digests.items()}
            if variant == "hip" and args.twins_sample:
                names_built = sorted(random.Random(args.seed).sample(names, min(args.twins_sample, len(names))))
                builds[variant] = build_variant(variant, names_built, src, Path(scratch), args, args.state, digests)
                continue
            builds[variant] = build_variant(variant, names, src, Path(scratch), args, args.state, digests)
    wall = time.perf_counter() - started
    args.unreported = 0
    if args.no_build:
        reported = [n for n in names if n in builds["cassc"]]
        args.unreported, names = len(names) - len(reported), reported
    if "cassc" not in variants:
        return  # reference builds only (e.g. nvcc on another machine): the results are in --state
    if not args.no_build:
        record_toolchain(args.cassc, args.state)
    args.label = toolchain_label(args.state, args.cassc)
    # A column is another toolchain's run, usually of an earlier cassc (one device call carries one toolchain):
    # its results stand where the benchmark's sources are the same; the notes say which cassc built each.
    source_digests = {name: directory_digest(src / f"{name}-cuda") for name in names}
    args.columns = []
    for column in args.column:
        entries = load_state(column, "cassc")
        args.columns.append((toolchain_label(column, args.cassc),
                             {n: Build(**e["build"]) for n, e in entries.items()
                              if n in source_digests and e.get("digest", "").startswith(source_digests[n])}))
    rows = outcomes(names, builds, src)
    speed = hipify_speed(src)
    report = markdown_report(rows, builds, args, wall, speed)
    if not args.only and not args.sample:
        args.results.parent.mkdir(parents=True, exist_ok=True)
        args.results.write_text(report)
    print(report, file=sys.stderr)
    if args.json:
        print(json.dumps({"outcomes": [asdict(r) for r in rows],
                          "builds": {v: {n: asdict(b) for n, b in bs.items()} for v, bs in builds.items()}},
                         indent=1))


if __name__ == "__main__":
    main()
