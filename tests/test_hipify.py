"""Hipify: the rename tables, the token rewriter and the out-of-tree mirror."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from cassc.hipify.rewrite import rewrite_source
from cassc.hipify.tables import TABLE_DIR, load_tables, read_rows, read_table
from cassc.hipify.tree import hipify_unit
from conftest import system_headers_missing, write


def test_tables_load_without_duplicates_and_cover_the_runtime() -> None:
    tables = load_tables()
    assert tables.identifiers["cudaMalloc"] == "hipMalloc"
    assert tables.identifiers["__shfl_down_sync"] == "__cassc_shfl_down_sync"
    assert tables.headers["cuda_runtime.h"] == "hip/hip_runtime.h"
    assert tables.link_libraries["cudart"] == "amdhip64"


def test_a_duplicate_row_is_an_error(tmp_path: Path) -> None:
    write(tmp_path / "a.tsv", "cuda\thip\ncudaFoo\thipFoo\n")
    write(tmp_path / "b.tsv", "cuda\thip\ncudaFoo\thipBar\n")
    with pytest.raises(ValueError, match="b.tsv:2: 'cudaFoo' is already renamed by a.tsv"):
        load_tables.__wrapped__(tmp_path)
    with pytest.raises(ValueError, match="header"):
        read_table(write(tmp_path / "c.tsv", "cudaFoo\thipFoo\n"))


def test_strings_comments_and_line_count_are_kept() -> None:
    source = '\n'.join([
        '#include <cuda_runtime.h>',
        '#include "local.cuh"',
        'cudaError_t e = cudaMalloc(&p, n); // cudaMalloc in a comment',
        'printf("CUDA says cudaMalloc %s\\n", cudaGetErrorString(e));',
        '/* cudaFree( */ cudaFree(p);',
        'const char* raw = R"x(cudaMemcpy ")x"; int cudaMallocX = 1;',
    ])
    result = rewrite_source(source, load_tables())
    lines = result.text.split("\n")
    assert lines[0] == "#include <hip/hip_runtime.h>"
    # cuda_runtime.h's guard macros (header-macros.tsv) follow it, then a #line gives back the user's numbers
    resume = lines.index("#line 2")
    assert "#define __CUDA_RUNTIME_H__" in lines[1:resume] and "#define __DRIVER_TYPES_H__" in lines[1:resume]
    lines = lines[:1] + lines[resume + 1:]
    assert len(lines) == 6
    assert lines[2] == "hipError_t e = hipMalloc(&p, n); // cudaMalloc in a comment"
    assert lines[3] == 'printf("CUDA says cudaMalloc %s\\n", hipGetErrorString(e));'
    assert lines[4] == "/* cudaFree( */ hipFree(p);"
    assert lines[5] == 'const char* raw = R"x(cudaMemcpy ")x"; int cudaMallocX = 1;'
    assert [(i.header, i.quoted, i.line) for i in result.includes] == [
        ("hip/hip_runtime.h", False, 1), ("local.cuh", True, 2)]


def test_mirror_follows_local_includes_and_keeps_user_files(tmp_path: Path) -> None:
    project = tmp_path / "project"
    main = write(project / "src" / "main.cu", '#include "../inc/a.cuh"\n#include <lib/b.cuh>\nint x = A + B;\n')
    header_a = write(project / "inc" / "a.cuh", "#define A cudaSuccess\n")
    write(project / "third" / "lib" / "b.cuh", '#pragma once\n#include "c.h"\n#define B 2\n')
    write(project / "third" / "lib" / "c.h", "int c = cudaErrorInvalidValue;\n")
    before = {p: p.read_bytes() for p in project.rglob("*") if p.is_file()}
    unit = hipify_unit(Path("src/main.cu"), mirror_root=tmp_path / "mirror", tables=load_tables(),
                       include_dirs=("third",), system_include_dirs=(), pre_includes=(), cwd=project)
    assert {f.original for f in unit.files} == {main, header_a, project / "third/lib/b.cuh", project / "third/lib/c.h"}
    mirrored_a = unit.original_of(unit.main).parent  # sanity: original_of undoes the mirror
    assert mirrored_a == project / "src"
    assert (tmp_path / "mirror" / header_a.relative_to("/")).read_text() == '#line 1 "inc/a.cuh"\n#define A hipSuccess\n'
    assert unit.main.read_text().startswith('#line 1 "src/main.cu"\n')
    assert unit.include_dirs == (str(tmp_path / "mirror" / (project / "third").relative_to("/")), "third")
    assert before == {p: p.read_bytes() for p in project.rglob("*") if p.is_file()}


def test_every_hip_name_is_declared_by_the_installed_headers(tmp_path: Path) -> None:
    """The tables cannot rot silently: each HIP name must exist in the HIP headers cassc compiles with."""
    from cassc.toolchain import find_toolchain

    tables = load_tables()
    toolchain = find_toolchain()

    def installed(name: str) -> bool:  # a library's header or table (cublas.tsv...) counts where its package is
        package = tables.package_of_table(name) if name.endswith(".tsv") else tables.package_for(name)
        return package is None or any((d / package.probe_header).is_file() for d in toolchain.library_include_dirs)

    # A row whose third column is `HIP 6` names what only HIP 6's library has: probed with HIP 6 and later.
    hip_6_only = {cuda for table in set(tables.sources.values()) for cuda, _, _, more in read_rows(TABLE_DIR / table)
                  if more[:1] == ["HIP 6"]}
    hip_6 = int(toolchain.hip_version.split(".")[0]) >= 6
    probe_names = sorted({hip for cuda, hip in tables.identifiers.items()
                          if tables.sources[cuda] not in ("compat.tsv", "namespaces.tsv") and installed(tables.sources[cuda])
                          and (hip_6 or cuda not in hip_6_only)})
    namespaces = sorted({hip for cuda, hip in tables.identifiers.items() if tables.sources[cuda] == "namespaces.tsv"})
    headers = sorted({hip for cuda, hip in tables.headers.items() if installed(cuda) and not system_headers_missing(cuda)})
    source = '#include "compat.h"\n'  # hip_runtime.h first: some HIP headers cannot stand alone
    source += "".join(f"#if __has_include(<{h}>)\n#include <{h}>\n#endif\n" for h in headers)
    write(tmp_path / "compat.h", (Path(__file__).parent.parent / "cassc/data/cuda_compat.h").read_text())
    source += "".join(f"#ifndef {n}\nnamespace probe_{i} {{ using ::{n}; }}\n#endif\n"
                      for i, n in enumerate(probe_names))
    source += "".join(f"namespace probe_namespace_{i} = ::{n};\n" for i, n in enumerate(namespaces))
    path = write(tmp_path / "probe.hip", source)
    compat_include = Path(__file__).parent.parent / "cassc/data/include"
    library_dirs = [flag for d in toolchain.header_library_dirs for flag in ("-isystem", str(d))]
    result = subprocess.run([str(toolchain.clang), "-x", "hip", "--offload-arch=gfx1100", "-nogpulib", *library_dirs,
                             "-isystem", str(compat_include), "-fsyntax-only", "-ferror-limit=0", "-w", str(path)], capture_output=True, text=True)
    undeclared = sorted(set(re.findall(r"no member named '(\w+)' in the global namespace", result.stderr))
                        | set(re.findall(r"expected namespace name", result.stderr)))
    assert result.returncode == 0 or undeclared, result.stderr[:2000]
    assert undeclared == [], f"HIP names in the tables that the HIP headers do not declare: {undeclared}"
