"""The binary path's translation: nvcc's PTX lifted to LLVM IR, compiled for gfx1100 (and back to NVPTX),
validated against CUDA's parameter layout, and spliced into programs linked from nvcc-built objects."""

from __future__ import annotations

import math
import re
import shutil
import struct
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from cassc.binary.codegen import data_layout, nvptx_assembly
from cassc.binary.extract import read_binary
from cassc.binary.lift import NVPTX, lift_module
from cassc.binary.ptx import parse_ptx
from cassc.binary.translate import translate
from cassc.formats.code_object import HIDDEN_ARGUMENT_BYTES, code_object_target
from cassc.repair.backends import Generation
from cassc.toolchain import find_toolchain

from conftest import gpu_targets, write

NVCC = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
PTXAS = Path(NVCC).with_name("ptxas")
pytestmark = pytest.mark.skipif(not Path(NVCC).exists(), reason="NVIDIA's nvcc is not installed")

KERNELS = r"""
#include <cstdio>
#include <cuda_fp16.h>
__device__ __noinline__ float helper(float a, int b) { return a * b + 1.0f; }
struct Pair { float x, y; };
__device__ __noinline__ Pair swap(Pair p) { return Pair{p.y, p.x}; }
__global__ void warp_reduce(const float *in, float *out, unsigned *bal, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? in[i] : 0.f;
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
  float w = __shfl_xor_sync(0xffffffff, v, 1) + __shfl_sync(0xffffffff, v, 3) + __shfl_up_sync(0xffffffff, v, 2, 16);
  unsigned b = __ballot_sync(0xffffffff, in[i % n] > 0.5f);
  if (__any_sync(0xffffffff, v > 1000.f) || __all_sync(0xffffffff, v < -1.f)) w += 1.f;
  if ((threadIdx.x & 31) == 0) { atomicAdd(out, v + w * 0.f); bal[blockIdx.x] = b; }
}
__global__ void atomics(int *p, unsigned *u, float *f, unsigned long long *ull, double *d) {
  atomicAdd(p, 1); atomicMax(p + 1, (int)threadIdx.x); atomicMin(p + 2, -(int)threadIdx.x);
  atomicCAS(p + 3, 0, 7); atomicExch(p + 4, 9); atomicInc(u, 100u); atomicDec(u + 1, 5u);
  atomicAnd(p + 5, 0xff); atomicOr(p + 6, 1 << (threadIdx.x % 31)); atomicXor(p + 7, 3);
  atomicAdd(f, 0.5f); atomicAdd(ull, 2ull); atomicAdd(d, 1.0);
}
__global__ void mathk(const float *x, float *y, double *z, int *k, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float a = x[i];
  y[i] = sqrtf(a) + expf(a) + __expf(a) + sinf(a) + cosf(a) + logf(a + 1.f) + powf(a, 1.5f) + fminf(a, 0.3f)
       + fmaxf(a, 0.7f) + rsqrtf(a + 1.f) + tanhf(a) + __fdividef(a, 3.f) + floorf(a * 10.f) + ceilf(a) + roundf(a)
       + helper(a, i) + fabsf(-a) + erff(a) + atan2f(a, 2.f);
  double da = a;
  z[i] = sqrt(da) + exp(da) + log(da + 1.0) + sin(da) + da / 3.0 + fma(da, 2.0, 1.0);
  int q = (int)(a * 1000.f);
  k[i] = q / 7 + q % 5 + __popc(q) + __clz(q) + __brev(q) + (int)(unsigned)(a * 3e9f) + __ffs(q) + abs(q - 500)
       + min(q, 10) + max(q, 3) + (q >> 3) + ((unsigned)q >> 5) + __float2int_rn(a * 7.5f) + __mul24(q, 3)
       + (int)__umulhi((unsigned)q, 0x9e3779b9u) + __byte_perm(q, i, 0x5140);
  Pair p = swap(Pair{a, 2.f * a});
  y[i] += p.x - p.y;
  __half h = __float2half(a);
  y[i] += __half2float(__hadd(h, h));
}
__global__ void local_and_2d(float *out, int w) {
  float tmp[16];
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  for (int j = 0; j < 16; j++) tmp[j] = x * j + y;
  out[y * w + x] = tmp[(x + y) % 16] + gridDim.x + gridDim.y * 2 + blockDim.z;
}
extern __shared__ float dyn[];
__global__ void dynamic_shared(float *out) {
  dyn[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = dyn[blockDim.x - 1 - threadIdx.x];
  __threadfence();
}
__global__ void printer(int v) { printf("v=%d\n", v); }
__global__ void sampler(cudaTextureObject_t t, int *o) {
  int order;
  asm("txq.channel_order.b32 %0, [%1];" : "=r"(order) : "l"(t));
  o[0] = order;
}
"""
TRANSLATED = {"_Z11warp_reducePKfPfPji", "_Z7atomicsPiPjPfPyPd", "_Z5mathkPKfPfPdPii", "_Z12local_and_2dPfi",
              "_Z14dynamic_sharedPf", "_Z7printeri"}


@pytest.fixture(scope="module")
def many(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("many")
    write(directory / "many.cu", KERNELS)
    subprocess.run([NVCC, "-arch=sm_86", "-c", "many.cu", "-o", "many.o"], cwd=directory, check=True)
    return directory / "many.o"


def test_compute_kernels_translate_to_validated_gfx1100_code(many: Path, tmp_path: Path) -> None:
    (module,) = read_binary(many)
    translation = translate(module, tmp_path, find_toolchain().lld)
    assert code_object_target(translation.code_object) == "gfx1100"
    kernels = {k.name: k for k in translation.kernels}
    assert set(kernels) == TRANSLATED
    recorded = {k.name: k for k in module.kernels}
    for name, kernel in kernels.items():  # translate() checked these; the test says what they are
        assert kernel.param_size == recorded[name].param_size
        # printf's hostcall buffer is one of code object v5's hidden arguments, after CUDA's from 8 bytes on.
        assert kernel.kernarg_size == (8 + HIDDEN_ARGUMENT_BYTES if name == "_Z7printeri" else kernel.param_size)
        assert kernel.param_offsets == tuple(p.offset for p in recorded[name].params)
        assert kernel.host_stub == name
    assert kernels["_Z12local_and_2dPfi"].scratch_size >= 64  # float tmp[16]
    assert "__cudart_i2opi_f" in translation.variables  # libdevice's tables travel with the code


def test_an_untranslatable_kernel_is_named_with_its_instruction(many: Path, tmp_path: Path) -> None:
    (module,) = read_binary(many)
    failures = translate(module, tmp_path, find_toolchain().lld).failures
    assert list(failures) == ["_Z7sampleryPi"]
    assert "kernel _Z7sampleryPi: the texture query 'txq.channel_order.b32' is not translated" in \
        failures["_Z7sampleryPi"]
    assert "PTX line" in failures["_Z7sampleryPi"]


@pytest.mark.skipif(not PTXAS.exists(), reason="ptxas is not installed")
def test_the_same_ir_lowered_to_nvptx_assembles_with_ptxas(many: Path, tmp_path: Path) -> None:
    (module,) = read_binary(many)
    lifted = lift_module(parse_ptx(module.best_ptx() or ""), NVPTX, data_layout(NVPTX))
    assert set(lifted.kernels) == TRANSLATED | {"_Z7sampleryPi"}  # NVIDIA's txq answers what AMD's descriptor cannot
    ptx = tmp_path / "round-trip.ptx"
    ptx.write_text(nvptx_assembly(lifted.ir))
    subprocess.run([str(PTXAS), "-arch=sm_90", str(ptx), "-o", str(tmp_path / "round-trip.cubin")], check=True)
    # For an sm_80 object the round trip keeps sm_80 (CUB compares its kernels' PTX version with the
    # architectures it was built for, and refuses a newer one: cudaErrorInvalidDeviceFunction).
    ptx.write_text(nvptx_assembly(lifted.ir, "sm_80"))
    assert "\n.target sm_80" in ptx.read_text()
    subprocess.run([str(PTXAS), "-arch=sm_80", str(ptx), "-o", str(tmp_path / "round-trip-80.cubin")], check=True)


VENDOR = r"""
__constant__ float scale[1];
__device__ int launches;
__global__ void saxpy(float a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i] * scale[0];
  if (i == 0) atomicAdd(&launches, 1);
}
extern "C" float vendor_run(int n) {
  float *x, *y, s = 2.0f;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  cudaMemcpyToSymbol(scale, &s, sizeof(float));
  saxpy<<<(n + 255) / 256, 256>>>(3.0f, x, y, n);
  float first;
  cudaMemcpy(&first, y, sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(x);
  cudaFree(y);
  return first;
}
"""


def test_nvcc_built_static_library_relinks_into_a_gfx1100_program(cassc, tmp_path: Path) -> None:
    write(tmp_path / "vendor.cu", VENDOR)
    subprocess.run([NVCC, "-arch=sm_86", "-c", "vendor.cu", "-o", "vendor.o"], cwd=tmp_path, check=True)
    subprocess.run(["ar", "rcs", "libvendor.a", "vendor.o"], cwd=tmp_path, check=True)
    write(tmp_path / "main.cpp", '#include <cstdio>\nextern "C" float vendor_run(int);\n'
                                 'int main() { std::printf("%f\\n", vendor_run(1000)); }\n')
    result = cassc("main.cpp", "-L.", "-lvendor", "-o", "app")
    assert "cassc: translated libvendor.a(vendor.o): 1 kernel(s) from PTX compute_86 to gfx1100" in result.stderr
    assert gpu_targets(tmp_path / "app") == ["gfx1100"]
    undefined = subprocess.run(["nm", "-u", "app"], cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    cuda_names = [line.split()[-1] for line in undefined.splitlines() if "cuda" in line.lower()]
    assert cuda_names == [], "every CUDA entry point nvcc's code calls is the shim's or a jump to HIP"
    assert "hipModuleLaunchKernel" in undefined


def test_nvcc_built_objects_link_like_nvcc_links_them(cassc, tmp_path: Path) -> None:
    write(tmp_path / "a.cu", VENDOR)
    write(tmp_path / "b.cu", 'extern "C" float vendor_run(int);\n__global__ void k(int *p) { p[threadIdx.x] = 1; }\n'
                             'int main() { int *p; cudaMalloc(&p, 128); k<<<1, 32>>>(p); return vendor_run(10) > 0; }\n')
    for name in ("a", "b"):
        subprocess.run([NVCC, "-arch=sm_80", "-c", f"{name}.cu", "-o", f"{name}.o"], cwd=tmp_path, check=True)
    result = cassc("a.o", "b.o", "-o", "app")
    assert result.stderr.count("translated") == 2
    assert gpu_targets(tmp_path / "app") == ["gfx1100", "gfx1100"]  # one code object per nvcc object


def test_objects_with_only_sass_cassc_cannot_read_get_a_clear_message(cassc, tmp_path: Path) -> None:
    write(tmp_path / "k.cu", "__global__ void k(int *p) { *p = 1; }\nint main() { k<<<1, 1>>>(nullptr); }\n")
    subprocess.run([NVCC, "-gencode", "arch=compute_100,code=sm_100", "-c", "k.cu", "-o", "sass.o"], cwd=tmp_path,
                   check=True)
    result = cassc("sass.o", "-o", "app", check=False)
    assert result.returncode == 1 and "sass.o carries no PTX and no SASS cassc reads (it has sm_100" in result.stderr
    assert not (tmp_path / "app").exists()


def test_untranslatable_kernels_stop_the_link_with_the_reason(cassc, tmp_path: Path) -> None:
    write(tmp_path / "p.cu", UNTRANSLATED)
    subprocess.run([NVCC, "-arch=sm_86", "-c", "p.cu", "-o", "p.o"], cwd=tmp_path, check=True)
    result = cassc("p.o", "-o", "app", check=False)
    assert result.returncode == 1 and "kernel _Z1ki: the texture query 'txq.channel_order" in result.stderr


HAND_WRITTEN_PTX = """
.version 9.0
.target sm_86
.address_size 64
.visible .entry k(.param .u64 p, .param .u8 flag)
{
	.reg .pred %p<2>;
	.reg .b32 %r<9>;
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [p];
	ld.param.u8 %r8, [flag];
	mov.u32 %r1, WARP_SZ;
	{.reg.b16 h, l;
	mov.b32 {l, h}, 65539;
	cvt.u32.u16 %r2, h;}
	lop3.b32 %r3, %r1, %r2, %r8, 0x8E;
	add.cc.u32 %r4, %r3, -1;
	addc.u32 %r5, %r1, 0;
	mad.lo.cc.u32 %r6, %r4, %r5, %r3;
	madc.hi.u32 %r7, %r4, %r5, 0;
	setp.ne.s32 %p1, %r7, 0;
	@%p1 st.global.u32 [%rd1], %r6;
	bfind.shiftamt.u32 %r6, %r6;
	st.global.u32 [%rd1+4], %r6;
	{add.f16x2 %r7,%r6,%r5;
}
	fma.rn.f16x2 %r7, %r7, %r6, %r5;
	set.gt.f16x2.f16x2 %r7, %r7, %r6;
	set.gt.u32.f16x2 %r6, %r7, %r5;
	st.global.u32 [%rd1+8], %r7;
	st.global.u32 [%rd1+12], %r6;
	ret;
}
"""


@pytest.mark.parametrize("target", ["amdgpu", "nvptx"])
def test_hand_written_ptx_constructs_lift_for_both_targets(target: str, tmp_path: Path) -> None:
    from cassc.binary.codegen import amdgpu_assembly
    from cassc.binary.lift import AMDGPU

    chosen = AMDGPU if target == "amdgpu" else NVPTX
    lifted = lift_module(parse_ptx(HAND_WRITTEN_PTX), chosen, data_layout(chosen))
    assert lifted.kernels == ["k"] and not lifted.failures
    assembly = amdgpu_assembly(lifted.ir) if target == "amdgpu" else nvptx_assembly(lifted.ir)
    if target == "amdgpu":
        assert ".amdhsa_kernarg_size 12" in assembly  # 9 bytes of CUDA parameters, rounded up to 4
        assert "v_pk_add_f16" in assembly and "v_pk_fma_f16" in assembly  # packed halves stay packed floats
    else:
        assert "add.rn.f16x2" in assembly or "add.f16x2" in assembly


# NVVM indexes a struct parameter through its address (`mov.b64 %rd, param`) when the index is not constant
# (scatter's TensorInfo); `cvta.param` makes such an address generic.
PARAM_ADDRESS_PTX = """
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .align 8 .b8 info[24], .param .u32 i)
{
	.reg .b32 %r<5>;
	.reg .b64 %rd<10>;
	ld.param.u64 %rd1, [out];
	mov.b64 %rd2, info;
	ld.param.u32 %r1, [i];
	mul.wide.u32 %rd3, %r1, 8;
	add.s64 %rd4, %rd2, %rd3;
	ld.param.u64 %rd5, [%rd4];
	cvta.param.u64 %rd6, %rd2;
	ld.u64 %rd7, [%rd6+16];
	mov.b64 %rd8, i;
	ld.param.u32 %r2, [%rd8];
	mov.u32 %r3, %ntid.x;
	mov.u32 %r4, %nctaid.x;
	mul.lo.s32 %r3, %r3, %r4;
	add.s32 %r3, %r3, %r2;
	cvta.to.global.u64 %rd9, %rd1;
	st.global.u64 [%rd9], %rd5;
	st.global.u64 [%rd9+8], %rd7;
	st.global.u32 [%rd9+16], %r3;
	ret;
}
"""


def test_param_space_addresses_in_a_kernel_read_its_kernel_arguments(tmp_path: Path) -> None:
    from cassc.binary.codegen import optimized_module
    from cassc.binary.lift import AMDGPU

    lifted = lift_module(parse_ptx(PARAM_ADDRESS_PTX), AMDGPU, data_layout(AMDGPU))
    assert lifted.kernels == ["k"]
    ir = str(optimized_module(lifted.ir, AMDGPU))
    # Every parameter, scalar or struct, is kernarg memory (addrspace 4): an address taken of one reads it
    # there, never a private (addrspace 5) location of the same number.
    assert "addrspace(5)" not in ir
    assert ir.count("ptr addrspace(4) noalias noundef readonly byref") + ir.count("ptr addrspace(4) byref") >= 1
    assert "load i64, ptr addrspace(4)" in ir
    # blockDim.x * gridDim.x of a launch of whole blocks is the dispatch's grid size: no division left.
    assert "udiv" not in ir
    ptx = tmp_path / "round-trip.ptx"
    ptx.write_text(nvptx_assembly(lift_module(parse_ptx(PARAM_ADDRESS_PTX), NVPTX, data_layout(NVPTX)).ir))
    if PTXAS.exists():
        subprocess.run([str(PTXAS), "-arch=sm_90", str(ptx), "-o", str(tmp_path / "k.cubin")], check=True)


LOOP_PTX = """
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 a, .param .u64 b)
{
	.reg .pred %p<2>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [a];
	ld.param.u64 %rd2, [b];
	cvta.to.global.u64 %rd3, %rd1;
	cvta.to.global.u64 %rd4, %rd2;
	mov.u32 %r1, %tid.x;
	st.global.u32 [%rd4], %r1;
	ld.global.nc.u32 %r2, [%rd3];
	mov.u32 %r4, 0;
	mov.u64 %rd5, %rd4;
$L__loop:
	ld.global.u32 %r3, [%rd5+4];
	add.s32 %r2, %r2, %r3;
	add.s64 %rd5, %rd5, 4;
	add.s32 %r4, %r4, 1;
	setp.lt.u32 %p1, %r4, 8;
	@%p1 bra $L__loop;
	st.global.u32 [%rd4+4], %r2;
	ret;
}
"""


def loop_kernel_loads() -> list[str]:
    from cassc.binary.codegen import amdgpu_assembly
    from cassc.binary.lift import AMDGPU

    assembly = amdgpu_assembly(lift_module(parse_ptx(LOOP_PTX), AMDGPU, data_layout(AMDGPU)).ir)
    return [line.split()[0] for line in assembly.splitlines() if line.strip().startswith(("s_load", "global_load"))]


def test_a_non_coherent_global_load_is_invariant() -> None:
    # ld.global.nc after a store: only a load LLVM knows to be invariant may be a scalar load there.
    assert "s_load_b32" in loop_kernel_loads()


def test_loops_nvvm_left_rolled_are_not_unrolled_again() -> None:
    assert loop_kernel_loads().count("global_load_b32") == 1  # one load in the loop, not eight


WIDE_DIVISION_PTX = """
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u64 a, .param .u64 b)
{
	.reg .b64 %rd<6>;
	ld.param.u64 %rd1, [out];
	ld.param.u64 %rd2, [a];
	ld.param.u64 %rd3, [b];
	div.s64 %rd4, %rd2, %rd3;
	cvta.to.global.u64 %rd5, %rd1;
	st.global.u64 [%rd5], %rd4;
	ret;
}
"""


def test_a_ptx_64_bit_division_gets_no_second_32_bit_path() -> None:
    from cassc.binary.codegen import amdgpu_assembly
    from cassc.binary.lift import AMDGPU

    # NVVM's own bypass put the 32-bit path beside it already: the division stays straight-line code.
    assembly = amdgpu_assembly(lift_module(parse_ptx(WIDE_DIVISION_PTX), AMDGPU, data_layout(AMDGPU)).ir)
    assert "s_cbranch" not in assembly


# Bytes of a, lane 0 first: 7F FF 01 80 (signed 127 -1 1 -128); of b: 80 FE 02 7F (-128 -2 2 127).
SIMD_PTX = """
.version 8.0
.target sm_90
.address_size 64
.visible .entry simd(.param .u64 out)
{
	.reg .b32 %r<20>;
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r1, 0x8001FF7F;
	mov.u32 %r2, 0x7F02FE80;
	mov.u32 %r3, 5;
	vabsdiff4.u32.u32.u32 %r4, %r1, %r2, %r3;
	vabsdiff4.s32.s32.s32 %r5, %r1, %r2, %r3;
	vabsdiff4.u32.u32.u32.add %r6, %r1, %r2, %r3;
	vabsdiff2.s32.s32.s32.add %r7, %r1, %r2, %r3;
	vsub4.s32.s32.s32.sat %r8, %r1, %r2, %r3;
	add.s16x2 %r9, %r1, %r2;
	max.s16x2.relu %r10, %r1, %r2;
	max.u16x2 %r11, %r1, %r2;
	min.s32.relu %r12, %r1, %r2;
	st.global.v4.u32 [%rd2], {%r4, %r5, %r6, %r7};
	st.global.v4.u32 [%rd2+16], {%r8, %r9, %r10, %r11};
	st.global.u32 [%rd2+32], %r12;
	ret;
}
"""
SIMD_RESULTS = [
    0x01010101,  # |a - b| per unsigned byte: 1 1 1 1
    0xFF0101FF,  # per signed byte: 255 1 1 255
    5 + 4,  # .add: c plus the four unsigned differences
    5 + 255 + 65281,  # vabsdiff2 .add, signed halves FF7F/8001 vs FE80/7F02: |-129 + 384|, |-32767 - 32514|
    0x80FF017F,  # a - b per signed byte, saturated: 255 -> 127, 1, -1, -255 -> -128
    0xFF03FDFF,  # per half, wrapping: FF7F + FE80, 8001 + 7F02
    0x7F020000,  # signed max per half, negatives to 0
    0x8001FF7F,  # unsigned max per half
    0,  # min(a, b) < 0 as s32, .relu
]


def test_simd_video_and_packed_integer_instructions_compute_what_the_ptx_isa_says(tmp_path: Path) -> None:
    from cassc.binary.codegen import optimized_module
    from cassc.binary.lift import AMDGPU

    ir = str(optimized_module(lift_module(parse_ptx(SIMD_PTX), AMDGPU, data_layout(AMDGPU)).ir, AMDGPU))
    stored = [int(m) & 0xFFFFFFFF for m in re.findall(r"store i32 (-?\d+), ptr addrspace\(1\)", ir)]
    assert stored == SIMD_RESULTS  # LLVM folds the constants: the lifted semantics, evaluated
    ptx = tmp_path / "round-trip.ptx"
    ptx.write_text(nvptx_assembly(lift_module(parse_ptx(SIMD_PTX), NVPTX, data_layout(NVPTX)).ir))
    if PTXAS.exists():
        subprocess.run([str(PTXAS), "-arch=sm_90", str(ptx), "-o", str(tmp_path / "simd.cubin")], check=True)


# The same bytes as SIMD_PTX's: a = 7F FF 01 80, b = 80 FE 02 7F (lane 0 first), c = 5.
DOT_PRODUCT_PTX = """
.version 8.0
.target sm_90
.address_size 64
.visible .entry dot(.param .u64 out)
{
	.reg .b32 %r<10>;
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r1, 0x8001FF7F;
	mov.u32 %r2, 0x7F02FE80;
	mov.u32 %r3, 5;
	dp4a.s32.s32 %r4, %r1, %r2, %r3;
	dp4a.u32.u32 %r5, %r1, %r2, %r3;
	dp4a.s32.u32 %r6, %r1, %r2, %r3;
	dp2a.lo.s32.s32 %r7, %r1, %r2, %r3;
	dp2a.hi.u32.u32 %r8, %r1, %r2, %r3;
	st.global.v4.u32 [%rd2], {%r4, %r5, %r6, %r7};
	st.global.u32 [%rd2+16], %r8;
	ret;
}
"""
DOT_PRODUCT_RESULTS = [
    (5 + 127 * -128 + -1 * -2 + 1 * 2 + -128 * 127) & 0xFFFFFFFF,  # signed bytes
    5 + 127 * 128 + 255 * 254 + 1 * 2 + 128 * 127,  # unsigned bytes
    (5 + 127 * 128 + -1 * 254 + 1 * 2 + -128 * 127) & 0xFFFFFFFF,  # a signed, b unsigned
    5 + -129 * -128 + -32767 * -2,  # signed halves FF7F, 8001 times b's signed bytes 0 and 1
    5 + 0xFF7F * 2 + 0x8001 * 127,  # unsigned halves times b's bytes 2 and 3
]


def test_dp4a_and_dp2a_compute_what_the_ptx_isa_says(tmp_path: Path) -> None:
    from cassc.binary.codegen import optimized_module
    from cassc.binary.lift import AMDGPU

    ir = str(optimized_module(lift_module(parse_ptx(DOT_PRODUCT_PTX), AMDGPU, data_layout(AMDGPU)).ir, AMDGPU))
    stored = [int(m) & 0xFFFFFFFF for m in re.findall(r"store i32 (-?\d+), ptr addrspace\(1\)", ir)]
    assert stored == DOT_PRODUCT_RESULTS  # LLVM folds the constants: the lifted semantics, evaluated
    ptx = tmp_path / "round-trip.ptx"
    ptx.write_text(nvptx_assembly(lift_module(parse_ptx(DOT_PRODUCT_PTX), NVPTX, data_layout(NVPTX)).ir))
    if PTXAS.exists():
        subprocess.run([str(PTXAS), "-arch=sm_90", str(ptx), "-o", str(tmp_path / "dot.cubin")], check=True)


def test_cudas_dot_product_intrinsics_translate(tmp_path: Path) -> None:
    write(tmp_path / "dot.cu", "__global__ void k(const int *a, unsigned *r) {\n"
                               "  r[0] = __dp4a(a[0], a[1], a[2]) + __dp4a(unsigned(a[0]), unsigned(a[1]), 7u)\n"
                               "       + __dp2a_lo(a[0], a[1], a[2]) + __dp2a_hi(unsigned(a[0]), unsigned(a[1]), 1u);\n"
                               "}\n")
    subprocess.run([NVCC, "-arch=sm_80", "-c", "dot.cu", "-o", "dot.o"], cwd=tmp_path, check=True)
    (module,) = read_binary(tmp_path / "dot.o")
    assert "dp4a" in (module.best_ptx() or "") and "dp2a" in (module.best_ptx() or "")
    translation = translate(module, tmp_path, find_toolchain().lld)
    assert not translation.failures and [k.name for k in translation.kernels] == ["_Z1kPKiPj"]


def test_cudas_simd_intrinsics_translate(tmp_path: Path) -> None:
    write(tmp_path / "simd.cu", "__global__ void k(const unsigned *a, unsigned *r) {\n"
                                "  unsigned x = a[0], y = a[1];\n"
                                "  r[0] = __vabsdiffu4(x, y) ^ __vabsdiffs4(x, y) ^ __vsadu4(x, y) ^ __vabsdiffu2(x, y)\n"
                                "       ^ __vadd2(x, y) ^ __vmins2(x, y) ^ __vmaxu2(x, y) ^ __vabsss2(x) ^ __vsub4(x, y);\n"
                                "}\n")
    subprocess.run([NVCC, "-arch=sm_90", "-c", "simd.cu", "-o", "simd.o"], cwd=tmp_path, check=True)
    (module,) = read_binary(tmp_path / "simd.o")
    translation = translate(module, tmp_path, find_toolchain().lld)
    assert not translation.failures and [k.name for k in translation.kernels] == ["_Z1kPKjPj"]


def test_rdc_objects_are_device_linked_into_one_code_object(cassc, tmp_path: Path) -> None:
    write(tmp_path / "a.cu", "__device__ float twice(float x) { return 2.0f * x; }\n"
                             "__device__ float table[4] = {1, 2, 3, 4};\n")
    write(tmp_path / "b.cu", "extern __device__ float twice(float x);\nextern __device__ float table[4];\n"
                             "__global__ void k(float *out) { out[threadIdx.x] = twice(table[threadIdx.x % 4]); }\n"
                             "int main() { float *o; cudaMalloc(&o, 128); k<<<1, 32>>>(o); }\n")
    for name in ("a", "b"):
        subprocess.run([NVCC, "-arch=sm_86", "-rdc=true", "-c", f"{name}.cu", "-o", f"{name}.o"], cwd=tmp_path,
                       check=True)
    result = cassc("a.o", "b.o", "-o", "app")
    assert "cassc: translated a.o + b.o: 1 kernel(s)" in result.stderr
    assert gpu_targets(tmp_path / "app") == ["gfx1100"]
    undefined = subprocess.run(["nm", "-u", "app"], cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    assert "cuda" not in undefined.lower()  # __cudaRegisterLinkedBinary_<id> included: the splice defines them


def test_a_call_into_another_rdc_object_translated_alone_says_to_link_them(tmp_path: Path) -> None:
    write(tmp_path / "b.cu", "extern __device__ float twice(float x);\n"
                             "__global__ void k(float *out) { out[threadIdx.x] = twice(out[threadIdx.x]); }\n")
    subprocess.run([NVCC, "-arch=sm_86", "-rdc=true", "-c", "b.cu", "-o", "b.o"], cwd=tmp_path, check=True)
    (module,) = read_binary(tmp_path / "b.o")
    failures = translate(module, tmp_path, find_toolchain().lld).failures
    assert "call to _Z5twicef, which another separately compiled (-rdc) object defines" in failures["_Z1kPf"]


# Texture fetches are not translated; printf makes its SASS CALL something.
UNTRANSLATED = ("#include <cstdio>\n__device__ cudaTextureObject_t texture;\n"
                "__global__ void k(int v) {\n"
                '  int order; asm("txq.channel_order.b32 %0, [%1];" : "=r"(order) : "l"(texture));\n'
                '  printf("%d", order + v);\n}\n'
                "int main() { k<<<1, 1>>>(1); }\n")
EMPTY_KERNEL = """\
.amdgcn_target "amdgcn-amd-amdhsa--gfx1100"
.amdhsa_code_object_version 5
.text
.globl _Z1ki
.p2align 8
.type _Z1ki,@function
_Z1ki:
  s_endpgm
.Lend:
.size _Z1ki, .Lend-_Z1ki
.rodata
.p2align 6
.amdhsa_kernel _Z1ki
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_kernarg_size 4
  .amdhsa_wavefront_size32 1
  .amdhsa_next_free_vgpr 1
  .amdhsa_next_free_sgpr 2
.end_amdhsa_kernel
.amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.target: amdgcn-amd-amdhsa--gfx1100
amdhsa.kernels:
  - .name: _Z1ki
    .symbol: _Z1ki.kd
    .kernarg_segment_size: 4
    .kernarg_segment_align: 4
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 32
    .sgpr_count: 2
    .vgpr_count: 1
    .max_flat_workgroup_size: 1024
    .args:
      - { .size: 4, .offset: 0, .value_kind: by_value }
...
.end_amdgpu_metadata
"""


@dataclass
class AssemblyAnswer:
    """A model backend that answers with fixed text, in CASS's answer shape."""

    code: str
    name: str = "fixed assembly"
    prompt_format: str = "cass-assembly"
    identity: str = "fixed-assembly"
    prompts: list[str] = field(default_factory=list)

    def generate(self, prompt: str, max_tokens: int, on_token) -> Generation:  # type: ignore[no-untyped-def]
        self.prompts.append(prompt)
        return Generation(f"```hipasm\n{self.code}```\n", 1, 0.01, 0.0, 0.0, False)


@pytest.mark.parametrize("answer, accepted", [(EMPTY_KERNEL, True),
                                              (EMPTY_KERNEL.replace("kernarg_size 4", "kernarg_size 16"), False),
                                              ("v_bogus_instruction v0\n", False)])
def test_the_model_answers_for_a_kernel_the_lifter_cannot_translate(tmp_path: Path, answer: str,
                                                                     accepted: bool) -> None:
    from cassc.binary.fallback import Fallback
    from cassc.binary.translate import translate_group

    write(tmp_path / "p.cu", UNTRANSLATED)
    subprocess.run([NVCC, "-arch=sm_86", "-c", "p.cu", "-o", "p.o"], cwd=tmp_path, check=True)
    (module,) = read_binary(tmp_path / "p.o")
    backend = AssemblyAnswer(answer)
    toolchain = find_toolchain()
    translation = translate_group([module], tmp_path, toolchain.lld, "gfx1100", separate=False,
                                  fallback=Fallback(lambda: backend, 256, toolchain.clang))
    (prompt,) = backend.prompts
    assert prompt.startswith("Convert the following CUDA device assembly code to HIP device assembly:\n```cudaasm\n")
    assert "CALL" in prompt
    if accepted:
        (kernel,) = translation.kernels
        assert kernel.from_model == "fixed assembly" and kernel.kernarg_size == 4 and not translation.failures
        assert code_object_target(translation.model_code_objects["_Z1ki"]) == "gfx1100"
    else:
        assert translation.kernels == []
        assert "the texture query 'txq.channel_order" in translation.failures["_Z1ki"]
        assert "the model's answer was not used: " in translation.failures["_Z1ki"]


DEVICE_PROP_FIELDS = ("name", "uuid", "totalGlobalMem", "sharedMemPerBlock", "regsPerBlock", "warpSize", "memPitch",
                      "maxThreadsPerBlock", "maxThreadsDim", "maxGridSize", "totalConstMem", "major", "minor",
                      "textureAlignment", "multiProcessorCount", "maxTexture3D", "surfaceAlignment",
                      "concurrentKernels", "pciBusID", "memoryBusWidth", "l2CacheSize", "maxThreadsPerMultiProcessor",
                      "sharedMemPerMultiprocessor", "managedMemory", "cooperativeLaunch", "sharedMemPerBlockOptin",
                      "maxBlocksPerMultiProcessor", "reservedSharedMemPerBlock", "gpuDirectRDMAFlushWritesOptions",
                      "memoryPoolSupportedHandleTypes", "gpuPciSubsystemID", "reserved")


CUDA_INCLUDE = Path("/usr/local/cuda/include")


@pytest.mark.skipif(not (CUDA_INCLUDE / "cuda_runtime_api.h").exists(), reason="NVIDIA's CUDA headers are not installed")
def test_the_shims_cuda_device_prop_has_cudas_layout(tmp_path: Path) -> None:
    """cudaGetDeviceProperties fills nvcc-built code's cudaDeviceProp: every offset as in NVIDIA's header."""
    from cassc.toolkit import SHIMS_DIR

    printer = "".join(f'std::printf("{f} %zu\\\\n", offsetof(T, {f}));' for f in DEVICE_PROP_FIELDS)
    printer += 'std::printf("sizeof %zu\\\\n", sizeof(T));'
    write(tmp_path / "cuda.cpp", "#include <cstdio>\n#include <cstddef>\n#include <cuda_runtime_api.h>\n"
                                 f"using T = cudaDeviceProp;\nint main() {{ {printer} }}\n")
    write(tmp_path / "shim.cpp", f'#include "{SHIMS_DIR / "runtime" / "cassc_cudart.cpp"}"\n'
                                 f"using T = cassc_cuda_device_prop;\nint main() {{ {printer} }}\n")
    toolchain = find_toolchain()
    outputs = []
    for name, flags in (("cuda", [f"-I{CUDA_INCLUDE}"]),
                        ("shim", ["-D__HIP_PLATFORM_AMD__", f"-I{toolchain.hip_include_dir.parent}",
                                  f"-L{toolchain.hip_lib_dir}", "-lamdhip64"])):
        subprocess.run([str(toolchain.clang), "-std=c++17", f"{name}.cpp", *flags, "-o", name], cwd=tmp_path,
                       check=True)
        outputs.append(subprocess.run([f"./{name}"], cwd=tmp_path, capture_output=True, text=True,
                                      check=True).stdout)
    assert outputs[0] == outputs[1]


@pytest.mark.skipif(not (CUDA_INCLUDE / "driver_types.h").exists(), reason="NVIDIA's CUDA headers are not installed")
def test_the_shims_device_attribute_numbers_are_cudas() -> None:
    """cudaDeviceGetAttribute receives CUDA's numbers: each one the shim maps means that attribute in CUDA."""
    import re

    from cassc.toolkit import SHIMS_DIR

    cuda = dict(re.findall(r"cudaDevAttr(\w+)\s*=\s*(\d+)", (CUDA_INCLUDE / "driver_types.h").read_text()))
    shim = (SHIMS_DIR / "runtime" / "cassc_cudart.cpp").read_text()
    pairs = re.findall(r"\{(\d+), hipDeviceAttribute(\w+)\}", shim)
    renamed = {"Multiprocessor" + "Count": "MultiProcessorCount", "MemoryBusWidth": "GlobalMemoryBusWidth",
               "SharedMemPerBlockOptin": "MaxSharedMemoryPerBlockOptin"}
    assert len(pairs) > 20
    for number, hip_name in pairs:
        assert cuda[renamed.get(hip_name, hip_name)] == number, hip_name


def test_a_code_object_kernel_must_match_cudas_parameters_and_fit_the_lds() -> None:
    from cassc.formats.code_object import KernelDescriptor

    def kernel(kernarg: int, lds: int) -> KernelDescriptor:
        return KernelDescriptor("k", lds_size=lds, scratch_size=0, kernarg_size=kernarg, vgprs=8, sgprs=8)

    assert kernel(12, 1024).mismatch_with_cuda(9) is None  # rounded up to 4 bytes
    assert "16 bytes of kernel arguments on gfx1100 but 9 on CUDA" in kernel(16, 0).mismatch_with_cuda(9)
    assert "70000 bytes of shared memory" in kernel(12, 70000).mismatch_with_cuda(12)
    assert kernel(16 + HIDDEN_ARGUMENT_BYTES, 0).mismatch_with_cuda(9) is None  # hidden arguments from 16 on
    assert kernel(12 + HIDDEN_ARGUMENT_BYTES, 0).mismatch_with_cuda(9) is not None  # CUDA's would overlap them


TANH_INPUTS = [1e-6, -1e-4, 0.01, 0.3, -0.54, 0.56, 1.0, -2.5, 9.0, 40.0]


def test_tanh_approx_keeps_its_relative_error_near_zero_and_saturates() -> None:
    from cassc.binary.codegen import optimized_module
    from cassc.binary.lift import AMDGPU

    body = "\n".join(f"\ttanh.approx.f32 %f{i + 1}, 0f{struct.unpack('<I', struct.pack('<f', x))[0]:08X};\n"
                     f"\tst.global.f32 [%rd2+{4 * i}], %f{i + 1};" for i, x in enumerate(TANH_INPUTS))
    ptx = (".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry t(.param .u64 out)\n{\n"
           f"\t.reg .f32 %f<{len(TANH_INPUTS) + 1}>;\n\t.reg .b64 %rd<3>;\n\tld.param.u64 %rd1, [out];\n"
           f"\tcvta.to.global.u64 %rd2, %rd1;\n{body}\n\tret;\n}}\n")
    ir = str(optimized_module(lift_module(parse_ptx(ptx), AMDGPU, data_layout(AMDGPU)).ir, AMDGPU))
    stored = [struct.unpack("<d", struct.pack("<Q", int(m[2:], 16)))[0] if m.startswith("0x") else float(m)
              for m in re.findall(r"store float (0x[0-9A-F]{16}|[-+.\de]+), ptr addrspace\(1\)", ir)]
    assert len(stored) == len(TANH_INPUTS)  # LLVM folds the constants: the lifted formula, evaluated
    for x, y in zip(TANH_INPUTS, stored):
        assert abs(y - math.tanh(x)) <= 2 ** -11 * abs(math.tanh(x)), (x, y)


# (a, b, c) with a*b + c not a float: each directed rounding picks a different neighbour.
FMA_CASES = [(1.0 / 3.0, 3.0, 0.0), (-1.0 / 3.0, 3.0, 0.0), (0.1, 0.2, 0.3), (1e-3, 252.0, 12582913.0),
             (-1e-3, 252.0, 12582913.0), (1.5, 1.5, -2.25), (16777217.0 / 16777216.0, 1.0, 1e-8)]


def float_step(x: float, direction: int) -> float:
    """The float next to `x` (not zero) upward (+1) or downward (-1)."""
    bits = struct.unpack("<i", struct.pack("<f", x))[0]
    bits += direction if x > 0 else -direction
    return struct.unpack("<f", struct.pack("<i", bits))[0]


@pytest.mark.parametrize("rounding", ["rn", "rm", "rp", "rz"])
def test_fma_rounding_modes_round_the_exact_result_as_the_ptx_isa_says(rounding: str) -> None:
    from fractions import Fraction

    from cassc.binary.codegen import optimized_module
    from cassc.binary.lift import AMDGPU

    def f32(x: float) -> float:
        return struct.unpack("<f", struct.pack("<f", x))[0]

    def literal(x: float) -> str:
        return f"0f{struct.unpack('<I', struct.pack('<f', x))[0]:08X}"

    body = "\n".join(f"\tfma.{rounding}.f32 %f{i + 1}, {literal(a)}, {literal(b)}, {literal(c)};\n"
                     f"\tst.global.f32 [%rd2+{4 * i}], %f{i + 1};" for i, (a, b, c) in enumerate(FMA_CASES))
    ptx = (".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry t(.param .u64 out)\n{\n"
           f"\t.reg .f32 %f<{len(FMA_CASES) + 1}>;\n\t.reg .b64 %rd<3>;\n\tld.param.u64 %rd1, [out];\n"
           f"\tcvta.to.global.u64 %rd2, %rd1;\n{body}\n\tret;\n}}\n")
    ir = str(optimized_module(lift_module(parse_ptx(ptx), AMDGPU, data_layout(AMDGPU)).ir, AMDGPU))
    stored = [struct.unpack("<d", struct.pack("<Q", int(m[2:], 16)))[0] if m.startswith("0x") else float(m)
              for m in re.findall(r"store float (0x[0-9A-F]{16}|[-+.\de]+), ptr addrspace\(1\)", ir)]
    for (a, b, c), got in zip(FMA_CASES, stored, strict=True):
        exact = Fraction(f32(a)) * Fraction(f32(b)) + Fraction(f32(c))
        nearest = f32(float(exact))
        below = nearest if Fraction(nearest) <= exact else float_step(nearest, -1)
        above = nearest if Fraction(nearest) >= exact else float_step(nearest, 1)
        expected = {"rn": nearest, "rm": below, "rp": above, "rz": below if exact >= 0 else above}[rounding]
        assert got == expected, (a, b, c, got, expected)
