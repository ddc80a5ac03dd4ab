"""The binary path's breadth: device printf/assert/malloc, sm_80/sm_90 warp instructions, asynchronous copies
and mbarriers, grid-wide sync, function pointers and vtables. Each class: PTX nvcc 13 wrote here, translated
into a validated gfx1100 code object, and the NVPTX lowering of the same IR assembled by ptxas; where the
AMDGPU lowering is a computation of cassc's own (printf's argument buffer, mbarrier phases), its IR also runs
on this machine's CPU."""

from __future__ import annotations

import ctypes
import re
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from cassc.binary.codegen import data_layout, nvptx_assembly
from cassc.binary.emit import AMDGPU, NVPTX, Emitter, Target
from cassc.binary.extract import read_binary
from cassc.binary.lift import lift_module
from cassc.binary.printf import argument_layout
from cassc.binary.ptx import parse_ptx
from cassc.binary.translate import translate
from cassc.formats.code_object import code_object_target
from cassc.toolchain import find_toolchain

from conftest import write

NVCC = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
PTXAS = Path(NVCC).with_name("ptxas")
pytestmark = pytest.mark.skipif(not Path(NVCC).exists(), reason="NVIDIA's nvcc is not installed")

RUNTIME = r"""
#include <cstdio>
#include <cassert>
__global__ void print_all(int v, float f, double d, const char *s, long long l, char c, unsigned short h) {
  printf("v=%d f=%f d=%.3e s=%s l=%lld c=%c h=%hu w=%*d%%\n", v, f, d, s, l, c, h, 5, v);
  printf("no arguments\n");
}
__global__ void checked(const int *x) { assert(x[threadIdx.x] > 0); }
__global__ void heap(int **out) {
  int *p = (int *)malloc(16 * sizeof(int));
  p[threadIdx.x % 16] = 3;
  out[threadIdx.x] = p;
  __syncwarp();
  if (threadIdx.x == 0) free(p);
}
"""

GRID = r"""
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void grid_sum(int *a, int *total) {
  cg::grid_group g = cg::this_grid();
  a[g.thread_rank()] = 1;
  g.sync();
  if (g.thread_rank() == 0) { int s = 0; for (unsigned i = 0; i < g.size(); i++) s += a[i]; *total = s; }
}
"""

BREADTH = Path(__file__).resolve().parent.parent / "benchmarks" / "breadth"
# The construct-class programs the GPU round trip runs (their main()s are host code), plus fence.proxy.
WARPS = (BREADTH / "warps_async.cu").read_text() + '__global__ void fenced() { asm volatile("fence.proxy.async;"); }\n'
VIRTUAL = (BREADTH / "virtual.cu").read_text()

TENSOR = r"""
__global__ void tensor(const unsigned *a, const unsigned *b, float *c) {
  unsigned l = threadIdx.x;
  float d0, d1, d2, d3;
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
               "{%10,%10,%10,%10};" : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)
               : "r"(a[4 * l]), "r"(a[4 * l + 1]), "r"(a[4 * l + 2]), "r"(a[4 * l + 3]), "r"(b[2 * l]),
                 "r"(b[2 * l + 1]), "f"(0.0f));  // tf32: gfx1100's WMMA has no such type
  c[4 * l] = d0; c[4 * l + 1] = d1; c[4 * l + 2] = d2; c[4 * l + 3] = d3;
}
"""
PROGRAMS = {"runtime": RUNTIME, "grid": GRID, "warps": WARPS, "virtual": VIRTUAL, "tensor": TENSOR}
ARCHS = {"warps": "sm_90"}  # elect.sync is sm_90's; the rest sm_80, as the issue's programs were built


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Each program's nvcc 13 object (PTX embedded)."""
    directory = tmp_path_factory.mktemp("breadth")
    objects = {}
    for name, source in PROGRAMS.items():
        write(directory / f"{name}.cu", source)
        subprocess.run([NVCC, f"-arch={ARCHS.get(name, 'sm_80')}", "-c", f"{name}.cu", "-o", f"{name}.o"],
                       cwd=directory, check=True)
        objects[name] = directory / f"{name}.o"
    return objects


def translated(path: Path, tmp_path: Path):  # type: ignore[no-untyped-def]
    (module,) = read_binary(path)
    translation = translate(module, tmp_path, find_toolchain().lld)
    assert code_object_target(translation.code_object) == "gfx1100"
    return module, translation


def assembles_for_nvidia(path: Path, tmp_path: Path) -> str:
    """The NVPTX lowering of the object's lifted IR, checked by ptxas (sm_90); its PTX."""
    (module,) = read_binary(path)
    lifted = lift_module(parse_ptx(module.best_ptx() or ""), NVPTX, data_layout(NVPTX))
    assert not lifted.failures
    ptx = tmp_path / f"{path.stem}.ptx"
    ptx.write_text(nvptx_assembly(lifted.ir))
    if PTXAS.exists():
        subprocess.run([str(PTXAS), "-arch=sm_90", str(ptx), "-o", str(tmp_path / f"{path.stem}.cubin")], check=True)
    return ptx.read_text()


@pytest.mark.parametrize("program", ["runtime", "grid", "warps", "virtual"])
def test_each_class_translates_for_gfx1100_and_round_trips_through_ptxas(built: dict[str, Path], tmp_path: Path,
                                                                          program: str) -> None:
    module, translation = translated(built[program], tmp_path)
    assert not translation.failures
    assert {k.name for k in translation.kernels} == {k.name for k in module.kernels}
    assembles_for_nvidia(built[program], tmp_path)


def test_printf_assert_and_malloc_call_hips_device_library(built: dict[str, Path], tmp_path: Path) -> None:
    _, translation = translated(built["runtime"], tmp_path)
    # The device library's hostcall printf is linked in: the runtime allocates the hostcall buffer.
    assert b"hidden_hostcall_buffer" in translation.code_object
    assert b"__ockl_printf_begin" not in translation.code_object  # internal to the code object, not exported
    (module,) = read_binary(built["runtime"])
    amd = lift_module(parse_ptx(module.best_ptx() or ""), AMDGPU, data_layout(AMDGPU)).ir
    assert "@__ockl_fprintf_stderr_begin()" in amd  # a failed assert prints to stderr, as CUDA's does
    assert "Assertion `%s` failed." in bytes.fromhex(re.search(r'__cassc_assert_format = .*c"([^"]*)"', amd)
                                                    .group(1).replace("\\", "")).decode()  # type: ignore[union-attr]
    nvidia = assembles_for_nvidia(built["runtime"], tmp_path)  # NVIDIA keeps CUDA's own device runtime
    for name in ("vprintf", "__assertfail", "malloc", "free"):
        assert re.search(rf"\.extern \.func .*\b{name}\b", nvidia), name


def test_printf_reads_the_argument_buffer_where_nvcc_packs_it(tmp_path: Path) -> None:
    """nvcc's stores into the buffer (st.local at [depot + offset]) are where argument_layout reads."""
    write(tmp_path / "p.cu", RUNTIME)
    subprocess.run([NVCC, "-arch=sm_80", "-ptx", "p.cu", "-o", "p.ptx"], cwd=tmp_path, check=True)
    kernel = (tmp_path / "p.ptx").read_text().split(".entry _Z9print_all")[1].split("vprintf")[0]
    stored = set()
    for vector, bits, offset, values in re.findall(r"st\.local(?:\.v(\d))?\.[a-z](\d+)\s+\[%rd\d+(?:\+(\d+))?\],\s*"
                                                   r"(\{[^}]*\}|%\w+)", kernel):
        for index in range(int(vector or 1)):
            stored.add(int(offset or 0) + index * int(bits) // 8)
    layout = argument_layout("v=%d f=%f d=%.3e s=%s l=%lld c=%c h=%hu w=%*d%%\n")
    assert {a.offset for a in layout} == stored
    assert [a.kind for a in layout] == ["value"] * 3 + ["string"] + ["value"] * 5


HOST = Target("host", "", "", "", 0, "ptr byref({type}) align {align}", 0, True)


def host_module(ir: str):  # type: ignore[no-untyped-def]
    """An execution engine running `ir` (IR lifted for a target whose code is plain LLVM IR) on this CPU."""
    import llvmlite.binding as llvm

    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    module = llvm.parse_assembly(ir)
    module.verify()
    machine = llvm.Target.from_default_triple().create_target_machine()
    engine = llvm.create_mcjit_compiler(module, machine)
    engine.finalize_object()
    return engine, module


def host_data_layout() -> str:
    import llvmlite.binding as llvm

    llvm.initialize_native_target()
    return str(llvm.Target.from_default_triple().create_target_machine().target_data)


def test_printf_sends_the_host_what_cuda_would_print(tmp_path: Path) -> None:
    """The lifted print_all kernel runs on this CPU with the device library's printf calls recorded: formatted
    on the host as HIP's runtime formats them, they print what CUDA prints."""
    import llvmlite.binding as llvm

    write(tmp_path / "p.cu", RUNTIME)
    subprocess.run([NVCC, "-arch=sm_80", "-ptx", "p.cu", "-o", "p.ptx"], cwd=tmp_path, check=True)
    program = parse_ptx((tmp_path / "p.ptx").read_text())
    program = replace(program, functions=[f for f in program.functions if "print_all" in f.name or f.body is None])
    host = replace(HOST, triple=llvm.get_process_triple())
    lifted = lift_module(program, host, host_data_layout())
    assert not lifted.failures
    messages: list[list[object]] = []
    begin_type = ctypes.CFUNCTYPE(ctypes.c_uint64, ctypes.c_uint64)
    string_type = ctypes.CFUNCTYPE(ctypes.c_uint64, ctypes.c_uint64, ctypes.c_void_p, ctypes.c_uint64, ctypes.c_int32)
    args_type = ctypes.CFUNCTYPE(ctypes.c_uint64, ctypes.c_uint64, ctypes.c_int32, *[ctypes.c_uint64] * 7,
                                 ctypes.c_int32)

    def begin(_: int) -> int:
        messages.append([])
        return len(messages)

    def append_string(message: int, pointer: int | None, length: int, last: int) -> int:
        messages[message - 1].append(ctypes.string_at(pointer, length - 1).decode() if length else None)
        return message

    def append_args(message: int, count: int, *rest: int) -> int:
        messages[message - 1].extend(rest[:count])
        return message

    callbacks = [begin_type(begin), string_type(append_string), args_type(append_args)]
    for name, callback in zip(("__ockl_printf_begin", "__ockl_printf_append_string_n", "__ockl_printf_append_args"),
                              callbacks):
        llvm.add_symbol(name, ctypes.cast(callback, ctypes.c_void_p).value)
    engine, _ = host_module(lifted.ir)
    text = ctypes.create_string_buffer(b"text")
    parameters = [ctypes.c_int32(-7), ctypes.c_float(1.5), ctypes.c_double(12345.678),
                  ctypes.c_uint64(ctypes.addressof(text)), ctypes.c_int64(-(1 << 40)), ctypes.c_int8(ord("Z")),
                  ctypes.c_uint16(65535)]
    kernel = ctypes.CFUNCTYPE(None, *[ctypes.c_void_p] * 7)(engine.get_function_address(
        next(f.name for f in program.functions if f.entry)))
    kernel(*[ctypes.addressof(p) for p in parameters])

    def host_format(message: list[object]) -> str:
        """What HIP's runtime prints: C's printf of the format with each 64-bit word taken as its conversion
        says (here through Python's % operator, which follows C for these conversions)."""
        fmt, *words = message
        conversions = re.findall(r"%[-+ #0]*(\*|\d+)?(?:\.\d+)?(?:hh|h|ll|l)?([diouxXeEfgcsp%])", str(fmt))
        values: list[object] = []
        for star, conversion in conversions:
            if star == "*":
                values.append(ctypes.c_int32(int(words.pop(0))).value)  # type: ignore[call-overload]
            if conversion == "%":
                continue
            word = words.pop(0)
            if conversion in "efg":
                values.append(ctypes.c_double.from_buffer_copy(ctypes.c_uint64(word)).value)  # type: ignore[arg-type]
            elif conversion == "s":
                values.append(word)
            elif conversion == "c":
                values.append(chr(int(word) & 0xFF))  # type: ignore[call-overload]
            elif conversion == "d":
                values.append(int(word) if int(word) < 1 << 63 else int(word) - (1 << 64))  # type: ignore[call-overload]
            else:
                values.append(int(word))  # type: ignore[call-overload]
        python_format = re.sub(r"(hh|h|ll|l)([diouxX])", r"\2", str(fmt))
        return python_format % tuple(values)

    printed = [host_format(m) for m in messages]
    # %d of an int is sent as its 32 bits, zero-extended (as HIP clang sends it); the host reads an int.
    printed[0] = printed[0].replace(f"v={(1 << 32) - 7}", "v=-7").replace(f"w={(1 << 32) - 7:>5}", "w=   -7")
    assert printed == ["v=-7 f=1.500000 d=1.235e+04 s=text l=-1099511627776 c=Z h=65535 w=   -7%\n",
                       "no arguments\n"]


def mbarrier_program() -> str:
    """A host function over one mbarrier: init(3), then arrivals (each returning its token), reporting after
    each whether phase 0 is complete, via the test_wait of the first token."""
    emitter = Emitter(HOST)
    emitter.mbarrier_init("%arg0", 0, "3")
    first = emitter.mbarrier_arrive("%arg0", 0, "1")
    results = []
    for count in ("1", "1", "2", "1"):
        results.append(emitter.mbarrier_phase_done("%arg0", 0, emitter.value(f"lshr i64 {first}, 63")))
        emitter.mbarrier_arrive("%arg0", 0, count)
    results.append(emitter.mbarrier_phase_done("%arg0", 0, "1"))
    for index, result in enumerate(results):
        slot = emitter.value(f"getelementptr inbounds i8, ptr %arg1, i64 {index}")
        emitter.emit(f"store i8 {emitter.value(f'zext i1 {result} to i8')}, ptr {slot}")
    emitter.emit("ret void")
    declarations = "\n".join(emitter.declarations.values())
    return "\n".join([declarations, emitter.function_text("define void @run(ptr %arg0, ptr %arg1) {")])


def test_mbarrier_phases_complete_after_the_expected_arrivals() -> None:
    engine, _ = host_module(mbarrier_program())
    barrier, done = ctypes.c_uint64(0), (ctypes.c_uint8 * 5)()
    ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)(engine.get_function_address("run"))(
        ctypes.addressof(barrier), ctypes.addressof(done))
    # Arrivals 1, 2 of phase 0: not done; 3rd: done (phase 1 starts expecting 3); 2+1 more: phase 1 done too.
    assert list(done) == [0, 0, 1, 1, 1]
    assert barrier.value >> 63 == 0 and barrier.value & 0x7FFFFFFF == 3  # two phases later: parity 0, 3 pending


def test_grid_sync_counts_in_a_workspace_of_the_code_object(built: dict[str, Path], tmp_path: Path) -> None:
    (module,) = read_binary(built["grid"])
    lifted = lift_module(parse_ptx(module.best_ptx() or ""), AMDGPU, data_layout(AMDGPU))
    assert "@__cassc_grid_workspace = linkonce_odr hidden addrspace(1) global [2 x i32] [i32 8, i32 0]" in lifted.ir
    assert "load atomic i32" in lifted.ir  # the spin on the barrier word is an acquire load, never hoisted
    assert "%envreg" in assembles_for_nvidia(built["grid"], tmp_path)  # NVIDIA's driver still gives its own


def test_tensor_core_instructions_are_refused_by_name(built: dict[str, Path], tmp_path: Path) -> None:
    (module,) = read_binary(built["tensor"])
    failures = lift_module(parse_ptx(module.best_ptx() or ""), AMDGPU, data_layout(AMDGPU)).failures
    (reason,) = failures.values()
    assert "tensor-core instruction 'mma'" in reason and "PTX line" in reason


BLOCK_REGISTERS_AND_BMSK = """
.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u32 k_a, .param .u32 k_b, .param .u64 k_out)
{
.reg .pred %p<2>;
.reg .b32 %r<6>;
.reg .b64 %rd<3>;
ld.param.u32 %r1, [k_a];
ld.param.u32 %r2, [k_b];
ld.param.u64 %rd1, [k_out];
mov.u32 %r0, 5;
{ .reg .u32 r0; add.u32 r0, %r1, 1; mov.u32 %r3, r0; }
bmsk.clamp.b32 %r4, %r1, %r2;
bmsk.wrap.b32 %r5, %r1, %r2;
st.u32 [%rd1], %r0;
st.u32 [%rd1+4], %r3;
st.u32 [%rd1+8], %r4;
st.u32 [%rd1+12], %r5;
ret;
}
"""


def bmsk(start: int, count: int, wrap: bool) -> int:
    start, count = (start & 31, count & 31) if wrap else (min(start, 32), min(count, 32))
    return (((1 << count) - 1) << start) & 0xFFFFFFFF


def test_block_scoped_registers_and_bmsk_compute_what_the_ptx_isa_says() -> None:
    """A block's own `r0` (CUB's inline asm declares them) is not the function's `%r0` (Thrust's "invalid LLVM
    IR"); bmsk (CUB's radix sort) as the PTX ISA defines both modes. Run on this CPU."""
    import llvmlite.binding as llvm

    lifted = lift_module(parse_ptx(BLOCK_REGISTERS_AND_BMSK), replace(HOST, triple=llvm.get_process_triple()),
                         host_data_layout())
    engine, _ = host_module(lifted.ir)
    kernel = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)(engine.get_function_address("k"))
    for start, count in [(0, 0), (3, 4), (28, 8), (0, 32), (31, 1), (33, 40), (40, 2), (5, 33)]:
        out = (ctypes.c_uint32 * 4)()
        arguments = [ctypes.c_uint32(start), ctypes.c_uint32(count), ctypes.c_uint64(ctypes.addressof(out))]
        kernel(*[ctypes.addressof(a) for a in arguments])
        assert list(out) == [5, start + 1, bmsk(start, count, False), bmsk(start, count, True)], (start, count)


BLOCK_REDUCTIONS = """
.version 8.0
.target sm_80
.address_size 64
.visible .entry votes(.param .u64 votes_out)
{
.reg .pred %p<4>;
.reg .b32 %r<5>;
.reg .b64 %rd<2>;
ld.param.u64 %rd1, [votes_out];
mov.u32 %r1, %tid.x;
setp.lt.u32 %p1, %r1, 7;
bar.red.popc.u32 %r2, 0, %p1;
bar.red.and.pred %p2, 0, %p1;
bar.red.or.pred %p3, 0, !%p1;
selp.u32 %r3, 1, 0, %p2;
selp.u32 %r4, 2, 0, %p3;
add.u32 %r2, %r2, %r3;
add.u32 %r2, %r2, %r4;
mov.u32 %r3, %lanemask_le;
add.u32 %r2, %r2, %r3;
st.global.u32 [%rd1], %r2;
ret;
}
"""


def test_syncthreads_count_and_or_translate_for_both_targets(tmp_path: Path) -> None:
    from cassc.binary.codegen import amdgpu_object

    lifted = lift_module(parse_ptx(BLOCK_REDUCTIONS), AMDGPU, data_layout(AMDGPU))
    assert lifted.kernels == ["votes"] and amdgpu_object(lifted.ir)
    assert lifted.ir.count("@llvm.amdgcn.s.barrier()") >= 9  # three per reduction
    nvidia = lift_module(parse_ptx(BLOCK_REDUCTIONS), NVPTX, data_layout(NVPTX))
    ptx = tmp_path / "votes.ptx"
    ptx.write_text(nvptx_assembly(nvidia.ir))
    if PTXAS.exists():
        subprocess.run([str(PTXAS), "-arch=sm_90", str(ptx), "-o", str(tmp_path / "votes.cubin")], check=True)
    assert "bar.red.popc" in ptx.read_text() and "%lanemask_le" in ptx.read_text()


BULK_COPY = """
.version 8.0
.target sm_90
.address_size 64
.visible .entry bulk(.param .u64 bulk_in, .param .u64 bulk_out)
{
.reg .pred %p<3>;
.reg .b32 %r<6>;
.reg .b64 %rd<6>;
.shared .align 16 .b8 tile[256];
.shared .align 8 .b64 bar;
ld.param.u64 %rd1, [bulk_in];
ld.param.u64 %rd2, [bulk_out];
mov.u32 %r1, tile;
mov.u32 %r2, bar;
mov.u32 %r3, 1;
mbarrier.init.shared::cta.b64 [%r2], %r3;
fence.mbarrier_init.release.cluster;
mbarrier.arrive.expect_tx.shared::cta.b64 %rd3, [%r2], 256;
cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1], 256, [%r2];
mov.u32 %r4, 0;
$L_wait:
mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r2], %r4;
@!%p1 bra $L_wait;
mbarrier.arrive_drop.shared::cta.b64 _, [%r2];
cp.async.bulk.global.shared::cta.bulk_group [%rd2], [%r1], 256;
cp.async.bulk.commit_group;
cp.async.bulk.wait_group.read 0;
fence.proxy.async.shared::cta;
ret;
}
"""


@pytest.mark.parametrize("target", ["amdgpu", "nvptx"])
def test_bulk_copies_with_transaction_counted_mbarriers_translate(target: str, tmp_path: Path) -> None:
    """sm_90's TMA-less bulk copies (cp.async.bulk global <-> shared) with an mbarrier's expect_tx/complete_tx
    and the parity wait: the copies happen at once, so the barrier's phase completes on the arrivals alone."""
    from cassc.binary.codegen import amdgpu_object

    lifted = lift_module(parse_ptx(BULK_COPY), AMDGPU if target == "amdgpu" else NVPTX,
                         data_layout(AMDGPU if target == "amdgpu" else NVPTX))
    assert lifted.kernels == ["bulk"], lifted.failures
    assert "llvm.memcpy.p3.p1.i64" in lifted.ir and "llvm.memcpy.p1.p3.i64" in lifted.ir
    if target == "amdgpu":
        assert amdgpu_object(lifted.ir)
        return
    ptx = tmp_path / "bulk.ptx"
    ptx.write_text(nvptx_assembly(lifted.ir))
    if PTXAS.exists():
        subprocess.run([str(PTXAS), "-arch=sm_90", str(ptx), "-o", str(tmp_path / "bulk.cubin")], check=True)
