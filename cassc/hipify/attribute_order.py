"""`__shared__ alignas(16) float a[...]`: the alignment after CUDA's memory-space specifier, which nvcc takes.

In HIP the specifiers are GNU attributes (`__shared__` is `__attribute__((shared))`), and clang takes no C++
attribute such as `alignas` after one ("an attribute list cannot appear here"). Written before the specifier it
means the same to both compilers, so `alignas(...)` moves in front of `__shared__`/`__constant__`/`__device__`/
`__managed__`, on the same line.
"""

from __future__ import annotations

import re

from cassc.source_tokens import mask_literals_and_comments

_SPECIFIER_THEN_ALIGNAS = re.compile(
    r"\b(?P<specifier>__shared__|__constant__|__device__|__managed__)(?P<space>[ \t]+)"
    r"(?P<alignas>alignas[ \t]*\((?:[^()\n]|\([^()\n]*\))*\))")


def move_alignas_first(text: str) -> tuple[str, int]:
    """`text` with `alignas(...)` before the memory-space specifier it followed; and how many moved."""
    masked = mask_literals_and_comments(text)
    matches = list(_SPECIFIER_THEN_ALIGNAS.finditer(masked))
    for match in reversed(matches):
        moved = f"{text[match.start('alignas'):match.end('alignas')]}{match['space']}{match['specifier']}"
        text = text[:match.start()] + moved + text[match.end():]
    return text, len(matches)
