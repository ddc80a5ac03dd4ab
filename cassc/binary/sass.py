"""SASS, as NVIDIA's nvdisasm prints a cubin, parsed into a typed instruction stream.

One kernel is a list of `SassInstruction`s: the address, the guard predicate, the opcode with its
modifiers (`IMAD.WIDE.U32` -> "IMAD", ("WIDE", "U32")), and typed operands: registers (R, UR, P, UP with
RZ/URZ/PT/UPT, negation, absolute value, `.64` pairs and half selectors), special registers (`SR_TID.X`),
immediates, constant bank references (`c[0x0][0x160]`, `c[0x0][R2+0x4]`), addresses (`[R2.64+0x10]`,
`desc[UR4][R2.64]`, `[R7.X4]`, `[UR4+0x8]`) and branch targets. What an instruction means is
`sass_lift.py`'s business; this module only reads the text (sm_75 to sm_90), and anything it cannot read
raises `SassSyntaxError` naming the line.

Per-kernel metadata comes from the cubin (`formats/cubin.py`: parameter layout, its window in constant
bank 0, static shared memory) plus the local frame size of its `.nv.info` records.
"""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path

from cassc.errors import CasscError
from cassc.formats.cubin import STO_CUDA_MANAGED, STT_CUDA_OBJECT, CubinKernel, read_attributes, read_cubin
from cassc.formats.elf import SHT_NOBITS, SHT_SYMTAB, STB_GLOBAL, STB_WEAK, STT_FUNC, STT_OBJECT, ElfFile


class SassSyntaxError(CasscError):
    """SASS text this parser cannot read; the message names the line."""


@dataclass(frozen=True)
class Register:
    """R7, RZ, UR4, URZ, P0, PT, UP1, UPT; with the operand's prefix and suffix modifiers."""

    kind: str  # "R", "UR", "P", "UP"; "B" (convergence barriers of BSSY/BSYNC), "SR" (SRZ)
    index: int | None  # None for RZ / URZ / PT / UPT
    negated: bool = False  # -R: arithmetic negation
    absolute: bool = False  # |R|
    inverted: bool = False  # ~R (bitwise), !P (logical)
    suffixes: tuple[str, ...] = ()  # "64", "H0", "H1", "H1_H1", "X4", "reuse" left out

    @property
    def is_zero(self) -> bool:
        return self.index is None


@dataclass(frozen=True)
class Special:
    name: str  # "SR_TID.X", "SR_LANEID"


@dataclass(frozen=True)
class Immediate:
    text: str  # as printed: "0x4", "-0x1", "1.5", "+INF", "-QNAN"

    @property
    def is_float_text(self) -> bool:
        return bool(re.search(r"[.]|INF|NAN|e[+-]", self.text)) and not self.text.lstrip("+-").startswith("0x")

    @property
    def is_hex(self) -> bool:
        return self.text.lstrip("+-").startswith("0x")

    def integer(self) -> int:
        return int(self.text, 0)


@dataclass(frozen=True)
class Constant:
    """c[bank][offset] or c[bank][register+offset]; `negated`/`absolute` as for registers."""

    bank: int
    offset: int
    register: Register | None = None
    negated: bool = False
    absolute: bool = False
    suffixes: tuple[str, ...] = ()
    symbol: str | None = None  # c[`((name + 0x4))]: 4 bytes into a variable, a relocatable cubin's (resolved by linking)


@dataclass(frozen=True)
class Relocated:
    """32@lo(name) / 32@hi(name): a half of an address the linker fills in (relocatable cubins): a
    `__device__` variable's (plus `addend`), or, with `label`, a return address in function `name`."""

    symbol: str
    high: bool
    addend: int = 0
    label: str | None = None


@dataclass(frozen=True)
class Address:
    """[base(.64)(.X4)+uniform+offset], optionally after desc[URn] (the memory descriptor, which the
    translation does not need)."""

    base: Register | None  # a vector register, or None for [UR4] / [0x10]
    uniform: Register | None = None
    offset: int = 0
    wide: bool = False  # base is a 64-bit pair (.64)
    scale: int = 1  # .X4 / .X8 / .X16: base times this


@dataclass(frozen=True)
class Target:
    label: str


@dataclass(frozen=True)
class Unparsed:
    """An operand of a form this parser does not read (texture shapes, barrier names...): kept as text, so
    that only an instruction that needs it fails, by its opcode."""

    text: str


Operand = Register | Special | Immediate | Constant | Relocated | Address | Target | Unparsed


@dataclass(frozen=True)
class SassInstruction:
    address: int
    opcode: str
    modifiers: tuple[str, ...]
    operands: tuple[Operand, ...]
    guard: Register | None  # None: always executed
    text: str  # the line as printed, for messages
    labels: tuple[str, ...] = ()  # the labels that name this instruction's address
    branch_targets: tuple[str, ...] = ()  # an indirect branch's (BRX) possible targets, as nvdisasm notes them

    def has(self, *modifiers: str) -> bool:
        return any(m in self.modifiers for m in modifiers)


@dataclass(eq=False)
class SassFunction:
    """A function a relocatable cubin's CALL.ABS may name, with its local frame and the functions its own
    CALL.ABS may name (its cubin's, then those the program's other cubins export)."""

    name: str
    instructions: list[SassInstruction]
    frame_size: int
    calls: dict[str, SassFunction]


@dataclass
class SassKernel:
    name: str
    arch: int  # sm_XX
    instructions: list[SassInstruction]
    metadata: CubinKernel
    frame_size: int = 0  # bytes of local memory the kernel's frame takes (EIATTR_FRAME_SIZE)
    constant_banks: dict[int, bytes] = field(default_factory=dict)  # bank -> its initial contents (3: __constant__)
    constant_symbols: dict[str, tuple[int, int, int]] = field(default_factory=dict)  # name -> (bank, offset, size)
    # __device__ variables: name -> initial bytes; and where bank 4 holds their addresses: offset -> (name, addend)
    device_variables: dict[str, bytes] = field(default_factory=dict)
    device_addresses: dict[int, tuple[str, int]] = field(default_factory=dict)
    own_banks: dict[int, bytes] = field(default_factory=dict)  # the kernel's own banks (2: ptxas' literals)
    functions: dict[str, SassFunction] = field(default_factory=dict)  # those the kernel's CALL.ABS may name
    relocatable: bool = False  # from an -rdc cubin: bank 3 addresses come through registers (`(name)`)
    managed_variables: frozenset[str] = frozenset()  # the `__managed__` ones among `device_variables`


_LINE = re.compile(r"^\s*/\*(?P<address>[0-9a-fA-F]+)\*/\s+(?P<body>.*?)\s*;?\s*(?:/\*.*\*/)?\s*$")
_GUARD = re.compile(r"^@(?P<not>!?)(?P<predicate>U?P[0-6T])\s+")
_REGISTER = re.compile(r"^(?P<name>URZ|RZ|UPT|PT|SRZ|UPR|PR|UR\d+|R\d+|UP[0-6]|P[0-6]|B\d+)(?P<suffixes>(?:\.[A-Za-z0-9_]+)*)$")
_LABEL_LINE = re.compile(r"^\s*(?P<label>[.$\w][\w$.]*):\s*$")  # .L_x_3:, $__internal_0_$__cuda_...:
_NUMBER = re.compile(r"^[+-]?(?:0x[0-9a-fA-F]+|\d+(?:\.\d*)?(?:e[+-]?\d+)?|INF|QNAN|NAN)$")
_CONSTANT_REGISTERS = {"RZ": "R", "URZ": "UR", "PT": "P", "UPT": "UP", "SRZ": "SR", "PR": "PR", "UPR": "UPR"}  # zero, or true for predicates
FRAME_SIZE_ATTRIBUTE = 0x11  # EIATTR_FRAME_SIZE: SVAL {symbol u32, size u32} in the shared .nv.info
ET_REL = 1


def parse_register(text: str) -> Register:
    negated = absolute = inverted = False
    text = text.strip()
    if text[:1] == "-":
        negated, text = True, text[1:]
    elif text[:1] in "~!":
        inverted, text = True, text[1:]
    bars = re.fullmatch(r"\|([^|]+)\|((?:\.\w+)*)", text)
    if bars:  # |R3| or |R3|.reuse
        absolute, text = True, bars[1] + bars[2]
    match = _REGISTER.match(text)
    if not match:
        raise SassSyntaxError(f"not a register: '{text}'")
    name = match["name"]
    kind = _CONSTANT_REGISTERS.get(name) or name.rstrip("0123456789")
    index = None if name in _CONSTANT_REGISTERS else int(name[len(kind):])
    suffixes = tuple(s for s in match["suffixes"].split(".")[1:] if s != "reuse")
    return Register(kind, index, negated, absolute, inverted, suffixes)


def _split_operands(text: str) -> list[str]:
    parts, depth, current = [], 0, ""
    for char in text:
        if char in "[(":
            depth += 1
        elif char in "])":
            depth -= 1
        if char == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    if current.strip():
        parts.append(current.strip())
    return parts


def _address(text: str) -> Address:
    """The inside of [...]: terms joined by +, a negative offset as -0x.."""
    base = uniform = None
    offset = 0
    wide = False
    scale = 1
    for sign, term in re.findall(r"([+-]?)\s*([^+-]+)", text.replace(" ", "")):
        if _NUMBER.match(term):
            offset += int(term, 0) * (-1 if sign == "-" else 1)
            continue
        register = parse_register(term)
        if register.kind == "UR":
            uniform = register
            continue
        base = register
        for suffix in register.suffixes:
            if suffix in ("64", "U32"):
                wide = wide or suffix == "64"
            elif re.fullmatch(r"X\d+", suffix):
                scale = int(suffix[1:])
            elif suffix not in ("SX32",):
                raise SassSyntaxError(f"address register suffix .{suffix}")
    return Address(base, uniform, offset, wide, scale)


def _symbol_expression(text: str) -> tuple[str, int, str | None]:
    """`name`, `(name + 0x10)`, `(name + .L_x_0@srel)` -> (name, addend, label)."""
    while text.startswith("(") and text.endswith(")"):
        text = text[1:-1].strip()
    symbol, *rest = re.split(r"\s+([+-])\s+", text)
    addend, label = 0, None
    for sign, term in zip(rest[::2], rest[1::2]):
        if term.endswith("@srel") and sign == "+":
            label = term.removesuffix("@srel")
        elif _NUMBER.match(term):
            addend += int(term, 0) * (-1 if sign == "-" else 1)
        else:
            raise SassSyntaxError(f"a relocation expression '{text}'")
    if not re.fullmatch(r"[.$\w][\w$.]*", symbol):
        raise SassSyntaxError(f"a relocation expression '{text}'")
    return symbol, addend, label


def parse_operand(text: str) -> Operand:
    text = text.strip()
    relocated = re.fullmatch(r"32@(lo|hi)\((.+)\)", text)
    if relocated:
        symbol, addend, label = _symbol_expression(relocated[2])
        return Relocated(symbol, relocated[1] == "hi", addend, label)
    symbolic = re.fullmatch(r"(?P<neg>[-~]?)(?P<bar>\|?)c\[`\((?P<inside>.+)\)\]\|?(?P<suffixes>(?:\.[A-Za-z0-9_]+)*)", text)
    if symbolic:
        symbol, addend, label = _symbol_expression(symbolic["inside"])
        if label is not None:
            raise SassSyntaxError(f"a constant at a code address: '{text}'")
        return Constant(3, addend, None, bool(symbolic["neg"]), bool(symbolic["bar"]),
                        tuple(symbolic["suffixes"].split(".")[1:]), symbol)
    if text.startswith("`(") and text.endswith(")"):
        return Target(text[2:-1].strip())
    if text.startswith("SR_"):
        return Special(text)
    memory = re.fullmatch(r"(?:desc\[(?P<desc>[^\]]*)\])?\[(?P<inside>[^\]]*)\]", text)
    if memory:
        return _address(memory["inside"])
    constant = re.fullmatch(r"(?P<neg>[-~]?)(?P<bar>\|?)cx?\[(?P<bank>[^\]]+)\]\s*\[(?P<inside>[^\]]+)\]\|?"
                            r"(?P<suffixes>(?:\.[A-Za-z0-9_]+)*)", text)
    if constant:
        inside = _address(constant["inside"])
        if constant["bank"].startswith("UR"):
            raise SassSyntaxError(f"constant bank chosen by a register: '{text}'")
        index = inside.base or inside.uniform
        return Constant(int(constant["bank"], 0), inside.offset, index if index and not index.is_zero else None,
                        bool(constant["neg"]), bool(constant["bar"]),
                        tuple(constant["suffixes"].split(".")[1:]))
    if _NUMBER.match(text):
        return Immediate(text)
    return parse_register(text)


def _operand_or_text(text: str) -> Operand:
    try:
        return parse_operand(text)
    except (SassSyntaxError, ValueError):
        return Unparsed(text)


def parse_instruction(line: str, labels: tuple[str, ...] = ()) -> SassInstruction:
    match = _LINE.match(line)
    if not match:
        raise SassSyntaxError(f"not a SASS instruction line: '{line.strip()}'")
    notes = re.findall(r"\(\*\"(.*?)\"\*\)", match["body"])
    body = re.sub(r"\(\*.*?\*\)", "", match["body"]).rstrip(" ;")  # (*"SpillRefill"*): nvdisasm's notes
    targets = next((tuple(t.strip() for t in note.split(None, 1)[1].split(",")) for note in notes
                    if note.startswith("BRANCH_TARGETS ")), ())
    guard = None
    guard_match = _GUARD.match(body)
    if guard_match:
        guard = parse_register(("!" if guard_match["not"] else "") + guard_match["predicate"])
        body = body[guard_match.end():]
    head, _, rest = body.partition(" ")
    if not re.fullmatch(r"[A-Z][A-Z0-9_]*(?:\.[A-Za-z0-9_]+)*", head):
        raise SassSyntaxError(f"not an opcode: '{head}' in '{line.strip()}'")
    opcode, *modifiers = head.split(".")
    rest = re.sub(r"([^,\s])\s+`\(", r"\1, `(", rest)  # RET.REL.NODEC R2 `(kernel): a register, then a target
    rest = re.sub(r"^(R\d+)\s+(-?0x[0-9a-fA-F]+)$", r"\1, \2", rest)  # RET.ABS.NODEC R20 0x0, BRX R6 -0x1a0
    operands = tuple(_operand_or_text(o) for o in _split_operands(rest)) if rest.strip() else ()
    return SassInstruction(int(match["address"], 16), opcode, tuple(modifiers), operands, guard,
                           match["body"].strip(), labels, targets)


def parse_listing(text: str) -> dict[str, list[SassInstruction]]:
    """nvdisasm's listing of a cubin -> each function's instructions, by (mangled) name."""
    functions: dict[str, list[SassInstruction]] = {}
    current: list[SassInstruction] | None = None
    pending: list[str] = []
    for line in text.splitlines():
        section = re.match(r"^\s*\.section\s+\.text\.([^,\s]+)", line)
        if section:
            current = functions.setdefault(section[1], [])
            pending = []
            continue
        label = _LABEL_LINE.match(line)
        if label:
            pending.append(label["label"])
            continue
        if current is not None and re.match(r"^\s*/\*[0-9a-fA-F]+\*/", line):
            current.append(parse_instruction(line, tuple(pending)))
            pending = []
    return functions


@dataclass(frozen=True)
class CubinParts:
    """What the SASS front end reads of one cubin besides its listing: each function's local frame
    (EIATTR_FRAME_SIZE), the banks shared by its kernels (3: `__constant__`, 4: addresses of `__device__`
    variables) with their symbols, `__device__` variables, each kernel's own banks (2: ptxas' literals),
    and, for a relocatable (`-rdc`) cubin, which functions other cubins may call."""

    frames: dict[str, int]
    banks: dict[int, bytes]
    constant_symbols: dict[str, tuple[int, int, int]]  # name -> (bank, offset, size)
    variables: dict[str, bytes]
    addresses: dict[int, tuple[str, int]]  # bank 4 offset -> (variable, addend)
    own_banks: dict[str, dict[int, bytes]]
    own_symbols: dict[str, tuple[str, int, int]]  # name -> (function, bank, offset): its literal pool's (-rdc)
    exported: frozenset[str]  # functions of global binding: the ones another cubin's CALL.ABS may name
    relocatable: bool
    managed: frozenset[str] = frozenset()  # the `__managed__` ones among `variables`


R_CUDA_64 = 2  # a 64-bit absolute address
VARIABLE_TYPES = (STT_OBJECT, STT_CUDA_OBJECT)


def read_parts(cubin: bytes) -> CubinParts:
    elf = ElfFile(cubin)
    table = elf.section(".symtab")
    symbols = elf.symbols(table) if table is not None and table.type == SHT_SYMTAB else []
    names = [s.name for s in symbols]
    info = elf.section(".nv.info")
    frames = {}
    for attribute, value in read_attributes(elf.section_data(info)) if info is not None else []:
        if attribute == FRAME_SIZE_ATTRIBUTE and len(value) >= 8:
            symbol, size = int.from_bytes(value[:4], "little"), int.from_bytes(value[4:8], "little")
            if symbol < len(names):
                frames[names[symbol]] = size
    banks: dict[int, bytes] = {}
    bank_of: dict[int, int] = {}  # section index -> bank
    own: dict[str, dict[int, bytes]] = {}
    own_of: dict[int, tuple[str, int]] = {}  # section index -> (function, bank)
    for section in elf.sections:
        found = re.fullmatch(r"\.nv\.constant(\d+)(?:\.(.+))?", section.name)
        if not found or found[1] == "0":
            continue
        data = elf.section_data(section) if section.type != SHT_NOBITS else bytes(section.size)
        if found[2]:
            own.setdefault(found[2], {})[int(found[1])] = data
            own_of[section.index] = (found[2], int(found[1]))
        else:
            banks[int(found[1])] = data
            bank_of[section.index] = int(found[1])
    constant_symbols = {s.name: (bank_of[s.shndx], s.value, s.size) for s in symbols
                        if s.shndx in bank_of and s.type in VARIABLE_TYPES}
    own_symbols = {s.name: (*own_of[s.shndx], s.value) for s in symbols if s.shndx in own_of and s.type in VARIABLE_TYPES}
    globals_ = {s.index: s for s in elf.sections if s.name in (".nv.global", ".nv.global.init")}
    variables = {}
    managed = set()
    for symbol in symbols:
        section = globals_.get(symbol.shndx)
        if section is not None and symbol.type in VARIABLE_TYPES:
            if symbol.other & STO_CUDA_MANAGED:
                managed.add(symbol.name)
            start = symbol.value
            variables[symbol.name] = bytes(symbol.size) if section.type == SHT_NOBITS else \
                elf.section_data(section)[start:start + symbol.size]
    addresses = {}
    bank4 = elf.section(".nv.constant4")
    # REL (the addend in the bank's bytes) up to sm_89, RELA (in the record) from sm_90
    relocations = elf.section(".rel.nv.constant4") or elf.section(".rela.nv.constant4")
    if bank4 is not None and relocations is not None:
        data = elf.section_data(bank4)
        for relocation in elf.relocations(relocations):
            if relocation.type == R_CUDA_64:
                offset = relocation.offset
                addend = relocation.addend if relocation.addend is not None else \
                    int.from_bytes(data[offset:offset + 8], "little")
                addresses[offset] = (names[relocation.symbol], addend)
    exported = frozenset(s.name for s in symbols if s.type == STT_FUNC and s.defined and s.bind in (STB_GLOBAL, STB_WEAK))
    return CubinParts(frames, banks, constant_symbols, variables, addresses, own, own_symbols, exported,
                      elf.type == ET_REL, frozenset(managed))


def disassemble(cubin: bytes) -> str:
    """nvdisasm's listing of a cubin (PyPI nvidia-cuda-nvdisasm, or a CUDA install)."""
    from cassc.binary.extract import find_cuda_tool
    from cassc.toolchain import run

    with tempfile.TemporaryDirectory(prefix="cassc-sass-") as directory:
        path = Path(directory) / "device.cubin"
        path.write_bytes(cubin)
        return run([str(find_cuda_tool("nvdisasm")), "-c", str(path)]).stdout


def read_kernels(cubin: bytes, arch: int, listing: str | None = None) -> list[SassKernel]:
    """Every kernel of a cubin with its SASS and metadata."""
    return read_program([cubin], arch, [listing] if listing is not None else None)


LINKED_BANKS = (3, 4)  # banks every kernel of a program shares: `__constant__` data, `__device__` addresses
# The literal pools of a relocatable program's functions (each function's `.nv.constant2.<name>`, which nvlink
# merges into the bank 2 of each kernel that calls it), laid end to end as one bank of every kernel's own.
# Not a bank SASS names (0-17): the linked operands name it.
LITERAL_POOLS = 0x100
BRANCHES = {"BRA", "BRX", "JMP", "JMX", "CALL", "RET", "BSSY", "BSYNC", "BREAK", "WARPSYNC", "SSY", "PBK", "PCNT"}


def read_program(cubins: list[bytes], arch: int, listings: list[str] | None = None) -> list[SassKernel]:
    """Every kernel of one or more cubins (the relocatable cubins of an `-rdc` program), linked as nvlink
    links them: a kernel's `CALL.ABS` names a function of its own cubin, else one another cubin exports;
    banks 3 and 4 are each cubin's laid end to end (its symbols moved by where its part starts), and the
    symbolic operands of relocatable code (`c[`((name + 0x4))]`, `` `(name) ``, a return address) are
    resolved to those places. A whole-program cubin's instructions are left as nvdisasm printed them."""
    parsed = [(parse_listing(listing if listing is not None else disassemble(cubin)), read_parts(cubin),
               read_cubin(cubin)) for cubin, listing in zip(cubins, listings or [None] * len(cubins))]
    bases: list[dict[int, int]] = []
    banks: dict[int, bytes] = {}
    for _, parts, _ in parsed:
        bases.append({})
        for bank, data in parts.banks.items():
            start = -(-len(banks.get(bank, b"")) // 16) * 16 if bank in LINKED_BANKS else 0
            bases[-1][bank] = start
            banks[bank] = banks.get(bank, b"").ljust(start, b"\0") + data if bank in LINKED_BANKS else data
    symbols: dict[str, tuple[int, int, int]] = {}
    pools = b""
    for _, parts, _ in parsed:
        if not parts.relocatable:
            continue
        starts = {}
        for function, function_banks in parts.own_banks.items():
            if 2 in function_banks:
                starts[function] = len(pools) + -len(pools) % 16
                pools = pools.ljust(starts[function], b"\0") + function_banks[2]
        for name, (function, bank, offset) in parts.own_symbols.items():
            if bank == 2 and function in starts:
                symbols.setdefault(name, (LITERAL_POOLS, starts[function] + offset, 0))
    variables: dict[str, bytes] = {}
    addresses: dict[int, tuple[str, int]] = {}
    managed = frozenset(name for _, parts, _ in parsed for name in parts.managed)
    for (_, parts, _), base in zip(parsed, bases):
        for name, (bank, offset, size) in parts.constant_symbols.items():
            symbols.setdefault(name, (bank, base.get(bank, 0) + offset, size))
        for name, data in parts.variables.items():
            variables.setdefault(name, data)
        addresses.update({base.get(4, 0) + offset: entry for offset, entry in parts.addresses.items()})
    linked = [{name: [_link(i, symbols, code) for i in code] for name, code in functions.items()}
              if parts.relocatable else functions for functions, parts, _ in parsed]
    tables: list[dict[str, SassFunction]] = [{} for _ in parsed]  # each cubin's: what its CALL.ABS names
    own = [{name: SassFunction(name, code, parts.frames.get(name, 0), table) for name, code in functions.items()}
           for functions, (_, parts, _), table in zip(linked, parsed, tables)]
    exported = {name: function for mine, (_, parts, _) in zip(own, parsed) for name, function in mine.items()
                if name in parts.exported}
    for table, mine in zip(tables, own):
        table.update({**exported, **mine})
    kernels = []
    for functions, (_, parts, metadata_list), table in zip(linked, parsed, tables):
        for metadata in metadata_list:
            if metadata.name not in functions:
                raise SassSyntaxError(f"nvdisasm printed no code for kernel {metadata.name}")
            kernels.append(SassKernel(metadata.name, arch, functions[metadata.name], metadata,
                                      parts.frames.get(metadata.name, 0), banks, symbols, variables, addresses,
                                      {**parts.own_banks.get(metadata.name, {}), **({LITERAL_POOLS: pools} if pools else {})},
                                      table, parts.relocatable, managed))
    return kernels


def _link(instruction: SassInstruction, symbols: dict[str, tuple[int, int, int]],
          code: list[SassInstruction]) -> SassInstruction:
    """An instruction of a relocatable cubin with its symbols resolved. Its other bank 3 offsets are not
    places in the cubin's bank: relocatable code reaches a variable only through its symbol."""
    operands = []
    for operand in instruction.operands:
        if isinstance(operand, Constant) and operand.symbol is not None and operand.symbol in symbols:
            bank, start, _ = symbols[operand.symbol]
            operand = replace(operand, bank=bank, offset=start + operand.offset, symbol=None)
        elif isinstance(operand, Target) and instruction.opcode.removeprefix("U") not in BRANCHES \
                and operand.label in symbols:
            operand = Immediate(hex(symbols[operand.label][1]))  # a variable's place in its bank
        elif isinstance(operand, Relocated) and operand.label is not None:
            address = next((i.address for i in code if operand.label in i.labels), None)
            if address is not None:  # a return address: the function's own, from 0
                operand = Immediate(hex(address >> 32 if operand.high else address))
        operands.append(operand)
    return replace(instruction, operands=tuple(operands))
