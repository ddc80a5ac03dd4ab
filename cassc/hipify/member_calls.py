"""Member functions CUDA's cooperative groups have and HIP's lack, reached through cassc's member view.

`tile.meta_group_size()` cannot be given to HIP 5.2's `thread_block_tile` (a class in HIP's headers), so
the call's receiver is wrapped: `__cassc_members(tile).meta_group_size()`. The wrapper
(`data/include/cassc/member_calls.h`, pre-included into CUDA and C++ units) is the object itself for every
class but HIP's groups, so a user's own class (a `std::bitset`'s `any()`, a private `ballot` called inside
its class) keeps its member, called where the user called it with the user's access; for a cooperative
group it is cassc's view (`cassc/cooperative_groups.h`), whose members call the group's own where HIP has
one and cassc's version where not. Which member calls are wrapped, and by which function, is the table
`member-calls.tsv`. The rule wraps a plain receiver (`name`, `a.b`, `a->b`, `a[i]`), the shape CUDA code
uses, on one line, so line numbers stay; literals and comments are untouched.
"""

from __future__ import annotations

import re
from functools import cache

from cassc.hipify.tables import MEMBER_CALL_TABLE, TABLE_DIR, read_rows
from cassc.source_tokens import mask_literals_and_comments

_RECEIVER = r"(?P<receiver>[A-Za-z_]\w*(?:\s*(?:\.|->)\s*[A-Za-z_]\w*|\s*\[[^\[\]\n]*\])*)"


@cache
def _member_calls() -> tuple[dict[str, str], re.Pattern[str]]:
    wrappers = {member: wrapper for member, wrapper, _, _ in read_rows(TABLE_DIR / MEMBER_CALL_TABLE)}
    names = "|".join(sorted(map(re.escape, wrappers), key=len, reverse=True))
    return wrappers, re.compile(_RECEIVER + rf"\s*(?P<access>\.|->)\s*(?P<member>{names})\s*\(")


def rewrite_member_calls(text: str) -> tuple[str, int]:
    """`text` with each table member's calls made on the wrapped receiver, and how many there were."""
    wrappers, pattern = _member_calls()
    if not any(member in text for member in wrappers):
        return text, 0
    masked = mask_literals_and_comments(text)
    pieces: list[str] = []
    position = count = 0
    for match in pattern.finditer(masked):
        receiver = text[match.start("receiver"):match.end("receiver")]
        if match["access"] == "->":  # the wrapper takes the object the pointer names
            receiver = f"*{receiver}"
        pieces += [text[position:match.start()], f"{wrappers[match['member']]}({receiver})."]
        position = match.start("member")
        count += 1
    pieces.append(text[position:])
    return "".join(pieces), count
