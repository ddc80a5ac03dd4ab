"""Unix `ar` archives (static libraries): the members, for reading objects out of a `.a`.

    "!<arch>\\n", then per member a 60-byte header {name 16, mtime 12, uid 6, gid 6, mode 8,
    size 10, "`\\n"} and the data padded to an even size. GNU archives name long members "/N",
    an offset into the "//" member; "/" and "/SYM64/" are symbol tables.
"""

from __future__ import annotations

from dataclasses import dataclass

MAGIC = b"!<arch>\n"
HEADER_SIZE = 60


class ArchiveFormatError(ValueError):
    pass


@dataclass(frozen=True)
class ArchiveMember:
    name: str
    data: bytes


def is_archive(data: bytes) -> bool:
    return data.startswith(MAGIC)


def read_archive(data: bytes) -> list[ArchiveMember]:
    if not is_archive(data):
        raise ArchiveFormatError("not an ar archive")
    members: list[ArchiveMember] = []
    long_names = b""
    position = len(MAGIC)
    while position + HEADER_SIZE <= len(data):
        header = data[position:position + HEADER_SIZE]
        if header[58:60] != b"`\n":
            raise ArchiveFormatError(f"corrupt archive member header at offset {position}")
        raw_name = header[0:16].decode(errors="replace").rstrip()
        try:
            size = int(header[48:58].decode().strip())
        except ValueError as error:
            raise ArchiveFormatError(f"corrupt member size at offset {position}") from error
        body = data[position + HEADER_SIZE:position + HEADER_SIZE + size]
        if len(body) != size:
            raise ArchiveFormatError("archive truncated inside a member")
        position += HEADER_SIZE + size + (size & 1)
        if raw_name == "//":
            long_names = body
        elif raw_name in ("/", "/SYM64/"):
            continue
        elif raw_name.startswith("/") and raw_name[1:].isdigit():
            offset = int(raw_name[1:])
            end = long_names.find(b"/\n", offset)
            members.append(ArchiveMember(long_names[offset:end].decode(errors="replace"), body))
        else:
            members.append(ArchiveMember(raw_name.removesuffix("/"), body))
    return members
