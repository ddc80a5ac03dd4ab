#!/usr/bin/env python3
"""Whole nvcc-built binaries (executables and shared libraries), translated and checked on an NVIDIA GPU.

For each program of HeCBench (its Makefile, `make CC=nvcc ARCH=sm_90`) and of the CUDA by Example book
(`nvcc -arch=sm_90 -o P P.cu`, the programs without OpenGL), here:

  build      as nvcc builds it, in three forms: `static` (nvcc's default: NVIDIA's runtime linked in),
             `shared` (`-cudart shared`, through NVCC_APPEND_FLAGS) and, for the book, `library`: the program's
             source built as a shared library by nvcc (`-shared -Xcompiler -fPIC`, static cudart inside, its
             `main` renamed) that a host program built by g++ calls, as a vendor library is used;
  translate  every fatbin of every nvcc-built binary (`cassc.binary.linked.translate_binary`, as `cassc
             translate` does: gfx1100 code objects, each kernel's descriptor checked against CUDA's layout);
  lower      the same IR to NVPTX (`cassc.binary.nvidia_check.nvptx_containers`), one replacement container per
             fatbin, named by the SHA-256 of the original container;

and packs the binaries untouched with cassc's check libcuda.so.1 (`shims/nvidia-check`), cassc's own
libcuda.so.1 built in front of NVIDIA's driver (`shims/driver`, `--ways ...cassc`) and the integrity probe
(`integrity_probe.cpp`); with `--runtime12`, a host program linked with CUDA 12's static runtime as well.
`device.py` (written beside it) runs each binary on the GPU as built and through each driver first on
LD_LIBRARY_PATH over NVIDIA's (CASSC_REAL_LIBCUDA): the check driver hands NVIDIA's driver the replacement for
every container the program's runtime loads, and its log counts the containers replaced and lists the private
export tables and driver entry points the runtime asked for; cassc's driver does the same replacement while
answering the runtime's cuGetProcAddress and export tables itself. `report` compares the outputs
(hecbench_verify.py's rule) and writes sections of benchmarks/results/binary-path.md.

    .venv/bin/python benchmarks/whole_binary.py prepare --work /tmp/wb --hecbench /work/corpora/hecbench \
        --book /work/corpora/book --pack /work/main/.dev-whole/wb
    (on the GPU)  python3 .dev-whole/wb/device.py .dev-whole/wb $OUT [--ways original,cassc]
    .venv/bin/python benchmarks/whole_binary.py report --work /tmp/wb --device-results results.json --device "..."
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
from datetime import date
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))
sys.path.insert(0, str(REPO_ROOT / "benchmarks"))

from binary_path import data_files, run, run_arguments, same_output  # noqa: E402
from breadth_round_trip import write_section  # noqa: E402
from corpora_build import BOOK_GL_HELPERS  # noqa: E402

RESULTS = REPO_ROOT / "benchmarks" / "results" / "binary-path.md"
SECTION = "## Whole binaries: executables and shared libraries nvcc linked, checked through the driver"
CUDA_BIN = Path("/usr/local/cuda/bin")
NVIDIA_CUDART = Path("/usr/local/cuda/lib64/libcudart.so.13")
# A sample of HeCBench programs whose objects the binary path's round trip already matched (the table above),
# short-running, several kernels and files among them.
HECBENCH = ["atomicReduction-cuda", "bsearch-cuda", "bitpacking-cuda", "chemv-cuda", "srad-cuda", "mrc-cuda",
            "sobol-cuda", "laplace3d-cuda", "lulesh-cuda", "vadd-cuda", "pnpoly-cuda", "haccmk-cuda", "knn-cuda",
            "bwt-cuda", "relu-cuda", "idivide-cuda"]

DEVICE_SCRIPT = r'''
import argparse, json, os, subprocess, time, concurrent.futures as cf
parser = argparse.ArgumentParser(description="run each packed binary as built and through cassc's check driver")
parser.add_argument("pack")
parser.add_argument("out")
parser.add_argument("--timeout", type=float, default=60)
parser.add_argument("--jobs", type=int, default=4)
parser.add_argument("--deadline", type=float, default=400)
parser.add_argument("--ways", default="original,checked,cassc",
                    help="original: as built; checked: through the check driver; cassc: through cassc's libcuda "
                         "in front of NVIDIA's driver (its own cuGetProcAddress and export tables)")
args = parser.parse_args()
ways = args.ways.split(",")
pack, out = os.path.abspath(args.pack), os.path.abspath(args.out)
os.makedirs(os.path.join(out, "logs"), exist_ok=True)
listing = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True).stdout
real = next((line.split("=>")[1].strip() for line in listing.splitlines()
             if line.strip().startswith("libcuda.so.1 ") and "x86-64" in line), "")
print("NVIDIA's driver:", real, flush=True)
start = time.monotonic()
results = {}
if os.path.exists(os.path.join(pack, "probe")):
    done = subprocess.run([os.path.join(pack, "probe"), real], capture_output=True, text=True, timeout=60)
    results["probe"] = {"rc": done.returncode, "stdout": done.stdout, "stderr": done.stderr[-4000:]}
    print(done.stdout, flush=True)
def run(job, way, trace=False):
    left = args.deadline - (time.monotonic() - start)
    if left < 1:
        return {"rc": "not run", "stdout": "", "stderr": "deadline"}
    directory = os.path.join(pack, job["dir"])
    paths = [os.path.join(pack, "cudart"), directory]
    env = dict(os.environ)
    log = os.path.join(out, "logs", job["id"].replace("/", "_") + f".{way}" + (".trace" if trace else ".log"))
    if way == "checked":
        paths.insert(0, os.path.join(pack, "driver"))
        env.update(CASSC_REAL_LIBCUDA=real, CASSC_NVPTX_DIR=os.path.join(pack, "nvptx"), CASSC_CHECK_LOG=log)
    if way == "cassc":
        paths.insert(0, os.path.join(pack, "driver-cassc"))
        env.update(CASSC_REAL_LIBCUDA=real, CASSC_NVPTX_DIR=os.path.join(pack, "nvptx"), CASSC_DRIVER_LOG=log)
    if trace:
        env["CASSC_CHECK_TRACE"] = "1"
    env["LD_LIBRARY_PATH"] = ":".join(paths + [env.get("LD_LIBRARY_PATH", "")])
    try:
        done = subprocess.run(["./" + job["binary"], *job["args"]], cwd=directory, env=env, capture_output=True,
                              text=True, errors="replace", timeout=min(args.timeout, left))
        result = {"rc": done.returncode, "stdout": done.stdout[-20000:], "stderr": done.stderr[-4000:]}
    except subprocess.TimeoutExpired:
        result = {"rc": "timeout", "stdout": "", "stderr": ""}
    if way != "original":
        result["log"] = open(log).read().splitlines() if os.path.exists(log) else []
    return result
jobs = json.load(open(os.path.join(pack, "jobs.json")))
with cf.ThreadPoolExecutor(args.jobs) as pool:
    futures = {pool.submit(run, j, w): (j["id"], w) for j in jobs for w in ways}
    for future in cf.as_completed(futures):
        job, way = futures[future]
        results.setdefault(job, {})[way] = future.result()
        json.dump(results, open(os.path.join(out, "results.json"), "w"))
# One traced run (export table entries called) of the first program of each form.
for variant in ("static", "shared", "library") if "checked" in ways else ():
    job = next((j for j in jobs if j["id"].endswith("/" + variant)), None)
    if job:
        results[job["id"]]["traced"] = run(job, "checked", trace=True)
        json.dump(results, open(os.path.join(out, "results.json"), "w"))
for way in ways[1:]:
    print(way, sum(results[j["id"]].get("original", {}).get("stdout") == results[j["id"]].get(way, {}).get("stdout")
                   for j in jobs), "of", len(jobs), "identical outputs")
print(f"{time.monotonic() - start:.0f} s")
'''


def nvcc_env(shared: bool) -> dict[str, str]:
    environment = {"PATH": f"{CUDA_BIN}:{os.environ['PATH']}"}
    if shared:
        environment["NVCC_APPEND_FLAGS"] = "-cudart shared"
    return environment


def build_hecbench(root: Path, name: str, scratch: Path, shared: bool) -> tuple[Path | None, list[str], str]:
    """(the program, its run arguments, why not) of `make CC=nvcc ARCH=sm_90` in a copy of the benchmark."""
    shutil.copytree(root / "src" / name, scratch, symlinks=True)
    built = run(["make", "-j2", "CC=nvcc", "ARCH=sm_90"], scratch, env=nvcc_env(shared))
    programs = [p for p in scratch.iterdir() if p.is_file() and os.access(p, os.X_OK) and p.suffix == ""
                and p.read_bytes()[:4] == b"\x7fELF"]
    arguments = run_arguments(scratch)
    if built.returncode != 0 or len(programs) != 1 or arguments is None:
        return None, [], "nvcc build failed" if built.returncode else "not one program with a run target"
    return programs[0], arguments, ""


def build_book(source: Path, scratch: Path, variant: str) -> tuple[list[Path], str, str]:
    """(the nvcc-built binaries, the program to run, why not) of a book program in `variant`."""
    scratch.mkdir(parents=True)
    shutil.copyfile(source, scratch / source.name)
    for header in source.parent.parent.glob("common/*.h"):
        (scratch.parent / "common").mkdir(exist_ok=True)
        shutil.copyfile(header, scratch.parent / "common" / header.name)
    nvcc = [str(CUDA_BIN / "nvcc"), "-arch=sm_90"]
    if variant != "library":
        done = run([*nvcc, "-o", "program", source.name], scratch, env=nvcc_env(variant == "shared"))
        return ([scratch / "program"], "program", "") if done.returncode == 0 else ([], "", "nvcc build failed")
    done = run([*nvcc, "-shared", "-Xcompiler", "-fPIC", "-Dmain=cassc_program_main", "-o", "libprogram.so",
                source.name], scratch)
    if done.returncode != 0:
        return [], "", "nvcc build failed"
    symbols = run(["nm", "-D", "--defined-only", "libprogram.so"], scratch).stdout
    entry = next((line.split()[-1] for line in symbols.splitlines() if "cassc_program_main" in line), None)
    if entry is None:
        return [], "", "no main"
    (scratch / "host.cpp").write_text(f'extern "C" int {entry}(int, char **);\n'
                                      f'int main(int count, char **words) {{ return {entry}(count, words); }}\n')
    done = run(["g++", "host.cpp", "-L.", "-lprogram", "-Wl,-rpath,$ORIGIN", "-o", "program"], scratch)
    return ([scratch / "libprogram.so"], "program", "") if done.returncode == 0 else ([], "", "host link failed")


def translate_and_lower(binaries: list[Path], pack: Path, work: Path) -> dict[str, object]:
    """gfx1100 translations (counted) and NVPTX replacement containers (into pack/nvptx) of `binaries`."""
    from cassc.binary.linked import translate_binary
    from cassc.binary.nvidia_check import nvptx_containers
    from cassc.cache import Cache
    from cassc.toolchain import find_toolchain

    record: dict[str, object] = {"fatbins": 0, "kernels": 0, "translated": 0, "lowered": 0, "failures": []}
    lld = find_toolchain().lld
    for binary in binaries:
        for result in translate_binary(binary, ("gfx1100",), work / "translated", work / "scratch", lld, Cache()):
            if result.failure:
                record["failures"].append(result.failure)  # type: ignore[union-attr]
            else:
                record["translated"] = int(record["translated"]) + result.kernels  # type: ignore[call-overload]
        for checked in nvptx_containers(binary, pack / "nvptx", work / "scratch"):
            record["fatbins"] = int(record["fatbins"]) + 1  # type: ignore[call-overload]
            record["kernels"] = int(record["kernels"]) + checked.kernels  # type: ignore[call-overload]
            if checked.failure:
                record["failures"].append(checked.failure)  # type: ignore[union-attr]
            else:
                record["lowered"] = int(record["lowered"]) + 1  # type: ignore[call-overload]
    return record


# A host program of the CUDA runtime API alone, linked with another CUDA release's static runtime (--runtime12): its
# handshake with the driver (the names it asks for, the export tables, the integrity check) is that release's.
RUNTIME_HOST = r"""
#include <cstdio>
#include <cuda_runtime.h>
int main() {
  int runtime = 0, count = -1;
  cudaRuntimeGetVersion(&runtime);
  cudaError_t e = cudaGetDeviceCount(&count);
  printf("runtime %d devices %d: %s\n", runtime, count, cudaGetErrorString(e));
  if (e) return 1;
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  printf("compute capability %d.%d\n", prop.major, prop.minor);
  int h[256], back[256];
  for (int i = 0; i < 256; ++i) h[i] = i * 3;
  int *d = nullptr;
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  e = cudaMalloc(&d, sizeof h);
  if (!e) e = cudaMemcpyAsync(d, h, sizeof h, cudaMemcpyHostToDevice, stream);
  if (!e) e = cudaMemsetAsync(d, 0, 16, stream);
  if (!e) e = cudaMemcpyAsync(back, d, sizeof back, cudaMemcpyDeviceToHost, stream);
  if (!e) e = cudaStreamSynchronize(stream);
  long sum = 0;
  for (int i = 0; i < 256; ++i) sum += back[i];
  printf("sum %ld: %s\n", sum, cudaGetErrorString(e));
  return e != cudaSuccess;
}
"""


def prepare(args: argparse.Namespace) -> None:
    from cassc.binary.nvidia_check import build_check_driver, build_driver_over_nvidia

    work, pack = args.work, args.pack
    shutil.rmtree(pack, ignore_errors=True)
    (work / "scratch").mkdir(parents=True, exist_ok=True)
    build_check_driver(pack / "driver", work / "scratch")
    build_driver_over_nvidia(pack / "driver-cassc", work / "scratch")
    run(["g++", "-std=c++17", "-O2", f"-I{REPO_ROOT / 'shims' / 'driver'}", str(REPO_ROOT / "benchmarks" /
         "integrity_probe.cpp"), "-o", str(pack / "probe"), "-ldl", "-lpthread"], work)
    (pack / "cudart").mkdir(parents=True)
    shutil.copyfile(NVIDIA_CUDART.resolve(), pack / "cudart" / NVIDIA_CUDART.name)
    jobs, records = [], {}
    programs: list[tuple[str, str]] = [("hecbench", name) for name in (args.programs or HECBENCH)] if args.hecbench \
        else []
    if args.book:
        programs += [("book", str(p.relative_to(args.book).with_suffix("")))
                     for p in sorted(args.book.glob("*/*.cu"))
                     if not BOOK_GL_HELPERS.search(p.read_text(errors="replace")) and "cpu" not in p.stem]
    for corpus, name in programs:
        variants = ("static", "shared") if corpus == "hecbench" else ("static", "shared", "library")
        for variant in variants:
            job_id = f"{corpus}/{name}/{variant}"
            scratch = work / "build" / corpus / name.replace("/", "-") / variant
            shutil.rmtree(scratch, ignore_errors=True)
            scratch.parent.mkdir(parents=True, exist_ok=True)
            if corpus == "hecbench":
                program, arguments, why = build_hecbench(args.hecbench, name, scratch, variant == "shared")
                binaries, run_name = ([program], program.name) if program else ([], "")
            else:
                binaries, run_name, why = build_book(args.book / f"{name}.cu", scratch, variant)
                arguments = []
            record: dict[str, object] = {"corpus": corpus, "program": name, "variant": variant, "note": why}
            if binaries:
                record.update(translate_and_lower(binaries, pack, work))
                place = Path(name if corpus == "hecbench" else f"book-{name.replace('/', '-')}")
                target = pack / place
                target.mkdir(parents=True, exist_ok=True)
                binary = f"{run_name}.{variant}"
                shutil.copyfile(scratch / run_name, target / binary)
                (target / binary).chmod(0o755)
                for library in (b for b in binaries if b.suffix == ".so"):
                    shutil.copyfile(library, target / library.name)
                if corpus == "hecbench":
                    for path, relative in data_files(args.hecbench / "src" / name, arguments).items():
                        (pack / relative).parent.mkdir(parents=True, exist_ok=True)
                        if not (pack / relative).exists():
                            shutil.copyfile(path, pack / relative)
                jobs.append({"id": job_id, "dir": str(place), "binary": binary, "args": arguments})
            records[job_id] = record
            print(job_id, {k: v for k, v in record.items() if k != "failures"}, flush=True)
            shutil.rmtree(scratch, ignore_errors=True)
    if args.runtime12:
        (work / "host.cpp").write_text(RUNTIME_HOST)
        target = pack / "runtime12"
        target.mkdir(parents=True, exist_ok=True)
        done = run(["g++", "host.cpp", f"-I{args.runtime12 / 'include'}", f"-I{CUDA_BIN.parent / 'include'}",
                    str(args.runtime12 / "lib" / "libcudart_static.a"), "-ldl", "-lpthread", "-lrt", "-o",
                    str(target / "host.static")], work)
        records["runtime12/host/static"] = {"corpus": "runtime12", "program": "host", "variant": "static",
                                            "note": "" if done.returncode == 0 else "build failed", "fatbins": 0}
        if done.returncode == 0:
            jobs.append({"id": "runtime12/host/static", "dir": "runtime12", "binary": "host.static", "args": []})
    (pack / "jobs.json").write_text(json.dumps(jobs, indent=1))
    (pack / "device.py").write_text(DEVICE_SCRIPT)
    (work / "records.json").write_text(json.dumps(records, indent=1))


REPLACED = re.compile(r"^replaced ([0-9a-f]{64})$")
EXPORT_TABLE = re.compile(r"^export-table ([0-9a-f]{32}) (-?\d+)$")
PROC = re.compile(r"^proc (\S+) ")
ENTRY = re.compile(r"^entry ([0-9a-f]{32}) (\d+)$")


SECTION_CASSC = "## Whole binaries through cassc's libcuda.so.1, in front of NVIDIA's driver"
MISMATCH = re.compile(r"^mismatch (\S*) ")
OUR_TABLE = re.compile(r"^export-table ([0-9a-f]{32}) (ours|unknown)$")


def report(args: argparse.Namespace) -> None:
    records = json.loads((args.work / "records.json").read_text())
    runs = json.loads(args.device_results.read_text())
    if any("cassc" in r for r in runs.values()):
        write_section(RESULTS, SECTION_CASSC, cassc_section(records, runs, args.device))
    if any("checked" in r for r in runs.values()):
        check_driver_section(args, records, runs)


def cassc_section(records: dict[str, dict], runs: dict[str, dict], device: str) -> str:
    """Each binary as built and through cassc's own libcuda (shims/driver, built over NVIDIA's driver): its
    cuGetProcAddress, export tables and integrity hash answer NVIDIA's runtime, its loaders hand the driver the
    NVPTX replacement of every container; the probe's integrity hashes beside the driver's."""
    rows = ["| program | binary | containers replaced | output through cassc's libcuda |", "|---|---|---|---|"]
    compared = matched = 0
    names: set[str] = set()
    mismatches: set[str] = set()
    tables: dict[str, str] = {}
    for job_id, record in records.items():
        program = f"{record['corpus']}: {record['program']}"
        original, ours = runs.get(job_id, {}).get("original", {}), runs.get(job_id, {}).get("cassc", {})
        log = ours.get("log", [])
        replaced = {m.group(1) for line in log if (m := REPLACED.match(line))}
        names |= {m.group(1) for line in log if (m := PROC.match(line))}
        mismatches |= {m.group(1) for line in log if (m := MISMATCH.match(line))}
        tables.update({m.group(1): m.group(2) for line in log if (m := OUR_TABLE.match(line))})
        if record["note"]:
            rows.append(f"| {program} | {record['variant']} | | {record['note']} |")
            continue
        if original.get("rc") not in range(256):
            verdict = f"original did not finish ({original.get('rc', 'not run')}): not compared"
        else:
            compared += 1
            same = ours.get("rc") == original["rc"] and same_output(original["stdout"], ours.get("stdout", ""))
            matched += same
            printed = same_output(original["stdout"], ours.get("stdout", ""))
            verdict = "same output" + (f" (both exit {original['rc']})" if original["rc"] else "") if same else \
                f"same output, exit status {ours.get('rc')} for {original['rc']}" if printed else \
                f"DIFFERENT (exit {ours.get('rc')}: {(ours.get('stderr') or ours.get('stdout', '')).strip()[-120:]!r})"
        rows.append(f"| {program} | {record['variant']} | {len(replaced)} | {verdict} |")
    probe = runs.get("probe", {}).get("stdout", "")
    equal = re.search(r"integrity hashes equal: (\d+) of (\d+)", probe)
    return "\n".join([
        SECTION_CASSC, "",
        f"{date.today()}: packs made as above (`benchmarks/whole_binary.py prepare ... --runtime12 DIR`), "
        f"`python3 P/device.py P OUT --ways original,cassc` on {device}, then `report`. cassc's libcuda.so.1 "
        "(`shims/driver/cassc_cuda.cpp` built with CASSC_DRIVER_OVER_NVIDIA, `nvidia_check.build_driver_over_nvidia`) "
        "answers NVIDIA's runtime itself: `cuGetProcAddress` from `driver-api.tsv` (CUDA's *Typedefs.h ABIs), "
        "`cuGetExportTable` with cassc's own tables (the integrity check's HMAC-MD2 among them); every other entry "
        "point forwards to NVIDIA's driver, and its loaders hand the driver each container's NVPTX replacement. "
        "`runtime12`: a host program linked with CUDA 12.9's static runtime (the nvidia-cuda-runtime-cu12 wheel).", "",
        f"**{matched} of {compared}** binaries whose original finished print the original's output through cassc's "
        "libcuda.", "",
        f"Integrity hash: cassc's `integrity_hash` equals NVIDIA's driver's answer for "
        f"{equal.group(1) + ' of ' + equal.group(2) if equal else 'no'} runtime versions tried "
        "(`benchmarks/integrity_probe.cpp`, the driver's own tables and devices as inputs).", "",
        f"cuGetProcAddress: {len(names)} distinct names asked (CUDA 13.0's and 12.9's runtimes); answers that differ from NVIDIA's driver's own "
        f"cuGetProcAddress (symbol or status): {len(mismatches)}" + (f" ({', '.join(sorted(mismatches)[:20])})"
                                                                      if mismatches else "") + ".", "",
        "Export tables asked for: " + ", ".join(f"`{g}` ({how})" for g, how in sorted(tables.items())) + ".", "",
        *rows, "", "Probe output (NVIDIA's tables as its driver answers them):", "", "```", probe.strip(), "```", ""])


def check_driver_section(args: argparse.Namespace, records: dict[str, dict], runs: dict[str, dict]) -> None:
    rows = ["| program | binary | fatbins with kernels: lowered / all | kernels: gfx1100 translated / all | "
            "containers the check driver replaced | output |", "|---|---|---|---|---|---|"]
    compared = matched = 0
    tables: dict[str, set[str]] = {}
    names: set[str] = set()
    called: dict[str, set[int]] = {}  # export table -> the entries a traced run called
    for job_id, record in records.items():
        program = f"{record['corpus']}: {record['program']}"
        if record["corpus"] == "runtime12":  # cassc's libcuda's run alone
            continue
        if record["note"] or not record["fatbins"]:
            rows.append(f"| {program} | {record['variant']} | | | | {record['note'] or 'no kernels'} |")
            continue
        original, checked = runs.get(job_id, {}).get("original", {}), runs.get(job_id, {}).get("checked", {})
        log = checked.get("log", [])
        replaced = {m.group(1) for line in log if (m := REPLACED.match(line))}
        for line in log:
            if m := EXPORT_TABLE.match(line):
                tables.setdefault(m.group(1), set()).add(record["variant"])
            elif m := PROC.match(line):
                names.add(m.group(1))
        for line in runs.get(job_id, {}).get("traced", {}).get("log", []):
            if m := ENTRY.match(line):
                called.setdefault(m.group(1), set()).add(int(m.group(2)))
        if original.get("rc") not in range(256):
            verdict = f"original did not finish ({original.get('rc', 'not run')}): not compared"
        elif not replaced:
            verdict = "no kernel launched (no container loaded): nothing checked"
        else:
            compared += 1
            same = checked.get("rc") == original["rc"] and same_output(original["stdout"], checked.get("stdout", ""))
            complete = record["lowered"] == record["fatbins"]
            matched += same and complete
            verdict = ("same output" if same else f"DIFFERENT (exit {checked.get('rc')})") + \
                ("" if complete else " (a container kept its original code)") + \
                (f" (both exit {original['rc']})" if original["rc"] else "")
        rows.append(f"| {program} | {record['variant']} | {record['lowered']} / {record['fatbins']} | "
                    f"{record['translated']} / {record['kernels']} | {len(replaced)} | {verdict} |")
    lines = [SECTION, "",
             f"{date.today()}: `benchmarks/whole_binary.py prepare --work W --pack P --hecbench "
             "/work/corpora/hecbench --book /work/corpora/book` here (nvcc 13, sm_90), `python3 P/device.py P OUT "
             f"--timeout 60 --jobs 4 --deadline 330` on {args.device}, then `report`. Each binary ran as nvcc "
             "built it and again through cassc's check "
             "libcuda.so.1 (`shims/nvidia-check`), which hands NVIDIA's driver the translator's NVPTX lowering in "
             "place of every fatbin container the program's CUDA runtime loads, found by the container's SHA-256 "
             "as `cassc translate` names it. `static`: nvcc's default (NVIDIA's runtime linked in); `shared`: "
             "`-cudart shared`; `library`: the program's source built by nvcc as a shared library (static cudart "
             "inside) that a g++-built host program calls.", "",
             f"**{matched} of {compared}** binaries whose original finished print the original's output through "
             "the check driver, with every container replaced.", "", *rows, "",
             "Private export tables NVIDIA's runtime asked the driver for (GUID bytes; which binaries; the "
             "entries a traced run, CASSC_CHECK_TRACE, saw called): " +
             ", ".join(f"`{g}` ({'/'.join(sorted(v))}; called: {sorted(called.get(g, [])) or 'none'})"
                       for g, v in sorted(tables.items())) + ". `d4082055...` is the integrity check, never traced "
             "(the runtime hashes its entry's address); its entry 1 is called: a copied table, the check driver's "
             "first form, failed it (`integrity checks failed`), so tables are patched in place.", "",
             f"Driver entry points it resolved through cuGetProcAddress: {len(names)} distinct names.", ""]
    section = "\n".join(lines)
    write_section(RESULTS, SECTION, section)
    (args.work / "driver-names.txt").write_text("\n".join(sorted(names)) + "\n")
    print(section)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    prepare_parser = commands.add_parser("prepare")
    prepare_parser.add_argument("--work", type=Path, required=True)
    prepare_parser.add_argument("--pack", type=Path, required=True, help="what goes to the GPU machine")
    prepare_parser.add_argument("--hecbench", type=Path, help="a HeCBench checkout")
    prepare_parser.add_argument("--programs", nargs="*", help="HeCBench programs (default: the sample above)")
    prepare_parser.add_argument("--book", type=Path, help="the CUDA by Example checkout")
    prepare_parser.add_argument("--runtime12", type=Path,
                                help="another release's CUDA runtime (nvidia/cuda_runtime of the "
                                     "nvidia-cuda-runtime-cu12 wheel): a host program linked with its static runtime")
    report_parser = commands.add_parser("report")
    report_parser.add_argument("--work", type=Path, required=True)
    report_parser.add_argument("--device-results", type=Path, required=True)
    report_parser.add_argument("--device", default="one H100 (sm_90)")
    args = parser.parse_args()
    prepare(args) if args.command == "prepare" else report(args)


if __name__ == "__main__":
    main()
