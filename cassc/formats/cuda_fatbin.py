"""CUDA fatbin containers (`fatbinData`, magic 0xBA55ED50): what nvcc puts in `.nv_fatbin` and
`__nv_relfatbin`. A section holds one or more containers back to back (8-aligned); each holds entries:

    container  {magic u32, version u16, header_size u16, files_size u64}, then files_size bytes of entries
    entry      {kind u16 (1 PTX, 2 ELF), version u16, header_size u32, padded_size u32, reserved u32,
                compressed_size u32, options_offset u32, minor u16, major u16, arch u32,
                name_offset u32, name_size u32, flags u64, reserved u64, uncompressed_size u64}
               then the payload at entry + header_size; the next entry at entry + header_size + padded_size.
               flags 0x2000: LZ4 block, 0x8000: ZSTD frame. A PTX entry's header may carry ptxas options
               (`options_offset` names an {offset u32, size u32} pair inside the header).

Field names follow ZLUDA's `FatbinHeader` / `FatbinFileHeader` (see the project's binary-formats notes).
"""

from __future__ import annotations

from dataclasses import dataclass

from elftools.construct import Struct, ULInt16, ULInt32, ULInt64

MAGIC = 0xBA55ED50
KIND_PTX = 1
KIND_ELF = 2
FLAG_DEBUG = 0x2
FLAG_LZ4 = 0x2000
FLAG_ZSTD = 0x8000
# The most a compressed entry may claim to expand to: larger claims come from corrupt headers.
MAX_UNCOMPRESSED = 1 << 30

CONTAINER_HEADER = Struct(
    "container_header",
    ULInt32("magic"),
    ULInt16("version"),
    ULInt16("header_size"),
    ULInt64("files_size"),
)
ENTRY_HEADER = Struct(
    "entry_header",
    ULInt16("kind"),
    ULInt16("version"),
    ULInt32("header_size"),
    ULInt32("padded_size"),
    ULInt32("reserved0"),
    ULInt32("compressed_size"),
    ULInt32("options_offset"),
    ULInt16("minor"),
    ULInt16("major"),
    ULInt32("arch"),
    ULInt32("name_offset"),
    ULInt32("name_size"),
    ULInt64("flags"),
    ULInt64("reserved1"),
    ULInt64("uncompressed_size"),
)
OPTIONS_POINTER = Struct("options_pointer", ULInt32("offset"), ULInt32("size"))


class FatbinFormatError(ValueError):
    pass


@dataclass(frozen=True)
class FatbinEntry:
    kind: str  # "ptx" or "elf"
    arch: int  # 86 for sm_86 / compute_86
    compression: str  # "none", "lz4" or "zstd"
    stored_size: int  # bytes in the container (compressed size when compressed)
    payload: bytes  # decompressed: PTX text (NULs stripped) or the cubin ELF
    options: str  # ptxas options recorded with a PTX entry ("--compile-only" for -rdc)
    debug: bool

    @property
    def ptx(self) -> str:
        return self.payload.decode(errors="replace")


@dataclass(frozen=True)
class FatbinContainer:
    offset: int  # in the section
    entries: tuple[FatbinEntry, ...]
    size: int = 0  # header and entries: the bytes __cudaRegisterFatBinary's wrapper points at


def _parse(layout: Struct, data: bytes, position: int, what: str):  # type: ignore[no-untyped-def]
    if position < 0 or position + layout.sizeof() > len(data):
        raise FatbinFormatError(f"fatbin truncated in {what} at offset {position:#x}")
    return layout.parse(data[position:position + layout.sizeof()])


def read_containers(section: bytes) -> list[FatbinContainer]:
    """Every container of a `.nv_fatbin` / `__nv_relfatbin` section (or of a fatbin file)."""
    containers = []
    position = 0
    while position + CONTAINER_HEADER.sizeof() <= len(section):
        header = _parse(CONTAINER_HEADER, section, position, "a container header")
        if header.magic != MAGIC:
            if not any(section[position:]):
                break  # zero padding after the last container
            raise FatbinFormatError(f"no fatbin magic 0xBA55ED50 at offset {position:#x} "
                                    f"(found {header.magic:#010x})")
        if header.header_size < CONTAINER_HEADER.sizeof():
            raise FatbinFormatError(f"fatbin container at {position:#x} has header size {header.header_size}")
        start = position + header.header_size
        end = start + header.files_size
        if end > len(section):
            raise FatbinFormatError(f"fatbin container at {position:#x} claims {header.files_size} bytes of "
                                    f"entries; only {len(section) - start} are there")
        containers.append(FatbinContainer(position, tuple(_read_entries(section, start, end)), end - position))
        position = -(-end // 8) * 8
    if any(section[position:]):
        raise FatbinFormatError(f"fatbin truncated: {len(section) - position} stray bytes at offset {position:#x}")
    return containers


def _read_entries(data: bytes, position: int, end: int) -> list[FatbinEntry]:
    entries = []
    while position < end:
        header = _parse(ENTRY_HEADER, data, position, "an entry header")
        if header.header_size < ENTRY_HEADER.sizeof() or header.kind not in (KIND_PTX, KIND_ELF):
            raise FatbinFormatError(f"corrupt fatbin entry at {position:#x} (kind {header.kind}, "
                                    f"header size {header.header_size})")
        payload_start = position + header.header_size
        payload_end = payload_start + header.padded_size
        if payload_end > end:
            raise FatbinFormatError(f"fatbin entry at {position:#x} runs past its container")
        stored = data[payload_start:payload_end]
        options = ""
        if header.kind == KIND_PTX and header.options_offset:
            pointer = _parse(OPTIONS_POINTER, data, position + header.options_offset, "PTX options")
            options_start = position + pointer.offset
            options = data[options_start:options_start + pointer.size].decode(errors="replace").strip(" \0")
        payload, compression, stored_size = _decompress(header, stored, position)
        if header.kind == KIND_PTX:
            payload = payload.rstrip(b"\0")
        entries.append(FatbinEntry("ptx" if header.kind == KIND_PTX else "elf", header.arch, compression,
                                   stored_size, payload, options, bool(header.flags & FLAG_DEBUG)))
        position = payload_end
    return entries


def _decompress(header, stored: bytes, position: int) -> tuple[bytes, str, int]:  # type: ignore[no-untyped-def]
    if not header.flags & (FLAG_LZ4 | FLAG_ZSTD):
        return stored, "none", len(stored)
    size = header.uncompressed_size
    if header.compressed_size > len(stored) or not 0 < size <= MAX_UNCOMPRESSED:
        raise FatbinFormatError(f"fatbin entry at {position:#x}: implausible compressed sizes "
                                f"({header.compressed_size} -> {size})")
    compressed = stored[:header.compressed_size]
    try:
        if header.flags & FLAG_ZSTD:
            import zstandard

            payload = zstandard.ZstdDecompressor().decompress(compressed, max_output_size=size)
            method = "zstd"
        else:
            import lz4.block

            payload = lz4.block.decompress(compressed, uncompressed_size=size)
            method = "lz4"
    except Exception as error:  # both libraries raise their own error types for corrupt input
        raise FatbinFormatError(f"fatbin entry at {position:#x}: corrupt compressed payload ({error})") from error
    if len(payload) != size:
        raise FatbinFormatError(f"fatbin entry at {position:#x}: expanded to {len(payload)} bytes, "
                                f"header says {size}")
    return payload, method, len(compressed)
