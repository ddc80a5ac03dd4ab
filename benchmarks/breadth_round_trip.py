#!/usr/bin/env python3
"""The binary path's construct classes, each a whole program run on an sm_90 GPU as nvcc built it and round-tripped.

Programs: `benchmarks/breadth/*.cu` (device printf/assert/malloc, grid-wide sync under a cooperative launch,
sm_80/sm_90 warp instructions with asynchronous copies and mbarriers, virtual functions and function pointers,
Thrust). For each, here:

  build       `nvcc -arch=sm_90 -c` then `nvcc` links the original;
  translate   every kernel into a validated gfx1100 code object (cassc.binary.translate);
  round trip  the same IR lowered to NVPTX, assembled by ptxas (sm_90), wrapped by `fatbinary` and put in place
              of the object's `.nv_fatbin` (objcopy); nvcc links the round-trip program from that object;
  SASS route  the program compiled to sm_90 SASS only (`-gencode arch=compute_90,code=sm_90`), its SASS lifted
              (the SASS route's IR) and round-tripped the same way.

`prepare` packs both executables with `device.py`; on the GPU `python3 PACK/device.py PACK $OUT` runs each
and records what it printed and its exit status; `report` compares the two and writes the table into
benchmarks/results/binary-path.md.

    .venv/bin/python benchmarks/breadth_round_trip.py prepare --work /tmp/breadth
    (on the GPU)  python3 .dev-binpath/breadth/device.py .dev-binpath/breadth $OUT
    .venv/bin/python benchmarks/breadth_round_trip.py report --work /tmp/breadth --device-results results.json \
        --device "one H100 (sm_90)"
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
from datetime import date
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

from cassc.binary.codegen import data_layout, nvptx_assembly  # noqa: E402
from cassc.binary.extract import read_binary  # noqa: E402
from cassc.binary.lift import NVPTX, lift_module  # noqa: E402
from cassc.binary.ptx import parse_ptx  # noqa: E402
from cassc.binary.sass_translate import lift_modules_sass  # noqa: E402
from cassc.binary.translate import translate  # noqa: E402
from cassc.errors import CasscError  # noqa: E402
from cassc.toolchain import find_toolchain  # noqa: E402

PROGRAMS = REPO_ROOT / "benchmarks" / "breadth"
RESULTS = REPO_ROOT / "benchmarks" / "results" / "binary-path.md"
CUDA_BIN = Path("/usr/local/cuda/bin")
SECTION = "## Construct classes: whole programs round-tripped on an sm_90 GPU"

DEVICE_SCRIPT = r'''
import json, os, subprocess, sys
pack, out = sys.argv[1], sys.argv[2]
results = {}
for name in sorted(json.load(open(os.path.join(pack, "programs.json")))):
    for variant in ("original", "roundtrip", "roundtrip-sass"):
        path = os.path.join(pack, name, variant)
        if not os.path.exists(path):
            continue
        try:
            done = subprocess.run([path], capture_output=True, text=True, errors="replace", timeout=60)
            results[f"{name}/{variant}"] = {"rc": done.returncode, "stdout": done.stdout[-8000:],
                                            "stderr": done.stderr[-2000:]}
        except subprocess.TimeoutExpired:
            results[f"{name}/{variant}"] = {"rc": "timeout", "stdout": "", "stderr": ""}
        print(name, variant, results[f"{name}/{variant}"]["rc"], flush=True)
        print(results[f"{name}/{variant}"]["stdout"][-1500:], flush=True)
os.makedirs(out, exist_ok=True)
json.dump(results, open(os.path.join(out, "results.json"), "w"), indent=1)
'''


def run(command: list[str], cwd: Path) -> None:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        raise CasscError(f"{' '.join(command)}: {done.stderr.strip()[:400]}")


def prepare(work: Path) -> None:
    pack = work / "pack"
    shutil.rmtree(work, ignore_errors=True)
    pack.mkdir(parents=True)
    lld = find_toolchain().lld
    programs = {}
    for source in sorted(PROGRAMS.glob("*.cu")):
        name = source.stem
        scratch = work / name
        scratch.mkdir()
        obj = scratch / f"{name}.o"
        run([str(CUDA_BIN / "nvcc"), "-arch=sm_90", "-c", str(source), "-o", str(obj)], scratch)
        (pack / name).mkdir()
        run([str(CUDA_BIN / "nvcc"), "-arch=sm_90", str(obj), "-o", str(pack / name / "original")], scratch)
        record: dict[str, object] = {"kernels": 0, "translated": 0, "failures": {}, "round_trip": False}
        for module in read_binary(obj):
            translation = translate(module, scratch, lld)
            record["kernels"] = int(record["kernels"]) + len(module.kernels)  # type: ignore[call-overload]
            record["translated"] = int(record["translated"]) + len(translation.kernels)  # type: ignore[call-overload]
            record["failures"].update(translation.failures)  # type: ignore[union-attr]
            lifted = lift_module(parse_ptx(module.best_ptx() or ""), NVPTX, data_layout(NVPTX))
            if lifted.failures:
                continue
            stem = scratch / f"{name}.roundtrip"
            Path(f"{stem}.ptx").write_text(nvptx_assembly(lifted.ir))
            run([str(CUDA_BIN / "ptxas"), "-arch=sm_90", f"{stem}.ptx", "-o", f"{stem}.cubin"], scratch)
            run([str(CUDA_BIN / "fatbinary"), "-64", f"--create={stem}.fatbin",
                 f"--image3=kind=elf,sm=90,file={stem}.cubin"], scratch)
            run(["objcopy", f"--update-section=.nv_fatbin={stem}.fatbin", str(obj)], scratch)
            record["round_trip"] = True
        if record["round_trip"]:
            run([str(CUDA_BIN / "nvcc"), "-arch=sm_90", str(obj), "-o", str(pack / name / "roundtrip")], scratch)
        record.update(sass_round_trip(source, scratch, pack / name / "roundtrip-sass"))
        programs[name] = record
        print(name, record, flush=True)
    (pack / "programs.json").write_text(json.dumps(programs, indent=1))
    (pack / "device.py").write_text(DEVICE_SCRIPT)


def sass_round_trip(source: Path, scratch: Path, executable: Path) -> dict[str, object]:
    """The SASS route's round trip of `source`: its sm_90 SASS-only object lifted from SASS, lowered to NVPTX and
    linked as `executable`; the record's SASS fields."""
    obj = scratch / f"{source.stem}.sass.o"
    run([str(CUDA_BIN / "nvcc"), "-gencode", "arch=compute_90,code=sm_90", "-c", str(source), "-o", str(obj)], scratch)
    modules = read_binary(obj)
    record: dict[str, object] = {"sass_kernels": sum(len(m.kernels) for m in modules), "sass_failures": {}}
    try:
        for module in modules:
            ir, arch, names, failures, _ = lift_modules_sass([module], NVPTX)
            record["sass_failures"].update(failures)  # type: ignore[union-attr]
            if failures:
                return record
            stem = scratch / f"{source.stem}.sass-roundtrip"
            Path(f"{stem}.ptx").write_text(nvptx_assembly(ir, f"sm_{arch}"))
            run([str(CUDA_BIN / "ptxas"), f"-arch=sm_{arch}", f"{stem}.ptx", "-o", f"{stem}.cubin"], scratch)
            run([str(CUDA_BIN / "fatbinary"), "-64", f"--create={stem}.fatbin",
                 f"--image3=kind=elf,sm={arch},file={stem}.cubin"], scratch)
            run(["objcopy", f"--update-section=.nv_fatbin={stem}.fatbin", str(obj)], scratch)
    except CasscError as error:
        record["sass_failures"] = {"(all)": str(error)[:300]}
        return record
    run([str(CUDA_BIN / "nvcc"), "-arch=sm_90", str(obj), "-o", str(executable)], scratch)
    return record


def comparable(output: str) -> str:
    """Output without addresses (%p), which differ between any two runs."""
    return re.sub(r"0x[0-9a-f]{6,}", "0x...", output)


def report(work: Path, device_results: Path, device: str) -> None:
    programs = json.loads((work / "pack" / "programs.json").read_text())
    runs = json.loads(device_results.read_text())
    rows = ["| program | kernels translated (gfx1100) | round trip prints the original's output (stdout, stderr, exit) | "
            "SASS route: kernels lifted from sm_90 SASS, its round trip the same | original's output |",
            "|---|---|---|---|---|"]

    def same_as_original(name: str, variant: str) -> str:
        original, round_trip = runs.get(f"{name}/original", {}), runs.get(f"{name}/{variant}", {})
        same = bool(original) and bool(round_trip) and original["rc"] == round_trip["rc"] and all(
            comparable(original[stream]) == comparable(round_trip[stream]) for stream in ("stdout", "stderr"))
        return f"{'yes' if same else 'NO'} (exit {original.get('rc')}/{round_trip.get('rc')})"

    for name, record in programs.items():
        original = runs.get(f"{name}/original", {})
        shown = " / ".join(line.strip() for line in original.get("stdout", "").splitlines()[:3])[:220]
        lifted = record.get("sass_kernels", 0) - len(record.get("sass_failures", {}))
        sass = f"{lifted}/{record.get('sass_kernels', 0)}, " + (
            same_as_original(name, "roundtrip-sass") if f"{name}/roundtrip-sass" in runs else "not run")
        rows.append(f"| {name} | {record['translated']}/{record['kernels']} | {same_as_original(name, 'roundtrip')} | "
                    f"{sass} | `{shown.replace('|', '/')}` |")
    section = "\n".join([SECTION, "",
                         f"{date.today()}: `benchmarks/breadth_round_trip.py prepare` here (nvcc 13, sm_90), "
                         f"then its device.py on {device}, then `report`. Each program's objects translated "
                         "into gfx1100 code objects; the same IR lowered to NVPTX replaced the device code, "
                         "and the relinked program ran beside nvcc's; likewise the IR the SASS route lifts from the "
                         "program's sm_90 SASS-only build.", "", *rows, ""])
    write_section(RESULTS, SECTION, section)
    print(section)


def write_section(results: Path, title: str, section: str) -> None:
    """`section` in place of the results file's section headed `title` (up to the next `## `), or appended."""
    text = results.read_text()
    if title in text:
        before, after = text.split(title, 1)
        rest = after.split("\n## ", 1)
        text = before + section + ("\n## " + rest[1] if len(rest) > 1 else "")
    else:
        text = text.rstrip("\n") + "\n\n" + section
    results.write_text(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    prepare_parser = commands.add_parser("prepare")
    prepare_parser.add_argument("--work", type=Path, required=True)
    report_parser = commands.add_parser("report")
    report_parser.add_argument("--work", type=Path, required=True)
    report_parser.add_argument("--device-results", type=Path, required=True)
    report_parser.add_argument("--device", default="one H200", help="the GPU the device results came from")
    args = parser.parse_args()
    if args.command == "prepare":
        prepare(args.work)
    else:
        report(args.work, args.device_results, args.device)


if __name__ == "__main__":
    main()
