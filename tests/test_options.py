"""The option table: every row parses in nvcc's spellings and does what the row says."""

from __future__ import annotations

import pytest

from cassc.errors import UsageError
from cassc.invocation import InputKind, parse_invocation, split_list
from cassc.options import NVCC_OPTIONS, Effect, Kind, Option

SAMPLE_VALUES = {"cudart": "shared", "x": "cu", "machine": "64", "default-stream": "per-thread",
                 "dopt": "on", "Werror": "all-warnings", "gpu-architecture": "sm_80", "gpu-code": "sm_80",
                 "generate-code": "arch=compute_80,code=sm_80", "options-file": None,
                 "cassc-offload-arch": "gfx1101", "optimize": "2",
                 "maxrregcount": "32", "diag-suppress": "177", "diag-warn": "550", "diag-error": "2464"}


def sample_value(option: Option) -> str:
    if option.kind is Kind.BOOL:
        return "true"
    return SAMPLE_VALUES.get(option.long) or (option.choices[-1] if option.choices else "value1")


def spellings(option: Option) -> list[list[str]]:
    names = {option.long, option.short} - {None}
    forms = []
    for name in sorted(names):  # type: ignore[type-var]
        for dashes in ("-", "--"):
            if option.kind is Kind.FLAG:
                forms.append([f"{dashes}{name}"])
            else:
                value = sample_value(option)
                forms.append([f"{dashes}{name}", value])
                forms.append([f"{dashes}{name}={value}"])
    return forms


ROWS = [o for o in NVCC_OPTIONS if o.effect is not Effect.OPTIONS_FILE]


@pytest.mark.parametrize("option", ROWS, ids=lambda o: o.long)
def test_every_row_parses_in_every_spelling(option: Option) -> None:
    for words in spellings(option):
        inv = parse_invocation([*words, "a.cu"], env={})
        if option.effect is Effect.DROP:
            assert any(note.startswith(words[0]) for note in inv.dropped), words
        elif option.effect is Effect.INFO:
            assert inv.info == option.value
        elif option.effect is Effect.PHASE:
            assert inv.phase == option.value
        else:
            assert option.field is not None
            stored = getattr(inv, option.field)
            if option.kind is Kind.FLAG:  # a flag stores its constant, or adds it to a list (-Wreorder)
                assert (option.value in stored if option.effect is Effect.APPEND else stored == option.value), words
            elif option.kind is Kind.BOOL:
                assert stored is True
            elif option.effect is Effect.APPEND:
                assert sample_value(option) in stored, words
            else:
                assert stored is not None, words
        for field_name, value in option.implies:
            assert getattr(inv, field_name) == value


@pytest.mark.parametrize("option", [o for o in NVCC_OPTIONS if o.attached], ids=lambda o: o.short)
def test_attached_values(option: Option) -> None:
    inv = parse_invocation([f"-{option.short}{sample_value(option) if option.long != 'machine' else '64'}", "a.cu"], env={})
    assert getattr(inv, option.field or "") not in (None, ())


def test_comma_lists_and_escapes() -> None:
    assert split_list(r"a,b\,c,,d") == ["a", "b,c", "d"]
    inv = parse_invocation(["-Iinc1,inc2", "-I", "inc3", r"-DLIST=1\,2", "-Xcompiler", "-fPIC,-Wall",
                            "-Xcompiler=-O2 -g", "a.cu"], env={})
    assert inv.include_dirs == ("inc1", "inc2", "inc3")
    assert inv.defines == ("LIST=1,2",)
    assert inv.host_compiler_options == ("-fPIC", "-Wall", "-O2", "-g")


def test_options_file_and_environment(tmp_path) -> None:
    options = tmp_path / "opts.rsp"
    options.write_text('-DFROM_FILE=1 "-I/path with space"\n-O3\n')
    inv = parse_invocation(["--options-file", str(options), "a.cu"],
                           env={"NVCC_PREPEND_FLAGS": "-DPRE", "NVCC_APPEND_FLAGS": "-DPOST -lm"})
    assert inv.defines == ("PRE", "FROM_FILE=1", "POST")
    assert inv.include_dirs == ("/path with space",)
    assert inv.optimize == "3" and inv.libraries == ("m",)


def test_x_cu_is_global() -> None:
    inv = parse_invocation(["a.cpp", "-x", "cu", "b.c", "c.o"], env={})
    assert [i.kind for i in inv.inputs] == [InputKind.CUDA, InputKind.CUDA, InputKind.OBJECT]


def test_unknown_option_fails_unless_forwarded() -> None:
    with pytest.raises(UsageError, match="Unknown option '-fopenmp'"):
        parse_invocation(["-fopenmp", "a.cu"], env={})
    inv = parse_invocation(["-forward-unknown-to-host-compiler", "-fopenmp", "-Wall", "a.cu"], env={})
    assert inv.host_compiler_options == ("-fopenmp", "-Wall")


@pytest.mark.parametrize("words, archs, cuda_arch", [
    (["-arch=sm_86"], ("gfx1100",), 86),
    (["-gencode", "arch=compute_80,code=sm_80", "-gencode=arch=compute_90,code=[sm_90,compute_90]"], ("gfx1100",), 80),
    (['--generate-code=arch=compute_75,code="sm_75,compute_75"'], ("gfx1100",), 75),
    (["-arch=native"], ("gfx1100",), 52),
    (["-arch", "sm_90a", "-code=sm_90a"], ("gfx1100",), 90),
    (["-arch=gfx1030"], ("gfx1030",), 52),
    (["--cassc-offload-arch=gfx1101,gfx1102", "-arch=sm_80"], ("gfx1101", "gfx1102"), 80),
])
def test_architectures_map_to_amd_targets(words, archs, cuda_arch) -> None:
    inv = parse_invocation([*words, "a.cu"], env={})
    assert inv.offload_archs == archs
    assert inv.cuda_arch == cuda_arch


def test_offload_arch_from_environment() -> None:
    assert parse_invocation(["a.cu"], env={"CASSC_OFFLOAD_ARCH": "gfx1101"}).offload_archs == ("gfx1101",)


@pytest.mark.parametrize("words, message", [
    (["-arch=sm_xx"], "Value 'sm_xx' is not defined"),
    (["-rdc=maybe"], "expected true or false"),
    (["-o"], "needs a value"),
    (["-c=1"], "takes no value"),
    (["-cudart", "dynamic"], "Value 'dynamic' is not defined"),
])
def test_bad_options_name_the_problem(words, message) -> None:
    with pytest.raises(UsageError, match=message):
        parse_invocation([*words], env={})


# Each pair as CUDA 13's nvcc resolves it: the phase its pipeline reaches first, in either order.
@pytest.mark.parametrize("words, phase", [
    (["-c", "-E"], "preprocess"), (["-E", "-c"], "preprocess"), (["-E", "-M"], "dependencies"),
    (["-MM", "-E"], "nonsystem-dependencies"), (["-c", "-ptx"], "ptx"), (["-cubin", "-E"], "preprocess"),
    (["-fatbin", "-cubin"], "cubin"), (["-c", "-lib"], "compile"), (["-link", "-c"], "compile"),
])
def test_several_phases_stop_at_the_earliest_as_nvcc_does(words, phase) -> None:
    assert parse_invocation([*words, "a.cu"], env={}).phase == phase


def test_the_table_has_one_row_per_name() -> None:
    from cassc.options import build_lookup

    assert len(build_lookup(NVCC_OPTIONS)) >= len(NVCC_OPTIONS)
