"""Toolchain discovery: an explicit choice wins, then a ROCm install, then a distribution's /usr; device
libraries for targets the install lacks are derived into cassc's data directory."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cassc.toolchain import find_toolchain, isa_constant, isa_number, toolchain_at
from conftest import gpu_targets, write


def rocm_tree(root: Path, version_file: bool = True) -> Path:
    """A ROCm-layout install made of the real toolchain's files (links, not copies)."""
    debian = find_toolchain.__wrapped__()
    (root / "llvm").mkdir(parents=True)
    (root / "llvm" / "bin").symlink_to(debian.clang.parent)
    (root / "include").mkdir()
    (root / "include" / "hip").symlink_to(debian.hip_include_dir)
    (root / "amdgcn").mkdir()
    (root / "amdgcn" / "bitcode").symlink_to(debian.bitcode_dir)
    (root / "lib").mkdir()
    (root / "lib" / "libamdhip64.so").symlink_to(debian.hip_lib_dir / "libamdhip64.so")
    if version_file and (debian.root / "share/hip").is_dir():  # clang >= 20 takes a tree as ROCm only with HIP's version file
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


def test_clangs_hip_wrapper_without_hips_version_file(cassc, tmp_path: Path) -> None:
    """A tree without share/hip/version (copied, or packed as the device benchmarks pack it): clang would take
    HIP for version 3.5 and leave out its runtime wrapper headers, which cassc's CUDA math relies on."""
    rocm = rocm_tree(tmp_path / "rocm", version_file=False)
    write(tmp_path / "k.cu", "#ifndef __CLANG_HIP_RUNTIME_WRAPPER_INCLUDED__\n#error compiled without the wrapper\n"
          "#endif\n__global__ void k(float* p) { *p = sqrtf(p[1]) + min(1u, 2); }\n")
    result = cassc("-c", "k.cu", "-o", "k.o", env={"ROCM_PATH": str(rocm)}, check=False)
    assert result.returncode == 0, result.stderr


def test_an_explicit_choice_wins_and_must_hold_a_toolchain(cassc, tmp_path: Path) -> None:
    """Two toolchains on one machine: CASSC_ROCM_PATH beats ROCM_PATH (a ROCm profile may set that one)."""
    chosen, other = rocm_tree(tmp_path / "chosen"), rocm_tree(tmp_path / "other")
    report = json.loads(cassc("doctor", "--json", env={"CASSC_ROCM_PATH": str(chosen), "ROCM_PATH": str(other)}).stdout)
    assert report["toolchain"]["root"] == str(chosen) and report["problems"] == []
    assert report["toolchain"]["clang_version"] == find_toolchain().clang_version
    result = cassc("doctor", "--json", env={"ROCM_PATH": str(tmp_path)}, check=False)
    assert result.returncode == 1
    assert json.loads(result.stdout)["problems"] == [
        f"ROCM_PATH={tmp_path} holds no HIP toolchain (include/hip/hip_runtime.h and a clang: lib/llvm/bin/clang++, "
        "or the clang named by bin/hipconfig); unset it or point it at a ROCm install"]


def test_a_distributions_clang_comes_from_its_hip_metadata(tmp_path: Path) -> None:
    """A /usr-style tree with HIP >= 6: the clang is the one hipconfig names, else the one whose resource
    directory holds the device libraries. The tree's files are the real toolchain's (links)."""
    found = find_toolchain.__wrapped__()
    hip = tmp_path / "include" / "hip"
    hip.mkdir(parents=True)
    for entry in found.hip_include_dir.iterdir():
        (hip / entry.name).symlink_to(entry)
    (hip / "hip_version.h").unlink()
    (hip / "hip_version.h").write_text("#define HIP_VERSION_MAJOR 6\n#define HIP_VERSION_MINOR 4\n"
                                      "#define HIP_VERSION_PATCH 43484\n")
    llvm = tmp_path / "lib" / f"llvm-{found.clang_version}"
    (llvm / "lib" / "clang").mkdir(parents=True)
    (llvm / "bin").symlink_to(found.clang.parent)
    assert toolchain_at(tmp_path) is None  # no metadata names a clang
    resource = llvm / "lib" / "clang" / found.clang_version
    (resource / "amdgcn").mkdir(parents=True)
    (resource / "amdgcn" / "bitcode").symlink_to(found.bitcode_dir)
    by_device_libs = toolchain_at(tmp_path)
    assert by_device_libs is not None and by_device_libs.kind == "distro" and by_device_libs.hip_version == "6.4.43484"
    assert by_device_libs.clang == llvm / "bin" / "clang++"
    (tmp_path / "bin").mkdir()
    hipconfig = write(tmp_path / "bin" / "hipconfig", f"#!/bin/sh\n[ \"$1\" = --hipclangpath ] && printf %s {found.clang.parent}\n")
    hipconfig.chmod(0o755)
    by_hipconfig = toolchain_at(tmp_path)
    assert by_hipconfig is not None and by_hipconfig.clang == found.clang.parent / "clang++"


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
    assert f"#$ HIP_PLATFORM=amd\n#$ {rocm}/bin/hipcc " in result.stderr
    assert gpu_targets(tmp_path / "app") == ["gfx1100"]
    debian = cassc("--cassc-use-hipcc", "-c", "k.cu", check=False)
    assert debian.returncode == 1 and "needs a ROCm install with bin/hipcc" in debian.stderr


def test_doctor_json_names_the_toolchain_and_every_rocm_library_it_has(cassc) -> None:
    """Whatever toolchain the suite runs on (Debian 12's, a distribution's /usr, an /opt/rocm layout),
    `cassc doctor --json` names it as discovery found it, and each ROCm library as present exactly where
    its header is."""
    from cassc.hipify.tables import load_tables

    found = find_toolchain()
    report = json.loads(cassc("doctor", "--json").stdout)
    chain = report["toolchain"]
    assert (chain["kind"], chain["root"], chain["hip_version"], chain["clang_version"], chain["device_libraries"]) == (
        found.kind, str(found.root), found.hip_version, found.clang_version, str(found.bitcode_dir))
    for package in load_tables().packages:
        present = any((d / package.probe_header).is_file() for d in found.library_include_dirs)
        assert report["libraries"][package.name] is present, package.name
