"""Textures, surfaces and tensor-core instructions on the SASS route: SASS-only objects nvcc builds for sm_80 and
sm_90 (every texture and surface construct of test_binary_textures.py, the warp matrix operations of
test_binary_matrices.py) translated into validated gfx1100 code objects through the same core as PTX
(binary/images.py, binary/matrices.py), and the NVPTX lowering of the lifted SASS assembled by ptxas into the
original's texture, surface and matrix instructions."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from cassc.binary.codegen import nvptx_assembly
from cassc.binary.emit import NVPTX
from cassc.binary.extract import read_binary, sass_text
from cassc.binary.sass_translate import lift_modules_sass, translate_sass
from cassc.formats.code_object import code_object_target
from cassc.toolchain import find_toolchain

from conftest import write
from test_binary_matrices import WMMA
from test_binary_textures import CONSTRUCTS

NVCC = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
PTXAS = Path(NVCC).with_name("ptxas")
pytestmark = pytest.mark.skipif(not PTXAS.exists(), reason="NVIDIA's nvcc and ptxas are not installed")

ARCHS = (80, 90)
IMAGE_OPCODES = re.compile(r"\b(TEX|TLD|TLD4|TXD|TXQ|SULD|SUST)\b")
MATRIX_KERNELS = WMMA.split("__global__ void tf32")[0]  # tf32 has no gfx1100 WMMA (refused on both routes)
REFUSED = r"""
#include <mma.h>
using namespace nvcuda;
__global__ void integer_mma(const signed char *a, const signed char *b, int *c) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, int> fc;
  wmma::fill_fragment(fc, 0);
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
}
"""


# Handles the kernel loads from memory: an array in global memory, a struct parameter indexed at run time (local
# memory), a surface: sm_80's TEX.B/TLD.B/TLD4.B/TXQ.B and SULD/SUST of a register, sm_90's uniform registers
# moved from the loaded word (R2UR).
BINDLESS = (Path(__file__).resolve().parent.parent / "benchmarks" / "breadth" / "textures_bindless.cu").read_text() \
    .split("static cudaTextureObject_t texture")[0]


def sass_only(directory: Path, name: str, source: str, arch: int) -> Path:
    write(directory / f"{name}.cu", source)
    subprocess.run([NVCC, "-gencode", f"arch=compute_{arch},code=sm_{arch}", "-c", f"{name}.cu", "-o",
                    f"{name}{arch}.o"], cwd=directory, check=True)
    return directory / f"{name}{arch}.o"


@pytest.fixture(scope="module")
def objects(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, int], Path]:
    directory = tmp_path_factory.mktemp("sass-images")
    return {(name, arch): sass_only(directory, name, source, arch)
            for name, source in (("textures", CONSTRUCTS), ("matrices", MATRIX_KERNELS), ("refused", REFUSED),
                                 ("bindless", BINDLESS))
            for arch in ARCHS}


def gfx1100_listing(code_object: bytes, directory: Path) -> str:
    path = directory / "translated.co"
    path.write_bytes(code_object)
    return subprocess.run([str(find_toolchain().llvm_objdump), "-d", "--mcpu=gfx1100", str(path)],
                          capture_output=True, text=True, check=True).stdout


def lowered_sass(path: Path, directory: Path) -> str:
    """The SASS ptxas makes of the NVPTX lowering of the lifted SASS (for the object's own arch)."""
    ir, arch, names, failures, _ = lift_modules_sass(read_binary(path), NVPTX)
    assert failures == {}
    (directory / "lowered.ptx").write_text(nvptx_assembly(ir, f"sm_{arch}"))
    subprocess.run([str(PTXAS), f"-arch=sm_{arch}", "lowered.ptx", "-o", "lowered.cubin"], cwd=directory, check=True)
    return sass_text(directory / "lowered.cubin")


@pytest.mark.parametrize("arch", ARCHS)
def test_sass_textures_and_surfaces_translate_into_gfx1100_image_instructions(objects: dict, arch: int,
                                                                               tmp_path: Path) -> None:
    modules = read_binary(objects["textures", arch])
    translation = translate_sass(modules, tmp_path, find_toolchain().lld)
    assert translation.failures == {}
    assert {k.name for k in translation.kernels} == {k.name for m in modules for k in m.kernels}
    assert code_object_target(translation.code_object) == "gfx1100"
    mnemonics = {line.split()[0] for line in gfx1100_listing(translation.code_object, tmp_path).splitlines()
                 if line.strip().startswith(("image_", "buffer_load_format"))}
    assert {"image_load", "image_store", "image_gather4_lz", "image_sample_d_g16", "buffer_load_format_x"} <= mnemonics
    assert any(m.startswith("image_sample_l") for m in mnemonics)


@pytest.mark.parametrize("arch", ARCHS)
def test_the_lowering_of_sass_textures_keeps_each_texture_instruction(objects: dict, arch: int,
                                                                       tmp_path: Path) -> None:
    original = sass_text(objects["textures", arch])
    assert Counter(IMAGE_OPCODES.findall(lowered_sass(objects["textures", arch], tmp_path))) == \
        Counter(IMAGE_OPCODES.findall(original))


@pytest.mark.parametrize("arch", ARCHS)
def test_sass_matrix_instructions_translate_into_gfx1100_wmma(objects: dict, arch: int, tmp_path: Path) -> None:
    original = sass_text(objects["matrices", arch])
    assert {"HMMA", "LDSM", "MOVM"} <= set(re.findall(r"\b(HMMA|LDSM|MOVM)\b", original))
    translation = translate_sass(read_binary(objects["matrices", arch]), tmp_path, find_toolchain().lld)
    assert translation.failures == {}
    assert "v_wmma_f32_16x16x16_f16" in gfx1100_listing(translation.code_object, tmp_path)
    assert Counter(re.findall(r"\bHMMA\b", lowered_sass(objects["matrices", arch], tmp_path))) == \
        Counter(re.findall(r"\bHMMA\b", original))


@pytest.mark.parametrize("arch", ARCHS)
def test_what_the_sass_route_cannot_translate_is_refused_by_name(objects: dict, arch: int) -> None:
    _, _, names, failures, _ = lift_modules_sass(read_binary(objects["refused", arch]))
    assert not any("integer_mma" in n for n in names)
    integer = next(why for name, why in failures.items() if "integer_mma" in name)
    assert "IMMA" in integer and "tensor-core" in integer



@pytest.mark.parametrize("arch", ARCHS)
def test_texture_handles_loaded_from_memory_are_read_whole(objects: dict, arch: int, tmp_path: Path) -> None:
    original = sass_text(objects["bindless", arch])
    loads = re.findall(r"\b(?:LDG|LDL)\.?[A-Z.]* (R\d+), ", original)
    if arch == 80:
        assert {"TEX.SCR.B.LL", "TEX.B.LL", "TLD.SCR.B.LZ", "TXQ.B"} <= set(re.findall(r"\b(T[A-Z0-9]+(?:\.[A-Z0-9]+)*)", original))
    else:
        assert "R2UR" in original
    modules = read_binary(objects["bindless", arch])
    translation = translate_sass(modules, tmp_path, find_toolchain().lld)
    assert translation.failures == {} and code_object_target(translation.code_object) == "gfx1100"
    ir, _, _, failures, _ = lift_modules_sass(modules)
    assert failures == {}
    # each handle load (4 textures and a surface from the array, 2 from the struct) also reads the handle's high
    # word into its slot
    assert len(re.findall(r"store i32 %v\d+, ptr addrspace\(5\) %handle\.", ir)) == 7 and loads
    assert Counter(IMAGE_OPCODES.findall(lowered_sass(objects["bindless", arch], tmp_path))) == \
        Counter(IMAGE_OPCODES.findall(original))
