"""The SASS front end: a kernel's machine code (parsed by sass.py) -> LLVM IR, through the emission core.

Registers are untyped 32-bit slots (R0..R255, UR0..UR63; a 64-bit value is an even/odd pair) and i1 slots
(P0..P6, UP0..UP6); RZ/URZ read 0 and PT/UPT true, and writes to them vanish. SROA turns the slots back
into values. A predicated instruction branches around itself; `BRA` targets are the listing's labels.

The kernel ABI is CUDA's: every parameter is its own kernarg memory (`emit.Emitter.parameter`) at the
cubin's offsets, so a read of constant bank 0's parameter window is a load from the parameter holding
those bytes. The rest of bank 0 that kernels read: blockDim (0x0-0x8), gridDim (0xc-0x14), the initial
stack pointer (0x28: the local frame is an alloca and local addresses are offsets into it) and the
memory descriptor the `.E`/`desc[]` accesses name (ignored). Shared memory is one LDS array the size the
cubin records; a shared address is an offset into it (sm_90's window starts at 0x400, with the CTA's
rank in a cluster above bit 24: clusters of one CTA here). Bank 3 is `__constant__` data: each variable
is a named global, as the PTX path defines them, so cudaMemcpyToSymbol finds it.

Each opcode's meaning is the core's; here the SASS forms are mapped to it. Anything else raises
`Unsupported` naming the opcode, its address and the kernel.
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass, replace

from cassc.binary.printf import argument_layout
from cassc.binary.sass_reroll import reroll_runtime_unrolled_loops
from cassc.binary.emit import (Emitter, Target, Unsupported, attributes, float_constant, quote, value_type,
                               variable_annotations, variable_definition, width)
from cassc.binary.sass import (Address, Constant, Immediate, Register, Relocated, SassFunction, SassInstruction,
                               SassKernel, Special, Unparsed)
from cassc.binary.sass import Target as BranchTarget
from cassc.binary.sass_images import IMAGE_OPCODES, ImageOperations
from cassc.binary.sass_matrices import MatrixOperations

# Where the kernel parameters start in constant bank 0 is the cubin's (EIATTR_PARAM_CBANK); the rest:
BLOCK_DIM = {0x0: "%ntid.x", 0x4: "%ntid.y", 0x8: "%ntid.z", 0xC: "%nctaid.x", 0x10: "%nctaid.y", 0x14: "%nctaid.z"}
STACK_POINTER = 0x28
MEMORY_DESCRIPTORS = {0x118, 0x11C, 0x208, 0x20C}  # sm_75-89 / sm_90: the descriptor desc[URn] names
# %envreg<N>, the driver's environment registers (envreg1:envreg2, high:low, is a cooperative launch's grid
# workspace, which grid.sync() counts arrivals in), are bank 0's words at base + 4 N: arch -> base (0x88 before sm_90)
ENV_REGISTER_BASE = {90: 0x40}
SHARED_WINDOW_BASE = {90: 0x400}  # arch -> the offset static shared memory starts at (sm_90's reserved 1 KiB)
SPECIAL_REGISTERS = {f"SR_{base}.{axis.upper()}": f"%{name}.{axis}" for base, name in
                     (("TID", "tid"), ("CTAID", "ctaid")) for axis in "xyz"} | {
    "SR_LANEID": "%laneid", "SR_EQMASK": "%lanemask_eq", "SR_LTMASK": "%lanemask_lt", "SR_LEMASK": "%lanemask_le",
    "SR_GTMASK": "%lanemask_gt", "SR_GEMASK": "%lanemask_ge", "SR_CLOCKLO": "%clock", "SR_VIRTID": "%warpid"}
ZERO_SPECIALS = {"SR_CgaCtaId"}  # one CTA per cluster
# CUDA's device runtime: a kernel calls it through bank 4 (`LDC.64 R8, c[0x4][R8]`, `CALL.ABS.NOINC R8`), its
# arguments in R4 onwards and its result in R4, as the ABI passes them; each function's meaning is the core's.
DEVICE_RUNTIME = ("vprintf", "__assertfail", "malloc", "free")
# The shared and local windows in the generic space: their bases are c[0x0][0x18] (shared, sm_75-89) or
# SR_SWINHI:0 (shared, sm_90) and c[0x0][0x20] (local), 64 bits each. Here a base is HIGH:0, a high word no
# real address has; generic accesses of a kernel that reads one map HIGH:offset to that offset in the
# kernel's shared memory or local frame, and QSPC.S tests for the shared one.
WINDOWS = {0x18: "shared", 0x20: "local"}  # constant bank 0 offset -> the window whose base it holds
WINDOW_HIGH = {"shared": 0xC0DE0000, "local": 0xC0DF0000}
INTEGER_COMPARISONS = {"EQ": "eq", "NE": "ne", "LT": "lt", "LE": "le", "GT": "gt", "GE": "ge"}
FLOAT_COMPARISONS = {"EQ": "eq", "NE": "ne", "LT": "lt", "LE": "le", "GT": "gt", "GE": "ge", "EQU": "equ",
                     "NEU": "neu", "LTU": "ltu", "LEU": "leu", "GTU": "gtu", "GEU": "geu", "NUM": "num", "NAN": "nan"}
MEMORY_TYPES = {"U8": ("u8", 1), "S8": ("s8", 1), "U16": ("u16", 2), "S16": ("s16", 2), "64": ("b64", 8),
                "128": ("b128", 16)}
ATOMIC_OPERATIONS = {"ADD": "add", "MIN": "min", "MAX": "max", "INC": "inc", "DEC": "dec", "AND": "and",
                     "OR": "or", "XOR": "xor", "EXCH": "exch"}
ROUNDINGS = {"TRUNC": "rzi", "FLOOR": "rmi", "CEIL": "rpi"}
# Opcodes (uniform U- forms included) that only compute registers and predicates from registers, immediates
# and non-indexed constants: safe to run where their guard fails, their result then not written. Memory,
# warp collectives, barriers and control flow are not: those keep a branch around them.
SPECULATABLE = {"MOV", "MOV32I", "IMAD", "IADD3", "VIADD", "VIADDMNMX", "LEA", "LOP3", "PLOP3", "SHF", "SEL",
                "IMNMX", "VIMNMX", "VIMNMX3", "IABS", "POPC", "FLO", "BREV", "PRMT", "ISETP", "FADD", "FMUL", "FFMA",
                "FMNMX", "FSEL", "FSETP", "FSET", "DSETP", "DADD", "DMUL", "DFMA", "MUFU", "FRND", "I2FP", "F2I",
                "I2F", "F2F", "I2I", "F2FP", "HSET2", "HADD2", "HMUL2", "HFMA2", "HSETP2", "HMNMX2", "S2R", "CS2R",
                "P2R", "R2P", "R2UR", "FCHK", "VABSDIFF4", "IDP", "SGXT", "BMSK"}


def bits_of(value: float) -> int:
    """A float's 32 bits, as a signed integer (an LLVM i32 literal)."""
    return struct.unpack("<i", struct.pack("<f", value))[0]


def _parameter_align(offset: int, size: int) -> int:
    """The alignment that places a parameter at `offset` after the previous one, as CUDA did: the
    largest power of two dividing the offset (at most 16; the parameter's own size for offset 0)."""
    if offset == 0:
        return min(16, 1 << max(0, (size - 1).bit_length()))
    return min(16, offset & -offset)


class SassLifter(ImageOperations, MatrixOperations, Emitter):
    def __init__(self, kernel: SassKernel, target: Target, ordinal: int = 0) -> None:
        super().__init__(target)
        self.kernel = replace(kernel, instructions=reroll_runtime_unrolled_loops(kernel.instructions))
        self.handle_loads: dict[int, int] = {}  # texture handles' loads: address -> the low word's offset (sass_images)
        self.handle_slots: dict[str, str] = {}
        self.ordinal = ordinal  # the kernel's place in its module: names its shared memory
        self.current: SassInstruction | None = None
        self.slots: dict[str, str] = {}  # register name -> its slot
        self.params: list[tuple[int, int, str, int]] = []  # (offset, size, pointer, address space)
        self.local: str | None = None
        self.return_sites: list[int] = []
        self.module_globals: dict[str, str] = {}  # name -> definition
        self.write_guard: str | None = None  # a predicated instruction's guard: its writes select on it
        self.subroutines: dict[str, range] = {}  # a subroutine's label -> its instructions' indices
        # pure subroutines kept as functions (op_CALL): label -> (function name, the registers it takes and gives)
        self.callees: dict[str, tuple[str, list[tuple[str, int]]]] = {}
        self.function_texts: list[str] = []
        self.returning: list[tuple[str, int]] | None = None  # lifting such a function: what its RET gives back
        # the copies being emitted (op_CALL): (their labels, suffix, return label, code, name, what a CALL.ABS
        # in them names)
        self.inlined: list[tuple[set[str], str, str, list[SassInstruction], str, dict[str, SassFunction]]] = []
        # the windows whose generic addresses the kernel makes (it reads their base): see WINDOW_HIGH
        self.windows = {"shared" for i in kernel.instructions for o in i.operands
                        if isinstance(o, Special) and o.name == "SR_SWINHI"} | {
            WINDOWS[o.offset - o.offset % 8] for i in kernel.instructions for o in i.operands
            if isinstance(o, Constant) and o.bank == 0 and o.offset - o.offset % 8 in WINDOWS and o.register is None}

    def fail(self, why: str) -> Unsupported:
        where = f": '{self.current.text}' at {self.current.address:#06x}" if self.current else ""
        return Unsupported(f"kernel {self.kernel.name} (SASS sm_{self.kernel.arch}): {why}{where}")

    # -- the function -----------------------------------------------------------------------------
    def lift(self) -> str:
        self.plan_handle_loads()
        metadata = self.kernel.metadata
        signature = []
        for index, param in enumerate(metadata.params):
            text, (pointer, space) = self.parameter(index, f"[{param.size} x i8]",
                                                   _parameter_align(param.offset, param.size), True,
                                                   (param.offset, param.size))
            signature.append(text)
            self.params.append((param.offset, param.size, pointer, space))
        labels = {label for i in self.kernel.instructions for label in i.labels}
        # A subroutine (CALL.REL.NOINC, as CUDA's division slow paths are called) returns to the address its
        # caller put in a register: each instruction after a CALL is a place a RET may go to.
        self.return_sites = [after.address for call, after in zip(self.kernel.instructions,
                                                                   self.kernel.instructions[1:])
                             if call.opcode == "CALL"]
        divisions = float_divisions(self.kernel.instructions)
        dividing = {division.remainder: division for division in divisions.values()}
        operands: dict[int, tuple[str, str]] = {}  # a division's result index -> (a, b)
        unary = unary_idioms(self.kernel.instructions)  # roots and reciprocals: the result's index -> idiom
        reading = {idiom.read_at: idiom for idiom in unary.values()}
        read: dict[int, str] = {}  # an idiom's result index -> x's value
        # past a branch that now always skips its slow path, up to the branch's target: code never run
        branches = {division.branch for division in divisions.values()} | {idiom.branch for idiom in unary.values()}
        never = {j for branch in branches for j in range(branch + 1, self.target_index(branch))}
        self.subroutines = subroutines(self.kernel.instructions)
        inside = {j for region in self.subroutines.values() for j in region}
        for label, region in self.subroutines.items():
            self.keep_as_function(label, region)
        for index, instruction in enumerate(self.kernel.instructions):
            if index in never or index in inside:  # subroutines are emitted at each call (op_CALL)
                continue
            for label in instruction.labels:
                self.place_label(self.label(label))
            if instruction.address in self.return_sites:
                self.place_label(self.return_label(instruction.address))
            if instruction.opcode == "NOP" or (instruction.opcode == "BRA" and self.is_self_loop(instruction)):
                if instruction.opcode == "BRA":
                    self.emit("unreachable")  # padding after the last EXIT: nothing falls into it
                    self.terminated = True
                continue
            self.current = instruction
            if index in divisions:  # the division's result: a / b, rounded once (div.rn, v_div_scale...)
                self.division(instruction, divisions[index], *operands[index])
            elif index in branches:  # past the slow path, which the result makes unnecessary
                self.branch(self.label(instruction.operands[-1].label))  # type: ignore[union-attr]
            elif index in unary:  # sqrt(x) or 1 / x, rounded once
                self.unary_idiom(instruction, unary[index], read[index])
            else:
                if index in reading:
                    idiom = reading[index]
                    value = (self.float64 if idiom.precision == "f64" else self.float32)(idiom.operand)
                    read[idiom.result] = self.negate(idiom.precision, value) if idiom.negated else value
                if index in dividing:
                    operands[dividing[index].result] = self.division_operands(dividing[index])
                self.instruction(instruction, labels)
        self.current = None
        if not self.terminated:
            self.emit("ret void")
            self.terminated = True
        return "\n".join([self.function_text(self.kernel_head(self.kernel.name, signature)), *self.function_texts])

    def keep_as_function(self, label: str, region: range) -> None:
        """A subroutine that only computes registers (CUDA's 64-bit integer division and remainder, the
        float slow paths...) becomes one function, called where the SASS calls it, as ptxas kept it: it
        takes and gives back every register it names, so the caller's values pass through it as through
        the machine's registers; `noinline`, as ptxas did not inline it either. Others are copied per call."""
        code = self.kernel.instructions
        body = [code[j] for j in region]
        pure = all((i.opcode.removeprefix("U") in SPECULATABLE or i.opcode in SPECULATABLE
                    or i.opcode in ("BRA", "RET", "BSSY", "BSYNC", "NOP"))
                   and i.opcode not in ("S2R", "P2R", "R2P")  # special registers; the predicates named by none
                   and not any(isinstance(o, Constant) for o in i.operands) for i in body)
        if not pure or sum(i.opcode == "RET" for i in body) == 0:
            return
        registers: set[tuple[str, int]] = set()
        for i in body:
            span = 4 if i.has("128") else 2
            for operand in i.operands:
                for register in (operand, getattr(operand, "base", None), getattr(operand, "uniform", None)):
                    if isinstance(register, Register) and register.index is not None and register.kind in ("R", "UR", "P", "UP"):
                        extra = span if register.kind in ("R", "UR") else 1
                        registers |= {(register.kind, register.index + k) for k in range(extra)
                                      if register.kind not in ("R", "UR") or register.index + k < 255}
            if i.guard is not None and i.guard.index is not None:
                registers.add((i.guard.kind, i.guard.index))
        ordered = sorted(registers)
        name = f"{self.kernel.name}.{label}"
        self.callees[label] = (name, ordered)
        callee = SassLifter(self.kernel, self.target, self.ordinal)
        callee.returning = ordered
        callee.subroutines = self.subroutines
        types = ["i1" if kind in ("P", "UP") else "i32" for kind, _ in ordered]
        for (kind, index), llvm_type in zip(ordered, types):
            pointer, _ = callee.slot_of(kind, index)
            callee.allocas.append(f"  store {llvm_type} %in.{kind}{index}, {callee.alloca_ptr()} {pointer}")
        sites = {after.address for before, after in zip(code, code[1:]) if before.opcode == "CALL"}
        for j in region:
            for own in code[j].labels:
                callee.place_label(callee.label(own))
            if code[j].address in sites:
                callee.place_label(callee.return_label(code[j].address))
            if code[j].opcode == "NOP" or (code[j].opcode == "BRA" and callee.is_self_loop(code[j])):
                continue
            callee.current = code[j]
            callee.instruction(code[j], set())
        if not callee.terminated:
            callee.emit("unreachable")
        parameters = ", ".join(f"{t} %in.{kind}{index}" for (kind, index), t in zip(ordered, types))
        head = (f"define internal {{ {', '.join(types)} }} @{quote(name)}({parameters}) #2 {{")
        self.function_texts.append(callee.function_text(head))
        self.declarations.update(callee.declarations)
        self.module_globals.update(callee.module_globals)

    def call_function(self, label: str) -> None:
        """A call of a subroutine kept as a function: the registers it names in, and back."""
        name, registers = self.callees[label]
        types = ["i1" if kind in ("P", "UP") else "i32" for kind, _ in registers]
        values = []
        for (kind, index), llvm_type in zip(registers, types):
            pointer, _ = self.slot_of(kind, index)
            values.append(f"{llvm_type} {self.value(f'load {llvm_type}, {self.alloca_ptr()} {pointer}')}")
        result = self.value(f"call {{ {', '.join(types)} }} @{quote(name)}({', '.join(values)})")
        for position, ((kind, index), llvm_type) in enumerate(zip(registers, types)):
            pointer, _ = self.slot_of(kind, index)
            value = self.value(f"extractvalue {{ {', '.join(types)} }} {result}, {position}")
            self.emit(f"store {llvm_type} {value}, {self.alloca_ptr()} {pointer}")

    def division_operands(self, division: Division) -> tuple[str, str]:
        """(a, b) of a division, read where its remainder is made (which may overwrite either)."""
        read = self.float64 if division.precision == "f64" else self.float32
        divisor = read(division.divisor)
        if division.divisor_negated:
            divisor = self.negate(division.precision, divisor)
        return read(division.dividend), divisor

    def unary_idiom(self, instruction: SassInstruction, idiom: UnaryIdiom, x: str) -> None:
        llvm_type = value_type(idiom.precision)
        result = self.unary("llvm.sqrt", idiom.precision, x) if idiom.operation == "sqrt" else \
            self.value(f"fdiv {llvm_type} 1.0, {x}")
        if idiom.precision == "f64":
            self.write64(instruction.operands[0], self.value(f"bitcast double {result} to i64"))
        else:
            self.write32(instruction.operands[0], self.value(f"bitcast float {result} to i32"))

    def division(self, instruction: SassInstruction, division: Division, dividend: str, divisor: str) -> None:
        llvm_type = value_type(division.precision)
        quotient = self.value(f"fdiv {llvm_type} {dividend}, {divisor}")
        if division.precision == "f64":
            self.write64(instruction.operands[0], self.value(f"bitcast double {quotient} to i64"))
        else:
            self.write32(instruction.operands[0], self.value(f"bitcast float {quotient} to i32"))

    @staticmethod
    def is_self_loop(instruction: SassInstruction) -> bool:
        """The `BRA` to itself nvdisasm shows after the last EXIT (padding, never reached)."""
        target = instruction.operands[0] if instruction.operands else None
        return isinstance(target, BranchTarget) and target.label in instruction.labels

    def return_label(self, address: int) -> str:
        """The block after a CALL (at `address`): in a subroutine's copy, that copy's own."""
        return f"return.{address}{self.inlined[-1][1] if self.inlined else ''}"

    def target_index(self, branch: int) -> int:
        """The index of the instruction a branch's target label names."""
        label = self.kernel.instructions[branch].operands[-1].label  # type: ignore[union-attr]
        return next(j for j, i in enumerate(self.kernel.instructions) if label in i.labels)

    def label(self, name: str) -> str:
        """A listing label's block; inside a subroutine's copy (op_CALL), that copy's own."""
        if self.inlined and name in self.inlined[-1][0]:
            return quote(f"L{name}{self.inlined[-1][1]}")
        return quote(f"L{name}")

    def instruction(self, instruction: SassInstruction, labels: set[str]) -> None:
        base = instruction.opcode
        handler = getattr(self, f"op_{base}", None)
        if handler is None and base.startswith("U") and base not in ("UMOV",):
            handler = getattr(self, f"op_{base[1:]}", None)  # uniform datapath: the same meaning on URn
        if handler is None:
            raise self.fail(f"SASS instruction {base} is not translated")
        unparsed = next((o for o in instruction.operands if isinstance(o, Unparsed)), None)
        if unparsed is not None and handler != self.reconvergence_hint and base not in IMAGE_OPCODES:
            raise self.fail(f"operand '{unparsed.text}' of {base}")
        guard = instruction.guard
        try:
            if guard is None or (guard.index is None and not guard.inverted) or base == "BRA":
                handler(instruction)
            elif (base in SPECULATABLE or base.removeprefix("U") in SPECULATABLE) and not any(
                    isinstance(o, Constant) and o.register is not None for o in instruction.operands):
                # Computed unconditionally, written where the guard holds: selects, not a branch per
                # instruction (what a compiler would make of `if (p) x = y op z`).
                self.write_guard = self.predicate(guard)
                try:
                    handler(instruction)
                finally:
                    self.write_guard = None
            else:
                self.guarded(self.predicate(guard), lambda: handler(instruction))
        except (ValueError, IndexError, StopIteration, TypeError) as error:
            # operands or modifiers of a form the handler does not know (a count, a missing comparison)
            raise self.fail(f"{base} with operands or modifiers of a form not translated ({error})") from None

    # -- registers --------------------------------------------------------------------------------
    def slot_of(self, kind: str, index: int) -> tuple[str, str]:
        name = f"{kind}{index}"
        storage = "i1" if kind in ("P", "UP") else "i32"
        if name not in self.slots:
            self.slots[name] = self.slot(f"r.{name}", storage)
        return self.slots[name], storage

    def predicate(self, register: Register) -> str:
        if register.kind not in ("P", "UP"):
            raise self.fail(f"{register} as a predicate")
        if register.index is None:
            value = "true"
        else:
            pointer, _ = self.slot_of(register.kind, register.index)
            value = self.value(f"load i1, {self.alloca_ptr()} {pointer}")
        return self.value(f"xor i1 {value}, true") if register.inverted else value

    def predicate_operand(self, operand: object) -> str:
        if not isinstance(operand, Register):
            raise self.fail("a predicate operand that is not a register")
        return self.predicate(operand)

    def set_predicate(self, operand: object, value: str) -> None:
        if not isinstance(operand, Register) or operand.kind not in ("P", "UP"):
            raise self.fail("a predicate destination that is not a predicate")
        if operand.index is None:
            return
        pointer, _ = self.slot_of(operand.kind, operand.index)
        if self.write_guard is not None:
            old = self.value(f"load i1, {self.alloca_ptr()} {pointer}")
            value = self.value(f"select i1 {self.write_guard}, i1 {value}, i1 {old}")
        self.emit(f"store i1 {value}, {self.alloca_ptr()} {pointer}")

    def register32(self, register: Register, offset: int = 0) -> str:
        if register.index is None:
            return "0"
        pointer, _ = self.slot_of(register.kind, register.index + offset)
        return self.value(f"load i32, {self.alloca_ptr()} {pointer}")

    def write32(self, operand: object, value: str, offset: int = 0) -> None:
        if not isinstance(operand, Register) or operand.kind not in ("R", "UR"):
            raise self.fail("a destination that is not a register")
        if operand.index is None:
            return
        pointer, _ = self.slot_of(operand.kind, operand.index + offset)
        if self.write_guard is not None:
            old = self.value(f"load i32, {self.alloca_ptr()} {pointer}")
            value = self.value(f"select i1 {self.write_guard}, i32 {value}, i32 {old}")
        self.emit(f"store i32 {value}, {self.alloca_ptr()} {pointer}")

    def write64(self, operand: object, value: str) -> None:
        self.write32(operand, self.value(f"trunc i64 {value} to i32"))
        self.write32(operand, self.value(f"trunc i64 {self.value(f'lshr i64 {value}, 32')} to i32"), 1)

    def write_wide(self, operand: object, value: str, bits: int) -> None:
        """A value of 32, 64 or 128 bits into consecutive registers."""
        for part in range(bits // 32):
            piece = value if bits == 32 else self.value(
                f"trunc i{bits} {self.value(f'lshr i{bits} {value}, {32 * part}') if part else value} to i32")
            self.write32(operand, piece, part)

    # -- operands ---------------------------------------------------------------------------------
    def raw32(self, operand: object) -> str:
        """The 32 bits of an operand, modifiers not applied."""
        if isinstance(operand, Register):
            if operand.kind in ("P", "UP"):
                return self.value(f"zext i1 {self.predicate(operand)} to i32")
            byte = next((int(s[1]) for s in operand.suffixes if re.fullmatch(r"B[0-3]", s)), 0)
            if byte:  # a byte selector (R2P PR, R6.B2, mask): that byte as the low bits
                return self.value(f"lshr i32 {self.register32(operand)}, {8 * byte}")
            return self.register32(operand)
        if isinstance(operand, Immediate):
            if operand.is_float_text:
                return str(struct.unpack("<i", struct.pack("<f", self.float_text(operand.text)))[0])
            return str(operand.integer() & 0xFFFFFFFF if operand.integer() >= 0 else operand.integer())
        if isinstance(operand, Constant):
            return self.constant(operand, 4)
        if isinstance(operand, Special):
            return self.special_value(operand)
        if isinstance(operand, Relocated):
            return self.relocated(operand)
        raise self.fail(f"operand {operand}")

    def relocated(self, operand: Relocated) -> str:
        """A half of a `__device__` variable's address (relocatable code's `32@lo(name)`): read from a table
        in memory, as bank 4's addresses are (`device_address`)."""
        if operand.symbol not in self.kernel.device_variables:
            raise self.fail(f"the address of {operand.symbol}, which no linked cubin defines as a __device__ "
                            "variable")
        self.module_globals.update(device_variable_definitions(self.kernel, self.target))
        if self.managed_here(operand.symbol):
            base = self.value(f"ptrtoint ptr addrspace(1) {self.managed_address(operand.symbol)} to i64")
        else:
            table = quote(f"__cassc_address.{operand.symbol}")
            self.module_globals[table] = (f"@{table} = internal addrspace(4) externally_initialized global i64 "
                                          f"ptrtoint (ptr addrspace(1) @{quote(operand.symbol)} to i64), align 8")
            base = self.value(f"load i64, ptr addrspace(4) @{table}, align 8")
        address = self.value(f"add i64 {base}, {operand.addend}")
        if operand.high:
            address = self.value(f"lshr i64 {address}, 32")
        return self.value(f"trunc i64 {address} to i32")

    def int32(self, operand: object) -> str:
        """An integer operand: -R is its negation, ~R its complement."""
        value = self.raw32(operand)
        if getattr(operand, "negated", False):
            value = self.value(f"sub i32 0, {value}")
        if getattr(operand, "inverted", False):
            value = self.value(f"xor i32 {value}, -1")
        return value

    def pair(self, low: str, high: str) -> str:
        """Two i32 values as the i64 high:low."""
        wide_high = self.value(f"zext i32 {high} to i64")
        return self.value(f"or i64 {self.value(f'zext i32 {low} to i64')}, {self.value(f'shl i64 {wide_high}, 32')}")

    def int64(self, operand: object) -> str:
        """A 64-bit operand: a register pair (Rn, Rn+1), a constant bank's 8 bytes, an immediate."""
        if isinstance(operand, Register):
            if operand.index is None:
                return "0"
            return self.pair(self.register32(operand), self.register32(operand, 1))
        if isinstance(operand, Constant):
            return self.constant(operand, 8)
        if isinstance(operand, Immediate) and not operand.is_float_text:
            return str(operand.integer())
        raise self.fail(f"64-bit operand {operand}")

    @staticmethod
    def float_text(text: str) -> float:
        body = text.lstrip("+")
        return {"INF": float("inf"), "-INF": float("-inf"), "QNAN": float("nan"), "-QNAN": float("nan"),
                "NAN": float("nan")}.get(body) if body.lstrip("-") in ("INF", "QNAN", "NAN") else float(body)

    def float32(self, operand: object) -> str:
        """A float operand with its -x / |x| modifiers; a decimal immediate is a float value."""
        if isinstance(operand, Immediate) and not operand.is_hex:
            return float_constant(self.float_text(operand.text), "f32")
        value = self.value(f"bitcast i32 {self.raw32(operand)} to float")
        return self.float_modifiers(operand, value, "f32")

    def float64(self, operand: object) -> str:
        if isinstance(operand, Immediate) and not operand.is_hex:
            return float_constant(self.float_text(operand.text), "f64")
        if isinstance(operand, Immediate):  # hex: the high 32 bits of the double
            return self.value(f"bitcast i64 {operand.integer() << 32} to double")
        value = self.value(f"bitcast i64 {self.int64(operand)} to double")
        return self.float_modifiers(operand, value, "f64")

    def float_modifiers(self, operand: object, value: str, ptx_type: str) -> str:
        if getattr(operand, "absolute", False):
            value = self.absolute(ptx_type, value)
        if getattr(operand, "negated", False):
            value = self.negate(ptx_type, value)
        return value

    def special_value(self, operand: Special) -> str:
        if operand.name in ZERO_SPECIALS:
            return "0"
        if operand.name == "SR_SWINHI":
            return str(WINDOW_HIGH["shared"] - (1 << 32))
        name = SPECIAL_REGISTERS.get(operand.name)
        found = self.special_register(name) if name else None
        if found is None:
            raise self.fail(f"special register {operand.name}")
        value, kind = found
        return self.resize(value, kind, "i32", False)

    # -- constant banks and the kernel ABI ----------------------------------------------------------
    def constant(self, operand: Constant, size: int) -> str:
        if operand.bank == 3:
            return self.user_constant(operand, size)
        if operand.bank in self.kernel.own_banks:
            return self.own_constant(operand, size)
        if operand.register is not None and operand.bank == 0:
            return self.indexed_parameter(operand, size)
        if operand.register is not None:
            raise self.fail(f"an indexed read of constant bank {operand.bank}")
        if operand.bank == 4:
            return self.device_address(operand.offset, size)
        if operand.bank != 0:
            raise self.fail(f"constant bank {operand.bank}, which the cubin does not hold for this kernel")
        offset = operand.offset
        metadata = self.kernel.metadata
        if metadata.param_base <= offset < metadata.param_base + metadata.param_size:
            return self.parameter_bytes(offset - metadata.param_base, size)
        if offset in BLOCK_DIM and offset + 4 in BLOCK_DIM and size == 8:  # two of them at once
            return self.pair(self.constant(Constant(0, offset), 4), self.constant(Constant(0, offset + 4), 4))
        if offset in BLOCK_DIM and size == 4:
            value, kind = self.special_register(BLOCK_DIM[offset]) or ("", "")
            return self.resize(value, kind, "i32", False)
        if offset == STACK_POINTER and size == 4:
            return str(self.frame_top())
        if offset in MEMORY_DESCRIPTORS:
            return "0"
        environment = (offset - ENV_REGISTER_BASE.get(self.kernel.arch, 0x88)) // 4
        if offset % 4 == 0 and 0 <= environment and environment + size // 4 <= 32:
            words = [self.special_register(f"%envreg{environment + k}") or ("", "") for k in range(size // 4)]
            values = [self.resize(value, kind, "i32", False) for value, kind in words]
            return values[0] if size == 4 else self.pair(values[0], values[1])
        if offset in WINDOWS:  # a window's base, whole or its low word (0)
            return str(WINDOW_HIGH[WINDOWS[offset]] << 32) if size == 8 else "0"
        if offset - 4 in WINDOWS and size == 4:  # its high word
            return str(WINDOW_HIGH[WINDOWS[offset - 4]] - (1 << 32))
        raise self.fail(f"constant bank 0 offset {offset:#x} (outside the parameters)")

    def parameter_bytes(self, offset: int, size: int) -> str:
        """`size` bytes of the parameter buffer from `offset`: one load from the parameter that holds them,
        or (a word of two parameters) one per half."""
        for start, length, pointer, space in self.params:
            if start <= offset and offset + size <= start + length:
                element = self.offset_pointer(pointer, space, offset - start) if offset != start else pointer
                align = min(size, 4) if (offset - start) % size else size
                return self.value(f"load i{8 * size}, {self.ptr(space)} {element}, align {align}")
        if size in (4, 8):  # a word of two parameters (two __half, two ints): half by half; past the last
            half = size // 2  # parameter, bank 0's padding (a __half read as `c[0x0][0x178].H0_H0`)
            end = max((start + length for start, length, _, _ in self.params), default=0)
            low = self.parameter_bytes(offset, half)
            high = self.parameter_bytes(offset + half, half) if offset + half < end else "0"
            wide = self.value(f"shl i{size * 8} {self.value(f'zext i{half * 8} {high} to i{size * 8}')}, {half * 8}")
            return self.value(f"or i{size * 8} {self.value(f'zext i{half * 8} {low} to i{size * 8}')}, {wide}")
        raise self.fail(f"a read of parameter bytes {offset}..{offset + size} outside the parameters")

    def indexed_parameter(self, operand: Constant, size: int) -> str:
        """c[0x0][Rn+offset]: an array in a by-value struct parameter indexed at run time (the only arrays
        bank 0 holds). ptxas folds part of the index into the immediate, so the immediate need not lie in the
        parameter read: the parameter holding the whole offset is chosen at run time."""
        offset = self.value(f"add i32 {self.register32(operand.register)}, "  # type: ignore[arg-type]
                            f"{operand.offset - self.kernel.metadata.param_base}")
        pointer = None
        for start, length, base, space in self.params:
            inside = self.value(f"sub i32 {offset}, {start}")
            element = self.offset_pointer(base, space, self.value(f"zext i32 {inside} to i64"))
            if pointer is None:
                pointer = element
                continue
            holds = self.value(f"icmp ult i32 {inside}, {length}")
            pointer = self.value(f"select i1 {holds}, {self.ptr(space)} {element}, {self.ptr(space)} {pointer}")
        if pointer is None:
            raise self.fail("an indexed read of parameters the kernel does not have")
        return self.value(f"load i{8 * size}, {self.ptr(self.params[0][3])} {pointer}, align {min(size, 4)}")

    def user_constant(self, operand: Constant, size: int) -> str:
        """`__constant__` data (bank 3): a load from the variable that holds the offset (an indexed read:
        the variable the base offset names), each variable a named global as the PTX path defines them, so
        that cudaMemcpyToSymbol finds it."""
        if operand.symbol is not None:
            raise self.fail(f"the constant {operand.symbol}, which no linked cubin defines")
        if operand.register is not None and self.kernel.relocatable:
            return self.indexed_user_constant(operand, size)
        found = next(((name, start) for name, (bank, start, length) in self.kernel.constant_symbols.items()
                      if bank == operand.bank and start <= operand.offset < start + max(length, 1)), None)
        if found is None:
            raise self.fail(f"constant bank {operand.bank} offset {operand.offset:#x}, which no variable holds")
        name, start = found
        self.module_globals.update(constant_variables(self.kernel))
        index = str(operand.offset - start)
        if operand.register is not None:
            register = self.register32(operand.register)
            index = self.value(f"zext i32 {self.value(f'add i32 {register}, {operand.offset - start}')} to i64")
        pointer = self.value(f"getelementptr i8, ptr addrspace(4) @{quote(name)}, i64 {index}")
        return self.value(f"load i{8 * size}, ptr addrspace(4) {pointer}, align {min(size, 4)}")

    def indexed_user_constant(self, operand: Constant, size: int) -> str:
        """An indexed read of bank 3 in relocatable code: the variable's place comes through the register
        (`UMOV UR4, `(name)`), not the immediate, so the variable holding the whole offset is chosen at run
        time among the bank's (a whole-program cubin's immediate names it: `user_constant`)."""
        self.module_globals.update(constant_variables(self.kernel))
        offset = self.value(f"add i32 {self.register32(operand.register)}, {operand.offset}")  # type: ignore[arg-type]
        pointer = "null"
        for name, (bank, start, length) in sorted(self.kernel.constant_symbols.items(), key=lambda s: s[1][1]):
            if bank != operand.bank:
                continue
            inside = self.value(f"sub i32 {offset}, {start}")
            element = self.value(f"getelementptr i8, ptr addrspace(4) @{quote(name)}, i64 "
                                 f"{self.value(f'zext i32 {inside} to i64')}")
            holds = self.value(f"icmp ult i32 {inside}, {max(length, 1)}")
            pointer = self.value(f"select i1 {holds}, ptr addrspace(4) {element}, ptr addrspace(4) {pointer}")
        return self.value(f"load i{8 * size}, ptr addrspace(4) {pointer}, align {min(size, 4)}")

    def own_constant(self, operand: Constant, size: int) -> str:
        """A bank of the kernel's own (ptxas' literal pool in bank 2): a constant global of its bytes."""
        data = self.kernel.own_banks[operand.bank]
        name = f"__cassc_bank{operand.bank}.{self.ordinal}"
        init = 'c"' + "".join(f"\\{b:02X}" for b in data) + '"'
        self.module_globals[name] = (f"@{quote(name)} = internal addrspace(4) constant [{len(data)} x i8] {init}, "
                                     "align 8")
        index = str(operand.offset)
        if operand.register is not None:
            index = self.value(f"zext i32 {self.value(f'add i32 {self.register32(operand.register)}, {operand.offset}')}"
                               " to i64")
        pointer = self.value(f"getelementptr i8, ptr addrspace(4) @{quote(name)}, i64 {index}")
        return self.value(f"load i{8 * size}, ptr addrspace(4) {pointer}, align {min(size, 4)}")

    def device_address(self, offset: int, size: int) -> str:
        """Bank 4: the 64-bit addresses of `__device__` variables (each a named global, as the PTX path
        defines them), read whole or by 32-bit half. The bank is a table in memory, as on NVIDIA: an
        address LLVM cannot fold into global-plus-offset arithmetic (which AMDGPU limits to 32 bits)."""
        addresses = self.kernel.device_addresses
        start = offset if offset in addresses else offset - 4
        if start not in addresses or (size == 8 and start != offset):
            raise self.fail(f"constant bank 4 offset {offset:#x}, which holds no variable's address")
        if addresses[start][0] in DEVICE_RUNTIME:  # only ever called: its calls are resolved where they are made
            return "0"
        missing = [name for name, _ in addresses.values()
                   if name not in self.kernel.device_variables and name not in DEVICE_RUNTIME]
        if missing:
            raise self.fail(f"the address of {missing[0]}, which is not a __device__ variable of this cubin")
        self.module_globals.update(device_variable_definitions(self.kernel, self.target))
        name, addend = addresses[start]
        if self.managed_here(name):  # known at run time only: the pointer the runtime wrote
            address = self.value(f"add i64 {self.value(f'ptrtoint ptr addrspace(1) {self.managed_address(name)} to i64')}"
                                 f", {addend}")
            if size == 8:
                return address
            return self.value(f"trunc i64 {self.value(f'lshr i64 {address}, 32') if start != offset else address} "
                              "to i32")
        entries = ", ".join("i64 0" if name in DEVICE_RUNTIME else
                            f"i64 add (i64 ptrtoint (ptr addrspace(1) @{quote(name)} to i64), i64 {addend})"
                            for _, (name, addend) in sorted(addresses.items()))
        slots = sorted(addresses)
        self.module_globals["__cassc_bank4"] = (f"@__cassc_bank4 = internal addrspace(4) externally_initialized "
                                                f"global [{len(slots)} x i64] [{entries}], align 8")
        pointer = self.value(f"getelementptr [{len(slots)} x i64], ptr addrspace(4) @__cassc_bank4, i64 0, "
                             f"i64 {slots.index(start)}")
        if start != offset:
            pointer = self.offset_pointer(pointer, 4, 4)
        return self.value(f"load i{8 * size}, ptr addrspace(4) {pointer}, align {size}")

    def managed_here(self, name: str) -> bool:
        """A `__managed__` variable whose address AMDGPU code reads from its pointer (`variable_definition`)."""
        return name in self.kernel.managed_variables and self.target.name == "amdgpu"

    def frame_top(self) -> int:
        """The stack pointer's value at entry: the local frame is an alloca, local addresses offsets in it;
        the frames of the functions it calls (-rdc) lie below the kernel's. A multiple of 16, as the stack
        pointer CUDA hands a thread is: frames keep the 8- and 16-byte alignment of their wide accesses."""
        frames = self.kernel.frame_size + self.callee_frames(self.kernel.instructions, self.kernel.functions, 0)
        return max(-(-frames // 16) * 16, 16)

    def callee_frames(self, code: list[SassInstruction], functions: dict[str, SassFunction], depth: int) -> int:
        """The deepest chain of callee frames below a function of `code` (each as much as 15 bytes more for
        its alignment); calls nest 4 deep at most (op_CALL)."""
        deepest = 0
        for instruction in code:
            target = instruction.operands[-1] if instruction.operands else None
            if instruction.opcode == "CALL" and isinstance(target, BranchTarget) and depth < 4 \
                    and target.label in functions:
                callee = functions[target.label]
                deepest = max(deepest, callee.frame_size + 15 + self.callee_frames(callee.instructions, callee.calls,
                                                                                   depth + 1))
        return deepest

    def local_base(self) -> str:
        if self.local is None:
            self.local = self.slot("local.frame", f"[{self.frame_top()} x i8]", 16)
        return self.local

    # -- addresses ----------------------------------------------------------------------------------
    def address(self, operand: object, space: str, wide: bool) -> tuple[str, int]:
        """(pointer, address space) of a memory operand in `space` (global, shared, local, generic)."""
        if not isinstance(operand, Address):
            raise self.fail("a memory operand that is not an address")
        if space in ("global", "generic"):
            if operand.base is None or operand.base.index is None:
                base = self.value(f"zext i32 {self.register32(operand.uniform)} to i64") \
                    if operand.uniform is not None else "0"
            elif wide or operand.wide:
                base = self.int64(operand.base)
            else:
                base = self.value(f"zext i32 {self.register32(operand.base)} to i64")
            if operand.uniform is not None and operand.base is not None and operand.base.index is not None:
                base = self.value(f"add i64 {base}, {self.value(f'zext i32 {self.register32(operand.uniform)} to i64')}")
            number = 1 if space == "global" else 0
            if space == "generic" and self.windows:
                address = self.value(f"add i64 {base}, {operand.offset}") if operand.offset else base
                return self.generic_pointer(address), 0
            pointer = self.integer_pointer(base, "i64", number)
            if operand.offset:
                pointer = self.offset_pointer(pointer, number, operand.offset)
            return pointer, number
        # shared and local: 32-bit offsets into the window
        total = "0"
        if operand.base is not None and operand.base.index is not None:
            total = self.register32(operand.base)
            if operand.scale != 1:
                total = self.value(f"mul i32 {total}, {operand.scale}")
        if operand.uniform is not None and operand.uniform.index is not None:
            total = self.value(f"add i32 {total}, {self.register32(operand.uniform)}")
        if operand.offset:
            total = self.value(f"add i32 {total}, {operand.offset}")
        if space == "shared":
            base = SHARED_WINDOW_BASE.get(self.kernel.arch, 0)
            if base:
                total = self.value(f"sub i32 {total}, {base}")
            return self.shared_pointer(self.value(f"zext i32 {total} to i64")), 3
        frame = self.local_base()
        return (self.offset_pointer(frame, self.target.alloca_space, self.value(f"zext i32 {total} to i64")),
                self.target.alloca_space)

    def in_window(self, window: str, address: str) -> str:
        """Whether a generic address is in the shared or local window (its high word the window's)."""
        high = self.value(f"trunc i64 {self.value(f'lshr i64 {address}, 32')} to i32")
        return self.value(f"icmp eq i32 {high}, {WINDOW_HIGH[window] - (1 << 32)}")

    def generic_pointer(self, address: str) -> str:
        """A generic address as a pointer; one in a window the kernel uses becomes its shared memory's or
        local frame's, as generic."""
        pointer = self.integer_pointer(address, "i64", 0)
        for window in sorted(self.windows):
            offset = self.value(f"trunc i64 {address} to i32")
            if window == "shared":
                space = 3
                base = SHARED_WINDOW_BASE.get(self.kernel.arch, 0)
                if base:
                    offset = self.value(f"sub i32 {offset}, {base}")
                offset = self.value(f"and i32 {offset}, 16777215")  # above bit 24: the CTA's cluster rank
                place = self.shared_pointer(self.value(f"zext i32 {offset} to i64"))
            else:
                space = self.target.alloca_space
                place = self.offset_pointer(self.local_base(), space, self.value(f"zext i32 {offset} to i64"))
            inside = self.space_cast(place, space, 0)
            pointer = self.value(f"select i1 {self.in_window(window, address)}, ptr {inside}, ptr {pointer}")
        return pointer

    def op_QSPC(self, instruction: SassInstruction) -> None:
        """QSPC.E.S p, RZ, [a]: whether the generic address a is in the shared window (__isShared)."""
        flag, _, operand = instruction.operands
        if not instruction.has("S") or not isinstance(operand, Address) or operand.base is None:
            raise self.fail("QSPC of a space other than shared")
        if "shared" not in self.windows:  # no shared address was made generic here
            self.set_predicate(flag, "false")
            return
        self.set_predicate(flag, self.in_window("shared", self.int64(operand.base)))

    def shared_pointer(self, offset: str) -> str:
        """A shared-window offset as a pointer. The kernel's static shared memory is one array of the size
        the cubin records; dynamic shared memory (extern __shared__) follows it, as on NVIDIA, which is
        where both targets put a launch's dynamic LDS: the offset is not bounded by the array. On sm_90 the
        cubin's size counts the reserved window below SHARED_WINDOW_BASE, which no offset here reaches: an
        array holding it too would make a launch with 48 KiB of dynamic shared memory ask for more."""
        size = max(self.kernel.metadata.shared_size - SHARED_WINDOW_BASE.get(self.kernel.arch, 0), 0)
        if size == 0:
            name = "__cassc_dynamic_shared"
            self.module_globals[name] = f"@{name} = external addrspace(3) global [0 x i8], align 16"
        else:
            name = f"__cassc_shared.{self.ordinal}"
            self.module_globals[name] = f"@{quote(name)} = internal addrspace(3) global [{size} x i8] poison, align 16"
        return self.value(f"getelementptr i8, ptr addrspace(3) @{quote(name)}, i64 {offset}")

    # -- integer arithmetic ---------------------------------------------------------------------------
    def op_MOV(self, instruction: SassInstruction) -> None:
        self.write32(instruction.operands[0], self.int32(instruction.operands[1]))

    op_UMOV = op_MOV

    def op_MOV32I(self, instruction: SassInstruction) -> None:
        self.op_MOV(instruction)

    def op_IMAD(self, instruction: SassInstruction) -> None:
        operands = instruction.operands
        destination = operands[0]
        signed = not instruction.has("U32")
        if instruction.has("WIDE", "HI"):
            # The addend is 64 bits for both (a register pair: ptxas' division puts a reciprocal in the high
            # register and zero in the low one); .WIDE keeps a * b + c whole, .HI its high word.
            a, b = (self.int32(o) for o in operands[1:3])
            extend = "sext" if signed else "zext"
            product = self.value(f"mul i64 {self.value(f'{extend} i32 {a} to i64')}, "
                                 f"{self.value(f'{extend} i32 {b} to i64')}")
            total = self.value(f"add i64 {product}, {self.int64(operands[3])}")
            if instruction.has("WIDE"):
                self.write64(destination, total)
                return
            result = self.value(f"trunc i64 {self.value(f'lshr i64 {total}, 32')} to i32")
        else:
            a, b = (self.int32(o) for o in operands[1:3])
            product = self.value(f"mul i32 {a}, {b}")
            if instruction.has("X") and getattr(operands[3], "inverted", False):
                # a * b + ~c + carry: c subtracted with a borrow of !carry (a 64-bit subtraction's high word)
                borrow = self.value(f"xor i1 {self.predicate_operand(operands[4])}, true")
                result, _ = self.add_with_carry([(product, False), (self.raw32(operands[3]), True),
                                                 (self.value(f"zext i1 {borrow} to i32"), True)], False)
                self.write32(destination, result)
                return
            result = self.value(f"add i32 {product}, {self.int32(operands[3])}")
        if instruction.has("X"):
            carry = self.value(f"zext i1 {self.predicate_operand(operands[4])} to i32")
            result = self.value(f"add i32 {result}, {carry}")
        self.write32(destination, result)

    def op_IADD3(self, instruction: SassInstruction) -> None:
        """d = a + b + c (+ carries in, .X); an optional carry-out predicate. A negated operand is its
        complement plus one, as the adder computes it (so the carry is the adder's)."""
        operands = list(instruction.operands)
        destination = operands.pop(0)
        carries_out = []
        while isinstance(operands[0], Register) and operands[0].kind in ("P", "UP") and len(operands) > 3:
            carries_out.append(operands.pop(0))
        sources, carries_in = operands[:3], operands[3:] if instruction.has("X") else []
        terms: list[tuple[str, bool]] = []  # (value, subtracted)
        pending = [] if carries_out else list(carries_in)
        for operand in sources:
            raw = self.raw32(operand)
            if getattr(operand, "inverted", False) and pending:
                # ~x + carry is x subtracted with a borrow of !carry (a 64-bit subtraction's high word; the
                # targets' subtract-with-borrow): the same sum, and no carry out is wanted
                borrow = self.value(f"xor i1 {self.predicate_operand(pending.pop(0))}, true")
                terms += [(raw, True), (self.value(f"zext i1 {borrow} to i32"), True)]
            elif getattr(operand, "inverted", False):
                terms.append((self.value(f"xor i32 {raw}, -1"), False))
            elif not (isinstance(operand, Register) and operand.is_zero):
                terms.append((raw, getattr(operand, "negated", False)))
        unpaired = pending if not carries_out else carries_in
        terms += [(self.value(f"zext i1 {self.predicate_operand(carry)} to i32"), False) for carry in unpaired]
        total, carry = self.add_with_carry(terms, bool(carries_out))
        self.write32(destination, total)
        # The carry (0 to 2) is counted by the carry-out predicates, which a 64-bit sum's IADD3.X adds up
        # again: the first holds when it is at least 1, the second when it is 2.
        for count, predicate in enumerate(carries_out, 1):
            self.set_predicate(predicate, self.value(f"icmp uge i32 {carry}, {count}"))

    def add_with_carry(self, terms: list[tuple[str, bool]], carry_out: bool) -> tuple[str, str]:
        """(the 32-bit sum of `terms`, each (value, subtracted), and how many times the adder carried out
        of bit 31: "0" unless `carry_out`). A subtracted term is its complement plus one, as the adder
        takes it: it carries where no borrow is. Each step's carry is a comparison (a sum below its first term,
        a minuend not below its subtrahend), which codegen turns into the targets' add (subtract) with carry.
        Not llvm.u{add,sub}.with.overflow: InstCombine merges phis of its results into a phi of the {i32, i1}
        pair, and LLVM 22's AMDGPU backend then emits machine code its verifier rejects (an abort) for a
        loop whose pointers advance by 64-bit adds."""
        total, carry = "0", "0"
        for index, (term, subtracted) in enumerate(terms):
            if index == 0 and not subtracted:
                total = term
                continue
            operation = "sub" if subtracted else "add"
            if not carry_out:
                total = self.value(f"{operation} i32 {total}, {term}")
                continue
            before, total = total, self.value(f"{operation} i32 {total}, {term}")
            carried = self.value(f"icmp uge i32 {before}, {term}" if subtracted else f"icmp ult i32 {total}, {before}")
            carry = self.value(f"add i32 {carry}, {self.value(f'zext i1 {carried} to i32')}")
        return total, carry

    def op_VIADD(self, instruction: SassInstruction) -> None:
        """VIADD[.16x2] d, a, b (sm_90): a + b (per 16-bit half with .16x2)."""
        destination, *sources = instruction.operands
        lanes, _ = self.integer_lanes(instruction)
        total = self.lane_value(self.int32(sources[0]), lanes)
        for operand in sources[1:]:
            total = self.value(f"add {lanes} {total}, {self.lane_value(self.int32(operand), lanes)}")
        self.write32(destination, self.value(f"bitcast {lanes} {total} to i32"))

    def op_VIADDMNMX(self, instruction: SassInstruction) -> None:
        """VIADDMNMX d, a, b, c, p (sm_90): min (p) or max (!p) of a + b and c."""
        destination, a, b, c, which = instruction.operands
        lanes, _ = self.integer_lanes(instruction)
        total = self.value(f"add {lanes} {self.lane_value(self.int32(a), lanes)}, {self.lane_value(self.int32(b), lanes)}")
        self.write32(destination, self.lane_min_max(instruction, [total, self.lane_value(self.int32(c), lanes)], which))

    def integer_lanes(self, instruction: SassInstruction) -> tuple[str, bool]:
        """(the LLVM type of an integer SIMD instruction's lanes: i32, or <2 x i16> for .16x2 forms; signed)."""
        known = {"U32", "U16x2", "S16x2", "16x2", "RELU"}
        unknown = [m for m in instruction.modifiers if m not in known]
        if unknown:
            raise self.fail(f"{instruction.opcode} with .{'.'.join(unknown)}")
        lanes = "<2 x i16>" if any(m.endswith("16x2") for m in instruction.modifiers) else "i32"
        return lanes, not instruction.has("U32", "U16x2")

    def lane_value(self, value: str, lanes: str) -> str:
        return value if lanes == "i32" else self.value(f"bitcast i32 {value} to {lanes}")

    def lane_min_max(self, instruction: SassInstruction, values: list[str], which: object) -> str:
        """The minimum (which) or maximum (!which) of `values` (already in lanes), per lane; .RELU: then at
        least 0. As an i32."""
        lanes, signed = self.integer_lanes(instruction)
        prefix = "s" if signed else "u"

        def fold(operation: str) -> str:
            function = self.intrinsic(f"llvm.{prefix}{operation}", lanes, 2)
            result = values[0]
            for other in values[1:]:
                result = self.value(f"call {lanes} {function}({lanes} {result}, {lanes} {other})")
            return result

        chosen = self.value(f"select i1 {self.predicate_operand(which)}, {lanes} {fold('min')}, {lanes} {fold('max')}")
        if instruction.has("RELU"):
            function = self.intrinsic("llvm.smax", lanes, 2)
            chosen = self.value(f"call {lanes} {function}({lanes} {chosen}, {lanes} zeroinitializer)")
        return self.value(f"bitcast {lanes} {chosen} to i32")

    def op_LEA(self, instruction: SassInstruction) -> None:
        """LEA d, [P,] a, b, shift: (a << shift) + b; LEA.HI d, [P,] a, b, high, shift: b + the high word of
        (high:a) << shift (.SX32: high is a's sign); .X adds a carry-in predicate."""
        operands = list(instruction.operands)
        destination = operands.pop(0)
        carry_out = operands.pop(0) if isinstance(operands[0], Register) and operands[0].kind in ("P", "UP") \
            and not instruction.has("X") and len(operands) > 3 else None
        carry_in = operands.pop() if instruction.has("X") else None
        a, b = self.raw32(operands[0]), self.int32(operands[1])
        if getattr(operands[0], "negated", False) or getattr(operands[0], "inverted", False):
            a = self.value(f"xor i32 {a}, -1") if getattr(operands[0], "inverted", False) else \
                self.value(f"sub i32 0, {a}")
        shift = self.raw32(operands[-1])
        if instruction.has("HI"):
            if instruction.has("SX32"):
                high = self.value(f"ashr i32 {a}, 31")
            else:
                high = self.int32(operands[2])
            part = self.funnel("fshl", high, a, shift)
        else:
            part = self.value(f"shl i32 {a}, {shift}")
        terms = [(part, False), (b, False)]
        if carry_in is not None:
            terms.append((self.value(f"zext i1 {self.predicate_operand(carry_in)} to i32"), False))
        total, carry = self.add_with_carry(terms, carry_out is not None)
        self.write32(destination, total)
        if carry_out is not None:
            self.set_predicate(carry_out, self.value(f"icmp ne i32 {carry}, 0"))

    def op_LOP3(self, instruction: SassInstruction) -> None:
        """LOP3.LUT [P,] d, a, b, c, lut, Pin: any function of three bit vectors; P = (d != 0) or Pin (!PT when
        unused): nvcc chains a 64-bit value's nonzero test through it, the high word's test or'ed onto the low's."""
        operands = list(instruction.operands)
        flag = operands.pop(0) if isinstance(operands[0], Register) and operands[0].kind in ("P", "UP") else None
        destination = operands.pop(0)
        inputs = [self.int32(o) for o in operands[:3]]
        result = self.lop3("b32", inputs, self.immediate(operands[3]))
        self.write32(destination, result)
        if flag is not None:
            nonzero = self.value(f"icmp ne i32 {result}, 0")
            if len(operands) > 4:
                nonzero = self.value(f"or i1 {nonzero}, {self.predicate_operand(operands[4])}")
            self.set_predicate(flag, nonzero)

    def op_PLOP3(self, instruction: SassInstruction) -> None:
        """PLOP3.LUT p, q, a, b, c, lut_p, lut_q: two functions of three predicates."""
        operands = instruction.operands
        inputs = [self.value(f"sext i1 {self.predicate_operand(o)} to i32") for o in operands[2:5]]
        for destination, table in ((operands[0], operands[5]), (operands[1], operands[6])):
            if isinstance(destination, Register) and destination.index is not None:
                value = self.lop3("b32", inputs, self.immediate(table))
                self.set_predicate(destination, self.value(f"icmp ne i32 {self.value(f'and i32 {value}, 1')}, 0"))

    def immediate(self, operand: object) -> int:
        if not isinstance(operand, Immediate):
            raise self.fail("a lookup table or count that is not an immediate")
        return operand.integer()

    def op_SHF(self, instruction: SassInstruction) -> None:
        """SHF.{L,R}[.W].{U32,S32,U64,S64}[.HI] d, low, shift, high: the 64-bit high:low shifted, its low
        (or .HI: high) word. The amount is clamped at the type's width (.W: taken mod 32)."""
        destination, low, amount, high = instruction.operands
        left = instruction.has("L")
        signed = instruction.has("S32", "S64")
        limit = 64 if instruction.has("U64", "S64") else 32
        if isinstance(amount, Immediate) and 0 < amount.integer() < 32 and not signed and (
                instruction.has("HI") == left):  # a funnel shift: the word of high:low that stays
            direction = "fshl" if left else "fshr"
            self.write32(destination, self.funnel(direction, self.int32(high), self.int32(low), self.raw32(amount)))
            return
        pair = self.pair(self.int32(low), self.int32(high))
        count = self.int32(amount)
        count = self.value(f"and i32 {count}, 31") if instruction.has("W") else \
            self.value(f"call i32 {self.intrinsic('llvm.umin', 'i32', 2)}(i32 {count}, i32 {limit})")
        operation = "shl" if left else "ashr" if signed else "lshr"
        shifted = self.shift(operation, "s64" if signed else "u64", pair, count)
        if instruction.has("HI"):
            shifted = self.value(f"lshr i64 {shifted}, 32")
        self.write32(destination, self.value(f"trunc i64 {shifted} to i32"))

    def op_SEL(self, instruction: SassInstruction) -> None:
        destination, a, b, condition = instruction.operands
        self.write32(destination, self.select("b32", self.predicate_operand(condition), self.int32(a), self.int32(b)))

    def op_IMNMX(self, instruction: SassInstruction) -> None:
        destination, a, b, which = instruction.operands
        ptx_type = "u32" if instruction.has("U32") else "s32"
        a, b = self.int32(a), self.int32(b)
        low, high = self.min_max("min", ptx_type, a, b), self.min_max("max", ptx_type, a, b)
        self.write32(destination, self.select("b32", self.predicate_operand(which), low, high))

    def op_VIMNMX(self, instruction: SassInstruction) -> None:
        """VIMNMX[.U32|.S16x2|.U16x2][.RELU] d, a, b, p (sm_90): the minimum (p) or maximum (!p), per lane."""
        destination, *sources, which = instruction.operands
        lanes, _ = self.integer_lanes(instruction)
        self.write32(destination, self.lane_min_max(instruction, [self.lane_value(self.int32(o), lanes)
                                                                  for o in sources], which))

    op_VIMNMX3 = op_VIMNMX  # of three

    def op_VABSDIFF(self, instruction: SassInstruction) -> None:
        """VABSDIFF[.U32] d, a, b, c: |a - b| + c (__sad, __usad), signed unless .U32."""
        destination, a, b, c = instruction.operands
        ptx_type = "u32" if instruction.has("U32") else "s32"
        x, y = self.int32(a), self.int32(b)
        difference = self.value(f"sub i32 {self.min_max('max', ptx_type, x, y)}, {self.min_max('min', ptx_type, x, y)}")
        self.write32(destination, self.value(f"add i32 {difference}, {self.int32(c)}"))

    def op_VABSDIFF4(self, instruction: SassInstruction) -> None:
        """VABSDIFF4.{U8,S8}[.ACC] d, a, b, c: per byte |a - b| (__vabsdiffu4/s4), plus c's byte; .ACC: the
        four differences summed, plus c (__vsadu4)."""
        destination, a, b, c = instruction.operands
        signed = instruction.has("S8")
        x, y = (self.value(f"bitcast i32 {self.int32(o)} to <4 x i8>") for o in (a, b))
        extend = "sext" if signed else "zext"
        wide_x, wide_y = (self.value(f"{extend} <4 x i8> {v} to <4 x i16>") for v in (x, y))
        difference = self.value(f"sub <4 x i16> {wide_x}, {wide_y}")
        absolute = self.declare("llvm.abs.v4i16", "declare <4 x i16> @llvm.abs.v4i16(<4 x i16>, i1)")
        magnitude = self.value(f"call <4 x i16> {absolute}(<4 x i16> {difference}, i1 false)")
        addend = self.int32(c)
        if instruction.has("ACC"):
            reduce = self.declare("llvm.vector.reduce.add.v4i16",
                                  "declare i16 @llvm.vector.reduce.add.v4i16(<4 x i16>)")
            total = self.value(f"call i16 {reduce}(<4 x i16> {magnitude})")
            self.write32(destination, self.value(f"add i32 {self.value(f'zext i16 {total} to i32')}, {addend}"))
            return
        bytes_ = self.value(f"bitcast <4 x i8> {self.value(f'trunc <4 x i16> {magnitude} to <4 x i8>')} to i32")
        summed = self.value(f"add <4 x i8> {self.value(f'bitcast i32 {bytes_} to <4 x i8>')}, "
                            f"{self.value(f'bitcast i32 {addend} to <4 x i8>')}")
        self.write32(destination, self.value(f"bitcast <4 x i8> {summed} to i32"))

    def op_IABS(self, instruction: SassInstruction) -> None:
        self.write32(instruction.operands[0], self.absolute("s32", self.int32(instruction.operands[1])))

    def op_POPC(self, instruction: SassInstruction) -> None:
        self.write32(instruction.operands[0], self.bit_count("llvm.ctpop", "b32", self.int32(instruction.operands[1])))

    def op_FLO(self, instruction: SassInstruction) -> None:
        ptx_type = "u32" if instruction.has("U32") else "s32"
        self.write32(instruction.operands[0],
                     self.find_leading(ptx_type, self.int32(instruction.operands[1]), instruction.has("SH")))

    def op_BREV(self, instruction: SassInstruction) -> None:
        self.write32(instruction.operands[0], self.unary("llvm.bitreverse", "b32", self.int32(instruction.operands[1])))

    def op_PRMT(self, instruction: SassInstruction) -> None:
        if any(m in instruction.modifiers for m in ("F4E", "B4E", "RC8", "ECL", "ECR", "RC16")):
            raise self.fail("PRMT modes other than the default")
        destination, a, selector, b = instruction.operands
        self.write32(destination, self.permute(self.int32(a), self.int32(b), self.int32(selector)))

    def op_ISETP(self, instruction: SassInstruction) -> None:
        """ISETP.cmp[.U32].{AND,OR,XOR}[.EX] p, q, a, b, c[, low]: p = (a cmp b) op c, q = !(a cmp b) op c.
        .EX compares the high words of a 64-bit comparison whose low words' result is `low`."""
        operands = instruction.operands
        comparison = next(INTEGER_COMPARISONS[m] for m in instruction.modifiers if m in INTEGER_COMPARISONS)
        ptx_type = "u32" if instruction.has("U32") else "s32"
        a, b = self.int32(operands[2]), self.int32(operands[3])
        result = self.compare(comparison, ptx_type, a, b)
        if instruction.has("EX"):
            low = self.predicate_operand(operands[5])
            equal = self.compare("eq", ptx_type, a, b)
            if comparison in ("eq",):
                result = self.value(f"and i1 {equal}, {low}")
            elif comparison == "ne":
                result = self.value(f"or i1 {result}, {low}")
            else:
                strict = self.compare({"ge": "gt", "le": "lt"}.get(comparison, comparison), ptx_type, a, b)
                result = self.value(f"or i1 {strict}, {self.value(f'and i1 {equal}, {low}')}")
        self.combine_predicates(instruction, result, operands[0], operands[1], operands[4])

    def combine_predicates(self, instruction: SassInstruction, result: str, first: object, second: object,
                           combined: object) -> None:
        operation = next((m.lower() for m in instruction.modifiers if m in ("AND", "OR", "XOR")), "and")
        c = self.predicate_operand(combined)
        inverse = self.value(f"xor i1 {result}, true")
        self.set_predicate(first, self.value(f"{operation} i1 {result}, {c}"))
        if not (isinstance(second, Register) and second.index is None):
            self.set_predicate(second, self.value(f"{operation} i1 {inverse}, {c}"))

    # -- floats ---------------------------------------------------------------------------------------
    def rounding(self, instruction: SassInstruction) -> str | None:
        return next(({"RZ": "rz", "RM": "rm", "RP": "rp"}[m] for m in instruction.modifiers
                     if m in ("RZ", "RM", "RP")), None)

    def float_result(self, instruction: SassInstruction, value: str) -> None:
        if instruction.has("SAT"):
            value = self.clamp_unit(value, "f32")
        self.write32(instruction.operands[0], self.value(f"bitcast float {value} to i32"))

    def op_FADD(self, instruction: SassInstruction) -> None:
        a, b = (self.float32(o) for o in instruction.operands[1:3])
        rounding = self.rounding(instruction)
        result = self.directed_arithmetic("fadd", "f32", a, b, rounding) if rounding else \
            self.value(f"fadd float {a}, {b}")
        self.float_result(instruction, result)

    def op_FMUL(self, instruction: SassInstruction) -> None:
        a, b = (self.float32(o) for o in instruction.operands[1:3])
        rounding = self.rounding(instruction)
        result = self.directed_arithmetic("fmul", "f32", a, b, rounding) if rounding else \
            self.value(f"fmul float {a}, {b}")
        # .D2/.D4/.D8/.M2/.M4/.M8: the product scaled by a power of two (ptxas folds x * y / 2 into FMUL.D2)
        scale = next((int(m[1]) if m[0] == "M" else 1 / int(m[1]) for m in instruction.modifiers
                      if m in ("D2", "D4", "D8", "M2", "M4", "M8")), None)
        if scale is not None:
            result = self.value(f"fmul float {result}, {float_constant(scale, 'f32')}")
        self.float_result(instruction, result)

    def op_FFMA(self, instruction: SassInstruction) -> None:
        a, b, c = (self.float32(o) for o in instruction.operands[1:4])
        self.float_result(instruction, self.fma("f32", a, b, c, self.rounding(instruction)))

    def op_FMNMX(self, instruction: SassInstruction) -> None:
        destination, a, b, which = instruction.operands
        a, b = self.float32(a), self.float32(b)
        low, high = self.min_max("min", "f32", a, b), self.min_max("max", "f32", a, b)
        self.float_result(instruction, self.select("f32", self.predicate_operand(which), low, high))

    def op_FSEL(self, instruction: SassInstruction) -> None:
        destination, a, b, condition = instruction.operands
        a, b = self.float32(a), self.float32(b)
        self.float_result(instruction, self.select("f32", self.predicate_operand(condition), a, b))

    def op_FSETP(self, instruction: SassInstruction) -> None:
        operands = instruction.operands
        if instruction.has("MAX", "MIN"):
            self.selection_predicates(instruction, "f32", self.float32(operands[2]), self.float32(operands[3]))
            return
        comparison = next(FLOAT_COMPARISONS[m] for m in instruction.modifiers if m in FLOAT_COMPARISONS)
        result = self.compare(comparison, "f32", self.float32(operands[2]), self.float32(operands[3]))
        self.combine_predicates(instruction, result, operands[0], operands[1], operands[4])

    def op_FSET(self, instruction: SassInstruction) -> None:
        """FSET[.BF].cmp.op d, a, b, c: (a cmp b) op c as 1.0 / 0.0 (.BF) or as all ones / zero."""
        destination, a, b, combined = instruction.operands
        comparison = next(FLOAT_COMPARISONS[m] for m in instruction.modifiers if m in FLOAT_COMPARISONS)
        result = self.compare(comparison, "f32", self.float32(a), self.float32(b))
        operation = next((m.lower() for m in instruction.modifiers if m in ("AND", "OR", "XOR")), "and")
        result = self.value(f"{operation} i1 {result}, {self.predicate_operand(combined)}")
        true = bits_of(1.0) if instruction.has("BF") else -1
        self.write32(destination, self.value(f"select i1 {result}, i32 {true}, i32 0"))

    def op_DSETP(self, instruction: SassInstruction) -> None:
        operands = instruction.operands
        if instruction.has("MAX", "MIN"):
            self.selection_predicates(instruction, "f64", self.float64(operands[2]), self.float64(operands[3]))
            return
        comparison = next(FLOAT_COMPARISONS[m] for m in instruction.modifiers if m in FLOAT_COMPARISONS)
        result = self.compare(comparison, "f64", self.float64(operands[2]), self.float64(operands[3]))
        self.combine_predicates(instruction, result, operands[0], operands[1], operands[4])

    def selection_predicates(self, instruction: SassInstruction, ptx_type: str, a: str, b: str) -> None:
        """{F,D}SETP.{MAX,MIN}.op p, q, a, b, c (ptxas' fmax/fmin, the result then chosen by SEL/FSEL):
        p = whether a is the maximum (minimum), a NaN losing to a number; q = whether both are NaN (the
        result is then a quiet NaN). Each combined with c."""
        which = "max" if instruction.has("MAX") else "min"
        llvm_type = value_type(ptx_type)
        chosen = self.min_max(which, ptx_type, a, b)
        bits = f"i{width(ptx_type)}"
        is_a = self.value(f"icmp eq {bits} {self.value(f'bitcast {llvm_type} {chosen} to {bits}')}, "
                          f"{self.value(f'bitcast {llvm_type} {a} to {bits}')}")
        both_nan = self.value(f"and i1 {self.value(f'fcmp uno {llvm_type} {a}, {a}')}, "
                              f"{self.value(f'fcmp uno {llvm_type} {b}, {b}')}")
        operation = next((m.lower() for m in instruction.modifiers if m in ("AND", "OR", "XOR")), "and")
        c = self.predicate_operand(instruction.operands[4])
        self.set_predicate(instruction.operands[0], self.value(f"{operation} i1 {is_a}, {c}"))
        self.set_predicate(instruction.operands[1], self.value(f"{operation} i1 {both_nan}, {c}"))

    def double_result(self, instruction: SassInstruction, value: str) -> None:
        self.write64(instruction.operands[0], self.value(f"bitcast double {value} to i64"))

    def op_DADD(self, instruction: SassInstruction) -> None:
        a, b = (self.float64(o) for o in instruction.operands[1:3])
        rounding = self.rounding(instruction)
        self.double_result(instruction, self.directed_arithmetic("fadd", "f64", a, b, rounding) if rounding
                           else self.value(f"fadd double {a}, {b}"))

    def op_DMUL(self, instruction: SassInstruction) -> None:
        a, b = (self.float64(o) for o in instruction.operands[1:3])
        rounding = self.rounding(instruction)
        self.double_result(instruction, self.directed_arithmetic("fmul", "f64", a, b, rounding) if rounding
                           else self.value(f"fmul double {a}, {b}"))

    def op_DFMA(self, instruction: SassInstruction) -> None:
        a, b, c = (self.float64(o) for o in instruction.operands[1:4])
        self.double_result(instruction, self.fma("f64", a, b, c, self.rounding(instruction)))

    def op_MUFU(self, instruction: SassInstruction) -> None:
        """The special function unit's approximations. SIN/COS take revolutions (ptxas multiplies by 1/2pi
        first)."""
        function = next((m for m in instruction.modifiers
                         if m in ("RCP", "RSQ", "SQRT", "EX2", "LG2", "SIN", "COS", "TANH", "RCP64H", "RSQ64H")), None)
        if function is None:
            raise self.fail("this MUFU function")
        if function in ("RCP64H", "RSQ64H"):
            # the high word of 1/x (1/sqrt(x)) for the double whose high word is the operand: the seed of a
            # double division's (square root's) Newton steps, here already exact to double precision
            operand = instruction.operands[1]
            if isinstance(operand, Immediate) and not operand.is_hex:  # a double, as nvdisasm prints it
                word = struct.unpack("<Q", struct.pack("<d", self.float_text(operand.text)))[0] >> 32
                high = str(word)
            else:
                high = self.value(f"zext i32 {self.int32(operand)} to i64")
            x = self.value(f"bitcast i64 {self.value(f'shl i64 {high}, 32')} to double")
            y = self.reciprocal("f64", x, False) if function == "RCP64H" else self.value(
                f"fdiv double 1.0, {self.unary('llvm.sqrt', 'f64', x)}")
            bits = self.value(f"bitcast double {y} to i64")
            self.write32(instruction.operands[0], self.value(f"trunc i64 {self.value(f'lshr i64 {bits}, 32')} to i32"))
            return
        a = self.float32(instruction.operands[1])
        if function == "RCP":
            result = self.reciprocal("f32", a, True)
        elif function == "RSQ":
            result = self.reciprocal_root("f32", a)
        elif function == "SQRT":
            result = self.unary("llvm.sqrt", "f32", a, "afn ")
        elif function == "EX2":
            result = self.unary("llvm.exp2", "f32", a, "afn ")
        elif function == "LG2":
            result = self.log2("f32", a)
        elif function == "TANH":
            result = self.tanh("f32", a)
        else:
            radians = self.value(f"fmul float {a}, {float_constant(2 * 3.141592653589793, 'f32')}")
            result = self.unary(f"llvm.{function.lower()}", "f32", radians, "afn ")
        self.float_result(instruction, result)

    def op_FRND(self, instruction: SassInstruction) -> None:
        """Rounding to an integral value within one float type: .F16 (a half in the low 16 bits), .F64, or f32."""
        rounding = next((ROUNDINGS[m] for m in instruction.modifiers if m in ROUNDINGS), "rni")
        float_type = next((t for m, t in (("F16", "f16"), ("F64", "f64")) if instruction.has(m)), "f32")
        a = self.read_typed(instruction.operands[1], float_type)
        self.write_typed(instruction.operands[0], self.convert(a, float_type, float_type, rounding), float_type)

    def conversion_types(self, instruction: SassInstruction, default_destination: str,
                         default_source: str) -> tuple[str, str]:
        """The types a conversion names (destination first), defaults where it names fewer."""
        names = {"F16": "f16", "F32": "f32", "F64": "f64", "S8": "s8", "U8": "u8", "S16": "s16", "U16": "u16",
                 "S32": "s32", "U32": "u32", "S64": "s64", "U64": "u64"}
        found = [names[m] for m in instruction.modifiers if m in names]
        if len(found) >= 2:
            return found[0], found[1]
        if len(found) == 1:  # one type: whichever side it fits
            one = found[0]
            same_kind = one[0] == default_destination[0] or (one[0] in "su" and default_destination[0] in "su")
            return (one, default_source) if same_kind else (default_destination, one)
        return default_destination, default_source

    def read_typed(self, operand: object, ptx_type: str) -> str:
        if ptx_type == "f32":
            return self.float32(operand)
        if ptx_type == "f64":
            return self.float64(operand)
        if ptx_type in ("s64", "u64"):
            return self.int64(operand)
        value = self.int32(operand)
        if ptx_type in ("f16", "bf16"):  # a half (F2I.F16, FRND.F16, F2F.F32.F16): the low 16 bits
            return self.value(f"bitcast i16 {self.value(f'trunc i32 {value} to i16')} to {value_type(ptx_type)}")
        bits = int(ptx_type[1:])
        return value if bits == 32 else self.value(f"trunc i32 {value} to i{bits}")

    def write_typed(self, operand: object, value: str, ptx_type: str) -> None:
        if ptx_type == "f32":
            self.write32(operand, self.value(f"bitcast float {value} to i32"))
        elif ptx_type == "f64":
            self.write64(operand, self.value(f"bitcast double {value} to i64"))
        elif ptx_type in ("s64", "u64"):
            self.write64(operand, value)
        elif ptx_type in ("f16", "bf16"):  # a half in the low 16 bits (I2F.F16, F2F.F16.F32), the rest zero
            bits = self.value(f"bitcast {value_type(ptx_type)} {value} to i16")
            self.write32(operand, self.value(f"zext i16 {bits} to i32"))
        else:
            bits = int(ptx_type[1:])
            extended = value if bits == 32 else self.value(
                f"{'sext' if ptx_type[0] == 's' else 'zext'} i{bits} {value} to i32")
            self.write32(operand, extended)

    def op_I2FP(self, instruction: SassInstruction) -> None:  # sm_90's I2F on the FMA pipe: the same meaning
        self.op_I2F(instruction)

    def op_F2I(self, instruction: SassInstruction) -> None:
        destination_type, source_type = self.conversion_types(instruction, "s32", "f32")
        rounding = next((ROUNDINGS[m] for m in instruction.modifiers if m in ROUNDINGS), "rni")
        a = self.read_typed(instruction.operands[1], source_type)
        self.write_typed(instruction.operands[0], self.convert(a, source_type, destination_type, rounding),
                         destination_type)

    def op_I2F(self, instruction: SassInstruction) -> None:
        destination_type, source_type = self.conversion_types(instruction, "f32", "s32")
        a = self.read_typed(instruction.operands[1], source_type)
        self.write_typed(instruction.operands[0],
                         self.convert(a, source_type, destination_type, self.rounding(instruction)), destination_type)

    def op_F2F(self, instruction: SassInstruction) -> None:
        destination_type, source_type = self.conversion_types(instruction, "f32", "f32")
        if self.rounding(instruction) and source_type == destination_type:
            raise self.fail("F2F with a directed rounding within one type")
        a = self.read_typed(instruction.operands[1], source_type)
        self.write_typed(instruction.operands[0],
                         self.convert(a, source_type, destination_type, self.rounding(instruction)), destination_type)

    def op_I2I(self, instruction: SassInstruction) -> None:
        destination_type, source_type = self.conversion_types(instruction, "s32", "s32")
        a = self.read_typed(instruction.operands[1], source_type)
        result = self.convert(a, source_type, destination_type, saturate=instruction.has("SAT"))
        self.write_typed(instruction.operands[0], result, destination_type)

    # -- packed halves: HADD2 / HMUL2 / HFMA2 (f16x2, or bf16x2 with .BF16_V2) ---------------------------
    def half_operands(self, instruction: SassInstruction) -> list[object]:
        """The sources, a pair of immediates (high, low) taken as one operand."""
        sources: list[object] = []
        operands = list(instruction.operands[1:])
        while operands:
            operand = operands.pop(0)
            if isinstance(operand, Immediate) and operands and isinstance(operands[0], Immediate):
                sources.append((operand, operands.pop(0)))
            else:
                sources.append(operand)
        return sources

    def half_pair(self, operand: object, ptx_type: str) -> str:
        """A <2 x half> (or bfloat) operand: lane 0 the low 16 bits; .H0_H0 / .H1_H1 repeat one half,
        .H1_H0 / .H0_H1 name the lanes; a pair of immediates is (high, low); .F32: a float, rounded."""
        vector = value_type(ptx_type)
        element = vector.removeprefix("<2 x ").removesuffix(">")
        if isinstance(operand, tuple):
            high, low = (float_constant(self.float_text(o.text), ptx_type[:-2]) for o in operand)
            return f"<{element} {low}, {element} {high}>"
        if isinstance(operand, Immediate) and not operand.is_hex:
            half = float_constant(self.float_text(operand.text), ptx_type[:-2])
            return f"<{element} {half}, {element} {half}>"
        suffixes = getattr(operand, "suffixes", ())
        raw = self.raw32(operand)
        if "F32" in suffixes:
            narrow = self.value(f"fptrunc float {self.value(f'bitcast i32 {raw} to float')} to {element}")
            pair = self.value(f"insertelement {vector} poison, {element} {narrow}, i32 0")
            pair = self.value(f"insertelement {vector} {pair}, {element} {narrow}, i32 1")
        else:
            pair = self.value(f"bitcast i32 {raw} to {vector}")
            lanes = next((s for s in suffixes if re.fullmatch(r"H[01]_H[01]", s)), None)
            if lanes:  # written high lane first
                high, low = int(lanes[1]), int(lanes[4])
                pair = self.value(f"shufflevector {vector} {pair}, {vector} poison, <2 x i32> <i32 {low}, i32 {high}>")
        return self.float_modifiers(operand, pair, ptx_type)

    def half_result(self, instruction: SassInstruction, value: str, ptx_type: str) -> None:
        vector = value_type(ptx_type)
        if instruction.has("SAT"):
            raise self.fail("saturating packed half arithmetic")
        if instruction.has("F32"):  # the low lane, as a float
            element = vector.removeprefix("<2 x ").removesuffix(">")
            low = self.value(f"extractelement {vector} {value}, i32 0")
            self.write32(instruction.operands[0],
                         self.value(f"bitcast float {self.value(f'fpext {element} {low} to float')} to i32"))
            return
        self.write32(instruction.operands[0], self.value(f"bitcast {vector} {value} to i32"))

    def half_type(self, instruction: SassInstruction) -> str:
        if instruction.has("BF16_V2", "BF16"):
            return "bf16x2"
        if any(m in instruction.modifiers for m in ("RZ", "RM", "RP")):
            raise self.fail("packed half arithmetic with directed rounding")
        return "f16x2"

    def op_F2FP(self, instruction: SassInstruction) -> None:
        """F2FP(.BF16).PACK_AB(.RZ/.RM/.RP) d, a, b: a and b rounded to halves (bfloat16), a in the high 16 bits."""
        if not instruction.has("PACK_AB"):
            raise self.fail("F2FP forms other than PACK_AB")
        half = "bf16" if instruction.has("BF16") else "f16"
        high, low = (self.float32(o) for o in instruction.operands[1:3])
        self.write32(instruction.operands[0], self.pack_halves(half, high, low, self.rounding(instruction)))

    def op_HSET2(self, instruction: SassInstruction) -> None:
        """HSET2[.BF].cmp.op d, a, b, c: per half, (a cmp b) op c as 1.0 / 0.0 (.BF) or all ones / zero."""
        ptx_type = self.half_type(instruction)
        *sources, combined = self.half_operands(instruction)
        a, b = (self.half_pair(o, ptx_type) for o in sources)
        comparison = next(FLOAT_COMPARISONS[m] for m in instruction.modifiers if m in FLOAT_COMPARISONS)
        result = self.compare(comparison, ptx_type, a, b)
        operation = next((m.lower() for m in instruction.modifiers if m in ("AND", "OR", "XOR")), "and")
        c = self.predicate_operand(combined)
        both = self.value(f"insertelement <2 x i1> {self.value(f'insertelement <2 x i1> poison, i1 {c}, i32 0')}, "
                          f"i1 {c}, i32 1")
        result = self.value(f"{operation} <2 x i1> {result}, {both}")
        true = (0x3F80 if ptx_type == "bf16x2" else 0x3C00) if instruction.has("BF") else 0xFFFF
        halves = self.value(f"select <2 x i1> {result}, <2 x i16> <i16 {true}, i16 {true}>, <2 x i16> zeroinitializer")
        self.write32(instruction.operands[0], self.value(f"bitcast <2 x i16> {halves} to i32"))

    def op_HSETP2(self, instruction: SassInstruction) -> None:
        """HSETP2[.BF16_V2].cmp.op p, q, a, b, c (setp.f16x2): p = (a.lo cmp b.lo) op c, q = (a.hi cmp b.hi)
        op c; with .H_AND both halves' results are and-ed, p takes it and q its inverse (as FSETP's pair)."""
        ptx_type = self.half_type(instruction)
        first, second, *sources, combined = [instruction.operands[0], *self.half_operands(instruction)]
        a, b = (self.half_pair(o, ptx_type) for o in sources)
        comparison = next(FLOAT_COMPARISONS[m] for m in instruction.modifiers if m in FLOAT_COMPARISONS)
        lanes = self.compare(comparison, ptx_type, a, b)
        low, high = (self.value(f"extractelement <2 x i1> {lanes}, i32 {lane}") for lane in (0, 1))
        if instruction.has("H_AND"):
            self.combine_predicates(instruction, self.value(f"and i1 {low}, {high}"), first, second, combined)
            return
        operation = next((m.lower() for m in instruction.modifiers if m in ("AND", "OR", "XOR")), "and")
        c = self.predicate_operand(combined)
        self.set_predicate(first, self.value(f"{operation} i1 {low}, {c}"))
        if not (isinstance(second, Register) and second.index is None):
            self.set_predicate(second, self.value(f"{operation} i1 {high}, {c}"))

    def op_HMNMX2(self, instruction: SassInstruction) -> None:
        """HMNMX2[.BF16_V2][.NAN] d, a, b, p: per half the minimum where p holds, else the maximum (a NaN
        loses to a number, as FMNMX; .NAN: NaN wins)."""
        ptx_type = self.half_type(instruction)
        *sources, which = self.half_operands(instruction)
        a, b = (self.half_pair(o, ptx_type) for o in sources)
        nan = instruction.has("NAN")
        low, high = (self.min_max(m, ptx_type, a, b, propagate_nan=nan) for m in ("min", "max"))
        vector = value_type(ptx_type)
        chosen = self.value(f"select i1 {self.predicate_operand(which)}, {vector} {low}, {vector} {high}")
        self.half_result(instruction, chosen, ptx_type)

    def op_HADD2(self, instruction: SassInstruction) -> None:
        ptx_type = self.half_type(instruction)
        a, b = (self.half_pair(o, ptx_type) for o in self.half_operands(instruction))
        self.half_result(instruction, self.value(f"fadd {value_type(ptx_type)} {a}, {b}"), ptx_type)

    def op_HMUL2(self, instruction: SassInstruction) -> None:
        ptx_type = self.half_type(instruction)
        a, b = (self.half_pair(o, ptx_type) for o in self.half_operands(instruction))
        self.half_result(instruction, self.value(f"fmul {value_type(ptx_type)} {a}, {b}"), ptx_type)

    def op_HFMA2(self, instruction: SassInstruction) -> None:
        ptx_type = self.half_type(instruction)
        a, b, c = (self.half_pair(o, ptx_type) for o in self.half_operands(instruction))
        self.half_result(instruction, self.fma(ptx_type, a, b, c), ptx_type)

    # -- special registers, constants, memory -------------------------------------------------------
    def op_S2R(self, instruction: SassInstruction) -> None:
        source = instruction.operands[1]
        if not isinstance(source, Special):
            raise self.fail("S2R of something that is not a special register")
        self.write32(instruction.operands[0], self.special_value(source))

    op_S2UR = op_S2R

    def op_CS2R(self, instruction: SassInstruction) -> None:
        destination, source = instruction.operands
        if isinstance(source, Register) and source.index is None:  # CS2R R2, SRZ-like zeroing reads as RZ
            self.write64(destination, "0")
            return
        if isinstance(source, Special) and source.name in ("SR_CLOCKLO", "SR_CLOCK"):
            value, _ = self.special_register("%clock64") or ("", "")
            self.write64(destination, value)
            return
        raise self.fail(f"CS2R of {source}")

    def op_LDC(self, instruction: SassInstruction) -> None:
        destination, source = instruction.operands
        if not isinstance(source, Constant):
            raise self.fail("LDC of something that is not a constant bank reference")
        if source.bank == 4 and source.register is not None:  # an entry chosen by an index the code just set
            source = replace(source, register=None,
                             offset=source.offset + self.traced_immediate(source.register, instruction))
        small = next((m for m in instruction.modifiers if m in ("U8", "S8", "U16", "S16")), None)
        if instruction.has("64"):
            self.write64(destination, self.constant(source, 8))
        elif small:
            bits = int(small[1:])
            value = self.constant(source, bits // 8)
            self.write32(destination, self.value(f"{'sext' if small[0] == 'S' else 'zext'} i{bits} {value} to i32"))
        else:
            self.write32(destination, self.constant(source, 4))

    def op_ULDC(self, instruction: SassInstruction) -> None:
        self.op_LDC(instruction)

    def memory_type(self, instruction: SassInstruction) -> tuple[str, int]:
        """(the type loaded or stored, bytes): 32 bits unless a size modifier says otherwise."""
        for modifier in instruction.modifiers:
            if modifier in MEMORY_TYPES:
                return MEMORY_TYPES[modifier]
        return "b32", 4

    def load_to(self, instruction: SassInstruction, space: str) -> None:
        destination, source = instruction.operands[0], instruction.operands[1]
        ptx_type, size = self.memory_type(instruction)
        pointer, number = self.address(source, space, wide=instruction.has("E") and space == "global")
        bits = 8 * size
        if instruction.address in self.handle_loads:  # a texture handle's low word: its high word too (sass_images)
            high = self.offset_pointer(pointer, number, self.handle_loads[instruction.address] + 4)
            self.emit(f"store i32 {self.value(f'load i32, {self.ptr(number)} {high}, align 4')}, {self.alloca_ptr()} "
                      f"{self.handle_slot(instruction.address)}")
        loaded = self.value(f"load{' volatile' if instruction.has('VOLATILE') else ''} i{bits}, "
                            f"{self.ptr(number)} {pointer}, align {size}"
                            f"{', !invariant.load !{}' if instruction.has('CONSTANT') else ''}")
        if bits < 32:
            loaded = self.value(f"{'sext' if ptx_type.startswith('s') else 'zext'} i{bits} {loaded} to i32")
            bits = 32
        self.write_wide(destination, loaded, bits)

    def store_from(self, instruction: SassInstruction, space: str) -> None:
        target, source = instruction.operands[0], instruction.operands[1]
        ptx_type, size = self.memory_type(instruction)
        pointer, number = self.address(target, space, wide=instruction.has("E") and space == "global")
        bits = 8 * size
        if bits < 32:
            value = self.value(f"trunc i32 {self.int32(source)} to i{bits}")
        elif bits == 32:
            value = self.int32(source)
        else:
            if not isinstance(source, Register):
                raise self.fail("a wide store of something that is not a register")
            value = "0"
            for part in range(bits // 32):
                piece = self.value(f"zext i32 {self.register32(source, part) if source.index is not None else '0'} "
                                   f"to i{bits}")
                if part:
                    piece = self.value(f"shl i{bits} {piece}, {32 * part}")
                value = self.value(f"or i{bits} {value}, {piece}")
        self.emit(f"store i{bits} {value}, {self.ptr(number)} {pointer}, align {size}")

    def op_LDG(self, instruction: SassInstruction) -> None:
        self.load_to(instruction, "global")

    def op_STG(self, instruction: SassInstruction) -> None:
        self.store_from(instruction, "global")

    def op_LDS(self, instruction: SassInstruction) -> None:
        self.load_to(instruction, "shared")

    def op_STS(self, instruction: SassInstruction) -> None:
        self.store_from(instruction, "shared")

    def op_LDL(self, instruction: SassInstruction) -> None:
        self.load_to(instruction, "local")

    def op_STL(self, instruction: SassInstruction) -> None:
        self.store_from(instruction, "local")

    def op_LD(self, instruction: SassInstruction) -> None:
        self.load_to(instruction, "generic")

    def op_ST(self, instruction: SassInstruction) -> None:
        self.store_from(instruction, "generic")

    def atomic_operation(self, instruction: SassInstruction, space: str, returns: bool) -> None:
        operands = list(instruction.operands)
        if returns and isinstance(operands[0], Register) and operands[0].kind in ("P", "UP"):
            operands.pop(0)
        destination = operands.pop(0) if returns else None
        address = operands.pop(0)
        wide = instruction.has("64", "F64")  # RED.E.ADD.F64: a double (its width named only by the type)
        floating = instruction.has("F32", "F64")
        signed = instruction.has("S32", "S64")
        ptx_type = ("f" if floating else "s" if signed else "u") + ("64" if wide else "32")
        pointer, number = self.address(address, space, wide=instruction.has("E") and space == "global")
        scope = "cta" if space == "shared" else "gpu"
        if instruction.has("POPC"):
            # ATOMS.POPC.INC RZ, [a]: [a] grows by the number of lanes that run it (one atomic for the warp);
            # the same as each lane adding 1 where the old value is not read
            if not instruction.has("INC") or not isinstance(destination, Register) or destination.index is not None:
                raise self.fail("a warp-counting atomic whose old value is read")
            self.atomic("add", ptx_type, pointer, number, "1", scope)
            return
        if instruction.has("CAS"):
            read = self.int64 if wide else self.int32
            old = self.compare_exchange(64 if wide else 32, pointer, number, read(operands[0]), read(operands[1]),
                                        scope)
        else:
            operation = next((ATOMIC_OPERATIONS[m] for m in instruction.modifiers if m in ATOMIC_OPERATIONS), None)
            if operation is None or (floating and operation not in ("add", "min", "max")):
                raise self.fail("this atomic operation")
            if floating:
                value = self.float64(operands[0]) if wide else self.float32(operands[0])
            else:
                value = self.int64(operands[0]) if wide else self.int32(operands[0])
            old = self.atomic(operation, ptx_type, pointer, number, value, scope)
            if floating:
                old = self.value(f"bitcast {'double' if wide else 'float'} {old} to i{64 if wide else 32}")
        if destination is not None:
            (self.write64 if wide else self.write32)(destination, old)

    def op_ATOMG(self, instruction: SassInstruction) -> None:
        self.atomic_operation(instruction, "global", True)

    def op_ATOM(self, instruction: SassInstruction) -> None:
        self.atomic_operation(instruction, "generic", True)

    def op_ATOMS(self, instruction: SassInstruction) -> None:
        self.atomic_operation(instruction, "shared", True)

    def op_RED(self, instruction: SassInstruction) -> None:
        self.atomic_operation(instruction, "global", False)

    op_REDG = op_RED

    # -- synchronisation, warps, control flow -------------------------------------------------------
    def op_BAR(self, instruction: SassInstruction) -> None:
        if not instruction.has("SYNC") or instruction.has("RED", "ARV") or len(instruction.operands) != 1 \
                or not (isinstance(instruction.operands[0], Immediate) and instruction.operands[0].integer() == 0):
            raise self.fail("named barriers, BAR.ARV and BAR.RED (__syncthreads_count/and/or)")
        self.barrier()

    def op_MEMBAR(self, instruction: SassInstruction) -> None:
        self.fence("cta" if instruction.has("CTA") else "sys" if instruction.has("SYS") else "gpu")

    def op_WARPSYNC(self, instruction: SassInstruction) -> None:
        """WARPSYNC mask: the lanes of the mask (a register or an immediate) meet."""
        self.warp_sync(self.int32(instruction.operands[0]) if instruction.operands else "-1")

    def reconvergence_hint(self, instruction: SassInstruction) -> None:
        """BSSY/BSYNC mark where diverged threads meet again; the IR's structured control flow already does."""

    op_BSSY = op_BSYNC = op_BREAK = op_NOP = op_YIELD = op_DEPBAR = op_ERRBAR = op_CCTL = op_FENCE = reconvergence_hint
    op_ENDCOLLECTIVE = reconvergence_hint  # the end of a WARPSYNC.COLLECTIVE region: its lanes go on together
    op_CGAERRBAR = reconvergence_hint  # ERRBAR for the CTA's cluster (sm_90): a cluster of one CTA here

    def op_BMOV(self, instruction: SassInstruction) -> None:
        """BMOV.32(.CLEAR) Rd, Bn / BMOV.32 Bn, Rs: a convergence barrier saved to a register and restored
        (a callee keeps its caller's across its own). The barriers are hints here (`reconvergence_hint`),
        so the register holds nothing of meaning: 0."""
        destination = instruction.operands[0]
        if isinstance(destination, Register) and destination.kind == "R":
            self.write32(destination, "0")

    def op_SHFL(self, instruction: SassInstruction) -> None:
        """SHFL.{IDX,UP,DOWN,BFLY} p, d, a, b, c: c packs the clamp (low 5 bits) and segment mask (bits 8-12)."""
        flag, destination, a, b, c = instruction.operands
        mode = next(m.lower() for m in instruction.modifiers if m in ("IDX", "UP", "DOWN", "BFLY"))
        # SASS's SHFL exchanges among the lanes that run it (a WARPSYNC before it names them)
        value, valid = self.shuffle(mode, self.int32(a), self.int32(b), self.int32(c), self.active_mask)
        self.write32(destination, value)
        if isinstance(flag, Register) and flag.index is not None:
            self.set_predicate(flag, valid())

    def op_REDUX(self, instruction: SassInstruction) -> None:
        """REDUX.{AND,OR,XOR,SUM,MIN,MAX}[.S32] d, a: the operation over the warp's active lanes."""
        destination, source = instruction.operands
        # AND is the form nvdisasm prints without a modifier
        operation = next((m for m in instruction.modifiers if m in ("AND", "OR", "XOR", "SUM", "MIN", "MAX")), "AND")
        operation = {"SUM": "add", "MIN": "min" if instruction.has("S32") else "umin",
                     "MAX": "max" if instruction.has("S32") else "umax"}.get(operation, operation.lower())
        self.write32(destination, self.warp_reduce(operation, self.int32(source)))

    def op_VOTE(self, instruction: SassInstruction) -> None:
        """VOTE.{ANY,ALL,EQ} [d,] p, q: d = the ballot of q, p = whether any / all / all-or-none hold it."""
        operands = list(instruction.operands)
        destination = operands.pop(0) if len(operands) == 3 else Register("R", None)
        flag, source = operands
        predicate = self.predicate_operand(source)
        mode = next(m for m in instruction.modifiers if m in ("ANY", "ALL", "EQ"))
        if isinstance(destination, Register) and destination.index is not None:
            self.write32(destination, self.ballot(predicate))
        if isinstance(flag, Register) and flag.index is not None:
            self.set_predicate(flag, self.vote({"ANY": "any", "ALL": "all", "EQ": "uni"}[mode], predicate))

    op_VOTEU = op_VOTE

    def op_BRA(self, instruction: SassInstruction) -> None:
        """BRA [P,] target: taken where the guard and the predicate operand (when there is one) hold.
        BRA.DIV mask, target / BRA.CONV mask, target: taken where the warp has diverged (a lane of `mask`
        is not active; ptxas' way to a warp-wide operation's per-lane fallback) / has not."""
        target = instruction.operands[-1]
        guard = instruction.guard
        condition = None if guard is None or (guard.index is None and not guard.inverted) else self.predicate(guard)
        if instruction.has("DIV", "CONV") and isinstance(target, BranchTarget) and len(instruction.operands) == 2 \
                and isinstance(instruction.operands[0], Register) and instruction.operands[0].kind in ("R", "UR"):
            mask = self.int32(instruction.operands[0])
            active = self.value(f"and i32 {self.active_mask()}, {mask}")
            relation = "ne" if instruction.has("DIV") else "eq"
            taken = self.value(f"icmp {relation} i32 {active}, {mask}")
            self.branch(self.label(target.label), taken if condition is None else
                        self.value(f"and i1 {condition}, {taken}"))
            return
        if not isinstance(target, BranchTarget) or len(instruction.operands) > 2 or (
                len(instruction.operands) == 2 and not (isinstance(instruction.operands[0], Register)
                                                        and instruction.operands[0].kind in ("P", "UP"))):
            raise self.fail("a branch whose target is not a label")
        if len(instruction.operands) == 2:
            operand = self.predicate_operand(instruction.operands[0])
            condition = operand if condition is None else self.value(f"and i1 {condition}, {operand}")
        self.branch(self.label(target.label), condition)

    def op_BRX(self, instruction: SassInstruction) -> None:
        """BRX Rn offset: to the address (of the function's code) next + offset + Rn, where next is the
        following instruction's; Rn comes from a jump table (bank 2). The targets are those nvdisasm notes
        (BRANCH_TARGETS): a switch on Rn over them."""
        register, offset = instruction.operands
        code = self.inlined[-1][3] if self.inlined else self.kernel.instructions
        if not isinstance(register, Register) or not isinstance(offset, Immediate) or not instruction.branch_targets:
            raise self.fail("an indirect branch without the targets nvdisasm notes")
        address = {label: i.address for i in code for label in i.labels}
        missing = [t for t in instruction.branch_targets if t not in address]
        if missing:
            raise self.fail(f"an indirect branch to {missing[0]}, which is not a label of the function")
        base = code[code.index(instruction) + 1].address + offset.integer()
        number = self.counter = self.counter + 1
        cases = " ".join(f"i32 {address[t] - base}, "
                         f"label %{self.label(t)}" for t in dict.fromkeys(instruction.branch_targets))
        self.emit(f"switch i32 {self.register32(register)}, label %nowhere{number} [ {cases} ]")
        self.lines.append(f"nowhere{number}:")
        self.emit("unreachable")
        self.terminated = True

    def op_P2R(self, instruction: SassInstruction) -> None:
        """P2R d, PR, a, mask: P0..P6 as bits 0..6, where mask has them; a's bits elsewhere."""
        destination, _, base, mask = instruction.operands
        if instruction.modifiers:
            raise self.fail("P2R of a byte other than the first")
        packed = "0"
        for index in range(7):
            bit = self.value(f"zext i1 {self.predicate(Register('P', index))} to i32")
            packed = self.value(f"or i32 {packed}, {self.value(f'shl i32 {bit}, {index}')}")
        mask_value = self.int32(mask)
        kept = self.value(f"and i32 {self.int32(base)}, {self.value(f'xor i32 {mask_value}, -1')}")
        self.write32(destination, self.value(f"or i32 {kept}, {self.value(f'and i32 {packed}, {mask_value}')}"))

    def op_R2P(self, instruction: SassInstruction) -> None:
        """R2P PR, a, mask: P0..P6 from bits 0..6 of a, where mask has them."""
        _, source, mask = instruction.operands
        if instruction.modifiers:
            raise self.fail("R2P of a byte other than the first")
        value, mask_bits = self.int32(source), self.immediate(mask)
        for index in range(7):
            if mask_bits >> index & 1:
                bit = self.value(f"and i32 {self.value(f'lshr i32 {value}, {index}')}, 1")
                self.set_predicate(Register("P", index), self.value(f"icmp ne i32 {bit}, 0"))

    def op_LEPC(self, instruction: SassInstruction) -> None:
        """LEPC Rd: the 64-bit address of this instruction (code's addresses are the listing's; what it is
        used for, a CALL.ABS's return address, the call made here does not need)."""
        self.write64(instruction.operands[0], str(instruction.address))

    def op_R2UR(self, instruction: SassInstruction) -> None:
        """R2UR [P,] URd, Rs: a vector register moved to a uniform one, lifted per lane (each lane holds the value
        it moved). The predicate form's P says whether the lane's value differs from the one moved (.OR: or'ed
        in): false per lane, so ptxas' loop over the distinct values of a divergent operand (a texture handle
        loaded per thread) runs once, each lane with its own."""
        operands = instruction.operands
        if isinstance(operands[0], Register) and operands[0].kind == "P":
            if not instruction.has("OR"):
                self.set_predicate(operands[0], "false")
            operands = operands[1:]
        self.write32(operands[0], self.int32(operands[1]))

    def op_CALL(self, instruction: SassInstruction) -> None:
        """CALL.REL(.NOINC) to a subroutine of the same listing (CUDA's slow paths), or CALL.ABS(.NOINC) to a
        function a relocatable cubin names (its own, or one another cubin of the program exports): a copy
        of it at each call, whose RET goes back to the instruction after this CALL. Registers are the
        machine's, shared by caller and callee as the ABI shares them. One shared copy would join every
        caller's live values in it (registers spilled by the hundred); a copy per call keeps them apart.
        A CALL to a label of the kernel's own code (ptxas' jump with a convergence point) is a branch."""
        target = instruction.operands[-1]
        code = self.inlined[-1][3] if self.inlined else self.kernel.instructions
        functions = self.inlined[-1][5] if self.inlined else self.kernel.functions
        if instruction.has("ABS") and isinstance(target, Register):
            self.device_runtime(self.runtime_callee(target))
            return
        if instruction.has("ABS") and isinstance(target, BranchTarget) and target.label in DEVICE_RUNTIME \
                and target.label not in functions:  # relocatable code names the device runtime's function
            self.device_runtime(target.label)
            return
        if instruction.has("ABS") and isinstance(target, BranchTarget) and target.label in functions:
            callee = functions[target.label]
            self.copy(instruction, code, target.label, callee.instructions, range(len(callee.instructions)),
                      callee.calls)
            return
        if not instruction.has("REL") or not isinstance(target, BranchTarget) or not any(
                target.label in i.labels for i in code):
            name = target.label if isinstance(target, BranchTarget) else str(target)
            raise self.fail(f"a call to {name}, which is not a subroutine of the kernel's own code"
                            + (" nor a function of the linked cubins: link the -rdc object that defines it"
                               if instruction.has("ABS") else ""))
        if not self.inlined and target.label in self.callees:
            self.call_function(target.label)
            return
        region = (subroutines(code) if self.inlined else self.subroutines).get(target.label)
        if region is None:
            self.branch(self.label(target.label))
            return
        self.copy(instruction, code, target.label, code, region, functions)

    def writer(self, register: Register, before: SassInstruction) -> SassInstruction | None:
        """The instruction that last set `register` before `before` on every path to it: the nearest earlier
        write in straight-line code (a label ends the search: another path joins there)."""
        code = self.inlined[-1][3] if self.inlined else self.kernel.instructions
        for instruction in reversed(code[:code.index(before)]):
            written = instruction.operands[0] if instruction.operands else None
            if isinstance(written, Register) and written.kind == register.kind and written.index is not None and \
                    register.index is not None and 0 <= register.index - written.index <= (
                        1 if instruction.has("64", "WIDE") else 0):
                return instruction if instruction.guard is None and written.index == register.index else None
            if instruction.labels or instruction.opcode in ("CALL", "BRA", "EXIT", "RET", "BRX", "JMP"):
                return None
        return None

    def traced_immediate(self, register: Register, before: SassInstruction) -> int:
        """The constant a register holds at `before`, set by a move of an immediate in straight-line code."""
        if register.index is None:
            return 0
        found = self.writer(register, before)
        if found is not None and (found.opcode in ("MOV", "MOV32I") or found.text.startswith("IMAD.MOV.U32")) \
                and isinstance(found.operands[-1], Immediate) and not found.operands[-1].is_float_text:
            return found.operands[-1].integer() & 0xFFFFFFFF
        raise self.fail(f"an index in {register.kind}{register.index} that is not a constant of the code before it")

    def bank4_symbol(self, register: Register) -> str | None:
        """The symbol whose address `register` holds, loaded from bank 4 in straight-line code before (through
        moves: sm_90 loads it into a uniform register first), or in relocatable code moved there as its
        relocated low word (`UMOV UR4, 32@lo($str)`)."""
        found = self.writer(register, self.current)  # type: ignore[arg-type]
        source = found.operands[-1] if found is not None else None
        for _ in range(4):
            if found is None or not isinstance(source, Register) or source.index is None or not (
                    found.opcode == "MOV" or found.text.startswith(("IMAD.MOV.U32", "IMAD.U32"))) or any(
                    isinstance(o, Register) and o.index is not None for o in found.operands[1:-1]):
                break
            found = self.writer(source, found)
            source = found.operands[-1] if found is not None else None
        if isinstance(source, Relocated) and not source.high and not source.addend and source.label is None:
            return source.symbol
        if found is None or not isinstance(source, Constant) or source.bank != 4 or found.opcode not in (
                "LDC", "ULDC", "MOV", "IMAD"):
            return None
        offset = source.offset + (self.traced_immediate(source.register, found) if source.register is not None else 0)
        entry = self.kernel.device_addresses.get(offset)
        return entry[0] if entry is not None and entry[1] == 0 else None

    def runtime_callee(self, target: Register) -> str:
        name = self.bank4_symbol(target)
        if name not in DEVICE_RUNTIME:
            raise self.fail("a call through a register that holds no device runtime function's address "
                            f"({', '.join(DEVICE_RUNTIME)})")
        return name  # type: ignore[return-value]

    def runtime_string(self, register: Register) -> bytes:
        """The constant string (to its NUL) whose bank-4 address `register` holds: printf's format."""
        name = self.bank4_symbol(register)
        if name is None or name not in self.kernel.device_variables:
            raise self.fail("printf with a format string that is not a constant string")
        return self.kernel.device_variables[name].split(b"\0")[0]

    def device_runtime(self, name: str) -> None:
        """A call to CUDA's device runtime: on NVPTX the same call (ptxas links it); on AMDGPU the core's
        printf (hostcalls), assert (a message to the standard error, then a trap) and heap."""
        argument = {index: Register("R", index) for index in (4, 6, 8, 10, 12)}
        if name == "malloc":
            self.write64(argument[4], self.device_malloc(self.int64(argument[4])))
        elif name == "free":
            self.device_free(self.int64(argument[4]))
        elif name == "__assertfail":
            message, file, function = (self.int64(argument[i]) for i in (4, 6, 10))
            line = self.register32(argument[8])
            if self.target.name == "amdgpu":
                self.assert_fail(self.assert_format(), message, file, line, function)
                return
            callee = self.declare("__assertfail", "declare void @__assertfail(ptr, ptr, i32, ptr, i64)")
            pointers = [self.integer_pointer(v, "i64", 0) for v in (message, file, function)]
            self.emit(f"call void {callee}(ptr {pointers[0]}, ptr {pointers[1]}, i32 {line}, ptr {pointers[2]}, "
                      f"i64 {self.int64(argument[12])})")
        else:
            format_address = self.int64(argument[4])
            buffer = self.generic_pointer(self.int64(argument[6]))
            if self.target.name != "amdgpu":
                callee = self.declare("vprintf", "declare i32 @vprintf(ptr, ptr)")
                self.write32(argument[4], self.value(
                    f"call i32 {callee}(ptr {self.integer_pointer(format_address, 'i64', 0)}, ptr {buffer})"))
                return
            format_string = self.runtime_string(argument[4])
            try:
                layout = argument_layout(format_string.decode("latin-1"))
            except Unsupported as error:
                raise self.fail(str(error)) from error
            loaded = []
            for item in layout:
                place = self.value(f"getelementptr i8, ptr {buffer}, i64 {item.offset}")
                value = self.value(f"load i{8 * item.size}, ptr {place}, align {item.size}")
                loaded.append((item.kind, self.resize(value, f"i{8 * item.size}", "i64", False)))
            self.printf(format_address, len(format_string) + 1, loaded)
            self.write32(argument[4], str(len(layout)))  # CUDA's printf returns the arguments it read

    def copy(self, call: SassInstruction, caller: list[SassInstruction], name: str, code: list[SassInstruction],
             region: range, functions: dict[str, SassFunction]) -> None:
        """The instructions `region` of `code` (a subroutine or function called by `call`), inlined; a
        CALL.ABS in them names one of `functions`."""
        if len(self.inlined) >= 4 or any(name == entry[4] for entry in self.inlined):
            raise self.fail(f"a call to {name} nested too deep (or recursive)")
        back = self.return_label(caller[caller.index(call) + 1].address)
        sites = {after.address for before, after in zip(code, code[1:]) if before.opcode == "CALL"}
        number = self.counter = self.counter + 1
        self.inlined.append(({label for j in region for label in code[j].labels}, f".c{number}", back, code, name,
                             functions))
        entry = quote(f"call.c{number}")
        self.branch(entry)
        self.place_label(entry)
        for j in region:
            for label in code[j].labels:
                self.place_label(self.label(label))
            if code[j].address in sites:
                self.place_label(self.return_label(code[j].address))
            if code[j].opcode == "NOP" or (code[j].opcode == "BRA" and self.is_self_loop(code[j])):
                continue
            self.current = code[j]
            self.instruction(code[j], set())
        if not self.terminated:
            self.emit("unreachable")  # a subroutine ends in its RET
            self.terminated = True
        self.inlined.pop()
        self.current = call

    def op_RET(self, instruction: SassInstruction) -> None:
        """RET.REL.NODEC Rn: back to the instruction at the address Rn holds (one after a CALL): in a
        subroutine's copy, after its CALL."""
        register = instruction.operands[0]
        if self.inlined:
            self.branch(self.inlined[-1][2])
            return
        if self.returning is not None:  # a subroutine kept as a function: every register it names, back
            types = ["i1" if kind in ("P", "UP") else "i32" for kind, _ in self.returning]
            aggregate = "poison"
            for position, ((kind, index), llvm_type) in enumerate(zip(self.returning, types)):
                pointer, _ = self.slot_of(kind, index)
                value = self.value(f"load {llvm_type}, {self.alloca_ptr()} {pointer}")
                aggregate = self.value(f"insertvalue {{ {', '.join(types)} }} {aggregate}, {llvm_type} {value}, {position}")
            self.emit(f"ret {{ {', '.join(types)} }} {aggregate}")
            self.terminated = True
            return
        if not isinstance(register, Register) or register.kind != "R" or not self.return_sites:
            raise self.fail("a return that is not to a call site")
        address = self.register32(register)
        number = self.counter = self.counter + 1
        cases = " ".join(f"i32 {site}, label %return.{site}" for site in self.return_sites)
        self.emit(f"switch i32 {address}, label %nowhere{number} [ {cases} ]")
        self.lines.append(f"nowhere{number}:")
        self.emit("unreachable")
        self.terminated = True

    def op_FCHK(self, instruction: SassInstruction) -> None:
        """FCHK p, a, b: whether a / b needs the division's slow path. Set wherever the fast reciprocal
        path might lose accuracy (b not a normal well inside the exponent range, a neither zero nor such a
        normal, or quotients near the range's ends); the slow path computes every quotient exactly."""
        flag, a, b = instruction.operands
        exponent_a, exponent_b = (self.value(f"and i32 {self.value(f'lshr i32 {self.raw32(o)}, 23')}, 255")
                                  for o in (a, b))
        magnitude_a = self.value(f"and i32 {self.raw32(a)}, 2147483647")

        def inside(exponent: str) -> str:
            return self.value(f"icmp ult i32 {self.value(f'sub i32 {exponent}, 3')}, 250")  # 3..252

        a_zero = self.value(f"icmp eq i32 {magnitude_a}, 0")
        difference = self.value(f"sub i32 {exponent_a}, {exponent_b}")
        near = self.value(f"icmp ult i32 {self.value(f'add i32 {difference}, 100')}, 201")  # -100..100
        a_fine = self.value(f"or i1 {a_zero}, {self.value(f'and i1 {inside(exponent_a)}, {near}')}")
        fast = self.value(f"and i1 {a_fine}, {inside(exponent_b)}")
        self.set_predicate(flag, self.value(f"xor i1 {fast}, true"))

    def op_EXIT(self, instruction: SassInstruction) -> None:
        self.emit("ret void")
        self.terminated = True

    def op_BPT(self, instruction: SassInstruction) -> None:
        self.trap()


@dataclass(frozen=True)
class Division:
    """A division ptxas open-coded: where its result is made, of what, and the branch past its slow path."""

    result: int  # the index of the instruction that makes the quotient
    remainder: int  # the index of the one that makes the remainder: a and b are read there
    precision: str  # "f32" or "f64"
    dividend: object  # operands
    divisor: object
    divisor_negated: bool  # the divisor operand as written is -b
    branch: int  # the index of the branch that skips the slow path


@dataclass(frozen=True)
class UnaryIdiom:
    """A square root or reciprocal ptxas open-coded: x is read at `read_at` (before the code overwrites
    it), the result made at `result`, and `branch` goes past the slow path's CALL."""

    result: int
    read_at: int
    operand: object  # x, or -x where `negated`
    branch: int
    operation: str  # "sqrt" or "rcp"
    precision: str  # "f32" or "f64"
    negated: bool = False


def unary_idioms(instructions: list[SassInstruction]) -> dict[int, UnaryIdiom]:
    """Every square root and reciprocal of a kernel (the finders below), by the index of its result."""
    found = {}
    for finder, operation, precision, negated in ((float_square_roots, "sqrt", "f32", False),
                                                  (double_square_roots, "sqrt", "f64", False),
                                                  (float_reciprocals, "rcp", "f32", False),
                                                  (double_reciprocals, "rcp", "f64", True)):
        for result, (read_at, operand, branch) in finder(instructions).items():
            found[result] = UnaryIdiom(result, read_at, operand, branch, operation, precision, negated)
    return found


def slow_path_calls(instructions: list[SassInstruction], marker: str) -> list[tuple[int, int]]:
    """(the CALL, the branch past it) of each call of a slow-path subroutine whose name has `marker`: the
    guarded BRA at most 9 instructions before it, in the same block, to a label just after it."""
    found = []
    for call, instruction in enumerate(instructions):
        target = instruction.operands[-1] if instruction.operands else None
        if instruction.opcode != "CALL" or not isinstance(target, BranchTarget) or marker not in target.label:
            continue
        after = {label for i in instructions[call + 1:call + 6] for label in i.labels}
        branch = next((j for j in range(call - 1, max(call - 10, -1), -1)
                       if instructions[j].opcode == "BRA" and instructions[j].guard is not None
                       and isinstance(instructions[j].operands[-1], BranchTarget)
                       and instructions[j].operands[-1].label in after), None)  # type: ignore[union-attr]
        if branch is not None and not any(i.labels for i in instructions[branch + 1:call + 1]):
            found.append((call, branch))
    return found


def subroutines(instructions: list[SassInstruction]) -> dict[str, range]:
    """The subroutines of a kernel's listing (after its code: `$__internal_...` functions, CUDA's slow
    paths), by their label: from it to the next such label, or the end."""
    starts = [j for j, i in enumerate(instructions) if any(label.startswith("$") for label in i.labels)]
    return {label: range(start, end) for start, end in zip(starts, [*starts[1:], len(instructions)])
            for label in instructions[start].labels if label.startswith("$")}


def float_divisions(instructions: list[SassInstruction]) -> dict[int, Division]:
    """ptxas' divisions rounded to nearest (f32 div.rn, f64 div.rn): a refined reciprocal r of b, the
    quotient q = a * r, the remainder e = a - b * q and the result x = q + r * e, then a branch past the CALL
    of the slow path (`..._div_rn_...`), which computes what that would round wrongly. Found by that dataflow
    (the order and registers vary) in the straight-line code before the branch; each: the result's index ->
    the division. Its whole meaning is one IEEE division, which both targets compile correctly rounded."""
    found = {}
    for call, branch in slow_path_calls(instructions, "_div_rn_"):
        label = instructions[call].operands[-1].label  # type: ignore[union-attr]
        precision = "f64" if "f64" in label else "f32"
        fma, products = ("DFMA", ("DMUL",)) if precision == "f64" else ("FFMA", ("FMUL",))
        width_ = 2 if precision == "f64" else 1
        start = branch
        while start > 0 and branch - start < 24 and not instructions[start].labels:
            start -= 1
        window = range(start, branch)

        def plain(j: int, *opcodes: str) -> bool:
            i = instructions[j]
            return i.opcode in opcodes and not i.modifiers and i.guard is None and \
                isinstance(i.operands[0], Register) and len(i.operands) >= 3

        def same(x: object, y: object) -> bool:  # the same register (or operand), modifiers aside
            if isinstance(x, Register) and isinstance(y, Register):
                return (x.kind, x.index) == (y.kind, y.index)
            return x == y

        def writes(i: SassInstruction, register: object) -> bool:  # conservatively: a destination near it
            destination = i.operands[0] if i.operands else None
            if not (isinstance(destination, Register) and isinstance(register, Register)) or \
                    destination.kind != register.kind or destination.index is None or register.index is None:
                return False
            size = 4 if i.has("128") else 2 if i.has("WIDE", "64") or i.opcode[0] == "D" else 1
            return -width_ < register.index - destination.index < size

        for quotient in reversed(window):
            is_product = plain(quotient, *products) or (
                plain(quotient, fma) and isinstance(instructions[quotient].operands[3], Register)
                and instructions[quotient].operands[3].is_zero)  # type: ignore[union-attr]
            if not is_product:
                continue
            q = instructions[quotient].operands[0]
            factors = instructions[quotient].operands[1:3]
            remainder = next((j for j in window if j > quotient and plain(j, fma)
                              and any(same(o, q) for o in instructions[j].operands[1:3])
                              and any(instructions[j].operands[3] == f for f in factors)), None)
            if remainder is None:
                continue
            e, x1, x2, a = instructions[remainder].operands[:4]
            q_operand, b = (x1, x2) if same(x1, q) else (x2, x1)
            result = next((j for j in window if j > remainder and plain(j, fma)
                           and same(instructions[j].operands[3], q)
                           and not getattr(instructions[j].operands[3], "negated", False)
                           and any(same(o, e) for o in instructions[j].operands[1:3])), None)
            if result is None:
                continue
            x = instructions[result].operands[0]
            if any(writes(i, x) for i in instructions[result + 1:branch]):
                continue
            negated = not getattr(q_operand, "negated", False)  # e = a - b * q: b or q carries the minus
            found[result] = Division(result, remainder, precision, a, b, negated, branch)
            break
    return found


def float_square_roots(instructions: list[SassInstruction]) -> dict[int, tuple[int, object, int]]:
    """ptxas' f32 square root rounded to nearest: `@!p BRA` to the fast path past the CALL of the slow path
    (`..._sqrt_rn_f32_...`); there, from r = MUFU.RSQ x: y = x * r, h = r / 2, e = x - y * y, the result
    y + e * h. Each: the result's index -> (the index of y, where x is read; x; the branch to the fast
    path). Its whole meaning is one IEEE square root."""
    found = {}
    for call, branch in slow_path_calls(instructions, "_sqrt_rn_f32"):
        fast = instructions[branch].operands[-1].label  # type: ignore[union-attr]
        start = next((j for j in range(call + 1, min(call + 6, len(instructions))) if fast in instructions[j].labels),
                     None)
        if start is None:
            continue
        end = start + 1
        while end < len(instructions) and end - start < 8 and not instructions[end].labels:
            end += 1
        block = range(start, end)

        def plain(j: int, opcode: str) -> bool:
            i = instructions[j]
            return i.opcode == opcode and i.modifiers in ((), ("FTZ",)) and i.guard is None and \
                isinstance(i.operands[0], Register) and len(i.operands) >= 3

        def same(x: object, y: object) -> bool:  # the same register, a sign aside
            return isinstance(x, Register) and isinstance(y, Register) and (x.kind, x.index) == (y.kind, y.index) \
                and not x.absolute and not y.absolute

        for product in block:
            if not plain(product, "FMUL"):
                continue
            y = instructions[product].operands[0]
            error = next((j for j in block if j > product and plain(j, "FFMA")
                          and all(same(o, y) for o in instructions[j].operands[1:3])
                          and [getattr(o, "negated", False) for o in instructions[j].operands[1:3]].count(True) == 1
                          and any(same(instructions[j].operands[3], f) and not getattr(f, "negated", False)
                                  for f in instructions[product].operands[1:3])), None)
            if error is None:
                continue
            x = instructions[error].operands[3]
            e = instructions[error].operands[0]
            result = next((j for j in block if j > error and plain(j, "FFMA") and same(instructions[j].operands[3], y)
                           and any(same(o, e) for o in instructions[j].operands[1:3])), None)
            if result is not None:
                found[result] = (product, x, branch)
            break
    return found


def float_reciprocals(instructions: list[SassInstruction]) -> dict[int, tuple[int, object, int]]:
    """ptxas' f32 reciprocal rounded to nearest (1.0f / x): a branch to the fast path past the CALL of the
    slow path (`..._rcp_rn_f32_...`); there, r = MUFU.RCP x refined to the result r + r * e (an FFMA whose
    addend and a factor are r). Each: the result's index -> (the index of the MUFU.RCP, where x is read; x;
    the branch to the fast path). Its whole meaning is one IEEE division of 1 by x."""
    found = {}
    for call, branch in slow_path_calls(instructions, "_rcp_rn_f32"):
        fast = instructions[branch].operands[-1].label  # type: ignore[union-attr]
        start = next((j for j in range(call + 1, min(call + 6, len(instructions))) if fast in instructions[j].labels),
                     None)
        if start is None or instructions[start].opcode != "MUFU" or instructions[start].modifiers != ("RCP",) \
                or instructions[start].guard is not None:
            continue
        r, x = instructions[start].operands[:2]
        end = start + 1
        while end < len(instructions) and end - start < 8 and not instructions[end].labels:
            end += 1
        last = end - 1
        final = instructions[last]
        if final.opcode == "FFMA" and not final.modifiers and final.guard is None and final.operands[3] == r \
                and r in final.operands[1:3] and isinstance(r, Register) and not any(
                    i.operands and i.operands[0] == r for i in instructions[start + 1:last]):
            found[last] = (start, x, branch)
    return found


def double_reciprocals(instructions: list[SassInstruction]) -> dict[int, tuple[int, object, int]]:
    """ptxas' f64 reciprocal rounded to nearest (1.0 / x): r from MUFU.RCP64H refined by DFMAs to r2, the
    error e = 1 - x * r2 and the result r2 + r2 * e, then a branch past the CALL of the slow path
    (`..._dblrcp_rn_...`). Each: the result's index -> (the index of e, where x is read; the operand
    -x as written; the branch). Its whole meaning is one IEEE division of 1 by x."""
    found = {}
    for _, branch in slow_path_calls(instructions, "_dblrcp_rn"):
        window = range(max(0, branch - 12), branch)

        def plain(j: int) -> bool:
            i = instructions[j]
            return i.opcode == "DFMA" and not i.modifiers and i.guard is None and len(i.operands) == 4 \
                and not any(x.labels for x in instructions[j:branch])

        def same(x: object, y: object) -> bool:
            return isinstance(x, Register) and isinstance(y, Register) and (x.kind, x.index) == (y.kind, y.index) \
                and not x.negated and not y.negated and not x.absolute and not y.absolute

        for error in reversed(window):
            if not plain(error) or instructions[error].operands[3] != Immediate("1"):
                continue
            e, m1, m2, _ = instructions[error].operands
            negative, r2 = (m1, m2) if getattr(m1, "negated", False) else (m2, m1)
            if not getattr(negative, "negated", False) or getattr(r2, "negated", False):
                continue
            result = next((j for j in window if j > error and plain(j) and same(instructions[j].operands[3], r2)
                           and any(same(o, e) for o in instructions[j].operands[1:3])
                           and any(same(o, r2) for o in instructions[j].operands[1:3])), None)
            if result is None:
                continue
            destination = instructions[result].operands[0]
            if not any(i.operands and same(i.operands[0], destination) for i in instructions[result + 1:branch]):
                found[result] = (error, negative, branch)
            break
    return found


def double_square_roots(instructions: list[SassInstruction]) -> dict[int, tuple[int, object, int]]:
    """ptxas' f64 square root rounded to nearest: from r = MUFU.RSQ64H x refined by DFMAs, y = x * r, the
    error e = x - y * y and the result y + e * h, then a branch past the CALL of the slow path
    (`..._dsqrt_rn_f64_...`) for what that would round wrongly. Each: the result's index -> (the index
    of e, where x is read; x; the branch). Its whole meaning is one IEEE square root."""
    found = {}
    for _, branch in slow_path_calls(instructions, "_dsqrt_rn_f64"):
        start = branch
        while start > 0 and branch - start < 24 and not instructions[start].labels:
            start -= 1
        window = range(start, branch)

        def plain(j: int) -> bool:
            i = instructions[j]
            return i.opcode == "DFMA" and not i.modifiers and i.guard is None and len(i.operands) == 4

        def same(x: object, y: object) -> bool:  # the same register, a sign aside
            return isinstance(x, Register) and isinstance(y, Register) and (x.kind, x.index) == (y.kind, y.index) \
                and not x.absolute and not y.absolute

        for error in window:
            if not plain(error):
                continue
            e, m1, m2, x = instructions[error].operands
            if not same(m1, m2) or [getattr(m1, "negated", False), getattr(m2, "negated", False)].count(True) != 1:
                continue
            result = next((j for j in window if j > error and plain(j) and same(instructions[j].operands[3], m1)
                           and not getattr(instructions[j].operands[3], "negated", False)
                           and any(same(o, e) for o in instructions[j].operands[1:3])), None)
            if result is None:
                continue
            destination = instructions[result].operands[0]
            if any(i.operands and same(i.operands[0], destination) for i in instructions[result + 1:branch]):
                continue
            found[result] = (error, x, branch)
            break
    return found


def constant_variables(kernel: SassKernel) -> dict[str, str]:
    """The cubin's `__constant__` variables (bank 3) as module globals, with their initial bytes."""
    definitions = {}
    for name, (bank, start, length) in kernel.constant_symbols.items():
        if bank != 3:
            continue
        data = kernel.constant_banks[bank][start:start + length]
        init = 'c"' + "".join(f"\\{b:02X}" for b in data) + '"' if any(data) else "zeroinitializer"
        definitions[name] = (f"@{quote(name)} = protected addrspace(4) externally_initialized global "
                             f"[{length} x i8] {init}, align 4")
    return definitions


def device_variable_definitions(kernel: SassKernel, target: Target) -> dict[str, str]:
    """The cubin's `__device__` and `__managed__` variables as module globals (the emission core's)."""
    definitions = {}
    for name, data in kernel.device_variables.items():
        init = 'c"' + "".join(f"\\{b:02X}" for b in data) + '"' if any(data) else "zeroinitializer"
        definitions[name] = variable_definition(name, len(data), init, 8, target, name in kernel.managed_variables)
    return definitions


def lift_sass_kernels(kernels: list[SassKernel], target: Target,
                      data_layout: str) -> tuple[str, list[str], dict[str, str]]:
    """One module's IR for the kernels of one cubin: (IR, the kernels translated, kernel -> why not)."""
    header = [f'target datalayout = "{data_layout}"', f'target triple = "{target.triple}"', ""]
    bodies: list[str] = []
    globals_: dict[str, str] = {}
    declarations: dict[str, str] = {}
    translated: list[str] = []
    failures: dict[str, str] = {}
    for ordinal, kernel in enumerate(kernels):
        lifter = SassLifter(kernel, target, ordinal)
        try:
            body = lifter.lift()
        except Unsupported as error:
            failures[kernel.name] = str(error)
            continue
        bodies.append(body)
        globals_.update(lifter.module_globals)
        declarations.update(lifter.declarations)
        translated.append(kernel.name)
    managed = sorted({name for kernel in kernels for name in kernel.managed_variables
                      if f"@{quote(name)} " in "\n".join(globals_.values())})
    ir = "\n".join([*header, *globals_.values(), "", *bodies, *(declarations[n] for n in sorted(declarations)),
                    *attributes(target), *variable_annotations([(name, "managed") for name in managed], target), ""])
    return ir, translated, failures

