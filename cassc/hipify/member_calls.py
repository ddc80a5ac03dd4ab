"""Member functions CUDA's classes have and HIP's lack, called as cassc's free functions instead.

`tile.meta_group_size()` cannot be given to HIP 5.2's `thread_block_tile` (a class in HIP's headers),
but `__cassc_meta_group_size(tile)` can be defined beside it (`cuda_compat.h`). The table
`member-calls.tsv` names each member and its free function; the rule rewrites calls on a plain receiver
(`name`, `a.b`, `a->b`, `a[i]`), the shape CUDA code uses, on one line, so line numbers stay: with no
arguments, or, for rows whose third column is `arguments`, with any (`g.ballot(p)` -> `__cassc_ballot(g, p)`;
only the head of the call changes). Literals and comments are untouched. Members other classes have too
(`bits.any()`) reach the object's own member: the free functions (`data/include/cassc/member_calls.h`)
call it wherever it exists.
"""

from __future__ import annotations

import re
from functools import cache

from cassc.hipify.tables import MEMBER_CALL_TABLE, TABLE_DIR, read_rows
from cassc.source_tokens import mask_literals_and_comments

_RECEIVER = r"(?P<receiver>[A-Za-z_]\w*(?:\s*(?:\.|->)\s*[A-Za-z_]\w*|\s*\[[^\[\]\n]*\])*)"


@cache
def _member_calls() -> tuple[dict[str, str], frozenset[str], re.Pattern[str]]:
    rows = read_rows(TABLE_DIR / MEMBER_CALL_TABLE)
    renames = {cuda: cassc for cuda, cassc, _, _ in rows}
    with_arguments = frozenset(cuda for cuda, _, _, more in rows if more[:1] == ["arguments"])
    names = "|".join(sorted(map(re.escape, renames), key=len, reverse=True))
    return renames, with_arguments, re.compile(
        _RECEIVER + rf"\s*(?P<access>\.|->)\s*(?P<member>{names})\s*\((?P<empty>\s*\))?")


def rewrite_member_calls(text: str) -> tuple[str, int]:
    """`text` with each table member's calls made free-function calls, and how many there were."""
    renames, with_arguments, pattern = _member_calls()
    if not any(member in text for member in renames):
        return text, 0
    masked = mask_literals_and_comments(text)
    pieces: list[str] = []
    position = count = 0
    for match in pattern.finditer(masked):
        if not match["empty"] and match["member"] not in with_arguments:
            continue
        receiver = text[match.start("receiver"):match.end("receiver")]
        if match["access"] == "->":  # the functions take the object, as the member call's `this` names it
            receiver = f"*{receiver}"
        call = f"{renames[match['member']]}({receiver}" + (")" if match["empty"] else ", ")
        pieces += [text[position:match.start()], call]
        position = match.end()
        count += 1
    pieces.append(text[position:])
    return "".join(pieces), count
