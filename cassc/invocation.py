"""argv -> a typed Invocation, driven entirely by the option table in options.py.

Order of the words parsed, as nvcc: $NVCC_PREPEND_FLAGS, the command line, $NVCC_APPEND_FLAGS, with
every `--options-file` expanded in place.
"""

from __future__ import annotations

import enum
import os
import platform
import re
import shlex
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Mapping, Sequence

from cassc.clang_options import diagnostic_flags, is_host_default, refused_by_xarch, werror_flags
from cassc.errors import InputError, UsageError
from cassc.options import ATTACHED_PREFIXES, CASSC_OPTION_PREFIX, OPTIONS_BY_NAME, Effect, Kind, Option

DEFAULT_OFFLOAD_ARCH = "gfx1100"
DEFAULT_CUDA_ARCH = 52  # nvcc 12.x compiles for sm_52 when no -arch is given


class InputKind(enum.Enum):
    CUDA = "cu"
    CXX = "c++"
    C = "c"
    OBJECT = "object"
    ARCHIVE = "archive"
    SHARED_LIBRARY = "shared-library"
    DEVICE_CODE = "device-code"  # .ptx/.cubin/.fatbin: the binary path's inputs
    UNKNOWN = "unknown"  # rejected by the driver (after -v has printed what CMake's probe reads)


_EXTENSION_KINDS = {
    ".cu": InputKind.CUDA,
    ".c": InputKind.C,
    ".cc": InputKind.CXX, ".cpp": InputKind.CXX, ".cxx": InputKind.CXX, ".c++": InputKind.CXX,
    ".C": InputKind.CXX, ".cp": InputKind.CXX,
    ".o": InputKind.OBJECT, ".obj": InputKind.OBJECT,
    ".a": InputKind.ARCHIVE, ".lib": InputKind.ARCHIVE,
    ".so": InputKind.SHARED_LIBRARY,
    ".ptx": InputKind.DEVICE_CODE, ".cubin": InputKind.DEVICE_CODE, ".fatbin": InputKind.DEVICE_CODE,
}
SOURCE_KINDS = (InputKind.CUDA, InputKind.CXX, InputKind.C)


@dataclass(frozen=True)
class InputFile:
    path: Path
    kind: InputKind


@dataclass(frozen=True)
class Invocation:
    """Everything one nvcc command line asks for, normalised. Field names match options.py rows."""

    phase: str = "link"
    inputs: tuple[InputFile, ...] = ()
    output: Path | None = None
    output_directory: Path | None = None
    language: str | None = None
    # preprocessor
    defines: tuple[str, ...] = ()
    undefines: tuple[str, ...] = ()
    include_dirs: tuple[str, ...] = ()
    system_include_dirs: tuple[str, ...] = ()
    pre_includes: tuple[str, ...] = ()
    # dependencies
    depfile_with_compile: str | None = None  # "all" (-MD) or "nonsystem" (-MMD)
    depfile: str | None = None
    depfile_targets: tuple[str, ...] = ()
    depfile_phony_targets: bool = False
    # code generation
    optimize: str | None = None
    device_optimize: str | None = None
    debug: bool = False
    device_debug: bool = False
    line_info: bool = False
    profile: bool = False
    std: str | None = None
    rdc: bool = False
    shared: bool = False
    no_exceptions: bool = False
    machine: str | None = None
    fast_math: bool = False
    flush_denormals: bool | None = None
    precise_division: bool | None = None
    precise_sqrt: bool | None = None
    fused_multiply_add: bool | None = None
    default_stream: str | None = None
    relaxed_constexpr: bool = False
    extended_lambda: bool = False
    extensible_whole_program: bool = False
    template_backtrace_limit: str | None = None
    template_depth: str | None = None
    disable_warnings: bool = False
    no_deprecated_warnings: bool = False
    werror_kinds: tuple[str, ...] = ()
    warning_flags: tuple[str, ...] = ()  # clang warnings nvcc's own -W options ask for (-Wreorder)
    brief_diagnostics: bool = False
    diag_suppress: tuple[str, ...] = ()  # nvcc diagnostic numbers or names
    diag_warn: tuple[str, ...] = ()
    diag_error: tuple[str, ...] = ()
    max_registers: int | None = None  # -maxrregcount: VGPRs per kernel
    resource_usage: bool = False
    # architectures
    arch_specs: tuple[str, ...] = ()
    code_specs: tuple[str, ...] = ()
    gencode_specs: tuple[str, ...] = ()
    offload_archs: tuple[str, ...] = ()
    cuda_archs: tuple[int, ...] = ()  # derived: the CUDA archs the command line names
    # pass-through
    host_compiler_options: tuple[str, ...] = ()
    host_linker_options: tuple[str, ...] = ()
    archiver_options: tuple[str, ...] = ()
    ptxas_options: tuple[str, ...] = ()
    forward_unknown_to_compiler: bool = False
    forward_unknown_to_linker: bool = False
    # linking
    libraries: tuple[str, ...] = ()
    library_dirs: tuple[str, ...] = ()
    cudart: str | None = None
    no_device_link: bool = False
    archiver: str | None = None
    host_compiler: str | None = None
    use_hipcc: bool = False  # compile through ROCm's hipcc instead of calling its clang directly
    force_sass: bool = False  # --cassc-sass: nvcc-built objects are translated from SASS even with PTX
    target: str = "amd"  # --cassc-target: "nvidia" compiles the translated sources with NVIDIA's nvcc
    model: str | None = None  # --cassc-model: the repair model (settings also read CASSC_MODEL, config.toml)
    # driver behaviour
    verbose: bool = False
    dryrun: bool = False
    keep: bool = False
    keep_dir: str | None = None
    clean_targets: bool = False
    run_args: tuple[str, ...] = ()
    info: str | None = None  # --version / --help / --list-gpu-arch: print and exit
    compile_commands: Path | None = None  # $CASSC_COMPILE_COMMANDS: the compile_commands.json to add entries to
    dropped: tuple[str, ...] = ()  # "option: why" for every accepted option that means nothing on AMD

    @property
    def cuda_arch(self) -> int:
        """The value of __CUDA_ARCH__/10 in the device pass: the lowest requested arch, so code takes
        the most conservative of the paths the program was written for."""
        return min(self.cuda_archs) if self.cuda_archs else DEFAULT_CUDA_ARCH

    def sources(self) -> tuple[InputFile, ...]:
        return tuple(i for i in self.inputs if i.kind in SOURCE_KINDS)


# --------------------------------------------------------------------------------------------------
# words: environment, command line, options files


def command_words(argv: Sequence[str], env: Mapping[str, str]) -> list[str]:
    words = shlex.split(env.get("NVCC_PREPEND_FLAGS", "")) + list(argv)
    words += shlex.split(env.get("NVCC_APPEND_FLAGS", ""))
    return _expand_options_files(words, depth=0)


def _expand_options_files(words: list[str], depth: int) -> list[str]:
    if depth > 8:
        raise UsageError("--options-file nests more than 8 deep (a file includes itself?)")
    expanded: list[str] = []
    index = 0
    while index < len(words):
        word = words[index]
        parsed = _match_option(word)
        if parsed and parsed[0].effect is Effect.OPTIONS_FILE:
            option, inline = parsed
            if inline is None:
                index += 1
                if index >= len(words):
                    raise UsageError(f"option '{word}' needs a file name")
                inline = words[index]
            for name in split_list(inline):
                expanded += _expand_options_files(_read_options_file(Path(name)), depth + 1)
        else:
            expanded.append(word)
        index += 1
    return expanded


def _read_options_file(path: Path) -> list[str]:
    try:
        return shlex.split(path.read_text(), comments=False)
    except OSError as error:
        raise InputError(f"cannot read options file '{path}': {error.strerror}") from error
    except ValueError as error:
        raise UsageError(f"options file '{path}': {error}") from error


def split_list(value: str) -> list[str]:
    """Split a list value at commas, honouring `\\,` as a literal comma."""
    parts = re.split(r"(?<!\\),", value)
    return [p.replace("\\,", ",") for p in parts if p != ""]


# --------------------------------------------------------------------------------------------------
# option matching


def _match_option(word: str) -> tuple[Option, str | None] | None:
    """Which table row a word is, and its inline value (`=value` or attached), or None."""
    if not word.startswith("-") or word == "-":
        return None
    body = word[2:] if word.startswith("--") else word[1:]
    if body in OPTIONS_BY_NAME:
        return OPTIONS_BY_NAME[body], None
    name, equals, value = body.partition("=")
    if equals and name in OPTIONS_BY_NAME:
        return OPTIONS_BY_NAME[name], value
    if not word.startswith("--"):
        for prefix, option in ATTACHED_PREFIXES:
            if body.startswith(prefix) and len(body) > len(prefix):
                attached = body[len(prefix):]
                # nvcc's rule: a glued value the option cannot take makes the word an unknown option, which
                # -forward-unknown-to-host-compiler hands to the host compiler (-march=native, -mavx2 are
                # gcc's, not --machine's).
                if option.choices and attached not in option.choices:
                    return None
                return option, attached
    return None


def _spelling(option: Option) -> str:
    return f"--{option.long} (-{option.short})" if option.short and option.short != option.long else f"--{option.long}"


def cassc_free_words(argv: Sequence[str], env: Mapping[str, str]) -> tuple[list[str], list[int]]:
    """The command's words (environment and options files expanded) without cassc's own options, and
    the positions of its input words: what is handed to NVIDIA's nvcc for `--cassc-target=nvidia`."""
    words: list[str] = []
    inputs: list[int] = []
    pending = command_words(argv, env)
    index = 0
    while index < len(pending):
        word = pending[index]
        index += 1
        parsed = _match_option(word)
        takes_next = parsed is not None and parsed[0].kind is not Kind.FLAG and parsed[1] is None
        if parsed is not None and parsed[0].long.startswith(CASSC_OPTION_PREFIX):
            index += 1 if takes_next else 0
            continue
        if parsed is None and not word.startswith("-"):
            inputs.append(len(words))
        words.append(word)
        if takes_next and index < len(pending):
            words.append(pending[index])
            index += 1
    return words, inputs


def parse_invocation(argv: Sequence[str], env: Mapping[str, str] | None = None) -> Invocation:
    env = os.environ if env is None else env
    words = command_words(argv, env)
    values: dict[str, object] = {}
    lists: dict[str, list[str]] = {}
    dropped: list[str] = []
    input_words: list[str] = []
    forward_unknown = any(_is_forward_option(w, "forward_unknown_to_compiler") for w in words)
    forward_unknown_linker = any(_is_forward_option(w, "forward_unknown_to_linker") for w in words)

    index = 0
    while index < len(words):
        word = words[index]
        index += 1
        parsed = _match_option(word)
        if parsed is None:
            if word.startswith("-") and word != "-":
                if forward_unknown:
                    lists.setdefault("host_compiler_options", []).append(word)
                elif forward_unknown_linker:
                    lists.setdefault("host_linker_options", []).append(word)
                else:
                    raise UsageError(f"Unknown option '{word}'")
            else:
                input_words.append(word)
            continue
        option, inline = parsed
        value: str | None = inline
        if option.kind is Kind.FLAG:
            if inline is not None:
                raise UsageError(f"option '{_spelling(option)}' takes no value (got '{word}')")
        elif value is None:
            if index >= len(words):
                raise UsageError(f"option '{_spelling(option)}' needs a value")
            value = words[index]
            index += 1
        _apply(option, word, value, values, lists, dropped)

    for name, items in lists.items():
        values[name] = tuple(items)
    values["dropped"] = tuple(dropped)
    values["inputs"] = tuple(_classify_inputs(input_words, values.get("language")))
    return _finish(values, env)


# nvcc's phases in the order its pipeline reaches them.
PHASE_ORDER = ("dependencies", "nonsystem-dependencies", "preprocess", "cuda", "ptx", "optix-ir", "ltoir", "cubin",
               "fatbin", "compile", "device-link", "lib", "link", "run")


def _is_forward_option(word: str, field_name: str) -> bool:
    parsed = _match_option(word)
    return parsed is not None and parsed[0].field == field_name


def _shell_words(value: str, option: Option) -> list[str]:
    try:
        return shlex.split(value)
    except ValueError as error:  # an unclosed quote: the host tool would get half a word
        raise UsageError(f"Value '{value}' of option '{option.long}' has an unclosed quote "
                         f"({str(error).lower()})") from error


def _apply(option: Option, word: str, value: str | None, values: dict[str, object],
           lists: dict[str, list[str]], dropped: list[str]) -> None:
    if option.effect is Effect.DROP:
        if option.choices and value not in option.choices:
            raise UsageError(f"Value '{value}' is not defined for option '{option.long}'")
        dropped.append(f"{word}{'' if value is None or value in word else ' ' + value}: {option.note}")
        return
    if option.effect is Effect.INFO:
        values["info"] = option.value
        return
    assert option.field is not None
    if option.kind is Kind.FLAG:
        new: object = option.value
    elif option.kind is Kind.BOOL:
        assert value is not None
        if value.lower() not in ("true", "false"):
            raise UsageError(f"Value '{value}' is not defined for option '{option.long}' (expected true or false)")
        new = value.lower() == "true"
    else:
        assert value is not None
        new = value
    if option.effect is Effect.PHASE:
        # Given several phases, nvcc stops at the earliest in either order (`-c -E` preprocesses:
        # sccache's nvcc support runs exactly that).
        previous = values.get("phase")
        values["phase"] = new if previous is None else min(previous, new, key=PHASE_ORDER.index)
    elif option.effect is Effect.APPEND:
        items = split_list(str(new)) if option.kind is Kind.LIST else [str(new)]
        if option.words:
            items = [w for item in items for w in _shell_words(item, option)]
        for item in items:
            if option.choices and item not in option.choices:
                raise UsageError(f"Value '{item}' is not defined for option '{option.long}'")
        lists.setdefault(option.field, []).extend(items)
    else:
        if option.choices and new not in option.choices:
            raise UsageError(f"Value '{new}' is not defined for option '{option.long}'")
        values[option.field] = new
    for implied_field, implied_value in option.implies:
        values[implied_field] = implied_value


def _classify_inputs(words: list[str], language: object) -> list[InputFile]:
    inputs = []
    for word in words:
        path = Path(word)
        kind = input_kind(path)
        if language in ("cu", "c++", "c") and kind in SOURCE_KINDS + (None,):
            kind = {"cu": InputKind.CUDA, "c++": InputKind.CXX, "c": InputKind.C}[str(language)]
        inputs.append(InputFile(path, kind or InputKind.UNKNOWN))
    return inputs


def input_kind(path: Path) -> InputKind | None:
    if re.search(r"\.so(\.\d+)*$", path.name):
        return InputKind.SHARED_LIBRARY
    return _EXTENSION_KINDS.get(path.suffix) or _EXTENSION_KINDS.get(path.suffix.lower())


# --------------------------------------------------------------------------------------------------
# architectures

_CUDA_ARCH_VALUE = re.compile(r"(?:sm|compute|lto)_(\d+)[af]?")
_AMD_ARCH_VALUE = re.compile(r"gfx[0-9]+[0-9a-f]{2}")


def _arch_values(values: dict[str, object]) -> list[str]:
    specs: list[str] = []
    specs += list(values.get("arch_specs", ()))  # type: ignore[arg-type]
    specs += list(values.get("code_specs", ()))  # type: ignore[arg-type]
    for gencode in values.get("gencode_specs", ()):  # type: ignore[union-attr]
        specs += _parse_gencode(str(gencode))
    return specs


def _parse_gencode(spec: str) -> list[str]:
    """`arch=compute_80,code=[sm_80,compute_80]` (or code="a,b" / code=a) -> its arch names."""
    match = re.fullmatch(r"\s*arch=([^,]+),\s*code=(.+)", spec)
    if not match:
        raise UsageError(f"malformed value for option 'generate-code': '{spec}' (expected arch=...,code=...)")
    codes = match.group(2).strip().strip("[]\"'")
    return [match.group(1).strip()] + [c.strip() for c in codes.split(",") if c.strip()]


def _resolve_archs(values: dict[str, object], env: Mapping[str, str]) -> None:
    cuda_archs: set[int] = set()
    amd_archs: list[str] = []
    for spec in _arch_values(values):
        if spec in ("native", "all", "all-major"):
            continue
        cuda = _CUDA_ARCH_VALUE.fullmatch(spec)
        if cuda:
            cuda_archs.add(int(cuda.group(1)))
        elif _AMD_ARCH_VALUE.fullmatch(spec):
            amd_archs.append(spec)
        else:
            raise UsageError(f"Value '{spec}' is not defined for option 'gpu-architecture'")
    explicit = list(values.get("offload_archs", ()))  # type: ignore[arg-type]
    from_env = split_list(env.get("CASSC_OFFLOAD_ARCH", ""))
    chosen = explicit or from_env or amd_archs or [DEFAULT_OFFLOAD_ARCH]
    for arch in chosen:
        if not _AMD_ARCH_VALUE.fullmatch(arch):
            raise UsageError(f"'{arch}' is not an AMD GPU target (expected e.g. gfx1100)")
    values["offload_archs"] = tuple(dict.fromkeys(chosen))
    values["cuda_archs"] = tuple(sorted(cuda_archs))


def _sort_host_options(values: dict[str, object]) -> None:
    """Host options clang cannot take through -Xarch_host and that only restate the host's default
    (-m64) are dropped, as nvcc's gcc would ignore them; -v says so."""
    kept: list[str] = []
    dropped = list(values.get("dropped", ()))  # type: ignore[call-overload]
    for option in values.get("host_compiler_options", ()):  # type: ignore[union-attr]
        if refused_by_xarch(option) and is_host_default(option):
            dropped.append(f"-Xcompiler {option}: the host compiler targets {platform.machine()} already")
        else:
            kept.append(option)
    values["host_compiler_options"] = tuple(kept)
    for kind in ("suppress", "warn", "error"):
        dropped += diagnostic_flags(kind, values.get(f"diag_{kind}", ()))[1]  # type: ignore[arg-type]
    dropped += werror_flags(values.get("werror_kinds", ()))[1]  # type: ignore[arg-type]
    values["dropped"] = tuple(dropped)


def _finish(values: dict[str, object], env: Mapping[str, str]) -> Invocation:
    _resolve_archs(values, env)
    if "phase" not in values:
        values["phase"] = "link"
    if env.get("CASSC_USE_HIPCC", "0") not in ("0", "", "false", "no", "off"):
        values["use_hipcc"] = True
    if env.get("CASSC_SASS", "0") not in ("0", "", "false", "no", "off"):
        values["force_sass"] = True
    if env.get("CASSC_COMPILE_COMMANDS"):
        values["compile_commands"] = Path(env["CASSC_COMPILE_COMMANDS"]).absolute()
    if values.get("host_compiler") is None and env.get("NVCC_CCBIN"):
        values["host_compiler"] = env["NVCC_CCBIN"]  # nvcc's documented default for -ccbin
    if values.get("max_registers") is not None:
        registers = str(values["max_registers"])
        if not registers.isdigit() or int(registers) == 0:
            raise UsageError(f"Value '{registers}' is not defined for option 'maxrregcount' (expected a positive number)")
        values["max_registers"] = int(registers)
    _sort_host_options(values)
    ptxas = values.get("ptxas_options", ())
    if "-v" in ptxas or "--verbose" in ptxas:  # type: ignore[operator]
        values["resource_usage"] = True
    for path_field in ("output", "output_directory"):
        if values.get(path_field) is not None:
            values[path_field] = Path(str(values[path_field]))
    known = {f.name for f in fields(Invocation)}
    unknown = set(values) - known
    assert not unknown, f"option table names fields the Invocation lacks: {unknown}"
    return Invocation(**values)  # type: ignore[arg-type]
