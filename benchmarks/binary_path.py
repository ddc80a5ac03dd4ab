#!/usr/bin/env python3
"""The binary path over HeCBench: nvcc-built objects only, handed to cassc's translator.

Given a HeCBench checkout (github.com/zjin-lcf/HeCBench at commit f27000a51; public code that is never
committed here) this takes a seeded sample of `*-cuda` benchmarks and, for each:

  build      `make CC=nvcc ARCH=sm_90` in a scratch copy (the checkout is never written to); the objects
             it leaves are the only input to what follows;
  translate  every kernel of every object, PTX -> LLVM IR -> gfx1100 (cassc.binary.translate: the code
             object is validated: kernarg size = CUDA parameter layout, LDS within a workgroup);
  round trip the same IR lowered to NVPTX (cassc.binary.lift with the NVPTX target), assembled by ptxas
             for sm_90, wrapped by `fatbinary` and put in place of the object's `.nv_fatbin` (objcopy);
             the program is relinked by its own Makefile. An object with an untranslated kernel keeps
             its original device code (its kernels then count as not round-tripped);
  compare    static instruction count and allocated VGPRs of each translated gfx1100 kernel against the
             same kernel compiled from the `*-hip` twin's source by HIP clang (same clang, same target).

`prepare` does all of that here and packs the original and round-trip executables with their run
commands (each Makefile's `run` target) and the data files those read that HeCBench's tree holds into one
tarball; `device.py` (written beside it) runs both on the lent GPU (a time limit per run, N at a time, optionally
one of several parts, so that a batch fits a device call) and writes what each printed; `report` compares the two outputs (lines that report times are
left out: they differ between any two runs) and writes benchmarks/results/binary-path.md.

    .venv/bin/python benchmarks/binary_path.py prepare /work/hecbench --sample 120 --jobs 2 --work /tmp/bp \
        --skip-failing-originals ~/.cache/cassc-benchmarks/hecbench/verify.json
    (on the GPU machine, one part per GPU)  python3 pack/device.py pack $OUT/p1 --timeout 240 --jobs 4 --part 1/4 ...
    .venv/bin/python benchmarks/binary_path.py report --work /tmp/bp --device-results p*/results-*-of-4.json \
        --device "four H200s (sm_90)"

`build --builds DIR` fills a cache of the sample's nvcc builds (and, with --hip, the HIP twins' counts) that
`prepare`/`one --builds DIR` reuse: the builds do not depend on the translator, so a re-preparation after a
translator change spends its time on translation alone. `--sample-of WORK` takes an earlier preparation's sample.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import math
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tarfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_RESULTS = REPO_ROOT / "benchmarks" / "results" / "binary-path.md"
CUDA_BIN = Path("/usr/local/cuda/bin")
# What the binary path cannot take: libraries outside CUDA's runtime (their device code is NVIDIA's, their host
# API not in the shim) and what this machine lacks (MPI, Boost, GSL, GDAL, OpenMP's runtime for nvcc's g++).
# Cooperative groups, Thrust, CUB, cuda::pipeline/barrier and wmma translate (docs/DESIGN.md).
OUT_OF_REACH = re.compile(r"mpi\.h|boost/|gsl/|gdal|cublas|cufft|cusparse|curand|cusolver|nvrtc|cudnn|nccl|omp\.h")
# The binary path's target for translated code size (issue 17: gfx1100 instructions vs HIP clang, geomean).
INSTRUCTION_TARGET = "<= 1.5x"
# Alignment padding between and after functions, not code.
PADDING = re.compile(r"^\s+(?:s_nop|s_code_end)\b")

DEVICE_SCRIPT = r'''
import argparse, json, os, subprocess, sys, time, concurrent.futures as cf
parser = argparse.ArgumentParser(description="run each packed program as nvcc built it and, where that finished, "
                                 "as round-tripped")
parser.add_argument("packs", nargs="+", help="one or more pack directories (their programs share the GPU)")
parser.add_argument("out")
parser.add_argument("--timeout", type=float, default=60, help="seconds per run")
parser.add_argument("--jobs", type=int, default=8, help="programs at a time (they share the GPU and the cores)")
parser.add_argument("--part", default="1/1", help="I/N: the I-th of N equal shares of each pack's programs")
parser.add_argument("--deadline", type=float, default=500,
                    help="seconds: no run starts later, and none runs past it (recorded as 'not run')")
args = parser.parse_args()
start = time.monotonic()
index, count = (int(x) for x in args.part.split("/"))
packs = {pack: json.load(open(os.path.join(pack, "jobs.json")))[index - 1::count] for pack in args.packs}
def results_file(pack):  # several packs (one per arch, say): each its own file, named by its directory
    label = os.path.basename(os.path.normpath(pack)) + "-" if len(packs) > 1 else ""
    return os.path.join(args.out, f"results-{label}{index}-of-{count}.json")
def run(pack, job, variant):
    left = args.deadline - (time.monotonic() - start)
    if left < 1:
        return {"rc": "not run", "stdout": "", "stderr": "deadline", "seconds": 0}
    limit = min(args.timeout, left)
    began = time.monotonic()
    try:
        done = subprocess.run(["./" + variant, *job["args"]], cwd=os.path.join(pack, job["name"]), capture_output=True,
                              text=True, errors="replace", timeout=limit)
        return {"rc": done.returncode, "stdout": done.stdout[-20000:], "stderr": done.stderr[-4000:],
                "seconds": round(time.monotonic() - began, 1)}
    except subprocess.TimeoutExpired:
        return {"rc": "timeout" if limit == args.timeout else "not run", "stdout": "", "stderr": f"limit {limit:.0f} s",
                "seconds": round(time.monotonic() - began, 1)}
try:  # the comparison, where the pack carries it (binary_corpora.py's packs)
    from hecbench_verify import compare_outputs
except ImportError:
    compare_outputs = None
def program(pack, job):
    # The round trip only where the original finished: a program that cannot be compared spends no GPU time twice.
    original = run(pack, job, "original")
    trip = run(pack, job, "roundtrip") if isinstance(original["rc"], int) else \
        {"rc": "not run", "stdout": "", "stderr": "the original did not finish", "seconds": 0}
    result = {"original": original, "roundtrip": trip}
    # A round trip whose output differs from the original's: the original once more, after it (a program seeded
    # from the clock starts in another second), so that the comparison can leave out what varies in the original's
    # own runs (which can turn "differs" into "same", never the other way: other programs need no second run).
    if compare_outputs and original["rc"] == trip["rc"] == 0 and compare_outputs(
            [original["stdout"]], trip["stdout"].replace("./roundtrip", "./original")).status != "same":
        result["again"] = [run(pack, job, "original")]
    return result
results = {pack: {} for pack in packs}
order = [(pack, jobs[position]) for position in range(max(len(jobs) for jobs in packs.values()))
         for pack, jobs in packs.items() if position < len(jobs)]  # the packs interleaved: each gets as far
with cf.ThreadPoolExecutor(args.jobs) as pool:
    futures = {pool.submit(program, pack, job): (pack, job["name"]) for pack, job in order}
    for future in cf.as_completed(futures):  # saved as they finish: a run cut short keeps what it has
        pack, name = futures[future]
        results[pack][name] = future.result()
        json.dump(results[pack], open(results_file(pack), "w"))
for pack, runs in results.items():
    print(pack, sum(r["original"]["rc"] == 0 for r in runs.values()), "of", len(runs), "originals finished,",
          sum(r["original"]["rc"] == 0 and r["original"]["stdout"] == r["roundtrip"]["stdout"] for r in runs.values()),
          "identical outputs (before filtering timing lines)")
print(f"{time.monotonic() - start:.0f} s")
'''
# Inputs a program reads: copied into the pack where its run expects them, if they are in HeCBench's tree and
# small (most large inputs are DVC-tracked archives, absent from a checkout).
DATA_FILE_LIMIT = 4 << 20
DATA_TOTAL_LIMIT = 8 << 20
NOT_DATA = re.compile(r"\.(cu|cuh|h|hpp|c|cc|cpp|o|dvc|md|cmake|py|sh)$|^(Makefile|CMakeLists\.txt|LICENSE.*|README.*)$")


@dataclass
class KernelResult:
    name: str
    translated: bool
    reason: str = ""
    round_trip: bool = False  # its object's device code was replaced by the NVPTX round trip
    instructions: int = 0
    vgprs: int = 0
    hip_instructions: int = 0
    hip_vgprs: int = 0


@dataclass
class BenchmarkResult:
    name: str
    built: bool
    note: str = ""
    kernels: list[KernelResult] = field(default_factory=list)
    args: list[str] = field(default_factory=list)
    packed: bool = False


def run(command: list[str], cwd: Path, timeout: int = 600, env: dict[str, str] | None = None
        ) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, errors="replace", timeout=timeout,
                          env={**os.environ, **(env or {})})


def in_reach(directory: Path) -> bool:
    makefile = directory / "Makefile"
    if not makefile.exists():
        return False
    for source in directory.iterdir():
        if source.suffix in (".cu", ".h", ".cuh", ".cpp") and OUT_OF_REACH.search(source.read_text(errors="replace")):
            return False
    return True


def run_arguments(directory: Path) -> list[str] | None:
    """The arguments of the Makefile's `run` target."""
    dry = run(["make", "-n", "run", "LAUNCHER="], directory)
    lines = [line for line in dry.stdout.splitlines() if line.strip().startswith("./")]
    if not lines:
        return None
    return lines[-1].split()[1:]


def data_files(source: Path, arguments: list[str]) -> dict[Path, Path]:
    """What the program may read -> its place relative to the pack, which stands for HeCBench's `src`
    (the program runs in pack/<benchmark>): the benchmark's own non-source files, `src/data/<stem>` (read by
    hard-coded paths such as srad's ../data/srad/image.pgm), and every path its arguments name that exists
    in the tree (../inversek2j-sycl/coord_in.txt). Files over DATA_FILE_LIMIT are left out; so is
    everything once a benchmark's data passes DATA_TOTAL_LIMIT."""
    root = source.parent.resolve()
    shared = root / "data" / source.name.removesuffix("-cuda")
    candidates = [f for directory in (source, shared) if directory.is_dir() for f in directory.rglob("*")
                  if f.is_file() and not NOT_DATA.search(f.name) and not f.name.startswith(".")]
    for word in arguments:
        named = (source / word).resolve()
        if named.is_relative_to(root) and named.exists():
            candidates += [named] if named.is_file() else [f for f in named.rglob("*") if f.is_file()]
    chosen: dict[Path, Path] = {}
    total = 0
    for path in candidates:
        path = path.resolve()
        size = path.stat().st_size
        if path in chosen or size > DATA_FILE_LIMIT or total + size > DATA_TOTAL_LIMIT:
            continue
        chosen[path] = path.relative_to(root)
        total += size
    return chosen


def instruction_counts(code_object: Path) -> dict[str, int]:
    from cassc.toolchain import find_toolchain

    objdump = find_toolchain().lld.with_name("llvm-objdump")
    listing = run([str(objdump), "-d", "--mcpu=gfx1100", str(code_object)], code_object.parent).stdout
    counts: dict[str, int] = {}
    current = None
    for line in listing.splitlines():
        header = re.match(r"^[0-9a-f]+ <(.+)>:$", line)
        if header:
            current = header.group(1)
            counts[current] = 0
        elif current and re.match(r"^\s+[a-z_0-9]+", line) and "//" in line and not PADDING.search(line):
            counts[current] += 1
    # A subroutine the SASS route keeps out of line is named after its kernel (KERNEL.$__internal_...): its
    # instructions count as the kernel's, as the copies at each call did.
    for name in [n for n in counts if "." in n and n.split(".", 1)[0] in counts]:
        counts[name.split(".", 1)[0]] += counts.pop(name)
    return counts


def hip_twin_kernels(twin: Path, scratch: Path) -> dict[str, tuple[int, int]]:
    """kernel -> (instructions, VGPRs) of the hand-written HIP twin compiled by HIP clang for gfx1100."""
    sys.path.insert(0, str(REPO_ROOT / "benchmarks"))
    from hipcc_stand_in import hipcc_command

    from cassc.formats.code_object import kernel_descriptors

    found: dict[str, tuple[int, int]] = {}
    for index, source in enumerate(sorted(twin.glob("*.cu")) + sorted(twin.glob("*.cpp"))):
        if "__global__" not in source.read_text(errors="replace"):
            continue
        output = scratch / f"hip-{index}.co"
        sibling = twin.with_name(twin.name.replace("-hip", "-cuda"))  # some twins include their sibling's headers
        command = hipcc_command(["-std=c++17", "-O3", f"-I{twin}", f"-I{sibling}", "--cuda-device-only",
                                 "--no-gpu-bundle-output",
                                 "-c", str(source), "-o", str(output)], "gfx1100")
        if run(command, twin).returncode != 0 or not output.exists():
            continue
        counts = instruction_counts(output)
        for name, descriptor in kernel_descriptors(output.read_bytes()).items():
            found[name] = (counts.get(name, 0), descriptor.vgprs)
    return found


def failing_originals(verify_state: Path) -> set[str]:
    """The `*-cuda` benchmarks whose nvcc-built original exited with an error on the H200 in every run
    `hecbench_verify.py` recorded (nearly all for want of a data set kept outside HeCBench's git tree).
    Reaching that run's time limit is not an error: such a program runs here with a longer one."""
    failing = set()
    for name, record in json.loads(verify_state.read_text()).items():
        statuses = [run.get("exit_status") for run in record.get("runs", {}).get("original", [])]
        if statuses and all(status not in (0, 124) for status in statuses):
            failing.add(f"{name}-cuda")
    return failing


def sample_names(args: argparse.Namespace) -> tuple[list[str], list[str]]:
    """The seeded sample, and the benchmarks the seed drew before its last that were left out as failing; or
    the sample an earlier preparation recorded (--sample-of), for a comparison over the same programs."""
    if args.sample_of:
        earlier = Path(args.sample_of)
        recorded = json.loads((earlier / "sample.json").read_text())
        return [r["name"] for r in json.loads((earlier / "state.json").read_text())], recorded["left_out"]
    source_root = Path(args.hecbench) / "src"
    names = sorted(d.name for d in source_root.iterdir() if d.name.endswith("-cuda") and in_reach(d))
    random.Random(args.seed).shuffle(names)
    failing = failing_originals(Path(args.skip_failing_originals)) if args.skip_failing_originals else set()
    chosen = [n for n in names if n not in failing][:args.sample]
    return chosen, [n for n in names[:names.index(chosen[-1]) + 1] if n in failing]


def prepare(args: argparse.Namespace) -> None:
    """Each benchmark in a child process (`one`): LLVM aborts the whole process on some internal errors."""
    source_root = Path(args.hecbench) / "src"
    work = Path(args.work)
    pack = work / "pack"
    shutil.rmtree(work, ignore_errors=True)
    (work / "results").mkdir(parents=True)
    pack.mkdir()
    chosen, left_out = sample_names(args)
    sample = {"seed": args.seed, "left_out": left_out, "arch": args.arch, "sass": args.sass}
    (work / "sample.json").write_text(json.dumps(sample))
    (work / "build").mkdir()
    for extra in ("include", "data"):  # a few Makefiles reach ../include
        if (source_root / extra).exists():
            (work / "build" / extra).symlink_to(source_root / extra)

    started = time.monotonic()

    def child(name: str) -> subprocess.CompletedProcess[str] | None:
        if args.deadline and time.monotonic() - started > args.deadline:
            return None  # not reached: left out of the covered sample, in seed order
        left = args.deadline - (time.monotonic() - started) if args.deadline else 900
        try:  # a benchmark may take past the deadline by as much as its own limit
            return run([sys.executable, __file__, "one", args.hecbench, name, "--work", str(work), "--arch",
                        args.arch, *(["--sass"] if args.sass else []), *(["--builds", args.builds] if args.builds else [])],
                       REPO_ROOT, timeout=int(min(1200, left + 300)))
        except subprocess.TimeoutExpired:
            return subprocess.CompletedProcess([], 1, "", "timed out")

    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        children = dict(zip(chosen, pool.map(child, chosen)))
    reached = [name for name in chosen if children[name] is not None]
    if len(reached) < len(chosen):
        sample["not_reached"] = [name for name in chosen if children[name] is None]
        (work / "sample.json").write_text(json.dumps(sample))
    results: list[BenchmarkResult] = []
    jobs = []
    for name in reached:
        record = work / "results" / f"{name}.json"
        if not record.exists():
            lines = (children[name].stderr.strip() or "no output").splitlines()
            results.append(BenchmarkResult(name, True, f"translator crashed: {lines[-1][:160]}"))
            print(f"{name}: crashed: {lines[-1][:160]}", file=sys.stderr, flush=True)
            continue
        saved = json.loads(record.read_text())
        result = BenchmarkResult(**{**saved, "kernels": [KernelResult(**k) for k in saved["kernels"]]})
        results.append(result)
        print(f"{name}: {sum(k.translated for k in result.kernels)}/{len(result.kernels)} kernels translated; "
              f"{result.note or ('packed' if result.packed else '')}", file=sys.stderr, flush=True)
        if result.packed:
            jobs.append({"name": name, "args": result.args})
    (pack / "jobs.json").write_text(json.dumps(jobs))
    (pack / "device.py").write_text(DEVICE_SCRIPT)
    with tarfile.open(work / "pack.tar.xz", "w:xz") as archive:
        archive.add(pack, arcname="pack")
    (work / "state.json").write_text(json.dumps([asdict(r) for r in results], indent=1))
    print(f"packed {len(jobs)} programs: {work / 'pack.tar.xz'} ({(work / 'pack.tar.xz').stat().st_size} bytes)",
          file=sys.stderr)


def one(args: argparse.Namespace) -> None:
    work = Path(args.work)
    result = prepare_one(args.name, Path(args.hecbench) / "src", work, args.arch, args.sass,
                         Path(args.builds) if args.builds else None)
    (work / "results" / f"{args.name}.json").write_text(json.dumps(asdict(result)))


def nvcc_build(name: str, source_root: Path, scratch: Path, arch: str, builds: Path | None) -> bool:
    """`make CC=nvcc` in `scratch`, a copy of the benchmark; whether it succeeded. With `builds`, a cache of
    untouched build directories (one per arch) that any later preparation reuses: the nvcc build does not
    depend on the translator, and it is most of a preparation's time. copytree keeps the times, so a later
    `make` (the relink) finds the objects up to date."""
    cached = builds / arch / name if builds else None
    if cached and (cached / ".cassc-built").exists():
        shutil.copytree(cached, scratch, symlinks=True)
        return (cached / ".cassc-built").read_text() == "0"
    shutil.copytree(source_root / name, scratch, symlinks=True)
    done = run(["make", "-j2", "CC=nvcc", f"ARCH={arch}"], scratch, env={"PATH": f"{CUDA_BIN}:{os.environ['PATH']}"})
    if cached:
        shutil.rmtree(cached, ignore_errors=True)
        shutil.copytree(scratch, cached, symlinks=True)
        (cached / ".cassc-built").write_text(str(done.returncode))
    return done.returncode == 0


def hip_twin(twin: Path, scratch: Path, builds: Path | None) -> dict[str, tuple[int, int]]:
    """hip_twin_kernels, kept in `builds` (the same for every arch and translator version)."""
    if not twin.is_dir():
        return {}
    cached = builds / "hip" / f"{twin.name}.json" if builds else None
    if cached and cached.exists():
        return {name: (counts[0], counts[1]) for name, counts in json.loads(cached.read_text()).items()}
    found = hip_twin_kernels(twin, scratch)
    if cached:
        cached.parent.mkdir(parents=True, exist_ok=True)
        cached.write_text(json.dumps(found))
    return found


def build(args: argparse.Namespace) -> None:
    """Only the nvcc builds (and HIP twins) of the sample, into --builds, for preparations to come."""
    builds = Path(args.builds)
    source_root = Path(args.hecbench) / "src"
    scratch_root = builds / "scratch" / args.arch
    scratch_root.mkdir(parents=True, exist_ok=True)
    for extra in ("include", "data"):
        if (source_root / extra).exists() and not (scratch_root / extra).exists():
            (scratch_root / extra).symlink_to(source_root / extra)
    for name in sample_names(args)[0]:
        started = time.monotonic()
        scratch = scratch_root / name
        shutil.rmtree(scratch, ignore_errors=True)
        built = nvcc_build(name, source_root, scratch, args.arch, builds)
        if args.hip:
            hip_twin(source_root / name.replace("-cuda", "-hip"), scratch, builds)
        shutil.rmtree(scratch, ignore_errors=True)
        print(f"{name}: {'built' if built else 'failed'} {time.monotonic() - started:.0f} s", flush=True)


def prepare_one(name: str, source_root: Path, work: Path, arch: str = "sm_90", sass: bool = False,
                builds: Path | None = None) -> BenchmarkResult:
    """`sass`: every object's device code is lifted from its SASS (the SASS route, forced), not its PTX."""
    from cassc.binary.codegen import data_layout, nvptx_assembly
    from cassc.binary.extract import read_binary
    from cassc.binary.lift import NVPTX, lift_module
    from cassc.binary.ptx import parse_ptx
    from cassc.binary.sass_translate import lift_modules_sass
    from cassc.binary.translate import is_separate, translate, translate_group
    from cassc.errors import CasscError
    from cassc.toolchain import find_toolchain

    pack = work / "pack"
    lld = find_toolchain().lld
    scratch = work / "build" / name
    built = nvcc_build(name, source_root, scratch, arch, builds)
    programs = [p for p in scratch.iterdir() if p.is_file() and os.access(p, os.X_OK) and p.suffix == ""
                and p.read_bytes()[:4] == b"\x7fELF"]
    result = BenchmarkResult(name, built and len(programs) == 1)
    if not result.built:
        result.note = "nvcc build failed" if not built else "not one program"
        return result
    program = programs[0]
    original = program.read_bytes()
    twin = hip_twin(source_root / name.replace("-cuda", "-hip"), scratch, builds)
    replaced_any = False
    separate: list = []  # the -rdc modules: one program, translated together as cassc's link does
    for obj in sorted(scratch.rglob("*.o")):  # a Makefile may build its objects in a subdirectory (src/)
        try:
            modules = read_binary(obj)
        except CasscError as error:
            result.note = str(error)
            continue
        for module in modules:
            if is_separate(module):
                separate.append(module)
                continue
            try:
                translation = translate(module, scratch, lld, force_sass=sass)
            except CasscError as error:
                result.kernels += [KernelResult(k.name, False, str(error).splitlines()[0]) for k in module.kernels]
                continue
            code_object = obj.with_name(f"{obj.stem}.gfx1100.hsaco")
            code_object.write_bytes(translation.code_object)
            kernel_results = kernel_comparison(translation, code_object, twin)
            result.kernels += kernel_results
            if translation.failures or module.images[0].section != ".nv_fatbin":
                continue
            try:
                ir = lift_modules_sass([module], NVPTX)[0] if sass else \
                    lift_module(parse_ptx(module.best_ptx() or ""), NVPTX, data_layout(NVPTX)).ir
                ptx_text = nvptx_assembly(ir)
            except CasscError as error:
                result.note = f"NVPTX lowering: {error}"
                continue
            stem = obj.with_name(f"{obj.stem}.roundtrip")
            Path(f"{stem}.ptx").write_text(ptx_text)
            steps = [[str(CUDA_BIN / "ptxas"), "-arch=sm_90", f"{stem}.ptx", "-o", f"{stem}.cubin"],
                     [str(CUDA_BIN / "fatbinary"), "-64", f"--create={stem}.fatbin",
                      f"--image3=kind=elf,sm=90,file={stem}.cubin"],
                     ["objcopy", f"--update-section=.nv_fatbin={stem}.fatbin", str(obj)]]
            for step in steps:
                done = run(step, scratch)
                if done.returncode != 0:
                    result.note = f"{Path(step[0]).name}: {done.stderr.strip()[:200]}"
                    break
            else:
                replaced_any = True
                for kernel in kernel_results:
                    kernel.round_trip = kernel.translated
    if separate:  # translated, not round-tripped: nvlink's device link would have to be redone
        try:
            translation = translate_group(separate, scratch, lld, force_sass=sass)
            code_object = scratch / "rdc.gfx1100.hsaco"
            code_object.write_bytes(translation.code_object)
            result.kernels += kernel_comparison(translation, code_object, twin)
        except CasscError as error:
            result.kernels += [KernelResult(k.name, False, str(error).splitlines()[0]) for m in separate
                               for k in m.kernels]
    arguments = run_arguments(scratch)
    if not replaced_any or arguments is None:
        result.note = result.note or ("no object round-tripped" if not replaced_any else "no run target")
        return result
    program.unlink()
    relinked = run(["make", "CC=nvcc", f"ARCH={arch}"], scratch, env={"PATH": f"{CUDA_BIN}:{os.environ['PATH']}"})
    if relinked.returncode != 0 or not program.exists():
        result.note = f"relink failed: {relinked.stderr.strip()[:200]}"
        return result
    target = pack / name
    target.mkdir()
    (target / "original").write_bytes(original)
    shutil.copyfile(program, target / "roundtrip")
    for variant in ("original", "roundtrip"):
        (target / variant).chmod(0o755)
        run(["strip", variant], target)
    for path, place in data_files(source_root / name, arguments).items():
        (pack / place).parent.mkdir(parents=True, exist_ok=True)
        if not (pack / place).exists():  # two benchmarks may read the same shared file
            shutil.copyfile(path, pack / place)
    result.args = arguments
    result.packed = True
    return result


def kernel_comparison(translation, code_object: Path, twin: dict[str, tuple[int, int]]) -> list[KernelResult]:  # type: ignore[no-untyped-def]
    """Each kernel of a translation: translated or why not, instructions and VGPRs beside the HIP twin's."""
    counts = instruction_counts(code_object) if translation.code_object else {}
    return [KernelResult(k.name, True, instructions=counts.get(k.name, 0), vgprs=k.vgprs,
                         hip_instructions=twin.get(k.name, (0, 0))[0], hip_vgprs=twin.get(k.name, (0, 0))[1])
            for k in translation.kernels] + [KernelResult(k, False, reason) for k, reason in translation.failures.items()]


def retranslate(args: argparse.Namespace) -> None:
    """Translate every prepared benchmark's objects again with the translator as it is now (each in a child,
    as `prepare` does), so that `report --recount` counts one translator version's instructions."""
    work = Path(args.work)
    names = [r["name"] for r in json.loads((work / "state.json").read_text()) if r["built"]
             and (not args.names or r["name"] in args.names)]
    rebuild = work / "rebuild"
    rebuild.mkdir(exist_ok=True)
    for extra in ("include", "data"):  # as in prepare: a few Makefiles reach ../include
        if (Path(args.hecbench) / "src" / extra).exists() and not (rebuild / extra).exists():
            (rebuild / extra).symlink_to(Path(args.hecbench) / "src" / extra)

    def child(name: str) -> None:
        try:
            run([sys.executable, __file__, "retranslate-one", args.hecbench, name, "--work", str(work)], REPO_ROOT,
                timeout=1200)
        except subprocess.TimeoutExpired:
            print(f"{name}: timed out", file=sys.stderr)

    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        list(pool.map(child, names))


def retranslate_one(args: argparse.Namespace) -> None:
    """One benchmark: nvcc builds it again in a scratch copy; each object's code object replaces the one
    `prepare` left in the build directory (the round trip stays prepare's)."""
    from cassc.binary.extract import read_binary
    from cassc.binary.translate import is_separate, translate, translate_group
    from cassc.errors import CasscError
    from cassc.toolchain import find_toolchain

    work = Path(args.work)
    sample = json.loads((work / "sample.json").read_text())
    arch = sample.get("arch", "sm_90")
    scratch = work / "rebuild" / args.name
    shutil.rmtree(scratch, ignore_errors=True)
    shutil.copytree(Path(args.hecbench) / "src" / args.name, scratch, symlinks=True)
    run(["make", "-j2", "CC=nvcc", f"ARCH={arch}"], scratch, env={"PATH": f"{CUDA_BIN}:{os.environ['PATH']}"})
    separate = []
    for obj in sorted(scratch.rglob("*.o")):
        try:
            for module in read_binary(obj):
                if is_separate(module):
                    separate.append(module)
                    continue
                translation = translate(module, scratch, find_toolchain().lld, force_sass=bool(sample.get("sass")))
                if translation.code_object:
                    (work / "build" / args.name / obj.relative_to(scratch).with_suffix(".gfx1100.hsaco")).write_bytes(
                        translation.code_object)
        except CasscError:
            continue
    try:
        translation = translate_group(separate, scratch, find_toolchain().lld, force_sass=bool(sample.get("sass"))) \
            if separate else None
        if translation is not None and translation.code_object:
            (work / "build" / args.name / "rdc.gfx1100.hsaco").write_bytes(translation.code_object)
    except CasscError:
        pass
    shutil.rmtree(scratch, ignore_errors=True)


def same_output(original: str, round_trip: str) -> bool:
    """Equal but for timing lines and last-digit noise: hecbench_verify.py's comparison, one rule for both."""
    from hecbench_verify import compare_outputs

    return compare_outputs([original], round_trip).status == "same"


def geomean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def recount(work: Path, state: list[BenchmarkResult]) -> None:
    """Count instructions again from the code objects `prepare` left in the build directories."""
    for result in state:
        build = work / "build" / result.name
        ours: dict[str, int] = {}
        hip: dict[str, int] = {}
        for code_object in build.rglob("*.gfx1100.hsaco"):
            ours.update(instruction_counts(code_object))
        for code_object in build.glob("hip-*.co"):
            hip.update(instruction_counts(code_object))
        for kernel in result.kernels:
            kernel.instructions = ours.get(kernel.name, kernel.instructions)
            kernel.hip_instructions = hip.get(kernel.name, kernel.hip_instructions)


def kept_notes(results: Path) -> list[str]:
    """The hand-written `## Notes...` section of an existing results file, which a report keeps."""
    if not results.exists():
        return []
    text = results.read_text()
    start = text.find("\n## Notes")
    if start < 0:
        return []
    end = text.find("\n## ", start + 1)
    return text[start + 1:end + 1 if end >= 0 else len(text)].splitlines()


def report(args: argparse.Namespace) -> None:
    work = Path(args.work)
    state = [BenchmarkResult(**{**r, "kernels": [KernelResult(**k) for k in r["kernels"]]})
             for r in json.loads((work / "state.json").read_text())]
    if args.recount:
        recount(work, state)
    device: dict[str, dict[str, dict]] = {}  # the parts of a split device run, merged
    for results_file in args.device_results or []:
        for name, variants in json.loads(Path(results_file).read_text()).items():
            device.setdefault(name, {}).update(variants)
    kernels = [k for r in state for k in r.kernels]
    translated = [k for k in kernels if k.translated]
    matched: list[KernelResult] = []
    completed: list[KernelResult] = []  # round-tripped kernels whose original program finished on the GPU
    rows = []
    for result in state:
        outcome = ""
        if len(device.get(result.name, {})) == 2:
            original, trip = device[result.name]["original"], device[result.name]["roundtrip"]
            # Only a run that finished (exit 0) shows anything: two timeouts or two crashes are not a match.
            if original["rc"] != 0:
                outcome = f"original did not finish (rc {original['rc']}): not compared"
            elif trip["rc"] == "not run":  # the device run's deadline came first: nothing to compare
                outcome = "round trip not run (the device run's deadline): not compared"
            else:
                same = trip["rc"] == 0 and same_output(original["stdout"], trip["stdout"])
                outcome = "same output" if same else f"differs (rc {original['rc']} vs {trip['rc']})"
                completed += [k for k in result.kernels if k.round_trip]
                if same:
                    matched += [k for k in result.kernels if k.round_trip]
        n_translated = sum(k.translated for k in result.kernels)
        rows.append(f"| {result.name} | {len(result.kernels)} | {n_translated} | "
                    f"{sum(k.round_trip for k in result.kernels)} | {outcome or result.note or '-'} |")
    compared = [k for k in translated if k.hip_instructions and k.instructions]
    instruction_ratio = geomean([k.instructions / k.hip_instructions for k in compared])
    vgpr_ratio = geomean([k.vgprs / k.hip_vgprs for k in compared if k.hip_vgprs])
    reasons: dict[str, int] = {}
    for kernel in kernels:
        if not kernel.translated:
            why = kernel.reason.split(": ", 1)[-1]  # after "kernel NAME: "
            key = why.split(": '")[0].strip()[:110]
            reasons[key] = reasons.get(key, 0) + 1
    built = [r for r in state if r.built]
    sample = json.loads((work / "sample.json").read_text())
    left_out = (f", leaving out the {len(sample['left_out'])} the seed drew whose original exits with an error "
                f"on the GPU in `hecbench_verify.py`'s record: {', '.join(sample['left_out'])}"
                if sample["left_out"] else "")
    not_reached = (f" The first {len(state)} of the sample's {len(state) + len(sample['not_reached'])} in seed order were "
                   f"prepared before the deadline; not reached: {', '.join(sample['not_reached'])}."
                   if sample.get("not_reached") else "")
    gpu = args.device
    lines = [
        f"# Binary path over HeCBench (nvcc-built objects only{', SASS route' if sample.get('sass') else ''})",
        "",
        f"Sample: {len(state)} in-reach `*-cuda` benchmarks (seed {sample['seed']}{left_out}); {len(built)} built by nvcc 13 "
        f"(`make CC=nvcc ARCH={sample.get('arch', 'sm_90')}`). cassc saw only their objects"
        f"{', and lifted their SASS (the route forced), not their PTX' if sample.get('sass') else ''}. "
        f"Produced by `benchmarks/binary_path.py`.{not_reached}",
        "",
        "| measure | value | target |",
        "|---|---|---|",
        f"| kernels translated to gfx1100 (validated code objects) | {len(translated)} / {len(kernels)} "
        f"({100 * len(translated) / max(1, len(kernels)):.1f}%) | |",
        f"| translated kernels whose NVPTX round trip gives the original's output on {gpu} | {len(matched)} / "
        f"{len(translated)} ({100 * len(matched) / max(1, len(translated)):.1f}%) | >= 90% |",
        f"| ... of the translated kernels whose original program finished on {gpu} | {len(matched)} / "
        f"{len(completed)} ({100 * len(matched) / max(1, len(completed)):.1f}%) | |",
        f"| static instructions, median ratio | {statistics.median(k.instructions / k.hip_instructions for k in compared):.2f}x"
        " | |",
        f"| static instructions, translated / HIP clang from the `-hip` source (geomean, {len(compared)} kernels) | "
        f"{instruction_ratio:.2f}x | {INSTRUCTION_TARGET} |",
        f"| VGPRs allocated, translated / HIP clang (geomean) | {vgpr_ratio:.2f}x | |",
        "",
        f"A kernel counts as matching only if its program was run on {gpu} both as nvcc built it and with every",
        "object's device code replaced by the round trip, both finished with exit status 0, and the two printed the",
        "same (lines that mention times, bandwidth or throughput left out). Programs with an object that has an",
        "untranslated kernel, or whose original did not finish within the time limit (among them those whose data",
        "files are not in HeCBench's checkout), are not compared: their kernels count as not matching.",
        "",
        *kept_notes(Path(args.results)),
        "## Why kernels were not translated",
        "",
        *[f"- {count} x {reason}" for reason, count in sorted(reasons.items(), key=lambda x: -x[1])],
        "",
        "## Per benchmark",
        "",
        "| benchmark | kernels | translated | round-tripped | GPU run |",
        "|---|---|---|---|---|",
        *rows,
        "",
    ]
    Path(args.results).write_text("\n".join(lines))
    print("\n".join(lines[:12]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    p = commands.add_parser("prepare")
    p.add_argument("hecbench")
    p.add_argument("--work", default="/tmp/binary-path")
    p.add_argument("--jobs", type=int, default=1, help="benchmarks prepared at a time")
    p.add_argument("--deadline", type=float, default=0,
                   help="seconds: no benchmark starts later (those left are recorded as not reached, and the "
                        "report says which of the sample it covers)")
    b = commands.add_parser("build", help="only the sample's nvcc builds (and HIP twins), into --builds")
    b.add_argument("hecbench")
    b.add_argument("--hip", action="store_true", help="the HIP twins' counts too")
    for command in (p, b):
        command.add_argument("--sample", type=int, default=40)
        command.add_argument("--seed", type=int, default=5)
        command.add_argument("--sample-of", metavar="WORK",
                             help="an earlier preparation's work directory: its sample, in its order")
        command.add_argument("--skip-failing-originals", metavar="VERIFY_JSON",
                             help="hecbench_verify.py's verify.json: leave out benchmarks whose original exited with "
                                  "an error on the H200 there (a round trip of those shows nothing)")
    for command in (p, o := commands.add_parser("one", help="one benchmark (prepare runs each in a child process)"), b):
        command.add_argument("--arch", default="sm_90", help="the Makefile's ARCH (nvcc -arch)")
        command.add_argument("--sass", action="store_true", help="lift each object's SASS, not its PTX")
        command.add_argument("--builds", required=command is b,
                             help="a directory of nvcc builds (and HIP twin counts) reused from one preparation to "
                                  "the next (`build` fills it; without it every benchmark is built again)")
    o.add_argument("hecbench")
    o.add_argument("name")
    o.add_argument("--work", default="/tmp/binary-path")
    t = commands.add_parser("retranslate", help="translate the prepared benchmarks' objects again (for --recount)")
    t.add_argument("hecbench")
    t.add_argument("--work", default="/tmp/binary-path")
    t.add_argument("--jobs", type=int, default=1)
    t.add_argument("names", nargs="*", help="only these benchmarks (default: every one prepared)")
    t1 = commands.add_parser("retranslate-one", help="one benchmark (retranslate runs each in a child process)")
    t1.add_argument("hecbench")
    t1.add_argument("name")
    t1.add_argument("--work", default="/tmp/binary-path")
    r = commands.add_parser("report")
    r.add_argument("--work", default="/tmp/binary-path")
    r.add_argument("--device-results", nargs="+", help="device.py's results file(s), one per --part")
    r.add_argument("--results", default=str(DEFAULT_RESULTS))
    r.add_argument("--device", required=True, help="the GPU the device results came from, as the report names it "
                   "(e.g. 'one H100 (sm_90)')")
    r.add_argument("--recount", action="store_true", help="count instructions again from the build directories")
    args = parser.parse_args()
    {"prepare": prepare, "build": build, "one": one, "report": report, "retranslate": retranslate,
     "retranslate-one": retranslate_one}[args.command](args)


if __name__ == "__main__":
    main()
