"""The include guards CUDA's own headers define, read from an installed CUDA toolkit's include directory.

A header's guard is its first `#ifndef X` / `#if !defined(X)` directly followed by `#define X` (no value);
CUDA's headers chain (cuda_runtime.h includes driver_types.h, ...), so a header leaves the guards of every
CUDA header it includes, followed transitively.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

CUDA_INCLUDE = Path("/usr/local/cuda/include")
# A marker CUDA's headers set and unset around their internal includes: not a header's guard.
_NOT_GUARDS = {"__CUDA_INCLUDE_COMPILER_INTERNAL_HEADERS__"}
_GUARD = re.compile(r"^[ \t]*#[ \t]*(?:ifndef[ \t]+(\w+)|if[ \t]+!defined\(?[ \t]*(\w+)[ \t]*\)?)[ \t]*\n"
                    r"[ \t]*#[ \t]*define[ \t]+(\w+)[ \t]*$", re.MULTILINE)
_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"]([^>"]+)[>"]', re.MULTILINE)


def _strip_comments(text: str) -> str:
    return re.sub(r"/\*.*?\*/|//[^\n]*", "", text, flags=re.DOTALL)


@cache
def own_guard(path: Path) -> str | None:
    for match in _GUARD.finditer(_strip_comments(path.read_text(errors="replace"))):
        tested = match.group(1) or match.group(2)
        if tested == match.group(3) and tested not in _NOT_GUARDS:
            return tested
    return None


@cache
def cuda_includes(path: Path) -> tuple[Path, ...]:
    found = []
    for header in _INCLUDE.findall(_strip_comments(path.read_text(errors="replace"))):
        for directory in (path.parent, CUDA_INCLUDE):
            candidate = (directory / header).resolve()
            if candidate.is_file() and candidate.is_relative_to(CUDA_INCLUDE.resolve()):
                found.append(candidate)
                break
    return tuple(found)


def chained_guards(header: str) -> set[str]:
    """Guards defined after `#include <header>`: its own and those of every CUDA header it reaches."""
    seen: set[Path] = set()
    pending = [(CUDA_INCLUDE / header).resolve()]
    guards: set[str] = set()
    while pending:
        path = pending.pop()
        if path in seen:
            continue
        seen.add(path)
        guard = own_guard(path)
        if guard:
            guards.add(guard)
        pending += cuda_includes(path)
    return guards
