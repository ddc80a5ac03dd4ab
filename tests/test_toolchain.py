"""Toolchain discovery: a ROCm install is preferred over the Debian packages; device libraries for
targets the install lacks are derived into cassc's data directory."""

from __future__ import annotations

import json
from pathlib import Path

from cassc.toolchain import find_toolchain, isa_constant, isa_number
from conftest import gpu_targets, write


def rocm_tree(root: Path) -> Path:
    """A ROCm-layout install made of the real Debian toolchain's files (links, not copies)."""
    debian = find_toolchain.__wrapped__()
    (root / "llvm").mkdir(parents=True)
    (root / "llvm" / "bin").symlink_to(debian.clang.parent)
    (root / "include").mkdir()
    (root / "include" / "hip").symlink_to(debian.hip_include_dir)
    (root / "amdgcn").mkdir()
    (root / "amdgcn" / "bitcode").symlink_to(debian.bitcode_dir)
    (root / "lib").mkdir()
    (root / "lib" / "libamdhip64.so").symlink_to(debian.hip_lib_dir / "libamdhip64.so")
    return root


def test_rocm_path_is_preferred(cassc, tmp_path: Path) -> None:
    rocm = rocm_tree(tmp_path / "rocm")
    report = json.loads(cassc("doctor", "--json", env={"ROCM_PATH": str(rocm)}).stdout)
    assert report["toolchain"]["kind"] == "rocm" and report["toolchain"]["root"] == str(rocm)
    write(tmp_path / "k.cu", "__global__ void k(int* p) { *p = 1; }\nint main() { k<<<1, 1>>>(nullptr); }\n")
    result = cassc("-v", "k.cu", "-o", "app", env={"ROCM_PATH": str(rocm)})
    assert f"--rocm-path={rocm}" in result.stderr and f"-Wl,-rpath,{rocm}/lib" in result.stderr
    assert gpu_targets(tmp_path / "app") == ["gfx1100"]


def test_doctor_names_what_is_missing(cassc, tmp_path: Path) -> None:
    rocm = rocm_tree(tmp_path / "rocm")
    (rocm / "lib" / "libamdhip64.so").unlink()
    result = cassc("doctor", "--json", env={"ROCM_PATH": str(rocm)}, check=False)
    assert result.returncode == 1
    assert json.loads(result.stdout)["problems"] == [
        f"missing {rocm}/lib/libamdhip64.so: repair the ROCm install at {rocm} or point ROCM_PATH at a complete one"]
    assert "libamdhip64.so" in cassc("doctor", env={"ROCM_PATH": str(rocm), "COLUMNS": "300"}, check=False).stdout


def test_isa_numbers() -> None:
    assert isa_number("gfx1100") == "1100" and isa_constant("1100") == 11000
    assert isa_number("gfx90a") == "90a" and isa_constant("90a") == 9010
    assert isa_constant("1030") == 10300
