"""The stand-in CUDA toolkit (shims/ + the rename tables) as plain host compilers and linkers use it:
`g++ -I$CUDA_PATH/include ... -L$CUDA_PATH/lib64 -lcudart`, with no GPU on this machine."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from cassc.hipify.tables import TABLE_DIR, read_rows, read_table
from conftest import system_headers_missing, write

HOST_PROGRAM = """\
#include <cuda_runtime.h>
#include <cstdio>

int main() {
  int count = -1;
  cudaError_t status = cudaGetDeviceCount(&count);
  std::printf("cudaGetDeviceCount: %s\\n", cudaGetErrorName(status));
  void* buffer = nullptr;
  status = cudaMalloc(&buffer, 1024);
  std::printf("cudaMalloc: %d %s\\n", static_cast<int>(status), cudaGetErrorString(status));
  return status == cudaSuccess ? 0 : 2;
}
"""

# What code compiled against NVIDIA's own headers does: call the CUDA-named entry point.
NVIDIA_STYLE_PROGRAM = """\
#include <cstdio>
extern "C" int cudaGetDeviceCount(int*);
int main() { int count = -1; std::printf("status %d\\n", cudaGetDeviceCount(&count)); return 0; }
"""


@pytest.fixture
def toolkit(cassc, cassc_env: dict[str, str]) -> Path:
    exports = dict(line.removeprefix("export ").split("=", 1) for line in cassc("env").stdout.splitlines())
    return Path(exports["CUDA_PATH"])


def run_program(path: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(path)], capture_output=True, text=True, timeout=60, env=env)


@pytest.mark.parametrize("shell", ["sh", "bash"])
def test_env_lines_evaluate_in_sh_and_bash(shell: str, cassc_env: dict[str, str], toolkit: Path) -> None:
    script = f'eval "$({sys.executable} -m cassc env)" && command -v nvcc && echo "$CUDACXX $HIP_PLATFORM" && nvcc --version'
    lines = subprocess.run([shell, "-c", script], env=cassc_env, capture_output=True, text=True, check=True).stdout.splitlines()
    assert lines[0] == str(toolkit / "bin" / "nvcc")  # ahead of any NVIDIA nvcc on PATH
    assert lines[1] == f"{toolkit / 'bin' / 'nvcc'} amd"
    assert "cassc" in lines[3]


@pytest.mark.parametrize("compiler", ["g++", "the toolchain's clang++"])
def test_host_program_with_cuda_runtime_h_fails_cleanly_without_a_gpu(compiler: str, toolkit: Path,
                                                                      tmp_path: Path) -> None:
    from cassc.toolchain import find_toolchain

    source = write(tmp_path / "host.cpp", HOST_PROGRAM)
    subprocess.run([compiler if compiler == "g++" else str(find_toolchain().clang), f"-I{toolkit}/include", str(source), f"-L{toolkit}/lib64", "-lcudart",
                    "-o", str(tmp_path / "host")], check=True, capture_output=True, text=True)
    ran = run_program(tmp_path / "host")
    assert ran.returncode == 2, ran.stderr  # the program's own exit: no signal, no hang
    assert "cudaGetDeviceCount: hipErrorNoDevice" in ran.stdout
    # HIP 5 answers hipErrorInvalidDevice (101), HIP 6 hipErrorNoDevice (100)
    assert re.search(r"^cudaMalloc: (101 hipErrorInvalidDevice|100 no ROCm-capable device)", ran.stdout, re.M), ran.stdout


def test_cuda_named_entry_points_jump_to_hip(toolkit: Path, tmp_path: Path) -> None:
    source = write(tmp_path / "nvidia_style.cpp", NVIDIA_STYLE_PROGRAM)
    shared = tmp_path / "shared"
    subprocess.run(["g++", str(source), f"-L{toolkit}/lib64", "-lcudart", "-o", str(shared)], check=True)
    ran = run_program(shared, env={**os.environ, "LD_LIBRARY_PATH": str(toolkit / "lib64")})
    assert ran.stdout == "status 100\n"  # hipErrorNoDevice, the same number as cudaErrorNoDevice
    static = tmp_path / "static"
    subprocess.run(["g++", str(source), f"-L{toolkit}/lib64", "-lcudart_static", "-lamdhip64", "-o", str(static)],
                   check=True)
    assert run_program(static).stdout == "status 100\n"


@pytest.mark.parametrize("directory", ["lib64/stubs", "lib64"])  # Makefiles link -L$CUDA_PATH/lib64 -lcuda
def test_driver_api_through_libcuda(directory: str, toolkit: Path, tmp_path: Path) -> None:
    source = write(tmp_path / "driver.cpp", '#include <cuda.h>\n#include <cstdio>\n'
                   'int main() { CUresult r = cuInit(0); std::printf("cuInit %d\\n", (int)r); return 0; }\n')
    subprocess.run(["g++", f"-I{toolkit}/include", str(source), f"-L{toolkit}/{directory}", "-lcuda",
                    "-o", str(tmp_path / "driver")], check=True)
    ran = run_program(tmp_path / "driver")
    assert ran.returncode == 0 and ran.stdout.startswith("cuInit ")


def test_every_cuda_header_compiles_with_gcc(toolkit: Path, tmp_path: Path) -> None:
    """Every header whose ROCm library is installed compiles; the others are one #error naming the package."""
    from cassc.hipify.tables import load_tables
    from cassc.toolchain import find_toolchain

    tables, include_dirs = load_tables(), find_toolchain().library_include_dirs
    missing = {cuda: package.name for cuda, _, _ in read_table(TABLE_DIR / "headers.tsv")
               if (package := tables.package_for(cuda)) and not any((d / package.probe_header).is_file() for d in include_dirs)}
    # CUB is device code: with CUDA too only nvcc compiles it (its hipCUB lives beside the toolchain).
    headers = [cuda for cuda, _, _ in read_table(TABLE_DIR / "headers.tsv")
               if not cuda.startswith("cub/") and cuda not in missing and not system_headers_missing(cuda)]
    source = write(tmp_path / "all.cpp", "".join(f"#include <{h}>\n" for h in headers))
    subprocess.run(["g++", "-fsyntax-only", f"-I{toolkit}/include", str(source)], check=True)
    for header, package in missing.items():
        assert (toolkit / "include" / header).read_text().startswith(f'#error "cassc: <{header}> needs {package}: ')


def test_layout_that_cmake_and_find_cuda_toolkit_read(toolkit: Path) -> None:
    assert json.loads((toolkit / "version.json").read_text())["cuda"]["version"] == "12.9.999"
    assert os.access(toolkit / "bin" / "nvcc", os.X_OK)
    assert (toolkit / "nvvm" / "libdevice").is_dir()
    for library in ("libcudart.so", "libcudart.so.12", "libcudart_static.a", "libcudadevrt.a", "stubs/libcuda.so",
                    "libcurand.so", "libcusparse.so"):
        assert (toolkit / "lib64" / library).exists(), library
    assert (toolkit / "cmake" / "cassc-toolchain.cmake").is_file()


def test_cuda_math_libraries_are_the_installed_rocm_libraries(toolkit: Path) -> None:
    """lib64/libcublas.so and the others (what `-lcublas` and CMake's CUDA::cublas find) are links to the
    HIP library link-libraries.tsv names wherever a link finds it (for cuBLAS, a script naming cassc's
    legacy-API archive with it); otherwise a library CMake makes a target of stops only the link that names
    it, with one line, and any other is absent."""
    from cassc.toolchain import find_toolchain
    from cassc.toolkit import LEGACY_API_SHIMS, TOOLKIT_LIBRARY_TABLE, legacy_api_archive

    toolchain = find_toolchain()
    toolkit_libraries = {row[0] for row in read_rows(TOOLKIT_LIBRARY_TABLE)}
    for cuda, hip, _ in read_table(TABLE_DIR / "link-libraries.tsv"):
        if hip == "amdhip64":
            continue
        found = toolchain.find_library(hip)  # HIP's directory, or where the distribution puts it
        installed = found if found is not None and found.suffix == ".so" else None
        link = toolkit / "lib64" / f"lib{cuda}.so"
        if installed and cuda in LEGACY_API_SHIMS:
            script = link.read_text()
            assert str(installed) in script and legacy_api_archive(cuda) in script, cuda
            assert (toolkit / "lib64" / legacy_api_archive(cuda)).is_file(), cuda
        elif installed:
            assert link.resolve() == installed.resolve(), cuda
        elif cuda in toolkit_libraries:
            assert link.is_symlink() or "ASSERT(0, \"cassc: -l" in link.read_text(), cuda
        else:
            assert not link.exists(), cuda


def test_a_changed_version_gets_a_new_tree_and_keeps_the_old(cassc, toolkit: Path) -> None:
    before = os.readlink(toolkit)
    cassc("env", env={"CASSC_CUDA_VERSION": "12.4.999"})
    after = os.readlink(toolkit)
    assert after != before and (toolkit.parent / before / "version.json").exists()
    assert "12040" in (toolkit / "include" / "cassc_cuda_names.h").read_text()
    cassc("env")  # back to the default: the link moves, the tree is reused
    assert os.readlink(toolkit) == before


OPENMP_PROGRAM = """\
#include <cuda_runtime.h>
#include <omp.h>
#include <cstdio>

__global__ void noop() {}

int main() {
  int sum = 0;
  #pragma omp parallel for reduction(+:sum) num_threads(2)
  for (int i = 1; i <= 100; i++) sum += i;
  std::printf("sum %d threads %d\\n", sum, omp_get_max_threads() > 0);
  return 0;
}
"""


def test_openmp_host_code_links_with_gcc_as_cmake_links_it(cassc, toolkit: Path, tmp_path: Path) -> None:
    # CMake compiles with `nvcc -Xcompiler=-fopenmp` and links with `g++ ... libcudart.so -fopenmp`: g++
    # brings libgomp, while cassc's clang-compiled host code calls libomp's __kmpc_* entry points.
    source = write(tmp_path / "omp.cu", OPENMP_PROGRAM)
    obj = tmp_path / "omp.o"
    cassc("-Xcompiler=-fopenmp", "-c", str(source), "-o", str(obj))
    by_gcc = tmp_path / "by_gcc"
    subprocess.run(["g++", str(obj), str(toolkit / "lib64" / "libcudart.so"), "-fopenmp", "-o", str(by_gcc)],
                   check=True, capture_output=True, text=True)
    assert run_program(by_gcc).stdout == "sum 5050 threads 1\n"
    static = tmp_path / "static"  # CMake's default runtime: -lcudart_static, HIP from the implicit libraries
    subprocess.run(["g++", str(obj), f"-L{toolkit}/lib64", "-lcudadevrt", "-lcudart_static", "-lamdhip64", "-fopenmp",
                    "-o", str(static)], check=True, capture_output=True, text=True)
    assert run_program(static).stdout == "sum 5050 threads 1\n"
    by_cassc = tmp_path / "by_cassc"
    cassc("-ccbin", "g++", "-Xcompiler", "-fopenmp", str(obj), "-o", str(by_cassc))
    assert run_program(by_cassc).stdout == "sum 5050 threads 1\n"


def test_nvrtc_over_hiprtc(toolkit: Path, tmp_path: Path) -> None:
    """<nvrtc.h> and -lnvrtc, as a program that compiles kernels at run time uses them: hipRTC's, which
    HIP 5.2 keeps in libamdhip64 (ROCm >= 5.3: libhiprtc). Creating a program needs no GPU."""
    source = write(tmp_path / "rtc.cpp", '#include <nvrtc.h>\n#include <cstdio>\nint main() {\n'
                   '  nvrtcProgram program;\n'
                   '  nvrtcResult r = nvrtcCreateProgram(&program, "__global__ void k() {}", "k.cu", 0, nullptr, nullptr);\n'
                   '  size_t size = 0;\n  if (r == NVRTC_SUCCESS) nvrtcGetProgramLogSize(program, &size);\n'
                   '  nvrtcDestroyProgram(&program);\n  std::printf("%d\\n", (int)r);\n  return 0;\n}\n')
    subprocess.run(["g++", f"-I{toolkit}/include", str(source), f"-L{toolkit}/lib64", "-lnvrtc",
                    "-o", str(tmp_path / "rtc")], check=True)
    assert run_program(tmp_path / "rtc").stdout == "0\n"


def test_cassc_links_cuda_libraries_through_the_stand_in_toolkit(cassc, toolkit: Path, tmp_path: Path) -> None:
    """`cassc ... -lnvrtc` links hipRTC wherever HIP keeps it; `-lcublas` without hipBLAS stops with the
    toolkit's one line naming the package, not "cannot find -lhipblas"."""
    write(tmp_path / "main.cpp", "int main() { return 0; }\n")
    cassc("main.cpp", "-lnvrtc", "-o", "with_nvrtc")
    failed = cassc("main.cpp", "-lcublas", "-o", "with_cublas", check=False)
    from cassc.toolchain import find_toolchain

    if (find_toolchain().hip_lib_dir / "libhipblas.so").exists():
        pytest.skip("hipBLAS is installed here")
    assert failed.returncode != 0
    assert "cassc: -lcublas needs hipBLAS (for libcublas)" in failed.stderr


ELABORATED_NAMES = """\
#include <cuda_runtime.h>
#include <cuda_gl_interop.h>
struct cudaGraphicsResource *resource;
struct cudaArray *array;
struct cudaPitchedPtr pitched;
struct cudaExtent extent;
struct cudaChannelFormatDesc format;
struct cudaFuncAttributes attributes;
struct cudaDeviceProp properties;
struct CUstream_st *stream;
enum cudaMemcpyKind kind = cudaMemcpyHostToDevice;
enum cudaLimit limit = cudaLimitMallocHeapSize;
cudaGraphicsResource *plain;
cudaArray_t typed = array;
int main() { return resource == plain && typed == array ? 0 : 1; }
"""


def test_elaborated_cuda_type_names_in_host_code_gcc_builds(toolkit: Path, tmp_path: Path) -> None:
    """`struct cudaGraphicsResource *` in a .cpp that g++ compiles against the stand-in's headers: the
    CUDA tag names a tag there, not HIP's typedef (which g++ rejects after `struct`)."""
    source = write(tmp_path / "host.cpp", ELABORATED_NAMES)
    subprocess.run(["g++", "-Wno-unused-result", f"-I{toolkit}/include", str(source), f"-L{toolkit}/lib64", "-lcudart",
                    "-o", str(tmp_path / "host")], check=True)
    assert run_program(tmp_path / "host").returncode == 0


@pytest.mark.skipif(not Path("/usr/local/cuda/include/driver_types.h").is_file(), reason="needs CUDA's headers")
def test_cuda_tag_naming_rule_matches_cudas_headers() -> None:
    """toolkit.is_cuda_tag, for every renamed CUDA name whose HIP twin is a typedef of another tag."""
    from cassc.hipify.tables import load_tables
    from cassc.toolchain import find_toolchain
    from cassc.toolkit import hip_tag_typedefs, is_cuda_tag

    text = "".join(p.read_text(errors="replace") for p in Path("/usr/local/cuda/include").glob("*.h"))
    declared = set(re.findall(r"\b(?:struct|union|enum)\s+(?:__device_builtin__\s+|CUDARTAPI\s+)?(\w+)\s*[{;*]", text))
    hip_tags = hip_tag_typedefs(find_toolchain().hip_include_dir)
    checked = [cuda for cuda, hip in load_tables().identifiers.items() if hip in hip_tags]
    assert checked
    wrong = [cuda for cuda in checked if is_cuda_tag(cuda) != (cuda in declared)]
    assert wrong == []


def test_env_lets_host_links_find_the_runtime_without_a_library_directory(cassc_env: dict[str, str], toolkit: Path,
                                                                          tmp_path: Path) -> None:
    """`g++ app.cpp -lcudart -lcuda` after `eval "$(cassc env)"`, as Makefiles that hard-code
    -L/usr/local/cuda/lib64 (absent on an AMD machine) link."""
    write(tmp_path / "app.cpp", NVIDIA_STYLE_PROGRAM)
    script = f'eval "$({sys.executable} -m cassc env)" && g++ app.cpp -L/nonexistent/cuda/lib64 -lcudart -lcuda -o app'
    subprocess.run(["sh", "-c", script], cwd=tmp_path, env=cassc_env, check=True)
    ran = run_program(tmp_path / "app", env={**os.environ, "LD_LIBRARY_PATH": str(toolkit / "lib64")})
    assert ran.stdout == "status 100\n"


def test_a_rocm_library_installed_later_gets_a_fresh_toolkit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The toolkit's key records which ROCm libraries are installed: installing one the tree stood in for with
    "needs <package>" (here: into a HIP library directory of the test's own) names a new tree, built with it."""
    import dataclasses

    from cassc import toolkit
    from cassc.toolchain import find_toolchain

    monkeypatch.setenv("CASSC_DATA_DIR", str(tmp_path / "data"))
    hip_lib = tmp_path / "lib"
    hip_lib.mkdir()
    toolchain = dataclasses.replace(find_toolchain(), hip_lib_dir=hip_lib)
    renames = {cuda: hip for cuda, hip, _ in read_table(TABLE_DIR / "link-libraries.tsv")}
    missing = next(((cuda, renames[cuda]) for cuda, package, _, older in read_rows(toolkit.TOOLKIT_LIBRARY_TABLE)
                    if package not in ("none", "empty") and cuda in renames
                    and toolkit.installed_cuda_library(toolchain, cuda, older) is None), None)
    if missing is None:
        pytest.skip("every ROCm library the toolkit names is installed with this toolchain")
    cuda, hip = missing
    before = toolkit._toolkit_key(toolchain)
    assert toolkit._toolkit_key(toolchain) == before
    (hip_lib / f"lib{hip}.so").write_bytes(b"")
    assert toolkit.installed_cuda_library(toolchain, cuda, []) == hip_lib / f"lib{hip}.so"
    assert toolkit._toolkit_key(toolchain) != before
