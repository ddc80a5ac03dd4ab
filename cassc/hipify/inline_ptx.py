"""Inline PTX with a HIP builtin of the same meaning, rewritten to that builtin.

`asm volatile("bfe.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c))` becomes
`d = __bitextract_u32(a, b, c)`, from the rows of `tables/inline-ptx.tsv`. Only statements whose whole
template is one known instruction are rewritten; anything else stays for clang to report. Newlines
inside the statement are kept, so line numbers do not move.

PTX spells one instruction's family through its qualifiers (`ld.acquire.gpu.global.u32`: order, scope,
state space, type), so a row names a qualifier slot by its vocabulary (`{@scope}`), and the vocabulary's
lines (`@scope<TAB>.cta=...`) say what each spelling means on the HIP side: one row per family, not per
spelling.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from cassc.source_tokens import closing_bracket, mask_literals_and_comments

TABLE = Path(__file__).parent / "tables" / "inline-ptx.tsv"
_ASM = re.compile(r"\b(?:asm|__asm__|__asm)\s*(?:volatile\s*|__volatile__\s*)?\(")
_CONSTRAINT = re.compile(r'"[^"]*"\s*\(')


@dataclass(frozen=True)
class PtxRule:
    pattern: re.Pattern[str]  # matches a whole template; groups: `$name` operands, `@name` qualifier slots
    hip: str  # the replacement, `$name` marking operands and `@name` the meaning of a slot's spelling
    vocabularies: dict[str, dict[str, str]]  # the slots' vocabularies: spelling -> meaning


@cache
def load_rules(path: Path = TABLE) -> tuple[PtxRule, ...]:
    rules = []
    vocabularies: dict[str, dict[str, str]] = {}
    lines = path.read_text().splitlines()
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line.startswith("@"):
            name, *entries = line.split("\t")
            try:
                vocabularies[name[1:]] = dict(entry.split("=", 1) for entry in entries)
            except ValueError:
                raise ValueError(f"{path}:{number}: expected '@name<TAB>spelling=meaning...'") from None
            continue
        ptx, _, hip = line.partition("\t")
        if not hip:
            raise ValueError(f"{path}:{number}: expected 'ptx<TAB>hip'")
        slots = re.findall(r"\{@(\w+)\}", ptx)
        unknown = [slot for slot in slots if slot not in vocabularies]
        if unknown:
            raise ValueError(f"{path}:{number}: no vocabulary '@{unknown[0]}' above this row")
        rules.append(PtxRule(_template_pattern(ptx.strip(), vocabularies), hip.strip(),
                             {slot: vocabularies[slot] for slot in slots}))
    return tuple(rules)


_IMMEDIATE = r"-?(?:0[xX][0-9a-fA-F]+|\d+)"


def _template_pattern(ptx: str, vocabularies: dict[str, dict[str, str]]) -> re.Pattern[str]:
    pieces = []
    # `{...}` holding no operand is a choice of spellings; braces around operands (`{$a, $b}`) are PTX's vectors
    for token in re.split(r"(\$\w+|\s+|,|\{[^{}$]*\})", ptx):
        if not token:
            continue
        if token.startswith("{@"):
            spellings = sorted(vocabularies[token[2:-1]], key=len, reverse=True)
            pieces.append(f"(?P<{token[2:-1]}>" + "|".join(map(re.escape, spellings)) + ")")
        elif token.startswith("{") and token.endswith("}") and len(token) > 1:  # an empty alternative: optional
            pieces.append("(?:" + "|".join(map(re.escape, token[1:-1].split("|"))) + ")")
        elif token.startswith("$"):  # PTX takes an immediate wherever it takes a register
            pieces.append(f"(?P<{token[1:]}>%\\d+|{_IMMEDIATE})")
        elif token.isspace():
            pieces.append(r"\s*")
        elif token == ",":
            pieces.append(r"\s*,\s*")
        else:
            pieces.append(re.escape(token))
    pattern = "".join(pieces)
    for bracket in ("[", "{"):
        pattern = pattern.replace("\\" + bracket, "\\" + bracket + r"\s*")
    for bracket in ("]", "}"):
        pattern = pattern.replace("\\" + bracket, r"\s*" + "\\" + bracket)
    return re.compile(r"\s*" + pattern + r"\s*;?\s*")


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
        found = _operands(section)
        if found is None:
            return None
        operands += found
    for rule in rules:
        found = rule.pattern.fullmatch(template)
        if found is None:
            continue
        result = rule.hip
        for name, spelling in sorted(found.groupdict().items(), key=lambda kv: -len(kv[0])):
            if name in rule.vocabularies:
                result = result.replace(f"@{name}", rule.vocabularies[name][spelling])
            elif not spelling.startswith("%"):  # an immediate written in the template
                result = result.replace(f"${name}", spelling)
            elif int(spelling[1:]) < len(operands):
                result = result.replace(f"${name}", operands[int(spelling[1:])])
            else:
                return None
        return result
    return None


def _operands(section: str) -> list[str] | None:
    """The C++ expressions of an output or input list, each `"constraint"(expression)` in turn: found by
    their own shape, since nvcc also takes a list whose separating comma is missing (`"r"(a) "l"(p)`)."""
    masked = mask_literals_and_comments(section)
    expressions, position = [], 0
    for constraint in _CONSTRAINT.finditer(masked):
        if masked[position:constraint.start()].strip(" \t\n,"):
            return None  # something else between operands (a named operand `[name]`): not read
        end = closing_bracket(masked, constraint.end())
        if end is None:
            return None
        expressions.append(f"({section[constraint.end():end - 1].strip()})")
        position = end
    return expressions if not masked[position:].strip(" \t\n,") else None


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
