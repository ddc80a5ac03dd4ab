"""The IR-emission core both binary front ends (PTX: lift.py, SASS: sass_lift.py) lift through.

What an instruction *means* lives here once: the kernel ABI (every kernel parameter is kernarg memory
with CUDA's layout), memory spaces, special registers, barriers, shuffles, votes, atomics, and the
integer and float semantics, each a method that takes LLVM values and returns LLVM values. A front end
only reads its operands (PTX registers and symbols, SASS register slots and constant banks) and writes
the results back. What differs between targets — special registers, barriers, shuffles, votes, where
allocas and byval parameters live — is in `Target` and in the few methods here that ask
`self.target.name`. The IR for NVPTX is the same except for those, which is what lets the H200 check a
translation: the IR that becomes gfx1100 code also runs on NVIDIA.

Types are named as PTX names them (`u32`, `s64`, `f32`, `pred`, `f16x2`...): the one vocabulary both
front ends speak. Values are held in stack slots (SROA makes registers of them again), so no SSA
construction is needed; a predicated instruction branches around itself (`guarded`).
"""

from __future__ import annotations

import functools
import math
import re
import struct
from collections.abc import Callable
from dataclasses import dataclass

from cassc.errors import CasscError


class Unsupported(CasscError):
    """A construct the translator does not handle; the message names it and its kernel."""


@dataclass(frozen=True)
class Target:
    name: str  # "amdgpu" or "nvptx"
    triple: str
    cpu: str
    kernel_cc: str
    alloca_space: int  # where allocas (and PTX .local) live
    byval: str  # how an aggregate kernel parameter is passed: format(type, align)
    byval_space: int
    # Every kernel parameter is memory in byval_space (not only aggregates): a kernel's `.param` space is
    # then one address space, so an address taken with `mov r, param` reads what `ld.param [param]` reads.
    kernel_params_in_memory: bool


AMDGPU = Target("amdgpu", "amdgcn-amd-amdhsa", "gfx1100", "amdgpu_kernel", 5,
                "ptr addrspace(4) byref({type}) align {align}", 4, True)
# NVPTX: generic pointers reach both allocas and byval parameters, so scalars stay values.
NVPTX = Target("nvptx", "nvptx64-nvidia-cuda", "sm_90", "ptx_kernel", 0, "ptr byval({type}) align {align}", 0,
               False)

SPACE_NUMBERS = {"global": 1, "shared": 3, "const": 4, "generic": 0}
FLOAT_TYPES = {"f16": "half", "bf16": "bfloat", "f32": "float", "f64": "double",
               "f16x2": "<2 x half>", "bf16x2": "<2 x bfloat>"}  # the packed pairs: lane 0 in the low half
PACKED_INTEGER_TYPES = {"s16x2": "<2 x i16>", "u16x2": "<2 x i16>"}  # add/min/max... on both halves at once
INTRINSIC_SUFFIXES = {"float": "f32", "double": "f64", "half": "f16", "bfloat": "bf16", "<2 x half>": "v2f16",
                      "<2 x bfloat>": "v2bf16", "<2 x i16>": "v2i16"}
_NON_DIGITS = re.compile(r"\D")
_PLAIN_NAME = re.compile(r"[A-Za-z_.$][\w.$]*")  # an LLVM identifier that needs no quotes
SCOPES_AMDGPU = {"cta": ' syncscope("workgroup")', "gpu": ' syncscope("agent")', "sys": "", "cluster": ' syncscope("agent")'}
# What a failed device assert prints on NVIDIA (file, line, function, block and thread indices, the expression).
ASSERT_FORMAT = "%s:%u: %s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `%s` failed.\n"


# The lifter asks for a type's width and LLVM type for every operand it reads or writes, of a handful of
# PTX types: cached (bounded, since damaged PTX can name any number of types).
@functools.lru_cache(maxsize=256)
def width(ptx_type: str) -> int:
    if ptx_type == "pred":
        return 1
    digits = _NON_DIGITS.sub("", ptx_type.replace("x2", ""))
    return int(digits) * (2 if ptx_type.endswith("x2") else 1)


def int_type(ptx_type: str) -> str:
    return f"i{width(ptx_type)}"


@functools.lru_cache(maxsize=256)
def value_type(ptx_type: str) -> str:
    return FLOAT_TYPES.get(ptx_type) or PACKED_INTEGER_TYPES.get(ptx_type) or int_type(ptx_type)


def is_float(ptx_type: str) -> bool:
    return ptx_type in FLOAT_TYPES


def is_signed(ptx_type: str) -> bool:
    return ptx_type.startswith("s")


def quote(name: str) -> str:
    return name if _PLAIN_NAME.fullmatch(name) else '"' + name.replace('"', "\\22") + '"'


def float_constant(value: float, ptx_type: str) -> str:
    """`value`, rounded to `ptx_type`, as an LLVM constant of that type."""
    if ptx_type == "f32":
        value = struct.unpack("<f", struct.pack("<f", value))[0]
    if ptx_type == "f16":
        return f"0xH{struct.unpack('<H', struct.pack('<e', value))[0]:04X}"
    if ptx_type == "bf16":
        return f"0xR{struct.unpack('<I', struct.pack('<f', value))[0] >> 16:04X}"
    return f"0x{struct.unpack('<Q', struct.pack('<d', value))[0]:016X}"


def space_number(space: str, target: Target) -> int:
    """A memory space's LLVM address space: global, shared, const, generic, local (the allocas' space)."""
    return target.alloca_space if space == "local" else SPACE_NUMBERS[space]


def parameter_origin(arch: int) -> int:
    """Where, in constant bank 0, CUDA's sm_`arch` cubins align kernel parameters from: up to sm_90 a parameter
    is aligned in the bank's terms (bank-0 parameter base + offset: 0x160 for sm_75..sm_89, 0x210 for sm_90), so
    an `alignas(64)` struct after 8 bytes of parameters lands at 32 on sm_80, where PTX's `.param` layout gives
    64; from sm_100 (base 0x380) in the parameter buffer's own terms, as PTX does (origin 0). nvcc 13's cubins
    for sm_75..sm_121 with alignas(16..1024) parameters (tests/test_binary_param_layout.py). Before sm_75
    (nvcc 12) the bases are 0x160 (sm_70, sm_72) and 0x140 (sm_50..sm_62), assumed to follow the same rule."""
    if arch >= 100:
        return 0
    return 0x210 if arch >= 90 else 0x160 if arch >= 70 else 0x140


def cuda_parameter_offsets(params: list[tuple[int, int]], arch: int) -> tuple[tuple[int, ...], int]:
    """CUDA's parameter buffer for a kernel of (size, alignment) parameters in a cubin for sm_`arch`: each
    parameter's offset, and the buffer's size (no padding after the last)."""
    origin = parameter_origin(arch)
    offsets: list[int] = []
    end = 0
    for size, align in params:
        offsets.append(-(-(origin + end) // align) * align - origin)
        end = offsets[-1] + size
    return tuple(offsets), end


def variable_definition(name: str, size: int, init: str, align: int, target: Target, managed: bool = False,
                        linkage: str = "") -> str:
    """A `__device__` variable (global memory, `init` a constant of its [size x i8] type), visible by name so that
    the runtime finds it (cudaMemcpyToSymbol). A `__managed__` one on AMDGPU is two globals, as HIP clang makes
    them: `@name`, a pointer to the variable, which the runtime fills with memory from hipMallocManaged that
    the host reads it through too, and `@name.managed`, its initial value, which the runtime copies there (the
    shim's __cudaRegisterManagedVar); device code reads the pointer (`Emitter.managed_address`). NVPTX keeps it
    as PTX has it, a global with NVVM's `managed` annotation (`managed_annotations`)."""
    if managed and target.name == "amdgpu":
        return (f"@{quote(name)} = {linkage}protected addrspace(1) externally_initialized global ptr addrspace(1) "
                f"null, align 8\n@{quote(name + '.managed')} = {linkage}protected addrspace(1) global "
                f"[{size} x i8] {init}, align {align}")
    return (f"@{quote(name)} = {linkage}protected addrspace(1) externally_initialized global [{size} x i8] {init}, "
            f"align {align}")


def variable_annotations(annotated: list[tuple[str, str]], target: Target) -> list[str]:
    """NVVM's annotations of NVPTX globals, (name, kind) each: "managed" makes it `.attribute(.managed)`, as
    `__managed__` variables are; "texture"/"surface" a `.texref`/`.surfref` the image instructions name."""
    if target.name != "nvptx" or not annotated:
        return []
    return [f"!nvvm.annotations = !{{{', '.join(f'!{800 + i}' for i in range(len(annotated)))}}}",
            *(f'!{800 + i} = !{{ptr addrspace(1) @{quote(name)}, !"{kind}", i32 1}}'
              for i, (name, kind) in enumerate(annotated))]


def attributes(target: Target) -> list[str]:
    """#0 for kernels, #1 for device functions, #2 for subroutines kept out of line."""
    if target.name == "amdgpu":
        return ['attributes #0 = { "amdgpu-flat-work-group-size"="1,1024" "uniform-work-group-size"="true" }',
                'attributes #1 = { alwaysinline }', 'attributes #2 = { noinline }']
    return ["attributes #0 = { nounwind }", "attributes #1 = { alwaysinline }", "attributes #2 = { noinline }"]



class Emitter:
    """One function's IR being written: plumbing, the kernel ABI and every instruction's meaning."""

    def __init__(self, target: Target) -> None:
        self.target = target
        self.allocas: list[str] = []
        self.lines: list[str] = []
        self.counter = 0
        self.terminated = False
        self.declarations: dict[str, str] = {}  # intrinsic -> its declaration
        self.kernarg_end = 0  # where the kernel parameters placed so far end (`parameter`)

    # -- plumbing ---------------------------------------------------------------------------------
    def declare(self, name: str, signature: str) -> str:
        """Remember how to declare an intrinsic; return its name for a call."""
        self.declarations[name] = signature
        return f"@{name}"

    def fresh(self) -> str:
        self.counter += 1
        return f"%v{self.counter}"

    def emit(self, line: str) -> None:
        if self.terminated:  # code after an unconditional branch: give it a block of its own
            self.lines.append(f"dead{self.counter}:")
            self.counter += 1
            self.terminated = False
        self.lines.append(f"  {line}")

    def value(self, expression: str) -> str:
        name = self.fresh()
        self.emit(f"{name} = {expression}")
        return name

    def fail(self, why: str) -> Unsupported:
        """An Unsupported naming the function and the instruction being lifted (the front end's words)."""
        raise NotImplementedError

    def alloca_ptr(self) -> str:
        return f"ptr addrspace({self.target.alloca_space})" if self.target.alloca_space else "ptr"

    @staticmethod
    def ptr(space: int) -> str:
        return f"ptr addrspace({space})" if space else "ptr"

    def slot(self, name: str, llvm_type: str, align: int = 0) -> str:
        pointer = f"%{quote(name)}" if not name.startswith("%") else name
        suffix = f", addrspace({self.target.alloca_space})" if self.target.alloca_space else ""
        self.allocas.append(f"  {pointer} = alloca {llvm_type}{', align ' + str(align) if align else ''}{suffix}")
        return pointer

    def resize(self, value: str, have: str, want: str, signed: bool) -> str:
        if have == want:
            return value
        have_bits, want_bits = int(have[1:]), int(want[1:])
        if want_bits < have_bits:
            return self.value(f"trunc {have} {value} to {want}")
        return self.value(f"{'sext' if signed else 'zext'} {have} {value} to {want}")

    def intrinsic(self, base: str, llvm_type: str, arguments: int, result: str | None = None) -> str:
        name = f"{base}.{INTRINSIC_SUFFIXES.get(llvm_type, llvm_type)}"
        return self.declare(name, f"declare {result or llvm_type} @{name}({', '.join([llvm_type] * arguments)})")

    def guarded(self, condition: str, body: Callable[[], None]) -> None:
        """`body`'s code runs only where the i1 `condition` holds: a predicated instruction."""
        number = self.counter = self.counter + 1
        self.emit(f"br i1 {condition}, label %then{number}, label %join{number}")
        self.lines.append(f"then{number}:")
        body()
        if not self.terminated:
            self.emit(f"br label %join{number}")
        self.lines.append(f"join{number}:")
        self.terminated = False

    def branch(self, label: str, condition: str | None = None, negated: bool = False) -> None:
        """To `label`, always or where the i1 `condition` holds (fails, if `negated`)."""
        if condition is None:
            self.emit(f"br label %{label}")
            self.terminated = True
            return
        number = self.counter = self.counter + 1
        if negated:
            self.emit(f"br i1 {condition}, label %next{number}, label %{label}")
        else:
            self.emit(f"br i1 {condition}, label %{label}, label %next{number}")
        self.lines.append(f"next{number}:")

    def place_label(self, label: str) -> None:
        if not self.terminated:
            self.lines.append(f"  br label %{label}")
        self.lines.append(f"{label}:")
        self.terminated = False

    # -- the function and the kernel ABI ------------------------------------------------------------
    def parameter(self, index: int, llvm_type: str, align: int, in_memory: bool,
                  placed: tuple[int, int] | None = None) -> tuple[str, tuple[str, int]]:
        """Parameter `index`'s text in the signature and (pointer, address space) of its memory. A kernel's
        parameters are memory (`in_memory`): on AMDGPU all of them, byref kernarg memory, so the kernarg
        segment is CUDA's parameter buffer byte for byte; others are copied to a stack slot.

        `placed`: a kernel parameter's (offset, size) in CUDA's parameter buffer, kernel parameters in order.
        Where the kernarg segment is that buffer, the parameter is declared there: CUDA aligns in constant-bank
        terms (`parameter_origin`), so the offset need not be a multiple of the type's alignment; it is
        declared at the alignment its offset has, after an unused padding argument where aligning the end of
        the previous parameter would not reach the offset."""
        if in_memory:
            padding = ""
            if placed is not None and self.target.kernel_params_in_memory:
                offset, size = placed
                align = min(align, offset & -offset) if offset else align
                if -(-self.kernarg_end // align) * align != offset:
                    padding = (self.target.byval.format(type=f"[{offset - self.kernarg_end} x i8]", align=1)
                               + f" %pad{index}, ")
                self.kernarg_end = offset + size
            return (padding + self.target.byval.format(type=llvm_type, align=align) + f" %arg{index}",
                    (f"%arg{index}", self.target.byval_space))
        slot = self.slot(f"param.{index}", llvm_type, align)
        self.allocas.append(f"  store {llvm_type} %arg{index}, {self.alloca_ptr()} {slot}")
        return f"{llvm_type} %arg{index}", (slot, self.target.alloca_space)

    def kernel_head(self, name: str, parameters: list[str]) -> str:
        return f"define protected {self.target.kernel_cc} void @{quote(name)}({', '.join(parameters)}) #0 {{"

    def function_text(self, head: str) -> str:
        return "\n".join([head, "entry:", *self.allocas, "  br label %body", "body:", *self.lines, "}", ""])

    # -- memory -------------------------------------------------------------------------------------
    def managed_address(self, name: str) -> str:
        """Where a `__managed__` variable is on AMDGPU: the pointer `@name` holds (`variable_definition`), which
        the runtime writes before any launch."""
        return self.value(f"load ptr addrspace(1), ptr addrspace(1) @{quote(name)}, align 8, !invariant.load !{{}}")

    def offset_pointer(self, pointer: str, space: int, offset: int | str) -> str:
        return self.value(f"getelementptr inbounds i8, {self.ptr(space)} {pointer}, i64 {offset}")

    def integer_pointer(self, value: str, integer: str, space: int) -> str:
        """An address held in an integer, as a pointer into `space`."""
        return self.value(f"inttoptr {integer} {value} to {self.ptr(space)}")

    def space_cast(self, pointer: str, have: int, want: int) -> str:
        if have == want:
            return pointer
        return self.value(f"addrspacecast {self.ptr(have)} {pointer} to {self.ptr(want)}")

    def load(self, ptx_type: str, pointer: str, space: int, align: int, volatile: bool = False,
             invariant: bool = False) -> str:
        """A load; `invariant`: memory the kernel never writes (ld.global.nc, __ldg), which LLVM may
        hoist, merge or make a scalar load."""
        marks = ", !invariant.load !{}" if invariant and not volatile else ""
        return self.value(f"load {'volatile ' if volatile else ''}{value_type(ptx_type)}, {self.ptr(space)} "
                          f"{pointer}, align {align}{marks}")

    def store(self, ptx_type: str, value: str, pointer: str, space: int, align: int, volatile: bool = False) -> None:
        self.emit(f"store {'volatile ' if volatile else ''}{value_type(ptx_type)} {value}, {self.ptr(space)} "
                  f"{pointer}, align {align}")

    def convert_space(self, value: str, ptx_type: str, space: int, to_space: bool) -> str:
        """An integer address moved from the generic space to `space` (`to_space`) or back (cvta)."""
        have, want = (0, space) if to_space else (space, 0)
        pointer = self.value(f"inttoptr {int_type(ptx_type)} {value} to {self.ptr(have)}")
        cast = self.value(f"addrspacecast {self.ptr(have)} {pointer} to {self.ptr(want)}")
        return self.value(f"ptrtoint {self.ptr(want)} {cast} to {int_type(ptx_type)}")

    # -- integer and float arithmetic ---------------------------------------------------------------
    def arithmetic(self, operation: str, ptx_type: str, a: str, b: str) -> str:
        return self.value(f"{operation} {value_type(ptx_type)} {a}, {b}")

    def float_arithmetic(self, operation: str, ptx_type: str, a: str, b: str, contractible: bool) -> str:
        """fadd/fsub/fmul. `contractible`: PTX's mul/add/sub with no rounding modifier, which the PTX ISA lets
        the code generator fuse into an fma (nvcc's default -fmad=true: ptxas does), carry LLVM's `contract`,
        so NVPTX's and AMDGPU's instruction selection may fuse them as ptxas would; an explicit `.rn` (and
        SASS's FADD/FMUL, whose fusing ptxas already decided) is never fused."""
        flag = "contract " if contractible else ""
        return self.value(f"{operation} {flag}{value_type(ptx_type)} {a}, {b}")

    def clamp_unit(self, value: str, ptx_type: str) -> str:
        """A float saturated to [0, 1] (.sat)."""
        llvm_type = value_type(ptx_type)
        low = self.value(f"call {llvm_type} {self.intrinsic('llvm.maxnum', llvm_type, 2)}({llvm_type} {value}, "
                         f"{llvm_type} 0.0)")
        return self.value(f"call {llvm_type} {self.intrinsic('llvm.minnum', llvm_type, 2)}({llvm_type} {low}, "
                          f"{llvm_type} 1.0)")

    def wide_sum(self, operation: str, bits: int, a: str, b: str, carry: str | None) -> str:
        """a + b (+ carry) or a - b (- borrow) of `bits`-wide values (carry: an i32 0/1), in twice the width:
        the top half is the carry out (for subtraction, the borrow)."""
        small, wide = f"i{bits}", f"i{2 * bits}"
        total = self.value(f"{operation} {wide} {self.value(f'zext {small} {a} to {wide}')}, "
                           f"{self.value(f'zext {small} {b} to {wide}')}")
        if carry is not None:
            total = self.value(f"{operation} {wide} {total}, {self.value(f'zext i32 {carry} to {wide}')}")
        return total

    def carry_out(self, total: str, bits: int) -> str:
        """The carry (an i1) of a `wide_sum`."""
        wide = f"i{2 * bits}"
        return self.value(f"icmp ne {wide} {self.value(f'lshr {wide} {total}, {bits}')}, 0")

    def multiply(self, mode: str, a: str, b: str, ptx_type: str) -> tuple[str, str]:
        """a * b, its .lo, .hi or .wide part: (value, its PTX type)."""
        bits = width(ptx_type)
        small, wide = f"i{bits}", f"i{2 * bits}"
        if mode == "lo":
            return self.value(f"mul {small} {a}, {b}"), ptx_type
        extend = "sext" if is_signed(ptx_type) else "zext"
        product = self.value(f"mul {wide} {self.value(f'{extend} {small} {a} to {wide}')}, "
                             f"{self.value(f'{extend} {small} {b} to {wide}')}")
        if mode == "wide":
            return product, f"{ptx_type[0]}{2 * bits}"
        high = self.value(f"lshr {wide} {product}, {bits}")
        return self.value(f"trunc {wide} {high} to {small}"), ptx_type

    def low24(self, value: str, ptx_type: str) -> str:
        shifted = self.value(f"shl i32 {value}, 8")
        return self.value(f"{'ashr' if is_signed(ptx_type) else 'lshr'} i32 {shifted}, 8")

    def fma(self, ptx_type: str, a: str, b: str, c: str, rounding: str | None = None) -> str:
        """a * b + c rounded once: to nearest, or (f32) down / up / toward zero ("rm", "rp", "rz")."""
        llvm_type = value_type(ptx_type)
        fma = self.intrinsic("llvm.fma", llvm_type, 3)
        if rounding and ptx_type not in ("f32", "f64"):
            raise Unsupported(f"fma.{rounding}.{ptx_type} (a directed rounding of a fused multiply-add)")
        if not rounding:
            return self.value(f"call {llvm_type} {fma}({llvm_type} {a}, {llvm_type} {b}, {llvm_type} {c})")
        result = (self.directed_fma_f32 if ptx_type == "f32" else self.directed_fma_f64)(a, b, c, rounding)
        if rounding != "rm":
            return result
        # An exact zero is -0 rounding down (+0 only of +0 + +0): -((-a) * b + (-c)) rounded to nearest, where that
        # is zero too (a tiny nonzero result rounds down to 0 or its own sign's zero either way).
        negated = self.value(f"call {llvm_type} {fma}({llvm_type} {self.value(f'fneg {llvm_type} {a}')}, "
                             f"{llvm_type} {b}, {llvm_type} {self.value(f'fneg {llvm_type} {c}')})")
        zero = self.value(f"and i1 {self.value(f'fcmp oeq {llvm_type} {result}, 0.0')}, "
                          f"{self.value(f'fcmp oeq {llvm_type} {negated}, 0.0')}")
        return self.value(f"select i1 {zero}, {llvm_type} {self.value(f'fneg {llvm_type} {negated}')}, "
                          f"{llvm_type} {result}")

    def directed_fma_f32(self, a: str, b: str, c: str, rounding: str) -> str:
        """fma.rm/.rp/.rz.f32 (CUDA's expf rounds down to split off an exponent): the exact a*b + c is
        s + error in double (a float product is exact there, TwoSum gives the addition's error); rounded to
        nearest, then stepped one float toward the wanted direction when that rounding went the other way."""
        ad, bd, cd = (self.value(f"fpext float {x} to double") for x in (a, b, c))
        product = self.value(f"fmul double {ad}, {bd}")
        return self.narrowed(*self.two_sum(product, cd), "f64", "f32", rounding)

    def directed_fma_f64(self, a: str, b: str, c: str, rounding: str) -> str:
        """fma.rm/.rp/.rz.f64 (ptxas' __ddiv_rz and __drcp_ru end in one): fma rounded to nearest and its error
        a*b + c - r by Boldo and Muller's ErrFma (TwoProduct, two TwoSums), exact but for what the product's
        own error lost underflowing, less than half the smallest denormal: where ErrFma's error is zero, that
        loss decides (the product error scaled where it cannot underflow, less the one used)."""
        fma = self.intrinsic("llvm.fma", "double", 3)
        nearest = self.value(f"call double {fma}(double {a}, double {b}, double {c})")
        product = self.value(f"fmul double {a}, {b}")
        product_error = self.value(f"call double {fma}(double {a}, double {b}, double "
                                   f"{self.value(f'fneg double {product}')})")
        c_sum, c_error = self.two_sum(c, product_error)
        high, high_error = self.two_sum(product, c_sum)
        gap = self.value(f"fadd double {self.value(f'fsub double {high}, {nearest}')}, {high_error}")
        error = self.value(f"fadd double {gap}, {c_error}")
        scaled_error, shift = self.product_error(product, a, b)
        loss = self.value(f"fsub double {scaled_error}, {self.scaled(product_error, shift)}")  # exact (Sterbenz)
        error = self.value(f"select i1 {self.value(f'fcmp oeq double {error}, 0.0')}, double {loss}, double {error}")
        finite = self.value(f"and i1 {self.value(f'and i1 {self.finite(a)}, {self.finite(b)}')}, {self.finite(c)}")
        overflowed = self.value(f"and i1 {finite}, {self.value(f'xor i1 {self.finite(nearest)}, true')}")
        return self.directed_double(nearest, error, rounding, overflowed)

    # Directed rounding (PTX's .rz/.rm/.rp on add, sub, mul, div, sqrt, rcp and cvt; CUDA's __fadd_rz, __dmul_ru,
    # __int2float_rd...): the exact result is held as a value rounded to nearest plus the sign of what that
    # rounding dropped, and the nearest value is stepped one place toward the wanted direction where it went
    # the other way. Floats compute in double, where their products, sums' errors (TwoSum), quotients'
    # remainders and roots' residuals (fma) are exact; doubles compute the same errors in double, scaled
    # where they would underflow.
    def two_sum(self, a: str, b: str) -> tuple[str, str]:
        """a + b (doubles) as (the sum rounded to nearest, its exact error) (Knuth's TwoSum)."""
        total = self.value(f"fadd double {a}, {b}")
        b_part = self.value(f"fsub double {total}, {a}")
        a_part = self.value(f"fsub double {total}, {b_part}")
        error = self.value(f"fadd double {self.value(f'fsub double {a}, {a_part}')}, "
                           f"{self.value(f'fsub double {b}, {b_part}')}")
        return total, error

    def narrowed(self, total: str, error: str, wide_type: str, narrow_type: str, rounding: str) -> str:
        """The exact value total + error (of `wide_type`; `error` counts by its sign only, and only where total
        is of `narrow_type`) rounded to `narrow_type` down ("rm"), up ("rp") or toward zero ("rz")."""
        wide, narrow = value_type(wide_type), value_type(narrow_type)
        nearest = self.value(f"fptrunc {wide} {total} to {narrow}")
        back = self.value(f"fpext {narrow} {nearest} to {wide}")
        tie = self.value(f"fcmp oeq {wide} {back}, {total}")
        error_negative = self.value(f"fcmp olt {wide} {error}, 0.0")
        error_positive = self.value(f"fcmp ogt {wide} {error}, 0.0")
        above = self.value(f"or i1 {self.value(f'fcmp ogt {wide} {back}, {total}')}, "
                           f"{self.value(f'and i1 {tie}, {error_negative}')}")
        below = self.value(f"or i1 {self.value(f'fcmp olt {wide} {back}, {total}')}, "
                           f"{self.value(f'and i1 {tie}, {error_positive}')}")
        return self.stepped(nearest, narrow_type, above, below, rounding)

    def stepped(self, nearest: str, ptx_type: str, above: str, below: str, rounding: str) -> str:
        """`nearest`, the exact value rounded to nearest (`above` or `below` it, i1s), rounded down ("rm"), up
        ("rp") or toward zero ("rz") instead: one step of its bit pattern's magnitude where needed (from zero to
        the smallest denormal, from infinity to the largest finite value)."""
        llvm_type, bits_type = value_type(ptx_type), int_type(ptx_type)
        sign = 1 << (width(ptx_type) - 1)
        bits = self.value(f"bitcast {llvm_type} {nearest} to {bits_type}")
        negative = self.value(f"icmp slt {bits_type} {bits}, 0")
        is_zero = self.value(f"fcmp oeq {llvm_type} {nearest}, 0.0")
        plus_one = self.value(f"add {bits_type} {bits}, 1")
        minus_one = self.value(f"sub {bits_type} {bits}, 1")
        down = self.value(f"select i1 {is_zero}, {bits_type} {-sign + 1}, {bits_type} "
                          f"{self.value(f'select i1 {negative}, {bits_type} {plus_one}, {bits_type} {minus_one}')}")
        up = self.value(f"select i1 {is_zero}, {bits_type} 1, {bits_type} "
                        f"{self.value(f'select i1 {negative}, {bits_type} {minus_one}, {bits_type} {plus_one}')}")
        if rounding == "rm":
            step_down, step_up = above, "false"
        elif rounding == "rp":
            step_down, step_up = "false", below
        else:  # rz: toward zero, so down for a positive result and up for a negative one
            step_down = self.value(f"and i1 {above}, {self.value(f'fcmp ogt {llvm_type} {nearest}, 0.0')}")
            step_up = self.value(f"and i1 {below}, {self.value(f'fcmp olt {llvm_type} {nearest}, 0.0')}")
        chosen = self.value(f"select i1 {step_down}, {bits_type} {down}, {bits_type} "
                            f"{self.value(f'select i1 {step_up}, {bits_type} {up}, {bits_type} {bits}')}")
        return self.value(f"bitcast {bits_type} {chosen} to {llvm_type}")

    def directed_double(self, nearest: str, error: str, rounding: str, overflowed: str = "false") -> str:
        """A double rounded to nearest whose exact value is nearest + error (by error's sign) rounded down, up or
        toward zero. `overflowed`: nearest is an infinity the rounding of a finite value made."""
        error = self.value(f"select i1 {overflowed}, double {self.value(f'fneg double {nearest}')}, double {error}")
        return self.stepped(nearest, "f64", self.value(f"fcmp olt double {error}, 0.0"),
                            self.value(f"fcmp ogt double {error}, 0.0"), rounding)

    def scaled(self, value: str, exponent: str) -> str:
        """value * 2^exponent (an i32), exact where it neither overflows nor underflows."""
        name = "llvm.ldexp.f64.i32"
        self.declare(name, f"declare double @{name}(double, i32)")
        return self.value(f"call double @{name}(double {value}, i32 {exponent})")

    def finite(self, value: str, llvm_type: str = "double") -> str:
        magnitude = self.value(f"call {llvm_type} {self.intrinsic('llvm.fabs', llvm_type, 1)}({llvm_type} {value})")
        return self.value(f"fcmp one {llvm_type} {magnitude}, 0x7FF0000000000000")

    def directed_arithmetic(self, operation: str, ptx_type: str, a: str, b: str, rounding: str) -> str:
        """add/sub/mul/div.rz/.rm/.rp (f32, f64): the exact a `operation` b rounded toward zero, down or up."""
        if ptx_type not in ("f32", "f64"):
            raise Unsupported(f"{operation}.{rounding}.{ptx_type} (a directed rounding of {ptx_type})")
        if operation == "fsub":
            operation, b = "fadd", self.value(f"fneg {value_type(ptx_type)} {b}")
        if ptx_type == "f32":
            ad, bd = (self.value(f"fpext float {x} to double") for x in (a, b))
            if operation == "fadd":
                total, error = self.two_sum(ad, bd)
            elif operation == "fmul":
                total, error = self.value(f"fmul double {ad}, {bd}"), "0.0"  # 24 x 24 bits: exact
            else:
                total = self.value(f"fdiv double {ad}, {bd}")
                error = self.quotient_error(total, ad, bd, scaled=False)
            result = self.narrowed(total, error, "f64", "f32", rounding)
        else:
            both_finite = self.value(f"and i1 {self.finite(a)}, {self.finite(b)}")
            if operation == "fadd":
                total, error = self.two_sum(a, b)
            elif operation == "fmul":
                total = self.value(f"fmul double {a}, {b}")
                error = self.product_error(total, a, b)[0]
            else:
                total = self.value(f"fdiv double {a}, {b}")
                error = self.quotient_error(total, a, b, scaled=True)
                both_finite = self.value(f"and i1 {both_finite}, {self.value(f'fcmp une double {b}, 0.0')}")
            overflowed = self.value(f"and i1 {both_finite}, {self.value(f'xor i1 {self.finite(total)}, true')}")
            result = self.directed_double(total, error, rounding, overflowed)
        if operation == "fadd" and rounding == "rm":
            # An exact zero sum is -0 rounding down (+0 only of +0 + +0): -((-a) + (-b)) rounded to nearest.
            llvm_type = value_type(ptx_type)
            negated = self.value(f"fadd {llvm_type} {self.value(f'fneg {llvm_type} {a}')}, "
                                 f"{self.value(f'fneg {llvm_type} {b}')}")
            zero = self.value(f"fcmp oeq {llvm_type} {result}, 0.0")
            result = self.value(f"select i1 {zero}, {llvm_type} {self.value(f'fneg {llvm_type} {negated}')}, "
                                f"{llvm_type} {result}")
        return result

    def product_error(self, product: str, a: str, b: str) -> tuple[str, str]:
        """The error a * b - product of a double product, exact, and the power of two (an i32) it is scaled by:
        fma's, with the smaller operand and the product scaled by 2^1074 where the product is below 2^-968 (the
        error could underflow there)."""
        magnitude = self.value(f"call double {self.intrinsic('llvm.fabs', 'double', 1)}(double {product})")
        tiny = self.value(f"fcmp olt double {magnitude}, 0x{0x0370000000000000:016X}")  # 2^-968
        a_smaller = self.value(f"fcmp olt double {self.value(f'call double @llvm.fabs.f64(double {a})')}, "
                               f"{self.value(f'call double @llvm.fabs.f64(double {b})')}")
        small = self.value(f"select i1 {a_smaller}, double {a}, double {b}")
        large = self.value(f"select i1 {a_smaller}, double {b}, double {a}")
        shift = self.value(f"select i1 {tiny}, i32 1074, i32 0")
        negated = self.value(f"fneg double {self.scaled(product, shift)}")
        return self.value(f"call double {self.intrinsic('llvm.fma', 'double', 3)}(double {self.scaled(small, shift)}, "
                          f"double {large}, double {negated})"), shift

    def quotient_error(self, quotient: str, a: str, b: str, scaled: bool) -> str:
        """A value with the sign of a / b - quotient, for the quotient rounded to nearest: the remainder
        a - quotient * b (exact by fma) times b's sign. `scaled` (doubles): a and b scaled alike so that the
        larger is near 2^1000, where the remainder cannot underflow."""
        if scaled:
            larger = self.value(f"call double {self.intrinsic('llvm.maxnum', 'double', 2)}("
                                f"double {self.value(f'call double @llvm.fabs.f64(double {a})')}, "
                                f"double {self.value(f'call double @llvm.fabs.f64(double {b})')})")
            name = "llvm.frexp.f64.i32"
            self.declare(name, f"declare {{double, i32}} @{name}(double)")
            exponent = self.value(f"extractvalue {{double, i32}} {self.value(f'call {{double, i32}} @{name}(double {larger})')}, 1")
            shift = self.value(f"call i32 {self.intrinsic('llvm.smax', 'i32', 2)}(i32 {self.value(f'sub i32 1000, {exponent}')}, i32 0)")
            a, b = self.scaled(a, shift), self.scaled(b, shift)
        self.intrinsic("llvm.fabs", "double", 1)
        remainder = self.value(f"call double {self.intrinsic('llvm.fma', 'double', 3)}("
                               f"double {self.value(f'fneg double {quotient}')}, double {b}, double {a})")
        sign = self.value(f"call double {self.intrinsic('llvm.copysign', 'double', 2)}(double 1.0, double {b})")
        return self.value(f"fmul double {remainder}, {sign}")

    def directed_root(self, ptx_type: str, a: str, rounding: str) -> str:
        """sqrt.rz/.rm/.rp: the root rounded to nearest and the sign of its residual a - root^2 (exact by fma;
        for doubles below 2^-900, with a scaled by 2^1000 and the root by 2^500, where it cannot underflow)."""
        if ptx_type not in ("f32", "f64"):
            raise Unsupported(f"sqrt.{rounding}.{ptx_type} (a directed rounding of {ptx_type})")
        wide = self.value(f"fpext float {a} to double") if ptx_type == "f32" else a
        root = self.value(f"call double {self.intrinsic('llvm.sqrt', 'double', 1)}(double {wide})")
        shift = "0"
        if ptx_type == "f64":
            shift = self.value(f"select i1 {self.value(f'fcmp olt double {wide}, 0x{0x07B0000000000000:016X}')}, "
                               "i32 500, i32 0")  # 2^-900
        scaled_root = self.scaled(root, shift)
        residual = self.value(f"call double {self.intrinsic('llvm.fma', 'double', 3)}("
                              f"double {self.value(f'fneg double {scaled_root}')}, double {scaled_root}, "
                              f"double {self.scaled(wide, self.value(f'shl i32 {shift}, 1'))})")
        if ptx_type == "f32":
            return self.narrowed(root, residual, "f64", "f32", rounding)
        return self.directed_double(root, residual, rounding)

    def unary(self, base: str, ptx_type: str, a: str, flags: str = "") -> str:
        llvm_type = value_type(ptx_type)
        return self.value(f"call {flags}{llvm_type} {self.intrinsic(base, llvm_type, 1)}({llvm_type} {a})")

    def min_max(self, which: str, ptx_type: str, a: str, b: str, propagate_nan: bool = False) -> str:
        if is_float(ptx_type):
            base = f"llvm.{which}imum" if propagate_nan else f"llvm.{which}num"
        else:
            base = f"llvm.{'s' if is_signed(ptx_type) else 'u'}{which}"
        llvm_type = value_type(ptx_type)
        return self.value(f"call {llvm_type} {self.intrinsic(base, llvm_type, 2)}({llvm_type} {a}, {llvm_type} {b})")

    def relu(self, ptx_type: str, value: str) -> str:
        """Negative integer lanes become 0."""
        llvm_type = value_type(ptx_type)
        zero = "zeroinitializer" if ptx_type in PACKED_INTEGER_TYPES else "0"
        return self.value(f"call {llvm_type} {self.intrinsic('llvm.smax', llvm_type, 2)}({llvm_type} {value}, "
                          f"{llvm_type} {zero})")

    def absolute(self, ptx_type: str, a: str) -> str:
        if is_float(ptx_type):
            return self.unary("llvm.fabs", ptx_type, a)
        llvm_type = value_type(ptx_type)
        name = f"llvm.abs.{llvm_type}"
        self.declare(name, f"declare {llvm_type} @{name}({llvm_type}, i1)")
        return self.value(f"call {llvm_type} @{name}({llvm_type} {a}, i1 false)")

    def negate(self, ptx_type: str, a: str) -> str:
        llvm_type = value_type(ptx_type)
        return self.value(f"fneg {llvm_type} {a}") if is_float(ptx_type) else self.value(f"sub {llvm_type} 0, {a}")

    def shift(self, operation: str, ptx_type: str, a: str, amount: str) -> str:
        """shl / lshr / ashr by an i32 amount; amounts at or past the width give 0 (or the sign), as on
        NVIDIA, where LLVM would call them poison."""
        llvm_type = int_type(ptx_type)
        bits = width(ptx_type)
        amount = self.resize(amount, "i32", llvm_type, False)
        clamped = self.value(f"call {llvm_type} {self.intrinsic('llvm.umin', llvm_type, 2)}({llvm_type} {amount}, "
                             f"{llvm_type} {bits - 1})")
        result = self.value(f"{operation} {llvm_type} {a}, {clamped}")
        if operation != "ashr":
            too_far = self.value(f"icmp ugt {llvm_type} {amount}, {bits - 1}")
            result = self.value(f"select i1 {too_far}, {llvm_type} 0, {llvm_type} {result}")
        return result

    def funnel(self, direction: str, high: str, low: str, amount: str) -> str:
        """The high ("fshl") or low ("fshr") word of high:low shifted left (right) by `amount` (mod 32):
        one funnel shift (v_alignbit on AMDGPU, shf on NVIDIA)."""
        shift = self.intrinsic(f"llvm.{direction}", "i32", 3)
        return self.value(f"call i32 {shift}(i32 {high}, i32 {low}, i32 {amount})")

    def bit_count(self, base: str, ptx_type: str, a: str, extra: str = "") -> str:
        """llvm.ctpop / llvm.ctlz of a, as an i32."""
        llvm_type = int_type(ptx_type)
        name = f"{base}.{llvm_type}"
        self.declare(name, f"declare {llvm_type} @{name}({llvm_type}{', i1' if extra else ''})")
        counted = self.value(f"call {llvm_type} @{name}({llvm_type} {a}{extra})")
        return self.resize(counted, llvm_type, "i32", False)

    def find_leading(self, ptx_type: str, a: str, shift_amount: bool) -> str:
        """bfind / FLO: the position of the most significant bit (for signed values: the most significant
        bit that differs from the sign), or its distance from the top (`shift_amount`); -1 if none."""
        llvm_type = int_type(ptx_type)
        if is_signed(ptx_type):
            negative = self.value(f"icmp slt {llvm_type} {a}, 0")
            inverted = self.value(f"xor {llvm_type} {a}, -1")
            a = self.value(f"select i1 {negative}, {llvm_type} {inverted}, {llvm_type} {a}")
        name = f"llvm.ctlz.{llvm_type}"
        self.declare(name, f"declare {llvm_type} @{name}({llvm_type}, i1)")
        zeros = self.resize(self.value(f"call {llvm_type} @{name}({llvm_type} {a}, i1 false)"), llvm_type, "i32", False)
        position = zeros if shift_amount else self.value(f"sub i32 {width(ptx_type) - 1}, {zeros}")
        none = self.value(f"icmp eq i32 {zeros}, {width(ptx_type)}")
        return self.value(f"select i1 {none}, i32 -1, i32 {position}")

    def bit_field_extract(self, ptx_type: str, a: str, position: str, length: str) -> str:
        """bfe: `length` bits of a from `position` (both i32, taken mod 256), sign-extended if signed."""
        llvm_type = int_type(ptx_type)
        bits = width(ptx_type)
        position = self.resize(self.value(f"and i32 {position}, 255"), "i32", llvm_type, False)
        length = self.resize(self.value(f"and i32 {length}, 255"), "i32", llvm_type, False)
        umin = self.intrinsic("llvm.umin", llvm_type, 2)
        end = self.value(f"call {llvm_type} {umin}({llvm_type} {self.value(f'add {llvm_type} {position}, {length}')}, "
                         f"{llvm_type} {bits})")
        position = self.value(f"call {llvm_type} {umin}({llvm_type} {position}, {llvm_type} {bits})")
        field_bits = self.value(f"sub {llvm_type} {end}, {position}")
        # Move the field to the top, then back down: arithmetic for signed, logical for unsigned.
        up = self.value(f"sub {llvm_type} {bits}, {end}")
        top = self.value(f"shl {llvm_type} {a}, {up}")
        down = self.value(f"sub {llvm_type} {bits}, {field_bits}")
        down_clamped = self.value(f"call {llvm_type} {umin}({llvm_type} {down}, {llvm_type} {bits - 1})")
        shifted = self.value(f"{'ashr' if is_signed(ptx_type) else 'lshr'} {llvm_type} {top}, {down_clamped}")
        empty = self.value(f"icmp eq {llvm_type} {field_bits}, 0")
        return self.value(f"select i1 {empty}, {llvm_type} 0, {llvm_type} {shifted}")

    def bit_field_insert(self, ptx_type: str, f: str, b: str, position: str, length: str) -> str:
        """bfi: b with `length` bits from `position` (i32s, mod 256) replaced by f's low bits."""
        llvm_type = int_type(ptx_type)
        bits = width(ptx_type)
        position = self.value(f"and i32 {position}, 255")
        length = self.value(f"and i32 {length}, 255")
        wide = "i128" if bits == 64 else "i64"
        ones = self.value(f"shl {wide} 1, {self.value(f'zext i32 {length} to {wide}')}")
        mask = self.value(f"trunc {wide} {self.value(f'sub {wide} {ones}, 1')} to {llvm_type}")
        over = self.value(f"icmp uge i32 {position}, {bits}")
        shift = self.resize(self.value(f"select i1 {over}, i32 0, i32 {position}"), "i32", llvm_type, False)
        mask = self.value(f"select i1 {over}, {llvm_type} 0, {llvm_type} {self.value(f'shl {llvm_type} {mask}, {shift}')}")
        inserted = self.value(f"and {llvm_type} {self.value(f'shl {llvm_type} {f}, {shift}')}, {mask}")
        kept = self.value(f"and {llvm_type} {b}, {self.value(f'xor {llvm_type} {mask}, -1')}")
        return self.value(f"or {llvm_type} {kept}, {inserted}")

    def lop3(self, ptx_type: str, inputs: list[str], table: int) -> str:
        """Any function of three bit vectors, as the sum of the minterms its lookup table selects
        (table bit i: a = bit 2 of i, b = bit 1, c = bit 0; LLVM folds the sum back down)."""
        llvm_type = int_type(ptx_type)
        inverted = [self.value(f"xor {llvm_type} {v}, -1") for v in inputs]
        result = "0"
        for index in range(8):
            if table >> index & 1:
                chosen = [inputs[k] if index >> (2 - k) & 1 else inverted[k] for k in range(3)]
                term = self.value(f"and {llvm_type} {self.value(f'and {llvm_type} {chosen[0]}, {chosen[1]}')}, {chosen[2]}")
                result = self.value(f"or {llvm_type} {result}, {term}")
        return result

    def permute(self, a: str, b: str, selector: str) -> str:
        """prmt / PRMT's default mode: byte i of the result is byte (nibble i of selector & 7) of the pair
        b:a, or that byte's sign replicated when the nibble's bit 3 is set."""
        a = self.value(f"zext i32 {a} to i64")
        b = self.value(f"zext i32 {b} to i64")
        pair = self.value(f"or i64 {a}, {self.value(f'shl i64 {b}, 32')}")
        result = "0"
        for index in range(4):
            shifted_selector = self.value(f"lshr i32 {selector}, {4 * index}")
            nibble = self.value(f"and i32 {shifted_selector}, 15")
            byte_index = self.value(f"and i32 {nibble}, 7")
            bit_offset = self.value(f"zext i32 {self.value(f'shl i32 {byte_index}, 3')} to i64")
            moved = self.value(f"trunc i64 {self.value(f'lshr i64 {pair}, {bit_offset}')} to i32")
            byte = self.value(f"and i32 {moved}, 255")
            replicate = self.value(f"icmp ne i32 {self.value(f'and i32 {nibble}, 8')}, 0")
            sign = self.value(f"icmp ne i32 {self.value(f'and i32 {byte}, 128')}, 0")
            filled = self.value(f"select i1 {sign}, i32 255, i32 0")
            byte = self.value(f"select i1 {replicate}, i32 {filled}, i32 {byte}")
            result = self.value(f"or i32 {result}, {self.value(f'shl i32 {byte}, {8 * index}')}")
        return result

    def copy_sign(self, ptx_type: str, magnitude: str, sign: str) -> str:
        llvm_type = value_type(ptx_type)
        return self.value(f"call {llvm_type} {self.intrinsic('llvm.copysign', llvm_type, 2)}({llvm_type} {magnitude}, "
                          f"{llvm_type} {sign})")

    def reciprocal_root(self, ptx_type: str, a: str) -> str:
        llvm_type = value_type(ptx_type)
        root = self.value(f"call afn {llvm_type} {self.intrinsic('llvm.sqrt', llvm_type, 1)}({llvm_type} {a})")
        return self.value(f"fdiv afn {llvm_type} 1.0, {root}")

    def reciprocal(self, ptx_type: str, a: str, approximate: bool) -> str:
        return self.value(f"fdiv {'afn ' if approximate else ''}{value_type(ptx_type)} 1.0, {a}")

    def log2(self, ptx_type: str, a: str) -> str:
        if self.target.name == "nvptx" and ptx_type == "f32":
            # NVPTX has no lowering for llvm.log2 (LLVM aborts): name PTX's instruction itself.
            self.declare("llvm.nvvm.lg2.approx.f", "declare float @llvm.nvvm.lg2.approx.f(float)")
            return self.value(f"call float @llvm.nvvm.lg2.approx.f(float {a})")
        return self.unary("llvm.log2", ptx_type, a, "afn ")

    def tanh(self, ptx_type: str, a: str) -> str:
        llvm_type = value_type(ptx_type)
        if self.target.name == "nvptx" and ptx_type == "f32":
            # The round trip keeps the hardware's approximation, so the program prints what the original did.
            self.declare("llvm.nvvm.tanh.approx.f32", "declare float @llvm.nvvm.tanh.approx.f32(float)")
            return self.value(f"call float @llvm.nvvm.tanh.approx.f32(float {a})")
        # PTX promises a relative error (2^-11 for f32): near 0, where tanh(x) ~ x, an odd Taylor polynomial
        # (relative error < 3e-5 below |x| = 0.55); beyond, 1 - 2 / (exp(2|x|) + 1) with x's sign, which has
        # no cancellation there and saturates correctly.
        magnitude = self.value(f"call {llvm_type} {self.intrinsic('llvm.fabs', llvm_type, 1)}({llvm_type} {a})")
        doubled = self.value(f"fmul afn {llvm_type} {magnitude}, {float_constant(2 / math.log(2), ptx_type)}")
        exp = self.value(f"call afn {llvm_type} {self.intrinsic('llvm.exp2', llvm_type, 1)}({llvm_type} {doubled})")
        denominator = self.value(f"fadd afn {llvm_type} {exp}, {float_constant(1, ptx_type)}")
        quotient = self.value(f"fdiv afn {llvm_type} {float_constant(2, ptx_type)}, {denominator}")
        large = self.value(f"fsub afn {llvm_type} {float_constant(1, ptx_type)}, {quotient}")
        signed = self.value(f"call {llvm_type} {self.intrinsic('llvm.copysign', llvm_type, 2)}"
                            f"({llvm_type} {large}, {llvm_type} {a})")
        square = self.value(f"fmul {llvm_type} {a}, {a}")
        series = float_constant(62 / 2835, ptx_type)  # Horner in x^2 over x^9 .. x^3's coefficients
        for coefficient in (-17 / 315, 2 / 15, -1 / 3):
            series = self.value(f"fmul {llvm_type} {series}, {square}")
            series = self.value(f"fadd {llvm_type} {series}, {float_constant(coefficient, ptx_type)}")
        cubic_and_up = self.value(f"fmul {llvm_type} {self.value(f'fmul {llvm_type} {series}, {square}')}, {a}")
        small = self.value(f"fadd {llvm_type} {cubic_and_up}, {a}")
        near_zero = self.value(f"fcmp olt {llvm_type} {magnitude}, {float_constant(0.55, ptx_type)}")
        return self.value(f"select i1 {near_zero}, {llvm_type} {small}, {llvm_type} {signed}")

    # -- comparisons, selection and conversions ----------------------------------------------------------
    def compare(self, comparison: str, ptx_type: str, a: str, b: str) -> str:
        """An i1 (a <2 x i1> for packed halves: lane 0 is the low half)."""
        llvm_type = value_type(ptx_type)
        if is_float(ptx_type):
            predicates = {"eq": "oeq", "ne": "one", "lt": "olt", "le": "ole", "gt": "ogt", "ge": "oge",
                          "equ": "ueq", "neu": "une", "ltu": "ult", "leu": "ule", "gtu": "ugt", "geu": "uge",
                          "num": "ord", "nan": "uno"}
            return self.value(f"fcmp {predicates[comparison]} {llvm_type} {a}, {b}")
        signed = is_signed(ptx_type)
        predicates = {"eq": "eq", "ne": "ne", "lt": "slt" if signed else "ult", "le": "sle" if signed else "ule",
                      "gt": "sgt" if signed else "ugt", "ge": "sge" if signed else "uge", "lo": "ult", "ls": "ule",
                      "hi": "ugt", "hs": "uge"}
        if comparison not in predicates:
            raise self.fail(f"comparison {comparison}")
        return self.value(f"icmp {predicates[comparison]} {llvm_type} {a}, {b}")


    def select(self, ptx_type: str, condition: str, a: str, b: str) -> str:
        llvm_type = value_type(ptx_type)
        return self.value(f"select i1 {condition}, {llvm_type} {a}, {llvm_type} {b}")

    def convert(self, a: str, source_type: str, destination_type: str, rounding: str | None = None,
                saturate: bool = False) -> str:
        """cvt / F2F / F2I / I2F / I2I: `rounding` of a float to an integral value ("rni", "rzi", "rmi",
        "rpi"), or of a result that is a float toward zero, down or up ("rz", "rm", "rp": `directed_conversion`);
        `saturate`: floats clamped to [0, 1], integers to the destination's range. Float to integer
        saturates out-of-range values and sends NaN to 0, as NVIDIA's conversions do."""
        source, destination = value_type(source_type), value_type(destination_type)
        if rounding in ("rz", "rm", "rp") and is_float(destination_type):
            result = self.directed_conversion(a, source_type, destination_type, rounding)
            return self.clamp_unit(result, destination_type) if saturate else result
        if is_float(source_type) and is_float(destination_type):
            if rounding:
                base = {"rni": "llvm.roundeven", "rzi": "llvm.trunc", "rmi": "llvm.floor", "rpi": "llvm.ceil"}[rounding]
                a = self.value(f"call {source} {self.intrinsic(base, source, 1)}({source} {a})")
            if width(destination_type) > width(source_type):
                result = self.value(f"fpext {source} {a} to {destination}")
            elif width(destination_type) < width(source_type) or destination != source:
                result = self.value(f"fptrunc {source} {a} to {destination}")
            else:
                result = a
            return self.clamp_unit(result, destination_type) if saturate else result
        if is_float(source_type):
            base = {"rni": "llvm.roundeven", "rzi": None, "rmi": "llvm.floor", "rpi": "llvm.ceil", None: None}[rounding]
            if base:
                a = self.value(f"call {source} {self.intrinsic(base, source, 1)}({source} {a})")
            operation = "llvm.fptosi.sat" if is_signed(destination_type) else "llvm.fptoui.sat"
            suffix = {"float": "f32", "double": "f64", "half": "f16", "bfloat": "bf16"}[source]
            name = f"{operation}.{destination}.{suffix}"
            self.declare(name, f"declare {destination} @{name}({source})")
            return self.value(f"call {destination} @{name}({source} {a})")
        if is_float(destination_type):
            result = self.value(f"{'sitofp' if is_signed(source_type) else 'uitofp'} {source} {a} to {destination}")
            return self.clamp_unit(result, destination_type) if saturate else result
        if saturate:
            return self.integer_saturate(a, source_type, destination_type)
        return self.resize(a, source, destination, is_signed(source_type))

    def directed_conversion(self, a: str, source_type: str, destination_type: str, rounding: str) -> str:
        """An integer or a float converted to a float type rounded toward zero, down or up (cvt.rz.f32.s64,
        cvt.rm.f32.f64, I2F.RP...): integers of up to 32 bits and floats held exactly in double and rounded from
        there; 64-bit integers as their nearest double plus its exact error."""
        if is_float(source_type) and (width(source_type) < width(destination_type) or source_type == destination_type):
            return self.convert(a, source_type, destination_type)  # exact
        if is_float(source_type):
            wide = a if source_type == "f64" else self.value(f"fpext {value_type(source_type)} {a} to double")
            return self.narrowed(wide, "0.0", "f64", destination_type, rounding)
        if width(source_type) <= 32:
            exact = self.convert(a, source_type, "f64")
            return exact if destination_type == "f64" else self.narrowed(exact, "0.0", "f64", destination_type, rounding)
        # high * 2^32 and the low word are exact doubles; their sum, with TwoSum's error, is the integer exactly
        high = self.convert(self.value(f"{'ashr' if is_signed(source_type) else 'lshr'} i64 {a}, 32"), source_type, "f64")
        low = self.convert(self.value(f"and i64 {a}, 4294967295"), "u64", "f64")
        total, error = self.two_sum(self.value(f"fmul double {high}, 4294967296.0"), low)
        if destination_type == "f64":
            return self.directed_double(total, error, rounding)
        return self.narrowed(total, error, "f64", destination_type, rounding)

    def integer_saturate(self, value: str, source_type: str, destination_type: str) -> str:
        source = int_type(source_type)
        bits = width(destination_type)
        low, high = ((-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if is_signed(destination_type) else (0, (1 << bits) - 1))
        signed = is_signed(source_type)
        if width(source_type) <= bits and signed == is_signed(destination_type):
            return self.resize(value, source, int_type(destination_type), signed)
        wide = "i128"
        extended = self.value(f"{'sext' if signed else 'zext'} {source} {value} to {wide}")
        clamped = self.value(f"call {wide} {self.intrinsic('llvm.smax', wide, 2)}({wide} {extended}, {wide} {low})")
        clamped = self.value(f"call {wide} {self.intrinsic('llvm.smin', wide, 2)}({wide} {clamped}, {wide} {high})")
        return self.value(f"trunc {wide} {clamped} to {int_type(destination_type)}")


    def pack_halves(self, half: str, high: str, low: str, rounding: str | None = None) -> str:
        """Two f32 values rounded to `half` (f16, bf16; to nearest, or "rz", "rm", "rp") and packed: `high` in
        the upper 16 bits."""
        parts = []
        for operand in (high, low):
            narrow = self.convert(operand, "f32", half, rounding) if rounding else \
                self.value(f"fptrunc float {operand} to {value_type(half)}")
            parts.append(self.value(f"zext i16 {self.value(f'bitcast {value_type(half)} {narrow} to i16')} to i32"))
        upper = self.value(f"shl i32 {parts[0]}, 16")
        return self.value(f"or i32 {upper}, {parts[1]}")

    def trap(self) -> None:
        self.declare("llvm.trap", "declare void @llvm.trap()")
        self.emit("call void @llvm.trap()")
        self.emit("unreachable")
        self.terminated = True

    # -- synchronisation and atomics ------------------------------------------------------------------
    def barrier(self) -> None:
        if self.target.name == "amdgpu":
            self.declare("llvm.amdgcn.s.barrier", "declare void @llvm.amdgcn.s.barrier()")
            self.emit('fence syncscope("workgroup") release')
            self.emit("call void @llvm.amdgcn.s.barrier()")
            self.emit('fence syncscope("workgroup") acquire')
        else:
            self.declare("llvm.nvvm.barrier0", "declare void @llvm.nvvm.barrier0()")
            self.emit("call void @llvm.nvvm.barrier0()")

    def warp_sync(self, mask: str = "-1") -> None:
        """bar.warp.sync / WARPSYNC: the lanes of `mask` meet (NVPTX); a wave barrier on AMDGPU."""
        if self.target.name == "amdgpu":
            self.declare("llvm.amdgcn.wave.barrier", "declare void @llvm.amdgcn.wave.barrier()")
            self.emit("call void @llvm.amdgcn.wave.barrier()")
        else:
            self.declare("llvm.nvvm.bar.warp.sync", "declare void @llvm.nvvm.bar.warp.sync(i32)")
            self.emit(f"call void @llvm.nvvm.bar.warp.sync(i32 {mask})")


    def fence(self, scope: str) -> None:
        """A sequentially consistent fence at PTX's scope names (cta, gpu, sys, cluster)."""
        self.emit(f"fence{self.scope(scope)} seq_cst")

    def scope(self, scope: str) -> str:
        return SCOPES_AMDGPU.get(scope, "") if self.target.name == "amdgpu" else ""

    def atomic(self, operation: str, ptx_type: str, pointer: str, space: int, value: str, scope: str = "gpu",
               ordering: str = "monotonic") -> str:
        """An atomic read-modify-write (PTX's operation names: add, exch, and, or, xor, inc, dec, min, max,
        signedness and floatness from `ptx_type`); the old value."""
        operations = {"add": "fadd" if is_float(ptx_type) else "add", "exch": "xchg", "and": "and", "or": "or",
                      "xor": "xor", "inc": "uinc_wrap", "dec": "udec_wrap",
                      "min": "fmin" if is_float(ptx_type) else ("min" if is_signed(ptx_type) else "umin"),
                      "max": "fmax" if is_float(ptx_type) else ("max" if is_signed(ptx_type) else "umax")}
        return self.value(f"atomicrmw {operations[operation]} {self.ptr(space)} {pointer}, {value_type(ptx_type)} "
                          f"{value}{self.scope(scope)} {ordering}")

    def compare_exchange(self, bits: int, pointer: str, space: int, expected: str, new: str, scope: str = "gpu",
                         ordering: str = "monotonic") -> str:
        """atom.cas / ATOM.CAS: the old value."""
        int_llvm = f"i{bits}"
        pair = self.value(f"cmpxchg {self.ptr(space)} {pointer}, {int_llvm} {expected}, {int_llvm} {new}"
                          f"{self.scope(scope)} {ordering} monotonic")
        return self.value(f"extractvalue {{ {int_llvm}, i1 }} {pair}, 0")

    # -- CUDA's device runtime: printf, assert, malloc/free, as HIP clang lowers them ------------------------
    def printf(self, format_address: str, format_length: int, arguments: list[tuple[str, str]],
               stderr: bool = False) -> None:
        """printf on AMDGPU through the device library's hostcall protocol, the calls HIP clang emits:
        `__ockl_printf_begin`, the format string (its length with the NUL), then each argument in order, an
        i64 ("value": integers zero-extended, doubles as their bits) or a string ("string": an i64 generic
        address, sent as its characters). The host formats it. `format_address` is an i64 generic address;
        `stderr`: to the standard error (`__ockl_fprintf_stderr_begin`), as CUDA prints a failed assert."""
        if stderr:
            begin = self.declare("__ockl_fprintf_stderr_begin", "declare i64 @__ockl_fprintf_stderr_begin()")
            begun = self.value(f"call i64 {begin}()")
        else:
            begin = self.declare("__ockl_printf_begin", "declare i64 @__ockl_printf_begin(i64)")
            begun = self.value(f"call i64 {begin}(i64 0)")
        text = self.declare("__ockl_printf_append_string_n",
                            "declare i64 @__ockl_printf_append_string_n(i64, ptr, i64, i32)")
        values = self.declare("__ockl_printf_append_args",
                              "declare i64 @__ockl_printf_append_args(i64, i32, i64, i64, i64, i64, i64, i64, i64, i32)")
        pointer = self.value(f"inttoptr i64 {format_address} to ptr")
        message = self.value(f"call i64 {text}(i64 {begun}, ptr {pointer}, i64 {format_length}, "
                             f"i32 {int(not arguments)})")
        for index, (kind, value) in enumerate(arguments):
            last = int(index == len(arguments) - 1)
            if kind == "string":
                length = self.string_length(value)
                string = self.value(f"inttoptr i64 {value} to ptr")
                message = self.value(f"call i64 {text}(i64 {message}, ptr {string}, i64 {length}, i32 {last})")
            else:
                message = self.value(f"call i64 {values}(i64 {message}, i32 1, i64 {value}, i64 0, i64 0, i64 0, "
                                     f"i64 0, i64 0, i64 0, i32 {last})")

    def string_length(self, address: str) -> str:
        """The length with its NUL of the C string at the i64 generic `address`; 0 for a null pointer (what
        HIP clang's printf sends for a %s argument)."""
        number = self.counter = self.counter + 1
        slot = self.slot(f"strlen.{number}", "i64", 8)
        self.emit(f"store i64 0, {self.alloca_ptr()} {slot}")
        start = self.value(f"inttoptr i64 {address} to ptr")

        def count() -> None:
            self.emit(f"br label %strlen{number}")
            self.lines.append(f"strlen{number}:")
            have = self.value(f"load i64, {self.alloca_ptr()} {slot}")
            byte = self.value(f"load i8, ptr {self.value(f'getelementptr inbounds i8, ptr {start}, i64 {have}')}, "
                              "align 1")
            self.emit(f"store i64 {self.value(f'add i64 {have}, 1')}, {self.alloca_ptr()} {slot}")
            self.emit(f"br i1 {self.value(f'icmp eq i8 {byte}, 0')}, label %strlen.end{number}, label %strlen{number}")
            self.lines.append(f"strlen.end{number}:")

        self.guarded(self.value(f"icmp ne i64 {address}, 0"), count)
        return self.value(f"load i64, {self.alloca_ptr()} {slot}")

    def assert_format(self) -> str:
        """The i64 generic address of CUDA's assert message format, a constant of the module."""
        text = ASSERT_FORMAT.encode() + b"\0"
        characters = "".join(f"\\{b:02X}" for b in text)
        self.declare("__cassc_assert_format", f"@__cassc_assert_format = linkonce_odr hidden addrspace(1) constant "
                     f'[{len(text)} x i8] c"{characters}", align 1')
        return self.value("ptrtoint ptr addrspace(1) @__cassc_assert_format to i64")

    def assert_fail(self, format_address: str, message: str, file: str, line: str, function: str) -> None:
        """A failed device assert (`__assertfail(message, file, line, function, char size)`): CUDA's message,
        `file:line: function: block: [x,y,z], thread: [x,y,z] Assertion `message` failed.` (ASSERT_FORMAT, at
        the i64 generic `format_address`), printed to the standard error; then the kernel traps, as on NVIDIA."""
        indices = [self.special_register(f"%{base}.{axis}")[0]  # type: ignore[index]
                   for base in ("ctaid", "tid") for axis in "xyz"]
        widened = [self.value(f"zext i32 {i} to i64") for i in indices]
        self.printf(format_address, len(ASSERT_FORMAT) + 1,
                    [("string", file), ("value", self.value(f"zext i32 {line} to i64")), ("string", function),
                     *(("value", w) for w in widened), ("string", message)], stderr=True)
        self.trap()

    def device_malloc(self, size: str) -> str:
        """malloc in device code (i64 size -> i64 generic address): HIP's device heap on AMDGPU
        (`__ockl_dm_alloc`, what HIP's malloc calls), CUDA's own on NVPTX."""
        if self.target.name == "amdgpu":
            return self.value(f"call i64 {self.declare('__ockl_dm_alloc', 'declare i64 @__ockl_dm_alloc(i64)')}"
                              f"(i64 {size})")
        return self.value(f"call i64 {self.declare('malloc', 'declare i64 @malloc(i64)')}(i64 {size})")

    def device_free(self, address: str) -> None:
        if self.target.name == "amdgpu":
            self.emit(f"call void {self.declare('__ockl_dm_dealloc', 'declare void @__ockl_dm_dealloc(i64)')}"
                      f"(i64 {address})")
        else:
            self.emit(f"call void {self.declare('free', 'declare void @free(i64)')}(i64 {address})")

    # -- memory-model loads and stores ---------------------------------------------------------------------
    def ordered_load(self, ptx_type: str, pointer: str, space: int, align: int, ordering: str, scope: str) -> str:
        """ld.acquire / ld.relaxed (LDG.E.STRONG...): an atomic load (`ordering`: acquire or relaxed)."""
        llvm_ordering = "acquire" if ordering == "acquire" else "monotonic"
        return self.value(f"load atomic {value_type(ptx_type)}, {self.ptr(space)} {pointer}{self.scope(scope)} "
                          f"{llvm_ordering}, align {align}")

    def ordered_store(self, ptx_type: str, value: str, pointer: str, space: int, align: int, ordering: str,
                      scope: str) -> None:
        """st.release / st.relaxed: an atomic store (`ordering`: release or relaxed)."""
        llvm_ordering = "release" if ordering == "release" else "monotonic"
        self.emit(f"store atomic {value_type(ptx_type)} {value}, {self.ptr(space)} {pointer}{self.scope(scope)} "
                  f"{llvm_ordering}, align {align}")

    # -- asynchronous copies and memory barriers (sm_80/sm_90), made synchronous -----------------------------
    def copy_bytes(self, destination: str, destination_space: int, source: str, source_space: int, size: int,
                   source_size: str | None = None) -> None:
        """cp.async (and cp.async.bulk): `size` bytes copied now, not asynchronously, so every later wait
        (commit/wait groups, mbarrier phases) has nothing left to wait for. With `source_size` (an i64 at most
        `size`), only that many bytes are read and the rest of the destination is zero-filled."""
        destination_type, source_type = self.ptr(destination_space), self.ptr(source_space)
        copy = f"llvm.memcpy.p{destination_space}.p{source_space}.i64"
        self.declare(copy, f"declare void @{copy}({destination_type}, {source_type}, i64, i1)")
        align = size & -size if size else 1
        if source_size is None:
            self.emit(f"call void @{copy}({destination_type} align {align} {destination}, {source_type} align "
                      f"{align} {source}, i64 {size}, i1 false)")
            return
        count = self.value(f"call i64 {self.intrinsic('llvm.umin', 'i64', 2)}(i64 {source_size}, i64 {size})")
        self.emit(f"call void @{copy}({destination_type} {destination}, {source_type} {source}, i64 {count}, i1 false)")
        fill = f"llvm.memset.p{destination_space}.i64"
        self.declare(fill, f"declare void @{fill}({destination_type}, i8, i64, i1)")
        rest = self.value(f"getelementptr inbounds i8, {destination_type} {destination}, i64 {count}")
        self.emit(f"call void @{fill}({destination_type} {rest}, i8 0, i64 {self.value(f'sub i64 {size}, {count}')}, "
                  "i1 false)")

    # An mbarrier (a 64-bit object in shared memory) here: bits 0-30 the arrivals the current phase still
    # waits for, bits 32-62 the count each phase expects, bit 63 the phase's parity. Its state token (what
    # arrive returns, test_wait takes) is the object as the arrival found it.
    def mbarrier_init(self, pointer: str, space: int, count: str) -> None:
        wide = self.value(f"zext i32 {count} to i64")
        both = self.value(f"or i64 {self.value(f'shl i64 {wide}, 32')}, {wide}")
        self.emit(f"store atomic i64 {both}, {self.ptr(space)} {pointer}{self.scope('gpu')} release, align 8")

    def mbarrier_arrive(self, pointer: str, space: int, count: str, drop: bool = False) -> str:
        """`count` (i32) arrivals on the mbarrier; the last of a phase starts the next (pending = expected, parity
        flipped). `drop`: the arriving threads also leave (each later phase expects `count` fewer). The state
        token (i64)."""
        number = self.counter = self.counter + 1
        slot = self.slot(f"mbarrier.{number}", "i64", 8)
        ptr = f"{self.ptr(space)} {pointer}"
        scope = self.scope("gpu")
        self.emit(f"store i64 {self.value(f'load atomic i64, {ptr}{scope} monotonic, align 8')}, "
                  f"{self.alloca_ptr()} {slot}")
        self.emit(f"br label %mbarrier{number}")
        self.lines.append(f"mbarrier{number}:")
        old = self.value(f"load i64, {self.alloca_ptr()} {slot}")
        n = self.value(f"zext i32 {count} to i64")
        pending = self.value(f"and i64 {old}, 2147483647")
        expected = self.value(f"and i64 {self.value(f'lshr i64 {old}, 32')}, 2147483647")
        if drop:
            expected = self.value(f"sub i64 {expected}, {n}")
        kept = self.value(f"and i64 {old}, -9223372036854775808")  # the parity
        expected_field = self.value(f"shl i64 {expected}, 32")
        left = self.value(f"sub i64 {pending}, {n}")
        arrived = self.value(f"or i64 {kept}, {self.value(f'or i64 {expected_field}, {left}')}")
        flipped = self.value(f"xor i64 {kept}, -9223372036854775808")
        next_phase = self.value(f"or i64 {flipped}, {self.value(f'or i64 {expected_field}, {expected}')}")
        new = self.value(f"select i1 {self.value(f'icmp ule i64 {pending}, {n}')}, i64 {next_phase}, i64 {arrived}")
        pair = self.value(f"cmpxchg {ptr}, i64 {old}, i64 {new}{scope} acq_rel monotonic")
        self.emit(f"store i64 {self.value(f'extractvalue {{ i64, i1 }} {pair}, 0')}, {self.alloca_ptr()} {slot}")
        self.emit(f"br i1 {self.value(f'extractvalue {{ i64, i1 }} {pair}, 1')}, label %mbarrier.end{number}, "
                  f"label %mbarrier{number}")
        self.lines.append(f"mbarrier.end{number}:")
        return old

    def mbarrier_phase_done(self, pointer: str, space: int, parity: str) -> str:
        """Whether the phase of parity `parity` (an i64 0/1) is complete: the mbarrier's parity moved on."""
        scope = self.scope("gpu")
        current = self.value(f"load atomic i64, {self.ptr(space)} {pointer}{scope} acquire, align 8")
        return self.value(f"icmp ne i64 {self.value(f'lshr i64 {current}, 63')}, {parity}")

    def block_reduce(self, operation: str, predicate: str) -> str:
        """bar.red / BAR.RED (__syncthreads_count, _and, _or): a barrier that also counts the block's threads whose
        i1 `predicate` holds; the count (popc, an i32) or whether all / any held (and / or, an i1). AMDGPU counts
        in a word of LDS: zeroed, barrier, atomic adds, barrier, read, barrier (before the next use zeroes it)."""
        if self.target.name == "nvptx":
            name = f"llvm.nvvm.barrier0.{operation}"
            self.declare(name, f"declare i32 @{name}(i32)")
            result = self.value(f"call i32 @{name}(i32 {self.value(f'zext i1 {predicate} to i32')})")
            return result if operation == "popc" else self.value(f"icmp ne i32 {result}, 0")
        self.declare("__cassc_block_count", "@__cassc_block_count = internal addrspace(3) global i32 poison, align 4")
        indices = [self.special_register(f"%tid.{axis}")[0] for axis in "xyz"]  # type: ignore[index]
        low = self.value(f"or i32 {indices[0]}, {indices[1]}")
        first = self.value(f"icmp eq i32 {self.value(f'or i32 {low}, {indices[2]}')}, 0")
        self.guarded(first, lambda: self.emit("store i32 0, ptr addrspace(3) @__cassc_block_count, align 4"))
        self.barrier()
        one = self.value(f"zext i1 {predicate} to i32")
        self.value(f'atomicrmw add ptr addrspace(3) @__cassc_block_count, i32 {one} syncscope("workgroup") monotonic')
        self.barrier()
        count = self.value("load i32, ptr addrspace(3) @__cassc_block_count, align 4")
        self.barrier()
        if operation == "popc":
            return count
        if operation == "or":
            return self.value(f"icmp ne i32 {count}, 0")
        sizes = [self.special_register(f"%ntid.{axis}")[0] for axis in "xyz"]  # type: ignore[index]
        threads = self.value(f"mul i32 {self.value(f'mul i32 {sizes[0]}, {sizes[1]}')}, {sizes[2]}")
        return self.value(f"icmp eq i32 {count}, {threads}")

    def bit_mask(self, start: str, count: str, wrap: bool) -> str:
        """bmsk: `count` one-bits from bit `start` (i32s), both taken mod 32 (wrap) or clamped to 32, the mask cut
        at bit 31."""
        if wrap:
            start, count = (self.value(f"and i32 {v}, 31") for v in (start, count))
        else:
            start, count = (self.value(f"call i32 {self.intrinsic('llvm.umin', 'i32', 2)}(i32 {v}, i32 32)")
                            for v in (start, count))
        wide_count, wide_start = (self.value(f"zext i32 {v} to i64") for v in (count, start))
        ones = self.value(f"sub i64 {self.value(f'shl i64 1, {wide_count}')}, 1")
        return self.value(f"trunc i64 {self.value(f'shl i64 {ones}, {wide_start}')} to i32")

    # -- more warp-level operations (sm_70-sm_90) ----------------------------------------------------------------
    def read_lane(self, value: str, bits: int, lane: str) -> str:
        """`value` (i32 or i64) as lane `lane` (uniform) holds it (AMDGPU)."""
        self.declare("llvm.amdgcn.readlane.i32", "declare i32 @llvm.amdgcn.readlane.i32(i32, i32)")
        if bits == 32:
            return self.value(f"call i32 @llvm.amdgcn.readlane.i32(i32 {value}, i32 {lane})")
        halves = self.value(f"bitcast i64 {value} to <2 x i32>")
        parts = [self.value(f"call i32 @llvm.amdgcn.readlane.i32(i32 "
                            f"{self.value(f'extractelement <2 x i32> {halves}, i32 {index}')}, i32 {lane})")
                 for index in (0, 1)]
        pair = self.value(f"insertelement <2 x i32> {self.value(f'insertelement <2 x i32> poison, i32 {parts[0]}, i32 0')}"
                          f", i32 {parts[1]}, i32 1")
        return self.value(f"bitcast <2 x i32> {pair} to i64")

    def match_any(self, value: str, bits: int, mask: Callable[[], str]) -> str:
        """match.any.sync: the lanes whose `value` (i32/i64) equals this lane's. AMDGPU: each distinct value
        once, led by the lowest lane still unmatched."""
        if self.target.name == "nvptx":
            name = f"llvm.nvvm.match.any.sync.i{bits}"
            self.declare(name, f"declare i32 @{name}(i32, i{bits})")
            return self.value(f"call i32 @{name}(i32 {mask()}, i{bits} {value})")
        number = self.counter = self.counter + 1
        remaining_slot, result_slot = (self.slot(f"match.{part}.{number}", "i32", 4) for part in ("left", "result"))
        self.emit(f"store i32 {self.ballot('true')}, {self.alloca_ptr()} {remaining_slot}")
        self.emit(f"store i32 0, {self.alloca_ptr()} {result_slot}")
        self.emit(f"br label %match{number}")
        self.lines.append(f"match{number}:")
        remaining = self.value(f"load i32, {self.alloca_ptr()} {remaining_slot}")
        leader = self.lowest_lane(remaining)
        same = self.value(f"icmp eq i{bits} {value}, {self.read_lane(value, bits, leader)}")
        matched = self.ballot(same)
        previous = self.value(f"load i32, {self.alloca_ptr()} {result_slot}")
        self.emit(f"store i32 {self.value(f'select i1 {same}, i32 {matched}, i32 {previous}')}, "
                  f"{self.alloca_ptr()} {result_slot}")
        left = self.value(f"and i32 {remaining}, {self.value(f'xor i32 {matched}, -1')}")
        self.emit(f"store i32 {left}, {self.alloca_ptr()} {remaining_slot}")
        self.emit(f"br i1 {self.value(f'icmp eq i32 {left}, 0')}, label %match.end{number}, label %match{number}")
        self.lines.append(f"match.end{number}:")
        return self.value(f"load i32, {self.alloca_ptr()} {result_slot}")

    def lowest_lane(self, lanes: str) -> str:
        """The lowest set bit's index of the i32 lane set `lanes`."""
        self.declare("llvm.cttz.i32", "declare i32 @llvm.cttz.i32(i32, i1)")
        return self.value(f"call i32 @llvm.cttz.i32(i32 {lanes}, i1 true)")

    def match_all(self, value: str, bits: int, mask: Callable[[], str]) -> tuple[str, str]:
        """match.all.sync: (the active lanes if all hold the same `value`, else 0; that as an i1)."""
        if self.target.name == "nvptx":
            name = f"llvm.nvvm.match.all.sync.i{bits}p"
            self.declare(name, f"declare {{i32, i1}} @{name}(i32, i{bits})")
            pair = self.value(f"call {{i32, i1}} @{name}(i32 {mask()}, i{bits} {value})")
            return self.value(f"extractvalue {{i32, i1}} {pair}, 0"), self.value(f"extractvalue {{i32, i1}} {pair}, 1")
        active = self.ballot("true")
        first = self.read_lane(value, bits, self.lowest_lane(active))
        same = self.value(f"icmp eq i32 {self.ballot(self.value(f'icmp eq i{bits} {value}, {first}'))}, {active}")
        return self.value(f"select i1 {same}, i32 {active}, i32 0"), same

    def elect(self, mask: str) -> tuple[str, str]:
        """elect.sync: (the leader's lane, the lowest active lane of `mask`; whether this lane is it)."""
        if self.target.name == "nvptx":
            self.declare("llvm.nvvm.elect.sync", "declare {i32, i1} @llvm.nvvm.elect.sync(i32)")
            pair = self.value(f"call {{i32, i1}} @llvm.nvvm.elect.sync(i32 {mask})")
            return self.value(f"extractvalue {{i32, i1}} {pair}, 0"), self.value(f"extractvalue {{i32, i1}} {pair}, 1")
        leader = self.lowest_lane(self.value(f"and i32 {self.active_mask()}, {mask}"))
        return leader, self.value(f"icmp eq i32 {self.lane_id()}, {leader}")

    # -- warp-level operations ---------------------------------------------------------------------------
    def lane_id(self) -> str:
        if self.target.name == "amdgpu":
            self.declare("llvm.amdgcn.mbcnt.lo", "declare i32 @llvm.amdgcn.mbcnt.lo(i32, i32)")
            return self.value("call i32 @llvm.amdgcn.mbcnt.lo(i32 -1, i32 0)")
        return self.special("laneid")


    def shuffle(self, mode: str, a: str, b: str, c: str, mask: Callable[[], str]) -> tuple[str, Callable[[], str]]:
        """shfl.sync / SHFL (mode up, down, bfly, idx) of the i32 a, with lane operand b and the packed
        clamp/segment mask c: (the value, a function giving the i1 'source lane was in range'). `mask` gives
        the member mask where the target uses one."""
        if self.target.name == "nvptx":
            name = f"llvm.nvvm.shfl.sync.{mode}.i32p"
            self.declare(name, f"declare {{i32, i1}} @{name}(i32, i32, i32, i32)")
            pair = self.value(f"call {{i32, i1}} @{name}(i32 {mask()}, i32 {a}, i32 {b}, i32 {c})")
            return (self.value(f"extractvalue {{i32, i1}} {pair}, 0"),
                    lambda: self.value(f"extractvalue {{i32, i1}} {pair}, 1"))
        # The PTX ISA's definition of shfl, on wave32: pick source lane j, or keep one's own value.
        lane = self.lane_id()
        b_lane = self.value(f"and i32 {b}, 31")
        c_lane = self.value(f"and i32 {c}, 31")
        segment = self.value(f"and i32 {self.value(f'lshr i32 {c}, 8')}, 31")
        not_segment = self.value(f"xor i32 {segment}, -1")
        max_lane = self.value(f"or i32 {self.value(f'and i32 {lane}, {segment}')}, "
                              f"{self.value(f'and i32 {c_lane}, {not_segment}')}")
        min_lane = self.value(f"and i32 {lane}, {segment}")
        if mode == "up":
            j = self.value(f"sub i32 {lane}, {b_lane}")
            valid = self.value(f"icmp sge i32 {j}, {max_lane}")
        elif mode == "down":
            j = self.value(f"add i32 {lane}, {b_lane}")
            valid = self.value(f"icmp sle i32 {j}, {max_lane}")
        elif mode == "bfly":
            j = self.value(f"xor i32 {lane}, {b_lane}")
            valid = self.value(f"icmp sle i32 {j}, {max_lane}")
        else:
            j = self.value(f"or i32 {min_lane}, {self.value(f'and i32 {b_lane}, {not_segment}')}")
            valid = self.value(f"icmp sle i32 {j}, {max_lane}")
        source = self.value(f"select i1 {valid}, i32 {j}, i32 {lane}")
        self.declare("llvm.amdgcn.ds.bpermute", "declare i32 @llvm.amdgcn.ds.bpermute(i32, i32)")
        value = self.value(f"call i32 @llvm.amdgcn.ds.bpermute(i32 {self.value(f'shl i32 {source}, 2')}, i32 {a})")
        return value, lambda: valid

    def ballot(self, predicate: str) -> str:
        """The predicate of each active lane, as a mask. On NVPTX the members are the active lanes: a
        full member mask where the warp has diverged is undefined (SASS votes in divergent loops)."""
        if self.target.name == "amdgpu":
            self.declare("llvm.amdgcn.ballot.i32", "declare i32 @llvm.amdgcn.ballot.i32(i1)")
            return self.value(f"call i32 @llvm.amdgcn.ballot.i32(i1 {predicate})")
        self.declare("llvm.nvvm.vote.ballot.sync", "declare i32 @llvm.nvvm.vote.ballot.sync(i32, i1)")
        return self.value(f"call i32 @llvm.nvvm.vote.ballot.sync(i32 {self.active_mask()}, i1 {predicate})")

    def vote(self, mode: str, predicate: str, mask: Callable[[], str] | None = None) -> str:
        """vote / VOTE (all, any, uni, ballot): an i1, or the i32 ballot. `mask` gives the member mask of
        the .sync forms (NVPTX keeps them)."""
        if self.target.name == "nvptx" and mask is not None:
            result_type = "i32" if mode == "ballot" else "i1"
            name = f"llvm.nvvm.vote.{mode}.sync"
            self.declare(name, f"declare {result_type} @{name}(i32, i1)")
            return self.value(f"call {result_type} @{name}(i32 {mask()}, i1 {predicate})")
        if mode == "ballot":
            return self.ballot(predicate)
        ones = self.ballot(predicate)
        active = self.active_mask()
        any_set = self.value(f"icmp ne i32 {ones}, 0")
        all_set = self.value(f"icmp eq i32 {ones}, {active}")
        return {"any": any_set, "all": all_set}.get(mode) or self.value(
            f"or i1 {all_set}, {self.value(f'xor i1 {any_set}, true')}")

    def warp_reduce(self, operation: str, value: str) -> str:
        """redux.sync / REDUX over the active lanes of the warp: and, or, xor, add, min, max (signed),
        umin, umax of an i32."""
        if self.target.name == "nvptx":
            name = f"llvm.nvvm.redux.sync.{operation}"
            self.declare(name, f"declare i32 @{name}(i32, i32)")
            return self.value(f"call i32 @{name}(i32 {value}, i32 {self.active_mask()})")
        name = f"llvm.amdgcn.wave.reduce.{operation}.i32"
        self.declare(name, f"declare i32 @{name}(i32, i32)")
        return self.value(f"call i32 @{name}(i32 {value}, i32 0)")

    def active_mask(self) -> str:
        if self.target.name == "nvptx":
            self.declare("llvm.nvvm.activemask", "declare i32 @llvm.nvvm.activemask()")
            return self.value("call i32 @llvm.nvvm.activemask()")
        return self.ballot("true")

    # -- special registers -------------------------------------------------------------------------------
    def special(self, name: str) -> str:
        intrinsic = f"llvm.nvvm.read.ptx.sreg.{name.replace('_', '.')}"  # %lanemask_lt: ...sreg.lanemask.lt
        self.declare(intrinsic, f"declare i32 @{intrinsic}()")
        return self.value(f"call i32 @{intrinsic}()")

    def special_register(self, register: str) -> tuple[str, str] | None:
        """(value, its integer type) of a PTX special register, or None if it is not one."""
        name = register.lstrip("%")
        axis = name.rsplit(".", 1)[1] if "." in name else ""
        base = name.split(".")[0]
        if self.target.name == "nvptx":
            if base in ("tid", "ntid", "ctaid", "nctaid") and axis in "xyz":
                return self.special(f"{base}.{axis}"), "i32"
            if name in ("laneid", "warpid", "nwarpid", "smid", "nsmid", "lanemask_eq", "lanemask_lt", "lanemask_le",
                        "lanemask_gt", "lanemask_ge"):
                return self.special(name.replace("lanemask_", "lanemask.")), "i32"  # NVVM's names: lanemask.le
            if name in ("clock", "clock64", "globaltimer"):
                intrinsic = f"llvm.nvvm.read.ptx.sreg.{name}"
                result = "i32" if name == "clock" else "i64"
                self.declare(intrinsic, f"declare {result} @{intrinsic}()")
                return self.value(f"call {result} @{intrinsic}()"), result
            if re.fullmatch(r"envreg\d+", name):
                return self.special(name), "i32"
            return None
        if base == "tid" and axis in "xyz":
            intrinsic = f"llvm.amdgcn.workitem.id.{axis}"
            self.declare(intrinsic, f"declare i32 @{intrinsic}()")
            return self.value(f"call i32 @{intrinsic}()"), "i32"
        if base == "ctaid" and axis in "xyz":
            intrinsic = f"llvm.amdgcn.workgroup.id.{axis}"
            self.declare(intrinsic, f"declare i32 @{intrinsic}()")
            return self.value(f"call i32 @{intrinsic}()"), "i32"
        if base in ("ntid", "nctaid") and axis in "xyz":
            # blockDim and gridDim are not in registers on AMD: read the AQL dispatch packet
            # (u16 workgroup_size_x/y/z at 4/6/8, u32 grid_size_x/y/z in work-items at 12/16/20).
            self.declare("llvm.amdgcn.dispatch.ptr", "declare ptr addrspace(4) @llvm.amdgcn.dispatch.ptr()")
            packet = self.value("call ptr addrspace(4) @llvm.amdgcn.dispatch.ptr()")
            index = "xyz".index(axis)
            size_field = self.value(f"getelementptr inbounds i8, ptr addrspace(4) {packet}, i64 {4 + 2 * index}")
            # A workgroup has 1 to 1024 work-items (amdgpu-flat-work-group-size): the range lets LLVM keep
            # index arithmetic on blockDim narrow.
            size = self.value(f"zext i16 {self.value(f'load i16, ptr addrspace(4) {size_field}, align 2, !range !{{i16 1, i16 1025}}, !invariant.load !{{}}')} to i32")
            if base == "ntid":
                return size, "i32"
            grid_field = self.value(f"getelementptr inbounds i8, ptr addrspace(4) {packet}, i64 {12 + 4 * index}")
            grid = self.value(f"load i32, ptr addrspace(4) {grid_field}, align 4, !invariant.load !{{}}")
            # A CUDA launch is whole blocks (and the kernels say uniform-work-group-size), so the division is
            # exact: LLVM then folds blockDim * gridDim, the grid-stride loop's stride, back to grid_size.
            return self.value(f"udiv exact i32 {grid}, {size}"), "i32"
        if name == "laneid":
            return self.lane_id(), "i32"
        if name == "warpid":
            self.declare("llvm.amdgcn.workitem.id.x", "declare i32 @llvm.amdgcn.workitem.id.x()")
            return self.value(f"lshr i32 {self.value('call i32 @llvm.amdgcn.workitem.id.x()')}, 5"), "i32"
        if name.startswith("lanemask_"):
            lane = self.lane_id()
            bit = self.value(f"shl i32 1, {lane}")
            below = self.value(f"sub i32 {bit}, 1")
            masks = {"eq": bit, "lt": below, "le": self.value(f"or i32 {below}, {bit}"),
                     "gt": self.value(f"xor i32 {self.value(f'or i32 {below}, {bit}')}, -1"),
                     "ge": self.value(f"xor i32 {below}, -1")}
            return masks[name.removeprefix("lanemask_")], "i32"
        if name in ("clock", "clock64"):
            self.declare("llvm.readcyclecounter", "declare i64 @llvm.readcyclecounter()")
            cycles = self.value("call i64 @llvm.readcyclecounter()")
            return (cycles, "i64") if name == "clock64" else (self.value(f"trunc i64 {cycles} to i32"), "i32")
        if name == "globaltimer":
            self.declare("llvm.readsteadycounter", "declare i64 @llvm.readsteadycounter()")
            return self.value("call i64 @llvm.readsteadycounter()"), "i64"
        if name in ("envreg1", "envreg2"):
            return self.grid_workspace_half(high=name == "envreg1"), "i32"
        return None

    def grid_workspace_half(self, high: bool) -> str:
        """%envreg1 / %envreg2: the high / low half of the address of the grid workspace CUDA's driver gives a
        cooperative launch, which cooperative groups' grid.sync() counts arrivals in ({u32 size, u32 barrier};
        each sync adds 2^31 in all, flipping the top bit, so the barrier works launch after launch). Here it is a
        zero-initialised global of the code object (one per program, as the driver's is per launch)."""
        self.declare("__cassc_grid_workspace", "@__cassc_grid_workspace = linkonce_odr hidden addrspace(1) global "
                     "[2 x i32] [i32 8, i32 0], align 8")
        address = self.value("ptrtoint ptr addrspace(1) @__cassc_grid_workspace to i64")
        return self.value(f"trunc i64 {self.value(f'lshr i64 {address}, 32') if high else address} to i32")
