"""C++ source text as tokens, for the passes that must not look inside literals and comments: the
source rules of hipify and model repair's regions and answer checks."""

from __future__ import annotations

import bisect
import functools
import re
from dataclasses import dataclass

TOKEN = re.compile(
    r"""
    (?P<comment>//[^\n]*|/\*(?s:.*?)\*/)
  | (?P<directive>^[ \t]*\#(?:\\\n|[^\n])*)
  | (?P<literal>
        (?:u8|[uUL])?R"(?P<delim>[^()\\\s]{0,16})\((?s:.*?)\)(?P=delim)"
      | (?:u8|[uUL])?"(?:\\.|[^"\\\n])*"
      | (?:u8|[uUL])?'(?:\\.|[^'\\\n])*'
    )
  | (?P<identifier>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<number>\.?[0-9](?:[eEpP][+-]|[A-Za-z0-9_.'])*)
  | (?P<punct>::|->|<<|>>|[^\sA-Za-z0-9_])
    """,
    re.MULTILINE | re.VERBOSE,
)


@dataclass(frozen=True)
class Token:
    kind: str  # comment, directive, literal, identifier, number, punct
    text: str
    line: int  # 1-based line of its first character
    column: int  # 1-based, as clang counts them

    def covers(self, line: int, column: int) -> bool:
        return line == self.line and self.column <= column < self.column + len(self.text)


def tokenize(text: str) -> list[Token]:
    newlines = [i for i, c in enumerate(text) if c == "\n"]
    tokens = []
    for match in TOKEN.finditer(text):
        line = bisect.bisect_left(newlines, match.start())
        column = match.start() - (newlines[line - 1] + 1 if line else 0) + 1
        tokens.append(Token(str(match.lastgroup), match.group(0), line + 1, column))
    return tokens


def code_tokens(text: str) -> list[Token]:
    return [t for t in tokenize(text) if t.kind not in ("comment", "directive")]


# hipify's passes run one after the other over a file and each masks the text it gets: most passes change
# nothing, so the next one masks the same text again (tokenizing is most of a pass's time).
@functools.lru_cache(maxsize=4)
def mask_literals_and_comments(text: str) -> str:
    """`text` with the inside of every comment and literal blanked (newlines and quotes kept): same
    length and line breaks, so positions found in it are positions in `text`."""
    pieces = []
    position = 0
    for match in TOKEN.finditer(text):
        if match.lastgroup not in ("comment", "literal"):
            continue
        body = re.sub(r"[^\n]", " ", match.group(0))
        if match.lastgroup == "literal":
            body = match.group(0)[0] + body[1:-1] + match.group(0)[-1]
        pieces += [text[position:match.start()], body]
        position = match.end()
    pieces.append(text[position:])
    return "".join(pieces)


def closing_bracket(masked: str, start: int) -> int | None:
    """In masked text, the index just past the bracket closing the one that ends at `start`."""
    depth = 1
    for index in range(start, len(masked)):
        if masked[index] in "([{":
            depth += 1
        elif masked[index] in ")]}":
            depth -= 1
            if depth == 0:
                return index + 1
    return None
