"""Tooling around the compiler (issue 19 item 4): compile_commands.json that clangd can use, `cassc --help`
naming every subcommand, option and variable, and rich tables that degrade to plain text in a pipe."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from cassc.cli import SUBCOMMANDS
from cassc.nvcc_identity import ENVIRONMENT
from cassc.options import CASSC_OPTION_PREFIX, NVCC_OPTIONS
from conftest import REPO, write

KERNEL = """\
#include <cuda_runtime.h>
#include "scale.h"
__global__ void scale(float *a, float by) { a[threadIdx.x] *= by * SCALE; }
int main() {
  float *a;
  cudaMalloc(&a, 64 * sizeof(float));
  scale<<<1, 64>>>(a, 2.0f);
  cudaDeviceSynchronize();
  cudaFree(a);
  return 0;
}
"""


def test_compile_commands_entries_are_clang_commands_clangd_can_use(cassc, tmp_path: Path) -> None:
    """Each compiled source gets one entry, for the user's own file; running its command with -fsyntax-only
    (as clangd parses the file) succeeds, so CUDA's names resolve through the stand-in toolkit's headers."""
    write(tmp_path / "inc/scale.h", "#define SCALE 3\n")
    write(tmp_path / "a.cu", KERNEL)
    write(tmp_path / "b.cu", "__global__ void k(int *x) { atomicAdd(x, 1); }\n")
    write(tmp_path / "c.cpp", "#include <cuda_runtime.h>\nint f() { return cudaDeviceReset(); }\n")
    env = {"CASSC_COMPILE_COMMANDS": str(tmp_path / "build/compile_commands.json")}
    cassc("-c", "a.cu", "b.cu", "-Iinc", "-DEXTRA=1", "-O2", env=env)
    cassc("-c", "c.cpp", env=env)
    cassc("-c", "a.cu", "-Iinc", "-O3", env=env)  # a rebuild replaces the file's entry
    entries = json.loads((tmp_path / "build/compile_commands.json").read_text())
    assert sorted(Path(e["file"]).name for e in entries) == ["a.cu", "b.cu", "c.cpp"]
    for entry in entries:
        arguments = entry["arguments"]
        assert Path(entry["file"]).is_absolute() and arguments[-1] == entry["file"]
        assert "clang" in Path(arguments[0]).name and "-cc1" not in arguments
        assert not any("mirror" in a for a in arguments), arguments  # the user's file, never cassc's temporary copy
        result = subprocess.run([*arguments[:-2], "-fsyntax-only", entry["file"]], cwd=entry["directory"],
                                capture_output=True, text=True)
        assert result.returncode == 0, (arguments, result.stderr)
    a_entry = next(e for e in entries if e["file"].endswith("a.cu"))
    assert "-O3" in a_entry["arguments"] and "-O2" not in a_entry["arguments"]


def help_text(cassc) -> str:  # type: ignore[no-untyped-def]
    return cassc("--help").stdout


def test_help_lists_every_subcommand_option_and_variable(cassc) -> None:
    text = help_text(cassc)
    for name in SUBCOMMANDS:
        assert re.search(rf"^  cassc {name}\b", text, re.MULTILINE), name
    assert re.search(r"^  cassc model list\b", text, re.MULTILINE)
    for option in NVCC_OPTIONS:
        if option.long.startswith(CASSC_OPTION_PREFIX):
            assert f"--{option.long}" in text and option.note.split(" (")[0][:40] in text, option.long
    for name, _ in ENVIRONMENT:
        assert re.search(rf"^  {name}\b", text, re.MULTILINE), name


def test_every_variable_cassc_reads_is_in_the_help() -> None:
    """The variables the package and the stand-in runtime read, found in their sources."""
    read: set[str] = set()
    for path in (REPO / "cassc").rglob("*.py"):
        read |= set(re.findall(r"\"(CASSC_[A-Z_]+|NVCC_[A-Z_]+)\"", path.read_text()))
    for path in (REPO / "shims").rglob("*.cpp"):
        read |= set(re.findall(r"getenv\(\"(CASSC_[A-Z_]+)\"\)", path.read_text()))
    assert read - {name for name, _ in ENVIRONMENT} == set()


def test_subcommands_are_the_typer_apps() -> None:
    import typer

    from cassc.commands import app

    names = {command.name for command in typer.main.get_command(app).commands.values()}  # type: ignore[attr-defined]
    assert names == set(SUBCOMMANDS)


def test_tables_are_plain_untruncated_text_in_a_pipe(cassc_env: dict[str, str], tmp_path: Path) -> None:
    """`cassc model list | cat` with COLUMNS unset: rich would draw an 80-column box and cut the paths."""
    env = {k: v for k, v in cassc_env.items() if k not in ("COLUMNS", "LINES")}
    result = subprocess.run([sys.executable, "-m", "cassc", "model", "list"], env=env, cwd=tmp_path,
                            capture_output=True, text=True, check=True)
    assert not re.search(r"[┏┃━│─╇┡└┘]", result.stdout), result.stdout
    assert "…" not in result.stdout
    lines = result.stdout.splitlines()
    assert any(len(line) > 80 for line in lines), "long cells were wrapped"
    assert all(line == line.rstrip() for line in lines)
    assert re.search(r"^\s*name\s+prompt\s+size / where to get it\s+status", result.stdout, re.MULTILINE)
    from cassc.repair.registry import known_models

    for model in known_models().values():  # every row whole, one line each
        assert any(model.name in line and model.download in line for line in lines), model.name
