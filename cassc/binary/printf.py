"""CUDA's device printf argument buffer: what `vprintf(format, arguments)` finds where.

nvcc packs printf's arguments into one buffer after C's default promotions (float to double; char and short
to int), each at an offset aligned to its own size (4 or 8 bytes). The format string alone says which
argument is which, so the buffer is read by walking its conversion specifications as printf does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cassc.binary.emit import Unsupported

# A conversion specification: flags, width, precision, length modifier, conversion (C11 7.21.6.1).
_SPECIFICATION = re.compile(r"%([-+ #0']*)(\*|\d+)?(?:\.(\*|\d*))?(hh|h|ll|l|j|z|t|L)?([diouxXeEfFgGaAcspn%])?")


@dataclass(frozen=True)
class Argument:
    kind: str  # "value": an integer or a double's bits, sent as an i64; "string": a %s pointer, sent as its text
    offset: int  # in the buffer
    size: int  # 4 or 8 bytes


def argument_layout(format_string: str) -> list[Argument]:
    """The buffer's arguments in order, as CUDA's printf reads them for `format_string`."""
    arguments: list[Argument] = []
    end = 0

    def take(kind: str, size: int) -> None:
        nonlocal end
        offset = -(-end // size) * size
        arguments.append(Argument(kind, offset, size))
        end = offset + size

    for match in _SPECIFICATION.finditer(format_string):
        _, field_width, precision, length, conversion = match.groups()
        if conversion == "%":
            continue
        if conversion is None:
            raise Unsupported(f"printf format {format_string!r}: an incomplete conversion '{match.group(0)}'")
        if conversion == "n" or length == "L":
            raise Unsupported(f"printf format {format_string!r}: '%{length or ''}{conversion}' (CUDA's printf does not "
                              "support it either)")
        for star in (field_width, precision):
            if star == "*":
                take("value", 4)
        if conversion == "s":
            take("string", 8)
        else:  # doubles (floats are promoted), pointers, 64-bit integers, or ints (char and short promoted)
            take("value", 8 if conversion in "eEfFgGaAp" or length in ("l", "ll", "j", "z", "t") else 4)
    return arguments
