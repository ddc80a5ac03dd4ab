"""What clang makes of options written for nvcc and its host compiler, from two data files:

    data/nvcc_diagnostics.tsv      nvcc's warning numbers and names -> the clang warning of that meaning
    data/clang_xarch_refused.txt   clang options that `-Xarch_host` refuses (clang-19's NoXarchOption rows)
    data/gcc_warnings.txt          gcc 12's warning names: with nvcc_diagnostics.tsv, nvcc's -Werror scope
"""

from __future__ import annotations

import functools
import platform
from dataclasses import dataclass
from pathlib import Path

from cassc.errors import UsageError

DATA_DIR = Path(__file__).parent / "data"
NVCC_DIAGNOSTICS_TABLE = DATA_DIR / "nvcc_diagnostics.tsv"
XARCH_REFUSED_LIST = DATA_DIR / "clang_xarch_refused.txt"
GCC_WARNINGS_LIST = DATA_DIR / "gcc_warnings.txt"


@dataclass(frozen=True)
class NvccDiagnostic:
    number: str
    name: str  # "" where nvcc's name is not recorded
    clang_warning: str  # "" where clang has no warning of this meaning
    message: str


@functools.cache
def nvcc_diagnostics() -> dict[str, NvccDiagnostic]:
    """Each diagnostic under its number and, where it has one, its name."""
    table: dict[str, NvccDiagnostic] = {}
    lines = [line for line in NVCC_DIAGNOSTICS_TABLE.read_text().splitlines() if line and not line.startswith("#")]
    for line in lines[1:]:
        number, name, clang_warning, message = line.split("\t")
        row = NvccDiagnostic(number, name, clang_warning, message)
        table[number] = row
        if name:
            table[name] = row
    return table


# --diag-<kind> -> the clang flag for a warning of the same meaning
_DIAGNOSTIC_FLAG = {"suppress": "-Wno-{}", "warn": "-W{}", "error": "-Werror={}"}


def diagnostic_flags(kind: str, diagnostics: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """clang flags for `--diag-<kind>` values, and a note for each value clang has no warning for."""
    flags: list[str] = []
    notes: list[str] = []
    for value in diagnostics:
        row = nvcc_diagnostics().get(value)
        if row is None:
            if not value.isdigit():
                raise UsageError(f"'{value}': expected a number (option 'diag-{kind}')")
            notes.append(f"--diag-{kind} {value}: nvcc diagnostic {value} has no clang counterpart cassc knows")
        elif not row.clang_warning:
            notes.append(f"--diag-{kind} {value}: nvcc's '{row.message}' has no clang counterpart")
        else:
            flags.append(_DIAGNOSTIC_FLAG[kind].format(row.clang_warning))
    return flags, notes


# nvcc's `-Werror <kind>` -> the clang flag of that meaning ("" where clang has no such warning: -v says
# so). all-warnings is not a flag: diagnostics.promote_warnings gives it nvcc's scope.
WERROR_KINDS = {
    "reorder": "-Werror=reorder",
    "deprecated-declarations": "-Werror=deprecated-declarations",
    # clang's HIP already refuses a __host__ call from __host__ __device__ code in the device pass
    "cross-execution-space-call": "",
    "default-stream-launch": "",
    "missing-launch-bounds": "",
    "ext-lambda-captures-this": "",
}


def werror_flags(kinds: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """clang flags for nvcc's `-Werror` kinds, and a note for each kind clang has nothing for."""
    flags: list[str] = []
    notes: list[str] = []
    for kind in kinds:
        if kind == "all-warnings":
            continue
        if WERROR_KINDS[kind]:
            flags.append(WERROR_KINDS[kind])
        elif kind == "cross-execution-space-call":
            notes.append(f"-Werror {kind}: clang's HIP makes such calls errors already")
        else:
            notes.append(f"-Werror {kind}: nvcc-only warning, which clang does not emit")
    return flags, notes


@functools.cache
def nvcc_warning_groups() -> frozenset[str]:
    """The clang warning groups nvcc's tools have a warning of: `-Werror all-warnings` makes errors of these.

    nvcc's all-warnings promotes the warnings of its EDG front end (cudafe++/cicc `--promote_warnings`),
    ptxas (`--warning-as-error`) and its host compiler (`-Werror` on gcc's compile of the front end's
    output). clang plays the front end and gcc here, so a clang warning is in that scope when its group
    is the clang counterpart of an EDG warning (nvcc_diagnostics.tsv) or a warning gcc has by that name.
    Everything else (clang's own checks, e.g. -Wvla-cxx-extension or -Wunused-command-line-argument about
    the command cassc wrote) nvcc would never print, so it stays a warning."""
    gcc = {line.strip() for line in GCC_WARNINGS_LIST.read_text().splitlines() if line.strip() and not line.startswith("#")}
    edg = {row.clang_warning for row in nvcc_diagnostics().values() if row.clang_warning}
    return frozenset(gcc | edg)


def in_nvcc_warning_scope(group: str | None) -> bool:
    """Whether a warning of this clang group is one nvcc's -Werror would stop. Without a group it is the
    linker's or the driver's (`ld.lld: warning: ...`), which nvcc does not promote either."""
    return group is not None and group in nvcc_warning_groups()


@functools.cache
def xarch_refused() -> tuple[frozenset[str], tuple[str, ...]]:
    """clang options `-Xarch_host X` refuses: exact flags, and prefixes of joined ones (`--target=`)."""
    names = [line.strip() for line in XARCH_REFUSED_LIST.read_text().splitlines()
             if line.strip() and not line.startswith("#")]
    return frozenset(n for n in names if not n.endswith("=")), tuple(n for n in names if n.endswith("="))


def refused_by_xarch(option: str) -> bool:
    exact, joined = xarch_refused()
    return option in exact or any(option.startswith(prefix) for prefix in joined)


# Flags that select what the host already is: giving them changes nothing, so cassc drops them where
# clang cannot take them per side (`-Xarch_host -m64` is an error; nvcc's gcc takes -m64 silently).
HOST_DEFAULT_FLAGS = {"x86_64": frozenset({"-m64"}), "aarch64": frozenset({"-m64"})}


def is_host_default(option: str) -> bool:
    return option in HOST_DEFAULT_FLAGS.get(platform.machine(), frozenset())
