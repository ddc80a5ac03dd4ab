"""Rename CUDA identifiers and headers in one source text, token by token.

String and character literals and comments are never changed (a program printing "CUDA" keeps
printing "CUDA"), and no line is added or removed, so line numbers stay those of the user's file.
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
  | (?P<identifier>[A-Za-z_][A-Za-z0-9_]*)
    """,
    re.MULTILINE | re.VERBOSE,
)


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

    def replace(match: re.Match[str]) -> str:
        nonlocal renamed
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
            return match.group(0)[:start] + f"<{hip_header}>"
        return match.group(0)

    new_text = _TOKENS.sub(replace, text)
    return RewriteResult(new_text, tuple(includes), renamed)
