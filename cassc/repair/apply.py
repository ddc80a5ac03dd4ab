"""Checking a model's replacement for a region, and putting it in place.

A replacement is accepted for compiling only when it changes nothing the diagnostics did not point at:
string and character literals stay the same (models turn "CUDA" into "HIP" in printf), output streams
stay the same (models turn std::cout into std::cerr), and every changed line lies at or next to a line
an error names. The replacement only ever replaces its region, in cassc's mirror of the user's file.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter

from cassc.repair.prompt import AnswerRejected
from cassc.repair.region import Region
from cassc.source_tokens import Token, code_tokens

OUTPUT_STREAMS = frozenset({"cout", "cerr", "clog", "wcout", "wcerr", "printf", "fprintf", "puts", "fputs",
                            "putchar", "stdout", "stderr", "fwrite", "perror"})
IMPLICATED_REACH = 1  # a fix may sit one line from the error (a missing `;` is reported on the next line)


def check_replacement(original: str, replacement: str, implicated: set[tuple[int, int]]) -> None:
    """Raise AnswerRejected unless `replacement` differs from `original` (both region texts, lines
    counted from 1) only where errors point: `implicated` holds each error's (line, column)."""
    before, after = code_tokens(original), code_tokens(replacement)
    changeable = _changeable_literals(before, implicated)
    old_literals = [t for t in before if t.kind == "literal"]
    new_literals = [t.text for t in after if t.kind == "literal"]
    literals = difflib.SequenceMatcher(a=[t.text for t in old_literals], b=new_literals, autojunk=False)
    for tag, i1, i2, j1, j2 in literals.get_opcodes():
        if tag == "equal":
            continue
        fixed = [t.text for t in old_literals[i1:i2] if t not in changeable]
        beside_changeable = any(t in changeable for t in old_literals[max(i1 - 1, 0):i1 + 1])
        if fixed or (i1 == i2 and not beside_changeable):
            old = " ".join(fixed) or "nothing"
            new = " ".join(new_literals[j1:j2]) or "nothing"
            raise AnswerRejected(f"it changes a string literal no error points at ({old} -> {new})")
    old_streams = Counter(t.text for t in before if t.text in OUTPUT_STREAMS)
    new_streams = Counter(t.text for t in after if t.text in OUTPUT_STREAMS)
    if old_streams != new_streams:
        gone = ", ".join(sorted((old_streams - new_streams).elements())) or "nothing"
        added = ", ".join(sorted((new_streams - old_streams).elements())) or "nothing"
        raise AnswerRejected(f"it changes output streams ({gone} -> {added})")
    old_lines = [_normalized(line) for line in original.splitlines()]
    new_lines = [_normalized(line) for line in replacement.splitlines()]
    if old_lines == new_lines:
        raise AnswerRejected("it is the failing code unchanged")
    allowed = {line + d for line, _ in implicated for d in range(-IMPLICATED_REACH, IMPLICATED_REACH + 1)}
    matcher = difflib.SequenceMatcher(a=old_lines, b=new_lines, autojunk=False)
    for tag, i1, i2, j1, _ in matcher.get_opcodes():
        if tag == "equal":
            continue
        if i2 > i1:  # lines replaced or deleted: each must be allowed
            inside = all(line in allowed for line in range(i1 + 1, i2 + 1))
        else:  # lines inserted between old lines i1 and i1 + 1: one neighbour must be allowed
            inside = i1 in allowed or i1 + 1 in allowed
        if not inside:
            line = i1 + 1 if i2 > i1 else j1 + 1
            shown = (original.splitlines()[i1] if i2 > i1 else replacement.splitlines()[j1]).strip()
            raise AnswerRejected(f"it changes region line {line} (`{shown[:80]}`), which no error points at")


def _changeable_literals(tokens: list[Token], implicated: set[tuple[int, int]]) -> set[Token]:
    """The literals of each statement whose error points into a literal (PTX in an `asm` statement,
    with its operand constraints). An error pointing elsewhere makes no literal changeable: in
    `printf("CUDA %d", cudaFoo())` the error is at cudaFoo and "CUDA %d" stays."""
    changeable: set[Token] = set()
    for index, token in enumerate(tokens):
        if token.kind != "literal" or not any(token.covers(*at) for at in implicated):
            continue
        start = index
        while start > 0 and tokens[start - 1].text not in (";", "{", "}"):
            start -= 1
        end = index
        while end < len(tokens) - 1 and tokens[end].text != ";":
            end += 1
        changeable.update(t for t in tokens[start:end + 1] if t.kind == "literal")
    return changeable


def _normalized(line: str) -> str:
    return " ".join(line.split())


_LINE_DIRECTIVE = re.compile(r'[ \t]*#[ \t]*line[ \t]+([0-9]+)[ \t]+"((?:\\.|[^"\\])*)"')


def user_lines(mirrored_text: str) -> list[int]:
    """The user's line number of each line of a mirrored file (index 0, the `#line 1` header, is 0),
    following the `#line` directives hipify and earlier splices put there."""
    numbers = []
    following = 0
    for line in mirrored_text.split("\n"):
        numbers.append(following)
        directive = _LINE_DIRECTIVE.match(line)
        following = int(directive.group(1)) if directive else following + 1
    return numbers


def display_name(mirrored_text: str) -> str:
    """The name the mirrored file's `#line 1` header gives the user's file (as diagnostics spell it)."""
    directive = _LINE_DIRECTIVE.match(mirrored_text.split("\n", 1)[0])
    if directive is None:
        raise ValueError("a mirrored file starts with its #line header")
    return re.sub(r"\\(.)", r"\1", directive.group(2))


def splice(mirrored_text: str, region: Region, replacement: str) -> str:
    """Replace the region (lines counted as indexes into the mirrored file, whose line 0 is the `#line`
    header). A shorter replacement is padded with blank lines, a longer one followed by a `#line`
    directive, so every later line keeps the number the user's file gives it."""
    lines = mirrored_text.split("\n")
    numbers = user_lines(mirrored_text)
    old_count = region.last_line - region.first_line + 1
    new = replacement.rstrip("\n").split("\n")
    if len(new) < old_count:
        new += [""] * (old_count - len(new))
    elif len(new) > old_count:
        escaped = display_name(mirrored_text).replace("\\", "\\\\").replace('"', '\\"')
        new.append(f'#line {numbers[region.last_line] + 1} "{escaped}"')
    lines[region.first_line:region.last_line + 1] = new
    return "\n".join(lines)


def region_text(mirrored_text: str, region: Region) -> str:
    return "\n".join(mirrored_text.split("\n")[region.first_line:region.last_line + 1]) + "\n"


def unified_diff(original: str, replacement: str, name: str, first_line: int) -> str:
    lines = difflib.unified_diff(original.splitlines(keepends=True), replacement.splitlines(keepends=True),
                                 fromfile=f"{name} (hipified)", tofile=f"{name} (model repair)", n=2)
    # hunk headers count from the region's first line
    out = []
    for line in lines:
        if line.startswith("@@"):
            line = _shift_hunk(line, first_line - 1)
        out.append(line if line.endswith("\n") else line + "\n")
    return "".join(out)


def _shift_hunk(header: str, offset: int) -> str:
    parts = header.split(" ")
    for index in (1, 2):
        sign, rest = parts[index][0], parts[index][1:]
        start, _, count = rest.partition(",")
        parts[index] = f"{sign}{int(start) + offset}" + (f",{count}" if count else "")
    return " ".join(parts)
