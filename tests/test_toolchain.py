"""Toolchain discovery: a ROCm install is preferred over the Debian packages; device libraries for
targets the install lacks are derived into cassc's data directory."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

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
    if (debian.root / "share/hip").is_dir():  # clang >= 20 takes a tree as ROCm only with HIP's version file
        (root / "share").mkdir()
        (root / "share" / "hip").symlink_to(debian.root / "share/hip")
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


@pytest.mark.skipif(not Path("/usr/bin/hipcc.pl").exists(), reason="no hipcc script to install in the tree")
def test_hipcc_route_on_a_rocm_install(cassc, tmp_path: Path) -> None:
    """--cassc-use-hipcc compiles through the install's hipcc with HIP_PLATFORM=amd. The tree's hipcc is
    Debian's real hipcc 5.2 script, which looks for clang++-15 beside HIP_CLANG_PATH."""
    rocm = rocm_tree(tmp_path / "rocm")
    llvm_bin = tmp_path / "llvm-bin"
    llvm_bin.mkdir()
    for tool in find_toolchain.__wrapped__().clang.parent.iterdir():
        (llvm_bin / tool.name).symlink_to(tool)
    (llvm_bin / "clang++-15").symlink_to(find_toolchain.__wrapped__().clang)
    (rocm / "bin").mkdir()
    for script in ("hipcc.pl", "hipvars.pm"):
        shutil.copy(f"/usr/bin/{script}", rocm / "bin" / script)
    (rocm / "bin" / "hipcc").symlink_to("hipcc.pl")
    write(tmp_path / "k.cu", "#include <cuda_runtime.h>\n__global__ void k(float* x) { x[0] = sinf(x[0]); }\n"
                             "int main() { float* d; cudaMalloc(&d, 4); k<<<1, 1>>>(d); }\n")
    env = {"ROCM_PATH": str(rocm), "HIP_PATH": str(rocm), "HIP_CLANG_PATH": str(llvm_bin)}
    result = cassc("-v", "--cassc-use-hipcc", "k.cu", "-o", "app", env=env)
    assert f"#$ HIP_PLATFORM=amd {rocm}/bin/hipcc " in result.stderr
    assert gpu_targets(tmp_path / "app") == ["gfx1100"]
    debian = cassc("--cassc-use-hipcc", "-c", "k.cu", check=False)
    assert debian.returncode == 1 and "needs a ROCm install with bin/hipcc" in debian.stderr
