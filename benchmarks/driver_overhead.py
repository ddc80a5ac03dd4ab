#!/usr/bin/env python3
"""Driver overhead: `cassc -c` on the examples versus the clang command it runs, run directly.

For every `.cu` under `examples/` with a Makefile beside it (compile only, `cassc -O2 -arch=sm_80 [-rdc=true] -c X.cu -o OUT.o`,
run in the source's directory) this measures, `--repeat` times each and interleaved:

  clang       the exact clang++ command cassc runs (taken from `cassc -v --keep`, whose kept work
              directory still holds the hipified mirror the command reads), run directly;
  cassc cold  cassc with a fresh, empty CASSC_CACHE_DIR for every run;
  cassc warm  cassc with a CASSC_CACHE_DIR that already holds the entry (checked once per file, outside
              the timed runs, with `-v`, which prints `cache hit`).

Every run is timed with time.perf_counter around subprocess.run. Per file it reports medians; overall
it reports sum of medians (cassc) / sum of medians (clang), and the geometric mean of the per-file
ratios. Targets (from the issue): cold <= 1.15x clang, warm cache <= 0.2x clang.

Results go to benchmarks/results/driver-overhead.md (overwritten); `--json` also prints the raw numbers
to stdout. Nothing is written into examples/: outputs, kept work directories and caches live in a
temporary directory that is removed at the end.

    .venv/bin/python benchmarks/driver_overhead.py --repeat 5
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import os
import platform
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Sequence

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_EXAMPLES = REPO_ROOT / "examples"
DEFAULT_RESULTS = REPO_ROOT / "benchmarks" / "results" / "driver-overhead.md"
BASE_FLAGS: tuple[str, ...] = ("-O2", "-arch=sm_80")
RDC_FLAG = "-rdc=true"
COLD_TARGET = 1.15
WARM_TARGET = 0.2
CACHE_HIT_MARKER = "cache hit"
# Environment variables that would change what cassc does; the benchmark sets or clears them itself.
CONTROLLED_ENV = ("CASSC_CACHE", "CASSC_CACHE_DIR", "NVCC_PREPEND_FLAGS", "NVCC_APPEND_FLAGS")
# With --bytecode-cache (the default) cassc's Python modules are compiled once, into the scratch
# directory, like an installed package's .pyc files; the caller's PYTHONDONTWRITEBYTECODE is cleared.
BYTECODE_ENV = ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")
MISSING_HEADER_HINT = "file not found"


class BenchmarkError(RuntimeError):
    pass


# ------------------------------------------------------------------------------------------------
# progress (rich when it is installed, plain stderr lines otherwise)


class Progress:
    def __init__(self, total: int, quiet: bool) -> None:
        self._quiet = quiet
        self._rich: Any = None
        self._task: Any = None
        self._done = 0
        self._total = total
        if quiet:
            return
        try:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
            from rich.progress import Progress as RichProgress
        except ImportError:
            return
        self._rich = RichProgress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                  TimeElapsedColumn(), console=Console(stderr=True), transient=True)

    def __enter__(self) -> Progress:
        if self._rich is not None:
            self._rich.__enter__()
            self._task = self._rich.add_task("driver overhead", total=self._total)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._rich is not None:
            self._rich.__exit__(*exc)

    def note(self, text: str) -> None:
        if self._quiet:
            return
        if self._rich is not None:
            self._rich.console.print(text, markup=False, highlight=False)
        else:
            print(text, file=sys.stderr, flush=True)

    def describe(self, text: str) -> None:
        if self._rich is not None:
            self._rich.update(self._task, description=text)

    def advance(self) -> None:
        self._done += 1
        if self._rich is not None:
            self._rich.update(self._task, advance=1)


# ------------------------------------------------------------------------------------------------
# the work


@dataclass(frozen=True)
class Source:
    path: Path  # absolute
    rdc: bool

    @property
    def label(self) -> str:
        try:
            return str(self.path.relative_to(REPO_ROOT))
        except ValueError:
            return str(self.path)

    def cassc_args(self, output: Path) -> list[str]:
        return [*BASE_FLAGS, *([RDC_FLAG] if self.rdc else []), "-c", self.path.name, "-o", str(output)]


@dataclass
class FileResult:
    source: str
    rdc: bool
    cassc_command: str
    clang_command: str
    clang_s: list[float] = field(default_factory=list)
    cold_s: list[float] = field(default_factory=list)
    warm_s: list[float] = field(default_factory=list)
    warm_hit_verified: bool = False

    @property
    def clang_median(self) -> float:
        return statistics.median(self.clang_s)

    @property
    def cold_median(self) -> float:
        return statistics.median(self.cold_s)

    @property
    def warm_median(self) -> float:
        return statistics.median(self.warm_s)

    @property
    def cold_ratio(self) -> float:
        return self.cold_median / self.clang_median

    @property
    def warm_ratio(self) -> float:
        return self.warm_median / self.clang_median


def find_sources(examples: Path, only: Sequence[str]) -> list[Source]:
    sources = []
    for path in sorted(examples.rglob("*.cu")):
        makefile = path.parent / "Makefile"
        if not makefile.is_file():
            continue  # the flags a file needs (e.g. -rdc) are read from its Makefile; CMake's are not
        rdc = RDC_FLAG in makefile.read_text(errors="replace")
        source = Source(path.resolve(), rdc)
        if only and not any(pattern in source.label for pattern in only):
            continue
        sources.append(source)
    if not sources:
        raise BenchmarkError(f"no .cu files under {examples}" + (f" matching {list(only)}" if only else ""))
    return sources


def cassc_env(cache_dir: Path | None, pycache: Path | None) -> dict[str, str]:
    """The environment for one cassc run: the caller's, with the cache settings under our control.
    `pycache`: where cassc's .pyc files go (None: leave the caller's bytecode settings alone)."""
    controlled = CONTROLLED_ENV + (BYTECODE_ENV if pycache is not None else ())
    env = {k: v for k, v in os.environ.items() if k not in controlled}
    if pycache is not None:
        env["PYTHONPYCACHEPREFIX"] = str(pycache)
    if cache_dir is None:
        env["CASSC_CACHE"] = "0"
    else:
        env["CASSC_CACHE_DIR"] = str(cache_dir)
    return env


def run_checked(command: Sequence[str], cwd: Path, env: dict[str, str] | None, what: str) -> str:
    """Run untimed; return stderr. Raise BenchmarkError with cassc's/clang's diagnostics on failure."""
    result = subprocess.run(list(command), cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, errors="replace")
    if result.returncode != 0:
        raise BenchmarkError(f"{what} failed (exit {result.returncode}): {shlex.join(command)}\n"
                             f"{result.stderr.strip()}")
    return result.stderr


def timed(command: Sequence[str], cwd: Path, env: dict[str, str] | None, what: str) -> float:
    """Wall-clock seconds of one run of `command` (perf_counter around subprocess.run)."""
    start = time.perf_counter()
    result = subprocess.run(list(command), cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        stderr = result.stderr.decode(errors="replace").strip()
        raise BenchmarkError(f"{what} failed (exit {result.returncode}): {shlex.join(command)}\n{stderr}")
    return elapsed


def verbose_commands(stderr: str) -> list[list[str]]:
    """The commands in cassc's `-v`/`--dryrun` output (lines `#$ /path/tool ...`), shlex-split."""
    commands = []
    for line in stderr.splitlines():
        if line.startswith("#$ /"):
            commands.append(shlex.split(line[3:]))
    return commands


def reference_clang_command(cassc: Path, source: Source, scratch: Path, pycache: Path | None) -> list[str]:
    """Run cassc once (no cache, -v, --keep) and return the clang++ command it ran. Its work directory,
    with the hipified mirror the command reads, stays under `scratch`/keep."""
    keep = scratch / "keep"
    keep.mkdir(parents=True, exist_ok=True)
    output = scratch / "reference.o"
    command = [str(cassc), "-v", "--keep", "--keep-dir", str(keep), *source.cassc_args(output)]
    stderr = run_checked(command, source.path.parent, cassc_env(None, pycache),
                         f"cassc (reference run of {source.label})")
    clang = [c for c in verbose_commands(stderr) if c and c[0].endswith("clang++")]
    if len(clang) != 1:
        raise BenchmarkError(f"expected one clang++ command in `cassc -v` output for {source.label}, "
                             f"found {len(clang)}:\n{stderr}")
    mirrored = [arg for arg in clang[0] if arg.endswith(".cu") and Path(arg).is_absolute()]
    if not mirrored or not all(Path(arg).is_file() for arg in mirrored):
        raise BenchmarkError(f"the clang command's source is not in the kept work directory: {mirrored}")
    # --keep adds clang's -save-temps=obj (cassc keeps the intermediates): not part of a normal compile
    return [arg for arg in clang[0] if arg != "-save-temps=obj"]


def benchmark_file(cassc: Path, source: Source, repeat: int, scratch: Path, pycache: Path | None,
                   progress: Progress) -> FileResult:
    cwd = source.path.parent
    progress.describe(f"{source.label}: setup")
    clang = reference_clang_command(cassc, source, scratch, pycache)
    out_dir = scratch / "out"
    out_dir.mkdir()
    cold_output, warm_output = out_dir / "cold.o", out_dir / "warm.o"
    result = FileResult(source=source.label, rdc=source.rdc,
                        cassc_command=shlex.join(["cassc", *source.cassc_args(Path("OUT.o"))]),
                        clang_command=shlex.join(clang))

    # Untimed: warm the page cache for clang, fill the warm cache, check that it is really hit.
    run_checked(clang, cwd, None, f"clang ({source.label})")
    warm_cache = scratch / "warm-cache"
    warm_cache.mkdir()
    run_checked([str(cassc), *source.cassc_args(warm_output)], cwd, cassc_env(warm_cache, pycache),
                f"cassc (filling the cache for {source.label})")
    stderr = run_checked([str(cassc), "-v", *source.cassc_args(warm_output)], cwd,
                         cassc_env(warm_cache, pycache), f"cassc (checking the cache hit for {source.label})")
    if CACHE_HIT_MARKER not in stderr:
        raise BenchmarkError(f"the warm cache did not hit for {source.label}; cassc -v said:\n{stderr}")
    result.warm_hit_verified = True

    cold_caches = scratch / "cold-caches"
    cold_caches.mkdir()
    cassc_cold = [str(cassc), *source.cassc_args(cold_output)]
    cassc_warm = [str(cassc), *source.cassc_args(warm_output)]
    for rep in range(repeat):
        progress.describe(f"{source.label} [{rep + 1}/{repeat}]")
        # Interleaved, so that drift in machine load affects all three alike.
        result.clang_s.append(timed(clang, cwd, None, f"clang ({source.label})"))
        progress.advance()
        cold_cache = Path(tempfile.mkdtemp(prefix="cold-", dir=cold_caches))
        result.cold_s.append(timed(cassc_cold, cwd, cassc_env(cold_cache, pycache),
                                   f"cassc cold ({source.label})"))
        shutil.rmtree(cold_cache)
        progress.advance()
        result.warm_s.append(timed(cassc_warm, cwd, cassc_env(warm_cache, pycache),
                                   f"cassc warm ({source.label})"))
        progress.advance()
    progress.note(f"{source.label:44} clang {1e3 * result.clang_median:8.1f} ms   "
                  f"cold {1e3 * result.cold_median:8.1f} ms ({result.cold_ratio:5.3f}x)   "
                  f"warm {1e3 * result.warm_median:8.1f} ms ({result.warm_ratio:5.3f}x)")
    return result


# ------------------------------------------------------------------------------------------------
# summary and report


def geomean(values: Sequence[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


def summarize(results: Sequence[FileResult]) -> dict[str, float | bool]:
    clang = sum(r.clang_median for r in results)
    cold = sum(r.cold_median for r in results)
    warm = sum(r.warm_median for r in results)
    return {
        "clang_total_s": clang,
        "cold_total_s": cold,
        "warm_total_s": warm,
        "cold_ratio": cold / clang,
        "warm_ratio": warm / clang,
        "cold_ratio_geomean": geomean([r.cold_ratio for r in results]),
        "warm_ratio_geomean": geomean([r.warm_ratio for r in results]),
        "cold_overhead_per_file_s": (cold - clang) / len(results),
        "cold_target": COLD_TARGET,
        "warm_target": WARM_TARGET,
        "cold_pass": cold / clang <= COLD_TARGET,
        "warm_pass": warm / clang <= WARM_TARGET,
    }


def capture(command: Sequence[str]) -> str:
    try:
        return subprocess.run(list(command), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                              errors="replace", check=False).stdout.strip()
    except OSError:
        return ""


def loadavg() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


def machine_info(clang: str, load_at_start: str, bytecode_cache: bool) -> dict[str, str]:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text(errors="replace").splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    nproc = capture(["nproc"]) or str(len(os.sched_getaffinity(0)))
    clang_version = capture([clang, "--version"]).splitlines()
    commit = capture(["git", "-C", str(REPO_ROOT), "rev-parse", "--short", "HEAD"])
    dirty = capture(["git", "-C", str(REPO_ROOT), "status", "--porcelain", "--untracked-files=no", "cassc"])
    return {
        "nproc": nproc,
        "cpu": cpu,
        "clang": clang_version[0] if clang_version else "unknown",
        "python": platform.python_version(),
        "kernel": platform.release(),
        "loadavg_at_start": load_at_start,
        "loadavg_at_end": loadavg(),
        "python_bytecode": ("cached (PYTHONPYCACHEPREFIX in the scratch directory)" if bytecode_cache else
                            "caller's environment (PYTHONDONTWRITEBYTECODE="
                            + os.environ.get("PYTHONDONTWRITEBYTECODE", "unset") + ")"),
        "git": (commit or "unknown") + (" (cassc/ has uncommitted changes)" if dirty else ""),
    }


def display_command(argv: Sequence[str]) -> str:
    executable = Path(os.path.abspath(sys.executable))  # not resolve(): keep the venv's python path
    try:
        python = str(executable.relative_to(REPO_ROOT))
    except ValueError:
        python = str(executable)
    script = Path(argv[0])
    try:
        script_text = str(script.resolve().relative_to(REPO_ROOT))
    except ValueError:
        script_text = str(script)
    return shlex.join([python, script_text, *argv[1:]])


def verdict(passed: bool) -> str:
    return "PASS" if passed else "MISS"


def render_markdown(results: Sequence[FileResult], summary: dict[str, float | bool], info: dict[str, str],
                    command: str, repeat: int, date: str, cassc: Path) -> str:
    ms = 1e3
    lines = [
        "# cassc driver overhead",
        "",
        f"Generated {date} by:",
        "",
        "```sh",
        command,
        "```",
        "",
        "Every `.cu` under `examples/` with a Makefile beside it, compile only: `cassc -O2 -arch=sm_80 [-rdc=true] -c X.cu -o OUT.o` in",
        "the source's directory, versus the exact `clang++` command cassc runs for it (taken from",
        "`cassc -v --keep`), run directly. **cold**: a fresh, empty `CASSC_CACHE_DIR` for every run; **warm**:",
        "a cache that already holds the entry (each file's hit was checked with `-v`, outside the timed runs).",
        f"Wall-clock medians of {repeat} interleaved runs each (`time.perf_counter` around `subprocess.run`).",
        "Ratios are cassc / clang. Totals are sums of the per-file medians.",
        "",
        "## Machine",
        "",
        f"- nproc: {info['nproc']}",
        f"- CPU: {info['cpu']}",
        f"- clang: {info['clang']}",
        f"- Python: {info['python']}; kernel {info['kernel']}",
        f"- load average (1/5/15 min): {info['loadavg_at_start']} at start, {info['loadavg_at_end']} at end",
        f"- cassc's Python bytecode: {info['python_bytecode']}",
        f"- cassc: `{cassc}`, git {info['git']}",
        "",
        "## Per file",
        "",
        "| source | clang ms | cassc cold ms | cassc warm ms | cold ratio | warm ratio |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        name = f"`{r.source}`" + (" (`-rdc=true`)" if r.rdc else "")
        lines.append(f"| {name} | {ms * r.clang_median:.1f} | {ms * r.cold_median:.1f} | "
                     f"{ms * r.warm_median:.1f} | {r.cold_ratio:.3f} | {r.warm_ratio:.3f} |")
    lines.append(f"| **total** | **{ms * float(summary['clang_total_s']):.1f}** | "
                 f"**{ms * float(summary['cold_total_s']):.1f}** | **{ms * float(summary['warm_total_s']):.1f}** | "
                 f"**{float(summary['cold_ratio']):.3f}** | **{float(summary['warm_ratio']):.3f}** |")
    lines += [
        "",
        "## Totals and targets",
        "",
        "| measure | ratio of sums of medians | geometric mean of per-file ratios | target | result |",
        "|---|---:|---:|---:|---|",
        f"| cold cache | {float(summary['cold_ratio']):.3f}x | {float(summary['cold_ratio_geomean']):.3f}x | "
        f"<= {COLD_TARGET}x | **{verdict(bool(summary['cold_pass']))}** |",
        f"| warm cache | {float(summary['warm_ratio']):.3f}x | {float(summary['warm_ratio_geomean']):.3f}x | "
        f"<= {WARM_TARGET}x | **{verdict(bool(summary['warm_pass']))}** |",
        "",
        f"Mean cold overhead per file: {ms * float(summary['cold_overhead_per_file_s']):.1f} ms",
        "(cassc cold median minus clang median, averaged over the files).",
        "The targets are judged on the ratio of sums of medians.",
        "",
    ]
    lines += [
        "## Commands",
        "",
        "| source | clang command (as run directly; paths are in cassc's kept work directory) |",
        "|---|---|",
    ]
    for r in results:
        escaped = r.clang_command.replace("|", "\\|")
        lines.append(f"| `{r.source}` | `{escaped}` |")
    lines.append("")
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------------
# main


def default_cassc() -> Path:
    beside_python = Path(sys.executable).parent / "cassc"
    if beside_python.exists():
        return beside_python
    venv = REPO_ROOT / ".venv" / "bin" / "cassc"
    if venv.exists():
        return venv
    found = shutil.which("cassc")
    if found:
        return Path(found)
    raise BenchmarkError("cannot find cassc; give --cassc")


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per file and variant (default 5)")
    parser.add_argument("--cassc", type=Path, default=None, help="the cassc executable (default: the venv's)")
    parser.add_argument("--examples", type=Path, default=DEFAULT_EXAMPLES, help="where the .cu files are")
    parser.add_argument("--only", action="append", default=[], metavar="SUBSTRING",
                        help="benchmark only sources whose path contains SUBSTRING (repeatable)")
    parser.add_argument("--results", type=Path, default=DEFAULT_RESULTS,
                        help="the Markdown report to write (default benchmarks/results/driver-overhead.md)")
    parser.add_argument("--no-write", action="store_true", help="do not write the Markdown report")
    parser.add_argument("--bytecode-cache", action=argparse.BooleanOptionalAction, default=True,
                        help="let cassc keep compiled .pyc files (in the scratch directory, via "
                             "PYTHONPYCACHEPREFIX; clears PYTHONDONTWRITEBYTECODE), as an installed package "
                             "has them (default: on); --no-bytecode-cache runs cassc in the caller's environment")
    parser.add_argument("--json", action="store_true", help="print the raw numbers as JSON to stdout")
    parser.add_argument("--quiet", action="store_true", help="no progress output on stderr")
    parser.add_argument("--keep-scratch", action="store_true",
                        help="keep the temporary directory (outputs, kept work dirs, caches) and print its path")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    raw_argv = list(sys.argv if argv is None else [sys.argv[0], *argv])
    args = parse_args(raw_argv[1:])
    date = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
    load_at_start = loadavg()
    try:
        cassc = (args.cassc or default_cassc()).resolve()
        sources = find_sources(args.examples.resolve(), args.only)
        scratch_root = Path(tempfile.mkdtemp(prefix="cassc-driver-overhead-"))
        pycache = scratch_root / "pycache" if args.bytecode_cache else None
        results: list[FileResult] = []
        try:
            with Progress(total=3 * args.repeat * len(sources), quiet=args.quiet) as progress:
                for index, source in enumerate(sources):
                    scratch = scratch_root / f"{index:02d}-{source.path.stem}"
                    scratch.mkdir()
                    results.append(benchmark_file(cassc, source, args.repeat, scratch, pycache, progress))
        finally:
            if args.keep_scratch:
                print(f"scratch directory kept: {scratch_root}", file=sys.stderr)
            else:
                shutil.rmtree(scratch_root, ignore_errors=True)
    except BenchmarkError as error:
        print(f"driver_overhead: {error}", file=sys.stderr)
        if MISSING_HEADER_HINT in str(error):
            print("driver_overhead: (a header was not found: are cassc's hipify tables / CUDA stand-in "
                  "headers in place?)", file=sys.stderr)
        return 1

    summary = summarize(results)
    info = machine_info(shlex.split(results[0].clang_command)[0], load_at_start, args.bytecode_cache)
    command = display_command(raw_argv)
    if not args.no_write:
        args.results.parent.mkdir(parents=True, exist_ok=True)
        args.results.write_text(render_markdown(results, summary, info, command, args.repeat, date, cassc))
        if not args.quiet:
            print(f"wrote {args.results}", file=sys.stderr)
    if not args.quiet:
        print(f"cold: {float(summary['cold_ratio']):.3f}x clang (target <= {COLD_TARGET}x: "
              f"{verdict(bool(summary['cold_pass']))}); warm: {float(summary['warm_ratio']):.3f}x clang "
              f"(target <= {WARM_TARGET}x: {verdict(bool(summary['warm_pass']))})", file=sys.stderr)
    if args.json:
        payload: dict[str, Any] = {
            "date": date,
            "command": command,
            "repeat": args.repeat,
            "cassc": str(cassc),
            "machine": info,
            "summary": summary,
            "files": [
                {**asdict(r), "clang_median_s": r.clang_median, "cold_median_s": r.cold_median,
                 "warm_median_s": r.warm_median, "cold_ratio": r.cold_ratio, "warm_ratio": r.warm_ratio}
                for r in results
            ],
        }
        json.dump(payload, sys.stdout, indent=2)
        sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
