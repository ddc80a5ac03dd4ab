"""NVIDIA cubins (ELF, e_machine EM_CUDA): the kernels, their parameter layout and resources.

Per kernel `<k>`: `.text.<k>` (code), `.nv.info.<k>` (EIATTR records),
`.nv.shared.<k>` (NOBITS: static shared memory), `.nv.constant0.<k>` (constant bank 0 image).
An EIATTR record is {format u8, attribute u8} and then, by format: NVAL {u16 0}, BVAL {u8, pad},
HVAL {u16 value}, SVAL {u16 size, size bytes}. The ones read here:

    EIATTR_PARAM_CBANK       SVAL {symbol u32, offset u16, size u16}: where the params sit in c[0x0]
    EIATTR_CBANK_PARAM_SIZE  HVAL: bytes of parameters
    EIATTR_KPARAM_INFO       SVAL {index u32, ordinal u16, offset u16, info u32}: one per parameter;
                             info bits 18..31 = size in bytes
    EIATTR_REGCOUNT          SVAL {symbol u32, registers u32} (in the shared `.nv.info`)
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from cassc.formats.elf import SHT_SYMTAB, ElfFile, ElfFormatError

EM_CUDA = 190
EIFMT_NVAL, EIFMT_BVAL, EIFMT_HVAL, EIFMT_SVAL = 1, 2, 3, 4
EIATTR_PARAM_CBANK = 0x0A
EIATTR_KPARAM_INFO = 0x17
EIATTR_CBANK_PARAM_SIZE = 0x19
EIATTR_REGCOUNT = 0x2F
STO_CUDA_ENTRY = 0x10  # st_other of a kernel's symbol
STO_CUDA_MANAGED = 0x04  # st_other of a __managed__ variable's symbol
STT_CUDA_OBJECT = 13  # the symbol type of variables (constant, global) in relocatable (-rdc) cubins

KPARAM_INFO = struct.Struct("<IHHI")  # index, ordinal, offset, info
PARAM_CBANK = struct.Struct("<IHH")  # symbol, offset, size


class CubinFormatError(ValueError):
    pass


@dataclass(frozen=True)
class KernelParam:
    ordinal: int
    offset: int  # in the parameter buffer (constant bank 0 from `param_base`)
    size: int


@dataclass(frozen=True)
class CubinKernel:
    name: str  # the mangled device name, as registered by __cudaRegisterFunction
    params: tuple[KernelParam, ...]  # by ordinal
    param_size: int  # bytes of the parameter buffer
    param_base: int  # offset of the parameters in constant bank 0 (0x160 sm_80..89, 0x210 sm_90)
    shared_size: int  # static shared memory
    registers: int


def read_cubin(data: bytes) -> tuple[CubinKernel, ...]:
    """The kernels of a cubin: the functions with their own `.nv.info.<name>` whose symbol is an entry
    (in a relocatable cubin, device functions have one too)."""
    try:
        elf = ElfFile(data)
        if elf.machine != EM_CUDA:
            raise CubinFormatError(f"not a cubin (e_machine {elf.machine})")
        symbols = elf.section(".symtab")
        table = elf.symbols(symbols) if symbols is not None and symbols.type == SHT_SYMTAB else []
        names = [s.name for s in table]
        entries = {s.name for s in table if s.other & STO_CUDA_ENTRY}
        shared_info = elf.section(".nv.info")
        registers = _register_counts(read_attributes(elf.section_data(shared_info)), names) \
            if shared_info is not None else {}
        kernels = []
        for section in elf.sections:
            if not section.name.startswith(".nv.info."):
                continue
            name = section.name.removeprefix(".nv.info.")
            if name not in entries:
                continue
            shared = elf.section(f".nv.shared.{name}")
            kernels.append(_kernel(name, read_attributes(elf.section_data(section)), registers.get(name, 0),
                                   shared.size if shared is not None else 0))
    except ElfFormatError as error:
        raise CubinFormatError(f"unreadable cubin ({error})") from error
    return tuple(kernels)


def read_attributes(data: bytes) -> list[tuple[int, bytes]]:
    """The (attribute, value bytes) records of an `.nv.info` section."""
    records = []
    position = 0
    while position + 2 <= len(data):
        format_, attribute = data[position], data[position + 1]
        position += 2
        if format_ == EIFMT_SVAL:
            if position + 2 > len(data):
                raise CubinFormatError("EIATTR record truncated")
            size = int.from_bytes(data[position:position + 2], "little")
            value = data[position + 2:position + 2 + size]
            if len(value) != size:
                raise CubinFormatError(f"EIATTR {attribute:#x} runs past its section")
            position += 2 + size
        elif format_ in (EIFMT_NVAL, EIFMT_BVAL, EIFMT_HVAL):
            value = data[position:position + 2]
            position += 2
        else:
            raise CubinFormatError(f"unknown EIATTR format {format_} at offset {position - 2}")
        records.append((attribute, value))
    return records


def _register_counts(records: list[tuple[int, bytes]], symbol_names: list[str]) -> dict[str, int]:
    counts = {}
    for attribute, value in records:
        if attribute == EIATTR_REGCOUNT and len(value) >= 8:
            symbol, count = int.from_bytes(value[:4], "little"), int.from_bytes(value[4:8], "little")
            if symbol < len(symbol_names):
                counts[symbol_names[symbol]] = count
    return counts


def _kernel(name: str, records: list[tuple[int, bytes]], registers: int, shared_size: int) -> CubinKernel:
    params: dict[int, KernelParam] = {}
    param_size = param_base = 0
    for attribute, value in records:
        if attribute == EIATTR_KPARAM_INFO and len(value) >= KPARAM_INFO.size:
            _, ordinal, offset, info = KPARAM_INFO.unpack_from(value)
            params[ordinal] = KernelParam(ordinal, offset, (info >> 18) & 0x3FFF)
        elif attribute == EIATTR_PARAM_CBANK and len(value) >= PARAM_CBANK.size:
            _, param_base, param_size = PARAM_CBANK.unpack_from(value)
        elif attribute == EIATTR_CBANK_PARAM_SIZE:
            param_size = int.from_bytes(value, "little")
    return CubinKernel(name, tuple(params[k] for k in sorted(params)), param_size, param_base, shared_size,
                       registers)
