"""The binary path's link: which nvcc-built inputs it takes, refuses and translates, as a linker would."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import gpu_targets, write

NVCC = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
pytestmark = pytest.mark.skipif(not Path(NVCC).exists(), reason="NVIDIA's nvcc is not installed")

VENDOR = r"""
__global__ void twice(float *p) { p[threadIdx.x] *= 2.f; }
extern "C" int vendor_run() { float *p; cudaMalloc(&p, 128); twice<<<1, 32>>>(p); return cudaDeviceSynchronize(); }
"""
MAIN = 'extern "C" int vendor_run();\nint main() { return vendor_run(); }\n'


def nvcc(*args: str, cwd: Path) -> None:
    subprocess.run([NVCC, "-arch=sm_80", *args], cwd=cwd, check=True)


def test_an_nvcc_built_shared_library_stops_the_link_with_one_line(cassc, tmp_path: Path) -> None:
    write(tmp_path / "vendor.cu", VENDOR)
    write(tmp_path / "main.cpp", MAIN)
    nvcc("-shared", "-Xcompiler", "-fPIC", "vendor.cu", "-o", "libvendor.so", cwd=tmp_path)
    for args in (["main.cpp", "-L.", "-lvendor"], ["main.cpp", "libvendor.so"]):
        result = cassc(*args, "-o", "app", check=False)
        assert result.returncode == 1 and not (tmp_path / "app").exists()
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and "libvendor.so is a shared library built by nvcc" in lines[0], result.stderr
        assert "link the objects it was built from" in lines[0]


def test_nvidias_own_libraries_in_a_library_directory_are_not_linked_or_refused(cassc, tmp_path: Path) -> None:
    """A build that links nvcc's objects names the toolkit that built them (SHOC: -L$CUDA_PATH/lib64 -lcublas):
    NVIDIA's libcurand.so/libcublas.so there (device code inside) are neither refused as an nvcc-built library nor
    linked; cassc links their ROCm counterparts, the stand-in toolkit's by its path (its cuBLAS legacy part)."""
    write(tmp_path / "vendor.cu", VENDOR)
    write(tmp_path / "main.cpp", MAIN)
    nvcc("-c", "vendor.cu", "-o", "vendor.o", cwd=tmp_path)
    (tmp_path / "nvidia").mkdir()
    for name in ("curand", "cublas"):  # stand-ins for NVIDIA's: shared libraries with device code
        nvcc("-shared", "-Xcompiler", "-fPIC", "vendor.cu", "-o", f"nvidia/lib{name}.so", cwd=tmp_path)
    cassc("main.cpp", "vendor.o", "-Lnvidia", "-lcurand", "-o", "app")
    needed = subprocess.run(["readelf", "-d", str(tmp_path / "app")], capture_output=True, text=True).stdout
    assert "libhiprand" in needed and "libcurand" not in needed, needed
    result = cassc("main.cpp", "vendor.o", "-Lnvidia", "-lcublas", "-o", "app2", check=False)
    if result.returncode == 0:  # hipBLAS installed
        needed = subprocess.run(["readelf", "-d", str(tmp_path / "app2")], capture_output=True, text=True).stdout
        assert "libhipblas" in needed and "libcublas" not in needed, needed
    else:
        assert "cassc: -lcublas needs hipBLAS" in result.stderr and "built by nvcc" not in result.stderr, result.stderr


def test_host_objects_without_device_code_get_the_cuda_runtime(cassc, tmp_path: Path) -> None:
    """Host code compiled against NVIDIA's headers by the host compiler (SHOC's GEMM.cpp: cuBLAS and the runtime,
    no kernel of its own) calls the CUDA runtime by its names: the link takes the shim that defines them."""
    write(tmp_path / "main.cpp", 'extern "C" int cudaGetDeviceCount(int*);\n'
                                 "int main() { int n = 0; return cudaGetDeviceCount(&n) == 0 ? 0 : n; }\n")
    subprocess.run(["g++", "-c", "main.cpp", "-o", "main.o"], cwd=tmp_path, check=True)
    cassc("main.o", "-lcudart", "-o", "app")
    symbols = subprocess.run(["nm", str(tmp_path / "app")], capture_output=True, text=True, check=True).stdout
    assert re.search(r" T cudaGetDeviceCount$", symbols, re.MULTILINE), symbols


def test_an_nvcc_built_executable_is_named_as_one(cassc, tmp_path: Path) -> None:
    write(tmp_path / "tool.cu", VENDOR + "int main() { return vendor_run(); }\n")
    nvcc("tool.cu", "-o", "tool", cwd=tmp_path)
    result = cassc("tool", "-o", "again", check=False)
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [result.stderr.strip()]
    assert "tool is an executable built by nvcc" in result.stderr
    assert "Don't know what to do" in cassc("main.notes", "-o", "x", check=False).stderr


REFUSED = r"""
__global__ void odd(int *p, int a) { int r; asm volatile("mul24.hi.s32 %0, %1, %1;" : "=r"(r) : "r"(a)); *p = r; }
extern "C" void never_called() { odd<<<1, 1>>>(nullptr, 3); }
"""


def test_only_the_archive_members_the_link_pulls_in_are_translated(cassc, tmp_path: Path) -> None:
    write(tmp_path / "vendor.cu", VENDOR)
    write(tmp_path / "unused.cu", REFUSED)
    write(tmp_path / "main.cpp", MAIN)
    for name in ("vendor", "unused"):
        nvcc("-c", f"{name}.cu", "-o", f"{name}.o", cwd=tmp_path)
    subprocess.run(["ar", "rcs", "libmixed.a", "vendor.o", "unused.o"], cwd=tmp_path, check=True)
    refused = cassc("unused.o", "-shared", "-o", "unused.so", check=False)
    assert refused.returncode == 1 and "cannot be translated" in refused.stderr  # what a pulled member would do
    for args in (["-L.", "-lmixed"], ["libmixed.a"]):
        result = cassc("main.cpp", *args, "-o", "app")
        assert "translated libmixed.a(vendor.o)" in result.stderr and "unused" not in result.stderr
        assert gpu_targets(tmp_path / "app") == ["gfx1100"]


RDC_MAIN = r"""
extern __device__ float helper(float);
__global__ void apply(float *p) { p[threadIdx.x] = helper(p[threadIdx.x]); }
int main() { float *p; cudaMalloc(&p, 128); apply<<<1, 32>>>(p); return cudaDeviceSynchronize(); }
"""
RDC_HELPER = "__device__ float helper(float x) { return 2.f * x + 1.f; }\n"


def test_rdc_members_are_taken_when_device_code_needs_them_and_nvidias_libcudadevrt_is_not(
        cassc, tmp_path: Path) -> None:
    write(tmp_path / "main.cu", RDC_MAIN)
    write(tmp_path / "helper.cu", RDC_HELPER)
    write(tmp_path / "unused.cu", REFUSED)
    for name in ("main", "helper", "unused"):
        nvcc("-rdc=true", "-c", f"{name}.cu", "-o", f"{name}.o", cwd=tmp_path)
    subprocess.run(["ar", "rcs", "libdevice_code.a", "helper.o", "unused.o"], cwd=tmp_path, check=True)
    cuda_lib = Path("/usr/local/cuda/lib64")
    assert (cuda_lib / "libcudadevrt.a").exists()
    result = cassc("main.o", "-L.", "-ldevice_code", f"-L{cuda_lib}", "-lcudadevrt", "-o", "app")
    assert "translated main.o + libdevice_code.a(helper.o)" in result.stderr, result.stderr
    assert "unused" not in result.stderr and "cuda_device_runtime" not in result.stderr
    assert gpu_targets(tmp_path / "app") == ["gfx1100"]


def test_every_requested_target_is_built(cassc, tmp_path: Path) -> None:
    write(tmp_path / "vendor.cu", VENDOR + "int main() { return vendor_run(); }\n")
    nvcc("-c", "vendor.cu", "-o", "vendor.o", cwd=tmp_path)
    result = cassc("vendor.o", "--cassc-offload-arch=gfx1100,gfx1030", "-o", "app")
    assert "to gfx1100" in result.stderr and "to gfx1030" in result.stderr
    assert sorted(gpu_targets(tmp_path / "app")) == ["gfx1030", "gfx1100"]


def test_dlink_of_nvcc_rdc_objects_makes_the_object_nvccs_device_link_would(cassc, tmp_path: Path) -> None:
    write(tmp_path / "main.cu", RDC_MAIN)
    write(tmp_path / "helper.cu", RDC_HELPER)
    nvcc("-rdc=true", "-c", "main.cu", "helper.cu", cwd=tmp_path)
    made = cassc("-dlink", "main.o", "helper.o", "-o", "dlink.o")
    assert "translated main.o + helper.o" in made.stderr
    linked = cassc("main.o", "helper.o", "dlink.o", "-o", "app")
    assert "translated" not in linked.stderr  # the device link did it
    assert gpu_targets(tmp_path / "app") == ["gfx1100"]
    toolkit = dict(line.removeprefix("export ").split("=", 1) for line in cassc("env").stdout.splitlines())["CUDA_PATH"]
    subprocess.run(["g++", "main.o", "helper.o", "dlink.o", f"-L{toolkit}/lib64", "-lcudart", "-o", "by_gxx"],
                   cwd=tmp_path, check=True)  # nvcc's documented host link of a device-linked program
    assert gpu_targets(tmp_path / "by_gxx") == ["gfx1100"]


def test_dlink_without_rdc_code_and_nvccs_own_dlink_object_get_clear_messages(cassc, tmp_path: Path) -> None:
    write(tmp_path / "vendor.cu", VENDOR)
    write(tmp_path / "main.cu", RDC_MAIN)
    write(tmp_path / "helper.cu", RDC_HELPER)
    nvcc("-c", "vendor.cu", cwd=tmp_path)
    nvcc("-rdc=true", "-c", "main.cu", "helper.cu", cwd=tmp_path)
    nvcc("-dlink", "main.o", "helper.o", "-o", "nvidia_dlink.o", cwd=tmp_path)
    whole = cassc("-dlink", "vendor.o", "-o", "dlink.o", check=False)
    assert whole.returncode == 1 and "vendor.o: no relocatable device code (-rdc)" in whole.stderr
    assert not (tmp_path / "dlink.o").exists()
    theirs = cassc("main.o", "helper.o", "nvidia_dlink.o", "-o", "app", check=False)
    assert theirs.returncode == 1 and "nvidia_dlink.o is nvcc's device-link object" in theirs.stderr


MANY_KERNELS = "".join(
    f"__global__ void k{i}(float *p, int n) {{ int j = blockIdx.x * blockDim.x + threadIdx.x;"
    f" if (j < n) p[j] = __expf(p[j] * {i}.5f) + sqrtf(p[j]); }}\n" for i in range(60)) + \
    "int main() { float *p; cudaMalloc(&p, 4096); k0<<<4, 256>>>(p, 1024); return cudaDeviceSynchronize(); }\n"


def test_a_relink_of_unchanged_objects_reuses_their_translation(cassc, cache_dir: Path, tmp_path: Path) -> None:
    write(tmp_path / "many.cu", MANY_KERNELS)
    nvcc("-c", "many.cu", cwd=tmp_path)
    cassc("many.o", "-o", "first")
    stored = list(cache_dir.rglob("code-object.hsaco"))
    assert len(stored) == 1
    stored[0].write_bytes(stored[0].read_bytes() + b"cassc: from the cache")  # what a relink embeds
    cassc("many.o", "-o", "second")
    assert b"cassc: from the cache" in (tmp_path / "second").read_bytes()
    write(tmp_path / "many.cu", MANY_KERNELS.replace("0.5f", "0.25f"))  # new content: translated again
    nvcc("-c", "many.cu", cwd=tmp_path)
    cassc("many.o", "-o", "third")
    assert b"cassc: from the cache" not in (tmp_path / "third").read_bytes()
    assert len(list(cache_dir.rglob("code-object.hsaco"))) == 2


DEBUGGED = r"""
#include <cstdio>
__device__ __noinline__ float helper(float a, int b) { return a * b + 1.0f; }
__global__ void work(const float *in, float *out, int n) {
  __shared__ float tile[64];
  float local[8];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int j = 0; j < 8; ++j) local[j] = i < n ? in[i] * j : 0.f;
  tile[threadIdx.x % 64] = helper(local[i % 8], i);
  __syncthreads();
  if (i < n) out[i] = tile[(threadIdx.x + 1) % 64];
}
int main() { float *p; cudaMalloc(&p, 4096); work<<<4, 64>>>(p, p, 256); return cudaDeviceSynchronize(); }
"""


@pytest.mark.parametrize("debug", ["-G", "-lineinfo"])
def test_debug_objects_translate(cassc, tmp_path: Path, debug: str) -> None:
    write(tmp_path / "debugged.cu", DEBUGGED)
    nvcc(debug, "-c", "debugged.cu", cwd=tmp_path)
    result = cassc("debugged.o", "-o", "app")
    assert "translated debugged.o: 1 kernel(s)" in result.stderr
    assert gpu_targets(tmp_path / "app") == ["gfx1100"]


SECOND_UNIT = r"""
struct Pair { double a; char b; };
__global__ void scaled(float *out, Pair p, char c) { out[threadIdx.x] = p.a * c; }
extern "C" int second_run() { float *o; cudaMalloc(&o, 128); scaled<<<1, 32>>>(o, Pair{2.0, 1}, 3); return 0; }
"""


def test_translate_writes_every_fatbin_of_a_shared_library_and_an_executable_keyed_by_content(
        cassc, tmp_path: Path) -> None:
    import hashlib
    import json

    from cassc.formats.code_object import code_object_target, kernel_descriptors
    from cassc.formats.cuda_fatbin import read_containers
    from cassc.formats.offload_bundle import read_bundles

    write(tmp_path / "vendor.cu", VENDOR)
    write(tmp_path / "second.cu", SECOND_UNIT)
    write(tmp_path / "tool.cu", 'extern "C" int vendor_run(); extern "C" int second_run();\n'
                                "int main() { return vendor_run() + second_run(); }\n")
    nvcc("-shared", "-Xcompiler", "-fPIC", "vendor.cu", "second.cu", "-o", "libvendor.so", cwd=tmp_path)
    nvcc("vendor.cu", "second.cu", "tool.cu", "-o", "tool", cwd=tmp_path)
    manifests = {}
    for binary in ("libvendor.so", "tool"):
        result = cassc("translate", binary, "-o", "translated", "--offload-arch", "gfx1100,gfx1030")
        lines = result.stderr.splitlines()
        assert all(line.startswith(f"cassc translate: {binary}[.nv_fatbin #") for line in lines), result.stderr
        assert sum(": 1 kernel(s) -> " in line for line in lines) == 2, result.stderr  # the rest hold none
        for line in lines:
            manifest = json.loads(Path(tmp_path / line.split(" -> ")[1]).read_text())
            manifests.setdefault(manifest["fatbin_sha256"], []).append(binary)
            for kernel in manifest["kernels"]:
                bundle = read_bundles((tmp_path / "translated" / kernel["code_object"]).read_bytes())
                code_objects = [entry.payload for entry in bundle if entry.payload]
                assert sorted(code_object_target(c) for c in code_objects) == ["gfx1030", "gfx1100"]
                for code_object in code_objects:
                    descriptor = kernel_descriptors(code_object)[kernel["name"]]
                    assert descriptor.mismatch_with_cuda(kernel["param_size"]) is None
                if kernel["name"] == "_Z6scaledPf4Pairc":
                    assert kernel["param_offsets"] == [0, 8, 24] and kernel["param_size"] == 25
    # The same translation unit in both binaries is the same fatbin: translated once, found by its content.
    kernels = [digest for digest in manifests
               if json.loads((tmp_path / "translated" / f"{digest}.json").read_text())["kernels"]]
    assert len(kernels) == 2 and all(manifests[digest] == ["libvendor.so", "tool"] for digest in kernels)
    subprocess.run(["objcopy", "-O", "binary", "--only-section=.nv_fatbin", "tool", "fatbin.bin"], cwd=tmp_path,
                   check=True)
    data = (tmp_path / "fatbin.bin").read_bytes()
    digests = {hashlib.sha256(data[c.offset:c.offset + c.size]).hexdigest() for c in read_containers(data)}
    assert digests == {digest for digest, users in manifests.items() if "tool" in users}
    assert cassc("translate", "vendor.cu", check=False).returncode == 1


def test_translate_with_libraries_follows_the_nvcc_built_shared_libraries_a_program_needs(
        cassc, tmp_path: Path) -> None:
    write(tmp_path / "vendor.cu", VENDOR)
    write(tmp_path / "main.cpp", MAIN)
    nvcc("-shared", "-Xcompiler", "-fPIC", "vendor.cu", "-o", "libvendor.so", cwd=tmp_path)
    nvcc("main.cpp", "-L.", "-lvendor", "-Xlinker", "-rpath=$ORIGIN", "-o", "program", cwd=tmp_path)
    alone = cassc("translate", "program", "-o", "translated").stderr
    assert "libvendor.so" not in alone
    followed = cassc("translate", "program", "-o", "translated", "--with-libraries").stderr
    assert f"{tmp_path}/libvendor.so[.nv_fatbin #1]: 1 kernel(s)" in followed, followed


def test_messages_name_the_object_they_are_about(cassc, tmp_path: Path) -> None:
    write(tmp_path / "discard.cu", '__global__ void bump(int *p) { asm volatile("discard.global.L2 [%0], 128;" :: '
                                   '"l"(p)); *p = 1; }\nint main() { bump<<<1, 32>>>(nullptr); return 0; }\n')
    nvcc("-c", "discard.cu", cwd=tmp_path)
    result = cassc("discard.o", "-o", "app", check=False)
    assert result.returncode == 1
    assert "discard.o: 1 kernel(s) cannot be translated" in result.stderr and "(PTX line" in result.stderr


def test_translate_device_links_the_rdc_units_of_a_linked_binary_under_nvlinks_fatbin(cassc, tmp_path: Path) -> None:
    import json

    write(tmp_path / "main.cu", RDC_MAIN)
    write(tmp_path / "helper.cu", RDC_HELPER)
    nvcc("-rdc=true", "main.cu", "helper.cu", "-o", "program", cwd=tmp_path)
    result = cassc("translate", "program", "-o", "translated")
    lines = [line for line in result.stderr.splitlines() if ": 0 kernel(s)" not in line]
    assert len(lines) == 1 and "program[__nv_relfatbin #0] + program[__nv_relfatbin #1]: 1 kernel(s)" in lines[0]
    manifest = json.loads((tmp_path / lines[0].split(" -> ")[1]).read_text())
    assert [k["name"] for k in manifest["kernels"]] == ["_Z5applyPf"]


RUNTIME_CALLS = r"""
#include <cstdio>
__global__ void fill(float *p, float v) { p[blockIdx.x * blockDim.x + threadIdx.x] = v; }
void CUDART_CB host_side(void *data) { *static_cast<int *>(data) = 1; }
int main() {
  float *p;
  cudaMalloc(&p, 1024 * sizeof(float));
  cudaLaunchConfig_t config = {};
  config.gridDim = 4; config.blockDim = 256;
  cudaLaunchAttribute attribute;
  attribute.id = cudaLaunchAttributeCooperative; attribute.val.cooperative = 1;
  config.attrs = &attribute; config.numAttrs = 1;
  cudaLaunchKernelEx(&config, fill, p, 1.0f);
  void *args[] = {&p, &config};
  cudaLaunchCooperativeKernel((void *)fill, 4, 256, args, 0, 0);
  int min_grid = 0, block = 0;
  cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, fill);
  cudaFuncAttributes attributes;
  cudaFuncGetAttributes(&attributes, fill);
  cudaDeviceSetLimit(cudaLimitStackSize, 4096);
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  cudaStreamAttrValue window = {};
  cudaStreamSetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &window);
  cudaCtxResetPersistingL2Cache();
  int flag = 0;
  cudaLaunchHostFunc(stream, host_side, &flag);
  cudaGraph_t graph;
  cudaGraphCreate(&graph, 0);
  cudaMemAllocNodeParams alloc = {};
  alloc.poolProps.allocType = cudaMemAllocationTypePinned;
  alloc.poolProps.location.type = cudaMemLocationTypeDevice;
  alloc.bytesize = 4096;
  cudaGraphNode_t allocated, freed, kernel;
  cudaGraphAddMemAllocNode(&allocated, graph, nullptr, 0, &alloc);
  cudaKernelNodeParams launch = {(void *)fill, dim3(4), dim3(256), 0, args, nullptr};
  cudaGraphAddKernelNode(&kernel, graph, &allocated, 1, &launch);
  cudaGraphAddMemFreeNode(&freed, graph, &kernel, 1, alloc.dptr);
  cudaGraphExec_t exec;
  cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphUpload(exec, stream);
  cudaGraphLaunch(exec, stream);
  size_t used = 0;
  cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &used);
  cudaStreamSynchronize(stream);
  std::printf("%d %d\n", flag, block);
}
"""


def test_the_runtime_calls_host_code_makes_all_link(cassc, tmp_path: Path) -> None:
    """The calls the binary path lacked on real programs (graphs with memory nodes and upload, host functions,
    limits, stream attributes, L2 persistence, cudaLaunchKernelEx, cooperative launch, occupancy) link and
    leave no CUDA name undefined."""
    write(tmp_path / "calls.cu", RUNTIME_CALLS)
    nvcc("-c", "calls.cu", cwd=tmp_path)
    cassc("calls.o", "-o", "calls")
    undefined = subprocess.run(["nm", "-u", "calls"], cwd=tmp_path, capture_output=True, text=True,
                               check=True).stdout
    assert [name for name in undefined.split() if name.startswith(("cuda", "__cuda"))] == []


def test_invalid_ir_names_the_function_it_is_in() -> None:
    from cassc.binary.codegen import optimized_module
    from cassc.binary.lift import AMDGPU
    from cassc.errors import CompileError

    with pytest.raises(CompileError, match="in function _Z6brokeni: LLVM IR parsing error"):
        optimized_module("define void @fine() {\n  ret void\n}\ndefine i32 @_Z6brokeni(i32 %a) {\n  ret i64 %a\n}\n",
                         AMDGPU)


def test_dynamic_parallelism_is_refused_by_name_not_through_nvidias_device_runtime(cassc, tmp_path: Path) -> None:
    write(tmp_path / "dp.cu", "__global__ void child(int *p) { p[threadIdx.x] = 1; }\n"
                              "__global__ void parent(int *p) { if (threadIdx.x == 0) child<<<1, 32>>>(p); }\n"
                              "int main() { int *p; cudaMalloc(&p, 128); parent<<<1, 32>>>(p); }\n")
    nvcc("-rdc=true", "-c", "dp.cu", cwd=tmp_path)
    result = cassc("dp.o", "-L/usr/local/cuda/lib64", "-lcudadevrt", "-o", "app", check=False)
    assert result.returncode == 1
    assert "dp.o launches kernels from device code (dynamic parallelism" in result.stderr
    assert "cuda_device_runtime" not in result.stderr


def test_cassc_run_gives_an_nvcc_built_shared_runtime_program_its_translations(cassc, tmp_path: Path) -> None:
    """An nvcc-built `-cudart shared` program runs against cassc's libcudart, which finds each fatbin's
    translation by content at registration. Without an AMD GPU the first launch stops at loading the code
    object: everything before it (every symbol, the registration, the lookup) has run."""
    write(tmp_path / "vendor.cu", VENDOR)
    write(tmp_path / "main.cpp", MAIN)
    nvcc("-cudart", "shared", "vendor.cu", "main.cpp", "-o", "program", cwd=tmp_path)
    result = cassc("run", "program", "--an-argument", env={"CASSC_RUNTIME_VERBOSE": "1"}, check=False)
    assert "cassc translate: program[.nv_fatbin #1]: 1 kernel(s)" in result.stderr, result.stderr
    assert re.search(r"cassc runtime: fatbin [0-9a-f]{64}: 1 kernel\(s\) from ", result.stderr), result.stderr
    assert "symbol lookup error" not in result.stderr and "version `libcudart" not in result.stderr
    assert "cannot load the translated device code" in result.stderr  # no AMD GPU here


def test_cassc_run_follows_a_host_program_to_the_nvcc_built_library_it_needs(cassc, tmp_path: Path) -> None:
    write(tmp_path / "vendor.cu", VENDOR)
    write(tmp_path / "main.cpp", MAIN)
    nvcc("-cudart", "shared", "-shared", "-Xcompiler", "-fPIC", "vendor.cu", "-o", "libvendor.so", cwd=tmp_path)
    subprocess.run(["g++", "main.cpp", "-L.", "-lvendor", "-Wl,-rpath,$ORIGIN", "-o", "host_program"], cwd=tmp_path,
                   check=True)
    result = cassc("run", "host_program", env={"CASSC_RUNTIME_VERBOSE": "1"}, check=False)
    assert f"cassc translate: {tmp_path}/libvendor.so[.nv_fatbin #1]: 1 kernel(s)" in result.stderr, result.stderr
    assert re.search(r"cassc runtime: fatbin [0-9a-f]{64}: 1 kernel\(s\)", result.stderr), result.stderr
