"""The PTX front end: PTX (parsed by ptx.py) -> LLVM IR text, for AMDGPU (gfx1100) or back to NVPTX.

Every PTX register becomes a stack slot (an `alloca` of its width, integers throughout; float
instructions bitcast), so no SSA construction is needed: LLVM's SROA/mem2reg turns the slots back into
registers. This module reads PTX operands (registers, symbols, `.param` and other state spaces'
addresses) and writes results; what each instruction means — the kernel ABI, memory spaces, special
registers, barriers, shuffles, votes, atomics, the integer and float semantics, and what differs between
the two targets — is the emission core's (`emit.py`), which the SASS front end shares.

Anything not translated raises `Unsupported`, naming the instruction and the function.
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass, field, replace

from cassc.binary import images, matrices
from cassc.binary.emit import (AMDGPU, NVPTX, PACKED_INTEGER_TYPES, SPACE_NUMBERS, Emitter, Target,
                               Unsupported, attributes, cuda_parameter_offsets, float_constant, int_type, is_float,
                               is_signed, quote, space_number, value_type, variable_annotations, variable_definition,
                               width)
from cassc.binary.printf import argument_layout
from cassc.binary.ptx import Block, Function, Instruction, Label, Pragma, PtxModule, Registers, Variable
from cassc.binary.reroll import reroll_runtime_unrolled_loops

__all__ = ["AMDGPU", "NVPTX", "LiftedModule", "Target", "Unsupported", "lift_module", "ptx_parameter_layout"]

# The float operations the PTX ISA lets the code generator fuse into an fma when they carry none of the
# rounding modifiers.
CONTRACTIBLE = ("fadd", "fsub", "fmul")
ROUNDING_MODIFIERS = ("rn", "rz", "rm", "rp")
DIRECTED_ROUNDINGS = ("rz", "rm", "rp")  # rounding a float result toward zero, down, up (the core's `stepped`)
ATOMIC_OPERATIONS = ("add", "exch", "and", "or", "xor", "inc", "dec", "min", "max")
# The SIMD video instructions (`vabsdiff4`, `vadd2`...): the lane operation and the lanes per 32 bits.
SIMD_VIDEO = {f"v{operation}{lanes}": (operation, lanes)
              for operation in ("absdiff", "add", "sub", "min", "max") for lanes in (4, 2)}
_ADDRESS = re.compile(r"^\[\s*([^\]+\-\s]+)\s*(?:([+-])\s*(-?(?:0[xX][0-9a-fA-F]+|\d+)))?\s*\]$")
_INT = re.compile(r"^-?(?:0[xX][0-9a-fA-F]+|0[0-7]*|[1-9]\d*)U?$")
# `d, [handle, {coordinates}], rest` or `[handle, {coordinates}], rest` (the operands of tex, suld, sust, txq...).
_IMAGE_OPERANDS = re.compile(r"\s*(?:(\{[^}]*\}|[^,\[{]+?)\s*,)?\s*\[\s*([^,\]]+?)\s*(?:,\s*\{([^}]*)\})?\s*\]\s*(?:,(.*))?",
                             re.DOTALL)
_TOP_LEVEL = re.compile(r"\{[^}]*\}|[^,{}\s][^,{}]*")  # a rest's operands: a `{..}` vector or one operand
_OPERAND_TYPE = re.compile(r"(?:[bsuf](?:8|16|32|64)|pred|bf16|f16x2|bf16x2|[su]16x2|b128)")  # the modifiers that are types


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


def _ptx_int(text: str) -> int:
    text = text.rstrip("U")
    negative = text.startswith("-")
    body = text[1:] if negative else text
    value = int(body, 16) if body[:2] in ("0x", "0X") else (int(body, 8) if len(body) > 1 and body[0] == "0"
                                                             else int(body))
    return -value if negative else value


def target_arch(module: PtxModule) -> int:
    """The sm_XX of a PTX module's `.target` (80 where it names none)."""
    found = re.search(r"sm_(\d+)", module.target)
    return int(found.group(1)) if found else 80


def ptx_parameter_layout(function: Function, arch: int) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """A kernel's CUDA parameter buffer as a cubin for sm_`arch` lays it out: (offsets, sizes, total size)."""
    offsets, end = cuda_parameter_offsets([(p.size, p.align) for p in function.params], arch)
    return offsets, tuple(p.size for p in function.params), end


@dataclass
class LiftedModule:
    ir: str
    kernels: list[str]  # translated kernels
    failures: dict[str, str] = field(default_factory=dict)  # kernel -> why it was not translated
    failed_functions: set[str] = field(default_factory=set)  # every function left out, kernels or not


def lift_module(module: PtxModule, target: Target, data_layout: str,
                linked: frozenset[str] | None = None, param_arch: int | None = None) -> LiftedModule:
    """The whole module's IR. A function that cannot be translated is left out (and every kernel that
    calls it), with the reason in `failures`.

    `linked`: for a module of separately compiled device code (-rdc), the functions other modules of
    the program define; calls to them become declarations, resolved when the modules' IR is linked.
    `param_arch`: the sm_XX whose cubin's parameter layout the kernels take (`ptx_parameter_layout`); by
    default the PTX's own `.target`."""
    if param_arch is None:
        param_arch = target_arch(module)
    header = [f'target datalayout = "{data_layout}"', f'target triple = "{target.triple}"', ""]
    bodies: dict[str, str] = {}
    failures: dict[str, str] = {}
    shared: list[str] = []
    declared: dict[str, str] = {}
    defined = [f for f in module.functions if f.body is not None]
    for function in defined:
        try:
            rolled = replace(function, body=reroll_runtime_unrolled_loops(function.body or []))
            lifter = FunctionLifter(rolled, module, target, linked or frozenset(), separate=linked is not None,
                                    param_arch=param_arch)
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
                    and c not in (linked or ()) and c not in DEVICE_RUNTIME)]
                if missing:
                    failures[function.name] = f"{function.name} calls " + failures.get(
                        missing[0], _without_body(missing[0], linked is not None))
                    del bodies[function.name]
                    changed = True
    kernels = [f.name for f in defined if f.entry and f.name in bodies]
    # What an initializer may name (vtables, tables of function pointers, pointers to strings): each function
    # translated here and each variable, as a constant generic pointer.
    symbols = {name: f"@{quote(name)}" for name in bodies}
    symbols.update({v.name: f"addrspacecast (ptr addrspace({space_number(v.space, target)}) @{quote(v.name)} to ptr)"
                    for v in module.variables if v.space in ("global", "const")
                    and not (v.managed and target.name == "amdgpu")})  # its address is known at run time only
    variables = [_module_variable(v, target, linked is not None, symbols) for v in module.variables]
    declarations = [declared[name] for name in sorted(declared)]
    externals = [_external_declaration(f) for f in module.functions
                 if f.body is None and linked and f.name in linked and f.name not in bodies
                 and f"@{quote(f.name)}(" in "\n".join(bodies.values())]
    ir = "\n".join([*header, *variables, *shared, "", *bodies.values(), *externals, *declarations,
                    *attributes(target),
                    *variable_annotations([(v.name, "managed") for v in module.variables if v.managed]
                                          + [(v.name, images.REFERENCE_ANNOTATIONS[v.reference])
                                             for v in module.variables if v.reference], target), ""])
    return LiftedModule(ir, kernels, {k: v for k, v in failures.items()
                                      if (module.function(k) and module.function(k).entry)},  # type: ignore[union-attr]
                        set(failures))


# Functions of CUDA's device runtime that PTX calls without a body, and what they are in the source: NVPTX
# keeps the calls (ptxas knows them), AMDGPU calls HIP's device library as HIP clang does.
DEVICE_RUNTIME = {"vprintf": "device printf", "malloc": "device malloc", "free": "device free",
                  "__assertfail": "assert in device code"}


def _without_body(name: str, separate: bool) -> str:
    """Why a call to `name`, which has no PTX body here, is not translated (after "call to ")."""
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
    return (f"declare {_return_type(function)} @{quote(function.name)}"
            f"({', '.join(_llvm_param_type(p) for p in function.params)})")


def _callees(function: Function) -> list[str]:
    names = []

    def walk(statements) -> None:  # type: ignore[no-untyped-def]
        for statement in statements:
            if isinstance(statement, Block):
                walk(statement.statements)
            elif isinstance(statement, Instruction) and statement.opcode == "call":
                callee = [o for o in statement.operands if not o.startswith("(")]
                if callee and not callee[0].strip().startswith("%"):  # a call through a pointer names none
                    names.append(callee[0].strip())

    walk(function.body or [])
    return names


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


_SYMBOL_WORD = re.compile(r"^(?:generic\((?P<inner>[^)+]+)\)|(?P<name>[A-Za-z_$%][\w$.]*))(?:\+(?P<offset>\d+))?$")


def _address_initializer(variable: Variable, symbols: dict[str, str]) -> str | None:
    """The initializer of a variable whose words name functions or variables (vtables, function pointer
    tables), as 64-bit words of their generic addresses; None if every word is a number."""
    if all(_INT.match(w) or _FLOAT_LITERAL.match(w) for w in variable.init):
        return None
    if variable.element_size != 8:
        raise Unsupported(f"initializer of {variable.name}: addresses in .{variable.type} words")
    words = []
    for word in variable.init:
        if _INT.match(word):
            words.append(f"i64 {_ptx_int(word)}")
            continue
        match = _SYMBOL_WORD.match(word)
        symbol = match and (match.group("inner") or match.group("name"))
        if not match or symbol not in symbols:
            raise Unsupported(f"initializer '{word}' of {variable.name}: the address of a function or variable "
                              "this module does not translate")
        pointer = symbols[symbol]
        if match.group("offset"):
            pointer = f"getelementptr (i8, ptr {pointer}, i64 {match.group('offset')})"
        words.append(f"i64 ptrtoint (ptr {pointer} to i64)")
    words += ["i64 0"] * (variable.size // 8 - len(words))
    return f"[{len(words)} x i64] [{', '.join(words)}]"


def _module_variable(variable: Variable, target: Target, separate: bool = False,
                     symbols: dict[str, str] | None = None) -> str:
    number = space_number(variable.space, target)
    name = quote(variable.name)
    if variable.space == "shared":
        if variable.count == 0 or variable.extern:
            return f"@{name} = external addrspace(3) global [0 x i8], align {variable.align}"
        return f"@{name} = internal addrspace(3) global [{variable.size} x i8] poison, align {variable.align}"
    if variable.extern and variable.managed and target.name == "amdgpu":  # the pointer (`variable_definition`)
        return f"@{name} = external addrspace(1) global ptr addrspace(1), align 8"
    if variable.extern:
        return f"@{name} = external addrspace({number}) global [{variable.size} x i8], align {variable.align}"
    linkage = "linkonce_odr " if separate and not variable.visible else ""
    addresses = _address_initializer(variable, symbols or {})
    if addresses is not None:
        return (f"@{name} = {linkage}protected addrspace({number}) externally_initialized global {addresses}, "
                f"align {variable.align}")
    # Separately compiled modules (-rdc) may each carry the same file-local variable (libdevice's tables):
    # one copy is kept.
    if variable.space == "global":
        return variable_definition(variable.name, variable.size, _initializer_constant(variable), variable.align,
                                   target, variable.managed, linkage)
    # Visible, so that the runtime finds __constant__ variables by name (cudaMemcpyToSymbol).
    return (f"@{name} = {linkage}protected addrspace({number}) externally_initialized global "
            f"[{variable.size} x i8] {_initializer_constant(variable)}, align {variable.align}")


def _initializer_constant(variable: Variable) -> str:
    """A variable's numeric initializer as an LLVM constant of its [size x i8] type."""
    data = _initializer_bytes(variable)
    if not data:
        return "zeroinitializer"
    data = data + bytes(variable.size - len(data))
    return 'c"' + "".join(f"\\{b:02X}" for b in data[:variable.size]) + '"'


class FunctionLifter(Emitter):
    """The PTX front end: PTX registers, symbols and addresses read and written; what each instruction
    means is the core's (`Emitter`)."""

    def __init__(self, function: Function, module: PtxModule, target: Target,
                 linked: frozenset[str] = frozenset(), separate: bool = False, param_arch: int = 80) -> None:
        super().__init__(target)
        self.function = function
        self.param_arch = param_arch
        self.linked = linked
        self.separate = separate
        self.module = module
        self.registers: dict[str, str] = {}  # PTX register -> its storage type (i1, i16, i32, i64)
        self.register_ranges: dict[str, tuple[int, str]] = {}  # `%r<N>` declarations: "%r" -> (N, storage type)
        self.scopes: list[dict[str, tuple[str, int]]] = [{}]  # name -> (pointer, address space)
        self.shared_globals: list[str] = []
        self.globals = {v.name: v for v in module.variables}
        self.current: Instruction | None = None
        self.param_sources: dict[str, str] = {}  # .param variable -> the operand last stored in it
        self._definitions: dict[str, list[Instruction]] | None = None
        self.call_params: dict[str, Variable] = {}  # the .param variables of call sequences, by name

    def fail(self, why: str) -> Unsupported:
        where = f"'{self.current.text}' (PTX line {self.current.line})" if self.current else ""
        kind = "kernel" if self.function.entry else "device function"
        return Unsupported(f"{kind} {self.function.name}: {why}{': ' + where if where else ''}")

    # -- the function ---------------------------------------------------------------------------
    def lift(self) -> str:
        f = self.function
        params = []
        offsets, sizes, _ = ptx_parameter_layout(f, self.param_arch)
        for index, param in enumerate(f.params):
            llvm_type = f"[{param.size} x i8]" if param.count is not None else int_type(param.type)
            in_memory = f.entry and (param.count is not None or self.target.kernel_params_in_memory)
            placed = (offsets[index], sizes[index]) if f.entry else None
            text, self.scopes[0][param.name] = self.parameter(index, llvm_type, param.align, in_memory, placed)
            params.append(text)
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
            head = self.kernel_head(f.name, params)
        else:
            # Other modules of an -rdc program may call a visible device function.
            linkage = "hidden" if f.visible and self.linked else "internal"
            head = f"define {linkage} {self.return_type} @{quote(f.name)}({', '.join(params)}) #1 {{"
        return self.function_text(head)

    def statements(self, statements) -> None:  # type: ignore[no-untyped-def]
        for statement in statements:
            if isinstance(statement, Registers):
                storage = "i1" if statement.type == "pred" else int_type(statement.type)
                for name in statement.names:
                    if name not in self.registers:
                        self.registers[name] = storage
                        self.slot(self.reg_slot(name), storage)
                for prefix, count in statement.ranges:
                    self.register_ranges.setdefault(prefix, (count, storage))
            elif isinstance(statement, Variable):
                self.local_variable(statement)
            elif isinstance(statement, Label):
                self.place_label(self.label(statement.name))
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
        return quote(f"L.{name}")

    def register_storage(self, name: str) -> str | None:
        """The storage type of a declared register (None for anything else); a register of a `%r<N>`
        declaration gets its stack slot when first used."""
        storage = self.registers.get(name)
        if storage is not None:
            return storage
        for prefix, (count, ranged) in self.register_ranges.items():
            index = name[len(prefix):]
            if name.startswith(prefix) and index.isascii() and index.isdigit() and len(index) <= len(str(count)) \
                    and str(int(index)) == index and int(index) < count:
                self.registers[name] = ranged
                self.slot(self.reg_slot(name), ranged)
                return ranged
        return None

    @staticmethod
    def reg_slot(name: str) -> str:
        # `%r0` and a block's own `r0` (inline asm in CUDA's headers declares such) are different registers.
        return "%" + quote(f"r.{name[1:]}" if name.startswith("%") else f"n.{name}")

    def local_variable(self, variable: Variable) -> None:
        if variable.space == "shared":
            unique = variable.name
            self.shared_globals.append(_module_variable(variable, self.target))
            self.scopes[-1][variable.name] = (f"@{quote(unique)}", 3)
        elif variable.space in ("local", "param"):
            pointer = self.slot(f"{variable.space}.{variable.name}.{len(self.allocas)}",
                                f"[{variable.size} x i8]", variable.align)
            self.scopes[-1][variable.name] = (pointer, self.target.alloca_space)
            if variable.space == "param":  # a call's argument or result: its type is an indirect call's
                self.call_params[variable.name] = variable
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
            if variable.managed and self.target.name == "amdgpu":
                return self.managed_address(name), 1
            return f"@{quote(name)}", space_number(variable.space, self.target)
        return None

    # -- operands ---------------------------------------------------------------------------------
    def read(self, operand: str, ptx_type: str) -> str:
        """The operand's value as an LLVM value of `value_type(ptx_type)`."""
        operand = operand.strip()
        llvm_type = value_type(ptx_type)
        if operand.startswith("!") and ptx_type == "pred":
            return self.value(f"xor i1 {self.read(operand[1:], 'pred')}, true")
        storage = self.register_storage(operand)
        if storage is not None:
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
        try:
            if is_float(ptx_type):
                return _ptx_float(operand, ptx_type)
            if ptx_type == "pred":
                return "true" if _ptx_int(operand) else "false"
        except (ValueError, struct.error) as error:  # not a literal PTX has: a damaged input
            raise self.fail(f"'{operand}' is not a .{ptx_type} operand") from error
        if _INT.match(operand):
            return str(_ptx_int(operand))
        located = self.lookup(operand)
        if located is not None:  # a variable's address
            pointer, space = located
            return self.value(f"ptrtoint {self.ptr(space)} {pointer} to {llvm_type}")
        function = self.module.function(operand)
        if function is not None and function.body is not None:  # a function's address (function pointers)
            return self.value(f"ptrtoint ptr @{quote(operand)} to {llvm_type}")
        raise self.fail(f"unsupported operand '{operand}'")

    def convert_storage(self, raw: str, storage: str, ptx_type: str) -> str:
        wanted = int_type(ptx_type) if ptx_type != "pred" else "i1"
        value = self.resize(raw, storage, wanted, is_signed(ptx_type))
        if value_type(ptx_type) != wanted:  # floats, packed pairs
            return self.value(f"bitcast {wanted} {value} to {value_type(ptx_type)}")
        return value

    def write(self, register: str, value: str, ptx_type: str) -> None:
        register = register.strip()
        if register == "_":
            return
        storage = self.register_storage(register)
        if storage is None:
            raise self.fail(f"writes {register}, which is not a declared register")
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
        storage = self.register_storage(base)
        if storage is not None:
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
        try:
            if instruction.guard is None or instruction.opcode in ("bra",):
                handler(instruction)
                return
            condition = self.read(instruction.guard, "pred")
            if instruction.negated:
                condition = self.value(f"xor i1 {condition}, true")
            self.guarded(condition, lambda: handler(instruction))
        except (IndexError, KeyError, ValueError, StopIteration) as error:  # operands or modifiers of another
            raise self.fail(f"cannot read the operands of '{instruction.opcode}'") from error  # shape: damaged input

    def types(self, instruction: Instruction) -> list[str]:
        return [m for m in instruction.modifiers if _OPERAND_TYPE.fullmatch(m)]

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
        if any(m in instruction.modifiers for m in ("acquire", "relaxed")):
            self.ordered_access(instruction, ptx_type, space)
            return
        destination, source = instruction.operands[0], instruction.operands[1]
        pointer, number = self.address(source, space)
        volatile = "volatile" in instruction.modifiers
        size = width(ptx_type) // 8
        for index, register in enumerate(self.vector(destination)):
            element = pointer if index == 0 else self.offset_pointer(pointer, number, index * size)
            # ld.global.nc (__ldg, const __restrict__) reads memory the PTX ISA requires to be read-only for
            # the kernel's lifetime.
            loaded = self.load(ptx_type, element, number, size, volatile, invariant="nc" in instruction.modifiers)
            self.write(register, loaded, ptx_type)

    op_ldu = op_ld

    def ordered_access(self, instruction: Instruction, ptx_type: str, space: str) -> None:
        """ld.acquire / ld.relaxed / st.release / st.relaxed (memory-model loads and stores, as in spin-waits):
        atomic, so that LLVM neither hoists them out of a loop nor merges them."""
        load = instruction.opcode == "ld"
        scope = next((m for m in instruction.modifiers if m in ("cta", "gpu", "sys", "cluster")), "gpu")
        ordering = next(m for m in instruction.modifiers if m in ("acquire", "release", "relaxed"))
        pointer, number = self.address(instruction.operands[int(load)], space)
        size = width(ptx_type) // 8
        registers = self.vector(instruction.operands[int(not load)])
        if len(registers) > 1:
            # A vector (CUB's look-back tile descriptors: {status, value} as st.relaxed.v2.u32) is one access of
            # its whole width, so no reader sees half of a write; the PTX ISA allows that order of its elements.
            # Up to 64 bits an atomic; wider (v2.u64) one volatile access, a single 128-bit instruction.
            bits = width(ptx_type) * len(registers)
            if bits > 64:  # no atomic of 128 bits: one volatile access of the vector (a single b128 instruction)
                self.volatile_vector(load, ptx_type, registers, pointer, number)
                return
            if load:
                whole = self.ordered_load(f"b{bits}", pointer, number, bits // 8, ordering, scope)
                for index, register in enumerate(registers):
                    part = self.value(f"lshr i{bits} {whole}, {index * width(ptx_type)}") if index else whole
                    self.write(register, self.value(f"trunc i{bits} {part} to {int_type(ptx_type)}"),
                               f"b{width(ptx_type)}")
            else:
                whole = "0"
                for index, register in enumerate(registers):
                    element = self.value(f"zext {int_type(ptx_type)} {self.read(register, f'b{width(ptx_type)}')} "
                                         f"to i{bits}")
                    shifted = self.value(f"shl i{bits} {element}, {index * width(ptx_type)}") if index else element
                    whole = self.value(f"or i{bits} {whole}, {shifted}")
                self.ordered_store(f"b{bits}", whole, pointer, number, bits // 8, ordering, scope)
            return
        if load:
            self.write(instruction.operands[0], self.ordered_load(ptx_type, pointer, number, size, ordering, scope),
                       ptx_type)
        else:
            self.ordered_store(ptx_type, self.read(instruction.operands[1], ptx_type), pointer, number, size,
                               ordering, scope)

    def volatile_vector(self, load: bool, ptx_type: str, registers: list[str], pointer: str, space: int) -> None:
        """A vector loaded or stored whole by one volatile access."""
        vector = f"<{len(registers)} x {int_type(ptx_type)}>"
        align = width(ptx_type) // 8 * len(registers)
        if load:
            loaded = self.value(f"load volatile {vector}, {self.ptr(space)} {pointer}, align {align}")
            for index, register in enumerate(registers):
                self.write(register, self.value(f"extractelement {vector} {loaded}, i32 {index}"),
                           f"b{width(ptx_type)}")
            return
        built = "poison"
        for index, register in enumerate(registers):
            built = self.value(f"insertelement {vector} {built}, {int_type(ptx_type)} "
                               f"{self.read(register, f'b{width(ptx_type)}')}, i32 {index}")
        self.emit(f"store volatile {vector} {built}, {self.ptr(space)} {pointer}, align {align}")

    def op_st(self, instruction: Instruction) -> None:
        ptx_type = self.the_type(instruction)
        space = self.space_of(instruction)
        if space == "param":  # what a call's argument holds, for the calls whose meaning depends on it (printf)
            self.param_sources[instruction.operands[0].strip("[] ").split("+")[0]] = instruction.operands[1].strip()
        if any(m in instruction.modifiers for m in ("release", "relaxed")):
            self.ordered_access(instruction, ptx_type, space)
            return
        pointer, number = self.address(instruction.operands[0], space)
        size = width(ptx_type) // 8
        for index, source in enumerate(self.vector(instruction.operands[1])):
            element = pointer if index == 0 else self.offset_pointer(pointer, number, index * size)
            self.store(ptx_type, self.read(source, ptx_type), element, number, size,
                       "volatile" in instruction.modifiers)

    @staticmethod
    def vector(operand: str) -> list[str]:
        operand = operand.strip()
        if operand.startswith("{"):
            return [p.strip() for p in operand.strip("{} ").split(",")]
        return [operand]

    def op_cvta(self, instruction: Instruction) -> None:
        space = next(m for m in instruction.modifiers if m in ("global", "shared", "const", "local", "param"))
        ptx_type = self.the_type(instruction)
        value = self.read(instruction.operands[1], ptx_type)
        number = self.param_space() if space == "param" else space_number(space, self.target)
        if number == 0 or space == "global":
            self.write(instruction.operands[0], value, ptx_type)  # the same numbers in both spaces
            return
        self.write(instruction.operands[0], self.convert_space(value, ptx_type, number, "to" in instruction.modifiers),
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
        directed = next((m for m in instruction.modifiers if m in DIRECTED_ROUNDINGS), None)
        if is_float(ptx_type) and directed and float_op in (*CONTRACTIBLE, "fdiv"):
            result = self.saturate(instruction, self.directed_arithmetic(float_op, ptx_type, a, b, directed), ptx_type)
        elif is_float(ptx_type):
            if float_op in CONTRACTIBLE:
                contractible = not any(m in ROUNDING_MODIFIERS for m in instruction.modifiers)
                result = self.float_arithmetic(float_op, ptx_type, a, b, contractible)
            else:
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
        return self.clamp_unit(value, ptx_type)

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
        """Extended-precision arithmetic (add.cc, addc, sub.cc, subc, mad.cc, madc)."""
        ptx_type = self.the_type(instruction)
        bits = width(ptx_type)
        slot = self.carry_slot()
        a = self.read(instruction.operands[1], ptx_type)
        b = self.read(instruction.operands[2], ptx_type)
        if operation == "mad":
            mode = next((m for m in instruction.modifiers if m in ("lo", "hi")), "lo")
            product, _ = self.multiply(mode, a, b, ptx_type)
            a, b, operation = product, self.read(instruction.operands[3], ptx_type), "add"
        carry = self.value(f"load i32, {self.alloca_ptr()} {slot}") if carry_in else None
        total = self.wide_sum(operation, bits, a, b, carry)
        self.write(instruction.operands[0], self.value(f"trunc i{2 * bits} {total} to i{bits}"), ptx_type)
        if "cc" in instruction.modifiers:
            out = self.value(f"zext i1 {self.carry_out(total, bits)} to i32")
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

    def op_mul24(self, instruction: Instruction) -> None:
        ptx_type = self.the_type(instruction)
        if "hi" in instruction.modifiers:
            raise self.fail("mul24.hi")
        a, b = (self.low24(self.read(o, ptx_type), ptx_type) for o in instruction.operands[1:3])
        self.write(instruction.operands[0], self.value(f"mul i32 {a}, {b}"), ptx_type)

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
        a, b, c = (self.read(o, ptx_type) for o in instruction.operands[1:4])
        directed = next((m for m in instruction.modifiers if m in ("rm", "rp", "rz")), None)
        self.write(instruction.operands[0], self.saturate(instruction, self.fma(ptx_type, a, b, c, directed), ptx_type),
                   ptx_type)

    def unary_intrinsic(self, instruction: Instruction, base: str, flags: str = "") -> None:
        ptx_type = self.the_type(instruction)
        a = self.read(instruction.operands[1], ptx_type)
        self.write(instruction.operands[0], self.unary(base, ptx_type, a, flags), ptx_type)

    def op_min(self, instruction: Instruction) -> None:
        self.min_max_op(instruction, "min")

    def op_max(self, instruction: Instruction) -> None:
        self.min_max_op(instruction, "max")

    def min_max_op(self, instruction: Instruction, which: str) -> None:
        ptx_type = self.the_type(instruction)
        a, b = (self.read(o, ptx_type) for o in instruction.operands[1:3])
        result = self.min_max(which, ptx_type, a, b, "NaN" in instruction.modifiers)
        if "relu" in instruction.modifiers:  # negative results become 0
            if is_float(ptx_type):
                raise self.fail("min/max .relu on floats")
            result = self.relu(ptx_type, result)
        self.write(instruction.operands[0], result, ptx_type)

    def op_abs(self, instruction: Instruction) -> None:
        ptx_type = self.the_type(instruction)
        self.write(instruction.operands[0], self.absolute(ptx_type, self.read(instruction.operands[1], ptx_type)),
                   ptx_type)

    def op_neg(self, instruction: Instruction) -> None:
        ptx_type = self.the_type(instruction)
        self.write(instruction.operands[0], self.negate(ptx_type, self.read(instruction.operands[1], ptx_type)),
                   ptx_type)

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
        self.shift_op(instruction, "shl")

    def op_shr(self, instruction: Instruction) -> None:
        self.shift_op(instruction, "ashr" if is_signed(self.the_type(instruction)) else "lshr")

    def op_shf(self, instruction: Instruction) -> None:
        """shf.{l,r}.{wrap,clamp}.b32 d, a, b, c: the high (l) or low (r) word of b:a shifted by c, which .wrap
        takes mod 32 and .clamp caps at 32 (a shift by 32 leaves a (l) or b (r))."""
        a, b, amount = (self.read(o, "b32") for o in instruction.operands[1:4])
        direction = "fshl" if "l" in instruction.modifiers else "fshr"
        result = self.funnel(direction, b, a, amount)
        if "clamp" in instruction.modifiers:
            whole = self.value(f"icmp uge i32 {amount}, 32")
            result = self.value(f"select i1 {whole}, i32 {a if direction == 'fshl' else b}, i32 {result}")
        self.write(instruction.operands[0], result, "b32")

    def shift_op(self, instruction: Instruction, operation: str) -> None:
        ptx_type = self.the_type(instruction)
        a = self.read(instruction.operands[1], ptx_type)
        amount = self.read(instruction.operands[2], "u32")
        self.write(instruction.operands[0], self.shift(operation, ptx_type, a, amount), ptx_type)

    def bit_count_op(self, instruction: Instruction, base: str, extra: str = "") -> None:
        ptx_type = self.the_type(instruction)
        a = self.read(instruction.operands[1], ptx_type)
        self.write(instruction.operands[0], self.bit_count(base, ptx_type, a, extra), "u32")

    def op_popc(self, instruction: Instruction) -> None:
        self.bit_count_op(instruction, "llvm.ctpop")

    def op_clz(self, instruction: Instruction) -> None:
        self.bit_count_op(instruction, "llvm.ctlz", ", i1 false")

    def op_brev(self, instruction: Instruction) -> None:
        self.unary_intrinsic(instruction, "llvm.bitreverse")

    def op_bfind(self, instruction: Instruction) -> None:
        ptx_type = self.the_type(instruction)
        a = self.read(instruction.operands[1], ptx_type)
        self.write(instruction.operands[0], self.find_leading(ptx_type, a, "shiftamt" in instruction.modifiers), "u32")

    def op_bfe(self, instruction: Instruction) -> None:
        ptx_type = self.the_type(instruction)
        a = self.read(instruction.operands[1], ptx_type)
        position, length = (self.read(o, "u32") for o in instruction.operands[2:4])
        self.write(instruction.operands[0], self.bit_field_extract(ptx_type, a, position, length), ptx_type)

    def op_bfi(self, instruction: Instruction) -> None:
        ptx_type = self.the_type(instruction)
        f, b = (self.read(o, ptx_type) for o in instruction.operands[1:3])
        position, length = (self.read(o, "u32") for o in instruction.operands[3:5])
        self.write(instruction.operands[0], self.bit_field_insert(ptx_type, f, b, position, length), ptx_type)

    def op_lop3(self, instruction: Instruction) -> None:
        if "|" in instruction.operands[0] or len(instruction.operands) != 5:
            raise self.fail("lop3 with a predicate")
        ptx_type = self.the_type(instruction)
        inputs = [self.read(o, ptx_type) for o in instruction.operands[1:4]]
        table = _ptx_int(instruction.operands[4].strip())
        self.write(instruction.operands[0], self.lop3(ptx_type, inputs, table), ptx_type)

    def op_bmsk(self, instruction: Instruction) -> None:
        """bmsk.{clamp,wrap}.b32 d, a, b: b one-bits from bit a."""
        a, b = (self.read(o, "u32") for o in instruction.operands[1:3])
        self.write(instruction.operands[0], self.bit_mask(a, b, "wrap" in instruction.modifiers), "b32")

    def op_prmt(self, instruction: Instruction) -> None:
        if any(m in instruction.modifiers for m in ("f4e", "b4e", "rc8", "ecl", "ecr", "rc16")):
            raise self.fail("prmt modes other than the default")
        a, b, selector = (self.read(o, "b32") for o in instruction.operands[1:4])
        self.write(instruction.operands[0], self.permute(a, b, selector), "b32")

    def op_dp4a(self, instruction: Instruction) -> None:
        self.dot_product(instruction, 4)

    def op_dp2a(self, instruction: Instruction) -> None:
        self.dot_product(instruction, 2)

    def dot_product(self, instruction: Instruction, lanes: int) -> None:
        """`dp4a.atype.btype d, a, b, c`: c plus the products of a's and b's four bytes; `dp2a.{lo,hi}`: of a's
        two half-words and b's two low (.lo) or high (.hi) bytes. Each lane is extended by its operand's type
        (.u32 or .s32); the sum wraps to 32 bits."""
        types = self.types(instruction)
        if len(types) != 2 or any(t not in ("u32", "s32") for t in types):
            raise self.fail(f"{instruction.opcode} other than .u32/.s32")
        a_type, b_type = types
        wide = f"<{lanes} x i32>"

        def lanes_of(operand: str, ptx_type: str, bits: int, first: int) -> str:
            count = 32 // bits
            vector = self.value(f"bitcast i32 {self.read(operand, 'b32')} to <{count} x i{bits}>")
            if count != lanes:
                chosen = ", ".join(f"i32 {first + index}" for index in range(lanes))
                vector = self.value(f"shufflevector <{count} x i{bits}> {vector}, <{count} x i{bits}> poison, "
                                    f"<{lanes} x i32> <{chosen}>")
            return self.value(f"{'sext' if is_signed(ptx_type) else 'zext'} <{lanes} x i{bits}> {vector} to {wide}")

        a = lanes_of(instruction.operands[1], a_type, 32 // lanes, 0)
        b = lanes_of(instruction.operands[2], b_type, 8, 2 if "hi" in instruction.modifiers else 0)
        name = f"llvm.vector.reduce.add.v{lanes}i32"
        self.declare(name, f"declare i32 @{name}({wide})")
        total = self.value(f"call i32 @{name}({wide} {self.value(f'mul {wide} {a}, {b}')})")
        self.write(instruction.operands[0], self.value(f"add i32 {self.read(instruction.operands[3], 'b32')}, {total}"),
                   "b32")

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
        sign, magnitude = (self.read(o, ptx_type) for o in instruction.operands[1:3])
        self.write(instruction.operands[0], self.copy_sign(ptx_type, magnitude, sign), ptx_type)

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
        directed = next((m for m in instruction.modifiers if m in DIRECTED_ROUNDINGS), None)
        if directed:
            ptx_type = self.the_type(instruction)
            a = self.read(instruction.operands[1], ptx_type)
            self.write(instruction.operands[0], self.directed_root(ptx_type, a, directed), ptx_type)
            return
        self.unary_intrinsic(instruction, "llvm.sqrt", "afn " if "approx" in instruction.modifiers else "")

    def op_rsqrt(self, instruction: Instruction) -> None:
        ptx_type = self.the_type(instruction)
        a = self.read(instruction.operands[1], ptx_type)
        self.write(instruction.operands[0], self.reciprocal_root(ptx_type, a), ptx_type)

    def op_rcp(self, instruction: Instruction) -> None:
        ptx_type = self.the_type(instruction)
        a = self.read(instruction.operands[1], ptx_type)
        directed = next((m for m in instruction.modifiers if m in DIRECTED_ROUNDINGS), None)
        result = self.directed_arithmetic("fdiv", ptx_type, "1.0", a, directed) if directed else \
            self.reciprocal(ptx_type, a, "approx" in instruction.modifiers)
        self.write(instruction.operands[0], result, ptx_type)

    def op_sin(self, instruction: Instruction) -> None:
        self.unary_intrinsic(instruction, "llvm.sin", "afn ")

    def op_cos(self, instruction: Instruction) -> None:
        self.unary_intrinsic(instruction, "llvm.cos", "afn ")

    def op_ex2(self, instruction: Instruction) -> None:
        self.unary_intrinsic(instruction, "llvm.exp2", "afn ")

    def op_lg2(self, instruction: Instruction) -> None:
        ptx_type = self.the_type(instruction)
        a = self.read(instruction.operands[1], ptx_type)
        self.write(instruction.operands[0], self.log2(ptx_type, a), ptx_type)

    def op_tanh(self, instruction: Instruction) -> None:
        ptx_type = self.the_type(instruction)
        a = self.read(instruction.operands[1], ptx_type)
        self.write(instruction.operands[0], self.tanh(ptx_type, a), ptx_type)

    # comparisons and selection
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
        a, b = (self.read(o, ptx_type) for o in instruction.operands[1:3])
        c = self.read(instruction.operands[3], "pred")
        self.write(instruction.operands[0], self.select(ptx_type, c, a, b), ptx_type)

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
            # cvt.rn.f16x2.f32 d, a, b: a rounded to the upper half of d, b to the lower.
            high, low = (self.read(o, "f32") for o in instruction.operands[1:3])
            self.write(instruction.operands[0], self.pack_halves(destination_type[:-2], high, low), "b32")
            return
        if "x2" in destination_type or "x2" in source_type or "relu" in instruction.modifiers:
            raise self.fail("packed conversions")
        rounding = next((m for m in instruction.modifiers if m in ("rni", "rzi", "rmi", "rpi", *DIRECTED_ROUNDINGS)),
                        None)
        a = self.read(instruction.operands[1], source_type)
        result = self.convert(a, source_type, destination_type, rounding, "sat" in instruction.modifiers)
        self.write(instruction.operands[0], result, destination_type)

    # control flow
    def op_bra(self, instruction: Instruction) -> None:
        target = self.label(instruction.operands[0].strip())
        condition = self.read(instruction.guard, "pred") if instruction.guard is not None else None
        self.branch(target, condition, instruction.negated)

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
        self.trap()

    def op_call(self, instruction: Instruction) -> None:
        operands = list(instruction.operands)
        results: list[str] = []
        if operands[0].startswith("("):
            results = [r.strip() for r in operands.pop(0).strip("() ").split(",") if r.strip()]
        callee_name = operands.pop(0).strip()
        arguments = [a.strip() for a in operands.pop(0).strip("() ").split(",") if a.strip()] if operands else []
        if callee_name.startswith("%"):  # through a function pointer: the call's .param variables give the types
            if any(a not in self.call_params for a in arguments) or any(r not in self.call_params for r in results):
                raise self.fail("an indirect call whose arguments are not .param variables")
            self.emit_call(self.integer_pointer(self.read(callee_name, "b64"), "i64", 0),
                           [self.call_params[a] for a in arguments], [self.call_params[r] for r in results],
                           arguments, results)
            return
        callee = self.module.function(callee_name)
        if callee is not None and callee.body is None and callee_name in DEVICE_RUNTIME:
            if self.target.name != "nvptx":
                self.device_runtime(callee, results, arguments)
                return
            self.declare(callee_name, _external_declaration(callee))
        elif callee is None or (callee.body is None and callee_name not in self.linked):
            raise self.fail(f"call to {_without_body(callee_name, self.separate)}")
        self.emit_call(f"@{quote(callee_name)}", list(callee.params), list(callee.returns), arguments, results)

    def emit_call(self, callee: str, params: list[Variable], returns: list[Variable], arguments: list[str],
                  results: list[str]) -> None:
        """A call of `callee` (a function or a pointer) with the prototype `params` -> `returns`."""
        if len(returns) > 1:
            raise self.fail("calls returning several values")
        values = []
        for argument, param in zip(arguments, params):
            llvm_type = f"[{param.size} x i8]" if param.count is not None else int_type(param.type)
            pointer, space = self.lookup(argument) or (None, 0)
            if pointer is None:
                raise self.fail(f"call argument {argument}")
            values.append(f"{llvm_type} {self.value(f'load {llvm_type}, {self.ptr(space)} {pointer}')}")
        return_type = "void"
        if returns:
            result = returns[0]
            return_type = f"[{result.size} x i8]" if result.count is not None else int_type(result.type)
        call = f"call {return_type} {callee}({', '.join(values)})"
        if return_type == "void":
            self.emit(call)
        else:
            value = self.value(call)
            pointer, space = self.lookup(results[0]) or (None, 0)
            if pointer is None:
                raise self.fail(f"call result {results[0]}")
            self.emit(f"store {return_type} {value}, {self.ptr(space)} {pointer}")

    def device_runtime(self, callee: Function, results: list[str], arguments: list[str]) -> None:
        """A call to CUDA's device runtime (vprintf, __assertfail, malloc, free) on AMDGPU."""
        values = [self.argument_value(a, p) for a, p in zip(arguments, callee.params)]
        name = callee.name
        if name == "malloc":
            self.store_result(results, self.device_malloc(values[0]), "i64")
        elif name == "free":
            self.device_free(values[0])
        elif name == "__assertfail":
            self.assert_fail(self.assert_format(), values[0], values[1], self.resize(values[2], "i64", "i32", False),
                             values[3])
        else:
            format_string = self.constant_string(arguments[0])
            try:
                layout = argument_layout(format_string.decode("latin-1"))
            except Unsupported as error:
                raise self.fail(str(error)) from error
            buffer = values[1]
            loaded = []
            for argument in layout:
                pointer = self.value(f"inttoptr i64 {self.value(f'add i64 {buffer}, {argument.offset}')} to ptr")
                value = self.value(f"load i{8 * argument.size}, ptr {pointer}, align {argument.size}")
                loaded.append((argument.kind, self.resize(value, f"i{8 * argument.size}", "i64", False)))
            self.printf(values[0], len(format_string) + 1, loaded)
            self.store_result(results, str(len(layout)), "i32")  # CUDA's printf returns the arguments it read

    def argument_value(self, argument: str, param: Variable) -> str:
        """A call argument (a .param variable of the call sequence) of the callee's scalar `param`, as an i64."""
        pointer, space = self.lookup(argument) or (None, 0)
        if pointer is None or param.count is not None:
            raise self.fail(f"call argument {argument}")
        llvm_type = int_type(param.type)
        return self.resize(self.value(f"load {llvm_type}, {self.ptr(space)} {pointer}"), llvm_type, "i64", False)

    def store_result(self, results: list[str], value: str, llvm_type: str) -> None:
        if results:
            pointer, space = self.lookup(results[0]) or (None, 0)
            if pointer is None:
                raise self.fail(f"call result {results[0]}")
            self.emit(f"store {llvm_type} {value}, {self.ptr(space)} {pointer}")

    def constant_string(self, argument: str) -> bytes:
        """The bytes (to its NUL) of the constant string a call argument points to: the operand stored in the .param, traced
        through its register's one definition (mov of a global's address, cvta.global) to the global."""
        operand = self.param_sources.get(argument, "")
        for _ in range(8):
            definitions = self.definitions.get(operand, [])
            if operand in self.globals:
                data = _initializer_bytes(self.globals[operand])
                return data.split(b"\0")[0]
            if len(definitions) != 1 or definitions[0].opcode not in ("mov", "cvta") or (
                    definitions[0].opcode == "cvta" and "global" not in definitions[0].modifiers):
                break
            operand = definitions[0].operands[1].strip()
        raise self.fail("printf with a format string that is not a constant string")

    @property
    def definitions(self) -> dict[str, list[Instruction]]:
        """Each register's defining instructions in the function."""
        if self._definitions is None:
            self._definitions = {}

            def walk(statements) -> None:  # type: ignore[no-untyped-def]
                for statement in statements:
                    if isinstance(statement, Block):
                        walk(statement.statements)
                    elif isinstance(statement, Instruction) and statement.operands:
                        for register in statement.operands[0].split("|"):
                            self._definitions.setdefault(register.strip(), []).append(statement)  # type: ignore[union-attr]

            walk(self.function.body or [])
        return self._definitions

    # synchronisation
    def op_bar(self, instruction: Instruction) -> None:
        if "warp" in instruction.modifiers:
            self.warp_sync()
            return
        if "red" in instruction.modifiers and len(instruction.operands) == 3 and \
                instruction.operands[1].strip() == "0":  # bar.red.{popc,and,or} d, 0, {!}p: __syncthreads_count...
            operation = next(m for m in instruction.modifiers if m in ("popc", "and", "or"))
            result = self.block_reduce(operation, self.read(instruction.operands[2], "pred"))
            self.write(instruction.operands[0], result, "u32" if operation == "popc" else "pred")
            return
        if any(m in instruction.modifiers for m in ("red", "arrive")) or (
                len(instruction.operands) > 1 or instruction.operands[0].strip() not in ("0",)):
            raise self.fail("named barriers, bar.arrive and bar.red (__syncthreads_count/and/or)")
        self.barrier()

    op_barrier = op_bar

    def op_membar(self, instruction: Instruction) -> None:
        scope = {"cta": "cta", "gl": "gpu", "sys": "sys"}.get(instruction.modifiers[0] if instruction.modifiers
                                                             else "gl", "gpu")
        self.fence(scope)

    def op_fence(self, instruction: Instruction) -> None:
        if "proxy" in instruction.modifiers:  # orders the async proxy (TMA, bulk copies): they are synchronous here
            return
        self.fence(next((m for m in instruction.modifiers if m in ("cta", "gpu", "sys", "cluster")), "gpu"))

    def op_atom(self, instruction: Instruction, returns: bool = True) -> None:
        ptx_type = self.the_type(instruction)
        # 16-bit and packed floats (atom.add.noftz.f16/.f16x2/.bf16x2, their min/max): LLVM's atomicrmw on
        # half/bfloat and their vectors, which a target without the instruction does by compare-and-swap.
        packed_float = is_float(ptx_type) and (width(ptx_type) == 16 or "x2" in ptx_type)
        if (not packed_float and ("x2" in ptx_type or width(ptx_type) not in (32, 64))) or (
                packed_float and not any(m in instruction.modifiers for m in ("add", "min", "max"))):
            raise self.fail(f"atomics on .{ptx_type}")
        space = self.space_of(instruction)
        scope = next((m for m in instruction.modifiers if m in ("cta", "gpu", "sys", "cluster")), "gpu")
        ordering = {"acquire": "acquire", "release": "release", "acq_rel": "acq_rel", "sc": "seq_cst"}.get(
            next((m for m in instruction.modifiers if m in ("acquire", "release", "acq_rel", "sc")), ""), "monotonic")
        operation = next((m for m in instruction.modifiers if m in (*ATOMIC_OPERATIONS, "cas")), None)
        if operation is None:
            raise self.fail("this atomic operation")
        operands = list(instruction.operands)
        destination = operands.pop(0) if returns else None
        pointer, number = self.address(operands[0], space)
        b = self.read(operands[1], ptx_type)
        if operation == "cas":
            expected = self.read(operands[1], f"b{width(ptx_type)}")
            new = self.read(operands[2], f"b{width(ptx_type)}")
            old = self.compare_exchange(width(ptx_type), pointer, number, expected, new, scope, ordering)
            if destination:
                self.write(destination, old, f"b{width(ptx_type)}")
            return
        if operation in ("inc", "dec") and ptx_type != "u32":
            raise self.fail("atom.inc/dec other than .u32")
        old = self.atomic(operation, ptx_type, pointer, number, b, scope, ordering)
        if destination:
            self.write(destination, old, ptx_type)

    def op_red(self, instruction: Instruction) -> None:
        self.op_atom(instruction, returns=False)

    # warp-level operations
    def op_shfl(self, instruction: Instruction) -> None:
        mode = next(m for m in instruction.modifiers if m in ("up", "down", "bfly", "idx"))
        destinations = instruction.operands[0].split("|")
        a, b, c = (self.read(o, "b32") for o in instruction.operands[1:4])
        value, valid = self.shuffle(mode, a, b, c, lambda: self.read(instruction.operands[4], "b32")
                                    if len(instruction.operands) > 4 else "-1")
        self.write(destinations[0], value, "b32")
        if len(destinations) > 1:
            self.write(destinations[1], valid(), "pred")

    def op_vote(self, instruction: Instruction) -> None:
        mode = next(m for m in instruction.modifiers if m in ("all", "any", "uni", "ballot"))
        predicate = self.read(instruction.operands[1], "pred")
        mask = (lambda: self.read(instruction.operands[2], "b32") if len(instruction.operands) > 2 else "-1")
        result = self.vote(mode, predicate, mask if "sync" in instruction.modifiers else None)
        self.write(instruction.operands[0], result, "b32" if mode == "ballot" else "pred")

    def op_activemask(self, instruction: Instruction) -> None:
        self.write(instruction.operands[0], self.active_mask(), "b32")

    def op_redux(self, instruction: Instruction) -> None:
        """redux.sync.{add,min,max,and,or,xor}.{u32,s32,b32} d, a, membermask."""
        ptx_type = self.the_type(instruction)
        if is_float(ptx_type):
            raise self.fail("redux.sync on floats")
        operation = next(m for m in instruction.modifiers if m in ("add", "min", "max", "and", "or", "xor"))
        if operation in ("min", "max") and not is_signed(ptx_type):
            operation = f"u{operation}"
        self.write(instruction.operands[0], self.warp_reduce(operation, self.read(instruction.operands[1], "b32")),
                   "b32")

    def op_match(self, instruction: Instruction) -> None:
        """match.any.sync / match.all.sync (.b32, .b64) d{|p}, a, membermask."""
        bits = width(self.the_type(instruction))
        destinations = instruction.operands[0].split("|")
        value = self.read(instruction.operands[1], f"b{bits}")
        mask = (lambda: self.read(instruction.operands[2], "b32"))
        if "any" in instruction.modifiers:
            self.write(destinations[0], self.match_any(value, bits, mask), "b32")
            return
        lanes, same = self.match_all(value, bits, mask)
        self.write(destinations[0], lanes, "b32")
        if len(destinations) > 1:
            self.write(destinations[1], same, "pred")

    def op_elect(self, instruction: Instruction) -> None:
        """elect.sync d|p, membermask: the lowest active member lane is the leader."""
        destinations = instruction.operands[0].split("|")
        leader, chosen = self.elect(self.read(instruction.operands[1], "b32"))
        self.write(destinations[0], leader, "b32")
        if len(destinations) > 1:
            self.write(destinations[1], chosen, "pred")

    def op_cp(self, instruction: Instruction) -> None:
        """cp.async (4, 8, 16 bytes; src-size or ignore-src), cp.async.bulk (global <-> shared), their commit
        and wait groups and cp.async.mbarrier.arrive: the copies happen at once, so the waits are met."""
        modifiers = instruction.modifiers
        if "async" not in modifiers or "tensor" in modifiers or any(m.startswith("prefetch") for m in modifiers):
            raise self.fail("this copy instruction (tensor-map copies are not translated)")
        if any(m in modifiers for m in ("commit_group", "wait_group", "wait_all", "wait_group.read")) or (
                "bulk" in modifiers and any(m.startswith("wait_group") for m in modifiers)):
            return
        operands = list(instruction.operands)
        if any(m.startswith("L2::cache_hint") for m in modifiers):
            operands.pop()
        if "mbarrier" in modifiers:  # cp.async.mbarrier.arrive{.noinc}: arrives once the thread's copies are done
            if "noinc" in modifiers:  # (without .noinc the pending count is raised first: no net arrival)
                pointer, space = self.address(operands[0], self.barrier_space(instruction))
                self.mbarrier_arrive(pointer, space, "1")
            return
        destination_space = "shared" if any(m.startswith("shared") for m in modifiers[:3]) else "global"
        source_space = "global" if destination_space == "shared" else "shared"
        destination, destination_number = self.address(operands[0], destination_space)
        source, source_number = self.address(operands[1], source_space)
        if "bulk" in modifiers:  # size a multiple of 16; an mbarrier's complete_tx has no transaction to wait for
            size = self.value(f"zext i32 {self.read(operands[2], 'u32')} to i64")
            copy = f"llvm.memcpy.p{destination_number}.p{source_number}.i64"
            self.declare(copy, f"declare void @{copy}({self.ptr(destination_number)}, {self.ptr(source_number)}, "
                         "i64, i1)")
            self.emit(f"call void @{copy}({self.ptr(destination_number)} align 16 {destination}, "
                      f"{self.ptr(source_number)} align 16 {source}, i64 {size}, i1 false)")
            return
        size = _ptx_int(operands[2].strip())
        source_size = None
        if len(operands) > 3:
            extra = operands[3].strip()
            if self.registers.get(extra.lstrip("!")) == "i1":  # ignore-src: a predicate; true reads nothing
                ignore = self.read(extra, "pred")
                source_size = self.value(f"select i1 {ignore}, i64 0, i64 {size}")
            else:
                source_size = self.value(f"zext i32 {self.read(extra, 'u32')} to i64")
        self.copy_bytes(destination, destination_number, source, source_number, size, source_size)

    def barrier_space(self, instruction: Instruction) -> str:
        return "shared" if any(m.startswith("shared") for m in instruction.modifiers) else "generic"

    def op_mbarrier(self, instruction: Instruction) -> None:
        """mbarrier.init / arrive / arrive_drop / test_wait / try_wait (.parity) / pending_count / inval and
        the transaction counts (expect_tx, complete_tx: nothing is asynchronous here, so none is pending)."""
        modifiers = instruction.modifiers
        kind = modifiers[0]
        space = self.barrier_space(instruction)
        operands = instruction.operands
        if kind == "init":
            pointer, number = self.address(operands[0], space)
            self.mbarrier_init(pointer, number, self.read(operands[1], "u32"))
        elif kind in ("arrive", "arrive_drop"):
            state_first = operands[0].strip().startswith("[") is False
            address = operands[1] if state_first else operands[0]
            rest = operands[2:] if state_first else operands[1:]
            count = "1" if "expect_tx" in modifiers or not rest else self.read(rest[0], "u32")
            pointer, number = self.address(address, space)
            state = self.mbarrier_arrive(pointer, number, count, drop=kind == "arrive_drop")
            if state_first:
                self.write(operands[0], state, "b64")
        elif kind in ("test_wait", "try_wait"):
            pointer, number = self.address(operands[1], space)
            if "parity" in modifiers:
                bit = self.value(f"and i32 {self.read(operands[2], 'u32')}, 1")
                parity = self.value(f"zext i32 {bit} to i64")
            else:
                parity = self.value(f"lshr i64 {self.read(operands[2], 'b64')}, 63")
            self.write(operands[0], self.mbarrier_phase_done(pointer, number, parity), "pred")
        elif kind == "pending_count":
            state = self.read(operands[1], "b64")
            self.write(operands[0], self.value(f"trunc i64 {self.value(f'and i64 {state}, 2147483647')} to i32"),
                       "b32")
        elif kind not in ("inval", "expect_tx", "complete_tx"):
            raise self.fail(f"mbarrier.{kind}")

    def op_wmma(self, instruction: Instruction) -> None:
        """wmma.load.{a,b,c} / wmma.mma / wmma.store.d of m16n16k16 fragments with f16 or bf16 inputs and f32 or
        f16 accumulators (binary/matrices.py: the fragments' distribution is gfx1100 WMMA's on AMDGPU)."""
        modifiers = instruction.modifiers
        types = self.types(instruction)
        operation = modifiers[0]
        if matrices.SHAPE not in modifiers or not types or any(t not in ("f16", "bf16", "f32") for t in types):
            raise self.fail(f"the tensor-core instruction '{'.'.join((instruction.opcode, *modifiers))}' (shapes other "
                            "than m16n16k16 and element types other than f16/bf16 with f32/f16 accumulators have no "
                            "gfx1100 WMMA) is not translated")
        layouts = [m for m in modifiers if m in ("row", "col")]
        space = self.space_of(instruction)
        operands = instruction.operands
        if operation == "load":
            fragment, element = modifiers[1], types[-1]
            if (fragment, element) not in matrices.FRAGMENT_REGISTERS or (fragment == "c" and element == "bf16"):
                raise self.fail(f"wmma.load of a .{fragment} fragment of .{element}")
            pointer, number = self.address(operands[1], space)
            stride = self.read(operands[2], "u32") if len(operands) > 2 else "16"
            values = matrices.load(self, fragment, layouts[0], element, pointer, number, stride)
            for register, value in zip(self.vector(operands[0]), values):
                self.write(register, value, element if element == "f32" else "b32")
        elif operation == "store":
            element = types[-1]
            pointer, number = self.address(operands[0], space)
            stride = self.read(operands[2], "u32") if len(operands) > 2 else "16"
            registers = [self.read(r, element if element == "f32" else "b32") for r in self.vector(operands[1])]
            matrices.store(self, layouts[0], element, pointer, number, stride, registers)
        elif operation == "mma":
            if "bf16" in types:
                element, d_type, c_type = "bf16", types[0], types[-1]
            else:
                element, d_type, c_type = "f16", types[0], types[1]
            def registers(operand: str, kind: str) -> list[str]:
                return [self.read(r, kind if kind == "f32" else "b32") for r in self.vector(operand)]
            d = matrices.multiply_accumulate(self, (layouts[0], layouts[1]), element, d_type, c_type,
                                             registers(operands[1], element), registers(operands[2], element),
                                             registers(operands[3], c_type), "satfinite" in modifiers)
            for register, value in zip(self.vector(operands[0]), d):
                self.write(register, value, d_type if d_type == "f32" else "b32")
        else:
            raise self.fail(f"wmma.{operation}")

    def op_mma(self, instruction: Instruction) -> None:
        """mma.sync.aligned.{m16n8k16,m16n8k8}.row.col with f16/bf16 inputs and f32 (or, for f16, f16)
        accumulators: NVIDIA's fragments exchanged into and out of gfx1100's WMMA (binary/matrices.py)."""
        modifiers = instruction.modifiers
        types = self.types(instruction)
        shape = next((m for m in modifiers if m in matrices.MMA_SHAPES), None)
        if shape is None or "row" not in modifiers or "col" not in modifiers or len(types) != 4 or \
                types[1] not in ("f16", "bf16") or types[1] != types[2] or types[0] not in ("f32", "f16") or \
                types[3] not in ("f32", "f16") or (types[1] == "bf16" and "f16" in (types[0], types[3])) or \
                any(m in modifiers for m in ("satfinite", "sp")):
            self.tensor_core(instruction)
        d_type, element, _, c_type = types
        operands = instruction.operands
        a = [self.read(r, "b32") for r in self.vector(operands[1])]
        b = [self.read(r, "b32") for r in self.vector(operands[2])]
        c = [self.read(r, c_type if c_type == "f32" else "b32") for r in self.vector(operands[3])]
        d = matrices.mma_sync(self, shape, element, d_type, c_type, a, b, c)
        for register, value in zip(self.vector(operands[0]), d):
            self.write(register, value, d_type if d_type == "f32" else "b32")

    def op_ldmatrix(self, instruction: Instruction) -> None:
        """ldmatrix.sync.aligned.m8n8.x{1,2,4}{.trans}.shared.b16 d, [row address]."""
        modifiers = instruction.modifiers
        count = next((int(m[1:]) for m in modifiers if m in ("x1", "x2", "x4")), 0)
        if "m8n8" not in modifiers or "b16" not in modifiers or not count:
            self.tensor_core(instruction)
        space = "shared" if any(m.startswith("shared") for m in modifiers) else "generic"
        pointer, number = self.address(instruction.operands[1], space)
        registers = matrices.ldmatrix(self, count, "trans" in modifiers, pointer, number)
        for register, value in zip(self.vector(instruction.operands[0]), registers):
            self.write(register, value, "b32")

    def op_movmatrix(self, instruction: Instruction) -> None:
        """movmatrix.sync.aligned.m8n8.trans.b16 d, a (binary/matrices.py)."""
        if not {"m8n8", "trans", "b16"} <= set(instruction.modifiers):
            self.tensor_core(instruction)
        value = matrices.movmatrix(self, self.read(instruction.operands[1], "b32"))
        self.write(instruction.operands[0], value, "b32")

    def tensor_core(self, instruction: Instruction) -> None:
        raise self.fail(f"the tensor-core instruction '{instruction.opcode}' (its per-thread fragment layouts are "
                        "NVIDIA's; the forms gfx1100's WMMA has are translated: wmma m16n16k16 and mma.sync m16n8k16/m16n8k8 "
                        "with f16/bf16 inputs, ldmatrix m8n8.b16) is not translated")

    # texture and surface objects (binary/images.py)
    def image_operands(self, instruction: Instruction) -> tuple[list[str], str, list[str], list[list[str]]]:
        """`d, [handle, {c0, c1..}], extra..` (tex, tld4, suld, txq, suq) or `[handle, {c..}], {v..}` (sust):
        (the destinations, the handle, the coordinates, each operand after the brackets)."""
        match = _IMAGE_OPERANDS.fullmatch(",".join(instruction.operands))
        if match is None or "|" in (match.group(1) or ""):
            raise self.fail("texture/surface operands of this shape (predicate results) are not translated")
        destinations = self.vector(match.group(1)) if match.group(1) else []
        coordinates = [c.strip() for c in match.group(3).split(",")] if match.group(3) else []
        after = [self.vector(group) for group in _TOP_LEVEL.findall(match.group(4) or "")]
        return destinations, match.group(2).strip(), coordinates, after

    def image_handle(self, operand: str) -> str:
        """The object an image instruction names: a register holding a texture/surface object, or a texture or
        surface reference (`.texref`) by name, the object bound to it."""
        variable = self.globals.get(operand)
        if variable is not None and variable.reference:
            return images.reference_handle(self, variable.name)
        return self.read(operand, "b64")

    def image_coordinates(self, geometry_name: str, operands: list[str], coordinate_type: str) -> images.Coordinates:
        geometry = images.GEOMETRIES.get(geometry_name)
        if geometry is None or len(operands) != geometry.operands:
            raise self.fail(f"texture/surface geometry '{geometry_name}' with {len(operands)} coordinates")
        layer = self.read(operands[0], "s32") if geometry.layered else None
        first = 1 if geometry.layered else 0
        values = tuple(self.read(o, coordinate_type) for o in operands[first:first + geometry.dimensions])
        return images.Coordinates(values, layer)

    def op_tex(self, instruction: Instruction) -> None:
        """tex{.level,.grad}.geometry.v4.dtype.ctype d, [texture object, {coordinates}]{, lod | , dPdx, dPdy};
        tld4.{r,g,b,a}.2d.v4.dtype.f32 d, [texture object, {coordinates}]."""
        modifiers = instruction.modifiers
        geometry_name = next((m for m in modifiers if m in images.GEOMETRIES), None)
        result_type, coordinate_type = (self.types(instruction) + ["", ""])[:2]
        if geometry_name is None or "v4" not in modifiers or result_type not in ("f32", "s32", "u32") \
                or coordinate_type not in ("f32", "s32"):
            raise self.fail(f"the texture instruction '{'.'.join((instruction.opcode, *modifiers))}' (a form other "
                            "than four f32/s32/u32 channels at f32/s32 coordinates) is not translated")
        destinations, handle, coordinates, after = self.image_operands(instruction)
        gather = modifiers[0] if instruction.opcode == "tld4" else None
        lod = gradients = None
        dimensions = images.GEOMETRIES[geometry_name].dimensions
        if "level" in modifiers and len(after) == 1:
            lod = self.read(after[0][0], "f32")
        elif "grad" in modifiers and len(after) == 2:
            gradients = ([self.read(o, "f32") for o in after[0][:dimensions]],
                         [self.read(o, "f32") for o in after[1][:dimensions]])
        elif after or (geometry_name in ("cube", "acube") and coordinate_type == "s32") or (
                gather is not None and geometry_name != "2d"):
            raise self.fail(f"the texture instruction '{'.'.join((instruction.opcode, *modifiers))}' (offsets, depth "
                            "compare, integer cube coordinates) is not translated")
        channels = images.texture(self, geometry_name, self.image_handle(handle),
                                  self.image_coordinates(geometry_name, coordinates, coordinate_type),
                                  coordinate_type, result_type, lod, gradients, gather)
        for register, channel in zip(destinations, channels):
            self.write(register, channel, result_type)

    op_tld4 = op_tex

    def surface_access(self, instruction: Instruction) -> tuple[str, int, int, str]:
        """(geometry, element bits, elements, boundary mode) of suld.b/sust.b."""
        modifiers = instruction.modifiers
        geometry_name = next((m for m in modifiers if m in images.GEOMETRIES and m not in ("cube", "acube")), None)
        element = self.types(instruction)
        count = 4 if "v4" in modifiers else 2 if "v2" in modifiers else 1
        if "b" not in modifiers or geometry_name is None or not element or element[-1][0] != "b":
            raise self.fail(f"the surface instruction '{'.'.join((instruction.opcode, *modifiers))}' (formatted "
                            "accesses) is not translated")
        bits = width(element[-1])
        if bits * count > 128:
            raise self.fail(f"the surface access '{'.'.join((instruction.opcode, *modifiers))}' (more than 128 bits)")
        boundary = next((m for m in modifiers if m in ("trap", "clamp", "zero")), "trap")
        return geometry_name, bits, count, boundary

    def op_suld(self, instruction: Instruction) -> None:
        """suld.b.geometry{.v2,.v4}.bN{.trap,.clamp,.zero} d, [surface object, {x in bytes, y, z}]."""
        geometry_name, bits, count, boundary = self.surface_access(instruction)
        destinations, handle, coordinates, _ = self.image_operands(instruction)
        values = images.surface_load(self, geometry_name, self.image_handle(handle),
                                     self.image_coordinates(geometry_name, coordinates, "s32"), bits, count, boundary)
        for register, value in zip(destinations, values):
            self.write(register, value, f"b{bits}")

    def op_sust(self, instruction: Instruction) -> None:
        """sust.b.geometry{.v2,.v4}.bN{.trap,.clamp,.zero} [surface object, {x in bytes, y, z}], {values}."""
        geometry_name, bits, count, boundary = self.surface_access(instruction)
        _, handle, coordinates, after = self.image_operands(instruction)
        if len(after) != 1 or len(after[0]) != count:
            raise self.fail("sust without its values")
        images.surface_store(self, geometry_name, self.image_handle(handle),
                             self.image_coordinates(geometry_name, coordinates, "s32"), bits,
                             [self.read(v, f"b{bits}") for v in after[0]], boundary)

    def op_txq(self, instruction: Instruction) -> None:
        """txq.attribute.b32 / suq.attribute.b32 d, [object]: the object's extents."""
        destinations, handle, _, _ = self.image_operands(instruction)
        attribute = next((m for m in instruction.modifiers if m not in ("b32", "level")), "")
        value = None if "level" in instruction.modifiers else \
            images.query(self, instruction.opcode == "suq", attribute, self.image_handle(handle))
        if value is None:
            kind = "surface" if instruction.opcode == "suq" else "texture"
            raise self.fail(f"the {kind} query '{'.'.join((instruction.opcode, *instruction.modifiers))}' is not "
                            "translated (the image descriptor does not hold CUDA's formats, sampler state or "
                            "per-level extents)")
        self.write(destinations[0], value, "b32")

    op_suq = op_txq

    def op_sured(self, instruction: Instruction) -> None:
        raise self.fail("the surface reduction 'sured' is not translated")

    op_stmatrix = tensor_core
    op_wgmma = tensor_core

    # hints that change nothing here
    def op_prefetch(self, instruction: Instruction) -> None:
        pass

    op_prefetchu = op_prefetch
    op_pmevent = op_prefetch
    op_nanosleep = op_prefetch

