"""Clang offload bundles (`__CLANG_OFFLOAD_BUNDLE__`), the container HIP registers at startup.

    magic      24 bytes  "__CLANG_OFFLOAD_BUNDLE__"
    count      u64
    entries    count x { offset u64, size u64, triple_size u64, triple bytes }
    payloads   at their offsets (device code objects, 4096-aligned by convention)

An executable's `.hip_fatbin` section holds one bundle per linked device image, back to back.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

MAGIC = b"__CLANG_OFFLOAD_BUNDLE__"
HOST_TRIPLE = "host-x86_64-unknown-linux--"
_U64 = struct.Struct("<Q")
_ENTRY = struct.Struct("<QQQ")


class BundleFormatError(ValueError):
    pass


@dataclass(frozen=True)
class BundleEntry:
    triple: str  # e.g. "hipv4-amdgcn-amd-amdhsa--gfx1100"
    payload: bytes


def device_triple(offload_arch: str) -> str:
    return f"hipv4-amdgcn-amd-amdhsa--{offload_arch}"


def write_bundle(entries: list[BundleEntry], alignment: int = 4096) -> bytes:
    header_size = len(MAGIC) + _U64.size + sum(_ENTRY.size + len(e.triple.encode()) for e in entries)
    offsets = []
    position = header_size
    for entry in entries:
        if entry.payload:
            position = -(-position // alignment) * alignment
        offsets.append(position)
        position += len(entry.payload)
    out = bytearray(MAGIC + _U64.pack(len(entries)))
    for entry, offset in zip(entries, offsets):
        triple = entry.triple.encode()
        out += _ENTRY.pack(offset, len(entry.payload), len(triple)) + triple
    for entry, offset in zip(entries, offsets):
        out += bytes(offset - len(out)) if entry.payload else b""
        out += entry.payload
    return bytes(out)


def read_bundle(data: bytes, start: int = 0) -> tuple[list[BundleEntry], int]:
    """The entries of the bundle at `start`, and the offset just past its last payload."""
    if data[start:start + len(MAGIC)] != MAGIC:
        raise BundleFormatError(f"no offload bundle magic at offset {start}")
    position = start + len(MAGIC)
    (count,) = _unpack(_U64, data, position)
    position += _U64.size
    if count > 4096:
        raise BundleFormatError(f"implausible offload bundle entry count {count}")
    entries = []
    end = position
    for _ in range(count):
        offset, size, triple_size = _unpack(_ENTRY, data, position)
        position += _ENTRY.size
        triple = data[position:position + triple_size]
        if len(triple) != triple_size:
            raise BundleFormatError("offload bundle truncated in an entry's triple")
        position += triple_size
        payload_start = start + offset
        payload = data[payload_start:payload_start + size]
        if len(payload) != size:
            raise BundleFormatError(f"offload bundle entry '{triple.decode(errors='replace')}' runs past the end")
        entries.append(BundleEntry(triple.decode(errors="replace"), payload))
        end = max(end, position, payload_start + size)
    return entries, end


def read_bundles(section: bytes) -> list[BundleEntry]:
    """Every entry of every bundle in a `.hip_fatbin` section (bundles are padded between)."""
    entries: list[BundleEntry] = []
    position = section.find(MAGIC)
    while position != -1:
        found, end = read_bundle(section, position)
        entries += found
        position = section.find(MAGIC, end)
    return entries


def _unpack(layout: struct.Struct, data: bytes, position: int) -> tuple[int, ...]:
    if position + layout.size > len(data):
        raise BundleFormatError("offload bundle truncated in its header")
    return layout.unpack_from(data, position)
