"""The public names of CUDA 13's cooperative groups (cooperative_groups.h and the headers under
cooperative_groups/), read from the headers: classes, structs and functions declared in namespace
cooperative_groups outside its `details` namespaces and outside any class."""

from __future__ import annotations

import re
from pathlib import Path

CG_HEADERS = ("cooperative_groups.h", "cooperative_groups/details/*.h")
_TOKEN = re.compile(r"namespace\s+(\w+)\s*\{|\b(?:class|struct)\s+(?:__align__\((?:[^()]|\([^()]*\))*\)\s*)?(\w+)\s*(?:final\s*)?[:{<]|"
                    r"_CG_(?:STATIC_)?QUALIFIER\b[^;{()]*?\b(\w+)\s*\(|_CG_BEGIN_NAMESPACE|_CG_END_NAMESPACE|[{}]")
_PRIVATE_NAMESPACES = ("details", "internal", "impl")


def public_names(include: Path) -> set[str]:
    names: set[str] = set()
    for path in sorted(p for pattern in CG_HEADERS for p in include.glob(pattern)):
        text = re.sub(r"/\*.*?\*/|//[^\n]*", "", path.read_text(), flags=re.DOTALL)
        text = re.sub(r"^\s*#.*$", "", text, flags=re.MULTILINE)
        scopes: list[str] = []  # namespace names, or "" for any other brace
        for match in _TOKEN.finditer(text):
            token = match.group(0)
            public = all(scope and scope not in _PRIVATE_NAMESPACES for scope in scopes)
            if match.group(1):
                scopes.append(match.group(1))
            elif token == "_CG_BEGIN_NAMESPACE":
                scopes += ["cooperative_groups", "__v1"]
            elif token == "_CG_END_NAMESPACE":
                del scopes[-2:]
            elif token == "{":
                scopes.append("")
            elif token == "}":
                if scopes:
                    scopes.pop()
            else:
                name = match.group(2) or match.group(3)
                if public and scopes and not name.startswith("_"):
                    names.add(name)
                if match.group(2) and token.endswith("{"):
                    scopes.append("")  # the class body
    return names
