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
