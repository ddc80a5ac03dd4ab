"""The CUDA -> HIP rename tables, loaded from the TSV files beside this module.

Each `tables/*.tsv` file has a `cuda<TAB>hip` header and one rename per line (`#` starts a comment).
`headers.tsv` renames `#include` targets, `link-libraries.tsv` renames `-l` libraries, `packages.tsv`
names the ROCm package a family of CUDA headers needs (`package` and `debian` columns), `inline-ptx.tsv`
holds the inline PTX rules (`inline_ptx.py`); every other file renames identifiers. A CUDA name may appear in only one file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

TABLE_DIR = Path(__file__).parent / "tables"
# cassc's own headers, which headers.tsv names as `cassc/<name>.h`: HIP's header plus what it lacks.
COMPAT_INCLUDE_DIR = Path(__file__).parent.parent / "data" / "include"
HEADER_TABLE = "headers.tsv"
RUNTIME_CUDA_HEADER = "cuda_runtime.h"  # nvcc pre-includes it in every CUDA unit
LINK_LIBRARY_TABLE = "link-libraries.tsv"
PACKAGE_TABLE = "packages.tsv"
INLINE_PTX_TABLE = "inline-ptx.tsv"  # read by inline_ptx.py
MEMBER_CALL_TABLE = "member-calls.tsv"  # read by member_calls.py
HEADER_MACRO_TABLE = "header-macros.tsv"  # CUDA header -> the guard/identity macros it leaves defined
USER_OVERLOAD_TABLE = "user-overloads.tsv"  # read by user_overloads.py


@dataclass(frozen=True)
class LibraryPackage:
    include_prefix: str  # CUDA headers whose name starts with this belong to the library
    probe_header: str  # present in the toolchain's include directory when the package is installed
    name: str
    debian_package: str  # its name in Debian 13+ and Ubuntu


@dataclass(frozen=True)
class RenameTables:
    identifiers: dict[str, str]
    headers: dict[str, str]
    link_libraries: dict[str, str]
    sources: dict[str, str]  # CUDA name -> table file it came from
    packages: tuple[LibraryPackage, ...] = ()
    header_macros: dict[str, tuple[str, ...]] = field(default_factory=dict)  # see header_macros()

    def companion_headers(self, cuda_header: str) -> tuple[str, ...]:
        """The HIP headers to include beside `cuda_header`'s own: those of the CUDA headers it includes in turn
        (cublas_api.h includes cuda_fp16.h and cuda_bf16.h, so `__nv_bfloat16` is declared after
        `#include <cublas_v2.h>`), leaving out what cuda_runtime.h includes (nvcc pre-includes it in every CUDA
        unit, as cassc does HIP's runtime header) and what maps to `cuda_header`'s own HIP header. A CUDA header
        includes another exactly when it leaves every macro the other leaves (header-macros.tsv)."""
        own = self.header_macros.get(cuda_header)
        if not own:
            return ()
        defined, runtime = set(own), set(self.header_macros.get(RUNTIME_CUDA_HEADER, ()))
        found = (self.headers[other] for other, macros in sorted(self.header_macros.items())
                 if other != cuda_header and other in self.headers and defined >= set(macros)
                 and not runtime >= set(macros))
        return tuple(dict.fromkeys(h for h in found if h != self.headers.get(cuda_header)))

    def package_for(self, cuda_header: str) -> LibraryPackage | None:
        return next((p for p in self.packages if cuda_header.startswith(p.include_prefix)), None)

    def package_of_table(self, table: str) -> LibraryPackage | None:
        """The library an identifier table belongs to: `cublas.tsv` to the package of `cublas`, `cublasLt.tsv`
        to that of `cublasLt.h` (names that exist only where that package is installed)."""
        stem = Path(table).stem
        return next((p for p in self.packages if p.include_prefix.removesuffix(".h").rstrip("/") == stem), None)


def read_table(path: Path) -> list[tuple[str, str, int]]:
    """Rows (cuda, hip, line number) of one TSV table."""
    return [(cuda, hip, number) for cuda, hip, number, _ in read_rows(path)]


def read_rows(path: Path) -> list[tuple[str, str, int, list[str]]]:
    """Rows (cuda, hip, line number, further columns) of one TSV table."""
    rows = []
    lines = path.read_text().splitlines()
    if not lines or lines[0].split("\t")[:2] != ["cuda", "hip"]:
        raise ValueError(f"{path}:1: a table starts with the header 'cuda<TAB>hip'")
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        columns = line.split("\t")
        if len(columns) < 2 or not columns[0] or not columns[1]:
            raise ValueError(f"{path}:{number}: expected 'cuda<TAB>hip', got {line!r}")
        rows.append((columns[0].strip(), columns[1].strip(), number, [c.strip() for c in columns[2:]]))
    return rows


@cache
def load_tables(table_dir: Path = TABLE_DIR) -> RenameTables:
    identifiers: dict[str, str] = {}
    headers: dict[str, str] = {}
    link_libraries: dict[str, str] = {}
    sources: dict[str, str] = {}
    packages: list[LibraryPackage] = []
    for path in sorted(table_dir.glob("*.tsv")):
        if path.name in (INLINE_PTX_TABLE, MEMBER_CALL_TABLE, HEADER_MACRO_TABLE, USER_OVERLOAD_TABLE):
            continue
        if path.name == PACKAGE_TABLE:
            for cuda, hip, number, extra in read_rows(path):
                if len(extra) != 2:
                    raise ValueError(f"{path}:{number}: expected 'cuda<TAB>hip<TAB>package<TAB>debian'")
                packages.append(LibraryPackage(cuda, hip, *extra))
            continue
        target = {HEADER_TABLE: headers, LINK_LIBRARY_TABLE: link_libraries}.get(path.name, identifiers)
        for cuda, hip, number in read_table(path):
            if cuda in target:
                raise ValueError(f"{path}:{number}: '{cuda}' is already renamed by {sources[cuda]}")
            target[cuda] = hip
            sources[cuda] = path.name
    return RenameTables(identifiers, headers, link_libraries, sources, tuple(packages),
                        header_macros(table_dir / HEADER_MACRO_TABLE) if (table_dir / HEADER_MACRO_TABLE).is_file() else {})


def header_macros(path: Path = TABLE_DIR / HEADER_MACRO_TABLE) -> dict[str, tuple[str, ...]]:
    """CUDA header -> every macro it leaves defined (its guard and its CUDA includes' guards, ...), from the
    `cuda<TAB>macros` table, where an entry `<h>` stands for all of header h's macros."""
    lines = path.read_text().splitlines()
    if not lines or lines[0].split("\t")[:2] != ["cuda", "macros"]:
        raise ValueError(f"{path}:1: the table starts with the header 'cuda<TAB>macros'")
    listed: dict[str, list[str]] = {}
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        header, _, macros = line.partition("\t")
        if not macros.strip() or header in listed:
            raise ValueError(f"{path}:{number}: expected one 'header<TAB>macro ...' row per header, got {line!r}")
        listed[header.strip()] = macros.split()

    def expand(header: str, seen: frozenset[str]) -> list[str]:
        if header not in listed or header in seen:
            raise ValueError(f"{path}: <{header}> is referenced but has no row (or refers to itself)")
        result = []
        for entry in listed[header]:
            result += (expand(entry[1:-1], seen | {header}) if entry.startswith("<") else [entry])
        return result

    return {header: tuple(dict.fromkeys(expand(header, frozenset()))) for header in listed}
