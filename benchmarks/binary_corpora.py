#!/usr/bin/env python3
"""The binary path on corpora it was not tuned to: each program's objects built by NVIDIA's nvcc, linked by cassc.

Each program is built by its own build system, unmodified, in a scratch copy, with `nvcc` (first on PATH, and
`$CUDAHOME/bin/nvcc` for Parboil) replaced by `nvcc-stand-in` (this file's `nvcc` command):

  compile  a command that compiles only (`-c`...) runs NVIDIA's nvcc 13 with `-arch=sm_80` in place of the
           build's GPU architecture options;
  link     a command that links (compiling its sources first with nvcc, as above) hands the objects, libraries
           and options to cassc, which translates the device code for gfx1100 and links the executable; with
           --round-trip the same objects are also linked by nvcc as they are (`<output>.original`) and with
           every object's device code replaced by the NVPTX lowering of cassc's IR (ptxas, fatbinary,
           objcopy: `<output>.roundtrip`).

A program counts in "objects built" when nvcc compiled everything its build asked for and the build reached its
link; it is "linked" when cassc wrote the executable. Corpora: book (CUDA by Example: `nvcc -o P P.cu` in its
chapter), parboil (`common/mk/Makefile` as corpora_build.py runs it), shoc (configure, its probes straight to nvcc;
make with automake's link command `CXXLD=nvcc`, as a user hands the link to cassc: g++ links by default), hecbench
(`make CC=nvcc ARCH=sm_80` in a seeded sample of the in-reach `*-cuda` benchmarks, as binary_path.py draws it).
`pack` puts the round-trip pairs that run without a display (book: no arguments; SHOC: `-s 1`; HeCBench: its
Makefile's `run` arguments and data files) with binary_path.py's device script; `report` writes the per-corpus rows
into benchmarks/results/binary-path.md.

    .venv/bin/python benchmarks/binary_corpora.py build book /work/corpora/book --work /tmp/bc --round-trip
    .venv/bin/python benchmarks/binary_corpora.py build hecbench /work/corpora/hecbench --work /tmp/bc --sample 40
    .venv/bin/python benchmarks/binary_corpora.py pack --work /tmp/bc --out .dev-binpath/corpora
    (on the GPU)  python3 .dev-binpath/corpora/device.py .dev-binpath/corpora $OUT --timeout 60 --jobs 4
    .venv/bin/python benchmarks/binary_corpora.py report --work /tmp/bc --device-results results-1-of-1.json \
        --device "one H100 (sm_90)"
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))
sys.path.insert(0, str(REPO_ROOT / "benchmarks"))

CUDA = Path("/usr/local/cuda")
RESULTS = REPO_ROOT / "benchmarks" / "results" / "binary-path.md"
SECTION = "## Per corpus: nvcc-built objects linked by cassc"
ARCH = "sm_80"
SOURCE = re.compile(r"\.(cu|c|cc|cpp|cxx|C)$")
INPUT = re.compile(r"\.(o|a|so(\.\d+)*)$")
# Options that choose GPU architectures (with a separate value where the option takes one).
ARCH_OPTIONS = ("-arch", "--gpu-architecture", "-gencode", "--generate-code", "-code", "--gpu-code")
COMPILE_ONLY = {"-c", "--compile", "-E", "--preprocess", "-M", "-MM", "-ptx", "--ptx", "-cubin", "--cubin",
                "-fatbin", "--fatbin", "-dryrun", "--dryrun", "--version", "-V", "-dlink", "--device-link",
                "-lib", "--lib", "-cuda", "--cuda", "--help", "-h", "-odir"}
# The nvcc that compiles and links for the build (`build --cuda`: an older toolkit for programs using API CUDA 13
# removed); the round trip's ptxas and fatbinary stay CUDA 13's, whose PTX ISA the NVPTX lowering writes.
NVCC_VARIABLE = "CASSC_CORPORA_NVCC"
# `build --defer-link`: record each cassc link (arguments, directory) instead of running it, for `link` to run
# later, elsewhere (nvcc's compiles and the round trip on a machine with many cores, the links where cassc's
# AMD toolchain is); the round trip and nvcc's own link still run.
DEFER_VARIABLE = "CASSC_CORPORA_DEFER_LINK"
# A configure script's probes (conftest compiles and links) go straight to nvcc as they are: they ask whether the
# toolkit works, not cassc, and each would otherwise cost a cassc link and a round trip (SHOC's configure: hundreds).
PASS_THROUGH_VARIABLE = "CASSC_CORPORA_PASS_THROUGH"
# `build --nvcc-libraries DIR`: a directory searched first by nvcc's links (the original's and the round trip's),
# not cassc's: NVIDIA's libraries the GPU machine has (cuBLAS 13, cuFFT 12) in place of an older toolkit's, whose
# cuBLAS is too large to carry there.
LIBRARIES_VARIABLE = "CASSC_CORPORA_NVCC_LIBRARIES"
STAND_IN = """#!/bin/sh
exec {python} {script} nvcc "$@"
"""


# ------------------------------------------------------------------------------------------------
# the nvcc stand-in a build runs

def without_arch(arguments: list[str]) -> list[str]:
    kept: list[str] = []
    skip = False
    for argument in arguments:
        if skip:
            skip = False
            continue
        name = argument.split("=", 1)[0]
        if name in ARCH_OPTIONS:
            skip = "=" not in argument
            continue
        kept.append(argument)
    return kept


def output_of(arguments: list[str]) -> str:
    for index, argument in enumerate(arguments):
        if argument in ("-o", "--output-file") and index + 1 < len(arguments):
            return arguments[index + 1]
        if argument.startswith("--output-file="):
            return argument.split("=", 1)[1]
    return "a.out"


def record(entry: dict[str, object]) -> None:
    log = os.environ.get("CASSC_CORPORA_LOG")
    if log:
        with open(log, "a") as handle:
            handle.write(json.dumps(entry) + "\n")


def round_trip_object(obj: Path, into: Path) -> str | None:
    """A copy of `obj` whose device code is the NVPTX lowering of cassc's IR; None, or why not."""
    from cassc.binary.codegen import data_layout, nvptx_assembly
    from cassc.binary.extract import read_binary
    from cassc.binary.lift import NVPTX, lift_module
    from cassc.binary.ptx import parse_ptx
    from cassc.errors import CasscError

    shutil.copyfile(obj, into)
    try:
        modules = read_binary(obj)
    except CasscError as error:
        return str(error)
    for module in modules:
        if module.images[0].section != ".nv_fatbin":
            return "relocatable device code"
        try:  # a module-wide refusal (a `__managed__` variable, say) is the round trip's failure, as a kernel's
            parsed = parse_ptx(module.best_ptx() or "")
            lifted = lift_module(parsed, NVPTX, data_layout(NVPTX))
        except CasscError as error:
            return str(error)
        if lifted.failures:
            return "; ".join(lifted.failures.values())[:300]
        stem = into.with_suffix("")
        arch = parsed.target.split()[0] if parsed.target.startswith("sm_") else NVPTX.cpu  # the object's own
        Path(f"{stem}.ptx").write_text(nvptx_assembly(lifted.ir, arch))
        for step in ([str(CUDA / "bin" / "ptxas"), f"-arch={arch}", f"{stem}.ptx", "-o", f"{stem}.cubin"],
                     # with the PTX, as nvcc's own -arch=sm_80: a newer GPU (sm_90) runs it JIT-compiled
                     [str(CUDA / "bin" / "fatbinary"), "-64", f"--create={stem}.fatbin",
                      f"--image3=kind=elf,sm={arch.removeprefix('sm_')},file={stem}.cubin",
                      f"--image3=kind=ptx,sm={arch.removeprefix('sm_')},file={stem}.ptx"],
                     ["objcopy", f"--update-section=.nv_fatbin={stem}.fatbin", str(into)]):
            done = subprocess.run(step, capture_output=True, text=True)
            if done.returncode != 0:
                return f"{Path(step[0]).name}: {done.stderr.strip()[:200]}"
    return None


def cassc_link(link: list[str], cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", "import sys; from cassc.cli import main; sys.exit(main())", *link],
                          cwd=cwd, capture_output=True, text=True, errors="replace")


def stand_in(arguments: list[str]) -> int:
    nvcc = os.environ.get(NVCC_VARIABLE, str(CUDA / "bin" / "nvcc"))
    if os.environ.get(PASS_THROUGH_VARIABLE):
        return subprocess.run([nvcc, *arguments]).returncode
    arguments = [*without_arch(arguments), f"-arch={ARCH}"]
    inputs = [a for a in arguments if SOURCE.search(a) or INPUT.search(a)]
    if COMPILE_ONLY & set(arguments) or not inputs:
        return subprocess.run([nvcc, *arguments]).returncode
    output = output_of(arguments)
    # Sources on a link line are compiled first, by nvcc, with the line's compile options.
    compile_options = [a for i, a in enumerate(arguments) if not (SOURCE.search(a) or INPUT.search(a))
                       and a not in ("-o", "--output-file") and (i == 0 or arguments[i - 1] not in ("-o", "--output-file"))
                       and not a.startswith(("-l", "-L", "-Xlinker", "-Wl,"))]
    scratch = Path(tempfile.mkdtemp(prefix="corpora-link-", dir=Path(output).resolve().parent))
    link = []
    for argument in arguments:
        if SOURCE.search(argument) and Path(argument).is_file():
            obj = scratch / f"{len(link)}-{Path(argument).stem}.o"
            if subprocess.run([nvcc, *compile_options, "-c", argument, "-o", str(obj)]).returncode != 0:
                shutil.rmtree(scratch, ignore_errors=True)
                return 1
            link.append(str(obj))
        else:
            link.append(argument)
    deferred = bool(os.environ.get(DEFER_VARIABLE))
    entry: dict[str, object] = {"output": str(Path(output).resolve())}
    if deferred:
        entry.update(linked=None, error="", cwd=os.getcwd(), link=link)
        returncode = 0
    else:
        done = cassc_link(link)
        sys.stderr.write(done.stderr)
        entry.update(linked=done.returncode == 0 and Path(output).is_file(), error=done.stderr.strip()[-1500:])
        returncode = done.returncode
    if os.environ.get("CASSC_CORPORA_ROUND_TRIP") and entry["linked"] is not False:
        if entry["linked"]:
            shutil.copyfile(output, f"{output}.gfx1100")
        at = link.index(output) - 1 if output in link else len(link)
        link = link[:at] + link[at + 2:]  # the variants' own -o follows
        # nvcc links the driver library (-lcuda) from LIBRARY_PATH: here, where no driver is installed, the toolkit's
        # link stub, whose soname the GPU machine's driver answers to.
        stubs = Path(nvcc).resolve().parent.parent / "lib64" / "stubs"
        nvcc_env = {**os.environ, "LIBRARY_PATH": os.pathsep.join(filter(None, [os.environ.get("LIBRARY_PATH"),
                                                                                str(stubs)]))}
        searched = [f"-L{os.environ[LIBRARIES_VARIABLE]}"] if os.environ.get(LIBRARIES_VARIABLE) else []
        original = subprocess.run([nvcc, *searched, *link, "-o", f"{output}.original"], capture_output=True,
                                  text=True, env=nvcc_env)
        objects = [a for a in link if a.endswith(".o") and Path(a).is_file()]
        replaced, why = [], []
        for index, obj in enumerate(objects):
            copy = scratch / f"rt{index}-{Path(obj).name}"
            reason = round_trip_object(Path(obj), copy)
            replaced.append(str(copy))
            if reason:
                why.append(f"{Path(obj).name}: {reason}")
        relinked = subprocess.run([nvcc, *searched, *[replaced[objects.index(a)] if a in objects else a for a in link],
                                   "-o", f"{output}.roundtrip"], capture_output=True, text=True, env=nvcc_env)
        entry["round_trip"] = original.returncode == 0 and relinked.returncode == 0 and not why
        entry["round_trip_note"] = "; ".join(why)[:400] or relinked.stderr.strip()[:300]
        if deferred and original.returncode == 0:
            shutil.copyfile(f"{output}.original", output)  # the build goes on as it would after its link
    record(entry)
    if deferred:  # the objects the link line compiled stay for `link`; the round trip's copies go
        for made in scratch.glob("rt*"):
            made.unlink()
    else:
        shutil.rmtree(scratch, ignore_errors=True)
    return returncode


# ------------------------------------------------------------------------------------------------
# building a corpus

def environment(work: Path, round_trip: bool, cuda: Path = CUDA, defer_link: bool = False,
                nvcc_libraries: Path | None = None) -> dict[str, str]:
    home = work / "cuda-home"
    (home / "bin").mkdir(parents=True, exist_ok=True)
    for name in ("include", "lib64", "nvvm"):
        if not (home / name).exists():
            (home / name).symlink_to(cuda / name)
    script = home / "bin" / "nvcc"
    script.write_text(STAND_IN.format(python=sys.executable, script=Path(__file__).resolve()))
    script.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NVCC_", "CASSC_", "MAKEFLAGS", "MFLAGS"))}
    env.update(PATH=f"{home / 'bin'}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}{env['PATH']}",
               CUDA_PATH=str(home), CUDA_HOME=str(home), CASSC_CACHE_DIR=str(work / "cassc-cache"),
               PYTHONPATH=os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")])))
    if round_trip:
        env["CASSC_CORPORA_ROUND_TRIP"] = "1"
    if cuda != CUDA:
        env[NVCC_VARIABLE] = str(cuda / "bin" / "nvcc")
    if defer_link:
        env[DEFER_VARIABLE] = "1"
    if nvcc_libraries:
        env[LIBRARIES_VARIABLE] = str(nvcc_libraries)
    return env


def hecbench_sample(root: Path, size: int, seed: int, failing: set[str]) -> dict[str, Path]:
    """binary_path.py's sample: seed's order over the in-reach benchmarks, less `failing` (originals that exit
    with an error on the GPU), the first `size`."""
    from binary_path import in_reach

    source = root / "src"
    names = sorted(d.name for d in source.iterdir() if d.name.endswith("-cuda") and in_reach(d))
    random.Random(seed).shuffle(names)
    return {name: source / name for name in [n for n in names if n not in failing][:size]}


def build(args: argparse.Namespace) -> None:
    from corpora_build import BOOK_GL_HELPERS, build_shoc, book_programs, parboil_programs, rodinia_programs, \
        shoc_programs
    from hecbench_build import first_error

    work = args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    root = args.checkout.resolve()
    state_path = work / f"{args.corpus}.json"
    state = json.loads(state_path.read_text()) if state_path.exists() else {}
    env = environment(work, args.round_trip, args.cuda.resolve(), args.defer_link, args.nvcc_libraries)
    tree = work / f"{args.corpus}-tree"
    if not tree.exists():
        ignore = shutil.ignore_patterns(".git")
        if args.corpus == "hecbench":
            (tree / "src").mkdir(parents=True)
            # Every benchmark's directory as a link (Makefiles read their siblings': ../sptrsv-sycl/main.cpp,
            # -I../blockAccess-cuda), include/ and data/ too; the one built is a copy of its own.
            for entry in (root / "src").iterdir():
                (tree / "src" / entry.name).symlink_to(entry)
        else:
            shutil.copytree(root, tree, symlinks=True, ignore=ignore)
    programs = {"book": book_programs, "parboil": parboil_programs, "shoc": shoc_programs,
                "rodinia": rodinia_programs}.get(args.corpus)
    if programs:
        chosen = programs(tree)
    else:
        from binary_path import failing_originals
        failing = failing_originals(args.skip_failing_originals) if args.skip_failing_originals else set()
        chosen = hecbench_sample(root, args.sample, args.seed, failing)
    index, count = (int(x) for x in args.part.split("/"))
    chosen = {name: path for name, path in list(chosen.items())[index - 1::count] if re.search(args.only, name)}
    if args.corpus == "shoc":
        log = work / "shoc.links.jsonl"
        log.unlink(missing_ok=True)
        # SHOC's programs link with automake's CXXLD (g++ by default): the link is handed to the stand-in, as a
        # user hands it to cassc, and configure's probes go to nvcc itself.
        built = build_shoc(tree, list(chosen), {**env, "CASSC_CORPORA_LOG": str(log)}, args.timeout,
                           configure_env={**env, PASS_THROUGH_VARIABLE: "1"}, make_variables=("CXXLD=nvcc",))
        links = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
        for program, result in built.items():
            mine = [e for e in links if e["output"].endswith(f"/src/cuda/{program}")]
            state[program] = {
                "objects": bool(mine), "linked": bool(mine) and all(e["linked"] is not False for e in mine)
                and (result.ok or any(e["linked"] is None for e in mine)),  # a deferred link is decided by `link`
                "error": (next((e["error"] for e in mine if e["linked"] is False), "") if mine
                          else result.first_error)[-600:],
                "cwd": str(tree / "src" / "cuda" / Path(program).parent), "outputs": [e["output"] for e in mine],
                "round_trip": bool(mine) and all(e.get("round_trip") for e in mine),
                "links": [e for e in mine if e["linked"] is None],
                "round_trip_note": "; ".join(e.get("round_trip_note", "") for e in mine if e.get("round_trip_note"))}
        state_path.write_text(json.dumps(state, indent=1))
        return
    for index, (program, directory) in enumerate(chosen.items(), 1):
        if program in state and not args.again:
            continue
        log = work / "links" / f"{args.corpus}-{program.replace('/', '_')}.jsonl"
        log.parent.mkdir(exist_ok=True)
        log.unlink(missing_ok=True)
        run_env = {**env, "CASSC_CORPORA_LOG": str(log)}
        started = time.monotonic()
        if args.corpus == "book":
            source = tree / f"{program}.cu"
            libraries = ["-lGL", "-lGLU", "-lglut"] if BOOK_GL_HELPERS.search(source.read_text(errors="replace")) else []
            command, cwd = ["nvcc", "-o", source.stem, source.name, *libraries], source.parent
        elif args.corpus == "parboil":
            benchmark, version = program.split("/")
            cwd = tree / "benchmarks" / benchmark
            builddir = f"build/{version}_binary"
            shutil.rmtree(cwd / builddir, ignore_errors=True)
            command = ["make", "-j1", "-f", str(tree / "common" / "mk" / "Makefile"), "default",
                       f"SRCDIR=src/{version}", f"BUILDDIR={builddir}", f"BIN={builddir}/{benchmark}.x",
                       f"PARBOIL_ROOT={tree}", "PLATFORM=default", f"BUILD={version}", f"CUDAHOME={env['CUDA_PATH']}"]
        elif args.corpus == "rodinia":
            cwd = tree / "cuda" / program
            command = ["make", "-j1", f"CUDA_DIR={env['CUDA_PATH']}"]
        else:
            cwd = tree / "src" / program
            if cwd.is_symlink():
                cwd.unlink()
            shutil.rmtree(cwd, ignore_errors=True)
            shutil.copytree(directory, cwd, symlinks=True)
            command = ["make", "-j1", "CC=nvcc", f"ARCH={ARCH}"]
        try:
            done = subprocess.run(command, cwd=cwd, env=run_env, capture_output=True, text=True, errors="replace",
                                  timeout=args.timeout)
            output, rc = done.stdout + done.stderr, done.returncode
        except subprocess.TimeoutExpired:
            output, rc = "timed out", -1
        links = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
        entry = {"objects": bool(links), "linked": bool(links) and all(e["linked"] for e in links),
                 "seconds": round(time.monotonic() - started, 1), "cwd": str(cwd),
                 "error": next((e["error"] for e in links if not e["linked"]), "" if links else first_error(output)
                               or output[-300:])[-600:],
                 "outputs": [e["output"] for e in links], "round_trip": bool(links) and all(
                     e.get("round_trip") for e in links), "links": [e for e in links if e["linked"] is None],
                 "round_trip_note": "; ".join(e.get("round_trip_note", "") for e in links if e.get("round_trip_note"))}
        state[program] = entry
        state_path.write_text(json.dumps(state, indent=1))
        print(f"[{args.corpus} {index}/{len(chosen)}] {program}: objects {'yes' if entry['objects'] else 'no'}, "
              f"linked {'yes' if entry['linked'] else 'no'} {entry['error'][:160] if not entry['linked'] else ''} "
              f"rc {rc}", file=sys.stderr, flush=True)


def link(args: argparse.Namespace) -> None:
    """The cassc links `build --defer-link` recorded (possibly on another machine: its work directory copied to
    the same path here), each where the build ran it."""
    for state_path in sorted(args.work.glob("*.json")):
        state = json.loads(state_path.read_text())
        for program, entry in state.items():
            if not entry.get("links") or not re.search(args.only, program):
                continue
            errors = []
            for recorded in entry["links"]:
                output = Path(recorded["output"])
                output.unlink(missing_ok=True)  # the build's stand-in put nvcc's link there
                done = cassc_link([*recorded["link"], *map(str, args.extra_object)], Path(recorded["cwd"]))
                if done.returncode != 0 or not output.is_file():
                    errors.append(done.stderr.strip()[-1500:] or f"exit {done.returncode}")
            entry.update(linked=not errors, error=(errors[0] if errors else "")[-600:], links=[])
            state_path.write_text(json.dumps(state, indent=1))
            print(f"[{state_path.stem}] {program}: linked {'yes' if not errors else 'no ' + errors[0][-160:]}",
                  file=sys.stderr, flush=True)


# ------------------------------------------------------------------------------------------------
# the GPU round trip and the report

# In place of a round trip that could not be built (a kernel the lifter refused, ptxas's error): the original still
# runs, and the program counts among those whose round trip differs.
NO_ROUND_TRIP = """#!/bin/sh
echo 'no round trip: {why}' >&2
exit 127
"""


def place_variant(built: Path, target: Path, entry: dict) -> None:
    if target.name.startswith("roundtrip") and not entry.get("round_trip"):
        why = (entry.get("round_trip_note") or "not built").replace("'", "")[:300]
        target.write_text(NO_ROUND_TRIP.format(why=why))
    else:
        shutil.copyfile(built, target)
        subprocess.run(["strip", target.name], cwd=target.parent, capture_output=True)
    target.chmod(0o755)


def pack(args: argparse.Namespace) -> None:
    from binary_path import DEVICE_SCRIPT, data_files, run_arguments
    from corpora_build import BOOK_GL_HELPERS

    out = args.out.resolve()
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    jobs = []
    for corpus in ("book", "shoc", "hecbench"):
        state_path = args.work / f"{corpus}.json"
        if not state_path.exists():
            continue
        for program, entry in json.loads(state_path.read_text()).items():
            if len(entry.get("outputs", [])) != 1 or not Path(f"{entry['outputs'][0]}.original").is_file():
                continue
            executable = Path(entry["outputs"][0])
            if corpus == "book" and BOOK_GL_HELPERS.search(executable.with_suffix(".cu").read_text(errors="replace")):
                continue  # it shows its result in a window
            arguments: list[str] = ["-s", "1"] if corpus == "shoc" else []  # SHOC's smallest problem size
            if corpus == "hecbench":
                found = run_arguments(Path(entry["cwd"]))
                if found is None:
                    continue
                arguments = found
            name = f"{corpus}/{program}".replace("/", "__")
            target = out / name
            target.mkdir()
            for variant in ("original", "roundtrip"):
                place_variant(Path(f"{executable}.{variant}"), target / variant, entry)
            if corpus == "hecbench":
                for path, place in data_files(args.hecbench / "src" / program, arguments).items():
                    destination = out / name / place.relative_to(program) if place.parts[0] == program \
                        else out / place
                    destination.parent.mkdir(parents=True, exist_ok=True)
                    if not destination.exists():
                        shutil.copyfile(path, destination)
            jobs.append({"name": name, "args": arguments})
    jobs = pack_parboil(args.work, out) + pack_rodinia(args.work, out, args.rodinia_data) + jobs  # the short runs
    # first: a deadline cuts the queue's end
    (out / "jobs.json").write_text(json.dumps(jobs))
    (out / "device.py").write_text(DEVICE_SCRIPT)
    shutil.copyfile(REPO_ROOT / "benchmarks" / "hecbench_verify.py", out / "hecbench_verify.py")  # its comparison
    print(f"packed {len(jobs)} programs into {out}", file=sys.stderr)


# pb_PrintTimerSet's lines (Parboil's common/src/parboil_cuda.c: each timer category, its sub-timers, the overlap
# and the wall time): times, left out of the comparison.
PARBOIL_TIMER_LINE = r"^( -.*|IO|Kernel|Copy|Driver|Copy Async|Compute|CPU/Kernel Overlap|Timer Wall Time) *:"
PARBOIL_RUN = """#!/bin/sh
# Parboil's run as its driver makes it, in a directory of its own (the two variants run side by side), then its
# result file as text; its timer lines left out.
mkdir -p out-{variant} && cd out-{variant}
../{variant}.bin {args} > stdout 2>&1
rc=$?
grep -v -E '{timer}' stdout
python3 ../../corpus_inputs.py show {shows}
exit $rc
"""


def pack_parboil(work: Path, out: Path) -> list[dict[str, object]]:
    """Parboil's round-trip pairs, each run as the `parboil run` driver runs it on the data set
    corpus_inputs.py generates (on the GPU machine, into `parboil-inputs/`: `python3 corpus_inputs.py parboil
    PACK/parboil-inputs` before device.py), its result file shown after its output."""
    from corpus_inputs import PARBOIL, parboil_run

    state_path = work / "parboil.json"
    if not state_path.exists():
        return []
    shutil.copyfile(REPO_ROOT / "benchmarks" / "corpus_inputs.py", out / "corpus_inputs.py")
    jobs: list[dict[str, object]] = []
    for program, entry in json.loads(state_path.read_text()).items():
        benchmark = program.split("/")[0]
        if len(entry.get("outputs", [])) != 1 or benchmark not in PARBOIL \
                or not Path(f"{entry['outputs'][0]}.original").is_file():
            continue
        spec = parboil_run(program)
        name = f"parboil/{program}".replace("/", "__")
        target = out / name
        target.mkdir()
        (target / "input").symlink_to(Path("..") / "parboil-inputs" / benchmark / "input")
        for variant in ("original", "roundtrip"):
            place_variant(Path(f"{entry['outputs'][0]}.{variant}"), target / f"{variant}.bin", entry)
            (target / variant).write_text(PARBOIL_RUN.format(args=spec.args, variant=variant, timer=PARBOIL_TIMER_LINE,
                                                             shows=" ".join(spec.shows)))
            (target / variant).chmod(0o755)
        jobs.append({"name": name, "args": []})
    return jobs


RODINIA_RUN = """#!/bin/sh
# Rodinia's run in a tree of its own per variant, laid out as the corpus is (data/ beside cuda/: the relative paths
# its programs and run scripts name resolve), the files it reads from its own directory beside it; its result
# files shown after its output.
here=$(pwd)
rm -rf run-{variant} && mkdir -p run-{variant}/{directory}
ln -s ../../rodinia-data/data run-{variant}/data
cp -r own/. run-{variant}/{directory}/
cd run-{variant}/{directory}
"$here/{variant}.bin" {args}
rc=$?
[ -z "{shows}" ] || python3 "$here/../corpus_inputs.py" show {shows}
exit $rc
"""


def pack_rodinia(work: Path, out: Path, data_git: Path | None) -> list[dict[str, object]]:
    """Rodinia's round-trip pairs, each executable with its run script's arguments (corpus_inputs.RODINIA) on the
    data corpus_inputs.py writes here (from a public copy of Rodinia's data directory, `data_git`)."""
    from corpus_inputs import RODINIA, write_rodinia

    state_path = work / "rodinia.json"
    if not state_path.exists() or data_git is None:
        return []
    shutil.copyfile(REPO_ROOT / "benchmarks" / "corpus_inputs.py", out / "corpus_inputs.py")
    write_rodinia(out / "rodinia-data", data_git)
    jobs: list[dict[str, object]] = []
    for program, entry in json.loads(state_path.read_text()).items():
        runs = RODINIA.get(program, {})
        for output in entry.get("outputs", []):
            # The tree it was built in: the output's path less the run script's directory and executable.
            found = [(e, spec) for e, spec in runs.items() if output.endswith(f"/{spec.directory}/{e}")]
            if not found or not Path(f"{output}.original").is_file():
                continue
            executable, spec = found[0]
            tree = Path(output.removesuffix(f"/{spec.directory}/{executable}"))
            name = f"rodinia/{program}".replace("/", "__") + (f"@{Path(executable).name}" if len(runs) > 1 else "")
            target = out / name
            (target / "own").mkdir(parents=True)
            for file in (tree / spec.directory).glob("*"):  # what it reads beside itself (nn's filelist_4)
                if file.is_file() and file.stat().st_size < 1_000_000 and not SOURCE.search(file.name) \
                        and not INPUT.search(file.name) and os.access(file, os.X_OK) is False:
                    shutil.copyfile(file, target / "own" / file.name)
            for variant in ("original", "roundtrip"):
                place_variant(Path(f"{output}.{variant}"), target / f"{variant}.bin", entry)
                (target / variant).write_text(RODINIA_RUN.format(variant=variant, directory=spec.directory,
                                                                 args=spec.args, shows=" ".join(spec.shows)))
                (target / variant).chmod(0o755)
            jobs.append({"name": name, "args": []})
    return jobs


# device.py keeps the last 20000 characters of a run's stdout (binary_path.DEVICE_SCRIPT).
OUTPUT_TAIL = 20_000


def common_tails(outputs: list[str]) -> list[str]:
    """Runs' outputs as device.py kept them, over the lines all of them kept. An output longer than OUTPUT_TAIL is
    its end, cut in the middle of a line: that partial line goes, and every output is compared over as many of its
    last lines as the shortest cut one kept (each run ends where its program did; where they started, the cut
    decided). An output that was not cut but is shorter than that stays whole and differs in length."""
    cut = [o.split("\n", 1)[-1].splitlines() for o in outputs if len(o) >= OUTPUT_TAIL]
    if not cut:
        return outputs
    keep = min(map(len, cut))
    return ["\n".join(o.splitlines()[-keep:]) if keep else "" for o in outputs]


def pair_verdict(pair: dict) -> tuple[str, str]:
    """A program's original and round trip (device.py's record, its `again` runs of the original too): same,
    differs or nondeterministic (compare_outputs), and the first difference."""
    from hecbench_verify import compare_outputs

    original, trip = pair["original"], pair["roundtrip"]
    if trip.get("rc") != original["rc"]:
        why = (trip.get("stderr") or "").strip().splitlines()[-1:] or [""]
        return "differs", f"exit {trip.get('rc')}: {why[0][:160]}"
    *runs, mine = common_tails([original["stdout"], *(r["stdout"] for r in pair.get("again", [])
                                                     if r["rc"] == original["rc"]), trip["stdout"]])
    # A program that prints its own name (argv[0]) prints the variant's: the name is no difference.
    outputs = compare_outputs(runs, mine.replace("./roundtrip", "./original"))
    return outputs.status, outputs.first_difference[:200]


def report(args: argparse.Namespace) -> None:
    from breadth_round_trip import write_section

    runs: dict[str, dict] = {}  # program -> variant -> its run (device.py's parts merged, a later call's replacing)
    for path in args.device_results or []:
        for name, variants in json.loads(Path(path).read_text()).items():
            runs.setdefault(name, {}).update(variants)
    rows = ["| corpus | programs | objects built by nvcc | linked by cassc | round trip: same output / compared "
            "(originals that ran) | nondeterministic originals |", "|---|---|---|---|---|---|"]
    failures = []
    for corpus in ("book", "parboil", "shoc", "rodinia", "hecbench"):
        state_path = args.work / f"{corpus}.json"
        if not state_path.exists():
            continue
        state = json.loads(state_path.read_text())
        built = [p for p, e in state.items() if e["objects"]]
        linked = [p for p in built if state[p]["linked"]]
        same = ran = 0
        nondeterministic = []
        for program in linked:
            base = f"{corpus}/{program}".replace("/", "__")
            pairs = [runs[n] for n in runs if n == base or n.startswith(f"{base}@")]  # one per executable
            if not pairs or any(p.get("original", {}).get("rc") != 0 for p in pairs):
                continue
            ran += 1
            verdicts = [pair_verdict(p) for p in pairs]
            if any(status == "nondeterministic" for status, _ in verdicts):
                nondeterministic.append(program)
            elif all(status == "same" for status, _ in verdicts):
                same += 1
            else:
                failures.append(f"- {corpus} {program}: round trip differs: "
                                f"`{next(why for status, why in verdicts if status == 'differs')}`")
        share = f" ({100 * len(linked) / len(built):.0f}%)" if built else ""
        packed = any(name.startswith(f"{corpus}__") for name in runs)
        compared = ran - len(nondeterministic)
        trip = f"{same} / {compared} ({ran}){f' ({100 * same / compared:.1f}%)' if compared else ''}" \
            if packed else "not run"
        rows.append(f"| {corpus} | {len(state)} | {len(built)} | linked {len(linked)} of {len(built)}{share} | {trip} "
                    f"| {', '.join(nondeterministic) or '-'} |")
        failures += [f"- {corpus} {p}: not linked: `{state[p]['error'].splitlines()[-1][:220] if state[p]['error'] else '?'}`"
                     for p in built if not state[p]["linked"]]
    section = "\n".join([SECTION, "",
                         f"{date.today()}: `benchmarks/binary_corpora.py build` per corpus here (each program's own "
                         f"build; nvcc compiles with `-arch={ARCH}`, cassc links), `pack`, its device.py on "
                         f"{args.device}, `report`. \"objects built\": nvcc compiled everything and the build reached "
                         "its link. Round trip: the same objects with the NVPTX lowering of cassc's IR as device code, "
                         "linked by nvcc, run beside nvcc's own link (programs that run without a display and, for "
                         "HeCBench, with their Makefile's `run` arguments), compared by hecbench_verify.py's "
                         "`compare_outputs`: lines naming times left out, numbers within a relative 1e-3, and what "
                         "varies between the original's own runs left out (device.py runs the original a second time, "
                         "after the round trip, only where the round trip differed: the mask can only turn a difference "
                         "into agreement); an original whose runs agree on no number is nondeterministic, not compared.",
                         "", *rows, "", *failures, ""])
    write_section(RESULTS, SECTION, section)
    print(section)


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "nvcc":
        sys.exit(stand_in(sys.argv[2:]))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    building = commands.add_parser("build")
    building.add_argument("corpus", choices=["book", "parboil", "shoc", "rodinia", "hecbench"])
    building.add_argument("checkout", type=Path)
    building.add_argument("--work", type=Path, required=True)
    building.add_argument("--round-trip", action="store_true")
    building.add_argument("--sample", type=int, default=40, help="HeCBench: how many benchmarks of the seeded order")
    building.add_argument("--seed", type=int, default=5)
    building.add_argument("--skip-failing-originals", type=Path, metavar="VERIFY_JSON",
                          help="HeCBench: leave out benchmarks whose original exits with an error in this "
                          "hecbench_verify.py record, as binary_path.py's sample does")
    building.add_argument("--timeout", type=float, default=900)
    building.add_argument("--again", action="store_true", help="rebuild programs already recorded")
    building.add_argument("--only", default="", help="the programs whose name this regular expression finds")
    building.add_argument("--part", default="1/1", help="I/N: every N-th program from the I-th (builds side by side, "
                          "each with its own --work; their states merge by program)")
    building.add_argument("--cuda", type=Path, default=CUDA, help="the toolkit whose nvcc compiles and links "
                          "(an older one for API CUDA 13 removed); the round trip's ptxas stays CUDA 13's")
    building.add_argument("--defer-link", action="store_true", help="record cassc's links for `link` instead of "
                          "running them (nvcc's builds and the round trip where the cores are)")
    building.add_argument("--nvcc-libraries", type=Path, help="a directory nvcc's links search first (NVIDIA's "
                          "cuBLAS/cuFFT as the GPU machine has them, for an older toolkit's build)")
    linking = commands.add_parser("link")
    linking.add_argument("--work", type=Path, required=True)
    linking.add_argument("--only", default="", help="the programs whose name this regular expression finds")
    linking.add_argument("--extra-object", type=Path, action="append", default=[], help="an object added to every "
                         "link (glibc_c23_compat.c's, for host objects compiled against a newer glibc than here)")
    packing = commands.add_parser("pack")
    packing.add_argument("--work", type=Path, required=True)
    packing.add_argument("--out", type=Path, required=True)
    packing.add_argument("--hecbench", type=Path, default=Path("/work/corpora/hecbench"))
    packing.add_argument("--rodinia-data", type=Path, help="the git directory of a public copy of Rodinia's data "
                         "(corpus_inputs.py's RODINIA_DATA_REPOSITORY)")
    reporting = commands.add_parser("report")
    reporting.add_argument("--work", type=Path, required=True)
    reporting.add_argument("--device-results", nargs="*")
    reporting.add_argument("--device", required=True, help="the GPU the device results came from")
    args = parser.parse_args()
    {"build": build, "link": link, "pack": pack, "report": report}[args.command](args)


if __name__ == "__main__":
    main()
