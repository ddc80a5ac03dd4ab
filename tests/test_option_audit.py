"""nvcc's documented options against cassc's one option table (issue 19 item 1): every option `nvcc --help`
lists is a row that does its AMD equivalent or is dropped with a `-v` line saying why, and each option
whose nvcc meaning differs from the clang option of the same spelling does nvcc's thing."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from cassc.clang_options import GCC_WARNINGS_LIST, in_nvcc_warning_scope
from cassc.diagnostics import promote_warnings
from cassc.invocation import parse_invocation
from cassc.options import NVCC_OPTIONS, OPTIONS_BY_NAME, Effect, Kind
from conftest import write

HELP_LIST = Path(__file__).parent / "nvcc_help_options.tsv"
NVCC = Path("/usr/local/cuda/bin/nvcc")
_HELP_LINE = re.compile(r"^--(\S+)(.*?)\s+\(?-?-(\S+?)\)?\s*$")
# --help writes no value for these, though they take one (nvcc fails without it), and -gencode's
# "<specification>,..." is one arch=...,code=... value whose commas belong to it.
VALUE_NOT_SHOWN = {"dependency-output": Kind.VALUE, "qpp-config": Kind.VALUE, "generate-code": Kind.VALUE}


def documented(help_text: str) -> list[tuple[str, str, str]]:
    """(long, short, value as written) for each option `nvcc --help` documents."""
    rows = []
    for line in help_text.splitlines():
        match = _HELP_LINE.match(line.rstrip()) if line.startswith("--") else None
        if match:
            rows.append((match.group(1), match.group(3), match.group(2).strip()))
    return rows


def checked_in() -> list[tuple[str, str, str]]:
    rows = [line.split("\t") for line in HELP_LIST.read_text().splitlines() if line and not line.startswith("#")]
    return [(long, short, value) for long, short, value in rows]


@pytest.mark.skipif(not NVCC.exists(), reason="nvcc is not installed")
def test_the_checked_in_list_is_what_nvcc_documents() -> None:
    help_text = subprocess.run([str(NVCC), "--help"], capture_output=True, text=True, check=True).stdout
    assert documented(help_text) == checked_in()
    assert len(checked_in()) >= 140


def _kind(value: str) -> Kind:
    if not value:
        return Kind.FLAG
    if value == "{true|false}":
        return Kind.BOOL
    return Kind.LIST if value.endswith(",...") else Kind.VALUE


@pytest.mark.parametrize("long, short, value", checked_in(), ids=lambda x: x if isinstance(x, str) else None)
def test_every_documented_option_is_one_row_of_the_table(long: str, short: str, value: str) -> None:
    row = OPTIONS_BY_NAME.get(long)
    assert row is not None, f"--{long} is not in cassc/options.py"
    assert OPTIONS_BY_NAME.get(short) is row, f"-{short} is not --{long}'s row"
    assert row.kind is VALUE_NOT_SHOWN.get(long, _kind(value)), (long, value)
    choices = re.fullmatch(r"\{(.*)\}", value)
    if choices and row.kind is Kind.VALUE and row.choices is not None:
        assert set(choices.group(1).split("|")) <= set(row.choices), long
    if row.effect is Effect.DROP:
        assert row.note, f"--{long} is dropped without saying why"


def test_dropped_options_are_reported_by_v(cassc, tmp_path: Path) -> None:
    """What `-v` prints for an option with no AMD meaning: the option and the row's reason."""
    write(tmp_path / "a.cu", "int main() { return 0; }\n")
    result = cassc("-v", "-c", "a.cu", "--jobserver", "-Ofc", "max", "--sanitize", "memcheck", "-jtd", "3")
    for option in ("jobserver", "Ofast-compile", "sanitize", "jump-table-density"):
        note = OPTIONS_BY_NAME[option].note
        assert re.search(rf"^cassc: ignoring -\S+( \S+)?: {re.escape(note)}$", result.stderr, re.MULTILINE), option


def test_the_table_has_no_row_nvcc_does_not_know_without_saying_so() -> None:
    """Rows beyond nvcc 13's --help are cassc's own or spellings older nvcc versions documented."""
    names = {name for long, short, _ in checked_in() for name in (long, short)}
    extra = {o.long for o in NVCC_OPTIONS if o.long not in names and not o.long.startswith("cassc-")}
    assert extra == {"cudafe-options", "fatbinary-options", "host-relocatable-link", "minimal", "device-int128",
                     "version-ident"}


# --------------------------------------------------------------------------------------------------
# rows whose meaning differs from the clang option spelled the same: what reaches clang

def clang_command(cassc, tmp_path: Path, *options: str, source: str = "a.cu", phase: str = "-c") -> str:
    write(tmp_path / source, "__global__ void k() {}\nint main() { return 0; }\n")
    lines = cassc("--dryrun", phase, source, *options).stderr.splitlines()
    compiles = [line for line in lines if line.startswith("#$ ") and re.search(rf"\b{re.escape(source)}\b", line)
                and "clang" in line.split()[1]]
    assert compiles, lines
    return compiles[0]


@pytest.mark.parametrize("options, present, absent", [
    # nvcc: host optimization only (device code is always optimized); clang: both sides
    (["-O0"], ["-O0", "-Xarch_device -O3"], []),
    # nvcc: host debug information only; clang: both sides
    (["-g"], ["-Xarch_host -g"], ["-Xarch_device -g"]),
    # nvcc: device debug information; clang: MIPS small-data threshold
    (["-G"], ["-Xarch_device -g", "-Xarch_device -O0"], [" -G"]),
    # nvcc: the language of the inputs is CUDA; clang has no "cu"
    (["-x", "cu"], ["-x hip"], ["-x cu "]),
    # nvcc: a list of kinds; clang: every warning an error
    (["-Werror", "reorder,deprecated-declarations"], ["-Werror=reorder", "-Werror=deprecated-declarations"],
     [" -Werror "]),
    (["-Werror", "all-warnings"], [], [" -Werror"]),
    # nvcc's own -Wreorder is clang's
    (["-Wreorder"], ["-Wreorder"], []),
    # nvcc: -D/-I/-isystem take comma lists; clang one value each
    (["-DA=1,B=2"], ["-DA=1", "-DB=2"], ["-DA=1,B=2"]),
    (["-Iinc1,inc2"], ["-Iinc1", "-Iinc2"], []),
    (["-UA,B"], ["-UA", "-UB"], ["-UA,B"]),
    (["-isystem", "s1,s2"], ["-isystem s1", "-isystem s2"], ["s1,s2"]),
    # nvcc: --entries; clang/ld: the entry point
    (["-e", "k"], [], [" -e "]),
    # nvcc: -time FILE writes a timing table; clang: -time prints its own timing
    (["-time", "t.csv"], [], [" -time", "t.csv"]),
    # nvcc: -arch picks a GPU; clang: the Darwin architecture
    (["-arch=sm_80"], ["--offload-arch=gfx1100"], [" -arch"]),
    # nvcc: the fast-math subset; clang's -ffast-math is broader
    (["-use_fast_math"], ["-fgpu-flush-denormals-to-zero", "-fno-hip-fp32-correctly-rounded-divide-sqrt"],
     ["-ffast-math"]),
    (["-ftz=true"], ["-fgpu-flush-denormals-to-zero"], []),
    (["-prec-div=false"], ["-fno-hip-fp32-correctly-rounded-divide-sqrt"], []),
    (["-fmad=false"], ["-ffp-contract=off"], []),
    (["-lineinfo"], ["-Xarch_device -gline-tables-only"], []),
    (["-rdc=true"], ["-fgpu-rdc"], []),
    (["-default-stream", "per-thread"], ["-fgpu-default-stream=per-thread"], []),
    (["-noeh"], ["-fno-exceptions"], []),
    (["-brief-diag=true"], ["-fno-caret-diagnostics", "-fno-show-column"], []),
    (["-res-usage"], ["-Rpass-analysis=kernel-resource-usage"], []),
    (["-extended-lambda"], ["-D__CUDACC_EXTENDED_LAMBDA__=1"], ["-extended-lambda"]),
])
def test_options_whose_meaning_differs_from_clangs(cassc, tmp_path: Path, options: list[str], present: list[str],
                                                    absent: list[str]) -> None:
    command = clang_command(cassc, tmp_path, *options)
    for flag in present:
        assert f" {flag}" in command, (flag, command)
    for flag in absent:
        assert flag not in command, (flag, command)


def test_include_takes_a_comma_list(cassc, tmp_path: Path) -> None:
    """nvcc: -include a.h,b.h pre-includes both (each from the mirror); clang's -include takes one file."""
    write(tmp_path / "a.h", "#define A 1\n")
    write(tmp_path / "b.h", "#define B 2\n")
    command = clang_command(cassc, tmp_path, "-include", "a.h,b.h")
    assert re.search(r" -include \S*/a\.h -include \S*/b\.h ", command) and "a.h,b.h" not in command, command


def test_save_temps_is_keep(cassc, tmp_path: Path) -> None:
    """nvcc: -save-temps = --keep, which keeps its files in the keep directory and names them on the listing;
    clang's -save-temps (kept by clang, in the working directory) never reaches clang, where compiler
    caches refuse it."""
    command = clang_command(cassc, tmp_path, "-save-temps")
    assert "-save-temps" not in command
    cassc("-save-temps", "-c", "a.cu")
    assert list(tmp_path.glob("a.cu.cassc/0/mirror/**/a.cu")) and list(tmp_path.glob("a.cu.cassc/0/a-gfx1100.ll"))


def test_dc_is_a_relocatable_compile(cassc, tmp_path: Path) -> None:
    """nvcc: -dc = -c -rdc=true; clang has no -dc."""
    command = clang_command(cassc, tmp_path, phase="-dc")
    assert " -fgpu-rdc" in command and " -dc" not in command


def test_xlinker_takes_a_comma_list(cassc, tmp_path: Path) -> None:
    """nvcc: -Xlinker a,b is two linker words; clang's -Xlinker takes exactly one."""
    write(tmp_path / "a.cu", "int main() { return 0; }\n")
    stderr = cassc("--dryrun", "a.cu", "-o", "a", "-Xlinker", "--as-needed,-z,now").stderr
    link = [line for line in stderr.splitlines() if line.rstrip().endswith(("-o \"a\"", "-o \"./a\""))][-1]
    assert "-Xlinker --as-needed -Xlinker -z -Xlinker now" in link or "-Wl,--as-needed,-z,now" in link, link


def test_l_and_capital_l_take_comma_lists() -> None:
    assert parse_invocation(["-lm,dl", "a.cu"], env={}).libraries == ("m", "dl")
    assert parse_invocation(["-Lone,two", "a.cu"], env={}).library_dirs == ("one", "two")


def test_m64_and_machine() -> None:
    assert parse_invocation(["--m64", "a.cu"], env={}).machine == "64"


# --------------------------------------------------------------------------------------------------
# -Werror all-warnings with nvcc's scope

def test_all_warnings_scope_is_nvccs_tools_warnings() -> None:
    """In scope: a warning gcc (nvcc's host compiler) or nvcc's front end has. Out: clang's own."""
    assert in_nvcc_warning_scope("unused-variable") and in_nvcc_warning_scope("deprecated-declarations")
    assert in_nvcc_warning_scope("division-by-zero")  # EDG #39, which gcc names div-by-zero
    assert not in_nvcc_warning_scope(None)  # the linker's
    for clang_only in ("vla-cxx-extension", "unused-command-line-argument", "hip-only", "pass-failed"):
        assert not in_nvcc_warning_scope(clang_only)
    text = ("a.cu:2:7: warning: unused variable 'x' [-Wunused-variable]\n    2 |   int x;\n      |       ^\n"
            "a.cu:3:9: warning: variable length arrays in C++ are a Clang extension [-Wvla-cxx-extension]\n")
    promoted, count = promote_warnings(text, in_nvcc_warning_scope)
    assert count == 1
    assert "a.cu:2:7: error: unused variable 'x' [-Werror,-Wunused-variable]\n" in promoted
    assert "a.cu:3:9: warning: variable length arrays" in promoted


CLANG_ONLY_WARNING = """\
#include <cuda_runtime.h>
__global__ void k(float *a, int n) { a[threadIdx.x] = n; }
int main(int argc, char **argv) {
  float host[argc];  // clang: -Wvla-cxx-extension; gcc and nvcc accept it silently
  host[0] = 0;
  return (int)host[0];
}
"""
NVCC_WARNING = """\
#include <cuda_runtime.h>
__global__ void k(float *a) { a[threadIdx.x] = 1.0f / 0; }
int main() { int zero = 1 / 0; return zero; }
"""


def test_werror_all_warnings_stops_on_nvccs_warnings_only(cassc, tmp_path: Path) -> None:
    write(tmp_path / "clang_only.cu", CLANG_ONLY_WARNING)
    write(tmp_path / "nvcc_too.cu", NVCC_WARNING)
    relaxed = cassc("-c", "clang_only.cu", "-Werror", "all-warnings", "-Xcompiler", "-Wvla-cxx-extension")
    assert "warning: variable length arrays" in relaxed.stderr and (tmp_path / "clang_only.o").exists()
    strict = cassc("-c", "nvcc_too.cu", "-Werror", "all-warnings", check=False)
    assert strict.returncode != 0 and not (tmp_path / "nvcc_too.o").exists()
    assert re.search(r"nvcc_too\.cu:3:\d+: error: division by zero is undefined \[-Werror,-Wdivision-by-zero\]",
                     strict.stderr), strict.stderr
    # the same compile without -Werror is cached with its warnings; -Werror all-warnings still stops on the hit
    assert "warning: division by zero" in cassc("-c", "nvcc_too.cu").stderr
    again = cassc("-c", "nvcc_too.cu", "-Werror", "all-warnings", "-o", "again.o", check=False)
    assert again.returncode != 0 and "error: division by zero" in again.stderr


@pytest.mark.skipif(not shutil.which("gcc-12"), reason="the list is gcc 12's")
def test_the_gcc_warning_list_is_gccs() -> None:
    help_text = subprocess.run(["gcc-12", "-Q", "--help=warnings"], capture_output=True, text=True).stdout
    names = set()
    for line in help_text.splitlines():
        match = re.match(r"^  -W([\w#+.-]+?)(?:=\S*)?\s+(.*)$", line)
        languages = re.search(r"\[available in ([^\]]*)\]", match.group(2)) if match else None
        if match and not (languages and not re.search(r"\bC\b|C\+\+", languages.group(1))):
            names.add(match.group(1))
    listed = {line for line in GCC_WARNINGS_LIST.read_text().splitlines() if line and not line.startswith("#")}
    assert listed == names

