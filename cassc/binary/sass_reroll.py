"""Undo NVVM's runtime unrolling in SASS, as `reroll.py` does in PTX: the same two shapes reach a cubin.

NVVM unrolls a loop whose trip count `tc` is known only at run time into a main loop of U copies and a
remainder loop of one copy that runs `tc mod U` times; ptxas keeps both (and often unrolls the main loop
once more). In SASS, with btc = tc - 1 and U - 1 one of 1, 3, 7, 15:

  prologue                                      epilogue
    LOP3.LUT Pk, Rc, Rt, U-1, RZ, 0xc0            LOP3.LUT Rc, Rt, U-1, RZ, 0xc0    (c = tc & (U-1))
    ISETP.GE.U32.AND Pg, PT, Rb, U-1, PT          ISETP.GE.U32.AND Pg, PT, Rb, U-1, PT
    @!Pk BRA SKIP                                 @!Pg BRA REM_ENTRY      <- guard
    REM: one copy; c -= 1; @(c != 0) BRA REM      MAIN: U copies ...
    SKIP: @!Pg EXIT (or BRA)   <- guard           REM_ENTRY: @(c == 0) skip; REM: one copy; c -= 1 ...

The remainder loop is the original loop with a counter added, so running it `tc` times is the original
loop: `c = tc` (the mask all ones) and the guard made unconditional; the main loop becomes unreachable and
LLVM deletes it. Why: gfx1100 gains little from the unrolling (HIP clang does not unroll such loops), and
each copy repeats the body's expansions (a grid-stride loop's copies are most of such a kernel's code).

Only the exact shape is rewritten: Rt = Rb + 1 or Rb = Rt - 1 and the guard's comparison in the block of
the `and`; a count-down loop of c (or of a copy of it) to zero after it; c read by nothing but that loop,
its zero test and (epilogue) the main loop's code, which the rewrite makes unreachable.
"""

from __future__ import annotations

from dataclasses import replace

from cassc.binary.sass import Immediate, Register, SassInstruction, Target

_MASKS = (1, 3, 7, 15)
_MOVES = ("MOV", "IMAD.MOV.U32")


def _same(a: object, b: object) -> bool:
    return isinstance(a, Register) and isinstance(b, Register) and a.index is not None and \
        (a.kind, a.index) == (b.kind, b.index) and not (a.negated or a.inverted or b.negated or b.inverted)


def _immediate(operand: object, value: int) -> bool:
    try:
        return isinstance(operand, Immediate) and operand.is_hex and operand.integer() == value
    except ValueError:
        return False


def _added(i: SassInstruction, amount: int) -> Register | None:
    """Rs, where `i` (unguarded) is Rd = Rs + amount: `IADD3 Rd, Rs, imm, RZ` or (sm_90) `VIADD Rd, Rs, imm`."""
    if i.guard is not None or len(i.operands) < 3 or not isinstance(i.operands[1], Register) or i.modifiers:
        return None
    if not (i.opcode == "VIADD" or (i.opcode == "IADD3" and len(i.operands) == 4 and isinstance(i.operands[3], Register)
                                    and i.operands[3].is_zero)):
        return None
    operand = i.operands[2]
    try:
        value = operand.integer() if isinstance(operand, Immediate) and operand.is_hex else None
    except ValueError:
        return None
    return i.operands[1] if value is not None and (value - amount) % (1 << 32) == 0 else None


def _name(i: SassInstruction) -> str:
    return ".".join((i.opcode, *i.modifiers))


def _destinations(i: SassInstruction) -> list[Register]:
    """The registers an instruction writes: its first operand (a pair for 64-bit results, four for 128-bit
    ones) and a predicate beside it (`LOP3.LUT P0, R4, ...`, `IADD3 R9, P0, ...`)."""
    found = []
    wide = 4 if i.has("128") else 2 if i.has("64", "WIDE") or i.opcode.startswith("D") else 1
    for position, operand in enumerate(i.operands[:2]):
        if not isinstance(operand, Register) or (position == 1 and operand.kind != "P" and i.operands[0].kind != "P"):  # type: ignore[union-attr]
            break
        if operand.index is not None:
            found += [Register(operand.kind, operand.index + k) for k in range(wide if operand.kind == "R" else 1)]
    return found


def _writes(i: SassInstruction, register: Register) -> bool:
    return any(_same(d, register) for d in _destinations(i))


def _reads(i: SassInstruction, register: Register) -> bool:
    """Whether an instruction may read `register` (conservatively: a source of a 64-bit instruction is a
    pair, but for IMAD.WIDE's two 32-bit factors)."""
    skip = 1 + (len(i.operands) > 1 and isinstance(i.operands[0], Register) and i.operands[0].kind == "P"
                and isinstance(i.operands[1], Register) and i.operands[1].kind == "R")
    stores = i.opcode in ("BRA", "EXIT", "STG", "STS", "STL", "ST", "RED", "BSYNC", "ATOMG", "ATOMS", "ATOM")
    sources = list(enumerate(i.operands))[0 if stores else skip:]
    wide = 4 if i.has("128") else 2 if i.has("64", "WIDE") or i.opcode.startswith("D") else 1
    for position, operand in sources:
        inner = [operand] + [getattr(operand, name) for name in ("base", "uniform", "register")
                             if getattr(operand, name, None) is not None]
        for candidate in inner:
            size = 1 if i.opcode == "IMAD" and i.has("WIDE") and position in (1, 2) else wide
            if isinstance(candidate, Register) and candidate.index is not None and candidate.kind == register.kind \
                    and 0 <= register.index - candidate.index < size:  # type: ignore[operator]
                return True
    return i.guard is not None and _same(Register(i.guard.kind, i.guard.index), register)


def _definition(code: list[SassInstruction], before: int, register: Register) -> int | None:
    """The index of the last write of `register` before `before`, in the same block (no label between)."""
    for j in range(before - 1, -1, -1):
        if _writes(code[j], register):
            return j
        if code[j].labels or code[j].opcode in ("BRA", "EXIT", "CALL", "RET"):
            return None
    return None


def _index_of(code: list[SassInstruction], label: str) -> int | None:
    return next((j for j, i in enumerate(code) if label in i.labels), None)


def _countdown(code: list[SassInstruction], start: int, counter: Register) -> tuple[int, Register] | None:
    """(the index of the backward branch, the counter) of a loop after `start` that counts `counter`, or a
    copy of it made first, down by one to zero."""
    counters = [counter]
    for j in range(start, min(len(code), start + 200)):
        i = code[j]
        if _name(i) in (f"{m}" for m in ("MOV", "IMAD.MOV.U32")) and i.guard is None and \
                _same(i.operands[-1], counter) and isinstance(i.operands[0], Register):
            counters.append(i.operands[0])
        if i.opcode == "BRA" and i.guard is not None and isinstance(i.operands[-1], Target):
            top = _index_of(code, i.operands[-1].label)
            if top is None or top > j:
                continue
            body = code[top:j]
            for register in counters:
                decrement = any(_same(x.operands[0], register) and _same(_added(x, -1), register) for x in body)
                test = _definition(code, j, Register(i.guard.kind, i.guard.index))  # type: ignore[arg-type]
                if decrement and test is not None and code[test].opcode == "ISETP" and code[test].has("NE") \
                        and _same(code[test].operands[2], register) and isinstance(code[test].operands[3], Register) \
                        and code[test].operands[3].is_zero and not i.guard.inverted:  # type: ignore[union-attr]
                    return j, register
            return None  # the first backward branch is the remainder loop's, or this is not the shape
    return None


def reroll_runtime_unrolled_loops(code: list[SassInstruction]) -> list[SassInstruction]:
    """`code` with each runtime-unrolled loop of the shapes above run by its remainder loop alone."""
    code = list(code)
    for index, i in enumerate(code):
        if i.opcode != "LOP3" or not i.has("LUT") or i.guard is not None or len(i.operands) < 6:
            continue
        ops = list(i.operands)
        flag = ops.pop(0) if isinstance(ops[0], Register) and ops[0].kind == "P" else None
        counter, total, mask, zero, lut = ops[:5]
        unit = next((m for m in _MASKS if _immediate(mask, m)), None)
        if unit is None or not _immediate(lut, 0xC0) or not (isinstance(zero, Register) and zero.is_zero) \
                or not isinstance(counter, Register) or not isinstance(total, Register) or total.index is None:
            continue
        rewrite = _shape(code, index, flag, counter, total, unit)
        if rewrite is None:
            continue
        guard = rewrite
        operands = list(i.operands)
        operands[operands.index(mask)] = Immediate("0xffffffff")
        code[index] = replace(i, operands=tuple(operands))
        code[guard] = replace(code[guard], guard=None)
    return code


def _shape(code: list[SassInstruction], index: int, flag: Register | None, counter: Register, total: Register,
           unit: int) -> int | None:
    """The index of the guard to make unconditional, if the `and` at `index` starts either shape."""
    # btc: tc - 1 made from tc, or tc made as btc + 1, in the `and`'s block
    made = _definition(code, index, total)
    btc = None
    if made is not None:
        btc = _added(code[made], 1)
    # the comparison btc >= U-1 in the `and`'s block, before or after it
    first = index
    while first > 0 and not code[first].labels and code[first - 1].opcode not in ("BRA", "EXIT"):
        first -= 1
    last = index
    while last + 1 < len(code) and not code[last + 1].labels and code[last].opcode not in ("BRA", "EXIT"):
        last += 1
    compare = None
    for j in range(first, last + 1):
        x = code[j]
        if x.opcode == "ISETP" and x.has("GE") and x.has("U32") and x.has("AND") and x.guard is None \
                and len(x.operands) >= 5 and _immediate(x.operands[3], unit) and isinstance(x.operands[2], Register):
            minus_one = _definition(code, j, x.operands[2])
            from_total = minus_one is not None and _same(_added(code[minus_one], -1), total)
            if (btc is not None and _same(x.operands[2], btc)) or from_total:
                compare = j
    if compare is None:
        return None
    predicate = code[compare].operands[0]
    if not isinstance(predicate, Register) or predicate.kind != "P" or predicate.index is None:
        return None
    after = max(index, compare) + 1
    guard = next((j for j in range(after, min(len(code), after + 300))
                  if code[j].guard is not None and code[j].guard.inverted and code[j].opcode in ("BRA", "EXIT")
                  and _same(Register("P", code[j].guard.index), predicate)), None)  # type: ignore[arg-type]
    if guard is None or any(_writes(code[j], predicate) for j in range(compare + 1, guard)):
        return None
    skip = next((j for j in range(index + 1, guard) if code[j].opcode == "BRA" and code[j].guard is not None), None)
    if skip is not None and skip < guard and flag is not None:
        # prologue: `@!Pk BRA SKIP` over the remainder loop, then the guard
        if not (code[skip].guard.inverted and _same(Register("P", code[skip].guard.index), flag)):  # type: ignore[union-attr]
            return None
        loop = _countdown(code, skip + 1, counter)
        if loop is None or loop[0] > guard:
            return None
        readers = range(index + 1, guard)
    else:
        # epilogue: the guard branches over the main loop to the remainder loop's entry
        if code[guard].opcode != "BRA" or not isinstance(code[guard].operands[-1], Target):
            return None
        entry = _index_of(code, code[guard].operands[-1].label)
        if entry is None or entry <= guard:
            return None
        loop = _countdown(code, entry, counter)
        if loop is None:
            return None
        readers = range(entry, len(code))
        if not _allowed_reads(code, range(index + 1, guard), counter, loop):  # a zero test may come first
            return None
    allowed = _allowed_reads(code, readers, counter, loop)
    return guard if allowed else None


def _allowed_reads(code: list[SassInstruction], span: range, counter: Register, loop: tuple[int, Register]) -> bool:
    """Whether c is read in `span` (up to its next plain write) only by the remainder loop: its copy into
    the loop's counter, a zero test, the decrement."""
    for j in span:
        i = code[j]
        if _reads(i, counter):
            zero_test = i.opcode == "ISETP" and i.has("NE") and _same(i.operands[2], counter) and \
                isinstance(i.operands[3], Register) and i.operands[3].is_zero
            copy = _name(i) in _MOVES and i.guard is None and _same(i.operands[0], loop[1])
            decrement = _same(i.operands[0], counter) and _same(_added(i, -1), counter)
            if not (zero_test or copy or decrement):
                return False
        elif _writes(i, counter) and i.guard is None:
            return True  # c's live range ends (in the listing's order)
        if j > loop[0] and i.guard is None and i.opcode in ("EXIT", "BRA", "RET"):
            return True  # past the remainder loop, the path ends: what follows is others' code
    return True
