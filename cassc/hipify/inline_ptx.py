"""Inline PTX with a HIP builtin of the same meaning, rewritten to that builtin.

`asm volatile("bfe.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c))` becomes
`d = __bitextract_u32(a, b, c)`, from the rows of `tables/inline-ptx.tsv`. Only statements whose whole
template is one known instruction are rewritten; anything else stays for clang to report. Newlines
inside the statement are kept, so line numbers do not move.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from cassc.source_tokens import closing_bracket, mask_literals_and_comments

TABLE = Path(__file__).parent / "tables" / "inline-ptx.tsv"
_ASM = re.compile(r"\b(?:asm|__asm__|__asm)\s*(?:volatile\s*|__volatile__\s*)?\(")
_OPERAND = re.compile(r'\s*"[^"]*"\s*\((?P<expression>.*)\)\s*', re.DOTALL)


@dataclass(frozen=True)
class PtxRule:
    pattern: re.Pattern[str]  # matches a whole template; groups: `$name` operands (%N), `#name` immediates
    hip: str  # the replacement, `$name` marking operands


@cache
def load_rules(path: Path = TABLE) -> tuple[PtxRule, ...]:
    rules = []
    lines = path.read_text().splitlines()
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        ptx, _, hip = line.partition("\t")
        if not hip:
            raise ValueError(f"{path}:{number}: expected 'ptx<TAB>hip'")
        rules.append(PtxRule(_template_pattern(ptx.strip()), hip.strip()))
    return tuple(rules)


def _template_pattern(ptx: str) -> re.Pattern[str]:
    pieces = []
    for token in re.split(r"([$#]\w+|\s+|,|\{[^{}]*\})", ptx):
        if not token:
            continue
        if token.startswith("{") and token.endswith("}") and len(token) > 1:  # alternatives; an empty one: optional
            pieces.append("(?:" + "|".join(map(re.escape, token[1:-1].split("|"))) + ")")
        elif token.startswith("$"):
            pieces.append(f"(?P<{token[1:]}>%\\d+)")
        elif token.startswith("#"):
            pieces.append(f"(?P<{token[1:]}>0[xX][0-9a-fA-F]+|\\d+)")
        elif token.isspace():
            pieces.append(r"\s*")
        elif token == ",":
            pieces.append(r"\s*,\s*")
        else:
            pieces.append(re.escape(token))
    return re.compile(r"\s*" + "".join(pieces).replace(r"\[", r"\[\s*").replace(r"\]", r"\s*\]") + r"\s*;?\s*")


def rewrite_inline_ptx(text: str, rules: tuple[PtxRule, ...] | None = None) -> tuple[str, int]:
    """`text` with every known single-instruction asm statement replaced, and how many there were."""
    rules = rules if rules is not None else load_rules()
    masked = mask_literals_and_comments(text)
    pieces: list[str] = []
    position = rewritten = 0
    for match in _ASM.finditer(masked):
        if match.start() < position:
            continue
        end = closing_bracket(masked, match.end())
        if end is None:
            continue
        replacement = _replacement(text[match.end():end - 1], rules)
        if replacement is None:
            continue
        newlines = text.count("\n", match.start(), end)
        pieces += [text[position:match.start()], f"({replacement})", "\n" * newlines]
        position = end
        rewritten += 1
    pieces.append(text[position:])
    return "".join(pieces), rewritten


def _replacement(inside: str, rules: tuple[PtxRule, ...]) -> str | None:
    sections = _split_top_level(inside, ":")
    template = "".join(re.findall(r'"((?:\\.|[^"\\])*)"', sections[0]))
    template = template.replace("\\n", " ").replace("\\t", " ")
    if len(sections) > 1:  # extended asm spells a literal % as %%
        template = template.replace("%%", "%")
    operands: list[str] = []
    for section in sections[1:3]:
        for operand in _split_top_level(section, ","):
            if not operand.strip():
                continue
            bound = _OPERAND.fullmatch(operand)
            if bound is None:
                return None
            operands.append(f"({bound['expression'].strip()})")
    for rule in rules:
        found = rule.pattern.fullmatch(template)
        if found is None:
            continue
        result = rule.hip
        for name, reference in sorted(found.groupdict().items(), key=lambda kv: -len(kv[0])):
            if not reference.startswith("%"):  # an immediate written in the template
                result = result.replace(f"${name}", reference)
                continue
            index = int(reference[1:])
            if index >= len(operands):
                return None
            result = result.replace(f"${name}", operands[index])
        return result
    return None


def _split_top_level(text: str, separator: str) -> list[str]:
    parts, depth, start = [], 0, 0
    masked = mask_literals_and_comments(text)
    for i, char in enumerate(masked):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == separator and depth == 0:  # `"..." :: "r"(x)` is an empty output list, then inputs
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts
