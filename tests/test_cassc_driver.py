"""cassc's libcuda.so.1 (shims/driver): what NVIDIA's runtime linked into an nvcc-built binary (-cudart static)
reaches on an AMD machine. No GPU here: the runtime's whole handshake with the driver runs (every driver name it
asks cuGetProcAddress for, the export tables) up to the device query, which reports CUDA's "no CUDA-capable
device" instead of "driver version is insufficient". On an NVIDIA GPU the same library in front of NVIDIA's driver
runs the programs (benchmarks/whole_binary.py, benchmarks/results/binary-path.md)."""

from __future__ import annotations

import hmac
import re
import subprocess
from pathlib import Path

import pytest

from cassc.binary.driver_api import DRIVER_API_TABLE, api_from_headers, driver_symbols, read_api, table_text
from cassc.locations import resource_dir
from conftest import write

CUDA_INCLUDE = Path("/usr/local/cuda/include")
NVCC = Path("/usr/local/cuda/bin/nvcc")
needs_nvcc = pytest.mark.skipif(not NVCC.exists(), reason="needs NVIDIA's nvcc and headers")
DRIVER_SOURCES = resource_dir("shims") / "driver"

PROGRAM = r"""
#include <cstdio>
__global__ void twice(float *p) { p[threadIdx.x] *= 2.f; }
int main() {
  int count = -1;
  cudaError_t status = cudaGetDeviceCount(&count);
  std::printf("%d %s\n", static_cast<int>(status), cudaGetErrorName(status));
  if (status == cudaSuccess) { float *p; cudaMalloc(&p, 128); twice<<<1, 32>>>(p); cudaDeviceSynchronize(); }
  return status;
}
"""


@needs_nvcc
def test_the_driver_table_is_cudas_own() -> None:
    """driver-api.tsv is what CUDA's headers document, and every symbol it names is one CUDA declares
    (cuWGLGetDevice only on Windows)."""
    api = api_from_headers(CUDA_INCLUDE)
    assert table_text(api) == (resource_dir("shims") / DRIVER_API_TABLE).read_text()
    declared = set()
    for header in ("cuda.h", "cudaGL.h", "cudaEGL.h", "cudaVDPAU.h", "cudaProfiler.h"):
        for internal in ([], ["-D__CUDA_API_VERSION_INTERNAL"]):
            expanded = subprocess.run(["g++", "-E", "-P", "-x", "c++", f"-I{CUDA_INCLUDE}", *internal,
                                       str(CUDA_INCLUDE / header)], capture_output=True, text=True, check=True).stdout
            declared |= set(re.findall(r"CUresult\s+(?:CUDAAPI\s+)?(cu\w+)\s*\(", expanded))
    assert set(driver_symbols(api)) - declared == {"cuWGLGetDevice"}
    by_name = {(e.name, e.version, e.stream): e.symbol for e in api.entries}
    assert by_name[("cuMemAlloc", 3020, "")] == "cuMemAlloc_v2" and by_name[("cuMemAlloc", 2000, "")] == "cuMemAlloc"
    assert by_name[("cuMemcpyHtoD", 7000, "_ptds")] == "cuMemcpyHtoD_v2_ptds"
    assert by_name[("cuGetProcAddress", 12000, "")] == "cuGetProcAddress_v2"


class Md2:
    """MD2 (RFC 1319) in Python, as hmac.new's digestmod: the reference the C++ integrity hash is checked with."""
    digest_size = block_size = 16
    S = None

    def __init__(self, data: bytes = b"") -> None:
        if Md2.S is None:
            Md2.S = _md2_table()
        self.data = b""
        self.update(data)

    def update(self, data: bytes) -> None:
        self.data += data

    def copy(self) -> "Md2":
        return Md2(self.data)

    def digest(self) -> bytes:
        s = self.S
        pad = 16 - len(self.data) % 16
        message = self.data + bytes([pad]) * pad
        checksum, last = [0] * 16, 0
        for block in range(0, len(message), 16):
            for j in range(16):
                checksum[j] ^= s[message[block + j] ^ last]
                last = checksum[j]
        message += bytes(checksum)
        x = [0] * 48
        for block in range(0, len(message), 16):
            for j in range(16):
                x[16 + j] = message[block + j]
                x[32 + j] = x[16 + j] ^ x[j]
            t = 0
            for round_ in range(18):
                for k in range(48):
                    x[k] ^= s[t]
                    t = x[k]
                t = (t + round_) % 256
        return bytes(x[:16])


def _md2_table() -> list[int]:
    """MD2's S-table, read from cassc's header (its correctness is the RFC test vectors below)."""
    text = (DRIVER_SOURCES / "integrity_hash.h").read_text()
    body = text[text.index("MD2_S[256] = {") + 14:]
    return [int(n) for n in re.findall(r"\d+", body[:body.index("}")])]


def test_the_integrity_hash_is_hmac_md2(tmp_path: Path) -> None:
    """RFC 1319's test vectors, and integrity_hash == HMAC (Python's hmac over the MD2 above) of the identity and
    the devices with cassc's key: the construction the runtime verifies."""
    assert Md2(b"abc").digest().hex() == "da853b0d3f88d99b30283a69e6ded6bb"
    write(tmp_path / "hash.cpp", r"""
#include "integrity_hash.h"
#include <cstdio>
int main() {
  cassc::Md2 md2;
  md2.update("message digest", 14);
  unsigned char digest[16];
  md2.finish(digest);
  for (unsigned char byte : digest) std::printf("%02x", byte);
  cassc::IntegrityIdentity identity{13000, 12082, 4242, 0x5ca1ab1e, (const void *)0x1000, (const void *)0x2000,
                                    (const void *)0x3000, 1700000000};
  cassc::IntegrityDevice devices[2] = {{{1, 2, 3}, 0, 65, 0}, {{9}, 1, 2, 3}};
  uint64_t result[2];
  cassc::integrity_hash(identity, devices, 2, result);
  const unsigned char *bytes = reinterpret_cast<const unsigned char *>(result);
  std::printf(" ");
  for (int i = 0; i < 16; ++i) std::printf("%02x", bytes[i]);
  std::printf(" ");
  for (int i = 0; i < 48; ++i) std::printf("%02x", reinterpret_cast<const unsigned char *>(&identity)[i]);
  for (int i = 0; i < 56; ++i) std::printf("%02x", reinterpret_cast<const unsigned char *>(devices)[i]);
  std::printf("\n");
}
""")
    subprocess.run(["g++", "-std=c++17", f"-I{DRIVER_SOURCES}", "hash.cpp", "-o", "hash"], cwd=tmp_path, check=True)
    md2, ours, message = subprocess.run(["./hash"], cwd=tmp_path, capture_output=True, text=True,
                                        check=True).stdout.split()
    assert md2 == "ab4f496bfb2a530b219ff33031fe06b0"
    key = bytes.fromhex("146addae53a9a752aa0841360bf55a9f")
    assert ours == hmac.new(key, bytes.fromhex(message), Md2).digest().hex()


@needs_nvcc
def test_a_static_runtime_program_gets_through_the_handshake_to_no_device(cassc, tmp_path: Path) -> None:
    """nvcc's default static cudart, run by `cassc run`, finds cassc's libcuda: every driver name it asks for is
    answered and its first call reports cudaErrorNoDevice (no GPU here), not cudaErrorInsufficientDriver."""
    write(tmp_path / "program.cu", PROGRAM)
    subprocess.run([str(NVCC), "-arch=sm_80", "program.cu", "-o", "program"], cwd=tmp_path, check=True)
    alone = subprocess.run(["./program"], cwd=tmp_path, capture_output=True, text=True,
                           env={"LD_LIBRARY_PATH": str(tmp_path)})
    assert alone.stdout.split() == ["35", "cudaErrorInsufficientDriver"]  # no driver at all here
    log = tmp_path / "driver.log"
    result = cassc("run", "program", env={"CASSC_DRIVER_LOG": str(log)}, check=False)
    assert result.stdout.split() == ["100", "cudaErrorNoDevice"], result.stderr
    asked = [line.split(" ") for line in log.read_text().splitlines() if line.startswith("proc ")]
    names = {fields[1] for fields in asked}
    assert len(names) > 300 and "cuLibraryLoadData" in names and "cuLaunchKernelEx" in names
    assert [fields[1] for fields in asked if fields[-1] != "0"] == [""]  # only the runtime's probe of an empty name


def test_the_toolkits_libcuda_defines_every_driver_symbol(cassc) -> None:
    """Built with the toolkit from the HIP it finds (HIP 5.2 here, 6.4 in the sid root): every symbol of the
    table is defined, so every answer of cuGetProcAddress is a function of the library."""
    exports = dict(line.removeprefix("export ").split("=", 1) for line in cassc("env").stdout.splitlines())
    library = Path(exports["CUDA_PATH"]) / "lib64" / "cassc-run" / "libcuda.so.1"
    exported = set(subprocess.run(["nm", "-D", "--defined-only", "--format=just-symbols", str(library)],
                                  capture_output=True, text=True, check=True).stdout.split())
    assert set(driver_symbols(read_api())) <= exported
    assert {"cuGetProcAddress_v2", "cuGetExportTable", "cuLibraryLoadData", "cuLaunchKernelEx"} <= exported



def test_each_symbol_is_cassc_s_own_a_hip_twin_or_cudas_not_supported() -> None:
    from cassc.binary.driver_api import DriverApi, DriverEntry, driver_entries

    api = DriverApi(13000, (DriverEntry("cuMemAlloc", 2000, "", "cuMemAlloc"),
                            DriverEntry("cuMemAlloc", 3020, "", "cuMemAlloc_v2"),
                            DriverEntry("cuMemcpyHtoD", 3020, "", "cuMemcpyHtoD_v2"),
                            DriverEntry("cuMemcpyHtoD", 7000, "_ptds", "cuMemcpyHtoD_v2_ptds"),
                            DriverEntry("cuLaunchKernel", 4000, "", "cuLaunchKernel"),
                            DriverEntry("cuLaunchKernel", 7000, "_ptsz", "cuLaunchKernel_ptsz"),
                            DriverEntry("cuStreamQuery", 2000, "", "cuStreamQuery"),
                            DriverEntry("cuStreamQuery", 7000, "_ptsz", "cuStreamQuery_ptsz")), ())
    twins = {"cuMemAlloc": "hipMalloc", "cuMemcpyHtoD": "hipMemcpyHtoD", "cuStreamQuery": "hipStreamQuery"}
    exported = {"hipMalloc", "hipMemcpyHtoD", "hipStreamQuery", "hipStreamQuery_spt"}
    jumps, stubs = driver_entries(api, {"cuLaunchKernel"}, twins, exported)
    assert sorted(jumps) == [("cuLaunchKernel_ptsz", "cuLaunchKernel"), ("cuMemAlloc_v2", "hipMalloc"),
                             ("cuMemcpyHtoD_v2", "hipMemcpyHtoD"), ("cuMemcpyHtoD_v2_ptds", "hipMemcpyHtoD"),
                             ("cuStreamQuery", "hipStreamQuery"), ("cuStreamQuery_ptsz", "hipStreamQuery_spt")]
    assert stubs == [("cuMemAlloc", 801)]  # the 32-bit ABI of CUDA 2.0 has no twin


# NVIDIA's driver as far as cassc's driver in front of it reaches it here (no GPU): one device with a primary
# context, its identity, and the reset.
STAND_IN_DRIVER = r"""
extern "C" {
char primary;
static void *current = &primary;
int reset_calls = 0;
int cuDriverGetVersion(int *version) { *version = 13000; return 0; }
int cuDeviceGetCount(int *count) { *count = 1; return 0; }
int cuDeviceGetUuid_v2(unsigned char *uuid, int) { for (int i = 0; i < 16; ++i) uuid[i] = 16 * i + 1; return 0; }
int cuDeviceGetAttribute(int *value, int attribute, int) { *value = attribute + 1000; return 0; }
int cuDevicePrimaryCtxRetain(void **context, int) { *context = &primary; return 0; }
int cuDevicePrimaryCtxRelease_v2(int) { return 0; }
int cuDevicePrimaryCtxReset_v2(int) { ++reset_calls; return 0; }
int cuCtxGetCurrent(void **context) { *context = current; return 0; }
}
"""

# What NVIDIA's runtime does with the driver, and what it checks.
HANDSHAKE = r"""
#include <dlfcn.h>
#include <pthread.h>
#include <unistd.h>
#include <cstdio>
#include <cstring>
#include <ctime>
#include "integrity_hash.h"
typedef int (*GetProc)(const char *, void **, int, unsigned long long, int *);
typedef int (*GetTable)(const void **, const unsigned char *);
static const unsigned char runtime_id[16] = {0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a,
                                             0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d, 0xf9};
static const unsigned char storage_id[16] = {0xc6, 0x93, 0x33, 0x6e, 0x11, 0x21, 0xdf, 0x11,
                                             0xa8, 0xc3, 0x68, 0xf3, 0x55, 0xd8, 0x95, 0x93};
static const unsigned char integrity_id[16] = {0xd4, 0x08, 0x20, 0x55, 0xbd, 0xe6, 0x70, 0x4b,
                                               0x8d, 0x34, 0xba, 0x12, 0x3c, 0x66, 0xe1, 0xf2};
static const unsigned char unknown_id[16] = {0xf8, 0xcf, 0xf9, 0x51, 0x21, 0x46, 0x8b, 0x4e,
                                             0xb9, 0xe2, 0xfb, 0x46, 0x9e, 0x7c, 0x0d, 0xd9};
static void *destroyed[3];
static void destructor(void *context, void *key, void *value) {
  destroyed[0] = context, destroyed[1] = key, destroyed[2] = value;
}
static const char *symbol_of(void *function) {
  Dl_info info;
  return function && dladdr(function, &info) && info.dli_sname ? info.dli_sname : "-";
}
int main(int, char **argv) {
  void *driver = dlopen("libcuda.so.1", RTLD_NOW);
  void *nvidia = dlopen(argv[1], RTLD_NOW | RTLD_NOLOAD);
  GetProc get_proc = (GetProc)dlsym(driver, "cuGetProcAddress_v2");
  const struct { const char *name; int version; unsigned long long flags; } asked[] = {
      {"cuMemAlloc", 3020, 0}, {"cuMemAlloc", 13000, 0}, {"cuMemAlloc", 2000, 0}, {"cuMemAlloc", 1000, 0},
      {"cuMemcpy", 7000, 2}, {"cuMemcpy", 7000, 1}, {"cuMemcpy", 6050, 2}, {"cuNoSuchFunction", 13000, 0},
      {"cuGetProcAddress", 12000, 0}, {"cuGetProcAddress", 11030, 0}};
  for (const auto &question : asked) {
    void *function = nullptr;
    int status = -1;
    int result = get_proc(question.name, &function, question.version, question.flags, &status);
    std::printf("%s %d %llu: %d %d %s\n", question.name, question.version, question.flags, result, status,
                symbol_of(function));
  }
  GetTable get_table;
  get_proc("cuGetExportTable", (void **)&get_table, 3000, 0, nullptr);
  const void **runtime, **storage, **integrity, **unknown;
  get_table((const void **)&runtime, runtime_id);
  get_table((const void **)&storage, storage_id);
  get_table((const void **)&integrity, integrity_id);
  std::printf("unknown table: %d\n", get_table((const void **)&unknown, unknown_id));
  void *context = nullptr;
  ((int (*)(void **, int))runtime[2])(&context, 0);
  std::printf("runtime table: %zu bytes, primary context %d\n", (size_t)runtime[0],
              context == dlsym(nvidia, "primary"));
  int key = 0, value = 0;
  void *got = nullptr;
  ((int (*)(void *, void *, void *, void *))storage[0])(nullptr, &key, &value, (void *)destructor);
  int found = ((int (*)(void **, void *, void *))storage[2])(&got, context, &key);
  std::printf("stored: %d %d\n", found, got == &value);
  ((int (*)(int))dlsym(driver, "cuDevicePrimaryCtxReset_v2"))(0);
  std::printf("reset: destructor %d, nvidia's reset %d, then %d\n",
              destroyed[0] == context && destroyed[1] == &key && destroyed[2] == &value,
              *(int *)dlsym(nvidia, "reset_calls"), ((int (*)(void **, void *, void *))storage[2])(&got, 0, &key));
  unsigned long long hash[2];
  const unsigned long long seconds = time(nullptr);
  ((int (*)(unsigned, unsigned long long, unsigned long long *))integrity[1])(13002, seconds, hash);
  cassc::IntegrityDevice device;
  for (int i = 0; i < 16; ++i) device.uuid[i] = 16 * i + 1;
  device.pci_domain = 1050, device.pci_bus = 1033, device.pci_device = 1034;
  cassc::IntegrityIdentity identity{13000, 13002, (uint32_t)getpid(), (uint32_t)pthread_self(), runtime, integrity,
                                    integrity[1], seconds};
  uint64_t expected[2];
  cassc::integrity_hash(identity, &device, 1, expected);
  std::printf("integrity: %d\n", hash[0] == expected[0] && hash[1] == expected[1]);
}
"""


def test_cuGetProcAddress_and_the_export_tables_answer_as_cuda_does(tmp_path: Path) -> None:
    """cassc's driver in front of a stand-in for NVIDIA's: cuGetProcAddress's choice by version and flags and its
    statuses; the runtime interface's size and primary context; context-local storage with its destructor called
    when the primary context is reset; the integrity hash of what the driver API reports; an unknown table
    refused."""
    from cassc.binary.nvidia_check import build_driver_over_nvidia

    write(tmp_path / "nvidia.cpp", STAND_IN_DRIVER)
    subprocess.run(["g++", "-shared", "-fPIC", "nvidia.cpp", "-o", "nvidia_libcuda.so"], cwd=tmp_path, check=True)
    write(tmp_path / "handshake.cpp", HANDSHAKE)
    subprocess.run(["g++", "-std=c++17", f"-I{DRIVER_SOURCES}", "handshake.cpp", "-o", "handshake", "-ldl",
                    "-lpthread"], cwd=tmp_path, check=True)
    build_driver_over_nvidia(tmp_path / "driver", tmp_path)
    done = subprocess.run(["./handshake", str(tmp_path / "nvidia_libcuda.so")], cwd=tmp_path, capture_output=True,
                          text=True, check=True,
                          env={"LD_LIBRARY_PATH": str(tmp_path / "driver"),
                               "CASSC_REAL_LIBCUDA": str(tmp_path / "nvidia_libcuda.so")})
    assert done.stdout.splitlines() == [
        "cuMemAlloc 3020 0: 0 0 cuMemAlloc_v2", "cuMemAlloc 13000 0: 0 0 cuMemAlloc_v2",
        "cuMemAlloc 2000 0: 0 0 cuMemAlloc", "cuMemAlloc 1000 0: 500 2 -",  # CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT
        "cuMemcpy 7000 2: 0 0 cuMemcpy_ptds", "cuMemcpy 7000 1: 0 0 cuMemcpy", "cuMemcpy 6050 2: 500 2 -",
        "cuNoSuchFunction 13000 0: 500 1 -",  # CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND
        "cuGetProcAddress 12000 0: 0 0 cuGetProcAddress_v2", "cuGetProcAddress 11030 0: 0 0 cuGetProcAddress",
        "unknown table: 1", "runtime table: 104 bytes, primary context 1", "stored: 0 1",
        "reset: destructor 1, nvidia's reset 1, then 400", "integrity: 1"]


COPY_FIELDS = ["srcXInBytes", "srcY", "srcMemoryType", "srcHost", "srcDevice", "srcArray", "srcPitch", "dstXInBytes",
               "dstY", "dstMemoryType", "dstHost", "dstDevice", "dstArray", "dstPitch", "WidthInBytes", "Height"]
LAYOUTS = {"CUDA_MEMCPY2D": ("CudaCopy2D", COPY_FIELDS),
           "CUDA_MEMCPY3D": ("CudaCopy3D", COPY_FIELDS + ["srcZ", "srcLOD", "srcHeight", "dstZ", "dstLOD", "dstHeight",
                                                          "Depth"])}


@needs_nvcc
def test_the_copies_cuda_describes_have_cudas_layout(tmp_path: Path) -> None:
    """The structs cassc's driver reads where NVIDIA's runtime passes CUDA's: offsets and sizes as in cuda.h."""
    from cassc.toolchain import find_toolchain

    prints = [f'std::printf("{c} {f} %zu\\n", offsetof({c}, {f}));' for c, (_, fields) in LAYOUTS.items()
              for f in fields] + [f'std::printf("{c} sizeof %zu\\n", sizeof({c}));' for c in LAYOUTS]
    write(tmp_path / "cuda.cpp", f"#include <cstdio>\n#include <cstddef>\n#include <cuda.h>\nint main() {{ "
                                 f"{''.join(prints)} }}\n")
    subprocess.run(["g++", "cuda.cpp", f"-I{CUDA_INCLUDE}", "-o", "cuda"], cwd=tmp_path, check=True)
    checks = []
    for line in subprocess.run(["./cuda"], cwd=tmp_path, capture_output=True, text=True, check=True).stdout.split("\n"):
        if line:
            cuda, field, value = line.split()
            ours = LAYOUTS[cuda][0]
            checks.append(f"static_assert(sizeof({ours}) == {value});" if field == "sizeof" else
                          f"static_assert(offsetof({ours}, {field}) == {value});")
    write(tmp_path / "ours.cpp", f'#include <cstddef>\n#include "{DRIVER_SOURCES / "cassc_cuda.cpp"}"\n'
                                 "namespace {\n" + "\n".join(checks) + "\n}\n")
    toolchain = find_toolchain()
    subprocess.run([str(toolchain.clang), "-x", "c++", "-std=c++17", "-fsyntax-only", "-D__HIP_PLATFORM_AMD__",
                    f"-I{toolchain.hip_include_dir.parent}", "-Wno-invalid-offsetof", "ours.cpp"], cwd=tmp_path,
                   check=True)
    assert len(checks) == len(COPY_FIELDS) * 2 + 7 + 2
