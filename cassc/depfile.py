"""Make-style dependency files: read clang's, map mirrored paths back to the user's files, write
them as nvcc would (the object as target, the user's original headers as prerequisites)."""

from __future__ import annotations

import re
from typing import Callable


def parse_depfile(text: str) -> list[str]:
    """The prerequisites of a depfile with one rule (the target is dropped)."""
    joined = re.sub(r"\\\n", " ", text)
    _, _, prerequisites = joined.partition(": ")
    if not _:
        _, _, prerequisites = joined.partition(":")
    words = re.findall(r"(?:\\ |[^ \n\t])+", prerequisites)
    return [w.replace("\\ ", " ") for w in words]


def format_depfile(targets: list[str], prerequisites: list[str], phony: bool) -> str:
    escape: Callable[[str], str] = lambda p: p.replace(" ", "\\ ").replace("#", "\\#").replace("$", "$$")
    lines = [" ".join(escape(t) for t in targets) + " : \\"]
    lines += [f"    {escape(p)} \\" for p in prerequisites[:-1]]
    if prerequisites:
        lines.append(f"    {escape(prerequisites[-1])}")
    else:
        lines[0] = lines[0].removesuffix(" \\")
    text = "\n".join(lines) + "\n"
    if phony:
        text += "".join(f"\n{escape(p)}:\n" for p in prerequisites[1:])
    return text
