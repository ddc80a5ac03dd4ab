"""The `template` keyword nvcc lets code leave out before a member template of a template-id.

`vec_cast<T, U>::cast<N>(dst, src)` inside a template names a member template of a dependent type, which C++
spells `vec_cast<T, U>::template cast<N>(...)`. nvcc's front end (EDG, GNU mode) takes the `<` after such a name
as a template argument list when what follows reads as one; clang before 20 parses it as a less-than and fails
("reference to overloaded function could not be resolved"). A call `A<...>::name<...>(` therefore gets the keyword
(which C++11 allows wherever the name is a template, dependent or not). Only a chained comparison
`A<B>::value < N > (x)` reads the same way, and that compares a bool with `(x)`: code says it otherwise.
"""

from __future__ import annotations

import re

from cassc.source_tokens import mask_literals_and_comments

# `>::name<` where the `>` closes a template argument list (not `->`) and no `template` is there yet.
_MEMBER_TEMPLATE = re.compile(r"(?<!-)>\s*::\s*(?!template\b|operator\b)(?P<name>[A-Za-z_]\w*)\s*<")


def _template_arguments_end(masked: str, start: int) -> int | None:
    """The index just past the `>` closing the `<` that ends at `start`, if the text between reads as template
    arguments (balanced brackets, no statement punctuation)."""
    depth = 1
    brackets = 0
    for index in range(start, len(masked)):
        char = masked[index]
        if char in ";{}":
            return None
        if char in "([":
            brackets += 1
        elif char in ")]":
            brackets -= 1
            if brackets < 0:
                return None
        elif char == "<" and brackets == 0:
            depth += 1
        elif char == ">" and brackets == 0:
            depth -= 1
            if depth == 0:
                return index + 1
    return None


def add_template_keywords(text: str) -> tuple[str, int]:
    """`text` with `template` before each member template called as `A<...>::name<...>(`; and how many."""
    masked = mask_literals_and_comments(text)
    insertions = []
    for match in _MEMBER_TEMPLATE.finditer(masked):
        end = _template_arguments_end(masked, match.end())
        if end is not None and masked[end:].lstrip().startswith("("):
            insertions.append(match.start("name"))
    for position in reversed(insertions):
        text = f"{text[:position]}template {text[position:]}"
    return text, len(insertions)
