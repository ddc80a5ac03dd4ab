"""PTX text -> a small syntax tree: module variables, functions, and their statements.

Only the structure is interpreted here (directives, declarations, labels, predicated instructions and
their operands); what an instruction means is `lift.py`'s business. PTX is the virtual ISA nvcc embeds
in every fatbin by default, so this is the front end that reads what nvcc wrote.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from cassc.errors import InputError

STATE_SPACES = ("global", "shared", "const", "local", "param")
MODULE_STATE_SPACES = ("global", "shared", "const", "local")  # .param is a function's


# PTX's fundamental types a variable or register can have (PTX ISA 5.2).
_SCALAR_TYPE = re.compile(r"[bsuf](?:8|16|32|64)|pred|bf16|f16x2|bf16x2|b128")


class PtxSyntaxError(InputError):
    pass


@dataclass(frozen=True)
class Variable:
    """A `.global/.const/.shared/.local/.param` declaration."""

    space: str
    type: str  # "b8", "u32", "f32"...
    name: str
    align: int
    count: int | None  # array length; None for a scalar, 0 for `name[]` (dynamic shared memory)
    init: tuple[str, ...] = ()  # initializer words
    extern: bool = False
    visible: bool = False
    managed: bool = False  # `.attribute(.managed)`: a __managed__ variable, memory the host shares
    # "texref"/"surfref": a texture or surface reference (`.global .texref t;`, CUDA 11's `texture<...>`), a
    # 64-bit word that holds the object the host bound to it (`images.reference_handle`)
    reference: str = ""

    @property
    def element_size(self) -> int:
        return 1 if self.type == "pred" else int(re.sub(r"\D", "", self.type)) // 8

    @property
    def size(self) -> int:
        return self.element_size * (self.count if self.count is not None else 1)


@dataclass(frozen=True)
class Instruction:
    opcode: str  # "ld"
    modifiers: tuple[str, ...]  # ("global", "nc", "f32")
    operands: tuple[str, ...]  # raw operand text: "%f1", "[%rd2+4]", "{%r1, %r2}"
    guard: str | None = None  # predicate register of `@%p1` / `@!%p1`
    negated: bool = False
    line: int = 0

    @property
    def text(self) -> str:
        guard = f"@{'!' if self.negated else ''}{self.guard} " if self.guard else ""
        return f"{guard}{'.'.join((self.opcode, *self.modifiers))} {', '.join(self.operands)}"


@dataclass(frozen=True)
class Label:
    name: str


@dataclass(frozen=True)
class Pragma:
    """`.pragma "nounroll";` inside a body: NVVM marks the remainder loop of a runtime-unrolled loop so."""

    text: str  # "nounroll"


@dataclass(frozen=True)
class Registers:
    type: str
    names: tuple[str, ...]  # `%r1, %r2`
    # `%r<38>` declares %r0..%r37: (prefix, count). NVVM declares thousands so and damaged PTX any number,
    # so the names are not spelled out; the lifter gives a register of a range its slot when it is used.
    ranges: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True)
class Block:
    """`{ ... }` inside a function body (nvcc wraps each call sequence in one): its `.param`s are scoped."""

    statements: tuple[Statement, ...]


Statement = Instruction | Label | Registers | Variable | Block | Pragma


@dataclass
class Function:
    name: str
    entry: bool  # a kernel (`.entry`), else a `.func`
    params: list[Variable]
    returns: list[Variable]
    body: list[Statement] | None  # None for a prototype / `.extern .func`
    visible: bool = False
    max_threads: tuple[int, ...] = ()  # .maxntid / .reqntid


@dataclass
class PtxModule:
    version: str = ""
    target: str = ""
    variables: list[Variable] = field(default_factory=list)
    functions: list[Function] = field(default_factory=list)

    def function(self, name: str) -> Function | None:
        defined = [f for f in self.functions if f.name == name and f.body is not None]
        declared = [f for f in self.functions if f.name == name]
        return (defined or declared or [None])[0]


_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}();,]|[^\s{}();,]+')
_DECL = re.compile(r"^(?P<name>[\w$.%]+?)(?:<(?P<regs>\d+)>)?(?:\[(?P<count>\d*)\])?$")


def parse_ptx(text: str) -> PtxModule:
    module = PtxModule()
    tokens = _tokens(text)
    position = 0
    while position < len(tokens):
        word, line = tokens[position]
        try:
            position = _module_statement(module, tokens, position)
        except IndexError as error:  # the statement runs past the end of the text
            raise PtxSyntaxError(f"PTX line {line}: '{word}' is cut off: the PTX ends inside it") from error
        except ValueError as error:  # a number that is not one
            raise PtxSyntaxError(f"PTX line {line}: cannot read '{word}' ({error})") from error
    return module


def _module_statement(module: PtxModule, tokens: list[tuple[str, int]], position: int) -> int:
    """One statement at module scope (a directive, a variable, a function); the position after it."""
    word, line = tokens[position]
    if word == ".version":
        module.version = tokens[position + 1][0]
        position += 2
    elif word == ".target":
        end = _until(tokens, position, "\n")
        module.target = " ".join(t for t, _ in tokens[position + 1:end] if t != ",")
        position = end
    elif word == ".address_size":
        position += 2
    elif word in (".file", ".loc", ".pragma") or word.startswith("@@DWARF"):
        position = _until(tokens, position, "\n")
    elif word == ".section":  # debug information (-G, -lineinfo): `.section .debug_info { .b8 ... }`
        position = _skip_newlines(tokens, _until(tokens, position, "\n"))
        if position < len(tokens) and tokens[position][0] == "{":
            position = _until(tokens, position, "}") + 1
    elif word in (".visible", ".extern", ".weak", ".common") or word in (".entry", ".func") or \
            word.lstrip(".") in STATE_SPACES:
        position = _declaration(module, tokens, position)
    elif word == "\n":
        position += 1
    else:
        raise PtxSyntaxError(f"PTX line {line}: unexpected '{word}' at module scope")
    return position


def _tokens(text: str) -> list[tuple[str, int]]:
    tokens: list[tuple[str, int]] = []
    for number, line in enumerate(_COMMENTS.sub(lambda m: "\n" * m.group().count("\n"), text).split("\n"), 1):
        tokens += [(t, number) for t in _TOKEN.findall(line)]
        tokens.append(("\n", number))
    return tokens


def _until(tokens: list[tuple[str, int]], position: int, stop: str) -> int:
    while position < len(tokens) and tokens[position][0] != stop:
        position += 1
    return position


def _declaration(module: PtxModule, tokens: list[tuple[str, int]], position: int) -> int:
    qualifiers = []
    while tokens[position][0] in (".visible", ".extern", ".weak", ".common", "\n"):
        if tokens[position][0] != "\n":
            qualifiers.append(tokens[position][0])
        position += 1
    word, line = tokens[position]
    if word in (".entry", ".func"):
        return _function(module, tokens, position, qualifiers)
    end = _until(tokens, position, ";")
    if word.lstrip(".") not in MODULE_STATE_SPACES:
        raise PtxSyntaxError(f"PTX line {line}: '{word}' does not start a declaration at module scope")
    variable = parse_variable([t for t, _ in tokens[position:end] if t != "\n"], line, qualifiers)
    module.variables.append(variable)
    return end + 1


def parse_variable(words: list[str], line: int, qualifiers: tuple[str, ...] | list[str] = ()) -> Variable:
    space = words[0].lstrip(".")
    align = 0
    rest = words[1:]
    type_ = ""
    name = ""
    init: list[str] = []
    index = 0
    pointer = False
    managed = False
    reference = ""
    while index < len(rest):
        word = rest[index]
        if word in (".texref", ".surfref") and space == "global" and not type_:
            type_, reference = "b64", word[1:]
            index += 1
            continue
        pointer = pointer or word == ".ptr"
        if word == ".attribute" and index + 1 < len(rest) and rest[index + 1] == "(":
            closing = rest.index(")", index) if ")" in rest[index:] else len(rest)
            managed = managed or ".managed" in rest[index + 2:closing]
            index = closing + 1
            continue
        if word == ".align":
            # `.param .u64 .ptr .align 1 p` (nvcc for sm_100 on): the alignment of what p points to, not p's
            if not pointer:
                align = int(rest[index + 1], 0)
            index += 2
            continue
        if word == "=":
            init = [w for w in rest[index + 1:] if w not in ("{", "}", ",")]
            break
        if word.startswith(".") and not type_ and word not in (".ptr", ".global", ".shared", ".const", ".local"):
            if _SCALAR_TYPE.fullmatch(word[1:]):
                type_ = word[1:]
            elif word.startswith((".v2", ".v4")):
                raise PtxSyntaxError(f"PTX line {line}: vector variables ({word}) are not supported")
        elif not word.startswith(".") and not name:
            name = word
        index += 1
    match = _DECL.match(name)
    if not type_ or not match:
        raise PtxSyntaxError(f"PTX line {line}: cannot read the declaration '{' '.join(words)}'")
    count = match.group("count")
    return Variable(space, type_, match.group("name"), align or _natural_align(type_),
                    None if count is None else int(count or 0), tuple(init),
                    ".extern" in qualifiers, ".visible" in qualifiers, managed, reference)


def _natural_align(type_: str) -> int:
    return 1 if type_ == "pred" else max(1, int(re.sub(r"\D", "", type_) or 8) // 8)


def _parameter_list(tokens: list[tuple[str, int]], position: int) -> tuple[list[Variable], int]:
    """`( .param .u64 a, .param .align 8 .b8 b[24] )` -> the variables, and the position after `)`."""
    assert tokens[position][0] == "("
    params = []
    words: list[str] = []
    position += 1
    while tokens[position][0] != ")":
        word, line = tokens[position]
        if word == ",":
            params.append(parse_variable(words, line))
            words = []
        elif word != "\n":
            words.append(word)
        position += 1
    if words:
        params.append(parse_variable(words, tokens[position][1]))
    return params, position + 1


def _function(module: PtxModule, tokens: list[tuple[str, int]], position: int, qualifiers: list[str]) -> int:
    entry = tokens[position][0] == ".entry"
    position = _skip_newlines(tokens, position + 1)
    returns: list[Variable] = []
    if tokens[position][0] == "(":
        returns, position = _parameter_list(tokens, position)
        position = _skip_newlines(tokens, position)
    name = tokens[position][0]
    position = _skip_newlines(tokens, position + 1)
    params: list[Variable] = []
    if tokens[position][0] == "(":
        params, position = _parameter_list(tokens, position)
    function = Function(name, entry, params, returns, None, ".visible" in qualifiers)
    while True:
        position = _skip_newlines(tokens, position)
        word = tokens[position][0]
        if word in (".maxntid", ".reqntid"):
            end = _until(tokens, position, "\n")
            function.max_threads = tuple(int(t, 0) for t, _ in tokens[position + 1:end] if t != ",")
            position = end
        elif word in (".minnctapersm", ".maxnreg", ".maxnctapersm", ".noreturn", ".pragma", ".explicitcluster",
                      ".reqnctapercluster", ".maxclusterrank"):
            position = _until(tokens, position, "\n")
        elif word == ";":
            module.functions.append(function)
            return position + 1
        elif word == "{":
            statements, position = _block(tokens, position + 1)
            function.body = statements
            module.functions.append(function)
            return position
        else:
            raise PtxSyntaxError(f"PTX line {tokens[position][1]}: unexpected '{word}' after function {name}")


def _skip_newlines(tokens: list[tuple[str, int]], position: int) -> int:
    while position < len(tokens) and tokens[position][0] == "\n":
        position += 1
    return position


def _block(tokens: list[tuple[str, int]], position: int) -> tuple[list[Statement], int]:
    """Statements up to the matching `}`; returns them and the position after it."""
    statements: list[Statement] = []
    while True:
        position = _skip_newlines(tokens, position)
        if position >= len(tokens):
            raise PtxSyntaxError("PTX ends inside a function body")
        word, line = tokens[position]
        if word == "}":
            return statements, position + 1
        if word == "{":
            inner, position = _block(tokens, position + 1)
            statements.append(Block(tuple(inner)))
            continue
        if word in (".loc", ".file"):  # line information: a directive without `;`, to the end of its line
            position = _until(tokens, position, "\n")
            continue
        if word == ".pragma":
            end = _until(tokens, position, ";")
            statements.append(Pragma(" ".join(t.strip('"') for t, _ in tokens[position + 1:end] if t != "\n")))
            position = end + 1
            continue
        end = _until(tokens, position, ";")
        if word.endswith(":") and not word.startswith("@"):
            statements.append(Label(word[:-1]))
            position += 1
            continue
        words = [t for t, _ in tokens[position:end] if t != "\n"]
        position = end + 1
        if word.startswith(".reg."):  # `.reg.b16 h;` (inline asm in CUDA headers writes it so)
            words = [".reg", word[4:], *words[1:]]
            word = ".reg"
        if word == ".reg":
            statements.append(_registers(words, line))
        elif words[1:3] == [":", ".callprototype"]:  # `name : .callprototype ...`: an indirect call's prototype,
            continue  # which the call's own .param variables spell out again
        elif word.lstrip(".") in STATE_SPACES:
            statements.append(parse_variable(words, line))
        else:
            statements.append(_instruction(words, line))


def _registers(words: list[str], line: int) -> Registers:
    type_ = next((w[1:] for w in words[1:] if w.startswith(".") and not w.startswith((".v2", ".v4"))), "")
    if not _SCALAR_TYPE.fullmatch(type_):
        raise PtxSyntaxError(f"PTX line {line}: cannot read the register type in '{' '.join(words)}'")
    names: list[str] = []
    ranges: list[tuple[str, int]] = []
    for word in words[1:]:
        if word.startswith(".") or word == ",":
            continue
        match = _DECL.match(word)
        if not match:
            raise PtxSyntaxError(f"PTX line {line}: cannot read register declaration '{word}'")
        if match.group("regs"):
            ranges.append((match.group("name"), int(match.group("regs"))))
        else:
            names.append(match.group("name"))
    return Registers(type_, tuple(names), tuple(ranges))


def _instruction(words: list[str], line: int) -> Instruction:
    guard = None
    negated = False
    if words[0].startswith("@"):
        guard = words[0][1:]
        if guard.startswith("!"):
            negated, guard = True, guard[1:]
        words = words[1:]
    opcode, *modifiers = words[0].split(".")
    operands: list[str] = []
    current: list[str] = []
    depth = 0
    for word in words[1:]:
        if word in ("{", "("):
            depth += 1
        elif word in ("}", ")"):
            depth -= 1
        if word == "," and depth == 0:
            operands.append(" ".join(current))
            current = []
        else:
            current.append(word)
    if current:
        operands.append(" ".join(current))
    return Instruction(opcode, tuple(m for m in modifiers if m), tuple(operands), guard, negated, line)


def function_text(text: str, name: str) -> str:
    """The PTX text of function `name`: its directive line through its closing brace ("" if absent)."""
    match = re.search(rf"^[^\n]*\.(?:entry|func)\s+(?:\([^)]*\)\s*)?{re.escape(name)}\b", text, re.MULTILINE)
    if not match:
        return ""
    body = text.find("{", match.end())
    depth = 0
    for position in range(body, len(text)):
        depth += {"{": 1, "}": -1}.get(text[position], 0)
        if depth == 0:
            return text[match.start():position + 1]
    return text[match.start():]
