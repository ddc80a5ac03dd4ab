"""The smallest enclosing definition (function, kernel, class) around a line, found by a token scanner
that skips literals, comments and preprocessor lines, so braces inside them do not count."""

from __future__ import annotations

from dataclasses import dataclass

from cassc.source_tokens import Token, code_tokens


@dataclass(frozen=True)
class Region:
    first_line: int  # 1-based, inclusive
    last_line: int
    name: str  # the function or type it defines, or "declaration"

    def contains(self, line: int) -> bool:
        return self.first_line <= line <= self.last_line


_TRANSPARENT = ("namespace", "extern")  # `namespace x {` and `extern "C" {` hold definitions, are none


def top_level_regions(text: str) -> list[Region]:
    """Every definition and declaration at namespace scope, in order."""
    tokens = code_tokens(text)
    regions = []
    start = 0  # first token of the declaration being read
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token.text == ";":
            regions.append(Region(tokens[start].line, token.line, "declaration"))
            start = index = index + 1
            continue
        if token.text == "}":  # closes a transparent block
            start = index = index + 1
            continue
        if token.text != "{":
            index += 1
            continue
        header = tokens[start:index]
        if header and header[0].text in _TRANSPARENT and all(t.kind != "punct" or t.text == "::" for t in header):
            start = index = index + 1
            continue
        close = _matching_brace(tokens, index)
        end = close + 1 if close + 1 < len(tokens) and tokens[close + 1].text == ";" else close
        first = tokens[start].line if header else token.line
        regions.append(Region(first, tokens[min(end, len(tokens) - 1)].line, _defined_name(header)))
        start = index = end + 1
    return regions


def _matching_brace(tokens: list[Token], open_index: int) -> int:
    depth = 0
    for index in range(open_index, len(tokens)):
        if tokens[index].text == "{":
            depth += 1
        elif tokens[index].text == "}":
            depth -= 1
            if depth == 0:
                return index
    return len(tokens) - 1


def _defined_name(header: list[Token]) -> str:
    words = [t.text for t in header]
    for keyword in ("struct", "class", "union", "enum"):
        if keyword in words and "(" not in words[: words.index(keyword)]:
            following = words[words.index(keyword) + 1:]
            return next((w for w in following if w.isidentifier()), keyword)
    if "(" in words:
        before = words[: words.index("(")]
        return next((w for w in reversed(before) if w.isidentifier()), "function")
    return "definition"


def enclosing_region(text: str, line: int) -> Region | None:
    return next((r for r in top_level_regions(text) if r.contains(line)), None)
