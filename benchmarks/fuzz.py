#!/usr/bin/env python3
"""Coverage-guided fuzzing of everything in cassc that reads input a user (or a file) hands it.

Each target is one entry point a build reaches with bytes it does not control, and the exceptions it is
allowed to end in: cassc's own errors (`CasscError`: the CLI prints them as one message and exits 1), or,
for the binary format readers, the format's own error, which every caller turns into an `InputError`
naming the file. Anything else (a traceback, a hang, a recursion overflow) is a crash: libFuzzer (through
atheris) writes the input, this script minimises it, and it becomes a regression test in
tests/test_fuzz_regressions.py.

    seeds DIR          inputs that nvcc and cassc produce here (objects, fatbins, cubins, offload bundles,
                       archives, PTX, the examples' sources, command lines, model answers) -> DIR/<target>/
    run TARGET ARGS    the fuzz loop for one target (libFuzzer's own arguments after it: -runs=N ...)
    all DIR --runs N   every target (or --targets a,b) for N executions each from DIR's seeds, one after
                       the other; --workers W splits each target's N executions over W libFuzzer
                       processes at once (what libFuzzer's -jobs=W -workers=W does: one shared corpus
                       directory that every worker reloads, a log per worker); the executions counted are
                       the sum of each worker's own final `stat::number_of_executed_units`
    report DIR         writes benchmarks/results/fuzz.md from the campaigns recorded in DIR (`all` does
                       this too); a target with no campaign there keeps its row from the last report

    .venv/bin/python benchmarks/fuzz.py seeds /tmp/cassc-fuzz
    .venv/bin/python benchmarks/fuzz.py all /tmp/cassc-fuzz --runs 1000000
    .venv/bin/python benchmarks/fuzz.py all /tmp/cassc-fuzz --runs 1000000 --workers 16 --targets ptx

Needs `atheris` (pip install atheris) and, for `seeds`, nvcc (/usr/local/cuda/bin/nvcc) and cassc's toolchain.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "benchmarks" / "results" / "fuzz.md"
NVCC = Path(os.environ.get("CASSC_NVCC", "/usr/local/cuda/bin/nvcc"))


@dataclass(frozen=True)
class FuzzTarget:
    name: str
    what: str
    # what the input may end in; anything else is a crash
    allowed: Callable[[], tuple[type[BaseException], ...]]
    run: Callable[[bytes], object]


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="surrogateescape")


def _argv(data: bytes) -> object:
    from cassc.invocation import parse_invocation

    return parse_invocation([w for w in _text(data).split("\0")], env={})


# The object target hands read_binary a path, as a link does: a file in memory (/dev/shm) where there is
# one, so that each execution does not wait on a disk.
def _object_file(pid: int) -> Path:
    return (Path("/dev/shm") if Path("/dev/shm").is_dir() else Path(tempfile.gettempdir())) / f"cassc-fuzz-{pid}.o"


_OBJECT_FILE = _object_file(os.getpid())


def _binary_readers(data: bytes) -> object:
    from cassc.binary.extract import linked_binary_kind, read_binary

    _OBJECT_FILE.write_bytes(data)
    linked_binary_kind(_OBJECT_FILE)
    return read_binary(_OBJECT_FILE)


def _fatbin(data: bytes) -> object:
    from cassc.formats.cuda_fatbin import read_containers

    return read_containers(data)


def _cubin(data: bytes) -> object:
    from cassc.formats.cubin import read_cubin

    return read_cubin(data)


def _bundle(data: bytes) -> object:
    from cassc.formats.offload_bundle import read_bundles

    return read_bundles(data)


def _archive(data: bytes) -> object:
    from cassc.formats.archive import read_archive

    return read_archive(data)


def _code_object(data: bytes) -> object:
    from cassc.formats.code_object import code_object_target, kernel_descriptors

    return code_object_target(data), kernel_descriptors(data)


def _ptx(data: bytes) -> object:
    from cassc.binary.emit import AMDGPU, NVPTX
    from cassc.binary.lift import lift_module
    from cassc.binary.ptx import parse_ptx

    module = parse_ptx(_text(data))
    return [lift_module(module, target, "") for target in (AMDGPU, NVPTX)]


_TABLES = None


def _hipify(data: bytes) -> object:
    from cassc.hipify.attribute_order import move_alignas_first
    from cassc.hipify.brace_assignments import assign_zero_values
    from cassc.hipify.dependent_templates import add_template_keywords
    from cassc.hipify.driver_results import separate_driver_results
    from cassc.hipify.inline_ptx import rewrite_inline_ptx
    from cassc.hipify.member_calls import rewrite_member_calls
    from cassc.hipify.rewrite import rewrite_source
    from cassc.hipify.tables import load_tables
    from cassc.hipify.vector_operators import guard_builtin_vector_operators

    global _TABLES
    _TABLES = _TABLES or load_tables()
    result = rewrite_source(move_alignas_first(assign_zero_values(separate_driver_results(_text(data))[0])[0])[0],
                            _TABLES)
    return guard_builtin_vector_operators(
        add_template_keywords(rewrite_member_calls(rewrite_inline_ptx(result.text)[0])[0])[0])


def _answer(data: bytes) -> object:
    from cassc.repair.apply import check_replacement
    from cassc.repair.prompt import parse_answer
    from cassc.repair.region import enclosing_region

    # One input is both the region a compile error pointed at and the model's answer for it: the part
    # before the first NUL is the original region, the rest the answer.
    original, _, answer = _text(data).partition("\0")
    region = enclosing_region(original, 1 + len(original) // 80)
    replacement = parse_answer(answer)
    lines = original.count("\n") + 1
    return region, check_replacement(original, replacement, {(1, lines), (lines // 2 + 1, 1)})


def _cassc_errors() -> tuple[type[BaseException], ...]:
    from cassc.errors import CasscError

    return (CasscError,)


def _format_error(module: str, name: str) -> Callable[[], tuple[type[BaseException], ...]]:
    def allowed() -> tuple[type[BaseException], ...]:
        import importlib

        return (getattr(importlib.import_module(module), name),)

    return allowed


def _nothing() -> tuple[type[BaseException], ...]:
    return ()


TARGETS = {t.name: t for t in [
    FuzzTarget("argv", "nvcc command lines -> Invocation (options table, spelling rules, -gencode, archs)",
               _cassc_errors, _argv),
    FuzzTarget("object", "an object/archive/linked binary given to a link (ELF, nvcc sections, fatbin, cubin)",
               _cassc_errors, _binary_readers),
    FuzzTarget("fatbin", "CUDA fatbin containers and entries (LZ4/ZSTD)",
               _format_error("cassc.formats.cuda_fatbin", "FatbinFormatError"), _fatbin),
    FuzzTarget("cubin", "cubin kernels (.nv.info attributes, parameters, registers)",
               _format_error("cassc.formats.cubin", "CubinFormatError"), _cubin),
    FuzzTarget("bundle", "clang offload bundles", _format_error("cassc.formats.offload_bundle", "BundleFormatError"),
               _bundle),
    FuzzTarget("archive", "ar archives", _format_error("cassc.formats.archive", "ArchiveFormatError"), _archive),
    FuzzTarget("code-object", "AMD code objects (target, kernel descriptors)",
               _format_error("cassc.formats.code_object", "CodeObjectError"), _code_object),
    FuzzTarget("ptx", "PTX parser and the lifter's front end (AMDGPU and NVPTX IR)", _cassc_errors, _ptx),
    FuzzTarget("hipify", "hipify's rewriter and source rules (any text is valid input)", _nothing, _hipify),
    FuzzTarget("answer", "model answers: region, ```amd block, the answer checks", _cassc_errors, _answer),
]}


def fuzz_loop(name: str, libfuzzer_args: list[str]) -> None:
    """The fuzz loop for one target, in this process (atheris: libFuzzer over instrumented Python)."""
    import atheris

    target = TARGETS[name]
    with atheris.instrument_imports(include=["cassc"]):
        # The targets import what they read lazily: one empty input imports it all under instrumentation.
        try:
            target.run(b"")
        except Exception:
            pass
    allowed = target.allowed()

    def one_input(data: bytes) -> None:
        try:
            target.run(data)
        except allowed:
            pass

    sys.setrecursionlimit(10_000)
    atheris.Setup([sys.argv[0], *libfuzzer_args], one_input)
    atheris.Fuzz()


# ---------------------------------------------------------------------------------------------- seeds

SEED_COMMAND_LINES = [
    ["-O3", "-arch=sm_86", "-c", "k.cu", "-o", "k.o"],
    ["-gencode", "arch=compute_80,code=sm_80", "-gencode=arch=compute_90,code=[sm_90,compute_90]", "-c", "a.cu"],
    ["-x", "cu", "-std=c++17", "-Xcompiler", "-fPIC,-Wall", "-I", "inc", "-DN=4", "-rdc=true", "-dc", "a.cu"],
    ["--compiler-options", "'-O2 -g'", "-lineinfo", "-G", "-M", "-MF", "a.d", "-MT", "a.o", "a.cu"],
    ["-ccbin", "g++", "-Xlinker", "-rpath,/x", "-L.", "-lvendor", "a.o", "b.o", "-o", "app"],
    ["--cassc-offload-arch=gfx1100,gfx1030", "--cassc-target=nvidia", "-v", "--dryrun", "x.cu"],
    ["-forward-unknown-to-host-compiler", "-march=native", "-maxrregcount=32", "--diag-suppress=177", "a.cu"],
    ["-lib", "-o", "libx.a", "a.o", "--options-file", "opts.txt", "-E", "-Xptxas", "-v", "--keep"],
]

SEED_ANSWERS = [
    "__global__ void k(float *x) {\n  x[threadIdx.x] = 0;\n}\n\0```amd\n__global__ void k(float *x) {\n"
    "  x[threadIdx.x] = 1;\n}\n```\n",
    'void f() {\n  printf("%d\\n", 1);\n  cudaMalloc(&p, 4);\n}\n\0Here:\n```amd\nvoid f() {\n  printf("%d\\n", 1);\n'
    "  hipMalloc(&p, 4);\n}\n```",
]


def make_seeds(directory: Path) -> dict[str, int]:
    """Seeds for every target from what nvcc and cassc produce here. Returns the count per target."""
    from cassc.formats.cuda_fatbin import read_containers
    from cassc.formats.host_object import read_host_object

    work = directory / "build"
    work.mkdir(parents=True, exist_ok=True)
    for target in TARGETS:
        (directory / target).mkdir(exist_ok=True)
    sources = sorted((REPO / "examples").glob("*/*.cu"))
    objects: list[Path] = []
    for source in sources:
        for flags in (["-arch=sm_89"], ["-arch=sm_90", "-rdc=true", "-lineinfo"], ["-gencode", "arch=compute_80,code=sm_80"]):
            out = work / f"{source.stem}-{len(objects)}.o"
            if subprocess.run([str(NVCC), *flags, "-c", str(source), "-o", str(out)], capture_output=True).returncode == 0:
                objects.append(out)
        ptx = work / f"{source.stem}.ptx"
        if subprocess.run([str(NVCC), "-arch=sm_80", "-ptx", str(source), "-o", str(ptx)], capture_output=True).returncode == 0:
            shutil.copy(ptx, directory / "ptx" / ptx.name)
        shutil.copy(source, directory / "hipify" / source.name)
        cassc_object = work / f"{source.stem}-cassc.o"
        subprocess.run([sys.executable, "-m", "cassc", "-c", str(source), "-o", str(cassc_object)], capture_output=True)
        if cassc_object.exists():
            objects.append(cassc_object)
    archive = work / "libseed.a"
    subprocess.run(["ar", "rcs", str(archive), *map(str, objects[:3])], check=True)
    shutil.copy(archive, directory / "archive" / archive.name)
    shutil.copy(archive, directory / "object" / archive.name)
    for obj in objects:
        data = obj.read_bytes()
        shutil.copy(obj, directory / "object" / obj.name)
        host = read_host_object(data, obj.name)
        for entry in host.bundle_entries():
            if entry.payload:
                (directory / "code-object" / f"{obj.stem}.hsaco").write_bytes(entry.payload)
        if host.hip_fatbin:
            (directory / "bundle" / f"{obj.stem}.hip_fatbin").write_bytes(host.hip_fatbin)
        for index, (section_name, contents) in enumerate(host.cuda_fatbins):
            (directory / "fatbin" / f"{obj.stem}-{index}").write_bytes(contents)
            for number, container in enumerate(read_containers(contents)):
                for entry_index, entry in enumerate(container.entries):
                    if entry.kind == "elf":
                        (directory / "cubin" / f"{obj.stem}-{number}-{entry_index}.cubin").write_bytes(entry.payload)
    for index, words in enumerate(SEED_COMMAND_LINES):
        (directory / "argv" / f"argv-{index}").write_bytes("\0".join(words).encode())
    for index, answer in enumerate(SEED_ANSWERS):
        (directory / "answer" / f"answer-{index}").write_bytes(answer.encode())
    return {target: len(list((directory / target).iterdir())) for target in TARGETS}


# ------------------------------------------------------------------------------------------ campaigns

@dataclass
class Campaign:
    target: str
    runs: int
    seconds: float
    crashes: list[Path]
    coverage: str
    workers: int = 1
    date: str = ""
    machine: str = ""


def _machine() -> str:
    return f"{os.cpu_count()} CPUs, Python {sys.version.split()[0]}"


def _worker_stats(log: Path) -> tuple[int, str]:
    """What one libFuzzer process says it did: its executions and its last coverage (edges)."""
    text = log.read_text(errors="replace") if log.exists() else ""
    final = re.findall(r"stat::number_of_executed_units: (\d+)", text)
    done = re.findall(r"Done (\d+) runs in", text)
    progress = [int(n) for n in re.findall(r"^#(\d+)\s", text, re.MULTILINE)]
    # A worker stopped before its final stats (a kill) counts up to its last progress line.
    executed = int((final or done)[-1]) if final or done else max(progress or [0])
    coverage = (re.findall(r"cov: (\d+)", text) or ["?"])[-1]
    return executed, coverage


def run_campaign(name: str, directory: Path, runs: int, max_seconds: int, workers: int = 1) -> Campaign:
    corpus = directory / "corpus" / name
    crashes = directory / "crashes" / name
    logs = directory / "logs"
    for folder in (corpus, crashes, logs):
        folder.mkdir(parents=True, exist_ok=True)
    per_worker = -(-runs // workers)
    command = [sys.executable, __file__, "run", name, str(corpus), str(directory / name), f"-runs={per_worker}",
               f"-max_total_time={max_seconds}", "-timeout=20", "-rss_limit_mb=4096", "-max_len=65536",
               f"-artifact_prefix={crashes}/", "-print_final_stats=1", "-reload=1"]
    started = time.monotonic()
    processes = []
    for worker in range(workers):
        log = (logs / f"{name}-{worker}.log").open("w")
        processes.append((subprocess.Popen([*command, f"-seed={worker + 1}"], stdout=log, stderr=subprocess.STDOUT,
                                           cwd=directory), log))
    for process, log in processes:
        process.wait()
        log.close()
        _object_file(process.pid).unlink(missing_ok=True)  # libFuzzer's exit skips Python's cleanup
    stats = [_worker_stats(logs / f"{name}-{worker}.log") for worker in range(workers)]
    edges = [int(c) for _, c in stats if c != "?"]
    campaign = Campaign(name, sum(n for n, _ in stats), time.monotonic() - started, sorted(crashes.iterdir()),
                        str(max(edges)) if edges else "?", workers, datetime.date.today().isoformat(), _machine())
    (directory / "stats").mkdir(exist_ok=True)
    (directory / "stats" / f"{name}.json").write_text(json.dumps(
        {"target": name, "runs": campaign.runs, "seconds": campaign.seconds, "coverage": campaign.coverage,
         "workers": workers, "per_worker": [n for n, _ in stats], "date": campaign.date, "machine": campaign.machine,
         "crashes": [str(c) for c in campaign.crashes], "command": " ".join(["benchmarks/fuzz.py", *sys.argv[1:]])}))
    return campaign


def recorded_campaigns(directory: Path) -> list[Campaign]:
    """Every target's last campaign in `directory` (campaigns may run in several processes at once)."""
    found = {}
    for stats in (directory / "stats").glob("*.json"):
        record = json.loads(stats.read_text())
        found[record["target"]] = Campaign(record["target"], record["runs"], record["seconds"],
                                           [Path(c) for c in record["crashes"] if Path(c).exists()],
                                           record["coverage"], record.get("workers", 1), record.get("date", ""),
                                           record.get("machine", ""))
    return [found[name] for name in TARGETS if name in found]


_ROW = re.compile(r"^\| (?P<target>[\w-]+) \|")


def write_report(campaigns: list[Campaign], command: str) -> None:
    """The table of every target: this run's campaigns, and the last report's row for the others."""
    kept = {}
    if RESULTS.exists():
        for line in RESULTS.read_text().splitlines():
            match = _ROW.match(line)
            if match and match.group("target") in TARGETS and line.count("|") == 10:
                kept[match.group("target")] = line
    rows = {c.target: f"| {c.target} | {TARGETS[c.target].what} | {c.runs:,} | {c.workers} | {c.seconds:.0f} | "
                      f"{c.coverage} | {len(c.crashes)} | {c.date}, {c.machine} |" for c in campaigns}
    lines = ["# Fuzzing cassc's input readers", "",
             f"Last run {datetime.date.today().isoformat()}: `{command}` (atheris {_atheris_version()}, libFuzzer; "
             "each target's workers share one corpus directory; executions are the sum of every worker's own final "
             "count). Rows of targets that run did not include are kept from the runs before it.", "",
             "Each target ends either normally or in the error it is allowed (cassc's own error, or the binary "
             "format's own error that every caller reports as an input error naming the file); anything else is "
             "a crash, minimised into `tests/test_fuzz_regressions.py`.", "",
             "| target | what it reads | executions | workers | seconds | coverage (edges) | open crashes | run |",
             "|---|---|---:|---:|---:|---:|---:|---|"]
    lines += [rows.get(name) or kept[name] for name in TARGETS if name in rows or name in kept]
    RESULTS.write_text("\n".join(lines) + "\n" + _kept_notes())


def _kept_notes() -> str:
    if RESULTS.exists() and "\n## Notes" in RESULTS.read_text():
        return "\n## Notes" + RESULTS.read_text().split("\n## Notes", 1)[1]
    return ""


def _atheris_version() -> str:
    from importlib.metadata import version

    return version("atheris")


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "run":
        fuzz_loop(sys.argv[2], sys.argv[3:])
        return
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    seeds = sub.add_parser("seeds")
    seeds.add_argument("directory", type=Path)
    everything = sub.add_parser("all")
    everything.add_argument("directory", type=Path)
    everything.add_argument("--runs", type=int, default=1_000_000)
    everything.add_argument("--max-seconds", type=int, default=3600, help="per target")
    everything.add_argument("--workers", type=int, default=1, help="libFuzzer processes per target, at once")
    everything.add_argument("--targets", default=",".join(TARGETS))
    report = sub.add_parser("report")
    report.add_argument("directory", type=Path)
    args = parser.parse_args()
    if args.command == "seeds":
        for target, count in make_seeds(args.directory).items():
            print(f"{target}: {count} seeds")
        return
    command = " ".join(["benchmarks/fuzz.py", *sys.argv[1:]])
    if args.command == "all":
        for name in args.targets.split(","):
            campaign = run_campaign(name, args.directory, args.runs, args.max_seconds, args.workers)
            print(f"{name}: {campaign.runs:,} runs in {campaign.seconds:.0f} s ({campaign.workers} workers), "
                  f"{len(campaign.crashes)} crashes", flush=True)
    else:
        command = "; ".join(sorted({json.loads(s.read_text())["command"]
                                    for s in (args.directory / "stats").glob("*.json")}))
    write_report(recorded_campaigns(args.directory), command)


if __name__ == "__main__":
    main()
