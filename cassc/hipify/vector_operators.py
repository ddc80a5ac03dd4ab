"""Operators that CUDA code defines on CUDA's vector types and HIP already has.

CUDA's `float4`, `int2`... have no operators, so CUDA code defines them (CUDA samples' helper_math.h
does it for every type). HIP's vector types bring their own: most binary operators are templates, which a
user's non-template overload beats, but `operator+=(const HIP_vector_type&)` and its kin are non-template
members, and HIP 6's `operator*` and `operator/` of two vectors are non-template friends, so a user's free
`operator+=(float4&, float4)` or `float2 operator/(float2, float2)` makes every `a += b` or `a / b`
ambiguous. A user definition whose body is exactly HIP's element-wise meaning (`a.x += b.x; a.y += b.y;
...`, maybe `return a;`; `return make_float2(a.x / b.x, a.y / b.y);`) is compiled only where HIP's vector
types are absent (a file with its own `float4` struct keeps it), and `#line` directives keep every line's
number. Any other body is left alone: the compile then fails as before, and says where.
"""

from __future__ import annotations

import re

from cassc.source_tokens import closing_bracket, mask_literals_and_comments

VECTOR_TYPE = re.compile(r"(?:u?char|u?short|u?int|u?long|u?longlong|longlong|float|double)([1-4])")
COMPONENTS = "xyzw"
HIP_VECTOR_TYPES_GUARD = "HIP_INCLUDE_HIP_AMD_DETAIL_HIP_VECTOR_TYPES_H"
_DEFINITION = re.compile(
    r"""^[ \t]*
    (?:(?:inline|static|constexpr|__host__|__device__|__forceinline__|__inline__|[A-Z][A-Z0-9_]*)\s+)*
    (?:void|(?P<returned>\w+)\s*&)\s*
    operator\s*(?P<op>\+|-|\*|/|%|&|\||\^|<<|>>)=\s*
    \(\s*(?P<left_type>\w+)\s*&\s*(?P<left>\w+)\s*,\s*(?:const\s+)?(?P<right_type>\w+)\s*&?\s*(?P<right>\w+)\s*\)
    \s*\{""",
    re.MULTILINE | re.VERBOSE,
)
_BINARY_DEFINITION = re.compile(
    r"""^[ \t]*
    (?:(?:inline|static|constexpr|__host__|__device__|__forceinline__|__inline__|[A-Z][A-Z0-9_]*)\s+)*
    (?P<returned>\w+)\s+
    operator\s*(?P<op>\+|-|\*|/)\s*
    \(\s*(?:const\s+)?(?P<left_type>\w+)\s*&?\s*(?P<left>\w+)\s*,\s*(?:const\s+)?(?P<right_type>\w+)\s*&?\s*(?P<right>\w+)\s*\)
    \s*\{""",
    re.MULTILINE | re.VERBOSE,
)


def guard_builtin_vector_operators(text: str) -> tuple[str, int]:
    """`text` with the operator definitions HIP provides made conditional on HIP's vector types being
    absent, and how many there were."""
    pieces: list[str] = []
    position = guarded = 0
    masked = mask_literals_and_comments(text)
    found = sorted([(m, _is_elementwise) for m in _DEFINITION.finditer(masked)]
                   + [(m, _is_elementwise_binary) for m in _BINARY_DEFINITION.finditer(masked)],
                   key=lambda pair: pair[0].start())
    for match, is_hips in found:
        if match.start() < position:
            continue
        end = closing_bracket(masked, match.end())
        if end is None or not is_hips(match, text[match.end():end - 1]):
            continue
        definition = text[match.start():end]
        first_line = text.count("\n", 0, match.start()) + 1
        last_line = first_line + definition.count("\n")
        pieces += [text[position:match.start()],
                   f"#if !defined({HIP_VECTOR_TYPES_GUARD}) /* cassc: HIP's vector types have this operator */\n",
                   f"#line {first_line}\n", definition, f"\n#endif\n#line {last_line}\n"]
        position = end
        guarded += 1
    pieces.append(text[position:])
    return "".join(pieces), guarded


def _is_elementwise(match: re.Match[str], body: str) -> bool:
    vector = VECTOR_TYPE.fullmatch(match["left_type"])
    if vector is None or match["right_type"] != match["left_type"]:
        return False
    if match["returned"] is not None and match["returned"] != match["left_type"]:
        return False
    op, left, right = match["op"], match["left"], match["right"]
    components = COMPONENTS[:int(vector.group(1))]
    statements = [s for s in re.sub(r"\s+", "", body).split(";") if s]
    if statements and statements[-1] == f"return{left}":
        statements.pop()
    spellings = [{f"{left}.{c}{op}={right}.{c}", f"{left}.{c}={left}.{c}{op}{right}.{c}"} for c in components]
    return len(statements) == len(components) and all(
        any(statement in spelled for spelled in spellings) for statement in statements) and all(
        any(statement in spelled for statement in statements) for spelled in spellings)


def _is_elementwise_binary(match: re.Match[str], body: str) -> bool:
    """`T operator@(T a, T b) { return make_T(a.x @ b.x, ...); }` on a vector type T."""
    vector = VECTOR_TYPE.fullmatch(match["left_type"])
    if vector is None or not match["returned"] == match["left_type"] == match["right_type"]:
        return False
    op, left, right = match["op"], match["left"], match["right"]
    elements = ",".join(f"{left}.{c}{op}{right}.{c}" for c in COMPONENTS[:int(vector.group(1))])
    return re.sub(r"\s+", "", body) in (f"returnmake_{match['left_type']}({elements});",
                                        f"return{match['left_type']}{{{elements}}};")
