"""Hipify a translation unit out of tree.

The source file and every local header it reaches (quoted includes next to the includer, and any
include found in the user's -I/-isystem directories, recursively) are rewritten into a mirror
directory at `<mirror root>/<original absolute path>`. Relative includes such as "../inc/x.cuh"
therefore resolve inside the mirror exactly as they did in the user's tree, and each -I dir D is
searched as `<mirror root>/D` before D itself. Each mirrored file's text starts with a `#line 1 "<original>"`
directive (after the forwarders of user_overloads.py, where the unit has any), so diagnostics, __FILE__
and debug info name the user's own file and line.
The user's files are only read, never written.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from cassc.errors import InputError
from cassc.hipify.attribute_order import move_alignas_first
from cassc.hipify.brace_assignments import assign_zero_values
from cassc.hipify.dependent_templates import add_template_keywords
from cassc.hipify.driver_results import separate_driver_results
from cassc.hipify.inline_ptx import rewrite_inline_ptx
from cassc.hipify.member_calls import rewrite_member_calls
from cassc.hipify.rewrite import rewrite_source
from cassc.hipify.tables import LibraryPackage, RenameTables
from cassc.hipify.user_overloads import defined_user_overloads, rename_user_overloads, user_overload_forwarders
from cassc.hipify.vector_operators import guard_builtin_vector_operators

# Headers under these roots belong to the system or a toolchain: they are not the user's to hipify.
# nvcc pre-includes it into every CUDA unit.
RUNTIME_HEADER = "cuda_runtime.h"
SYSTEM_ROOTS = (Path("/usr/include"), Path("/usr/lib"), Path("/usr/local/include"), Path("/opt/rocm"),
                Path("/usr/local/cuda"))


@dataclass(frozen=True)
class MirroredFile:
    original: Path  # absolute, as the user's tree has it
    mirrored: Path
    digest: str  # sha256 of the hipified text
    body_digest: str  # sha256 of the hipified text after its `#line` (which names the file as spelled)
    renamed: int
    lines: int


@dataclass(frozen=True)
class _Hipified:
    name: str  # as diagnostics name the file
    prelude: str  # lines before the file's own text, followed by its #line again
    text: str
    renamed: int
    lines: int


@dataclass(frozen=True)
class MissingPackage:
    """An #include of a CUDA library header whose ROCm package the toolchain lacks."""

    package: LibraryPackage
    header: str
    location: str  # user file:line
    included: str  # the header the rewritten #include names (HIP's), which the compiler reports not found

    def message(self, install_hint: str) -> str:
        return f"{self.location}: needs {self.package.name} (for {self.header}): {install_hint}"


@dataclass(frozen=True)
class HipifiedUnit:
    mirror_root: Path
    main: Path  # the mirrored source file to compile
    files: tuple[MirroredFile, ...]
    include_dirs: tuple[str, ...]  # -I list for the compiler: mirrored dir, then the original
    system_include_dirs: tuple[str, ...]
    pre_includes: tuple[str, ...]
    # Reported instead of clang's errors if the compile fails: the include may sit in a dead #if branch.
    missing_packages: tuple[MissingPackage, ...] = ()

    def original_of(self, path: Path) -> Path:
        return original_path(self.mirror_root, path)


def original_path(mirror_root: Path, path: Path) -> Path:
    """The user's path for a mirrored path (others are returned unchanged)."""
    try:
        return Path("/") / path.relative_to(mirror_root)
    except ValueError:
        return path


def mirror_path(mirror_root: Path, original: Path) -> Path:
    return mirror_root / original.relative_to(original.anchor)


def display_path(path: Path, cwd: Path) -> str:
    """How diagnostics name a user file: relative to the working directory when it lies below it."""
    relative = os.path.relpath(path, cwd)
    return str(path) if relative.startswith("..") else relative


def _is_system(path: Path, extra_roots: tuple[Path, ...]) -> bool:
    return any(path.is_relative_to(root) for root in SYSTEM_ROOTS + extra_roots)


def hipify_unit(
    source: Path,
    *,
    cuda_unit: bool = False,
    mirror_root: Path,
    tables: RenameTables,
    include_dirs: tuple[str, ...],
    system_include_dirs: tuple[str, ...],
    pre_includes: tuple[str, ...],
    toolchain_roots: tuple[Path, ...] = (),
    library_include_dirs: tuple[Path, ...] = (),
    cwd: Path | None = None,
    write: bool = True,
) -> HipifiedUnit:
    """Hipify `source` and the local headers it reaches into the mirror. With `write` false nothing is
    written (--dryrun): the unit, with its digests, is computed all the same. A CUDA unit's mirror first
    defines the guard macros of cuda_runtime.h and the headers it includes (header-macros.tsv), as nvcc's
    pre-included cuda_runtime.h leaves them in every CUDA unit: helper headers test them (`#ifdef
    __DRIVER_TYPES_H__` defines checkCudaErrors) even in a unit that never includes a CUDA header."""
    cwd = cwd or Path.cwd()
    user_dirs = [_absolute(cwd, d) for d in include_dirs + system_include_dirs]
    user_dirs = [d for d in user_dirs if not _is_system(d, toolchain_roots)]
    hipified: dict[Path, _Hipified] = {}
    missing: list[MissingPackage] = []
    pending: list[tuple[Path, str | None]] = [(_absolute(cwd, source), str(source))]
    pre_include_paths = []
    for header in pre_includes:
        found = _resolve(header, quoted=True, includer_dir=cwd, user_dirs=user_dirs)
        if found:
            pending.append((found, None))
            pre_include_paths.append(str(mirror_path(mirror_root, found)))
        else:
            pre_include_paths.append(header)

    while pending:
        original, spelled = pending.pop()
        if original in hipified:
            continue
        try:
            # --dryrun lists a missing source's steps, as nvcc's does: its unit is empty.
            text = "" if not write and spelled == str(source) and not original.exists() else \
                original.read_text(errors="surrogateescape")
        except OSError as error:
            raise InputError(f"cannot read '{spelled or original}': {error.strerror}") from error
        # A byte-order mark is only allowed first in a file; the mirror starts with its #line.
        source_rules = separate_driver_results(text.removeprefix("\ufeff"))[0]
        source_rules = move_alignas_first(assign_zero_values(source_rules)[0])[0]
        result = rewrite_source(source_rules, tables)
        rewritten, _ = guard_builtin_vector_operators(
            add_template_keywords(rewrite_member_calls(rewrite_inline_ptx(result.text)[0])[0])[0])
        name = spelled if spelled is not None else display_path(original, cwd)
        # The source of a CUDA unit also sees the macros nvcc's pre-included cuda_runtime.h leaves defined.
        prelude = "".join(f"#ifndef {macro}\n#define {macro}\n#endif\n"
                          for macro in tables.header_macros.get(RUNTIME_HEADER, ())) if cuda_unit and spelled == str(source) else ""
        hipified[original] = _Hipified(name, prelude, rewritten, result.renamed, text.count("\n") + 1)
        for include in result.includes:
            found = _resolve(include.header, include.quoted, original.parent, user_dirs)
            if found and found not in hipified and not _is_system(found, toolchain_roots):
                pending.append((found, None))
            package = tables.package_for(include.spelled) if found is None else None
            if package and not any((d / package.probe_header).is_file() for d in library_include_dirs):
                missing.append(MissingPackage(package, include.spelled, f"{name}:{include.line}", include.header))

    # Whether a name is the program's own overload is a property of the whole unit: its definition may
    # sit in a header, its calls in the source.
    user_overloads = frozenset().union(*(defined_user_overloads(f.text) for f in hipified.values()))
    mirrored: dict[Path, MirroredFile] = {}
    for original, file in hipified.items():
        body, renamed = rename_user_overloads(file.text, user_overloads)
        header = f'#line 1 "{_escape(file.name)}"\n'
        hipified_text = (user_overload_forwarders(user_overloads) + header + (file.prelude + header if file.prelude else "")
                         + body)
        target = mirror_path(mirror_root, original)
        encoded = hipified_text.encode(errors="surrogateescape")
        if write:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(encoded)
        mirrored[original] = MirroredFile(original, target, hashlib.sha256(encoded).hexdigest(),
                                          hashlib.sha256(body.encode(errors="surrogateescape")).hexdigest(),
                                          file.renamed + renamed, file.lines)

    main_original = _absolute(cwd, source)
    return HipifiedUnit(
        mirror_root=mirror_root,
        main=mirror_path(mirror_root, main_original),
        files=tuple(mirrored.values()),
        include_dirs=_interleave(mirror_root, include_dirs, cwd),
        system_include_dirs=_interleave(mirror_root, system_include_dirs, cwd),
        pre_includes=tuple(pre_include_paths),
        missing_packages=tuple(missing),
    )


def _interleave(mirror_root: Path, dirs: tuple[str, ...], cwd: Path) -> tuple[str, ...]:
    result: list[str] = []
    for directory in dirs:
        absolute = _absolute(cwd, directory)
        result += [str(mirror_path(mirror_root, absolute)), directory]
    return tuple(result)


def _resolve(header: str, quoted: bool, includer_dir: Path, user_dirs: list[Path]) -> Path | None:
    candidates = ([includer_dir] if quoted else []) + user_dirs
    for directory in candidates:
        candidate = directory / header
        if candidate.is_file():
            return _absolute(directory, header)
    return None


def _absolute(base: Path, path: str | Path) -> Path:
    """Absolute and lexically normalised, without resolving symlinks: the mirror must reproduce the
    directory layout the includes were written against, and inside the mirror `..` is lexical."""
    return Path(os.path.normpath(Path(base, path)))


def _escape(name: str) -> str:
    return name.replace("\\", "\\\\").replace('"', '\\"')
