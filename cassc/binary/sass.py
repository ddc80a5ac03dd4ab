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
from dataclasses import dataclass, field
from pathlib import Path

from cassc.errors import CasscError
from cassc.formats.cubin import CubinKernel, read_attributes, read_cubin


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


Operand = Register | Special | Immediate | Constant | Address | Target | Unparsed


@dataclass(frozen=True)
class SassInstruction:
    address: int
    opcode: str
    modifiers: tuple[str, ...]
    operands: tuple[Operand, ...]
    guard: Register | None  # None: always executed
    text: str  # the line as printed, for messages
    labels: tuple[str, ...] = ()  # the labels that name this instruction's address

    def has(self, *modifiers: str) -> bool:
        return any(m in self.modifiers for m in modifiers)


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


_LINE = re.compile(r"^\s*/\*(?P<address>[0-9a-fA-F]+)\*/\s+(?P<body>.*?)\s*;?\s*(?:/\*.*\*/)?\s*$")
_GUARD = re.compile(r"^@(?P<not>!?)(?P<predicate>U?P[0-6T])\s+")
_REGISTER = re.compile(r"^(?P<name>URZ|RZ|UPT|PT|SRZ|UPR|PR|UR\d+|R\d+|UP[0-6]|P[0-6]|B\d+)(?P<suffixes>(?:\.[A-Za-z0-9_]+)*)$")
_LABEL_LINE = re.compile(r"^\s*(?P<label>[.$\w][\w$.]*):\s*$")  # .L_x_3:, $__internal_0_$__cuda_...:
_NUMBER = re.compile(r"^[+-]?(?:0x[0-9a-fA-F]+|\d+(?:\.\d*)?(?:e[+-]?\d+)?|INF|QNAN|NAN)$")
_CONSTANT_REGISTERS = {"RZ": "R", "URZ": "UR", "PT": "P", "UPT": "UP", "SRZ": "SR", "PR": "PR", "UPR": "UPR"}  # zero, or true for predicates
FRAME_SIZE_ATTRIBUTE = 0x11  # EIATTR_FRAME_SIZE: SVAL {symbol u32, size u32} in the shared .nv.info


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


def parse_operand(text: str) -> Operand:
    text = text.strip()
    if text.startswith("`(") and text.endswith(")"):
        return Target(text[2:-1].strip())
    if text.startswith("SR_"):
        return Special(text)
    memory = re.fullmatch(r"(?:desc\[(?P<desc>[^\]]*)\])?\[(?P<inside>[^\]]*)\]", text)
    if memory:
        return _address(memory["inside"])
    constant = re.fullmatch(r"(?P<neg>[-~]?)(?P<bar>\|?)cx?\[(?P<bank>[^\]]+)\]\[(?P<inside>[^\]]+)\]\|?"
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
    body = re.sub(r"\(\*.*?\*\)", "", match["body"]).rstrip(" ;")  # (*"SpillRefill"*): nvdisasm's notes
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
    operands = tuple(_operand_or_text(o) for o in _split_operands(rest)) if rest.strip() else ()
    return SassInstruction(int(match["address"], 16), opcode, tuple(modifiers), operands, guard,
                           match["body"].strip(), labels)


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


def frame_sizes(cubin: bytes) -> dict[str, int]:
    """Each function's local frame (EIATTR_FRAME_SIZE records of the shared .nv.info), by symbol name."""
    import io

    from elftools.elf.elffile import ELFFile
    from elftools.elf.sections import SymbolTableSection

    elf = ELFFile(io.BytesIO(cubin))
    symbols = elf.get_section_by_name(".symtab")
    names = [s.name for s in symbols.iter_symbols()] if isinstance(symbols, SymbolTableSection) else []
    info = elf.get_section_by_name(".nv.info")
    sizes = {}
    for attribute, value in read_attributes(info.data()) if info is not None else []:
        if attribute == FRAME_SIZE_ATTRIBUTE and len(value) >= 8:
            symbol, size = int.from_bytes(value[:4], "little"), int.from_bytes(value[4:8], "little")
            if symbol < len(names):
                sizes[names[symbol]] = size
    return sizes


def constant_banks(cubin: bytes) -> tuple[dict[int, bytes], dict[str, tuple[int, int, int]]]:
    """The user constant bank (`.nv.constant3`: `__constant__` variables) and its symbols."""
    import io

    from elftools.elf.elffile import ELFFile
    from elftools.elf.sections import SymbolTableSection

    elf = ELFFile(io.BytesIO(cubin))
    banks: dict[int, bytes] = {}
    index_of: dict[int, int] = {}
    for number, section in enumerate(elf.iter_sections()):
        found = re.fullmatch(r"\.nv\.constant(\d+)", section.name)
        if found and found[1] != "0":
            bank = int(found[1])
            banks[bank] = section.data() if section["sh_type"] != "SHT_NOBITS" else bytes(section["sh_size"])
            index_of[number] = bank
    symbols: dict[str, tuple[int, int, int]] = {}
    table = elf.get_section_by_name(".symtab")
    if isinstance(table, SymbolTableSection):
        for symbol in table.iter_symbols():
            bank = index_of.get(symbol["st_shndx"]) if isinstance(symbol["st_shndx"], int) else None
            if bank is not None and symbol["st_info"]["type"] == "STT_OBJECT":
                symbols[symbol.name] = (bank, symbol["st_value"], symbol["st_size"])
    return banks, symbols


R_CUDA_64 = 2  # a 64-bit absolute address


def device_variables(cubin: bytes) -> tuple[dict[str, bytes], dict[int, tuple[str, int]]]:
    """The `__device__` variables (`.nv.global` / `.nv.global.init`) with their initial bytes, and the
    64-bit addresses of them that constant bank 4 holds (R_CUDA_64 relocations of `.nv.constant4`)."""
    import io

    from elftools.elf.elffile import ELFFile
    from elftools.elf.relocation import RelocationSection
    from elftools.elf.sections import SymbolTableSection

    elf = ELFFile(io.BytesIO(cubin))
    table = elf.get_section_by_name(".symtab")
    if not isinstance(table, SymbolTableSection):
        return {}, {}
    symbols = list(table.iter_symbols())
    sections = {number: section for number, section in enumerate(elf.iter_sections())
                if section.name in (".nv.global", ".nv.global.init")}
    variables = {}
    for symbol in symbols:
        section = sections.get(symbol["st_shndx"]) if isinstance(symbol["st_shndx"], int) else None
        if section is not None and symbol["st_info"]["type"] == "STT_OBJECT":
            start, size = symbol["st_value"], symbol["st_size"]
            data = bytes(size) if section["sh_type"] == "SHT_NOBITS" else section.data()[start:start + size]
            variables[symbol.name] = data
    addresses = {}
    bank = elf.get_section_by_name(".nv.constant4")
    # REL (the addend in the bank's bytes) up to sm_89, RELA (in the record) from sm_90
    relocations = elf.get_section_by_name(".rel.nv.constant4") or elf.get_section_by_name(".rela.nv.constant4")
    if bank is not None and isinstance(relocations, RelocationSection):
        data = bank.data()
        for relocation in relocations.iter_relocations():
            if relocation["r_info_type"] == R_CUDA_64:
                offset = relocation["r_offset"]
                addend = relocation["r_addend"] if relocations.is_RELA() else \
                    int.from_bytes(data[offset:offset + 8], "little")
                addresses[offset] = (symbols[relocation["r_info_sym"]].name, addend)
    return variables, addresses


def kernel_banks(cubin: bytes) -> dict[str, dict[int, bytes]]:
    """Each kernel's own constant banks other than 0 (`.nv.constant2.<kernel>`: ptxas' literal pool)."""
    import io

    from elftools.elf.elffile import ELFFile

    banks: dict[str, dict[int, bytes]] = {}
    for section in ELFFile(io.BytesIO(cubin)).iter_sections():
        found = re.fullmatch(r"\.nv\.constant(\d+)\.(.+)", section.name)
        if found and found[1] != "0":
            banks.setdefault(found[2], {})[int(found[1])] = section.data()
    return banks


def cubin_arch(cubin: bytes) -> int:
    """sm_XX of a cubin (the low byte of e_flags on the cubin ABI versions nvcc 11-13 write)."""
    import io

    from elftools.elf.elffile import ELFFile

    elf = ELFFile(io.BytesIO(cubin))
    flags = elf["e_flags"]
    arch = (flags >> 8) & 0xFF if elf["e_ident"]["EI_ABIVERSION"] >= 8 else flags & 0xFF
    return arch


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
    functions = parse_listing(listing if listing is not None else disassemble(cubin))
    frames = frame_sizes(cubin)
    banks, symbols = constant_banks(cubin)
    variables, addresses = device_variables(cubin)
    own = kernel_banks(cubin)
    kernels = []
    for metadata in read_cubin(cubin):
        if metadata.name not in functions:
            raise SassSyntaxError(f"nvdisasm printed no code for kernel {metadata.name}")
        kernels.append(SassKernel(metadata.name, arch, functions[metadata.name], metadata,
                                  frames.get(metadata.name, 0), banks, symbols, variables, addresses,
                                  own.get(metadata.name, {})))
    return kernels
