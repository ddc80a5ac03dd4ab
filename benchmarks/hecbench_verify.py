#!/usr/bin/env python3
"""HeCBench on a GPU: run cassc's translated programs on an NVIDIA GPU and compare with the CUDA originals.

No AMD GPU exists here, so a translation is checked on the lent H200: each `*-cuda` benchmark is built
there twice from one Makefile, `make ARCH=sm_90` (the CUDA original, nvcc) and
`make ARCH=sm_90 CC='cassc --cassc-target=nvidia'` (cassc hipifies every source exactly as for gfx1100,
then nvcc compiles the HIP output through the hip-to-cuda header set). cassc is pure Python, so it
travels as source and hipifies on the GPU machine (same code, deterministic); its one missing package
comes as a wheel (benchmarks/device-wheels.txt). Both programs then run alternately on one GPU, three
times each (once when a run takes longer than REPEAT_BELOW_S; the translated one not at all when the
original fails), one benchmark per GPU at a time, and this machine compares them:

  exit status; every output line that is not a timing line (TIMING_LINE) with numbers equal within
  RELATIVE_TOLERANCE; numbers (and lines) that differ between the original's own runs (random seeds,
  clocks) are left out (compare_outputs); the runtime ratio translated/original is the median of the benchmark's own kernel-time
  value (subset.json's regex, else the first line naming a kernel time) or else of the wall time.

Steps (a batch is one command on the GPU machine, resumable through --state):

  prepare  HECBENCH --carry DIR  writes the batch to DIR: cassc, this script, the wheels, manifest.json
                                 (and --tarball, HeCBench's src/ without data sets, when it is missing)
  device   --carry DIR --tarball T --out OUT   (on the GPU machine) builds, runs, writes OUT/results.json
  collect  RESULTS.json          merges a batch's results into --state
  report                         writes benchmarks/results/hecbench-verify.md from --state

    python3 benchmarks/hecbench_verify.py prepare /work/hecbench --carry /work/main/.bench-carry/issue7 --limit 60
    (run: python3 .bench-carry/issue7/hecbench_verify.py device --carry .bench-carry/issue7 \\
          --tarball .bench-carry/hecbench-cuda.tar.xz --out $OUT --deadline-s 480)
    python3 benchmarks/hecbench_verify.py collect /work/.device/.../results.json
    python3 benchmarks/hecbench_verify.py report
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import math
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tarfile
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_STATE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "cassc-benchmarks" / "hecbench"
DEFAULT_RESULTS = REPO_ROOT / "benchmarks" / "results" / "hecbench-verify.md"
WHEEL_LIST = REPO_ROOT / "benchmarks" / "device-wheels.txt"
ARCH = "sm_90"
BUILD_TIMEOUT_S = 300
RUN_TIMEOUT_S = 12
REPEAT_BELOW_S = 2.5  # a first run longer than this is not repeated: the batch must fit the machine's limit
RUNS = 3
TIMED_OUT = 124
NEAR_LIMIT = 0.8  # an original this close to the run limit leaves no room for run-to-run noise
OUTPUT_LIMIT = 200_000
LARGEST_SOURCE_FILE = 2_000_000  # as hecbench_build.py: larger files are data sets
RELATIVE_TOLERANCE = 1e-3
# A line that reports a time, a rate or a speed-up: left out of the comparison.
# A bare "s" counts only as a unit after a number ("done in 1.52 s") or in brackets ("0.0004 (s)"); a
# clock reading ("started at 02:38:55") is a time too, and the GPU's memory in use ("GPU memory usage:
# used = 12587.88 MB") depends on what else runs, as lulesh's figure of merit ("FOM ... z/s") on its speed.
TIMING_LINE = re.compile(
    r"\b(times?|timing|elapsed|duration|latency|throughput|bandwidth|speed-?up|performance|perf|"
    r"(?:[GMT]?FLOP/?s|G?FLOPS)(?:/s)?|[GMT]F/s|GB/s|GiB/s|MB/s|ms|msec|us|usec|ns|seconds?|secs?|s/iter|cycles?|clocks?|"
    r"runtime|wall|execution|overlap|took|MLUPS|GLUPS|M?bytes/sec|iters?/s|memory usage|FOM|z/s)(?![\w/])"
    r"|(?<=\d) ?s\b(?![\w/])|\(s\)|\b\d{1,2}:\d{2}:\d{2}\b", re.IGNORECASE)
# A line of only rules and spaces ("─────") between a timing header and its rows.
RULE_LINE = re.compile(r"[^\w]*")
# Rows under a timing header line (babelstream's "Function MBytes/sec Min (sec)", d3q19-bgk's
# "Performance: MLUPS", pcc's "Total Kernel time (s)") are timings too: a bare number, a label with two
# or more numbers, or two or more "label: number" pairs between commas ("GEMM: 0.18, Extract upper
# triangle: 0.03"); "checksum 42" under such a header is still compared.
_VALUE = r"[-+]?[\d.]+(?:[eE][-+]?\d+)?"
TABLE_ROW = re.compile(rf"\s*[A-Za-z_][\w-]*:?(\s+{_VALUE}){{2,}}\s*|\s*{_VALUE}\s*"
                       rf"|\s*[A-Za-z_][\w -]*:\s*{_VALUE}(\s*,\s*[A-Za-z_][\w -]*:\s*{_VALUE})+\s*")
NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|[-+]?(?:nan|inf)", re.IGNORECASE)
KERNEL_TIME_LINE = re.compile(r"kernel[^\n]*?time[^\d\n]*(\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)", re.IGNORECASE)


# ------------------------------------------------------------------------------------------------
# data shared by the three machines' steps

@dataclass
class Benchmark:
    name: str
    args: list[str] | None  # subset.json's run arguments, or None: the Makefile's run target as it is
    regex: str | None  # subset.json's time regex (its group 1 is the benchmark's own time)


@dataclass
class Run:
    exit_status: int
    seconds: float
    output: str


@dataclass
class Result:
    name: str
    built: dict[str, bool] = field(default_factory=dict)
    build_error: dict[str, str] = field(default_factory=dict)
    command: str = ""
    runs: dict[str, list[Run]] = field(default_factory=dict)


def result_from_json(data: dict) -> Result:
    runs = {variant: [Run(**r) for r in items] for variant, items in data.get("runs", {}).items()}
    return Result(data["name"], data.get("built", {}), data.get("build_error", {}), data.get("command", ""), runs)


# ------------------------------------------------------------------------------------------------
# prepare (here)

def candidate_names(state: Path) -> list[str]:
    """Benchmarks whose translation cassc built for gfx1100 (state cassc.json) and whose original nvcc
    did not fail to build (state nvcc.json, which may hold only the references hecbench_build.py needed:
    as there, a benchmark without one is in reach), both from benchmarks/hecbench_build.py."""
    def outcome(variant: str) -> dict[str, bool]:
        path = state / f"{variant}.json"
        entries = json.loads(path.read_text()) if path.is_file() else {}
        return {name: entry["build"]["ok"] for name, entry in entries.items()}
    nvcc = outcome("nvcc")
    return sorted(name for name, ok in outcome("cassc").items() if ok and nvcc.get(name, True))


def subset_entries(hecbench: Path) -> dict[str, tuple[str | None, list[str] | None]]:
    path = hecbench / "src" / "scripts" / "benchmarks" / "subset.json"
    entries = json.loads(path.read_text()) if path.is_file() else {}
    return {name: (value[0] if value else None, value[1] if len(value) > 1 else None)
            for name, value in entries.items()}


def prepare(args: argparse.Namespace) -> None:
    state: Path = args.state
    done = load_state(state)
    again = [n for n in done if args.again and re.search(args.again, n)]
    names = again + [n for n in candidate_names(state) if n not in done and re.search(args.only, n)]
    names = names[:args.limit] if args.limit else names
    subset = subset_entries(args.hecbench)
    manifest = [asdict(Benchmark(n, subset.get(n, (None, None))[1], subset.get(n, (None, None))[0])) for n in names]
    carry: Path = args.carry
    if carry.exists():
        shutil.rmtree(carry)
    carry.mkdir(parents=True)
    shutil.copytree(REPO_ROOT / "cassc", carry / "cassc", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy2(Path(__file__), carry / "hecbench_verify.py")
    wheels = [line.split("#")[0].strip() for line in WHEEL_LIST.read_text().splitlines()]
    wheels = [w for w in wheels if w]
    if wheels:
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
                        "--python-version", "3.12", "--implementation", "cp", "--platform", "manylinux2014_x86_64",
                        "-d", str(carry / "wheels"), *wheels], check=True)
    (carry / "manifest.json").write_text(json.dumps(manifest, indent=1))
    if not args.tarball.is_file():
        write_source_tarball(args.hecbench, args.tarball)
    print(f"{len(manifest)} benchmarks in {carry} ({len(done)} done before)")


def write_source_tarball(hecbench: Path, tarball: Path) -> None:
    """HeCBench's src/ without its data sets (files of 2 MB and more): what the builds and the runs'
    relative paths (../data, ../<twin>-sycl/...) need, small enough to travel with every batch."""
    def small(member: tarfile.TarInfo) -> tarfile.TarInfo | None:
        return None if member.isfile() and member.size >= LARGEST_SOURCE_FILE or "/.git" in member.name else member
    tarball.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(tarball, "w:xz") as archive:
        archive.add(hecbench / "src", arcname="src", filter=small)


# ------------------------------------------------------------------------------------------------
# device (on the GPU machine)

def device(args: argparse.Namespace) -> None:
    """Build both variants of every manifest benchmark, then run them, one worker per GPU. A later
    call on the same (still warm) machine with the same manifest resumes: the trees, builds and runs
    so far are kept under --work, and what ran already is not run again."""
    started = time.monotonic()
    carry: Path = args.carry.resolve()
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    work = Path(args.work)
    manifest_text = (carry / "manifest.json").read_text()
    progress = work / "results.json"
    if (work / "manifest.json").is_file() and (work / "manifest.json").read_text() == manifest_text \
            and progress.is_file():
        results = {r["name"]: result_from_json(r) for r in json.loads(progress.read_text())}
        log(started, f"resuming: {sum(bool(r.runs) for r in results.values())} of {len(results)} ran before")
    else:
        shutil.rmtree(work, ignore_errors=True)  # another batch's trees
        results = {}
    env = device_environment(carry, work)
    manifest = [Benchmark(**b) for b in json.loads(manifest_text)]
    trees = {variant: work / variant for variant in ("original", "translated")}
    if not results:
        for tree in trees.values():
            tree.mkdir(parents=True, exist_ok=True)
            with tarfile.open(args.tarball) as archive:
                archive.extractall(tree, filter="tar")
        make_args = {"original": [f"ARCH={ARCH}"], "translated": [f"ARCH={ARCH}", f"CC={work / 'bin' / 'cassc-nvidia'}"]}
        results = {b.name: Result(b.name) for b in manifest}
        log(started, f"{len(manifest)} benchmarks, building")
        jobs = [(b.name, v) for b in manifest for v in ("original", "translated")]
        with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 8) as pool:
            futures = {pool.submit(build, trees[v] / "src" / f"{n}-cuda", make_args[v], env): (n, v) for n, v in jobs}
            for future in concurrent.futures.as_completed(futures):
                name, variant = futures[future]
                ok, error = future.result()
                results[name].built[variant] = ok
                if not ok:
                    results[name].build_error[variant] = error
        (work / "manifest.json").write_text(manifest_text)
        write_results([progress, out / "results.json"], results)
        log(started, "built; running")
    pending = [b for b in manifest if not results[b.name].runs
               and all(results[b.name].built.get(v) for v in ("original", "translated"))]
    queue: list[Benchmark] = list(pending)
    lock = threading.Lock()

    def worker(gpu: int) -> None:
        gpu_env = {**env, "CUDA_VISIBLE_DEVICES": str(gpu)}
        while time.monotonic() - started < args.deadline_s:
            with lock:
                if not queue:
                    return
                benchmark = queue.pop(0)
            result = results[benchmark.name]
            runs = run_pair(benchmark, trees, gpu_env, started, args.deadline_s, args.run_limit_s)
            with lock:
                result.command, result.runs = runs
                log(started, f"gpu {gpu} {benchmark.name}: exit {[r.exit_status for r in result.runs['original']]}"
                             f" / {[r.exit_status for r in result.runs['translated']]}")
                write_results([progress, out / "results.json"], results)

    # More than one worker per GPU shares it: outputs still compare, runtime ratios get noisier.
    workers = [threading.Thread(target=worker, args=(index % gpu_count(),))
               for index in range(gpu_count() * args.runs_per_gpu)]
    for thread in workers:
        thread.start()
    for thread in workers:
        thread.join()
    write_results([progress, out / "results.json"], results)
    log(started, f"{sum(bool(r.runs) for r in results.values())} of {len(results)} ran")


def device_environment(carry: Path, work: Path) -> dict[str, str]:
    """cassc (carried as source, its wheels installed under --work) as a program `make CC=` can run:
    bin/cassc-nvidia, cassc with --cassc-target=nvidia."""
    site = work / "site"
    wheels = sorted((carry / "wheels").glob("*.whl"))
    if wheels and not site.is_dir():
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-index", "--no-deps", "--no-compile",
                        "--target", str(site), *map(str, wheels)], check=True)
    # One word for CC=: a Makefile that passes $(CC) on to a sub-make unquoted splits "cassc --cassc-target=nvidia".
    wrapper = work / "bin" / "cassc-nvidia"
    wrapper.parent.mkdir(parents=True, exist_ok=True)
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m cassc --cassc-target=nvidia "$@"\n')
    wrapper.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NVCC_", "CASSC_", "MAKEFLAGS", "MFLAGS"))}
    env["PYTHONPATH"] = f"{carry}:{site}"
    env["CASSC_DATA_DIR"] = str(work / "cassc-data")
    return env


def gpu_count() -> int:
    if shutil.which("nvidia-smi") is None:
        return 1
    listed = subprocess.run(["nvidia-smi", "-L"], text=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    return max(1, sum(line.startswith("GPU ") for line in listed.stdout.splitlines()))


def run_pair(benchmark: Benchmark, trees: dict[str, Path], env: dict[str, str], started: float,
             deadline_s: float, limit_s: float = RUN_TIMEOUT_S) -> tuple[str, dict[str, list[Run]]]:
    """The original and the translated program, alternately, on one GPU. When the original's first
    run fails there is nothing to compare with, and the translated program is not run."""
    command = run_command(trees["original"] / "src" / f"{benchmark.name}-cuda", benchmark, env)
    return command, alternate_runs(lambda variant: run_once(command, trees[variant] / "src" / f"{benchmark.name}-cuda",
                                                            env, limit_s),
                                   lambda: time.monotonic() - started <= deadline_s)


def alternate_runs(run_variant: Callable[[str], Run], more: Callable[[], bool] = lambda: True,
                   least: int = 1) -> dict[str, list[Run]]:
    """Up to RUNS runs of each variant, original first, alternately; one each when the original takes over
    REPEAT_BELOW_S or `more()` says no (but at least `least` each: with one run of the original, the lines that
    vary from run to run, its own timings, cannot be told apart), and the translated program not at all when
    the original's first run fails. Each original run after the first starts in a new second of the wall clock: a program that seeds
    from time(NULL) (CUDA's fp16ScalarProduct sample does) then prints different lines in the original's
    own runs, and the comparison leaves those out, as it should: they are not the translation's."""
    runs: dict[str, list[Run]] = {"original": [], "translated": []}
    last_second: int | None = None
    for _ in range(RUNS):
        for variant in ("original", "translated"):
            if variant == "original":
                while last_second is not None and int(time.time()) == last_second:
                    time.sleep(0.02)
                last_second = int(time.time())
            runs[variant].append(run_variant(variant))
            if runs["original"][0].exit_status != 0:
                return runs
        if len(runs["original"]) >= least and (max(r.seconds for r in runs["original"]) > REPEAT_BELOW_S or not more()):
            break
    return runs


def log(started: float, message: str) -> None:
    print(f"[{time.monotonic() - started:6.1f}s] {message}", flush=True)


def build(directory: Path, make_args: list[str], env: dict[str, str]) -> tuple[bool, str]:
    try:
        process = subprocess.run(["make", "-C", str(directory), *make_args], env=env, text=True, errors="replace",
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=BUILD_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return False, "timed out"
    errors = [line for line in process.stdout.splitlines() if "error" in line.lower()]
    return process.returncode == 0, (errors[0] if errors else process.stdout[-300:]).strip()[:300]


def run_command(directory: Path, benchmark: Benchmark, env: dict[str, str]) -> str:
    """The Makefile's run target's commands (`make -n run`, the program built), with subset.json's
    arguments where it gives them for a target of one command."""
    listed = subprocess.run(["make", "-s", "-n", "-C", str(directory), "run", "LAUNCHER="], env=env, text=True,
                            errors="replace", stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout
    lines = [line.strip() for line in listed.splitlines() if line.strip() and not line.startswith("make")]
    if benchmark.args is not None and len(lines) == 1:
        program = shlex.split(lines[0])[0]
        return shlex.join([program, *benchmark.args])
    return "\n".join(["set -e", *lines])  # a recipe line may end in ';' (che: `rm -rf out;`)


def run_once(command: str, directory: Path, env: dict[str, str], limit_s: float = RUN_TIMEOUT_S) -> Run:
    started = time.perf_counter()
    try:
        process = subprocess.run(["bash", "-c", command], cwd=directory, env=env, text=True, errors="replace",
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=limit_s)
        status, output = process.returncode, process.stdout
    except subprocess.TimeoutExpired as expired:
        status, output = TIMED_OUT, (expired.stdout or b"").decode(errors="replace") if isinstance(expired.stdout, bytes) \
            else (expired.stdout or "")
    return Run(status, time.perf_counter() - started, output[-OUTPUT_LIMIT:])


def write_results(paths: list[Path], results: dict[str, Result]) -> None:
    text = json.dumps([asdict(r) for r in results.values()])
    for path in paths:
        temporary = path.with_name(f".{path.name}.tmp")
        temporary.write_text(text)
        temporary.replace(path)


# ------------------------------------------------------------------------------------------------
# collect and report (here)

def load_state(state: Path) -> dict[str, dict]:
    path = state / "verify.json"
    return json.loads(path.read_text()) if path.is_file() else {}


def collect(args: argparse.Namespace) -> None:
    entries = load_state(args.state)
    added = 0
    for data in json.loads(Path(args.results).read_text()):
        result = result_from_json(data)
        ran = bool(result.runs.get("original"))  # the translated program does not run when the original fails
        failed_build = result.built and not all(result.built.get(v) for v in ("original", "translated"))
        if ran or failed_build:  # benchmarks the batch's deadline left out stay to do
            entries[result.name] = asdict(result)
            added += 1
    args.state.mkdir(parents=True, exist_ok=True)
    (args.state / "verify.json").write_text(json.dumps(entries, indent=1))
    print(f"{added} benchmarks added; {len(entries)} in {args.state / 'verify.json'}")


@dataclass
class Comparison:
    name: str
    status: str  # matched | mismatch | nondeterministic | original-failed | near-run-limit | build-failed
    first_difference: str = ""
    ratio: float | None = None
    time_source: str = ""  # "kernel" (the benchmark's own time line) or "wall"
    compared_lines: int = 0


def comparable_lines(output: str) -> list[str]:
    lines: list[str] = []
    under_timing_header = False
    for line in output.splitlines():
        if not line.strip():
            continue
        if TIMING_LINE.search(line):
            under_timing_header = True
        elif under_timing_header and RULE_LINE.fullmatch(line):
            continue
        elif not (under_timing_header and TABLE_ROW.fullmatch(line)):
            under_timing_header = False
            lines.append(line.strip())
    return lines


def close(x: str, y: str) -> bool:
    fx, fy = float(x), float(y)
    return math.isnan(fx) and math.isnan(fy) or fx == fy or abs(fx - fy) <= RELATIVE_TOLERANCE * max(abs(fx), abs(fy))


def numbers_close(a: str, b: str) -> bool:
    return NUMBER.sub("#", a) == NUMBER.sub("#", b) and all(map(close, NUMBER.findall(a), NUMBER.findall(b)))


@dataclass(frozen=True)
class OutputComparison:
    status: str  # same | differs | nondeterministic
    compared_lines: int  # lines compared (their text, and the numbers in them that the original's runs agree on)
    compared_numbers: int
    masked_numbers: int  # numbers (and the numbers of whole lines) that vary among the original's own runs
    first_difference: str = ""


def compare_outputs(originals: list[str], candidate: str) -> OutputComparison:
    """`candidate`'s output against one or more runs of the original, number by number. Timing lines are left out
    (comparable_lines); what varies among the original's own runs is the program's nondeterminism (clocks, seeds
    taken from the time, the slot an atomic handed out) and is left out too: a number on which the runs disagree
    beyond RELATIVE_TOLERANCE, a whole line where their text around the numbers differs. The rest must agree: the
    same number of lines, the same text, numbers within the tolerance. With one run nothing is masked, so a second
    run can only turn a difference into agreement. Where the runs vary and leave no line whole (every line has a
    number they disagree on, or they print different numbers of lines), nothing that matters is left to compare:
    "nondeterministic"."""
    runs = [comparable_lines(output) for output in originals]
    reference, mine = runs[0], comparable_lines(candidate)
    if any(len(run) != len(reference) for run in runs[1:]):
        return OutputComparison("nondeterministic", 0, 0, 0, "the original's runs print "
                                f"{' and '.join(str(len(run)) for run in runs)} lines")
    kept: list[tuple[int, list[int]]] = []  # line, the positions of its numbers the runs agree on
    masked = whole = 0
    for index, line in enumerate(reference):
        numbers = NUMBER.findall(line)
        if any(NUMBER.sub("#", run[index]) != NUMBER.sub("#", line) for run in runs[1:]):
            masked += len(numbers)
            continue
        stable = [j for j, x in enumerate(numbers) if all(close(x, NUMBER.findall(run[index])[j]) for run in runs[1:])]
        masked += len(numbers) - len(stable)
        whole += len(stable) == len(numbers)
        kept.append((index, stable))
    compared = sum(len(stable) for _, stable in kept)
    if masked and not whole:
        return OutputComparison("nondeterministic", len(kept), compared, masked, "every line the original prints "
                                "varies between its runs")
    if len(mine) != len(reference):
        difference = next((f"{a!r} vs {b!r}" for a, b in zip(reference, mine) if not numbers_close(a, b)),
                          f"{len(reference)} vs {len(mine)} lines")
        return OutputComparison("differs", len(kept), compared, masked, difference)
    for index, stable in kept:
        ours, theirs = NUMBER.findall(reference[index]), NUMBER.findall(mine[index])
        if NUMBER.sub("#", mine[index]) != NUMBER.sub("#", reference[index]) \
                or not all(close(ours[j], theirs[j]) for j in stable):
            return OutputComparison("differs", len(kept), compared, masked, f"{reference[index]!r} vs {mine[index]!r}")
    return OutputComparison("same", len(kept), compared, masked)


def own_time(output: str, regex: str | None) -> float | None:
    """The benchmark's own time: subset.json's regex, else the first line that names a kernel time."""
    match = re.search(regex, output) if regex else KERNEL_TIME_LINE.search(output)
    try:
        return float(match.group(1)) if match else None
    except (ValueError, IndexError):
        return None


def compare(result: Result, regex: str | None) -> Comparison:
    if not all(result.built.get(v) for v in ("original", "translated")):
        errors = "; ".join(f"{v}: {e}" for v, e in result.build_error.items())
        return Comparison(result.name, "build-failed", errors)
    original, translated = result.runs["original"], result.runs["translated"]
    if original[0].exit_status != 0:
        return Comparison(result.name, "original-failed",
                          f"original exit {original[0].exit_status}: {last_line(original[0].output)}")
    comparison = Comparison(result.name, "matched")
    # A run that timed out took the batch's run limit (batches have had different limits).
    limit = translated[0].seconds
    if translated[0].exit_status == TIMED_OUT and original[0].seconds > NEAR_LIMIT * limit:
        return Comparison(result.name, "near-run-limit", f"original took {original[0].seconds:.1f} s of the "
                          f"{limit:.0f} s run limit; the translated run reached it")
    if translated[0].exit_status != original[0].exit_status:
        comparison.status = "mismatch"
        comparison.first_difference = (f"exit {original[0].exit_status} vs {translated[0].exit_status}: "
                                       f"{last_line(translated[0].output)}")
    else:
        outputs = compare_outputs([r.output for r in original], translated[0].output)
        comparison.compared_lines = outputs.compared_lines
        comparison.status = {"same": "matched", "differs": "mismatch"}.get(outputs.status, outputs.status)
        comparison.first_difference = outputs.first_difference
    kernel = [own_time(r.output, regex) for r in original], [own_time(r.output, regex) for r in translated]
    if all(t is not None and t > 0 for t in kernel[0] + kernel[1]):
        comparison.ratio = statistics.median(kernel[1]) / statistics.median(kernel[0])  # type: ignore[arg-type]
        comparison.time_source = "kernel"
    else:
        comparison.ratio = statistics.median(r.seconds for r in translated) / statistics.median(
            r.seconds for r in original)
        comparison.time_source = "wall"
    return comparison


def last_line(output: str) -> str:
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    return lines[-1][:160] if lines else "(no output)"


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    position = fraction * (len(ordered) - 1)
    low, high = math.floor(position), math.ceil(position)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def markdown_report(comparisons: list[Comparison], explanations: dict[str, str], candidates: int) -> str:
    ran = [c for c in comparisons if c.status in ("matched", "mismatch")]
    matched = [c for c in ran if c.status == "matched"]
    ratios = [c.ratio for c in ran if c.ratio]
    geomean = math.exp(statistics.fmean(math.log(r) for r in ratios)) if ratios else float("nan")
    lines = [f"matched {len(matched)} of {len(ran)} built benchmarks", f"geomean runtime ratio {geomean:.2f}", "",
             "# HeCBench: translated programs run on an NVIDIA H200 against the CUDA originals", "",
             "Generated by `benchmarks/hecbench_verify.py` (the method is in its docstring). Both programs come "
             f"from one Makefile on the H200: `make ARCH={ARCH}` (nvcc 13) and `make ARCH={ARCH} "
             "CC='cassc --cassc-target=nvidia'` (cassc's HIP output through the hip-to-cuda header set). "
             f"\"Built\" counts the benchmarks where both built and the original ran with exit status 0; output "
             f"lines that name a time or rate are not compared, numbers compare within a relative "
             f"{RELATIVE_TOLERANCE:g}, and numbers (or lines) that vary between the original's own runs are left out "
             "(a benchmark whose runs agree on no number is nondeterministic, not compared). The "
             "runtime ratio is translated/original: the median of the benchmark's own kernel-time value "
             "(subset.json's regex, else the first line naming a kernel time) where it prints one, else of the wall time; up to "
             f"{RUNS} runs each, alternating on one GPU (one each when a run takes over {REPEAT_BELOW_S} s; the "
             f"translated program not at all when the original fails); a run is stopped at {RUN_TIMEOUT_S} s. cassc "
             "travels to the H200 as source and hipifies there, as it does here.", "",
             f"Candidates: the benchmarks that `hecbench_build.py` built with cassc for gfx1100 (its state "
             f"`cassc.json`) and whose original built with nvcc on the H200; {len(comparisons)} of those "
             f"{candidates} verified.", ""]
    lines += ["| outcome | benchmarks |", "|---|---|"]
    for status in ("matched", "mismatch", "nondeterministic", "original-failed", "near-run-limit", "build-failed"):
        lines.append(f"| {status} | {sum(c.status == status for c in comparisons)} |")
    failed = [c for c in comparisons if c.status == "original-failed"]
    timed_out = sum(c.first_difference.startswith(f"original exit {TIMED_OUT}:") for c in failed)
    lines += ["", f"Of the originals that failed, {timed_out} reached the {RUN_TIMEOUT_S} s run limit with HeCBench's "
              f"default arguments and {len(failed) - timed_out} exited with an error, most for want of a data set "
              "HeCBench keeps outside its git tree (the table at the end names each).", "", "## Mismatches", ""]
    mismatches = [c for c in ran if c.status == "mismatch"]
    if mismatches:
        lines += ["| benchmark | first differing line (original vs translated) | explanation |", "|---|---|---|"]
        lines += [f"| {c.name} | `{c.first_difference[:200]}` | {explanations.get(c.name, 'not yet explained')} |"
                  for c in mismatches]
    else:
        lines.append("None.")
    if ratios:
        kernel = sum(c.time_source == "kernel" for c in ran)
        worst = sorted((c for c in ran if c.ratio), key=lambda c: -(c.ratio or 0))[:5]
        lines += ["", "## Runtime ratio (translated / original)", "",
                  f"{len(ratios)} benchmarks ({kernel} by their own kernel-time line, {len(ratios) - kernel} by wall "
                  f"time): p10 {percentile(ratios, 0.1):.3f}, p50 {percentile(ratios, 0.5):.3f}, "
                  f"p90 {percentile(ratios, 0.9):.3f}.", "", "Worst five: " +
                  ", ".join(f"{c.name} {c.ratio:.3f} ({c.time_source})" for c in worst) + "."]
    shown = {c.name for c in mismatches} | {c.name for c in comparisons if c.status not in ("matched", "mismatch")}
    notes = {name: text for name, text in explanations.items() if name not in shown}
    if notes:
        lines += ["", "## Notes on matched benchmarks", ""]
        lines += [f"- **{name}**: {text}" for name, text in sorted(notes.items())]
    others = [c for c in comparisons if c.status not in ("matched", "mismatch")]
    if others:
        lines += ["", "## Not compared", "", "| benchmark | why |", "|---|---|"]
        lines += [f"| {c.name} | {c.status}: `{c.first_difference[:160]}`"
                  + (f" — {explanations[c.name]}" if c.name in explanations else "") + " |" for c in others]
    return "\n".join(lines) + "\n"


EXPLANATIONS = REPO_ROOT / "benchmarks" / "results" / "hecbench-verify-explanations.json"


def report(args: argparse.Namespace) -> None:
    entries = load_state(args.state)
    subset = subset_entries(args.hecbench)
    comparisons = [compare(result_from_json(e), subset.get(name, (None, None))[0])
                   for name, e in sorted(entries.items())]
    explanations = json.loads(EXPLANATIONS.read_text()) if EXPLANATIONS.is_file() else {}
    args.output.write_text(markdown_report(comparisons, explanations, len(candidate_names(args.state))))
    print(args.output.read_text().split("\n## Mismatches")[0][:400])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--state", type=Path, default=DEFAULT_STATE)
    steps = parser.add_subparsers(dest="step", required=True)
    p = steps.add_parser("prepare")
    p.add_argument("hecbench", type=Path)
    p.add_argument("--carry", type=Path, required=True)
    p.add_argument("--only", default="")
    p.add_argument("--limit", type=int, default=0)
    p.add_argument("--again", default="", help="verify these done benchmarks again (after a fix), first")
    p.add_argument("--tarball", type=Path, default=REPO_ROOT / ".bench-carry" / "hecbench-cuda.tar.xz",
                   help="HeCBench's sources for the GPU machine; written when missing")
    p = steps.add_parser("device")
    p.add_argument("--carry", type=Path, required=True)
    p.add_argument("--tarball", type=Path, required=True)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--work", default="/tmp/hecbench-verify")
    p.add_argument("--deadline-s", type=float, default=480)
    p.add_argument("--run-limit-s", type=float, default=RUN_TIMEOUT_S,
                   help="stop a run after this long (programs whose defaults run longer, e.g. the library ones)")
    p.add_argument("--runs-per-gpu", type=int, default=1, help="benchmarks run at once on each GPU")
    p = steps.add_parser("collect")
    p.add_argument("results")
    p = steps.add_parser("report")
    p.add_argument("--hecbench", type=Path, default=Path("/work/hecbench"))
    p.add_argument("--output", type=Path, default=DEFAULT_RESULTS)
    args = parser.parse_args()
    {"prepare": prepare, "device": device, "collect": collect, "report": report}[args.step](args)


if __name__ == "__main__":
    main()
