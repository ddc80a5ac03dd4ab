"""Texture and surface references on the binary path (CUDA 11's `texture<float, 1> t;` at file scope, removed in
CUDA 12): PTX's `.global .texref t;` named in place of an object's handle (`tex.1d.v4.f32.s32 d, [t, {i}]`).
On gfx1100 each reference is a device global holding the handle of the texture (surface) object the shim's
cudaBindTexture/cudaBindTextureToArray/cudaBindSurfaceToArray made from the reference's fields, which the image
instructions read as they read an object's; NVPTX keeps the reference as PTX had it. The program links against
the shim runtime, whose bind calls are its own (HIP's hipBindTexture takes HIP's textureReference, laid out
otherwise). Running it needs an AMD GPU; the round trip on NVIDIA is benchmarks/binary_corpora.py's SHOC."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from cassc.binary.codegen import amdgpu_object, data_layout, device_libraries, link_code_object, nvptx_assembly
from cassc.binary.emit import AMDGPU, NVPTX
from cassc.binary.extract import read_binary
from cassc.binary.lift import lift_module
from cassc.binary.ptx import parse_ptx
from cassc.binary.translate import translate
from cassc.formats.code_object import code_object_target
from cassc.toolchain import find_toolchain
from cassc.toolkit import SHIMS_DIR

from conftest import write

PTXAS = Path(shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc").with_name("ptxas")
# nvcc 11.8 writes texture references (nvcc 12 and later reject them): where a CUDA 11 toolkit is installed.
CUDA11 = Path(os.environ.get("CASSC_TEST_CUDA11", "/usr/local/cuda-11.8"))
NVCC11 = CUDA11 / "bin" / "nvcc"
needs_cuda11 = pytest.mark.skipif(not NVCC11.exists(), reason="no CUDA 11 toolkit (set CASSC_TEST_CUDA11)")

# nvcc 11.8's PTX (-arch=sm_80) for a 1D reference fetched on linear memory (tex1Dfetch), a 2D one sampled
# on an array (tex2D) and a surface reference read and written (surf2Dread/surf2Dwrite), without its comments.
PTX = r"""
.version 7.8
.target sm_80
.address_size 64
.global .texref texA;
.global .texref texB;
.global .surfref surfA;
.visible .entry fetch(.param .u64 fetch_param_0)
{
  .reg .f32 %f<6>;
  .reg .b32 %r<2>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [fetch_param_0];
  mov.u32 %r1, %tid.x;
  tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [texA, {%r1}];
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.s32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.f32 [%rd4], %f1;
  ret;
}
.visible .entry sample(.param .u64 sample_param_0)
{
  .reg .f32 %f<8>;
  .reg .b32 %r<2>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [sample_param_0];
  mov.u32 %r1, %tid.x;
  cvt.rn.f32.s32 %f1, %r1;
  add.f32 %f2, %f1, 0f3F000000;
  tex.2d.v4.f32.f32 {%f4, %f5, %f6, %f7}, [texB, {%f2, %f2}];
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.s32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.f32 [%rd4], %f4;
  ret;
}
.visible .entry bump(.param .u32 bump_param_0)
{
  .reg .b32 %r<7>;
  ld.param.u32 %r1, [bump_param_0];
  mov.u32 %r2, %tid.x;
  shl.b32 %r3, %r2, 2;
  mov.u32 %r4, %ctaid.x;
  suld.b.2d.b32.trap {%r5}, [surfA, {%r3, %r4}];
  add.s32 %r6, %r5, %r1;
  sust.b.2d.b32.trap [surfA, {%r3, %r4}], {%r6};
  ret;
}
"""
REFERENCES = ("texA", "texB", "surfA")
IMAGE_INSTRUCTION = re.compile(r"^\s*((?:tex|suld|sust)\.[\w.]+)\s.*\[(\w+),", re.MULTILINE)

# The host side as a CUDA 11 program binds them.
PROGRAM = r"""
#include <cstdio>
texture<float, 1, cudaReadModeElementType> texA;
texture<float, 2, cudaReadModeElementType> texB;
surface<void, 2> surfA;
__global__ void fetch(float *o) { o[threadIdx.x] = tex1Dfetch(texA, threadIdx.x); }
__global__ void sample(float *o) { o[threadIdx.x] = tex2D(texB, threadIdx.x + 0.5f, threadIdx.x + 0.5f); }
__global__ void bump(int w) { int v; surf2Dread(&v, surfA, threadIdx.x * 4, blockIdx.x); surf2Dwrite(v + w, surfA, threadIdx.x * 4, blockIdx.x); }
int main() {
  float *d, *o;
  cudaMalloc(&d, 64 * 4); cudaMalloc(&o, 64 * 4);
  size_t offset;
  cudaBindTexture(&offset, texA, d, 64 * 4);
  cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
  cudaArray *a;
  cudaMallocArray(&a, &desc, 8, 8, cudaArraySurfaceLoadStore);
  texB.filterMode = cudaFilterModePoint;
  texB.addressMode[0] = cudaAddressModeClamp;
  cudaBindTextureToArray(texB, a, desc);
  cudaBindSurfaceToArray(surfA, a, desc);
  fetch<<<1, 64>>>(o); sample<<<1, 8>>>(o); bump<<<8, 8>>>(1);
  const textureReference *reference;
  cudaGetTextureReference(&reference, &texA);
  cudaGetTextureAlignmentOffset(&offset, reference);
  cudaUnbindTexture(texA); cudaUnbindTexture(texB);
  std::printf("%zu\n", offset);
  return 0;
}
"""


def test_references_are_globals_holding_the_bound_objects_handle_on_gfx1100(tmp_path: Path) -> None:
    lifted = lift_module(parse_ptx(PTX), AMDGPU, data_layout(AMDGPU))
    assert lifted.failures == {} and sorted(lifted.kernels) == ["bump", "fetch", "sample"]
    for name in REFERENCES:  # visible, 8 bytes: the shim finds it by name and writes the handle
        assert f"@{name} = protected addrspace(1) externally_initialized global [8 x i8] zeroinitializer" in lifted.ir
    bodies = {m.group(1): m.group(2) for m in re.finditer(r"^define [^@]*@(\w+)\(.*?\{\n(.*?)^\}", lifted.ir,
                                                          re.S | re.M)}
    for kernel, reference, calls in (("fetch", "texA", {"load_1Db"}), ("sample", "texB", {"sample_2D"}),
                                     ("bump", "surfA", {"load_2D", "store_2D"})):
        body = bodies[kernel]
        handle = re.search(rf"(%v\d+) = load i64, ptr addrspace\(1\) @{reference}, align 8", body)
        assert handle, kernel
        assert f"inttoptr i64 {handle.group(1)} to ptr addrspace(4)" in body  # HIP's image object, as for objects
        assert set(re.findall(r"call [^@]*@__ockl_image_(\w+)\(", body)) == calls
    toolchain = find_toolchain()
    libraries = device_libraries(toolchain.device_lib_dir((AMDGPU.cpu,)), AMDGPU.cpu)
    code_object = link_code_object(amdgpu_object([lifted.ir], AMDGPU, libraries), tmp_path, "references",
                                   toolchain.lld)
    assert code_object_target(code_object) == "gfx1100"


def test_the_nvptx_lowering_keeps_each_reference_and_assembles(tmp_path: Path) -> None:
    lifted = lift_module(parse_ptx(PTX), NVPTX, data_layout(NVPTX))
    assert lifted.failures == {}
    lowered = nvptx_assembly(lifted.ir)
    assert re.findall(r"^\.visible \.global \.(texref|surfref) (\w+);", lowered, re.M) == [
        ("texref", "texA"), ("texref", "texB"), ("surfref", "surfA")]
    assert sorted(IMAGE_INSTRUCTION.findall(lowered)) == sorted(IMAGE_INSTRUCTION.findall(PTX))
    (tmp_path / "lowered.ptx").write_text(lowered)
    if PTXAS.exists():
        subprocess.run([str(PTXAS), f"-arch={NVPTX.cpu}", "lowered.ptx", "-o", "lowered.cubin"], cwd=tmp_path,
                       check=True)


@needs_cuda11
def test_a_cuda11_program_with_references_translates_and_links_against_the_shim(cassc, tmp_path: Path) -> None:
    write(tmp_path / "references.cu", PROGRAM)
    subprocess.run([str(NVCC11), "-arch=sm_80", "-w", "-c", "references.cu", "-o", "references.o"], cwd=tmp_path,
                   check=True)
    (module,) = read_binary(tmp_path / "references.o")
    translation = translate(module, tmp_path, find_toolchain().lld)
    assert translation.failures == {} and code_object_target(translation.code_object) == "gfx1100"
    cassc("references.o", "-o", "app")
    symbols = subprocess.run(["nm", "app"], cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    defined = set(re.findall(r" T (\w+)$", symbols, re.M))
    assert {"__cudaRegisterTexture", "__cudaRegisterSurface", "cudaBindTexture", "cudaBindTextureToArray",
            "cudaBindSurfaceToArray", "cudaUnbindTexture", "cudaGetTextureReference",
            "cudaGetTextureAlignmentOffset"} <= defined
    assert not re.findall(r" U (cuda\w+|__cuda\w+)$", symbols, re.M)


@needs_cuda11
def test_the_shims_texture_reference_has_cuda11s_layout(tmp_path: Path) -> None:
    """The fields a bind reads sit where CUDA 11's texture_types.h puts them."""
    fields = ["normalized", "filterMode", "addressMode", "channelDesc", "sRGB", "maxAnisotropy", "mipmapFilterMode",
              "mipmapLevelBias", "minMipmapLevelClamp", "maxMipmapLevelClamp"]
    outputs = []
    toolchain = find_toolchain()
    for name, type_, include, flags in (
            ("cuda", "textureReference", "cuda_runtime_api.h", [f"-I{CUDA11 / 'include'}"]),
            ("shim", "CudaTextureReference", str(SHIMS_DIR / "runtime" / "cassc_cudart.cpp"),
             ["-D__HIP_PLATFORM_AMD__", f"-I{toolchain.hip_include_dir.parent}", f"-L{toolchain.hip_lib_dir}",
              "-lamdhip64", "-Wno-invalid-offsetof"])):
        lines = "".join(f'std::printf("{f} %zu\\n", offsetof({type_}, {f}));' for f in fields)
        write(tmp_path / f"{name}.cpp", f'#include <cstdio>\n#include <cstddef>\n#include "{include}"\n'
                                        f'int main() {{ {lines} std::printf("%zu\\n", sizeof({type_})); }}\n')
        subprocess.run([str(toolchain.clang), "-std=c++17", f"{name}.cpp", *flags, "-o", name], cwd=tmp_path,
                       check=True)
        outputs.append(subprocess.run([f"./{name}"], cwd=tmp_path, capture_output=True, text=True,
                                      check=True).stdout)
    assert outputs[0] == outputs[1]
