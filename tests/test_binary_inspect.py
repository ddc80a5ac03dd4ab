"""The binary path's reader: CUDA fatbins in objects, libraries and executables built by the real nvcc."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from cassc.binary.extract import read_binary
from cassc.errors import InputError
from cassc.formats.cuda_fatbin import FatbinFormatError, read_containers

from conftest import write

NVCC = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
pytestmark = pytest.mark.skipif(not Path(NVCC).exists(), reason="NVIDIA's nvcc is not installed")

KERNELS = r"""
__constant__ float scale_c[4];
__device__ int counter;
__global__ void axpy(float a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i] * scale_c[0];
}
template <typename T> __global__ void reduce(const T *in, T *out, int n) {
  __shared__ T buf[256];
  int t = threadIdx.x;
  buf[t] = t < n ? in[t] : T(0);
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) { if (t < s) buf[t] += buf[t + s]; __syncthreads(); }
  if (t == 0) { atomicAdd(out, buf[0]); atomicAdd(&counter, 1); }
}
template __global__ void reduce<float>(const float*, float*, int);
struct P { double d; char c; int k[3]; };
extern "C" __global__ void structk(P p, double *o) { o[threadIdx.x] = p.d + p.c + p.k[threadIdx.x % 3]; }
"""
AXPY = "_Z4axpyfPKfPfi"
REDUCE = "_Z6reduceIfEvPKT_PS0_i"
MODES = {
    "sm_80": ["-arch=sm_80"],
    "sm_86": ["-arch=sm_86"],
    "sm_89": ["-arch=sm_89"],
    "sm_90": ["-arch=sm_90"],
    "gencode": ["-gencode", "arch=compute_80,code=sm_80", "-gencode", "arch=compute_90,code=[sm_90,compute_90]"],
    "rdc": ["-arch=sm_86", "-rdc=true"],
    "no-compress": ["-arch=sm_86", "--no-compress"],
}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    directory = tmp_path_factory.mktemp("nvcc")
    write(directory / "k.cu", KERNELS)
    objects = {}
    for mode, flags in MODES.items():
        objects[mode] = directory / f"{mode}.o"
        subprocess.run([NVCC, *flags, "-c", "k.cu", "-o", objects[mode].name], cwd=directory, check=True)
    write(directory / "main.cu", "int main() { return 0; }\n")
    subprocess.run([NVCC, "-arch=sm_86", "k.cu", "main.cu", "-o", "app"], cwd=directory, check=True)
    subprocess.run(["ar", "qc", "libk.a", objects["sm_86"].name, objects["sm_90"].name], cwd=directory, check=True)
    subprocess.run([NVCC, "-arch=sm_89", "-shared", "-Xcompiler", "-fPIC", "k.cu", "-o", "libk.so"], cwd=directory,
                   check=True)
    objects["app"] = directory / "app"
    objects["shared"] = directory / "libk.so"
    objects["archive"] = directory / "libk.a"
    return objects


@pytest.mark.parametrize("mode", list(MODES))
def test_every_nvcc_mode_gives_its_kernels_with_their_parameter_layout(built: dict[str, Path], mode: str) -> None:
    (module,) = read_binary(built[mode])
    kernels = {k.name: k for k in module.kernels}
    assert set(kernels) == {AXPY, REDUCE, "structk"}
    axpy = kernels[AXPY]
    assert [(p.offset, p.size) for p in axpy.params] == [(0, 4), (8, 8), (16, 8), (24, 4)]
    assert axpy.param_size == 28 and axpy.host_stub == AXPY and axpy.registers > 0
    assert [(p.offset, p.size) for p in kernels["structk"].params] == [(0, 24), (24, 8)]
    assert kernels["structk"].host_stub == "structk"  # extern "C": the plain name on both sides
    assert kernels[REDUCE].ptx_archs, "nvcc embeds PTX by default"
    if mode != "rdc":  # -rdc puts shared variables in their own sections, not the kernel's
        assert kernels[REDUCE].shared_size >= 1024
    sections = {i.section for i in module.images}
    assert sections == ({"__nv_relfatbin"} if mode == "rdc" else {".nv_fatbin"})
    compressions = {i.entry.compression for i in module.images if i.entry.kind == "ptx"}
    assert compressions == ({"none"} if mode == "no-compress" else {"zstd"})


def test_gencode_lists_give_one_cubin_per_arch(built: dict[str, Path]) -> None:
    (module,) = read_binary(built["gencode"])
    assert sorted((i.entry.kind, i.entry.arch) for i in module.images) == [("elf", 80), ("elf", 90), ("ptx", 90)]
    assert f".entry {AXPY}" in module.best_ptx()  # type: ignore[operator]


def test_rdc_ptx_records_its_ptxas_options(built: dict[str, Path]) -> None:
    (module,) = read_binary(built["rdc"])
    assert [i.entry.options for i in module.ptx_images()] == ["--compile-only"]


def test_executables_hold_one_container_per_translation_unit(built: dict[str, Path]) -> None:
    (module,) = read_binary(built["app"])
    assert len({i.container for i in module.images}) >= 2  # the static cudart brings its own
    assert AXPY in {k.name for k in module.kernels}


def test_shared_libraries_are_read_like_executables(built: dict[str, Path]) -> None:
    (module,) = read_binary(built["shared"])
    assert {i.entry.arch for i in module.images} == {89}
    assert {AXPY, REDUCE, "structk"} <= {k.name for k in module.kernels if k.host_stub}


def test_static_library_members_are_read_one_by_one(built: dict[str, Path]) -> None:
    modules = read_binary(built["archive"])
    assert [m.origin.rsplit("(", 1)[1] for m in modules] == ["sm_86.o)", "sm_90.o)"]


def test_inspect_command_prints_kernels_and_json(built: dict[str, Path], cassc) -> None:
    table = cassc("inspect", str(built["sm_86"]), env={"COLUMNS": "250"})  # rich folds to the terminal
    assert "structk" in table.stdout and "compute_86" in table.stdout
    report = json.loads(cassc("inspect", "--json", "--ptx", str(built["gencode"])).stdout)
    (module,) = report
    assert {k["name"] for k in module["kernels"]} == {AXPY, REDUCE, "structk"}
    assert ".entry structk" in module["ptx"][0]


def test_inspect_shows_sass_through_cuobjdump(built: dict[str, Path], cassc) -> None:
    assert "FFMA" in cassc("inspect", "--sass", str(built["sm_86"])).stdout


def test_inspect_names_a_file_that_is_not_a_binary(tmp_path: Path, cassc) -> None:
    result = cassc("inspect", str(write(tmp_path / "k.cu", KERNELS)), check=False)
    assert result.returncode == 1 and "neither an ELF file nor a static library" in result.stderr


def _fatbin_section(path: Path) -> bytes:
    from cassc.formats.host_object import read_host_object

    ((_, contents),) = read_host_object(path.read_bytes()).cuda_fatbins
    return contents


@pytest.mark.parametrize("mode", ["sm_86", "rdc", "no-compress"])
def test_truncated_fatbins_are_rejected_clearly(built: dict[str, Path], mode: str) -> None:
    section = _fatbin_section(built[mode])
    for cut in range(1, len(section), max(1, len(section) // 97)):
        with pytest.raises(FatbinFormatError):
            read_containers(section[:cut])


@pytest.mark.parametrize("mode", ["sm_86", "rdc", "gencode"])
def test_corrupted_fatbins_and_objects_fail_only_with_a_clear_error(built: dict[str, Path], mode: str,
                                                                   tmp_path: Path) -> None:
    data = built[mode].read_bytes()
    rng = random.Random(mode)
    for attempt in range(150):
        corrupt = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            corrupt[rng.randrange(len(corrupt))] = rng.randrange(256)
        if attempt % 3 == 0:
            corrupt = corrupt[:rng.randrange(len(corrupt))]
        target = tmp_path / f"corrupt{attempt}.o"
        target.write_bytes(bytes(corrupt))
        try:
            read_binary(target)
        except InputError as error:
            assert str(target) in str(error)


def test_corrupt_compressed_payload_is_named(built: dict[str, Path]) -> None:
    section = bytearray(_fatbin_section(built["rdc"]))
    frame = section.find(b"\x28\xb5\x2f\xfd")  # the ZSTD magic of the first compressed entry
    section[frame + 8:frame + 24] = bytes(16)
    with pytest.raises(FatbinFormatError, match="corrupt compressed payload|expanded to"):
        read_containers(bytes(section))
