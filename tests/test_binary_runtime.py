"""The binary path's runtime (libcassc_cudart.a): the whole CUDA runtime API, resolved and with CUDA's
documented results, and the entries that take a kernel knowing the kernels nvcc's code registered."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from cassc.hipify.tables import read_rows
from cassc.toolkit import CUDART_API_TABLE, SHIMS_DIR
from cassc.toolchain import find_toolchain

from conftest import write

NVCC = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
CUDA = Path("/usr/local/cuda")
NVIDIA_CUDART = CUDA / "lib64" / "libcudart.so.13"
needs_cuda = pytest.mark.skipif(not NVIDIA_CUDART.exists(), reason="NVIDIA's CUDA 13 runtime is not installed")


def nvidia_runtime_functions() -> set[str]:
    """Every function NVIDIA's libcudart exports: its API list."""
    listing = subprocess.run(["nm", "-D", "--defined-only", str(NVIDIA_CUDART)], capture_output=True, text=True,
                             check=True).stdout
    return {line.split()[2].split("@")[0] for line in listing.splitlines() if line.split()[1] == "T"}


def runtime_archive(toolkit: Path) -> str:
    return str(toolkit / "lib64" / "libcassc_cudart.a")


@pytest.fixture
def toolkit(cassc) -> Path:
    exports = dict(line.removeprefix("export ").split("=", 1) for line in cassc("env").stdout.splitlines())
    return Path(exports["CUDA_PATH"])


@needs_cuda
def test_the_api_table_lists_every_function_of_nvidias_runtime_and_header() -> None:
    listed = [name for name, _, _, _ in read_rows(CUDART_API_TABLE)]
    assert len(listed) == len(set(listed))
    assert set(listed) == nvidia_runtime_functions()
    header = (CUDA / "include" / "cuda_runtime_api.h").read_text()
    declared = set(re.findall(r"CUDARTAPI\s+(\w+)\s*\(", header))
    assert len(declared) > 300 and declared <= set(listed)
    codes = dict(re.findall(r"(cudaError\w+)\s*=\s*(\d+)", (CUDA / "include" / "driver_types.h").read_text()))
    for name, how, _, extra in read_rows(CUDART_API_TABLE):
        if how == "error":
            assert extra[0] in codes.values(), name


@needs_cuda
def test_every_runtime_function_resolves_in_a_link_against_the_shim_runtime(toolkit: Path, tmp_path: Path) -> None:
    names = sorted(nvidia_runtime_functions())
    source = "".join(f"extern void {name}(void);\n" for name in names)
    source += "void *const entries[] = {\n" + "".join(f"  (void *){name},\n" for name in names) + "};\n"
    source += "int main(void) { return entries[0] == 0; }\n"
    write(tmp_path / "all.c", source)
    toolchain = find_toolchain()
    linked = subprocess.run([str(toolchain.clang), "-x", "c", "all.c", "-x", "none", runtime_archive(toolkit),
                             f"-L{toolchain.hip_lib_dir}", "-lamdhip64", "-lstdc++", "-o", "all"],
                            cwd=tmp_path, capture_output=True, text=True)
    assert linked.returncode == 0, linked.stderr[-3000:]
    defined = subprocess.run(["nm", "--defined-only", "all"], cwd=tmp_path, capture_output=True, text=True,
                             check=True).stdout
    assert {line.split()[-1] for line in defined.splitlines()} >= set(names)


# Calls whose answer CUDA documents and which need no GPU: (call, CUDA's result).
DOCUMENTED_RESULTS = [
    ("cudaCtxResetPersistingL2Cache()", 0),
    ("cudaGraphUpload(0, 0)", 0),
    ("cudaStreamSetAttribute(0, 1, 0)", 0),
    ("cudaDeviceSetGraphMemAttribute(0, 0, 0)", 0),
    ("cudaDeviceSetLimit(0, 1 << 16)", 0),  # the stack size: the code object's business on AMD GPUs
    ("cudaDeviceSetLimit(3, 4)", 215),  # the device runtime's sync depth: cudaErrorUnsupportedLimit
    ("cudaLibraryLoadData(0, 0, 0, 0, 0, 0, 0, 0)", 801),  # cudaErrorNotSupported
    ("cudaGLSetGLDevice(0)", 801),
    ("cudaFuncGetName(0, (void *)main)", 98),  # not a kernel: cudaErrorInvalidDeviceFunction
    # CUDA 11's reference API is the shim's (HIP's twins take HIP's textureReference): not a registered reference
    ("cudaUnbindTexture((void *)main)", 18),  # cudaErrorInvalidTexture
    ("cudaGetSurfaceReference((void *)&main, (void *)main)", 37),  # cudaErrorInvalidSurface
]


def test_runtime_functions_without_a_hip_twin_return_cudas_documented_results(toolkit: Path, tmp_path: Path) -> None:
    calls = "".join(f'  printf("%d\\n", {call});\n' for call, _ in DOCUMENTED_RESULTS)
    declarations = "".join(f"extern int {call.split('(')[0]}();\n" for call, _ in DOCUMENTED_RESULTS)
    write(tmp_path / "calls.c", f"#include <stdio.h>\n{declarations}int main(void) {{\n{calls}  return 0;\n}}\n")
    toolchain = find_toolchain()
    subprocess.run([str(toolchain.clang), "-x", "c", "calls.c", "-x", "none", runtime_archive(toolkit),
                    f"-L{toolchain.hip_lib_dir}", "-lamdhip64", "-lstdc++", "-o", "calls"], cwd=tmp_path, check=True)
    printed = subprocess.run(["./calls"], cwd=tmp_path, capture_output=True, text=True, check=True).stdout.split()
    assert [int(value) for value in printed] == [result for _, result in DOCUMENTED_RESULTS]


LAYOUTS = {
    "cudaFuncAttributes": ("cassc_cuda_func_attributes", ["sharedSizeBytes", "maxThreadsPerBlock", "numRegs",
                                                          "maxDynamicSharedSizeBytes", "preferredShmemCarveout",
                                                          "reserved"]),
    "cudaLaunchConfig_t": ("cuda_launch_config", [("gridDim", "grid"), ("blockDim", "block"),
                                                  ("dynamicSmemBytes", "shared"), ("stream", "stream"),
                                                  ("attrs", "attributes"), ("numAttrs", "attribute_count")]),
    "cudaKernelNodeParams": ("cuda_kernel_node_params", [("func", "func"), ("gridDim", "grid"), ("blockDim", "block"),
                                                         ("sharedMemBytes", "shared"),
                                                         ("kernelParams", "kernel_params"), ("extra", "extra")]),
    "cudaMemAllocNodeParams": ("cuda_mem_alloc_node_params", [("accessDescs", "access"),
                                                              ("accessDescCount", "access_count"),
                                                              ("bytesize", "bytes"), ("dptr", "pointer")]),
    "cudaGraphInstantiateParams": ("cuda_graph_instantiate_params", [("flags", "flags"),
                                                                     ("uploadStream", "upload_stream"),
                                                                     ("errNode_out", "error_node"),
                                                                     ("result_out", "result")]),
    "cudaMemLocation": ("cuda_mem_location", ["type", "id"]),
    "cudaMemsetParams": ("cuda_memset_params", [("dst", "dst"), ("pitch", "pitch"), ("value", "value"),
                                                ("elementSize", "element_size"), ("width", "width"),
                                                ("height", "height")]),
    "cudaPointerAttributes": ("cuda_pointer_attributes", [("type", "type"), ("device", "device"),
                                                          ("devicePointer", "device_pointer"),
                                                          ("hostPointer", "host_pointer")]),
    "cudaGraphExecUpdateResultInfo": ("cuda_graph_exec_update_result_info", [("result", "result"),
                                                                              ("errorNode", "error_node"),
                                                                              ("errorFromNode", "error_from_node")]),
    "cudaGraphEdgeData": ("cuda_graph_edge_data", [("from_port", "bytes")]),
}


@needs_cuda
def test_the_shims_runtime_structs_have_cudas_layout(tmp_path: Path) -> None:
    """Every struct the shim reads or fills where nvcc-built code passes CUDA's: offsets as in NVIDIA's header."""
    cuda_lines, shim_lines = [], []
    for cuda_type, (shim_type, fields) in LAYOUTS.items():
        for field in fields:
            cuda_field, shim_field = field if isinstance(field, tuple) else (field, field)
            cuda_lines.append(f'std::printf("{cuda_type}.{cuda_field} %zu\\n", offsetof({cuda_type}, {cuda_field}));')
            shim_lines.append(f'std::printf("{cuda_type}.{cuda_field} %zu\\n", offsetof({shim_type}, {shim_field}));')
        cuda_lines.append(f'std::printf("{cuda_type} %zu\\n", sizeof({cuda_type}));')
        shim_lines.append(f'std::printf("{cuda_type} %zu\\n", sizeof({shim_type}));')
    write(tmp_path / "cuda.cpp", "#include <cstdio>\n#include <cstddef>\n#include <cuda_runtime_api.h>\n"
                                 f"int main() {{ {''.join(cuda_lines)} }}\n")
    write(tmp_path / "shim.cpp", f'#include <cstddef>\n#include "{SHIMS_DIR / "runtime" / "cassc_cudart.cpp"}"\n'
                                 f"int main() {{ {''.join(shim_lines)} }}\n")
    toolchain = find_toolchain()
    outputs = []
    for name, flags in (("cuda", [f"-I{CUDA / 'include'}"]),
                        ("shim", ["-D__HIP_PLATFORM_AMD__", f"-I{toolchain.hip_include_dir.parent}",
                                  f"-L{toolchain.hip_lib_dir}", "-lamdhip64", "-Wno-invalid-offsetof"])):
        subprocess.run([str(toolchain.clang), "-std=c++17", f"{name}.cpp", *flags, "-o", name], cwd=tmp_path,
                       check=True)
        outputs.append(subprocess.run([f"./{name}"], cwd=tmp_path, capture_output=True, text=True,
                                      check=True).stdout)
    assert outputs[0] == outputs[1]


KERNEL_QUERIES = r"""
#include <cstdio>
struct Pair { double a; char b; };
__global__ void scaled(float *out, Pair p, char c, int n) { if (threadIdx.x < n) out[threadIdx.x] = p.a * c; }
int main() {
  const char *name = nullptr;
  int status = cudaFuncGetName(&name, scaled);
  std::printf("%d %s\n", status, name);
  for (size_t i = 0; i < 5; ++i) {
    size_t offset = 0, size = 0;
    cudaError_t status = cudaFuncGetParamInfo((const void *)scaled, i, &offset, &size);
    std::printf("%d %zu %zu\n", (int)status, offset, size);
  }
  cudaKernel_t kernel = nullptr;
  status = cudaGetKernel(&kernel, scaled);
  std::printf("%d %d\n", status, (const void *)kernel == (const void *)scaled);
}
"""


@pytest.mark.skipif(not Path(NVCC).exists(), reason="NVIDIA's nvcc is not installed")
def test_entries_taking_a_kernel_know_the_kernels_nvccs_code_registered(cassc, tmp_path: Path) -> None:
    write(tmp_path / "queries.cu", KERNEL_QUERIES)
    subprocess.run([NVCC, "-arch=sm_80", "-c", "queries.cu", "-o", "queries.o"], cwd=tmp_path, check=True)
    cassc("queries.o", "-o", "queries")
    printed = subprocess.run(["./queries"], cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    assert printed.splitlines() == ["0 _Z6scaledPf4Pairci", "0 0 8", "0 8 16", "0 24 1", "0 28 4", "1 0 0", "0 1"]


def test_older_cudas_device_prop_layouts_have_their_sizes(tmp_path: Path) -> None:
    """cudaGetDeviceProperties_v2 (CUDA 12's headers) and the plain call of CUDA 10/11-built code write CUDA
    12's layout, cut where the older struct ends. Reference sizes: sizeof(cudaDeviceProp) in CUDA 12.x's,
    11.x's and 10.x's driver_types.h (not installed here); clockRate's offset in CUDA 12."""
    write(tmp_path / "sizes.cpp", f'#include <cstdio>\n#include "{SHIMS_DIR / "runtime" / "cassc_cudart.cpp"}"\n'
                                  "int main() { std::printf(\"%zu %zu %zu %zu\\n\", sizeof(cassc_cuda12_device_prop), "
                                  "offsetof(cassc_cuda12_device_prop, clockRate), cuda12_prop_size(11080), "
                                  "cuda12_prop_size(10020)); }\n")
    toolchain = find_toolchain()
    subprocess.run([str(toolchain.clang), "-std=c++17", "-D__HIP_PLATFORM_AMD__",
                    f"-I{toolchain.hip_include_dir.parent}", "sizes.cpp", f"-L{toolchain.hip_lib_dir}", "-lamdhip64",
                    "-o", "sizes"], cwd=tmp_path, check=True)
    printed = subprocess.run(["./sizes"], cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    assert printed.split() == ["1032", "348", "728", "712"]


@pytest.mark.skipif(not Path(NVCC).exists(), reason="NVIDIA's nvcc is not installed")
def test_the_cuda_version_that_built_device_code_is_read_from_its_ptx(tmp_path: Path) -> None:
    from cassc.binary.extract import BinaryModule, DeviceImage, built_by_cuda, read_binary
    from cassc.formats.cuda_fatbin import FatbinEntry

    def module(ptx: str) -> BinaryModule:
        entry = FatbinEntry("ptx", 80, "none", 0, ptx.encode(), "", False)
        return BinaryModule("k.o", (DeviceImage(".nv_fatbin", 0, entry),), ())

    assert built_by_cuda(module("// Cuda compilation tools, release 12.4, V12.4.131\n.version 8.4\n")) == 12040
    assert built_by_cuda(module(".version 7.8\n.target sm_80\n")) == 11080
    assert built_by_cuda(module(".version 6.5\n")) == 10020
    assert built_by_cuda(module("")) == 0
    write(tmp_path / "k.cu", "__global__ void k(int *p) { *p = 1; }\n")
    subprocess.run([NVCC, "-arch=sm_80", "-c", "k.cu"], cwd=tmp_path, check=True)
    assert built_by_cuda(read_binary(tmp_path / "k.o")[0]) == 13000


def _parameter_counts(header: Path, prefix: str) -> dict[str, int]:
    """Each function's number of parameters, from a C header's prototypes."""
    text = re.sub(r"/\*.*?\*/|//[^\n]*", "", header.read_text(), flags=re.S)
    text = re.sub(r"__dparm\([^()]*\)|__dv\([^()]*\)", "", text)
    counts: dict[str, int] = {}
    for name, params in re.findall(rf"\b({prefix}\w+)\s*\(([^;{{()]*(?:\([^()]*\)[^;{{()]*)*)\)\s*;", text):
        counts.setdefault(name, 0 if params.strip() in ("", "void") else params.count(",") + 1)
    return counts


@needs_cuda
def test_every_jump_goes_to_a_hip_function_with_cuda_13s_parameters(toolkit: Path) -> None:
    """A jump passes CUDA's arguments untouched: where CUDA 12/13 changed a call's parameters and HIP kept the
    old form, the shim must define the call instead."""
    from cassc.hipify.tables import TABLE_DIR, read_table
    from cassc.toolkit import exported_functions, runtime_entries

    toolchain = find_toolchain()
    exported = exported_functions(toolchain.hip_lib_dir / "libamdhip64.so")
    twins = {cuda: hip for cuda, hip, _ in read_table(TABLE_DIR / "runtime.tsv") if hip in exported}
    listing = subprocess.run(["nm", "--defined-only", str(toolkit / "lib64" / "libcassc_cudart.a")],
                             capture_output=True, text=True, check=True).stdout
    archive_members = listing.split("\n\n")
    shim = next(member for member in archive_members if "cassc_cudart.o:" in member)
    defined = {line.split()[-1] for line in shim.splitlines()[1:] if line.split()[1:2] == ["T"]}
    jumps, _ = runtime_entries(read_rows(CUDART_API_TABLE), twins, exported, defined)
    cuda = _parameter_counts(CUDA / "include" / "cuda_runtime_api.h", "cuda")
    hip = _parameter_counts(toolchain.hip_include_dir / "hip_runtime_api.h", "hip")
    checked = [(c, h) for c, h in jumps if c in cuda and h in hip]
    assert len(checked) > 150
    assert [(c, cuda[c], h, hip[h]) for c, h in checked if cuda[c] != hip[h]] == []


def test_cuda_get_driver_entry_point_answers_with_the_driver_apis_hip_twins(toolkit: Path, tmp_path: Path) -> None:
    write(tmp_path / "entry.c", r"""
#include <stdio.h>
extern int cudaGetDriverEntryPoint(const char *, void **, unsigned long long, int *);
extern int hipDriverGetVersion(int *);
int main(void) {
  void *function = 0;
  int status = -1, ours = -1, hips = -1;
  int result = cudaGetDriverEntryPoint("cuDriverGetVersion", &function, 0, &status);
  int (*version)(int *) = (int (*)(int *))function;
  int code = version ? version(&ours) : -1;
  int expected = hipDriverGetVersion(&hips);
  printf("%d %d %d %d\n", result, status, code == expected, ours == hips);
  result = cudaGetDriverEntryPoint("cuNoSuchCall", &function, 0, &status);
  printf("%d %d %d\n", result, status, function == 0);
  return 0;
}
""")
    toolchain = find_toolchain()
    subprocess.run([str(toolchain.clang), "-x", "c", "entry.c", "-x", "none", runtime_archive(toolkit),
                    f"-L{toolchain.hip_lib_dir}", "-lamdhip64", "-lstdc++", "-o", "entry"], cwd=tmp_path, check=True)
    printed = subprocess.run(["./entry"], cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    assert printed.splitlines() == ["0 0 1 1", "0 1 1"]
