"""Rename CUDA identifiers and headers in one source text, token by token.

String and character literals and comments are never changed (a program printing "CUDA" keeps
printing "CUDA"), and line numbers stay those of the user's file: the only lines added (the macros a
renamed CUDA header leaves defined, header-macros.tsv) are followed by a `#line` directive.
A kernel launch's chevrons spelled with blanks inside, `k<< <grid, block>> >(...)`, which nvcc's front
end reads as `<<<`/`>>>`, are joined; `operator<< <T>` and a template's `> >> ` are not launches.
An elaborated type name whose CUDA tag is renamed (`struct cudaGraphicsResource *r`) loses its `struct`/
`union`/`enum` keyword: HIP's name is often a typedef of another tag, which C++ rejects after `struct`,
and in C++ (every CUDA unit) a tag names its type without the keyword. A declaration of the tag itself
(`struct cudaArray;`, `struct cudaArray {`) keeps it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cassc.hipify.tables import RenameTables

_TOKENS = re.compile(
    r"""
    (?P<include>^[ \t]*\#[ \t]*include[ \t]*(?P<open>[<"])(?P<header>[^>"\n]+)[>"])
  | (?P<literal>
        R"(?P<delim>[^()\\\s]{0,16})\((?s:.*?)\)(?P=delim)"
      | "(?:\\.|[^"\\\n])*"
      | '(?:\\.|[^'\\\n])*'
      | //[^\n]*
      | /\*(?s:.*?)\*/
    )
  | (?P<keyword>\b(?:struct|union|enum)\b)(?P<tag_space>\s+)(?P<tag>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<launch_open><<[ \t]*<)
  | (?P<launch_close>>>[ \t]*>)
  | (?P<identifier>[A-Za-z_][A-Za-z0-9_]*)
    """,
    re.MULTILINE | re.VERBOSE,
)


_OPERATOR_BEFORE = re.compile(r"\boperator[ \t]*\Z")
_DECLARES_TAG = re.compile(r"\s*[{;:]")


@dataclass(frozen=True)
class Include:
    header: str  # after renaming
    quoted: bool
    line: int
    spelled: str  # as the source wrote it


@dataclass(frozen=True)
class RewriteResult:
    text: str
    includes: tuple[Include, ...]
    renamed: int  # how many tokens were renamed


def rewrite_source(text: str, tables: RenameTables) -> RewriteResult:
    includes: list[Include] = []
    renamed = 0
    identifiers = tables.identifiers
    headers = tables.headers
    in_launch = False

    def replace(match: re.Match[str]) -> str:
        nonlocal renamed, in_launch
        if match.group("launch_open") is not None:
            if _OPERATOR_BEFORE.search(text, max(0, match.start() - 64), match.start()):
                return match.group(0)
            in_launch = True
            return "<<<"
        if match.group("launch_close") is not None:
            if not in_launch:
                return match.group(0)
            in_launch = False
            return ">>>"
        tag = match.group("tag")
        if tag is not None:
            hip = identifiers.get(tag)
            if hip is None:
                return match.group(0)
            renamed += 1
            if _DECLARES_TAG.match(text, match.end()):
                return match.group("keyword") + match.group("tag_space") + hip
            return hip
        name = match.group("identifier")
        if name is not None:
            hip = identifiers.get(name)
            if hip is None:
                return name
            renamed += 1
            return hip
        header = match.group("header")
        if header is not None:
            hip_header = headers.get(header)
            line = text.count("\n", 0, match.start()) + 1
            if hip_header is None:
                includes.append(Include(header, match.group("open") == '"', line, header))
                return match.group(0)
            renamed += 1
            includes.append(Include(hip_header, False, line, header))
            start = match.start("open") - match.start()
            companions = "".join(f"\n#include <{companion}>" for companion in tables.companion_headers(header))
            defines = "".join(f"\n#ifndef {macro}\n#define {macro}\n#endif"
                              for macro in tables.header_macros.get(header, ()))
            resume = f"\n#line {line + 1}" if companions or defines else ""
            return match.group(0)[:start] + f"<{hip_header}>" + companions + defines + resume
        return match.group(0)

    new_text = _TOKENS.sub(replace, text)
    return RewriteResult(new_text, tuple(includes), renamed)
