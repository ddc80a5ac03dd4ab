"""Show what cassc built under a directory: each executable, object and library with the AMD GPU
code objects it carries (read from its .hip_fatbin offload bundles)."""

from __future__ import annotations

import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table

from cassc.formats.archive import is_archive, read_archive
from cassc.formats.code_object import code_object_target
from cassc.formats.host_object import read_host_object


def gpu_code(data: bytes) -> list[str]:
    """'gfx1100 (12.3 KiB)' for every code object; device bitcode of -rdc objects is named too."""
    found = []
    host = read_host_object(data)
    for entry in host.bundle_entries():
        if entry.payload:
            found.append(f"{code_object_target(entry.payload)} ({len(entry.payload) / 1024:.1f} KiB)")
    found += [f"{triple.rsplit('-', 1)[-1]} bitcode (-rdc)" for triple in host.device_sections]
    return found


def main(root: Path) -> int:
    table = Table(title=f"cassc outputs under {root}")
    for column in ("file", "kind", "GPU code"):
        table.add_column(column)
    # CMakeFiles/ holds CMake's probe programs, not the example's outputs.
    for path in sorted(p for p in root.rglob("*") if p.is_file() and "CMakeFiles" not in p.parts):
        data = path.read_bytes()
        if is_archive(data):
            members = [m for m in read_archive(data) if m.data[:4] == b"\x7fELF"]
            codes = [c for m in members for c in gpu_code(m.data)]
            table.add_row(str(path), "static library", ", ".join(codes) or "-")
        elif data[:4] == b"\x7fELF":
            kind = {1: "object", 2: "executable", 3: "executable/shared"}.get(data[16], "ELF")
            table.add_row(str(path), kind, ", ".join(gpu_code(data)) or "-")
    Console().print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(Path(sys.argv[1] if len(sys.argv) > 1 else ".")))
