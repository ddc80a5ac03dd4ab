"""cassc's check libcuda.so.1 (shims/nvidia-check): whole nvcc-built binaries checked on NVIDIA's driver.

No GPU here: NVIDIA's driver is stood in for by a small library with the same entry points (the private
export table CUDA's runtime loads fatbins through, cuGetProcAddress, a public loader), so what the check
driver hands on can be seen. The run on a real GPU is benchmarks/whole_binary.py."""

from __future__ import annotations

import hashlib
import os
import struct
import subprocess
from pathlib import Path

import pytest

from cassc.binary.nvidia_check import WRAPPED, build_check_driver, forwarded_names, nvptx_containers

NVCC = Path("/usr/local/cuda/bin/nvcc")
needs_nvcc = pytest.mark.skipif(not NVCC.exists(), reason="needs NVIDIA's nvcc")

CUDART_INTERFACE = "6bd5fb6c5bf4e74a8987d93912fd9df9"
OTHER_TABLE = "c693336e1121df11a8c368f355d89593"

# NVIDIA's driver, as far as the check driver reaches it: the loaders report the container they were handed;
# the other table's entry 1 takes many arguments, floating point among them.
FAKE_DRIVER = r'''
#include <cstring>
#include <cstdint>
extern "C" {
const void *last_image;
static int from_wrapper(void **module, const void *wrapper) {
  last_image = *reinterpret_cast<const void *const *>(static_cast<const char *>(wrapper) + 8);
  *module = const_cast<void *>(last_image);
  return 0;
}
static int from_container(const void *container, void **module, void *, void *, unsigned) {
  last_image = container;
  *module = const_cast<void *>(container);
  return 0;
}
static long many(long a, long b, long c, long d, long e, long f, double x, long g) {
  return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + static_cast<long>(x * 100);
}
static const void *interface[13] = {reinterpret_cast<const void *>(13 * sizeof(void *)),
                                    reinterpret_cast<const void *>(from_wrapper), 0, 0, 0, 0, 0, 0,
                                    reinterpret_cast<const void *>(from_container), 0, 0, 0, 0};
static const void *other[3] = {reinterpret_cast<const void *>(3 * sizeof(void *)),
                                reinterpret_cast<const void *>(many), &last_image};
int cuGetExportTable(const void **table, const unsigned char *id) {
  static const unsigned char interface_id[16] = {0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a,
                                                 0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d, 0xf9};
  *table = std::memcmp(id, interface_id, 16) == 0 ? interface : other;
  return 0;
}
int cuModuleLoadData(void **module, const void *image) { last_image = image; *module = 0; return 0; }
int cuGetProcAddress_v2(const char *name, void **function, int, unsigned long long, int *) {
  *function = std::strcmp(name, "cuGetExportTable") == 0 ? reinterpret_cast<void *>(cuGetExportTable)
            : std::strcmp(name, "cuModuleLoadData") == 0 ? reinterpret_cast<void *>(cuModuleLoadData) : nullptr;
  return *function ? 0 : 500;
}
int cuInit(unsigned) { return 0; }
}
'''

# What CUDA's runtime does: dlopen libcuda.so.1, resolve through cuGetProcAddress_v2, load through the table.
PROGRAM = r'''
#include <dlfcn.h>
#include <cstdio>
#include <cstring>
#include <cstdint>
typedef int (*GetProc)(const char *, void **, int, unsigned long long, int *);
typedef int (*GetTable)(const void **, const unsigned char *);
int main(int, char **argv) {
  void *driver = dlopen("libcuda.so.1", RTLD_NOW);
  void *fake = dlopen(argv[1], RTLD_NOW | RTLD_NOLOAD);
  GetProc get_proc = (GetProc)dlsym(driver, "cuGetProcAddress_v2");
  GetTable get_table;
  get_proc("cuGetExportTable", (void **)&get_table, 13000, 0, 0);
  const unsigned char interface_id[16] = {0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a,
                                          0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d, 0xf9};
  const unsigned char other_id[16] = {0xc6, 0x93, 0x33, 0x6e, 0x11, 0x21, 0xdf, 0x11,
                                      0xa8, 0xc3, 0x68, 0xf3, 0x55, 0xd8, 0x95, 0x93};
  const void **table;
  get_table((const void **)&table, interface_id);
  static unsigned char container[32] = {0x50, 0xed, 0x55, 0xba, 1, 0, 16, 0, 16};
  std::memcpy(container + 16, "original bytes!", 16);
  struct { int magic, version; const void *data, *unused; } wrapper = {0x466243b1, 1, container, 0};
  void *module;
  ((int (*)(void **, const void *))table[1])(&module, &wrapper);
  std::printf("entry 1 got: %.16s\n", (const char *)module + 16);
  ((int (*)(const void *, void **, void *, void *, unsigned))table[8])(container, &module, 0, 0, 0);
  std::printf("entry 8 got: %.16s\n", (const char *)module + 16);
  get_table((const void **)&table, other_id);
  long got = ((long (*)(long, long, long, long, long, long, double, long))table[1])(1, 2, 3, 4, 5, 6, 0.5, 8);
  std::printf("many: %ld, data entry kept: %d\n", got, table[2] == dlsym(fake, "last_image"));
}
'''


def build(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "fake.cpp").write_text(FAKE_DRIVER)
    subprocess.run(["g++", "-shared", "-fPIC", "fake.cpp", "-o", "nvidia_libcuda.so"], cwd=tmp_path, check=True)
    (tmp_path / "program.cpp").write_text(PROGRAM)
    subprocess.run(["g++", "program.cpp", "-o", "program", "-ldl"], cwd=tmp_path, check=True)
    build_check_driver(tmp_path / "driver", tmp_path)
    return {**os.environ, "LD_LIBRARY_PATH": str(tmp_path / "driver"),
            "CASSC_REAL_LIBCUDA": str(tmp_path / "nvidia_libcuda.so"), "CASSC_NVPTX_DIR": str(tmp_path / "nvptx"),
            "CASSC_CHECK_LOG": str(tmp_path / "check.log")}


@needs_nvcc
def test_the_check_driver_hands_nvidias_driver_the_replacement_of_each_container_it_is_given(tmp_path: Path) -> None:
    environment = build(tmp_path)
    container = struct.pack("<IHHQ", 0xBA55ED50, 1, 16, 16) + b"original bytes!\0"
    (tmp_path / "nvptx").mkdir()
    replacement = struct.pack("<IHHQ", 0xBA55ED50, 1, 16, 16) + b"replacement ok!\0"
    digest = hashlib.sha256(container).hexdigest()
    (tmp_path / "nvptx" / f"{digest}.fatbin").write_bytes(replacement)
    done = subprocess.run(["./program", str(tmp_path / "nvidia_libcuda.so")], cwd=tmp_path, env=environment,
                          capture_output=True, text=True, check=True)
    assert done.stdout.splitlines()[:2] == ["entry 1 got: replacement ok!", "entry 8 got: replacement ok!"]
    log = (tmp_path / "check.log").read_text().splitlines()
    assert f"replaced {digest}" in log and "proc cuGetExportTable 13000 0" in log
    assert f"export-table {CUDART_INTERFACE} 0" in log and f"export-table {OTHER_TABLE} 0" in log
    # Not traced: the other table is NVIDIA's own, untouched.
    assert "many: 197, data entry kept: 1" in done.stdout and not any(line.startswith("entry ") for line in log)
    # Every entry point CUDA's header declares is the check driver's own or a forward to NVIDIA's.
    exported = set(subprocess.run(["nm", "-D", "--defined-only", "--format=just-symbols", "driver/libcuda.so.1"],
                                  cwd=tmp_path, capture_output=True, text=True, check=True).stdout.split())
    declared = set(forwarded_names(Path("/usr/local/cuda/include/cuda.h"), tmp_path))
    assert len(declared) >= 400 and declared | WRAPPED <= exported


@needs_nvcc
def test_tracing_logs_each_export_table_entry_called_and_keeps_its_arguments(tmp_path: Path) -> None:
    environment = build(tmp_path)
    done = subprocess.run(["./program", str(tmp_path / "nvidia_libcuda.so")], cwd=tmp_path,
                          env={**environment, "CASSC_CHECK_TRACE": "1"}, capture_output=True, text=True, check=True)
    # 1 + 2*2 + 3*3 + 4*4 + 5*5 + 6*6 + 7*8 + 0.5*100: every integer register, the stack and xmm0 passed on.
    assert "many: 197, data entry kept: 1" in done.stdout, done.stdout
    assert "entry 1 got: original bytes!" in done.stdout  # tracing replaces nothing
    log = (tmp_path / "check.log").read_text().splitlines()
    assert f"entry {CUDART_INTERFACE} 1" in log and f"entry {CUDART_INTERFACE} 8" in log
    assert f"entry {OTHER_TABLE} 1" in log and f"entry {OTHER_TABLE} 2" not in log


@needs_nvcc
def test_nvptx_replacements_are_named_as_cassc_translate_names_the_containers(cassc, tmp_path: Path) -> None:
    import json

    (tmp_path / "scale.cu").write_text(
        "__global__ void scale(float *x, float f) { x[threadIdx.x] *= f; }\n"
        "int main() { float *x; cudaMalloc(&x, 128); scale<<<1, 32>>>(x, 2.0f); cudaDeviceSynchronize(); }\n")
    subprocess.run([str(NVCC), "-arch=sm_90", "scale.cu", "-o", "program"], cwd=tmp_path, check=True)
    checked = nvptx_containers(tmp_path / "program", tmp_path / "nvptx", tmp_path)
    assert [(c.kernels, c.failure) for c in checked] == [(1, None)]
    cassc("translate", "program", "-o", "translated")
    manifest = json.loads((tmp_path / "translated" / f"{checked[0].digest}.json").read_text())
    assert [k["name"] for k in manifest["kernels"]] == ["_Z5scalePff"]
    replacement = (tmp_path / "nvptx" / f"{checked[0].digest}.fatbin").read_bytes()
    assert replacement[:4] == struct.pack("<I", 0xBA55ED50)
    from cassc.formats.cuda_fatbin import read_containers

    [entry] = [e for c in read_containers(replacement) for e in c.entries]
    assert (entry.kind, entry.arch) == ("elf", 90)


@needs_nvcc
def test_cassc_run_check_on_nvidia_puts_the_check_driver_between_a_static_runtime_program_and_the_driver(
        cassc, tmp_path: Path) -> None:
    """nvcc's default static cudart reaches the check driver, which reaches the driver the loader would find
    (the stand-in here, first on LD_LIBRARY_PATH as NVIDIA's)."""
    environment = build(tmp_path)
    (tmp_path / "nvidia").mkdir()
    (tmp_path / "nvidia_libcuda.so").rename(tmp_path / "nvidia" / "libcuda.so.1")
    (tmp_path / "scale.cu").write_text(
        "#include <cstdio>\n__global__ void scale(float *x, float f) { x[threadIdx.x] *= f; }\n"
        "int main() { float *x; printf(\"%s\\n\", cudaGetErrorName(cudaMalloc(&x, 128))); }\n")
    subprocess.run([str(NVCC), "-arch=sm_90", "scale.cu", "-o", "program"], cwd=tmp_path, check=True)
    result = cassc("run", "--check-on-nvidia", "program", check=False,
                   env={"LD_LIBRARY_PATH": str(tmp_path / "nvidia"), "CASSC_CHECK_LOG": environment["CASSC_CHECK_LOG"]})
    assert "cassc run: 1 of 1 fatbin(s) with kernels replaced by their translation lowered to NVPTX" in result.stderr
    log = (tmp_path / "check.log").read_text().splitlines()
    assert any(line.startswith("proc ") for line in log), log  # the runtime asked the check driver
    assert result.stdout.startswith("cuda"), result.stdout  # and reported what the stand-in answered
    refused = cassc("run", "--check-on-nvidia", "program", check=False, env={"LD_LIBRARY_PATH": ""})
    assert refused.returncode == 1 and "NVIDIA's driver (libcuda.so.1) is not installed here" in refused.stderr
