"""A program's own definitions of device functions whose signature HIP's headers already define.

CUDA declares `atomicMax` for integers only; HIP adds `float` and `double` overloads (and `unsigned long`
ones for every integer atomic, `__ffs(unsigned)`, `__ffsll(unsigned long long)`...). Code written for CUDA
often defines the missing ones itself (`__device__ double atomicMax(double *, double)`, the classic
`atomicAdd(double *, double)` for `__CUDA_ARCH__ < 600`); after hipify that is a redefinition of HIP's.
Where a translation unit defines such a function, every use of the name in that unit is renamed to
`__cassc_user_<name>`: the program's own definitions keep that name, and each file of the unit starts with
a forwarding template of it for the signatures the program does not define, so each call means what it
meant under nvcc: the program's function where it has one (a non-template wins over the template on an exact match),
HIP's (CUDA's) otherwise. The names come from `user-overloads.tsv`, the functions HIP declares with
signatures CUDA's documented API lacks (found by comparing the two toolkits' device headers).
"""

from __future__ import annotations

import re
from functools import cache

from cassc.hipify.tables import TABLE_DIR, USER_OVERLOAD_TABLE, read_rows
from cassc.source_tokens import mask_literals_and_comments

# Words after which `name(...) {` is not a definition (`return f(x) {` cannot occur; `else f(x)` is a call).
_NOT_A_RETURN_TYPE = frozenset({"return", "else", "do", "case", "throw", "new", "delete", "sizeof", "co_return",
                                "co_yield", "co_await", "typedef", "using", "goto"})
_AFTER_PARAMETERS = re.compile(r"\s*(?:(?:const|noexcept|__attribute__\s*\(\((?:[^()]|\([^()]*\))*\)\))\s*)*\{")


@cache
def user_overload_names() -> tuple[frozenset[str], re.Pattern[str]]:
    names = frozenset(cuda for cuda, _, _, _ in read_rows(TABLE_DIR / USER_OVERLOAD_TABLE))
    alternatives = "|".join(sorted(map(re.escape, names), key=len, reverse=True))
    return names, re.compile(rf"(?<![\w.:>])(?<!->)(?P<name>{alternatives})\s*\(")


def defined_user_overloads(text: str) -> frozenset[str]:
    """The table's names that `text` defines as functions (a body follows the parameter list)."""
    names, pattern = user_overload_names()
    if not any(name in text for name in names):
        return frozenset()
    masked = mask_literals_and_comments(text)
    found = set()
    for match in pattern.finditer(masked):
        before = masked[:match.start()].rstrip()
        word = re.search(r"(\w+)\Z", before)
        if not before or not (before[-1] in "*&>" or word) or (word and word.group(1) in _NOT_A_RETURN_TYPE):
            continue
        close = _closing_parenthesis(masked, match.end() - 1)
        if close is not None and _AFTER_PARAMETERS.match(masked, close + 1):
            found.add(match["name"])
    return frozenset(found)


def rename_user_overloads(text: str, names: frozenset[str]) -> tuple[str, int]:
    """`text` with every identifier token in `names` renamed to its `__cassc_user_` name, outside
    literals and comments; and how many were renamed."""
    if not names:
        return text, 0
    masked = mask_literals_and_comments(text)
    pattern = re.compile(r"\b(?:" + "|".join(map(re.escape, sorted(names))) + r")\b")
    pieces: list[str] = []
    position = count = 0
    for match in pattern.finditer(masked):
        pieces += [text[position:match.start()], f"__cassc_user_{match.group(0)}"]
        position = match.end()
        count += 1
    pieces.append(text[position:])
    return "".join(pieces), count


def user_overload_forwarders(names: frozenset[str]) -> str:
    """The lines that give each renamed name the toolkit's own signatures: a template forwarding to the
    global function (HIP's, or CUDA's on the NVIDIA route), once per unit however many files carry it.
    Only where a CUDA or HIP compiler reads the file: a host compiler's unit has no toolkit functions."""
    lines = []
    for name in sorted(names):
        guard = f"__CASSC_USER_OVERLOAD_{name}"
        lines += [f"#if (defined(__HIP__) || defined(__CUDACC__)) && !defined({guard})", f"#define {guard}",
                  f"template <typename... A> __device__ inline auto __cassc_user_{name}(A... a) "
                  f"-> decltype(::{name}(a...)) {{ return ::{name}(a...); }}", "#endif"]
    return "".join(line + "\n" for line in lines)


def _closing_parenthesis(text: str, opening: int) -> int | None:
    depth = 0
    for index in range(opening, len(text)):
        character = text[index]
        if character == "(":
            depth += 1
        elif character == ")":
            depth -= 1
            if depth == 0:
                return index
        elif character in ";{}":
            return None
    return None
