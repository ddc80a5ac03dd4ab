"""Real CMake with cassc as its CUDA compiler: examples/cmake configured and built by this machine's
CMake 3.25 and by a current CMake (PyPI `cmake`, from the test extra), with Ninja and Unix Makefiles."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cassc.toolchain import find_toolchain

from conftest import EXAMPLES, gpu_targets, write

pytestmark = pytest.mark.cmake

VENV_BIN = Path(sys.executable).parent
CMAKES = {"cmake-3.25": Path("/usr/bin/cmake"), "cmake-current": VENV_BIN / "cmake"}
GENERATORS = ("Ninja", "Unix Makefiles")


def cmake_program(name: str) -> Path:
    program = CMAKES[name]
    if not program.exists():
        pytest.skip(f"{program} is not installed ({'apt-get install cmake' if name == 'cmake-3.25' else 'pip install -e .[test]'})")
    return program


@pytest.fixture
def cmake_env(cassc_env: dict[str, str]) -> dict[str, str]:
    """cassc's environment with the `cassc` command on PATH, so `-DCMAKE_CUDA_COMPILER=cassc` finds it."""
    return {**cassc_env, "PATH": f"{VENV_BIN}:{cassc_env['PATH']}"}


def run(command: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, f"{' '.join(command)}\n{result.stdout}\n{result.stderr}"
    return result


def code_object_symbols(path: Path) -> bytes:
    from cassc.formats.host_object import read_host_object

    return b"".join(entry.payload for entry in read_host_object(path.read_bytes()).bundle_entries())


@pytest.mark.parametrize("generator", GENERATORS)
@pytest.mark.parametrize("cmake_name", sorted(CMAKES))
def test_cmake_example_builds_for_gfx1100(cmake_name: str, generator: str, cmake_env: dict[str, str],
                                          cassc, tmp_path: Path) -> None:
    cmake = cmake_program(cmake_name)
    toolkit = dict(line.removeprefix("export ").split("=", 1) for line in cassc("env").stdout.splitlines())["CUDA_PATH"]
    source = tmp_path / "example"
    shutil.copytree(EXAMPLES / "cmake", source, ignore=shutil.ignore_patterns("build"))
    build = tmp_path / "build"
    configured = run([str(cmake), "-S", str(source), "-B", str(build), "-G", generator,
                      "-DCMAKE_CUDA_COMPILER=cassc"], tmp_path, cmake_env)
    assert "The CUDA compiler identification is NVIDIA 12.9.999" in configured.stdout
    assert "Detecting CUDA compiler ABI info - done" in configured.stdout
    assert f"Found CUDAToolkit: {toolkit}/include" in configured.stdout
    run([str(cmake), "--build", str(build)], tmp_path, cmake_env)

    assert gpu_targets(build / "app") == ["gfx1100"]
    assert b"saxpy_kernel" in code_object_symbols(build / "app")  # the static library's rdc code, device-linked
    assert gpu_targets(build / "libreduce.so") == ["gfx1100"]
    # No GPU here: the host code runs and reports HIP's "no device" error instead of crashing or hanging.
    for program in ("device_query", "app"):
        ran = subprocess.run([str(build / program)], env=cmake_env, capture_output=True, text=True, timeout=60)
        # cudaGetErrorString: HIP 5 gives the error's name, HIP 6 its description (as CUDA does)
        no_device = "hipErrorNoDevice" in ran.stdout or "no ROCm-capable device is detected" in ran.stdout
        assert ran.returncode == 1 and no_device, ran.stdout + ran.stderr

    # Depfiles: a header change rebuilds exactly the objects that include it.
    objects = {p: p.stat().st_mtime_ns for p in build.rglob("*.o") if "CMakeFiles" in p.parts}
    os.utime(source / "src" / "device_math.cuh")
    run([str(cmake), "--build", str(build)], tmp_path, cmake_env)
    rebuilt = sorted(p.name for p, mtime in objects.items() if p.exists() and p.stat().st_mtime_ns != mtime)
    assert rebuilt == ["cmake_device_link.o", "device_math.cu.o", "saxpy.cu.o"]


def test_toolchain_file_and_env_choose_the_stand_in_toolkit(cmake_env: dict[str, str], tmp_path: Path) -> None:
    """`eval "$(cassc env)"` (sh) then a toolchain-file configure: CUDAToolkit is cassc's, not /usr/local/cuda."""
    cmake = cmake_program("cmake-3.25")
    write(tmp_path / "CMakeLists.txt", "cmake_minimum_required(VERSION 3.18)\nproject(p LANGUAGES CXX CUDA)\n"
          "find_package(CUDAToolkit REQUIRED)\n"
          'message(STATUS "nvcc=${CUDAToolkit_NVCC_EXECUTABLE} cudart=${CUDA_cudart_LIBRARY}")\n')
    script = ('eval "$(cassc env)" && "$1" -S . -B build -G Ninja '
              '-DCMAKE_TOOLCHAIN_FILE="$CUDA_PATH/cmake/cassc-toolchain.cmake" && echo "CUDA_PATH=$CUDA_PATH"')
    configured = run(["sh", "-c", script, "sh", str(cmake)], tmp_path, cmake_env)
    toolkit = configured.stdout.rsplit("CUDA_PATH=", 1)[1].strip()
    assert f"nvcc={toolkit}/bin/nvcc cudart={toolkit}/lib64/libcudart.so" in configured.stdout
    assert "The CUDA compiler identification is NVIDIA" in configured.stdout


# Every imported target CMake 3.25's FindCUDAToolkit defines from a real toolkit (CUDA::nvJitLink is 3.26's;
# CUDA::nvToolsExt, NVTX 2, only for toolkits before 12.9 in current CMake, as with NVIDIA's 12.9).
TOOLKIT_TARGETS = ("cuda_driver", "cudart", "cudart_static", "culibos", "cublas", "cublasLt", "cufft", "cufftw",
                   "curand", "cusolver", "cusparse", "nvrtc", "nvml", "nvtx3",
                   "nppc", "npps", "nvjpeg", "cublas_static", "curand_static", "cusparse_static")


@pytest.mark.skipif(Path(find_toolchain().hip_lib_dir, "libhipblas.so").exists(),
                    reason="hipBLAS is installed: no library is missing here")
def test_find_cuda_toolkit_defines_every_target_and_only_a_missing_library_fails(cmake_env: dict[str, str],
                                                                                tmp_path: Path) -> None:
    """No hipBLAS here: CUDA::cublas is still a target, so the project configures; the program that links
    it fails at its link step with one line naming hipBLAS, and the others build."""
    cmake = cmake_program("cmake-3.25")
    kernel = "__global__ void k(int* p) { *p = 1; }\nint main() { k<<<1, 1>>>(nullptr); return 0; }\n"
    for name in ("uses_blas", "uses_rand", "plain"):
        write(tmp_path / f"{name}.cu", kernel)
    write(tmp_path / "CMakeLists.txt", "cmake_minimum_required(VERSION 3.18)\nproject(p LANGUAGES CXX CUDA)\n"
          "find_package(CUDAToolkit REQUIRED)\n"
          f"foreach(t {' '.join(TOOLKIT_TARGETS)})\n"
          '  if(NOT TARGET CUDA::${t})\n    message(FATAL_ERROR "no CUDA::${t}")\n  endif()\nendforeach()\n'
          "add_executable(uses_blas uses_blas.cu)\ntarget_link_libraries(uses_blas CUDA::cublas)\n"
          "add_executable(uses_rand uses_rand.cu)\ntarget_link_libraries(uses_rand CUDA::curand CUDA::nvtx3)\n"
          "add_executable(plain plain.cu)\ntarget_link_libraries(plain CUDA::cudart CUDA::cuda_driver)\n")
    script = ('eval "$(cassc env)" && "$1" -S . -B build -G Ninja '
              '-DCMAKE_TOOLCHAIN_FILE="$CUDA_PATH/cmake/cassc-toolchain.cmake" && "$1" --build build -- -k 0')
    built = subprocess.run(["sh", "-c", script, "sh", str(cmake)], cwd=tmp_path, env=cmake_env, capture_output=True,
                           text=True, timeout=600)
    log = built.stdout + built.stderr
    assert "Generating done" in log, log
    assert built.returncode != 0
    assert (tmp_path / "build" / "plain").is_file() and (tmp_path / "build" / "uses_rand").is_file(), log
    assert not (tmp_path / "build" / "uses_blas").exists()
    assert "cassc: -lcublas needs hipBLAS (for libcublas)" in log
    assert [line for line in log.splitlines() if line.startswith("FAILED: ")] == ["FAILED: uses_blas "]
