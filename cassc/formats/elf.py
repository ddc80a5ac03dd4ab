"""ELF section headers and symbol tables read straight from the bytes: what the format readers (host
objects, cubins, AMD code objects) need of an ELF file, and no more.

pyelftools parses each section header and each symbol through `construct`, about 30 µs apiece: an nvcc
object has hundreds of sections and symbols, a static library thousands, and every object of a link is
read. Here a section header or symbol is one `struct` unpack. Both classes (ELF32, ELF64) and both byte
orders are read; compressed sections (SHF_COMPRESSED, debug information only) are returned as stored.
"""

from __future__ import annotations

import mmap
import struct
from dataclasses import dataclass
from pathlib import Path

ET_EXEC = 2
ET_DYN = 3
SHT_SYMTAB = 2
SHT_RELA = 4
SHT_DYNAMIC = 6
SHT_NOBITS = 8
SHT_REL = 9
SHT_DYNSYM = 11
PT_INTERP = 3
DT_NEEDED = 1
DT_RPATH = 15
DT_RUNPATH = 29
SHN_UNDEF = 0
SHN_LORESERVE = 0xFF00  # section indices from here on are special (absolute, common, ...), not sections
SHN_XINDEX = 0xFFFF
STT_OBJECT = 1
STT_FUNC = 2
STB_GLOBAL = 1
STB_WEAK = 2

# e_type .. e_shstrndx, after the 16 bytes of e_ident
_HEADER = {1: "16sHHIIIIIHHHHHH", 2: "16sHHIQQQIHHHHHH"}
# sh_name, sh_type, sh_flags, sh_addr, sh_offset, sh_size, sh_link, sh_info, sh_addralign, sh_entsize
_SECTION = {1: "IIIIIIIIII", 2: "IIQQQQIIQQ"}
_SYMBOL = {1: "IIIBBH", 2: "IBBHQQ"}  # the classes order the fields differently
_DYNAMIC = {1: "iI", 2: "qQ"}  # d_tag, d_val
_RELOCATION = {(1, SHT_REL): "II", (2, SHT_REL): "QQ", (1, SHT_RELA): "IIi", (2, SHT_RELA): "QQq"}  # offset, info[, addend]
_STRING_TAGS = (DT_NEEDED, DT_RPATH, DT_RUNPATH)  # dynamic entries whose value names a string


class ElfFormatError(ValueError):
    pass


@dataclass(frozen=True)
class Section:
    index: int
    name: str
    type: int
    addr: int
    offset: int
    size: int
    link: int
    entsize: int


@dataclass(frozen=True)
class Symbol:
    name: str
    type: int  # STT_*
    bind: int  # STB_*
    shndx: int  # SHN_UNDEF, a section's index, or a special index >= SHN_LORESERVE
    value: int
    size: int
    other: int = 0  # st_other: visibility, and machine flags (a CUDA kernel's STO_CUDA_ENTRY)

    @property
    def defined(self) -> bool:
        return self.shndx != SHN_UNDEF


@dataclass(frozen=True)
class Relocation:
    offset: int  # in the section the relocation section applies to
    symbol: int  # an index into the symbol table the relocation section links to
    type: int  # the machine's R_* number
    addend: int | None  # RELA's; None for REL, whose addend is the bytes at `offset`


class ElfFile:
    """An ELF file in memory: its header fields, sections and symbols."""

    def __init__(self, data: bytes) -> None:
        if data[:4] != b"\x7fELF" or len(data) < 6:
            raise ElfFormatError("no ELF magic")
        elf_class, encoding = data[4], data[5]
        if elf_class not in _HEADER or encoding not in (1, 2):
            raise ElfFormatError(f"unknown ELF class {elf_class} or data encoding {encoding}")
        self.data = data
        self._order = "<" if encoding == 1 else ">"
        self._class = elf_class
        (_, self.type, self.machine, _, _, self._phoff, shoff, self.flags, _, self._phentsize, self._phnum,
         shentsize, shnum, shstrndx) = self._unpack(_HEADER[elf_class], 0, "the ELF header")
        self.sections: list[Section] = []
        if shoff == 0:
            return
        layout = _SECTION[elf_class]
        if shentsize != struct.calcsize(self._order + layout):
            raise ElfFormatError(f"section headers of {shentsize} bytes")
        raw = [self._unpack(layout, shoff, "the section headers")]
        # More sections than the header's 16-bit fields hold: section 0 holds the count and the name table's index.
        count = shnum or raw[0][5]
        if shstrndx == SHN_XINDEX:
            shstrndx = raw[0][6]
        if shoff + count * shentsize > len(data):
            raise ElfFormatError(f"{count} section headers at {shoff:#x} run past the end of the file")
        raw += struct.iter_unpack(self._order + layout, data[shoff + shentsize:shoff + count * shentsize])
        unnamed = [Section(index, "", h[1], h[3], h[4], h[5], h[6], h[9]) for index, h in enumerate(raw)]
        names = self.section_data(unnamed[shstrndx]) if 0 < shstrndx < count else b""
        self.sections = [Section(s.index, _string(names, h[0]), s.type, s.addr, s.offset, s.size, s.link, s.entsize)
                         for s, h in zip(unnamed, raw)]

    def _unpack(self, layout: str, offset: int, what: str) -> tuple[int, ...]:
        if offset + struct.calcsize(self._order + layout) > len(self.data):
            raise ElfFormatError(f"{what} at {offset:#x} run past the end of the file")
        return struct.unpack_from(self._order + layout, self.data, offset)

    def section_data(self, section: Section) -> bytes:
        """The section's bytes as stored (nothing for SHT_NOBITS, which occupies no space in the file)."""
        if section.type == SHT_NOBITS:
            return b""
        if section.offset + section.size > len(self.data):
            raise ElfFormatError(f"section {section.name} ({section.size} bytes at {section.offset:#x}) runs past "
                                 "the end of the file")
        return self.data[section.offset:section.offset + section.size]

    def section(self, name: str) -> Section | None:
        return next((s for s in self.sections if s.name == name), None)

    def symbols(self, table: Section) -> list[Symbol]:
        """The symbols of a SHT_SYMTAB or SHT_DYNSYM section, names from the string table it links to."""
        layout = self._order + _SYMBOL[self._class]
        size = struct.calcsize(layout)
        if table.entsize not in (0, size):
            raise ElfFormatError(f"symbol table {table.name} has entries of {table.entsize} bytes")
        if not 0 <= table.link < len(self.sections):
            raise ElfFormatError(f"symbol table {table.name} links to section {table.link}, which does not exist")
        names = self.section_data(self.sections[table.link])
        contents = self.section_data(table)
        entries = struct.iter_unpack(layout, contents[:len(contents) - len(contents) % size])
        if self._class == 1:
            return [Symbol(_string(names, n), info & 0xF, info >> 4, shndx, value, size_, other)
                    for n, value, size_, info, other, shndx in entries]
        return [Symbol(_string(names, n), info & 0xF, info >> 4, shndx, value, size_, other)
                for n, info, other, shndx, value, size_ in entries]

    def relocations(self, table: Section) -> list[Relocation]:
        """The records of a SHT_REL or SHT_RELA section."""
        layout = _RELOCATION.get((self._class, table.type))
        if layout is None:
            raise ElfFormatError(f"section {table.name} is not a relocation section")
        layout = self._order + layout
        size = struct.calcsize(layout)
        if table.entsize not in (0, size):
            raise ElfFormatError(f"relocation section {table.name} has entries of {table.entsize} bytes")
        contents = self.section_data(table)
        shift, mask = (8, 0xFF) if self._class == 1 else (32, 0xFFFFFFFF)
        return [Relocation(entry[0], entry[1] >> shift, entry[1] & mask, entry[2] if len(entry) > 2 else None)
                for entry in struct.iter_unpack(layout, contents[:len(contents) - len(contents) % size])]

    def segment_types(self) -> list[int]:
        """Each program header's p_type (PT_*): the first word of a program header in both classes."""
        if self._phoff == 0 or self._phnum == 0:
            return []
        if self._phentsize < 4:
            raise ElfFormatError(f"program headers of {self._phentsize} bytes")
        return [self._unpack("I", self._phoff + n * self._phentsize, "the program headers")[0]
                for n in range(self._phnum)]

    def dynamic_entries(self) -> list[tuple[int, int | str]]:
        """The dynamic section's (d_tag, d_val) entries up to DT_NULL; the values of DT_NEEDED, DT_RPATH and
        DT_RUNPATH as the strings they name."""
        dynamic = next((s for s in self.sections if s.type == SHT_DYNAMIC), None)
        if dynamic is None:
            return []
        if not 0 <= dynamic.link < len(self.sections):
            raise ElfFormatError(f"dynamic section links to section {dynamic.link}, which does not exist")
        names = self.section_data(self.sections[dynamic.link])
        layout = self._order + _DYNAMIC[self._class]
        contents = self.section_data(dynamic)
        entries: list[tuple[int, int | str]] = []
        for tag, value in struct.iter_unpack(layout, contents[:len(contents) - len(contents) % struct.calcsize(layout)]):
            if tag == 0:
                break
            entries.append((tag, _string(names, value) if tag in _STRING_TAGS else value))
        return entries


def map_elf_file(path: Path) -> ElfFile:
    """An ELF file on disk, mapped rather than read: link lines name system libraries of any size, and
    most questions asked of them need only the headers. OSError for a file that cannot be read."""
    with path.open("rb") as handle:
        if handle.read(4) != b"\x7fELF":
            raise ElfFormatError("no ELF magic")
        return ElfFile(mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ))  # type: ignore[arg-type]


def _string(table: bytes, offset: int) -> str:
    if not table:
        return ""  # no name table (sh_link or e_shstrndx 0): every name is empty
    if offset >= len(table):
        raise ElfFormatError(f"a name at offset {offset} of a string table of {len(table)} bytes")
    end = table.find(b"\0", offset)
    return table[offset:end if end >= 0 else len(table)].decode("utf-8", errors="replace")
