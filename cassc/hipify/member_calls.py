"""Member functions CUDA's classes have and HIP's lack, called as cassc's free functions instead.

`tile.meta_group_size()` cannot be given to HIP 5.2's `thread_block_tile` (a class in HIP's headers),
but `__cassc_meta_group_size(tile)` can be defined beside it (`cuda_compat.h`). The table
`member-calls.tsv` names each member and its free function; the rule rewrites calls with no arguments
on a plain receiver (`name`, `a.b`, `a->b`, `a[i]`), the shape CUDA code uses, on one line, so line
numbers stay. Literals and comments are untouched.
"""

from __future__ import annotations

import re
from functools import cache

from cassc.hipify.tables import MEMBER_CALL_TABLE, TABLE_DIR, read_table
from cassc.source_tokens import mask_literals_and_comments

_RECEIVER = r"(?P<receiver>[A-Za-z_]\w*(?:\s*(?:\.|->)\s*[A-Za-z_]\w*|\s*\[[^\[\]\n]*\])*)"


@cache
def _member_calls() -> tuple[dict[str, str], re.Pattern[str]]:
    renames = {cuda: cassc for cuda, cassc, _ in read_table(TABLE_DIR / MEMBER_CALL_TABLE)}
    names = "|".join(sorted(map(re.escape, renames), key=len, reverse=True))
    return renames, re.compile(_RECEIVER + rf"\s*(?:\.|->)\s*(?P<member>{names})\s*\(\s*\)")


def rewrite_member_calls(text: str) -> tuple[str, int]:
    """`text` with each table member's calls made free-function calls, and how many there were."""
    renames, pattern = _member_calls()
    if not any(member in text for member in renames):
        return text, 0
    masked = mask_literals_and_comments(text)
    pieces: list[str] = []
    position = count = 0
    for match in pattern.finditer(masked):
        receiver = text[match.start("receiver"):match.end("receiver")]
        pieces += [text[position:match.start()], f"{renames[match['member']]}({receiver})"]
        position = match.end()
        count += 1
    pieces.append(text[position:])
    return "".join(pieces), count
