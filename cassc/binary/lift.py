"""PTX (parsed by ptx.py) -> LLVM IR text, for the AMDGPU target (gfx1100) or back to NVPTX.

Every PTX register becomes a stack slot (an `alloca` of its width, integers throughout; float
instructions bitcast), so no SSA construction is needed: LLVM's SROA/mem2reg turns the slots back into
registers. Predicated instructions become a branch around them. What differs between targets — special
registers, barriers, shuffles, votes, where allocas and byval parameters live — is in `Target` and in
the few methods that ask `self.target.name`. The IR for NVPTX is the same except for those, which is
what lets the H200 check the translation: the IR that becomes gfx1100 code also runs on NVIDIA.

Anything not translated raises `Unsupported`, naming the instruction and the function.
"""

from __future__ import annotations

import math
import re
import struct
from dataclasses import dataclass, field, replace

from cassc.binary.ptx import Block, Function, Instruction, Label, Pragma, PtxModule, Registers, Variable
from cassc.binary.reroll import reroll_runtime_unrolled_loops
from cassc.errors import CasscError


class Unsupported(CasscError):
    """A PTX construct the translator does not handle; the message names it and its kernel."""


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
# The SIMD video instructions (`vabsdiff4`, `vadd2`...): the lane operation and the lanes per 32 bits.
SIMD_VIDEO = {f"v{operation}{lanes}": (operation, lanes)
              for operation in ("absdiff", "add", "sub", "min", "max") for lanes in (4, 2)}
INTRINSIC_SUFFIXES = {"float": "f32", "double": "f64", "half": "f16", "bfloat": "bf16", "<2 x half>": "v2f16",
                      "<2 x bfloat>": "v2bf16", "<2 x i16>": "v2i16"}
SCOPES_AMDGPU = {"cta": ' syncscope("workgroup")', "gpu": ' syncscope("agent")', "sys": "", "cluster": ' syncscope("agent")'}
_ADDRESS = re.compile(r"^\[\s*([^\]+\-\s]+)\s*(?:([+-])\s*(-?(?:0[xX][0-9a-fA-F]+|\d+)))?\s*\]$")
_INT = re.compile(r"^-?(?:0[xX][0-9a-fA-F]+|0[0-7]*|[1-9]\d*)U?$")


def width(ptx_type: str) -> int:
    if ptx_type == "pred":
        return 1
    digits = re.sub(r"\D", "", ptx_type.replace("x2", ""))
    return int(digits) * (2 if ptx_type.endswith("x2") else 1)


def int_type(ptx_type: str) -> str:
    return f"i{width(ptx_type)}"


def value_type(ptx_type: str) -> str:
    return FLOAT_TYPES.get(ptx_type) or PACKED_INTEGER_TYPES.get(ptx_type) or int_type(ptx_type)


def is_float(ptx_type: str) -> bool:
    return ptx_type in FLOAT_TYPES


def is_signed(ptx_type: str) -> bool:
    return ptx_type.startswith("s")


def _quote(name: str) -> str:
    return name if re.fullmatch(r"[A-Za-z_.$][\w.$]*", name) else '"' + name.replace('"', "\\22") + '"'


def _ptx_float_value(text: str) -> float:
    """`0f3F800000` / `0d3FF0000000000000` / a decimal or integer literal -> its value."""
    if text.startswith(("0f", "0F")):
        return float(struct.unpack("<f", struct.pack("<I", int(text[2:], 16)))[0])
    if text.startswith(("0d", "0D")):
        return float(struct.unpack("<d", struct.pack("<Q", int(text[2:], 16)))[0])
    return float(_ptx_int(text)) if _INT.match(text) else float(text)


def _ptx_float(text: str, ptx_type: str) -> str:
    """A PTX float literal -> an LLVM constant of `ptx_type`."""
    return float_constant(_ptx_float_value(text), ptx_type)


def float_constant(value: float, ptx_type: str) -> str:
    """`value`, rounded to `ptx_type`, as an LLVM constant of that type."""
    if ptx_type == "f32":
        value = struct.unpack("<f", struct.pack("<f", value))[0]
    if ptx_type == "f16":
        return f"0xH{struct.unpack('<H', struct.pack('<e', value))[0]:04X}"
    if ptx_type == "bf16":
        return f"0xR{struct.unpack('<I', struct.pack('<f', value))[0] >> 16:04X}"
    return f"0x{struct.unpack('<Q', struct.pack('<d', value))[0]:016X}"


def _ptx_int(text: str) -> int:
    text = text.rstrip("U")
    negative = text.startswith("-")
    body = text[1:] if negative else text
    value = int(body, 16) if body[:2] in ("0x", "0X") else (int(body, 8) if len(body) > 1 and body[0] == "0"
                                                             else int(body))
    return -value if negative else value


@dataclass
class LiftedModule:
    ir: str
    kernels: list[str]  # translated kernels
    failures: dict[str, str] = field(default_factory=dict)  # kernel -> why it was not translated
    failed_functions: set[str] = field(default_factory=set)  # every function left out, kernels or not


def lift_module(module: PtxModule, target: Target, data_layout: str,
                linked: frozenset[str] | None = None) -> LiftedModule:
    """The whole module's IR. A function that cannot be translated is left out (and every kernel that
    calls it), with the reason in `failures`.

    `linked`: for a module of separately compiled device code (-rdc), the functions other modules of
    the program define; calls to them become declarations, resolved when the modules' IR is linked."""
    header = [f'target datalayout = "{data_layout}"', f'target triple = "{target.triple}"', ""]
    variables = [_module_variable(v, target, linked is not None) for v in module.variables]
    bodies: dict[str, str] = {}
    failures: dict[str, str] = {}
    shared: list[str] = []
    declared: dict[str, str] = {}
    defined = [f for f in module.functions if f.body is not None]
    for function in defined:
        try:
            rolled = replace(function, body=reroll_runtime_unrolled_loops(function.body or []))
            lifter = FunctionLifter(rolled, module, target, linked or frozenset(), separate=linked is not None)
            bodies[function.name] = lifter.lift()
            shared += lifter.shared_globals
            declared.update(lifter.declarations)
        except Unsupported as error:
            failures[function.name] = str(error)
    # A kernel that calls a function that failed fails too (transitively).
    changed = True
    while changed:
        changed = False
        for function in defined:
            if function.name in bodies:
                missing = [c for c in _callees(function) if c in failures or (
                    (module.function(c) is None or module.function(c).body is None)  # type: ignore[union-attr]
                    and c not in (linked or ()))]
                if missing:
                    failures[function.name] = f"{function.name} calls " + failures.get(
                        missing[0], _without_body(missing[0], linked is not None))
                    del bodies[function.name]
                    changed = True
    kernels = [f.name for f in defined if f.entry and f.name in bodies]
    declarations = [declared[name] for name in sorted(declared)]
    externals = [_external_declaration(f) for f in module.functions
                 if f.body is None and linked and f.name in linked and f.name not in bodies
                 and f"@{_quote(f.name)}(" in "\n".join(bodies.values())]
    ir = "\n".join([*header, *variables, *shared, "", *bodies.values(), *externals, *declarations,
                    *_attributes(target), ""])
    return LiftedModule(ir, kernels, {k: v for k, v in failures.items()
                                      if (module.function(k) and module.function(k).entry)},  # type: ignore[union-attr]
                        set(failures))


# Functions of CUDA's device runtime that PTX calls without a body, and what they are in the source.
DEVICE_RUNTIME = {"vprintf": "device printf", "malloc": "device malloc", "free": "device free",
                  "__assertfail": "assert in device code"}


def _without_body(name: str, separate: bool) -> str:
    """Why a call to `name`, which has no PTX body here, is not translated (after "call to ")."""
    if name in DEVICE_RUNTIME:
        return f"{name} ({DEVICE_RUNTIME[name]}), which cassc does not translate yet"
    if separate:
        return (f"{name}, which another separately compiled (-rdc) object defines: link the objects together "
                "(cassc a.o b.o links their device code, as nvcc -dlink does)")
    return f"{name}, which has no PTX body (a CUDA library function)"


def _llvm_param_type(param: Variable) -> str:
    return f"[{param.size} x i8]" if param.count is not None else int_type(param.type)


def _return_type(function: Function) -> str:
    return _llvm_param_type(function.returns[0]) if function.returns else "void"


def _external_declaration(function: Function) -> str:
    """A device function another module of an -rdc program defines."""
    return (f"declare {_return_type(function)} @{_quote(function.name)}"
            f"({', '.join(_llvm_param_type(p) for p in function.params)})")


def _callees(function: Function) -> list[str]:
    names = []

    def walk(statements) -> None:  # type: ignore[no-untyped-def]
        for statement in statements:
            if isinstance(statement, Block):
                walk(statement.statements)
            elif isinstance(statement, Instruction) and statement.opcode == "call":
                callee = [o for o in statement.operands if not o.startswith("(")]
                if callee:
                    names.append(callee[0].strip())

    walk(function.body or [])
    return names


def _space_number(space: str, target: Target) -> int:
    return target.alloca_space if space == "local" else SPACE_NUMBERS[space]


_FLOAT_LITERAL = re.compile(r"^(?:0[fFdD][0-9a-fA-F]+|-?\d+\.\d*(?:[eE][+-]?\d+)?)$")


def _initializer_bytes(variable: Variable) -> bytes:
    size = variable.element_size
    out = bytearray()
    for word in variable.init:
        if not _INT.match(word) and not _FLOAT_LITERAL.match(word):
            raise Unsupported(f"initializer '{word}' of {variable.name} (addresses in initializers)")
        if variable.type.startswith("f") or _FLOAT_LITERAL.match(word):
            out += struct.pack({2: "<e", 4: "<f", 8: "<d"}[size], _ptx_float_value(word))
        else:
            out += (_ptx_int(word) & ((1 << (8 * size)) - 1)).to_bytes(size, "little")
    return bytes(out)


def _module_variable(variable: Variable, target: Target, separate: bool = False) -> str:
    number = _space_number(variable.space, target)
    name = _quote(variable.name)
    if variable.space == "shared":
        if variable.count == 0 or variable.extern:
            return f"@{name} = external addrspace(3) global [0 x i8], align {variable.align}"
        return f"@{name} = internal addrspace(3) global [{variable.size} x i8] poison, align {variable.align}"
    if variable.extern:
        return f"@{name} = external addrspace({number}) global [{variable.size} x i8], align {variable.align}"
    data = _initializer_bytes(variable)
    if data:
        data = data + bytes(variable.size - len(data))
        init = 'c"' + "".join(f"\\{b:02X}" for b in data[:variable.size]) + '"'
    else:
        init = "zeroinitializer"
    # Visible, so that the runtime finds __device__/__constant__ variables by name (cudaMemcpyToSymbol).
    # Separately compiled modules (-rdc) may each carry the same file-local variable (libdevice's tables):
    # one copy is kept.
    linkage = "linkonce_odr " if separate and not variable.visible else ""
    return (f"@{name} = {linkage}protected addrspace({number}) externally_initialized global "
            f"[{variable.size} x i8] {init}, align {variable.align}")


def _attributes(target: Target) -> list[str]:
    if target.name == "amdgpu":
        return ['attributes #0 = { "amdgpu-flat-work-group-size"="1,1024" "uniform-work-group-size"="true" }',
                'attributes #1 = { alwaysinline }']
    return ["attributes #0 = { nounwind }", "attributes #1 = { alwaysinline }"]


class FunctionLifter:
    def __init__(self, function: Function, module: PtxModule, target: Target,
                 linked: frozenset[str] = frozenset(), separate: bool = False) -> None:
        self.function = function
        self.linked = linked
        self.separate = separate
        self.module = module
        self.target = target
        self.allocas: list[str] = []
        self.lines: list[str] = []
        self.counter = 0
        self.registers: dict[str, str] = {}  # PTX register -> its storage type (i1, i16, i32, i64)
        self.scopes: list[dict[str, tuple[str, int]]] = [{}]  # name -> (pointer, address space)
        self.shared_globals: list[str] = []
        self.terminated = False
        self.globals = {v.name: v for v in module.variables}
        self.current: Instruction | None = None
        self.declarations: dict[str, str] = {}  # intrinsic -> its declaration

    def declare(self, name: str, signature: str) -> str:
        """Remember how to declare an intrinsic; return its name for a call."""
        self.declarations[name] = signature
        return f"@{name}"

    # -- plumbing ---------------------------------------------------------------------------------
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
        where = f"'{self.current.text}' (PTX line {self.current.line})" if self.current else ""
        kind = "kernel" if self.function.entry else "device function"
        return Unsupported(f"{kind} {self.function.name}: {why}{': ' + where if where else ''}")

    def alloca_ptr(self) -> str:
        return f"ptr addrspace({self.target.alloca_space})" if self.target.alloca_space else "ptr"

    @staticmethod
    def ptr(space: int) -> str:
        return f"ptr addrspace({space})" if space else "ptr"

    # -- the function ---------------------------------------------------------------------------
    def lift(self) -> str:
        f = self.function
        params = []
        for index, param in enumerate(f.params):
            if f.entry and (param.count is not None or self.target.kernel_params_in_memory):
                memory_type = f"[{param.size} x i8]" if param.count is not None else int_type(param.type)
                params.append(self.target.byval.format(type=memory_type, align=param.align) + f" %arg{index}")
                self.scopes[0][param.name] = (f"%arg{index}", self.target.byval_space)
            else:
                llvm_type = f"[{param.size} x i8]" if param.count is not None else int_type(param.type)
                params.append(f"{llvm_type} %arg{index}")
                slot = self.slot(f"param.{index}", llvm_type, param.align)
                self.allocas.append(f"  store {llvm_type} %arg{index}, {self.alloca_ptr()} {slot}")
                self.scopes[0][param.name] = (slot, self.target.alloca_space)
        self.return_type = "void"
        if f.returns:
            if len(f.returns) > 1:
                raise self.fail("functions returning several values")
            result = f.returns[0]
            self.return_type = f"[{result.size} x i8]" if result.count is not None else int_type(result.type)
            self.scopes[0][result.name] = (self.slot("retval", self.return_type, result.align),
                                           self.target.alloca_space)
        self.statements(f.body or [])
        if not self.terminated:
            self.ret()
        if f.entry:
            head = f"define protected {self.target.kernel_cc} void @{_quote(f.name)}({', '.join(params)}) #0 {{"
        else:
            # Other modules of an -rdc program may call a visible device function.
            linkage = "hidden" if f.visible and self.linked else "internal"
            head = f"define {linkage} {self.return_type} @{_quote(f.name)}({', '.join(params)}) #1 {{"
        return "\n".join([head, "entry:", *self.allocas, "  br label %body", "body:", *self.lines, "}", ""])

    def slot(self, name: str, llvm_type: str, align: int = 0) -> str:
        pointer = f"%{_quote(name)}" if not name.startswith("%") else name
        suffix = f", addrspace({self.target.alloca_space})" if self.target.alloca_space else ""
        self.allocas.append(f"  {pointer} = alloca {llvm_type}{', align ' + str(align) if align else ''}{suffix}")
        return pointer

    def statements(self, statements) -> None:  # type: ignore[no-untyped-def]
        for statement in statements:
            if isinstance(statement, Registers):
                storage = "i1" if statement.type == "pred" else int_type(statement.type)
                for name in statement.names:
                    if name not in self.registers:
                        self.registers[name] = storage
                        self.slot(self.reg_slot(name), storage)
            elif isinstance(statement, Variable):
                self.local_variable(statement)
            elif isinstance(statement, Label):
                if not self.terminated:
                    self.lines.append(f"  br label %{self.label(statement.name)}")
                self.lines.append(f"{self.label(statement.name)}:")
                self.terminated = False
            elif isinstance(statement, Pragma):
                continue
            elif isinstance(statement, Block):
                self.scopes.append({})
                self.statements(statement.statements)
                self.scopes.pop()
            else:
                self.current = statement
                self.instruction(statement)
        self.current = None

    @staticmethod
    def label(name: str) -> str:
        return _quote(f"L.{name}")

    @staticmethod
    def reg_slot(name: str) -> str:
        return "%" + _quote("r." + name.lstrip("%"))

    def local_variable(self, variable: Variable) -> None:
        if variable.space == "shared":
            unique = variable.name
            self.shared_globals.append(_module_variable(variable, self.target))
            self.scopes[-1][variable.name] = (f"@{_quote(unique)}", 3)
        elif variable.space in ("local", "param"):
            pointer = self.slot(f"{variable.space}.{variable.name}.{len(self.allocas)}",
                                f"[{variable.size} x i8]", variable.align)
            self.scopes[-1][variable.name] = (pointer, self.target.alloca_space)
        else:
            raise self.fail(f"a function-scope .{variable.space} variable")

    def param_space(self) -> int:
        """Where `.param` addresses point: a kernel's parameters are its argument memory (AMDGPU: the
        kernarg segment, byref), a device function's are its own stack slots."""
        return self.target.byval_space if self.function.entry else self.target.alloca_space

    def lookup(self, name: str) -> tuple[str, int] | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        if name in self.globals:
            variable = self.globals[name]
            return f"@{_quote(name)}", _space_number(variable.space, self.target)
        return None

    # -- operands ---------------------------------------------------------------------------------
    def read(self, operand: str, ptx_type: str) -> str:
        """The operand's value as an LLVM value of `value_type(ptx_type)`."""
        operand = operand.strip()
        llvm_type = value_type(ptx_type)
        if operand.startswith("!") and ptx_type == "pred":
            return self.value(f"xor i1 {self.read(operand[1:], 'pred')}, true")
        if operand in self.registers:
            storage = self.registers[operand]
            raw = self.value(f"load {storage}, {self.alloca_ptr()} {self.reg_slot(operand)}")
            return self.convert_storage(raw, storage, ptx_type)
        if operand.startswith("%"):
            special = self.special_register(operand)
            if special is not None:
                return self.resize(special[0], special[1], int_type(ptx_type), False) if not is_float(ptx_type) \
                    else special[0]
            raise self.fail(f"unknown register {operand}")
        if operand == "WARP_SZ":  # PTX's one named constant
            operand = "32"
        if ptx_type.endswith("x2"):
            raise self.fail("packed immediates")
        if is_float(ptx_type):
            return _ptx_float(operand, ptx_type)
        if ptx_type == "pred":
            return "true" if _ptx_int(operand) else "false"
        if _INT.match(operand):
            return str(_ptx_int(operand))
        located = self.lookup(operand)
        if located is not None:  # a variable's address
            pointer, space = located
            return self.value(f"ptrtoint {self.ptr(space)} {pointer} to {llvm_type}")
        raise self.fail(f"unsupported operand '{operand}'")

    def convert_storage(self, raw: str, storage: str, ptx_type: str) -> str:
        wanted = int_type(ptx_type) if ptx_type != "pred" else "i1"
        value = self.resize(raw, storage, wanted, is_signed(ptx_type))
        if value_type(ptx_type) != wanted:  # floats, packed pairs
            return self.value(f"bitcast {wanted} {value} to {value_type(ptx_type)}")
        return value

    def resize(self, value: str, have: str, want: str, signed: bool) -> str:
        if have == want:
            return value
        have_bits, want_bits = int(have[1:]), int(want[1:])
        if want_bits < have_bits:
            return self.value(f"trunc {have} {value} to {want}")
        return self.value(f"{'sext' if signed else 'zext'} {have} {value} to {want}")

    def write(self, register: str, value: str, ptx_type: str) -> None:
        register = register.strip()
        if register == "_":
            return
        if register not in self.registers:
            raise self.fail(f"writes {register}, which is not a declared register")
        storage = self.registers[register]
        as_int = value
        if value_type(ptx_type) != int_type(ptx_type):  # floats, packed pairs
            as_int = self.value(f"bitcast {value_type(ptx_type)} {value} to {int_type(ptx_type)}")
        have = "i1" if ptx_type == "pred" else int_type(ptx_type)
        as_int = self.resize(as_int, have, storage, is_signed(ptx_type))
        self.emit(f"store {storage} {as_int}, {self.alloca_ptr()} {self.reg_slot(register)}")

    def address(self, operand: str, space: str) -> tuple[str, int]:
        """`[base+offset]` -> (pointer, address space) in `space` (global, shared, const, local, param, generic)."""
        match = _ADDRESS.match(operand.strip())
        if not match:
            raise self.fail(f"unsupported address '{operand}'")
        base, sign, offset_text = match.groups()
        offset = _ptx_int(offset_text) * (-1 if sign == "-" else 1) if offset_text else 0
        wanted = self.param_space() if space == "param" else (
            self.target.alloca_space if space == "local" else SPACE_NUMBERS[space])
        if space == "local" and self.target.alloca_space == 0:
            space = "generic"
        if base in self.registers:
            storage = self.registers[base]
            raw = self.value(f"load {storage}, {self.alloca_ptr()} {self.reg_slot(base)}")
            pointer = self.value(f"inttoptr {storage} {raw} to {self.ptr(wanted)}")
            have = wanted
        elif _INT.match(base):
            pointer = self.value(f"inttoptr i64 {_ptx_int(base)} to {self.ptr(wanted)}")
            have = wanted
        else:
            located = self.lookup(base)
            if located is None:
                raise self.fail(f"unknown symbol '{base}'")
            pointer, have = located
            if space == "param":
                wanted = have
        if have != wanted:
            pointer = self.value(f"addrspacecast {self.ptr(have)} {pointer} to {self.ptr(wanted)}")
        if offset:
            pointer = self.value(f"getelementptr inbounds i8, {self.ptr(wanted)} {pointer}, i64 {offset}")
        return pointer, wanted

    # -- instructions ---------------------------------------------------------------------------
    def instruction(self, instruction: Instruction) -> None:
        video = SIMD_VIDEO.get(instruction.opcode)
        handler = (lambda i: self.simd_video(i, *video)) if video else getattr(self, f"op_{instruction.opcode}", None)
        if handler is None:
            raise self.fail(f"instruction '{instruction.opcode}' is not translated")
        if instruction.opcode not in ("add", "sub", "min", "max") and any(
                m in PACKED_INTEGER_TYPES for m in instruction.modifiers):
            raise self.fail(f"'{instruction.opcode}' on packed 16-bit integers")
        if instruction.guard is None or instruction.opcode in ("bra",):
            handler(instruction)
            return
        condition = self.read(instruction.guard, "pred")
        if instruction.negated:
            condition = self.value(f"xor i1 {condition}, true")
        number = self.counter = self.counter + 1
        self.emit(f"br i1 {condition}, label %then{number}, label %join{number}")
        self.lines.append(f"then{number}:")
        handler(instruction)
        if not self.terminated:
            self.emit(f"br label %join{number}")
        self.lines.append(f"join{number}:")
        self.terminated = False

    def types(self, instruction: Instruction) -> list[str]:
        return [m for m in instruction.modifiers
                if re.fullmatch(r"(?:[bsuf](?:8|16|32|64)|pred|bf16|f16x2|bf16x2|[su]16x2|b128)", m)]

    def the_type(self, instruction: Instruction) -> str:
        found = self.types(instruction)
        if not found:
            raise self.fail("no operand type")
        return found[-1]

    def space_of(self, instruction: Instruction) -> str:
        for modifier in instruction.modifiers:
            if modifier in ("global", "shared", "const", "local", "param"):
                return modifier
        return "generic"

    # memory
    def op_ld(self, instruction: Instruction) -> None:
        ptx_type = self.the_type(instruction)
        space = self.space_of(instruction)
        destination, source = instruction.operands[0], instruction.operands[1]
        pointer, number = self.address(source, space)
        volatile = "volatile " if "volatile" in instruction.modifiers else ""
        # ld.global.nc (__ldg, const __restrict__) reads memory the PTX ISA requires to be read-only for the
        # kernel's lifetime: an invariant load, which LLVM may hoist, merge or make a scalar load.
        invariant = ", !invariant.load !{}" if "nc" in instruction.modifiers and not volatile else ""
        targets = self.vector(destination)
        size = width(ptx_type) // 8
        for index, register in enumerate(targets):
            element = pointer if index == 0 else self.value(
                f"getelementptr inbounds i8, {self.ptr(number)} {pointer}, i64 {index * size}")
            loaded = self.value(f"load {volatile}{value_type(ptx_type)}, {self.ptr(number)} {element}, "
                                f"align {size}{invariant}")
            self.write(register, loaded, ptx_type)

    op_ldu = op_ld

    def op_st(self, instruction: Instruction) -> None:
        ptx_type = self.the_type(instruction)
        space = self.space_of(instruction)
        pointer, number = self.address(instruction.operands[0], space)
        volatile = "volatile " if "volatile" in instruction.modifiers else ""
        size = width(ptx_type) // 8
        for index, source in enumerate(self.vector(instruction.operands[1])):
            element = pointer if index == 0 else self.value(
                f"getelementptr inbounds i8, {self.ptr(number)} {pointer}, i64 {index * size}")
            value = self.read(source, ptx_type)
            self.emit(f"store {volatile}{value_type(ptx_type)} {value}, {self.ptr(number)} {element}, align {size}")

    @staticmethod
    def vector(operand: str) -> list[str]:
        operand = operand.strip()
        if operand.startswith("{"):
            return [p.strip() for p in operand.strip("{} ").split(",")]
        return [operand]

    def op_cvta(self, instruction: Instruction) -> None:
        to = "to" in instruction.modifiers
        space = next(m for m in instruction.modifiers if m in ("global", "shared", "const", "local", "param"))
        ptx_type = self.the_type(instruction)
        value = self.read(instruction.operands[1], ptx_type)
        number = self.param_space() if space == "param" else _space_number(space, self.target)
        if number == 0 or space == "global":
            self.write(instruction.operands[0], value, ptx_type)  # the same numbers in both spaces
            return
        have, want = (0, number) if to else (number, 0)
        pointer = self.value(f"inttoptr {int_type(ptx_type)} {value} to {self.ptr(have)}")
        cast = self.value(f"addrspacecast {self.ptr(have)} {pointer} to {self.ptr(want)}")
        self.write(instruction.operands[0], self.value(f"ptrtoint {self.ptr(want)} {cast} to {int_type(ptx_type)}"),
                   ptx_type)

    def op_mov(self, instruction: Instruction) -> None:
        ptx_type = self.the_type(instruction)
        destination, source = instruction.operands
        if destination.strip().startswith("{"):  # unpack: low part first
            parts = self.vector(destination)
            whole = self.read(source, f"b{width(ptx_type)}")
            part_bits = width(ptx_type) // len(parts)
            for index, part in enumerate(parts):
                shifted = self.value(f"lshr {int_type(ptx_type)} {whole}, {index * part_bits}") if index else whole
                self.write(part, self.value(f"trunc {int_type(ptx_type)} {shifted} to i{part_bits}"), f"b{part_bits}")
            return
        if source.strip().startswith("{"):  # pack
            parts = self.vector(source)
            part_bits = width(ptx_type) // len(parts)
            total = f"i{width(ptx_type)}"
            result = "0"
            for index, part in enumerate(parts):
                piece = self.value(f"zext i{part_bits} {self.read(part, f'b{part_bits}')} to {total}")
                if index:
                    piece = self.value(f"shl {total} {piece}, {index * part_bits}")
                result = self.value(f"or {total} {result}, {piece}")
            self.write(destination, result, f"b{width(ptx_type)}")
            return
        self.write(destination, self.read(source, ptx_type), ptx_type)

    # integer and float arithmetic
    def binary(self, instruction: Instruction, int_op: str, float_op: str) -> None:
        ptx_type = self.the_type(instruction)
        a = self.read(instruction.operands[1], ptx_type)
        b = self.read(instruction.operands[2], ptx_type)
        llvm_type = value_type(ptx_type)
        if is_float(ptx_type):
            result = self.value(f"{float_op} {llvm_type} {a}, {b}")
            result = self.saturate(instruction, result, ptx_type)
        else:
            if "sat" in instruction.modifiers:
                raise self.fail("saturating integer arithmetic")
            result = self.value(f"{int_op} {llvm_type} {a}, {b}")
        self.write(instruction.operands[0], result, ptx_type)

    def saturate(self, instruction: Instruction, value: str, ptx_type: str) -> str:
        if "sat" not in instruction.modifiers:
            return value
        if ptx_type.endswith("x2"):
            raise self.fail("saturating packed arithmetic")
        llvm_type = value_type(ptx_type)
        low = self.value(f"call {llvm_type} {self.intrinsic('llvm.maxnum', llvm_type, 2)}({llvm_type} {value}, "
                         f"{llvm_type} 0.0)")
        return self.value(f"call {llvm_type} {self.intrinsic('llvm.minnum', llvm_type, 2)}({llvm_type} {low}, "
                          f"{llvm_type} 1.0)")

    def intrinsic(self, base: str, llvm_type: str, arguments: int, result: str | None = None) -> str:
        name = f"{base}.{INTRINSIC_SUFFIXES.get(llvm_type, llvm_type)}"
        return self.declare(name, f"declare {result or llvm_type} @{name}({', '.join([llvm_type] * arguments)})")

    def op_add(self, instruction: Instruction) -> None:
        if "cc" in instruction.modifiers:
            self.with_carry(instruction, "add", carry_in=False)
        else:
            self.binary(instruction, "add", "fadd")

    def op_sub(self, instruction: Instruction) -> None:
        if "cc" in instruction.modifiers:
            self.with_carry(instruction, "sub", carry_in=False)
        else:
            self.binary(instruction, "sub", "fsub")

    def op_addc(self, instruction: Instruction) -> None:
        self.with_carry(instruction, "add", carry_in=True)

    def op_subc(self, instruction: Instruction) -> None:
        self.with_carry(instruction, "sub", carry_in=True)

    def op_madc(self, instruction: Instruction) -> None:
        self.with_carry(instruction, "mad", carry_in=True)

    def carry_slot(self) -> str:
        """PTX's condition code register (the carry of add.cc/addc/mad.cc chains), as an i32 0/1."""
        if "%cc" not in self.registers:
            self.registers["%cc"] = "i32"
            self.slot(self.reg_slot("%cc"), "i32")
        return self.reg_slot("%cc")

    def with_carry(self, instruction: Instruction, operation: str, carry_in: bool) -> None:
        """Extended-precision arithmetic: the sum in twice the width, its top half is the carry out
        (for subtraction, the borrow)."""
        ptx_type = self.the_type(instruction)
        bits = width(ptx_type)
        small, wide = f"i{bits}", f"i{2 * bits}"
        slot = self.carry_slot()
        a = self.read(instruction.operands[1], ptx_type)
        b = self.read(instruction.operands[2], ptx_type)
        if operation == "mad":
            mode = next((m for m in instruction.modifiers if m in ("lo", "hi")), "lo")
            product, _ = self.multiply(mode, a, b, ptx_type)
            a, b, operation = product, self.read(instruction.operands[3], ptx_type), "add"
        total = self.value(f"{operation} {wide} {self.value(f'zext {small} {a} to {wide}')}, "
                           f"{self.value(f'zext {small} {b} to {wide}')}")
        if carry_in:
            carry = self.value(f"load i32, {self.alloca_ptr()} {slot}")
            total = self.value(f"{operation} {wide} {total}, {self.value(f'zext i32 {carry} to {wide}')}")
        self.write(instruction.operands[0], self.value(f"trunc {wide} {total} to {small}"), ptx_type)
        if "cc" in instruction.modifiers:
            high = self.value(f"lshr {wide} {total}, {bits}")
            out = self.value(f"zext i1 {self.value(f'icmp ne {wide} {high}, 0')} to i32")
            self.emit(f"store i32 {out}, {self.alloca_ptr()} {slot}")

    def op_and(self, instruction: Instruction) -> None:
        self.binary(instruction, "and", "and")

    def op_or(self, instruction: Instruction) -> None:
        self.binary(instruction, "or", "or")

    def op_xor(self, instruction: Instruction) -> None:
        self.binary(instruction, "xor", "xor")

    def op_rem(self, instruction: Instruction) -> None:
        self.binary(instruction, "srem" if is_signed(self.the_type(instruction)) else "urem", "frem")

    def op_div(self, instruction: Instruction) -> None:
        ptx_type = self.the_type(instruction)
        approximate = "approx" in instruction.modifiers or "full" in instruction.modifiers
        self.binary(instruction, "sdiv" if is_signed(ptx_type) else "udiv", "fdiv afn" if approximate else "fdiv")

    def op_mul(self, instruction: Instruction) -> None:
        ptx_type = self.the_type(instruction)
        if is_float(ptx_type):
            self.binary(instruction, "mul", "fmul")
            return
        mode = next((m for m in instruction.modifiers if m in ("lo", "hi", "wide")), "lo")
        a = self.read(instruction.operands[1], ptx_type)
        b = self.read(instruction.operands[2], ptx_type)
        self.write(instruction.operands[0], *self.multiply(mode, a, b, ptx_type))

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

    def op_mul24(self, instruction: Instruction) -> None:
        ptx_type = self.the_type(instruction)
        if "hi" in instruction.modifiers:
            raise self.fail("mul24.hi")
        a, b = (self.low24(self.read(o, ptx_type), ptx_type) for o in instruction.operands[1:3])
        self.write(instruction.operands[0], self.value(f"mul i32 {a}, {b}"), ptx_type)

    def low24(self, value: str, ptx_type: str) -> str:
        shifted = self.value(f"shl i32 {value}, 8")
        return self.value(f"{'ashr' if is_signed(ptx_type) else 'lshr'} i32 {shifted}, 8")

    def op_mad(self, instruction: Instruction) -> None:
        ptx_type = self.the_type(instruction)
        if is_float(ptx_type):
            self.op_fma(instruction)
            return
        mode = next((m for m in instruction.modifiers if m in ("lo", "hi", "wide")), "lo")
        if "cc" in instruction.modifiers:
            self.with_carry(instruction, "mad", carry_in=False)
            return
        if "sat" in instruction.modifiers:
            raise self.fail("mad with saturation")
        a = self.read(instruction.operands[1], ptx_type)
        b = self.read(instruction.operands[2], ptx_type)
        product, product_type = self.multiply(mode, a, b, ptx_type)
        c = self.read(instruction.operands[3], product_type)
        self.write(instruction.operands[0], self.value(f"add {int_type(product_type)} {product}, {c}"), product_type)

    def op_mad24(self, instruction: Instruction) -> None:
        ptx_type = self.the_type(instruction)
        a, b = (self.low24(self.read(o, ptx_type), ptx_type) for o in instruction.operands[1:3])
        product = self.value(f"mul i32 {a}, {b}")
        self.write(instruction.operands[0], self.value(f"add i32 {product}, {self.read(instruction.operands[3], ptx_type)}"),
                   ptx_type)

    def op_fma(self, instruction: Instruction) -> None:
        ptx_type = self.the_type(instruction)
        llvm_type = value_type(ptx_type)
        a, b, c = (self.read(o, ptx_type) for o in instruction.operands[1:4])
        directed = next((m for m in instruction.modifiers if m in ("rm", "rp", "rz")), None)
        if directed and ptx_type == "f32":
            result = self.directed_fma_f32(a, b, c, directed)
        else:
            result = self.value(f"call {llvm_type} {self.intrinsic('llvm.fma', llvm_type, 3)}({llvm_type} {a}, "
                                f"{llvm_type} {b}, {llvm_type} {c})")
        self.write(instruction.operands[0], self.saturate(instruction, result, ptx_type), ptx_type)

    def directed_fma_f32(self, a: str, b: str, c: str, rounding: str) -> str:
        """fma.rm/.rp/.rz.f32 (CUDA's expf rounds down to split off an exponent): the exact a*b + c is
        s + error in double (a float product is exact there, TwoSum gives the addition's error); rounded to
        nearest, then stepped one float toward the wanted direction when that rounding went the other way."""
        ad, bd, cd = (self.value(f"fpext float {x} to double") for x in (a, b, c))
        product = self.value(f"fmul double {ad}, {bd}")
        total = self.value(f"fadd double {product}, {cd}")
        c_part = self.value(f"fsub double {total}, {product}")
        product_part = self.value(f"fsub double {total}, {c_part}")
        error = self.value(f"fadd double {self.value(f'fsub double {product}, {product_part}')}, "
                           f"{self.value(f'fsub double {cd}, {c_part}')}")
        nearest = self.value(f"fptrunc double {total} to float")
        back = self.value(f"fpext float {nearest} to double")
        tie = self.value(f"fcmp oeq double {back}, {total}")
        error_negative = self.value(f"fcmp olt double {error}, 0.0")
        error_positive = self.value(f"fcmp ogt double {error}, 0.0")
        above = self.value(f"or i1 {self.value(f'fcmp ogt double {back}, {total}')}, "
                           f"{self.value(f'and i1 {tie}, {error_negative}')}")
        below = self.value(f"or i1 {self.value(f'fcmp olt double {back}, {total}')}, "
                           f"{self.value(f'and i1 {tie}, {error_positive}')}")
        bits = self.value(f"bitcast float {nearest} to i32")
        negative = self.value(f"icmp slt i32 {bits}, 0")
        is_zero = self.value(f"fcmp oeq float {nearest}, 0.0")
        # One float down / up: the bit pattern's magnitude steps by one; from zero to the smallest denormal.
        plus_one = self.value(f"add i32 {bits}, 1")
        minus_one = self.value(f"sub i32 {bits}, 1")
        down = self.value(f"select i1 {is_zero}, i32 -2147483647, i32 "
                          f"{self.value(f'select i1 {negative}, i32 {plus_one}, i32 {minus_one}')}")
        up = self.value(f"select i1 {is_zero}, i32 1, i32 "
                        f"{self.value(f'select i1 {negative}, i32 {minus_one}, i32 {plus_one}')}")
        if rounding == "rm":
            step_down, step_up = above, "false"
        elif rounding == "rp":
            step_down, step_up = "false", below
        else:  # rz: toward zero, so down for a positive result and up for a negative one
            step_down = self.value(f"and i1 {above}, {self.value(f'fcmp ogt double {total}, 0.0')}")
            step_up = self.value(f"and i1 {below}, {self.value(f'fcmp olt double {total}, 0.0')}")
        chosen = self.value(f"select i1 {step_down}, i32 {down}, i32 "
                            f"{self.value(f'select i1 {step_up}, i32 {up}, i32 {bits}')}")
        return self.value(f"bitcast i32 {chosen} to float")

    def unary_intrinsic(self, instruction: Instruction, base: str, flags: str = "") -> None:
        ptx_type = self.the_type(instruction)
        llvm_type = value_type(ptx_type)
        a = self.read(instruction.operands[1], ptx_type)
        result = self.value(f"call {flags}{llvm_type} {self.intrinsic(base, llvm_type, 1)}({llvm_type} {a})")
        self.write(instruction.operands[0], result, ptx_type)

    def op_min(self, instruction: Instruction) -> None:
        self.min_max(instruction, "min")

    def op_max(self, instruction: Instruction) -> None:
        self.min_max(instruction, "max")

    def min_max(self, instruction: Instruction, which: str) -> None:
        ptx_type = self.the_type(instruction)
        if is_float(ptx_type):
            base = f"llvm.{which}imum" if "NaN" in instruction.modifiers else f"llvm.{which}num"
        else:
            base = f"llvm.{'s' if is_signed(ptx_type) else 'u'}{which}"
        llvm_type = value_type(ptx_type)
        a, b = (self.read(o, ptx_type) for o in instruction.operands[1:3])
        result = self.value(f"call {llvm_type} {self.intrinsic(base, llvm_type, 2)}({llvm_type} {a}, {llvm_type} {b})")
        if "relu" in instruction.modifiers:  # negative results become 0
            if is_float(ptx_type):
                raise self.fail("min/max .relu on floats")
            zero = "zeroinitializer" if ptx_type in PACKED_INTEGER_TYPES else "0"
            result = self.value(f"call {llvm_type} {self.intrinsic('llvm.smax', llvm_type, 2)}({llvm_type} {result}, "
                                f"{llvm_type} {zero})")
        self.write(instruction.operands[0], result, ptx_type)

    def op_abs(self, instruction: Instruction) -> None:
        ptx_type = self.the_type(instruction)
        if is_float(ptx_type):
            self.unary_intrinsic(instruction, "llvm.fabs")
            return
        llvm_type = value_type(ptx_type)
        name = f"llvm.abs.{llvm_type}"
        self.declare(name, f"declare {llvm_type} @{name}({llvm_type}, i1)")
        a = self.read(instruction.operands[1], ptx_type)
        self.write(instruction.operands[0], self.value(f"call {llvm_type} @{name}({llvm_type} {a}, i1 false)"), ptx_type)

    def op_neg(self, instruction: Instruction) -> None:
        ptx_type = self.the_type(instruction)
        a = self.read(instruction.operands[1], ptx_type)
        llvm_type = value_type(ptx_type)
        result = self.value(f"fneg {llvm_type} {a}") if is_float(ptx_type) else self.value(f"sub {llvm_type} 0, {a}")
        self.write(instruction.operands[0], result, ptx_type)

    def op_not(self, instruction: Instruction) -> None:
        ptx_type = self.the_type(instruction)
        a = self.read(instruction.operands[1], ptx_type)
        self.write(instruction.operands[0], self.value(f"xor {value_type(ptx_type)} {a}, -1" if ptx_type != "pred"
                                                       else f"xor i1 {a}, true"), ptx_type)

    def op_cnot(self, instruction: Instruction) -> None:
        ptx_type = self.the_type(instruction)
        llvm_type = value_type(ptx_type)
        zero = self.value(f"icmp eq {llvm_type} {self.read(instruction.operands[1], ptx_type)}, 0")
        self.write(instruction.operands[0], self.value(f"zext i1 {zero} to {llvm_type}"), ptx_type)

    def op_shl(self, instruction: Instruction) -> None:
        self.shift(instruction, "shl")

    def op_shr(self, instruction: Instruction) -> None:
        self.shift(instruction, "ashr" if is_signed(self.the_type(instruction)) else "lshr")

    def shift(self, instruction: Instruction, operation: str) -> None:
        ptx_type = self.the_type(instruction)
        llvm_type = int_type(ptx_type)
        bits = width(ptx_type)
        a = self.read(instruction.operands[1], ptx_type)
        amount = self.resize(self.read(instruction.operands[2], "u32"), "i32", llvm_type, False)
        # PTX clamps shift amounts at the width; LLVM calls larger ones poison.
        clamped = self.value(f"call {llvm_type} {self.intrinsic('llvm.umin', llvm_type, 2)}({llvm_type} {amount}, "
                             f"{llvm_type} {bits - 1})")
        result = self.value(f"{operation} {llvm_type} {a}, {clamped}")
        if operation != "ashr":
            too_far = self.value(f"icmp ugt {llvm_type} {amount}, {bits - 1}")
            result = self.value(f"select i1 {too_far}, {llvm_type} 0, {llvm_type} {result}")
        self.write(instruction.operands[0], result, ptx_type)

    def bit_count(self, instruction: Instruction, base: str, extra: str = "") -> None:
        ptx_type = self.the_type(instruction)
        llvm_type = int_type(ptx_type)
        name = f"{base}.{llvm_type}"
        self.declare(name, f"declare {llvm_type} @{name}({llvm_type}{', i1' if extra else ''})")
        a = self.read(instruction.operands[1], ptx_type)
        counted = self.value(f"call {llvm_type} @{name}({llvm_type} {a}{extra})")
        self.write(instruction.operands[0], self.resize(counted, llvm_type, "i32", False), "u32")

    def op_popc(self, instruction: Instruction) -> None:
        self.bit_count(instruction, "llvm.ctpop")

    def op_clz(self, instruction: Instruction) -> None:
        self.bit_count(instruction, "llvm.ctlz", ", i1 false")

    def op_brev(self, instruction: Instruction) -> None:
        self.unary_intrinsic(instruction, "llvm.bitreverse")

    def op_bfind(self, instruction: Instruction) -> None:
        ptx_type = self.the_type(instruction)
        llvm_type = int_type(ptx_type)
        a = self.read(instruction.operands[1], ptx_type)
        if is_signed(ptx_type):
            negative = self.value(f"icmp slt {llvm_type} {a}, 0")
            inverted = self.value(f"xor {llvm_type} {a}, -1")
            a = self.value(f"select i1 {negative}, {llvm_type} {inverted}, {llvm_type} {a}")
        name = f"llvm.ctlz.{llvm_type}"
        self.declare(name, f"declare {llvm_type} @{name}({llvm_type}, i1)")
        zeros = self.resize(self.value(f"call {llvm_type} @{name}({llvm_type} {a}, i1 false)"), llvm_type, "i32", False)
        # .shiftamt: how far to shift the bit up to the top, i.e. the count of leading zeros
        position = zeros if "shiftamt" in instruction.modifiers else self.value(f"sub i32 {width(ptx_type) - 1}, {zeros}")
        none = self.value(f"icmp eq i32 {zeros}, {width(ptx_type)}")
        self.write(instruction.operands[0], self.value(f"select i1 {none}, i32 -1, i32 {position}"), "u32")

    def op_bfe(self, instruction: Instruction) -> None:
        ptx_type = self.the_type(instruction)
        llvm_type = int_type(ptx_type)
        bits = width(ptx_type)
        a = self.read(instruction.operands[1], ptx_type)
        position = self.resize(self.value(f"and i32 {self.read(instruction.operands[2], 'u32')}, 255"), "i32",
                               llvm_type, False)
        length = self.resize(self.value(f"and i32 {self.read(instruction.operands[3], 'u32')}, 255"), "i32",
                             llvm_type, False)
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
        self.write(instruction.operands[0], self.value(f"select i1 {empty}, {llvm_type} 0, {llvm_type} {shifted}"),
                   ptx_type)

    def op_bfi(self, instruction: Instruction) -> None:
        ptx_type = self.the_type(instruction)
        llvm_type = int_type(ptx_type)
        bits = width(ptx_type)
        f = self.read(instruction.operands[1], ptx_type)
        b = self.read(instruction.operands[2], ptx_type)
        position = self.value(f"and i32 {self.read(instruction.operands[3], 'u32')}, 255")
        length = self.value(f"and i32 {self.read(instruction.operands[4], 'u32')}, 255")
        wide = "i128" if bits == 64 else "i64"
        ones = self.value(f"shl {wide} 1, {self.value(f'zext i32 {length} to {wide}')}")
        mask = self.value(f"trunc {wide} {self.value(f'sub {wide} {ones}, 1')} to {llvm_type}")
        over = self.value(f"icmp uge i32 {position}, {bits}")
        shift = self.resize(self.value(f"select i1 {over}, i32 0, i32 {position}"), "i32", llvm_type, False)
        mask = self.value(f"select i1 {over}, {llvm_type} 0, {llvm_type} {self.value(f'shl {llvm_type} {mask}, {shift}')}")
        inserted = self.value(f"and {llvm_type} {self.value(f'shl {llvm_type} {f}, {shift}')}, {mask}")
        kept = self.value(f"and {llvm_type} {b}, {self.value(f'xor {llvm_type} {mask}, -1')}")
        self.write(instruction.operands[0], self.value(f"or {llvm_type} {kept}, {inserted}"), ptx_type)

    def op_lop3(self, instruction: Instruction) -> None:
        """Any function of three bit vectors, as the sum of the minterms its lookup table selects
        (table bit i: a = bit 2 of i, b = bit 1, c = bit 0; LLVM folds the sum back down)."""
        if "|" in instruction.operands[0] or len(instruction.operands) != 5:
            raise self.fail("lop3 with a predicate")
        ptx_type = self.the_type(instruction)
        llvm_type = int_type(ptx_type)
        inputs = [self.read(o, ptx_type) for o in instruction.operands[1:4]]
        inverted = [self.value(f"xor {llvm_type} {v}, -1") for v in inputs]
        table = _ptx_int(instruction.operands[4].strip())
        result = "0"
        for index in range(8):
            if table >> index & 1:
                chosen = [inputs[k] if index >> (2 - k) & 1 else inverted[k] for k in range(3)]
                term = self.value(f"and {llvm_type} {self.value(f'and {llvm_type} {chosen[0]}, {chosen[1]}')}, {chosen[2]}")
                result = self.value(f"or {llvm_type} {result}, {term}")
        self.write(instruction.operands[0], result, ptx_type)

    def op_prmt(self, instruction: Instruction) -> None:
        if any(m in instruction.modifiers for m in ("f4e", "b4e", "rc8", "ecl", "ecr", "rc16")):
            raise self.fail("prmt modes other than the default")
        a = self.value(f"zext i32 {self.read(instruction.operands[1], 'b32')} to i64")
        b = self.value(f"zext i32 {self.read(instruction.operands[2], 'b32')} to i64")
        pair = self.value(f"or i64 {a}, {self.value(f'shl i64 {b}, 32')}")
        selector = self.read(instruction.operands[3], "b32")
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
        self.write(instruction.operands[0], result, "b32")

    # SIMD video instructions: two half-words (vop2) or four bytes (vop4) of 32-bit registers at once
    def simd_video(self, instruction: Instruction, operation: str, lanes: int) -> None:
        """`vop.dtype.atype.btype{.sat}{.add} d, a, b, c` with the default lane selectors and mask: each lane
        of a and b extended by its type, combined, saturated to a dtype lane if .sat; then either the lanes
        packed into d (the default mask selects them all, so nothing of c is merged) or, with .add, c plus
        their sum (the PTX ISA's vadd4 family)."""
        if any(re.search(r"\.[bh]\d+$", o.strip()) for o in instruction.operands):
            raise self.fail("lane selectors and masks of SIMD video instructions")
        types = self.types(instruction)
        if len(types) != 3 or any(t not in ("u32", "s32") for t in types):
            raise self.fail("SIMD video instructions other than .u32/.s32")
        destination_type, a_type, b_type = types
        bits = 32 // lanes
        packed, wide = f"<{lanes} x i{bits}>", f"<{lanes} x i32>"

        def lanes_of(operand: str, ptx_type: str) -> str:
            vector = self.value(f"bitcast i32 {self.read(operand, 'b32')} to {packed}")
            return self.value(f"{'sext' if is_signed(ptx_type) else 'zext'} {packed} {vector} to {wide}")

        def call(base: str, *vectors: str, flag: str = "") -> str:
            """A lane-wise intrinsic (`flag`: the trailing i1 argument llvm.abs takes)."""
            name = f"{base}.v{lanes}i32"
            self.declare(name, f"declare {wide} @{name}({', '.join([wide] * len(vectors))}{', i1' if flag else ''})")
            arguments = ", ".join(f"{wide} {v}" for v in vectors) + (f", i1 {flag}" if flag else "")
            return self.value(f"call {wide} @{name}({arguments})")

        def splat(number: int) -> str:
            return "<" + ", ".join([f"i32 {number}"] * lanes) + ">"

        # Every lane value fits a signed i32 once extended, so signed min/max serve both signednesses.
        a, b = lanes_of(instruction.operands[1], a_type), lanes_of(instruction.operands[2], b_type)
        if operation == "absdiff":
            result = call("llvm.abs", self.value(f"sub {wide} {a}, {b}"), flag="false")
        elif operation in ("min", "max"):
            result = call(f"llvm.s{operation}", a, b)
        else:
            result = self.value(f"{operation} {wide} {a}, {b}")
        if "sat" in instruction.modifiers:
            low, high = ((-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if is_signed(destination_type)
                         else (0, (1 << bits) - 1))
            result = call("llvm.smin", call("llvm.smax", result, splat(low)), splat(high))
        if "add" in instruction.modifiers:
            name = f"llvm.vector.reduce.add.v{lanes}i32"
            self.declare(name, f"declare i32 @{name}({wide})")
            total = self.value(f"call i32 @{name}({wide} {result})")
            value = self.value(f"add i32 {self.read(instruction.operands[3], 'b32')}, {total}")
        else:
            value = self.value(f"bitcast {packed} {self.value(f'trunc {wide} {result} to {packed}')} to i32")
        self.write(instruction.operands[0], value, "b32")

    def op_copysign(self, instruction: Instruction) -> None:
        ptx_type = self.the_type(instruction)
        llvm_type = value_type(ptx_type)
        sign, magnitude = (self.read(o, ptx_type) for o in instruction.operands[1:3])
        self.write(instruction.operands[0], self.value(
            f"call {llvm_type} {self.intrinsic('llvm.copysign', llvm_type, 2)}({llvm_type} {magnitude}, "
            f"{llvm_type} {sign})"), ptx_type)

    def op_testp(self, instruction: Instruction) -> None:
        ptx_type = self.the_type(instruction)
        classes = {"finite": 0x1F8, "infinite": 0x204, "number": 0x3FC, "notanumber": 0x3, "normal": 0x108,
                   "subnormal": 0x90}
        test = next((classes[m] for m in instruction.modifiers if m in classes), None)
        if test is None:
            raise self.fail("testp class")
        llvm_type = value_type(ptx_type)
        name = f"llvm.is.fpclass.{self.intrinsic('llvm.fabs', llvm_type, 1).split('.')[-1]}"
        self.declare(name, f"declare i1 @{name}({llvm_type}, i32)")
        a = self.read(instruction.operands[1], ptx_type)
        self.write(instruction.operands[0], self.value(f"call i1 @{name}({llvm_type} {a}, i32 {test})"), "pred")

    # approximate and exact math
    def op_sqrt(self, instruction: Instruction) -> None:
        self.unary_intrinsic(instruction, "llvm.sqrt", "afn " if "approx" in instruction.modifiers else "")

    def op_rsqrt(self, instruction: Instruction) -> None:
        ptx_type = self.the_type(instruction)
        llvm_type = value_type(ptx_type)
        a = self.read(instruction.operands[1], ptx_type)
        root = self.value(f"call afn {llvm_type} {self.intrinsic('llvm.sqrt', llvm_type, 1)}({llvm_type} {a})")
        self.write(instruction.operands[0], self.value(f"fdiv afn {llvm_type} 1.0, {root}"), ptx_type)

    def op_rcp(self, instruction: Instruction) -> None:
        ptx_type = self.the_type(instruction)
        llvm_type = value_type(ptx_type)
        a = self.read(instruction.operands[1], ptx_type)
        flags = "afn " if "approx" in instruction.modifiers else ""
        self.write(instruction.operands[0], self.value(f"fdiv {flags}{llvm_type} 1.0, {a}"), ptx_type)

    def op_sin(self, instruction: Instruction) -> None:
        self.unary_intrinsic(instruction, "llvm.sin", "afn ")

    def op_cos(self, instruction: Instruction) -> None:
        self.unary_intrinsic(instruction, "llvm.cos", "afn ")

    def op_ex2(self, instruction: Instruction) -> None:
        self.unary_intrinsic(instruction, "llvm.exp2", "afn ")

    def op_lg2(self, instruction: Instruction) -> None:
        if self.target.name == "nvptx" and self.the_type(instruction) == "f32":
            # NVPTX has no lowering for llvm.log2 (LLVM aborts): name PTX's instruction itself.
            self.declare("llvm.nvvm.lg2.approx.f", "declare float @llvm.nvvm.lg2.approx.f(float)")
            a = self.read(instruction.operands[1], "f32")
            self.write(instruction.operands[0], self.value(f"call float @llvm.nvvm.lg2.approx.f(float {a})"), "f32")
            return
        self.unary_intrinsic(instruction, "llvm.log2", "afn ")

    def op_tanh(self, instruction: Instruction) -> None:
        ptx_type = self.the_type(instruction)
        llvm_type = value_type(ptx_type)
        a = self.read(instruction.operands[1], ptx_type)
        if self.target.name == "nvptx" and ptx_type == "f32":
            # The round trip keeps the hardware's approximation, so the program prints what the original did.
            self.declare("llvm.nvvm.tanh.approx.f32", "declare float @llvm.nvvm.tanh.approx.f32(float)")
            self.write(instruction.operands[0], self.value(f"call float @llvm.nvvm.tanh.approx.f32(float {a})"),
                       ptx_type)
            return
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
        self.write(instruction.operands[0], self.value(f"select i1 {near_zero}, {llvm_type} {small}, "
                                                       f"{llvm_type} {signed}"), ptx_type)

    # comparisons and selection
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

    def op_setp(self, instruction: Instruction) -> None:
        comparison = instruction.modifiers[0]
        ptx_type = self.the_type(instruction)
        destinations = instruction.operands[0].split("|")
        a, b = (self.read(o, ptx_type) for o in instruction.operands[1:3])
        result = self.compare(comparison, ptx_type, a, b)
        if ptx_type.endswith("x2"):  # setp.f16x2 p|q: p for the low half, q for the high
            if any(m in instruction.modifiers for m in ("and", "or", "xor")):
                raise self.fail("packed comparisons combined with a predicate")
            for lane, destination in enumerate(destinations):
                self.write(destination, self.value(f"extractelement <2 x i1> {result}, i32 {lane}"), "pred")
            return
        inverse = self.value(f"xor i1 {result}, true")
        combine = next((m for m in instruction.modifiers if m in ("and", "or", "xor")), None)
        if combine:
            c = self.read(instruction.operands[3], "pred")
            result = self.value(f"{combine} i1 {result}, {c}")
            inverse = self.value(f"{combine} i1 {inverse}, {c}")
        self.write(destinations[0], result, "pred")
        if len(destinations) > 1:
            self.write(destinations[1], inverse, "pred")

    def op_set(self, instruction: Instruction) -> None:
        comparison = instruction.modifiers[0]
        destination_type, source_type = self.types(instruction)[-2:]
        a, b = (self.read(o, source_type) for o in instruction.operands[1:3])
        result = self.compare(comparison, source_type, a, b)
        if source_type.endswith("x2"):  # per half: 1.0 for a float result, all ones for an integer one
            half = value_type(destination_type) if destination_type.endswith("x2") else "<2 x i16>"
            element = half.removeprefix("<2 x ").removesuffix(">")
            true = f"<{element} 1.0, {element} 1.0>" if element != "i16" else "<i16 -1, i16 -1>"
            value = self.value(f"select <2 x i1> {result}, {half} {true}, {half} zeroinitializer")
            if not destination_type.endswith("x2"):
                value = self.value(f"bitcast <2 x i16> {value} to i32")
                destination_type = "b32"
        elif is_float(destination_type):
            llvm_type = value_type(destination_type)
            value = self.value(f"select i1 {result}, {llvm_type} 1.0, {llvm_type} 0.0")
        else:
            value = self.value(f"select i1 {result}, {int_type(destination_type)} -1, {int_type(destination_type)} 0")
        self.write(instruction.operands[0], value, destination_type)

    def op_selp(self, instruction: Instruction) -> None:
        ptx_type = self.the_type(instruction)
        llvm_type = value_type(ptx_type)
        a, b = (self.read(o, ptx_type) for o in instruction.operands[1:3])
        c = self.read(instruction.operands[3], "pred")
        self.write(instruction.operands[0], self.value(f"select i1 {c}, {llvm_type} {a}, {llvm_type} {b}"), ptx_type)

    def op_slct(self, instruction: Instruction) -> None:
        destination_type, condition_type = self.types(instruction)[-2:]
        llvm_type = value_type(destination_type)
        a, b = (self.read(o, destination_type) for o in instruction.operands[1:3])
        c = self.read(instruction.operands[3], condition_type)
        test = self.value(f"fcmp oge float {c}, 0.0" if is_float(condition_type) else f"icmp sge i32 {c}, 0")
        self.write(instruction.operands[0], self.value(f"select i1 {test}, {llvm_type} {a}, {llvm_type} {b}"),
                   destination_type)

    def op_cvt(self, instruction: Instruction) -> None:
        types = self.types(instruction)
        if len(types) != 2:
            raise self.fail("cvt forms other than cvt.dtype.atype")
        destination_type, source_type = types
        if destination_type in ("f16x2", "bf16x2") and source_type == "f32" and len(instruction.operands) == 3:
            self.pack_halves(instruction, destination_type[:-2])
            return
        if "x2" in destination_type or "x2" in source_type or "relu" in instruction.modifiers:
            raise self.fail("packed conversions")
        rounding = next((m for m in instruction.modifiers if m in ("rni", "rzi", "rmi", "rpi")), None)
        a = self.read(instruction.operands[1], source_type)
        source, destination = value_type(source_type), value_type(destination_type)
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
            result = self.saturate(instruction, result, destination_type)
        elif is_float(source_type):
            base = {"rni": "llvm.roundeven", "rzi": None, "rmi": "llvm.floor", "rpi": "llvm.ceil", None: None}[rounding]
            if base:
                a = self.value(f"call {source} {self.intrinsic(base, source, 1)}({source} {a})")
            # PTX saturates out-of-range values and sends NaN to 0: the .sat conversions.
            operation = "llvm.fptosi.sat" if is_signed(destination_type) else "llvm.fptoui.sat"
            suffix = {"float": "f32", "double": "f64", "half": "f16", "bfloat": "bf16"}[source]
            name = f"{operation}.{destination}.{suffix}"
            self.declare(name, f"declare {destination} @{name}({source})")
            result = self.value(f"call {destination} @{name}({source} {a})")
        elif is_float(destination_type):
            result = self.value(f"{'sitofp' if is_signed(source_type) else 'uitofp'} {source} {a} to {destination}")
            result = self.saturate(instruction, result, destination_type)
        else:
            if "sat" in instruction.modifiers:
                result = self.integer_saturate(a, source_type, destination_type)
            else:
                result = self.resize(a, source, destination, is_signed(source_type))
        self.write(instruction.operands[0], result, destination_type)

    def pack_halves(self, instruction: Instruction, half: str) -> None:
        """cvt.rn.f16x2.f32 d, a, b: a rounded to the upper half of d, b to the lower."""
        parts = []
        for operand in instruction.operands[1:]:
            narrow = self.value(f"fptrunc float {self.read(operand, 'f32')} to {value_type(half)}")
            parts.append(self.value(f"zext i16 {self.value(f'bitcast {value_type(half)} {narrow} to i16')} to i32"))
        upper = self.value(f"shl i32 {parts[0]}, 16")
        self.write(instruction.operands[0], self.value(f"or i32 {upper}, {parts[1]}"), "b32")

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

    # control flow
    def op_bra(self, instruction: Instruction) -> None:
        target = self.label(instruction.operands[0].strip())
        if instruction.guard is None:
            self.emit(f"br label %{target}")
        else:
            condition = self.read(instruction.guard, "pred")
            number = self.counter = self.counter + 1
            if instruction.negated:
                self.emit(f"br i1 {condition}, label %next{number}, label %{target}")
            else:
                self.emit(f"br i1 {condition}, label %{target}, label %next{number}")
            self.lines.append(f"next{number}:")
            return
        self.terminated = True

    def ret(self) -> None:
        if self.return_type == "void":
            self.emit("ret void")
        else:
            pointer, _ = self.scopes[0][self.function.returns[0].name]
            value = self.value(f"load {self.return_type}, {self.alloca_ptr()} {pointer}")
            self.emit(f"ret {self.return_type} {value}")
        self.terminated = True

    def op_ret(self, instruction: Instruction) -> None:
        self.ret()

    def op_exit(self, instruction: Instruction) -> None:
        if not self.function.entry:
            raise self.fail("exit inside a device function")
        self.ret()

    def op_trap(self, instruction: Instruction) -> None:
        self.declare("llvm.trap", "declare void @llvm.trap()")
        self.emit("call void @llvm.trap()")
        self.emit("unreachable")
        self.terminated = True

    def op_call(self, instruction: Instruction) -> None:
        operands = list(instruction.operands)
        results: list[str] = []
        if operands[0].startswith("("):
            results = [r.strip() for r in operands.pop(0).strip("() ").split(",") if r.strip()]
        callee_name = operands.pop(0).strip()
        arguments = [a.strip() for a in operands.pop(0).strip("() ").split(",") if a.strip()] if operands else []
        callee = self.module.function(callee_name)
        if callee is None or (callee.body is None and callee_name not in self.linked):
            raise self.fail(f"call to {_without_body(callee_name, self.separate)}")
        if len(callee.returns) > 1:
            raise self.fail("calls returning several values")
        values = []
        for argument, param in zip(arguments, callee.params):
            llvm_type = f"[{param.size} x i8]" if param.count is not None else int_type(param.type)
            pointer, space = self.lookup(argument) or (None, 0)
            if pointer is None:
                raise self.fail(f"call argument {argument}")
            values.append(f"{llvm_type} {self.value(f'load {llvm_type}, {self.ptr(space)} {pointer}')}")
        return_type = "void"
        if callee.returns:
            result = callee.returns[0]
            return_type = f"[{result.size} x i8]" if result.count is not None else int_type(result.type)
        call = f"call {return_type} @{_quote(callee_name)}({', '.join(values)})"
        if return_type == "void":
            self.emit(call)
        else:
            value = self.value(call)
            pointer, space = self.lookup(results[0]) or (None, 0)
            if pointer is None:
                raise self.fail(f"call result {results[0]}")
            self.emit(f"store {return_type} {value}, {self.ptr(space)} {pointer}")

    # synchronisation
    def op_bar(self, instruction: Instruction) -> None:
        if "warp" in instruction.modifiers:
            self.warp_sync()
            return
        if any(m in instruction.modifiers for m in ("red", "arrive")) or (
                len(instruction.operands) > 1 or instruction.operands[0].strip() not in ("0",)):
            raise self.fail("named barriers, bar.arrive and bar.red (__syncthreads_count/and/or)")
        self.barrier()

    op_barrier = op_bar

    def barrier(self) -> None:
        if self.target.name == "amdgpu":
            self.declare("llvm.amdgcn.s.barrier", "declare void @llvm.amdgcn.s.barrier()")
            self.emit('fence syncscope("workgroup") release')
            self.emit("call void @llvm.amdgcn.s.barrier()")
            self.emit('fence syncscope("workgroup") acquire')
        else:
            self.declare("llvm.nvvm.barrier0", "declare void @llvm.nvvm.barrier0()")
            self.emit("call void @llvm.nvvm.barrier0()")

    def warp_sync(self) -> None:
        if self.target.name == "amdgpu":
            self.declare("llvm.amdgcn.wave.barrier", "declare void @llvm.amdgcn.wave.barrier()")
            self.emit("call void @llvm.amdgcn.wave.barrier()")
        else:
            self.declare("llvm.nvvm.bar.warp.sync", "declare void @llvm.nvvm.bar.warp.sync(i32)")
            self.emit("call void @llvm.nvvm.bar.warp.sync(i32 -1)")

    def op_membar(self, instruction: Instruction) -> None:
        scope = {"cta": "cta", "gl": "gpu", "sys": "sys"}.get(instruction.modifiers[0] if instruction.modifiers
                                                             else "gl", "gpu")
        self.emit(f"fence{self.scope(scope)} seq_cst")

    def op_fence(self, instruction: Instruction) -> None:
        if "proxy" in instruction.modifiers:
            raise self.fail("fence.proxy")
        scope = next((m for m in instruction.modifiers if m in ("cta", "gpu", "sys", "cluster")), "gpu")
        self.emit(f"fence{self.scope(scope)} seq_cst")

    def scope(self, scope: str) -> str:
        return SCOPES_AMDGPU.get(scope, "") if self.target.name == "amdgpu" else ""

    def op_atom(self, instruction: Instruction, returns: bool = True) -> None:
        ptx_type = self.the_type(instruction)
        if "x2" in ptx_type or width(ptx_type) not in (32, 64):
            raise self.fail(f"atomics on .{ptx_type}")
        space = self.space_of(instruction)
        scope = self.scope(next((m for m in instruction.modifiers if m in ("cta", "gpu", "sys", "cluster")), "gpu"))
        ordering = {"acquire": "acquire", "release": "release", "acq_rel": "acq_rel", "sc": "seq_cst"}.get(
            next((m for m in instruction.modifiers if m in ("acquire", "release", "acq_rel", "sc")), ""), "monotonic")
        operations = {"add": "fadd" if is_float(ptx_type) else "add", "exch": "xchg", "and": "and", "or": "or",
                      "xor": "xor", "inc": "uinc_wrap", "dec": "udec_wrap",
                      "min": "fmin" if is_float(ptx_type) else ("min" if is_signed(ptx_type) else "umin"),
                      "max": "fmax" if is_float(ptx_type) else ("max" if is_signed(ptx_type) else "umax")}
        operation = next((m for m in instruction.modifiers if m in (*operations, "cas")), None)
        if operation is None:
            raise self.fail("this atomic operation")
        operands = list(instruction.operands)
        destination = operands.pop(0) if returns else None
        pointer, number = self.address(operands[0], space)
        llvm_type = value_type(ptx_type)
        b = self.read(operands[1], ptx_type)
        if operation == "cas":
            int_llvm = int_type(ptx_type)
            expected = self.read(operands[1], f"b{width(ptx_type)}")
            new = self.read(operands[2], f"b{width(ptx_type)}")
            pair = self.value(f"cmpxchg {self.ptr(number)} {pointer}, {int_llvm} {expected}, {int_llvm} {new}{scope} "
                              f"{'monotonic' if ordering == 'monotonic' else ordering} monotonic")
            old = self.value(f"extractvalue {{ {int_llvm}, i1 }} {pair}, 0")
            if destination:
                self.write(destination, old, f"b{width(ptx_type)}")
            return
        if operation in ("inc", "dec") and ptx_type != "u32":
            raise self.fail("atom.inc/dec other than .u32")
        old = self.value(f"atomicrmw {operations[operation]} {self.ptr(number)} {pointer}, {llvm_type} {b}{scope} "
                         f"{ordering}")
        if destination:
            self.write(destination, old, ptx_type)

    def op_red(self, instruction: Instruction) -> None:
        self.op_atom(instruction, returns=False)

    # warp-level operations
    def lane_id(self) -> str:
        if self.target.name == "amdgpu":
            self.declare("llvm.amdgcn.mbcnt.lo", "declare i32 @llvm.amdgcn.mbcnt.lo(i32, i32)")
            return self.value("call i32 @llvm.amdgcn.mbcnt.lo(i32 -1, i32 0)")
        return self.special("laneid")

    def op_shfl(self, instruction: Instruction) -> None:
        mode = next(m for m in instruction.modifiers if m in ("up", "down", "bfly", "idx"))
        destinations = instruction.operands[0].split("|")
        a = self.read(instruction.operands[1], "b32")
        b = self.read(instruction.operands[2], "b32")
        c = self.read(instruction.operands[3], "b32")
        if self.target.name == "nvptx":
            mask = self.read(instruction.operands[4], "b32") if len(instruction.operands) > 4 else "-1"
            name = f"llvm.nvvm.shfl.sync.{mode}.i32p"
            self.declare(name, f"declare {{i32, i1}} @{name}(i32, i32, i32, i32)")
            pair = self.value(f"call {{i32, i1}} @{name}(i32 {mask}, i32 {a}, i32 {b}, i32 {c})")
            self.write(destinations[0], self.value(f"extractvalue {{i32, i1}} {pair}, 0"), "b32")
            if len(destinations) > 1:
                self.write(destinations[1], self.value(f"extractvalue {{i32, i1}} {pair}, 1"), "pred")
            return
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
        self.write(destinations[0], value, "b32")
        if len(destinations) > 1:
            self.write(destinations[1], valid, "pred")

    def ballot(self, predicate: str) -> str:
        if self.target.name == "amdgpu":
            self.declare("llvm.amdgcn.ballot.i32", "declare i32 @llvm.amdgcn.ballot.i32(i1)")
            return self.value(f"call i32 @llvm.amdgcn.ballot.i32(i1 {predicate})")
        self.declare("llvm.nvvm.vote.ballot.sync", "declare i32 @llvm.nvvm.vote.ballot.sync(i32, i1)")
        return self.value(f"call i32 @llvm.nvvm.vote.ballot.sync(i32 -1, i1 {predicate})")

    def op_vote(self, instruction: Instruction) -> None:
        mode = next(m for m in instruction.modifiers if m in ("all", "any", "uni", "ballot"))
        predicate = self.read(instruction.operands[1], "pred")
        if self.target.name == "nvptx" and "sync" in instruction.modifiers:
            mask = self.read(instruction.operands[2], "b32") if len(instruction.operands) > 2 else "-1"
            result_type = "i32" if mode == "ballot" else "i1"
            name = f"llvm.nvvm.vote.{mode}.sync"
            self.declare(name, f"declare {result_type} @{name}(i32, i1)")
            result = self.value(f"call {result_type} @{name}(i32 {mask}, i1 {predicate})")
            self.write(instruction.operands[0], result, "b32" if mode == "ballot" else "pred")
            return
        if mode == "ballot":
            self.write(instruction.operands[0], self.ballot(predicate), "b32")
            return
        ones = self.ballot(predicate)
        active = self.ballot("true")
        any_set = self.value(f"icmp ne i32 {ones}, 0")
        all_set = self.value(f"icmp eq i32 {ones}, {active}")
        result = {"any": any_set, "all": all_set}.get(mode) or self.value(
            f"or i1 {all_set}, {self.value(f'xor i1 {any_set}, true')}")
        self.write(instruction.operands[0], result, "pred")

    def op_activemask(self, instruction: Instruction) -> None:
        if self.target.name == "nvptx":
            self.declare("llvm.nvvm.activemask", "declare i32 @llvm.nvvm.activemask()")
            self.write(instruction.operands[0], self.value("call i32 @llvm.nvvm.activemask()"), "b32")
        else:
            self.write(instruction.operands[0], self.ballot("true"), "b32")

    # hints that change nothing here
    def op_prefetch(self, instruction: Instruction) -> None:
        pass

    op_prefetchu = op_prefetch
    op_pmevent = op_prefetch
    op_nanosleep = op_prefetch

    # special registers
    def special(self, name: str) -> str:
        intrinsic = f"llvm.nvvm.read.ptx.sreg.{name}"
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
                return self.special(name), "i32"
            if name in ("clock", "clock64", "globaltimer"):
                intrinsic = f"llvm.nvvm.read.ptx.sreg.{name}"
                result = "i32" if name == "clock" else "i64"
                self.declare(intrinsic, f"declare {result} @{intrinsic}()")
                return self.value(f"call {result} @{intrinsic}()"), result
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
        return None
