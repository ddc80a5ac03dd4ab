"""CUDA's driver result type kept apart from the runtime's where code overloads a function on both.

CUDA's `CUresult` (driver API) and `cudaError_t` (runtime) are two enums; HIP has one, `hipError_t`, for both.
Code that defines a function for each, as NVIDIA's samples' helper_cuda.h does with CUDA_DRIVER_API
(`static const char* _cudaGetErrorEnum(cudaError_t)` and `_cudaGetErrorEnum(CUresult)`), would define one
function twice. In the parameter list of a `static` or `inline` function definition (internal or inline
linkage: no other unit, compiled elsewhere, names it), `CUresult` therefore becomes `__cassc_CUresult`
(cuda_compat.h), a class that converts to and from `hipError_t`: a call with a HIP error picks the other
overload where there is one (both report HIP's one error space), this one where not.
"""

from __future__ import annotations

import re

from cassc.source_tokens import closing_bracket, mask_literals_and_comments

DRIVER_RESULT = "__cassc_CUresult"
# A definition's head up to its parameter list: `static`/`inline` among the specifiers on the same statement.
_DEFINITION_HEAD = re.compile(
    r"(?:^|(?<=[;{}]))[ \t\n]*(?P<head>(?:[\w:*&<>,]+[ \t\n]+)*?(?:static|inline|__inline__|__forceinline__)"
    r"\b[^;{}()=]*?)\b\w+\s*\(",
    re.MULTILINE,
)


def separate_driver_results(text: str) -> tuple[str, int]:
    """`text` with `CUresult` in the parameter lists of static/inline function definitions spelled as
    cassc's own driver result type; and how many parameter lists changed."""
    if "CUresult" not in text:
        return text, 0
    masked = mask_literals_and_comments(text)
    spans = []
    for match in _DEFINITION_HEAD.finditer(masked):
        end = closing_bracket(masked, match.end())
        if end is None or not re.match(r"\s*(?:const\s*)?(?:noexcept\s*)?\{", masked[end:]):
            continue
        if re.search(r"\bCUresult\b", masked[match.end():end]):
            spans.append((match.end(), end))
    for start, end in reversed(spans):
        text = text[:start] + re.sub(r"\bCUresult\b", DRIVER_RESULT, text[start:end]) + text[end:]
    return text, len(spans)
