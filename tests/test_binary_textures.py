"""Texture and surface objects on the binary path: every `tex`/`tld4`/`txq`/`suld`/`sust`/`suq` form nvcc 13 writes
for CUDA's texture and surface functions, translated into a validated gfx1100 code object that samples, loads and
stores through the AMDGPU image instructions (the device library's image functions HIP's headers call), and the
NVPTX lowering of the same IR assembled by ptxas with the original's instructions; the host objects are HIP's,
whose descriptor structs CUDA's extend."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from cassc.binary.codegen import data_layout, nvptx_assembly
from cassc.binary.emit import AMDGPU, NVPTX
from cassc.binary.extract import read_binary
from cassc.binary.lift import lift_module
from cassc.binary.ptx import parse_ptx
from cassc.binary.translate import translate
from cassc.formats.code_object import code_object_target
from cassc.toolchain import find_toolchain

from conftest import write

NVCC = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
PTXAS = Path(NVCC).with_name("ptxas")
CUDA_INCLUDE = Path("/usr/local/cuda/include")
pytestmark = pytest.mark.skipif(not Path(NVCC).exists(), reason="NVIDIA's nvcc is not installed")

# One kernel per construct; the comment is what HIP's headers call for the same function on AMD.
CONSTRUCTS = r"""
__global__ void fetch(cudaTextureObject_t t, float *o) { o[threadIdx.x] = tex1Dfetch<float>(t, threadIdx.x); }  // load_1Db
__global__ void one(cudaTextureObject_t t, float4 *o) { o[threadIdx.x] = tex1D<float4>(t, threadIdx.x + 0.5f); }  // sample_1D
__global__ void two(cudaTextureObject_t t, float *o) { o[threadIdx.x] = tex2D<float>(t, threadIdx.x, 0.5f); }  // sample_2D
__global__ void two_int(cudaTextureObject_t t, int *o) { o[threadIdx.x] = tex2D<int>(t, threadIdx.x, 1); }  // sample_2D
__global__ void two_bytes(cudaTextureObject_t t, uchar4 *o) { o[threadIdx.x] = tex2D<uchar4>(t, threadIdx.x, 1); }  // sample_2D
__global__ void three(cudaTextureObject_t t, float *o) { o[threadIdx.x] = tex3D<float>(t, threadIdx.x, 1.5f, 2.5f); }  // sample_3D
__global__ void layered(cudaTextureObject_t t, float *o) { o[threadIdx.x] = tex2DLayered<float>(t, threadIdx.x, 1.5f, 2); }  // sample_2Da
__global__ void layered1(cudaTextureObject_t t, float *o) { o[threadIdx.x] = tex1DLayered<float>(t, 0.5f, threadIdx.x); }  // sample_1Da
__global__ void cube(cudaTextureObject_t t, float *o) { o[threadIdx.x] = texCubemap<float>(t, 1.0f, 0.5f, 0.2f); }  // sample_CM
__global__ void cube_layered(cudaTextureObject_t t, float *o) { o[threadIdx.x] = texCubemapLayered<float>(t, 1.0f, 0.5f, 0.2f, 1); }  // sample_CMa
__global__ void gather(cudaTextureObject_t t, float4 *o) { o[threadIdx.x] = tex2Dgather<float4>(t, threadIdx.x, 1.5f, 1); }  // gather4g_2D
__global__ void level(cudaTextureObject_t t, float *o) { o[threadIdx.x] = tex2DLod<float>(t, threadIdx.x, 1.5f, 1.0f); }  // sample_lod_2D
__global__ void gradient(cudaTextureObject_t t, float *o) { o[threadIdx.x] = tex2DGrad<float>(t, 0.5f, 0.5f, make_float2(1, 0), make_float2(0, 1)); }  // sample_grad_2D
__global__ void surface(cudaSurfaceObject_t s) { float v; surf2Dread(&v, s, threadIdx.x * 4, 1); surf2Dwrite(v * 2, s, threadIdx.x * 4, 1); }  // load_2D store_2D
__global__ void surface_bytes(cudaSurfaceObject_t s) { uchar4 v; surf2Dread(&v, s, threadIdx.x * 4, 0); v.x += 1; surf2Dwrite(v, s, threadIdx.x * 4, 0); }  // load_2D store_2D
__global__ void surface_clamped(cudaSurfaceObject_t s) { float4 v = surf2Dread<float4>(s, threadIdx.x * 16, 0, cudaBoundaryModeClamp); surf2Dwrite(v, s, threadIdx.x * 16, 0); }  // load_2D store_2D width_2D height_2D
__global__ void surface_short(cudaSurfaceObject_t s) { short v; surf1Dread(&v, s, threadIdx.x * 2); surf1Dwrite<short>(v + 1, s, threadIdx.x * 2); }  // loadh_1D storeh_1D
__global__ void surface_3d(cudaSurfaceObject_t s) { int v; surf3Dread(&v, s, threadIdx.x * 4, 1, 2); surf3Dwrite(v + 1, s, threadIdx.x * 4, 1, 2); }  // load_3D store_3D
__global__ void surface_layered(cudaSurfaceObject_t s) { surf2DLayeredwrite(7, s, threadIdx.x * 4, 1, 3); }  // store_2Da
__global__ void surface_double(cudaSurfaceObject_t s) { int2 v; surf2Dread(&v, s, threadIdx.x * 8, 0); surf2Dwrite(v, s, threadIdx.x * 8, 0); }  // load_2D store_2D
__global__ void queries(cudaTextureObject_t t, cudaSurfaceObject_t s, int *o) {
  int r;
  asm("txq.width.b32 %0, [%1];" : "=r"(r) : "l"(t)); o[0] = r;  // width_2D
  asm("txq.height.b32 %0, [%1];" : "=r"(r) : "l"(t)); o[1] = r;  // height_2D
  asm("suq.width.b32 %0, [%1];" : "=r"(r) : "l"(s)); o[2] = r;  // width_2D
}
"""

IMAGE_INSTRUCTION = re.compile(r"^\s*((?:tex|tld4|txq|suld|sust|suq)\.[\w.]+)", re.MULTILINE)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("textures")
    write(directory / "textures.cu", CONSTRUCTS)
    subprocess.run([NVCC, "-arch=sm_80", "-c", "textures.cu", "-o", "textures.o"], cwd=directory, check=True)
    return directory / "textures.o"


def ptx_of(path: Path) -> str:
    (module,) = read_binary(path)
    return module.best_ptx() or ""


def functions(ir: str) -> dict[str, str]:
    """Each kernel's IR body, by name."""
    return {m.group(1): m.group(2) for m in re.finditer(r"^define [^@]*@(\w+)\(.*?\{\n(.*?)^\}", ir, re.S | re.M)}


def test_every_texture_and_surface_form_translates_into_image_instructions_for_gfx1100(built: Path,
                                                                                         tmp_path: Path) -> None:
    (module,) = read_binary(built)
    translation = translate(module, tmp_path, find_toolchain().lld)
    assert code_object_target(translation.code_object) == "gfx1100"
    assert translation.failures == {}
    assert {k.name for k in translation.kernels} == {k.name for k in module.kernels}
    code_object = tmp_path / "textures.co"
    code_object.write_bytes(translation.code_object)
    listing = subprocess.run([str(find_toolchain().llvm_objdump), "-d", "--mcpu=gfx1100", str(code_object)],
                             capture_output=True, text=True, check=True).stdout
    mnemonics = {line.split()[0] for line in listing.splitlines() if line.strip().startswith(("image_", "buffer_"))}
    assert {"image_load", "image_store", "image_gather4_lz", "image_sample_l", "image_sample_d_g16",
            "buffer_load_format_x"} <= mnemonics
    assert any(m.startswith("image_sample") for m in mnemonics)


def test_each_construct_calls_the_image_function_hips_headers_call(built: Path) -> None:
    """The handle is HIP's image object, its sampler 12 dwords on; each construct is the device library's
    function that HIP's tex1Dfetch/tex2D/tex2DLayered/texCubemap/tex2Dgather/surf2Dread... call."""
    expected = {m.group(1): set(m.group(2).split())
                for m in re.finditer(r"__global__ void (\w+)\(.*//\s*([\w ]+)$", CONSTRUCTS, re.M)}
    expected["queries"] = {"width_2D", "height_2D"}
    ir = lift_module(parse_ptx(ptx_of(built)), AMDGPU, data_layout(AMDGPU)).ir
    bodies = functions(ir)
    mangled = {name: next(k for k in bodies if re.fullmatch(rf"_Z\d+{name}\w*", k)) for name in expected}
    for name, calls in expected.items():
        called = set(re.findall(r"call [^@]*@__ockl_image_(\w+)\(", bodies[mangled[name]]))
        assert called == calls, name
    assert "getelementptr inbounds i8, ptr addrspace(4) %" in bodies[mangled["two"]]
    assert ", i64 48" in bodies[mangled["two"]]  # HIP_SAMPLER_OBJECT_OFFSET_DWORD
    # A surface's x is bytes: divided by the access's size into pixels.
    assert "sdiv i32" in bodies[mangled["surface"]] and ", 4\n" in bodies[mangled["surface"]]
    assert re.search(r"sdiv i32 %v\d+, 16", bodies[mangled["surface_clamped"]])
    assert re.search(r"sdiv i32 %v\d+, 8", bodies[mangled["surface_double"]])
    # An integer texture's channels are the sampled dwords' bits.
    assert "bitcast float" in bodies[mangled["two_int"]] and "fptosi" not in bodies[mangled["two_int"]]


def test_the_nvptx_lowering_keeps_each_texture_instruction_and_assembles(built: Path, tmp_path: Path) -> None:
    original = ptx_of(built)
    lifted = lift_module(parse_ptx(original), NVPTX, data_layout(NVPTX))
    assert lifted.failures == {}
    lowered = nvptx_assembly(lifted.ir)
    assert Counter(IMAGE_INSTRUCTION.findall(lowered)) == Counter(IMAGE_INSTRUCTION.findall(original))
    (tmp_path / "lowered.ptx").write_text(lowered)
    if PTXAS.exists():
        subprocess.run([str(PTXAS), "-arch=sm_90", "lowered.ptx", "-o", "lowered.cubin"], cwd=tmp_path, check=True)


REFUSED = """
.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 k_param_0, .param .u64 k_param_1)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [k_param_0];
  ld.param.u64 %rd2, [k_param_1];
  txq.channel_order.b32 %r1, [%rd1];
  st.global.u32 [%rd2], %r1;
  ret;
}
.visible .entry r(.param .u64 r_param_0)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [r_param_0];
  sured.b.add.2d.u32.trap [%rd1, {%r1, %r2}], %r3;
  ret;
}
"""


def test_what_the_image_descriptor_cannot_answer_is_refused_by_name() -> None:
    failures = lift_module(parse_ptx(REFUSED), AMDGPU, data_layout(AMDGPU)).failures
    assert "txq.channel_order.b32" in failures["k"] and "PTX line" in failures["k"]
    assert "sured" in failures["r"]


# The fields HIP's texture and surface object calls read, by struct (CUDA's name without its prefix), and the
# enumerators of their values.
FIELDS = {
    "ResourceDesc": ["resType", "res.array.array", "res.mipmap.mipmap", "res.linear.devPtr", "res.linear.desc",
                     "res.linear.sizeInBytes", "res.pitch2D.devPtr", "res.pitch2D.desc", "res.pitch2D.width",
                     "res.pitch2D.height", "res.pitch2D.pitchInBytes"],
    "TextureDesc": ["addressMode", "filterMode", "readMode", "sRGB", "borderColor", "normalizedCoords",
                    "maxAnisotropy", "mipmapFilterMode", "mipmapLevelBias", "minMipmapLevelClamp",
                    "maxMipmapLevelClamp"],
    "ResourceViewDesc": ["format", "width", "height", "depth", "firstMipmapLevel", "lastMipmapLevel", "firstLayer",
                         "lastLayer"],
    "ChannelFormatDesc": ["x", "y", "z", "w", "f"],
    "Extent": ["width", "height", "depth"],
}
ENUMERATORS = ["ArrayLayered", "ArraySurfaceLoadStore", "ArrayCubemap", "ArrayTextureGather", "AddressModeWrap",
               "AddressModeClamp", "AddressModeMirror", "AddressModeBorder", "FilterModePoint", "FilterModeLinear",
               "ReadModeElementType", "ReadModeNormalizedFloat", "ResourceTypeArray", "ResourceTypeMipmappedArray",
               "ResourceTypeLinear", "ResourceTypePitch2D", "ChannelFormatKindSigned", "ChannelFormatKindUnsigned",
               "ChannelFormatKindFloat", "ChannelFormatKindNone"]


def test_cudas_texture_descriptors_are_hips_with_fields_appended(tmp_path: Path) -> None:
    """The shim hands CUDA's descriptors to HIP's twins of cudaCreateTextureObject/cudaCreateSurfaceObject/
    cudaMallocArray as they are: every field HIP reads sits where CUDA's header puts it, at CUDA's size, and
    the enumerators have CUDA's values."""
    toolchain = find_toolchain()
    outputs = []
    for prefix, header, flags in (("cuda", "cuda_runtime_api.h", [f"-I{CUDA_INCLUDE}"]),
                                  ("hip", "hip/hip_runtime_api.h",
                                   ["-D__HIP_PLATFORM_AMD__", f"-I{toolchain.hip_include_dir.parent}"])):
        lines = [f'std::printf("{struct}.{field} %zu %zu\\n", offsetof({prefix}{struct}, {field}), '
                 f"sizeof((({prefix}{struct} *)0)->{field}));" for struct, fields in FIELDS.items() for field in fields]
        lines += [f'std::printf("{name} %d\\n", (int){prefix}{name});' for name in ENUMERATORS]
        source = tmp_path / f"{prefix}.cpp"
        source.write_text(f"#include <cstdio>\n#include <cstddef>\n#include <{header}>\n"
                          f"int main() {{\n{chr(10).join(lines)}\n}}\n")
        subprocess.run([str(toolchain.clang), "-std=c++17", source.name, *flags, "-o", prefix], cwd=tmp_path,
                       check=True)
        outputs.append(subprocess.run([f"./{prefix}"], cwd=tmp_path, capture_output=True, text=True,
                                      check=True).stdout)
    assert outputs[0] == outputs[1]
    assert "ResourceDesc.res.pitch2D.pitchInBytes 56 8" in outputs[0]


def test_the_sampler_sits_where_hips_header_puts_it() -> None:
    from cassc.binary.images import SAMPLER_OFFSET

    header = (find_toolchain().hip_include_dir / "texture_types.h").read_text()
    dwords = int(re.search(r"#define HIP_IMAGE_OBJECT_SIZE_DWORD (\d+)", header).group(1))
    assert "#define HIP_SAMPLER_OBJECT_OFFSET_DWORD HIP_IMAGE_OBJECT_SIZE_DWORD" in header
    assert SAMPLER_OFFSET == 4 * dwords
