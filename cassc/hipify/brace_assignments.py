"""`x = {};` on CUDA's 16-bit float types, which HIP's classes make ambiguous.

CUDA's `__half`, `__half2`, `__nv_bfloat16` and `__nv_bfloat162` take `x = {}` as the assignment of a zero value.
HIP's classes have, besides their copy and move assignments, assignments from their raw structs, and `{}` builds
either one: clang stops on "use of overloaded operator '=' is ambiguous". For a variable the file declares with one
of these types, `x = {};` becomes `x = __typeof__(x){};`, the value-initialised (zero) object CUDA assigns, which
only the copy/move assignment takes. The statement stays on its line.
"""

from __future__ import annotations

import re

from cassc.source_tokens import mask_literals_and_comments

_TYPES = r"(?:__)?half2?|(?:__)?nv_bfloat162?"
# `half2 a, b;`, `const __half x = ...`: the names a declaration with one of the types introduces (no pointers).
_DECLARATION = re.compile(rf"\b(?:{_TYPES})\s+(?P<names>[A-Za-z_]\w*(?:\s*(?:=[^,;()]*)?\s*,\s*[A-Za-z_]\w*)*)")
_ASSIGNMENT = re.compile(r"(?<![\w.>])(?P<name>[A-Za-z_]\w*)\s*=\s*\{\s*\}\s*;")


def assign_zero_values(text: str) -> tuple[str, int]:
    """`text` with each `x = {};` of a 16-bit float variable it declares spelled as a value assignment."""
    masked = mask_literals_and_comments(text)
    declared = {name for match in _DECLARATION.finditer(masked)
                for name in re.findall(r"(?:^|,)\s*([A-Za-z_]\w*)", match.group("names"))}
    if not declared:
        return text, 0
    edits = [match for match in _ASSIGNMENT.finditer(masked) if match.group("name") in declared]
    for match in reversed(edits):
        name = match.group("name")
        text = f"{text[:match.start()]}{name} = __typeof__({name}){{}};{text[match.end():]}"
    return text, len(edits)
