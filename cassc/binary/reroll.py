"""Undo NVVM's runtime unrolling in PTX, so a loop becomes what HIP clang makes of the same source.

NVVM (nvcc's optimiser) unrolls a loop whose trip count `tc` is known only at run time into a main loop
holding U copies of the body and a remainder loop holding one copy, which it marks `.pragma "nounroll"`
and which runs `tc mod U` times. Two shapes reach the PTX:

  prologue                                    epilogue
    c = and tc, U-1                             @(btc < U-1) bra REM_ENTRY     <- guard
    @(c == 0) bra GUARD                         MAIN: U copies ...
    REM: one copy; c -= 1; @(c != 0) bra REM    REM_ENTRY: c = and tc, U-1
    GUARD: @(btc < U-1) bra EXIT   <- guard                @(c == 0) bra EXIT
    MAIN: U copies ...                          REM: one copy; c -= 1; @(c != 0) bra REM
    EXIT:                                       EXIT:

where btc = tc - 1 is the backedge-taken count. The remainder loop is the original loop with a counter
added, so running it `tc` times is the original loop: this module sets `c = tc`, drops the `c == 0` skip
and makes the guard unconditional. The path that results is one the program already takes whenever
tc < U (no main-loop iteration), now with more remainder iterations; the main loop becomes unreachable and
LLVM deletes it. The do-while counter also covers tc = 2^width (c starts at 0 and wraps).

Why: gfx1100 gains little from NVVM's unrolling (HIP clang does not unroll such loops either), and each
copy repeats the body's expansions, e.g. a 64-bit division is ~100 instructions on gfx1100, one in PTX.

Only the exact shape is rewritten: the counter must be used by nothing but its own init, test and
decrement; the guard must compare `tc - 1` with the same U - 1 (registers traced through `add`s of
constants); the remainder loop's branches must stay inside it. Anything else is left as NVVM wrote it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace

from cassc.binary.ptx import Block, Instruction, Label, Pragma, Statement

_REGISTER = re.compile(r"%[\w$]+")
_NOT_DEFINING = frozenset({"st", "red", "bra", "ret", "exit", "bar", "barrier", "membar", "fence", "prefetch",
                           "trap", "brkpt"})


@dataclass(frozen=True)
class _Reroll:
    init: int  # index of `and c, tc, U-1`
    skip: int  # index of `@(c == 0) bra`
    guard: int  # index of `@(btc < U-1) bra`


def reroll_runtime_unrolled_loops(body: list[Statement]) -> list[Statement]:
    """`body` with each runtime-unrolled loop of the shapes above rolled back into its remainder loop."""
    found = list(_rerollable(body))
    statements = list(body)
    for loop in found:
        init = statements[loop.init]
        guard = statements[loop.guard]
        assert isinstance(init, Instruction) and isinstance(guard, Instruction)
        statements[loop.init] = replace(init, opcode="mov", modifiers=(init.modifiers[-1],),
                                        operands=init.operands[:2])
        statements[loop.guard] = replace(guard, guard=None, negated=False)
    skips = {loop.skip for loop in found}
    return [s for index, s in enumerate(statements) if index not in skips]


def _instructions(statements: list[Statement] | tuple[Statement, ...]) -> Iterator[Instruction]:
    for statement in statements:
        if isinstance(statement, Block):
            yield from _instructions(statement.statements)
        elif isinstance(statement, Instruction):
            yield statement


def _defined(instruction: Instruction) -> list[str]:
    if instruction.opcode in _NOT_DEFINING or not instruction.operands or instruction.operands[0].startswith("["):
        return []
    return _REGISTER.findall(instruction.operands[0])


def _uses(instruction: Instruction, register: str) -> bool:
    names = [n for operand in instruction.operands for n in _REGISTER.findall(operand)]
    return register in names or instruction.guard == register


def _is_branch(statement: Statement, conditional: bool | None = None) -> bool:
    return isinstance(statement, Instruction) and statement.opcode == "bra" and (
        conditional is None or (statement.guard is not None) == conditional)


def _constant(text: str) -> int | None:
    try:
        return int(text, 0)
    except ValueError:
        return None


class _FunctionView:
    """A body's labels and register definitions, and values traced through them."""

    def __init__(self, body: list[Statement]) -> None:
        self.body = body
        self.labels = {s.name: index for index, s in enumerate(body) if isinstance(s, Label)}
        self.definitions: dict[str, list[Instruction]] = {}
        for instruction in _instructions(body):
            for register in _defined(instruction):
                self.definitions.setdefault(register, []).append(instruction)

    def only_definition(self, register: str | None) -> Instruction | None:
        found = self.definitions.get(register or "", [])
        return found[0] if len(found) == 1 else None

    def compare(self, statement: Statement) -> Instruction | None:
        """The `setp` a conditional, non-negated branch tests."""
        if not _is_branch(statement, conditional=True) or statement.negated:  # type: ignore[union-attr]
            return None
        definition = self.only_definition(statement.guard)  # type: ignore[union-attr]
        return definition if definition is not None and definition.opcode == "setp" else None

    def affine(self, register: str) -> tuple[str, int]:
        """`register` as (root register, constant) through single-definition `add r, x, constant`."""
        offset = 0
        for _ in range(8):
            definition = self.only_definition(register)
            if definition is None or definition.opcode != "add" or len(definition.operands) != 3:
                break
            constant = _constant(definition.operands[2])
            if constant is None or not definition.operands[1].startswith("%"):
                break
            register, offset = definition.operands[1], offset + constant
        return register, offset


def _rerollable(body: list[Statement]) -> Iterator[_Reroll]:
    view = _FunctionView(body)
    if any(i.opcode == "bra" and (not i.operands or i.operands[0] not in view.labels) for i in _instructions(body)):
        return  # a branch into a `{ }` block (or to nowhere): the flat view below would not be the control flow
    for start, statement in enumerate(body):
        if isinstance(statement, Label) and start + 1 < len(body) and body[start + 1] == Pragma("nounroll"):
            found = _remainder_loop(view, start)
            if found is not None:
                yield found


def _remainder_loop(view: _FunctionView, start: int) -> _Reroll | None:
    """The rewrite for the remainder loop whose header label is `body[start]`, if the shape is exact."""
    body, labels = view.body, view.labels
    head = body[start].name  # type: ignore[union-attr]
    latch = next((i for i in range(start + 1, len(body)) if _is_branch(body[i])
                  and body[i].operands[0] == head), None)  # type: ignore[union-attr]
    if latch is None:
        return None
    inside = range(start + 1, latch)
    if any(isinstance(body[i], Instruction) and body[i].opcode in ("ret", "exit") for i in inside) or any(
            _is_branch(body[i]) and not start < labels[body[i].operands[0]] < latch for i in inside):  # type: ignore[union-attr]
        return None
    test = view.compare(body[latch])
    if test is None or "ne" not in test.modifiers or _constant(test.operands[-1]) != 0:
        return None
    counter = test.operands[-2]
    counter_definitions = view.definitions.get(counter, [])
    decrement = [d for d in counter_definitions if d.opcode == "add" and d.operands[1:] == (counter, "-1")]
    inits = [d for d in counter_definitions if d.opcode == "and"]
    if len(decrement) != 1 or len(inits) != 1 or len(counter_definitions) != 2:
        return None
    mask = _constant(inits[0].operands[2])
    if mask is None or mask < 1 or mask & (mask + 1):
        return None
    init = next(i for i, s in enumerate(body) if s is inits[0])
    # The skip, `@(c == 0) bra`, then straight into the remainder loop.
    skips = [i for i, s in enumerate(body) if (compare := view.compare(s)) is not None
             and "eq" in compare.modifiers and compare.operands[-2:] == (counter, "0")]
    if len(skips) != 1 or any(_is_branch(body[i]) or isinstance(body[i], Label) for i in range(skips[0] + 1, start)):
        return None
    skip = skips[0]
    zero_test = view.compare(body[skip])
    # The guard: the one branch on `btc < U-1` with tc = btc + 1; or, where btc = x >> s (a loop with a
    # power-of-two step), on `x < (U-1) << s`.
    root, offset = view.affine(inits[0].operands[1])
    bounds = {(root, offset - 1): mask}
    shift = view.only_definition(root) if offset == 1 else None
    amount = _constant(shift.operands[2]) if shift is not None and shift.opcode == "shr" else None
    if shift is not None and amount is not None and shift.modifiers[-1].startswith(("u", "b")):  # logical
        bounds[view.affine(shift.operands[1])] = mask << amount
    guards = [i for i, s in enumerate(body) if (compare := view.compare(s)) is not None and "lt" in compare.modifiers
              and any(m.startswith("u") for m in compare.modifiers)
              and bounds.get(view.affine(compare.operands[1])) == _constant(compare.operands[-1])]
    if len(guards) != 1:
        return None
    guard = guards[0]
    after = latch + 1
    # Prologue: the guard ends the block the remainder loop falls into. Epilogue: the guard jumps over the main
    # loop to a block that runs straight into the skip.
    prologue = after < guard and isinstance(body[after], Label) and not any(
        _is_branch(body[i]) or isinstance(body[i], Label) for i in range(after + 1, guard))
    target = labels.get(body[guard].operands[0], -1)
    epilogue = guard < target < skip and not any(_is_branch(body[i]) or isinstance(body[i], Label)
                                                 for i in range(target + 1, skip))
    if not (prologue or epilogue):
        return None
    # What still runs must use the counter only as the remainder loop's count (NVVM's main loop may
    # compute its own bound from it; that code is no longer reached).
    # Nor may it compute `tc mod U` again (an exit value LLVM derived from the remainder's known count).
    counted = {id(inits[0]), id(decrement[0]), id(test), id(zero_test)}
    for index in _reached(body, labels, unconditional=guard, removed=skip):
        for instruction in _instructions([body[index]]):
            if id(instruction) in counted:
                continue
            if _uses(instruction, counter) or (instruction.opcode == "and" and len(instruction.operands) == 3 and
                                               _constant(instruction.operands[2]) == mask and
                                               view.affine(instruction.operands[1]) == (root, offset)):
                return None
    return _Reroll(init, skip, guard)


def _reached(body: list[Statement], labels: dict[str, int], unconditional: int, removed: int) -> set[int]:
    """Indices of the statements control reaches from the entry, with branch `unconditional` made so and
    branch `removed` gone."""
    reached: set[int] = set()
    pending = [0]
    while pending:
        index = pending.pop()
        if index in reached or index >= len(body):
            continue
        reached.add(index)
        statement = body[index]
        if isinstance(statement, Instruction) and statement.opcode in ("ret", "exit", "trap"):
            continue
        if _is_branch(statement) and index != removed:
            pending.append(labels[statement.operands[0]])
            if statement.guard is None or index == unconditional:
                continue
        pending.append(index + 1)
    return reached
