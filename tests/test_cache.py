"""The content-addressed cache: hits, invalidation, opting out, and concurrent builds."""

from __future__ import annotations

import subprocess
from pathlib import Path

from conftest import gpu_targets, write


def source(tmp_path: Path) -> None:
    write(tmp_path / "value.cuh", "#define VALUE 1\n")
    write(tmp_path / "k.cu", '#include "value.cuh"\n__global__ void k(int* p) { *p = VALUE; }\n')


def test_unchanged_rebuild_is_a_cache_hit(cassc, tmp_path: Path) -> None:
    source(tmp_path)
    first = cassc("-v", "-c", "k.cu")
    assert "cache hit" not in first.stderr
    object_bytes = (tmp_path / "k.o").read_bytes()
    (tmp_path / "k.o").unlink()
    second = cassc("-v", "-c", "k.cu")
    assert "cache hit" in second.stderr and "clang++ " not in second.stderr.split("cache hit")[1]
    assert (tmp_path / "k.o").read_bytes() == object_bytes


def test_changing_a_header_or_a_flag_misses(cassc, tmp_path: Path) -> None:
    source(tmp_path)
    cassc("-c", "k.cu")
    write(tmp_path / "value.cuh", "#define VALUE 2\n")
    assert "cache hit" not in cassc("-v", "-c", "k.cu").stderr
    assert "cache hit" not in cassc("-v", "-c", "k.cu", "-DOTHER").stderr
    assert "cache hit" in cassc("-v", "-c", "k.cu", "-DOTHER").stderr


def test_cache_can_be_disabled(cassc, tmp_path: Path, cache_dir: Path) -> None:
    source(tmp_path)
    cassc("-c", "k.cu", env={"CASSC_CACHE": "0"})
    assert "cache hit" not in cassc("-v", "-c", "k.cu", env={"CASSC_CACHE": "0"}).stderr
    assert not cache_dir.exists() or not any(cache_dir.rglob("meta.json"))


def test_make_j4_with_a_shared_cache(cassc_command: str, cassc_env: dict[str, str], tmp_path: Path) -> None:
    names = [f"k{i}" for i in range(8)]
    write(tmp_path / "common.cuh", "#define SCALE 3\n")
    for name in names:
        # two pairs of identical files: concurrent builds race for the same cache entries
        body = name if name not in ("k1", "k3") else "same"
        write(tmp_path / f"{name}.cu", f'#include "common.cuh"\n__global__ void {body}(int* p) {{ *p = SCALE; }}\n')
    objects = " ".join(f"{n}.o" for n in names)
    write(tmp_path / "Makefile", f"NVCC = {cassc_command}\nall: {objects}\n%.o: %.cu\n\t$(NVCC) -c $< -o $@ -MD\n")
    for _ in range(2):  # cold, then warm after a clean
        subprocess.run(["make", "-j4"], cwd=tmp_path, env=cassc_env, check=True, capture_output=True)
        for name in names:
            assert gpu_targets(tmp_path / f"{name}.o") == ["gfx1100"]
        for path in tmp_path.glob("*.o"):
            path.unlink()
    leftovers = [p for p in tmp_path.iterdir() if "cassc-tmp" in p.name]
    assert leftovers == []


def test_a_header_outside_the_hashed_set_is_rechecked(cassc, tmp_path: Path) -> None:
    """A header reached through a macro include is not mirrored; clang's depfile still names it."""
    write(tmp_path / "inc" / "value.h", "#define VALUE 1\n")
    write(tmp_path / "k.cu", '#define HEADER "value.h"\n#include HEADER\n__global__ void k(int* p) { *p = VALUE; }\n')
    cassc("-Iinc", "-c", "k.cu")
    assert "cache hit" in cassc("-v", "-Iinc", "-c", "k.cu").stderr
    write(tmp_path / "inc" / "value.h", "#define VALUE 2\n")
    assert "cache hit" not in cassc("-v", "-Iinc", "-c", "k.cu").stderr


def test_objects_are_reproducible(cassc, tmp_path: Path) -> None:
    source(tmp_path)
    cassc("-c", "k.cu", "-o", "a.o", env={"CASSC_CACHE": "0"})
    cassc("-c", "k.cu", "-o", "b.o", env={"CASSC_CACHE": "0"})
    assert (tmp_path / "a.o").read_bytes() == (tmp_path / "b.o").read_bytes()
