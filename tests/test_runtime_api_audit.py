"""CUDA 13's runtime API against cassc (issue 19 item 5): every function cuda_runtime_api.h declares, and every
template cuda_runtime.h adds, is renamed by the hipify tables, `provided` by cassc (cuda_compat.h) or
`unsupported`, with a reason, in api_audit.tsv (the one audit list, shared with test_api_audit.py). An
unsupported function gets cassc's one line naming it at the user's file and line, never clang's
"undeclared identifier" and its guesses at HIP names; NVML goes through ROCm SMI or stops at the #include."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from cassc.hipify.tables import load_tables
from cassc.toolchain import find_toolchain
from conftest import write

INCLUDE = Path("/usr/local/cuda/include")
AUDIT = Path(__file__).parent / "api_audit.tsv"
CALLS_PER_UNIT = 15
OCCUPANCY_HEADER = Path(__file__).parent.parent / "cassc/data/include/cassc/occupancy.h"


def runtime_functions() -> set[str]:
    def declared(header: str, pattern: str) -> set[str]:
        text = re.sub(r"/\*.*?\*/|//[^\n]*", "", (INCLUDE / header).read_text(), flags=re.DOTALL)
        return set(re.findall(pattern, text))

    return (declared("cuda_runtime_api.h", r"extern\s+__host__[^;{(]*?\b(cuda\w+)\s*\(")
            | declared("cuda_runtime.h", r"static\s+__inline__\s+__host__\s+(?:CUDART_DEVICE\s+)?\w+\s+\b(cuda\w+)\s*\("))


def audit_rows() -> dict[str, str]:
    rows = [line.split("\t") for line in AUDIT.read_text().splitlines() if line and not line.startswith("#")]
    return {name: status for name, status, _ in rows}


@pytest.mark.skipif(not (INCLUDE / "cuda_runtime_api.h").exists(), reason="CUDA's headers are not installed")
def test_every_runtime_function_is_renamed_provided_or_listed() -> None:
    functions = runtime_functions()
    assert len(functions) > 300
    renamed = set(load_tables().identifiers)
    rows = audit_rows()
    unaccounted = sorted(f for f in functions if f not in renamed and f not in rows)
    assert unaccounted == [], f"CUDA runtime functions neither renamed nor in api_audit.tsv: {unaccounted}"
    stale = sorted(f for f in functions if f in renamed and rows.get(f) == "unsupported")
    assert stale == [], f"renamed now, still listed unsupported: {stale}"


def test_unsupported_runtime_functions_get_cassc_s_line(cassc, tmp_path: Path) -> None:
    unsupported = sorted(name for name, status in audit_rows().items() if status == "unsupported" and name.startswith("cuda"))
    assert len(unsupported) > 90
    for start in range(0, len(unsupported), CALLS_PER_UNIT):  # clang stops after 20 errors in one unit
        names = unsupported[start:start + CALLS_PER_UNIT]
        calls = [f"  (void){name};" for name in names]
        write(tmp_path / f"calls{start}.cu", "\n".join(["#include <cuda_runtime.h>", "int main() {", *calls, "}"]) + "\n")
        stderr = cassc("-c", f"calls{start}.cu", check=False).stderr
        assert "undeclared identifier" not in stderr and "did you mean" not in stderr and "note:" not in stderr
        for line, name in enumerate(names, start=3):
            assert f"calls{start}.cu:{line}:9: error: '{name}' is a CUDA API with no HIP counterpart" in stderr, name


VARIABLE_SMEM = """\
#include <cuda_runtime.h>
#include <cstdio>
__global__ void scale(float *a, int n) {
  extern __shared__ float tile[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { tile[threadIdx.x] = a[i]; a[i] = 2 * tile[threadIdx.x]; }
}
struct TileBytes { size_t operator()(int block) const { return block * sizeof(float); } };
int main() {
  int grid = 0, block = 0;
  cudaError_t status = cudaOccupancyMaxPotentialBlockSizeVariableSMem(&grid, &block, scale, TileBytes());
  if (status == cudaSuccess)
    status = cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(&grid, &block, scale,
                                                                     [](int b) { return b * 8; }, 256, cudaOccupancyDefault);
  std::printf("%s grid %d block %d\\n", cudaGetErrorString(status), grid, block);
  return status != cudaSuccess;
}
"""


def test_occupancy_variable_smem_compiles_and_links_for_gfx1100(cassc, tmp_path: Path) -> None:
    write(tmp_path / "occupancy.cu", VARIABLE_SMEM)
    cassc("occupancy.cu", "-o", "occupancy")
    assert (tmp_path / "occupancy").exists()


NO_OP_REQUESTS = """\
#include <cuda_runtime.h>
#include <cstdio>
int main() {
  cudaError_t reset = cudaCtxResetPersistingL2Cache();
  cudaError_t trim = cudaDeviceGraphMemTrim(0);
  std::printf("%d %d\\n", (int)reset, (int)trim);
}
"""


def test_no_op_requests_succeed_as_the_binary_paths_runtime_answers_them(cassc, tmp_path: Path) -> None:
    """cudaCtxResetPersistingL2Cache and, where HIP has no graph memory to trim (5.2), cudaDeviceGraphMemTrim
    succeed without a GPU, as CUDA documents them where the feature is absent; HIP 6 trims through its twin."""
    write(tmp_path / "noop.cu", NO_OP_REQUESTS)
    cassc("noop.cu", "-o", "noop")
    reset, trim = subprocess.run([str(tmp_path / "noop")], capture_output=True, text=True, check=True).stdout.split()
    assert reset == "0"
    if int(find_toolchain().hip_version.split(".")[0]) < 6:
        assert trim == "0"


def reference_block_size(limit: int, warp: int, threads_per_sm: int, blocks_at) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    """CUDA's loop in cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags, in Python."""
    best = (0, 0, 0)
    aligned = (limit + warp - 1) // warp * warp
    while aligned > 0:
        tried = min(limit, aligned)
        blocks = blocks_at(tried)
        if tried * blocks > best[2]:
            best = (tried, blocks, tried * blocks)
        if best[2] == threads_per_sm:
            break
        aligned -= warp
    return best[0], best[1]


def test_occupancy_search_computes_what_cudas_does(tmp_path: Path) -> None:
    """The search the adapter runs over HIP's occupancy query, with a gfx1100-like multiprocessor (2048
    threads, 32 blocks, 64 KiB LDS) whose dynamic shared memory grows with the block: same answers as CUDA's."""
    program = write(tmp_path / "search.cpp", f"""\
#include "{OCCUPANCY_HEADER}"
#include <cstdio>
#include <cstdlib>
static int blocks_for(int size, long bytes_per_thread) {{
  long by_threads = 2048 / size, by_lds = bytes_per_thread ? 65536 / (bytes_per_thread * size) : 32;
  long blocks = by_threads < by_lds ? by_threads : by_lds;
  return (int)(blocks < 32 ? blocks : 32);
}}
int main(int argc, char **argv) {{
  int limit = atoi(argv[1]);
  long bytes = atol(argv[2]);
  int size = 0, blocks = 0;
  int status = __cassc_max_potential_block_size<int>(limit, 32, 2048, [&](int s, int *count) {{
    *count = blocks_for(s, bytes); return 0; }}, &size, &blocks);
  std::printf("%d %d %d\\n", status, size, blocks);
}}
""")
    compiler = find_toolchain().clang.parent / find_toolchain().clang.name.replace("clang", "clang++", 1)
    subprocess.run([str(compiler if compiler.exists() else find_toolchain().clang), "-std=c++17", "-O1", str(program),
                    "-o", str(tmp_path / "search")], check=True)
    for limit, bytes_per_thread in [(1024, 0), (1024, 4), (1024, 48), (1000, 20), (256, 100), (96, 0), (1024, 40)]:
        out = subprocess.run([str(tmp_path / "search"), str(limit), str(bytes_per_thread)], capture_output=True,
                             text=True, check=True).stdout.split()

        def blocks_at(size: int) -> int:
            by_lds = 65536 // (bytes_per_thread * size) if bytes_per_thread else 32
            return min(2048 // size, by_lds, 32)

        assert out == ["0", *map(str, reference_block_size(limit, 32, 2048, blocks_at))], (limit, bytes_per_thread)


NVML = """\
#include <nvml.h>
#include <cstdio>
int main() {
  nvmlReturn_t result = nvmlInit_v2();
  unsigned int count = 0;
  if (result == NVML_SUCCESS) result = nvmlDeviceGetCount_v2(&count);
  std::printf("%d %s: %u\\n", (int)result, nvmlErrorString(result), count);
  nvmlShutdown();
}
"""
# Where ROCm SMI finds no amdgpu driver (every machine here), rsmi_init fails: the program must see the code
# and message NVIDIA's NVML gives without a driver (NVML_ERROR_DRIVER_NOT_LOADED = 9, "Driver Not Loaded").
AMD_GPU = Path("/dev/kfd").exists()
NVML_ANSWER = r"0 Success: [1-9]\d*" if AMD_GPU else r"9 Driver Not Loaded: 0"


def test_nvml_goes_through_rocm_smi_or_stops_at_the_include(cassc, tmp_path: Path) -> None:
    """Built by cassc (a .cu, `-lnvidia-ml`) and, as Makefiles build NVML's host-only users, by g++ against
    the stand-in toolkit (`-I$CUDA_PATH/include ... -L$CUDA_PATH/lib64 -lnvidia-ml`): both run on ROCm SMI,
    wherever the distribution installs it (Debian 12: /usr/lib, outside HIP's library directory)."""
    write(tmp_path / "smi.cu", NVML)
    toolchain = find_toolchain()
    installed = any((d / "rocm_smi/rocm_smi.h").is_file() for d in toolchain.library_include_dirs)
    result = cassc("smi.cu", "-o", "smi", "-lnvidia-ml", check=False)
    if not installed:
        assert result.returncode != 0
        assert re.search(r"smi\.cu:1: needs ROCm SMI \(for nvml\.h\)", result.stderr), result.stderr
        assert "file not found" not in result.stderr
        return
    assert result.returncode == 0, result.stderr
    exports = dict(line.removeprefix("export ").split("=", 1) for line in cassc("env").stdout.splitlines())
    write(tmp_path / "host.cpp", NVML)
    subprocess.run(["g++", f"-I{exports['CUDA_PATH']}/include", "host.cpp", "-o", "host",
                    f"-L{exports['CUDA_PATH']}/lib64", "-lnvidia-ml"], cwd=tmp_path, check=True)
    for program in ("smi", "host"):
        ran = subprocess.run([str(tmp_path / program)], capture_output=True, text=True)
        assert ran.returncode == 0 and re.fullmatch(NVML_ANSWER, ran.stdout.strip()), (program, ran)
